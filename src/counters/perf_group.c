/* Per-thread perf_event groups for the collector: open with clear errors
 * (paranoid sysctl, refused event, unschedulable group, file limit), read
 * with one PERF_FORMAT_GROUP read(2) or with rdpmc from the mmap pages. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "counters/arch.h"
#include "counters/perf_group.h"
#include "util/internal.h"

int pmcfi_perf_event_open(struct perf_event_attr *attr, int pid, int group_fd)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
}

static int read_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = 99;
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 99;
		fclose(f);
	}
	return v;
}

const char *pmcfi_pgroup_errno_hint(int err)
{
	switch (err) {
	case EACCES:
	case EPERM:
		return "permission denied by kernel.perf_event_paranoid (lower it with "
		       "`sysctl -w kernel.perf_event_paranoid=1`, or run with CAP_PERFMON)";
	case EMFILE: return "too many open files (raise the limit with `ulimit -n`)";
	case ENFILE: return "too many open files in the system (fs.file-max)";
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV: return "the kernel does not support this event here";
	case EINVAL: return "the kernel refuses this event encoding";
	case ENOSPC: return "no counter left for this event";
	default: return strerror(err);
	}
}

static int is_hw_type(uint32_t type)
{
	return type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE || type == PERF_TYPE_RAW ||
	       type >= PERF_TYPE_MAX;
}

void pmcfi_pgroup_close(struct pmcfi_pgroup *g)
{
	if (g->mux && g->ref_fd >= 0)
		close(g->ref_fd);
	g->ref_fd = -1;
	for (int i = 0; i < g->n; i++) {
		if (g->pages[i])
			munmap(g->pages[i], (size_t)sysconf(_SC_PAGESIZE));
		if (g->fds[i] >= 0)
			close(g->fds[i]);
		g->pages[i] = NULL;
		g->fds[i] = -1;
	}
	g->n = 0;
	g->ngroups = 0;
}

static int is_clock(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_TASK_CLOCK || a->config == PERF_COUNT_SW_CPU_CLOCK);
}

static int any_clock(const struct perf_event_attr *attrs, int n)
{
	for (int i = 0; i < n; i++)
		if (is_clock(&attrs[i]))
			return 1;
	return 0;
}

/* Kernel groups: every event in one group (one read per boundary), led by
 * event 0. split: the software clocks each lead a group of their own, for a
 * kernel that refuses them beside other events. */
static void plan_groups(struct pmcfi_pgroup *g, const struct perf_event_attr *attrs, int n, int split)
{
	int main_group = -1;
	g->ngroups = 0;
	for (int i = 0; i < n; i++) {
		int alone = split && is_clock(&attrs[i]);
		if (alone || main_group < 0) {
			int k = g->ngroups++;
			g->lead[k] = i;
			g->nmembers[k] = 0;
			if (!alone)
				main_group = k;
			g->grp[i] = k;
		} else
			g->grp[i] = main_group;
		g->nmembers[g->grp[i]]++;
	}
}

/* The kernel PMU an event belongs to, as far as grouping goes: the type,
 * and for software events whether it is one of the clocks (each clock has
 * a PMU of its own). */
static unsigned pmu_key(const struct perf_event_attr *a) { return a->type * 2u + (unsigned)is_clock(a); }

/* user: 0, or ask for user-space reads of the hardware counters (arm64's
 * config1 bits: 1 with 32-bit counters, 2 with 64-bit ones). */
