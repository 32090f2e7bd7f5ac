/* pmcfuse — profiles: all execution units (XUs) of one execution, or of a
 * fused combination, with one value per XU and event, plus metadata.
 * A profile lives in memory; pmcf_profile_open/pmcf_profile_save move it
 * from/to one SQLite file (format: docs/profile-format.md). */
#ifndef PMCFUSE_PROFILE_H
#define PMCFUSE_PROFILE_H

#include <math.h>
#include "pmcfuse/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The highest version of the file format this library reads and writes
 * (it writes version 1 unless the profile holds a label tree: recorded
 * profiles, docs/profile-format.md). Files with a higher version are
 * refused with PMCF_EVERSION. */
#define PMCF_FORMAT_VERSION 2

/* Limits of a profile (docs/profile-format.md, "Limits"): none can be
 * built with more, and a file that declares more is refused before
 * anything of it is read into memory. */
#define PMCF_PROFILE_MAX_EVENTS 65536u     /* events; truth events too */
#define PMCF_PROFILE_MAX_TYPES 16777216u   /* XU types (2^24) */
#define PMCF_PROFILE_MAX_XUS 4294967296ull /* XUs (2^32) */

/* ---- values ----------------------------------------------------------
 * Values are doubles: exact for counts below 2^53, and able to hold the
 * fractional or negative estimates of multiplexing. A missing value
 * (event not monitored for this XU, or never scheduled) is NaN, which is
 * distinct from a count of zero. */
#define PMCF_MISSING ((double)NAN)
static inline int pmcf_is_missing(double v) { return v != v; }

/* ---- XU kinds and types ----------------------------------------------- */
enum pmcf_xu_kind {
	PMCF_XU_TASK = 1,       /* one task instance */
	PMCF_XU_LOOP_CHUNK = 2, /* one chunk of a dynamic/guided loop */
	PMCF_XU_LOOP_RANGE = 3, /* one thread's iteration range of a static loop */
	PMCF_XU_REGION = 4,     /* one instance of an instrumented region */
	PMCF_XU_THREAD = 5      /* a whole thread (fallback without OMPT) */
};
/* "task", "loop-chunk", "loop-range", "region", "thread"; "unknown" otherwise. */
PMCF_API const char *pmcf_xu_kind_name(int kind);
/* The kind for one of those names, or PMCF_ENOENT. */
PMCF_API int pmcf_xu_kind_parse(const char *name);

typedef struct pmcf_xu_type {
	size_t size;      /* sizeof(pmcf_xu_type), set by PMCF_XU_TYPE_INIT (the ABI rule, pmcfuse/base.h) */
	int kind;         /* enum pmcf_xu_kind */
	const char *name; /* e.g. "gemm", "loop@main.c:42" */
	const char *location; /* source location "file:line", or "" */
} pmcf_xu_type;
#define PMCF_XU_TYPE_INIT PMCF_SIZED_INIT(pmcf_xu_type)

/* ---- XUs ---------------------------------------------------------------- */
typedef struct pmcf_xu {
	size_t size;              /* sizeof(pmcf_xu), set by PMCF_XU_INIT (the ABI rule, pmcfuse/base.h) */
	uint32_t type;            /* index into the profile's types */
	int32_t thread;           /* thread number within the execution (0-based) */
	int32_t cpu;              /* cpu it ran on, -1 when unknown */
	uint64_t start_ns;        /* start time, ns since the execution began */
	uint64_t end_ns;          /* end time (>= start_ns) */
	const char *label;        /* label, stable across executions; "" if none */
	const char *parent_label; /* label of the creating XU/region; "" if none */
} pmcf_xu;
#define PMCF_XU_INIT PMCF_SIZED_INIT(pmcf_xu)

/* Well-known metadata keys (values are UTF-8 strings). */
#define PMCF_META_PROGRAM "program"             /* path of the program, or the sim workload */
#define PMCF_META_ARGS "args"                   /* JSON array of the arguments */
#define PMCF_META_BINARY_SHA256 "binary_sha256" /* hex SHA-256 of the program binary */
#define PMCF_META_CWD "cwd"
#define PMCF_META_HOST "host"
#define PMCF_META_CPU_MODEL "cpu_model"
#define PMCF_META_KERNEL "kernel"
#define PMCF_META_PMU "pmu"                 /* PMU name(s), "none" without a hardware PMU */
#define PMCF_META_START_TIME "start_time"   /* ISO 8601 UTC */
#define PMCF_META_SOURCE "source"           /* "perf", "sim" or "fused" */
#define PMCF_META_SIM_SPEC "sim_spec"       /* full SPEC of a simulated source */
#define PMCF_META_SEED "seed"               /* execution seed (sim) */
#define PMCF_META_PMCS "pmcs"               /* counter budget used */
#define PMCF_META_EXIT_STATUS "exit_status" /* program exit status, or "signal N" */
#define PMCF_META_COMPLETE "complete"       /* "1" when the run completed, else "0" */
#define PMCF_META_MULTIPLEX "multiplex"     /* none|kernel|rr|roc */
#define PMCF_META_PERIOD_MS "period_ms"
#define PMCF_META_ESTIMATE "estimate" /* cumulative|local */
#define PMCF_META_STRATEGY "strategy" /* combination strategy of a fused profile */
#define PMCF_META_PMCFUSE_VERSION "pmcfuse_version"
/* CPU time of the whole run in ns: user + system time of the program and the
 * children it waited for (wait4's rusage), as perf stat's task-clock counts
 * it, the collector's own work in the program included. Recorded profiles
 * only (not simulated or fused ones); see pmcf_profile_cpu_in_xus. */
