/* `pmcfuse reference`: records the reference executions EPD and the
 * Correlation Error need (fuse-task-parallel §4.1): every event pair
 * monitored together R times, with event sets packed by a pair covering so
 * that one execution serves many pairs; writes DIR/ref-NNN.pmcf and the
 * index DIR/reference.json. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "cli/campaign.h"
#include "cli/cli.h"
#include "cli/launcher.h"
#include "cli/output.h"
#include "pmcfuse/collect.h"
#include "pmcfuse/evaluate.h"
#include "pmcfuse/sim.h"
#include "pmcfuse/source.h"

static const char usage[] =
	"usage: pmcfuse reference -e EVENTS [--repeat R] [--pmcs N] [--seed S] -o DIR\n"
	"                         [--resume DIR] [--launcher local|slurm [--slurm-args ARGS]\n"
	"                         [--wait]] [--program-output FILE|-] [-v] [--quiet] [--json]\n"
	"                         (--sim SPEC | -- PROGRAM ARGS...)\n\n"
	"Records reference executions in which every pair of EVENTS is monitored\n"
	"together, R times each (different execution seeds). The pairs are packed into\n"
	"event sets that fit the counters (a pair covering), so one execution serves many\n"
	"pairs; the number of executions is printed against the lower bound. Writes\n"
	"DIR/ref-NNN.pmcf and DIR/reference.json (which pairs each file covers, its\n"
	"repeat). Pairs that can never be counted together are listed and left out.\n"
	"Each execution is written as it finishes, with reference.json and the\n"
	"manifest DIR/campaign.json: SIGINT, SIGTERM or SIGHUP stop the program, keep\n"
	"the finished executions (usable by epd and correrr) and exit 128+N\n"
	"(docs/campaigns.md). Progress goes to standard error as for `run`: an\n"
	"updating line on a terminal, else a timestamped line per execution.\n\n"
	"  -e EVENTS    comma-separated list, all, or @FILE (duration is always recorded)\n"
	"  --repeat R   repeats of every pair (default 5, at least 2 for calibration)\n"
	"  --pmcs N     counter budget (default: the machine's counters)\n"
	"  --seed S     base seed of the simulated executions (default: the spec's seed;\n"
	"               their seeds are drawn apart from those of `run`, so references\n"
	"               and fused executions are independent)\n"
	"  -o DIR       the campaign folder (created; one that holds a campaign or\n"
	"               profiles is refused: resume it with --resume)\n"
	"  --resume DIR finish the campaign in DIR: records only the executions that are\n"
	"               missing, failed or were stopped; alone, it repeats the command\n"
	"               stored in DIR/campaign.json\n"
	"  --launcher L local (default), or slurm: an sbatch job array over the\n"
	"               executions not done (task K: `reference --resume DIR --only K`) and\n"
	"               a finishing job that writes reference.json (docs/slurm.md)\n"
	"  --slurm-args ARGS  more sbatch options; --wait: follow the jobs to the end\n"
	"  --only K     record execution K of the campaign in --resume DIR alone\n"
	"  --sim SPEC   simulated workload, e.g. cholesky,blocks=12\n"
	"  --program-output F  where the program's stdout and stderr go: - (default)\n"
	"               pmcfuse's own, relayed so that they never run into its lines\n"
	"               (stdout to stderr with --json); or FILE, appended, a header per\n"
	"               execution\n"
	"  -v, --verbose  also print how the lower bound is derived and the base seed\n"
	"  -q, --quiet  no progress and no summary: errors only\n"
	"  --json       the summary as one JSON object on stdout (folder, executions,\n"
	"               sets, repeat, pairs, lower_bound, impossible_pairs, ...)\n";

/* Reference executions draw their seeds from a stream of their own, so that
 * they are independent of the executions `run` fuses (which use
 * pmcf_sim_exec_seed(base, K) with the same base). */
#define REFERENCE_SEED_SALT 0x9e6c63d0676a9a99ull

