/* Cross-execution consistency of a (fused) profile: relations between
 * events that every XU's true counts obey, counted where the values break
 * them. In a fused profile the two values of a relation may come from
 * different executions, so a violation says how far the executions
 * differed for that XU (docs/fusion.md, "Consistency"). */
#include <string.h>
#include "pmcfuse/evaluate.h"
#include "util/abi.h"
#include "util/internal.h"

/* lhs <= rhs * (1 + rel) + abs for every XU. Only relations certain by
 * the events' definitions: an XU runs on one thread, so its CPU time is at
 * most its wall time (the slack covers reading the counters at the XU's
 * edges); a fault is a page fault; misses and hits of a level are
 * accesses of it; conditional and mispredicted branches are branches;
 * branches are instructions. */
static const struct rel {
	const char *lhs, *rhs;
	double rel, abs;
} rels[] = {
	{"task-clock", "duration", 0.02, 2000}, {"cpu-clock", "duration", 0.02, 2000},
	{"minor-faults", "page-faults", 0, 0},  {"major-faults", "page-faults", 0, 0},
	{"PAPI_L3_TCM", "PAPI_L3_TCA", 0, 0},   {"PAPI_L2_ICM", "PAPI_L2_ICA", 0, 0},
	{"PAPI_L2_ICH", "PAPI_L2_ICA", 0, 0},   {"PAPI_BR_CN", "PAPI_BR_INS", 0, 0},
	{"PAPI_BR_MSP", "PAPI_BR_INS", 0, 0},   {"PAPI_BR_NTK", "PAPI_BR_CN", 0, 0},
	{"PAPI_BR_INS", "PAPI_TOT_INS", 0, 0},
};

size_t pmcf_consistency_nrelations(void) { return PMCF_ARRAY_SIZE(rels); }

int pmcf_consistency_check(const pmcf_profile *p, pmcf_consistency *out, size_t cap, size_t *n)
{
	pmcfi_clear_error();
	if (!p || (!out && cap) || !n)
		return pmcfi_fail(PMCF_EINVAL, "pmcf_consistency_check: NULL argument");
	*n = 0;
	size_t stride;
	int rc = pmcfi_struct_stride("pmcf_consistency", out, cap, sizeof(*out), sizeof(*out), &stride);
	if (rc)
		return rc;
	size_t nx = pmcf_profile_nxus(p);
	int prov = pmcf_profile_has_provenance(p);
	for (size_t r = 0; r < PMCF_ARRAY_SIZE(rels) && *n < cap; r++) {
		long a = pmcf_profile_event_find(p, rels[r].lhs), b = pmcf_profile_event_find(p, rels[r].rhs);
		if (a < 0 || b < 0)
			continue;
		pmcf_consistency *c = (pmcf_consistency *)((char *)out + (*n)++ * stride);
		memset(c, 0, sizeof(*c));
		c->size = sizeof(*c);
		c->lhs = rels[r].lhs;
		c->rhs = rels[r].rhs;
		c->tolerance_rel = rels[r].rel;
		c->tolerance_abs = rels[r].abs;
		const double *va = pmcf_profile_column_const(p, (size_t)a);
		const double *vb = pmcf_profile_column_const(p, (size_t)b);
		for (size_t i = 0; i < nx; i++) {
			if (pmcf_is_missing(va[i]) || pmcf_is_missing(vb[i]))
				continue;
			c->checked++;
			if (!(va[i] > vb[i] * (1 + rels[r].rel) + rels[r].abs))
				continue;
			c->violated++;
			int32_t sa = -1, sb = -1;
			int64_t xa = -1, xb = -1;
			if (prov) {
				pmcf_profile_provenance_get(p, i, (size_t)a, &sa, &xa);
				pmcf_profile_provenance_get(p, i, (size_t)b, &sb, &xb);
			}
			c->cross += sa != sb || xa != xb;
		}
	}
	return 0;
}
