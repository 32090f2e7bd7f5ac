/* pmcfuse — planning: split the requested events into the event sets of
 * the executions (one set per execution), for a combination strategy, and
 * keep the plan as a versioned, readable plan.json that `record --plan
 * plan.json --set K` runs set by set (docs/fusion.md, docs/slurm.md); and
 * the pair covering that plans the reference executions (docs/accuracy.md). */
#ifndef PMCFUSE_PLAN_H
#define PMCFUSE_PLAN_H

#include "pmcfuse/base.h"
#include "pmcfuse/events.h"
#include "pmcfuse/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PMCF_PLAN_FORMAT "pmcfuse-plan"
#define PMCF_PLAN_VERSION 1
/* The counter budget of a plan (--pmcs, "pmcs"): 1 to this; 0 in a plan
 * means the machine's own counters. */
#define PMCF_PLAN_MAX_PMCS 64

enum pmcf_packing {
	PMCF_PACK_BEST = 0,  /* first-fit decreasing by cost, improved; exact for <= 12 events */
	PMCF_PACK_GREEDY = 1 /* the papers' packing: events in list order, a new set when one fails */
};
/* "best", "greedy" <-> enum; parse returns PMCF_EINVAL with a detail. */
PMCF_API int pmcf_packing_parse(const char *name);
PMCF_API const char *pmcf_packing_name(int packing);

typedef struct pmcf_plan_opts {
	size_t size;   /* sizeof(pmcf_plan_opts) */
	int strategy;  /* enum pmcf_strategy (combine.h); bc family: overlapping sets
			  (PMCF_PLAN_OPTS_INIT: bc; 0 is none) */
	unsigned pmcs; /* counter budget, 1..PMCF_PLAN_MAX_PMCS, 0: the machine's counters */
	int packing;   /* enum pmcf_packing */
	/* bc family: events put in every set to link them (besides duration and
	 * the requested fixed-counter events, which are always linking events) */
	const char *const *link;
	size_t nlink;
	/* bc family, optional: pilot or reference profiles; linking events are
	 * then chosen per set by correlation (fuse-task-parallel §5.2 heuristic) */
	const pmcf_profile *const *pilots;
	size_t npilots;
	double time_limit_s; /* exact search bound, 0: 1 s */
	/* optional, parallel to the events: 0, or the number of a {…} group
	 * whose events must share one set (pmcf_evlist_groups) */
	const unsigned *groups;
	/* bc family, --link auto: 1 to choose, from the pilots (required), the
	 * linking events of every set among the events of the sets before it,
	 * and the order of the sets, to maximise the information (pairwise
	 * mutual information) the linking events carry about the events each
	 * set adds; the sets are packed as without it (same executions). */
	int link_auto;
	unsigned max_links; /* --link auto: at most this many per set, 0: 2 */
} pmcf_plan_opts;
#define PMCF_PLAN_OPTS_INIT                                                                   \
	{                                                                                     \
		sizeof(pmcf_plan_opts), 3, 0, PMCF_PACK_BEST, NULL, 0, NULL, 0, 0, NULL, 0, 0 \
	}

/* A thin wrapper, kept for callers holding names: looks events[0..n) and
 * opts->link up in c, then plans as pmcf_plan_make_evlist (the plan's sets
 * are not resolved: pmcf_plan_evlist_at is NULL until pmcf_plan_resolve).
 * Plans events[0..n) (names of catalogue c; "duration" is added to every
 * set, free) for opts. Every set fits the counters (pmcf_catalog_check_events
 * with opts->pmcs); the sets of ctc/lgl are disjoint (duration aside); the
 * sets of the bc family each share events with the union of the previous
 * ones; the events of one group (opts->groups) are in the same set. Errors:
 * PMCF_EEVENT (unknown name), PMCF_ETOOMANY (an event or group that
 * cannot be counted even alone with the linking events; the detail says
 * why), PMCF_EINVAL (also opts a plan.json could not hold, the check
 * pmcf_plan_from_json makes: strategy, packing, pmcs; the detail names the
 * field, "pmcf_plan_opts.pmcs: 100 is out of range (...)"), PMCF_ENOMEM.
 * Free with pmcf_plan_free. */
PMCF_API int pmcf_plan_make(const pmcf_catalog *c, const char *const *events, size_t n,
			    const pmcf_plan_opts *opts, pmcf_plan **out);
/* pmcf_plan_make for an event list already resolved (pmcf_evlist_parse,
 * pmcf_source_events): its catalogue, its names and its {…} groups, and the
 * linking events of link (NULL: none; a list of the same catalogue, else
 * PMCF_ECONFLICT), planned by their catalogue indices: no name is looked up
 * again. opts->link and opts->groups must be empty (PMCF_EINVAL): they
 * come from the lists. The plan is the one pmcf_plan_make makes of the
 * names. Errors otherwise as there. */
