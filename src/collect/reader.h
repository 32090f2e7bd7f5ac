/* Reads a folder of collector record files (rec.h) into a profile: the XUs
 * with their summed segments, labels per fuse-openmp §4.1 (OpenMP) and
 * fuse-task-parallel §3.1 (task API), and types named from debug info. */
#ifndef PMCF_COLLECT_READER_H
#define PMCF_COLLECT_READER_H
#include <stddef.h>
#include <stdint.h>
#include "pmcfuse/profile.h"

struct pmcfi_collect_stats {
	size_t xus;             /* XUs added to the profile */
	size_t incomplete;      /* XUs started but never finished (dropped) */
	size_t dropped;         /* records lost because a record file could not grow */
	size_t multiplexed;     /* XUs during which an event's time_running < its time_enabled */
	int mux;                /* the collection's enum pmcf_mux_mode (0: none) */
	size_t rotations;       /* user-space rotations, all threads */
	size_t negative;        /* values below zero (cumulative estimator) */
	size_t missing;         /* values missing (never counted: see pmcfi_collect_read_est) */
	size_t threads;         /* threads that recorded */
	size_t ranks;           /* processes with an MPI rank (0: not an MPI program) */
	int ompt;               /* an OMPT runtime loaded the tool */
	int api;                /* the task API was used */
	int fallback;           /* one XU per thread (no OMPT, no task API) */
	char ompt_missing[256]; /* OMPT callbacks the runtime did not grant */
	char tool_error[1024];  /* the tool's setup error, "" when none */
	int stop_errno;         /* why a thread stopped recording (ENOSPC: no room for
				   records), 0 when none did */
};

/* Adds "duration" and the events names[0..nev) as columns of p (an empty
 * profile) and one XU per finished XU found in dir. t0: CLOCK_MONOTONIC ns
 * of the execution start (0: the earliest record). Errors: -errno reading
 * the folder, PMCF_ECORRUPT (a record file that is not ours or damaged),
 * PMCF_ENOMEM. */
int pmcfi_collect_read(const char *dir, const char *const *names, size_t nev, uint64_t t0, pmcf_profile *p,
		       struct pmcfi_collect_stats *st);
/* The same; when the collection multiplexed, each value is the per-XU
 * estimate named by estimate (enum pmcf_estimate): cumulative, the sum over
 * the XU's segments of the difference of scaled cumulative counts (may be
 * negative; a segment that ends before the event ever ran on its thread
 * adds nothing), PMCF_MISSING when no segment ends after the event has run;
 * local, raw x enabled / running summed over the segments, PMCF_MISSING when
 * the event never ran during the XU. The coverage layer
 * then holds per value the enabled and running ns. */
int pmcfi_collect_read_est(const char *dir, const char *const *names, size_t nev, uint64_t t0, int estimate,
			   pmcf_profile *p, struct pmcfi_collect_stats *st);

/* The same for events counted as several natives (PAPI presets,
 * counters/derive.h): the record files hold the natives names[0..nev); the
 * profile gets one column per dv[0..ndv) (dv[o].name), the value computed
 * from its natives [first, first + n) per XU, missing when one of them is
 * (multiplexing: each native is estimated first; the counts of negative and
 * missing values in *st are per native). dv NULL: the natives are the
 * events (pmcfi_collect_read_est). PMCF_EINVAL for a dv naming natives
 * beyond nev. */
struct pmcfi_derive;
int pmcfi_collect_read_derived(const char *dir, const char *const *names, size_t nev,
			       const struct pmcfi_derive *dv, size_t ndv, uint64_t t0, int estimate,
			       pmcf_profile *p, struct pmcfi_collect_stats *st);

/* Where the calling thread's last pmcf_collect_program spent its time, for
 * benchmarks (bench/bench_collect.c): the program itself (fork to wait) and
 * the launcher's work before and after it. ns, CLOCK_MONOTONIC. */
struct pmcfi_collect_timing {
	uint64_t setup_ns;   /* events, preflight group, tool, record folder */
	uint64_t program_ns; /* fork .. waitpid */
	uint64_t read_ns;    /* record files -> profile, metadata, cleanup */
};
extern _Thread_local struct pmcfi_collect_timing pmcfi_collect_last_timing;
#endif