struct refrun {
	const char *dir, *source;
	pmcf_evlist *list;
	pmcf_cover *cv;
	unsigned long repeat;
	size_t nsets, total;
	unsigned char *done; /* per execution: its profile is in dir */
	uint64_t *seeds;
};

/* DIR/reference.json, rewritten (atomically) after every execution: the
 * profiles done so far, and "complete" once every one is. */
static int write_index(const struct refrun *r)
{
	char path[4096];
	struct cli_out idx;
	snprintf(path, sizeof(path), "%s/reference.json", r->dir);
	int st = cli_out_open("reference", path, &idx);
	if (st)
		return st;
	FILE *f = idx.f;
	size_t ndone = 0;
	for (size_t k = 0; k < r->total; k++)
		ndone += r->done[k];
	fprintf(f, "{\n  \"events\": [");
	size_t ne = 0;
	/* the covered events: those of the list besides duration */
	for (size_t i = 0; i < pmcf_evlist_size(r->list); i++) {
		if (strcmp(pmcf_evlist_name(r->list, i), "duration") == 0)
			continue;
		fprintf(f, "%s", ne++ ? ", " : "");
		cli_json_string(f, pmcf_evlist_name(r->list, i));
	}
	fprintf(f, "],\n  \"repeat\": %lu, \"sets\": %zu, \"executions\": %zu, \"lower_bound\": %zu,\n",
		r->repeat, r->nsets, r->total, pmcf_cover_lower_bound(r->cv) * r->repeat);
	fprintf(f, "  \"complete\": %s, \"executions_done\": %zu,\n", ndone == r->total ? "true" : "false",
		ndone);
	fprintf(f, "  \"lower_bound_per_repeat\": %zu, \"lower_bound_derivation\": ",
		pmcf_cover_lower_bound(r->cv));
	cli_json_string(f, pmcf_cover_bound_text(r->cv));
	fprintf(f, ",\n  \"source\": ");
	cli_json_string(f, r->source);
	fprintf(f, ",\n  \"impossible_pairs\": [");
	for (size_t k = 0; k < pmcf_cover_nimpossible(r->cv); k++) {
		const char *a, *b;
		pmcf_cover_impossible(r->cv, k, &a, &b);
		fprintf(f, "%s[", k ? ", " : "");
		cli_json_string(f, a);
		fprintf(f, ", ");
		cli_json_string(f, b);
		fprintf(f, "]");
	}
	fprintf(f, "],\n  \"profiles\": [");
	for (size_t k = 0, q = 0; k < r->total; k++) {
		if (!r->done[k])
			continue;
		size_t s = k % r->nsets, n;
		const char *const *set = pmcf_cover_set(r->cv, s, &n);
		fprintf(f,
			"%s\n    {\"file\": \"ref-%03zu.pmcf\", \"repeat\": %zu, \"set\": %zu, "
			"\"seed\": %llu, \"events\": [",
			q++ ? "," : "", k, k / r->nsets, s, (unsigned long long)r->seeds[k]);
		for (size_t i = 0; i < n; i++) {
			fprintf(f, "%s", i ? ", " : "");
			cli_json_string(f, set[i]);
		}
		fprintf(f, "], \"pairs\": [");
		for (size_t i = 0, p = 0; i < n; i++)
			for (size_t j = i + 1; j < n; j++) {
				fprintf(f, "%s[", p++ ? ", " : "");
				cli_json_string(f, set[i]);
				fprintf(f, ", ");
				cli_json_string(f, set[j]);
				fprintf(f, "]");
			}
		fprintf(f, "]}");
	}
	fprintf(f, "\n  ]\n}\n");
	return cli_out_commit("reference", &idx);
}

/* The digest that names a reference campaign: its source, seed, repeats,
 * budget and covering sets. */
