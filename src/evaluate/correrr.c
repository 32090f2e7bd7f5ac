/* Correlation Error (fuse-task-parallel §4.4, after Mytkowicz et al.):
 * Spearman's coefficient of every event pair in the target against the
 * references; the area between the CDF of the differences and the ideal
 * CDF (a unit step at 0), which lies in [0, 2]. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "evaluate/evaluate_impl.h"
#include "util/internal.h"

struct pmcf_correrr_result {
	double value;
	size_t npairs;
	pmcf_correrr_pair *pairs;
	char **names;
	size_t nnames;
};

struct ranked {
	double v;
	size_t i;
};
static int cmp_ranked(const void *a, const void *b)
{
	double x = ((const struct ranked *)a)->v, y = ((const struct ranked *)b)->v;
	return x < y ? -1 : x > y;
}

/* Average ranks of v[0..n) into rank. */
static void ranks(struct ranked *t, size_t n, double *rank)
{
	qsort(t, n, sizeof(*t), cmp_ranked);
	for (size_t k = 0; k < n;) {
		size_t e = k;
		while (e + 1 < n && t[e + 1].v == t[k].v)
			e++;
		double r = 0.5 * (double)(k + e) + 1;
		for (size_t q = k; q <= e; q++)
			rank[t[q].i] = r;
		k = e + 1;
	}
}

/* Spearman's coefficient of two columns from their ranks rx, ry[0..n) (no
 * NaN); 0 under three rows or without spread. pmcf_spearman ranks the rows
 * where both are present and calls it; correrr ranks each column once. */
static double spearman_ranked(const double *rx, const double *ry, size_t n)
{
	if (n < 3)
		return 0;
	double mean = 0.5 * (double)(n + 1), sxy = 0, sxx = 0, syy = 0;
	for (size_t i = 0; i < n; i++) {
		double a = rx[i] - mean, b = ry[i] - mean;
		sxy += a * b;
		sxx += a * a;
		syy += b * b;
	}
	return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : 0;
}

