/* The collector's entry point for an event list resolved once (what
 * pmcf_source_record calls): pmcf_collect_program without the name
 * lookups. Not exported. */
#ifndef PMCF_COLLECT_COLLECT_RUN_H
#define PMCF_COLLECT_COLLECT_RUN_H
#include "pmcfuse/collect.h"
#include "pmcfuse/events.h"

/* pmcf_collect_program counting catalogue events idx[0..n) of the perf
 * catalogue cat (events[i] their spelling, stored in the profile; index 0,
 * duration, is implicit and skipped). cat and events are the caller's and
 * are not looked up again. */
int pmcfi_collect_run(char *const argv[], const pmcf_catalog *cat, const size_t *idx,
		      const char *const *events, size_t n, const pmcf_count_opts *opts,
		      const pmcf_program_opts *po, pmcf_profile **out, pmcf_exit_info *exit_info);
#endif
