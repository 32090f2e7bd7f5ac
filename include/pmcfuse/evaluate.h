/* pmcfuse — accuracy of profiles: the exact earth mover's distance (EMD),
 * the Task Mover's Distance and Execution Profile Dissimilarity with
 * calibration (fuse-task-parallel §4.1-4.3), the Correlation Error (§4.4),
 * and the error against the ground truth of simulated sources (the pair
 * covering that plans the reference executions is in pmcfuse/plan.h).
 * docs/accuracy.md explains how to read each number. */
#ifndef PMCFUSE_EVALUATE_H
#define PMCFUSE_EVALUATE_H

#include "pmcfuse/base.h"
#include "pmcfuse/events.h"
#include "pmcfuse/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- earth mover's distance (§4.2) ------------------------------------------
 * A workspace holds the buffers of the solver; reuse it across calls to
 * avoid allocations. One workspace per thread (no global state). */
typedef struct pmcf_emd_ws pmcf_emd_ws;
PMCF_API int pmcf_emd_ws_new(pmcf_emd_ws **out);
PMCF_API void pmcf_emd_ws_free(pmcf_emd_ws *ws);

/* Exact EMD between weighted point sets a (na points) and b (nb points) in
 * dim dimensions (1 <= dim <= 16) with Euclidean ground distance. xa holds
 * na*dim coordinates point after point. Weights must be finite and >= 0,
 * and the two totals equal (relative difference <= 1e-6). The result is the
 * least work divided by the total weight, so weights that sum to 1 give the
 * work itself. ws may be NULL (a temporary workspace is used).
 * Errors: PMCF_EINVAL (bad sizes, weights or coordinates; the detail says
 * which), PMCF_ENOMEM. */
PMCF_API int pmcf_emd(pmcf_emd_ws *ws, size_t dim, const double *wa, const double *xa, size_t na,
		      const double *wb, const double *xb, size_t nb, double *out);

/* Limits on a point file: EMD is exact and needs memory quadratic in the
 * points, so no useful input comes near them; they stop /dev/zero or an
 * endless pipe before it fills memory. */
#define PMCF_EMD_CSV_MAX_BYTES (256UL << 20)
#define PMCF_EMD_CSV_MAX_POINTS 1000000UL
/* Reads the point file of `pmcfuse emd` at path: rows 'weight,x,y' (a first
 * row with no number in it is a header; blank lines and lines starting with
 * # are skipped; lines of any length). *w gets the n weights normalised to
 * sum 1, *x the n points (x, y after one another), both to free by the
 * caller. Errors, the detail naming the file (and line): PMCF_ESYNTAX (a row
 * that is not three numbers, a negative or non-finite value, a NUL byte,
 * more than PMCF_EMD_CSV_MAX_BYTES or _POINTS, no row, weights summing to
 * 0), -EISDIR, -errno (cannot read), PMCF_ENOMEM, PMCF_EINVAL (NULL). */
PMCF_API int pmcf_emd_read_csv(const char *path, double **w, double **x, size_t *n);

/* ---- Task Mover's Distance (§4.3) --------------------------------------------
 * Uncalibrated TMD of two XU distributions over two events: B bins per event
 * over [lo, hi] (the reference range) plus one below and one above; bin
 * weight = share of the XUs; bin location = centroid of its XUs in
 * fractional bin units. XUs with a missing value are left out; *left_out_a
 * (may be NULL) receives the share of a's XUs left out. An empty side
 * gives PMCF_ENOENT. */
PMCF_API int pmcf_tmd2(pmcf_emd_ws *ws, unsigned bins, const double lo[2], const double hi[2],
		       const double *ax, const double *ay, size_t an, const double *bx, const double *by,
		       size_t bn, double *tmd, double *left_out_a);

/* ---- Execution Profile Dissimilarity (§4.1, §4.3) ------------------------------ */
typedef struct pmcf_epd_opts {
	size_t size;        /* sizeof(pmcf_epd_opts) */
	unsigned bins;      /* B, bins per event over the reference range, 1 .. 30
			       (PMCF_EPD_OPTS_INIT: 10) */
	int per_type;       /* TMD per XU type, combined by an XU-count-weighted geometric mean */
	size_t sample;      /* evaluate a seeded random sample of this many pairs (0: all) */
	uint64_t seed;      /* seed of the sample and of the bootstrap */
	unsigned bootstrap; /* bootstrap resamples for the confidence interval (with sample) */
	unsigned threads;   /* worker threads (0: one per online CPU, at most 8) */
	int formula;        /* PMCF_EPD_FLOORED (default) or PMCF_EPD_PAPER */
} pmcf_epd_opts;
#define PMCF_EPD_OPTS_INIT                                                    \
	{                                                                     \
		sizeof(pmcf_epd_opts), 10, 0, 0, 1, 1000, 0, PMCF_EPD_FLOORED \
	}