double pmcf_spearman(const double *x, const double *y, size_t n)
{
	struct ranked *tx = malloc((n ? n : 1) * sizeof(*tx)), *ty = malloc((n ? n : 1) * sizeof(*ty));
	double *rx = malloc((n ? n : 1) * sizeof(double)), *ry = malloc((n ? n : 1) * sizeof(double));
	double rho = 0;
	size_t m = 0;
	if (tx && ty && rx && ry) {
		for (size_t i = 0; i < n; i++) {
			if (x[i] != x[i] || y[i] != y[i])
				continue;
			tx[m] = (struct ranked){x[i], m};
			ty[m] = (struct ranked){y[i], m};
			m++;
		}
		if (m >= 3) {
			ranks(tx, m, rx);
			ranks(ty, m, ry);
			rho = spearman_ranked(rx, ry, m);
		}
	}
	free(tx);
	free(ty);
	free(rx);
	free(ry);
	return rho;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The ranks of a column x[0..n) without NaN into rank (tmp: n scratch
 * entries); 0 when x has a NaN (pmcf_spearman then drops rows per pair). */
static int column_ranks(const double *x, size_t n, struct ranked *tmp, double *rank)
{
	for (size_t i = 0; i < n; i++) {
		if (x[i] != x[i])
			return 0;
		tmp[i] = (struct ranked){x[i], i};
	}
	ranks(tmp, n, rank);
	return 1;
}

/* Spearman coefficients of every pair (a < b, index a * nev + b) of the
 * view's present events, each column ranked once; rho[pair] set where both
 * are present (pmcf_spearman's value), present[pair] = 1 there. */
static int view_rhos(const struct pmcfi_view *v, size_t nev, double *rho, unsigned char *present)
{
	size_t n = v->nxu;
	struct ranked *tmp = malloc((n ? n : 1) * sizeof(*tmp));
	double *rk = malloc((n ? n : 1) * (nev ? nev : 1) * sizeof(double));
	unsigned char *ok = calloc(nev ? nev : 1, 1);
	if (!tmp || !rk || !ok) {
		free(tmp);
		free(rk);
		free(ok);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	}
	for (size_t e = 0; e < nev; e++)
		ok[e] = v->col[e] && column_ranks(v->col[e], n, tmp, rk + e * n);
	for (size_t a = 0; a < nev; a++)
		for (size_t b = a + 1; b < nev; b++) {
			present[a * nev + b] = v->col[a] && v->col[b];
			if (!present[a * nev + b])
				continue;
			rho[a * nev + b] = ok[a] && ok[b] ? spearman_ranked(rk + a * n, rk + b * n, n)
							  : pmcf_spearman(v->col[a], v->col[b], n);
		}
	free(tmp);
	free(rk);
	free(ok);
	return 0;
}

/* The Correlation Error of the compatible matches m[0..nt) (the same
 * events, the same references) into out[0..nt), all or none: the
 * references' coefficients (per pair, in reference order) once, then each
 * target's. The matches give up their event names to the results. */
static int correrr_group(struct pmcfi_match *m, size_t nt, pmcf_correrr_result **out)
{
	size_t nev = m->nev, nrefs = m->nrefs, np = nev * (nev ? nev - 1 : 0) / 2, nn = nev * nev;
	int err = 0;
	double *refrho = malloc((nn ? nn : 1) * (nrefs ? nrefs : 1) * sizeof(double)); /* [pair][k] */
	unsigned *nr = calloc(nn ? nn : 1, sizeof(unsigned));
	double *one = malloc((nn ? nn : 1) * sizeof(double));
	unsigned char *present = calloc(nn ? nn : 1, 1);
	double *rho = malloc((nrefs ? nrefs : 1) * sizeof(double));
	double *diff = malloc((np ? np : 1) * sizeof(double));
	for (size_t t = 0; t < nt; t++)
		out[t] = NULL;
	if (!refrho || !nr || !one || !present || !rho || !diff) {
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t k = 0; k < nrefs && !err; k++) {
		if ((err = view_rhos(&m->refs[k], nev, one, present)))
			break;
		for (size_t q = 0; q < nn; q++)
			if (present[q])
				refrho[q * nrefs + nr[q]++] = one[q];
	}
	for (size_t t = 0; t < nt && !err; t++) {
		pmcf_correrr_result *r = out[t] = calloc(1, sizeof(*r));
		if (r)
			r->pairs = calloc(np ? np : 1, sizeof(*r->pairs));
		if (!r || !r->pairs) {
			err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
			break;
		}
		if ((err = view_rhos(&m[t].target, nev, one, present)))
			break;
		for (size_t a = 0; a < nev; a++)
			for (size_t b = a + 1; b < nev; b++) {
				size_t q = a * nev + b, n = nr[q];
				if (!n)
					continue;
				memcpy(rho, refrho + q * nrefs, n * sizeof(double));
				pmcf_correrr_pair *p = &r->pairs[r->npairs];
				p->size = sizeof(*p);
				p->reference = pmcfi_median(rho, n);
				p->target = present[q] ? one[q] : 0;
				p->repeats = (unsigned)n;
				p->a = m[t].ev[a];
				p->b = m[t].ev[b];
				diff[r->npairs++] = p->target - p->reference;
			}
		if (!r->npairs) {
			err = pmcfi_fail(
				PMCF_ENOENT,
				"correlation error: no pair of the target's events is in a reference");
			break;
		}
		/* area between the empirical CDF F of the differences and the step H at
		 * 0: integrate |F - H| piecewise between the sorted differences */
		qsort(diff, r->npairs, sizeof(double), cmp_double);
		double area = 0;
		size_t n = r->npairs;
		for (size_t k = 0; k + 1 < n; k++) {
			double F = (double)(k + 1) / (double)n, lo = diff[k], hi = diff[k + 1];
			if (hi <= 0)
				area += F * (hi - lo); /* H = 0 left of 0 */
			else if (lo >= 0)
				area += (1 - F) * (hi - lo);
			else
				area += F * (0 - lo) + (1 - F) * hi;
		}
		if (diff[0] > 0)
			area += diff[0]; /* F = 0 while H = 1 on [0, diff[0]) */
		if (diff[n - 1] < 0)
			area += -diff[n - 1]; /* F = 1 while H = 0 on [diff[n-1], 0) */
		r->value = area;
		r->names = m[t].ev;
		r->nnames = m[t].nev;
		m[t].ev = NULL;
		m[t].nev = 0;
	}
done:
	free(refrho);
	free(nr);
	free(one);
	free(present);
	free(rho);
	free(diff);
	if (err)
		for (size_t t = 0; t < nt; t++) {
			pmcf_correrr_result_free(out[t]);
			out[t] = NULL;
		}
	return err;
}

struct correrr_cb_ctx {
	pmcf_correrr_result **out, **gout;
};

/* One group of compatible targets: its results to their targets' places. */
static int correrr_cb(void *ctx, struct pmcfi_match *gm, size_t n, const size_t *pos)
{
	struct correrr_cb_ctx *c = ctx;
	int err = correrr_group(gm, n, c->gout);
	for (size_t g = 0; g < n; g++)
		c->out[pos[g]] = c->gout[g];
	return err;
}

int pmcf_correrr_compute_many(const pmcf_profile *const *targets, size_t ntargets,
			      const pmcf_profile *const *refs, size_t nrefs, pmcf_correrr_result **out)
{
	pmcfi_clear_error();
	if (!targets || !out || !ntargets)
		return pmcfi_fail(PMCF_EINVAL, "correlation error: no target");
	for (size_t t = 0; t < ntargets; t++)
		out[t] = NULL;
	pmcf_correrr_result **gout = malloc(ntargets * sizeof(*gout));
	int err = gout ? 0 : pmcfi_fail(PMCF_ENOMEM, "out of memory");
	struct correrr_cb_ctx c = {out, gout};
	if (!err)
		err = pmcfi_match_groups(targets, ntargets, refs, nrefs, correrr_cb, &c);
	if (err)
		for (size_t t = 0; t < ntargets; t++) {
			pmcf_correrr_result_free(out[t]);
			out[t] = NULL;
		}
	free(gout);
	return err;
}

int pmcf_correrr_compute(const pmcf_profile *target, const pmcf_profile *const *refs, size_t nrefs,
			 pmcf_correrr_result **out)
{
	if (out)
		*out = NULL;
	return pmcf_correrr_compute_many(&target, 1, refs, nrefs, out);
}

void pmcf_correrr_result_free(pmcf_correrr_result *r)
{
	if (!r)
		return;
	for (size_t k = 0; k < r->nnames; k++)
		free(r->names[k]);
	free(r->names);
	free(r->pairs);
	free(r);
}

double pmcf_correrr_value(const pmcf_correrr_result *r) { return r->value; }
size_t pmcf_correrr_npairs(const pmcf_correrr_result *r) { return r->npairs; }
const pmcf_correrr_pair *pmcf_correrr_pair_at(const pmcf_correrr_result *r, size_t i)
{
	return i < r->npairs ? &r->pairs[i] : NULL;
}