static int open_all(struct pmcfi_pgroup *g, const struct perf_event_attr *attrs, const char *const *names,
		    int n, int exclude_kernel, int split, int user)
{
	if (g->mux) {
		/* every event leads its own group */
		g->ngroups = n;
		for (int i = 0; i < n; i++) {
			g->lead[i] = i;
			g->grp[i] = i;
			g->nmembers[i] = 1;
		}
	} else
		plan_groups(g, attrs, n, split);
	for (int i = 0; i < n; i++) {
		struct perf_event_attr a = attrs[i];
		a.size = sizeof(a);
		a.read_format = (g->mux ? 0 : PERF_FORMAT_GROUP) | PERF_FORMAT_TOTAL_TIME_ENABLED |
				PERF_FORMAT_TOTAL_TIME_RUNNING;
		int lead = g->lead[g->grp[i]];
		/* a kernel group starts disabled and is enabled once whole
		 * (below), as perf does: a member of another PMU than its
		 * leader's (a clock beside page-faults, the other clock, a
		 * tracepoint beside a software event) added to a running group
		 * is not scheduled until the group is switched onto a cpu again,
		 * which a busy thread may never be (it read 0 all run) */
		a.disabled = g->mux == PMCFI_PGROUP_MUX_USER || (!g->mux && lead == i);
		a.inherit = 0;
		a.sample_period = 0;
		a.sample_type = 0;
		if (exclude_kernel && a.type != PERF_TYPE_TRACEPOINT) {
			a.exclude_kernel = 1;
			a.exclude_hv = 1;
		}
		if (user)
			pmcfi_arch_user_read_attr(&a, user == 2);
		long fd = pmcfi_perf_event_open(&a, 0, lead == i ? -1 : g->fds[lead]);
		if (fd < 0) {
			int e = errno;
			const char *nm = names && names[i] ? names[i] : "?";
			g->n = n; /* the fds not opened are -1 */
			pmcfi_pgroup_close(g);
			if (e == EACCES || e == EPERM)
				return pmcfi_fail(PMCF_EPARANOID,
						  "cannot count '%s': kernel.perf_event_paranoid=%d "
						  "denies it (lower it with `sysctl -w "
						  "kernel.perf_event_paranoid=1` or run with CAP_PERFMON)",
						  nm, read_paranoid());
			if (e == EMFILE || e == ENFILE)
				return pmcfi_fail(-e, "cannot open counter for '%s': %s", nm,
						  pmcfi_pgroup_errno_hint(e));
			if (e == ENOSPC || (lead != i && e == EINVAL))
				return pmcfi_fail(PMCF_ETOOMANY,
						  "the kernel cannot put '%s' in one group with the "
						  "events before it (%s)",
						  nm, strerror(e));
			return pmcfi_fail(PMCF_EEVENT, "the kernel refuses event '%s': %s", nm,
					  pmcfi_pgroup_errno_hint(e));
		}
		g->fds[i] = (int)fd;
	}
	g->n = n;
	for (int k = 0; !g->mux && k < g->ngroups; k++)
		if (ioctl(g->fds[g->lead[k]], PERF_EVENT_IOC_ENABLE, 0) != 0) {
			int e = errno;
			pmcfi_pgroup_close(g);
			return pmcfi_fail(-e, "cannot enable the counter group: %s", strerror(e));
		}
	return 0;
}

static void map_rdpmc(struct pmcfi_pgroup *g)
{
	long pg = sysconf(_SC_PAGESIZE);
	for (int i = 0; i < g->n; i++) {
		void *m = mmap(NULL, (size_t)pg, PROT_READ, MAP_SHARED, g->fds[i], 0);
		if (m == MAP_FAILED)
			return;
		g->pages[i] = m;
		if (!g->pages[i]->cap_user_rdpmc)
			return;
	}
	g->rdpmc = 1;
}

int pmcfi_pgroup_open(struct pmcfi_pgroup *g, const struct perf_event_attr *attrs, const char *const *names,
		      int n, unsigned flags)
{
	memset(g, 0, sizeof(*g));
	for (int i = 0; i < PMCFI_PGROUP_MAX; i++)
		g->fds[i] = -1;
	if (n < 0 || n > PMCFI_PGROUP_MAX)
		return pmcfi_fail(PMCF_EINVAL, "a group holds 0 to %d events, not %d", PMCFI_PGROUP_MAX, n);
	if (n == 0)
		return 0; /* timestamps only */
	int all_hw = 1, any_hw = 0, any_kernel = 0;
	for (int i = 0; i < n; i++) {
		if (!is_hw_type(attrs[i].type))
			all_hw = 0;
		if (is_hw_type(attrs[i].type) || attrs[i].type == PERF_TYPE_BREAKPOINT)
			any_hw = 1; /* competes for counters or debug registers */
		if (!attrs[i].exclude_kernel && attrs[i].type != PERF_TYPE_TRACEPOINT)
			any_kernel = 1;
	}
	/* arm64: user-space reads are asked for when opening (64-bit counters
	 * first, then 32-bit ones); a kernel that refuses both opens the group
	 * as it is, read with read(2) */
	int user = 0;
	if (all_hw && !(flags & PMCFI_PGROUP_NO_RDPMC) && pmcfi_arch_user_read_wanted()) {
		struct perf_event_attr probe = attrs[0];
		if (pmcfi_arch_user_read_attr(&probe, 1))
			user = 2;
	}
	int xk = 0, err = -1;
	for (; user > 0 && err; user--) {
		err = open_all(g, attrs, names, n, 0, 0, user);
		if (err == PMCF_EPARANOID && any_kernel &&
		    (err = open_all(g, attrs, names, n, 1, 0, user)) == 0)
			xk = g->excluded_kernel = 1;
		if (!err)
			break;
		pmcfi_clear_error();
	}
	if (err)
		err = open_all(g, attrs, names, n, 0, 0, 0);
	if (err == PMCF_EPARANOID && any_kernel) {
		err = open_all(g, attrs, names, n, xk = 1, 0, 0);
		if (err == 0)
			g->excluded_kernel = 1;
	}
	if (err == PMCF_ETOOMANY && any_clock(attrs, n)) {
		/* a kernel that refuses the clocks beside other events: they
		 * lead groups of their own (one more read each) */
		if ((err = open_all(g, attrs, names, n, xk, 1, 0)) == 0) {
			g->excluded_kernel = xk;
			g->split_clocks = 1;
		}
	}
	if (err)
		return err;
	for (int i = 1; i < n && g->ngroups < n; i++)
		if (pmu_key(&attrs[i]) != pmu_key(&attrs[0])) {
			g->mixed_pmus = 1; /* counted from the start: enabled whole (open_all) */
			break;
		}
	/* A group the PMU cannot hold at once is never scheduled: running stays 0.
	 * Software events and tracepoints need none: always scheduled. */
	struct pmcfi_pgroup_sample s;
	struct timespec ts = {0, 200000};
	s.enabled = s.running = 0;
	for (int tries = 0; tries < 3 && any_hw; tries++) {
		if ((err = pmcfi_pgroup_read(g, &s)) != 0) {
			pmcfi_pgroup_close(g);
			return pmcfi_fail(err, "cannot read the counter group: %s", strerror(-err));
		}
		if (s.running > 0 || s.enabled == 0)
			break;
		nanosleep(&ts, NULL);
	}
	if (s.enabled > 0 && s.running == 0) {
		pmcfi_pgroup_close(g);
		return pmcfi_fail(PMCF_ETOOMANY,
				  "the group of %d events is never scheduled: they do not fit "
				  "the counters together",
				  n);
	}
	if (all_hw && !(flags & PMCFI_PGROUP_NO_RDPMC))
		map_rdpmc(g);
	return 0;
}

