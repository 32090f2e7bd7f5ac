/* The counter-inspection driver: plans the kernel runs (branch sweeps over
 * iteration counts, cache sweeps over buffer sizes, each against a baseline),
 * has a backend count them, and categorises every event into a report. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "categorize/categorize_impl.h"
#include "util/abi.h"
#include "util/internal.h"

struct pmcf_categorize_report {
	char *backend;
	pmcf_categorize_levels levels;
	size_t n;
	pmcf_categorize_event *ev;
	char **names;
	double *iters, *bytes, *per_access;
	size_t npoints, nsizes;
};

static int is_cachegrind(const char *backend)
{
	return backend && strcmp(backend, PMCF_CATEGORIZE_CACHEGRIND) == 0;
}

void pmcf_categorize_options_init(pmcf_categorize_options *o, const char *backend)
{
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
	o->backend = is_cachegrind(backend) ? PMCF_CATEGORIZE_CACHEGRIND : PMCF_CATEGORIZE_PERF;
	/* Under valgrind every step costs ~50x: small sweeps there. */
	o->iterations = is_cachegrind(backend) ? 20000 : 1000000;
	o->accesses = is_cachegrind(backend) ? 1ul << 17 : 1ul << 22;
	o->points = 4;
	o->unit = 64;
	o->jobs = is_cachegrind(backend) ? 2 : 1;
	o->seed = 1;
}

int pmcf_categorize_catalog(const char *backend, pmcf_catalog **out)
{
	pmcfi_clear_error();
	if (!out)
		return pmcfi_fail(PMCF_EINVAL, "no result for the catalogue");
	if (is_cachegrind(backend))
		return pmcfi_categorize_cachegrind_catalog(out);
	if (backend && strcmp(backend, PMCF_CATEGORIZE_PERF) != 0)
		return pmcfi_fail(PMCF_EINVAL, "unknown backend '%s' (perf or cachegrind)", backend);
	/* PAPI presets are several natives: categorize counts single events */
	return pmcf_catalog_perf(PMCF_CATALOG_NO_TRACEPOINTS | PMCF_CATALOG_NO_PAPI, out);
}

/* ---- the report ---------------------------------------------------------------- */

void pmcf_categorize_report_free(pmcf_categorize_report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		free(r->names[i]);
	free(r->names);
	free(r->ev);
	free(r->iters);
	free(r->bytes);
	free(r->per_access);
	free(r->backend);
	free(r);
}

const char *pmcf_categorize_report_backend(const pmcf_categorize_report *r) { return r->backend; }
size_t pmcf_categorize_report_size(const pmcf_categorize_report *r) { return r->n; }
const pmcf_categorize_levels *pmcf_categorize_report_levels(const pmcf_categorize_report *r)
{
	return &r->levels;
}

const pmcf_categorize_event *pmcf_categorize_report_at(const pmcf_categorize_report *r, size_t i)
{
	return r && i < r->n ? &r->ev[i] : NULL;
}

size_t pmcf_categorize_report_sizes(const pmcf_categorize_report *r, const double **bytes)
{
	if (bytes)
		*bytes = r->bytes;
	return r->nsizes;
}

size_t pmcf_categorize_report_iterations(const pmcf_categorize_report *r, const double **iters)
{
	if (iters)
		*iters = r->iters;
	return r->npoints;
}

static double *dup_doubles(const double *v, size_t n)
{
	double *d = malloc((n ? n : 1) * sizeof(*d));
	if (d && n)
		memcpy(d, v, n * sizeof(*d));
	return d;
}

/* The overall category: the more confident of the branch and the cache
 * categories that were found. */
static void decide(pmcf_categorize_event *e)
{
	int b = e->branch.category >= 0, c = e->cache.level >= 0;
	if (b && (!c || e->branch.confidence >= e->cache.confidence)) {
		e->category = pmcf_categorize_branch_name(e->branch.category);
		e->confidence = e->branch.confidence;
	} else if (c) {
		e->category = e->cache.category;
		e->confidence = e->cache.confidence;
	} else {
		e->category = "none";
		e->confidence = 0;
	}
}

