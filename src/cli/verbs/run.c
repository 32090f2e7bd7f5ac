/* `pmcfuse run`: plan the executions, record each one, fuse them, and
 * summarise — the whole pipeline of docs/fusion.md in one command. The
 * campaign (folder, manifest, resume, launchers) is the library's
 * (pmcfuse/campaign.h); this verb parses options, calls it and prints. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cli/campaign.h"
#include "cli/cli.h"
#include "cli/fuse.h"
#include "cli/output.h"
#include "cli/verbs/run.h"
#include "pmcfuse/collect.h"
#include "pmcfuse/source.h"

static const char usage[] =
	"usage: pmcfuse run [-e EVENTS] [--strategy S] [--pmcs N] [--link EVENTS]\n"
	"                   [--packing best|greedy] [--keep DIR] [--resume DIR] [--seed N]\n"
	"                   [--launcher local|slurm [--slurm-args ARGS] [--wait]]\n"
	"                   [--program-output FILE|-] [-v] [--quiet] [--json]\n"
	"                   [-o OUT] (--sim SPEC | -- PROG ARGS)\n\n"
	"Plans the event sets (as `plan`), records one execution per set, and fuses\n"
	"them (as `combine`) into OUT. Progress goes to standard error: on a terminal\n"
	"one updating line; otherwise (a pipe, a Slurm log) one timestamped line per\n"
	"finished execution, e.g. '2026-11-24T10:00:03 pmcfuse run: exec 3/7 done in\n"
	"1.2 s (set 2), ~6 s left'. The summary says whether the executions agree (XUs\n"
	"per type, labels) and, if not, how.\n\n"
	"  -e, --events EVENTS  comma list, all, or @FILE. Default: all the events of a\n"
	"                       simulated machine; for a real program, duration and the\n"
	"                       perf software events this machine can count (`all` would\n"
	"                       be thousands of tracepoints)\n"
	"  --strategy S         {STRATEGIES} (default bc; oracle: --sim only, pairs by\n"
	"                       the truth; pmcfuse-combine(1) describes them)\n"
	"  --pmcs N             counter budget (default: the machine's own)\n"
	"  --link EVENTS        more linking events (bc family); auto: chosen by information\n"
	"                       in a simulated pilot (--sim; see pmcfuse plan --link auto)\n"
	"  --packing P          best (default) or greedy\n"
	"  --keep DIR           the campaign folder: keeps DIR/exec-K.pmcf and its manifest\n"
	"                       DIR/campaign.json (default: OUT.executions/, removed once\n"
	"                       OUT is written); a folder that holds a campaign or\n"
	"                       profiles is refused (resume it with --resume)\n"
	"  --resume DIR         finish the campaign in DIR: runs only the executions that\n"
	"                       are missing, failed or were stopped, then fuses; alone, it\n"
	"                       repeats the command stored in DIR/campaign.json; with the\n"
	"                       options, they must make the same plan\n"
	"  --launcher L         local (default): the executions run here, one after the\n"
	"                       other; slurm: submits an sbatch job array over the\n"
	"                       executions not done (task K runs `run --resume DIR\n"
	"                       --only K`) and a finishing job (`run --resume DIR`,\n"
	"                       --dependency=afterok) that writes OUT; scripts and logs\n"
	"                       in DIR/slurm/ (docs/slurm.md)\n"
	"  --slurm-args ARGS    more sbatch options, e.g. \"--partition=p --time=1:00:00\"\n"
	"  --wait               follow the jobs until OUT is written (else: prints the\n"
	"                       job ids and how to finish)\n"
	"  --only K             record execution K of the campaign in --resume DIR alone\n"
	"                       (what an array task runs; the manifest is locked)\n"
	"  --seed N             base seed: execution K of a simulation gets a seed derived\n"
	"                       from it (default: the seed= of SPEC, else 1); also the\n"
	"                       seed of the combination's random choices. The summary\n"
	"                       shows SPEC with this seed; -v lists the derived ones\n"
	"  --sim SPEC           a simulated workload (docs/simulation.md)\n"
	"  -- PROG ARGS         a real program, recorded as by `record -- PROG ARGS`\n"
	"  -o, --output OUT     the fused profile to write (atomically); default\n"
	"                       pmcfuse.pmcf, an existing one kept as pmcfuse.pmcf.old\n"
	"                       (as `record` and perf record's perf.data)\n"
	"  --program-output F   where the program's stdout and stderr go: - (default)\n"
	"                       pmcfuse's own (the program's stdout to pmcfuse's stderr\n"
	"                       with --json), relayed so that they never run into\n"
	"                       pmcfuse's lines; or FILE, appended, a header line per\n"
	"                       execution\n"
	"  -v, --verbose        also print internals: the seed of every execution, the\n"
	"                       BC grid's iterations and dmax\n"
	"  -q, --quiet          no progress and no summary: errors only\n"
	"  --json               the summary as one JSON object on stdout (output, source,\n"
	"                       seed, executions, lower_bound, seconds, agree, strategy,\n"
	"                       xus, events, match, ...)\n\n"
	"Each execution is written to the campaign folder as soon as it finishes. If\n"
	"one fails (an error, or the program crashed or exited non-zero), run stops,\n"
	"keeps the profiles recorded so far, the failed one too when the program ran\n"
	"(marked incomplete), and exits non-zero with one line naming the execution\n"
	"that failed. SIGINT, SIGTERM or SIGHUP stop the program (the signal is\n"
	"forwarded), keep what was recorded and exit 128+N with one line saying how to\n"
	"resume (docs/campaigns.md). The output and the folder are checked first.\n";

enum { OPT_KEEP = FUSE_OPT_OWN };

/* "exec-0..exec-K.pmcf kept in DIR[, the last one incomplete]; resume with ..." */
static const char *kept_text(char *buf, size_t len, const struct run *r, size_t nkeep, int last_incomplete)
{
	if (!nkeep)
		snprintf(buf, len, "no profile kept");
	else
		snprintf(buf, len, "%s%zu.pmcf kept in %s%s; resume with `pmcfuse run --resume %s`",
			 nkeep > 1 ? "exec-0..exec-" : "exec-", nkeep - 1, r->cdir,
			 last_incomplete ? ", the last one incomplete" : "", r->cdir);
	return buf;
}

