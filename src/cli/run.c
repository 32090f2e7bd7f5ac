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

enum { OPT_KEEP = FUSE_OPT_OWN };

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

/* What the library said of err on path (its detail, else "path: reason"). */
static void lib_why(char *buf, size_t len, int err, const char *path)
{
	const char *d = pmcf_errdetail();
	if (d && d[0])
		snprintf(buf, len, "%s", d);
	else
		snprintf(buf, len, "%s: %s", path, pmcf_strerror(err));
}

/* "no profile kept; resume with `pmcfuse run --resume DIR`" */
static const char *kept_resume(char *buf, size_t len, const struct campaign *c)
{
	snprintf(buf, len, "no profile kept; resume with `pmcfuse run --resume %s`", c->dir);
	return buf;
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

struct run {
	/* the command line */
	const char *events, *out, *link, *keep, *sim;
	pmcf_plan_opts po;
	unsigned long seed;
	int seed_given;
	struct campaign_args args;
	/* the campaign */
	struct campaign_session s;
	pmcf_source *src;
	pmcf_evlist *ev, *lk;
	pmcf_plan *plan;
	size_t nsets, reused;
	uint64_t base, *seeds;
	char digest[65], **paths, *owndir, *source;
	const char *cdir, *how; /* how: how the program was observed */
	int own;
	double t0;
	pmcf_profile **rec, *fused;
	pmcf_combine_stats cs;
};

/* The source, the events (default: the source's, resolved once for the
 * planner and every recording) and the plan, whose digest names the
 * campaign; the output checked. */
static int plan_run(struct run *r, int argc, char **argv, int optind)
{
	const char *verb = "run";
	pmcf_source_opts so = PMCF_SOURCE_OPTS_INIT;
	so.pmcs = r->po.pmcs;
	int st, err = r->sim ? pmcf_source_new_sim(r->sim, &so, &r->src)
			     : pmcf_source_new_program(argc - optind, argv + optind, &so, NULL, &r->src);
	if (err)
		return cli_lib_error(verb, err, r->sim ? r->sim : "program");
	int autolink = r->link && !strcmp(r->link, "auto");
	if ((err = pmcf_source_events(r->src, r->events, &r->ev)) ||
	    (r->link && !autolink && (err = pmcf_source_events(r->src, r->link, &r->lk))))
		return cli_lib_error(verb, err, "events");
	char note[768];
	if (cli_user_only_note(r->ev, note, sizeof(note)) ||
	    (r->lk && cli_user_only_note(r->lk, note, sizeof(note))))
		cli_error(verb, CLI_OK, "%s", note);
	/* the linking events and the {…} groups come from the resolved lists */
	if (autolink) { /* --link auto: a pilot (docs/fusion.md) */
		if ((st = fuse_link_auto_plan(verb, r->ev, NULL, r->sim ? r->src : NULL,
					      r->seed_given ? r->seed : 1, &r->po, &r->plan)))
			return st;
	} else if ((err = pmcf_plan_make_evlist(r->ev, r->lk, &r->po, &r->plan)) ||
		   (r->lk && (err = pmcf_evlist_append(r->ev, r->lk)))) { /* ev: every event of a set */
		return cli_lib_error(verb, err, "planning");
	}
	r->nsets = pmcf_plan_nsets(r->plan);
	r->base = r->seed_given ? r->seed : pmcf_source_seed(r->src);
	r->rec = calloc(r->nsets, sizeof(*r->rec));
	r->paths = calloc(r->nsets, sizeof(*r->paths));
	r->seeds = calloc(r->nsets, sizeof(*r->seeds));
	/* the source as the user gave it, with the base seed (not an execution's) */
	pmcf_source_set_seed(r->src, r->base);
	r->source = strdup(pmcf_source_name(r->src));
	if (!r->rec || !r->paths || !r->seeds || !r->source)
		return cli_error(verb, CLI_EENV, "out of memory");
	/* the plan with its source and seed: its digest names the campaign */
	if ((err = pmcf_source_to_plan(r->src, r->plan)))
		return cli_lib_error(verb, err, "planning");
	if ((st = cli_plan_digest(verb, r->plan, r->digest)) || (st = cli_check_output(verb, r->out)))
		return st;
	return CLI_OK;
}

/* The campaign folder (--resume, --keep, or OUT.executions of its own)
 * opened, the executions' paths, and how many to record now. */
static int open_run(struct run *r, int argc, char **argv)
{
	if (!r->keep && !r->args.resume) {
		size_t len = strlen(r->out) + 16;
		if (!(r->owndir = malloc(len)))
			return cli_error("run", CLI_EENV, "out of memory");
		snprintf(r->owndir, len, "%s.executions", r->out);
	}
	r->cdir = r->args.resume ? r->args.resume : r->keep ? r->keep : r->owndir;
	int st = campaign_session_open(&r->s, r->src, r->cdir, r->digest, r->nsets, argc, argv);
	if (st || r->args.launch.slurm)
		return st;
	struct campaign *c = &r->s.camp;
	r->own = !r->keep && !c->task && (!r->args.resume || owns_folder(c, r->out));
	size_t todo = 0, len = strlen(r->cdir) + 32;
	for (size_t k = 0; k < r->nsets; k++) {
		char done[4096];
		todo += c->task ? k == (size_t)r->args.launch.only
				: !(r->args.resume && campaign_is_done(c, k, done, sizeof(done)));
		if (!(r->paths[k] = malloc(len)))
			return cli_error("run", CLI_EENV, "out of memory");
		snprintf(r->paths[k], len, "%s/exec-%zu.pmcf", r->cdir, k);
	}
	campaign_session_progress(&r->s, r->nsets, todo);
	return CLI_OK;
}

/* Execution k failed with err: says which, and what is kept. */
static int execution_failed(struct run *r, size_t k, int err, const pmcf_exit_info *ei)
{
	cli_progress_clear(&r->s.pr);
	/* the program ran and failed: its incomplete profile is kept too */
	size_t nkeep = err == PMCF_EPROGRAM && r->rec[k] ? k + 1 : k;
	char msg[600], kept[512];
	if (err == PMCF_EPROGRAM && ei->message[0])
		snprintf(msg, sizeof(msg), "%s", ei->message);
	else
		snprintf(msg, sizeof(msg), "%s", pmcf_errdetail()[0] ? pmcf_errdetail() : pmcf_strerror(err));
	kept_text(kept, sizeof(kept), &r->s.camp, nkeep, nkeep > k);
	if (!nkeep && r->own)
		campaign_remove(&r->s.camp);
	else
		campaign_set_state(&r->s.camp, "failed");
	return cli_error("run", err == PMCF_EPROGRAM ? CLI_EENV : cli_status_for(err),
			 "execution %zu of %zu failed: %s (%s)", k, r->nsets, msg, kept);
}

/* Execution k's profile could not be saved at path (err: a full disk, a
 * size limit): the campaign is marked failed and the line says what is kept
 * and how to resume once there is room. */
static int save_failed(struct run *r, size_t k, int err, const char *path)
{
	char kept[512], why[1200];
	cli_progress_clear(&r->s.pr);
	lib_why(why, sizeof(why), err, path);
	campaign_set_state(&r->s.camp, "failed");
	kept_text(kept, sizeof(kept), &r->s.camp, k, 0);
	return cli_error("run", cli_status_for(err),
			 "execution %zu of %zu could not be saved: %s (%s once there is room)", k, r->nsets,
			 why, k ? kept : kept_resume(kept, sizeof(kept), &r->s.camp));
}

/* Records execution k (set k of the plan) and keeps what the program left:
 * complete, or marked incomplete. *stop: the campaign ends here. */
static int record_run(struct run *r, size_t k, const struct cli_plan_meta *pm, int *stop)
{
	const char *const *names;
	size_t m;
	pmcf_plan_set_events(r->plan, k, &names, &m);
	char what[160], setk[32], exitst[32];
	set_text(what, sizeof(what), k, names, m);
	snprintf(setk, sizeof(setk), "set %zu", k);
	cli_progress_start(&r->s.pr, k, what);
	double tk = cli_now();
	struct campaign_exec ce = {.file = r->paths[k] + strlen(r->cdir) + 1,
				   .set = k,
				   .repeat = -1,
				   .started = time(NULL)};
	pmcf_exit_info ei;
	int sim = r->sim != NULL, err, serr = 0;
	int st = campaign_session_record(&r->s, k, r->nsets, setk, r->ev, names, m, &r->rec[k], &ei, &ce,
					 exitst, &err);
	*stop = 1;
	if (st)
		return st;
	r->seeds[k] = ce.seed;
	if (!sim)
		r->how = cli_collect_how(&ei);
	/* a simulated execution always finishes; a program may have been stopped */
	int sig = cli_signal_caught(), stopped = sig && !sim && r->rec[k];
	ce.status = stopped ? "interrupted" : err ? "failed" : "ok";
	if (r->rec[k]) {
		serr = cli_plan_meta_apply(r->rec[k], pm);
		if (!serr && stopped)
			serr = pmcf_profile_meta_set(r->rec[k], PMCF_META_COMPLETE, "0");
		if (!serr)
			serr = pmcf_profile_save(r->rec[k], r->paths[k]);
		if (serr)
			return save_failed(r, k, serr, r->paths[k]);
		if ((st = campaign_update(&r->s.camp, k, &ce)))
			return st;
	}
	if (sig)
		return run_stopped("run", &r->s.camp, err || stopped ? k : k + 1, stopped, r->nsets, r->own,
				   &r->s.pr);
	if (err)
		return execution_failed(r, k, err, &ei);
	cli_progress_done(&r->s.pr, k, setk, cli_now() - tk);
	*stop = 0;
	return CLI_OK;
}

/* Before recording anything on resume: the executions done ran with this
 * OMP_* environment (else combine would refuse them at the end, with the
 * new executions already recorded and the campaign stuck). */
static int resume_env_check(struct run *r)
{
	char path[4096];
	pmcf_profile *p = NULL;
	for (size_t k = 0; k < r->nsets && !p; k++)
		if (campaign_is_done(&r->s.camp, k, path, sizeof(path)) && pmcf_profile_open(path, &p) != 0)
			p = NULL;
	const char *was = p ? pmcf_profile_meta_get(p, "omp_env") : NULL;
	char *now = was ? pmcf_collect_omp_env() : NULL;
	int st = CLI_OK;
	if (was && now && strcmp(was, now) != 0)
		st = cli_error("run", CLI_EUSAGE,
			       "the campaign's executions ran with the OpenMP environment %s, this one is "
			       "%s: resume with the same OMP_* variables (combine would refuse to fuse "
			       "them)",
			       was, now);
	free(now);
	pmcf_profile_free(p);
	return st;
}

/* Every execution not done (an array task: its own), resumed ones reused. */
static int record_runs(struct run *r)
{
	int st = CLI_OK, stop = 0;
	if (r->args.resume && !r->sim && (st = resume_env_check(r)) != CLI_OK)
		return st;
	r->t0 = cli_now();
	for (size_t k = 0; k < r->nsets && !stop; k++) {
		if (r->s.camp.task && k != (size_t)r->args.launch.only)
			continue; /* an array task records its own execution */
		struct cli_plan_meta pm = {.digest = r->digest, .set = k, .nsets = r->nsets};
		if (r->args.resume && reuse_execution(&r->s.camp, k, &pm, &r->rec[k])) {
			r->reused++;
			continue;
		}
		if (cli_signal_caught())
			return run_stopped("run", &r->s.camp, k, 0, r->nsets, r->own, &r->s.pr);
		st = record_run(r, k, &pm, &stop);
	}
	cli_progress_clear(&r->s.pr);
	return st;
}

/* The executions fused into OUT; a folder of this run's own is removed,
 * one named by the user stays. */
static int fuse_run(struct run *r)
{
	for (size_t k = 0; k < r->nsets && r->own; k++)
		snprintf(r->paths[k], strlen(r->cdir) + 32, "execution %zu", k);
	pmcf_combine_opts co = PMCF_COMBINE_OPTS_INIT;
	co.strategy = r->po.strategy;
	co.seed = r->base;
	co.names = (const char *const *)r->paths;
	r->cs = (pmcf_combine_stats){.size = sizeof(r->cs)};
	if (cli_signal_caught())
		return run_stopped("run", &r->s.camp, r->nsets, 0, r->nsets, 0, &r->s.pr);
	/* fusing writes nothing until OUT: a signal stops it at once */
	cli_signals_stop_at_once(CLI_STOP_STEP,
				 "fusing was stopped; the %zu executions are kept in %s: resume with "
				 "`pmcfuse run --resume %s` to fuse them",
				 r->nsets, r->cdir, r->cdir);
	int err = pmcf_combine((const pmcf_profile *const *)r->rec, r->nsets, &co, &r->fused, &r->cs);
	cli_signals_disarm();
	if (err)
		return cli_lib_error("run", err, "combining");
	if ((err = pmcf_profile_save(r->fused, r->out))) {
		/* the executions stay: resuming fuses them again */
		char why[1200];
		lib_why(why, sizeof(why), err, r->out);
		campaign_set_state(&r->s.camp, "failed");
		return cli_error("run", cli_status_for(err),
				 "%s (the %zu executions are kept in %s; resume with `pmcfuse run --resume "
				 "%s` to fuse them again)",
				 why, r->nsets, r->cdir, r->cdir);
	}
	if (r->own)
		campaign_remove(&r->s.camp);
	else
		campaign_set_state(&r->s.camp, "complete");
	if (cli_signal_caught()) /* while OUT was written: it is complete */
		return cli_interrupted("run", "fusing had finished: %s was written", r->out);
	return CLI_OK;
}

static void print_summary(const struct run *r)
{
	double secs = cli_now() - r->t0;
	size_t n = r->nsets;
	if (r->args.json) {
		printf("{\"output\": ");
		cli_json_string(stdout, r->out);
		printf(", \"source\": ");
		cli_json_string(stdout, r->source);
		printf(", \"seed\": %llu", (unsigned long long)r->base);
		if (r->sim) {
			printf(", \"execution_seeds\": [");
			for (size_t k = 0; k < n; k++)
				printf("%s%llu", k ? ", " : "", (unsigned long long)r->seeds[k]);
			printf("]");
		}
		printf(", \"executions\": %zu, \"lower_bound\": %u, \"resumed\": %zu", n,
		       pmcf_plan_lower_bound(r->plan), r->reused);
		cli_json_member(stdout, "seconds", secs);
		printf(", \"agree\": %s, ",
		       n < 2 || !print_agreement(NULL, r->rec, n, r->how) ? "true" : "false");
		fuse_json_summary(stdout, r->fused, &r->cs, r->po.strategy, n);
		printf("}\n");
		return;
	}
	if (cli_quiet)
		return;
	campaign_print_resumed(r->cdir, r->reused, n);
	printf("%zu executions of %s (lower bound %u) in %.2fs\n", n, r->source,
	       pmcf_plan_lower_bound(r->plan), secs);
	if (r->sim && cli_verbose) {
		printf("execution seeds (derived from seed %llu):", (unsigned long long)r->base);
		for (size_t k = 0; k < n; k++)
			printf(" %llu", (unsigned long long)r->seeds[k]);
		printf("\n");
	}
	if (n > 1)
		print_agreement(stdout, r->rec, n, r->how);
	fuse_print_summary(stdout, r->fused, &r->cs, r->po.strategy, n);
	printf("wrote %s\n", r->out);
}

/* The whole pipeline after the command line: planned, recorded (or
 * submitted to Slurm), fused, summarised. */
static int run_pipeline(struct run *r, int argc, char **argv, int optind)
{
	campaign_session_init(&r->s, "run", &r->args, "planning");
	int st = plan_run(r, argc, argv, optind);
	if (!st)
		st = open_run(r, argc, argv);
	if (!st && r->args.launch.slurm)
		st = launch_slurm("run", &r->s.camp, r->nsets, &r->args.launch);
	else if (!st)
		st = record_runs(r);
	long only = r->args.launch.only;
	if (!st && !r->args.launch.slurm && r->s.camp.task && r->args.json) {
		printf("{\"execution\": %ld, \"executions\": %zu, \"output\": ", only, r->nsets);
		cli_json_string(stdout, r->paths[only]);
		printf(", \"already_done\": %s}\n", r->reused ? "true" : "false");
	} else if (!st && !r->args.launch.slurm && r->s.camp.task && !cli_quiet)
		printf("execution %ld of %zu: %s%s\n", only, r->nsets, r->paths[only],
		       r->reused ? " (already done)" : "");
	else if (!st && !r->args.launch.slurm && !r->s.camp.task && !(st = fuse_run(r)))
		print_summary(r);
	campaign_session_close(&r->s);
	for (size_t k = 0; k < r->nsets; k++) {
		if (r->rec)
			pmcf_profile_free(r->rec[k]);
		if (r->paths)
			free(r->paths[k]);
	}
	free(r->rec);
	free(r->paths);
	free(r->seeds);
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
		    campaign_option(verb, c, optarg, argv, optind, &r.args, &st)) {
			if (st)
				return st;
			continue;
		}
		switch (c) {
		case 'e':
			if (cli_events_option(verb, &r.events, optarg))
				return CLI_EUSAGE;
			break;
		case 'o':
			if (cli_out_arg(verb, optarg, "a profile"))
				return CLI_EUSAGE;
			r.out = optarg;
			break;
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
	if (!r.out)
		return cli_usage_error(verb, "missing -o OUT");
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
