/* Unit tests of the profile model (src/profile/profile.c) and its SQLite
 * store (src/profile/store.c): API contracts, round trips of every layer,
 * refusal of foreign/newer/damaged files, and atomic saving. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <sqlite3.h>
#include "pmcfuse/profile.h"
#include "profile/bare.h"
#include "profile/profile_impl.h"
#include "util/internal.h"

static char tmpdir[2048];

static const char *tpath(const char *name)
{
	static char buf[8][sizeof(tmpdir) + 64];
	static int next;
	char *b = buf[next++ % 8];
	snprintf(b, sizeof(buf[0]), "%s/%s", tmpdir, name);
	return b;
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void write_file(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

/* Whole file in a malloc'd buffer (*n bytes). */
static char *read_all(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	long len = ftell(f);
	assert_true(len >= 0);
	rewind(f);
	char *b = malloc((size_t)len + 1);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	*n = (size_t)len;
	return b;
}

static void sql_on(const char *path, const char *sql)
{
	sqlite3 *db;
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL),
			 SQLITE_OK);
	char *msg = NULL;
	int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
	if (rc != SQLITE_OK)
		fail_msg("%s: %s", sql, msg);
	sqlite3_close(db);
}

static uint64_t bits(double v)
{
	uint64_t b;
	memcpy(&b, &v, 8);
	return b;
}

static double from_bits(uint64_t b)
{
	double v;
	memcpy(&v, &b, 8);
	return v;
}

/* Temporary files left in the scratch folder whose name contains s. */
static int count_names(const char *s)
{
	DIR *d = opendir(tmpdir);
	assert_non_null(d);
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d)))
		if (strstr(de->d_name, s))
			n++;
	closedir(d);
	return n;
}

/* ---- in-memory model ------------------------------------------------------ */

static void test_kind_names(void **state)
{
	(void)state;
	static const struct {
		int line, kind;
		const char *name;
	} rows[] = {
		{__LINE__, PMCF_XU_TASK, "task"},
		{__LINE__, PMCF_XU_LOOP_CHUNK, "loop-chunk"},
		{__LINE__, PMCF_XU_LOOP_RANGE, "loop-range"},
		{__LINE__, PMCF_XU_REGION, "region"},
		{__LINE__, PMCF_XU_THREAD, "thread"},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		if (strcmp(pmcf_xu_kind_name(rows[i].kind), rows[i].name) != 0 ||
		    pmcf_xu_kind_parse(rows[i].name) != rows[i].kind)
			fail_msg("row at line %d", rows[i].line);
	}
	assert_string_equal(pmcf_xu_kind_name(0), "unknown");
	assert_string_equal(pmcf_xu_kind_name(99), "unknown");
	assert_int_equal(pmcf_xu_kind_parse("loop"), PMCF_ENOENT);
	assert_int_equal(pmcf_xu_kind_parse(NULL), PMCF_ENOENT);
}

static void test_meta(void **state)
{
	(void)state;
	pmcf_profile *p;
	assert_int_equal(pmcf_profile_new(&p), 0);
	assert_int_equal(pmcf_profile_meta_count(p), 0);
	assert_null(pmcf_profile_meta_get(p, "program"));
	assert_int_equal(pmcf_profile_complete(p), 0);
	assert_int_equal(pmcf_profile_meta_set(p, PMCF_META_PROGRAM, "/bin/a"), 0);
	assert_int_equal(pmcf_profile_meta_set(p, PMCF_META_COMPLETE, "0"), 0);
	assert_int_equal(pmcf_profile_meta_set(p, PMCF_META_HOST, "h"), 0);
	assert_int_equal(pmcf_profile_complete(p), 0);
	assert_int_equal(pmcf_profile_meta_set(p, PMCF_META_COMPLETE, "1"), 0);
	assert_int_equal(pmcf_profile_complete(p), 1);
	assert_int_equal(pmcf_profile_meta_count(p), 3);

	const char *k, *v;
	assert_int_equal(pmcf_profile_meta_at(p, 1, &k, &v), 0); /* replaced in place */
	assert_string_equal(k, "complete");
	assert_string_equal(v, "1");

	assert_int_equal(pmcf_profile_meta_set(p, PMCF_META_PROGRAM, NULL), 0);
	assert_null(pmcf_profile_meta_get(p, PMCF_META_PROGRAM));
	assert_int_equal(pmcf_profile_meta_count(p), 2);
	assert_int_equal(pmcf_profile_meta_at(p, 0, &k, &v), 0);
	assert_string_equal(k, "complete");
	assert_int_equal(pmcf_profile_meta_at(p, 1, &k, &v), 0);
	assert_string_equal(k, "host");
	assert_int_equal(pmcf_profile_meta_set(p, "absent", NULL), 0);
	assert_int_equal(pmcf_profile_meta_count(p), 2);
	assert_int_equal(pmcf_profile_meta_at(p, 2, &k, &v), PMCF_ENOENT);
	assert_int_equal(pmcf_profile_meta_set(p, "", "x"), PMCF_EINVAL);
	assert_int_equal(pmcf_profile_meta_set(p, NULL, "x"), PMCF_EINVAL);
	pmcf_profile_free(p);
}

/* The CPU time in XUs against the run's (PMCF_META_CPU_TIME_NS): the sum of
 * task-clock over the XUs with a value, else of cpu-clock; nothing without
 * the run's time, for a profile that was not recorded, or without a clock. */
static void test_cpu_in_xus(void **state)
{
	(void)state;
	pmcf_profile *p;
	uint32_t ty;
	size_t pf, cc, tc;
	double in = -1, run = -1;
	assert_int_equal(pmcf_profile_new(&p), 0);
	assert_int_equal(pmcf_profile_type_add(p, PMCF_XU_TASK, "t", "", &ty), 0);
	assert_int_equal(pmcf_profile_event_add(p, "page-faults", &pf), 0);
	assert_int_equal(pmcf_profile_event_add(p, "cpu-clock", &cc), 0);
	for (int i = 0; i < 3; i++) {
		pmcf_xu xu = {.type = ty, .cpu = -1, .start_ns = 0, .end_ns = 100};
		size_t x;
		assert_int_equal(pmcf_profile_xu_add(p, &xu, &x), 0);
		pmcf_profile_value_set(p, x, pf, 7);
		pmcf_profile_value_set(p, x, cc, i == 1 ? PMCF_MISSING : 10.0 * (i + 1));
	}
	assert_null(pmcf_profile_cpu_in_xus(p, &in, &run)); /* no run time */
	assert_int_equal(pmcf_profile_meta_set(p, PMCF_META_CPU_TIME_NS, "1000"), 0);
	assert_null(pmcf_profile_cpu_in_xus(p, &in, &run)); /* no source */
	assert_int_equal(pmcf_profile_meta_set(p, PMCF_META_SOURCE, "fused"), 0);
	assert_null(pmcf_profile_cpu_in_xus(p, &in, &run));
	assert_int_equal(pmcf_profile_meta_set(p, PMCF_META_SOURCE, "perf"), 0);
	assert_string_equal(pmcf_profile_cpu_in_xus(p, &in, &run), "cpu-clock");
	assert_true(in == 40 && run == 1000);
	assert_int_equal(pmcf_profile_event_add(p, "task-clock", &tc), 0);
	for (size_t x = 0; x < 3; x++)
		pmcf_profile_value_set(p, x, tc, 100);
	assert_string_equal(pmcf_profile_cpu_in_xus(p, &in, &run), "task-clock");
	assert_true(in == 300 && run == 1000);
	static const char *const bad[] = {"", "x", "0", "-5", "12ms"};
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		assert_int_equal(pmcf_profile_meta_set(p, PMCF_META_CPU_TIME_NS, bad[k]), 0);
		assert_null(pmcf_profile_cpu_in_xus(p, &in, &run));
	}
	pmcf_profile_free(p);
}

static void test_types(void **state)
{
	(void)state;
	pmcf_profile *p;
	uint32_t a, b, c, d;
	pmcf_xu_type t = PMCF_XU_TYPE_INIT;
	assert_int_equal(pmcf_profile_new(&p), 0);
	assert_int_equal(pmcf_profile_type_add(p, PMCF_XU_TASK, "gemm", "main.c:10", &a), 0);
	assert_int_equal(pmcf_profile_type_add(p, PMCF_XU_TASK, "gemm", "main.c:10", &b), 0);
	assert_int_equal(a, b);
	assert_int_equal(pmcf_profile_type_add(p, PMCF_XU_TASK, "gemm", "main.c:11", &c), 0);
	assert_int_not_equal(a, c);
	assert_int_equal(pmcf_profile_type_add(p, PMCF_XU_REGION, "gemm", "main.c:10", &d), 0);
	assert_int_not_equal(a, d);
	/* NULL location is "" */
	assert_int_equal(pmcf_profile_type_add(p, PMCF_XU_LOOP_CHUNK, "loop", NULL, &a), 0);
	assert_int_equal(pmcf_profile_type_add(p, PMCF_XU_LOOP_CHUNK, "loop", "", &b), 0);
	assert_int_equal(a, b);
	assert_int_equal(pmcf_profile_ntypes(p), 4);
	assert_int_equal(pmcf_profile_type_get(p, c, &t), 0);
	assert_int_equal(t.kind, PMCF_XU_TASK);
	assert_string_equal(t.name, "gemm");
	assert_string_equal(t.location, "main.c:11");
	assert_int_equal(pmcf_profile_type_get(p, 4, &t), PMCF_ENOENT);
	assert_int_equal(pmcf_profile_type_add(p, 0, "x", "", &a), PMCF_EINVAL);
	assert_int_equal(pmcf_profile_type_add(p, PMCF_XU_TASK, NULL, "", &a), PMCF_EINVAL);
	assert_int_equal(pmcf_profile_ntypes(p), 4);
	pmcf_profile_free(p);
}

