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

int cmbi_zip_ordered(struct cmb *c, cmbi_order_fn order, void *arg)
{
	uint32_t **idx = calloc(c->n, sizeof(*idx));
	size_t **start = calloc(c->n, sizeof(*start));
	int err = idx && start ? 0 : pmcfi_fail(PMCF_ENOMEM, "out of memory");
	for (size_t j = 0; j < c->n && !err; j++) {
		if ((err = cmbi_by_type(c, j, &idx[j], &start[j])))
			break;
		for (uint32_t t = 0; t < c->ntypes && !err; t++)
			err = order(c, j, t, idx[j] + start[j][t], start[j][t + 1] - start[j][t], arg);
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

/* CTC's order: by start time (ties by XU index). */
static int by_start_time(struct cmb *c, size_t j, uint32_t t, uint32_t *xus, size_t n, void *arg)
{
	(void)t;
	struct by_start **tmp = arg;
	struct by_start *nt = realloc(*tmp, (n ? n : 1) * sizeof(**tmp));
	if (!nt)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	*tmp = nt;
	for (size_t k = 0; k < n; k++) {
		pmcf_xu xu;
		pmcf_profile_xu_get(c->in[j], xus[k], &xu);
		nt[k] = (struct by_start){xu.start_ns, xus[k]};
	}
	qsort(nt, n, sizeof(*nt), cmp_start);
	for (size_t k = 0; k < n; k++)
		xus[k] = nt[k].x;
	return 0;
}

int cmbi_ctc(struct cmb *c)
{
	struct by_start *tmp = NULL;
	int err = cmbi_zip_ordered(c, by_start_time, &tmp);
	free(tmp);
	return err;
}
