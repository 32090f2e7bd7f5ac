/* pmcfuse — counter inspection: categorise events with micro-benchmarks of
 * known behaviour (counter-inspection-toolkit, §3–5): branch kernels give
 * slopes matched against Table 1, cache kernels give step functions whose
 * transitions name a cache level and hit or miss. */
#ifndef PMCFUSE_CATEGORIZE_H
#define PMCFUSE_CATEGORIZE_H

#include "pmcfuse/base.h"
#include "pmcfuse/events.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- branch analysis (§3.4, §5) --------------------------------------------- */

/* The seven branch kernels of Fig. 11, "a".."g" (bench1..bench7 of Table 1). */
#define PMCF_CATEGORIZE_NKERNELS 7
/* The branch categories of §3.3, the rows of Table 1. */
enum {
	PMCF_CATEGORIZE_CE, /* conditional branches executed (speculative ones included) */
	PMCF_CATEGORIZE_CR, /* conditional branches retired */
	PMCF_CATEGORIZE_T,  /* conditional branches taken */
	PMCF_CATEGORIZE_D,  /* direct (unconditional) branches */
	PMCF_CATEGORIZE_M,  /* mispredicted branches */
	PMCF_CATEGORIZE_NCATS
};

/* "CE", "CR", "T", "D", "M"; "none" for any other value. */
PMCF_API const char *pmcf_categorize_branch_name(int category);
/* Table 1: expected events per iteration of kernel (0..6) for category;
 * NaN when out of range. */
PMCF_API double pmcf_categorize_expected(int category, unsigned kernel);

typedef struct pmcf_categorize_fit {
	size_t size; /* sizeof(pmcf_categorize_fit) (the ABI rule, pmcfuse/base.h) */
	double slope, intercept;
	double r2; /* coefficient of determination; 0 when y is constant */
} pmcf_categorize_fit;
#define PMCF_CATEGORIZE_FIT_INIT PMCF_SIZED_INIT(pmcf_categorize_fit)

/* Least-squares line y = slope·x + intercept through n >= 2 points with at
 * least two distinct x. PMCF_EINVAL otherwise (or on non-finite input). */
PMCF_API int pmcf_categorize_fit_line(const double *x, const double *y, size_t n, pmcf_categorize_fit *out);

/* The slope goodness of Eq. (1): exp(-2·(slope·r² − expected)²). */
PMCF_API double pmcf_categorize_goodness(double slope, double r2, double expected);

typedef struct pmcf_categorize_branch_match {
	size_t size;       /* sizeof(pmcf_categorize_branch_match) (the ABI rule, pmcfuse/base.h) */
	int category;      /* PMCF_CATEGORIZE_* or -1: none */
	double confidence; /* score of the best row (0 when none fits at all) */
	/* Score of each row: the product over the seven kernels of the goodness
	 * of the measured slope against the row's expected slope. */
	double score[PMCF_CATEGORIZE_NCATS];
} pmcf_categorize_branch_match;
#define PMCF_CATEGORIZE_BRANCH_MATCH_INIT PMCF_SIZED_INIT(pmcf_categorize_branch_match)

/* Matches one event's seven fits (fits[0..PMCF_CATEGORIZE_NKERNELS), kernels a..g) against the rows of Table 1;
 * the best row wins when its score reaches threshold (0.5 when threshold is
 * 0), otherwise the category is -1 (none). */
PMCF_API int pmcf_categorize_branch_classify(const pmcf_categorize_fit *fits, double threshold,
					     pmcf_categorize_branch_match *out);

/* ---- cache analysis (§4, §5) ------------------------------------------------ */

#define PMCF_CATEGORIZE_MAX_LEVELS 6
typedef struct pmcf_categorize_levels {
	size_t size; /* sizeof(pmcf_categorize_levels) (the ABI rule, pmcfuse/base.h) */
	unsigned n;  /* data cache levels, innermost first */
	uint64_t bytes[PMCF_CATEGORIZE_MAX_LEVELS]; /* capacity, strictly increasing */
	char name[PMCF_CATEGORIZE_MAX_LEVELS][8];   /* "L1D", "L2", …; the last one "LL" */
} pmcf_categorize_levels;
#define PMCF_CATEGORIZE_LEVELS_INIT PMCF_SIZED_INIT(pmcf_categorize_levels)

/* The data and unified caches of cpu0 from sysfs
 * (/sys/devices/system/cpu/cpu0/cache/index*), named L1D, L2, …, LL. root
 * replaces "/sys/devices/system/cpu/cpu0/cache" when not NULL (tests).
 * PMCF_ENOENT when nothing is found. */
PMCF_API int pmcf_categorize_levels_sysfs(const char *root, pmcf_categorize_levels *out);

typedef struct pmcf_categorize_cache_match {
	size_t size;       /* sizeof(pmcf_categorize_cache_match) (the ABI rule, pmcfuse/base.h) */
	int level;         /* index into the levels, or -1: none */
	int miss;          /* 1: <level>-miss, 0: <level>-hit */
	char category[16]; /* "L1D-miss", "LL-hit", …, or "none" */
	double confidence;
	/* Value per access on each plateau: region 0 fits the first level,
	 * region r lies between levels r-1 and r, region n beyond the last;
	 * NaN where the sweep has no point. */
	double plateau[PMCF_CATEGORIZE_MAX_LEVELS + 1];
	/* The transitions, e.g. "+L1D" (up past L1D), "+L1D -LL", "flat". */
	char signature[64];
} pmcf_categorize_cache_match;
#define PMCF_CATEGORIZE_CACHE_MATCH_INIT PMCF_SIZED_INIT(pmcf_categorize_cache_match)

