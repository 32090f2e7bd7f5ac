/* Unit tests of the event catalogue: the perf catalogue of this machine
 * (software, hardware, hw-cache, tracepoints, libpfm4 native events), lookup,
 * suggestions, event-list parsing, the compatibility check and encoding. */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include "row_check.h"
#include <perfmon/pfmlib.h>
#include "counters/perf.h"
#include "counters/perf_group.h"
#include "counters/tracefs.h"
#include "util/internal.h"
#include "pmcfuse/events.h"

static pmcf_catalog *full;   /* PROBE, every source */
static int has_pmu;          /* this machine counts "instructions" */
static int tracefs_readable; /* /sys/kernel/tracing/events can be listed */

static int open_hw_instructions(void)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	int fd = pmcfi_perf_event_open(&a, 0, -1);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

static int setup(void **state)
{
	(void)state;
	has_pmu = open_hw_instructions();
	/* as the tool does when a tracepoint is named: mounted if need be */
	char dir[4096];
	tracefs_readable = pmcfi_tracefs_events(dir, sizeof(dir), 1) == 0;
	if (!tracefs_readable)
		printf("tracepoint cases skipped: tracepoint %s\n", pmcf_errdetail());
	pmcfi_clear_error();
	return pmcf_catalog_perf(PMCF_CATALOG_PROBE, &full) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	pmcf_catalog_free(full);
	return 0;
}

static const pmcf_event_info *get(const pmcf_catalog *c, const char *name)
{
	long i = pmcf_catalog_find(c, name);
	return i < 0 ? NULL : pmcf_catalog_at(c, (size_t)i);
}

static size_t count_source(const pmcf_catalog *c, const char *source)
{
	size_t n = 0;
	for (size_t i = 0; i < pmcf_catalog_size(c); i++)
		n += strcmp(pmcf_catalog_at(c, i)->source, source) == 0;
	return n;
}

static void test_catalog_contents(void **state)
{
	(void)state;
	assert_string_equal(pmcf_catalog_name(full), "perf");
	const pmcf_event_info *d = pmcf_catalog_at(full, 0);
	assert_string_equal(d->name, "duration");
	assert_string_equal(d->source, PMCF_SRC_PSEUDO);
	assert_int_equal(d->available, 1);
	assert_int_equal(d->cost, 0);

	const pmcf_event_info *tc = get(full, "task-clock");
	assert_non_null(tc);
	assert_string_equal(tc->source, PMCF_SRC_SOFTWARE);
	assert_int_equal(tc->available, 1);
	assert_int_equal(tc->cost, 1);
	assert_null(tc->pmu);

	const pmcf_event_info *ins = get(full, "instructions");
	assert_non_null(ins);
	assert_string_equal(ins->source, PMCF_SRC_HARDWARE);
	assert_int_equal(ins->available, has_pmu);

	static const char *const present[] = {
		"cpu-clock",
		"page-faults",
		"context-switches",
		"cpu-migrations",
		"minor-faults",
		"major-faults",
		"alignment-faults",
		"emulation-faults",
		"cycles",
		"cache-references",
		"cache-misses",
		"branch-instructions",
		"branch-misses",
		"bus-cycles",
		"stalled-cycles-frontend",
		"stalled-cycles-backend",
		"ref-cycles",
		"L1-dcache-loads",
		"L1-dcache-load-misses",
		"L1-dcache-stores",
		"L1-icache-load-misses",
		"LLC-loads",
		"LLC-store-misses",
		"dTLB-load-misses",
		"iTLB-loads",
		"branch-loads",
		"branch-load-misses",
		"node-prefetches",
	};
	for (size_t i = 0; i < sizeof(present) / sizeof(present[0]); i++)
		if (!get(full, present[i]))
			fail_msg("'%s' missing from the catalogue", present[i]);
	static const char *const absent[] = {"dummy", "bpf-output", "iTLB-stores", "branch-prefetches",
					     "L1-icache-stores"};
	for (size_t i = 0; i < sizeof(absent) / sizeof(absent[0]); i++)
		if (get(full, absent[i]))
			fail_msg("'%s' should not be in the catalogue", absent[i]);
	assert_int_equal(count_source(full, PMCF_SRC_SOFTWARE), 10);
	assert_int_equal(count_source(full, PMCF_SRC_HARDWARE), 10);
	assert_int_equal(count_source(full, PMCF_SRC_HWCACHE), 32);

	/* costs: 0 only for duration and fixed-counter events */
	for (size_t i = 1; i < pmcf_catalog_size(full); i++) {
		const pmcf_event_info *e = pmcf_catalog_at(full, i);
		int fixed = e->constraints && strstr(e->constraints, "\"fixed\":true");
		if (e->cost != (fixed ? 0u : 1u))
			fail_msg("'%s' costs %u", e->name, e->cost);
		if (e->available != 0 && e->available != 1)
			fail_msg("'%s' not probed (%d)", e->name, e->available);
		if (strcmp(e->source, PMCF_SRC_PMU) == 0 && (!e->pmu || !strstr(e->name, "::")))
			fail_msg("native event '%s' without its PMU", e->name);
	}
}

