/* `pmcfuse combine`: fuse execution profiles into one profile in which every
 * XU has every event, with the strategies of docs/fusion.md. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/fuse.h"
#include "cli/output.h"
#include "cli/verbs/combine.h"

static const char usage[] =
	"usage: pmcfuse combine [--strategy S] [--seed N] [--threads N] [--force] [--partial]\n"
	"                       [--impute K [--impute-mode M]] [-v] [--quiet] [--json] [-o OUT] IN...\n\n"
	"Fuses execution profiles of one program (each monitoring part of the events)\n"
	"into OUT, in which every XU has a value for every event. Every value keeps its\n"
	"source profile and XU, and every XU a match distance (`show`). Executions of a\n"
	"plan (record --plan, run --keep) are fused in set order, whatever the order of\n"
	"IN; a missing or duplicated set, the same file twice, or sets of different\n"
	"plans are refused. An IN that is a folder (a campaign of run --keep DIR or of\n"
	"the Slurm launcher) stands for the executions in it, DIR/exec-K.pmcf.\n\n"
	"  --strategy S   {STRATEGY_TABLE}\n"
	"  --seed N       seed of the random choices (default 1)\n"
	"  --impute K     bc family and match: each value taken from another execution\n"
	"                 becomes the median of that event over the K (1..64) nearest\n"
	"                 XUs of that execution on match's linking metric, not a copy of\n"
	"                 the paired XU's (provenance: the execution, XU -1)\n"
	"  --impute-mode M  median  the neighbours' median (default)\n"
	"                 rank    the rows are ordered by the neighbours' median\n"
	"                          blended with the paired XU's value, and get the\n"
	"                          paired XUs' values in that order: every event keeps\n"
	"                          bc's values (its distribution); a row whose paired\n"
	"                          XU has the same linking values keeps its copy\n"
	"  --threads N    bc family: XU types clustered at once (default: the online CPUs;\n"
	"                 the result is the same for any N)\n"
	"  --force        fuse profiles of different programs, arguments, OMP_*\n"
	"                 environments (omp_env) or workloads; the fused metadata keeps\n"
	"                 the first input's, and KEY_inputs every input's value of a\n"
	"                 key that differs. A fusion with no XU is refused even so\n"
	"  --partial      fuse the sets of a plan that are there, some missing, and\n"
	"                 inputs marked incomplete (stopped or failed executions,\n"
	"                 refused without it); the result is marked incomplete\n"
	"  -o, --output OUT  the fused profile to write (atomically); default pmcfuse.pmcf,\n"
	"                 an existing one kept as pmcfuse.pmcf.old (as record does)\n"
	"  -v, --verbose  also print the internals of the combination (bc: grid\n"
	"                 iterations and the largest cell distance dmax)\n"
	"  -q, --quiet    print nothing but errors\n"
	"  --json         print the summary as one JSON object: output, strategy,\n"
	"                 inputs, xus, events, partial_xus, labels (lgl), grid (bc\n"
	"                 family), imputed (--impute: values, changed), match\n"
	"                 (distance quantiles)\n";

enum { OPT_STRATEGY = 256, OPT_SEED, OPT_FORCE, OPT_THREADS, OPT_PARTIAL, OPT_IMPUTE, OPT_IMPUTE_MODE };

/* Inputs that are sets of a plan (record --plan, run --keep) go in set
 * order, whatever the order of the arguments: bc needs the plan's order. */
struct input {
	pmcf_profile *p;
	const char *name;
	long set;
};

static int by_set(const void *a, const void *b)
{
	const struct input *x = a, *y = b;
	return (x->set > y->set) - (x->set < y->set);
}

