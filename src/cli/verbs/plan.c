/* `pmcfuse plan`: split events into the event sets of the executions for a
 * combination strategy and write plan.json (docs/fusion.md). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/fuse.h"
#include "cli/output.h"
#include "cli/verbs/plan.h"
#include "pmcfuse/source.h"

static const char usage[] =
	"usage: pmcfuse plan [-e EVENTS] [--strategy S] [--link EVENTS|auto [--refs DIR]]\n"
	"                    [--pmcs N] [--packing best|greedy] [--from DIR] [--seed N]\n"
	"                    [-o plan.json]\n"
	"                    [-q] [-v] [--json] [--sim SPEC | -- PROG ARGS]\n\n"
	"Splits the events into the event sets of the executions, each set fitting the\n"
	"counters, and writes plan.json (to standard output without -o; the plan is then\n"
	"summarised on standard error). Run it with `pmcfuse record --plan plan.json --set K`\n"
	"for K = 0 .. executions-1, then `pmcfuse combine` (docs/slurm.md).\n\n"
	"  -e, --events EVENTS  comma list in perf's syntax, all, or @FILE; {a,b} groups\n"
	"                       are kept in one set (see pmcfuse-events(1)). Default, as\n"
	"                       for run: all the events of --sim SPEC; for -- PROG,\n"
	"                       duration and the software events this machine counts\n"
	"  --strategy S         {STRATEGIES} (default bc); for {STRATEGIES_ORDERED}\n"
	"                       every set carries the linking events, so that it overlaps the\n"
	"                       sets before it (duration and fixed-counter events are free);\n"
	"                       for the others the sets are disjoint\n"
	"  --link EVENTS        more linking events for the bc family (they take counters)\n"
	"  --link auto          bc family: choose up to 2 linking events per set among the\n"
	"                       events of the sets before it, and the order of the sets,\n"
	"                       for the most mutual information about the events each set\n"
	"                       adds (measured in --refs DIR; for --sim without --refs, a\n"
	"                       pilot of one simulated execution per set of a pair covering,\n"
	"                       e.g. 68 for -e all on xeon32); same sets, same executions\n"
	"  --refs DIR           --link auto: the reference profiles (pmcfuse reference)\n"
	"  --pmcs N             counter budget (default: the machine's own)\n"
	"  --packing P          best (default): first-fit decreasing, improved, exact for up to\n"
	"                       12 events; greedy: the papers' packing, for comparison\n"
	"  --from DIR           bc family: choose the overlapping events of each set by\n"
	"                       correlation in the profiles of DIR (pilot or reference runs)\n"
	"  --seed N             base seed of the executions (simulated sources; default: the\n"
	"                       seed= of SPEC, else 1, as for `pmcfuse run`)\n"
	"  --sim SPEC           plan for a simulated machine and record SPEC as the source\n"
	"  -- PROG ARGS         record the program as the source (this machine's events)\n"
	"  -o, --output FILE    where to write plan.json\n"
	"  -q, --quiet          no summary: errors only\n"
	"  -v, --verbose        the library's notes on stderr too (info messages; -v -v: debug)\n"
	"  --json               the summary as one JSON object on stdout (output,\n"
	"                       executions, lower_bound, optimal, strategy, packing,\n"
	"                       pmcs, lower_bound_counters, lower_bound_counters_from,\n"
	"                       link, sets; link_auto with --link auto); needs -o\n";

enum { OPT_FROM = FUSE_OPT_OWN, OPT_REFS };

/* What the plan's executions run: the simulation, or the program
 * argv[0..argc) (none: the plan has no source). */
static int plan_source_set(pmcf_plan *plan, const char *sim, int argc, char **argv)
{
	if (sim)
		return pmcf_plan_sim_set(plan, sim);
	if (argc <= 0)
		return 0;
	/* a program named by a relative path (./a.out, bin/x) is stored
	 * absolute, so that record --plan runs it from any folder; a bare
	 * name is looked up in PATH when it runs, as given */
	char *prog = argv[0], *abs = NULL;
	if (strchr(prog, '/') && prog[0] != '/' && (abs = realpath(prog, NULL)))
		argv[0] = abs;
	int err = pmcf_plan_program_set(plan, (const char *const *)argv, (size_t)argc);
	argv[0] = prog;
	free(abs);
	return err;
}

