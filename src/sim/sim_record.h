/* The simulator's recording of an event list resolved once (what
 * pmcf_source_record calls): pmcf_sim_record without name lookups. Not
 * exported. */
#ifndef PMCF_SIM_SIM_RECORD_H
#define PMCF_SIM_SIM_RECORD_H
#include "pmcfuse/sim.h"

/* pmcf_sim_record of the events idx[0..n) of the sim catalogue of s's
 * machine (pmcf_catalog_sim: index 0 is duration, skipped). */
int pmcfi_sim_record_idx(const pmcf_sim_spec *s, const size_t *idx, size_t n, const pmcf_count_opts *opts,
			 pmcf_profile **out);
/* The simulator's limit on o (checked): pmcs at most the counters it
 * models (64), else PMCF_EINVAL naming the field. pmcf_source_new_sim
 * checks it when the source is made, pmcf_sim_record when it records. */
int pmcfi_sim_count_opts_check(const pmcf_count_opts *o);
#endif
