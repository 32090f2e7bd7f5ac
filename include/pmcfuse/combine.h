/* pmcfuse — combination: fuse execution profiles that each monitored a part
 * of the events into one profile in which every XU has every event
 * (fuse-task-parallel §3, fuse-openmp §3). The strategies are listed by
 * pmcf_strategy_info_get (one table); docs/fusion.md. */
#ifndef PMCFUSE_COMBINE_H
#define PMCFUSE_COMBINE_H

#include "pmcfuse/base.h"
#include "pmcfuse/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

enum pmcf_strategy {
	PMCF_COMBINE_CTC = 1,          /* per type, pair XUs by start-time order */
	PMCF_COMBINE_LGL = 2,          /* pair XUs with the same label */
	PMCF_COMBINE_BC = 3,           /* behaviour clustering, label order in a cell */
	PMCF_COMBINE_BC_UNLABELED = 4, /* behaviour clustering, seeded shuffle in a cell */
	PMCF_COMBINE_RANDOM = 5,       /* seeded random pairing within a type */
	PMCF_COMBINE_MATCH = 6,        /* minimum-cost matching, information-weighted links */
	PMCF_COMBINE_BC_LABEL = 7,     /* behaviour clustering, label proximity in a cell */
	PMCF_COMBINE_BC_LGL = 8,       /* equal labels first (lgl), then bc-label on the rest */
	PMCF_COMBINE_ORACLE = 9,       /* simulated profiles only: pairs by the ground truth */
	PMCF_COMBINE_NAIVE = 10        /* per type, the k-th XU of a thread with the k-th of that thread */
};
/* What a strategy needs (pmcf_strategy_info.needs). */
enum {
	PMCF_STRATEGY_ORDERED = 1, /* overlapping event sets, inputs in plan order (bc family, match) */
	PMCF_STRATEGY_LABELS = 2,  /* XU labels (recorded by the collector or the simulator) */
	PMCF_STRATEGY_SEEDED = 4,  /* makes random choices from opts->seed */
	PMCF_STRATEGY_TRUTH = 8    /* the ground truth: simulated profiles only */
};
/* One strategy of the table (src/combine/combine.c), which is the one list
 * of them: names, help and error texts are made from it. Strings static. */
typedef struct pmcf_strategy_info {
	size_t size;      /* sizeof(pmcf_strategy_info), set by the caller */
	int id;           /* enum pmcf_strategy */
	const char *name; /* "bc" */
	const char *help; /* one line */
	unsigned needs;   /* PMCF_STRATEGY_* */
} pmcf_strategy_info;
#define PMCF_STRATEGY_INFO_INIT PMCF_SIZED_INIT(pmcf_strategy_info)
/* The i-th strategy of the table (0, 1, … until PMCF_ENOENT) into *info.
 * Errors: PMCF_ENOENT past the last, PMCF_EINVAL (NULL, size). */
PMCF_API int pmcf_strategy_info_get(size_t i, pmcf_strategy_info *info);
/* The names of the strategies that need at least needs (0: all), in table
 * order, joined by ", " into buf (len bytes, NUL included, cut when short);
 * returns the length the whole list takes, as snprintf does. */
PMCF_API size_t pmcf_strategy_list(unsigned needs, char *buf, size_t len);
/* Name <-> enum (the names of pmcf_strategy_list). parse returns
 * PMCF_EINVAL with a detail listing the choices. */
PMCF_API int pmcf_strategy_parse(const char *name);
PMCF_API const char *pmcf_strategy_name(int strategy);
/* 1 when the strategy needs overlapping event sets in order (bc family). */
PMCF_API int pmcf_strategy_ordered(int strategy);