int pmcf_categorize_report_from(const char *backend, const pmcf_categorize_levels *lv,
				const char *const *events, size_t n, const double *iters, size_t npoints,
				const double *counts, const double *bytes, size_t nsizes,
				const double *per_access, double threshold, pmcf_categorize_report **out)
{
	pmcfi_clear_error();
	if (!events || !out || (npoints && (!iters || !counts || npoints < 2)) ||
	    (nsizes && (!bytes || !per_access || !lv)))
		return pmcfi_fail(PMCF_EINVAL, "a report needs events and whole measurements");
	if (lv) {
		int rc = pmcfi_check_struct("pmcf_categorize_levels", lv, lv->size, sizeof(*lv), sizeof(*lv));
		if (rc)
			return rc;
	}
	pmcf_categorize_report *r = calloc(1, sizeof(*r));
	if (!r)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	r->backend = pmcfi_strdup(backend ? backend : "");
	r->ev = calloc(n ? n : 1, sizeof(*r->ev));
	r->names = calloc(n ? n : 1, sizeof(*r->names));
	r->iters = dup_doubles(iters, npoints);
	r->bytes = dup_doubles(bytes, nsizes);
	r->per_access = dup_doubles(per_access, n * nsizes);
	if (!r->backend || !r->ev || !r->names || !r->iters || !r->bytes || !r->per_access) {
		pmcf_categorize_report_free(r);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	}
	r->npoints = npoints;
	r->nsizes = nsizes;
	if (lv)
		r->levels = *lv;
	int err = 0;
	for (size_t e = 0; e < n && !err; e++) {
		pmcf_categorize_event *ev = &r->ev[e];
		ev->size = sizeof(*ev);
		if (!(r->names[e] = pmcfi_strdup(events[e]))) {
			err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
			break;
		}
		r->n = e + 1;
		ev->name = r->names[e];
		ev->per_access = r->per_access + e * nsizes;
		ev->branch.category = -1;
		ev->cache.level = -1;
		snprintf(ev->cache.category, sizeof(ev->cache.category), "none");
		snprintf(ev->cache.signature, sizeof(ev->cache.signature), "%s", "");
		for (size_t k = 0; k < PMCF_CATEGORIZE_NKERNELS; k++)
			ev->fit[k].slope = ev->fit[k].intercept = ev->fit[k].r2 = NAN;
		if (npoints) {
			for (unsigned k = 0; k < PMCF_CATEGORIZE_NKERNELS && !err; k++)
				err = pmcf_categorize_fit_line(iters,
							       counts + (e * PMCF_CATEGORIZE_NKERNELS + k) *
										npoints,
							       npoints, &ev->fit[k]);
			if (!err)
				err = pmcf_categorize_branch_classify(ev->fit, threshold, &ev->branch);
		}
		if (!err && nsizes)
			err = pmcf_categorize_cache_classify(lv, bytes, ev->per_access, nsizes, threshold,
							     &ev->cache);
		decide(ev);
	}
	if (err) {
		pmcf_categorize_report_free(r);
		return pmcfi_fail_prefix(err, "%s", "categorisation");
	}
	r->n = n;
	*out = r;
	return 0;
}

/* ---- running the kernels ----------------------------------------------------------- */

/* The kernels executable: the option, $PMCF_CATEGORIZE_KERNELS, or
 * pmcfuse-categorize-kernels next to the running program. */
static int find_kernels(const char *opt, char *path, size_t len)
{
	const char *env = getenv("PMCF_CATEGORIZE_KERNELS");
	if (opt || (env && *env)) {
		snprintf(path, len, "%s", opt ? opt : env);
	} else {
		char self[PATH_MAX];
		ssize_t k = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (k < 0)
			return pmcfi_fail(PMCF_ENOENT, "cannot find pmcfuse-categorize-kernels: set "
						       "PMCF_CATEGORIZE_KERNELS");
		self[k] = 0;
		char *slash = strrchr(self, '/');
		if (slash)
			*slash = 0;
		if ((size_t)snprintf(path, len, "%.*s/pmcfuse-categorize-kernels", (int)(len - 32), self) >=
		    len)
			return pmcfi_fail(PMCF_ENOENT, "path of pmcfuse-categorize-kernels too long");
	}
	if (access(path, X_OK) != 0)
		return pmcfi_fail(PMCF_ENOENT,
				  "the kernels executable %s is missing (%s): build "
				  "pmcfuse-categorize-kernels or set PMCF_CATEGORIZE_KERNELS",
				  path, strerror(errno));
	return 0;
}

