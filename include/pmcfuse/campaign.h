/* pmcfuse — campaigns: the executions of a plan (or of a pair covering,
 * repeated) recorded through a pmcf_source into a folder, with a manifest
 * (DIR/campaign.json, docs/campaigns.md) rewritten atomically after each
 * execution, so that an interrupted campaign resumes; the folder is locked
 * for a session's life. A launcher (local, slurm) runs the executions not
 * done yet. The library never prints: progress, the program's output and
 * the slurm launcher's reports go through pmcf_campaign_callbacks.
 *
 *   pmcf_campaign_opts o = PMCF_CAMPAIGN_OPTS_INIT;
 *   o.dir = "camp"; o.plan = plan; o.events = ev;    // or o.sets, o.nsets
 *   pmcf_campaign *c;
 *   pmcf_campaign_open(&o, &c);                       // or o.resume = 1
 *   pmcf_campaign_result r = PMCF_CAMPAIGN_RESULT_INIT;
 *   pmcf_campaign_run(c, src, &r);                    // the local launcher
 *   ... pmcf_campaign_profile(c, k) ... pmcf_campaign_state_set(c, "complete");
 *   pmcf_campaign_free(c);
 */
#ifndef PMCFUSE_CAMPAIGN_H
#define PMCFUSE_CAMPAIGN_H

#include <stdint.h>
#include "pmcfuse/base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pmcf_campaign pmcf_campaign;
struct pmcf_campaign_result;

/* The files of a campaign folder. */
#define PMCF_CAMPAIGN_MANIFEST "campaign.json"
/* Locked while the manifest is rewritten (array tasks run at the same time). */
#define PMCF_CAMPAIGN_LOCK ".campaign.lock"
/* Locked for a session's whole life: exclusively by a session, shared by
 * array tasks; holds the exclusive holder's pid, named when another session
 * is refused. */
#define PMCF_CAMPAIGN_OWNER ".campaign.owner"

/* What the caller hears of a campaign (every member may be NULL). */
typedef struct pmcf_campaign_callbacks {
	size_t size; /* sizeof(pmcf_campaign_callbacks) */
	void *ctx;   /* passed to each callback */
	/* Execution k starts; what: "set 2: a,b,c" (or "set 1, repeat 3"). */
	void (*exec_start)(void *ctx, size_t k, const char *what);
	/* Execution k finished well in secs (its profile saved and in the
	 * manifest); label: "set 2" (or as what). Returns 0, or a value that
	 * ends the campaign, which pmcf_campaign_run returns as it is (an error
	 * code, or a positive status of the caller's). */
	int (*exec_done)(void *ctx, size_t k, const char *label, double secs);
	/* Execution k of a program is about to run: where its standard output
	 * and error go (*out_fd, *err_fd, 0: the caller's own). Returns 0, or
	 * a value that ends the campaign as exec_done's does. */
	int (*output_begin)(void *ctx, size_t k, const char *label, int *out_fd, int *err_fd);
	/* The program of execution k has ended and its records are read. */
	void (*output_end)(void *ctx, size_t k);
	/* Asked between executions and after each: a signal number when the
	 * campaign is to stop (a SIGINT the caller caught), else 0. */
	int (*stop)(void *ctx);
	/* The slurm launcher following its jobs: one status line (no newline)
	 * whenever it changes, e.g. "slurm: 3 of 7 executions done, ...". */
	void (*status)(void *ctx, const char *line);
	/* The slurm launcher submitted its jobs (r's array_job, finish_job,
	 * todo and tasks set), before it follows them. */
	void (*launched)(void *ctx, const struct pmcf_campaign_result *r);
	/* Text to show as it is: the finishing job's output. */
	void (*text)(void *ctx, const char *text);
	/* A warning (one line, no newline). */
	void (*warning)(void *ctx, const char *line);
} pmcf_campaign_callbacks;
#define PMCF_CAMPAIGN_CALLBACKS_INIT PMCF_SIZED_INIT(pmcf_campaign_callbacks)

