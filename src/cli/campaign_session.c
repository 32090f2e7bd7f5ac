/* A campaign session of `run` and `reference`: the library's progress, the
 * program's output and the slurm launcher's reports printed through the
 * campaign callbacks (options: campaign.c). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/campaign.h"
#include "cli/cli.h"
#include "pmcfuse/plan.h"
#include "x/x.h"

/* ---- the session's callbacks ---------------------------------------------- */
static void on_start(void *ctx, size_t k, const char *what)
{
	struct campaign_session *s = ctx;
	cli_progress_start(&s->pr, k, what);
}

static int on_done(void *ctx, size_t k, const char *label, double secs)
{
	struct campaign_session *s = ctx;
	int st = s->saved ? s->saved(s->ctx, k) : CLI_OK;
	if (!st)
		cli_progress_done(&s->pr, k, label, secs);
	return st;
}

static int on_output_begin(void *ctx, size_t k, const char *label, int *ofd, int *efd)
{
	struct campaign_session *s = ctx;
	char head[256], stamp[32];
	const char *dir = pmcf_campaign_dir(s->camp);
	cli_stamp(stamp);
	snprintf(head, sizeof(head), "==> pmcfuse %s: exec %zu/%zu (%s), %s <==\n", s->verb, k + 1,
		 pmcf_campaign_size(s->camp), label, stamp);
	int st = cli_progout_begin(s->verb, &s->pout, head, ofd, efd);
	if (!st)
		/* once the program has ended, a signal stops the reading of its
		 * records at once (nothing of it is saved) */
		cli_signals_stop_at_once(CLI_STOP_READ,
					 "the program of execution %zu had ended; its records were not "
					 "read; the executions done before are kept in %s: resume with "
					 "`pmcfuse %s --resume %s`",
					 k, dir, s->verb, dir);
	return st;
}

static void on_output_end(void *ctx, size_t k)
{
	struct campaign_session *s = ctx;
	(void)k;
	cli_signals_disarm();
	cli_progout_end(&s->pout);
}

static int on_stop(void *ctx __attribute__((unused))) { return cli_signal_caught(); }

static void on_status(void *ctx, const char *line)
{
	struct campaign_session *s = ctx;
	char stamp[32]; /* a local timestamp, as the progress lines in a batch log */
	cli_stamp(stamp);
	fprintf(stderr, "%s pmcfuse: %s: %s\n", stamp, s->verb, line);
}

static void on_text(void *ctx __attribute__((unused)), const char *text) { fputs(text, stdout); }

static void on_warning(void *ctx, const char *line)
{
	struct campaign_session *s = ctx;
	fprintf(stderr, "pmcfuse: %s: %s\n", s->verb, line);
}

static void on_launched(void *ctx, const pmcf_campaign_result *r)
{
	struct campaign_session *s = ctx;
	const char *verb = s->verb;
	char *dir = realpath(pmcf_campaign_dir(s->camp), NULL);
	const char *d = dir ? dir : pmcf_campaign_dir(s->camp);
	size_t n = pmcf_campaign_size(s->camp);
	if (r->todo)
		printf("submitted array job %s: %zu of %zu execution%s (tasks %s), logs %s/slurm/%s_K.out\n",
		       r->array_job, r->todo, n, n == 1 ? "" : "s", r->tasks, d, r->array_job);
	else
		printf("every execution is done: no array job\n");
	printf("submitted finishing job %s%s%s: `pmcfuse %s --resume %s`, output %s/slurm/finish-%s.out\n",
	       r->finish_job, r->todo ? ", after every task of " : "", r->todo ? r->array_job : "", verb, d,
	       d, r->finish_job);
	if (!s->args->wait) {
		printf("follow them: squeue -j %s%s%s\n", r->array_job, r->todo ? "," : "", r->finish_job);
		printf("if tasks fail: `pmcfuse %s --resume %s --launcher slurm` submits what is "
		       "missing again\n",
		       verb, d);
		printf("or finish here once the array is done: pmcfuse %s --resume %s\n", verb, d);
	}
	fflush(stdout);
	free(dir);
}

/* ---- one session ---------------------------------------------------------- */
void campaign_session_init(struct campaign_session *s, const char *verb, const struct campaign_args *a)
{
	memset(s, 0, sizeof(*s));
	s->verb = verb;
	s->args = a;
	cli_progress_begin(&s->pr, verb, 0, 0);
	cli_progout_init(&s->pout, a->json, &s->pr);
	s->cb = (pmcf_campaign_callbacks){.size = sizeof(s->cb),
					  .ctx = s,
					  .exec_start = on_start,
					  .exec_done = on_done,
					  .output_begin = on_output_begin,
					  .output_end = on_output_end,
					  .stop = on_stop,
					  .status = on_status,
					  .launched = on_launched,
					  .text = on_text,
					  .warning = on_warning};
}