/* How a pair's TMD is calibrated (docs/accuracy.md, "degenerate pairs").
 * FLOORED: the resolution of a pair is 1/n, n the fewest XUs in one of its
 * reference histograms (one XU moved by one bin; the target's missing values
 * do not change it); a distance below it equals it; the share f of the
 * target's XUs without both values scores as a target with none
 * (uncalibrated (1 - f) * median + f * (B+2)*sqrt(2)); a
 * pair whose calibration is below it (no spread in the references) is left
 * out and listed (pmcf_epd_excluded_at); the calibrated TMD is at least the
 * best score of a reference repeat against the others (the floor).
 * PAPER: fuse-task-parallel §4.3 as published, with 1e-6 as the only floor
 * of both the target's TMD and the calibration. */
enum { PMCF_EPD_FLOORED = 0, PMCF_EPD_PAPER = 1 };
/* Why a pair was left out (pmcf_epd_pair.excluded). */
enum { PMCF_EPD_NO_SPREAD = 1 };

typedef struct pmcf_epd_pair {
	size_t size;         /* sizeof(pmcf_epd_pair) (the ABI rule, pmcfuse/base.h) */
	const char *a, *b;   /* the events (owned by the result) */
	double tmd;          /* calibrated: median uncalibrated TMD over the repeats / calibration */
	double uncalibrated; /* median uncalibrated TMD against the reference repeats */
	double calibration;  /* median uncalibrated TMD between pairs of reference repeats */
	double spread;       /* largest |TMD against one repeat - tmd| (the paper's "±") */
	double left_out;     /* share of the target's XUs without both values */
	unsigned repeats;    /* reference profiles that monitored both events */
	int worst;           /* 1: no target XU had both values; tmd is the worst score */
	double resolution;   /* FLOORED: 1/n (see PMCF_EPD_FLOORED); PAPER: 1e-6 */
	double floor;        /* FLOORED: lowest calibrated TMD this pair can score; PAPER: 0 */
	int excluded;        /* 0, or PMCF_EPD_NO_SPREAD: left out (calibration < resolution) */
} pmcf_epd_pair;
#define PMCF_EPD_PAIR_INIT PMCF_SIZED_INIT(pmcf_epd_pair)

typedef struct pmcf_epd_result pmcf_epd_result;

/* EPD of target against reference profiles refs[0..nrefs): for every pair
 * of the target's events (duration excluded) that at least two references
 * monitored, the calibrated TMD; EPD = geometric mean over those pairs.
 * Pairs with fewer than two references are counted in *uncovered, not
 * scored. opts may be NULL (defaults). Errors: PMCF_EINVAL, PMCF_ENOENT (no
 * pair is covered by two references, or every covered pair was left out),
 * PMCF_ENOMEM. bins: 1 to 30. Degenerate pairs: see opts->formula. The worst
 * score is an uncalibrated TMD of (B+2)*sqrt(2), all mass across the grid. */
PMCF_API int pmcf_epd_compute(const pmcf_profile *target, const pmcf_profile *const *refs, size_t nrefs,
			      const pmcf_epd_opts *opts, pmcf_epd_result **out);
/* EPD of every target[0..ntargets) against the same references into
 * out[0..ntargets): each result is the one pmcf_epd_compute gives for that
 * target, to the last bit; targets with the same events and XU types (the
 * fused profiles of one campaign by several strategies) share the
 * reference side of every pair (histograms, distances between repeats,
 * calibration), which is computed once. All or nothing: on an error (the
 * first target's that fails, as pmcf_epd_compute's; PMCF_EINVAL without a
 * target) every out[t] is NULL. */
PMCF_API int pmcf_epd_compute_many(const pmcf_profile *const *targets, size_t ntargets,
				   const pmcf_profile *const *refs, size_t nrefs, const pmcf_epd_opts *opts,
				   pmcf_epd_result **out);
