/* `pmcfuse record`'s source: set K of a plan (--plan, --set) or the command
 * line's --sim SPEC or program with -e EVENTS; shared by record.c (the
 * command line, saving) and record_source.c. */
#ifndef PMCF_CLI_RECORD_H
#define PMCF_CLI_RECORD_H
#include "cli/campaign.h"
#include "pmcfuse/plan.h"
#include "pmcfuse/source.h"

/* Set K of a plan: its events, budget and digest (stored in the profile). */
struct plan_choice {
	pmcf_plan *plan;
	size_t k;
	char digest[65];
	struct cli_plan_meta meta;
};

/* --plan PATH --set K: loads the plan into *pc, checks K and --pmcs (given
 * when pmcs_given) against it and takes the plan's counters into o. Returns
 * the CLI status (errors reported). */
int record_plan_set(const char *verb, const char *path, const char *setarg, struct plan_choice *pc,
		    pmcf_count_opts *o, int pmcs_given);
/* The source: the plan's (execution K gets the seed run would give it), or
 * the command line's; then the event list, resolved once in its catalogue
 * (*set; *exec: the execution's index for a simulated plan, else -1).
 * Returns the CLI status (errors reported). */
int record_source(const char *verb, const struct plan_choice *pc, const char *sim, int prog_argc,
		  char **prog_argv, const char *events, const pmcf_count_opts *o, const pmcf_program_opts *po,
		  pmcf_source **src, pmcf_evlist **set, long *exec);
#endif