#if PMCFI_ARCH_USER_READ
#define barrier() __asm__ volatile("" ::: "memory")

/* Self-monitoring read of one event from its mmap page (the protocol of
 * include/uapi/linux/perf_event.h); -1 when the counter is not loaded. */
static int read_page(struct perf_event_mmap_page *pc, uint64_t *val, uint64_t *ena, uint64_t *run)
{
	uint32_t seq, idx, mult = 0, shift = 0;
	uint64_t cnt, cyc = 0, off = 0, tcyc = 0, tmask = ~0ull, en, ru;
	int shortc = 0;
	do {
		seq = pc->lock;
		barrier();
		en = pc->time_enabled;
		ru = pc->time_running;
		if (pc->cap_user_time && en != ru) {
			cyc = pmcfi_arch_timestamp();
			mult = pc->time_mult;
			shift = pc->time_shift;
			off = pc->time_offset;
			if (pc->cap_user_time_short) {
				shortc = 1;
				tcyc = pc->time_cycles;
				tmask = pc->time_mask;
			}
		}
		idx = pc->index;
		cnt = (uint64_t)pc->offset;
		if (!pc->cap_user_rdpmc || idx == 0)
			return -1;
		int64_t ev = (int64_t)pmcfi_arch_read_counter(idx - 1);
		uint16_t w = pc->pmc_width;
		ev = (int64_t)((uint64_t)ev << (64 - w)) >> (64 - w);
		cnt += (uint64_t)ev;
		barrier();
	} while (pc->lock != seq);
	if (en != ru && mult) {
		if (shortc)
			cyc = tcyc + ((cyc - tcyc) & tmask);
		uint64_t quot = cyc >> shift, rem = cyc & (((uint64_t)1 << shift) - 1);
		uint64_t delta = off + quot * mult + ((rem * mult) >> shift);
		en += delta;
		ru += delta;
	}
	*val = cnt;
	*ena = en;
	*run = ru;
	return 0;
}
#endif

