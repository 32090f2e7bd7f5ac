/* Shared by the fusion verbs (plan, combine, run): printing a plan and the
 * summary of a combination. */
#ifndef PMCF_CLI_FUSE_H
#define PMCF_CLI_FUSE_H
#include <stdio.h>
#include "pmcfuse/combine.h"
#include "pmcfuse/plan.h"

/* "N executions (lower bound B[, optimal]) ..." then one line per set. */
void fuse_print_plan(FILE *f, const pmcf_plan *p);
/* XUs, events, partial XUs, label statistics (lgl) and match distances. */
void fuse_print_summary(FILE *f, const pmcf_profile *fused, const pmcf_combine_stats *st,
			int strategy, size_t ninputs);
#endif