PMCF_API int pmcf_plan_make_evlist(const pmcf_evlist *events, const pmcf_evlist *link,
				   const pmcf_plan_opts *opts, pmcf_plan **out);
PMCF_API void pmcf_plan_free(pmcf_plan *p);

PMCF_API size_t pmcf_plan_nsets(const pmcf_plan *p);
/* The events of set k (0-based), duration first; pointers owned by the plan. */
PMCF_API int pmcf_plan_events_at(const pmcf_plan *p, size_t k, const char *const **names, size_t *n);
/* The events of set k as a resolved list (its catalogue, {…} groups and
 * indices; owned by the plan), to record with pmcf_source_record: made
 * once by pmcf_plan_make_evlist (from events, then link) or by
 * pmcf_plan_resolve; NULL when the plan has not been resolved (made by
 * the name-based pmcf_plan_make, or loaded) or past the last set. */
PMCF_API const pmcf_evlist *pmcf_plan_evlist_at(const pmcf_plan *p, size_t k);
/* Resolves every set of a loaded plan (pmcf_plan_load) once, against the
 * list its events come from (pmcf_source_events: catalogue and groups;
 * duration joins every set), replacing earlier lists. All or nothing.
 * Errors: PMCF_EEVENT (a set's event is not in events), PMCF_EINVAL,
 * PMCF_ENOMEM. */
PMCF_API int pmcf_plan_resolve(pmcf_plan *p, const pmcf_evlist *events);
/* Every requested event (duration included), in request order. */
PMCF_API int pmcf_plan_events(const pmcf_plan *p, const char *const **names, size_t *n);
/* The linking events in every set (bc family; duration included). */
PMCF_API int pmcf_plan_link(const pmcf_plan *p, const char *const **names, size_t *n);
/* --link auto: the search used ("branch and bound", "greedy"), or NULL
 * when the plan's links were not chosen by information; *exact (may be
 * NULL) 1 when the order is proven best; *pilots the profiles used. */
PMCF_API const char *pmcf_plan_link_method(const pmcf_plan *p, int *exact, size_t *pilots);
/* --link auto, set k: the linking events it adds to pmcf_plan_link (events
 * of earlier sets; owned by the plan), the information in bits that the
 * linking events carry about its new events (summed over them, each by
 * its most informative linking event) and the same with pmcf_plan_link
 * alone. PMCF_ENOENT without --link auto or past the last set. */
PMCF_API int pmcf_plan_link_info(const pmcf_plan *p, size_t k, const char *const **links, size_t *n,
				 double *bits, double *base_bits);
/* A lower bound on the number of executions of a ctc/lgl plan for these
 * events: the larger of ceil(total cost / counters) and the largest set of
 * pairwise incompatible events found. */
PMCF_API unsigned pmcf_plan_lower_bound(const pmcf_plan *p);
/* The counters that bound used (*n, 0 when none) and where that number came
 * from: "--pmcs", the events' counter constraints (a libpfm4 or simulated
 * machine's table), the PMU probed with event groups ("armv8_pmuv3_0's 6
 * general counters and a cycle counter, probed with event groups"), or why
 * it is unknown; "" when the events need no counter or the plan was loaded
 * from plan.json (which does not keep it). */
PMCF_API const char *pmcf_plan_bound_counters(const pmcf_plan *p, unsigned *n);
/* 1 when the number of sets is proven minimal (it meets the bound, or the
 * exact search finished), else 0. */
PMCF_API int pmcf_plan_optimal(const pmcf_plan *p);
PMCF_API int pmcf_plan_strategy(const pmcf_plan *p);
PMCF_API unsigned pmcf_plan_pmcs(const pmcf_plan *p);
PMCF_API int pmcf_plan_packing(const pmcf_plan *p);
/* The catalogue the plan was made for ("perf" or "sim:<machine>"). */
PMCF_API const char *pmcf_plan_catalog(const pmcf_plan *p);

/* What the executions run: a simulation SPEC, or a program with its
 * arguments. Both setters copy. A plan made without either has no source
 * (record then needs one on its command line). */
PMCF_API int pmcf_plan_sim_set(pmcf_plan *p, const char *spec);
PMCF_API int pmcf_plan_program_set(pmcf_plan *p, const char *const *argv, size_t argc);
/* The SPEC, or NULL when the source is not simulated. */
PMCF_API const char *pmcf_plan_sim(const pmcf_plan *p);
/* The program's argv (NULL-terminated, argc in *argc), or NULL. */
PMCF_API const char *const *pmcf_plan_program(const pmcf_plan *p, size_t *argc);
/* Base seed of the executions: execution K of a simulated plan uses
 * pmcf_sim_exec_seed(seed, K). Default 1. */