static void test_events(void **state)
{
	(void)state;
	pmcf_profile *p;
	size_t i;
	assert_int_equal(pmcf_profile_new(&p), 0);
	assert_int_equal(pmcf_profile_event_add(p, "duration", &i), 0);
	assert_int_equal(i, 0);
	assert_int_equal(pmcf_profile_event_add(p, "PAPI_TOT_INS", &i), 0);
	assert_int_equal(i, 1);
	assert_int_equal(pmcf_profile_event_add(p, "duration", &i), PMCF_ECONFLICT);
	assert_non_null(strstr(pmcf_errdetail(), "duration"));
	assert_int_equal(pmcf_profile_event_add(p, "", &i), PMCF_EINVAL);
	assert_int_equal(pmcf_profile_nevents(p), 2);
	assert_string_equal(pmcf_profile_event_name(p, 1), "PAPI_TOT_INS");
	assert_null(pmcf_profile_event_name(p, 2));
	assert_int_equal(pmcf_profile_event_find(p, "PAPI_TOT_INS"), 1);
	assert_int_equal(pmcf_profile_event_find(p, "PAPI_TOT_CYC"), PMCF_ENOENT);
	/* a column exists (valid pointer) even without XUs */
	assert_non_null(pmcf_profile_column(p, 0));
	assert_null(pmcf_profile_column(p, 2));
	pmcf_profile_free(p);
}

/* Many events, truth events, XU types and metadata keys (issue 22: loading
 * was quadratic in them, 200k events took a minute). A smoke test of the
 * hashed lookups at a size that loads in well under a second when linear;
 * the timings are in bench/RESULTS.md (bench_store --names). */
#define MANY_NAMES 60000
static void test_many_names(void **state)
{
	(void)state;
	pmcf_profile *p;
	assert_int_equal(pmcf_profile_new(&p), 0);
	char name[64];
	for (size_t i = 0; i < MANY_NAMES; i++) {
		uint32_t id;
		snprintf(name, sizeof(name), "type%zu", i);
		assert_int_equal(pmcf_profile_type_add(p, PMCF_XU_TASK, name, "f.c:1", &id), 0);
		assert_int_equal(id, i);
		snprintf(name, sizeof(name), "ev%zu", i);
		assert_int_equal(pmcf_profile_event_add(p, name, NULL), 0);
		snprintf(name, sizeof(name), "key%zu", i);
		assert_int_equal(pmcf_profile_meta_set(p, name, "v"), 0);
	}
	/* the same type again is found, not added; another location is new */
	uint32_t id;
	assert_int_equal(pmcf_profile_type_add(p, PMCF_XU_TASK, "type7", "f.c:1", &id), 0);
	assert_int_equal(id, 7);
	assert_int_equal(pmcf_profile_type_add(p, PMCF_XU_TASK, "type7", "f.c:2", &id), 0);
	assert_int_equal(id, MANY_NAMES);
	assert_int_equal(pmcf_profile_event_add(p, "ev5", NULL), PMCF_ECONFLICT);
	/* a removed key shifts the others: they are still found */
	assert_int_equal(pmcf_profile_meta_set(p, "key3", NULL), 0);
	assert_null(pmcf_profile_meta_get(p, "key3"));
	assert_string_equal(pmcf_profile_meta_get(p, "key4"), "v");
	pmcf_xu xu = {.type = 0, .start_ns = 1, .end_ns = 2, .label = "0", .parent_label = ""};
	assert_int_equal(pmcf_profile_xu_add(p, &xu, NULL), 0);
	assert_int_equal(pmcf_profile_save(p, tpath("many.pmcf")), 0);
	pmcf_profile_free(p);
	assert_int_equal(pmcf_profile_open(tpath("many.pmcf"), &p), 0);
	assert_int_equal(pmcf_profile_ntypes(p), MANY_NAMES + 1);
	assert_int_equal(pmcf_profile_nevents(p), MANY_NAMES);
	assert_int_equal(pmcf_profile_event_find(p, "ev59999"), MANY_NAMES - 1);
	assert_int_equal(pmcf_profile_event_find(p, "nosuch"), PMCF_ENOENT);
	assert_string_equal(pmcf_profile_meta_get(p, "key59999"), "v");
	pmcf_profile_free(p);
}

static void test_xus_values(void **state)
{
	(void)state;
	pmcf_profile *p;
	uint32_t ty;
	size_t ev, idx;
	pmcf_xu x = PMCF_XU_INIT;
	assert_int_equal(pmcf_profile_new(&p), 0);
	assert_int_equal(pmcf_profile_event_add(p, "duration", &ev), 0);
	pmcf_xu bad = {.type = 0, .label = "1"};
	assert_int_equal(pmcf_profile_xu_add(p, &bad, NULL), PMCF_EINVAL); /* no types yet */
	assert_int_equal(pmcf_profile_type_add(p, PMCF_XU_TASK, "t", "", &ty), 0);
	bad.start_ns = 10;
	bad.end_ns = 5;
	assert_int_equal(pmcf_profile_xu_add(p, &bad, NULL), PMCF_EINVAL);
	assert_int_equal(pmcf_profile_reserve(p, 10), 0);

	char lab[32], par[32];
	for (size_t i = 0; i < 1000; i++) {
		snprintf(lab, sizeof(lab), "3.%zu.%zu", i / 10, i % 10);
		snprintf(par, sizeof(par), "3.%zu", i / 10);
		pmcf_xu xu = {.type = ty,
			      .thread = (int32_t)(i % 4),
			      .cpu = -1,
			      .start_ns = i,
			      .end_ns = i + 7,
			      .label = i % 3 ? lab : NULL,
			      .parent_label = par};
		assert_int_equal(pmcf_profile_xu_add(p, &xu, &idx), 0);
		assert_int_equal(idx, i);
	}
	assert_int_equal(pmcf_profile_nxus(p), 1000);
	assert_int_equal(pmcf_profile_xu_get(p, 998, &x), 0);
	assert_string_equal(x.label, "3.99.8");
	assert_string_equal(x.parent_label, "3.99");
	assert_int_equal(x.thread, 2);
	assert_int_equal(x.cpu, -1);
	assert_int_equal(x.end_ns, 1005);
	assert_int_equal(pmcf_profile_xu_get(p, 0, &x), 0);
	assert_string_equal(x.label, "");
	assert_int_equal(pmcf_profile_xu_get(p, 1000, &x), PMCF_ENOENT);

	/* values: missing by default, zero is not missing */
	assert_true(pmcf_is_missing(pmcf_profile_value(p, 5, ev)));
	assert_int_equal(pmcf_profile_value_set(p, 5, ev, 0.0), 0);
	assert_false(pmcf_is_missing(pmcf_profile_value(p, 5, ev)));
	assert_true(pmcf_profile_value(p, 5, ev) == 0.0);
	assert_int_equal(pmcf_profile_value_set(p, 6, ev, PMCF_MISSING), 0);
	assert_true(pmcf_is_missing(pmcf_profile_value(p, 6, ev)));
	double *col = pmcf_profile_column(p, ev);
	assert_non_null(col);
	col[7] = -2.5;
	assert_true(pmcf_profile_value(p, 7, ev) == -2.5);
	assert_ptr_equal(pmcf_profile_column_const(p, ev), col);

	/* out of range */
	assert_true(pmcf_is_missing(pmcf_profile_value(p, 1000, ev)));
	assert_true(pmcf_is_missing(pmcf_profile_value(p, 0, 1)));
	assert_int_equal(pmcf_profile_value_set(p, 1000, ev, 1.0), PMCF_ENOENT);
	assert_int_equal(pmcf_profile_value_set(p, 0, 1, 1.0), PMCF_ENOENT);

	/* an event added later is missing for every existing XU */
	size_t ev2;
	assert_int_equal(pmcf_profile_event_add(p, "later", &ev2), 0);
	const double *c2 = pmcf_profile_column_const(p, ev2);
	for (size_t i = 0; i < 1000; i++)
		assert_true(pmcf_is_missing(c2[i]));
	assert_true(pmcf_profile_value(p, 7, ev) == -2.5);
	pmcf_profile_free(p);
}

/* XUs appended bare (the combination's way): their fixed fields and labels
 * as pmcf_profile_xu_add writes them, values and provenance as the caller
 * writes them; refused where a per-XU layer would keep no default. */
