/* `pmcfuse run` around the executions: what a stop says, fusing them into
 * OUT (as `combine`) and the summary, with whether the executions agree. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/campaign.h"
#include "cli/cli.h"
#include "cli/fuse.h"
#include "cli/output.h"
#include "cli/verbs/run.h"

const char *run_lib_why(char *buf, size_t len, int err, const char *path)
{
	const char *d = pmcf_errdetail();
	snprintf(buf, len, d && d[0] ? "%s" : "%s: %s", d && d[0] ? d : path, pmcf_strerror(err));
	return buf;
}

int run_stopped(struct run *r, size_t done, int partial, int own)
{
	if (!done && !partial && own) {
		pmcf_campaign_remove(r->s.camp);
		return cli_interrupted("run", "no execution had finished; nothing kept");
	}
	pmcf_campaign_state_set(r->s.camp, "interrupted");
	return cli_interrupted("run",
			       "%zu of %zu execution%s complete%s, kept in %s; resume with "
			       "`pmcfuse run --resume %s`",
			       done, r->nsets, r->nsets == 1 ? "" : "s",
			       partial ? " (the stopped one kept, marked incomplete)" : "", r->cdir, r->cdir);
}

/* Do the executions agree with the first (pmcf_campaign_differs)? Prints
 * one line if they do, else one per execution that differs (f NULL: counts). */
static size_t print_agreement(FILE *f, pmcf_profile *const *rec, size_t n, const char *how)
{
	size_t differ = 0, n0 = pmcf_profile_nxus(rec[0]);
	for (size_t k = 1; k < n; k++) {
		char line[512];
		if (!pmcf_campaign_differs((const pmcf_profile *const *)rec, k, line, sizeof(line)) ||
		    (differ++, !f))
			continue;
		if (differ == 1)
			fprintf(f, "executions differ from execution 0 (%zu XU%s):\n", n0,
				n0 == 1 ? "" : "s");
		fprintf(f, "  execution %zu: %zu XU%s: %s\n", k, pmcf_profile_nxus(rec[k]),
			pmcf_profile_nxus(rec[k]) == 1 ? "" : "s", line);
	}
	if (!f)
		;
	else if (!differ)
		fprintf(f, "executions agree: %zu XU%s each%s%s%s, same types and labels\n", n0,
			n0 == 1 ? "" : "s", how ? " (" : "", how ? how : "", how ? ")" : "");
	else
		fprintf(f, "  (ctc and bc keep the largest count per type, the XUs without a "
			   "partner flagged partial; lgl keeps the labels present in every execution)\n");
	return differ;
}

/* The executions fused into OUT; a folder of this run's own is removed,
 * one named by the user stays. */
int run_fuse(struct run *r)
{
	char **names = calloc(r->nsets, sizeof(*names));
	for (size_t k = 0; names && k < r->nsets; k++)
		if (r->own ? asprintf(&names[k], "execution %zu", k) < 0
			   : !(names[k] = strdup(pmcf_campaign_path(r->s.camp, k))))
			names[k] = NULL;
	pmcf_combine_opts co = PMCF_COMBINE_OPTS_INIT;
	co.strategy = r->po.strategy;
	co.seed = r->base;
	co.names = (const char *const *)names;
	r->cs = (pmcf_combine_stats){.size = sizeof(r->cs)};
	int err = 0, st = CLI_OK;
	if (cli_signal_caught())
		st = run_stopped(r, r->nsets, 0, 0);
	else { /* fusing writes nothing until OUT: a signal stops it at once */
		cli_signals_stop_at_once(CLI_STOP_STEP,
					 "fusing was stopped; the %zu execution%s %s kept in %s: resume with "
					 "`pmcfuse run --resume %s` to fuse them",
					 r->nsets, r->nsets == 1 ? "" : "s", r->nsets == 1 ? "is" : "are",
					 r->cdir, r->cdir);
		err = pmcf_combine((const pmcf_profile *const *)r->rec, r->nsets, &co, &r->fused, &r->cs);
		cli_signals_disarm();
	}
	for (size_t k = 0; names && k < r->nsets; k++)
		free(names[k]);
	free(names);
	if (st || err)
		return st ? st : cli_lib_error("run", err, "combining");
	if ((r->dflt && (st = cli_keep_old("run", r->out))) || (err = pmcf_profile_save(r->fused, r->out))) {
		/* the executions stay: resuming fuses them again */
		char why[1200];
		run_lib_why(why, sizeof(why), err, r->out);
		pmcf_campaign_state_set(r->s.camp, "failed");
		return st ? st
			  : cli_error("run", cli_status_for(err),
				      "%s (the %zu execution%s %s kept in %s; resume with `pmcfuse run "
				      "--resume %s` to fuse them again)",
				      why, r->nsets, r->nsets == 1 ? "" : "s", r->nsets == 1 ? "is" : "are",
				      r->cdir, r->cdir);
	}
	if (r->own)
		pmcf_campaign_remove(r->s.camp);
	else
		pmcf_campaign_state_set(r->s.camp, "complete");
	if (cli_signal_caught()) /* while OUT was written: it is complete */
		return cli_interrupted("run", "fusing had finished: %s was written", r->out);
	return CLI_OK;
}

void run_print_summary(const struct run *r)
{
	double secs = cli_now() - r->t0;
	size_t n = r->nsets;
	const char *how = r->res.how;
	if (r->args.json) {
		printf("{\"output\": ");
		cli_json_string(stdout, r->out);
		printf(", \"source\": ");
		cli_json_string(stdout, r->source);
		printf(", \"seed\": %llu", (unsigned long long)r->base);
		for (size_t k = 0; r->sim && k < n; k++)
			printf("%s%llu", k ? ", " : ", \"execution_seeds\": [",
			       (unsigned long long)pmcf_campaign_seed(r->s.camp, k));
		printf("%s, \"executions\": %zu, \"lower_bound\": %u, \"resumed\": %zu", r->sim ? "]" : "", n,
		       pmcf_plan_lower_bound(r->plan), r->res.reused);
		cli_json_member(stdout, "seconds", secs);
		printf(", \"agree\": %s, ",
		       n < 2 || !print_agreement(NULL, r->rec, n, how) ? "true" : "false");
		fuse_json_summary(stdout, r->fused, &r->cs, r->po.strategy, n);
		printf("}\n");
		return;
	}
	if (cli_quiet)
		return;
	campaign_print_resumed(r->cdir, r->res.reused, n);
	printf("%zu execution%s of %s (lower bound %u) in %.2fs\n", n, n == 1 ? "" : "s", r->source,
	       pmcf_plan_lower_bound(r->plan), secs);
	if (r->sim && cli_verbose) {
		printf("execution seeds (derived from seed %llu):", (unsigned long long)r->base);
		for (size_t k = 0; k < n; k++)
			printf(" %llu", (unsigned long long)pmcf_campaign_seed(r->s.camp, k));
		printf("\n");
	}
	if (n > 1)
		print_agreement(stdout, r->rec, n, how);
	fuse_print_summary(stdout, r->fused, &r->cs, r->po.strategy, n);
	printf("wrote %s\n", r->out);
}
