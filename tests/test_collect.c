/* Unit and end-to-end tests of the collector (src/collect, perf_group):
 * Listing 1.1's 16 XUs and stable labels, exact XU counts and page-fault
 * counts for task trees and loops, a waiting task excluding its children,
 * crash/kill/exit keeping recorded XUs, the thread fallback, bad inputs. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "collect/reader.h"
#include "collect/rec.h"
#include "counters/perf_group.h"
#include "pmcfuse/collect.h"
#include "pmcfuse/profile.h"

static char build_dir[2048], examples[2300];

/* Sanitizer runtimes take page faults of their own inside the XUs (shadow
 * memory of fresh allocations, a number that depends on what other threads
 * touched first). The exact counts are checked in the normal build; under
 * ASan the slack still tells a task's own pages from its children's (a
 * waiting split task would count at least 33 pages, not 3). */
#if defined(__SANITIZE_THREAD__)
#define SLACK 1e9 /* TSan's shadow faults swamp the counts: that job checks races */
#elif defined(__SANITIZE_ADDRESS__)
#define SLACK 16.0
#else
#define SLACK 0.0
#endif
#define NEAR(v, want) ((v) >= (want) && (v) <= (want) + SLACK)
static int have_omp;

static const char *ex(const char *name)
{
	static char buf[4][2400];
	static int k;
	char *b = buf[k++ % 4];
	snprintf(b, sizeof(buf[0]), "%s/%s", examples, name);
	return b;
}

static const char *EV[] = {"page-faults", "context-switches"};

/* Runs argv, expecting return code want; the profile. */
static pmcf_profile *collect(int want, pmcf_exit_info *ei, const char *a0, ...)
{
	char *argv[16];
	int n = 0;
	va_list ap;
	va_start(ap, a0);
	argv[n++] = (char *)a0;
	while (n < 15 && (argv[n] = va_arg(ap, char *)) != NULL)
		n++;
	va_end(ap);
	argv[n] = NULL;
	pmcf_profile *p = NULL;
	pmcf_count_opts o = PMCF_COUNT_OPTS_INIT;
	int err = pmcf_collect_program(argv, EV, 2, &o, NULL, &p, ei);
	if (err != want)
		fail_msg("%s: got %d (%s: %s), want %d", a0, err, pmcf_strerror(err), pmcf_errdetail(), want);
	return p;
}

static size_t count_type(const pmcf_profile *p, const char *name, int kind)
{
	size_t n = 0;
	for (size_t i = 0; i < pmcf_profile_nxus(p); i++) {
		pmcf_xu x = PMCF_XU_INIT;
		pmcf_xu_type t = PMCF_XU_TYPE_INIT;
		pmcf_profile_xu_get(p, i, &x);
		pmcf_profile_type_get(p, x.type, &t);
		if ((!name || !strcmp(t.name, name)) && (!kind || t.kind == kind))
			n++;
	}
	return n;
}

static long find_label(const pmcf_profile *p, const char *label)
{
	for (size_t i = 0; i < pmcf_profile_nxus(p); i++) {
		pmcf_xu x = PMCF_XU_INIT;
		pmcf_profile_xu_get(p, i, &x);
		if (!strcmp(x.label, label))
			return (long)i;
	}
	return -1;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char **)a, *(char **)b); }

/* Sorted copies of the labels, joined with newlines (caller frees). */
static char *labels(const pmcf_profile *p)
{
	size_t n = pmcf_profile_nxus(p), len = 1;
	char **l = calloc(n + 1, sizeof(*l));
	for (size_t i = 0; i < n; i++) {
		pmcf_xu x = PMCF_XU_INIT;
		pmcf_profile_xu_get(p, i, &x);
		l[i] = strdup(x.label);
		len += strlen(x.label) + 1;
	}
	qsort(l, n, sizeof(*l), cmp_str);
	char *s = calloc(len, 1);
	for (size_t i = 0; i < n; i++) {
		if (i && !strcmp(l[i], l[i - 1]))
			fail_msg("label %s is not unique", l[i]);
		strcat(s, l[i]);
		strcat(s, "\n");
	}
	for (size_t i = 0; i < n; i++)
		free(l[i]);
	free(l);
	return s;
}

