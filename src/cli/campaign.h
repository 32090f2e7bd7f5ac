/* What `run` and `reference` share around the library's campaigns
 * (pmcfuse/campaign.h): the signals that interrupt a verb that runs
 * programs, the checks of outputs made before the first execution, the
 * options of a campaign (launcher, --resume, --program-output, -v/-q/--json)
 * and a session that prints the library's progress and keeps the program's
 * output apart. */
#ifndef PMCF_CLI_CAMPAIGN_H
#define PMCF_CLI_CAMPAIGN_H
#include <getopt.h>
#include <stddef.h>
#include "cli/output.h"
#include "pmcfuse/campaign.h"
#include "pmcfuse/source.h"

/* ---- signals (signals.c) -------------------------------------------------- */
/* Catches SIGINT, SIGTERM and SIGHUP (those not ignored): the first is
 * remembered and forwarded to the program being recorded; a second one
 * sends SIGKILL to that program, or ends pmcfuse at once when none runs.
 * The verb checks cli_signal_caught() between steps, keeps what is complete
 * and ends with cli_interrupted. */
void cli_signals_catch(const char *verb);
/* Arms a step that is stopped at once by a signal (its line, from fmt,
 * printed as "pmcfuse: VERB: interrupted by SIGNAME: LINE", exit 128 +
 * the signal; a second signal always ends at once with a line): a step that
 * writes nothing half-way, such as fusing (CLI_STOP_STEP) or reading a
 * program's records once it has ended (CLI_STOP_READ: a signal that comes
 * while the program runs is passed on to it). cli_signals_disarm ends it. */
enum { CLI_STOP_STEP = 1, CLI_STOP_READ = 2 };
void cli_signals_stop_at_once(int kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cli_signals_disarm(void);
/* The first signal caught (0: none). */
int cli_signal_caught(void);
/* Prints "pmcfuse: VERB: interrupted by SIGNAME: <message>" and returns the
 * exit status 128 + the signal. */
int cli_interrupted(const char *verb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- outputs checked before the work (signals.c) -------------------------- */
/* Whether a file can be written atomically at path (a temporary beside it
 * is created and removed) and a profile may replace what is there
 * (cli_out_replaceable): CLI_OK, or the exit status of the error printed. */
int cli_check_output(const char *verb, const char *path);
/* Whether paths a and b name the same folder (or file). */
int cli_same_folder(const char *a, const char *b);

/* ---- executions of a plan (signals.c) -------------------------------------- */
struct pmcf_plan;
struct pmcf_profile;
/* The plan's digest: SHA-256 of its JSON. CLI_OK or an exit status. */
int cli_plan_digest(const char *verb, const struct pmcf_plan *plan, char hex[65]);
/* What an execution of a plan stores (PMCF_META_PLAN_*). */
struct cli_plan_meta {
	const char *digest;
	size_t set, nsets;
};
/* Sets the PMCF_META_PLAN_* keys of p (pm NULL: nothing). 0 or an error code. */
int cli_plan_meta_apply(struct pmcf_profile *p, const struct cli_plan_meta *pm);

/* ---- the options of a campaign -------------------------------------------- */
enum {
	CAMPAIGN_OPT_RESUME = 0x4d00,
	CAMPAIGN_OPT_PROGOUT,
	CAMPAIGN_OPT_LAUNCHER,
	CAMPAIGN_OPT_SLURM_ARGS,
	CAMPAIGN_OPT_WAIT,
	CAMPAIGN_OPT_ONLY,
};
#define CAMPAIGN_LONGOPTS                                                                               \
	{"launcher", required_argument, NULL, CAMPAIGN_OPT_LAUNCHER},                                   \
		{"slurm-args", required_argument, NULL, CAMPAIGN_OPT_SLURM_ARGS},                       \
		{"wait", no_argument, NULL, CAMPAIGN_OPT_WAIT},                                         \
		{"only", required_argument, NULL, CAMPAIGN_OPT_ONLY},                                   \
		{"resume", required_argument, NULL, CAMPAIGN_OPT_RESUME},                               \
		{"program-output", required_argument, NULL, CAMPAIGN_OPT_PROGOUT}, CLI_OUTPUT_LONGOPTS, \
		CLI_JSON_LONGOPT
#define CAMPAIGN_MAX_WORDS 8
struct campaign_args {
	const pmcf_launcher *launcher; /* --launcher (NULL: local) */
	const char *slurm_args;        /* --slurm-args */
	int wait;                      /* --wait */
	long only;                     /* --only K (-1: all) */
	int nlaunch;                   /* argv words of the launcher options, in order: a
					  campaign does not remember how it was launched */
	char *launch[CAMPAIGN_MAX_WORDS];
	const char *resume;  /* --resume DIR */
	const char *progout; /* --program-output */
	int json;
	int nwords;     /* argv words of --resume and -q/-v/--json: with the launcher's,
			   what `--resume DIR` alone may carry */
	char *words[8]; /* the -q/-v/--json words, passed on to the stored command */
	int nout;
};
#define CAMPAIGN_ARGS_INIT \
	{                  \
		.only = -1 \
	}
/* Handles getopt_long's answer c when it is a campaign option (1; *st set
 * to an exit status when it is wrong), else 0. */
int campaign_option(const char *verb, int c, const char *arg, char **argv, int optind,
		    struct campaign_args *a, int *st);
/* After parsing: checks the launcher options; `VERB --resume DIR` alone
 * runs the stored command line with cmd (diropts: the options whose value
 * named the folder, made DIR). 1 when the verb is done (*st its exit
 * status), 0 when it goes on. */
int campaign_args_done(const char *verb, const struct campaign_args *a, int argc, int optind,
		       const char *const *diropts, int (*cmd)(int, char **), int *st);
/* Whether --launcher slurm was given. */
int campaign_is_slurm(const struct campaign_args *a);

/* ---- one session of a campaign -------------------------------------------- */
struct campaign_session {
	const char *verb;
	const struct campaign_args *args;
	pmcf_campaign *camp; /* NULL until opened */
	struct cli_progress pr;
	struct cli_progout pout;
	char **command;
	pmcf_campaign_callbacks cb;
	/* the verb's step after each execution saved (reference: its index);
	 * an exit status */
	int (*saved)(void *ctx, size_t k);
	void *ctx;
};
/* Nothing started yet (what campaign_session_close accepts). */
void campaign_session_init(struct campaign_session *s, const char *verb, const struct campaign_args *a);
/* Before the first execution: --only within them, the command line kept,
 * --program-output opened, the signals caught, the campaign opened (o: the
 * verb's part of pmcf_campaign_opts: dir, digest, sets, repeat, ...).
 * Prints errors; an exit status. */
int campaign_session_open(struct campaign_session *s, pmcf_campaign_opts *o, int argc, char **argv);
/* Progress over n executions, todo of them now (an array task: silent). */
void campaign_session_progress(struct campaign_session *s, size_t n, size_t todo);
/* Runs the local launcher: the library's answer, *r how it ended (an exit
 * status from the verb's own steps is returned as it is, > 0). */
int campaign_session_run(struct campaign_session *s, pmcf_source *src, pmcf_campaign_result *r);
/* Submits the executions not done to Slurm (and follows them with --wait),
 * printing what was submitted. Returns an exit status. */
int campaign_session_slurm(struct campaign_session *s);
/* "resumed DIR: R of N executions were already done" (R > 0). */
void campaign_print_resumed(const char *dir, size_t reused, size_t n);
/* Progress cleared, the program's output closed, the campaign closed. */
void campaign_session_close(struct campaign_session *s);
#endif
