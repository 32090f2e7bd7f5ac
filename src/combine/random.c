/* Random pairing: within each XU type, a seeded shuffle of every profile's
 * XUs paired by position. Not from the papers; the floor that any real
 * strategy must beat in comparisons. */
#include <stdlib.h>
#include "combine/combine_impl.h"
#include "sim/rng.h"
#include "util/internal.h"

int cmbi_random(struct cmb *c)
{
	uint32_t **idx = calloc(c->n, sizeof(*idx));
	size_t **start = calloc(c->n, sizeof(*start));
	int err = idx && start ? 0 : pmcfi_fail(PMCF_ENOMEM, "out of memory");
	for (size_t j = 0; j < c->n && !err; j++) {
		if ((err = cmbi_by_type(c, j, &idx[j], &start[j])))
			break;
		for (uint32_t t = 0; t < c->ntypes; t++) {
			struct sim_rng r;
			sim_rng_seed(&r, sim_hash2(sim_hash2(c->opts->seed, j), t));
			size_t a = start[j][t], b = start[j][t + 1];
			for (size_t k = b - a; k > 1; k--) { /* Fisher-Yates */
				size_t o = sim_rng_below(&r, (uint32_t)k);
				uint32_t tmp = idx[j][a + k - 1];
				idx[j][a + k - 1] = idx[j][a + o];
				idx[j][a + o] = tmp;
			}
		}
	}
	if (!err)
		err = cmbi_zip(c, idx, start);
	for (size_t j = 0; j < c->n; j++) {
		if (idx)
			free(idx[j]);
		if (start)
			free(start[j]);
	}
	free(idx);
	free(start);
	return err;
}
