/* The one check of what a recording counts and how (pmcf_count_opts), for
 * the source, the simulator and the collector. Not exported. */
#ifndef PMCF_MULTIPLEX_COUNT_OPTS_H
#define PMCF_MULTIPLEX_COUNT_OPTS_H
#include "pmcfuse/base.h"

/* The caller's opts (NULL: the defaults) checked by the ABI rule and copied
 * into *out with the defaults applied (period 0: 4 ms); PMCF_EINVAL with
 * a detail for an unknown mode or estimator or a period outside 0.001 to
 * 1e6 ms. */
int pmcfi_count_opts_in(const pmcf_count_opts *opts, pmcf_count_opts *out);
#endif