#define PMCF_META_CPU_TIME_NS "cpu_time_ns"
/* JSON array of the events counted in user space only because the recording
 * process could not count kernel mode (kernel.perf_event_paranoid 2, no
 * CAP_PERFMON): those of them that count only kernel activity read 0 */
#define PMCF_META_USER_SPACE_ONLY "user_space_only"
/* An execution of a plan (record --plan, run): the SHA-256 of the plan's
 * JSON, the set it monitored (0-based) and the plan's number of sets;
 * combine checks that its inputs are the sets of one plan. */
#define PMCF_META_PLAN_DIGEST "plan_digest"
#define PMCF_META_PLAN_SET "plan_set"
#define PMCF_META_PLAN_SETS "plan_sets"
/* A fused profile of sets of a plan: the sets it fuses, a JSON array of
 * set numbers in fusion order ("[0,1,2]"); it has no plan_set of its own
 * (it keeps plan_digest and plan_sets). */
#define PMCF_META_PLAN_SETS_FUSED "plan_sets_fused"

/* ---- life cycle ---------------------------------------------------------- */

/* A new empty profile (no XUs, no events, no metadata). Free with
 * pmcf_profile_free. */
PMCF_API int pmcf_profile_new(pmcf_profile **out);
PMCF_API void pmcf_profile_free(pmcf_profile *p);

/* Loads the profile file at path into memory. Errors: -ENOENT and other
 * -errno, PMCF_ENOTOURS (not a pmcfuse profile: another SQLite database or
 * not SQLite at all), PMCF_EVERSION (newer format), PMCF_ECORRUPT
 * (truncated/damaged), PMCF_ENOMEM. pmcf_errdetail() says more. */
PMCF_API int pmcf_profile_open(const char *path, pmcf_profile **out);

/* Writes the profile to path atomically: a temporary file in the same
 * directory is written, synced and renamed over path; on any failure the
 * temporary is removed and path is untouched. */
PMCF_API int pmcf_profile_save(const pmcf_profile *p, const char *path);
/* pmcf_profile_save, with the profile also as plain SQL tables whatever its
 * size (docs/profile-format.md, "SQL access"; `export --format sqlite`),
 * which pmcf_profile_save writes only for profiles up to a size. A profile
 * with more than PMCF_SQL_MAX_EVENTS events (SQLite's columns) gets the long
 * form only: the view xu_values_long, not the wide xu_values. */
#define PMCF_SQL_MAX_EVENTS 1987
PMCF_API int pmcf_profile_save_sql(const pmcf_profile *p, const char *path);

/* "<sim_spec or start_time> digest:<32 hex digits>" for p, in a new string
 * (free it); NULL when out of memory. The digest (128 bits, not
 * cryptographic) covers metadata, types, events, XUs, values and truth: two
 * profiles with the same ident are copies of one execution. */
PMCF_API char *pmcf_profile_ident(const pmcf_profile *p);

/* ---- metadata ------------------------------------------------------------ */
/* Sets (copies) or, with value NULL, removes a key. */
PMCF_API int pmcf_profile_meta_set(pmcf_profile *p, const char *key, const char *value);
/* The value of key, or NULL. Owned by the profile. */
PMCF_API const char *pmcf_profile_meta_get(const pmcf_profile *p, const char *key);
/* Keys in insertion order: i < pmcf_profile_meta_count(p). */
PMCF_API size_t pmcf_profile_meta_count(const pmcf_profile *p);
PMCF_API int pmcf_profile_meta_at(const pmcf_profile *p, size_t i, const char **key, const char **value);
/* 1 when metadata "complete" is "1". */
PMCF_API int pmcf_profile_complete(const pmcf_profile *p);
/* How much of a recorded run's CPU time its XUs hold: *in_xus, the sum of
 * the XUs' task-clock (else cpu-clock) values, ns; *run, the CPU time of the
 * whole run (PMCF_META_CPU_TIME_NS). The rest ran outside every XU: serial
 * code, the OpenMP runtime between XUs, the collector. Returns the event
 * summed, or NULL when there is no such comparison: no task-clock or
 * cpu-clock, no CPU time of the run (simulated, fused and older profiles). */
