/* Private definition of a plan, shared by the planner (plan.c) and the
 * plan.json reader/writer (plan_json.c). */
#ifndef PMCF_PLAN_IMPL_H
#define PMCF_PLAN_IMPL_H
#include "pmcfuse/plan.h"

struct plan_set {
	char **names; /* duration first */
	size_t n;
};

struct pmcf_plan {
	int strategy, packing, optimal;
	unsigned pmcs, lower_bound;
	char *catalog;
	char **events, **link;
	size_t nevents, nlink;
	struct plan_set *sets;
	size_t nsets;
	char *sim;
	char **argv; /* NULL-terminated */
	size_t argc;
	uint64_t seed;
};

/* An empty plan (seed 1). */
int plani_new(pmcf_plan **out);
/* Appends a copy of names[0..n) to *arr / *len. */
int plani_strv_push(char ***arr, size_t *len, const char *const *names, size_t n);
/* Appends a set made of a copy of names[0..n). */
int plani_add_set(pmcf_plan *p, const char *const *names, size_t n);
#endif