static void test_catalog_tracepoints(void **state)
{
	(void)state;
	if (!tracefs_readable) {
		printf("skipped: tracefs cannot be used here (see the first line)\n");
		skip();
	}
	size_t n = count_source(full, PMCF_SRC_TRACEPOINT);
	assert_true(n >= 100);
	const pmcf_event_info *sw = get(full, "sched:sched_switch");
	assert_non_null(sw);
	assert_string_equal(sw->source, PMCF_SRC_TRACEPOINT);
	assert_int_equal(sw->available, pmcfi_perf_kernel_allowed());
	/* sorted by system, then event, so listings are stable */
	const char *prev = NULL;
	for (size_t i = 0; i < pmcf_catalog_size(full); i++) {
		const pmcf_event_info *e = pmcf_catalog_at(full, i);
		if (strcmp(e->source, PMCF_SRC_TRACEPOINT) != 0)
			continue;
		const char *colon = strchr(e->name, ':');
		assert_non_null(colon);
		if (prev) {
			const char *pc = strchr(prev, ':');
			size_t lp = (size_t)(pc - prev), le = (size_t)(colon - e->name);
			int sys = strncmp(prev, e->name, lp < le ? lp : le);
			if (sys == 0)
				sys = lp < le ? -1 : lp > le;
			if (sys > 0 || (sys == 0 && strcmp(pc, colon) >= 0))
				fail_msg("'%s' listed before '%s'", prev, e->name);
		}
		prev = e->name;
	}
}

static void test_catalog_flags(void **state)
{
	(void)state;
	pmcf_catalog *c;
	assert_int_equal(pmcf_catalog_perf(PMCF_CATALOG_NO_TRACEPOINTS | PMCF_CATALOG_NO_PMU, &c), 0);
	assert_int_equal(count_source(c, PMCF_SRC_TRACEPOINT), 0);
	assert_int_equal(count_source(c, PMCF_SRC_PMU), 0);
	assert_int_equal(pmcf_catalog_size(c), 1 + 10 + 10 + 32);
	for (size_t i = 0; i < pmcf_catalog_size(c); i++) {
		const pmcf_event_info *e = pmcf_catalog_at(c, i);
		assert_int_equal(e->available, i == 0 ? 1 : -1);
	}
	pmcf_catalog_free(c);
}

static void test_catalog_find(void **state)
{
	(void)state;
	static const struct {
		int line;
		const char *query, *want; /* want NULL: PMCF_EEVENT */
	} rows[] = {
		{__LINE__, "task-clock", "task-clock"},
		/* perf's own names are case-sensitive, as `perf stat -e TASK-CLOCK` refuses it */
		{__LINE__, "TASK-CLOCK", NULL},
		{__LINE__, "Duration", "duration"},
		{__LINE__, "l1-dcache-load-misses", NULL},
		{__LINE__, "llc-loads", NULL},
		{__LINE__, "task-clok", NULL},
		{__LINE__, "", NULL},
		{__LINE__, "cs", NULL}, /* perf aliases are not entries */
	};
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		long i = pmcf_catalog_find(full, rows[r].query);
		if (!rows[r].want) {
			ROW_CHECK(rows[r].line, i == PMCF_EEVENT, "'%s' found (%ld)", rows[r].query, i);
			continue;
		}
		ROW_CHECK(rows[r].line, i >= 0, "'%s' not found", rows[r].query);
		ROW_CHECK(rows[r].line, strcmp(pmcf_catalog_at(full, (size_t)i)->name, rows[r].want) == 0,
			  "'%s' found as '%s'", rows[r].query, pmcf_catalog_at(full, (size_t)i)->name);
	}
}

static void test_catalog_suggest(void **state)
{
	(void)state;
	static const struct {
		int line;
		const char *query, *first;
	} rows[] = {
		{__LINE__, "task-clok", "task-clock"},
		{__LINE__, "page-fault", "page-faults"},
		{__LINE__, "instructoins", "instructions"},
		{__LINE__, "LLC-load-miss", "LLC-load-misses"},
	};
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		const char *names[3];
		size_t n = pmcf_catalog_suggest(full, rows[r].query, names, 3);
		ROW_CHECK(rows[r].line, n >= 1, "no suggestion for '%s'", rows[r].query);
		ROW_CHECK(rows[r].line, strcmp(names[0], rows[r].first) == 0, "'%s' suggests '%s' first",
			  rows[r].query, names[0]);
	}
	const char *names[3];
	assert_int_equal(pmcf_catalog_suggest(full, "zzzzzzzzzzzzqqq", names, 3), 0);
	assert_int_equal(pmcf_catalog_suggest(full, "task-clok", names, 0), 0);
}