PMCF_API uint64_t pmcf_plan_seed(const pmcf_plan *p);
PMCF_API void pmcf_plan_seed_set(pmcf_plan *p, uint64_t seed);

/* plan.json text (malloc'd, caller frees): {"format":"pmcfuse-plan",
 * "version":1, "source":{...}, "strategy", "packing", "pmcs", "catalog",
 * "seed", "events", "link", "lower_bound", "optimal", "sets":[[...],...]}. */
PMCF_API int pmcf_plan_to_json(const pmcf_plan *p, char **text);
/* Parses plan.json text. Errors: PMCF_ENOTOURS (not a plan), PMCF_EVERSION
 * (newer version), PMCF_ESYNTAX (malformed; the detail says where). */
PMCF_API int pmcf_plan_from_json(const char *text, pmcf_plan **out);
/* Writes plan.json (pmcf_plan_to_json) to path whole or not at all: a
 * temporary beside it, synced, renamed over it; never over a device, FIFO
 * or socket (PMCF_EINVAL). -errno when it cannot be written. */
PMCF_API int pmcf_plan_save(const pmcf_plan *p, const char *path);
/* Reads and parses the plan file at path (-errno when unreadable). */
PMCF_API int pmcf_plan_load(const char *path, pmcf_plan **out);

/* ---- reference planning: a pair covering ----------------------------------------
 * Event sets, each countable in one execution (pmcf_catalog_check_events),
 * such that every pair of events that can be counted together is in at
 * least one set. Duration is left out (it is in every profile); events
 * that take no general-purpose counter and aliases (same native events)
 * join every set they fit. The events that take counters, one per set of
 * natives, are packed by a greedy covering with seeded randomised restarts,
 * then a tabu search that removes one set at a time and repairs the
 * covering by exchanging events (docs/accuracy.md). Deterministic for a
 * seed (the tools use 1). Made of a resolved list (pmcf_evlist_parse,
 * pmcf_source_events) by its catalogue indices: no name is looked up again;
 * its {…} groups are not used for the covering (the sets' lists keep them).
 * Errors: PMCF_ESYNTAX (fewer than two events besides duration),
 * PMCF_EINVAL (a NULL list), PMCF_ENOMEM. (The name-based
 * pmcf_cover_pairs and pmcf_cover_pairs_seeded are gone: make the list with
 * pmcf_evlist_from_names or pmcf_evlist_parse.) */
typedef struct pmcf_cover pmcf_cover;
PMCF_API int pmcf_cover_pairs_evlist(const pmcf_evlist *events, unsigned pmcs, uint64_t seed,
				     pmcf_cover **out);
PMCF_API void pmcf_cover_free(pmcf_cover *cv);
PMCF_API size_t pmcf_cover_nsets(const pmcf_cover *cv);
/* The events of set k, as pointers owned by the cover; *n receives the count. */
PMCF_API const char *const *pmcf_cover_events_at(const pmcf_cover *cv, size_t k, size_t *n);
/* Set k as a resolved list (owned by the cover; the events' {…} groups in
 * the list it was made of), made once by pmcf_cover_pairs_evlist; NULL
 * past the last set. */
PMCF_API const pmcf_evlist *pmcf_cover_evlist_at(const pmcf_cover *cv, size_t k);
/* A lower bound on the number of sets any covering needs: the largest of
 * (a) pairs / most pairs in one set, (b) per event, its partners / most
 * partners in one set, (c) the Schönheim bound generalised to unequal
 * events, all over the events that take counters (one per set of natives),
 * with the largest countable sets found by an exact search. */
PMCF_API size_t pmcf_cover_lower_bound(const pmcf_cover *cv);
/* The three bounds (a), (b), (c) above. */
PMCF_API void pmcf_cover_bound_parts(const pmcf_cover *cv, size_t *pairs, size_t *per_event,
				     size_t *schoenheim);
/* One line saying how the bound was derived (owned by the cover). */
PMCF_API const char *pmcf_cover_bound_text(const pmcf_cover *cv);
/* Pairs that cannot be counted together at all (left uncovered); pair k
 * (k < the count) is written to *a and *b (owned by the cover). */
PMCF_API size_t pmcf_cover_nimpossible(const pmcf_cover *cv);
PMCF_API void pmcf_cover_impossible(const pmcf_cover *cv, size_t k, const char **a, const char **b);

#ifdef __cplusplus
}
#endif
#endif
