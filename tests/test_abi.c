/* The one rule for sized caller structs (pmcfuse.h, "Sized structs"):
 * the helper's table, every public entry point that takes a sized struct,
 * and the array-growth helper. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "pmcfuse/categorize.h"
#include "pmcfuse/collect.h"
#include "pmcfuse/combine.h"
#include "pmcfuse/evaluate.h"
#include "pmcfuse/events.h"
#include "pmcfuse/hbbp.h"
#include "pmcfuse/multiplex.h"
#include "pmcfuse/plan.h"
#include "pmcfuse/profile.h"
#include "pmcfuse/refdir.h"
#include "pmcfuse/report.h"
#include "pmcfuse/sim.h"
#include "pmcfuse/source.h"
#include "util/abi.h"

/* ---- the helper ------------------------------------------------------------ */
static const struct {
	int line;
	size_t given, first, known;
	size_t nonzero_at; /* a non-zero byte there (0: none) */
	int want;
} check_cases[] = {
	{__LINE__, 0, 16, 32, 0, 0},             /* 0: the first version */
	{__LINE__, 16, 16, 32, 0, 0},            /* the first version */
	{__LINE__, 24, 16, 32, 0, 0},            /* between: older header */
	{__LINE__, 32, 16, 32, 0, 0},            /* this library's */
	{__LINE__, 8, 16, 32, 0, PMCF_EINVAL},   /* smaller than the first */
	{__LINE__, 15, 16, 32, 0, PMCF_EINVAL},  /* one byte short */
	{__LINE__, 48, 16, 32, 0, 0},            /* newer header, tail zero */
	{__LINE__, 48, 16, 32, 40, PMCF_EINVAL}, /* newer header, tail set */
	{__LINE__, 48, 16, 32, 47, PMCF_EINVAL}, /* last byte of the tail */
	{__LINE__, 48, 16, 32, 31, 0},           /* a known byte: anything */
	{__LINE__, 33, 32, 32, 32, PMCF_EINVAL}, /* first == known, tail set */
	{__LINE__, 0, 32, 32, 0, 0},             /* first == known, 0 */
};

static void test_check_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(check_cases) / sizeof(check_cases[0]); i++) {
		unsigned char b[64] = {0};
		if (check_cases[i].nonzero_at)
			b[check_cases[i].nonzero_at] = 1;
		int rc = pmcfi_check_struct("t", b, check_cases[i].given, check_cases[i].first,
					    check_cases[i].known);
		if (rc != check_cases[i].want)
			fail_msg("row at line %d: got %d, want %d", check_cases[i].line, rc,
				 check_cases[i].want);
		if (rc && strncmp(pmcf_errdetail(), "t: size ", 8) != 0)
			fail_msg("row at line %d: detail '%s'", check_cases[i].line, pmcf_errdetail());
	}
}

struct three {
	size_t size;
	int a, b, c; /* c came later */
};

static void test_in_out(void **state)
{
	(void)state;
	struct three def = {0, 1, 2, 3}, d;
	/* an older caller (a and b only) keeps c's default */
	struct three old = {offsetof(struct three, c), 7, 8, 9};
	d = def;
	assert_int_equal(pmcfi_struct_in("t", &d, &old, offsetof(struct three, c), sizeof(d)), 0);
	assert_int_equal(d.size, sizeof(d));
	assert_int_equal(d.a, 7);
	assert_int_equal(d.b, 8);
	assert_int_equal(d.c, 3);
	/* size 0: the first version */
	old.size = 0;
	d = def;
	assert_int_equal(pmcfi_struct_in("t", &d, &old, offsetof(struct three, c), sizeof(d)), 0);
	assert_int_equal(d.b, 8);
	assert_int_equal(d.c, 3);
	/* NULL: the defaults */
	d = def;
	assert_int_equal(pmcfi_struct_in("t", &d, NULL, offsetof(struct three, c), sizeof(d)), 0);
	assert_int_equal(d.a, 1);
	assert_int_equal(d.size, sizeof(d));
	/* out: a caller that knows only a and b gets those, size says so */
	struct three res = {sizeof(res), 4, 5, 6}, got = {offsetof(struct three, c), 0, 0, -1};
	assert_int_equal(pmcfi_struct_out("t", &got, &res, offsetof(struct three, c), sizeof(res)), 0);
	assert_int_equal(got.size, offsetof(struct three, c));
	assert_int_equal(got.a, 4);
	assert_int_equal(got.b, 5);
	assert_int_equal(got.c, -1);
	got.size = 4;
	assert_int_equal(pmcfi_struct_out("t", &got, &res, offsetof(struct three, c), sizeof(res)),
			 PMCF_EINVAL);
}

