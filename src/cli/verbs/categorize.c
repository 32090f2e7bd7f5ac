/* `pmcfuse categorize`: run the counter-inspection micro-benchmarks under a
 * backend (perf or cachegrind), categorise every event from its branch
 * slopes and cache transitions, and write CSV or JSON (plus gnuplot plots). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli/cli.h"
#include "pmcfuse/categorize.h"
#include "cli/verbs/categorize.h"

static const char verb[] = "categorize";

static const char usage[] =
	"usage: pmcfuse categorize [--backend perf|cachegrind] [-e EVENTS] [--plot DIR] -o OUT\n\n"
	"Runs the counter-inspection micro-benchmarks (seven branch kernels swept over\n"
	"iteration counts, pointer chasing swept over buffer sizes) and categorises each\n"
	"event: branch categories CE, CR, T, D, M from the slopes (Table 1 and the\n"
	"goodness function), cache categories <level>-<hit|miss> from the transitions,\n"
	"or none. Writes CSV, or JSON when OUT ends in .json.\n\n"
	"  --backend B        perf (default: the native and generic events of this\n"
	"                     machine's PMU) or cachegrind (valgrind's simulated caches\n"
	"                     and branch predictor: Ir Bc Bcm Bi Bim I1mr D1mr D1mw ...)\n"
	"  -e EVENTS          events to categorise (comma list, all, @FILE); default all\n"
	"                     (cachegrind) or the generic hardware and hw-cache events (perf)\n"
	"  -o OUT             output file (.csv or .json; - for CSV on stdout)\n"
	"  --plot DIR         also write gnuplot plots: branch slopes per kernel and\n"
	"                     cache curves (needs gnuplot)\n"
	"  --iterations N     branch sweep: N, 2N, ... iterations\n"
	"  --points P         points per branch sweep (default 4)\n"
	"  --accesses N       chase steps per cache run\n"
	"  --unit BYTES       bytes per chain element (default 64)\n"
	"  --ppb N            pages per chain block (default 0: one chain)\n"
	"  --max-bytes N      largest buffer (default 4x the last-level cache)\n"
	"  --jobs N           runs at once (cachegrind; default 2)\n"
	"  --threshold X      least confidence for a category (default 0.5)\n"
	"  --no-branch, --no-cache   skip one of the two sweeps\n";

static int has_suffix(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && strcmp(s + a - b, suf) == 0;
}

enum {
	OPT_BACKEND = 256,
	OPT_PLOT,
	OPT_ITER,
	OPT_POINTS,
	OPT_ACCESSES,
	OPT_UNIT,
	OPT_PPB,
	OPT_MAXB,
	OPT_JOBS,
	OPT_THRESH,
	OPT_NOBRANCH,
	OPT_NOCACHE
};

/* The command line of categorize. */
struct cat_args {
	const char *backend, *events, *outp, *plotdir;
	unsigned long iters, points, accesses, unit, ppb, maxb, jobs;
	int have_ppb, no_branch, no_cache;
	double threshold;
};