static int reference_digest(const struct refrun *r, uint64_t seed, unsigned long pmcs, char *const *prog,
			    char hex[65])
{
	char *t = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&t, &len);
	if (!f)
		return cli_error("reference", CLI_EENV, "out of memory");
	fprintf(f, "reference\n%s\nseed %llu repeat %lu pmcs %lu\n", r->source, (unsigned long long)seed,
		r->repeat, pmcs);
	for (size_t i = 0; prog && prog[i]; i++)
		fprintf(f, "%s\n", prog[i]);
	for (size_t s = 0; s < r->nsets; s++) {
		size_t n;
		const char *const *set = pmcf_cover_set(r->cv, s, &n);
		for (size_t i = 0; i < n; i++)
			fprintf(f, "%s%s", i ? "," : "--\n", set[i]);
	}
	if (fclose(f) != 0 || !t) {
		free(t);
		return cli_error("reference", CLI_EENV, "out of memory");
	}
	campaign_digest(t, hex);
	free(t);
	return CLI_OK;
}

int cmd_reference(int argc, char **argv)
{
	static const struct option opts[] = {{"events", required_argument, NULL, 'e'},
					     {"repeat", required_argument, NULL, 'r'},
					     {"pmcs", required_argument, NULL, 'p'},
					     {"seed", required_argument, NULL, 'S'},
					     {"output", required_argument, NULL, 'o'},
					     {"sim", required_argument, NULL, 's'},
					     {"resume", required_argument, NULL, 'R'},
					     {"help", no_argument, NULL, 'h'},
					     LAUNCH_LONGOPTS,
					     {"program-output", required_argument, NULL, 'P'},
					     CLI_OUTPUT_LONGOPTS,
					     CLI_JSON_LONGOPT,
					     {NULL, 0, NULL, 0}};
	if (cli_wants_help(argc, argv, usage))
		return CLI_OK;
	const char *events = NULL, *dir = NULL, *sim = NULL, *resume = NULL, *progout = NULL;
	unsigned long repeat = 5, pmcs = 0, seed = 0, v;
	int have_seed = 0, opt, st = CLI_OK, json = 0;
	struct launch launch = LAUNCH_INIT;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+e:o:vq", opts, NULL)) != -1) {
		if (launch_option("reference", opt, optarg, argv, optind, &launch, &st)) {
			if (st)
				return st;
			continue;
		}
		if (cli_output_option(opt, &json))
			continue;
		switch (opt) {
		case 'P': progout = optarg; break;
		case 'e': events = optarg; break;
		case 'o':
			if (cli_out_arg("reference", optarg, "a folder"))
				return CLI_EUSAGE;
			dir = optarg;
			break;
		case 's': sim = optarg; break;
		case 'R': resume = optarg; break;
		case 'r':
			if (cli_parse_uint("reference", "--repeat", optarg, 2, 1000, &repeat))
				return CLI_EUSAGE;
			break;
		case 'p':
			if (cli_parse_uint("reference", "--pmcs", optarg, 1, 1024, &pmcs))
				return CLI_EUSAGE;
			break;
		case 'S':
			if (cli_parse_uint("reference", "--seed", optarg, 0, (unsigned long)-1, &v))
				return CLI_EUSAGE;
			seed = v;
			have_seed = 1;
			break;
		default:
			return cli_usage_error("reference", "unknown option or missing value '%s'",
					       argv[optind - 1]);
		}
	}
	if ((st = launch_check("reference", &launch, resume)))
		return st;
	if (resume && optind >= argc && argc - launch.nwords <= 3) /* --resume DIR alone */
		return campaign_resume_alone("reference", resume, launch.nwords, launch.words, cmd_reference);
	char **prog = optind < argc ? argv + optind : NULL;
	if (resume && dir && !cli_same_folder(resume, dir))
		return cli_usage_error("reference", "--resume %s and -o %s name two folders", resume, dir);
	if (resume)
		dir = resume;
	if (!events)
		return cli_usage_error("reference", "needs -e EVENTS");
	if (!dir)
		return cli_usage_error("reference", "needs -o DIR");
	if (!sim && !prog)
		return cli_usage_error("reference", "needs --sim SPEC or -- PROGRAM ARGS");
	if (sim && prog)
		return cli_usage_error("reference", "--sim and a program cannot be used together");
	if (prog && strcmp(argv[optind - 1], "--") != 0)
		return cli_usage_error("reference", "put the program after '--' ('%s')", prog[0]);
	if (sim && progout)
		return cli_usage_error("reference", "--program-output is for a program (-- PROGRAM "
						    "ARGS), not --sim");

	pmcf_source *src = NULL;
	const pmcf_catalog *c = NULL;
	pmcf_source_opts so = PMCF_SOURCE_OPTS_INIT;
	so.pmcs = (unsigned)pmcs;
	int err = sim ? pmcf_source_new_sim(sim, &so, &src)
		      : pmcf_source_new_program(argc - optind, prog, &so, NULL, &src);
	if (err)
		return cli_lib_error("reference", err, sim ? sim : "cannot list events");
	struct refrun r = {.dir = dir, .repeat = repeat};
	struct campaign camp = {0};
	char **command = NULL;
	int ncommand = 0;
	/* the list first: for a program it chooses the catalogue (all, @FILE) */
	err = pmcf_source_events(src, events, &r.list);
	if (!err)
		err = pmcf_source_catalog(src, &c);
	if (!err)
		err = pmcf_cover_pairs(c, pmcf_evlist_names(r.list), pmcf_evlist_size(r.list), (unsigned)pmcs,
				       &r.cv);
	if (err)
		st = cli_lib_error("reference", err, "cannot plan the reference executions");
	r.nsets = r.cv ? pmcf_cover_nsets(r.cv) : 0;
	r.total = r.nsets * repeat;
	if (!have_seed && sim)
		seed = pmcf_source_seed(src);
	/* a copy: recording an execution sets its seed in the spec's text */
	char *canon = sim ? strdup(pmcf_source_name(src)) : NULL;
	r.source = sim ? canon : prog[0];
	/* reference executions draw their seeds from a stream of their own */
	pmcf_source_set_seed(src, seed ^ REFERENCE_SEED_SALT);
	r.done = calloc(r.total ? r.total : 1, 1);
	r.seeds = calloc(r.total ? r.total : 1, sizeof(*r.seeds));
	if (st == CLI_OK && (!r.done || !r.seeds || (sim && !canon)))
		st = cli_error("reference", CLI_EENV, "out of memory");
	char digest[65], path[4096];
	if (st == CLI_OK)
		st = reference_digest(&r, seed, pmcs, prog, digest);
	if (st == CLI_OK && launch.only >= (long)r.total)
		st = cli_usage_error("reference", "--only %ld: the campaign has executions 0 to %zu",
				     launch.only, r.total - 1);
	if (st == CLI_OK && !(command = launch_command(&launch, argc, argv, 1, &ncommand)))
		st = cli_error("reference", CLI_EENV, "out of memory");
	struct cli_progress pr;
	struct cli_progout pout;
	cli_progress_begin(&pr, "reference", 0, 0);
	int pst = cli_progout_open("reference", progout, json, &pr, &pout);
	if (st == CLI_OK)
		st = pst;
	if (st == CLI_OK) {
		cli_signals_catch();
		st = campaign_open("reference", dir, resume != NULL, digest, r.total, ncommand, command,
				   &camp);
		camp.task = launch.only >= 0;
	}
	size_t reused = 0;
	for (size_t k = 0; k < r.total && st == CLI_OK; k++) {
		r.done[k] = resume && campaign_is_done(&camp, k, path, sizeof(path));
		reused += r.done[k];
	}
	/* array tasks leave reference.json to the finishing step */
	if (st == CLI_OK && !camp.task)
		st = write_index(&r);
	int launched = st == CLI_OK && launch.slurm;
	if (launched)
		st = launch_slurm("reference", &camp, r.total, &launch);
	cli_progress_begin(&pr, "reference", r.total, r.total - reused);
	if (camp.task) /* an array task prints its one line at the end */
		cli_progress_silence(&pr);
	const char *failed = NULL;
	for (size_t k = 0; k < r.total && st == CLI_OK && !launched; k++) {
		size_t s = k % r.nsets, n;
		const char *const *set = pmcf_cover_set(r.cv, s, &n);
		struct campaign_exec ce = {.set = s, .repeat = (long)(k / r.nsets), .started = time(NULL)};
		char file[32], exitst[32] = "";
		snprintf(file, sizeof(file), "ref-%03zu.pmcf", k);
		snprintf(path, sizeof(path), "%s/%s", dir, file);
		ce.file = file;
		if (sim) {
			ce.has_seed = 1;
			ce.seed = r.seeds[k] = pmcf_source_exec_seed(src, (long)k);
		}
		if (r.done[k] || (camp.task && k != (size_t)launch.only))
			continue;
		if (cli_signal_caught())
			break;
		char what[64];
		snprintf(what, sizeof(what), "set %zu, repeat %zu", s, k / r.nsets);
		cli_progress_start(&pr, k, what);
		double tk = cli_now();
		pmcf_profile *p = NULL;
		pmcf_evlist *sl = NULL;
		pmcf_exit_info ei;
		ei.message[0] = '\0';
		if ((err = pmcf_evlist_subset(r.list, set, n, &sl))) {
			st = cli_lib_error("reference", err, "cannot plan the reference executions");
			break;
		}
		if (sim) {
			err = pmcf_source_record(src, sl, (long)k, &p, &ei);
		} else {
			char head[256], stamp[32];
			int ofd, efd;
			cli_stamp(stamp);
			snprintf(head, sizeof(head), "==> pmcfuse reference: exec %zu/%zu (%s), %s <==\n",
				 k + 1, r.total, what, stamp);
			if ((st = cli_progout_begin("reference", &pout, head, &ofd, &efd))) {
				pmcf_evlist_free(sl);
				break;
			}
			pmcf_source_set_output(src, ofd, efd);
			err = pmcf_source_record(src, sl, (long)k, &p, &ei);
			cli_progout_end(&pout);
			if (!err || err == PMCF_EPROGRAM)
				snprintf(exitst, sizeof(exitst), ei.exited ? "%d" : "signal %d",
					 ei.exited ? ei.status : ei.signal);
		}
		pmcf_evlist_free(sl);
		ce.finished = time(NULL);
		ce.exit = exitst;
		/* a stopped or failed program's profile is no reference: not kept */
		if (err || cli_signal_caught())
			cli_progress_clear(&pr);
		if (cli_signal_caught() && !sim) {
			pmcf_profile_free(p);
			ce.status = "interrupted";
			st = campaign_update(&camp, k, &ce);
			break;
		}
		if (err == PMCF_EPROGRAM) {
			pmcf_profile_free(p);
			ce.status = "failed";
			campaign_update(&camp, k, &ce);
			failed = "failed";
			size_t kept = 0;
			for (size_t j = 0; j < r.total; j++)
				kept += r.done[j];
			st = cli_error("reference", CLI_EENV,
				       "execution %zu of '%s' failed: %s (%zu of %zu reference executions "
				       "kept in %s; resume with `pmcfuse reference --resume %s`)",
				       k + 1, prog[0], ei.message[0] ? ei.message : "non-zero exit", kept,
				       r.total, dir, dir);
			break;
		}
		if (!err)
			err = pmcf_profile_save(p, path);
		pmcf_profile_free(p);
		if (err) {
			st = cli_lib_error("reference", err, path);
			break;
		}
		ce.status = "ok";
		r.done[k] = 1;
		if ((st = campaign_update(&camp, k, &ce)) || (!camp.task && (st = write_index(&r))))
			break;
		cli_progress_done(&pr, k, what, cli_now() - tk);
	}
	cli_progress_clear(&pr);
	cli_progout_close(&pout);
	size_t ndone = 0;
	for (size_t k = 0; k < r.total; k++)
		ndone += r.done[k];
	if (launched) {
		/* the jobs record and finish the campaign */
	} else if (camp.task && st == CLI_OK) {
		printf("execution %ld of %zu: %s/ref-%03ld.pmcf\n", launch.only, r.total, dir, launch.only);
	} else if (camp.dir && cli_signal_caught() && st == CLI_OK) {
		campaign_set_state(&camp, "interrupted");
		st = cli_interrupted("reference",
				     "%zu of %zu reference executions complete, kept in %s (usable by "
				     "epd and correrr); resume with `pmcfuse reference --resume %s`",
				     ndone, r.total, dir, dir);
	} else if (camp.dir && st != CLI_OK) {
		campaign_set_state(&camp, failed ? failed : "failed");
	} else if (camp.dir) {
		st = campaign_set_state(&camp, "complete");
	}
	size_t E = 0;
	for (size_t i = 0; st == CLI_OK && i < pmcf_evlist_size(r.list); i++)
		E += strcmp(pmcf_evlist_name(r.list, i), "duration") != 0;
	int summary = st == CLI_OK && !launched && !camp.task;
	if (summary && json) {
		printf("{\"folder\": ");
		cli_json_string(stdout, dir);
		printf(", \"index\": \"reference.json\", \"source\": ");
		cli_json_string(stdout, r.source);
		if (sim)
			printf(", \"seed\": %llu", (unsigned long long)seed);
		printf(", \"executions\": %zu, \"sets\": %zu, \"repeat\": %lu, \"events\": %zu, "
		       "\"pairs\": %zu, \"impossible_pairs\": %zu, \"lower_bound\": %zu, "
		       "\"lower_bound_per_repeat\": %zu, \"lower_bound_derivation\": ",
		       r.total, r.nsets, repeat, E, E * (E - 1) / 2 - pmcf_cover_nimpossible(r.cv),
		       pmcf_cover_nimpossible(r.cv), pmcf_cover_lower_bound(r.cv) * repeat,
		       pmcf_cover_lower_bound(r.cv));
		cli_json_string(stdout, pmcf_cover_bound_text(r.cv));
		printf(", \"without_packing\": %zu, \"resumed\": %zu}\n", (E * (E - 1) / 2) * repeat, reused);
	} else if (summary && !cli_quiet) {
		if (reused)
			printf("resumed %s: %zu of %zu executions were already done\n", dir, reused, r.total);
		printf("%zu reference executions (%zu event sets x %lu repeats) cover the %zu pairs of %zu "
		       "events; lower bound %zu (%zu x %lu); without packing: %zu\n",
		       r.total, r.nsets, repeat, E * (E - 1) / 2 - pmcf_cover_nimpossible(r.cv), E,
		       pmcf_cover_lower_bound(r.cv) * repeat, pmcf_cover_lower_bound(r.cv), repeat,
		       (E * (E - 1) / 2) * repeat);
		/* how the bound is derived is the covering's internals: -v */
		if (cli_verbose)
			printf("lower bound: %s\n", pmcf_cover_bound_text(r.cv));
		if (cli_verbose && sim)
			printf("seed %lu: each execution's seed is derived from it (listed in "
			       "%s/reference.json)\n",
			       seed, dir);
		if (pmcf_cover_nimpossible(r.cv))
			printf("%zu pairs can never be counted together and are left out (listed in "
			       "%s/reference.json)\n",
			       pmcf_cover_nimpossible(r.cv), dir);
		printf("wrote %s/ref-000.pmcf .. ref-%03zu.pmcf and %s/reference.json\n", dir,
		       r.total ? r.total - 1 : 0, dir);
	}
	campaign_close(&camp);
	free(command);
	free(r.done);
	free(r.seeds);
	free(canon);
	pmcf_cover_free(r.cv);
	pmcf_evlist_free(r.list);
	pmcf_source_free(src);
	return st;
}
