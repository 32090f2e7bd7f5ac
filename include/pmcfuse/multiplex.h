/* pmcfuse — hardware event multiplexing (HEM) helpers for profiles recorded
 * with --multiplex (docs/multiplexing.md): how much of each event was really
 * measured, from the profile's coverage layer (enabled/running ns per value). */
#ifndef PMCFUSE_MULTIPLEX_H
#define PMCFUSE_MULTIPLEX_H

#include "pmcfuse/pmcfuse.h"
#include "pmcfuse/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Coverage of event ev (a profile column) over all XUs:
 * *share_measured, the share of XUs whose value was measured (the event
 * counted some time during the XU: running_ns > 0 and the value is not
 * missing); *mean_time_share, the mean over XUs with enabled_ns > 0 of
 * running_ns / enabled_ns (the share of the XU's time the event counted).
 * Either pointer may be NULL. A profile without XUs gives 0 and 0.
 * Errors: PMCF_ENOENT (no coverage layer: the profile was not multiplexed,
 * every value is fully measured), PMCF_EINVAL (ev out of range). */
PMCF_API int pmcf_profile_coverage_summary(const pmcf_profile *p, size_t ev,
                                           double *share_measured, double *mean_time_share);

#ifdef __cplusplus
}
#endif
#endif