/* Reads the options into *a; CLI_OK, or a usage error (printed). */
static int parse_args(int argc, char **argv, struct cat_args *a)
{
	static const struct option opts[] = {{"backend", required_argument, NULL, OPT_BACKEND},
					     {"events", required_argument, NULL, 'e'},
					     {"output", required_argument, NULL, 'o'},
					     {"plot", required_argument, NULL, OPT_PLOT},
					     {"iterations", required_argument, NULL, OPT_ITER},
					     {"points", required_argument, NULL, OPT_POINTS},
					     {"accesses", required_argument, NULL, OPT_ACCESSES},
					     {"unit", required_argument, NULL, OPT_UNIT},
					     {"ppb", required_argument, NULL, OPT_PPB},
					     {"max-bytes", required_argument, NULL, OPT_MAXB},
					     {"jobs", required_argument, NULL, OPT_JOBS},
					     {"threshold", required_argument, NULL, OPT_THRESH},
					     {"no-branch", no_argument, NULL, OPT_NOBRANCH},
					     {"no-cache", no_argument, NULL, OPT_NOCACHE},
					     {NULL, 0, NULL, 0}};
	int c, st;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":e:o:", opts, NULL)) != -1) {
		switch (c) {
		case OPT_BACKEND:
			if (strcmp(optarg, PMCF_CATEGORIZE_PERF) != 0 &&
			    strcmp(optarg, PMCF_CATEGORIZE_CACHEGRIND) != 0)
				return cli_usage_error(verb, "--backend is perf or cachegrind, not '%s'",
						       optarg);
			a->backend = optarg;
			break;
		case 'e':
			if (cli_events_option(verb, &a->events, optarg))
				return CLI_EUSAGE;
			break;
		case 'o':
			if (cli_out_arg(verb, optarg, NULL))
				return CLI_EUSAGE;
			a->outp = optarg;
			break;
		case OPT_PLOT: a->plotdir = optarg; break;
		case OPT_ITER:
			if ((st = cli_parse_uint(verb, "--iterations", optarg, 1, 1000000000ul, &a->iters)))
				return st;
			break;
		case OPT_POINTS:
			if ((st = cli_parse_uint(verb, "--points", optarg, 2, 64, &a->points)))
				return st;
			break;
		case OPT_ACCESSES:
			if ((st = cli_parse_uint(verb, "--accesses", optarg, 1, 1ul << 34, &a->accesses)))
				return st;
			break;
		case OPT_UNIT:
			if ((st = cli_parse_uint(verb, "--unit", optarg, 8, 1 << 20, &a->unit)))
				return st;
			if (a->unit % 8)
				return cli_usage_error(verb, "--unit must be a multiple of 8, not %lu",
						       a->unit);
			break;
		case OPT_PPB:
			if ((st = cli_parse_uint(verb, "--ppb", optarg, 0, 1 << 20, &a->ppb)))
				return st;
			a->have_ppb = 1;
			break;
		case OPT_MAXB:
			if ((st = cli_parse_uint(verb, "--max-bytes", optarg, 4096, 1ul << 40, &a->maxb)))
				return st;
			break;
		case OPT_JOBS:
			if ((st = cli_parse_uint(verb, "--jobs", optarg, 1, 256, &a->jobs)))
				return st;
			break;
		case OPT_THRESH: {
			char *end;
			a->threshold = strtod(optarg, &end);
			if (*end || !(a->threshold > 0 && a->threshold <= 1))
				return cli_usage_error(verb,
						       "--threshold needs a number in (0, 1], "
						       "not '%s'",
						       optarg);
			break;
		}
		case OPT_NOBRANCH: a->no_branch = 1; break;
		case OPT_NOCACHE: a->no_cache = 1; break;
		case ':': return cli_usage_error(verb, "%s needs a value", argv[optind - 1]);
		default: return cli_usage_error(verb, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error(verb, "unexpected argument '%s'", argv[optind]);
	if (!a->outp)
		return cli_usage_error(verb, "-o OUT is required");
	if (a->no_branch && a->no_cache)
		return cli_usage_error(verb, "--no-branch and --no-cache leave nothing to run");
	return CLI_OK;
}

/* The library's options from the command line's. */
static void make_options(const struct cat_args *a, pmcf_categorize_options *o)
{
	pmcf_categorize_options_init(o, a->backend);
	if (a->iters)
		o->iterations = a->iters;
	if (a->points)
		o->points = (unsigned)a->points;
	if (a->accesses)
		o->accesses = a->accesses;
	if (a->unit)
		o->unit = (unsigned)a->unit;
	if (a->have_ppb)
		o->pages_per_block = (unsigned)a->ppb;
	if (a->maxb)
		o->max_bytes = a->maxb;
	if (a->jobs)
		o->jobs = (unsigned)a->jobs;
	o->threshold = a->threshold;
	o->skip_branch = a->no_branch;
	o->skip_cache = a->no_cache;
}

int cmd_categorize(int argc, char **argv)
{
	if (cli_wants_help(argc, argv, usage))
		return CLI_OK;
	struct cat_args a = {.backend = PMCF_CATEGORIZE_PERF};
	int st = parse_args(argc, argv, &a);
	if (st != CLI_OK)
		return st;
	pmcf_categorize_options o;
	make_options(&a, &o);
	pmcf_catalog *cat = NULL;
	pmcf_evlist *el = NULL;
	const char **names = NULL;
	size_t n = 0;
	if ((st = cli_categorize_event_names(a.backend, a.events, &cat, &el, &names, &n)))
		return st;
	const char *outp = a.outp, *plotdir = a.plotdir;
	struct cli_out out;
	if ((st = cli_out_open(verb, outp, &out))) {
		free(names);
		pmcf_evlist_free(el);
		pmcf_catalog_free(cat);
		return st;
	}
	pmcf_categorize_report *rep = NULL;
	int err = pmcf_categorize_run(&o, names, n, &rep);
	free(names);
	pmcf_evlist_free(el);
	pmcf_catalog_free(cat);
	if (err) {
		cli_out_abort(&out);
		/* a missing kernels executable or cache description is this
		 * machine's (or installation's) fault, not the input's */
		if (err == PMCF_ENOENT)
			return cli_error(verb, CLI_EENV, "%s", pmcf_errdetail());
		return cli_lib_error(verb, err, "categorisation");
	}
	if (has_suffix(outp, ".json"))
		cli_categorize_write_json(out.f, rep);
	else
		cli_categorize_write_csv(out.f, rep);
	st = cli_out_commit(verb, &out);
	if (st == CLI_OK && plotdir)
		st = cli_categorize_plot(plotdir, rep);
	pmcf_categorize_report_free(rep);
	return st;
}
