/* Per-event coverage summary of a multiplexed profile: the share of XUs with
 * a measured value and the mean share of each XU's time the event counted
 * (what `show` reports under multiplexing; fuse-task-parallel §5.1). */
#include "pmcfuse/multiplex.h"
#include "util/internal.h"

int pmcf_profile_coverage_summary(const pmcf_profile *p, size_t ev, double *share_measured,
                                  double *mean_time_share)
{
	if (!p || ev >= pmcf_profile_nevents(p))
		return pmcfi_fail(PMCF_EINVAL, "no event %zu in the profile", ev);
	if (!pmcf_profile_has_coverage(p))
		return pmcfi_fail(PMCF_ENOENT, "the profile has no multiplexing coverage");
	size_t n = pmcf_profile_nxus(p), measured = 0, timed = 0;
	double share = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t en = 0, run = 0;
		pmcf_profile_coverage_get(p, i, ev, &en, &run);
		double v = pmcf_profile_value(p, i, ev);
		if (run > 0 && v == v)
			measured++;
		if (en > 0) {
			share += (double)(run < en ? run : en) / (double)en;
			timed++;
		}
	}
	if (share_measured)
		*share_measured = n ? (double)measured / (double)n : 0;
	if (mean_time_share)
		*mean_time_share = timed ? share / (double)timed : 0;
	return 0;
}