/* Writes text to a fresh file in the test scratch folder; returns its path. */
static char *scratch_file(const char *text)
{
	const char *dir = getenv("PMCF_TEST_TMP");
	char *path = malloc(4096);
	assert_non_null(path);
	snprintf(path, 4096, "%s/events-XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	size_t len = strlen(text);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	return path;
}

static void test_evlist_parse(void **state)
{
	(void)state;
	char *file = scratch_file("# events for the test\n"
				  "task-clock page-faults\n\n"
				  "  cycles,duration   # a trailing comment, task-clok\n"
				  "task-clock\n");
	char *comments = scratch_file("# nothing here\n   \n# task-clock\n");
	char at_file[4200], at_comments[4200];
	snprintf(at_file, sizeof(at_file), "@%s", file);
	snprintf(at_comments, sizeof(at_comments), "@%s", comments);
	struct {
		int line;
		const char *spec;
		int rc;
		const char *want; /* names joined by ',' (rc 0) or a substring of the detail */
	} rows[] = {
		{__LINE__, "task-clock,page-faults", 0, "task-clock,page-faults"},
		{__LINE__, " task-clock , page-faults ", 0, "task-clock,page-faults"},
		/* an empty element on the command line is a typo (perf: syntax error) */
		{__LINE__, "task-clock,,page-faults", PMCF_ESYNTAX, "a comma too many"},
		{__LINE__, "task-clock,page-faults,", PMCF_ESYNTAX, "a comma too many"},
		{__LINE__, ",task-clock", PMCF_ESYNTAX, "a comma too many"},
		{__LINE__, "{task-clock,}", PMCF_ESYNTAX, "a comma too many"},
		{__LINE__, "{task-clock, page-faults},cpu-clock", 0, "task-clock,page-faults,cpu-clock"},
		{__LINE__, "task-clock,task-clock:,task-clock", 0, "task-clock"},
		{__LINE__, "task-clock,TASK-CLOCK", PMCF_EEVENT, "did you mean task-clock"},
		/* a group's modifiers go to the members without their own (perf's rule) */
		{__LINE__, "{task-clock:u,page-faults}:k", 0, "task-clock:u,page-faults:k"},
		/* a glob's modifiers apply to every match */
		{__LINE__, "*-faults:u", 0,
		 "page-faults:u,minor-faults:u,major-faults:u,alignment-faults:u,emulation-faults:u"},
		{__LINE__, "*-faults:uu", PMCF_ESYNTAX, "modifier 'u' twice"},
		{__LINE__, "duration", 0, "duration"},
		{__LINE__, at_file, 0, "task-clock,page-faults,cycles,duration"},
		{__LINE__, "", PMCF_ESYNTAX, "empty"},
		{__LINE__, " , ,", PMCF_ESYNTAX, "empty"},
		{__LINE__, at_comments, PMCF_ESYNTAX, "names no event"},
		{__LINE__, "@", PMCF_ESYNTAX, "file name"},
		{__LINE__, "@/nonexistent/pmcfuse-events", -ENOENT, "/nonexistent/pmcfuse-events"},
		{__LINE__, "task-clok", PMCF_EEVENT, "did you mean task-clock"},
		{__LINE__, "page-fault", PMCF_EEVENT, "page-faults"},
		{__LINE__, "task-clock:x", PMCF_ESYNTAX, "unknown modifier 'x'"},
		{__LINE__, "task-clock,nosuchthingatall", PMCF_EEVENT, "'nosuchthingatall'"},
		{__LINE__, tracefs_readable ? "sched:sched_swich" : "skip", PMCF_EEVENT,
		 tracefs_readable ? "sched:sched_switch" : "'skip'"},
	};
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		pmcf_evlist *l = NULL;
		int rc = pmcf_evlist_parse(full, rows[r].spec, &l);
		ROW_CHECK(rows[r].line, rc == rows[r].rc, "'%s': rc %d (%s), want %d", rows[r].spec, rc,
			  pmcf_errdetail(), rows[r].rc);
		if (rc) {
			ROW_CHECK(rows[r].line, l == NULL, "list left behind on failure");
			ROW_CHECK(rows[r].line, strstr(pmcf_errdetail(), rows[r].want) != NULL,
				  "detail '%s' lacks '%s'", pmcf_errdetail(), rows[r].want);
			continue;
		}
		char got[512] = "";
		for (size_t i = 0; i < pmcf_evlist_size(l); i++) {
			if (i)
				strcat(got, ",");
			strcat(got, pmcf_evlist_name(l, i));
			ROW_CHECK(rows[r].line, pmcf_evlist_names(l)[i] == pmcf_evlist_name(l, i),
				  "names() and name() disagree");
		}
		ROW_CHECK(rows[r].line, strcmp(got, rows[r].want) == 0, "'%s' gave '%s', want '%s'",
			  rows[r].spec, got, rows[r].want);
		ROW_CHECK(rows[r].line, pmcf_evlist_name(l, pmcf_evlist_size(l)) == NULL, "past the end");
		pmcf_evlist_free(l);
	}
	unlink(file);
	unlink(comments);
	free(file);
	free(comments);
}

