/* The executions of a campaign compared with the first: the same XUs per
 * type and the same labels (a program's executions should; fuse-openmp §3). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pmcfuse/campaign.h"
#include "pmcfuse/profile.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Labels of p, sorted (malloc'ed array of pointers owned by p). */
static const char **sorted_labels(const pmcf_profile *p)
{
	size_t n = pmcf_profile_nxus(p);
	const char **l = malloc((n ? n : 1) * sizeof(*l));
	if (!l)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		pmcf_xu xu = PMCF_XU_INIT;
		pmcf_profile_xu_get(p, i, &xu);
		l[i] = xu.label;
	}
	qsort(l, n, sizeof(*l), cmp_str);
	return l;
}

/* XUs of type name in p. */
static size_t type_count(const pmcf_profile *p, const char *name)
{
	size_t n = 0;
	for (size_t i = 0; i < pmcf_profile_nxus(p); i++) {
		pmcf_xu xu = PMCF_XU_INIT;
		pmcf_xu_type ty = PMCF_XU_TYPE_INIT;
		pmcf_profile_xu_get(p, i, &xu);
		if (pmcf_profile_type_get(p, xu.type, &ty) == 0 && strcmp(ty.name, name) == 0)
			n++;
	}
	return n;
}

int pmcf_campaign_differs(const pmcf_profile *const *rec, size_t k, char *line, size_t len)
{
	if (!rec || !rec[0] || !rec[k] || !line || len < 2)
		return 0;
	const char **l0 = sorted_labels(rec[0]), **lk = sorted_labels(rec[k]);
	size_t n0 = pmcf_profile_nxus(rec[0]), nk = pmcf_profile_nxus(rec[k]), o = 0;
	line[0] = '\0';
	/* XUs per type, over the types of both */
	for (int side = 0; side < 2; side++) {
		const pmcf_profile *p = side ? rec[0] : rec[k];
		for (uint32_t t = 0; t < pmcf_profile_ntypes(p); t++) {
			pmcf_xu_type ty = PMCF_XU_TYPE_INIT;
			pmcf_profile_type_get(p, t, &ty);
			size_t a = type_count(rec[k], ty.name), b = type_count(rec[0], ty.name);
			if (a == b || (side && a) || o + 80 > len)
				continue; /* side 1: only types absent from execution k */
			o += (size_t)snprintf(line + o, len - o, "%s%zu %s XU%s (execution 0: %zu)",
					      o ? ", " : "", a, ty.name, a == 1 ? "" : "s", b);
		}
	}
	/* labels: a merge of the two sorted lists */
	size_t missing = 0, extra = 0;
	const char *ex_missing = NULL, *ex_extra = NULL;
	for (size_t i = 0, j = 0; l0 && lk && (i < n0 || j < nk);) {
		int c = i == n0 ? 1 : j == nk ? -1 : strcmp(l0[i], lk[j]);
		if (c < 0) {
			ex_missing = ex_missing ? ex_missing : l0[i];
			missing++;
			i++;
		} else if (c > 0) {
			ex_extra = ex_extra ? ex_extra : lk[j];
			extra++;
			j++;
		} else {
			i++;
			j++;
		}
	}
	if ((missing || extra) && o < len)
		snprintf(line + o, len - o, "%s%zu labels of execution 0 missing%s%s%s, %zu extra%s%s%s",
			 o ? "; " : "", missing, missing ? " (e.g. " : "", missing ? ex_missing : "",
			 missing ? ")" : "", extra, extra ? " (e.g. " : "", extra ? ex_extra : "",
			 extra ? ")" : "");
	free(l0);
	free(lk);
	return line[0] != '\0';
}