static void test_xu_add_bare(void **state)
{
	(void)state;
	pmcf_profile *p;
	uint32_t ty;
	size_t ev, i;
	assert_int_equal(pmcf_profile_new(&p), 0);
	assert_int_equal(pmcf_profile_type_add(p, PMCF_XU_TASK, "t", "", &ty), 0);
	assert_int_equal(pmcf_profile_event_add(p, "duration", &ev), 0);
	pmcf_xu xu = {.type = ty,
		      .thread = 3,
		      .cpu = 1,
		      .start_ns = 5,
		      .end_ns = 9,
		      .label = "0.1",
		      .parent_label = "0"};
	for (int k = 0; k < 100; k++) /* grows past the first capacity */
		assert_int_equal(pmcfi_profile_xu_add_bare(p, &xu, &i), 0);
	assert_int_equal(i, 99);
	xu.end_ns = 1;
	assert_int_equal(pmcfi_profile_xu_add_bare(p, &xu, NULL), PMCF_EINVAL); /* checked as xu_add */
	assert_int_equal(pmcf_profile_nxus(p), 100);
	pmcf_xu got = PMCF_XU_INIT;
	assert_int_equal(pmcf_profile_xu_get(p, 42, &got), 0);
	assert_int_equal(got.thread, 3);
	assert_int_equal(got.cpu, 1);
	assert_int_equal(got.start_ns, 5);
	assert_int_equal(got.end_ns, 9);
	assert_string_equal(got.label, "0.1");
	assert_string_equal(got.parent_label, "0");
	assert_int_equal(pmcfi_profile_provenance_enable_bare(p), 0);
	assert_true(pmcf_profile_has_provenance(p));
	assert_int_equal(pmcf_profile_source_add(p, "a.pmcf", "", NULL), 0);
	double *col = pmcf_profile_column(p, ev);
	int32_t *ps;
	int64_t *px;
	pmcfi_profile_provenance_columns(p, ev, &ps, &px);
	for (size_t k = 0; k < 100; k++) {
		col[k] = (double)k;
		ps[k] = k % 2 ? 0 : -1;
		px[k] = k % 2 ? (int64_t)k : -1;
	}
	int32_t s;
	int64_t x;
	assert_int_equal(pmcf_profile_provenance_get(p, 7, ev, &s, &x), 0);
	assert_int_equal(s, 0);
	assert_int_equal(x, 7);
	assert_int_equal(pmcf_profile_provenance_get(p, 8, ev, &s, &x), 0);
	assert_int_equal(s, -1);
	assert_true(pmcf_profile_value(p, 8, ev) == 8);
	/* a layer with per-XU defaults: refused, nothing appended */
	xu.end_ns = 9;
	assert_int_equal(pmcf_profile_match_distance_set(p, 0, 0.5), 0);
	assert_int_equal(pmcfi_profile_xu_add_bare(p, &xu, NULL), PMCF_EINVAL);
	assert_int_equal(pmcf_profile_nxus(p), 100);
	assert_int_equal(pmcf_profile_xu_add(p, &xu, &i), 0);
	assert_true(pmcf_is_missing(pmcf_profile_match_distance(p, i)));
	assert_true(pmcf_is_missing(pmcf_profile_value(p, i, ev)));
	pmcf_profile_free(p);
}

static void test_layers(void **state)
{
	(void)state;
	pmcf_profile *p;
	uint32_t ty, s0, s1;
	size_t ev, t0, t1;
	uint64_t en, ru;
	int32_t src;
	int64_t sxu;
	assert_int_equal(pmcf_profile_new(&p), 0);
	assert_int_equal(pmcf_profile_type_add(p, PMCF_XU_TASK, "t", "", &ty), 0);
	assert_int_equal(pmcf_profile_event_add(p, "duration", &ev), 0);
	pmcf_xu xu = {.type = ty, .label = "1"};
	for (int i = 0; i < 3; i++)
		assert_int_equal(pmcf_profile_xu_add(p, &xu, NULL), 0);

	/* ground truth: its own list */
	assert_int_equal(pmcf_profile_truth_event_add(p, "duration", &t0), 0);
	assert_int_equal(pmcf_profile_truth_event_add(p, "cycles", &t1), 0);
	assert_int_equal(pmcf_profile_truth_event_add(p, "cycles", NULL), PMCF_ECONFLICT);
	assert_int_equal(pmcf_profile_ntruth(p), 2);
	assert_int_equal(pmcf_profile_truth_find(p, "cycles"), 1);
	assert_int_equal(pmcf_profile_truth_find(p, "x"), PMCF_ENOENT);
	assert_string_equal(pmcf_profile_truth_name(p, 0), "duration");
	assert_null(pmcf_profile_truth_name(p, 2));
	assert_true(pmcf_is_missing(pmcf_profile_truth_column(p, t1)[2]));
	assert_null(pmcf_profile_truth_column_const(p, 2));
	assert_int_equal(pmcf_profile_nevents(p), 1);

	/* coverage */
	assert_false(pmcf_profile_has_coverage(p));
	assert_int_equal(pmcf_profile_coverage_get(p, 0, ev, &en, &ru), PMCF_ENOENT);
	assert_int_equal(pmcf_profile_coverage_set(p, 0, ev, 1, 1), PMCF_ENOENT);
	assert_int_equal(pmcf_profile_coverage_enable(p), 0);
	assert_true(pmcf_profile_has_coverage(p));
	assert_int_equal(pmcf_profile_coverage_get(p, 2, ev, &en, &ru), 0);
	assert_int_equal(en, 0);
	assert_int_equal(ru, 0);
	assert_int_equal(pmcf_profile_coverage_set(p, 2, ev, 100, 40), 0);
	assert_int_equal(pmcf_profile_coverage_get(p, 2, ev, &en, &ru), 0);
	assert_int_equal(en, 100);
	assert_int_equal(ru, 40);
	assert_int_equal(pmcf_profile_coverage_get(p, 3, ev, &en, &ru), PMCF_ENOENT);

	/* provenance */
	assert_false(pmcf_profile_has_provenance(p));
	assert_int_equal(pmcf_profile_provenance_get(p, 0, ev, &src, &sxu), PMCF_ENOENT);
	assert_int_equal(pmcf_profile_source_add(p, "a.pmcf", "run-a", &s0), 0);
	assert_int_equal(pmcf_profile_source_add(p, "b.pmcf", NULL, &s1), 0);
	assert_int_equal(pmcf_profile_nsources(p), 2);
	const char *sp, *si;
	assert_int_equal(pmcf_profile_source_get(p, s1, &sp, &si), 0);
	assert_string_equal(sp, "b.pmcf");
	assert_string_equal(si, "");
	assert_int_equal(pmcf_profile_source_get(p, 2, &sp, &si), PMCF_ENOENT);
	assert_int_equal(pmcf_profile_provenance_enable(p), 0);
	assert_true(pmcf_profile_has_provenance(p));
	assert_int_equal(pmcf_profile_provenance_get(p, 1, ev, &src, &sxu), 0);
	assert_int_equal(src, -1);
	assert_int_equal(sxu, -1);
	assert_int_equal(pmcf_profile_provenance_set(p, 1, ev, (int32_t)s1, 12345678901LL), 0);
	assert_int_equal(pmcf_profile_provenance_get(p, 1, ev, &src, &sxu), 0);
	assert_int_equal(src, 1);
	assert_int_equal(sxu, 12345678901LL);
	assert_int_equal(pmcf_profile_provenance_set(p, 1, ev, 2, 0), PMCF_EINVAL);
	assert_int_equal(pmcf_profile_provenance_set(p, 1, ev, -2, 0), PMCF_EINVAL);

	/* base labels: none until one is set; checked like provenance */
	const char *bl;
	assert_false(pmcf_profile_has_base_labels(p));
	assert_int_equal(pmcf_profile_base_label_get(p, 0, &src, &sxu, &bl), PMCF_ENOENT);
	assert_int_equal(pmcf_profile_base_label_set(p, 0, 2, 0, "x"), PMCF_EINVAL);
	assert_int_equal(pmcf_profile_base_label_set(p, 0, 1, -1, "x"), PMCF_EINVAL);
	assert_int_equal(pmcf_profile_base_label_set(p, 0, -1, 4, "x"), PMCF_EINVAL);
	assert_int_equal(pmcf_profile_base_label_set(p, 3, 1, 4, "x"), PMCF_ENOENT);
	assert_false(pmcf_profile_has_base_labels(p));
	assert_int_equal(pmcf_profile_base_label_set(p, 1, (int32_t)s1, 7, "0.3.1"), 0);
	assert_true(pmcf_profile_has_base_labels(p));
	assert_int_equal(pmcf_profile_base_label_get(p, 1, &src, &sxu, &bl), 0);
	assert_int_equal(src, 1);
	assert_int_equal(sxu, 7);
	assert_string_equal(bl, "0.3.1");
	assert_int_equal(pmcf_profile_base_label_get(p, 0, &src, &sxu, &bl), 0);
	assert_int_equal(src, -1);
	assert_int_equal(sxu, -1);
	assert_string_equal(bl, "");

	/* a new event gets every layer */
	size_t ev2;
	assert_int_equal(pmcf_profile_event_add(p, "cycles", &ev2), 0);
	assert_int_equal(pmcf_profile_coverage_get(p, 2, ev2, &en, &ru), 0);
	assert_int_equal(en, 0);
	assert_int_equal(pmcf_profile_provenance_get(p, 2, ev2, &src, &sxu), 0);
	assert_int_equal(src, -1);

	/* match distance */
	assert_true(pmcf_is_missing(pmcf_profile_match_distance(p, 0)));
	assert_int_equal(pmcf_profile_match_distance_set(p, 1, 0.5), 0);
	assert_true(pmcf_profile_match_distance(p, 1) == 0.5);
	assert_true(pmcf_is_missing(pmcf_profile_match_distance(p, 0)));
	assert_int_equal(pmcf_profile_match_distance_set(p, 3, 0.5), PMCF_ENOENT);

	/* adding an XU extends every layer */
	assert_int_equal(pmcf_profile_xu_add(p, &xu, NULL), 0);
	assert_int_equal(pmcf_profile_coverage_get(p, 3, ev2, &en, &ru), 0);
	assert_int_equal(en + ru, 0);
	assert_int_equal(pmcf_profile_provenance_get(p, 3, ev, &src, &sxu), 0);
	assert_int_equal(sxu, -1);
	assert_true(pmcf_is_missing(pmcf_profile_match_distance(p, 3)));
	assert_true(pmcf_is_missing(pmcf_profile_truth_column(p, t0)[3]));
	assert_int_equal(pmcf_profile_base_label_get(p, 3, &src, &sxu, &bl), 0);
	assert_int_equal(src, -1);
	assert_string_equal(bl, "");
	pmcf_profile_free(p);
}

