/* Error codes to text, the per-thread error detail, and the log callback. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pmcf_version.h"
#include "util/internal.h"

static _Thread_local char detail[1024];

static pmcf_log_fn log_fn;
static void *log_ctx;
static int log_level = -1; /* -1: not yet initialised from PMCF_DEBUG */

const char *pmcf_strerror(int err)
{
	switch (err) {
	case 0: return "success";
	case PMCF_EINVAL: return "invalid argument";
	case PMCF_ENOTOURS: return "not a pmcfuse file";
	case PMCF_EVERSION: return "file written by a newer version of pmcfuse";
	case PMCF_ECORRUPT: return "truncated or damaged file";
	case PMCF_EDB: return "database error";
	case PMCF_EEVENT: return "unknown event";
	case PMCF_ENOTSUP: return "not supported on this machine";
	case PMCF_ETOOMANY: return "events do not fit the counters";
	case PMCF_ENOENT: return "not found";
	case PMCF_EPARANOID: return "perf_event_open denied by kernel.perf_event_paranoid";
	case PMCF_ESYNTAX: return "syntax error";
	case PMCF_ENOMEM: return "out of memory";
	case PMCF_ECONFLICT: return "inputs cannot be used together";
	case PMCF_EPROGRAM: return "the profiled program failed";
	default: break;
	}
	if (err < 0 && err > -PMCF_ERRNO_MAX)
		return strerror(-err);
	return "unknown error";
}

const char *pmcf_errdetail(void) { return detail; }

void pmcfi_clear_error(void) { detail[0] = '\0'; }

/* The messages are formatted whole (a path of any length, the reason after
 * it kept), then shortened in the middle of their longest words. */
int pmcfi_fail(int err, const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	pmcfi_shorten(detail, sizeof(detail), msg ? msg : "out of memory");
	free(msg);
	return err;
}

int pmcfi_fail_prefix(int err, const char *fmt, ...)
{
	char *msg = NULL, *both = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (msg && detail[0] && asprintf(&both, "%s: %s", msg, detail) < 0)
		both = NULL;
	pmcfi_shorten(detail, sizeof(detail), both ? both : msg ? msg : "out of memory");
	free(both);
	free(msg);
	return err;
}

void pmcf_log_set(pmcf_log_fn fn, void *ctx, int level)
{
	log_fn = fn;
	log_ctx = ctx;
	const char *env = getenv("PMCF_DEBUG");
	int env_level = env ? atoi(env) : 0;
	log_level = level > env_level ? level : env_level;
}

void pmcfi_log(int level, const char *fmt, ...)
{
	if (!log_fn || level > log_level)
		return;
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_fn(level, msg, log_ctx);
}

char *pmcfi_strdup(const char *s) { return s ? strdup(s) : NULL; }

const char *pmcf_version(void) { return PMCF_VERSION_STRING; }
