/* pmcfuse — public base API: version, error codes, diagnostics.
 * Every other public header includes this one. */
#ifndef PMCFUSE_PMCFUSE_H
#define PMCFUSE_PMCFUSE_H

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

/* Sized structs. Every struct a caller passes in or gets filled (options,
 * results: pmcf_*_opts, pmcf_combine_stats, pmcf_host_info, …) starts with
 * size_t size, which the caller sets to sizeof(the struct) as its header
 * declares it (the *_INIT macros do). One rule for all of them (libpfm4's):
 * - size 0 means the struct's first published version;
 * - a size smaller than the first version is refused (PMCF_EINVAL);
 * - a size larger than this library knows (a newer header) is accepted
 *   when every byte beyond the part the library knows is zero, else refused
 *   (PMCF_EINVAL: the caller set a field this library would ignore);
 * - options: fields beyond the caller's size take their defaults; results:
 *   the library fills what both know and sets size to the bytes written.
 * The error detail names the struct. */

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
PMCF_API void pmcf_set_log(pmcf_log_fn fn, void *ctx, int level);

/* "0.1.0" */
PMCF_API const char *pmcf_version(void);

#ifdef __cplusplus
}
#endif
/* The recording interface (a simulated or real source) comes with the base API. */
#include "pmcfuse/source.h"
#endif
