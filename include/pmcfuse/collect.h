/* pmcfuse — collecting a real program: run it under the OMPT tool
 * libpmcfuse-ompt.so with one perf_event group per thread, and turn the
 * per-thread record files into a profile (one XU per OpenMP task instance,
 * loop chunk or static iteration range, task-API task, or thread). */
#ifndef PMCFUSE_COLLECT_H
#define PMCFUSE_COLLECT_H

#include "pmcfuse/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a recording counts (pmcf_count_opts) and how the program runs
 * (pmcf_program_opts) are declared in pmcfuse/base.h. */

typedef struct pmcf_exit_info {
	size_t size;  /* sizeof(pmcf_exit_info), set by PMCF_EXIT_INFO_INIT (the ABI rule, pmcfuse/base.h) */
	int exited;   /* 1: exited with status; 0: killed by signal */
	int status;   /* exit status when exited */
	int signal;   /* the signal when killed */
	int complete; /* 1 when the program exited with status 0 */
	int ompt;     /* 1 when an OMPT runtime loaded the tool */
	int fallback; /* 1 when the profile has one XU per thread */
	size_t xus;   /* XUs in the profile */
	size_t incomplete_xus;  /* XUs begun but not finished (not in the profile) */
	size_t multiplexed_xus; /* XUs whose counters were not always running */
	size_t negative_values; /* multiplexing: estimates below zero (kept) */
	size_t missing_values;  /* multiplexing: values never counted, missing (docs/multiplexing.md) */
	size_t rotations;       /* user-space multiplexing: rotations in all threads */
	char message[512];      /* one line on anything abnormal, "" when none */
} pmcf_exit_info;
#define PMCF_EXIT_INFO_INIT PMCF_SIZED_INIT(pmcf_exit_info)

/* A thin wrapper kept for callers holding names: pmcf_source_record of a
 * program source (pmcf_source_new_program) records a resolved list with
 * the same collector, no name looked up again; new code uses that.
 * Runs argv (argv[0] looked up in PATH; environment inherited, plus
 * OMP_TOOL_LIBRARIES and LD_PRELOAD naming the tool) counting events[0..n)
 * (names of the "perf" catalogue; "duration" is implicit and skipped), waits
 * for it and builds the profile into *out (free with pmcf_profile_free), with
 * metadata: program, args, binary_sha256, cwd, host, kernel, cpu_model, pmu,
 * start_time, source=perf, pmcs, exit_status, complete, OMP_* environment
 * ("omp_env", a JSON object), collector mode, and under multiplexing
 * multiplex, period_ms, estimate and the coverage layer (enabled and running
 * ns of every value).
 *
 * When the program fails (non-zero status, signal) the profile is still
 * built from what was recorded, marked complete=0, and the call returns
 * PMCF_EPROGRAM with *out set: the caller saves it and reports exit_info.
 * Other errors leave *out NULL: PMCF_EEVENT (unknown event or one the
 * kernel refuses), PMCF_ETOOMANY (the set does not fit), PMCF_EPARANOID,
 * PMCF_ENOENT (the program or the tool cannot be found), -errno.
 * pmcf_errdetail() says more. exit_info may be NULL. */
PMCF_API int pmcf_collect_program(char *const argv[], const char *const *events, size_t nevents,
				  const pmcf_count_opts *opts, const pmcf_program_opts *po,
				  pmcf_profile **out, pmcf_exit_info *exit_info);

/* For a signal handler (async-signal-safe): sends sig to the program that
 * pmcf_collect_program is running and returns 1. When none is running it
 * returns 0 (2 when its program has ended and its records are being read)
 * and remembers sig: the next pmcf_collect_program does not start
 * its program and returns -EINTR (pmcf_collect_signal(0) forgets it). The
 * program runs in a process group of its own (unless the caller is the
 * terminal's foreground job): sig goes to the group, and what is left of
 * it when the program ends after a signal is killed. The program also gets
 * SIGKILL when the process that started it dies (PR_SET_PDEATHSIG), its
 * group too (a guard process, a child of the caller that
 * pmcf_collect_program reaps itself, watches for that), and a record folder
 * left by a killed pmcfuse is removed by the next pmcf_collect_program of
 * the same user. */
PMCF_API int pmcf_collect_signal(int sig);

/* This process's OMP_* environment (OMP_TOOL* aside), which the program
 * of pmcf_collect_program inherits, as a profile's "omp_env" metadata holds
 * it: compact JSON, keys sorted. A new string (free it); NULL when out of
 * memory. */
PMCF_API char *pmcf_collect_omp_env(void);

/* Builds the profile from a record folder written by an earlier run (e.g.
 * with record_dir set): same XUs and labels, metadata limited to what the
 * folder holds. events as given to that run. */
PMCF_API int pmcf_collect_read_dir(const char *dir, const char *const *events, size_t nevents,
				   pmcf_profile **out);

#ifdef __cplusplus
}
#endif
#endif