/* The campaign folder (--resume, --keep, or OUT.executions of its own)
 * opened, and progress over the executions to record now. */
static int open_run(struct run *r, int argc, char **argv)
{
	if (!r->keep && !r->args.resume && asprintf(&r->owndir, "%s.executions", r->out) < 0) {
		r->owndir = NULL;
		return cli_error("run", CLI_EENV, "out of memory");
	}
	r->cdir = r->args.resume ? r->args.resume : r->keep ? r->keep : r->owndir;
	pmcf_campaign_opts o = PMCF_CAMPAIGN_OPTS_INIT;
	o.dir = r->cdir;
	o.plan = r->plan; /* its digest names the campaign */
	o.events = r->ev;
	o.plan_meta = o.keep_failed = o.hold = 1;
	int st = campaign_session_open(&r->s, &o, argc, argv);
	if (st || campaign_is_slurm(&r->args))
		return st;
	pmcf_campaign *c = r->s.camp;
	char own[4096];
	snprintf(own, sizeof(own), "%s.executions", r->out);
	r->own = !r->keep && !pmcf_campaign_is_task(c) && (!r->args.resume || cli_same_folder(r->cdir, own));
	size_t todo = 0;
	for (size_t k = 0; k < r->nsets; k++)
		todo += pmcf_campaign_is_task(c) ? k == (size_t)r->args.only
						 : !(r->args.resume && pmcf_campaign_is_done(c, k));
	campaign_session_progress(&r->s, r->nsets, todo);
	return CLI_OK;
}

/* Every execution not done (an array task: its own) recorded by the local
 * launcher; how it ended said: a failed execution, one that could not be
 * saved, a signal. */
static int record_runs(struct run *r)
{
	r->t0 = cli_now();
	r->res = (pmcf_campaign_result)PMCF_CAMPAIGN_RESULT_INIT;
	int err = campaign_session_run(&r->s, r->src, &r->res);
	const pmcf_campaign_result *x = &r->res;
	size_t k = x->at >= 0 ? (size_t)x->at : 0;
	char msg[1200], kept[512];
	for (size_t i = 0; i < r->nsets; i++)
		r->rec[i] = pmcf_campaign_profile(r->s.camp, i);
	if (err > 0) /* printed by this verb's own step */
		return err;
	if (x->signal)
		return run_stopped(r, !x->started ? k : x->err || x->kept ? k : k + 1, x->kept, r->own);
	if (!err)
		return CLI_OK;
	if (x->at < 0 || !x->started) /* before any execution: the environment check */
		return cli_lib_error("run", err, "run");
	if (x->saving) { /* a full disk, a size limit */
		run_lib_why(msg, sizeof(msg), err, pmcf_campaign_path(r->s.camp, k));
		pmcf_campaign_state_set(r->s.camp, "failed");
		return cli_error("run", cli_status_for(err),
				 "execution %zu of %zu could not be saved: %s (%s once there is room)", k,
				 r->nsets, msg,
				 k ? kept_text(kept, sizeof(kept), r, k, 0)
				   : (snprintf(kept, sizeof(kept),
					       "no profile kept; resume with `pmcfuse run --resume %s`",
					       r->cdir),
				      kept));
	}
	/* the program ran and failed: its incomplete profile is kept too */
	size_t nkeep = x->kept ? k + 1 : k;
	if (err == PMCF_EPROGRAM && x->message && x->message[0])
		snprintf(msg, sizeof(msg), "%s", x->message);
	else
		snprintf(msg, sizeof(msg), "%s", pmcf_errdetail()[0] ? pmcf_errdetail() : pmcf_strerror(err));
	kept_text(kept, sizeof(kept), r, nkeep, nkeep > k);
	if (!nkeep && r->own)
		pmcf_campaign_remove(r->s.camp);
	else
		pmcf_campaign_state_set(r->s.camp, "failed");
	return cli_error("run", err == PMCF_EPROGRAM ? CLI_EENV : cli_status_for(err),
			 "execution %zu of %zu failed: %s (%s)", k, r->nsets, msg, kept);
}