/* ---- store ---------------------------------------------------------------- */

static const struct {
	int line;
	uint64_t in, out; /* bit patterns written and expected back */
} special[] = {
	{__LINE__, 0x0000000000000000ull, 0x0000000000000000ull}, /* 0.0 */
	{__LINE__, 0x8000000000000000ull, 0x8000000000000000ull}, /* -0.0 */
	{__LINE__, 0xbff4000000000000ull, 0xbff4000000000000ull}, /* -1.25 */
	{__LINE__, 0xc08f40a3d70a3d71ull, 0xc08f40a3d70a3d71ull}, /* -1000.08 */
	{__LINE__, 0x4340000000000001ull, 0x4340000000000001ull}, /* 2^53 + 2 */
	{__LINE__, 0x7ff0000000000000ull, 0x7ff0000000000000ull}, /* +inf */
	{__LINE__, 0x0000000000000001ull, 0x0000000000000001ull}, /* smallest subnormal */
	{__LINE__, 0x7ff8000000000000ull, 0x7ff8000000000000ull}, /* missing */
	{__LINE__, 0xfff8000000000000ull, 0x7ff8000000000000ull}, /* -NaN: canonical */
	{__LINE__, 0x7ff0000000000123ull, 0x7ff8000000000000ull}, /* signalling NaN payload */
};
#define NSPECIAL (sizeof(special) / sizeof(special[0]))

/* A profile with nxu XUs, 3 events, 3 types (the last one used by the last
 * XU) and, with layers, every optional layer. */
static pmcf_profile *fixture(size_t nxu, int layers)
{
	pmcf_profile *p;
	uint32_t ty[3];
	assert_int_equal(pmcf_profile_new(&p), 0);
	assert_int_equal(pmcf_profile_meta_set(p, PMCF_META_PROGRAM, "/usr/bin/prog"), 0);
	assert_int_equal(pmcf_profile_meta_set(p, PMCF_META_ARGS, "[\"-n\", \"été\"]"), 0);
	assert_int_equal(pmcf_profile_meta_set(p, PMCF_META_COMPLETE, "1"), 0);
	assert_int_equal(pmcf_profile_type_add(p, PMCF_XU_TASK, "gemm", "blas.c:12", &ty[0]), 0);
	assert_int_equal(pmcf_profile_type_add(p, PMCF_XU_LOOP_CHUNK, "loop@main.c:42", "main.c:42", &ty[1]),
			 0);
	assert_int_equal(pmcf_profile_type_add(p, PMCF_XU_REGION, "init", "", &ty[2]), 0);
	for (const char *const *e = (const char *const[]){"duration", "PAPI_TOT_INS", "r01c4", NULL}; *e; e++)
		assert_int_equal(pmcf_profile_event_add(p, *e, NULL), 0);
	if (layers) {
		assert_int_equal(pmcf_profile_truth_event_add(p, "duration", NULL), 0);
		assert_int_equal(pmcf_profile_truth_event_add(p, "cycles", NULL), 0);
		assert_int_equal(pmcf_profile_coverage_enable(p), 0);
		assert_int_equal(pmcf_profile_source_add(p, "/x/a.pmcf", "a", NULL), 0);
		assert_int_equal(pmcf_profile_source_add(p, "/x/b.pmcf", "b", NULL), 0);
		assert_int_equal(pmcf_profile_provenance_enable(p), 0);
	}
	char lab[32], par[32];
	for (size_t i = 0; i < nxu; i++) {
		snprintf(lab, sizeof(lab), "3.1.%zu.%zu", i / 100, i % 100);
		snprintf(par, sizeof(par), "3.1.%zu", i / 100);
		pmcf_xu xu = {.type = i + 1 == nxu ? ty[2] : ty[i % 2],
			      .thread = (int32_t)(i % 7),
			      .cpu = i % 5 ? (int32_t)(i % 5) : -1,
			      .start_ns = i * 1000ull + (1ull << 40),
			      .end_ns = i * 1000ull + (1ull << 40) + 999,
			      .label = i % 11 ? lab : "",
			      .parent_label = i % 13 ? par : NULL};
		assert_int_equal(pmcf_profile_xu_add(p, &xu, NULL), 0);
		for (size_t e = 0; e < 3; e++) {
			double v = (double)(i * 3 + e) * 1.5 - 7.0;
			if (e == 2 && i < NSPECIAL)
				v = from_bits(special[i].in);
			else if ((i + e) % 50 == 0)
				v = PMCF_MISSING;
			assert_int_equal(pmcf_profile_value_set(p, i, e, v), 0);
			if (layers) {
				assert_int_equal(pmcf_profile_coverage_set(p, i, e, i * 10 + e, i * 5), 0);
				if (i % 4)
					assert_int_equal(pmcf_profile_provenance_set(p, i, e,
										     (int32_t)((i + e) % 2),
										     (int64_t)(i * 2 + e)
											     << 20),
							 0);
			}
		}
		if (layers) {
			pmcf_profile_truth_column(p, 0)[i] = (double)i;
			pmcf_profile_truth_column(p, 1)[i] = i % 9 ? (double)i * -0.25 : PMCF_MISSING;
			if (i % 3)
				assert_int_equal(pmcf_profile_match_distance_set(p, i, (double)(i % 17) / 4),
						 0);
			snprintf(lab, sizeof(lab), "0.%zu.%zu", i % 3, i);
			if (i % 4)
				assert_int_equal(pmcf_profile_rank_set(p, i, (int32_t)(i % 4)), 0);
			if (i % 5)
				assert_int_equal(pmcf_profile_base_label_set(p, i, (int32_t)(i % 2),
									     (int64_t)i * 3,
									     i % 7 ? lab : ""),
						 0);
		}
	}
	return p;
}

/* Asserts that b equals a, bit for bit except for NaN canonicalisation. */
static void assert_same(const pmcf_profile *a, const pmcf_profile *b)
{
	const char *ka, *va, *kb, *vb;
	assert_int_equal(pmcf_profile_meta_count(a), pmcf_profile_meta_count(b));
	for (size_t i = 0; i < pmcf_profile_meta_count(a); i++) {
		assert_int_equal(pmcf_profile_meta_at(a, i, &ka, &va), 0);
		assert_int_equal(pmcf_profile_meta_at(b, i, &kb, &vb), 0);
		assert_string_equal(ka, kb);
		assert_string_equal(va, vb);
	}
	assert_int_equal(pmcf_profile_ntypes(a), pmcf_profile_ntypes(b));
	for (uint32_t i = 0; i < pmcf_profile_ntypes(a); i++) {
		pmcf_xu_type ta = PMCF_XU_TYPE_INIT, tb = PMCF_XU_TYPE_INIT;
		assert_int_equal(pmcf_profile_type_get(a, i, &ta), 0);
		assert_int_equal(pmcf_profile_type_get(b, i, &tb), 0);
		assert_int_equal(ta.kind, tb.kind);
		assert_string_equal(ta.name, tb.name);
		assert_string_equal(ta.location, tb.location);
	}
	size_t nev = pmcf_profile_nevents(a), nxu = pmcf_profile_nxus(a);
	assert_int_equal(nev, pmcf_profile_nevents(b));
	assert_int_equal(nxu, pmcf_profile_nxus(b));
	for (size_t e = 0; e < nev; e++)
		assert_string_equal(pmcf_profile_event_name(a, e), pmcf_profile_event_name(b, e));
	for (size_t i = 0; i < nxu; i++) {
		pmcf_xu xa = PMCF_XU_INIT, xb = PMCF_XU_INIT;
		assert_int_equal(pmcf_profile_xu_get(a, i, &xa), 0);
		assert_int_equal(pmcf_profile_xu_get(b, i, &xb), 0);
		assert_int_equal(xa.type, xb.type);
		assert_int_equal(xa.thread, xb.thread);
		assert_int_equal(xa.cpu, xb.cpu);
		assert_int_equal(xa.start_ns, xb.start_ns);
		assert_int_equal(xa.end_ns, xb.end_ns);
		assert_string_equal(xa.label, xb.label);
		assert_string_equal(xa.parent_label, xb.parent_label);
		assert_int_equal(pmcf_profile_rank(a, i), pmcf_profile_rank(b, i));
		for (size_t e = 0; e < nev; e++) {
			double va2 = pmcf_profile_value(a, i, e), vb2 = pmcf_profile_value(b, i, e);
			if (pmcf_is_missing(va2))
				assert_int_equal(bits(vb2), 0x7ff8000000000000ull);
			else
				assert_int_equal(bits(va2), bits(vb2));
		}
	}
	assert_int_equal(pmcf_profile_ntruth(a), pmcf_profile_ntruth(b));
	for (size_t t = 0; t < pmcf_profile_ntruth(a); t++) {
		assert_string_equal(pmcf_profile_truth_name(a, t), pmcf_profile_truth_name(b, t));
		const double *ca = pmcf_profile_truth_column_const(a, t),
			     *cb = pmcf_profile_truth_column_const(b, t);
		for (size_t i = 0; i < nxu; i++)
			if (pmcf_is_missing(ca[i]))
				assert_true(pmcf_is_missing(cb[i]));
			else
				assert_int_equal(bits(ca[i]), bits(cb[i]));
	}
	assert_int_equal(pmcf_profile_has_coverage(a), pmcf_profile_has_coverage(b));
	assert_int_equal(pmcf_profile_has_provenance(a), pmcf_profile_has_provenance(b));
	assert_int_equal(pmcf_profile_nsources(a), pmcf_profile_nsources(b));
	for (uint32_t s = 0; s < pmcf_profile_nsources(a); s++) {
		assert_int_equal(pmcf_profile_source_get(a, s, &ka, &va), 0);
		assert_int_equal(pmcf_profile_source_get(b, s, &kb, &vb), 0);
		assert_string_equal(ka, kb);
		assert_string_equal(va, vb);
	}
	assert_int_equal(pmcf_profile_has_base_labels(a), pmcf_profile_has_base_labels(b));
	assert_int_equal(pmcf_profile_has_ranks(a), pmcf_profile_has_ranks(b));
	for (size_t i = 0; i < nxu && pmcf_profile_has_base_labels(a); i++) {
		int32_t sa, sb;
		int64_t xa, xb;
		const char *la, *lb;
		assert_int_equal(pmcf_profile_base_label_get(a, i, &sa, &xa, &la), 0);
		assert_int_equal(pmcf_profile_base_label_get(b, i, &sb, &xb, &lb), 0);
		assert_int_equal(sa, sb);
		assert_int_equal(xa, xb);
		assert_string_equal(la, lb);
	}
	for (size_t i = 0; i < nxu; i++) {
		double ma = pmcf_profile_match_distance(a, i), mb = pmcf_profile_match_distance(b, i);
		assert_true(pmcf_is_missing(ma) ? pmcf_is_missing(mb) : ma == mb);
		for (size_t e = 0; e < nev; e++) {
			uint64_t ea, ra, eb, rb;
			int32_t sa, sb;
			int64_t xa, xb;
			if (pmcf_profile_has_coverage(a)) {
				assert_int_equal(pmcf_profile_coverage_get(a, i, e, &ea, &ra), 0);
				assert_int_equal(pmcf_profile_coverage_get(b, i, e, &eb, &rb), 0);
				assert_int_equal(ea, eb);
				assert_int_equal(ra, rb);
			}
			if (pmcf_profile_has_provenance(a)) {
				assert_int_equal(pmcf_profile_provenance_get(a, i, e, &sa, &xa), 0);
				assert_int_equal(pmcf_profile_provenance_get(b, i, e, &sb, &xb), 0);
				assert_int_equal(sa, sb);
				assert_int_equal(xa, xb);
			}
		}
	}
}

