/* Chronological Type Combination (fuse-openmp §3): per XU type, the XUs of
 * every profile sorted by start time are paired by position. Also the
 * positional pairing that random.c reuses. */
#include <stdlib.h>
#include "combine/combine_impl.h"
#include "util/internal.h"

int cmbi_zip(struct cmb *c, uint32_t *const *idx, size_t *const *start)
{
	for (uint32_t t = 0; t < c->ntypes; t++) {
		size_t most = 0;
		for (size_t j = 0; j < c->n; j++) {
			size_t k = start[j][t + 1] - start[j][t];
			if (k > most)
				most = k;
		}
		for (size_t k = 0; k < most; k++) {
			long f = cmbi_add(c, t);
			if (f < 0)
				return pmcfi_fail(PMCF_ENOMEM, "out of memory pairing XUs");
			for (size_t j = 0; j < c->n; j++)
				if (start[j][t] + k < start[j][t + 1])
					c->src[(size_t)f * c->n + j] = (int32_t)idx[j][start[j][t] + k];
		}
	}
	return 0;
}

struct by_start {
	uint64_t start;
	uint32_t x;
};

static int cmp_start(const void *a, const void *b)
{
	const struct by_start *p = a, *q = b;
	if (p->start != q->start)
		return p->start < q->start ? -1 : 1;
	return (p->x > q->x) - (p->x < q->x);
}

int cmbi_ctc(struct cmb *c)
{
	uint32_t **idx = calloc(c->n, sizeof(*idx));
	size_t **start = calloc(c->n, sizeof(*start));
	int err = idx && start ? 0 : pmcfi_fail(PMCF_ENOMEM, "out of memory");
	struct by_start *tmp = NULL;
	for (size_t j = 0; j < c->n && !err; j++) {
		if ((err = cmbi_by_type(c, j, &idx[j], &start[j])))
			break;
		size_t nx = pmcf_profile_nxus(c->in[j]);
		struct by_start *nt = realloc(tmp, (nx ? nx : 1) * sizeof(*tmp));
		if (!nt) {
			err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
			break;
		}
		tmp = nt;
		for (uint32_t t = 0; t < c->ntypes; t++) {
			size_t a = start[j][t], b = start[j][t + 1];
			for (size_t k = a; k < b; k++) {
				pmcf_xu xu;
				pmcf_profile_xu_get(c->in[j], idx[j][k], &xu);
				tmp[k - a] = (struct by_start){xu.start_ns, idx[j][k]};
			}
			qsort(tmp, b - a, sizeof(*tmp), cmp_start);
			for (size_t k = a; k < b; k++)
				idx[j][k] = tmp[k - a].x;
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
	free(tmp);
	return err;
}
