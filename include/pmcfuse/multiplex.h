/* pmcfuse — hardware event multiplexing (HEM, docs/multiplexing.md): the
 * multiplexing modes and estimators shared by the simulator and the
 * collector, and for profiles recorded with --multiplex how much of each
 * event was really measured, from the profile's coverage layer (enabled/running
 * ns per value). */
#ifndef PMCFUSE_MULTIPLEX_H
#define PMCFUSE_MULTIPLEX_H

#include "pmcfuse/base.h"
#include "pmcfuse/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- modes and estimators --------------------------------------------------- */
/* enum pmcf_mux_mode and enum pmcf_estimate are in pmcfuse/base.h. */
/* "none", "kernel", "rr", "roc", "roc-counts" <-> enum; parse returns PMCF_EINVAL
 * (with detail). */
PMCF_API int pmcf_mux_mode_parse(const char *name);
PMCF_API const char *pmcf_mux_mode_name(int mode);

PMCF_API int pmcf_estimate_parse(const char *name);
PMCF_API const char *pmcf_estimate_name(int estimate);

/* ---- coverage of a multiplexed profile ------------------------------------------ */
/* Coverage of event ev (a profile column) over all XUs:
 * *share_measured, the share of XUs whose value was measured (the event
 * counted some time during the XU: running_ns > 0 and the value is not
 * missing); *mean_time_share, the mean over XUs with enabled_ns > 0 of
 * running_ns / enabled_ns (the share of the XU's time the event counted).
 * Either pointer may be NULL. A profile without XUs gives 0 and 0.
 * Errors: PMCF_ENOENT (no coverage layer: the profile was not multiplexed,
 * every value is fully measured), PMCF_EINVAL (ev out of range). */
PMCF_API int pmcf_profile_coverage_summary(const pmcf_profile *p, size_t ev, double *share_measured,
					   double *mean_time_share);

/* 1 when event ev (a profile column) counted during no XU: its running_ns
 * is 0 in every XU (perf prints <not counted>); 0 when it counted during
 * some XU, for "duration" (no counter) and for a profile without XUs. Errors as
 * pmcf_profile_coverage_summary. */
PMCF_API int pmcf_profile_coverage_never_counted(const pmcf_profile *p, size_t ev);

/* What a multiplexed recording really counted: the one line `record
 * --multiplex` ends with. The monitored events are the columns other than
 * "duration". Set size = sizeof(pmcf_mux_summary) before the call. */
typedef struct pmcf_mux_summary {
	size_t size;
	size_t events;        /* monitored events */
	size_t never_counted; /* of those, events that counted during no XU */
	size_t values;        /* monitored events x XUs */
	size_t missing;       /* of those, values missing (never counted, docs/multiplexing.md) */
	size_t negative;      /* values below zero (cumulative estimates can be) */
	size_t xus;
	size_t partial_xus; /* XUs during which some event did not count all the time
	                         (running_ns < enabled_ns) */
	double run_ns;      /* the run's length: metadata makespan_ns when present, else
	                         from the first XU start to the last XU end */
	double period_ns;   /* the rotation period (metadata period_ms); 0 when unknown */
} pmcf_mux_summary;
#define PMCF_MUX_SUMMARY_INIT PMCF_SIZED_INIT(pmcf_mux_summary)

/* Fills *s for profile p. Errors: PMCF_ENOENT (no coverage layer: not
 * multiplexed, every value fully counted), PMCF_EINVAL (NULL argument or
 * unknown size). */
PMCF_API int pmcf_profile_mux_summary(const pmcf_profile *p, pmcf_mux_summary *s);

#ifdef __cplusplus
}
#endif
#endif