/* Categorises one event from its value per access at n buffer sizes (bytes,
 * any order): each region's plateau is the median of the sizes at least twice
 * the level below and at most half the level above; normalised by the
 * largest plateau, the jumps at each level are scored against the ideal
 * signatures (<level>-miss: +1 at that level; <level>-hit: +1 at the level
 * below, −1 at that level) with the goodness of Eq. (1); the best one wins
 * when it reaches threshold (0.5 when 0). */
PMCF_API int pmcf_categorize_cache_classify(const pmcf_categorize_levels *lv, const double *bytes,
					    const double *per_access, size_t n, double threshold,
					    pmcf_categorize_cache_match *out);

/* ---- measurement and categorisation ------------------------------------------ */

#define PMCF_CATEGORIZE_PERF "perf"
#define PMCF_CATEGORIZE_CACHEGRIND "cachegrind"

typedef struct pmcf_categorize_options {
	size_t size;         /* sizeof(pmcf_categorize_options), set by pmcf_categorize_options_init */
	const char *backend; /* PMCF_CATEGORIZE_PERF (default) or PMCF_CATEGORIZE_CACHEGRIND */
	/* The kernels executable; NULL: $PMCF_CATEGORIZE_KERNELS, else
	 * pmcfuse-categorize-kernels next to the running program. */
	const char *kernels;
	unsigned long iterations; /* branch sweep: iterations·1 … iterations·points */
	unsigned points;          /* points per branch sweep (>= 2) */
	unsigned long accesses;   /* chase steps per cache run */
	unsigned unit;            /* bytes per chain element (Fig. 14), >= 8 */
	unsigned pages_per_block; /* 0: one chain (Fig. 15) */
	uint64_t max_bytes;       /* largest buffer; 0: four times the last level */
	unsigned jobs;            /* runs at once (cachegrind only; perf runs one) */
	unsigned seed;            /* chain order */
	double threshold;         /* category threshold, both analyses */
	int skip_branch, skip_cache;
} pmcf_categorize_options;

/* Defaults for backend: perf 1e6 iterations, 2^22 accesses; cachegrind
 * (slow) 2e4 iterations, 2^17 accesses; 4 points, unit 64, 2 jobs. */
PMCF_API void pmcf_categorize_options_init(pmcf_categorize_options *o, const char *backend);

/* The events the backend can count: cachegrind's (Ir, Bc, Bcm, …) or the
 * perf catalogue. Free with pmcf_catalog_free. */
PMCF_API int pmcf_categorize_catalog(const char *backend, pmcf_catalog **out);

typedef struct pmcf_categorize_event {
	size_t size; /* sizeof(pmcf_categorize_event) (the ABI rule, pmcfuse/base.h) */
	const char *name;
	const char *category; /* branch category, cache category or "none" */
	double confidence;
	pmcf_categorize_fit fit[PMCF_CATEGORIZE_NKERNELS]; /* count against iterations, per kernel */
	pmcf_categorize_branch_match branch;
	pmcf_categorize_cache_match cache;
	const double *per_access; /* one value per cache size (report order) */
} pmcf_categorize_event;
#define PMCF_CATEGORIZE_EVENT_INIT PMCF_SIZED_INIT(pmcf_categorize_event)

typedef struct pmcf_categorize_report pmcf_categorize_report;

/* Runs every kernel under the backend, counting events[0..n) (names of
 * pmcf_categorize_catalog(backend)), and categorises each. Fails with PMCF_ENOTSUP
 * when the backend cannot run here (no PMU, no valgrind), PMCF_ENOENT when
 * the kernels executable is missing, PMCF_EPROGRAM when a run fails. */
PMCF_API int pmcf_categorize_run(const pmcf_categorize_options *o, const char *const *events, size_t n,
				 pmcf_categorize_report **out);
PMCF_API void pmcf_categorize_report_free(pmcf_categorize_report *r);

PMCF_API const char *pmcf_categorize_report_backend(const pmcf_categorize_report *r);
PMCF_API size_t pmcf_categorize_report_size(const pmcf_categorize_report *r);
/* The i-th event's result, owned by the report; NULL out of range. */
PMCF_API const pmcf_categorize_event *pmcf_categorize_report_at(const pmcf_categorize_report *r, size_t i);
PMCF_API const pmcf_categorize_levels *pmcf_categorize_report_levels(const pmcf_categorize_report *r);
/* The cache buffer sizes (bytes); returns how many (0 when skipped). */
PMCF_API size_t pmcf_categorize_report_sizes(const pmcf_categorize_report *r, const double **bytes);
/* The branch iteration counts; returns how many. */
PMCF_API size_t pmcf_categorize_report_iterations(const pmcf_categorize_report *r, const double **iters);

/* Builds a report from measurements instead of running anything (tests,
 * re-analysis): counts[e][k][p] is event e in kernel k at iteration iters[p]
 * minus the baseline, per_access[e][s] event e per access at bytes[s].
 * Either part may be absent (npoints or nsizes 0). */
PMCF_API int pmcf_categorize_report_from(const char *backend, const pmcf_categorize_levels *lv,
					 const char *const *events, size_t n, const double *iters,
					 size_t npoints, const double *counts, const double *bytes,
					 size_t nsizes, const double *per_access, double threshold,
					 pmcf_categorize_report **out);

#ifdef __cplusplus
}
#endif
#endif
