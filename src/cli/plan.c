/* `pmcfuse plan`: split events into the event sets of the executions for a
 * combination strategy and write plan.json (docs/fusion.md). */
#include <dirent.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cli/cli.h"
#include "counters/perf.h"
#include "cli/fuse.h"
#include "cli/output.h"
#include "pmcfuse/sim.h"

static const char usage[] =
	"usage: pmcfuse plan -e EVENTS [--strategy S] [--link EVENTS] [--pmcs N]\n"
	"                    [--packing best|greedy] [--from DIR] [--seed N] [-o plan.json]\n"
	"                    [-q] [--json] [--sim SPEC | -- PROG ARGS]\n\n"
	"Splits the events into the event sets of the executions, each set fitting the\n"
	"counters, and writes plan.json (to standard output without -o; the plan is then\n"
	"summarised on standard error). Run it with `pmcfuse record --plan plan.json --set K`\n"
	"for K = 0 .. executions-1, then `pmcfuse combine` (docs/slurm.md).\n\n"
	"  -e, --events EVENTS  comma list in perf's syntax, all, or @FILE; {a,b} groups\n"
	"                       are kept in one set (see pmcfuse-events(1))\n"
	"  --strategy S         ctc, lgl: disjoint sets; bc, bc-unlabeled (default bc):\n"
	"                       every set carries the linking events, so that it overlaps the\n"
	"                       sets before it (duration and fixed-counter events are free)\n"
	"  --link EVENTS        more linking events for the bc family (they take counters)\n"
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
	"  --json               the summary as one JSON object on stdout (output,\n"
	"                       executions, lower_bound, optimal, strategy, packing,\n"
	"                       pmcs, link, sets); needs -o\n";

enum { OPT_FROM = FUSE_OPT_OWN };

int fuse_plan_option(const char *verb, int opt, const char *arg, pmcf_plan_opts *po,
		     unsigned long *seed, int *seed_given, int *status)
{
	unsigned long ul;
	*status = CLI_OK;
	switch (opt) {
	case FUSE_OPT_STRATEGY:
		if ((po->strategy = pmcf_strategy_parse(arg)) < 0)
			*status = cli_usage_error(verb, "%s", pmcf_errdetail());
		return 1;
	case FUSE_OPT_PACKING:
		if ((po->packing = pmcf_packing_parse(arg)) < 0)
			*status = cli_usage_error(verb, "%s", pmcf_errdetail());
		return 1;
	case FUSE_OPT_PMCS:
		if ((*status = cli_parse_uint(verb, "--pmcs", arg, 1, PMCF_PLAN_MAX_PMCS, &ul)) == CLI_OK)
			po->pmcs = (unsigned)ul;
		return 1;
	case FUSE_OPT_SEED:
		if ((*status = cli_parse_uint(verb, "--seed", arg, 0, ~0ul, seed)) == CLI_OK)
			*seed_given = 1;
		return 1;
	default:
		return 0;
	}
}

/* Every profile in dir (files that are not profiles are skipped). */
static int load_dir(const char *verb, const char *dir, pmcf_profile ***out, size_t *n)
{
	DIR *d = opendir(dir);
	if (!d)
		return cli_error(verb, CLI_EUSAGE, "cannot read directory '%s'", dir);
	struct dirent *de;
	pmcf_profile **v = NULL;
	size_t k = 0;
	int st = CLI_OK;
	while ((de = readdir(d)) && !st) {
		if (de->d_name[0] == '.')
			continue;
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		struct stat sb;
		if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
			continue;
		pmcf_profile *p;
		if (pmcf_profile_open(path, &p) != 0)
			continue;
		pmcf_profile **nv = realloc(v, (k + 1) * sizeof(*v));
		if (!nv) {
			pmcf_profile_free(p);
			st = cli_error(verb, CLI_EENV, "out of memory");
			break;
		}
		v = nv;
		v[k++] = p;
	}
	closedir(d);
	if (!st && !k)
		st = cli_error(verb, CLI_EUSAGE, "no profile in '%s' (--from needs pilot or reference profiles)",
			       dir);
	*out = v;
	*n = k;
	return st;
}

void fuse_print_plan(FILE *f, const pmcf_plan *p)
{
	const char *const *ev;
	size_t nev, nl;
	pmcf_plan_events(p, &ev, &nev);
	const char *const *link;
	pmcf_plan_link(p, &link, &nl);
	fprintf(f, "%zu executions for %zu events, strategy %s, packing %s", pmcf_plan_nsets(p), nev,
		pmcf_strategy_name(pmcf_plan_strategy(p)), pmcf_packing_name(pmcf_plan_packing(p)));
	if (pmcf_plan_pmcs(p))
		fprintf(f, ", %u counters", pmcf_plan_pmcs(p));
	fprintf(f, "\nlower bound %u executions%s\n", pmcf_plan_lower_bound(p),
		pmcf_plan_optimal(p) ? " (this plan is minimal)" : "");
	if (nl) {
		fprintf(f, "linking events:");
		for (size_t i = 0; i < nl; i++)
			fprintf(f, " %s", link[i]);
		fprintf(f, "\n");
	}
	for (size_t k = 0; k < pmcf_plan_nsets(p); k++) {
		const char *const *names;
		size_t m;
		pmcf_plan_set_events(p, k, &names, &m);
		fprintf(f, "  set %zu:", k);
		for (size_t i = 0; i < m; i++)
			fprintf(f, "%s%s", i ? "," : " ", names[i]);
		fprintf(f, "\n");
	}
}