/* ---- every public entry point that takes a sized struct -------------------- */

static union {
	max_align_t align;
	unsigned char b[8192];
} buf;
static pmcf_profile *prof;
static pmcf_catalog *cat;
static pmcf_sim_spec *spec;

static int call_mux(void) { return pmcf_profile_mux_summary(prof, (void *)buf.b); }
static int call_match(void) { return pmcf_combine_match_summary(prof, (void *)buf.b); }
static int call_host(void) { return pmcf_host_describe((void *)buf.b); }
static int call_categorize(void)
{
	const char *ev[] = {"task-clock"};
	pmcf_categorize_report *r = NULL;
	int rc = pmcf_categorize_run((void *)buf.b, ev, 1, &r);
	pmcf_categorize_report_free(r);
	return rc;
}
static int call_collect(void)
{
	char *argv[] = {"/nonexistent/pmcfuse-test", NULL};
	pmcf_profile *out = NULL;
	return pmcf_collect_program(argv, NULL, 0, (void *)buf.b, NULL, &out, NULL);
}
static int call_collect_program(void)
{
	char *argv[] = {"/nonexistent/pmcfuse-test", NULL};
	pmcf_profile *out = NULL;
	return pmcf_collect_program(argv, NULL, 0, NULL, (void *)buf.b, &out, NULL);
}
static int call_combine_opts(void)
{
	const pmcf_profile *in[] = {prof};
	pmcf_profile *out = NULL;
	int rc = pmcf_combine(in, 1, (void *)buf.b, &out, NULL);
	pmcf_profile_free(out);
	return rc;
}
static int call_combine_check(void)
{
	const pmcf_profile *in[] = {prof};
	return pmcf_combine_check_run(in, 1, (void *)buf.b);
}
static int call_combine_stats(void)
{
	const pmcf_profile *in[] = {prof};
	pmcf_combine_opts o = PMCF_COMBINE_OPTS_INIT;
	pmcf_profile *out = NULL;
	int rc = pmcf_combine(in, 1, &o, &out, (void *)buf.b);
	pmcf_profile_free(out);
	return rc;
}
static int call_plan(void)
{
	const char *ev[] = {"duration"};
	pmcf_plan *p = NULL;
	int rc = pmcf_plan_make(cat, ev, 1, (void *)buf.b, &p);
	pmcf_plan_free(p);
	return rc;
}
static int call_sim(void)
{
	pmcf_profile *out = NULL;
	int rc = pmcf_sim_record(spec, NULL, 0, (void *)buf.b, &out);
	pmcf_profile_free(out);
	return rc;
}
static int call_epd(void)
{
	const pmcf_profile *refs[] = {prof};
	pmcf_epd_result *r = NULL;
	int rc = pmcf_epd_compute(prof, refs, 1, (void *)buf.b, &r);
	pmcf_epd_result_free(r);
	return rc;
}
static int call_imix(void)
{
	pmcf_imix *m = NULL;
	return pmcf_imix_from_perfdata(NULL, (void *)buf.b, &m);
}
static int call_callgrind(void)
{
	pmcf_imix *m = NULL;
	return pmcf_imix_from_callgrind("/nonexistent/callgrind.out", (void *)buf.b, &m);
}
static int call_imix_record(void)
{
	char *argv[] = {"/nonexistent/pmcfuse-test", NULL};
	return pmcf_imix_record("/nonexistent/imix-rec", (void *)buf.b, 1, argv);
}
static int call_imix_load(void)
{
	pmcf_imix_input *in = NULL;
	return pmcf_imix_load("/nonexistent/perf.data", (void *)buf.b, 0, &in);
}
static int call_synth(void)
{
	size_t n;
	return pmcf_imix_synth_write(NULL, (void *)buf.b, NULL, 0, &n);
}
static int call_report(void)
{
	pmcf_report *r = NULL;
	int rc = pmcf_report_new(prof, NULL, 0, (void *)buf.b, &r);
	pmcf_report_free(r);
	return rc;
}
static int call_refdir(void) { return pmcf_refdir_write_index(NULL, (void *)buf.b); }
static int call_source_sim(void)
{
	pmcf_source *src = NULL;
	int rc = pmcf_source_new_sim("seidel,blocks=2,iters=2", (void *)buf.b, &src);
	pmcf_source_free(src);
	return rc;
}
static int call_source_program(void)
{
	char *argv[] = {"/nonexistent/pmcfuse-test", NULL};
	pmcf_source *src = NULL;
	int rc = pmcf_source_new_program(1, argv, NULL, (void *)buf.b, &src);
	pmcf_source_free(src);
	return rc;
}
static int call_source_count_get(void)
{
	pmcf_source *src = NULL;
	int rc = pmcf_source_new_sim("seidel,blocks=2,iters=2", NULL, &src);
	assert_int_equal(rc, 0);
	rc = pmcf_source_count_get(src, (void *)buf.b);
	pmcf_source_free(src);
	return rc;
}
static int call_plan_evlist(void)
{
	pmcf_evlist *ev = NULL;
	pmcf_plan *p = NULL;
	assert_int_equal(pmcf_evlist_parse(cat, "PAPI_TOT_INS", &ev), 0);
	int rc = pmcf_plan_make_evlist(ev, NULL, (void *)buf.b, &p);
	pmcf_plan_free(p);
	pmcf_evlist_free(ev);
	return rc;
}
static int call_combine_check_all(void)
{
	const pmcf_profile *in[] = {prof};
	return pmcf_combine_check(in, 1, (void *)buf.b);
}

