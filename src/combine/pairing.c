/* Pairing helpers shared by the strategies (ctc, lgl, random, bc): append a
 * fused XU, group an input's XUs by (rank, fused type), the positional
 * pairing per type, and the threads to use. The driver (combine.c) only
 * calls the strategies and these; no strategy calls the driver. */
#include <stdlib.h>
#include <unistd.h>
#include "combine/combine_impl.h"
#include "util/abi.h"
#include "util/internal.h"

long pmcfi_cmb_add(struct pmcfi_cmb *c, uint32_t t)
{
	/* five arrays of one capacity (src: a row of n inputs per fused XU) */
	size_t cs = c->fcap, cl = c->fcap, cll = c->fcap, cf = c->fcap, cn = c->fcap;
	if (pmcfi_grow((void **)&c->src, &cs, c->nf + 1, c->n * sizeof(*c->src)) ||
	    pmcfi_grow((void **)&c->lab, &cl, c->nf + 1, sizeof(*c->lab)) ||
	    pmcfi_grow((void **)&c->lablen, &cll, c->nf + 1, sizeof(*c->lablen)) ||
	    pmcfi_grow((void **)&c->ftype, &cf, c->nf + 1, sizeof(*c->ftype)) ||
	    pmcfi_grow((void **)&c->lnode, &cn, c->nf + 1, sizeof(*c->lnode)))
		return -1;
	c->fcap = cs;
	size_t f = c->nf++;
	for (size_t j = 0; j < c->n; j++)
		c->src[f * c->n + j] = -1;
	c->lab[f] = NULL;
	c->lablen[f] = 0;
	c->lnode[f] = UINT32_MAX;
	c->ftype[f] = t;
	return (long)f;
}

uint32_t pmcfi_cmb_type(const struct pmcfi_cmb *c, size_t j, size_t x)
{
	pmcf_xu xu = PMCF_XU_INIT;
	pmcf_profile_xu_fields_get(c->in[j], x, &xu);
	return (uint32_t)pmcf_profile_rank(c->in[j], x) * c->nftypes + c->tmap[j][xu.type];
}

int pmcfi_cmb_by_type(const struct pmcfi_cmb *c, size_t j, uint32_t **idx, size_t **start)
{
	size_t nx = pmcf_profile_nxus(c->in[j]);
	uint32_t *ix = malloc((nx ? nx : 1) * sizeof(*ix));
	size_t *st = calloc(c->ntypes + 2, sizeof(*st));
	uint32_t *ty = malloc((nx ? nx : 1) * sizeof(*ty));
	if (!ix || !st || !ty) {
		free(ix);
		free(st);
		free(ty);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory grouping XUs by type");
	}
	for (size_t x = 0; x < nx; x++) {
		ty[x] = pmcfi_cmb_type(c, j, x);
		st[ty[x] + 2]++;
	}
	for (uint32_t t = 0; t < c->ntypes; t++)
		st[t + 2] += st[t + 1];
	for (size_t x = 0; x < nx; x++)
		ix[st[ty[x] + 1]++] = (uint32_t)x;
	free(ty);
	*idx = ix;
	*start = st;
	return 0;
}

void pmcfi_cmb_fused_by_type(const struct pmcfi_cmb *c, size_t nf, uint32_t *idx, size_t *start)
{
	for (size_t f = 0; f < nf; f++)
		start[c->ftype[f] + 2]++;
	for (uint32_t t = 0; t < c->ntypes; t++)
		start[t + 2] += start[t + 1];
	for (size_t f = 0; f < nf; f++)
		idx[start[c->ftype[f] + 1]++] = (uint32_t)f;
}

int pmcfi_cmb_zip(struct pmcfi_cmb *c, uint32_t *const *idx, size_t *const *start)
{
	for (uint32_t t = 0; t < c->ntypes; t++) {
		size_t most = 0;
		for (size_t j = 0; j < c->n; j++) {
			size_t k = start[j][t + 1] - start[j][t];
			if (k > most)
				most = k;
		}
		for (size_t k = 0; k < most; k++) {
			long f = pmcfi_cmb_add(c, t);
			if (f < 0)
				return pmcfi_fail(PMCF_ENOMEM, "out of memory pairing XUs");
			for (size_t j = 0; j < c->n; j++)
				if (start[j][t] + k < start[j][t + 1])
					c->src[(size_t)f * c->n + j] = (int32_t)idx[j][start[j][t] + k];
		}
	}
	return 0;
}

int pmcfi_cmb_zip_ordered(struct pmcfi_cmb *c, pmcfi_cmb_order_fn order, void *arg)
{
	uint32_t **idx = calloc(c->n, sizeof(*idx));
	size_t **start = calloc(c->n, sizeof(*start));
	int err = idx && start ? 0 : pmcfi_fail(PMCF_ENOMEM, "out of memory");
	for (size_t j = 0; j < c->n && !err; j++) {
		if ((err = pmcfi_cmb_by_type(c, j, &idx[j], &start[j])))
			break;
		for (uint32_t t = 0; t < c->ntypes && !err; t++)
			err = order(c, j, t, idx[j] + start[j][t], start[j][t + 1] - start[j][t], arg);
	}
	if (!err)
		err = pmcfi_cmb_zip(c, idx, start);
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

size_t pmcfi_cmb_cpus(const struct pmcfi_cmb *c)
{
	unsigned want = c->opts->threads; /* the options are a checked full copy */
	if (!want) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		want = n > 0 ? (unsigned)n : 1;
	}
	return want > 64 ? 64 : want;
}