#define NEED_OMP()                                                                           \
	do {                                                                                 \
		if (!have_omp) {                                                             \
			printf("skipped: OpenMP examples not built (no clang-16/libomp)\n"); \
			skip();                                                              \
		}                                                                            \
	} while (0)

/* Software events a[0..n) with the given configs. */
static void sw_attrs(struct perf_event_attr *a, const uint64_t *cfg, int n)
{
	memset(a, 0, (size_t)n * sizeof(*a));
	for (int i = 0; i < n; i++) {
		a[i].type = PERF_TYPE_SOFTWARE;
		a[i].config = cfg[i];
	}
}

/* Two readings of g around 64 first-touched pages. */
static void read_around_faults(struct pmcfi_pgroup *g, struct pmcfi_pgroup_sample *s0,
			       struct pmcfi_pgroup_sample *s1)
{
	assert_int_equal(pmcfi_pgroup_read(g, s0), 0);
	char *m = malloc(64 * 4096);
	for (int i = 0; i < 64; i++)
		m[i * 4096] = 1;
	assert_int_equal(pmcfi_pgroup_read(g, s1), 0);
	free(m);
}

static void test_pgroup(void **state)
{
	(void)state;
	struct perf_event_attr a[2];
	sw_attrs(a, (const uint64_t[]){PERF_COUNT_SW_PAGE_FAULTS, PERF_COUNT_SW_TASK_CLOCK}, 2);
	const char *names[] = {"page-faults", "task-clock"};
	struct pmcfi_pgroup g;
	assert_int_equal(pmcfi_pgroup_open(&g, a, names, 2, 0), 0);
	struct pmcfi_pgroup_sample s0, s1;
	read_around_faults(&g, &s0, &s1);
	assert_true(s1.v[0] - s0.v[0] >= 60);
	assert_true(s1.v[1] > s0.v[1]);
	assert_true(s1.enabled >= s0.enabled && s1.running == s1.enabled);
	pmcfi_pgroup_close(&g);
	/* n = 0: timestamps only; bad n */
	assert_int_equal(pmcfi_pgroup_open(&g, a, names, 0, 0), 0);
	assert_int_equal(pmcfi_pgroup_read(&g, &s0), 0);
	assert_int_equal(pmcfi_pgroup_open(&g, a, names, PMCFI_PGROUP_MAX + 1, 0), PMCF_EINVAL);
	/* an event the kernel refuses */
	a[1].type = PERF_TYPE_SOFTWARE;
	a[1].config = 999;
	assert_int_equal(pmcfi_pgroup_open(&g, a, names, 2, 0), PMCF_EEVENT);
	assert_non_null(strstr(pmcf_errdetail(), "task-clock"));
}

/* Every software event in one group, the clocks included (issue 17): one
 * read(2) for all, and task-clock grouped counts what it counts alone. */
static void test_pgroup_clocks(void **state)
{
	(void)state;
	struct perf_event_attr a[4];
	sw_attrs(a,
		 (const uint64_t[]){PERF_COUNT_SW_PAGE_FAULTS, PERF_COUNT_SW_TASK_CLOCK,
				    PERF_COUNT_SW_CONTEXT_SWITCHES, PERF_COUNT_SW_CPU_CLOCK},
		 4);
	const char *names[] = {"page-faults", "task-clock", "context-switches", "cpu-clock"};
	struct pmcfi_pgroup g, solo;
	assert_int_equal(pmcfi_pgroup_open(&g, a, names, 4, 0), 0);
	assert_int_equal(g.ngroups, 1);
	assert_int_equal(g.split_clocks, 0);
	assert_int_equal(pmcfi_pgroup_open(&solo, &a[1], &names[1], 1, 0), 0);
	struct pmcfi_pgroup_sample s0, s1, o0, o1;
	assert_int_equal(pmcfi_pgroup_read(&g, &s0), 0);
	assert_int_equal(pmcfi_pgroup_read(&solo, &o0), 0);
	volatile double x = 1;
	for (int i = 0; i < 20000000; i++)
		x = x * 1.0000001 + 1e-9;
	assert_int_equal(pmcfi_pgroup_read(&solo, &o1), 0);
	assert_int_equal(pmcfi_pgroup_read(&g, &s1), 0);
	double grouped = (double)(s1.v[1] - s0.v[1]), alone = (double)(o1.v[0] - o0.v[0]);
	assert_true(alone > 1e6); /* > 1 ms of cpu */
	assert_true(grouped >= alone * 0.9 && grouped <= alone * 1.5 + 1e5);
	assert_true(s1.v[3] > s0.v[3]);
	assert_true(s1.running == s1.enabled);
	pmcfi_pgroup_close(&solo);
	pmcfi_pgroup_close(&g);
}

