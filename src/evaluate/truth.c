/* Error against ground truth (simulated sources): each value of a plain or
 * multiplexed profile against its own truth layer; each value of a fused
 * profile against the truth of the XU it represents, the first source XU of
 * its provenance (as BC keeps E_prev from t_prev, fuse-task-parallel §3.2).
 * Per event: the median over the values not copied from that XU (which are
 * exact), a missing value counting as error 1; the summary is the median and
 * 90th percentile of those medians over the events (docs/accuracy.md). */
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "evaluate/evaluate_impl.h"
#include "profile/ident.h"
#include "util/internal.h"

struct pmcf_truth_result {
	const char *mode;
	double median, p90, missing_share;                /* over the events' medians */
	double pooled_median, pooled_p90, pooled_missing; /* the first summary: every value */
	double mean;                                      /* the headline: mean over events of evmean */
	double *evmean;                                   /* per event: mean relative error, missing = 1 */
	size_t nev;
	pmcf_truth_event *ev;
	char **names;
};

static double rel_error(double v, double t) { return fabs(v - t) / (fabs(t) > 1 ? fabs(t) : 1); }

/* Opens source s of p (relative paths against dir, then the working
 * directory; an absolute path that is gone: its file name in dir, as when
 * the fused profile and its sources moved together), or NULL with the
 * error in *err. */
static pmcf_profile *open_source(const pmcf_profile *p, uint32_t s, const char *dir, int *err)
{
	const char *path, *id;
	*err = pmcf_profile_source_get(p, s, &path, &id);
	if (*err)
		return NULL;
	char buf[4096];
	if (path[0] != '/' && dir)
		snprintf(buf, sizeof(buf), "%s/%s", dir, path);
	else
		snprintf(buf, sizeof(buf), "%s", path);
	pmcf_profile *q = NULL;
	*err = pmcf_profile_open(buf, &q);
	if (*err && path[0] != '/') /* relative to the working directory instead */
		*err = pmcf_profile_open(path, &q);
	if (*err && path[0] == '/' && dir && access(path, F_OK) != 0) {
		const char *base = strrchr(path, '/') + 1;
		char moved[4096];
		snprintf(moved, sizeof(moved), "%s/%s", dir, base);
		if (access(moved, F_OK) == 0)
			*err = pmcf_profile_open(moved, &q);
	}
	if (!*err && (*err = pmcfi_profile_ident_check(q, id))) {
		pmcf_profile_free(q);
		q = NULL;
	}
	if (*err)
		pmcfi_fail_prefix(*err, "source profile '%s' of the fused profile", buf);
	return q;
}

/* One comparison's state: the profile, its sources, per XU the XU it
 * represents, the values' relative errors and the running sums. */
struct tcmp {
	const pmcf_profile *p;
	pmcf_truth_result *r;
	int own, prov;
	size_t nx;
	pmcf_profile **src;
	const int64_t *rep_xu;
	const int32_t *rep_src;
	double *all, *one, *meds; /* pooled errors; one event's; per event medians */
	size_t nall, miss_all, vals_all, nmeds, cmp_all;
	double mean_sum;
};

/* The XU each fused XU represents: the provenance with the lowest source
 * index (whose truth a fused profile's own layer holds). */
static void represented(const pmcf_profile *p, size_t nx, size_t ne, int32_t *rep_src, int64_t *rep_xu)
{
	for (size_t i = 0; i < nx; i++) {
		rep_src[i] = -1;
		rep_xu[i] = -1;
		for (size_t e = 0; e < ne; e++) {
			int32_t s;
			int64_t x;
			if (pmcf_profile_provenance_get(p, i, e, &s, &x) == 0 && s >= 0 && x >= 0 &&
			    (rep_src[i] < 0 || s < rep_src[i])) {
				rep_src[i] = s;
				rep_xu[i] = x;
			}
		}
	}
}

/* The truth of XU i for event name: its own layer, or its source's; NaN
 * when there is none. */
static double truth_of(const struct tcmp *c, const double *own_t, size_t i, const char *name)
{
	double t = NAN;
	if (c->own) {
		t = own_t[i];
	} else if (c->rep_src[i] >= 0 && c->src[c->rep_src[i]]) {
		const pmcf_profile *q = c->src[c->rep_src[i]];
		long k = pmcf_profile_truth_find(q, name);
		if (k >= 0 && (size_t)c->rep_xu[i] < pmcf_profile_nxus(q))
			t = pmcf_profile_truth_column_const(q, (size_t)k)[c->rep_xu[i]];
	}
	return t;
}

/* Event e against its truth: a row of c->r (none for an event without
 * truth or values), the pooled errors and the sums. */
static int compare_event(struct tcmp *c, size_t e)
{
	const pmcf_profile *p = c->p;
	pmcf_truth_result *r = c->r;
	double *one = c->one;
	const char *name = pmcf_profile_event_name(p, e);
	if (strcmp(name, "duration") == 0)
		return 0;
	const double *v = pmcf_profile_column_const(p, e);
	const double *own_t = NULL;
	if (c->own) {
		long k = pmcf_profile_truth_find(p, name);
		if (k < 0)
			return 0;
		own_t = pmcf_profile_truth_column_const(p, (size_t)k);
	}
	pmcf_truth_event *te = &r->ev[r->nev];
	te->size = sizeof(*te);
	size_t n = 0, pooled = c->nall;
	for (size_t i = 0; i < c->nx; i++) {
		if (v[i] != v[i]) {
			te->missing++;
			one[n++] = 1; /* what reading it as 0 would cost */
			continue;
		}
		double t = truth_of(c, own_t, i, name);
		if (t != t)
			continue;
		double re = rel_error(v[i], t);
		c->all[c->nall++] = re;
		int32_t s;
		int64_t x;
		if (c->prov && c->rep_src[i] >= 0 && pmcf_profile_provenance_get(p, i, e, &s, &x) == 0 &&
		    s == c->rep_src[i] && x == c->rep_xu[i]) {
			te->from_base++; /* copied from the XU it is compared with: exact */
			continue;
		}
		one[n++] = re;
	}
	if (!n && !te->missing && c->nall == pooled)
		return 0;
	if (!(r->names[r->nev] = strdup(name)))
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	te->name = r->names[r->nev];
	te->values = n - te->missing;
	te->median_rel = n ? pmcfi_median(one, n) : NAN;
	te->p90_rel = n ? pmcfi_quantile(one, n, 0.9) : NAN;
	if (n) {
		c->meds[c->nmeds++] = te->median_rel;
		double sum = 0;
		for (size_t q = 0; q < n; q++)
			sum += one[q];
		r->evmean[r->nev] = sum / (double)n;
		c->mean_sum += r->evmean[r->nev];
	} else {
		r->evmean[r->nev] = NAN;
	}
	c->miss_all += te->missing;
	c->cmp_all += n;
	c->vals_all += (c->nall - pooled) + te->missing;
	r->nev++;
	return 0;
}

/* The summary over the events of c (pooled and per event). */
static int summarise(struct tcmp *c)
{
	pmcf_truth_result *r = c->r;
	if (!c->nall && !c->miss_all)
		return pmcfi_fail(PMCF_ENOENT, "no value of the profile has a ground truth to compare with");
	r->pooled_median = pmcfi_median(c->all, c->nall);
	r->pooled_p90 = pmcfi_quantile(c->all, c->nall, 0.9);
	r->pooled_missing = c->vals_all ? (double)c->miss_all / (double)c->vals_all : 0;
	/* every value copied from the compared XU: nothing came from elsewhere */
	r->mean = c->nmeds ? c->mean_sum / (double)c->nmeds : 0;
	r->median = c->nmeds ? pmcfi_median(c->meds, c->nmeds) : 0;
	r->p90 = c->nmeds ? pmcfi_quantile(c->meds, c->nmeds, 0.9) : 0;
	r->missing_share = c->cmp_all ? (double)c->miss_all / (double)c->cmp_all : 0;
	return 0;
}

