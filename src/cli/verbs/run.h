/* `pmcfuse run`'s state, shared by run.c (the command line, the campaign),
 * run_plan.c (the source, the events, the plan) and run_fuse.c (fusing the
 * executions, the summary). */
#ifndef PMCF_CLI_RUN_H
#define PMCF_CLI_RUN_H
#include "cli/campaign.h"
#include "pmcfuse/combine.h"
#include "pmcfuse/plan.h"

struct run {
	/* the command line */
	const char *events, *out, *link, *keep, *sim;
	pmcf_plan_opts po;
	unsigned long seed;
	int seed_given, dflt; /* dflt: no -o, OUT is pmcfuse.pmcf */
	struct campaign_args args;
	/* the campaign */
	struct campaign_session s;
	pmcf_source *src;
	pmcf_evlist *ev, *lk;
	pmcf_plan *plan;
	size_t nsets;
	uint64_t base;
	char *owndir, *source;
	const char *cdir;
	int own; /* the folder is OUT.executions, removed once OUT is written */
	double t0;
	pmcf_campaign_result res;
	pmcf_profile **rec, *fused;
	pmcf_combine_stats cs;
};

/* The source, the events (default: the source's, resolved once for the
 * planner and every recording) and the plan; the output checked
 * (run_plan.c). An exit status. */
int run_plan(struct run *r, int argc, char **argv, int optind);
/* A signal stopped the campaign with done executions complete (and the one
 * it stopped kept, incomplete, when partial): says what is kept and how to
 * resume; returns 128 + the signal. A folder of the run's own (own) that
 * keeps nothing is removed. */
int run_stopped(struct run *r, size_t done, int partial, int own);
/* What the library said of err on path (its detail, else "path: reason"). */
const char *run_lib_why(char *buf, size_t len, int err, const char *path);
/* The executions fused into OUT; a folder of this run's own is removed,
 * one named by the user stays. An exit status. */
int run_fuse(struct run *r);
void run_print_summary(const struct run *r);
#endif
