/* One perf_event group per thread, read with one system call
 * (PERF_FORMAT_GROUP with enabled/running times) or, when every counter is a
 * hardware counter the kernel lets user space read, with rdpmc. Used by the
 * collector's hot path: reading allocates nothing and takes no lock. */
#ifndef PMCF_COUNTERS_PERF_GROUP_H
#define PMCF_COUNTERS_PERF_GROUP_H
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#define PMCFI_PGROUP_MAX 64

/* The library's one perf_event_open(2) call: event attr on thread pid (0:
 * the calling thread), any CPU, in group_fd's group (-1: a group of its
 * own), close-on-exec. Returns the descriptor, or -1 with errno set. */
int pmcfi_perf_event_open(struct perf_event_attr *attr, int pid, int group_fd);

struct pmcfi_pgroup {
	int n; /* number of events */
	int fds[PMCFI_PGROUP_MAX];
	/* Kernel groups: one, holding every event (software clocks included),
	 * read with one read(2). Only when the kernel refuses a clock beside
	 * the other events (split_clocks = 1) does each clock lead a group of
	 * its own. Group k is led by event lead[k] and holds the events whose
	 * grp[] is k, in order. mixed_pmus: the group holds events of several
	 * PMUs (task-clock beside page-faults). The kernel schedules a member
	 * of another PMU than the leader's added to a running group only at
	 * the group's next switch onto a cpu, so a group is opened with its
	 * leader disabled and enabled whole once every member is in. */
	int ngroups;
	int split_clocks, mixed_pmus;
	int lead[PMCFI_PGROUP_MAX];
	int grp[PMCFI_PGROUP_MAX];
	int nmembers[PMCFI_PGROUP_MAX];
	struct perf_event_mmap_page *pages[PMCFI_PGROUP_MAX]; /* rdpmc path, else NULL */
	int rdpmc;                                            /* 1: read with rdpmc */
	uint64_t rdpmc_fallbacks;                             /* rdpmc reads that fell back to read(2) */
	int excluded_kernel;                                  /* 1: opened with exclude_kernel */
	/* Multiplexed opening (pmcfi_pgroup_open_mux): every event is its own
	 * group. PMCFI_PGROUP_MUX_KERNEL: all enabled, the kernel rotates them;
	 * PMCFI_PGROUP_MUX_USER: opened disabled, the caller enables at most its
	 * counter budget (pmcfi_pgroup_set), and ref_fd (task-clock, no counter)
	 * gives the thread's time on a cpu, which disabled events do not see. */
	int mux;
	int ref_fd;
	uint8_t on[PMCFI_PGROUP_MAX]; /* user mode: enabled now */
};

/* One reading: cumulative counts since the group was opened. */
struct pmcfi_pgroup_sample {
	uint64_t enabled, running; /* ns enabled / on the PMU (the least covered group) */
	uint64_t v[PMCFI_PGROUP_MAX];
	/* multiplexed groups only: per event, the ns it could have counted (its
	 * own time_enabled in kernel mode, the thread's task-clock in user mode)
	 * and the ns it counted (time_running) */
	uint64_t en[PMCFI_PGROUP_MAX], run[PMCFI_PGROUP_MAX];
};

/* pmcfi_pgroup_open flags */
#define PMCFI_PGROUP_NO_RDPMC 1u /* never use rdpmc */

/* Opens attrs[0..n) as one group counting the calling thread on any cpu
 * (each attr copied; read_format, disabled and sampling fields are set here).
 * names[i] (may be NULL) only serve the error details. When kernel counting
 * is refused, retries with exclude_kernel (except tracepoints). Checks that
 * the group gets scheduled. Errors with pmcf_errdetail(): PMCF_EPARANOID
 * (names the sysctl), PMCF_EEVENT (an event the kernel refuses), PMCF_ETOOMANY
 * (the group cannot be scheduled together), -EMFILE/-ENFILE (too many open
 * files), PMCF_EINVAL (n out of range). n = 0 opens nothing (reads give
 * zeros). On error nothing stays open. */
int pmcfi_pgroup_open(struct pmcfi_pgroup *g, const struct perf_event_attr *attrs, const char *const *names,
		      int n, unsigned flags);

/* Reads all counters at once into *s. Hot path: no allocation, no lock, one
 * read(2) (or none with rdpmc). Returns 0 or -errno. */
int pmcfi_pgroup_read(struct pmcfi_pgroup *g, struct pmcfi_pgroup_sample *s);

void pmcfi_pgroup_close(struct pmcfi_pgroup *g);

#define PMCFI_PGROUP_MUX_KERNEL 1
#define PMCFI_PGROUP_MUX_USER 2
/* Opens attrs[0..n) for multiplexing (mode PMCFI_PGROUP_MUX_*): one group
 * per event, read with the per-event enabled/running times (the sample's
 * en[]/run[]; enabled = the largest en, running = the smallest run). User
 * mode opens every event disabled. Errors as pmcfi_pgroup_open, except that
 * the set need not fit the counters. */
int pmcfi_pgroup_open_mux(struct pmcfi_pgroup *g, const struct perf_event_attr *attrs,
			  const char *const *names, int n, int mode);

/* User mode: enables the events with on[i] = 1 and disables the others
 * (only the changes; disables first). Async-signal-safe (ioctl only), so a
 * timer signal handler may rotate. Returns 0 or -errno of the first failure. */
int pmcfi_pgroup_set(struct pmcfi_pgroup *g, const uint8_t *on);

/* The scaled cumulative count of event i in s, raw x en / run (0 when it
 * never ran): what PAPI_read returns under multiplexing. */
double pmcfi_pgroup_scaled(const struct pmcfi_pgroup_sample *s, int i);

/* A system-call-free error text for the errno of a failed open (for the
 * collector tool, which cannot use the library's error detail). */
const char *pmcfi_pgroup_errno_hint(int err);

#endif
