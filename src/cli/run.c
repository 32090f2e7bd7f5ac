/* `pmcfuse run`: plan the executions, record each one, fuse them, and
 * summarise — the whole pipeline of docs/fusion.md in one command. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "cli/campaign.h"
#include "cli/cli.h"
#include "cli/fuse.h"
#include "cli/launcher.h"
#include "cli/output.h"
#include "cli/record_program.h"
#include "pmcfuse/collect.h"
#include "pmcfuse/sim.h"
#include "pmcfuse/source.h"

static const char usage[] =
	"usage: pmcfuse run [-e EVENTS] [--strategy S] [--pmcs N] [--link EVENTS]\n"
	"                   [--packing best|greedy] [--keep DIR] [--resume DIR] [--seed N]\n"
	"                   [--launcher local|slurm [--slurm-args ARGS] [--wait]]\n"
	"                   [--program-output FILE|-] [-v] [--quiet] [--json]\n"
	"                   -o OUT (--sim SPEC | -- PROG ARGS)\n\n"
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
	"  --strategy S         ctc, lgl, bc (default), bc-unlabeled, random, match\n"
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
	"  -o, --output OUT     the fused profile to write (atomically)\n"
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

enum { OPT_KEEP = FUSE_OPT_OWN, OPT_RESUME, OPT_PROGOUT };

/* "set K: a,b,c" (duration left out, cut with "...") for the progress line */
static void set_text(char *buf, size_t len, size_t k, const char *const *ev, size_t nev)
{
	size_t o = (size_t)snprintf(buf, len, "set %zu:", k);
	for (size_t i = 1; i < nev && o + 4 < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i > 1 ? "," : " ", ev[i]);
	if (o >= len - 4)
		strcpy(buf + len - 4, "...");
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Labels of p, sorted (malloc'ed array of pointers owned by p). */
static const char **sorted_labels(const pmcf_profile *p)
{
	size_t n = pmcf_profile_nxus(p);
	const char **l = malloc((n ? n : 1) * sizeof(*l));
	if (!l)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		pmcf_xu xu;
		pmcf_profile_xu_get(p, i, &xu);
		l[i] = xu.label;
	}
	qsort(l, n, sizeof(*l), cmp_str);
	return l;
}

/* XUs of type name in p. */
static size_t type_count(const pmcf_profile *p, const char *name)
{
	size_t n = 0;
	for (size_t i = 0; i < pmcf_profile_nxus(p); i++) {
		pmcf_xu xu;
		pmcf_xu_type ty;
		pmcf_profile_xu_get(p, i, &xu);
		if (pmcf_profile_type_get(p, xu.type, &ty) == 0 && strcmp(ty.name, name) == 0)
			n++;
	}
	return n;
}

/* Do the executions agree with the first: the same XUs per type and the
 * same labels (a program's executions should; fuse-openmp §3)? Prints one
 * line if they do, else one per execution that differs. */
static size_t print_agreement(FILE *f, pmcf_profile *const *rec, size_t n, const char *how)
{
	const char **l0 = sorted_labels(rec[0]);
	size_t n0 = pmcf_profile_nxus(rec[0]), differ = 0;
	if (!l0)
		return 0;
	for (size_t k = 1; k < n; k++) {
		char line[512];
		size_t o = 0, nk = pmcf_profile_nxus(rec[k]);
		line[0] = '\0';
		/* XUs per type, over the types of both */
		for (int side = 0; side < 2; side++) {
			const pmcf_profile *p = side ? rec[0] : rec[k];
			for (uint32_t t = 0; t < pmcf_profile_ntypes(p); t++) {
				pmcf_xu_type ty;
				pmcf_profile_type_get(p, t, &ty);
				size_t a = type_count(rec[k], ty.name), b = type_count(rec[0], ty.name);
				if (a == b || (side && a) || o + 80 > sizeof(line))
					continue; /* side 1: only types absent from execution k */
				o += (size_t)snprintf(line + o, sizeof(line) - o,
						      "%s%zu %s XUs (execution 0: %zu)", o ? ", " : "", a,
						      ty.name, b);
			}
		}
		/* labels: a merge of the two sorted lists */
		const char **lk = sorted_labels(rec[k]);
		size_t missing = 0, extra = 0;
		const char *ex_missing = NULL, *ex_extra = NULL;
		for (size_t i = 0, j = 0; lk && (i < n0 || j < nk);) {
			int c = i == n0 ? 1 : j == nk ? -1 : strcmp(l0[i], lk[j]);
			if (c < 0) {
				ex_missing = ex_missing ? ex_missing : l0[i];
				missing++;
				i++;
			} else if (c > 0) {
				ex_extra = ex_extra ? ex_extra : lk[j];
				extra++;
				j++;
			} else {
				i++;
				j++;
			}
		}
		if (missing || extra)
			snprintf(line + o, sizeof(line) - o,
				 "%s%zu labels of execution 0 missing%s%s%s, %zu extra%s%s%s", o ? "; " : "",
				 missing, missing ? " (e.g. " : "", missing ? ex_missing : "",
				 missing ? ")" : "", extra, extra ? " (e.g. " : "", extra ? ex_extra : "",
				 extra ? ")" : "");
		free(lk);
		if (!line[0] || (differ++, !f))
			continue;
		if (differ == 1)
			fprintf(f, "executions differ from execution 0 (%zu XUs):\n", n0);
		fprintf(f, "  execution %zu: %zu XUs: %s\n", k, nk, line);
	}
	if (!f)
		;
	else if (!differ)
		fprintf(f, "executions agree: %zu XUs each%s%s%s, same types and labels\n", n0,
			how ? " (" : "", how ? how : "", how ? ")" : "");
	else
		fprintf(f, "  (ctc and bc keep the largest count per type, the XUs without a "
			   "partner flagged partial; lgl keeps the labels present in every execution)\n");
	free(l0);
	return differ;
}

/* "exec-0..exec-K.pmcf kept in DIR[, the last one incomplete]" */
static void kept_text(char *buf, size_t len, const struct campaign *c, size_t nkeep, int last_incomplete)
{
	if (!nkeep)
		snprintf(buf, len, "no profile kept");
	else
		snprintf(buf, len, "%s%zu.pmcf kept in %s%s; resume with `pmcfuse run --resume %s`",
			 nkeep > 1 ? "exec-0..exec-" : "exec-", nkeep - 1, c->dir,
			 last_incomplete ? ", the last one incomplete" : "", c->dir);
}

/* A signal stopped the campaign with done executions complete (and the one
 * it stopped kept, incomplete, when partial): says what is kept and how to
 * resume; returns 128 + the signal. A folder of the run's own that keeps
 * nothing is removed. */
static int run_stopped(const char *verb, struct campaign *c, size_t done, int partial, size_t nsets, int own,
		       struct cli_progress *pr)
{
	cli_progress_clear(pr);
	if (!done && !partial && own) {
		campaign_remove(c);
		return cli_interrupted(verb, "no execution had finished; nothing kept");
	}
	campaign_set_state(c, "interrupted");
	return cli_interrupted(verb,
			       "%zu of %zu executions complete%s, kept in %s; resume with "
			       "`pmcfuse run --resume %s`",
			       done, nsets, partial ? " (the stopped one kept, marked incomplete)" : "",
			       c->dir, c->dir);
}

/* Loads execution k of an earlier session when the manifest says it
 * finished and its file is that execution of this plan (1). */
static int reuse_execution(const struct campaign *c, size_t k, const struct cli_plan_meta *pm,
			   pmcf_profile **p)
{
	char path[4096];
	if (!campaign_is_done(c, k, path, sizeof(path)) || pmcf_profile_open(path, p) != 0)
		return 0;
	const char *d = pmcf_profile_meta_get(*p, PMCF_META_PLAN_DIGEST);
	const char *s = pmcf_profile_meta_get(*p, PMCF_META_PLAN_SET);
	const char *done = pmcf_profile_meta_get(*p, PMCF_META_COMPLETE);
	char set[24];
	snprintf(set, sizeof(set), "%zu", pm->set);
	if (d && s && !strcmp(d, pm->digest) && !strcmp(s, set) && !(done && !strcmp(done, "0")))
		return 1;
	pmcf_profile_free(*p);
	*p = NULL;
	return 0;
}

/* Whether the campaign folder is the OUT.executions of a run without --keep. */
static int owns_folder(const struct campaign *c, const char *out)
{
	char own[4096];
	snprintf(own, sizeof(own), "%s.executions", out);
	return cli_same_folder(c->dir, own);
}

int cmd_run(int argc, char **argv)
{
	static const char *verb = "run";
	if (cli_wants_help(argc, argv, usage))
		return CLI_OK;
	static const struct option longopts[] = {
		FUSE_PLAN_LONGOPTS,
		{"keep", required_argument, NULL, OPT_KEEP},
		{"resume", required_argument, NULL, OPT_RESUME},
		LAUNCH_LONGOPTS,
		{"program-output", required_argument, NULL, OPT_PROGOUT},
		CLI_OUTPUT_LONGOPTS,
		CLI_JSON_LONGOPT,
		{NULL, 0, NULL, 0},
	};
	const char *events = NULL, *out = NULL, *link = NULL, *keep = NULL, *sim = NULL, *resume = NULL,
		   *progout = NULL;
	int json = 0;
	pmcf_plan_opts po = PMCF_PLAN_OPTS_INIT;
	unsigned long seed = 0;
	int seed_given = 0, st = CLI_OK, c;
	struct launch launch = LAUNCH_INIT;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:e:o:vq", longopts, NULL)) != -1) {
		if (fuse_plan_option(verb, c, optarg, &po, &seed, &seed_given, &st)) {
			if (st)
				return st;
			continue;
		}
		if (launch_option(verb, c, optarg, argv, optind, &launch, &st)) {
			if (st)
				return st;
			continue;
		}
		if (cli_output_option(c, &json))
			continue;
		switch (c) {
		case 'e': events = optarg; break;
		case 'o':
			if (cli_out_arg(verb, optarg, "a profile"))
				return CLI_EUSAGE;
			out = optarg;
			break;
		case FUSE_OPT_LINK: link = optarg; break;
		case OPT_KEEP: keep = optarg; break;
		case OPT_RESUME: resume = optarg; break;
		case OPT_PROGOUT: progout = optarg; break;
		case FUSE_OPT_SIM: sim = optarg; break;
		case ':': return cli_usage_error(verb, "%s needs a value", argv[optind - 1]);
		default: return cli_usage_error(verb, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if ((st = launch_check(verb, &launch, resume)))
		return st;
	if (resume && optind >= argc && argc - launch.nwords <= 3) /* --resume DIR alone */
		return campaign_resume_alone(verb, resume, launch.nwords, launch.words, cmd_run);
	if (!out)
		return cli_usage_error(verb, "missing -o OUT");
	if (resume && keep && !cli_same_folder(resume, keep))
		return cli_usage_error(verb, "--resume %s and --keep %s name two folders", resume, keep);
	if (sim && optind < argc)
		return cli_usage_error(verb, "give either --sim SPEC or -- PROG ARGS, not both");
	if (!sim && optind >= argc)
		return cli_usage_error(verb, "missing the source: --sim SPEC or -- PROG ARGS");
	if (sim && progout)
		return cli_usage_error(verb, "--program-output is for a program (-- PROG ARGS), "
					     "not --sim");
	if (link && !pmcf_strategy_ordered(po.strategy))
		return cli_usage_error(verb, "--link is for the bc family, not %s",
				       pmcf_strategy_name(po.strategy));
	pmcf_source *src = NULL;
	const pmcf_catalog *cat = NULL;
	pmcf_evlist *ev = NULL, *lk = NULL;
	pmcf_plan *plan = NULL;
	pmcf_profile **rec = NULL, *fused = NULL;
	char **paths = NULL, *owndir = NULL, **command = NULL, *source = NULL;
	uint64_t *seeds = NULL;
	struct cli_progress pr;
	struct cli_progout pout;
	cli_progress_begin(&pr, verb, 0, 0);
	cli_progout_init(&pout, json, &pr);
	const char *cdir = NULL;
	struct campaign camp = {0};
	size_t nsets = 0;
	pmcf_source_opts so = PMCF_SOURCE_OPTS_INIT;
	so.pmcs = po.pmcs;
	int err = sim ? pmcf_source_new_sim(sim, &so, &src)
		      : pmcf_source_new_program(argc - optind, argv + optind, &so, NULL, &src);
	if (err) {
		st = cli_lib_error(verb, err, sim ? sim : "program");
		goto out;
	}
	/* the events (default: the source's), resolved once for the planner and
	 * every recording */
	if ((err = pmcf_source_events(src, events, &ev)) ||
	    (link && strcmp(link, "auto") && (err = pmcf_source_events(src, link, &lk))) ||
	    (err = pmcf_source_catalog(src, &cat))) {
		st = cli_lib_error(verb, err, "events");
		goto out;
	}
	if (lk) {
		po.link = pmcf_evlist_names(lk);
		po.nlink = pmcf_evlist_size(lk);
	}
	po.groups = pmcf_evlist_groups(ev);
	if (link && !strcmp(link, "auto")) { /* --link auto: a pilot (docs/fusion.md) */
		if ((st = fuse_link_auto_plan(verb, cat, ev, NULL, sim, seed_given ? seed : 1, &po, &plan)))
			goto out;
	} else if ((err = pmcf_plan_make(cat, pmcf_evlist_names(ev), pmcf_evlist_size(ev), &po, &plan)) ||
		   (lk && (err = pmcf_evlist_append(ev, lk)))) { /* ev: every event of a set */
		st = cli_lib_error(verb, err, "planning");
		goto out;
	}
	nsets = pmcf_plan_nsets(plan);
	uint64_t base = seed_given ? seed : pmcf_source_seed(src);
	rec = calloc(nsets, sizeof(*rec));
	paths = calloc(nsets, sizeof(*paths));
	seeds = calloc(nsets, sizeof(*seeds));
	/* the source as the user gave it, with the base seed (not an execution's) */
	pmcf_source_set_seed(src, base);
	source = strdup(pmcf_source_name(src));
	if (!rec || !paths || !seeds || !source) {
		st = cli_error(verb, CLI_EENV, "out of memory");
		goto out;
	}
	/* the plan with its source and seed: its digest names the campaign */
	if ((err = pmcf_source_to_plan(src, plan))) {
		st = cli_lib_error(verb, err, "planning");
		goto out;
	}
	char digest[65];
	if ((st = cli_plan_digest(verb, plan, digest)) || (st = cli_check_output(verb, out)))
		goto out;
	if (!keep && !resume) {
		size_t len = strlen(out) + 16;
		if (!(owndir = malloc(len))) {
			st = cli_error(verb, CLI_EENV, "out of memory");
			goto out;
		}
		snprintf(owndir, len, "%s.executions", out);
	}
	cdir = resume ? resume : keep ? keep : owndir;
	if (launch.only >= (long)nsets) {
		st = cli_usage_error(verb, "--only %ld: the campaign has executions 0 to %zu", launch.only,
				     nsets - 1);
		goto out;
	}
	int ncommand = 0;
	if (!(command = launch_command(&launch, argc, argv, 1, &ncommand))) {
		st = cli_error(verb, CLI_EENV, "out of memory");
		goto out;
	}
	if (!sim && (st = cli_progout_open(verb, progout, json, &pr, &pout)))
		goto out;
	cli_signals_catch();
	if ((st = campaign_open(verb, cdir, resume != NULL, digest, nsets, ncommand, command, &camp)))
		goto out;
	camp.task = launch.only >= 0;
	if (launch.slurm) {
		st = launch_slurm(verb, &camp, nsets, &launch);
		goto out;
	}
	int own = !keep && !camp.task && (!resume || owns_folder(&camp, out));
	size_t todo = 0;
	for (size_t k = 0; k < nsets; k++) {
		char done[4096];
		todo += camp.task ? k == (size_t)launch.only
				  : !(resume && campaign_is_done(&camp, k, done, sizeof(done)));
	}
	cli_progress_begin(&pr, verb, nsets, todo);
	if (camp.task) /* an array task prints its one line at the end */
		cli_progress_silence(&pr);
	double t0 = cli_now();
	const char *how = NULL; /* how the program was observed */
	size_t reused = 0;
	for (size_t k = 0; k < nsets; k++) {
		const char *const *names;
		size_t m;
		pmcf_exit_info ei;
		ei.message[0] = '\0';
		pmcf_plan_set_events(plan, k, &names, &m);
		size_t len = strlen(cdir) + 32;
		if (!(paths[k] = malloc(len))) {
			st = cli_error(verb, CLI_EENV, "out of memory");
			goto out;
		}
		snprintf(paths[k], len, "%s/exec-%zu.pmcf", cdir, k);
		if (camp.task && k != (size_t)launch.only)
			continue; /* an array task records its own execution */
		struct cli_plan_meta pm = {.digest = digest, .set = k, .nsets = nsets};
		if (resume && reuse_execution(&camp, k, &pm, &rec[k])) {
			reused++;
			continue;
		}
		if (cli_signal_caught()) {
			st = run_stopped(verb, &camp, k, 0, nsets, own, &pr);
			goto out;
		}
		char what[160], setk[32];
		set_text(what, sizeof(what), k, names, m);
		snprintf(setk, sizeof(setk), "set %zu", k);
		cli_progress_start(&pr, k, what);
		double tk = cli_now();
		struct campaign_exec ce = {.file = paths[k] + strlen(cdir) + 1,
					   .set = k,
					   .repeat = -1,
					   .started = time(NULL)};
		pmcf_evlist *set = NULL;
		if ((err = pmcf_evlist_subset(ev, names, m, &set))) {
			st = cli_lib_error(verb, err, "planning");
			goto out;
		}
		if (sim) {
			ce.has_seed = 1;
			ce.seed = seeds[k] = pmcf_source_exec_seed(src, (long)k);
			err = pmcf_source_record(src, set, (long)k, &rec[k], &ei);
		} else {
			char head[256], stamp[32];
			int ofd, efd;
			cli_stamp(stamp);
			snprintf(head, sizeof(head), "==> pmcfuse run: exec %zu/%zu (set %zu), %s <==\n",
				 k + 1, nsets, k, stamp);
			if ((st = cli_progout_begin(verb, &pout, head, &ofd, &efd))) {
				pmcf_evlist_free(set);
				goto out;
			}
			pmcf_source_set_output(src, ofd, efd);
			err = pmcf_source_record(src, set, (long)k, &rec[k], &ei);
			cli_progout_end(&pout);
			how = cli_collect_how(&ei);
		}
		pmcf_evlist_free(set);
		ce.finished = time(NULL);
		/* a simulated execution always finishes; a program may have been stopped */
		int sig = cli_signal_caught(), stopped = sig && !sim && rec[k];
		char exitst[32] = "";
		if (!sim && (!err || err == PMCF_EPROGRAM))
			snprintf(exitst, sizeof(exitst), ei.exited ? "%d" : "signal %d",
				 ei.exited ? ei.status : ei.signal);
		ce.exit = exitst;
		ce.status = stopped ? "interrupted" : err ? "failed" : "ok";
		/* what the program left is kept: complete, or marked incomplete */
		int serr = 0;
		if (rec[k]) {
			serr = cli_plan_meta_apply(rec[k], &pm);
			if (!serr && stopped)
				serr = pmcf_profile_meta_set(rec[k], PMCF_META_COMPLETE, "0");
			if (!serr)
				serr = pmcf_profile_save(rec[k], paths[k]);
			if (serr) {
				cli_progress_clear(&pr);
				st = cli_lib_error(verb, serr, paths[k]);
				goto out;
			}
			if ((st = campaign_update(&camp, k, &ce)))
				goto out;
		}
		if (sig) {
			st = run_stopped(verb, &camp, err || stopped ? k : k + 1, stopped, nsets, own, &pr);
			goto out;
		}
		if (err) {
			cli_progress_clear(&pr);
			/* the program ran and failed: its incomplete profile is kept too */
			size_t nkeep = err == PMCF_EPROGRAM && rec[k] ? k + 1 : k;
			char msg[600];
			if (err == PMCF_EPROGRAM && ei.message[0])
				snprintf(msg, sizeof(msg), "%s", ei.message);
			else
				snprintf(msg, sizeof(msg), "%s",
					 pmcf_errdetail()[0] ? pmcf_errdetail() : pmcf_strerror(err));
			char kept[512];
			kept_text(kept, sizeof(kept), &camp, nkeep, nkeep > k);
			if (!nkeep && own)
				campaign_remove(&camp);
			else
				campaign_set_state(&camp, "failed");
			st = cli_error(verb, err == PMCF_EPROGRAM ? CLI_EENV : cli_status_for(err),
				       "execution %zu of %zu failed: %s (%s)", k, nsets, msg, kept);
			goto out;
		}
		cli_progress_done(&pr, k, setk, cli_now() - tk);
	}
	cli_progress_clear(&pr);
	if (camp.task) {
		if (!cli_quiet)
			printf("execution %ld of %zu: %s%s\n", launch.only, nsets, paths[launch.only],
			       reused ? " (already done)" : "");
		goto out;
	}
	for (size_t k = 0; k < nsets && own; k++)
		snprintf(paths[k], strlen(cdir) + 32, "execution %zu", k);
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
	/* a folder of this run's own is removed; one named by the user stays */
	if (own)
		campaign_remove(&camp);
	else
		campaign_set_state(&camp, "complete");
	double secs = cli_now() - t0;
	if (json) {
		printf("{\"output\": ");
		cli_json_string(stdout, out);
		printf(", \"source\": ");
		cli_json_string(stdout, source);
		printf(", \"seed\": %llu", (unsigned long long)base);
		if (sim) {
			printf(", \"execution_seeds\": [");
			for (size_t k = 0; k < nsets; k++)
				printf("%s%llu", k ? ", " : "", (unsigned long long)seeds[k]);
			printf("]");
		}
		printf(", \"executions\": %zu, \"lower_bound\": %u, \"resumed\": %zu", nsets,
		       pmcf_plan_lower_bound(plan), reused);
		cli_json_member(stdout, "seconds", secs);
		printf(", \"agree\": %s, ",
		       nsets < 2 || !print_agreement(NULL, rec, nsets, how) ? "true" : "false");
		fuse_json_summary(stdout, fused, &cs, po.strategy, nsets);
		printf("}\n");
	} else if (!cli_quiet) {
		if (reused)
			printf("resumed %s: %zu of %zu executions were already done\n", cdir, reused, nsets);
		printf("%zu executions of %s (lower bound %u) in %.2fs\n", nsets, source,
		       pmcf_plan_lower_bound(plan), secs);
		if (sim && cli_verbose) {
			printf("execution seeds (derived from seed %llu):", (unsigned long long)base);
			for (size_t k = 0; k < nsets; k++)
				printf(" %llu", (unsigned long long)seeds[k]);
			printf("\n");
		}
		if (nsets > 1)
			print_agreement(stdout, rec, nsets, how);
		fuse_print_summary(stdout, fused, &cs, po.strategy, nsets);
		printf("wrote %s\n", out);
	}
out:
	cli_progress_clear(&pr);
	cli_progout_close(&pout);
	for (size_t k = 0; k < nsets; k++) {
		if (rec)
			pmcf_profile_free(rec[k]);
		if (paths)
			free(paths[k]);
	}
	free(rec);
	free(paths);
	free(seeds);
	free(source);
	free(owndir);
	free(command);
	campaign_close(&camp);
	pmcf_profile_free(fused);
	pmcf_plan_free(plan);
	pmcf_evlist_free(ev);
	pmcf_evlist_free(lk);
	pmcf_source_free(src);
	return st;
}
