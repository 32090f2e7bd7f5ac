/* `pmcfuse record`'s source: set K of a plan or the command line's --sim
 * SPEC or program, and the event list it records (record.h). */
#include "cli/cli.h"
#include "cli/verbs/record.h"
#include "pmcfuse/plan.h"
#include "pmcfuse/sim.h"
#include "pmcfuse/source.h"

int record_plan_set(const char *verb, const char *path, const char *setarg, struct plan_choice *pc,
		    pmcf_count_opts *o, int pmcs_given)
{
	unsigned long k;
	if (!setarg)
		return cli_usage_error(verb, "--plan needs --set K");
	if (cli_parse_uint(verb, "--set", setarg, 0, 1000000, &k))
		return CLI_EUSAGE;
	int err = pmcf_plan_load(path, &pc->plan);
	if (err)
		return cli_lib_error(verb, err, path);
	size_t nsets = pmcf_plan_nsets(pc->plan);
	if (k >= nsets)
		return cli_usage_error(verb, "--set %lu: the plan '%s' has sets 0 to %zu", k, path,
				       nsets - 1);
	pc->k = k;
	if ((err = cli_plan_digest(verb, pc->plan, pc->digest)))
		return err;
	pc->meta = (struct cli_plan_meta){.digest = pc->digest, .set = k, .nsets = nsets};
	unsigned plan_pmcs = pmcf_plan_pmcs(pc->plan);
	if (pmcs_given && plan_pmcs && o->pmcs != plan_pmcs)
		return cli_usage_error(verb, "--pmcs %u contradicts the plan's %u counter%s", o->pmcs,
				       plan_pmcs, plan_pmcs == 1 ? "" : "s");
	if (plan_pmcs)
		o->pmcs = plan_pmcs;
	return CLI_OK;
}

int record_source(const char *verb, const struct plan_choice *pc, const char *sim, int prog_argc,
		  char **prog_argv, const char *events, const pmcf_count_opts *o, const pmcf_program_opts *po,
		  pmcf_source **src, pmcf_evlist **set, long *exec)
{
	size_t pargc = 0;
	int from_plan = pc->plan && (pmcf_plan_sim(pc->plan) || pmcf_plan_program(pc->plan, &pargc));
	if (from_plan && (sim || prog_argc))
		return cli_usage_error(verb, "the plan names its source; give no --sim or program");
	if (sim && prog_argc)
		return cli_usage_error(verb, "give --sim SPEC or -- PROG ARGS, not both");
	if (!from_plan && !sim && !prog_argc)
		return cli_usage_error(verb, "no source: give --sim SPEC or -- PROG ARGS");
	if (!pc->plan && !events)
		return cli_usage_error(verb, "no events: give -e EVENTS");
	int err = from_plan ? pmcf_source_new_from_plan(pc->plan, o, po, src)
		  : sim     ? pmcf_source_new_sim(sim, o, src)
			    : pmcf_source_new_program(prog_argc, prog_argv, o, po, src);
	if (err)
		return cli_lib_error(verb, err, from_plan ? "--plan" : sim ? "--sim" : "program");
	*exec = from_plan && pmcf_source_is_sim(*src) ? (long)pc->k : -1;
	const pmcf_catalog *cat;
	if (pc->plan) {
		const char *const *names;
		size_t n;
		pmcf_plan_events_at(pc->plan, pc->k, &names, &n);
		if (!(err = pmcf_source_catalog(*src, &cat)))
			err = pmcf_evlist_from_names(cat, names, n, set);
	} else {
		err = pmcf_source_events(*src, events, set);
	}
	if (err)
		return cli_lib_error(verb, err, "events");
	char note[768];
	if (cli_user_only_note(*set, note, sizeof(note)))
		cli_error(verb, CLI_OK, "%s", note);
	return CLI_OK;
}