/* Both clocks count from the group's first read, in every short interval,
 * on a thread that does not sleep: a member of another PMU than the
 * leader's is scheduled only when the group is enabled whole (a new user
 * saw task-clock read 0 on a busy worker thread all run beside cpu-clock;
 * without the enable, 24-121 of 2000 intervals here). */
static void test_pgroup_clocks_from_start(void **state)
{
	(void)state;
	struct perf_event_attr a[3];
	sw_attrs(a,
		 (const uint64_t[]){PERF_COUNT_SW_CPU_CLOCK, PERF_COUNT_SW_TASK_CLOCK,
				    PERF_COUNT_SW_PAGE_FAULTS},
		 3);
	const char *names[] = {"cpu-clock", "task-clock", "page-faults"};
	for (int round = 0; round < 5; round++) {
		struct pmcfi_pgroup g;
		assert_int_equal(pmcfi_pgroup_open(&g, a, names, 3, 0), 0);
		struct pmcfi_pgroup_sample s[2];
		assert_int_equal(pmcfi_pgroup_read(&g, &s[0]), 0);
		int stuck = 0;
		for (int r = 0; r < 400; r++) {
			volatile double x = 1;
			for (int i = 0; i < 20000; i++)
				x += i;
			assert_int_equal(pmcfi_pgroup_read(&g, &s[(r + 1) & 1]), 0);
			const struct pmcfi_pgroup_sample *p = &s[r & 1], *q = &s[(r + 1) & 1];
			stuck += q->v[0] == p->v[0] || q->v[1] == p->v[1];
		}
		if (stuck)
			fail_msg("round %d: a clock did not advance in %d of 400 intervals", round, stuck);
		pmcfi_pgroup_close(&g);
	}
}

/* The rdpmc path without a PMU: mmap pages that say the counter is not
 * loaded (index 0) or that user reads are withdrawn make the read fall back
 * to read(2), counted, with the right values. */
static void test_pgroup_rdpmc_fallback(void **state)
{
	(void)state;
	struct perf_event_attr a[2];
	sw_attrs(a, (const uint64_t[]){PERF_COUNT_SW_PAGE_FAULTS, PERF_COUNT_SW_CONTEXT_SWITCHES}, 2);
	const char *names[] = {"page-faults", "context-switches"};
	struct pmcfi_pgroup g;
	assert_int_equal(pmcfi_pgroup_open(&g, a, names, 2, 0), 0);
	assert_int_equal(g.rdpmc, 0); /* software events: never rdpmc */
	static struct perf_event_mmap_page fake[2];
	memset(fake, 0, sizeof(fake));
	fake[0].cap_user_rdpmc = 1; /* allowed, but not loaded: index 0 */
	fake[1].cap_user_rdpmc = 0;
	g.pages[0] = &fake[0];
	g.pages[1] = &fake[1];
	g.rdpmc = 1;
	struct pmcfi_pgroup_sample s0, s1;
	read_around_faults(&g, &s0, &s1);
	assert_true(s1.v[0] - s0.v[0] >= 60);
	assert_int_equal(g.rdpmc_fallbacks, 2);
	fake[0].cap_user_rdpmc = 0; /* withdrawn */
	fake[0].index = 1;
	assert_int_equal(pmcfi_pgroup_read(&g, &s1), 0);
	assert_int_equal(g.rdpmc_fallbacks, 3);
	g.pages[0] = g.pages[1] = NULL; /* not ours to unmap */
	pmcfi_pgroup_close(&g);
}

