/* Campaigns: the executions of one `run` or `reference` in a folder with a
 * manifest (campaign.json) rewritten atomically after each execution, so an
 * interrupted campaign resumes (--resume); the signals that interrupt it;
 * and the checks of output paths made before the first execution. */
#ifndef PMCF_CLI_CAMPAIGN_H
#define PMCF_CLI_CAMPAIGN_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* ---- signals -------------------------------------------------------------- */
/* Catches SIGINT, SIGTERM and SIGHUP (those not ignored): the first is
 * remembered and forwarded to the program being recorded; a second one sends SIGKILL to that program, or ends
 * pmcfuse at once when none runs. The verb checks cli_signal_caught()
 * between steps, keeps what is complete and ends with cli_interrupted. */
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

/* ---- outputs checked before the work ------------------------------------- */
/* Whether a file can be written atomically at path (a temporary beside it
 * is created and removed) and a profile may replace what is there
 * (cli_out_replaceable): CLI_OK, or the exit status of the error printed
 * (missing or read-only folder, a directory at path, a file that is not a
 * profile). */
int cli_check_output(const char *verb, const char *path);
/* Creates dir if needed and checks that files can be written in it. */
int cli_check_dir(const char *verb, const char *dir);

/* ---- executions of a plan ------------------------------------------------ */
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

/* ---- the campaign folder -------------------------------------------------- */
#define CAMPAIGN_MANIFEST "campaign.json"
/* Locked while the manifest is rewritten (array tasks run at the same time). */
#define CAMPAIGN_LOCK ".campaign.lock"
/* Locked for a session's whole life (flock): exclusively by a run, resume
 * or reference, shared by array tasks (--only K); holds the exclusive
 * holder's pid, so that a second session is refused with a line naming it. */
#define CAMPAIGN_OWNER ".campaign.owner"

/* One execution, as the manifest keeps it. */
struct campaign_exec {
	const char *file; /* name in the folder, e.g. exec-0.pmcf */
	size_t set;       /* plan set (run) or covering set (reference) */
	long repeat;      /* reference: the repeat; -1 for run */
	int has_seed;     /* simulated: the execution seed */
	uint64_t seed;
	const char *status; /* ok, failed, interrupted */
	const char *exit;   /* "0", "3", "signal 15", "" */
	time_t started, finished;
};

struct campaign {
	const char *verb;
	char *dir;
	void *manifest; /* json_t */
	int task;       /* an array task (--only K): it records its execution and leaves
			   the state to the finishing step and the folder in place */
	int owner;      /* the open CAMPAIGN_OWNER holding the session's lock, -1: none */
};

/* Opens the campaign of verb in dir for n executions of the plan whose
 * digest is given; command[0..ncmd) is the verb's own command line (kept to
 * resume with --resume DIR alone). resume 0: dir must be new or hold no
 * manifest and no profile (created); resume 1: dir must hold the manifest of
 * the same verb, plan digest and number of executions. The folder is locked
 * first (CAMPAIGN_OWNER; task: an array task, a shared lock) and stays
 * locked until campaign_close: a folder locked by another session is
 * refused, naming its pid. A resume removes the temporary files that a
 * killed session left (.exec-K.pmcf.tmp.*). Prints errors; returns an exit
 * status. */
int campaign_open(const char *verb, const char *dir, int resume, int task, const char *digest, size_t n,
		  int ncmd, char *const *command, struct campaign *c);
/* Gives the folder's lock up before campaign_close (the slurm launcher: the
 * jobs it submits take it). */
void campaign_release(struct campaign *c);
/* 1 when execution k finished well in an earlier session and its file is
 * still there (its path in path[len]). */
int campaign_is_done(const struct campaign *c, size_t k, char *path, size_t len);
/* Records execution k and rewrites the manifest atomically, under the
 * campaign's lock, over what other processes wrote meanwhile. */
int campaign_update(struct campaign *c, size_t k, const struct campaign_exec *e);
/* Marks the campaign (state: complete, interrupted, failed) and writes
 * (nothing for an array task). */
int campaign_set_state(struct campaign *c, const char *state);
/* Sets the top-level string key of the manifest and writes (locked). */
int campaign_note(struct campaign *c, const char *key, const char *value);
/* Reads the manifest again from the folder (0), e.g. to follow array tasks. */
int campaign_reload(struct campaign *c);
/* Execution k's status: missing, ok, failed, interrupted. */
const char *campaign_status(const struct campaign *c, size_t k);
/* A top-level string of the manifest (NULL when absent). */
const char *campaign_get(const struct campaign *c, const char *key);
/* Removes the folder: its manifest and its execution files (nothing for an
 * array task; the folder stays when it holds more, such as slurm logs). */
void campaign_remove(struct campaign *c);
void campaign_close(struct campaign *c);
/* The command line stored in the manifest of dir, to resume: *argv
 * (malloc'ed, the strings too; free with campaign_free_command). */