static void test_evlist_all(void **state)
{
	(void)state;
	pmcf_evlist *l;
	assert_int_equal(pmcf_evlist_parse(full, "all", &l), 0);
	size_t want = 0;
	for (size_t i = 0; i < pmcf_catalog_size(full); i++)
		want += pmcf_catalog_at(full, i)->available != 0;
	assert_int_equal(pmcf_evlist_size(l), want);
	assert_string_equal(pmcf_evlist_name(l, 0), "duration");
	int has_tc = 0, has_ins = 0;
	for (size_t i = 0; i < pmcf_evlist_size(l); i++) {
		has_tc |= strcmp(pmcf_evlist_name(l, i), "task-clock") == 0;
		has_ins |= strcmp(pmcf_evlist_name(l, i), "instructions") == 0;
	}
	assert_true(has_tc);
	assert_int_equal(has_ins, has_pmu);
	pmcf_evlist_free(l);

	/* all plus an explicit name: no duplicate */
	assert_int_equal(pmcf_evlist_parse(full, "task-clock,all", &l), 0);
	assert_int_equal(pmcf_evlist_size(l), want);
	assert_string_equal(pmcf_evlist_name(l, 0), "task-clock");
	pmcf_evlist_free(l);
}

static void test_check_set(void **state)
{
	(void)state;
	int tp_want = pmcfi_perf_kernel_allowed() ? 1 : PMCF_EPARANOID;
	struct {
		int line;
		const char *names[4];
		size_t n;
		unsigned pmcs;
		int want;
		const char *why; /* substring of why (want 0) or of the detail (want < 0) */
	} rows[] = {
		{__LINE__, {"task-clock", "page-faults"}, 2, 2, 1, NULL},
		{__LINE__, {"task-clock", "page-faults"}, 2, 0, 1, NULL},
		{__LINE__, {"task-clock", "page-faults"}, 2, 1, 0, "budget is 1"},
		{__LINE__, {"task-clock", "page-faults", "cpu-clock"}, 3, 1, 0, "2 too many"},
		{__LINE__, {"duration"}, 1, 0, 1, NULL},
		{__LINE__, {"duration"}, 1, 1, 1, NULL},
		{__LINE__, {"duration", "task-clock", "duration"}, 3, 1, 1, NULL},
		{__LINE__, {"task-clock", "task-clock:"}, 2, 1, 1, NULL},
		/* an event this machine cannot count is not a question of fitting */
		{__LINE__,
		 {"instructions"},
		 1,
		 0,
		 has_pmu ? 1 : PMCF_ENOTSUP,
		 has_pmu ? NULL : "'instructions' cannot be counted on this machine"},
		{__LINE__,
		 {"task-clock", "cycles"},
		 2,
		 0,
		 has_pmu ? 1 : PMCF_ENOTSUP,
		 has_pmu ? NULL : "'cycles' cannot be counted on this machine: "},
		{__LINE__,
		 {"task-clock", "cycles"},
		 2,
		 1,
		 has_pmu ? 0 : PMCF_ENOTSUP,
		 has_pmu ? "budget is 1" : "no hardware PMU"},
		{__LINE__,
		 {"LLC-load-misses"},
		 1,
		 0,
		 has_pmu ? -99 : PMCF_ENOTSUP,
		 has_pmu ? NULL : "cannot be counted on this machine"},
		{__LINE__, {"task-clock", "nosuchevent"}, 2, 0, PMCF_EEVENT, "nosuchevent"},
		{__LINE__,
		 {tracefs_readable ? "sched:sched_switch" : "task-clock", "task-clock"},
		 2,
		 2,
		 tracefs_readable ? tp_want : 1,
		 tracefs_readable && tp_want < 0 ? "kernel.perf_event_paranoid" : NULL},
	};
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		char why[256];
		int rc = pmcf_catalog_check_events(full, rows[r].names, rows[r].n, rows[r].pmcs, why,
						   sizeof(why));
		if (rows[r].want == -99) /* machine-dependent: any answer but an error */
			rc = rc >= 0 ? -99 : rc;
		ROW_CHECK(rows[r].line, rc == rows[r].want, "rc %d, want %d (why '%s', detail '%s')", rc,
			  rows[r].want, why, pmcf_errdetail());
		if (rc == 1)
			ROW_CHECK(rows[r].line, why[0] == '\0', "why '%s' on success", why);
		if (rc == 0 || rows[r].why)
			ROW_CHECK(rows[r].line, why[0] != '\0' || rc < 0, "no why");
		if (rows[r].why) {
			const char *text = rc < 0 ? pmcf_errdetail() : why;
			ROW_CHECK(rows[r].line, strstr(text, rows[r].why) != NULL, "'%s' lacks '%s'", text,
				  rows[r].why);
		}
	}
	/* the empty set fits; a tiny why buffer is not overrun */
	char tiny[4] = "xyz";
	assert_int_equal(pmcf_catalog_check_events(full, NULL, 0, 0, tiny, sizeof(tiny)), 1);
	const char *two[] = {"task-clock", "page-faults"};
	assert_int_equal(pmcf_catalog_check_events(full, two, 2, 1, tiny, sizeof(tiny)), 0);
	assert_int_equal(strlen(tiny), 3);
}

