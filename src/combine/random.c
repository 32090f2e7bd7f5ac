/* Random pairing: within each XU type, a seeded shuffle of every profile's
 * XUs paired by position. Not from the papers; the floor that any real
 * strategy must beat in comparisons. */
#include "combine/combine_impl.h"
#include "util/rng.h"
#include "util/internal.h"

/* A seeded Fisher-Yates shuffle of one input's XUs of one type. */
static int shuffle(struct pmcfi_cmb *c, size_t j, uint32_t t, uint32_t *xus, size_t n, void *arg)
{
	(void)arg;
	struct pmcfi_rng r;
	pmcfi_rng_seed(&r, pmcfi_rng_hash2(pmcfi_rng_hash2(c->opts->seed, j), t));
	for (size_t k = n; k > 1; k--) {
		size_t o = pmcfi_rng_below(&r, (uint32_t)k);
		uint32_t tmp = xus[k - 1];
		xus[k - 1] = xus[o];
		xus[o] = tmp;
	}
	return 0;
}

int pmcfi_cmb_random(struct pmcfi_cmb *c) { return pmcfi_cmb_zip_ordered(c, shuffle, NULL); }