/* fuse_print_plan as one JSON object */
static void json_plan(FILE *f, const pmcf_plan *p, const char *out)
{
	const char *const *ev, *const *link;
	size_t nev, nl;
	pmcf_plan_events(p, &ev, &nev);
	pmcf_plan_link(p, &link, &nl);
	fprintf(f, "{\"output\": ");
	cli_json_string(f, out);
	fprintf(f, ", \"executions\": %zu, \"events\": %zu, \"lower_bound\": %u, \"optimal\": %s, "
		   "\"strategy\": \"%s\", \"packing\": \"%s\", \"pmcs\": %u, \"link\": [",
		pmcf_plan_nsets(p), nev, pmcf_plan_lower_bound(p),
		pmcf_plan_optimal(p) ? "true" : "false", pmcf_strategy_name(pmcf_plan_strategy(p)),
		pmcf_packing_name(pmcf_plan_packing(p)), pmcf_plan_pmcs(p));
	for (size_t i = 0; i < nl; i++) {
		fprintf(f, "%s", i ? ", " : "");
		cli_json_string(f, link[i]);
	}
	fprintf(f, "], \"sets\": [");
	for (size_t k = 0; k < pmcf_plan_nsets(p); k++) {
		const char *const *names;
		size_t m;
		pmcf_plan_set_events(p, k, &names, &m);
		fprintf(f, "%s[", k ? ", " : "");
		for (size_t i = 0; i < m; i++) {
			fprintf(f, "%s", i ? ", " : "");
			cli_json_string(f, names[i]);
		}
		fprintf(f, "]");
	}
	fprintf(f, "]}\n");
}

int cmd_plan(int argc, char **argv)
{
	static const char *verb = "plan";
	if (cli_wants_help(argc, argv, usage))
		return CLI_OK;
	static const struct option longopts[] = {
		FUSE_PLAN_LONGOPTS,
		{"from", required_argument, NULL, OPT_FROM},
		CLI_OUTPUT_LONGOPTS,
		CLI_JSON_LONGOPT,
		{NULL, 0, NULL, 0},
	};
	int json = 0;
	const char *events = NULL, *out = NULL, *link = NULL, *from = NULL, *sim = NULL;
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
		case 'e': events = optarg; break;
		case 'o':
			if (cli_out_arg(verb, optarg, NULL))
				return CLI_EUSAGE;
			out = optarg;
			break;
		case FUSE_OPT_LINK: link = optarg; break;
		case OPT_FROM: from = optarg; break;
		case FUSE_OPT_SIM: sim = optarg; break;
		case ':': return cli_usage_error(verb, "%s needs a value", argv[optind - 1]);
		default: return cli_usage_error(verb, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (!events)
		return cli_usage_error(verb, "missing -e EVENTS");
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
	pmcf_catalog *cat = NULL;
	pmcf_evlist *ev = NULL, *lk = NULL;
	pmcf_plan *plan = NULL;
	pmcf_profile **pilots = NULL;
	size_t npilots = 0;
	int err = sim ? pmcf_catalog_sim(sim, &cat) : pmcfi_catalog_perf_for_spec(events, &cat);
	if (err) {
		st = cli_lib_error(verb, err, "event catalogue");
		goto out;
	}
	if ((err = pmcf_evlist_parse(cat, events, &ev)) ||
	    (link && (err = pmcf_evlist_parse(cat, link, &lk)))) {
		st = cli_lib_error(verb, err, "events");
		goto out;
	}
	if (from && (st = load_dir(verb, from, &pilots, &npilots)))
		goto out;
	if (lk) {
		o.link = pmcf_evlist_names(lk);
		o.nlink = pmcf_evlist_size(lk);
	}
	o.pilots = (const pmcf_profile *const *)pilots;
	o.npilots = npilots;
	o.groups = pmcf_evlist_groups(ev);
	if ((err = pmcf_plan_make(cat, pmcf_evlist_names(ev), pmcf_evlist_size(ev), &o, &plan))) {
		st = cli_lib_error(verb, err, "planning");
		goto out;
	}
	if (sim && !seed_given) {
		/* the executions of `record --plan` then match those of `run` */
		pmcf_sim_spec *spec;
		if ((err = pmcf_sim_spec_parse(sim, &spec))) {
			st = cli_lib_error(verb, err, "--sim");
			goto out;
		}
		seed = pmcf_sim_spec_seed(spec);
		pmcf_sim_spec_free(spec);
	}
	pmcf_plan_set_seed(plan, seed);
	if (sim)
		err = pmcf_plan_set_sim(plan, sim);
	else if (optind < argc)
		err = pmcf_plan_set_program(plan, (const char *const *)argv + optind,
					    (size_t)(argc - optind));
	if (err) {
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
		json_plan(stdout, plan, out);
	else if (!st && !cli_quiet)
		fuse_print_plan(out && strcmp(out, "-") ? stdout : stderr, plan);
out:
	for (size_t i = 0; i < npilots; i++)
		pmcf_profile_free(pilots[i]);
	free(pilots);
	pmcf_plan_free(plan);
	pmcf_evlist_free(ev);
	pmcf_evlist_free(lk);
	pmcf_catalog_free(cat);
	return st;
}
