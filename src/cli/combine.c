/* `pmcfuse combine`: fuse execution profiles into one profile in which every
 * XU has every event, with the strategies of docs/fusion.md. */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/fuse.h"

static const char usage[] =
	"usage: pmcfuse combine [--strategy S] [--seed N] [--threads N] [--force] -o OUT IN...\n\n"
	"Fuses execution profiles of one program (each monitoring part of the events)\n"
	"into OUT, in which every XU has a value for every event. Every value keeps its\n"
	"source profile and XU, and every XU a match distance (`show`).\n\n"
	"  --strategy S   ctc      per XU type, pair XUs by start-time order\n"
	"                 lgl      pair XUs with the same label\n"
	"                 bc       behaviour clustering on the overlapping events (default;\n"
	"                          inputs in plan order: each shares events with those before)\n"
	"                 bc-unlabeled  bc with a seeded shuffle instead of label order\n"
	"                 random   seeded random pairing within a type (a floor)\n"
	"  --seed N       seed of the random choices (default 1)\n"
	"  --threads N    bc family: XU types clustered at once (default: the online CPUs;\n"
	"                 the result is the same for any N)\n"
	"  --force        fuse profiles of different programs, arguments or workloads\n"
	"  -o, --output OUT  the fused profile to write (atomically)\n";

enum { OPT_STRATEGY = 256, OPT_SEED, OPT_FORCE, OPT_THREADS };

void fuse_print_summary(FILE *f, const pmcf_profile *fused, const pmcf_combine_stats *st,
			int strategy, size_t ninputs)
{
	fprintf(f, "fused %zu profiles with %s: %zu XUs, %zu events\n", ninputs,
		pmcf_strategy_name(strategy), st->xus, st->events);
	if (st->partial_xus)
		fprintf(f, "%zu XUs lack a partner in some profile (XU counts differ): their "
			   "other events are missing\n",
			st->partial_xus);
	if (strategy == PMCF_COMBINE_LGL)
		fprintf(f, "labels: %zu matched, %zu missing from some profile, %zu extra, %zu "
			   "duplicated\n",
			st->labels_matched, st->labels_missing, st->labels_extra,
			st->labels_duplicate);
	if (pmcf_strategy_ordered(strategy))
		fprintf(f, "grid: %zu iterations, largest dmax %u\n", st->bc_iterations, st->bc_dmax);
	pmcf_match_summary ms;
	if (pmcf_combine_match_summary(fused, &ms) == 0 && ms.measured)
		fprintf(f, "match distance over %zu XUs: median %.4g, p90 %.4g, p99 %.4g, max %.4g\n",
			ms.measured, ms.p50, ms.p90, ms.p99, ms.max);
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
		{"output", required_argument, NULL, 'o'},
		{NULL, 0, NULL, 0},
	};
	pmcf_combine_opts o = PMCF_COMBINE_OPTS_INIT;
	const char *out = NULL;
	unsigned long seed = 1, threads = 0;
	int c;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:o:", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case OPT_FORCE: o.force = 1; break;
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
		case ':': return cli_usage_error(verb, "%s needs a value", argv[optind - 1]);
		default: return cli_usage_error(verb, "unknown option '%s'", argv[optind - 1]);
		}
	}
	o.seed = seed;
	o.threads = (unsigned)threads;
	if (!out)
		return cli_usage_error(verb, "missing -o OUT");
	if (optind >= argc)
		return cli_usage_error(verb, "missing input profiles");
	size_t n = (size_t)(argc - optind);
	if (cli_out_not_input(verb, out, (const char *const *)argv + optind, n))
		return CLI_EUSAGE;
	pmcf_profile **in = calloc(n, sizeof(*in));
	if (!in)
		return cli_error(verb, CLI_EENV, "out of memory");
	int st = CLI_OK;
	for (size_t j = 0; j < n && !st; j++)
		st = cli_open_profile(verb, argv[optind + (int)j], &in[j]);
	pmcf_profile *fused = NULL;
	pmcf_combine_stats s = {.size = sizeof(s)};
	if (!st) {
		o.names = (const char *const *)argv + optind;
		int err = pmcf_combine((const pmcf_profile *const *)in, n, &o, &fused, &s);
		if (err)
			st = cli_lib_error(verb, err, "combining");
		else if ((err = pmcf_profile_save(fused, out)))
			st = cli_lib_error(verb, err, out);
		else
			fuse_print_summary(stdout, fused, &s, o.strategy, n);
	}
	for (size_t j = 0; j < n; j++)
		pmcf_profile_free(in[j]);
	free(in);
	pmcf_profile_free(fused);
	return st;
}