static pmcf_profile *roundtrip(const pmcf_profile *p, const char *name)
{
	pmcf_profile *q = NULL;
	const char *path = tpath(name);
	int err = pmcf_profile_save(p, path);
	if (err)
		fail_msg("save: %d %s", err, pmcf_errdetail());
	err = pmcf_profile_open(path, &q);
	if (err)
		fail_msg("open: %d %s", err, pmcf_errdetail());
	assert_non_null(q);
	assert_same(p, q);
	return q;
}

static void test_roundtrip_special_values(void **state)
{
	(void)state;
	pmcf_profile *p = fixture(NSPECIAL + 5, 0);
	pmcf_profile *q = roundtrip(p, "special.pmcf");
	for (size_t i = 0; i < NSPECIAL; i++) {
		uint64_t got = bits(pmcf_profile_value(q, i, 2));
		if (got != special[i].out)
			fail_msg("row at line %d: got 0x%016llx", special[i].line, (unsigned long long)got);
	}
	assert_false(pmcf_profile_has_coverage(q));
	assert_false(pmcf_profile_has_provenance(q));
	assert_int_equal(pmcf_profile_ntruth(q), 0);
	assert_true(pmcf_is_missing(pmcf_profile_match_distance(q, 0)));
	pmcf_profile_free(p);
	pmcf_profile_free(q);
}

/* The rank layer: absent means rank 0; set refuses negative ranks and XUs
 * out of range; added XUs get rank 0. */
static void test_ranks(void **state)
{
	(void)state;
	pmcf_profile *p = fixture(3, 0);
	assert_false(pmcf_profile_has_ranks(p));
	assert_int_equal(pmcf_profile_rank(p, 1), 0);
	assert_int_equal(pmcf_profile_nranks(p), 1);
	assert_int_equal(pmcf_profile_rank_set(p, 1, -1), PMCF_EINVAL);
	assert_int_equal(pmcf_profile_rank_set(p, 3, 1), PMCF_ENOENT);
	assert_false(pmcf_profile_has_ranks(p));
	assert_int_equal(pmcf_profile_rank_set(p, 1, 5), 0);
	assert_true(pmcf_profile_has_ranks(p));
	assert_int_equal(pmcf_profile_rank(p, 0), 0);
	assert_int_equal(pmcf_profile_rank(p, 1), 5);
	assert_int_equal(pmcf_profile_rank(p, 7), 0);
	assert_int_equal(pmcf_profile_nranks(p), 6);
	pmcf_xu xu = {.type = 0, .label = "x"};
	size_t i;
	assert_int_equal(pmcf_profile_xu_add(p, &xu, &i), 0);
	assert_int_equal(pmcf_profile_rank(p, i), 0);
	pmcf_profile_free(p);
}

/* More than one chunk (65536 XUs), every layer. */
static void test_roundtrip_all_layers(void **state)
{
	(void)state;
	pmcf_profile *p = fixture(70000, 1);
	pmcf_profile *q = roundtrip(p, "layers.pmcf");
	assert_true(pmcf_profile_has_coverage(q));
	assert_true(pmcf_profile_has_provenance(q));
	assert_true(pmcf_profile_has_base_labels(q));
	assert_true(pmcf_profile_has_ranks(q));
	assert_int_equal(pmcf_profile_rank(q, 69999), 3);
	assert_int_equal(pmcf_profile_rank(q, 69996), 0);
	assert_int_equal(pmcf_profile_nranks(q), 4);
	assert_int_equal(pmcf_profile_ntruth(q), 2);
	assert_true(pmcf_profile_complete(q));
	int32_t bs;
	int64_t bx;
	const char *bl;
	assert_int_equal(pmcf_profile_base_label_get(q, 69999, &bs, &bx, &bl), 0);
	assert_int_equal(bs, 1);
	assert_int_equal(bx, 69999 * 3);
	assert_string_equal(bl, "0.0.69999");
	/* the loaded profile is a working model: it grows and saves again */
	pmcf_xu xu = {.type = 0, .label = "new"};
	assert_int_equal(pmcf_profile_xu_add(q, &xu, NULL), 0);
	assert_int_equal(pmcf_profile_event_add(q, "extra", NULL), 0);
	pmcf_profile *r = roundtrip(q, "layers2.pmcf");
	pmcf_profile_free(p);
	pmcf_profile_free(q);
	pmcf_profile_free(r);
}

static void test_roundtrip_empty(void **state)
{
	(void)state;
	static const struct {
		int line;
		size_t nxu;
		int events, layers;
	} rows[] = {
		{__LINE__, 0, 0, 0}, /* nothing at all */
		{__LINE__, 0, 1, 0}, /* events, no XUs */
		{__LINE__, 0, 1, 1}, /* layers, no XUs */
		{__LINE__, 5, 0, 0}, /* XUs, no events */
		{__LINE__, 5, 0, 1}, /* XUs and layers, no events */
	};
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		pmcf_profile *p;
		uint32_t ty;
		assert_int_equal(pmcf_profile_new(&p), 0);
		if (rows[r].events)
			assert_int_equal(pmcf_profile_event_add(p, "duration", NULL), 0);
		if (rows[r].layers) {
			assert_int_equal(pmcf_profile_coverage_enable(p), 0);
			assert_int_equal(pmcf_profile_provenance_enable(p), 0);
			assert_int_equal(pmcf_profile_truth_event_add(p, "t", NULL), 0);
		}
		assert_int_equal(pmcf_profile_type_add(p, PMCF_XU_THREAD, "thread", "", &ty), 0);
		for (size_t i = 0; i < rows[r].nxu; i++) {
			pmcf_xu xu = {.type = ty, .thread = (int32_t)i};
			assert_int_equal(pmcf_profile_xu_add(p, &xu, NULL), 0);
		}
		char name[32];
		snprintf(name, sizeof(name), "empty%zu.pmcf", r);
		pmcf_profile *q = roundtrip(p, name);
		if (pmcf_profile_has_coverage(q) != rows[r].layers ||
		    pmcf_profile_has_provenance(q) != rows[r].layers ||
		    pmcf_profile_ntruth(q) != (size_t)rows[r].layers)
			fail_msg("row at line %d: layers", rows[r].line);
		pmcf_profile_free(p);
		pmcf_profile_free(q);
	}
}

/* ---- refusing files -------------------------------------------------------- */

static void expect_open(int line, const char *path, int want, const char *detail)
{
	pmcf_profile *q = (pmcf_profile *)&q; /* must be reset to NULL */
	int err = pmcf_profile_open(path, &q);
	if (err != want)
		fail_msg("line %d: %s: got %d (%s), want %d", line, path, err, pmcf_errdetail(), want);
	if (q)
		fail_msg("line %d: output not NULL on error", line);
	if (!strstr(pmcf_errdetail(), path))
		fail_msg("line %d: detail '%s' does not name the path", line, pmcf_errdetail());
	if (detail && !strstr(pmcf_errdetail(), detail))
		fail_msg("line %d: detail '%s' lacks '%s'", line, pmcf_errdetail(), detail);
}

/* ---- SQL layer (sqlrows.c) ------------------------------------------------ */

/* The first column of the first row of sql on path, as text ("NULL" for
 * NULL, "none" for no row), in a static buffer. */
