/* Private definition of a plan, shared by the planner (plan.c) and the
 * plan.json reader/writer (plan_json.c). */
#ifndef PMCF_PLAN_IMPL_H
#define PMCF_PLAN_IMPL_H
#include "pmcfuse/plan.h"

struct pmcfi_plan_set {
	char **names; /* duration first */
	size_t n;
	size_t *idx;       /* their catalogue indices, when planned here (else NULL) */
	pmcf_evlist *list; /* resolved (pmcf_plan_make_evlist, pmcf_plan_resolve), else NULL */
};

/* --link auto: what was chosen for one set (in plan order) */
struct pmcfi_plan_auto {
	char **links; /* the linking events added to this set (besides the plan's link) */
	size_t nlinks;
	double bits, base_bits; /* information about its new events: with them, base only */
};

struct pmcf_plan {
	int strategy, packing, optimal;
	unsigned pmcs, lower_bound;
	unsigned bound_counters; /* the counters lower_bound used, 0 none */
	char bound_from[224];    /* where that number came from ("" not said) */
	char *catalog;
	char **events, **link;
	size_t nevents, nlink;
	struct pmcfi_plan_set *sets;
	size_t nsets, capsets;
	char *sim;
	char **argv; /* NULL-terminated */
	size_t argc;
	uint64_t seed;
	struct pmcfi_plan_auto *autos; /* --link auto: nsets entries, else NULL */
	char *auto_method;             /* "branch and bound", "greedy", ... */
	int auto_exact;                /* 1 when the order is proven best */
	size_t auto_pilots;            /* profiles the information was estimated in */
};

/* An empty plan (seed 1). */
int pmcfi_plan_new(pmcf_plan **out);
/* The one check of the fields a plan keeps, for planning and loading
 * alike (a plan made is one plan.json reads back): strategy one of the
 * table, packing best or greedy, pmcs 0..PMCF_PLAN_MAX_PMCS. opts: check
 * pmcf_plan_opts (PMCF_EINVAL, "pmcf_plan_opts.pmcs: ..."), else plan.json's
 * fields (PMCF_ESYNTAX, "\"pmcs\": ..."). */
int pmcfi_plan_fields_check(int opts, int strategy, int packing, uint64_t pmcs);
#define PMCFI_PLAN_STR_(x) #x
#define PMCFI_PLAN_STR(x) PMCFI_PLAN_STR_(x)
#define PMCFI_PLAN_PMCS_RANGE "1.." PMCFI_PLAN_STR(PMCF_PLAN_MAX_PMCS) ", or 0 for the machine's counters"
/* Appends a copy of names[0..n) to *arr / *len. */
int pmcfi_plan_strv_push(char ***arr, size_t *len, const char *const *names, size_t n);
/* Searches with a time bound: *d = now + limit_s (0: 1 s); past it? */
struct timespec;
void pmcfi_plan_deadline(double limit_s, struct timespec *d);
int pmcfi_plan_past(const struct timespec *d);
/* Appends a set made of a copy of names[0..n). */
int pmcfi_plan_add_set(pmcf_plan *p, const char *const *names, size_t n);

/* ---- --link auto (link_auto.c) ---------------------------------------------------- */
#include <stdint.h>
#define PMCFI_PLAN_MI_MIN_XUS 16 /* fewer XUs of a type: no estimate */
#define PMCFI_PLAN_MI_MAX_BINS 16
#define PMCFI_PLAN_MI_NOBIN 0xff /* a missing value */
struct pmcfi_plan_rv {
	double v;
	uint32_t i;
};
/* Bins for n values: cbrt(n) within 2..PMCFI_PLAN_MI_MAX_BINS; 0 below
 * PMCFI_PLAN_MI_MIN_XUS. */
size_t pmcfi_plan_mi_bins(size_t n);
/* Equal-frequency bins of x[0..n) by rank (n log n): value of rank r goes to
 * bin r·nb/m (m values not missing), tied values to the bin of their first
 * rank, missing ones to PMCFI_PLAN_MI_NOBIN. scr: n entries of scratch. */
void pmcfi_plan_rank_bins(const double *x, size_t n, size_t nb, struct pmcfi_plan_rv *scr, uint8_t *bins);
/* Mutual information in bits of two binned variables over the entries
 * where both have a bin: plug-in entropies with the Miller-Madow
 * correction, at least 0; NaN with fewer than PMCFI_PLAN_MI_MIN_XUS entries.
 * hist: nb·nb + 2·nb scratch. O(n + nb²). */
double pmcfi_plan_mi_binned(const uint8_t *bx, const uint8_t *by, size_t n, size_t nb, uint32_t *hist);
/* Both steps on raw values (allocates; NaN on failure or too few). */
double pmcfi_plan_mi(const double *x, const double *y, size_t n);
/* mi[a·n + b]: the MI of events names[a] and names[b] measured together in
 * the profiles, per XU type (types of fewer than PMCFI_PLAN_MI_MIN_XUS XUs left
 * out), averaged over types and profiles weighted by XUs; NaN when no
 * profile measured the pair (and on the diagonal). */
int pmcfi_plan_mi_matrix(const pmcf_profile *const *pilots, size_t np, const char *const *names, size_t n,
			 double *mi);

/* The search: sets 0..nsets) whose new events are setev[setfirst[k] ..
 * setfirst[k+1]) (event numbers < nev), base events in every set; a set's
 * linking events are up to maxlinks events of the sets before it such that
 * fits(ctx, k, links, n) (1 fits, 0 not, < 0 error; subsets of a fitting
 * choice must fit). The value of an order is, over every set but the first,
 * the sum over its new events of the most information (mi, bits; NaN = 0)
 * one of its linking events or base events carries about it. */
#define PMCFI_PLAN_LK_MAX_LINKS 4
#define PMCFI_PLAN_LK_BNB_MAX_SETS 12
enum { PMCFI_PLAN_LK_AUTO, PMCFI_PLAN_LK_BNB, PMCFI_PLAN_LK_EXHAUSTIVE, PMCFI_PLAN_LK_GREEDY };
struct pmcfi_plan_lk {
	size_t nsets, nev;
	const double *mi;
	const size_t *base;
	size_t nbase;
	const size_t *setev, *setfirst;
	int (*fits)(void *ctx, size_t k, const size_t *links, size_t n);
	void *ctx;
	unsigned maxlinks;
	double bound_scale; /* 1; tests break the bound with less */
};
struct pmcfi_plan_lk_result {
	size_t *order;            /* position -> set */
	size_t *links;            /* position p: links[p·PMCFI_PLAN_LK_MAX_LINKS ..] */
	size_t *nlinks;           /* per position */
	double *bits, *base_bits; /* per position; 0 for the first */
	double total;
	int method, exact;
	size_t nodes;
};
/* method PMCFI_PLAN_LK_AUTO: branch and bound up to PMCFI_PLAN_LK_BNB_MAX_SETS sets
 * (exact unless time_limit_s, 0: 1 s, runs out), greedy beyond. */
int pmcfi_plan_lk_search(const struct pmcfi_plan_lk *P, int method, double time_limit_s,
			 struct pmcfi_plan_lk_result *r);
void pmcfi_plan_lk_result_free(struct pmcfi_plan_lk_result *r);
#endif
