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

/* A continuation byte of a UTF-8 sequence */
#define UTF8_CONT(c) (((unsigned char)(c)&0xC0) == 0x80)

/* Replaces s[at, at + len) by "..." keeping at most keep bytes of it (half
 * before, half after, whole UTF-8 sequences); returns the new length of s. */
static size_t cut_middle(char *s, size_t n, size_t at, size_t len, size_t keep)
{
	size_t head = keep / 2, tail = keep - head;
	while (head > 0 && UTF8_CONT(s[at + head]))
		head--;
	size_t from = at + len - tail;
	while (from < at + len && UTF8_CONT(s[from]))
		from++;
	memcpy(s + at + head, "...", 3);
	memmove(s + at + head + 3, s + from, n - from + 1);
	return n - (from - (at + head + 3));
}

void pmcfi_shorten(char *dst, size_t cap, const char *src)
{
	enum { KEEP = 60 }; /* bytes of a cut word that stay */
	size_t n = strlen(src);
	if (cap == 0)
		return;
	char *s = n < cap ? NULL : strdup(src);
	if (!s) { /* it fits (or no memory: cut at the end) */
		snprintf(dst, cap, "%s", src);
		return;
	}
	while (n >= cap) {
		size_t best = 0, blen = 0; /* the longest word */
		for (size_t i = 0; i < n;) {
			size_t j = i;
			while (j < n && s[j] != ' ')
				j++;
			if (j - i > blen)
				best = i, blen = j - i;
			i = j + 1;
		}
		if (blen <= KEEP + 3)
			break;
		size_t excess = n - (cap - 1);
		size_t keep = blen > excess + 3 + KEEP ? blen - excess - 3 : KEEP;
		n = cut_middle(s, n, best, blen, keep);
	}
	if (n >= cap && cap > 8)
		n = cut_middle(s, n, 0, n, cap - 4);
	snprintf(dst, cap, "%s", s);
	free(s);
}

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

void pmcf_set_log(pmcf_log_fn fn, void *ctx, int level)
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