/* The whole pipeline after the command line: planned, recorded (or
 * submitted to Slurm), fused, summarised. */
static int run_pipeline(struct run *r, int argc, char **argv, int optind)
{
	campaign_session_init(&r->s, "run", &r->args);
	int st = run_plan(r, argc, argv, optind), task = 0;
	if (!st)
		st = open_run(r, argc, argv);
	if (!st && campaign_is_slurm(&r->args))
		st = campaign_session_slurm(&r->s);
	else if (!st) {
		task = pmcf_campaign_is_task(r->s.camp);
		st = record_runs(r);
	}
	long only = r->args.only;
	const char *path = task ? pmcf_campaign_path(r->s.camp, (size_t)only) : NULL;
	if (!st && task && r->args.json) {
		printf("{\"execution\": %ld, \"executions\": %zu, \"output\": ", only, r->nsets);
		cli_json_string(stdout, path);
		printf(", \"already_done\": %s}\n", r->res.reused ? "true" : "false");
	} else if (!st && task && !cli_quiet)
		printf("execution %ld of %zu: %s%s\n", only, r->nsets, path,
		       r->res.reused ? " (already done)" : "");
	else if (!st && !campaign_is_slurm(&r->args) && !task && !(st = run_fuse(r)))
		run_print_summary(r);
	campaign_session_close(&r->s);
	free(r->rec); /* the profiles were the campaign's */
	free(r->source);
	free(r->owndir);
	pmcf_profile_free(r->fused);
	pmcf_plan_free(r->plan);
	pmcf_evlist_free(r->ev);
	pmcf_evlist_free(r->lk);
	pmcf_source_free(r->src);
	return st;
}

int cmd_run(int argc, char **argv)
{
	static const char *verb = "run";
	if (cli_wants_help(argc, argv, usage))
		return CLI_OK;
	static const struct option longopts[] = {
		FUSE_PLAN_LONGOPTS,
		{"keep", required_argument, NULL, OPT_KEEP},
		CAMPAIGN_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	pmcf_plan_opts po = PMCF_PLAN_OPTS_INIT;
	struct run r = {.po = po, .args = CAMPAIGN_ARGS_INIT};
	int st = CLI_OK, c;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:e:o:vq", longopts, NULL)) != -1) {
		if (fuse_plan_option(verb, c, optarg, &r.po, &r.seed, &r.seed_given, &st) ||
		    campaign_option(verb, c, optarg, argv, optind, &r.args, &st) ||
		    cli_profile_option(verb, c, optarg, &r.events, &r.out, &st)) {
			if (st)
				return st;
			continue;
		}
		switch (c) {
		case FUSE_OPT_LINK: r.link = optarg; break;
		case OPT_KEEP: r.keep = optarg; break;
		case FUSE_OPT_SIM: r.sim = optarg; break;
		case ':': return cli_usage_error(verb, "%s needs a value", argv[optind - 1]);
		default: return cli_usage_error(verb, "unknown option '%s'", argv[optind - 1]);
		}
	}
	static const char *const diropts[] = {"--keep", NULL};
	if (campaign_args_done(verb, &r.args, argc, optind, diropts, cmd_run, &st))
		return st;
	if ((r.dflt = !r.out))
		r.out = CLI_DEFAULT_OUT; /* as record and combine */
	if (r.args.resume && r.keep && !cli_same_folder(r.args.resume, r.keep))
		return cli_usage_error(verb, "--resume %s and --keep %s name two folders", r.args.resume,
				       r.keep);
	if (r.sim && optind < argc)
		return cli_usage_error(verb, "give either --sim SPEC or -- PROG ARGS, not both");
	if (!r.sim && optind >= argc)
		return cli_usage_error(verb, "missing the source: --sim SPEC or -- PROG ARGS");
	if (r.sim && r.args.progout)
		return cli_usage_error(verb, "--program-output is for a program (-- PROG ARGS), not --sim");
	if (r.link && !pmcf_strategy_ordered(r.po.strategy))
		return cli_usage_error(verb, "--link is for the bc family, not %s",
				       pmcf_strategy_name(r.po.strategy));
	return run_pipeline(&r, argc, argv, optind);
}