int cmd_plan(int argc, char **argv)
{
	static const char *verb = "plan";
	if (cli_wants_help(argc, argv, usage))
		return CLI_OK;
	static const struct option longopts[] = {
		FUSE_PLAN_LONGOPTS,
		{"from", required_argument, NULL, OPT_FROM},
		{"refs", required_argument, NULL, OPT_REFS},
		CLI_OUTPUT_LONGOPTS,
		CLI_JSON_LONGOPT,
		{NULL, 0, NULL, 0},
	};
	int json = 0;
	const char *events = NULL, *out = NULL, *link = NULL, *from = NULL, *sim = NULL, *refs = NULL;
	pmcf_plan_opts o = PMCF_PLAN_OPTS_INIT;
	unsigned long seed = 1;
	int seed_given = 0, st = CLI_OK, c;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:e:o:vq", longopts, NULL)) != -1) {
		if (fuse_plan_option(verb, c, optarg, &o, &seed, &seed_given, &st)) {
			if (st)
				return st;
			continue;
		}
		if (cli_output_option(c, &json))
			continue;
		switch (c) {
		case 'e':
			if (cli_events_option(verb, &events, optarg))
				return CLI_EUSAGE;
			break;
		case 'o':
			if (cli_out_arg(verb, optarg, NULL))
				return CLI_EUSAGE;
			out = optarg;
			break;
		case FUSE_OPT_LINK: link = optarg; break;
		case OPT_FROM: from = optarg; break;
		case OPT_REFS: refs = optarg; break;
		case FUSE_OPT_SIM: sim = optarg; break;
		case ':': return cli_usage_error(verb, "%s needs a value", argv[optind - 1]);
		default: return cli_usage_error(verb, "unknown option '%s'", argv[optind - 1]);
		}
	}
	/* without -e, the source's default events, as run plans them: all of a
	 * simulated machine; duration and the software events of a program */
	int dflt = !events;
	if (dflt && !sim && optind >= argc)
		return cli_usage_error(verb, "missing -e EVENTS (or a source, --sim SPEC or -- PROG "
					     "ARGS, whose default events are planned)");
	if (json && (!out || strcmp(out, "-") == 0))
		return cli_usage_error(verb, "--json prints the summary on standard output, where "
					     "the plan goes without -o: give -o plan.json");
	if (sim && optind < argc)
		return cli_usage_error(verb, "give either --sim SPEC or -- PROG ARGS, not both");
	if (link && !pmcf_strategy_ordered(o.strategy))
		return cli_usage_error(verb, "--link is for the bc family (overlapping sets), not %s",
				       pmcf_strategy_name(o.strategy));
	if (from && !pmcf_strategy_ordered(o.strategy))
		return cli_usage_error(verb, "--from is for the bc family, not %s",
				       pmcf_strategy_name(o.strategy));
	o.link_auto = link && strcmp(link, "auto") == 0;
	if (refs && !o.link_auto)
		return cli_usage_error(verb, "--refs is for --link auto");
	if (from && o.link_auto)
		return cli_usage_error(verb, "give either --from DIR (correlation) or --link auto "
					     "(information), not both");
	pmcf_source *src = NULL; /* a simulation (the pilot of --link auto records through it) */
	pmcf_catalog *perf = NULL;
	const pmcf_catalog *cat = NULL;
	pmcf_evlist *ev = NULL, *lk = NULL;
	pmcf_plan *plan = NULL;
	pmcf_profile **pilots = NULL;
	size_t npilots = 0;
	pmcf_count_opts so = PMCF_COUNT_OPTS_INIT;
	so.pmcs = o.pmcs;
	int err = sim    ? pmcf_source_new_sim(sim, &so, &src)
		  : dflt ? pmcf_source_new_program(argc - optind, argv + optind, &so, NULL, &src)
			 : pmcf_catalog_perf_for_events(events, &perf);
	if (!err)
		err = src ? pmcf_source_catalog(src, &cat) : ((cat = perf), 0);
	if (err) {
		st = cli_lib_error(verb, err, "event catalogue");
		goto out;
	}
	if ((err = dflt ? pmcf_source_events(src, NULL, &ev) : pmcf_evlist_parse(cat, events, &ev)) ||
	    (link && !o.link_auto && (err = pmcf_evlist_parse(cat, link, &lk)))) {
		st = cli_lib_error(verb, err, "events");
		goto out;
	}
	if (from && (st = fuse_load_dir(verb, from, &pilots, &npilots)))
		goto out;
	o.pilots = (const pmcf_profile *const *)pilots;
	o.npilots = npilots;
	/* the resolved lists (their groups, the linking events) go to the planner */
	if (o.link_auto) {
		if ((st = fuse_link_auto_plan(verb, ev, refs, sim ? src : NULL, seed_given ? seed : 1, &o,
					      &plan)))
			goto out;
	} else if ((err = pmcf_plan_make_evlist(ev, lk, &o, &plan))) {
		st = cli_lib_error(verb, err, "planning");
		goto out;
	}
	if (sim && !seed_given) /* the executions of `record --plan` then match those of `run` */
		seed = pmcf_source_seed(src);
	pmcf_plan_seed_set(plan, seed);
	if ((err = plan_source_set(plan, sim, argc - optind, argv + optind))) {
		st = cli_lib_error(verb, err, "plan source");
		goto out;
	}
	char *text;
	if ((err = pmcf_plan_to_json(plan, &text))) {
		st = cli_lib_error(verb, err, "plan.json");
		goto out;
	}
	struct cli_out co;
	if (!(st = cli_out_open(verb, out, &co))) {
		fputs(text, co.f);
		st = cli_out_commit(verb, &co);
	}
	free(text);
	if (!st && json)
		fuse_json_plan(stdout, plan, out);
	else if (!st && !cli_quiet)
		fuse_print_plan(out && strcmp(out, "-") ? stdout : stderr, plan);
out:
	for (size_t i = 0; i < npilots; i++)
		pmcf_profile_free(pilots[i]);
	free(pilots);
	pmcf_plan_free(plan);
	pmcf_evlist_free(ev);
	pmcf_evlist_free(lk);
	pmcf_source_free(src);
	pmcf_catalog_free(perf);
	return st;
}