static void test_listing11(void **state)
{
	(void)state;
	NEED_OMP();
	pmcf_exit_info ei = PMCF_EXIT_INFO_INIT;
	pmcf_profile *p = collect(0, &ei, ex("listing11"), NULL);
	assert_int_equal(ei.ompt, 1);
	assert_int_equal(pmcf_profile_nxus(p), 16);
	assert_int_equal(pmcf_profile_ntypes(p), 4);
	assert_int_equal(count_type(p, NULL, PMCF_XU_LOOP_RANGE), 2);
	assert_int_equal(count_type(p, NULL, PMCF_XU_LOOP_CHUNK), 4);
	assert_int_equal(count_type(p, NULL, PMCF_XU_TASK), 10);
	assert_string_equal(pmcf_profile_event_name(p, 0), "duration");
	/* the labels' shape (§4.1): 0.1.<parallel>.<ws rank>.<for>.<start> for
	 * ranges and chunks, then .<rank>.<task> for tasks in a range, and
	 * 0.1.<parallel>.0.<TID>.<task> for the tasks created by the region */
	for (size_t i = 0; i < 16; i++) {
		pmcf_xu x = PMCF_XU_INIT;
		pmcf_xu_type t = PMCF_XU_TYPE_INIT;
		pmcf_profile_xu_get(p, i, &x);
		pmcf_profile_type_get(p, x.type, &t);
		assert_int_equal(strncmp(x.label, "0.1.", 4), 0);
		assert_non_null(strchr(t.location, ':'));
	}
	/* exact page faults: task i touches 1 + i pages, chunk at s touches 16 + s
	 * and 17 + s pages, the tasks in the region 40 each */
	for (size_t i = 0; i < 16; i++) {
		pmcf_xu x = PMCF_XU_INIT;
		pmcf_xu_type t = PMCF_XU_TYPE_INIT;
		pmcf_profile_xu_get(p, i, &x);
		pmcf_profile_type_get(p, x.type, &t);
		double pf = pmcf_profile_value(p, i, 1);
		const char *last = strrchr(x.label, '.');
		int dots = 0;
		for (const char *c = x.label; *c; c++)
			dots += *c == '.';
		if (t.kind == PMCF_XU_LOOP_CHUNK) {
			long s = atol(last + 1);
			assert_true(pf == (double)(16 + s + 17 + s));
		} else if (t.kind == PMCF_XU_TASK && dots == 7) {
			/* …<range start>.<rank>.<addr> */
			long rank, start;
			char buf[256];
			snprintf(buf, sizeof(buf), "%s", x.label);
			*strrchr(buf, '.') = '\0';
			rank = atol(strrchr(buf, '.') + 1);
			*strrchr(buf, '.') = '\0';
			start = atol(strrchr(buf, '.') + 1);
			assert_true(pf == (double)(1 + start + rank - 1));
		} else if (t.kind == PMCF_XU_TASK) {
			assert_int_equal(dots, 5);
			assert_non_null(strstr(x.label, ".0.0.") ? x.label : strstr(x.label, ".0.1."));
			assert_true(pf == 40.0);
		}
	}
	char *l1 = labels(p);
	pmcf_profile_free(p);
	p = collect(0, &ei, ex("listing11"), NULL);
	char *l2 = labels(p);
	assert_string_equal(l1, l2);
	free(l1);
	free(l2);
	pmcf_profile_free(p);
}

