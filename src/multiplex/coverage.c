/* Per-event coverage summary of a multiplexed profile: the share of XUs with
 * a measured value and the mean share of each XU's time the event counted
 * (what `show` reports under multiplexing; fuse-task-parallel §5.1), the
 * events that never counted, and the whole recording's summary. */
#include "pmcfuse/events.h"
#include "pmcfuse/multiplex.h"
#include "util/abi.h"
#include "util/internal.h"
#include <stdlib.h>
#include <string.h>

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

int pmcf_profile_coverage_never_counted(const pmcf_profile *p, size_t ev)
{
	if (!p || ev >= pmcf_profile_nevents(p))
		return pmcfi_fail(PMCF_EINVAL, "no event %zu in the profile", ev);
	if (!pmcf_profile_has_coverage(p))
		return pmcfi_fail(PMCF_ENOENT, "the profile has no multiplexing coverage");
	if (strcmp(pmcf_profile_event_name(p, ev), PMCF_EVENT_DURATION) == 0)
		return 0; /* timestamps, no counter */
	size_t n = pmcf_profile_nxus(p);
	for (size_t i = 0; i < n; i++) {
		uint64_t en = 0, run = 0;
		pmcf_profile_coverage_get(p, i, ev, &en, &run);
		if (run > 0)
			return 0;
	}
	return n > 0;
}

int pmcf_profile_mux_summary(const pmcf_profile *p, pmcf_mux_summary *s)
{
	if (!p || !s)
		return pmcfi_fail(PMCF_EINVAL, "pmcf_profile_mux_summary: missing argument");
	int rc = pmcfi_check_struct("pmcf_mux_summary", s, s->size, sizeof(*s), sizeof(*s));
	if (rc)
		return rc;
	if (!pmcf_profile_has_coverage(p))
		return pmcfi_fail(PMCF_ENOENT, "the profile has no multiplexing coverage");
	memset(s, 0, sizeof(*s));
	s->size = sizeof(*s);
	size_t nx = pmcf_profile_nxus(p), ne = pmcf_profile_nevents(p);
	long dur = pmcf_profile_event_find(p, PMCF_EVENT_DURATION); /* no counter */
	s->xus = nx;
	uint64_t first = UINT64_MAX, last = 0;
	for (size_t i = 0; i < nx; i++) {
		pmcf_xu xu = PMCF_XU_INIT;
		if (pmcf_profile_xu_fields_get(p, i, &xu) != 0)
			continue;
		if (xu.start_ns < first)
			first = xu.start_ns;
		if (xu.end_ns > last)
			last = xu.end_ns;
		int partial = 0;
		for (size_t e = 0; e < ne; e++) {
			uint64_t en = 0, run = 0;
			if ((long)e == dur)
				continue;
			pmcf_profile_coverage_get(p, i, e, &en, &run);
			partial |= run < en;
		}
		s->partial_xus += partial;
	}
	for (size_t e = 0; e < ne; e++) {
		if ((long)e == dur)
			continue;
		s->events++;
		s->never_counted += pmcf_profile_coverage_never_counted(p, e) == 1;
		const double *col = pmcf_profile_column_const(p, e);
		for (size_t i = 0; i < nx; i++) {
			s->missing += pmcf_is_missing(col[i]);
			s->negative += col[i] < 0;
		}
		s->values += nx;
	}
	const char *mk = pmcf_profile_meta_get(p, "makespan_ns");
	const char *per = pmcf_profile_meta_get(p, PMCF_META_PERIOD_MS);
	if (mk && *mk)
		s->run_ns = strtod(mk, NULL);
	else if (last >= first && first != UINT64_MAX)
		s->run_ns = (double)(last - first);
	if (per && *per)
		s->period_ns = strtod(per, NULL) * 1e6;
	return 0;
}
