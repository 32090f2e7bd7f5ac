/* Chronological Type Combination (fuse-openmp §3): per XU type, the XUs of
 * every profile sorted by start time are paired by position (the
 * positional pairing is in pairing.c). */
#include <stdlib.h>
#include "combine/combine_impl.h"
#include "util/internal.h"

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
static int by_start_time(struct pmcfi_cmb *c, size_t j, uint32_t t, uint32_t *xus, size_t n, void *arg)
{
	(void)t;
	struct by_start **tmp = arg;
	struct by_start *nt = realloc(*tmp, (n ? n : 1) * sizeof(**tmp));
	if (!nt)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	*tmp = nt;
	for (size_t k = 0; k < n; k++) {
		pmcf_xu xu = PMCF_XU_INIT;
		pmcf_profile_xu_fields_get(c->in[j], xus[k], &xu);
		nt[k] = (struct by_start){xu.start_ns, xus[k]};
	}
	qsort(nt, n, sizeof(*nt), cmp_start);
	for (size_t k = 0; k < n; k++)
		xus[k] = nt[k].x;
	return 0;
}

int pmcfi_cmb_ctc(struct pmcfi_cmb *c)
{
	struct by_start *tmp = NULL;
	int err = pmcfi_cmb_zip_ordered(c, by_start_time, &tmp);
	free(tmp);
	return err;
}