static void test_cholesky(void **state)
{
	(void)state;
	NEED_OMP();
	pmcf_exit_info ei = PMCF_EXIT_INFO_INIT;
	pmcf_profile *p = collect(0, &ei, ex("cholesky"), "5", "32", NULL);
	/* nb = 5: potrf 5, trsm 10, syrk 10, gemm C(4,2)+C(3,2)+C(2,2) = 10 */
	assert_int_equal(count_type(p, "potrf", PMCF_XU_TASK), 5);
	assert_int_equal(count_type(p, "trsm", PMCF_XU_TASK), 10);
	assert_int_equal(count_type(p, "syrk", PMCF_XU_TASK), 10);
	assert_int_equal(count_type(p, "gemm", PMCF_XU_TASK), 10);
	assert_int_equal(pmcf_profile_nxus(p), 35);
	const int pages[] = {2, 4, 4, 6}; /* 32x32 doubles = 2 pages per tile */
	const char *names[] = {"potrf", "trsm", "syrk", "gemm"};
	for (size_t i = 0; i < pmcf_profile_nxus(p); i++) {
		pmcf_xu x = PMCF_XU_INIT;
		pmcf_xu_type t = PMCF_XU_TYPE_INIT;
		pmcf_profile_xu_get(p, i, &x);
		pmcf_profile_type_get(p, x.type, &t);
		for (int k = 0; k < 4; k++)
			if (!strcmp(t.name, names[k]))
				assert_true(pmcf_profile_value(p, i, 1) == pages[k]);
	}
	assert_string_equal(pmcf_profile_meta_get(p, PMCF_META_COMPLETE), "1");
	assert_string_equal(pmcf_profile_meta_get(p, PMCF_META_ARGS), "[\"5\",\"32\"]");
	assert_int_equal(strlen(pmcf_profile_meta_get(p, PMCF_META_BINARY_SHA256)), 64);
	assert_string_equal(pmcf_profile_meta_get(p, "collector"), "ompt");
	pmcf_profile_free(p);
}

static void test_loops(void **state)
{
	(void)state;
	NEED_OMP();
	pmcf_exit_info ei = PMCF_EXIT_INFO_INIT;
	setenv("OMP_NUM_THREADS", "2", 1);
	pmcf_profile *p = collect(0, &ei, ex("loops"), "65536", "3", "4096", NULL);
	/* static: 2 ranges x (1 init + 3 axpy); dynamic: 16 chunks x 3 */
	assert_int_equal(count_type(p, NULL, PMCF_XU_LOOP_RANGE), 8);
	assert_int_equal(count_type(p, NULL, PMCF_XU_LOOP_CHUNK), 48);
	/* the first-touch range: 32768 doubles = 64 pages per range at least */
	long r0 = -1;
	for (size_t i = 0; i < pmcf_profile_nxus(p) && r0 < 0; i++) {
		pmcf_xu x = PMCF_XU_INIT;
		pmcf_profile_xu_get(p, i, &x);
		if (!strncmp(x.label, "0.1.", 4) && strstr(x.label + 4, ".1.") &&
		    x.label[strlen(x.label) - 1] == '0' && x.label[strlen(x.label) - 2] == '.')
			r0 = (long)i;
	}
	assert_true(r0 >= 0);
	assert_true(pmcf_profile_value(p, (size_t)r0, 1) >= 64);
	char *l1 = labels(p);
	pmcf_profile_free(p);
	p = collect(0, &ei, ex("loops"), "65536", "3", "4096", NULL);
	char *l2 = labels(p);
	assert_string_equal(l1, l2);
	free(l1);
	free(l2);
	pmcf_profile_free(p);
	unsetenv("OMP_NUM_THREADS");
}

static void test_knapsack(void **state)
{
	(void)state;
	NEED_OMP();
	pmcf_exit_info ei = PMCF_EXIT_INFO_INIT;
	pmcf_profile *p = collect(0, &ei, ex("knapsack"), "14", "6", NULL);
	size_t n = pmcf_profile_nxus(p);
	assert_true(n > 20);
	assert_int_equal(count_type(p, NULL, PMCF_XU_TASK), n);
	char *l1 = labels(p);
	pmcf_profile_free(p);
	p = collect(0, &ei, ex("knapsack"), "14", "6", NULL);
	assert_int_equal(pmcf_profile_nxus(p), n);
	char *l2 = labels(p);
	assert_string_equal(l1, l2);
	free(l1);
	free(l2);
	pmcf_profile_free(p);
}