/* Options of one combination. Initialise with PMCF_COMBINE_OPTS_INIT. */
typedef struct pmcf_combine_opts {
	size_t size;              /* sizeof(pmcf_combine_opts) */
	int strategy;             /* enum pmcf_strategy (PMCF_COMBINE_OPTS_INIT: bc; 0 is none) */
	uint64_t seed;            /* random choices (bc-unlabeled, random) */
	int force;                /* 1: fuse profiles of different programs anyway */
	const char *const *names; /* n names for the inputs, or NULL: "input K"; stored
				   * as they are in the metadata "inputs" (for people:
				   * `combine` stores the paths as typed, `run`
				   * "execution K"); nothing reads the files back by
				   * them (pmcf_truth_compare reads a path beside the
				   * fused file only for a profile without truth) */
	unsigned threads;         /* bc family: types clustered at once; every strategy:
				   * threads filling the fused values; 0: the online CPUs.
				   * The result does not depend on it. */
	int partial;              /* 1: inputs that are sets of a plan may lack some sets,
				   * and inputs marked incomplete are fused (the result is
				   * marked incomplete) */
	unsigned impute;          /* ordered strategies (bc family, match): 0 copies each value
				   * from the paired XU; K (1..64) replaces every value taken
				   * from another execution by the median of that event over
				   * the K nearest XUs of that execution (same group, match's
				   * linking metric); provenance: that source, XU -1 */
	int impute_mode;          /* with impute > 0: enum pmcf_impute_mode (0: median) */
} pmcf_combine_opts;
#define PMCF_COMBINE_OPTS_INIT                                                     \
	{                                                                          \
		sizeof(pmcf_combine_opts), PMCF_COMBINE_BC, 1, 0, NULL, 0, 0, 0, 0 \
	}

/* How `impute` fills a value from the K nearest XUs (docs/fusion.md). */
enum pmcf_impute_mode {
	PMCF_IMPUTE_MEDIAN = 0, /* the median of the K neighbours' values */
	PMCF_IMPUTE_RANK = 1    /* the neighbours' median blended with the paired XU's
				 * value orders the rows; the values are the paired
				 * XUs' copies, reassigned by that order (per group and
				 * event: the column keeps bc's values); a row whose
				 * paired XU has the same linking values keeps its copy */
};
/* "median", "rank" <-> enum; parse returns PMCF_EINVAL with the choices. */
PMCF_API int pmcf_impute_mode_parse(const char *name);
PMCF_API const char *pmcf_impute_mode_name(int mode);

/* What a combination did. */
typedef struct pmcf_combine_stats {
	size_t size;         /* sizeof(pmcf_combine_stats), set by the caller */
	size_t xus;          /* XUs of the fused profile */
	size_t complete_xus; /* fused XUs with a source XU in every input */
	size_t partial_xus;  /* fused XUs lacking a source in some input (missing values) */
	size_t events;       /* events of the fused profile */
	/* lgl only: labels present in every input (= xus), labels of the first
	 * input missing from some other input, labels of other inputs absent from
	 * the first, and labels seen more than once in one input. */
	size_t labels_matched, labels_missing, labels_extra, labels_duplicate;
	/* bc family: grid iterations over all steps and types, largest dmax */
	size_t bc_iterations;
	unsigned bc_dmax;
	/* impute > 0: values imputed (provenance XU -1), and of them those that
	 * differ from the copy they replaced (0 = imputing changed nothing) */
	size_t imputed, imputed_changed;
	/* bc family: the pairs of a fused XU's first source with its source in
	 * a later input, both labelled, and of them those whose labels differ;
	 * the labelled XUs of the later inputs, and of them those whose label
	 * the first input has too. Many pairs that differ although the labels
	 * agree across the inputs: the runs repeat the same tasks but their
	 * values moved (durations shift between runs), and lgl, pairing by
	 * label, may be right where bc is not (combine warns). */
	size_t bc_label_pairs, bc_label_differ, bc_labelled, bc_label_common;
} pmcf_combine_stats;
#define PMCF_COMBINE_STATS_INIT PMCF_SIZED_INIT(pmcf_combine_stats)