static int call_xu_add(void) { return pmcf_profile_xu_add(prof, (void *)buf.b, NULL); }
static int call_xu_get(void) { return pmcf_profile_xu_get(prof, 0, (void *)buf.b); }
static int call_xu_get_fields(void) { return pmcf_profile_xu_fields_get(prof, 0, (void *)buf.b); }
static int call_type_get(void) { return pmcf_profile_type_get(prof, 0, (void *)buf.b); }
static int call_exit_collect(void)
{
	char *argv[] = {"/nonexistent/pmcfuse-test", NULL};
	pmcf_profile *out = NULL;
	return pmcf_collect_program(argv, NULL, 0, NULL, NULL, &out, (void *)buf.b);
}
static int call_exit_source(void)
{
	pmcf_source *src = NULL;
	pmcf_evlist *ev = NULL;
	pmcf_profile *out = NULL;
	assert_int_equal(pmcf_source_new_sim("seidel,blocks=2,iters=2", NULL, &src), 0);
	assert_int_equal(pmcf_source_events(src, "PAPI_TOT_INS", &ev), 0);
	int rc = pmcf_source_record(src, ev, 0, &out, (void *)buf.b);
	pmcf_profile_free(out);
	pmcf_evlist_free(ev);
	pmcf_source_free(src);
	return rc;
}
static int call_fit_line(void)
{
	double x[] = {1, 2}, y[] = {3, 5};
	return pmcf_categorize_fit_line(x, y, 2, (void *)buf.b);
}
static int call_branch_fits(void)
{
	pmcf_categorize_branch_match m = PMCF_CATEGORIZE_BRANCH_MATCH_INIT;
	return pmcf_categorize_branch_classify((void *)buf.b, 0, &m);
}
static int call_branch_match(void)
{
	pmcf_categorize_fit f[PMCF_CATEGORIZE_NKERNELS] = {PMCF_CATEGORIZE_FIT_INIT};
	return pmcf_categorize_branch_classify(f, 0, (void *)buf.b);
}
static int call_levels_sysfs(void)
{
	return pmcf_categorize_levels_sysfs("/nonexistent/cache", (void *)buf.b);
}
static int call_cache_levels(void)
{
	pmcf_categorize_cache_match m = PMCF_CATEGORIZE_CACHE_MATCH_INIT;
	return pmcf_categorize_cache_classify((void *)buf.b, NULL, NULL, 0, 0, &m);
}
static int call_cache_match(void)
{
	pmcf_categorize_levels lv = {.size = sizeof(lv), .n = 1, .bytes = {32768}, .name = {"L1D"}};
	return pmcf_categorize_cache_classify(&lv, NULL, NULL, 0, 0, (void *)buf.b);
}
static int call_report_from(void)
{
	const char *ev[] = {"x"};
	pmcf_categorize_report *r = NULL;
	int rc = pmcf_categorize_report_from(NULL, (void *)buf.b, ev, 1, NULL, 0, NULL, NULL, 0, NULL, 0, &r);
	pmcf_categorize_report_free(r);
	return rc;
}
static int call_consistency(void)
{
	size_t n;
	return pmcf_consistency_check(prof, (void *)buf.b, 4, &n);
}
static int call_train_examples(void)
{
	pmcf_imix_stump st = PMCF_IMIX_STUMP_INIT;
	return pmcf_imix_train((void *)buf.b, 2, &st);
}
static int call_train_stump(void)
{
	pmcf_imix_example ex[1] = {{.size = sizeof(ex[0]), .len = 3, .weight = 1, .lbr = 1}};
	return pmcf_imix_train(ex, 1, (void *)buf.b);
}
static int call_compare(void)
{
	pmcf_imix_cmp *c = NULL;
	return pmcf_imix_compare((void *)buf.b, 1, NULL, 0, 0, &c);
}
static int call_synth_blocks(void)
{
	size_t n;
	return pmcf_imix_synth_write("/nonexistent/synth", NULL, (void *)buf.b, 4, &n);
}

