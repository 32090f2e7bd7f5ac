/* Helpers shared inside the library, not exported: error detail, logging,
 * checked allocation. */
#ifndef PMCF_UTIL_INTERNAL_H
#define PMCF_UTIL_INTERNAL_H
#include <stdarg.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "pmcfuse/base.h"
#include "x/x.h"

/* Sets this thread's error detail (printf-style) and returns err, so that
 * callers can write `return pmcfi_fail(PMCF_EINVAL, "bad %s", x);`. */
int pmcfi_fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Clears the detail (start of a public call that may fail). */
void pmcfi_clear_error(void);
/* Prefixes the current detail with "prefix: " (keeps err). */
int pmcfi_fail_prefix(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* pmcfi_shorten is in x/x.h. */

/* Logging through the installed callback. */
void pmcfi_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define PMCF_LOG_ERROR 0
#define PMCF_LOG_WARN 1
#define PMCF_LOG_INFO 2
#define PMCF_LOG_DEBUG 3

/* strdup that returns NULL on NULL input. */
char *pmcfi_strdup(const char *s);

/* Ends a child between fork and exec at once: the exit_group system call,
 * without atexit handlers or stdio flushing (both belong to the parent) and
 * without a sanitizer's exit hooks, which in a child forked from a process
 * with threads report the parent's threads as leaked. Async-signal-safe. */
static inline __attribute__((noreturn)) void pmcfi_child_exit(int code)
{
	for (;;)
		syscall(SYS_exit_group, code);
}

#define PMCF_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif
