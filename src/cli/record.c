/* `pmcfuse record`: record one execution profile. For now the source is a
 * simulated workload (--sim SPEC); real programs arrive with the collector
 * and plans with the planner. */
#include "cli/cli.h"
#include "pmcfuse/sim.h"
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: pmcfuse record -e EVENTS [--pmcs N] [--multiplex none|kernel|rr|roc]\n"
    "                      [--period-ms P] [--estimate cumulative|local]\n"
    "                      -o OUT (--sim SPEC | -- PROG ARGS | --plan plan.json --set K)\n\n"
    "Records one execution profile: every XU with its type, label, thread, cpu, times\n"
    "and one value per monitored event (duration always first). A simulated source\n"
    "also stores the true value of every event of its machine (`export --truth`).\n\n"
    "  -e, --events EVENTS   comma list, all, or @FILE (`pmcfuse events --sim SPEC`)\n"
    "  -o, --output OUT      the profile file to write (atomically)\n"
    "  --sim SPEC            simulated workload: WORKLOAD[,key=value...], e.g.\n"
    "                        cholesky,blocks=12,seed=3 (docs/simulation.md)\n"
    "  --pmcs N              general-purpose counters (default: the machine's own)\n"
    "  --multiplex MODE      time-share the counters when the events do not fit:\n"
    "                        kernel (perf rotation), rr (round-robin), roc (rate of change);\n"
    "                        none (default) refuses a set that does not fit\n"
    "  --period-ms P         multiplexing period in ms (default 4)\n"
    "  --estimate E          per-XU estimate under multiplexing: cumulative (default) or local\n";

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
	    {NULL, 0, NULL, 0},
	};
	const char *events = NULL, *out = NULL, *sim = NULL, *plan = NULL;
	pmcf_sim_opts o = PMCF_SIM_OPTS_INIT;
	int period_given = 0, est_given = 0;
	unsigned long ul;
	optind = 0;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, "+:e:o:", longopts, NULL)) != -1) {
		switch (c) {
		case 'e': events = optarg; break;
		case 'o': out = optarg; break;
		case OPT_SIM: sim = optarg; break;
		case OPT_PLAN: plan = optarg; break;
		case OPT_SET: break;
		case OPT_PMCS:
			if (cli_parse_uint(verb, "--pmcs", optarg, 1, 64, &ul))
				return CLI_EUSAGE;
			o.pmcs = (unsigned)ul;
			break;
		case OPT_MUX:
			o.multiplex = pmcf_mux_mode_parse(optarg);
			if (o.multiplex < 0)
				return cli_usage_error(
				    verb, "--multiplex must be none, kernel, rr or roc, not '%s'",
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
	int has_prog = optind < argc && strcmp(argv[optind - 1], "--") == 0;
	if (plan)
		return cli_error(
		    verb, CLI_EUSAGE,
		    "--plan is not available yet: recording from a plan arrives with the planner");
	if (has_prog && !sim)
		return cli_error(verb, CLI_EUSAGE,
		                 "recording real programs (-- PROG ARGS) is not available yet: it "
		                 "arrives with the collector; use --sim SPEC");
	if (optind < argc)
		return cli_usage_error(verb, "unexpected argument '%s'", argv[optind]);
	if (!sim)
		return cli_usage_error(verb, "no source: give --sim SPEC");
	if (!events)
		return cli_usage_error(verb, "no events: give -e EVENTS");
	if (!out)
		return cli_usage_error(verb, "no output: give -o OUT");
	if ((period_given || est_given) && o.multiplex == PMCF_MUX_NONE)
		return cli_usage_error(verb,
		                       "--period-ms and --estimate only apply with --multiplex");

	pmcf_sim_spec *spec = NULL;
	pmcf_catalog *cat = NULL;
	pmcf_evlist *list = NULL;
	pmcf_profile *p = NULL;
	int err = pmcf_sim_spec_parse(sim, &spec);
	if (err)
		return cli_lib_error(verb, err, "--sim");
	int rc = CLI_OK;
	err = pmcf_catalog_sim(sim, &cat);
	if (!err)
		err = pmcf_evlist_parse(cat, events, &list);
	if (!err)
		err =
		    pmcf_sim_record(spec, pmcf_evlist_names(list), pmcf_evlist_size(list), &o, &p);
	if (err) {
		rc = cli_lib_error(verb, err, "record");
	} else {
		err = pmcf_profile_save(p, out);
		if (err)
			rc = cli_lib_error(verb, err, out);
	}
	pmcf_profile_free(p);
	pmcf_evlist_free(list);
	pmcf_catalog_free(cat);
	pmcf_sim_spec_free(spec);
	return rc;
}