#define SAME(t) sizeof(t), sizeof(t) /* sized since issue 37: the first version is this one */
static const struct {
	int line;
	const char *name;
	size_t known, first;
	int (*call)(void);
	int tail_call; /* 0: the call would go on with dummy arguments (no third case) */
} entry_cases[] = {
	{__LINE__, "pmcf_mux_summary", sizeof(pmcf_mux_summary), sizeof(pmcf_mux_summary), call_mux, 1},
	{__LINE__, "pmcf_match_summary", sizeof(pmcf_match_summary), sizeof(pmcf_match_summary), call_match,
	 1},
	{__LINE__, "pmcf_host_info", sizeof(pmcf_host_info), sizeof(pmcf_host_info), call_host, 1},
	{__LINE__, "pmcf_categorize_options", sizeof(pmcf_categorize_options),
	 sizeof(pmcf_categorize_options), call_categorize, 1},
	{__LINE__, "pmcf_count_opts", SAME(pmcf_count_opts), call_collect, 0},
	{__LINE__, "pmcf_program_opts", SAME(pmcf_program_opts), call_collect_program, 0},
	{__LINE__, "pmcf_combine_opts", sizeof(pmcf_combine_opts), offsetof(pmcf_combine_opts, threads),
	 call_combine_opts, 1},
	{__LINE__, "pmcf_combine_opts", sizeof(pmcf_combine_opts), offsetof(pmcf_combine_opts, threads),
	 call_combine_check, 1},
	{__LINE__, "pmcf_combine_stats", sizeof(pmcf_combine_stats),
	 offsetof(pmcf_combine_stats, bc_label_pairs), call_combine_stats, 1},
	{__LINE__, "pmcf_plan_opts", sizeof(pmcf_plan_opts), offsetof(pmcf_plan_opts, groups), call_plan, 1},
	{__LINE__, "pmcf_count_opts", SAME(pmcf_count_opts), call_sim, 1},
	{__LINE__, "pmcf_epd_opts", sizeof(pmcf_epd_opts), offsetof(pmcf_epd_opts, formula), call_epd, 1},
	{__LINE__, "pmcf_imix_opts", sizeof(pmcf_imix_opts), offsetof(pmcf_imix_opts, llvm_mca), call_imix,
	 0},
	{__LINE__, "pmcf_imix_opts", sizeof(pmcf_imix_opts), offsetof(pmcf_imix_opts, llvm_mca),
	 call_callgrind, 1},
	{__LINE__, "pmcf_imix_opts", sizeof(pmcf_imix_opts), offsetof(pmcf_imix_opts, llvm_mca),
	 call_imix_load, 1},
	{__LINE__, "pmcf_imix_record_opts", sizeof(pmcf_imix_record_opts), sizeof(pmcf_imix_record_opts),
	 call_imix_record, 1},
	{__LINE__, "pmcf_imix_synth_opts", sizeof(pmcf_imix_synth_opts),
	 offsetof(pmcf_imix_synth_opts, timer) + sizeof(int), call_synth, 1},
	{__LINE__, "pmcf_report_opts", sizeof(pmcf_report_opts),
	 offsetof(pmcf_report_opts, tmpdir) + sizeof(const char *), call_report, 0},
	{__LINE__, "pmcf_refdir_index", sizeof(pmcf_refdir_index), sizeof(pmcf_refdir_index), call_refdir, 1},
	{__LINE__, "pmcf_count_opts", sizeof(pmcf_count_opts), sizeof(pmcf_count_opts), call_source_sim, 1},
	{__LINE__, "pmcf_program_opts", sizeof(pmcf_program_opts), sizeof(pmcf_program_opts),
	 call_source_program, 1},
	{__LINE__, "pmcf_count_opts", sizeof(pmcf_count_opts), sizeof(pmcf_count_opts), call_source_count_get,
	 1},
	{__LINE__, "pmcf_plan_opts", sizeof(pmcf_plan_opts), offsetof(pmcf_plan_opts, groups),
	 call_plan_evlist, 1},
	{__LINE__, "pmcf_combine_opts", sizeof(pmcf_combine_opts), offsetof(pmcf_combine_opts, threads),
	 call_combine_check_all, 1},
	{__LINE__, "pmcf_xu", SAME(pmcf_xu), call_xu_add, 1},
	{__LINE__, "pmcf_xu", SAME(pmcf_xu), call_xu_get, 1},
	{__LINE__, "pmcf_xu", SAME(pmcf_xu), call_xu_get_fields, 1},
	{__LINE__, "pmcf_xu_type", SAME(pmcf_xu_type), call_type_get, 1},
	{__LINE__, "pmcf_exit_info", SAME(pmcf_exit_info), call_exit_collect, 0},
	{__LINE__, "pmcf_exit_info", SAME(pmcf_exit_info), call_exit_source, 1},
	{__LINE__, "pmcf_categorize_fit", SAME(pmcf_categorize_fit), call_fit_line, 1},
	{__LINE__, "pmcf_categorize_fit", SAME(pmcf_categorize_fit), call_branch_fits, 1},
	{__LINE__, "pmcf_categorize_branch_match", SAME(pmcf_categorize_branch_match), call_branch_match, 1},
	{__LINE__, "pmcf_categorize_levels", SAME(pmcf_categorize_levels), call_levels_sysfs, 1},
	{__LINE__, "pmcf_categorize_levels", SAME(pmcf_categorize_levels), call_cache_levels, 1},
	{__LINE__, "pmcf_categorize_cache_match", SAME(pmcf_categorize_cache_match), call_cache_match, 1},
	{__LINE__, "pmcf_categorize_levels", SAME(pmcf_categorize_levels), call_report_from, 1},
	{__LINE__, "pmcf_consistency", SAME(pmcf_consistency), call_consistency, 1},
	{__LINE__, "pmcf_imix_example", SAME(pmcf_imix_example), call_train_examples, 1},
	{__LINE__, "pmcf_imix_stump", SAME(pmcf_imix_stump), call_train_stump, 1},
	{__LINE__, "pmcf_imix_row", SAME(pmcf_imix_row), call_compare, 0},
	{__LINE__, "pmcf_imix_synth_block", SAME(pmcf_imix_synth_block), call_synth_blocks, 0},
#undef SAME
};

