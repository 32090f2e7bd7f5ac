/* Unit tests of perf's event syntax in the perf catalogue (aliases,
 * modifiers, raw and PMU events through a fake sysfs), event lists with
 * globs and {…} groups, and the planner keeping a group in one set. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "row_check.h"
#include "counters/perf.h"
#include "counters/perf_syntax.h"
#include "util/internal.h"
#include "pmcfuse/combine.h"
#include "pmcfuse/events.h"
#include "pmcfuse/plan.h"

static char root[4096]; /* fake /sys/bus/event_source/devices */

static void put(const char *rel, const char *text)
{
	char p[4400];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	for (char *s = p + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	const char *tmp = getenv("PMCF_TEST_TMP");
	snprintf(root, sizeof(root), "%s/sysfs-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(root))
		return -1;
	/* a core PMU like Intel's, with a split format and event aliases */
	put("xcpu/type", "4\n");
	put("xcpu/format/event", "config:0-7\n");
	put("xcpu/format/umask", "config:8-15\n");
	put("xcpu/format/edge", "config:18\n");
	put("xcpu/format/cmask", "config:24-31\n");
	put("xcpu/format/ldlat", "config1:0-15\n");
	put("xcpu/format/split", "config2:0-3,8-11\n");
	put("xcpu/events/cycles-t", "event=0x3c,in_tx=1\n");
	put("xcpu/format/in_tx", "config:32\n");
	put("xcpu/events/mem-loads", "event=0xcd,umask=0x1,ldlat=3\n");
	put("xcpu/events/needs", "event=0xd0,umask=?\n");
	/* a PMU without counters */
	put("msr/type", "9\n");
	put("msr/format/event", "config:0-63\n");
	put("msr/events/tsc", "event=0x00\n");
	put("msr/events/aperf", "event=0x01\n");
	put("broken/type", "not a number\n");
	/* perf's bare sysfs names: an arm64 core PMU, and an uncore PMU that
	 * has an event of the same name (the core PMU's is taken) */
	put("armv8_pmuv3_0/type", "8\n");
	put("armv8_pmuv3_0/format/event", "config:0-15\n");
	put("armv8_pmuv3_0/events/inst_retired", "event=0x0008\n");
	put("armv8_pmuv3_0/events/cpu_cycles", "event=0x0011\n");
	put("armv8_pmuv3_0/events/cpu_cycles.scale", "1\n");
	put("aa_uncore/type", "12\n");
	put("aa_uncore/format/event", "config:0-7\n");
	put("aa_uncore/events/inst_retired", "event=0x42\n");
	put("aa_uncore/events/bus_access", "event=0x19\n");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static pmcf_catalog *small_catalog(void)
{
	pmcf_catalog *c = NULL;
	assert_int_equal(pmcfi_catalog_perf_for(NULL, 0, &c), 0);
	assert_int_equal(pmcfi_perf_set_sysfs(c, root), 0);
	return c;
}

static void test_aliases(void **state)
{
	(void)state;
	struct {
		int line;
		const char *alias, *name;
	} rows[] = {
		{__LINE__, "cs", "context-switches"},
		{__LINE__, "CS", NULL}, /* perf's names are case-sensitive: `perf stat -e CS` refuses it */
		{__LINE__, "faults", "page-faults"},
		{__LINE__, "migrations", "cpu-migrations"},
		{__LINE__, "cpu-cycles", "cycles"},
		{__LINE__, "branches", "branch-instructions"},
		{__LINE__, "idle-cycles-frontend", "stalled-cycles-frontend"},
		{__LINE__, "idle-cycles-backend", "stalled-cycles-backend"},
		{__LINE__, "task-clock", NULL},
		{__LINE__, "c", NULL},
	};
	pmcf_catalog *c = small_catalog();
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		const char *got = pmcfi_perf_alias(rows[r].alias);
		ROW_CHECK(rows[r].line,
			  (got == NULL) == (rows[r].name == NULL) && (!got || strcmp(got, rows[r].name) == 0),
			  "alias %s gave %s", rows[r].alias, got ? got : "NULL");
		if (!rows[r].name)
			continue;
		long k = pmcfi_catalog_resolve(c, rows[r].alias);
		ROW_CHECK(rows[r].line, k >= 0, "'%s' does not resolve", rows[r].alias);
		ROW_CHECK(rows[r].line, strcmp(pmcf_catalog_at(c, (size_t)k)->name, rows[r].name) == 0,
			  "'%s' resolved to %s", rows[r].alias, pmcf_catalog_at(c, (size_t)k)->name);
	}
	pmcf_catalog_free(c);
}

/* perf's spellings of hardware cache events, as the catalogue names them */
static void test_cache_aliases(void **state)
{
	(void)state;
	static const struct {
		int line;
		const char *name, *want; /* want NULL: no such spelling, or the catalogue's own */
	} rows[] = {
		{__LINE__, "l1d-loads", "L1-dcache-loads"},
		{__LINE__, "l1-d-load-misses", "L1-dcache-load-misses"},
		{__LINE__, "L1-data-read", "L1-dcache-loads"},
		{__LINE__, "L1-dcache-load-miss", "L1-dcache-load-misses"},
		{__LINE__, "LLC-misses", "LLC-load-misses"},
		{__LINE__, "L2-loads", "LLC-loads"},
		{__LINE__, "LLC-refs", "LLC-loads"},
		{__LINE__, "d-tlb-write-miss", "dTLB-store-misses"},
		{__LINE__, "Instruction-TLB-loads", "iTLB-loads"},
		{__LINE__, "bpu-loads", "branch-loads"},
		{__LINE__, "node-speculative-read-misses", "node-prefetch-misses"},
		{__LINE__, "l1i-prefetch", "L1-icache-prefetches"},
		{__LINE__, "L1-dcache-loads", NULL}, /* already the catalogue's */
		{__LINE__, "LL-loads", NULL},        /* perf refuses these */
		{__LINE__, "branches-misses", NULL},
		{__LINE__, "L1-dcache-load-store", NULL},
		{__LINE__, "L1-dcache-misses-misses", NULL},
		{__LINE__, "l1d", NULL},
		{__LINE__, "l1d-", NULL},
		{__LINE__, "L1D-loads", NULL},
	};
	char buf[64];
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		const char *got = pmcfi_perf_cache_alias(rows[r].name, buf, sizeof(buf));
		ROW_CHECK(rows[r].line,
			  (got == NULL) == (rows[r].want == NULL) && (!got || strcmp(got, rows[r].want) == 0),
			  "'%s' gave %s", rows[r].name, got ? got : "NULL");
	}
}

#define REFUSED(rc, detail) rc, detail, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0

/* rc, then the encoding: type, config, config1, config2 and the exclude,
 * precise and pinned bits (-1: the privilege default). */
static void test_encode_syntax(void **state)
{
	(void)state;
	int kd = !pmcfi_perf_kernel_allowed(); /* default exclude_kernel */
	struct {
		int line;
		const char *name;
		int rc;
		const char *canon; /* catalogue spelling */
		uint32_t type;
		uint64_t config, config1, config2;
		int eu, ek, eh, eg, eH, idle, precise, pinned;
	} rows[] = {
		{__LINE__, "task-clock:u", 0, "task-clock:u", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0,
		 0, 0, 1, 1, 0, 0, 0, 0, 0},
		{__LINE__, "task-clock:k", 0, "task-clock:k", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0,
		 0, 1, 0, 1, 0, 0, 0, 0, 0},
		{__LINE__, "task-clock:uk", 0, "task-clock:uk", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK,
		 0, 0, 0, 0, 1, 0, 0, 0, 0, 0},
		{__LINE__, "task-clock:h", 0, "task-clock:h", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0,
		 0, 1, 1, 0, 0, 0, 0, 0, 0},
		/* "task-clock:" is task-clock, as perf reads it */
		{__LINE__, "task-clock:", 0, "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0, 0,
		 0, kd, kd, 0, 0, 0, 0, 0},
		/* name=TEXT is perf's display name: accepted, nothing encoded */
		{__LINE__, "xcpu/event=0x3c,name=x/", 0, "xcpu/event=0x3c,name=x/", 4, 0x3c, 0, 0, 0, kd, kd,
		 0, 0, 0, 0, 0},
		/* a raw code of any length whose value fits 64 bits (perf reads r00000000000000001c2) */
		{__LINE__, "r00000000000000001c2", 0, "r00000000000000001c2", PERF_TYPE_RAW, 0x1c2, 0, 0, 0,
		 kd, kd, 0, 0, 0, 0, 0},
		{__LINE__, "cs:u", 0, "context-switches:u", PERF_TYPE_SOFTWARE,
		 PERF_COUNT_SW_CONTEXT_SWITCHES, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0},
		{__LINE__, "cycles:G", 0, "cycles:G", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, 0, 0,
		 kd, kd, 0, 1, 0, 0, 0},
		{__LINE__, "cycles:H", 0, "cycles:H", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, 0, 0,
		 kd, kd, 1, 0, 0, 0, 0},
		{__LINE__, "instructions:pp", 0, "instructions:pp", PERF_TYPE_HARDWARE,
		 PERF_COUNT_HW_INSTRUCTIONS, 0, 0, 0, kd, kd, 0, 0, 0, 2, 0},
		{__LINE__, "instructions:P", 0, "instructions:P", PERF_TYPE_HARDWARE,
		 PERF_COUNT_HW_INSTRUCTIONS, 0, 0, 0, kd, kd, 0, 0, 0, 3, 0},
		{__LINE__, "branch-misses:uppp", 0, "branch-misses:uppp", PERF_TYPE_HARDWARE,
		 PERF_COUNT_HW_BRANCH_MISSES, 0, 0, 0, 1, 1, 0, 0, 0, 3, 0},
		{__LINE__, "cpu-clock:ID", 0, "cpu-clock:ID", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 0,
		 0, 0, kd, kd, 0, 0, 1, 0, 1},
		{__LINE__, "L1-dcache-load-misses:u", 0, "L1-dcache-load-misses:u", PERF_TYPE_HW_CACHE,
		 PERF_COUNT_HW_CACHE_L1D | PERF_COUNT_HW_CACHE_OP_READ << 8 |
			 PERF_COUNT_HW_CACHE_RESULT_MISS << 16,
		 0, 0, 0, 1, 1, 0, 0, 0, 0, 0},
		{__LINE__, "r01c2", 0, "r01c2", PERF_TYPE_RAW, 0x1c2, 0, 0, 0, kd, kd, 0, 0, 0, 0, 0},
		{__LINE__, "rC0:k", 0, "rC0:k", PERF_TYPE_RAW, 0xc0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0},
		{__LINE__, "xcpu/event=0x3c,umask=0x0/", 0, "xcpu/event=0x3c,umask=0x0/", 4, 0x3c, 0, 0, 0,
		 kd, kd, 0, 0, 0, 0, 0},
		{__LINE__, "xcpu/event=0xd1,umask=0x20,cmask=2,edge/u", 0,
		 "xcpu/event=0xd1,umask=0x20,cmask=2,edge/u", 4, 0xd1 | 0x20 << 8 | 1 << 18 | 2ull << 24, 0,
		 0, 0, 1, 1, 0, 0, 0, 0, 0},
		{__LINE__, "xcpu/cycles-t/:k", 0, "xcpu/cycles-t/:k", 4, 0x3c | 1ull << 32, 0, 0, 1, 0, 1, 0,
		 0, 0, 0, 0},
		{__LINE__, "xcpu/mem-loads/", 0, "xcpu/mem-loads/", 4, 0xcd | 0x1 << 8, 3, 0, 0, kd, kd, 0, 0,
		 0, 0, 0},
		/* a split format: low bits in 0-3, the next four in 8-11 */
		{__LINE__, "xcpu/split=0xab/", 0, "xcpu/split=0xab/", 4, 0, 0, 0xb | 0xa << 8, 0, kd, kd, 0,
		 0, 0, 0, 0},
		{__LINE__, "xcpu/config=0x1234,config1=5,config2=6/", 0,
		 "xcpu/config=0x1234,config1=5,config2=6/", 4, 0x1234, 5, 6, 0, kd, kd, 0, 0, 0, 0, 0},
		/* msr: no counter, and never excludes the kernel (the PMU refuses it) */
		{__LINE__, "msr/tsc/", 0, "msr/tsc/", 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
		{__LINE__, "msr/aperf/", 0, "msr/aperf/", 9, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
		/* perf's bare sysfs names (perf stat -e inst_retired): PMU/events/NAME,
		 * the core PMU's first, stored as spelt; modifiers apply */
		{__LINE__, "inst_retired", 0, "inst_retired", 8, 0x08, 0, 0, 0, kd, kd, 0, 0, 0, 0, 0},
		{__LINE__, "inst_retired:u", 0, "inst_retired:u", 8, 0x08, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0},
		{__LINE__, "cpu_cycles:k", 0, "cpu_cycles:k", 8, 0x11, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0},
		{__LINE__, "bus_access", 0, "bus_access", 12, 0x19, 0, 0, 0, kd, kd, 0, 0, 0, 0, 0},
		{__LINE__, "mem-loads", 0, "mem-loads", 4, 0xcd | 0x1 << 8, 3, 0, 0, kd, kd, 0, 0, 0, 0, 0},
		{__LINE__, "aperf", 0, "aperf", 9, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
		{__LINE__, "needs", REFUSED(PMCF_ESYNTAX, "needs a value")},
		{__LINE__, "cpu_cycles.scale", REFUSED(PMCF_EEVENT, "")},
		/* in any case, as perf matches them (the entry already there) */
		{__LINE__, "Inst_Retired", 0, "inst_retired", 8, 0x08, 0, 0, 0, kd, kd, 0, 0, 0, 0, 0},
		{__LINE__, "BUS_ACCESS:u", 0, "bus_access:u", 12, 0x19, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0},
		{__LINE__, "format", REFUSED(PMCF_EEVENT, "")},
		/* refused */
		{__LINE__, "xcpu/umask=0x100/", REFUSED(PMCF_ESYNTAX, "wider than its bits")},
		{__LINE__, "xcpu/nosuch=1/", REFUSED(PMCF_ESYNTAX, "no term or event 'nosuch'")},
		{__LINE__, "xcpu/needs/", REFUSED(PMCF_ESYNTAX, "needs a value")},
		{__LINE__, "xcpu/event=zz/", REFUSED(PMCF_ESYNTAX, "must be a number")},
		{__LINE__, "xcpu//", REFUSED(PMCF_ESYNTAX, "no terms")},
		{__LINE__, "xcpu/event=1/x", REFUSED(PMCF_EEVENT, "")}, /* not modifiers: no such name */
		{__LINE__, "nopmu/event=1/", REFUSED(PMCF_ENOENT, "no PMU 'nopmu'")},
		{__LINE__, "broken/event=1/", REFUSED(PMCF_ENOENT, "no PMU 'broken'")},
		{__LINE__, "task-clock:S", REFUSED(PMCF_ESYNTAX, "sampling")},
		{__LINE__, "task-clock:pppp", REFUSED(PMCF_ESYNTAX, "above ppp")},
		/* where perf refuses: a modifier twice, two lists, other cases, 'R' */
		{__LINE__, "task-clock:uu", REFUSED(PMCF_ESYNTAX, "modifier 'u' twice")},
		{__LINE__, "task-clock:kuk", REFUSED(PMCF_ESYNTAX, "modifier 'k' twice")},
		{__LINE__, "task-clock:u:k", REFUSED(PMCF_ESYNTAX, "two lists of modifiers")},
		{__LINE__, "Task-Clock:h", REFUSED(PMCF_EEVENT, "")},
		{__LINE__, "TASK-CLOCK", REFUSED(PMCF_EEVENT, "")},
		{__LINE__, "R01c2", REFUSED(PMCF_EEVENT, "")},
		{__LINE__, "xcpu/event=1,name=/", REFUSED(PMCF_ESYNTAX, "name= needs a name")},
		/* perf's sampling terms: said so, not "no term" */
		{__LINE__, "xcpu/event=1,period=1000/", REFUSED(PMCF_ESYNTAX, "terms for sampling")},
		{__LINE__, "duration:u", REFUSED(PMCF_ESYNTAX, "no counter")},
		{__LINE__, "no-such-event:u", REFUSED(PMCF_EEVENT, "")},
		{__LINE__, "r", REFUSED(PMCF_EEVENT, "")},
		{__LINE__, "r12345678901234567", REFUSED(PMCF_EEVENT, "")}, /* wider than 64 bits */
		{__LINE__, "r1234567890abcdef0", REFUSED(PMCF_EEVENT, "")},
	};
	pmcf_catalog *c = small_catalog();
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		pmcfi_clear_error();
		long k = pmcfi_catalog_resolve(c, rows[r].name);
		int rc = k >= 0 ? 0 : (int)k;
		ROW_CHECK(rows[r].line, rc == rows[r].rc, "'%s': rc %d (%s), want %d", rows[r].name, rc,
			  pmcf_errdetail(), rows[r].rc);
		if (rc) {
			ROW_CHECK(rows[r].line, strstr(pmcf_errdetail(), rows[r].canon) != NULL,
				  "detail '%s' lacks '%s'", pmcf_errdetail(), rows[r].canon);
			continue;
		}
		const char *name = pmcf_catalog_at(c, (size_t)k)->name;
		ROW_CHECK(rows[r].line, strcmp(name, rows[r].canon) == 0, "'%s' stored as '%s'", rows[r].name,
			  name);
		/* a second lookup finds the same entry */
		ROW_CHECK(rows[r].line, pmcfi_catalog_resolve(c, rows[r].name) == k, "added twice");
		struct perf_event_attr a;
		memset(&a, 0x5a, sizeof(a));
		rc = pmcfi_perf_encode(c, name, &a);
		ROW_CHECK(rows[r].line, rc == 0, "encode '%s': %s", name, pmcf_errdetail());
		ROW_CHECK(rows[r].line, a.type == rows[r].type, "type %u", a.type);
		ROW_CHECK(rows[r].line, a.config == rows[r].config, "config %#llx",
			  (unsigned long long)a.config);
		ROW_CHECK(rows[r].line, a.config1 == rows[r].config1, "config1 %#llx",
			  (unsigned long long)a.config1);
		ROW_CHECK(rows[r].line, a.config2 == rows[r].config2, "config2 %#llx",
			  (unsigned long long)a.config2);
		ROW_CHECK(rows[r].line,
			  (int)a.exclude_user == rows[r].eu && (int)a.exclude_kernel == rows[r].ek &&
				  (int)a.exclude_hv == rows[r].eh,
			  "exclude u/k/h %u%u%u", a.exclude_user, a.exclude_kernel, a.exclude_hv);
		ROW_CHECK(rows[r].line,
			  (int)a.exclude_guest == rows[r].eg && (int)a.exclude_host == rows[r].eH,
			  "exclude guest/host %u%u", a.exclude_guest, a.exclude_host);
		ROW_CHECK(rows[r].line, (int)a.exclude_idle == rows[r].idle, "exclude_idle %u",
			  a.exclude_idle);
		ROW_CHECK(rows[r].line, (int)a.precise_ip == rows[r].precise, "precise_ip %u", a.precise_ip);
		ROW_CHECK(rows[r].line, (int)a.pinned == rows[r].pinned, "pinned %u", a.pinned);
		ROW_CHECK(rows[r].line, a.size == sizeof(a) && a.disabled == 0 && a.read_format == 0,
			  "fields left over");
	}
	/* costs: an msr event takes no counter, a core PMU event one */
	assert_int_equal(pmcf_catalog_at(c, (size_t)pmcf_catalog_find(c, "msr/tsc/"))->cost, 0);
	assert_int_equal(pmcf_catalog_at(c, (size_t)pmcf_catalog_find(c, "r01c2"))->cost, 1);
	assert_int_equal(pmcf_catalog_at(c, (size_t)pmcf_catalog_find(c, "inst_retired"))->cost, 1);
	assert_int_equal(pmcf_catalog_at(c, (size_t)pmcf_catalog_find(c, "aperf"))->cost, 0);
	assert_non_null(strstr(pmcf_catalog_at(c, (size_t)pmcf_catalog_find(c, "inst_retired"))->description,
			       "armv8_pmuv3_0/inst_retired/ (from sysfs)"));
	assert_int_equal(pmcf_catalog_at(c, (size_t)pmcf_catalog_find(c, "task-clock:u"))->cost,
			 pmcf_catalog_at(c, (size_t)pmcf_catalog_find(c, "task-clock"))->cost);
	pmcf_catalog_free(c);
}

/* The real machine: whatever PMUs it has, perf's spellings resolve, and the
 * software ones count. */
static void test_real_sysfs(void **state)
{
	(void)state;
	pmcf_catalog *c = NULL;
	assert_int_equal(pmcfi_catalog_perf_for(NULL, 0, &c), 0);
	const char *names[] = {"cs", "faults:u", "task-clock:u", "cpu-clock"};
	pmcf_evlist *l;
	assert_int_equal(pmcf_evlist_parse(c, "cs,faults:u,{task-clock:u,cpu-clock}", &l), 0);
	assert_int_equal(pmcf_evlist_size(l), 4);
	assert_string_equal(pmcf_evlist_name(l, 0), "context-switches");
	assert_string_equal(pmcf_evlist_name(l, 1), "page-faults:u");
	char why[256];
	assert_int_equal(pmcf_catalog_check_events(c, pmcf_evlist_names(l), 4, 4, why, sizeof(why)), 1);
	(void)names;
	pmcf_evlist_free(l);
	if (access(PMCFI_SYSFS_PMUS "/msr/events/tsc", R_OK) == 0) {
		long k = pmcfi_catalog_resolve(c, "msr/tsc/");
		assert_true(k > 0);
		struct perf_event_attr a;
		assert_int_equal(pmcfi_perf_encode(c, "msr/tsc/", &a), 0);
		assert_int_equal(a.exclude_kernel, 0);
	} else {
		printf("msr/tsc/ case skipped: this machine has no msr PMU\n");
	}
#if defined(__x86_64__)
	if (access(PMCFI_SYSFS_PMUS "/cpu", F_OK) != 0) {
		/* no core PMU exposed: the architectural format still encodes it */
		struct perf_event_attr a;
		assert_int_equal(pmcfi_perf_encode(c, "cpu/event=0x3c,umask=0x1,inv,cmask=1/", &a), 0);
		assert_int_equal(a.type, PERF_TYPE_RAW);
		assert_int_equal(a.config, 0x3c | 1 << 8 | 1 << 23 | 1 << 24);
		assert_int_equal(pmcfi_perf_encode(c, "cpu/cycles/", &a), PMCF_ESYNTAX);
	}
#endif
	pmcf_catalog_free(c);
}

static void test_evlist_groups_globs(void **state)
{
	(void)state;
	struct {
		int line;
		const char *spec;
		int rc;
		const char *want; /* names, each followed by /group, joined by ',' (rc 0), or a detail */
	} rows[] = {
		{__LINE__, "{task-clock,page-faults}", 0, "task-clock/1,page-faults/1"},
		{__LINE__, "cs,{task-clock,faults},migrations", 0,
		 "context-switches/0,task-clock/1,page-faults/1,cpu-migrations/0"},
		{__LINE__, "{cs,faults}:u,{task-clock}", 0,
		 "context-switches:u/1,page-faults:u/1,task-clock/2"},
		{__LINE__, " { task-clock , cpu-clock } , cs ", 0,
		 "task-clock/1,cpu-clock/1,context-switches/0"},
		{__LINE__, "task-clock,{task-clock,cs}", 0, "task-clock/1,context-switches/1"},
		{__LINE__, "{xcpu/event=1,umask=2/,msr/tsc/},cs", 0,
		 "xcpu/event=1,umask=2//1,msr/tsc//1,context-switches/0"},
		{__LINE__, "xcpu/event=1,umask=2/u,cs", 0, "xcpu/event=1,umask=2/u/0,context-switches/0"},
		{__LINE__, "*-faults", 0,
		 "page-faults/0,minor-faults/0,major-faults/0,alignment-faults/0,emulation-faults/0"},
		{__LINE__, "{*-clock}", 0, "cpu-clock/1,task-clock/1"},
		{__LINE__, "{task-clock,cs},{cs,cpu-clock}", PMCF_ESYNTAX, "two {"},
		{__LINE__, "{task-clock,{cs}}", PMCF_ESYNTAX, "nested"},
		{__LINE__, "{task-clock", PMCF_ESYNTAX, "without its '}'"},
		{__LINE__, "task-clock}", PMCF_ESYNTAX, "without its '{'"},
		{__LINE__, "{}", PMCF_ESYNTAX, "empty {}"},
		{__LINE__, "{all}", PMCF_ESYNTAX, "'all' cannot be in a {"},
		{__LINE__, "{cs}:", PMCF_ESYNTAX, "followed by modifiers"},
		{__LINE__, "{cs}:pppp", PMCF_ESYNTAX, "above ppp"},
		{__LINE__, "nothing-matches-*", PMCF_EEVENT, "no event matches"},
	};
	pmcf_catalog *c = small_catalog();
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		pmcf_evlist *l = NULL;
		int rc = pmcf_evlist_parse(c, rows[r].spec, &l);
		ROW_CHECK(rows[r].line, rc == rows[r].rc, "'%s': rc %d (%s), want %d", rows[r].spec, rc,
			  pmcf_errdetail(), rows[r].rc);
		if (rc) {
			ROW_CHECK(rows[r].line, strstr(pmcf_errdetail(), rows[r].want) != NULL,
				  "detail '%s' lacks '%s'", pmcf_errdetail(), rows[r].want);
			continue;
		}
		char got[1024] = "";
		size_t o = 0;
		for (size_t i = 0; i < pmcf_evlist_size(l); i++) {
			o += (size_t)snprintf(got + o, sizeof(got) - o, "%s%s/%u", i ? "," : "",
					      pmcf_evlist_name(l, i), pmcf_evlist_group(l, i));
			ROW_CHECK(rows[r].line, pmcf_evlist_groups(l)[i] == pmcf_evlist_group(l, i),
				  "groups() and group() disagree");
		}
		ROW_CHECK(rows[r].line, strcmp(got, rows[r].want) == 0, "'%s' gave '%s', want '%s'",
			  rows[r].spec, got, rows[r].want);
		pmcf_evlist_free(l);
	}
	pmcf_catalog_free(c);
}

/* The set holding name in plan p, or -1. */
static long set_of(const pmcf_plan *p, const char *name)
{
	for (size_t k = 0; k < pmcf_plan_nsets(p); k++) {
		const char *const *ev;
		size_t n;
		pmcf_plan_events_at(p, k, &ev, &n);
		for (size_t i = 0; i < n; i++)
			if (strcmp(ev[i], name) == 0)
				return (long)k;
	}
	return -1;
}

static void test_plan_groups(void **state)
{
	(void)state;
	pmcf_catalog *c = small_catalog();
	/* the best packing without groups pairs events in list order; the
	 * groups ask for other pairs, and get them under every strategy */
	struct {
		int line;
		const char *spec;
		int strategy; /* enum pmcf_strategy */
		int packing;
		unsigned pmcs;
		int rc;
		const char *together[2][3]; /* groups that must share a set */
	} rows[] = {
		{__LINE__,
		 "page-faults,{minor-faults,cpu-migrations},{major-faults,context-switches}",
		 PMCF_COMBINE_CTC,
		 PMCF_PACK_BEST,
		 2,
		 0,
		 {{"minor-faults", "cpu-migrations"}, {"major-faults", "context-switches"}}},
		{__LINE__,
		 "page-faults,minor-faults,{major-faults,cpu-clock,task-clock}",
		 PMCF_COMBINE_BC,
		 PMCF_PACK_BEST,
		 3,
		 0,
		 {{"major-faults", "cpu-clock", "task-clock"}}},
		{__LINE__,
		 "page-faults,{minor-faults,context-switches},major-faults",
		 PMCF_COMBINE_LGL,
		 PMCF_PACK_GREEDY,
		 2,
		 0,
		 {{"minor-faults", "context-switches"}}},
		{__LINE__,
		 "{page-faults,minor-faults,major-faults}",
		 PMCF_COMBINE_CTC,
		 PMCF_PACK_BEST,
		 2,
		 PMCF_ETOOMANY,
		 {{"the group {page-faults,minor-faults,major-faults} cannot"}}},
	};
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		pmcf_evlist *l;
		assert_int_equal(pmcf_evlist_parse(c, rows[r].spec, &l), 0);
		pmcf_plan_opts o = PMCF_PLAN_OPTS_INIT;
		o.strategy = rows[r].strategy;
		o.packing = rows[r].packing;
		o.pmcs = rows[r].pmcs;
		o.groups = pmcf_evlist_groups(l);
		pmcf_plan *p = NULL;
		int rc = pmcf_plan_make(c, pmcf_evlist_names(l), pmcf_evlist_size(l), &o, &p);
		ROW_CHECK(rows[r].line, rc == rows[r].rc, "rc %d (%s)", rc, pmcf_errdetail());
		if (rc) {
			ROW_CHECK(rows[r].line, strstr(pmcf_errdetail(), rows[r].together[0][0]) != NULL,
				  "detail '%s'", pmcf_errdetail());
			pmcf_evlist_free(l);
			continue;
		}
		for (size_t g = 0; g < 2 && rows[r].together[g][0]; g++) {
			long s = set_of(p, rows[r].together[g][0]);
			ROW_CHECK(rows[r].line, s >= 0, "%s in no set", rows[r].together[g][0]);
			for (size_t j = 1; j < 3 && rows[r].together[g][j]; j++)
				ROW_CHECK(rows[r].line, set_of(p, rows[r].together[g][j]) == s,
					  "%s and %s in different sets", rows[r].together[g][0],
					  rows[r].together[g][j]);
		}
		/* every event is planned */
		for (size_t i = 0; i < pmcf_evlist_size(l); i++)
			ROW_CHECK(rows[r].line, set_of(p, pmcf_evlist_name(l, i)) >= 0, "%s not planned",
				  pmcf_evlist_name(l, i));
		pmcf_plan_free(p);
		pmcf_evlist_free(l);
	}
	/* without the groups the same list is planned as before (ABI: an old
	 * opts struct without the field) */
	pmcf_evlist *l;
	assert_int_equal(pmcf_evlist_parse(c, "{page-faults,minor-faults,major-faults}", &l), 0);
	pmcf_plan_opts o = PMCF_PLAN_OPTS_INIT;
	o.pmcs = 2;
	o.strategy = PMCF_COMBINE_CTC;
	o.groups = pmcf_evlist_groups(l);
	o.size = offsetof(pmcf_plan_opts, groups);
	pmcf_plan *p = NULL;
	assert_int_equal(pmcf_plan_make(c, pmcf_evlist_names(l), 3, &o, &p), 0);
	assert_int_equal(pmcf_plan_nsets(p), 2);
	pmcf_plan_free(p);
	pmcf_evlist_free(l);
	pmcf_catalog_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aliases),
		cmocka_unit_test(test_cache_aliases),
		cmocka_unit_test(test_encode_syntax),
		cmocka_unit_test(test_real_sysfs),
		cmocka_unit_test(test_evlist_groups_globs),
		cmocka_unit_test(test_plan_groups),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