/* A campaign: what it records and where. */
typedef struct pmcf_campaign_opts {
	size_t size;        /* sizeof(pmcf_campaign_opts) */
	const char *dir;    /* the folder (created; a new campaign refuses one that holds
			    a campaign or profiles) */
	int resume;         /* 1: dir holds this campaign's manifest (same verb, digest and
			    number of executions): the executions done are kept */
	long only;          /* >= 0: an array task recording execution `only` alone (a shared
			    lock; the state is left to the session that finishes; needs
			    resume); -1: all (PMCF_CAMPAIGN_OPTS_INIT: a zeroed struct's 0
			    is array task 0) */
	const char *verb;   /* the command that resumes it (kept in the manifest and named
			     in messages: `pmcfuse VERB --resume DIR`); NULL: "run" */
	const char *digest; /* 64 hex digits naming the plan (a resume with another is
			       refused); NULL: the SHA-256 of the sets' names */
	/* execution k records sets[k % nsets]; with repeat > 0 there are
	 * nsets * repeat executions (repeat k / nsets), else nsets */
	const pmcf_evlist *const *sets;
	size_t nsets;
	unsigned repeat;
	/* or (sets NULL) the sets of plan: copies of its resolved lists
	 * (pmcf_plan_evlist_at), or, for a plan not resolved, taken once from
	 * events (the resolved list the plan was made of, pmcf_evlist_subset;
	 * may be NULL for a resolved plan), owned by the campaign; the default
	 * digest is then the SHA-256 of the plan's JSON */
	const pmcf_plan *plan;
	const pmcf_evlist *events;
	const char *file_format; /* the executions' files: one %zu, e.g. "ref-%03zu.pmcf"
				    (NULL: "exec-%zu.pmcf") */
	int argc;                /* the command line kept to resume (may be 0) */
	char *const *argv;
	/* what the local launcher does with each execution */
	int plan_meta;   /* 1: each profile gets PMCF_META_PLAN_* (digest, set, sets) and
			    a profile kept from an earlier session is reused only when
			    they match */
	int keep_failed; /* 1: a failed or stopped program's profile is kept (marked
			    incomplete when stopped); 0: only finished executions */
	int hold;        /* 1: the profiles stay loaded (pmcf_campaign_profile) */
	const pmcf_campaign_callbacks *cb;
} pmcf_campaign_opts;
#define PMCF_CAMPAIGN_OPTS_INIT PMCF_SIZED_INIT_WITH(pmcf_campaign_opts, only, -1)

/* How a session ended. */
typedef struct pmcf_campaign_result {
	size_t size;   /* sizeof(pmcf_campaign_result) */
	size_t reused; /* executions kept from an earlier session */
	size_t recorded;
	int signal;  /* the stop callback's answer that ended it (0: none) */
	long at;     /* the execution that failed or was stopped, or that a stop came
			before or after (-1: none) */
	int started; /* execution `at` ran (0: the stop came before it) */
	int err;     /* its error (PMCF_EPROGRAM: the program failed); 0 */
	int saving;  /* err came from saving its profile */
	int kept;    /* its profile was kept (a failed program's, or one stopped) */
	/* owned by the campaign: how the last program was observed ("OpenMP",
	 * "task API", ...; NULL: a simulation) and its line on anything abnormal */
	const char *how;
	const char *message;
	/* the slurm launcher: the jobs submitted ("" when none) and the
	 * executions they record ("K" or "A-B" ranges) */
	char array_job[32], finish_job[32];
	size_t todo;
	const char *tasks; /* owned by the campaign */
} pmcf_campaign_result;
#define PMCF_CAMPAIGN_RESULT_INIT PMCF_SIZED_INIT_WITH(pmcf_campaign_result, at, -1)

/* Opens (creates, or resumes) the campaign of o. Errors: PMCF_ECONFLICT for
 * a folder in use by another session or that holds another campaign,
 * PMCF_EINVAL for a bad option or a manifest that is not one, -errno. */
PMCF_API int pmcf_campaign_open(const pmcf_campaign_opts *o, pmcf_campaign **out);
/* Releases the folder's lock and frees c (the folder stays). */
PMCF_API void pmcf_campaign_free(pmcf_campaign *c);

PMCF_API const char *pmcf_campaign_dir(const pmcf_campaign *c);
/* Number of executions. */
PMCF_API size_t pmcf_campaign_size(const pmcf_campaign *c);
/* 1 for an array task (opts.only >= 0). */
PMCF_API int pmcf_campaign_is_task(const pmcf_campaign *c);
/* Execution k's file in the folder (DIR/exec-K.pmcf). Owned by c. */
PMCF_API const char *pmcf_campaign_path(const pmcf_campaign *c, size_t k);
/* 1 when execution k finished well in an earlier session and its file is
 * still there. */