static void set_size(size_t size)
{
	memset(buf.b, 0, sizeof(buf.b));
	memcpy(buf.b, &size, sizeof(size));
}

static void expect_refused(int line, const char *name, int rc, const char *why)
{
	const char *d = pmcf_errdetail();
	if (rc != PMCF_EINVAL || strncmp(d, name, strlen(name)) != 0 || !strstr(d, why))
		fail_msg("row at line %d (%s): got %d '%s', want PMCF_EINVAL '%s'", line, name, rc, d, why);
}

static void test_entry_points(void **state)
{
	(void)state;
	assert_int_equal(pmcf_profile_new(&prof), 0);
	assert_int_equal(pmcf_catalog_sim("cholesky", &cat), 0);
	assert_int_equal(pmcf_sim_spec_parse("seidel,blocks=2,iters=2", &spec), 0);
	uint32_t ty;
	assert_int_equal(pmcf_profile_type_add(prof, PMCF_XU_TASK, "t", "", &ty), 0);
	pmcf_xu xu = {.type = ty, .label = "1"};
	assert_int_equal(pmcf_profile_xu_add(prof, &xu, NULL), 0);
	for (size_t i = 0; i < sizeof(entry_cases) / sizeof(entry_cases[0]); i++) {
		int line = entry_cases[i].line;
		const char *name = entry_cases[i].name;
		size_t known = entry_cases[i].known;
		assert_true(known + 16 <= sizeof(buf.b));
		/* smaller than the first version */
		set_size(entry_cases[i].first - 1);
		expect_refused(line, name, entry_cases[i].call(), "smaller than its first version");
		/* a newer caller's struct whose unknown bytes are set */
		set_size(known + 16);
		buf.b[known + 8] = 1;
		expect_refused(line, name, entry_cases[i].call(), "is not zero");
		/* the same with the unknown bytes zero passes the size check */
		if (!entry_cases[i].tail_call)
			continue;
		set_size(known + 16);
		int rc = entry_cases[i].call();
		/* the size check's refusals read "NAME: size N, ..."; a field's
		 * ("pmcf_combine_opts.strategy 0 ...": the buffer is zero) is not one */
		if (rc == PMCF_EINVAL && strncmp(pmcf_errdetail(), name, strlen(name)) == 0 &&
		    strncmp(pmcf_errdetail() + strlen(name), ": size", 6) == 0)
			fail_msg("row at line %d (%s): zero tail refused: %s", line, name, pmcf_errdetail());
	}
	pmcf_sim_spec_free(spec);
	pmcf_catalog_free(cat);
	pmcf_profile_free(prof);
}