static void test_taskapi(void **state)
{
	(void)state;
	pmcf_exit_info ei = PMCF_EXIT_INFO_INIT;
	pmcf_profile *p = collect(0, &ei, ex("taskapi"), "4", "3", "5", NULL);
	assert_int_equal(pmcf_profile_nxus(p), 3 + 9);
	assert_int_equal(count_type(p, "split", PMCF_XU_TASK), 3);
	assert_int_equal(count_type(p, "leaf", PMCF_XU_TASK), 9);
	/* labels per fuse-task-parallel §3.1: 0.<split>, 0.<split>.<leaf> */
	for (int s = 0; s < 3; s++) {
		char l[32];
		snprintf(l, sizeof(l), "0.%d", s);
		long i = find_label(p, l);
		assert_true(i >= 0);
		/* the split waited for its leaves: its own 1 + 2 pages only */
		assert_true(NEAR(pmcf_profile_value(p, (size_t)i, 1), 3.0));
		for (int k = 0; k < 3; k++) {
			snprintf(l, sizeof(l), "0.%d.%d", s, k);
			i = find_label(p, l);
			assert_true(i >= 0);
			assert_true(NEAR(pmcf_profile_value(p, (size_t)i, 1), 5.0 * (1 + k)));
		}
	}
	pmcf_profile_free(p);
}

static void test_plain(void **state)
{
	(void)state;
	pmcf_exit_info ei = PMCF_EXIT_INFO_INIT;
	pmcf_profile *p = collect(0, &ei, ex("plain"), "3", "16", NULL);
	assert_int_equal(ei.ompt, 0);
	assert_int_equal(ei.fallback, 1);
	assert_int_equal(pmcf_profile_nxus(p), 4);
	assert_int_equal(count_type(p, "thread", PMCF_XU_THREAD), 4);
	for (int t = 1; t <= 3; t++) {
		char l[16];
		snprintf(l, sizeof(l), "0.%d", t);
		long i = find_label(p, l);
		assert_true(i >= 0);
		assert_true(pmcf_profile_value(p, (size_t)i, 1) >= 16.0 * t);
	}
	assert_string_equal(pmcf_profile_meta_get(p, "collector"), "threads");
	pmcf_profile_free(p);
}

static void crash_mode(const char *mode, int exited, int code)
{
	pmcf_exit_info ei = PMCF_EXIT_INFO_INIT;
	pmcf_profile *p = collect(PMCF_EPROGRAM, &ei, ex("crash"), mode, "12", NULL);
	assert_non_null(p);
	assert_int_equal(ei.exited, exited);
	assert_int_equal(exited ? ei.status : ei.signal, code);
	assert_int_equal(pmcf_profile_complete(p), 0);
	assert_int_equal(count_type(p, NULL, PMCF_XU_TASK), 12);
	assert_non_null(strstr(ei.message, "incomplete"));
	pmcf_profile_free(p);
}

static void test_crash(void **state)
{
	(void)state;
	NEED_OMP();
	crash_mode("segv", 0, 11);
	crash_mode("kill", 0, 9);
	crash_mode("exit", 1, 3);
}

static void test_errors(void **state)
{
	(void)state;
	pmcf_profile *p = NULL;
	char *argv[] = {"/nonexistent/program", NULL};
	assert_int_equal(pmcf_collect_program(argv, EV, 2, NULL, NULL, &p, NULL), PMCF_ENOENT);
	assert_null(p);
	char *argv2[] = {(char *)ex("plain"), NULL};
	const char *bad[] = {"page-fault"};
	assert_int_equal(pmcf_collect_program(argv2, bad, 1, NULL, NULL, &p, NULL), PMCF_EEVENT);
	const char *three[] = {"page-faults", "context-switches", "cpu-migrations"};
	pmcf_count_opts o = {.size = sizeof(o), .pmcs = 2};
	assert_int_equal(pmcf_collect_program(argv2, three, 3, &o, NULL, &p, NULL), PMCF_ETOOMANY);
	/* duration only: no counters at all */
	const char *dur[] = {"duration"};
	assert_int_equal(pmcf_collect_program(argv2, dur, 1, NULL, NULL, &p, NULL), 0);
	assert_int_equal(pmcf_profile_nevents(p), 1);
	assert_int_equal(pmcf_profile_nxus(p), 4);
	pmcf_profile_free(p);
}

