/* tracefs: where the kernel describes its tracepoints (events/<sys>/<name>/id).
 * Finds a mounted tracefs, mounts one the way perf does when none is and this
 * process may, and otherwise says in one line what to do. */
#ifndef PMCF_COUNTERS_TRACEFS_H
#define PMCF_COUNTERS_TRACEFS_H
#include <stddef.h>

/* The environment variable that names a tracefs root (a folder holding
 * events/<sys>/<name>/id) to use instead of the system's; nothing is mounted
 * then. For tests and for tracefs mounted in odd places. */
#define PMCF_TRACEFS_ENV "PMCF_TRACEFS"

/* Writes the path of a readable tracefs events/ folder into dir[len].
 * mount: when no tracefs is mounted, mount it (tracefs on /sys/kernel/tracing,
 * else debugfs on /sys/kernel/debug) if this process has the privilege.
 * Returns 0; PMCF_ENOTSUP when none is mounted (and mounting was not asked
 * or failed), PMCF_EPARANOID when one exists but this user cannot read it;
 * the error detail (pmcf_errdetail) is one line that says what to do and
 * begins "needs tracefs, …" so that callers prefix its subject
 * ("tracepoint 'sched:sched_switch' needs tracefs, …"). */
int pmcfi_tracefs_events(char *dir, size_t len, int mount);

/* One line for `events`' header: where tracefs is and whether it can be
 * read, or why not (no mounting is tried). Writes into buf[len]. */
void pmcfi_tracefs_status(char *buf, size_t len);

#endif