int pmcf_truth_compare(const pmcf_profile *p, const char *path, pmcf_truth_result **out)
{
	pmcfi_clear_error();
	*out = NULL;
	size_t ne = pmcf_profile_nevents(p), nx = pmcf_profile_nxus(p);
	int own = pmcf_profile_ntruth(p) > 0;
	/* a fused profile of real programs (no sim_spec) has no truth to look
	 * for in its sources: say so rather than fail on opening them */
	if (!own && (!(pmcf_profile_has_provenance(p) && pmcf_profile_nsources(p) > 0) ||
		     !pmcf_profile_meta_get(p, PMCF_META_SIM_SPEC)))
		return pmcfi_fail(PMCF_ENOENT, "the profile has no ground truth (only simulated sources "
					       "have one) and no provenance leading to sources with one");
	pmcf_truth_result *r = calloc(1, sizeof(*r));
	size_t ns = own ? 0 : pmcf_profile_nsources(p);
	pmcf_profile **src = calloc(ns ? ns : 1, sizeof(*src));
	double *all = malloc((ne * nx > 0 ? ne * nx : 1) * sizeof(double));
	double *one = malloc((nx ? nx : 1) * sizeof(double));
	double *meds = malloc((ne ? ne : 1) * sizeof(double));
	int64_t *rep_xu = malloc((nx ? nx : 1) * sizeof(int64_t));
	int32_t *rep_src = malloc((nx ? nx : 1) * sizeof(int32_t));
	char *dircopy = path ? strdup(path) : NULL;
	const char *dir = dircopy ? dirname(dircopy) : NULL;
	int err = 0;
	if (r) {
		r->ev = calloc(ne ? ne : 1, sizeof(*r->ev));
		r->names = calloc(ne ? ne : 1, sizeof(*r->names));
		r->evmean = calloc(ne ? ne : 1, sizeof(*r->evmean));
	}
	if (!r || !src || !all || !one || !meds || !rep_xu || !rep_src || (path && !dircopy) || !r->ev ||
	    !r->names || !r->evmean) {
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
		goto done;
	}
	r->mode = own ? "own" : "sources";
	int prov = pmcf_profile_has_provenance(p) != 0;
	if (prov)
		represented(p, nx, ne, rep_src, rep_xu);
	if (!own) {
		for (size_t i = 0; i < nx && !err; i++) {
			int32_t s = rep_src[i];
			if (s >= 0 && (size_t)s < ns && !src[s] &&
			    !(src[s] = open_source(p, (uint32_t)s, dir, &err)))
				break;
		}
		if (err)
			goto done;
	}
	struct tcmp c = {.p = p,
			 .r = r,
			 .own = own,
			 .prov = prov,
			 .nx = nx,
			 .src = src,
			 .rep_xu = rep_xu,
			 .rep_src = rep_src,
			 .all = all,
			 .one = one,
			 .meds = meds};
	for (size_t e = 0; e < ne && !err; e++)
		err = compare_event(&c, e);
	if (!err)
		err = summarise(&c);
done:
	for (size_t s = 0; s < ns && src; s++)
		pmcf_profile_free(src[s]);
	free(src);
	free(all);
	free(one);
	free(meds);
	free(rep_xu);
	free(rep_src);
	free(dircopy);
	if (err) {
		pmcf_truth_result_free(r);
		return err;
	}
	*out = r;
	return 0;
}

void pmcf_truth_result_free(pmcf_truth_result *r)
{
	if (!r)
		return;
	for (size_t k = 0; k < r->nev; k++)
		free(r->names[k]);
	free(r->names);
	free(r->ev);
	free(r->evmean);
	free(r);
}

void pmcf_truth_summary(const pmcf_truth_result *r, double *median_rel, double *p90_rel,
			double *share_missing)
{
	*median_rel = r->median;
	*p90_rel = r->p90;
	*share_missing = r->missing_share;
}

void pmcf_truth_summary_pooled(const pmcf_truth_result *r, double *median_rel, double *p90_rel,
			       double *share_missing)
{
	*median_rel = r->pooled_median;
	*p90_rel = r->pooled_p90;
	*share_missing = r->pooled_missing;
}
double pmcf_truth_mean(const pmcf_truth_result *r) { return r->mean; }
double pmcf_truth_event_mean(const pmcf_truth_result *r, size_t i) { return i < r->nev ? r->evmean[i] : NAN; }
const char *pmcf_truth_mode(const pmcf_truth_result *r) { return r->mode; }
size_t pmcf_truth_nevents(const pmcf_truth_result *r) { return r->nev; }
const pmcf_truth_event *pmcf_truth_event_at(const pmcf_truth_result *r, size_t i)
{
	return i < r->nev ? &r->ev[i] : NULL;
}