int cmd_combine(int argc, char **argv)
{
	static const char *verb = "combine";
	if (cli_wants_help(argc, argv, usage))
		return CLI_OK;
	static const struct option longopts[] = {
		{"strategy", required_argument, NULL, OPT_STRATEGY},
		{"seed", required_argument, NULL, OPT_SEED},
		{"force", no_argument, NULL, OPT_FORCE},
		{"threads", required_argument, NULL, OPT_THREADS},
		{"partial", no_argument, NULL, OPT_PARTIAL},
		{"impute", required_argument, NULL, OPT_IMPUTE},
		{"impute-mode", required_argument, NULL, OPT_IMPUTE_MODE},
		{"output", required_argument, NULL, 'o'},
		CLI_OUTPUT_LONGOPTS,
		CLI_JSON_LONGOPT,
		{NULL, 0, NULL, 0},
	};
	pmcf_combine_opts o = PMCF_COMBINE_OPTS_INIT;
	int json = 0, mode_given = 0;
	const char *out = NULL;
	unsigned long seed = 1, threads = 0, impute = 0;
	int c;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:vq", longopts, NULL)) != -1) {
		if (cli_output_option(c, &json))
			continue;
		switch (c) {
		case 'o':
			if (cli_out_arg(verb, optarg, "a profile"))
				return CLI_EUSAGE;
			out = optarg;
			break;
		case OPT_FORCE: o.force = 1; break;
		case OPT_PARTIAL: o.partial = 1; break;
		case OPT_STRATEGY:
			if ((o.strategy = pmcf_strategy_parse(optarg)) < 0)
				return cli_usage_error(verb, "%s", pmcf_errdetail());
			break;
		case OPT_SEED:
			if (cli_parse_uint(verb, "--seed", optarg, 0, ~0ul, &seed))
				return CLI_EUSAGE;
			break;
		case OPT_THREADS:
			if (cli_parse_uint(verb, "--threads", optarg, 1, 64, &threads))
				return CLI_EUSAGE;
			break;
		case OPT_IMPUTE:
			if (cli_parse_uint(verb, "--impute", optarg, 1, 64, &impute))
				return CLI_EUSAGE;
			break;
		case OPT_IMPUTE_MODE:
			if ((o.impute_mode = pmcf_impute_mode_parse(optarg)) < 0)
				return cli_usage_error(verb, "%s", pmcf_errdetail());
			mode_given = 1;
			break;
		case ':': return cli_usage_error(verb, "%s needs a value", argv[optind - 1]);
		default: return cli_usage_error(verb, "unknown option '%s'", argv[optind - 1]);
		}
	}
	o.seed = seed;
	o.threads = (unsigned)threads;
	o.impute = (unsigned)impute;
	if (impute && !pmcf_strategy_ordered(o.strategy))
		return cli_usage_error(verb, "--impute needs a strategy of the bc family or match");
	if (mode_given && !impute)
		return cli_usage_error(verb, "--impute-mode needs --impute K");
	int dflt = !out; /* as record: pmcfuse.pmcf, the previous one kept as .old */
	if (dflt)
		out = CLI_DEFAULT_OUT;
	if (optind >= argc)
		return cli_usage_error(verb, "missing input profiles");
	char **args;
	size_t n;
	int est = combine_expand_inputs(verb, argv + optind, (size_t)(argc - optind), &args, &n);
	if (est)
		return est;
	if (cli_out_not_input(verb, out, (const char *const *)args, n) ||
	    (dflt && combine_old_not_input(verb, (const char *const *)args, n)) ||
	    cli_out_replaceable(verb, out, NULL)) {
		combine_free_inputs(args, n);
		return CLI_EUSAGE;
	}
	struct input *in = calloc(n, sizeof(*in));
	pmcf_profile **prof = calloc(n, sizeof(*prof));
	const char **names = calloc(n, sizeof(*names));
	if (!in || !prof || !names) {
		free(in);
		free(prof);
		free(names);
		combine_free_inputs(args, n);
		return cli_error(verb, CLI_EENV, "out of memory");
	}
	int st = combine_same_file_twice(verb, args, n), sets = 1;
	for (size_t j = 0; j < n && !st; j++) {
		in[j].name = args[j];
		st = cli_open_profile(verb, in[j].name, &in[j].p);
		const char *k = st ? NULL : pmcf_profile_meta_get(in[j].p, PMCF_META_PLAN_SET);
		in[j].set = k ? strtol(k, NULL, 10) : -1;
		sets &= k != NULL;
	}
	if (!st && sets)
		qsort(in, n, sizeof(*in), by_set); /* equal sets are refused by the check */
	for (size_t j = 0; j < n; j++) {
		prof[j] = in[j].p;
		names[j] = in[j].name;
	}
	pmcf_profile *fused = NULL;
	pmcf_combine_stats s = {.size = sizeof(s)};
	if (!st) {
		o.names = names;
		int err = pmcf_combine((const pmcf_profile *const *)prof, n, &o, &fused, &s);
		/* --partial with sets missing: the result says it is incomplete */
		const char *ns = pmcf_profile_meta_get(prof[0], PMCF_META_PLAN_SETS);
		if (!err && sets && ns && strtoul(ns, NULL, 10) > n)
			err = pmcf_profile_meta_set(fused, PMCF_META_COMPLETE, "0");
		if (err)
			st = cli_lib_error(verb, err, "combining");
		else if (dflt && cli_keep_old(verb, out))
			st = CLI_EENV;
		else if ((err = pmcf_profile_save(fused, out)))
			st = cli_lib_error(verb, err, out);
		else if (json) {
			printf("{\"output\": ");
			cli_json_string(stdout, out);
			printf(", ");
			fuse_json_summary(stdout, fused, &s, o.strategy, n);
			printf(", \"complete\": %s}\n", pmcf_profile_complete(fused) ? "true" : "false");
		} else if (!cli_quiet)
			fuse_print_summary(stdout, fused, &s, o.strategy, n);
	}
	for (size_t j = 0; j < n; j++)
		pmcf_profile_free(in[j].p);
	free(in);
	free(prof);
	free(names);
	combine_free_inputs(args, n);
	pmcf_profile_free(fused);
	return st;
}