/* Checks that the inputs can be fused with strategy: same program, arguments,
 * binary and simulated workload (seed aside) unless force; inputs that are
 * executions of a plan (PMCF_META_PLAN_*) all of the same plan, each set
 * once, and every set of the plan unless partial (force does not lift
 * these; the caller orders them by set); no input marked incomplete
 * (PMCF_META_COMPLETE "0": a stopped or failed execution) unless partial;
 * at least one
 * event each; for the bc family, every input shares an event with the union
 * of the ones before it (fuse-task-parallel §3.2); for lgl, labels.
 * 0 or PMCF_ECONFLICT / PMCF_EINVAL with a detail naming the inputs. */
PMCF_API int pmcf_combine_check(const pmcf_profile *const *in, size_t n, const pmcf_combine_opts *opts);
/* The first part of pmcf_combine_check alone: one profile each, the same
 * program run unless force (what comparing a profile with references of the
 * same program needs, whatever plan recorded them). */
PMCF_API int pmcf_combine_check_run(const pmcf_profile *const *in, size_t n, const pmcf_combine_opts *opts);

/* Fuses in[0..n) (n >= 1, in order; the order matters for the bc family and
 * for which input contributes an event monitored twice: the first one) into
 * a new profile *out (free with pmcf_profile_free). The result has the union
 * of the events, every value's provenance (source index = input index, XU
 * index in it), a match distance per XU (root mean square over the events
 * monitored by more than one of its sources of the differences, each
 * divided by the event's range within the XU type; 0 = identical, NaN when
 * it had a single source), the ground truth of its first source XU when the
 * inputs carry truth, and metadata source=fused, strategy, inputs.
 * stats may be NULL. Errors: those of pmcf_combine_check, PMCF_ENOMEM. */
PMCF_API int pmcf_combine(const pmcf_profile *const *in, size_t n, const pmcf_combine_opts *opts,
			  pmcf_profile **out, pmcf_combine_stats *stats);

/* Distribution of the match distances of a fused profile, for `show`.
 * Set size = sizeof(pmcf_match_summary) before the call (base.h, "Sized structs"). */
typedef struct pmcf_match_summary {
	size_t size;                          /* sizeof(pmcf_match_summary), set by the caller */
	size_t xus;                           /* XUs of the profile */
	size_t measured;                      /* XUs with a match distance */
	double min, p50, p90, p99, max, mean; /* NaN when measured is 0; the quantiles interpolate
						 linearly between order statistics (type 7, as R and NumPy) */
	/* XUs per bucket: [0,.01) [.01,.02) [.02,.05) [.05,.1) [.1,.2) [.2,.5) [.5,inf) */
	size_t hist[7];
} pmcf_match_summary;
#define PMCF_MATCH_SUMMARY_INIT PMCF_SIZED_INIT(pmcf_match_summary)
/* Upper edges of the buckets above (the last is INFINITY). */
PMCF_API extern const double pmcf_match_hist_edges[7];
/* Fills *s. A profile without match distances gives measured 0. Errors:
 * PMCF_EINVAL (NULL argument, size smaller than the struct or bytes beyond it
 * not zero), PMCF_ENOMEM. */
PMCF_API int pmcf_combine_match_summary(const pmcf_profile *p, pmcf_match_summary *s);

/* Advice on a bc-family pairing that disagrees with labels the runs share
 * (the warning `combine` and `run` print): 1, with one line in buf, when
 * stats has at least 20 labelled pairs, a tenth or more of them of
 * different labels, and nine tenths or more of the later inputs' labels
 * also in the first input, and fused is not simulated (a simulated
 * label's values do not follow it from run to run: lgl's truth error is
 * several times bc's there, docs/fusion.md); then, if the runs repeat the
 * same tasks, lgl pairs them by label. 0 when there is nothing to say (or
 * strategy is not of the bc family); PMCF_EINVAL for NULL or a bad size. */
PMCF_API int pmcf_combine_label_advice(const pmcf_profile *fused, const pmcf_combine_stats *stats,
				       int strategy, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
