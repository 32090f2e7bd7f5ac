/* `pmcfuse reference`: records the reference executions EPD and the
 * Correlation Error need (fuse-task-parallel §4.1): every event pair
 * monitored together R times, with event sets packed by a pair covering so
 * that one execution serves many pairs; writes DIR/ref-NNN.pmcf and the
 * index DIR/reference.json. The campaign is the library's
 * (pmcfuse/campaign.h): this verb parses options, calls it and prints. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/campaign.h"
#include "cli/cli.h"
#include "cli/output.h"
#include "cli/verbs/reference.h"
#include "pmcfuse/evaluate.h"
#include "pmcfuse/refdir.h"
#include "pmcfuse/sim.h"
#include "pmcfuse/source.h"
#include "x/x.h"

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

/* The source, the events and their pair covering (one list per set); the
 * executions' seeds drawn apart from those of `run`. */
static int plan_references(struct refrun *r)
{
	const pmcf_catalog *c = NULL;
	pmcf_count_opts so = PMCF_COUNT_OPTS_INIT;
	so.pmcs = (unsigned)r->pmcs;
	int err = r->sim ? pmcf_source_new_sim(r->sim, &so, &r->src)
			 : pmcf_source_new_program(r->nprog, r->prog, &so, NULL, &r->src);
	if (err)
		return cli_lib_error("reference", err, r->sim ? r->sim : "cannot list events");
	/* the list first: for a program it chooses the catalogue (all, @FILE) */
	if (!(err = pmcf_source_events(r->src, r->events, &r->list)) &&
	    !(err = pmcf_source_catalog(r->src, &c)))
		err = pmcf_cover_pairs_evlist(r->list, (unsigned)r->pmcs, 1, &r->cv);
	if (err)
		return cli_lib_error("reference", err, "cannot plan the reference executions");
	r->nsets = pmcf_cover_nsets(r->cv);
	r->total = r->nsets * r->repeat;
	if (!r->have_seed && r->sim)
		r->seed = pmcf_source_seed(r->src);
	/* a copy: recording an execution sets its seed in the spec's text */
	r->canon = r->sim ? strdup(pmcf_source_name(r->src)) : NULL;
	r->source = r->sim ? r->canon : r->prog[0];
	/* a stream of their own: independent of the executions `run` fuses
	 * with the same base (pmcf_sim_role_seed) */
	pmcf_source_seed_set(r->src, pmcf_sim_role_seed(r->seed, PMCF_SEED_REFERENCE));
	r->done = calloc(r->total ? r->total : 1, 1);
	r->seeds = calloc(r->total ? r->total : 1, sizeof(*r->seeds));

	r->sets = calloc(r->nsets ? r->nsets : 1, sizeof(*r->sets));
	if (!r->done || !r->seeds || !r->sets || (r->sim && !r->canon))
		return cli_error("reference", CLI_EENV, "out of memory");
	for (size_t k = 0; r->sim && k < r->total; k++)
		r->seeds[k] = pmcf_source_exec_seed(r->src, (long)k);
	for (size_t s = 0; s < r->nsets; s++) /* resolved once, by the covering */
		r->sets[s] = pmcf_cover_evlist_at(r->cv, s);
	return CLI_OK;
}

/* The campaign folder opened (or resumed: the executions done), the index
 * written, and with --launcher slurm the jobs submitted. */
static int open_references(struct refrun *r, int argc, char **argv)
{
	char digest[65];
	int st = ref_digest(r, digest);
	pmcf_campaign_opts o = PMCF_CAMPAIGN_OPTS_INIT;
	o.dir = r->dir;
	o.digest = digest;
	o.sets = (const pmcf_evlist *const *)r->sets;
	o.nsets = r->nsets;
	o.repeat = (unsigned)r->repeat;
	o.file_format = PMCF_REFDIR_FILE;
	r->s.saved = ref_index_saved;
	r->s.ctx = r;
	if (!st)
		st = campaign_session_open(&r->s, &o, argc, argv);
	for (size_t k = 0; k < r->total && st == CLI_OK; k++) {
		r->done[k] = r->args.resume && pmcf_campaign_is_done(r->s.camp, k);
		r->reused += r->done[k];
	}
	/* array tasks leave reference.json to the finishing step */
	if (st == CLI_OK && !pmcf_campaign_is_task(r->s.camp))
		st = ref_write_index(r);
	r->launched = st == CLI_OK && campaign_is_slurm(&r->args);
	if (r->launched)
		st = campaign_session_slurm(&r->s);
	return st;
}

/* Every execution not done (an array task: its own) recorded by the local
 * launcher; a failed program's profile is no reference: not kept. */
static int record_references(struct refrun *r)
{
	campaign_session_progress(&r->s, r->total, r->total - r->reused);
	pmcf_campaign_result x = PMCF_CAMPAIGN_RESULT_INIT;
	int err = campaign_session_run(&r->s, r->src, &x);
	cli_progout_close(&r->s.pout);
	if (err > 0 || x.signal) /* printed; or stopped: finish_references says so */
		return err > 0 ? err : CLI_OK;
	if (err == PMCF_EPROGRAM) {
		return cli_error("reference", CLI_EENV,
				 "execution %ld of '%s' failed: %s (%zu of %zu reference executions kept in "
				 "%s; resume with `pmcfuse reference --resume %s`)",
				 x.at + 1, r->prog[0],
				 x.message && x.message[0] ? x.message : "non-zero exit", ref_count_done(r),
				 r->total, r->dir, r->dir);
	}
	return err ? cli_lib_error("reference", err,
				   x.at >= 0 ? pmcf_campaign_path(r->s.camp, (size_t)x.at) : r->dir)
		   : CLI_OK;
}