PMCF_API const char *pmcf_profile_cpu_in_xus(const pmcf_profile *p, double *in_xus, double *run);

/* ---- XU types ------------------------------------------------------------ */
/* Adds a type (strings copied) and returns its index in *id. A type with the
 * same kind, name and location already present is returned instead. */
PMCF_API int pmcf_profile_type_add(pmcf_profile *p, int kind, const char *name, const char *location,
				   uint32_t *id);
PMCF_API size_t pmcf_profile_ntypes(const pmcf_profile *p);
/* A task type's callee: the function its block calls first (the recorder's
 * guess at what the task does, docs/collector.md "Types"), kept beside the
 * name, which is the construct's enclosing function and location. set
 * copies it (NULL or "" removes it); get answers "" when there is none. */
PMCF_API int pmcf_profile_type_callee_set(pmcf_profile *p, uint32_t id, const char *callee);
PMCF_API const char *pmcf_profile_type_callee(const pmcf_profile *p, uint32_t id);
/* Fills *out with pointers owned by the profile. */
PMCF_API int pmcf_profile_type_get(const pmcf_profile *p, uint32_t id, pmcf_xu_type *out);

/* ---- events (value columns) ----------------------------------------------- */
/* Adds an event column (every XU's value missing) and returns its index.
 * Adding a name already present returns PMCF_ECONFLICT. By convention
 * recorders add "duration" first. */
PMCF_API int pmcf_profile_event_add(pmcf_profile *p, const char *name, size_t *index);
PMCF_API size_t pmcf_profile_nevents(const pmcf_profile *p);
PMCF_API const char *pmcf_profile_event_name(const pmcf_profile *p, size_t ev);
/* Index of the event called name, or PMCF_ENOENT. */
PMCF_API long pmcf_profile_event_find(const pmcf_profile *p, const char *name);

/* ---- XUs --------------------------------------------------------------------- */
PMCF_API size_t pmcf_profile_nxus(const pmcf_profile *p);
/* Makes room for n XUs in total, so that adding them allocates nothing more. */
PMCF_API int pmcf_profile_reserve(pmcf_profile *p, size_t n);
/* Appends an XU (labels copied; NULL labels mean ""), every value missing.
 * xu->type must be a valid type index. Its index is stored in *index (may be
 * NULL). */
PMCF_API int pmcf_profile_xu_add(pmcf_profile *p, const pmcf_xu *xu, size_t *index);
/* Fills *out; the label pointers stay valid until the profile is changed or
 * freed. */
PMCF_API int pmcf_profile_xu_get(const pmcf_profile *p, size_t i, pmcf_xu *out);

/* pmcf_profile_xu_get without the labels (out->label and parent_label
 * NULL), and one label as text into *buf (parent 0: the label, 1: the
 * parent label; *buf grown with realloc, the caller frees it; NULL when i
 * is out of range or memory ran out). Together they read every XU of a
 * profile whose labels are a tree (recorded programs, format version 2)
 * without making the texts of all labels at once, which
 * pmcf_profile_xu_get does on its first call (issue 33: export streams). */
PMCF_API int pmcf_profile_xu_fields_get(const pmcf_profile *p, size_t i, pmcf_xu *out);
PMCF_API const char *pmcf_profile_xu_label(const pmcf_profile *p, size_t i, int parent, char **buf,
					   size_t *cap);

/* The value of event ev for XU i; PMCF_MISSING when missing or out of range. */
PMCF_API double pmcf_profile_value(const pmcf_profile *p, size_t i, size_t ev);
PMCF_API int pmcf_profile_value_set(pmcf_profile *p, size_t i, size_t ev, double v);
/* The column of event ev: pmcf_profile_nxus(p) contiguous values, writable,
 * valid until XUs or events are added. NULL when ev is out of range. */
PMCF_API double *pmcf_profile_column(pmcf_profile *p, size_t ev);
PMCF_API const double *pmcf_profile_column_const(const pmcf_profile *p, size_t ev);

/* ---- ground truth (simulated sources) -----------------------------------------
 * The true value of every catalogue event for every XU; its own event list. */
PMCF_API int pmcf_profile_truth_event_add(pmcf_profile *p, const char *name, size_t *index);
PMCF_API size_t pmcf_profile_ntruth(const pmcf_profile *p);
PMCF_API const char *pmcf_profile_truth_name(const pmcf_profile *p, size_t tev);
PMCF_API long pmcf_profile_truth_find(const pmcf_profile *p, const char *name);
PMCF_API double *pmcf_profile_truth_column(pmcf_profile *p, size_t tev);
PMCF_API const double *pmcf_profile_truth_column_const(const pmcf_profile *p, size_t tev);