static const char *sql_text(const char *path, const char *sql)
{
	static char out[256];
	sqlite3 *db;
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	int rc = sqlite3_step(st);
	if (rc != SQLITE_ROW)
		snprintf(out, sizeof(out), "%s", rc == SQLITE_DONE ? "none" : sqlite3_errmsg(db));
	else if (sqlite3_column_type(st, 0) == SQLITE_NULL)
		snprintf(out, sizeof(out), "NULL");
	else
		snprintf(out, sizeof(out), "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(db);
	return out;
}

/* The views name a column exactly as each event (odd names quoted; a name
 * equal to an earlier column but for case gets ":1"), missing is NULL,
 * counts are integers, the long view has a row per XU and event. */
static void test_sql_layer(void **state)
{
	(void)state;
	pmcf_profile *p;
	assert_int_equal(pmcf_profile_new(&p), 0);
	uint32_t ta, tb;
	assert_int_equal(pmcf_profile_type_add(p, PMCF_XU_TASK, "gemm", "c.c:3", &ta), 0);
	assert_int_equal(pmcf_profile_type_add(p, PMCF_XU_LOOP_CHUNK, "it's", "", &tb), 0);
	static const char *const ev[] = {"duration", "page-faults", "x:\"q\"", "XU", "PAPI_L1_DCM"};
	for (size_t e = 0; e < 5; e++)
		assert_int_equal(pmcf_profile_event_add(p, ev[e], NULL), 0);
	for (size_t i = 0; i < 10; i++) {
		pmcf_xu x = {.type = i % 3 ? ta : tb,
			     .thread = (int32_t)(i % 2),
			     .cpu = -1,
			     .start_ns = 100 * i,
			     .end_ns = 100 * i + 50,
			     .label = i == 3 ? "3'" : "l",
			     .parent_label = ""};
		size_t k;
		assert_int_equal(pmcf_profile_xu_add(p, &x, &k), 0);
		assert_int_equal(pmcf_profile_value_set(p, k, 0, 50), 0);
		assert_int_equal(pmcf_profile_value_set(p, k, 1, (double)i), 0);
		assert_int_equal(pmcf_profile_value_set(p, k, 2, i == 4 ? PMCF_MISSING : 0.25 * (double)i),
				 0);
		assert_int_equal(pmcf_profile_value_set(p, k, 3, i == 5 ? INFINITY : -(double)i), 0);
		assert_int_equal(pmcf_profile_value_set(p, k, 4, 1e15 + (double)i), 0);
	}
	const char *f = tpath("sql.pmcf");
	assert_int_equal(pmcf_profile_save(p, f), 0);
	static const struct {
		int line;
		const char *sql, *want;
	} rows[] = {
		{__LINE__, "SELECT count(*) FROM xu_values", "10"},
		{__LINE__, "SELECT group_concat(name, '|') FROM pragma_table_info('xu_values')",
		 "xu|type|type_name|label|parent_label|thread|cpu|start_ns|end_ns|rank|base_source|base_xu|"
		 "base_label|duration|page-faults|"
		 "x:\"q\"|XU:1|PAPI_L1_DCM"},
		{__LINE__, "SELECT type_name FROM xu_values WHERE xu = 3", "it's"},
		{__LINE__, "SELECT label FROM xu_values WHERE xu = 3", "3'"},
		{__LINE__,
		 "SELECT \"page-faults\" || ' ' || typeof(\"page-faults\") FROM xu_values WHERE xu = 7",
		 "7 integer"},
		{__LINE__, "SELECT \"x:\"\"q\"\"\" FROM xu_values WHERE xu = 4", "NULL"},
		{__LINE__, "SELECT \"x:\"\"q\"\"\" FROM xu_values WHERE xu = 3", "0.75"},
		{__LINE__, "SELECT \"XU:1\" FROM xu_values WHERE xu = 5", "Inf"},
		{__LINE__, "SELECT \"XU:1\" FROM xu_values WHERE xu = 6", "-6"},
		{__LINE__, "SELECT PAPI_L1_DCM FROM xu_values WHERE xu = 9", "1000000000000009"},
		{__LINE__, "SELECT sum(thread) || ',' || max(end_ns) FROM xu_values", "5,950"},
		{__LINE__,
		 "SELECT type_name || avg(\"page-faults\") FROM xu_values GROUP BY type_name ORDER BY type_name LIMIT 1",
		 "gemm4.5"},
		{__LINE__, "SELECT count(*) || ',' || count(value) FROM xu_values_long", "50,49"},
		{__LINE__, "SELECT value FROM xu_values_long WHERE xu = 2 AND event = 'page-faults'", "2"},
		{__LINE__, "SELECT value FROM format WHERE key = 'sql_layer'", "none"},
	};
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		const char *got = sql_text(f, rows[r].sql);
		if (strcmp(got, rows[r].want) != 0)
			fail_msg("row at line %d: got '%s', want '%s'", rows[r].line, got, rows[r].want);
	}
	/* the reader ignores the layer */
	pmcf_profile *q;
	assert_int_equal(pmcf_profile_open(f, &q), 0);
	assert_int_equal(pmcf_profile_nxus(q), 10);
	pmcf_profile_free(q);
	/* more events than SQLite's columns: the long form only (xu_values_long
	 * over xu_value), a format row says so */
	for (size_t e = 5; e < PMCF_SQL_MAX_EVENTS + 5; e++) {
		char n[32];
		snprintf(n, sizeof(n), "ev%zu", e);
		assert_int_equal(pmcf_profile_event_add(p, n, NULL), 0);
		for (size_t i = 0; i < 10; i++)
			assert_int_equal(pmcf_profile_value_set(p, i, e,
								e == 7 && i == 2 ? PMCF_MISSING
										 : (double)(e * 10 + i)),
					 0);
	}
	assert_int_equal(pmcf_profile_save(p, f), 0);
	static const struct {
		int line;
		const char *sql, *want;
	} lrows[] = {
		{__LINE__, "SELECT group_concat(name, '|') FROM sqlite_master WHERE name LIKE 'xu_v%'",
		 "xu_value|xu_values_long"},
		{__LINE__, "SELECT count(*) || ',' || count(value) FROM xu_values_long", "19920,19918"},
		{__LINE__, "SELECT value FROM xu_values_long WHERE xu = 2 AND event = 'page-faults'", "2"},
		{__LINE__, "SELECT value FROM xu_values_long WHERE xu = 4 AND event = 'x:\"q\"'", "NULL"},
		{__LINE__, "SELECT value FROM xu_values_long WHERE xu = 2 AND event = 'ev7'", "NULL"},
		{__LINE__, "SELECT value FROM xu_values_long WHERE xu = 9 AND event = 'ev1991'", "19919"},
		{__LINE__, "SELECT label FROM xu_row WHERE xu = 3", "3'"},
		{__LINE__, "SELECT value FROM format WHERE key = 'sql_layer'",
		 "long: 1992 events, more than the 1987 columns of SQLite: xu_values_long only, no "
		 "xu_values"},
	};
	for (size_t r = 0; r < sizeof(lrows) / sizeof(lrows[0]); r++) {
		const char *got = sql_text(f, lrows[r].sql);
		if (strcmp(got, lrows[r].want) != 0)
			fail_msg("row at line %d: got '%s', want '%s'", lrows[r].line, got, lrows[r].want);
	}
	pmcf_profile_free(p);
}

/* Deep labels in bounded memory (issue 33): XUs labelled as a chain of
 * 20,000 levels (a label of 20,000 components at the bottom: 118,890 bytes
 * of text, 1.2 GB for all of them as strings). The label tree holds them
 * in a few dozen bytes per XU, in memory and in the file (counted in
 * bytes), through a save and an open; the texts are right (a label is its
 * parent's, a dot, its own part); xu_get makes them only when asked. */
