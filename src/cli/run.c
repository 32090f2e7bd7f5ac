/* `pmcfuse run`: plan the executions, record each one, fuse them, and
 * summarise — the whole pipeline of docs/fusion.md in one command. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "cli/cli.h"
#include "cli/fuse.h"
#include "pmcfuse/sim.h"

static const char usage[] =
	"usage: pmcfuse run [-e EVENTS] [--strategy S] [--pmcs N] [--link EVENTS]\n"
	"                   [--packing best|greedy] [--keep DIR] [--seed N]\n"
	"                   -o OUT (--sim SPEC | -- PROG ARGS)\n\n"
	"Plans the event sets (as `plan`), records one execution per set, and fuses\n"
	"them (as `combine`) into OUT. A progress line shows on a terminal.\n\n"
	"  -e, --events EVENTS  comma list, all (default), or @FILE\n"
	"  --strategy S         ctc, lgl, bc (default), bc-unlabeled, random\n"
	"  --pmcs N             counter budget (default: the machine's own)\n"
	"  --link EVENTS        more linking events (bc family)\n"
	"  --packing P          best (default) or greedy\n"
	"  --keep DIR           keep the execution profiles as DIR/exec-K.pmcf\n"
	"  --seed N             base seed: execution K of a simulation gets a seed derived\n"
	"                       from it (default: the seed= of SPEC, else 1); also the\n"
	"                       seed of the combination's random choices\n"
	"  --sim SPEC           a simulated workload (docs/simulation.md)\n"
	"  -- PROG ARGS         a real program (needs the collector)\n"
	"  -o, --output OUT     the fused profile to write (atomically)\n\n"
	"If an execution fails, run stops, keeps the profiles recorded so far (in DIR,\n"
	"or OUT.executions/ without --keep) and names the execution that failed.\n";

enum { OPT_STRATEGY = 256, OPT_LINK, OPT_PMCS, OPT_PACKING, OPT_KEEP, OPT_SEED, OPT_SIM };

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void progress(size_t i, size_t n, const char *const *ev, size_t nev, double elapsed)
{
	char evs[48];
	size_t o = 0;
	evs[0] = '\0';
	for (size_t k = 1; k < nev && o + 4 < sizeof(evs); k++)
		o += (size_t)snprintf(evs + o, sizeof(evs) - o, "%s%s", k > 1 ? "," : "", ev[k]);
	if (o >= sizeof(evs) - 4)
		strcpy(evs + sizeof(evs) - 4, "...");
	double left = i ? elapsed / (double)i * (double)(n - i) : 0;
	fprintf(stderr, "\r\033[Krun %zu/%zu: %s  elapsed %.1fs, remaining ~%.1fs", i + 1, n, evs,
		elapsed, left);
	fflush(stderr);
}

/* Saves the recorded profiles 0..n) into dir (created). */
static int keep_all(const char *verb, const char *dir, pmcf_profile **p, size_t n, char ***paths)
{
	if (mkdir(dir, 0777) != 0 && errno != EEXIST)
		return cli_error(verb, cli_status_for(-errno), "cannot create '%s': %s", dir,
				 strerror(errno));
	for (size_t k = 0; k < n; k++) {
		size_t len = strlen(dir) + 32;
		char *path = malloc(len);
		if (!path)
			return cli_error(verb, CLI_EENV, "out of memory");
		snprintf(path, len, "%s/exec-%zu.pmcf", dir, k);
		int err = pmcf_profile_save(p[k], path);
		if (err) {
			free(path);
			return cli_lib_error(verb, err, dir);
		}
		if (paths)
			(*paths)[k] = path;
		else
			free(path);
	}
	return CLI_OK;
}

