/* Shared inside src/evaluate: the EMD workspace (so that tests can bound the
 * pivots and force the fallback solver), percentile helpers, the seeded
 * generator (util/rng.h) and the event pairs of a target matched against
 * reference profiles. */
#ifndef PMCF_EVALUATE_IMPL_H
#define PMCF_EVALUATE_IMPL_H
#include <stdint.h>
#include "pmcfuse/evaluate.h"
#include "x/x.h"
#include "util/rng.h" /* pmcfi_splitmix64: sampling and bootstrap */

struct pmcf_emd_ws {
	size_t cap_m, cap_n, cap_pts; /* capacities of the buffers below */
	double *cost;                 /* m*n ground distances */
	int64_t *sup, *dem;           /* integer masses after cancelling shared mass */
	int *ia, *ib;                 /* original point of each supply / demand */
	int *sa, *sb;                 /* sort orders for cancelling identical locations */
	int64_t *qa, *qb;             /* integer masses of all points */
	double *pot;                  /* node potentials (supplies then demands) */
	int *ai, *aj;                 /* basic arcs: supply, demand */
	int64_t *af;                  /* their flows */
	int *head, *nxt, *prv;        /* adjacency lists of the basis tree: entry 2k at ai, 2k+1 at aj */
	int *par, *depth, *stack;     /* parent arc and depth of each node; DFS stack */
	int *cyc;                     /* arcs of the pivot cycle */
	int64_t *flow;                /* m*n flows of the fallback solver */
	double *dist;                 /* fallback: Dijkstra distances */
	int *prev;                    /* fallback: predecessor node */
	unsigned char *done;          /* fallback: settled nodes */
	/* knobs and statistics (tests, benchmarks) */
	long max_pivots; /* 0: the default bound; < 0: go straight to the fallback */
	long pivots;     /* pivots of the last call */
	int fallback;    /* 1 when the last call used the fallback solver */
};

/* ---- a target and its references, matched by event and XU-type name ---- */
struct pmcfi_view {
	const pmcf_profile *p;
	size_t nxu;
	const double **col; /* per matched event: the column, or NULL when not in this profile */
	double *mn, *mx;    /* per matched event: range of the present values (NaN: none) */
	uint32_t *gtype;    /* per XU: index into pmcfi_match.types */
};
struct pmcfi_match {
	size_t nev;
	char **ev; /* the target's events, duration excluded */
	struct pmcfi_view target;
	struct pmcfi_view *refs;
	size_t nrefs;
	size_t ntypes, captypes;
	char **types; /* "kind/name" of every XU type seen */
};
int pmcfi_match_build(const pmcf_profile *target, const pmcf_profile *const *refs, size_t nrefs,
		      struct pmcfi_match *m);
void pmcfi_match_free(struct pmcfi_match *m);
/* 1 when x and y (built against the same references) match the same events
 * and XU types in the same order: their reference views are then equal
 * (the same columns, types and ranges), and one serves both targets. */
int pmcfi_match_compatible(const struct pmcfi_match *x, const struct pmcfi_match *y);
/* Several targets against the same references (epd, correrr): a match per
 * target, the compatible ones in groups (in target order), fn called once
 * per group with its n matches and their positions among the targets (fn
 * may move names out of the matches into its results); stops at the first
 * error. */
typedef int (*pmcfi_group_fn)(void *ctx, struct pmcfi_match *gm, size_t n, const size_t *pos);
int pmcfi_match_groups(const pmcf_profile *const *targets, size_t ntargets, const pmcf_profile *const *refs,
		       size_t nrefs, pmcfi_group_fn fn, void *ctx);
#endif