PMCF_API void pmcf_epd_result_free(pmcf_epd_result *r);
PMCF_API double pmcf_epd_value(const pmcf_epd_result *r);
/* Bootstrap 95% interval of the EPD when pairs were sampled, else NaN. */
PMCF_API void pmcf_epd_ci(const pmcf_epd_result *r, double *lo, double *hi);
PMCF_API size_t pmcf_epd_npairs(const pmcf_epd_result *r);
PMCF_API const pmcf_epd_pair *pmcf_epd_pair_at(const pmcf_epd_result *r, size_t i);
/* Pairs of the target's events that fewer than two references monitored. */
PMCF_API size_t pmcf_epd_uncovered(const pmcf_epd_result *r);
/* All pairs of the target's events (before sampling). */
PMCF_API size_t pmcf_epd_total_pairs(const pmcf_epd_result *r);
/* Pairs left out of the EPD (FLOORED only: the references show no spread
 * on them), with their reason in .excluded; not counted in npairs. */
PMCF_API size_t pmcf_epd_nexcluded(const pmcf_epd_result *r);
PMCF_API const pmcf_epd_pair *pmcf_epd_excluded_at(const pmcf_epd_result *r, size_t i);
/* Pairs evaluated: every pair that two references monitored, or a seeded
 * sample of opts->sample of them when there are more. Each was scored
 * (npairs), left out (nexcluded) or got no TMD (counted in uncovered too). */
PMCF_API size_t pmcf_epd_evaluated(const pmcf_epd_result *r);

/* ---- Correlation Error (§4.4, Mytkowicz et al.) ------------------------------- */
typedef struct pmcf_correrr_pair {
	size_t size;       /* sizeof(pmcf_correrr_pair) (the ABI rule, pmcfuse/base.h) */
	const char *a, *b; /* the events (owned by the result) */
	double target;     /* Spearman coefficient in the target */
	double reference;  /* median Spearman coefficient over the reference repeats */
	unsigned repeats;  /* reference profiles that monitored both events */
} pmcf_correrr_pair;
#define PMCF_CORRERR_PAIR_INIT PMCF_SIZED_INIT(pmcf_correrr_pair)
typedef struct pmcf_correrr_result pmcf_correrr_result;

/* Spearman coefficients of every pair of the target's events (duration
 * excluded) that a reference monitored, against the references; the value
 * is the area between the CDF of the differences and the ideal CDF (a step
 * at 0), in [0, 2]. A pair with fewer than 3 common XUs or a constant
 * event has coefficient 0. Errors: PMCF_ENOENT (no pair in any
 * reference), PMCF_ENOMEM. */
PMCF_API int pmcf_correrr_compute(const pmcf_profile *target, const pmcf_profile *const *refs, size_t nrefs,
				  pmcf_correrr_result **out);
/* The Correlation Error of every target[0..ntargets) against the same
 * references into out[0..ntargets), each the result pmcf_correrr_compute
 * gives for that target, to the last bit; the references' coefficients are
 * computed once for targets with the same events and XU types. All or
 * nothing, as pmcf_epd_compute_many. */
PMCF_API int pmcf_correrr_compute_many(const pmcf_profile *const *targets, size_t ntargets,
				       const pmcf_profile *const *refs, size_t nrefs,
				       pmcf_correrr_result **out);
PMCF_API void pmcf_correrr_result_free(pmcf_correrr_result *r);
PMCF_API double pmcf_correrr_value(const pmcf_correrr_result *r);
PMCF_API size_t pmcf_correrr_npairs(const pmcf_correrr_result *r);
PMCF_API const pmcf_correrr_pair *pmcf_correrr_pair_at(const pmcf_correrr_result *r, size_t i);
/* Spearman's rank correlation of x and y over the indices where both are
 * present (ties get average ranks); 0 when fewer than 3 or constant. */
PMCF_API double pmcf_spearman(const double *x, const double *y, size_t n);

/* ---- error against ground truth (simulated sources) ---------------------------- */
typedef struct pmcf_truth_event {
	size_t size;       /* sizeof(pmcf_truth_event) (the ABI rule, pmcfuse/base.h) */
	const char *name;  /* owned by the result */
	size_t values;     /* present values compared (not copied from the compared XU) */
	size_t missing;    /* XUs without a value: each counts as relative error 1 */
	double median_rel; /* median relative error over values + missing; NaN if none */
	double p90_rel;    /* 90th percentile of the same */
	size_t from_base;  /* fused: values copied from the XU they are compared with
			     * (exact by construction), left out of median_rel and p90_rel */
} pmcf_truth_event;
#define PMCF_TRUTH_EVENT_INIT PMCF_SIZED_INIT(pmcf_truth_event)
typedef struct pmcf_truth_result pmcf_truth_result;