PMCF_API int pmcf_campaign_is_done(const pmcf_campaign *c, size_t k);
/* Execution k's status in the manifest: missing, ok, failed, interrupted. */
PMCF_API const char *pmcf_campaign_status(const pmcf_campaign *c, size_t k);
/* With opts.hold: execution k's profile (recorded or reused), else NULL.
 * Owned by c. */
PMCF_API pmcf_profile *pmcf_campaign_profile(const pmcf_campaign *c, size_t k);
/* The seed execution k was recorded with in this session (a simulation),
 * else 0. */
PMCF_API uint64_t pmcf_campaign_seed(const pmcf_campaign *c, size_t k);

/* The local launcher: records here, one after the other, the executions not
 * done (an array task: its own), with the sets through src. Stops at the
 * first that fails, or when cb->stop answers a signal; *r says how it ended.
 * Returns 0 (also when stopped: r->signal), or the error of r->at (its
 * detail set: the detail of the source). The campaign's state is the
 * caller's (pmcf_campaign_state_set). Called again (after a stop), it goes
 * on with what is not done. */
PMCF_API int pmcf_campaign_run(pmcf_campaign *c, pmcf_source *src, pmcf_campaign_result *r);

/* Marks the campaign complete, interrupted or failed (nothing for an array
 * task). */
PMCF_API int pmcf_campaign_state_set(pmcf_campaign *c, const char *state);
/* Removes the manifest, the lock files and the executions' files, and the
 * folder when that empties it (nothing for an array task). */
PMCF_API void pmcf_campaign_remove(pmcf_campaign *c);

/* The command line and the folder it ran in, kept in dir's manifest of
 * verb: *argv (NULL-terminated, each string malloc'ed) and *cwd (malloc'ed,
 * "" when unknown); free with pmcf_campaign_command_free. */
PMCF_API int pmcf_campaign_command(const char *verb, const char *dir, int *argc, char ***argv, char **cwd);
PMCF_API void pmcf_campaign_command_free(int argc, char **argv, char *cwd);

/* ---- launchers ------------------------------------------------------------ */
typedef struct pmcf_launch_opts {
	size_t size;      /* sizeof(pmcf_launch_opts) */
	const char *args; /* slurm: more sbatch options, split as sh words */
	int wait;         /* slurm: follow the jobs to their end */
	const char *exe;  /* slurm: the pmcfuse command the jobs run (NULL: this
			     process's executable) */
} pmcf_launch_opts;
#define PMCF_LAUNCH_OPTS_INIT PMCF_SIZED_INIT(pmcf_launch_opts)

/* One launcher (libpfm4's one descriptor per extension): */
typedef struct pmcf_launcher {
	size_t size;      /* sizeof(pmcf_launcher) */
	const char *name; /* "local", "slurm" */
	const char *help; /* one line */
	/* Before any work: whether it can run with o here (slurm: sbatch in
	 * PATH, o->args split into words). 0 or an error with its detail. */
	int (*check)(const pmcf_launch_opts *o);
	/* Runs (local) or submits (slurm: an sbatch job array of array tasks
	 * `VERB --resume DIR --only K` and a finishing job `VERB --resume DIR`
	 * after them; scripts and logs in DIR/slurm/, docs/slurm.md) the
	 * executions of c not done; with o->wait follows the jobs. */
	int (*launch)(pmcf_campaign *c, pmcf_source *src, const pmcf_launch_opts *o, pmcf_campaign_result *r);
} pmcf_launcher;
#define PMCF_LAUNCHER_INIT PMCF_SIZED_INIT(pmcf_launcher)

/* The launchers, in order (*n set); the one named name (NULL: none). */
PMCF_API const pmcf_launcher *pmcf_launchers(size_t *n);
PMCF_API const pmcf_launcher *pmcf_launcher_find(const char *name);

/* ---- the executions compared ---------------------------------------------- */
/* Whether profile p[k] agrees with p[0] (the same XUs per type, the same
 * labels; a program's executions should, fuse-openmp §3): 0 when it does,
 * else 1 with how it differs in buf ("3 task XUs (execution 0: 4); 1 labels
 * of execution 0 missing (e.g. x), 0 extra"). */
PMCF_API int pmcf_campaign_differs(const pmcf_profile *const *p, size_t k, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