static uint64_t read_tracepoint_id(const char *sys, const char *name)
{
	char path[512];
	snprintf(path, sizeof(path), "/sys/kernel/tracing/events/%s/%s/id", sys, name);
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(path, sizeof(path), "/sys/kernel/debug/tracing/events/%s/%s/id", sys, name);
		f = fopen(path, "r");
	}
	assert_non_null(f);
	unsigned long long id = 0;
	assert_int_equal(fscanf(f, "%llu", &id), 1);
	fclose(f);
	return id;
}

static void test_encode(void **state)
{
	(void)state;
	struct {
		int line;
		const char *name;
		int rc;
		uint32_t type;
		uint64_t config;
	} rows[] = {
		{__LINE__, "task-clock", 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
		{__LINE__, "page-faults", 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
		{__LINE__, "cycles", 0, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
		{__LINE__, "ref-cycles", 0, PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES},
		{__LINE__, "L1-dcache-load-misses", 0, PERF_TYPE_HW_CACHE,
		 PERF_COUNT_HW_CACHE_L1D | PERF_COUNT_HW_CACHE_OP_READ << 8 |
			 PERF_COUNT_HW_CACHE_RESULT_MISS << 16},
		{__LINE__, "dTLB-stores", 0, PERF_TYPE_HW_CACHE,
		 PERF_COUNT_HW_CACHE_DTLB | PERF_COUNT_HW_CACHE_OP_WRITE << 8 |
			 PERF_COUNT_HW_CACHE_RESULT_ACCESS << 16},
		{__LINE__, "node-prefetch-misses", 0, PERF_TYPE_HW_CACHE,
		 PERF_COUNT_HW_CACHE_NODE | PERF_COUNT_HW_CACHE_OP_PREFETCH << 8 |
			 PERF_COUNT_HW_CACHE_RESULT_MISS << 16},
		{__LINE__, "sched:sched_switch", 0, PERF_TYPE_TRACEPOINT, 0 /* its id */},
		{__LINE__, "duration", PMCF_EINVAL, 0, 0},
		{__LINE__, "no-such-event", PMCF_EEVENT, 0, 0},
	};
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		if (rows[r].type == PERF_TYPE_TRACEPOINT) {
			if (!tracefs_readable)
				continue;
			rows[r].config = read_tracepoint_id("sched", "sched_switch");
		}
		struct perf_event_attr a;
		memset(&a, 0xa5, sizeof(a));
		int rc = pmcfi_perf_encode(full, rows[r].name, &a);
		ROW_CHECK(rows[r].line, rc == rows[r].rc, "'%s': rc %d (%s)", rows[r].name, rc,
			  pmcf_errdetail());
		if (rc)
			continue;
		ROW_CHECK(rows[r].line, a.size == sizeof(a), "size %u", a.size);
		ROW_CHECK(rows[r].line, a.type == rows[r].type, "type %u", a.type);
		ROW_CHECK(rows[r].line, a.config == rows[r].config, "config %#llx",
			  (unsigned long long)a.config);
		ROW_CHECK(rows[r].line, a.disabled == 0 && a.sample_period == 0 && a.read_format == 0,
			  "fields left over");
		if (a.type == PERF_TYPE_TRACEPOINT)
			ROW_CHECK(rows[r].line, a.exclude_kernel == 0, "tracepoint excludes the kernel");
		else
			ROW_CHECK(rows[r].line, a.exclude_kernel == !pmcfi_perf_kernel_allowed(),
				  "exclude_kernel %u", a.exclude_kernel);
	}

	/* the encoding counts: task-clock over some busy work */
	struct perf_event_attr a;
	assert_int_equal(pmcfi_perf_encode(full, "task-clock", &a), 0);
	a.disabled = 1;
	int fd = pmcfi_perf_event_open(&a, 0, -1);
	assert_true(fd >= 0);
	assert_int_equal(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	volatile unsigned long x = 0;
	for (unsigned long i = 0; i < 2000000; i++)
		x += i;
	assert_int_equal(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	uint64_t v = 0;
	assert_int_equal(read(fd, &v, sizeof(v)), sizeof(v));
	close(fd);
	assert_true(v > 0);

	/* not a perf catalogue: refused */
	assert_int_equal(pmcfi_perf_encode(NULL, "task-clock", &a), PMCF_EINVAL);
}

static void make_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_fake_tracefs(void **state)
{
	(void)state;
	const char *tmp = getenv("PMCF_TEST_TMP");
	char root[4096], p[4200];
	snprintf(root, sizeof(root), "%s/tracefs-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(root));
	static const char *const dirs[] = {"events",         "events/zed",     "events/zed/one", "events/foo",
					   "events/foo/bar", "events/foo/baz", "events/foo/aaa"};
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", root, dirs[i]);
		assert_int_equal(mkdir(p, 0755), 0);
	}
	snprintf(p, sizeof(p), "%s/events/foo/bar/id", root);
	make_file(p, "987654321\n"); /* no such tracepoint */
	snprintf(p, sizeof(p), "%s/events/foo/aaa/id", root);
	make_file(p, "17\n");
	snprintf(p, sizeof(p), "%s/events/zed/one/id", root);
	make_file(p, "7\n");
	snprintf(p, sizeof(p), "%s/events/foo/enable", root); /* a file, not an event */
	make_file(p, "0\n");

	pmcf_catalog *c;
	assert_int_equal(pmcfi_catalog_perf_at(PMCF_CATALOG_NO_PMU, root, &c), 0);
	assert_int_equal(count_source(c, PMCF_SRC_TRACEPOINT), 3);
	long aaa = pmcf_catalog_find(c, "foo:aaa"), bar = pmcf_catalog_find(c, "foo:bar"),
	     one = pmcf_catalog_find(c, "zed:one");
	assert_true(aaa > 0 && aaa < bar && bar < one);
	assert_int_equal(pmcf_catalog_find(c, "foo:baz"), PMCF_EEVENT); /* no id */
	assert_int_equal(pmcf_catalog_find(c, "foo:enable"), PMCF_EEVENT);
	struct perf_event_attr a;
	assert_int_equal(pmcfi_perf_encode(c, "foo:bar", &a), 0);
	assert_int_equal(a.type, PERF_TYPE_TRACEPOINT);
	assert_int_equal(a.config, 987654321);
	/* the kernel refuses it: not supported, or paranoid when unprivileged */
	const char *fake[] = {"foo:bar"};
	char why[256];
	int rc = pmcf_catalog_check_events(c, fake, 1, 0, why, sizeof(why));
	(void)why;
	if (pmcfi_perf_kernel_allowed()) {
		assert_int_equal(rc, PMCF_ENOTSUP);
		assert_non_null(strstr(pmcf_errdetail(), "'foo:bar' cannot be counted"));
		assert_non_null(strstr(pmcf_errdetail(), strerror(EINVAL))); /* unknown id */
	} else {
		assert_int_equal(rc, PMCF_EPARANOID);
		assert_non_null(strstr(pmcf_errdetail(), "kernel.perf_event_paranoid is"));
	}
	pmcf_catalog_free(c);

	static const char *const files[] = {"events/foo/bar/id", "events/foo/aaa/id", "events/zed/one/id",
					    "events/foo/enable"};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", root, files[i]);
		unlink(p);
	}
	for (size_t i = sizeof(dirs) / sizeof(dirs[0]); i-- > 0;) {
		snprintf(p, sizeof(p), "%s/%s", root, dirs[i]);
		rmdir(p);
	}
	rmdir(root);
}

/* Suggestions of very long names (native "pmu::EVENT:UMASK" names can be)
 * must not overrun the detail. */
static void test_long_suggestions(void **state)
{
	(void)state;
	const char *tmp = getenv("PMCF_TEST_TMP");
	char root[4096], p[4096 + 600], sys[256], ev[256];
	snprintf(root, sizeof(root), "%s/tracefs-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(root));
	memset(sys, 's', 200); /* "sss…:xxx…k": 402 characters */
	sys[200] = '\0';
	memset(ev, 'x', 200);
	ev[201] = '\0';
	snprintf(p, sizeof(p), "%s/events", root);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/events/%s", root, sys);
	assert_int_equal(mkdir(p, 0755), 0);
	for (char k = '1'; k <= '3'; k++) {
		ev[200] = k;
		snprintf(p, sizeof(p), "%s/events/%s/%s", root, sys, ev);
		assert_int_equal(mkdir(p, 0755), 0);
		strcat(p, "/id");
		make_file(p, "987654321\n");
	}
	pmcf_catalog *c;
	assert_int_equal(pmcfi_catalog_perf_at(PMCF_CATALOG_NO_PMU, root, &c), 0);
	assert_int_equal(count_source(c, PMCF_SRC_TRACEPOINT), 3);
	pmcf_evlist *l = NULL;
	assert_int_equal(pmcf_evlist_parse(c, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", &l),
			 PMCF_EEVENT);
	assert_null(l);
	assert_non_null(strstr(pmcf_errdetail(), "did you mean ssss"));
	pmcf_catalog_free(c);
	for (char k = '3'; k >= '1'; k--) {
		ev[200] = k;
		snprintf(p, sizeof(p), "%s/events/%s/%s/id", root, sys, ev);
		unlink(p);
		p[strlen(p) - 3] = '\0';
		rmdir(p);
	}
	snprintf(p, sizeof(p), "%s/events/%s", root, sys);
	rmdir(p);
	snprintf(p, sizeof(p), "%s/events", root);
	rmdir(p);
	rmdir(root);
}

struct captured {
	int warnings;
	char last[1024];
};

static void capture_log(int level, const char *msg, void *ctx)
{
	struct captured *cap = ctx;
	if (level == 1) {
		cap->warnings++;
		snprintf(cap->last, sizeof(cap->last), "%s", msg);
	}
}

/* Without tracefs nothing is said until a tracepoint is named; then one
 * error that says what to do. */
static void test_missing_tracefs_quiet(void **state)
{
	(void)state;
	struct captured cap = {0, ""};
	pmcf_log_set(capture_log, &cap, 1);
	pmcf_catalog *c;
	int rc = pmcfi_catalog_perf_at(PMCF_CATALOG_NO_PMU, "/nonexistent/pmcfuse-tracefs", &c);
	assert_int_equal(rc, 0);
	assert_int_equal(count_source(c, PMCF_SRC_TRACEPOINT), 0);
	assert_non_null(get(c, "task-clock"));
	pmcf_evlist *l = NULL;
	assert_int_equal(pmcf_evlist_parse(c, "task-clock,page-faults", &l), 0);
	pmcf_evlist_free(l);
	/* tracefs missing is the environment's doing (exit 2), not the name's */
	assert_int_equal(pmcf_evlist_parse(c, "task-clock,sched:sched_switch", &l), PMCF_ENOTSUP);
	assert_null(l);
	assert_non_null(strstr(pmcf_errdetail(), "tracepoint 'sched:sched_switch' needs tracefs"));
	assert_int_equal(pmcfi_perf_add_tracepoints(c), PMCF_ENOTSUP);
	assert_non_null(strstr(pmcf_errdetail(), "needs tracefs"));
	pmcf_log_set(NULL, NULL, 0);
	assert_int_equal(cap.warnings, 0);
	pmcf_catalog_free(c);

	/* the environment's override: nothing mounted, the same answer */
	setenv(PMCF_TRACEFS_ENV, "/nonexistent/pmcfuse-tracefs", 1);
	char dir[4096];
	assert_int_equal(pmcfi_tracefs_events(dir, sizeof(dir), 1), PMCF_ENOTSUP);
	assert_non_null(strstr(pmcf_errdetail(), PMCF_TRACEFS_ENV));
	unsetenv(PMCF_TRACEFS_ENV);
}

/* The native path on any machine: a child process makes libpfm4 believe it
 * runs on an AMD Zen 3 (LIBPFM_FORCE_PMU) and lists its events. Exit status
 * 0 or the number of the failed check. */
static int native_child(void)
{
	pfm_terminate();
	setenv("LIBPFM_FORCE_PMU", "amd64_fam19h_zen3", 1);
	pmcf_catalog *c;
	if (pmcf_catalog_perf(PMCF_CATALOG_NO_TRACEPOINTS, &c) != 0)
		return 1;
	int rc = 0;
	const pmcf_event_info *e = get(c, "amd64_fam19h_zen3::RETIRED_INSTRUCTIONS");
	size_t umasks = 0, native = 0;
	for (size_t i = 0; i < pmcf_catalog_size(c); i++) {
		const pmcf_event_info *x = pmcf_catalog_at(c, i);
		if (strcmp(x->source, PMCF_SRC_PMU) != 0)
			continue;
		native++;
		umasks += strchr(strstr(x->name, "::") + 2, ':') != NULL;
	}
	struct perf_event_attr a;
	if (!e)
		rc = 2;
	else if (strcmp(e->source, PMCF_SRC_PMU) || !e->pmu || strcmp(e->pmu, "amd64_fam19h_zen3"))
		rc = 3;
	else if (!e->description[0] || e->cost != 1 || e->available != -1)
		rc = 4;
	else if (native < 50 || umasks < 10)
		rc = 5;
	else if (pmcfi_perf_encode(c, "amd64_fam19h_zen3::RETIRED_INSTRUCTIONS", &a) != 0)
		rc = 6;
	else if (a.type != PERF_TYPE_RAW || (a.config & 0xff) != 0xc0 || a.size != sizeof(a))
		rc = 7;
	else if (get(c, "perf::CYCLES") || get(c, "perf_raw::r0000"))
		rc = 8; /* libpfm4's generic tables are left out */
	else if (get(c, "instructions")->cost != 1)
		rc = 9; /* no Intel fixed counters on AMD */
	pmcf_catalog_free(c);
	return rc;
}

static void test_native_forced(void **state)
{
	(void)state;
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		exit(native_child()); /* exit, not _exit: leak checks run in the child too */
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status))
		fail_msg("native check %d failed", WEXITSTATUS(status));
}

/* Catalogues start small and load tracepoints only when one is named. */
static void test_catalog_for(void **state)
{
	(void)state;
	static const struct {
		int line;
		const char *spec;
		int loaded; /* tracepoints listed before any name is looked up */
		int named;  /* after parsing: tracepoints listed */
	} rows[] = {
		{__LINE__, "task-clock,page-faults", 0, 0},
		{__LINE__, " context-switches , cpu-migrations ", 0, 0},
		{__LINE__, "task-clock,sched:sched_switch", 0, 1},
		{__LINE__, "task-clock:", 0, 0},
		{__LINE__, "all", 1, 1},
	};
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		pmcf_catalog *c = NULL;
		assert_int_equal(pmcf_catalog_perf_for_events(rows[r].spec, &c), 0);
		assert_true(pmcf_catalog_find(c, "task-clock") >= 0);
		int tp = count_source(c, PMCF_SRC_TRACEPOINT) > 0;
		if (tp != (rows[r].loaded && tracefs_readable))
			fail_msg("row %d: tracepoints %s for '%s'", rows[r].line, tp ? "listed" : "missing",
				 rows[r].spec);
		pmcf_evlist *l = NULL;
		int rc = pmcf_evlist_parse(c, rows[r].spec, &l);
		if (rc != 0 && !(rows[r].named && !tracefs_readable))
			fail_msg("row %d: parsing '%s': %s", rows[r].line, rows[r].spec, pmcf_errdetail());
		pmcf_evlist_free(l);
		tp = count_source(c, PMCF_SRC_TRACEPOINT) > 0;
		if (tp != (rows[r].named && tracefs_readable))
			fail_msg("row %d: after parsing, tracepoints %s for '%s'", rows[r].line,
				 tp ? "listed" : "missing", rows[r].spec);
		pmcf_catalog_free(c);
	}
}

/* The machine header: consistent with what the kernel answers here. */
static void test_host_describe(void **state)
{
	(void)state;
	pmcf_host_info h = {.size = 8};
	assert_int_equal(pmcf_host_describe(&h), PMCF_EINVAL);
	h.size = sizeof(h);
	assert_int_equal(pmcf_host_describe(&h), 0);
	assert_int_equal(h.size, sizeof(h));
	assert_int_equal(h.hw_counting, has_pmu);
	assert_true(has_pmu || strstr(h.hw_why, "no hardware PMU") || strstr(h.hw_why, "perf_event_open"));
	assert_int_equal(h.paranoid, pmcfi_perf_paranoid());
	assert_int_equal(h.kernel_allowed, pmcfi_perf_kernel_allowed());
	assert_int_equal(h.root, geteuid() == 0);
	assert_true(h.ncpus >= 1);
	assert_true(h.virtual_machine == 0 || h.virtual_machine == 1);
	assert_non_null(strstr(h.kernel_pmus, "software")); /* every kernel has it */
	assert_true(h.tracefs[0] != '\0');
	assert_true(h.rdpmc_why[0] != '\0');
	if (!has_pmu)
		assert_int_equal(h.rdpmc, 0);
	for (size_t i = 0; i < h.npmus; i++)
		assert_true(h.pmus[i].general >= 0 && h.pmus[i].fixed >= 0 && h.pmus[i].name[0]);
}

/* Without kernel-mode counting, the events perf encodes with exclude_kernel
 * are said to count user space only (perf stat's ":u"); tracepoints, pseudo
 * events and events whose modifiers name the levels are not; with it, none. */
static void test_user_only(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		int user_only; /* without kernel mode */
	} rows[] = {
		{"page-faults", 1},
		{"cs", 1},
		{"cpu-migrations", 1},
		{"task-clock:u", 0},
		{"cpu-clock:k", 0},
		{"cycles:p", 1},
		{"r01c2", 1},
		{"software/config=0/", 1},
		{"duration", 0},
		{"msr/config=0/", 0},
		{"software/config=0/u", 0},
	};
	for (int ok = 0; ok <= 1; ok++) {
		pmcf_catalog *c = NULL;
		assert_int_equal(pmcf_catalog_perf(PMCF_CATALOG_NO_TRACEPOINTS | PMCF_CATALOG_NO_PMU, &c), 0);
		assert_int_equal(pmcfi_perf_set_kernel_ok(c, ok), 0);
		for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
			pmcf_evlist *l = NULL;
			if (pmcf_evlist_parse(c, rows[r].name, &l))
				fail_msg("'%s': %s", rows[r].name, pmcf_errdetail());
			int want = ok ? 0 : rows[r].user_only;
			if (pmcf_evlist_user_only(l, 0) != want)
				fail_msg("kernel_ok %d: '%s' user only %d, want %d", ok, rows[r].name,
					 pmcf_evlist_user_only(l, 0), want);
			/* the encoding agrees */
			struct perf_event_attr a;
			if (strcmp(rows[r].name, "duration") != 0) {
				assert_int_equal(pmcfi_perf_encode(c, pmcf_evlist_name(l, 0), &a), 0);
				if (want)
					assert_int_equal(a.exclude_kernel, 1);
			}
			assert_int_equal(pmcf_evlist_user_only(l, 1), 0); /* out of range */
			pmcf_evlist_free(l);
		}
		pmcf_catalog_free(c);
	}
	assert_int_equal(pmcf_evlist_user_only(NULL, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_catalog_contents), cmocka_unit_test(test_catalog_tracepoints),
		cmocka_unit_test(test_catalog_flags),    cmocka_unit_test(test_catalog_find),
		cmocka_unit_test(test_catalog_suggest),  cmocka_unit_test(test_evlist_parse),
		cmocka_unit_test(test_evlist_all),       cmocka_unit_test(test_check_set),
		cmocka_unit_test(test_encode),           cmocka_unit_test(test_fake_tracefs),
		cmocka_unit_test(test_long_suggestions), cmocka_unit_test(test_missing_tracefs_quiet),
		cmocka_unit_test(test_native_forced),    cmocka_unit_test(test_catalog_for),
		cmocka_unit_test(test_host_describe),    cmocka_unit_test(test_user_only),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