/* Compares every value (duration excluded) with the truth: for a profile
 * with its own truth layer (plain or multiplexed simulated profile) that
 * layer; for a fused profile without one, the truth of the XU it represents
 * (the first source XU in its provenance) read from the source profiles,
 * whose relative paths are taken relative to the directory of path (may be
 * NULL). Relative error = |value - truth| / max(|truth|, 1). In a fused
 * profile a value whose provenance is the compared XU itself is exact and
 * left out (counted in from_base); a missing value counts as error 1. Errors:
 * PMCF_ENOENT (no truth reachable; the detail says why), errors opening
 * the sources, PMCF_ENOMEM. */
PMCF_API int pmcf_truth_compare(const pmcf_profile *p, const char *path, pmcf_truth_result **out);
PMCF_API void pmcf_truth_result_free(pmcf_truth_result *r);
/* Median and 90th percentile over the events of their median_rel (events
 * whose every value is from_base have none and are skipped; none left: 0),
 * and the share of missing values among the compared ones. */
PMCF_API void pmcf_truth_summary(const pmcf_truth_result *r, double *median_rel, double *p90_rel,
				 double *share_missing);
/* The first summary, kept for comparison with older numbers: median and
 * 90th percentile over every present value pooled (from_base values
 * included, missing ones left out), and the share of missing values. */
PMCF_API void pmcf_truth_summary_pooled(const pmcf_truth_result *r, double *median_rel, double *p90_rel,
					double *share_missing);
/* The headline (issue 32): the mean over events of each event's mean
 * relative error, a missing value counting as 1 and values copied from the
 * compared XU left out (events with none left are skipped; none: 0). A
 * median of medians hides an event that misses up to half its values; this
 * does not. pmcf_truth_event_mean: that mean for event i (NaN if none). */
PMCF_API double pmcf_truth_mean(const pmcf_truth_result *r);
PMCF_API double pmcf_truth_event_mean(const pmcf_truth_result *r, size_t i);
/* "own" (the profile's truth layer) or "sources" (through provenance). */
PMCF_API const char *pmcf_truth_mode(const pmcf_truth_result *r);
PMCF_API size_t pmcf_truth_nevents(const pmcf_truth_result *r);
PMCF_API const pmcf_truth_event *pmcf_truth_event_at(const pmcf_truth_result *r, size_t i);

/* Reference planning (pmcf_cover_*) is in pmcfuse/plan.h. */

/* ---- consistency: relations between events ---------------------------------
 * Relations every XU's true counts obey, lhs <= rhs * (1 + tolerance_rel) +
 * tolerance_abs: task-clock and cpu-clock <= duration (an XU runs on one
 * thread; 2 % + 2 us of slack), minor-faults and major-faults <=
 * page-faults, and simulated PAPI presets certain by their definitions
 * (L3 misses <= L3 accesses, L2 instruction misses and hits <= L2
 * instruction accesses, conditional and mispredicted branches <= branches,
 * not-taken <= conditional branches, branches <= instructions). In a fused
 * profile the two values may come from different executions: cross counts
 * the violations whose values have different provenance. */
typedef struct pmcf_consistency {
	size_t size;                         /* sizeof(pmcf_consistency) (the ABI rule, pmcfuse/base.h) */
	const char *lhs, *rhs;               /* event names (static strings) */
	double tolerance_rel, tolerance_abs; /* the slack allowed */
	size_t checked;                      /* XUs with both values */
	size_t violated;                     /* of those, XUs breaking the relation */
	size_t cross;                        /* of those, values from different sources */
} pmcf_consistency;
#define PMCF_CONSISTENCY_INIT PMCF_SIZED_INIT(pmcf_consistency)
/* How many relations pmcf_consistency_check knows (a bound for cap). */
PMCF_API size_t pmcf_consistency_nrelations(void);
/* Checks every known relation whose two events p has, in a fixed order,
 * into out[0..*n) (at most cap). Errors: PMCF_EINVAL (NULL arguments). */
PMCF_API int pmcf_consistency_check(const pmcf_profile *p, pmcf_consistency *out, size_t cap, size_t *n);

#ifdef __cplusplus
}
#endif
#endif