int pmcfi_pgroup_open_mux(struct pmcfi_pgroup *g, const struct perf_event_attr *attrs,
			  const char *const *names, int n, int mode)
{
	memset(g, 0, sizeof(*g));
	g->ref_fd = -1;
	for (int i = 0; i < PMCFI_PGROUP_MAX; i++)
		g->fds[i] = -1;
	if (n < 0 || n > PMCFI_PGROUP_MAX ||
	    (mode != PMCFI_PGROUP_MUX_KERNEL && mode != PMCFI_PGROUP_MUX_USER))
		return pmcfi_fail(PMCF_EINVAL, "a multiplexed group holds 0 to %d events, not %d",
				  PMCFI_PGROUP_MAX, n);
	g->mux = mode;
	int any_kernel = 0;
	for (int i = 0; i < n; i++)
		if (!attrs[i].exclude_kernel && attrs[i].type != PERF_TYPE_TRACEPOINT)
			any_kernel = 1;
	int err = open_all(g, attrs, names, n, 0, 0, 0);
	if (err == PMCF_EPARANOID && any_kernel) {
		g->mux = mode;
		err = open_all(g, attrs, names, n, 1, 0, 0);
		if (err == 0)
			g->excluded_kernel = 1;
	}
	if (err) {
		g->mux = 0;
		return err;
	}
	if (mode == PMCFI_PGROUP_MUX_USER) {
		struct perf_event_attr a;
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_TASK_CLOCK;
		a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		/* user space only when the events are (paranoid 2: the catalogue
		 * encodes them so), else the kernel refuses the reference */
		a.exclude_kernel = g->excluded_kernel || !any_kernel;
		a.exclude_hv = a.exclude_kernel;
		long fd = pmcfi_perf_event_open(&a, 0, -1);
		if (fd < 0) {
			int e = errno;
			pmcfi_pgroup_close(g);
			g->mux = 0;
			return pmcfi_fail(PMCF_EEVENT,
					  "cannot open task-clock, the time reference "
					  "of user-space multiplexing: %s",
					  pmcfi_pgroup_errno_hint(e));
		}
		g->ref_fd = (int)fd;
	}
	return 0;
}

int pmcfi_pgroup_set(struct pmcfi_pgroup *g, const uint8_t *on)
{
	int err = 0;
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < g->n; i++) {
			int want = on[i] != 0;
			if (want == g->on[i] || want != pass)
				continue;
			if (ioctl(g->fds[i], want ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0) != 0) {
				if (!err)
					err = -errno;
				continue;
			}
			g->on[i] = (uint8_t)want;
		}
	return err;
}

double pmcfi_pgroup_scaled(const struct pmcfi_pgroup_sample *s, int i)
{
	return s->run[i] ? (double)s->v[i] * (double)s->en[i] / (double)s->run[i] : 0;
}

static int read_mux(struct pmcfi_pgroup *g, struct pmcfi_pgroup_sample *s)
{
	uint64_t buf[3], ref = 0;
	ssize_t got;
	if (g->ref_fd >= 0) {
		if ((got = read(g->ref_fd, buf, sizeof(buf))) != (ssize_t)sizeof(buf))
			return got < 0 ? -errno : -EIO;
		ref = buf[0];
	}
	s->enabled = 0;
	s->running = UINT64_MAX;
	for (int i = 0; i < g->n; i++) {
		if ((got = read(g->fds[i], buf, sizeof(buf))) != (ssize_t)sizeof(buf))
			return got < 0 ? -errno : -EIO;
		s->v[i] = buf[0];
		s->en[i] = g->ref_fd >= 0 ? ref : buf[1];
		s->run[i] = buf[2];
		if (s->en[i] > s->enabled)
			s->enabled = s->en[i];
		if (s->run[i] < s->running)
			s->running = s->run[i];
	}
	if (s->running == UINT64_MAX)
		s->running = s->enabled;
	return 0;
}

int pmcfi_pgroup_read(struct pmcfi_pgroup *g, struct pmcfi_pgroup_sample *s)
{
	if (g->mux)
		return read_mux(g, s);
#if PMCFI_ARCH_USER_READ
	if (g->rdpmc) {
		int i;
		for (i = 0; i < g->n; i++) {
			uint64_t en, ru;
			if (read_page(g->pages[i], &s->v[i], &en, &ru) != 0)
				break;
			if (i == 0) {
				s->enabled = en;
				s->running = ru;
			}
		}
		if (i == g->n)
			return 0;
		/* not loaded on this cpu right now (or the kernel withdrew
		 * user reads): fall back to read(2) */
		g->rdpmc_fallbacks++;
	}
#endif
	uint64_t buf[3 + PMCFI_PGROUP_MAX];
	s->enabled = s->running = 0;
	for (int k = 0; k < g->ngroups; k++) {
		int m = g->nmembers[k];
		ssize_t want = (ssize_t)((3 + m) * sizeof(uint64_t));
		ssize_t got = read(g->fds[g->lead[k]], buf, (size_t)want);
		if (got < 0)
			return -errno;
		if (got != want || buf[0] != (uint64_t)m)
			return -EIO;
		/* the first group's times, less the largest gap of any group */
		if (k == 0) {
			s->enabled = buf[1];
			s->running = buf[2];
		} else if (buf[1] - buf[2] > s->enabled - s->running) {
			uint64_t gap = buf[1] - buf[2];
			s->running = s->enabled > gap ? s->enabled - gap : 0;
		}
		for (int i = 0, j = 3; i < g->n; i++)
			if (g->grp[i] == k)
				s->v[i] = buf[j++];
	}
	return 0;
}
