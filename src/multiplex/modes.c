/* Names of the multiplexing modes and estimators (pmcfuse/multiplex.h),
 * shared by the simulator and the collector, and the one check of
 * pmcf_count_opts (count_opts.h). */
#include "multiplex/count_opts.h"
#include "pmcfuse/multiplex.h"
#include "util/abi.h"
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

int pmcfi_count_opts_in(const pmcf_count_opts *opts, pmcf_count_opts *out)
{
	*out = (pmcf_count_opts)PMCF_COUNT_OPTS_INIT;
	int err = pmcfi_struct_in("pmcf_count_opts", out, opts, sizeof(*out), sizeof(*out));
	if (err)
		return err;
	if (out->multiplex < PMCF_MUX_NONE || out->multiplex >= NMUX)
		return pmcfi_fail(PMCF_EINVAL, "unknown multiplexing mode %d", out->multiplex);
	if (out->estimate != PMCF_EST_CUMULATIVE && out->estimate != PMCF_EST_LOCAL)
		return pmcfi_fail(PMCF_EINVAL, "unknown estimator %d", out->estimate);
	if (out->period_ms == 0)
		out->period_ms = 4.0;
	if (!(out->period_ms >= 0.001 && out->period_ms <= 1e6))
		return pmcfi_fail(PMCF_EINVAL, "the multiplexing period must be 0.001 to 1e6 ms (not %g)",
				  out->period_ms);
	return 0;
}
