/* Names of the multiplexing modes and estimators (pmcfuse/multiplex.h),
 * shared by the simulator and the collector. */
#include "pmcfuse/multiplex.h"
#include "util/internal.h"
#include <string.h>

static const char *const mux_names[] = {"none", "kernel", "rr", "roc", "roc-counts"};
#define NMUX (int)(sizeof(mux_names) / sizeof(mux_names[0]))
static const char *const est_names[] = {"cumulative", "local"};

int pmcf_mux_mode_parse(const char *name)
{
	for (int i = 0; i < NMUX; i++)
		if (name && strcmp(name, mux_names[i]) == 0)
			return i;
	return pmcfi_fail(PMCF_EINVAL,
			  "unknown multiplexing mode '%s' (valid: none, kernel, rr, roc, roc-counts)",
			  name ? name : "");
}

const char *pmcf_mux_mode_name(int mode) { return mode >= 0 && mode < NMUX ? mux_names[mode] : "unknown"; }

int pmcf_estimate_parse(const char *name)
{
	for (int i = 0; i < 2; i++)
		if (name && strcmp(name, est_names[i]) == 0)
			return i;
	return pmcfi_fail(PMCF_EINVAL, "unknown estimator '%s' (valid: cumulative, local)", name ? name : "");
}

const char *pmcf_estimate_name(int e) { return e >= 0 && e < 2 ? est_names[e] : "unknown"; }