int campaign_command(const char *verb, const char *dir, int *argc, char ***argv);
void campaign_free_command(int argc, char **argv);
/* `VERB --resume DIR` alone (but for the nextra launcher words extra, kept
 * before the stored options): runs cmd (the verb) with the command line
 * stored in DIR's manifest, in the folder it was started in (DIR made
 * absolute first), so that resuming does not depend on the current folder;
 * the value of the stored option among diropts (NULL-terminated, e.g.
 * "--keep") that named the campaign's folder becomes DIR, so a copied or
 * moved campaign resumes where it is now. Returns its exit status. */
int campaign_resume_alone(const char *verb, const char *dir, int nextra, char *const *extra,
			  const char *const *diropts, int (*cmd)(int, char **));
/* Whether paths a and b name the same folder (or file). */
int cli_same_folder(const char *a, const char *b);
/* Hex SHA-256 of text (65 bytes with the NUL). */
void campaign_digest(const char *text, char hex[65]);
/* "2024-01-01T12:00:00Z" of t. */
void campaign_iso_time(time_t t, char out[32]);
/* ---- one session of a campaign (run, reference) --------------------------- */
/* What run and reference share: the options of a campaign (launcher,
 * --resume, --program-output, -v/-q/--json), and a session that records the
 * executions here, one after the other, with progress and the program's
 * output kept apart. */
#include "cli/launcher.h"
#include "cli/output.h"
#include "pmcfuse/source.h"
enum { CAMPAIGN_OPT_RESUME = 0x4d00, CAMPAIGN_OPT_PROGOUT };
#define CAMPAIGN_LONGOPTS                                                                               \
	LAUNCH_LONGOPTS, {"resume", required_argument, NULL, CAMPAIGN_OPT_RESUME},                      \
		{"program-output", required_argument, NULL, CAMPAIGN_OPT_PROGOUT}, CLI_OUTPUT_LONGOPTS, \
		CLI_JSON_LONGOPT
struct campaign_args {
	struct launch launch;
	const char *resume;  /* --resume DIR */
	const char *progout; /* --program-output */
	int json;
	int nwords;     /* argv words of --resume and -q/-v/--json: with the launcher's,
				what `--resume DIR` alone may carry */
	char *words[8]; /* the -q/-v/--json words, passed on to the stored command */
	int nout;
};
#define CAMPAIGN_ARGS_INIT            \
	{                             \
		.launch = LAUNCH_INIT \
	}
/* Handles getopt_long's answer c when it is a campaign option (1; *st set
 * to an exit status when it is wrong), else 0. */
int campaign_option(const char *verb, int c, const char *arg, char **argv, int optind,
		    struct campaign_args *a, int *st);
/* After parsing: checks the launcher options; `VERB --resume DIR` alone
 * runs the stored command line with cmd. 1 when the verb is done (*st its
 * exit status), 0 when it goes on. */
int campaign_args_done(const char *verb, const struct campaign_args *a, int argc, int optind,
		       const char *const *diropts, int (*cmd)(int, char **), int *st);

struct campaign_session {
	const char *verb;
	const struct campaign_args *args;
	pmcf_source *src;     /* the verb's */
	const char *planning; /* what a failed sub-list names */
	struct campaign camp;
	struct cli_progress pr;
	struct cli_progout pout;
	char **command;
};
/* Nothing started yet (what campaign_session_close accepts). */
void campaign_session_init(struct campaign_session *s, const char *verb, const struct campaign_args *a,
			   const char *planning);
/* Before the first execution of n: --only within them, the command line
 * kept, --program-output opened, the signals caught, the folder dir opened
 * (campaign_open with the plan's digest). Prints errors; an exit status. */
int campaign_session_open(struct campaign_session *s, pmcf_source *src, const char *dir, const char *digest,
			  size_t n, int argc, char **argv);
/* Progress over n executions, todo of them now (an array task: silent). */
void campaign_session_progress(struct campaign_session *s, size_t n, size_t todo);
/* Records execution k of n with the events names[0..m) of list; label names
 * it in the header of --program-output FILE. Fills ce's seed (a simulation),
 * finished time and exit ("0", "signal 15"; exitst holds it); *err is the
 * library's answer (the profile in *p, NULL on failure). Returns an exit
 * status (a set or the program's output that cannot be set up). */
int campaign_session_record(struct campaign_session *s, size_t k, size_t n, const char *label,
			    const pmcf_evlist *list, const char *const *names, size_t m, pmcf_profile **p,
			    pmcf_exit_info *ei, struct campaign_exec *ce, char exitst[32], int *err);
/* "resumed DIR: R of N executions were already done" (R > 0). */
void campaign_print_resumed(const char *dir, size_t reused, size_t n);
/* Progress cleared, the program's output closed, the folder closed. */
void campaign_session_close(struct campaign_session *s);
#endif