static void test_deep_labels_bounded(void **state)
{
	(void)state;
	enum { N = 20000 };
	pmcf_profile *p;
	assert_int_equal(pmcf_profile_new(&p), 0);
	uint32_t t, node = 0, root;
	assert_int_equal(pmcf_profile_type_add(p, PMCF_XU_TASK, "visit", "", &t), 0);
	assert_int_equal(pmcf_profile_event_add(p, "duration", NULL), 0);
	assert_int_equal(pmcfi_profile_label_node(p, 0, "0", 1, &root), 0);
	node = root;
	size_t textlen = 1;
	for (size_t k = 0; k < N; k++) {
		char part[32];
		int l = snprintf(part, sizeof(part), "%zu.%zu", k % 3, 4000 + k % 7);
		uint32_t parent = node;
		assert_int_equal(pmcfi_profile_label_node(p, parent, part, (size_t)l, &node), 0);
		textlen += 1 + (size_t)l;
		pmcf_xu xu = {.type = t, .start_ns = k, .end_ns = k + 1};
		assert_int_equal(pmcfi_profile_xu_add_nodes(p, &xu, node, parent, NULL), 0);
	}
	size_t mem = pmcfi_profile_label_bytes(p);
	if (mem > 64 * (size_t)N)
		fail_msg("%zu bytes of labels for %d XUs in memory", mem, N);
	char *buf = NULL;
	size_t cap = 0;
	const char *last = pmcfi_profile_label_text(p, p->label[N - 1], &buf, &cap);
	assert_non_null(last);
	assert_int_equal(strlen(last), textlen);
	assert_int_equal(strncmp(last, "0.0.4000.1.4001.2.4002.0.4003", 29), 0);
	const char *f = tpath("deep.pmcf");
	assert_int_equal(pmcf_profile_save(p, f), 0);
	/* in the file: the labels' ids and the nodes, a few bytes per XU */
	const char *bytes =
		sql_text(f, "SELECT (SELECT sum(length(label) + length(parent_label)) FROM xu_chunk) +"
			    " (SELECT sum(length(parent) + length(suffix)) FROM label_node)");
	if (strtoull(bytes, NULL, 10) > 24 * (unsigned long long)N)
		fail_msg("%s bytes of labels for %d XUs in the file", bytes, N);
	assert_string_equal(sql_text(f, "PRAGMA user_version"), "2");
	/* the SQL layer builds the text */
	assert_string_equal(sql_text(f, "SELECT label FROM xu_values WHERE xu = 2"),
			    "0.0.4000.1.4001.2.4002");
	assert_string_equal(sql_text(f, "SELECT parent_label FROM xu_values WHERE xu = 0"), "0");
	pmcf_profile *q;
	assert_int_equal(pmcf_profile_open(f, &q), 0);
	assert_int_equal(pmcf_profile_nxus(q), N);
	mem = pmcfi_profile_label_bytes(q);
	if (mem > 64 * (size_t)N)
		fail_msg("%zu bytes of labels for %d XUs after opening", mem, N);
	char *buf2 = NULL;
	size_t cap2 = 0;
	for (size_t i = 0; i < N; i += 997) {
		const char *a = pmcfi_profile_label_text(p, p->label[i], &buf, &cap);
		const char *b = pmcfi_profile_label_text(q, q->label[i], &buf2, &cap2);
		assert_string_equal(a, b);
		a = pmcfi_profile_label_text(p, p->parent[i], &buf, &cap);
		b = pmcfi_profile_label_text(q, q->parent[i], &buf2, &cap2);
		assert_string_equal(a, b);
	}
	/* xu_get: the text, the parent's plus a component */
	pmcf_xu x = PMCF_XU_INIT, y = PMCF_XU_INIT;
	assert_int_equal(pmcf_profile_xu_get(q, 10, &x), 0);
	assert_int_equal(pmcf_profile_xu_get(q, 11, &y), 0);
	assert_int_equal(strncmp(y.label, x.label, strlen(x.label)), 0);
	assert_string_equal(y.parent_label, x.label);
	assert_string_equal(x.label,
			    "0.0.4000.1.4001.2.4002.0.4003.1.4004.2.4005.0.4006.1.4000.2.4001.0.4002.1.4003");
	/* streamed: one label at a time into a buffer, the same texts */
	char *sb = NULL;
	size_t sc = 0;
	pmcf_xu z = PMCF_XU_INIT;
	assert_int_equal(pmcf_profile_xu_fields_get(q, 11, &z), 0);
	assert_null(z.label);
	assert_int_equal(z.start_ns, 11);
	assert_string_equal(pmcf_profile_xu_label(q, 11, 0, &sb, &sc), y.label);
	assert_string_equal(pmcf_profile_xu_label(q, 11, 1, &sb, &sc), x.label);
	assert_null(pmcf_profile_xu_label(q, N, 0, &sb, &sc));
	free(sb);
	free(buf);
	free(buf2);
	pmcf_profile_free(p);
	pmcf_profile_free(q);
}

