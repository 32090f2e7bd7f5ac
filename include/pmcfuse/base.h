/* pmcfuse — the base of the public API: version, error codes, the ABI
 * rule, diagnostics and the types several modules share (multiplexing
 * modes, estimators, the opaque handles). Every module header includes
 * this one and nothing above its own module's needs; pmcfuse/pmcfuse.h is
 * the umbrella that includes them all. */
#ifndef PMCFUSE_BASE_H
#define PMCFUSE_BASE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(PMCF_BUILDING)
#define PMCF_API __attribute__((visibility("default")))
#else
#define PMCF_API
#endif

/* Error model: 0 is success; negative values are errors. Values in
 * (-PMCF_ERRNO_MAX, 0) are -errno from a failed system call; values at or
 * below PMCF_EBASE are the PMCF_E* codes below. */
#define PMCF_ERRNO_MAX 4096
enum {
	PMCF_EBASE = -10000,
	PMCF_EINVAL = -10001,    /* invalid argument or option value */
	PMCF_ENOTOURS = -10002,  /* the file is not a pmcfuse file */
	PMCF_EVERSION = -10003,  /* the file was written by a newer format version */
	PMCF_ECORRUPT = -10004,  /* truncated or damaged file */
	PMCF_EDB = -10005,       /* SQLite reported an error */
	PMCF_EEVENT = -10006,    /* unknown event name */
	PMCF_ENOTSUP = -10007,   /* not supported on this machine (e.g. no hardware PMU) */
	PMCF_ETOOMANY = -10008,  /* the events do not fit the counters together */
	PMCF_ENOENT = -10009,    /* no such object (event, XU, key, workload, machine) */
	PMCF_EPARANOID = -10010, /* perf_event_open denied by kernel.perf_event_paranoid */
	PMCF_ESYNTAX = -10011,   /* malformed text input (spec, list, CSV, JSON) */
	PMCF_ENOMEM = -10012,    /* out of memory */
	PMCF_ECONFLICT = -10013, /* inputs that cannot be used together */
	PMCF_EPROGRAM = -10014,  /* the profiled program failed (crashed, non-zero exit) */
	PMCF_ELAST = -10015
};

/* Sized structs. Every public struct (options, results, records: pmcf_*_opts,
 * pmcf_combine_stats, pmcf_xu, pmcf_exit_info, …) starts with size_t size,
 * which the caller sets to sizeof(the struct) as its header declares it:
 * each has a PMCF_X_INIT macro that does (PMCF_SIZED_INIT(pmcf_X) below:
 * size set, the rest zero; pmcf_categorize_options has
 * pmcf_categorize_options_init for its non-zero defaults). One rule for all of them (libpfm4's):
 * - size 0 means the struct's first published version;
 * - a size smaller than the first version is refused (PMCF_EINVAL);
 * - a size larger than this library knows (a newer header) is accepted
 *   when every byte beyond the part the library knows is zero, else refused
 *   (PMCF_EINVAL: the caller set a field this library would ignore). The
 *   library reads those bytes, padding included, so such a caller zeroes
 *   the whole struct first (memset(&o, 0, sizeof o), then the INIT macro's
 *   values and its own), as the kernel's check_zeroed_user and libpfm4
 *   ask: padding left uninitialised is refused at random, and valgrind
 *   reports a conditional jump on uninitialised bytes;
 * - options start from PMCF_X_INIT: a zeroed struct is not the defaults
 *   where the macro sets some (PMCF_PLAN_OPTS_INIT's strategy,
 *   PMCF_EPD_OPTS_INIT's bins, PMCF_CAMPAIGN_OPTS_INIT's only -1), and the
 *   detail of what it is refused for names the field and the macro;
 * - options: fields beyond the caller's size take their defaults; results:
 *   the library fills what both know and sets size to the bytes written
 *   (never a memset over the caller's struct);
 * - arrays the caller passes (in or out, with a count): element 0's size
 *   is every element's, so the library steps through them at the caller's
 *   stride (set element 0's size; = {PMCF_X_INIT} does);
 * - structs the library owns and hands out (pmcf_catalog_at, …) carry the
 *   size this library wrote, or 0 (the first version).
 * The error detail names the struct. docs/abi.md lists the structs.
 *
 * Names (tests/api_names.sh checks them): objects are made by pmcf_X_new
 * (in memory), pmcf_X_open (attached to a file or folder it reads later),
 * pmcf_X_load / pmcf_X_read / pmcf_X_from_* (read whole) or a verb that
 * computes one (pmcf_plan_make_evlist, pmcf_cover_pairs_evlist), and always released by
 * pmcf_X_free (NULL is a no-op). Accessors put the noun first: pmcf_X_NOUN
 * returns a value, pmcf_X_NOUN_get fills an out-parameter, pmcf_X_NOUN_set
 * sets, pmcf_X_NOUN_at(x, i) is element i, pmcf_X_nNOUNS counts, and
 * pmcf_X_NOUN_add appends. pmcf_task_* (create, begin, pause, end) are
 * events of the recorded program's tasks, not library objects. */

/* The initialiser of a sized struct whose other fields default to zero:
 * PMCF_X_INIT is PMCF_SIZED_INIT(pmcf_X). In C a designated initialiser; in
 * C++ a value-initialised copy with size set (g++ -Wextra warns about the
 * members a braced initialiser leaves out, designated or not). */