/* Damaged record folders: foreign file, truncated file, zero-length file. */
static void test_reader_bad(void **state)
{
	(void)state;
	char dir[2400], path[2500];
	snprintf(dir, sizeof(dir), "%s/tests/tmp/collect-bad", build_dir);
	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/rec-1-0-0", dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 0), 0);
	close(fd);
	const char *names[] = {"page-faults"};
	pmcf_profile *p;
	assert_int_equal(pmcf_collect_read_dir(dir, names, 1, &p), 0); /* empty: nothing recorded */
	assert_int_equal(pmcf_profile_nxus(p), 0);
	pmcf_profile_free(p);
	fd = open(path, O_WRONLY | O_TRUNC);
	char junk[512];
	memset(junk, 'x', sizeof(junk));
	assert_int_equal(write(fd, junk, sizeof(junk)), (ssize_t)sizeof(junk));
	close(fd);
	assert_int_equal(pmcf_collect_read_dir(dir, names, 1, &p), PMCF_ECORRUPT);
	/* a header for 2 events read as 1 */
	struct pmcfi_rec_header h;
	memset(&h, 0, sizeof(h));
	h.magic = PMCFI_REC_MAGIC;
	h.version = PMCFI_REC_VERSION;
	h.header_size = PMCFI_REC_HEADER_SIZE;
	h.nev = 2;
	h.rec_size = pmcfi_rec_size(2);
	h.capacity = 10;
	atomic_store(&h.count, 1000); /* more than the file holds: clamped */
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_int_equal(write(fd, &h, sizeof(h)), (ssize_t)sizeof(h));
	close(fd);
	assert_int_equal(pmcf_collect_read_dir(dir, names, 1, &p), PMCF_ECORRUPT);
	const char *two[] = {"page-faults", "context-switches"};
	assert_int_equal(pmcf_collect_read_dir(dir, two, 2, &p), 0);
	assert_int_equal(pmcf_profile_nxus(p), 0);
	pmcf_profile_free(p);
	assert_int_equal(pmcf_collect_read_dir("/nonexistent/dir", two, 2, &p), -ENOENT);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const char *tmp = getenv("PMCF_TEST_TMP"); /* <build>/tests/tmp */
	if (tmp) {
		snprintf(build_dir, sizeof(build_dir), "%s", tmp);
		for (int k = 0; k < 2; k++)
			*strrchr(build_dir, '/') = '\0';
	} else
		snprintf(build_dir, sizeof(build_dir), ".");
	snprintf(examples, sizeof(examples), "%s/examples", build_dir);
	char tool[2400];
	snprintf(tool, sizeof(tool), "%s/libpmcfuse-ompt.so", build_dir);
	setenv("PMCF_OMPT_TOOL", tool, 1);
	/* sanitized builds: the preloaded collector comes before libasan */
	setenv("ASAN_OPTIONS", "verify_asan_link_order=0", 0);
	have_omp = access(ex("listing11"), X_OK) == 0;
	if (!have_omp)
		fprintf(stderr, "test_collect: no OpenMP examples (clang-16 missing): skipping them\n");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pgroup),
		cmocka_unit_test(test_pgroup_clocks),
		cmocka_unit_test(test_pgroup_clocks_from_start),
		cmocka_unit_test(test_pgroup_rdpmc_fallback),
		cmocka_unit_test(test_listing11),
		cmocka_unit_test(test_cholesky),
		cmocka_unit_test(test_loops),
		cmocka_unit_test(test_knapsack),
		cmocka_unit_test(test_taskapi),
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_crash),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_reader_bad),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
