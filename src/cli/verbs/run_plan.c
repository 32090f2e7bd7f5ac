/* `pmcfuse run`'s plan: the source, the events and the plan of the
 * executions, before the campaign (run.h). */
#include <stdlib.h>
#include <string.h>
#include "cli/campaign.h"
#include "cli/cli.h"
#include "cli/fuse.h"
#include "cli/verbs/run.h"
#include "pmcfuse/source.h"

int run_plan(struct run *r, int argc, char **argv, int optind)
{
	const char *verb = "run";
	pmcf_count_opts so = PMCF_COUNT_OPTS_INIT;
	so.pmcs = r->po.pmcs;
	int st, err = r->sim ? pmcf_source_new_sim(r->sim, &so, &r->src)
			     : pmcf_source_new_program(argc - optind, argv + optind, &so, NULL, &r->src);
	if (err)
		return cli_lib_error(verb, err, r->sim ? r->sim : "program");
	int autolink = r->link && !strcmp(r->link, "auto");
	if ((err = pmcf_source_events(r->src, r->events, &r->ev)) ||
	    (r->link && !autolink && (err = pmcf_source_events(r->src, r->link, &r->lk))))
		return cli_lib_error(verb, err, "events");
	char note[768];
	if (cli_user_only_note(r->ev, note, sizeof(note)) ||
	    (r->lk && cli_user_only_note(r->lk, note, sizeof(note))))
		cli_error(verb, CLI_OK, "%s", note);
	/* the linking events and the {…} groups come from the resolved lists */
	if (autolink) { /* --link auto: a pilot (docs/fusion.md) */
		if ((st = fuse_link_auto_plan(verb, r->ev, NULL, r->sim ? r->src : NULL,
					      r->seed_given ? r->seed : 1, &r->po, &r->plan)))
			return st;
	} else if ((err = pmcf_plan_make_evlist(r->ev, r->lk, &r->po, &r->plan)) ||
		   (r->lk && (err = pmcf_evlist_append(r->ev, r->lk)))) { /* ev: every event of a set */
		return cli_lib_error(verb, err, "planning");
	}
	r->nsets = pmcf_plan_nsets(r->plan);
	r->base = r->seed_given ? r->seed : pmcf_source_seed(r->src);
	r->rec = calloc(r->nsets, sizeof(*r->rec));
	/* the source as the user gave it, with the base seed (not an execution's) */
	pmcf_source_seed_set(r->src, r->base);
	r->source = strdup(pmcf_source_name(r->src));
	if (!r->rec || !r->source)
		return cli_error(verb, CLI_EENV, "out of memory");
	/* the plan with its source and seed: its digest names the campaign */
	if ((err = pmcf_source_to_plan(r->src, r->plan)))
		return cli_lib_error(verb, err, "planning");
	return cli_check_output(verb, r->out);
}