static void set_run(struct pmcfi_categorize_run *r, const char *exe, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A run from the executable and a space-separated argument line. */
static void set_run(struct pmcfi_categorize_run *r, const char *exe, const char *fmt, ...)
{
	char line[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	memset(r, 0, sizeof(*r));
	r->argv[0] = (char *)exe;
	size_t a = 1;
	char *sv, *tok = strtok_r(line, " ", &sv);
	for (; tok && a < CATEGORIZE_MAX_ARGS - 1; tok = strtok_r(NULL, " ", &sv), a++) {
		snprintf(r->store[a], sizeof(r->store[a]), "%s", tok);
		r->argv[a] = r->store[a];
	}
	r->argv[a] = NULL;
}

static int measure(const pmcf_categorize_options *o, const struct pmcfi_categorize_run *runs, size_t nruns,
		   const char *const *events, size_t n, double *counts)
{
	if (is_cachegrind(o->backend))
		return pmcfi_categorize_cachegrind_measure(o, runs, nruns, events, n, counts);
	return pmcfi_categorize_perf_measure(o, runs, nruns, events, n, counts);
}

int pmcf_categorize_run(const pmcf_categorize_options *o, const char *const *events, size_t n,
			pmcf_categorize_report **out)
{
	pmcfi_clear_error();
	if (!o || !events || !n || !out)
		return pmcfi_fail(PMCF_EINVAL, "categorisation needs options (pmcf_categorize_options_init) "
					       "and events");
	int rc = pmcfi_check_struct("pmcf_categorize_options", o, o->size, sizeof(*o), sizeof(*o));
	if (rc)
		return rc;
	if (o->points < 2 || !o->iterations || !o->accesses || o->unit < 8 || o->unit % 8)
		return pmcfi_fail(PMCF_EINVAL, "categorisation needs >= 2 points, iterations, "
					       "accesses and a unit that is a multiple of 8");
	int cg = is_cachegrind(o->backend);
	if (!cg && o->backend && strcmp(o->backend, PMCF_CATEGORIZE_PERF) != 0)
		return pmcfi_fail(PMCF_EINVAL, "unknown backend '%s' (perf or cachegrind)", o->backend);
	int err;
	if (!cg && (err = pmcfi_categorize_perf_check()))
		return err;
	char exe[PATH_MAX];
	if ((err = find_kernels(o->kernels, exe, sizeof(exe))))
		return err;
	pmcf_categorize_levels lv = PMCF_CATEGORIZE_LEVELS_INIT;
	if (cg)
		pmcfi_categorize_cachegrind_levels(&lv);
	else if ((err = pmcf_categorize_levels_sysfs(NULL, &lv)))
		return err;

	/* The plan: the branch baseline, kernels a..g at each point; then for
	 * every buffer size (powers of two from L1/8 to 4·LL) a baseline (set-up
	 * and warm-up only) and the measured chase. */
	size_t npoints = o->skip_branch ? 0 : o->points;
	double iters[64];
	if (npoints > PMCF_ARRAY_SIZE(iters))
		return pmcfi_fail(PMCF_EINVAL, "at most %zu points", PMCF_ARRAY_SIZE(iters));
	double bytes[64];
	size_t nsizes = 0;
	uint64_t top = o->max_bytes ? o->max_bytes : 4 * lv.bytes[lv.n - 1];
	if (!o->skip_cache) {
		uint64_t b = lv.bytes[0] / 8;
		if (b < 4096)
			b = 4096;
		while (b < o->unit)
			b *= 2;
		for (; b <= top && nsizes < PMCF_ARRAY_SIZE(bytes); b *= 2)
			bytes[nsizes++] = (double)b;
	}
	size_t nbranch = npoints ? 1 + PMCF_CATEGORIZE_NKERNELS * npoints : 0;
	size_t nruns = nbranch + 2 * nsizes;
	if (!nruns)
		return pmcfi_fail(PMCF_EINVAL, "nothing to run: both sweeps skipped");
	struct pmcfi_categorize_run *runs = calloc(nruns, sizeof(*runs));
	double *counts = calloc(nruns * n, sizeof(*counts));
	double *bcounts = calloc((n * PMCF_CATEGORIZE_NKERNELS * npoints) + 1, sizeof(*bcounts));
	double *per_access = calloc(n * nsizes + 1, sizeof(*per_access));
	if (!runs || !counts || !bcounts || !per_access) {
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
		goto done;
	}
	size_t r = 0;
	if (npoints) {
		set_run(&runs[r++], exe, "none");
		for (unsigned k = 0; k < PMCF_CATEGORIZE_NKERNELS; k++)
			for (size_t p = 0; p < npoints; p++) {
				iters[p] = (double)o->iterations * (double)(p + 1);
				set_run(&runs[r++], exe, "branch %c %lu", 'a' + k,
					o->iterations * (unsigned long)(p + 1));
			}
	}
	for (size_t s = 0; s < nsizes; s++) {
		set_run(&runs[r++], exe, "cache %.0f %u %u 0 %u", bytes[s], o->unit, o->pages_per_block,
			o->seed);
		set_run(&runs[r++], exe, "cache %.0f %u %u %lu %u", bytes[s], o->unit, o->pages_per_block,
			o->accesses, o->seed);
	}
	pmcfi_log(PMCF_LOG_INFO, "categorize: %zu kernel runs under %s", nruns, cg ? "cachegrind" : "perf");
	if ((err = measure(o, runs, nruns, events, n, counts)))
		goto done;
	/* Kernel counts by difference against the baselines. */
	for (size_t e = 0; e < n; e++) {
		for (unsigned k = 0; k < PMCF_CATEGORIZE_NKERNELS && npoints; k++)
			for (size_t p = 0; p < npoints; p++)
				bcounts[(e * PMCF_CATEGORIZE_NKERNELS + k) * npoints + p] =
					counts[(1 + k * npoints + p) * n + e] - counts[e];
		for (size_t s = 0; s < nsizes; s++) {
			double base = counts[(nbranch + 2 * s) * n + e];
			double meas = counts[(nbranch + 2 * s + 1) * n + e];
			per_access[e * nsizes + s] = (meas - base) / (double)o->accesses;
		}
	}
	err = pmcf_categorize_report_from(cg ? PMCF_CATEGORIZE_CACHEGRIND : PMCF_CATEGORIZE_PERF, &lv, events,
					  n, iters, npoints, bcounts, bytes, nsizes, per_access, o->threshold,
					  out);
done:
	free(runs);
	free(counts);
	free(bcounts);
	free(per_access);
	return err;
}
