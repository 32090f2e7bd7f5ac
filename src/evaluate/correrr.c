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
			double mean = 0.5 * (double)(m + 1), sxy = 0, sxx = 0, syy = 0;
			for (size_t i = 0; i < m; i++) {
				double a = rx[i] - mean, b = ry[i] - mean;
				sxy += a * b;
				sxx += a * a;
				syy += b * b;
			}
			rho = sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : 0;
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

int pmcf_correrr_compute(const pmcf_profile *target, const pmcf_profile *const *refs, size_t nrefs,
			 pmcf_correrr_result **out)
{
	pmcfi_clear_error();
	*out = NULL;
	struct pmcfi_match m;
	int err = pmcfi_match_build(target, refs, nrefs, &m);
	if (err)
		return err;
	size_t np = m.nev * (m.nev ? m.nev - 1 : 0) / 2;
	pmcf_correrr_result *r = calloc(1, sizeof(*r));
	double *rho = malloc((nrefs ? nrefs : 1) * sizeof(double));
	double *diff = malloc((np ? np : 1) * sizeof(double));
	if (r)
		r->pairs = calloc(np ? np : 1, sizeof(*r->pairs));
	if (!r || !r->pairs || !rho || !diff) {
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t a = 0; a < m.nev; a++)
		for (size_t b = a + 1; b < m.nev; b++) {
			size_t nr = 0;
			for (size_t k = 0; k < nrefs; k++)
				if (m.refs[k].col[a] && m.refs[k].col[b])
					rho[nr++] = pmcf_spearman(m.refs[k].col[a], m.refs[k].col[b],
								  m.refs[k].nxu);
			if (!nr)
				continue;
			pmcf_correrr_pair *p = &r->pairs[r->npairs];
			p->reference = pmcfi_median(rho, nr);
			p->target = m.target.col[a] && m.target.col[b]
					    ? pmcf_spearman(m.target.col[a], m.target.col[b], m.target.nxu)
					    : 0;
			p->repeats = (unsigned)nr;
			p->a = m.ev[a];
			p->b = m.ev[b];
			diff[r->npairs++] = p->target - p->reference;
		}
	if (!r->npairs) {
		err = pmcfi_fail(PMCF_ENOENT,
				 "correlation error: no pair of the target's events is in a reference");
		goto done;
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
	r->names = m.ev;
	r->nnames = m.nev;
	m.ev = NULL;
	m.nev = 0;
done:
	free(rho);
	free(diff);
	pmcfi_match_free(&m);
	if (err) {
		pmcf_correrr_result_free(r);
		return err;
	}
	*out = r;
	return 0;
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