/* The same with one field set to a non-zero default (field = value). */
#ifdef __cplusplus
#define PMCF_SIZED_INIT(T) (::pmcf_sized_init<T>())
#define PMCF_SIZED_INIT_WITH(T, field, value)  \
	([] {                                  \
		T o_ = ::pmcf_sized_init<T>(); \
		o_.field = value;              \
		return o_;                     \
	}())
#else
#define PMCF_SIZED_INIT(T)        \
	{                         \
		.size = sizeof(T) \
	}
#define PMCF_SIZED_INIT_WITH(T, field, value)     \
	{                                         \
		.size = sizeof(T), .field = value \
	}
#endif

/* ---- types several modules share ------------------------------------------ */
/* Opaque handles, declared once here so that a module header names another
 * module's object without including its header. */
typedef struct pmcf_catalog pmcf_catalog;
typedef struct pmcf_evlist pmcf_evlist;
typedef struct pmcf_profile pmcf_profile;
typedef struct pmcf_plan pmcf_plan;
typedef struct pmcf_source pmcf_source;
typedef struct pmcf_exit_info pmcf_exit_info;

/* Multiplexing modes and estimators (docs/multiplexing.md), shared by the
 * source, simulator and collector options; names in pmcfuse/multiplex.h. */
enum pmcf_mux_mode {
	PMCF_MUX_NONE = 0,      /* every event on its own counter, or an error */
	PMCF_MUX_KERNEL = 1,    /* perf's rotation: list pointer moves by one event per period */
	PMCF_MUX_RR = 2,        /* user-space round-robin: fills the counters; next period starts at the
	                    first left out */
	PMCF_MUX_ROC = 3,       /* rate-of-change scheduler (rate-of-change-multiplexing §3), the
	                     triangle cost in samples (counts / the event's count per ms) */
	PMCF_MUX_ROC_COUNTS = 4 /* the same with the triangle cost in raw counts (eq. 5 as
	                           printed, no per-event normalisation) */
};
enum pmcf_estimate {
	PMCF_EST_CUMULATIVE = 0, /* thread's scaled cumulative count at XU end minus at start */
	PMCF_EST_LOCAL = 1       /* count while running during the XU x duration / running time */
};

/* What a recording counts and how: the one options struct of every
 * recording, simulated or real (pmcf_source_new_sim, pmcf_source_new_program,
 * pmcf_sim_record, pmcf_collect_program), the command's --pmcs, --multiplex,
 * --period and --estimate. All zero (PMCF_COUNT_OPTS_INIT) is the default:
 * the machine's counters, no multiplexing. */
typedef struct pmcf_count_opts {
	size_t size;      /* sizeof(pmcf_count_opts) */
	unsigned pmcs;    /* counter budget (0: the machine's own counters; with
			     PMCF_MUX_RR or PMCF_MUX_ROC on a real program, 4) */
	int multiplex;    /* enum pmcf_mux_mode; PMCF_MUX_NONE refuses a set that
			     does not fit the counters (PMCF_ETOOMANY) */
	double period_ms; /* multiplexing period, 0.001 to 1e6 ms (0: 4 ms; the
			     kernel's rotation rounds it to whole ms) */
	int estimate;     /* enum pmcf_estimate: per-XU value under multiplexing */
} pmcf_count_opts;
#define PMCF_COUNT_OPTS_INIT PMCF_SIZED_INIT(pmcf_count_opts)

/* How a real program runs, beside what it counts (pmcf_source_new_program,
 * pmcf_collect_program). All zero (PMCF_PROGRAM_OPTS_INIT) is the default. */
typedef struct pmcf_program_opts {
	size_t size;            /* sizeof(pmcf_program_opts) */
	const char *record_dir; /* folder for the record files (created when
				   missing, kept); NULL: a temporary folder,
				   removed afterwards */
	const char *tool_path;  /* libpmcfuse-ompt.so; NULL: $PMCF_OMPT_TOOL, then
				   beside the running executable, then the
				   install location */
	unsigned chunk_kb;      /* record file chunk per thread (0: 8192 KiB) */
	/* Where the program's standard output and error go: file descriptors
	 * of the caller (kept open; the program gets copies), or 0 to inherit
	 * the caller's own (fd 0 is never an output). */
	int stdout_fd, stderr_fd;
} pmcf_program_opts;
#define PMCF_PROGRAM_OPTS_INIT PMCF_SIZED_INIT(pmcf_program_opts)

/* Text for any error code (PMCF_E* or -errno). Never NULL; static storage. */
PMCF_API const char *pmcf_strerror(int err);

/* The detail of the last error raised on this thread by the library, e.g.
 * "unknown event 'PAPI_TOT_IN' (did you mean PAPI_TOT_INS?)". Empty string
 * when the last failing call left no detail. Thread-local storage, valid
 * until the next library call on this thread. */
PMCF_API const char *pmcf_errdetail(void);

/* Diagnostics: the library never prints; it calls this function (when set)
 * with a level (0 error, 1 warning, 2 info, 3 debug) and a one-line message
 * without trailing newline. Messages above the level set here, or in the
 * PMCF_DEBUG environment variable when higher, are dropped. */
typedef void (*pmcf_log_fn)(int level, const char *msg, void *ctx);
PMCF_API void pmcf_log_set(pmcf_log_fn fn, void *ctx, int level);

/* The library's version, "MAJOR.MINOR.PATCH" ("0.2.0"); its soname is
 * libpmcfuse.so.1 (docs/abi.md, "Versions"). */
PMCF_API const char *pmcf_version(void);

#ifdef __cplusplus
}
template <typename T> static inline T pmcf_sized_init()
{
	T t = T();
	t.size = sizeof(T);
	return t;
}
#endif
#endif