static void test_open_foreign(void **state)
{
	(void)state;
	write_file(tpath("text.pmcf"), "xu,type\n1,2\n", 12);
	write_file(tpath("empty.pmcf"), "", 0);
	write_file(tpath("short.pmcf"), "SQLite format 3", 16);
	sql_on(tpath("foreign.db"), "CREATE TABLE t(x); INSERT INTO t VALUES (1);");
	sql_on(tpath("other-app.db"), "PRAGMA application_id = 42; CREATE TABLE format(key, value);");
	mkdir(tpath("adir"), 0700);
	static const struct {
		int line;
		const char *name;
		int err;
		const char *detail;
	} rows[] = {
		{__LINE__, "text.pmcf", PMCF_ENOTOURS, "not an SQLite database"},
		{__LINE__, "empty.pmcf", PMCF_ENOTOURS, "empty file"},
		{__LINE__, "short.pmcf", PMCF_ECORRUPT, "truncated"},
		{__LINE__, "foreign.db", PMCF_ENOTOURS, "another application"},
		{__LINE__, "other-app.db", PMCF_ENOTOURS, "0x0000002a"},
		{__LINE__, "missing.pmcf", -ENOENT, "no such file"},
		{__LINE__, "adir", -EISDIR, NULL},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		expect_open(rows[i].line, tpath(rows[i].name), rows[i].err, rows[i].detail);
	/* opening never creates the file */
	assert_int_equal(access(tpath("missing.pmcf"), F_OK), -1);
}

/* A saved profile damaged (or changed) by an SQL statement. */
static void test_open_damaged(void **state)
{
	(void)state;
	static const struct {
		int line;
		const char *sql;
		int err;
		const char *detail;
	} rows[] = {
		{__LINE__, "PRAGMA user_version = 3", PMCF_EVERSION,
		 "version 3, this pmcfuse reads versions up to 2"},
		/* a version 1 file that claims 2: no label tree */
		{__LINE__, "PRAGMA user_version = 2; UPDATE format SET value = '2' WHERE key = 'version'",
		 PMCF_ECORRUPT, "no such table: label_node"},
		{__LINE__, "PRAGMA user_version = 0", PMCF_ECORRUPT, "version 0"},
		{__LINE__, "PRAGMA application_id = 1", PMCF_ENOTOURS, "another application"},
		{__LINE__, "UPDATE value_chunk SET data = substr(data, 1, 16) WHERE event = 1 AND chunk = 1",
		 PMCF_ECORRUPT, "does not hold"},
		{__LINE__,
		 "CREATE TABLE x AS SELECT * FROM value_chunk; DROP TABLE value_chunk;"
		 "ALTER TABLE x RENAME TO value_chunk; UPDATE value_chunk SET data = NULL WHERE event = 0",
		 PMCF_ECORRUPT, "does not hold"},
		{__LINE__, "DELETE FROM value_chunk WHERE event = 2 AND chunk = 0", PMCF_ECORRUPT, "missing"},
		{__LINE__, "INSERT INTO value_chunk VALUES (7, 0, zeroblob(8))", PMCF_ECORRUPT, "unexpected"},
		{__LINE__, "DROP TABLE value_chunk", PMCF_ECORRUPT, "missing table 'value_chunk'"},
		{__LINE__, "DROP TABLE meta", PMCF_ECORRUPT, "missing table 'meta'"},
		{__LINE__, "DROP TABLE truth_event", PMCF_ECORRUPT, "truth_event"},
		{__LINE__, "DELETE FROM xu_type WHERE id = 2", PMCF_ECORRUPT, "has type 2"},
		{__LINE__, "UPDATE xu_type SET id = 5 WHERE id = 1", PMCF_ECORRUPT, "ids"},
		{__LINE__, "UPDATE xu_type SET kind = 99 WHERE id = 1", PMCF_ECORRUPT, "kind"},
		{__LINE__, "UPDATE xu_chunk SET start_ns = zeroblob(8)", PMCF_ECORRUPT, "start_ns"},
		{__LINE__, "UPDATE xu_chunk SET label = X'00' WHERE chunk = 0", PMCF_ECORRUPT, "label"},
		{__LINE__, "UPDATE xu_chunk SET label = zeroblob(length(label) + 1) WHERE chunk = 1",
		 PMCF_ECORRUPT, "more labels"},
		{__LINE__, "DELETE FROM xu_chunk WHERE chunk = 1", PMCF_ECORRUPT, "XU table"},
		{__LINE__, "UPDATE format SET value = '7' WHERE key = 'xus'", PMCF_ECORRUPT, "XUs"},
		{__LINE__, "UPDATE format SET value = 'x' WHERE key = 'magic'", PMCF_ECORRUPT, "magic"},
		{__LINE__, "DELETE FROM format WHERE key = 'chunk_xus'", PMCF_ECORRUPT, "format table"},
		{__LINE__, "SELECT 1", 0, NULL}, /* control: the unchanged file loads */
		{__LINE__, "DELETE FROM source WHERE id = 1", PMCF_ECORRUPT, "source profile 1 of 1"},
		{__LINE__, "UPDATE base_chunk SET source = zeroblob(4 * 65536) WHERE chunk = 0",
		 PMCF_ECORRUPT, "base source 0 and source XU -1"},
		{__LINE__, "UPDATE base_chunk SET source = zeroblob(8) WHERE chunk = 1", PMCF_ECORRUPT,
		 "base_chunk: source"},
		{__LINE__,
		 "UPDATE base_chunk SET label = substr(label, 1, length(label) - 1) WHERE chunk = 1",
		 PMCF_ECORRUPT, "labels"},
		{__LINE__, "DELETE FROM base_chunk WHERE chunk = 1", PMCF_ECORRUPT, "base_chunk: chunk 1"},
		{__LINE__, "DROP TABLE base_chunk", 0, NULL}, /* a file written before the layer */
		{__LINE__,
		 "UPDATE rank_chunk SET data = CAST(X'ffffffff' || substr(data, 5) AS BLOB) WHERE chunk = 1",
		 PMCF_ECORRUPT, "XU 65536 has rank -1"},
		{__LINE__, "UPDATE rank_chunk SET data = substr(data, 5) WHERE chunk = 1", PMCF_ECORRUPT,
		 "rank_chunk: data"},
		{__LINE__, "DROP TABLE rank_chunk", 0, NULL}, /* a file written before ranks: rank 0 */
		{__LINE__,
		 "CREATE TABLE x AS SELECT * FROM meta; DROP TABLE meta;"
		 "ALTER TABLE x RENAME TO meta; INSERT INTO meta VALUES (3, 'host', NULL)",
		 PMCF_ECORRUPT, "NULL metadata"},
	};
	pmcf_profile *p = fixture(70000, 1);
	const char *good = tpath("good.pmcf"), *bad = tpath("bad.pmcf");
	assert_int_equal(pmcf_profile_save(p, good), 0);
	pmcf_profile_free(p);
	size_t n;
	char *bytes = read_all(good, &n);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		write_file(bad, bytes, n);
		sqlite3 *db;
		assert_int_equal(sqlite3_open_v2(bad, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
		char *msg = NULL;
		if (sqlite3_exec(db, rows[i].sql, NULL, NULL, &msg) != SQLITE_OK)
			fail_msg("line %d: %s", rows[i].line, msg);
		sqlite3_close(db);
		if (rows[i].err == 0) {
			pmcf_profile *q;
			if (pmcf_profile_open(bad, &q))
				fail_msg("line %d: %s", rows[i].line, pmcf_errdetail());
			pmcf_profile_free(q);
		} else {
			expect_open(rows[i].line, bad, rows[i].err, rows[i].detail);
		}
	}
	free(bytes);
}

static void test_open_truncated(void **state)
{
	(void)state;
	pmcf_profile *p = fixture(70000, 0);
	const char *good = tpath("whole.pmcf");
	assert_int_equal(pmcf_profile_save(p, good), 0);
	pmcf_profile_free(p);
	size_t n;
	char *bytes = read_all(good, &n);
	static const struct {
		int line;
		int num, den; /* keep num/den of the bytes */
	} rows[] = {
		{__LINE__, 1, 2},
		{__LINE__, 9, 10},
		{__LINE__, 1, 100},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const char *half = tpath("half.pmcf");
		write_file(half, bytes, n / (size_t)rows[i].den * (size_t)rows[i].num);
		expect_open(rows[i].line, half, PMCF_ECORRUPT, "truncated");
	}
	/* our header, but an invalid page size: SQLITE_NOTADB */
	char *hdr = malloc(n);
	assert_non_null(hdr);
	memcpy(hdr, bytes, n);
	hdr[16] = 0;
	hdr[17] = 3;
	write_file(tpath("badpage.pmcf"), hdr, n);
	free(hdr);
	expect_open(__LINE__, tpath("badpage.pmcf"), PMCF_ECORRUPT, "damaged profile");
	/* a FIFO is refused without blocking */
	assert_int_equal(mkfifo(tpath("fifo.pmcf"), 0600), 0);
	expect_open(__LINE__, tpath("fifo.pmcf"), PMCF_ENOTOURS, "not a regular file");

	/* damage in the middle of a page the header counts */
	memset(bytes + n / 2, 0x5a, 4096);
	write_file(tpath("scribbled.pmcf"), bytes, n);
	pmcf_profile *q = NULL;
	int err = pmcf_profile_open(tpath("scribbled.pmcf"), &q);
	/* a scribble over blob bytes is not detectable (no checksums); the
	 * load must either fail as damaged or succeed */
	assert_true(err == 0 || err == PMCF_ECORRUPT);
	pmcf_profile_free(q);
	free(bytes);
}

/* ---- atomic save -------------------------------------------------------------- */

static void test_save_fails_cleanly(void **state)
{
	(void)state;
	pmcf_profile *p = fixture(100, 1);
	const char *nodir = tpath("no/such/dir/p.pmcf");
	assert_int_equal(pmcf_profile_save(p, nodir), -ENOENT);
	assert_non_null(strstr(pmcf_errdetail(), nodir));

	write_file(tpath("plain"), "x", 1);
	const char *under_file = tpath("plain/p.pmcf");
	assert_int_equal(pmcf_profile_save(p, under_file), -ENOTDIR);
	assert_non_null(strstr(pmcf_errdetail(), under_file));

	/* the rename fails: the path is a non-empty directory */
	mkdir(tpath("full"), 0700);
	write_file(tpath("full/f"), "x", 1);
	int err = pmcf_profile_save(p, tpath("full"));
	assert_true(err == -EISDIR || err == -ENOTEMPTY || err == -EEXIST);
	assert_int_equal(count_names(".tmp."), 0);

	assert_int_equal(pmcf_profile_save(p, ""), PMCF_EINVAL);
	assert_int_equal(pmcf_profile_save(NULL, tpath("x.pmcf")), PMCF_EINVAL);
	assert_int_equal(pmcf_profile_save(p, tpath("dir/")), PMCF_EINVAL);
	pmcf_profile_free(p);
}

static void test_save_atomic(void **state)
{
	(void)state;
	pmcf_profile *old = fixture(10, 0), *neu = fixture(200, 1);
	const char *path = tpath("atomic.pmcf");
	assert_int_equal(pmcf_profile_save(old, path), 0);
	size_t n0;
	char *before = read_all(path, &n0);
	for (int step = 1; step <= 3; step++) {
		pmcfi_store_inject_fault(step);
		int err = pmcf_profile_save(neu, path);
		if (err != -EIO)
			fail_msg("step %d: got %d", step, err);
		assert_non_null(strstr(pmcf_errdetail(), path));
		size_t n1;
		char *after = read_all(path, &n1);
		if (n1 != n0 || memcmp(before, after, n0) != 0)
			fail_msg("step %d: the old profile was changed", step);
		free(after);
		if (count_names(".atomic.pmcf.tmp.") != 0)
			fail_msg("step %d: a temporary file was left behind", step);
	}
	/* without a fault the new profile replaces the old one */
	assert_int_equal(pmcf_profile_save(neu, path), 0);
	pmcf_profile *q;
	assert_int_equal(pmcf_profile_open(path, &q), 0);
	assert_same(neu, q);
	assert_int_equal(count_names(".tmp."), 0);
	pmcf_profile_free(q);
	free(before);
	pmcf_profile_free(old);
	pmcf_profile_free(neu);
}

static int setup(void **state)
{
	(void)state;
	const char *base = getenv("PMCF_TEST_TMP");
	if (!base || !*base)
		base = "/tmp";
	snprintf(tmpdir, sizeof(tmpdir), "%s/test_profile.XXXXXX", base);
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Long messages are cut in the middle of their longest words, never their
 * end (the reason), and never inside a UTF-8 sequence. */
static void test_shorten(void **state)
{
	(void)state;
	static const struct {
		int line;
		size_t cap, word; /* a word of `word` bytes of 'p' (or "é"), then the reason */
		int utf8;
	} rows[] = {
		{__LINE__, 64, 10, 0},     {__LINE__, 1024, 3000, 0}, {__LINE__, 200, 150, 0},
		{__LINE__, 1024, 3001, 1}, {__LINE__, 100, 97, 1},
	};
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		char *src = malloc(rows[r].word * 2 + 64), out[1024];
		size_t n = 0;
		for (size_t i = 0; i < rows[r].word; i++)
			n += (size_t)sprintf(src + n, "%s", rows[r].utf8 ? "\xc3\xa9" : "p");
		strcpy(src + n, ": no such file");
		pmcfi_shorten(out, rows[r].cap, src);
		size_t len = strlen(out), reason = strlen(": no such file");
		int good;
		if (strlen(src) < rows[r].cap)
			good = strcmp(out, src) == 0;
		else
			good = len < rows[r].cap && len > rows[r].cap / 2 && strstr(out, "...") &&
			       len > reason && strcmp(out + len - reason, ": no such file") == 0;
		for (const unsigned char *q = (const unsigned char *)out; *q; q++)
			if (*q == 0xC3 && q[1] != 0xA9)
				good = 0; /* whole UTF-8 sequences only */
		free(src);
		if (!good)
			fail_msg("row of line %d: '%s'", rows[r].line, out);
	}
	/* through the library's detail: a 3 KB path keeps its reason */
	char path[3100];
	for (size_t i = 0; i + 1 < sizeof(path); i++)
		path[i] = i % 2 ? 'd' : '/'; /* /d/d/d/...: no component too long */
	path[sizeof(path) - 1] = '\0';
	pmcf_profile *p = NULL;
	assert_int_equal(pmcf_profile_open(path, &p), -ENOENT);
	const char *d = pmcf_errdetail();
	assert_true(strlen(d) < 1024);
	assert_string_equal(d + strlen(d) - strlen(": no such file"), ": no such file");
}

/* No profile is built with more events or types than a profile may hold
 * (docs/profile-format.md, "Limits"). */
static void test_limits(void **state)
{
	(void)state;
	pmcf_profile *p;
	assert_int_equal(pmcf_profile_new(&p), 0);
	char name[32];
	for (unsigned i = 0; i < PMCF_PROFILE_MAX_EVENTS; i++) {
		snprintf(name, sizeof(name), "e%u", i);
		assert_int_equal(pmcf_profile_event_add(p, name, NULL), 0);
	}
	assert_int_equal(pmcf_profile_event_add(p, "one-more", NULL), PMCF_EINVAL);
	assert_non_null(strstr(pmcf_errdetail(), "at most 65536"));
	pmcf_profile_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shorten),         cmocka_unit_test(test_limits),
		cmocka_unit_test(test_kind_names),      cmocka_unit_test(test_meta),
		cmocka_unit_test(test_cpu_in_xus),      cmocka_unit_test(test_types),
		cmocka_unit_test(test_many_names),      cmocka_unit_test(test_events),
		cmocka_unit_test(test_xus_values),      cmocka_unit_test(test_layers),
		cmocka_unit_test(test_xu_add_bare),     cmocka_unit_test(test_roundtrip_special_values),
		cmocka_unit_test(test_ranks),           cmocka_unit_test(test_roundtrip_all_layers),
		cmocka_unit_test(test_roundtrip_empty), cmocka_unit_test(test_sql_layer),
		cmocka_unit_test(test_open_foreign),    cmocka_unit_test(test_open_damaged),
		cmocka_unit_test(test_open_truncated),  cmocka_unit_test(test_save_fails_cleanly),
		cmocka_unit_test(test_save_atomic),     cmocka_unit_test(test_deep_labels_bounded),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