/* The results are the same whatever size (0 or larger, tail zero) says. */
static void test_host_sizes(void **state)
{
	(void)state;
	pmcf_host_info a = {.size = sizeof(a)};
	assert_int_equal(pmcf_host_describe(&a), 0);
	set_size(0);
	assert_int_equal(pmcf_host_describe((void *)buf.b), 0);
	pmcf_host_info b;
	memcpy(&b, buf.b, sizeof(b));
	assert_int_equal(b.size, sizeof(b));
	assert_string_equal(a.cpu, b.cpu);
	assert_int_equal(a.ncpus, b.ncpus);
}

/* Structs sized since issue 37: results say the bytes written, a newer
 * caller's array is read at its own stride, exit_info is filled as the
 * caller's size says (no memset over it). */
static void test_results_and_arrays(void **state)
{
	(void)state;
	pmcf_profile *p = NULL;
	uint32_t ty;
	assert_int_equal(pmcf_profile_new(&p), 0);
	assert_int_equal(pmcf_profile_type_add(p, PMCF_XU_TASK, "t", "", &ty), 0);
	pmcf_xu in = {.type = ty, .start_ns = 5, .end_ns = 9, .label = "1"};
	assert_int_equal(pmcf_profile_xu_add(p, &in, NULL), 0);
	set_size(sizeof(pmcf_xu) + 16); /* a newer header's pmcf_xu */
	assert_int_equal(pmcf_profile_xu_get(p, 0, (void *)buf.b), 0);
	pmcf_xu got = PMCF_XU_INIT;
	memcpy(&got, buf.b, sizeof(got));
	assert_int_equal(got.size, sizeof(pmcf_xu));
	assert_int_equal(got.end_ns, 9);
	for (size_t i = sizeof(pmcf_xu); i < sizeof(pmcf_xu) + 16; i++)
		assert_int_equal(buf.b[i], 0);
	pmcf_profile_free(p);

	/* seven fits at a newer caller's stride classify as the compact ones */
	pmcf_categorize_fit f[PMCF_CATEGORIZE_NKERNELS] = {PMCF_CATEGORIZE_FIT_INIT};
	size_t stride = sizeof(pmcf_categorize_fit) + 24;
	memset(buf.b, 0, sizeof(buf.b));
	for (unsigned k = 0; k < PMCF_CATEGORIZE_NKERNELS; k++) {
		double x[] = {1, 2, 3}, y[] = {k, 2.0 * k + 1, 3.0 * k + 2.1};
		f[k].size = sizeof(f[k]);
		assert_int_equal(pmcf_categorize_fit_line(x, y, 3, &f[k]), 0);
		memcpy(buf.b + k * stride, &f[k], sizeof(f[k]));
	}
	memcpy(buf.b, &stride, sizeof(stride));
	pmcf_categorize_branch_match a = PMCF_CATEGORIZE_BRANCH_MATCH_INIT,
				     b = PMCF_CATEGORIZE_BRANCH_MATCH_INIT;
	assert_int_equal(pmcf_categorize_branch_classify(f, 0, &a), 0);
	assert_int_equal(pmcf_categorize_branch_classify((void *)buf.b, 0, &b), 0);
	assert_int_equal(a.category, b.category);
	for (int c = 0; c < PMCF_CATEGORIZE_NCATS; c++)
		assert_true(a.score[c] == b.score[c]);

	/* exit_info of a simulation: size 0 (the first version) is filled and
	 * says the bytes written */
	pmcf_source *src = NULL;
	pmcf_evlist *ev = NULL;
	pmcf_profile *out = NULL;
	pmcf_exit_info ei = {0};
	ei.status = 77; /* overwritten: the library fills what both know */
	assert_int_equal(pmcf_source_new_sim("seidel,blocks=2,iters=2", NULL, &src), 0);
	assert_int_equal(pmcf_source_events(src, "PAPI_TOT_INS", &ev), 0);
	assert_int_equal(pmcf_source_record(src, ev, 0, &out, &ei), 0);
	assert_int_equal(ei.size, sizeof(ei));
	assert_int_equal(ei.exited, 1);
	assert_int_equal(ei.status, 0);
	assert_int_equal(ei.xus, pmcf_profile_nxus(out));
	ei.size = 8; /* smaller than the first version: refused, nothing recorded */
	pmcf_profile_free(out);
	out = NULL;
	assert_int_equal(pmcf_source_record(src, ev, 0, &out, &ei), PMCF_EINVAL);
	assert_null(out);
	assert_int_equal(ei.size, 8);
	pmcf_evlist_free(ev);
	pmcf_source_free(src);
}

