/* `pmcfuse record`: record one execution profile of a simulated workload
 * (--sim SPEC) or a real program (-- PROG ARGS), with its own event list or
 * one set of a plan (--plan plan.json --set K). */
#include "cli/campaign.h"
#include "cli/cli.h"
#include "cli/output.h"
#include "cli/record_program.h"
#include "pmcfuse/plan.h"
#include "pmcfuse/sim.h"
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: pmcfuse record -e EVENTS [--pmcs N] [--multiplex none|kernel|rr|roc]\n"
    "                      [--period-ms P] [--estimate cumulative|local]\n"
    "                      [-q] [--json]\n"
    "                      -o OUT (--sim SPEC | -- PROG ARGS | --plan plan.json --set K)\n\n"
    "Records one execution profile: every XU with its type, label, thread, cpu, times\n"
    "and one value per monitored event (duration always first). A simulated source\n"
    "also stores the true value of every event of its machine (`export --truth`).\n\n"
    "With --multiplex, a value whose event never counted (perf's <not counted>) is\n"
    "missing, not 0, and record ends with one line on stderr: the events that never\n"
    "counted during any XU, the share of values missing, the XUs not always counted,\n"
    "and a warning when the run was shorter than one rotation period\n"
    "(docs/multiplexing.md).\n\n"
    "SIGINT, SIGTERM and SIGHUP are forwarded to the program: what was recorded is\n"
    "saved, marked incomplete, and record exits 128+N (docs/campaigns.md).\n\n"
    "  -e, --events EVENTS   comma list, all, or @FILE (`pmcfuse events --sim SPEC`)\n"
    "  -o, --output OUT      the profile file to write (atomically)\n"
    "  --sim SPEC            simulated workload: WORKLOAD[,key=value...], e.g.\n"
    "                        cholesky,blocks=12,seed=3 (docs/simulation.md)\n"
    "  --pmcs N              general-purpose counters (default: the machine's own)\n"
    "  --multiplex MODE      time-share the counters when the events do not fit:\n"
    "                        kernel (perf rotation), rr (round-robin), roc (rate of change,\n"
    "                        cost in samples; roc-counts: cost in raw counts);\n"
    "                        none (default) refuses a set that does not fit\n"
    "  --period-ms P         multiplexing period in ms (default 4)\n"
    "  --estimate E          per-XU estimate under multiplexing: cumulative (default) or local;\n"
    "                        missing where it is undefined (cumulative: the event had not yet\n"
    "                        counted at the XU end; local: it did not count during the XU)\n"
    "  --plan FILE --set K   record execution K (0-based, as `pmcfuse plan` numbers them) of\n"
    "                        a plan: its events, counter budget, source and seed come from\n"
    "                        the plan; the profile stores the plan's digest and K,\n"
    "                        which combine checks (docs/slurm.md: a job array)\n"
    "  -- PROG ARGS          a real program, counted with perf_event (docs/collector.md)\n"
    "  -q, --quiet           no summary line: errors (and warnings) only\n"
    "  --json                the summary as one JSON object on stdout: output, source,\n"
    "                        xus, events, complete, observed (a program), multiplex\n";

/* The events, budget, source and seed of set K of a plan: fills the
 * caller's choices, refusing contradictions. */
struct plan_choice {
	pmcf_plan *plan;
	const char *const *names;
	size_t n;
	char digest[65];
	struct cli_plan_meta meta; /* stored in the profile */
};

static int load_plan_set(const char *verb, const char *path, const char *setarg,
			 struct plan_choice *pc, pmcf_sim_opts *o, int pmcs_given, const char **sim,
			 int *prog_argc, char ***prog_argv, char **spec_buf)
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
	pmcf_plan_set_events(pc->plan, k, &pc->names, &pc->n);
	if ((err = cli_plan_digest(verb, pc->plan, pc->digest)))
		return err;
	pc->meta = (struct cli_plan_meta){.digest = pc->digest, .set = k, .nsets = nsets};
	unsigned plan_pmcs = pmcf_plan_pmcs(pc->plan);
	if (pmcs_given && plan_pmcs && o->pmcs != plan_pmcs)
		return cli_usage_error(verb, "--pmcs %u contradicts the plan's %u counters", o->pmcs,
				       plan_pmcs);
	if (plan_pmcs)
		o->pmcs = plan_pmcs;
	const char *plan_sim = pmcf_plan_sim(pc->plan);
	size_t pargc = 0;
	const char *const *pargv = pmcf_plan_program(pc->plan, &pargc);
	if ((plan_sim || pargv) && (*sim || *prog_argc))
		return cli_usage_error(verb, "the plan names its source; give no --sim or program");
	if (plan_sim) {
		/* execution K gets the seed run would give it */
		pmcf_sim_spec *spec;
		if ((err = pmcf_sim_spec_parse(plan_sim, &spec)))
			return cli_lib_error(verb, err, path);
		pmcf_sim_spec_set_seed(spec, pmcf_sim_exec_seed(pmcf_plan_seed(pc->plan), (unsigned)k));
		*spec_buf = strdup(pmcf_sim_spec_canonical(spec));
		pmcf_sim_spec_free(spec);
		if (!*spec_buf)
			return cli_error(verb, CLI_EENV, "out of memory");
		*sim = *spec_buf;
	} else if (pargv) {
		*prog_argc = (int)pargc;
		*prog_argv = (char **)pargv;
	}
	return CLI_OK;
}

static int record_sim(const char *verb, const char *sim, const char *events,
		      const char *const *names, size_t n, const pmcf_sim_opts *o,
		      const struct cli_plan_meta *pm, const char *out, int json);

enum { OPT_SIM = 256, OPT_PMCS, OPT_MUX, OPT_PERIOD, OPT_EST, OPT_PLAN, OPT_SET };

int cmd_record(int argc, char **argv)
{
	static const char *verb = "record";
	if (cli_wants_help(argc, argv, usage))
		return CLI_OK;
	static const struct option longopts[] = {
	    {"events", required_argument, NULL, 'e'},
	    {"output", required_argument, NULL, 'o'},
	    {"sim", required_argument, NULL, OPT_SIM},
	    {"pmcs", required_argument, NULL, OPT_PMCS},
	    {"multiplex", required_argument, NULL, OPT_MUX},
	    {"period-ms", required_argument, NULL, OPT_PERIOD},
	    {"estimate", required_argument, NULL, OPT_EST},
	    {"plan", required_argument, NULL, OPT_PLAN},
	    {"set", required_argument, NULL, OPT_SET},
	    CLI_OUTPUT_LONGOPTS,
	    CLI_JSON_LONGOPT,
	    {NULL, 0, NULL, 0},
	};
	int json = 0;
	const char *events = NULL, *out = NULL, *sim = NULL, *plan = NULL, *setarg = NULL;
	pmcf_sim_opts o = PMCF_SIM_OPTS_INIT;
	int period_given = 0, est_given = 0, pmcs_given = 0;
	unsigned long ul;
	optind = 0;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, "+:e:o:vq", longopts, NULL)) != -1) {
		if (cli_output_option(c, &json))
			continue;
		switch (c) {
		case 'e': events = optarg; break;
		case 'o':
			if (cli_out_arg(verb, optarg, "a profile"))
				return CLI_EUSAGE;
			out = optarg;
			break;
		case OPT_SIM: sim = optarg; break;
		case OPT_PLAN: plan = optarg; break;
		case OPT_SET: setarg = optarg; break;
		case OPT_PMCS:
			if (cli_parse_uint(verb, "--pmcs", optarg, 1, 64, &ul))
				return CLI_EUSAGE;
			o.pmcs = (unsigned)ul;
			pmcs_given = 1;
			break;
		case OPT_MUX:
			o.multiplex = pmcf_mux_mode_parse(optarg);
			if (o.multiplex < 0)
				return cli_usage_error(verb,
				                       "--multiplex must be none, kernel, rr, roc or "
				                       "roc-counts, not '%s'",
				                       optarg);
			break;
		case OPT_PERIOD: {
			char *end;
			o.period_ms = strtod(optarg, &end);
			if (!*optarg || *end || !(o.period_ms >= 0.001 && o.period_ms <= 1e6))
				return cli_usage_error(
				    verb,
				    "--period-ms needs a number of ms from 0.001 to 1e6, not '%s'",
				    optarg);
			period_given = 1;
			break;
		}
		case OPT_EST:
			o.estimate = pmcf_estimate_parse(optarg);
			if (o.estimate < 0)
				return cli_usage_error(
				    verb, "--estimate must be cumulative or local, not '%s'",
				    optarg);
			est_given = 1;
			break;
		case ':':
			return cli_usage_error(verb, "option '%s' needs a value", argv[optind - 1]);
		default: return cli_usage_error(verb, "unknown option '%s'", argv[optind - 1]);
		}
	}
	int prog_argc = 0;
	char **prog_argv = NULL;
	if (optind < argc) {
		if (strcmp(argv[optind - 1], "--") != 0)
			return cli_usage_error(verb, "unexpected argument '%s' (a program goes after --)",
					       argv[optind]);
		prog_argc = argc - optind;
		prog_argv = argv + optind;
	}
	if (setarg && !plan)
		return cli_usage_error(verb, "--set needs --plan plan.json");
	if (plan && events)
		return cli_usage_error(verb, "give -e EVENTS or --plan, not both");
	if (!out)
		return cli_usage_error(verb, "no output: give -o OUT");
	if (plan && cli_out_not_input(verb, out, &plan, 1))
		return CLI_EUSAGE;
	if ((period_given || est_given) && o.multiplex == PMCF_MUX_NONE)
		return cli_usage_error(verb,
		                       "--period-ms and --estimate only apply with --multiplex");

	struct plan_choice pc = {0};
	char *spec_buf = NULL;
	int rc = cli_check_output(verb, out);
	if (rc)
		return rc;
	cli_signals_catch();
	if (plan)
		rc = load_plan_set(verb, plan, setarg, &pc, &o, pmcs_given, &sim, &prog_argc,
				   &prog_argv, &spec_buf);
	if (!rc && sim && prog_argc)
		rc = cli_usage_error(verb, "give --sim SPEC or -- PROG ARGS, not both");
	if (!rc && !sim && !prog_argc)
		rc = cli_usage_error(verb, "no source: give --sim SPEC or -- PROG ARGS");
	if (!rc && !plan && !events)
		rc = cli_usage_error(verb, "no events: give -e EVENTS");
	if (!rc && prog_argc) {
		if (pc.plan) {
			/* the set's names, as one comma list for the collector */
			size_t len = 1;
			for (size_t i = 0; i < pc.n; i++)
				len += strlen(pc.names[i]) + 1;
			char *list = malloc(len);
			if (!list) {
				rc = cli_error(verb, CLI_EENV, "out of memory");
			} else {
				list[0] = '\0';
				for (size_t i = 0; i < pc.n; i++) {
					if (i)
						strcat(list, ",");
					strcat(list, pc.names[i]);
				}
				rc = cli_record_program(verb, list, o.pmcs, o.multiplex,
							o.period_ms, o.estimate, &pc.meta, out,
							prog_argc, prog_argv, json);
				free(list);
			}
		} else {
			rc = cli_record_program(verb, events, o.pmcs, o.multiplex, o.period_ms,
						o.estimate, NULL, out, prog_argc, prog_argv, json);
		}
	} else if (!rc) {
		rc = record_sim(verb, sim, events, pc.names, pc.n, &o, pc.plan ? &pc.meta : NULL,
				out, json);
	}
	pmcf_plan_free(pc.plan);
	free(spec_buf);
	return rc;
}

/* Records one simulated execution: events from the spec (-e) or the given
 * names (a plan's set). */
static int record_sim(const char *verb, const char *sim, const char *events,
		      const char *const *names, size_t n, const pmcf_sim_opts *o,
		      const struct cli_plan_meta *pm, const char *out, int json)
{
	pmcf_sim_spec *spec = NULL;
	pmcf_catalog *cat = NULL;
	pmcf_evlist *list = NULL;
	pmcf_profile *p = NULL;
	int err = pmcf_sim_spec_parse(sim, &spec);
	if (err)
		return cli_lib_error(verb, err, "--sim");
	int rc = CLI_OK;
	err = pmcf_catalog_sim(sim, &cat);
	if (!err && events) {
		err = pmcf_evlist_parse(cat, events, &list);
		if (!err) {
			names = pmcf_evlist_names(list);
			n = pmcf_evlist_size(list);
		}
	}
	if (!err)
		err = pmcf_sim_record(spec, names, n, o, &p);
	if (!err)
		err = cli_plan_meta_apply(p, pm);
	if (err) {
		rc = cli_lib_error(verb, err, "record");
	} else {
		err = pmcf_profile_save(p, out);
		if (err)
			rc = cli_lib_error(verb, err, out);
		else if (cli_signal_caught())
			rc = cli_interrupted(verb, "the simulated execution had finished (saved to %s)",
					     out);
		else
			cli_record_summary(verb, p, out, sim, NULL, -1, json);
	}
	pmcf_profile_free(p);
	pmcf_evlist_free(list);
	pmcf_catalog_free(cat);
	pmcf_sim_spec_free(spec);
	return rc;
}
