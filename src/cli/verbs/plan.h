/* `pmcfuse plan`'s printing (plan_print.c), for plan.c. */
#ifndef PMCF_CLI_PLAN_H
#define PMCF_CLI_PLAN_H
#include <stdio.h>
#include "pmcfuse/plan.h"

/* "N executions (lower bound B[, optimal]) ..." then one line per set. */
void fuse_print_plan(FILE *f, const pmcf_plan *p);
/* `plan --json`: the summary of p written to out, as one JSON object. */
void fuse_json_plan(FILE *f, const pmcf_plan *p, const char *out);
#endif