/* ---- multiplexing coverage -----------------------------------------------------
 * Per value: the ns the event was enabled and running during the XU. The
 * layer exists once pmcf_profile_coverage_enable was called (all zeros). */
PMCF_API int pmcf_profile_coverage_enable(pmcf_profile *p);
PMCF_API int pmcf_profile_has_coverage(const pmcf_profile *p);
PMCF_API int pmcf_profile_coverage_set(pmcf_profile *p, size_t i, size_t ev, uint64_t enabled_ns,
				       uint64_t running_ns);
/* PMCF_ENOENT when the profile has no coverage layer. */
PMCF_API int pmcf_profile_coverage_get(const pmcf_profile *p, size_t i, size_t ev, uint64_t *enabled_ns,
				       uint64_t *running_ns);

/* ---- provenance (fused profiles) -----------------------------------------------
 * Source profiles are listed once; each value may name the source profile
 * and the XU index in it it was taken from; each XU may carry a match
 * distance (how well its sources matched, 0 = exact; NaN = none). */
PMCF_API int pmcf_profile_source_add(pmcf_profile *p, const char *path, const char *id, uint32_t *index);
PMCF_API size_t pmcf_profile_nsources(const pmcf_profile *p);
PMCF_API int pmcf_profile_source_get(const pmcf_profile *p, uint32_t index, const char **path,
				     const char **id);
/* Enables the provenance layer (every value: source -1, xu -1). */
PMCF_API int pmcf_profile_provenance_enable(pmcf_profile *p);
PMCF_API int pmcf_profile_has_provenance(const pmcf_profile *p);
PMCF_API int pmcf_profile_provenance_set(pmcf_profile *p, size_t i, size_t ev, int32_t source,
					 int64_t source_xu);
PMCF_API int pmcf_profile_provenance_get(const pmcf_profile *p, size_t i, size_t ev, int32_t *source,
					 int64_t *source_xu);
PMCF_API int pmcf_profile_match_distance_set(pmcf_profile *p, size_t i, double d);
PMCF_API double pmcf_profile_match_distance(const pmcf_profile *p, size_t i);

/* ---- base labels (fused profiles) ------------------------------------------------
 * Per XU: the source profile that provided it (its type, thread, cpu, times:
 * the "base execution"), its XU index there, and its label there (the base
 * label). A fused XU's own label may differ (bc: the first common ancestor
 * of its sources' labels); the base label joins it with that source
 * exactly. The layer exists once a base label was set (every other XU:
 * source -1, XU -1, label ""). set copies label (NULL = ""); source must be
 * -1 or a source index, source_xu -1 exactly when source is -1. get fills
 * what is not NULL (the label stays valid until the profile is changed or
 * freed); PMCF_ENOENT when the profile has no base labels. */
PMCF_API int pmcf_profile_base_label_set(pmcf_profile *p, size_t i, int32_t source, int64_t source_xu,
					 const char *label);
PMCF_API int pmcf_profile_has_base_labels(const pmcf_profile *p);
PMCF_API int pmcf_profile_base_label_get(const pmcf_profile *p, size_t i, int32_t *source, int64_t *source_xu,
					 const char **label);

/* ---- MPI ranks -----------------------------------------------------------------
 * Per XU: the MPI rank of the process that ran it (docs/collector.md, "MPI
 * programs"). The layer exists once enabled or a rank was set (every other
 * XU: rank 0); a profile without it (every program that is not MPI, and
 * profiles written before ranks existed) reads as rank 0 everywhere.
 * Fusion pairs XUs of the same rank only. set: rank >= 0, else PMCF_EINVAL. */
PMCF_API int pmcf_profile_ranks_enable(pmcf_profile *p);
PMCF_API int pmcf_profile_has_ranks(const pmcf_profile *p);
PMCF_API int pmcf_profile_rank_set(pmcf_profile *p, size_t i, int32_t rank);
/* XU i's rank; 0 without the layer or out of range. */
PMCF_API int32_t pmcf_profile_rank(const pmcf_profile *p, size_t i);
/* The largest rank + 1 (1 without the layer or with no XU). Linear. */
PMCF_API uint32_t pmcf_profile_nranks(const pmcf_profile *p);
/* A profile of an MPI program: the XUs of each rank, counts[0 .. *nranks)
 * (malloc'd, the caller frees); NULL when p has no ranks or memory ran out. */
PMCF_API size_t *pmcf_profile_rank_counts(const pmcf_profile *p, uint32_t *nranks);

#ifdef __cplusplus
}
#endif
#endif