/* The campaign's state once the executions are over. */
static int finish_references(struct refrun *r, int st)
{
	pmcf_campaign *c = r->s.camp;
	int task = pmcf_campaign_is_task(c);
	if (r->launched) {
		/* the jobs record and finish the campaign */
	} else if (task && st == CLI_OK && r->args.json) {
		char file[64];
		snprintf(file, sizeof(file), PMCF_REFDIR_FILE, (size_t)r->args.only);
		printf("{\"execution\": %ld, \"executions\": %zu, \"folder\": ", r->args.only, r->total);
		cli_json_string(stdout, r->dir);
		printf(", \"file\": ");
		cli_json_string(stdout, file);
		printf("}\n");
	} else if (task && st == CLI_OK) {
		printf("execution %ld of %zu: %s/" PMCF_REFDIR_FILE "\n", r->args.only, r->total, r->dir,
		       (size_t)r->args.only);
	} else if (c && cli_signal_caught() && st == CLI_OK) {
		pmcf_campaign_state_set(c, "interrupted");
		st = cli_interrupted(
			"reference",
			"%zu of %zu reference executions complete, kept in %s (usable by epd and "
			"correrr); resume with `pmcfuse reference --resume %s`",
			ref_count_done(r), r->total, r->dir, r->dir);
	} else if (c && st != CLI_OK) {
		pmcf_campaign_state_set(c, "failed");
	} else if (c) {
		int err = pmcf_campaign_state_set(c, "complete");
		st = err ? cli_lib_error("reference", err, r->dir) : CLI_OK;
	}
	return st;
}

/* The whole campaign after the command line: planned, recorded, finished. */
static int run_references(struct refrun *r, int argc, char **argv)
{
	campaign_session_init(&r->s, "reference", &r->args);
	int st = plan_references(r);
	if (!st)
		st = open_references(r, argc, argv);
	if (!st && !r->launched)
		st = record_references(r);
	st = finish_references(r, st);
	if (st == CLI_OK && !r->launched && !pmcf_campaign_is_task(r->s.camp))
		ref_print_summary(r);
	campaign_session_close(&r->s);
	free(r->sets);
	free(r->done);
	free(r->seeds);
	free(r->canon);
	pmcf_cover_free(r->cv);
	pmcf_evlist_free(r->list);
	pmcf_source_free(r->src);
	return st;
}

int cmd_reference(int argc, char **argv)
{
	static const struct option opts[] = {{"events", required_argument, NULL, 'e'},
					     {"repeat", required_argument, NULL, 'r'},
					     {"pmcs", required_argument, NULL, 'p'},
					     {"seed", required_argument, NULL, 'S'},
					     {"output", required_argument, NULL, 'o'},
					     {"sim", required_argument, NULL, 's'},
					     {"help", no_argument, NULL, 'h'},
					     CAMPAIGN_LONGOPTS,
					     {NULL, 0, NULL, 0}};
	if (cli_wants_help(argc, argv, usage))
		return CLI_OK;
	struct refrun r = {.repeat = 5, .args = CAMPAIGN_ARGS_INIT};
	int opt, st = CLI_OK;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+e:o:vq", opts, NULL)) != -1) {
		if (campaign_option("reference", opt, optarg, argv, optind, &r.args, &st)) {
			if (st)
				return st;
			continue;
		}
		switch (opt) {
		case 'e':
			if (cli_events_option("reference", &r.events, optarg))
				return CLI_EUSAGE;
			break;
		case 'o':
			if (cli_out_arg("reference", optarg, "a folder"))
				return CLI_EUSAGE;
			r.dir = optarg;
			break;
		case 's': r.sim = optarg; break;
		case 'r':
			if (cli_parse_uint("reference", "--repeat", optarg, 2, 1000, &r.repeat))
				return CLI_EUSAGE;
			break;
		case 'p':
			if (cli_parse_uint("reference", "--pmcs", optarg, 1, 1024, &r.pmcs))
				return CLI_EUSAGE;
			break;
		case 'S':
			if (cli_parse_uint("reference", "--seed", optarg, 0, (unsigned long)-1, &r.seed))
				return CLI_EUSAGE;
			r.have_seed = 1;
			break;
		default:
			return cli_usage_error("reference", "unknown option or missing value '%s'",
					       argv[optind - 1]);
		}
	}
	static const char *const diropts[] = {"--output", "-o", NULL};
	if (campaign_args_done("reference", &r.args, argc, optind, diropts, cmd_reference, &st))
		return st;
	r.prog = optind < argc ? argv + optind : NULL;
	r.nprog = argc - optind;
	if (r.args.resume && r.dir && !cli_same_folder(r.args.resume, r.dir))
		return cli_usage_error("reference", "--resume %s and -o %s name two folders", r.args.resume,
				       r.dir);
	r.dir = r.args.resume ? r.args.resume : r.dir;
	if (!r.events)
		return cli_usage_error("reference", "needs -e EVENTS");
	if (!r.dir)
		return cli_usage_error("reference", "needs -o DIR");
	if (!r.sim && !r.prog)
		return cli_usage_error("reference", "needs --sim SPEC or -- PROGRAM ARGS");
	if (r.sim && r.prog)
		return cli_usage_error("reference", "--sim and a program cannot be used together");
	if (r.prog && strcmp(argv[optind - 1], "--") != 0)
		return cli_usage_error("reference", "put the program after '--' ('%s')", r.prog[0]);
	if (r.sim && r.args.progout)
		return cli_usage_error("reference",
				       "--program-output is for a program (-- PROGRAM ARGS), not --sim");
	return run_references(&r, argc, argv);
}