int cmd_run(int argc, char **argv)
{
	static const char *verb = "run";
	if (cli_wants_help(argc, argv, usage))
		return CLI_OK;
	static const struct option longopts[] = {
		{"events", required_argument, NULL, 'e'},   {"output", required_argument, NULL, 'o'},
		{"strategy", required_argument, NULL, OPT_STRATEGY},
		{"link", required_argument, NULL, OPT_LINK}, {"pmcs", required_argument, NULL, OPT_PMCS},
		{"packing", required_argument, NULL, OPT_PACKING},
		{"keep", required_argument, NULL, OPT_KEEP}, {"seed", required_argument, NULL, OPT_SEED},
		{"sim", required_argument, NULL, OPT_SIM},   {NULL, 0, NULL, 0},
	};
	const char *events = "all", *out = NULL, *link = NULL, *keep = NULL, *sim = NULL;
	pmcf_plan_opts po = PMCF_PLAN_OPTS_INIT;
	unsigned long ul, seed = 0;
	int seed_given = 0, c;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:e:o:", longopts, NULL)) != -1) {
		switch (c) {
		case 'e': events = optarg; break;
		case 'o': out = optarg; break;
		case OPT_LINK: link = optarg; break;
		case OPT_KEEP: keep = optarg; break;
		case OPT_SIM: sim = optarg; break;
		case OPT_STRATEGY:
			if ((po.strategy = pmcf_strategy_parse(optarg)) < 0)
				return cli_usage_error(verb, "%s", pmcf_errdetail());
			break;
		case OPT_PACKING:
			if ((po.packing = pmcf_packing_parse(optarg)) < 0)
				return cli_usage_error(verb, "%s", pmcf_errdetail());
			break;
		case OPT_PMCS:
			if (cli_parse_uint(verb, "--pmcs", optarg, 1, 64, &ul))
				return CLI_EUSAGE;
			po.pmcs = (unsigned)ul;
			break;
		case OPT_SEED:
			if (cli_parse_uint(verb, "--seed", optarg, 0, ~0ul, &seed))
				return CLI_EUSAGE;
			seed_given = 1;
			break;
		case ':': return cli_usage_error(verb, "%s needs a value", argv[optind - 1]);
		default: return cli_usage_error(verb, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (!out)
		return cli_usage_error(verb, "missing -o OUT");
	if (sim && optind < argc)
		return cli_usage_error(verb, "give either --sim SPEC or -- PROG ARGS, not both");
	if (!sim && optind >= argc)
		return cli_usage_error(verb, "missing the source: --sim SPEC or -- PROG ARGS");
	if (link && !pmcf_strategy_ordered(po.strategy))
		return cli_usage_error(verb, "--link is for the bc family, not %s",
				       pmcf_strategy_name(po.strategy));
	if (!sim)
		return cli_error(verb, CLI_EENV,
				 "recording real programs is not available in this build yet (the "
				 "collector has not landed); use --sim SPEC");

	pmcf_catalog *cat = NULL;
	pmcf_evlist *ev = NULL, *lk = NULL;
	pmcf_plan *plan = NULL;
	pmcf_sim_spec *spec = NULL;
	pmcf_profile **rec = NULL, *fused = NULL;
	char **paths = NULL;
	size_t nrec = 0, nsets = 0;
	int st = CLI_OK, err;
	if ((err = pmcf_sim_spec_parse(sim, &spec)) || (err = pmcf_catalog_sim(sim, &cat))) {
		st = cli_lib_error(verb, err, sim);
		goto out;
	}
	if ((err = pmcf_evlist_parse(cat, events, &ev)) ||
	    (link && (err = pmcf_evlist_parse(cat, link, &lk)))) {
		st = cli_lib_error(verb, err, "events");
		goto out;
	}
	if (lk) {
		po.link = pmcf_evlist_names(lk);
		po.nlink = pmcf_evlist_size(lk);
	}
	if ((err = pmcf_plan_make(cat, pmcf_evlist_names(ev), pmcf_evlist_size(ev), &po, &plan))) {
		st = cli_lib_error(verb, err, "planning");
		goto out;
	}
	nsets = pmcf_plan_nsets(plan);
	uint64_t base = seed_given ? seed : pmcf_sim_spec_seed(spec);
	rec = calloc(nsets, sizeof(*rec));
	paths = calloc(nsets, sizeof(*paths));
	if (!rec || !paths) {
		st = cli_error(verb, CLI_EENV, "out of memory");
		goto out;
	}
	int tty = isatty(STDERR_FILENO);
	double t0 = now_s();
	pmcf_sim_opts so = PMCF_SIM_OPTS_INIT;
	so.pmcs = po.pmcs;
	for (size_t k = 0; k < nsets; k++) {
		const char *const *names;
		size_t m;
		pmcf_plan_set_events(plan, k, &names, &m);
		if (tty)
			progress(k, nsets, names, m, now_s() - t0);
		pmcf_sim_spec_set_seed(spec, pmcf_sim_exec_seed(base, (unsigned)k));
		if ((err = pmcf_sim_record(spec, names, m, &so, &rec[k]))) {
			if (tty)
				fputc('\n', stderr);
			char msg[512];
			snprintf(msg, sizeof(msg), "%s", pmcf_errdetail()[0] ? pmcf_errdetail()
									  : pmcf_strerror(err));
			size_t len = strlen(out) + 16;
			char *dir = keep ? NULL : malloc(len);
			if (dir)
				snprintf(dir, len, "%s.executions", out);
			if (k && (keep || dir))
				keep_all(verb, keep ? keep : dir, rec, k, NULL);
			st = cli_error(verb, cli_status_for(err),
				       "execution %zu of %zu failed: %s (%zu recorded profiles kept in %s)",
				       k, nsets, msg, k, k ? (keep ? keep : dir) : "none");
			free(dir);
			goto out;
		}
		nrec++;
	}
	if (tty)
		fprintf(stderr, "\r\033[K");
	if (keep && (st = keep_all(verb, keep, rec, nrec, &paths)))
		goto out;
	for (size_t k = 0; k < nsets && !keep; k++) {
		paths[k] = malloc(32);
		if (!paths[k]) {
			st = cli_error(verb, CLI_EENV, "out of memory");
			goto out;
		}
		snprintf(paths[k], 32, "execution %zu", k);
	}
	pmcf_combine_opts co = PMCF_COMBINE_OPTS_INIT;
	co.strategy = po.strategy;
	co.seed = base;
	co.names = (const char *const *)paths;
	pmcf_combine_stats cs = {.size = sizeof(cs)};
	if ((err = pmcf_combine((const pmcf_profile *const *)rec, nsets, &co, &fused, &cs))) {
		st = cli_lib_error(verb, err, "combining");
		goto out;
	}
	if ((err = pmcf_profile_save(fused, out))) {
		st = cli_lib_error(verb, err, out);
		goto out;
	}
	printf("%zu executions of %s (lower bound %u) in %.2fs\n", nsets,
	       pmcf_sim_spec_canonical(spec), pmcf_plan_lower_bound(plan), now_s() - t0);
	fuse_print_summary(stdout, fused, &cs, po.strategy, nsets);
	printf("wrote %s\n", out);
out:
	for (size_t k = 0; k < nsets; k++) {
		if (rec)
			pmcf_profile_free(rec[k]);
		if (paths)
			free(paths[k]);
	}
	free(rec);
	free(paths);
	pmcf_profile_free(fused);
	pmcf_plan_free(plan);
	pmcf_sim_spec_free(spec);
	pmcf_evlist_free(ev);
	pmcf_evlist_free(lk);
	pmcf_catalog_free(cat);
	return st;
}