/* The words of argv[first..argc) that are not launcher options, as kept in
 * the manifest: malloc'ed array of pointers into argv, its size in *n. */
static char **kept_command(const struct campaign_args *a, int argc, char **argv, int first, int *n)
{
	char **v = malloc(((size_t)argc + 1) * sizeof(*v));
	*n = 0;
	for (int i = first; v && i < argc; i++) {
		int skip = 0;
		for (int w = 0; w < a->nlaunch; w++)
			skip |= argv[i] == a->launch[w];
		if (!skip)
			v[(*n)++] = argv[i];
	}
	return v;
}

int campaign_session_open(struct campaign_session *s, pmcf_campaign_opts *o, int argc, char **argv)
{
	const struct campaign_args *a = s->args;
	size_t nsets = o->sets ? o->nsets : pmcf_plan_nsets(o->plan), n = nsets * (o->repeat ? o->repeat : 1);
	int ncommand = 0, st;
	if (a->only >= (long)n)
		return cli_usage_error(s->verb, "--only %ld: the campaign has executions 0 to %zu", a->only,
				       n - 1);
	if (!(s->command = kept_command(a, argc, argv, 1, &ncommand)))
		return cli_error(s->verb, CLI_EENV, "out of memory");
	if ((st = cli_progout_open(s->verb, a->progout, a->json, &s->pr, &s->pout)))
		return st;
	cli_signals_catch(s->verb);
	o->verb = s->verb;
	o->resume = a->resume != NULL;
	o->only = a->only;
	o->argc = ncommand;
	o->argv = s->command;
	o->cb = &s->cb;
	int err = pmcf_campaign_open(o, &s->camp);
	return err ? cli_lib_error(s->verb, err, o->dir) : CLI_OK;
}

void campaign_session_progress(struct campaign_session *s, size_t n, size_t todo)
{
	cli_progress_begin(&s->pr, s->verb, n, todo);
	if (pmcf_campaign_is_task(s->camp)) /* an array task prints its one line at the end */
		cli_progress_silence(&s->pr);
}

int campaign_session_run(struct campaign_session *s, pmcf_source *src, pmcf_campaign_result *r)
{
	pmcf_launch_opts lo = PMCF_LAUNCH_OPTS_INIT;
	int err = pmcf_launcher_find("local")->launch(s->camp, src, &lo, r);
	cli_progress_clear(&s->pr);
	return err;
}

int campaign_session_slurm(struct campaign_session *s)
{
	const struct campaign_args *a = s->args;
	pmcf_launch_opts lo = PMCF_LAUNCH_OPTS_INIT;
	lo.args = a->slurm_args;
	lo.wait = a->wait;
	pmcf_campaign_result r = PMCF_CAMPAIGN_RESULT_INIT;
	int err = a->launcher->launch(s->camp, NULL, &lo, &r);
	if (r.signal)
		return cli_interrupted(
			s->verb,
			"stopped following; the jobs go on (squeue -j %s%s%s; `scancel %s%s%s` "
			"stops them)",
			r.array_job, r.todo ? "," : "", r.finish_job, r.array_job, r.todo ? "," : "",
			r.finish_job);
	if (!err)
		return CLI_OK;
	int st = cli_lib_error(s->verb, err, "slurm");
	if (r.array_job[0] && !r.finish_job[0]) {
		char *dir = realpath(pmcf_campaign_dir(s->camp), NULL);
		fprintf(stderr,
			"pmcfuse: %s: the array job %s was submitted: once it is done, finish with "
			"`pmcfuse %s --resume %s`\n",
			s->verb, r.array_job, s->verb, dir ? dir : pmcf_campaign_dir(s->camp));
		free(dir);
	}
	return st;
}

void campaign_print_resumed(const char *dir, size_t reused, size_t n)
{
	if (reused)
		printf("resumed %s: %zu of %zu execution%s were already done\n", dir, reused, n,
		       n == 1 ? "" : "s");
}

void campaign_session_close(struct campaign_session *s)
{
	cli_progress_clear(&s->pr);
	cli_progout_close(&s->pout);
	pmcf_campaign_free(s->camp);
	s->camp = NULL;
	free(s->command);
	s->command = NULL;
}