/* Structs the library owns and hands out carry the size it wrote. */
static void test_library_owned_sizes(void **state)
{
	(void)state;
	pmcf_catalog *c = NULL;
	assert_int_equal(pmcf_catalog_sim("cholesky", &c), 0);
	assert_true(pmcf_catalog_size(c) > 0);
	for (size_t i = 0; i < pmcf_catalog_size(c); i++)
		assert_int_equal(pmcf_catalog_at(c, i)->size, sizeof(pmcf_event_info));
	pmcf_catalog_free(c);
	pmcf_host_info h = PMCF_HOST_INFO_INIT;
	assert_int_equal(pmcf_host_describe(&h), 0);
	for (size_t i = 0; i < h.npmus; i++)
		assert_int_equal(h.pmus[i].size, sizeof(pmcf_host_pmu));
}

/* ---- growth ---------------------------------------------------------------- */

static void test_grow(void **state)
{
	(void)state;
	int *v = NULL;
	size_t cap = 0;
	for (size_t n = 0; n < 1000; n++) {
		assert_int_equal(pmcfi_grow((void **)&v, &cap, n + 1, sizeof(*v)), 0);
		assert_true(cap >= n + 1);
		v[n] = (int)n;
	}
	for (size_t n = 0; n < 1000; n++)
		assert_int_equal(v[n], (int)n);
	assert_true(cap < 2048); /* doubling, not one more each time */
	size_t before = cap;
	assert_int_equal(pmcfi_grow((void **)&v, &cap, 10, sizeof(*v)), 0); /* room: no-op */
	assert_int_equal(cap, before);
	/* overflow: refused, *p and *cap kept */
	int *keep = v;
	assert_int_equal(pmcfi_grow((void **)&v, &cap, SIZE_MAX / 2, 4 * sizeof(*v)), -ENOMEM);
	assert_ptr_equal(v, keep);
	assert_int_equal(cap, before);
	free(v);
	/* the rule alone (for arrays resized together) */
	static const struct {
		int line;
		size_t cap, need, want;
	} rows[] = {
		{__LINE__, 0, 0, 0},
		{__LINE__, 0, 1, 8},
		{__LINE__, 16, 16, 16},
		{__LINE__, 16, 17, 32},
		{__LINE__, 16, 100, 100},
		{__LINE__, 5, 6, 10},
		{__LINE__, SIZE_MAX / 2 + 1, SIZE_MAX / 2 + 2, SIZE_MAX},
	};
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++)
		if (pmcfi_grow_cap(rows[r].cap, rows[r].need) != rows[r].want)
			fail_msg("row %d: pmcfi_grow_cap(%zu, %zu) = %zu, want %zu", rows[r].line,
				 rows[r].cap, rows[r].need, pmcfi_grow_cap(rows[r].cap, rows[r].need),
				 rows[r].want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_table),
		cmocka_unit_test(test_in_out),
		cmocka_unit_test(test_entry_points),
		cmocka_unit_test(test_host_sizes),
		cmocka_unit_test(test_results_and_arrays),
		cmocka_unit_test(test_library_owned_sizes),
		cmocka_unit_test(test_grow),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
