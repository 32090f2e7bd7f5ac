/* Unit tests of the recording interface (pmcf_source, src/source): an event
 * list is resolved once and reaches the simulator and the collector as it
 * is (no name looked up again), the simulated source records what
 * pmcf_sim_record records, execution seeds, sub-lists of a resolved list,
 * the options' size rule and bad arguments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "counters/catalog.h"
#include "pmcfuse/collect.h"
#include "pmcfuse/combine.h"
#include "pmcfuse/events.h"
#include "pmcfuse/plan.h"
#include "pmcfuse/sim.h"
#include "pmcfuse/source.h"

#define SPEC "cholesky,blocks=4,seed=7"

static int ok(int err, int line)
{
	if (err)
		fail_msg("line %d: %s (%s)", line, pmcf_strerror(err), pmcf_errdetail());
	return err;
}
#define OK(x) ok((x), __LINE__)

/* The simulated source records a resolved list without one name lookup,
 * and the profile is the one pmcf_sim_record makes of the names. */
static void test_sim_no_lookup(void **state)
{
	(void)state;
	pmcf_source *src;
	pmcf_count_opts o = PMCF_COUNT_OPTS_INIT;
	o.pmcs = 4;
	OK(pmcf_source_new_sim(SPEC, &o, &src));
	assert_int_equal(pmcf_source_is_sim(src), 1);
	assert_int_equal(pmcf_source_seed(src), 7);
	pmcf_evlist *ev;
	OK(pmcf_source_events(src, "PAPI_TOT_INS,papi_l1_dcm,PAPI_L1_ICM", &ev));
	const pmcf_catalog *cat;
	OK(pmcf_source_catalog(src, &cat));
	assert_ptr_equal(pmcf_evlist_catalog(ev), cat); /* the same resolved objects */
	unsigned long before = pmcfi_name_lookups;
	pmcf_profile *p;
	pmcf_exit_info ei = PMCF_EXIT_INFO_INIT;
	OK(pmcf_source_record(src, ev, 2, &p, &ei));
	assert_int_equal(pmcfi_name_lookups, before);
	assert_int_equal(ei.complete, 1);
	assert_int_equal(ei.xus, pmcf_profile_nxus(p));

	/* the same execution through the names */
	pmcf_sim_spec *spec;
	OK(pmcf_sim_spec_parse(SPEC, &spec));
	pmcf_sim_spec_seed_set(spec, pmcf_sim_exec_seed(7, 2));
	assert_int_equal(pmcf_source_exec_seed(src, 2), pmcf_sim_exec_seed(7, 2));
	assert_string_equal(pmcf_source_name(src), pmcf_sim_spec_canonical(spec));
	pmcf_count_opts so = PMCF_COUNT_OPTS_INIT;
	so.pmcs = 4;
	pmcf_profile *q;
	OK(pmcf_sim_record(spec, pmcf_evlist_names(ev), pmcf_evlist_size(ev), &so, &q));
	assert_int_equal(pmcf_profile_nevents(p), 4); /* duration first */
	assert_int_equal(pmcf_profile_nevents(q), pmcf_profile_nevents(p));
	assert_int_equal(pmcf_profile_nxus(q), pmcf_profile_nxus(p));
	for (size_t e = 0; e < pmcf_profile_nevents(p); e++) {
		assert_string_equal(pmcf_profile_event_name(p, e), pmcf_profile_event_name(q, e));
		const double *a = pmcf_profile_column(p, e), *b = pmcf_profile_column(q, e);
		assert_memory_equal(a, b, pmcf_profile_nxus(p) * sizeof(double));
	}
	pmcf_profile_free(q);
	pmcf_sim_spec_free(spec);
	pmcf_profile_free(p);

	/* a set taken from the list (a plan's, a covering's) is no lookup either */
	static const char *const set[] = {"duration", "PAPI_L1_ICM"};
	pmcf_evlist *sub;
	before = pmcfi_name_lookups;
	OK(pmcf_evlist_subset(ev, set, 2, &sub));
	OK(pmcf_source_record(src, sub, -1, &p, NULL));
	assert_int_equal(pmcfi_name_lookups, before);
	assert_int_equal(pmcf_profile_nevents(p), 2);
	assert_string_equal(pmcf_profile_event_name(p, 1), "PAPI_L1_ICM");
	/* a negative index: the base seed itself */
	assert_int_equal(pmcf_source_exec_seed(src, -1), 7);
	pmcf_profile_free(p);
	pmcf_evlist_free(sub);
	static const char *const stranger[] = {"PAPI_L1_LDM"};
	assert_int_equal(pmcf_evlist_subset(ev, stranger, 1, &sub), PMCF_EEVENT);
	pmcf_evlist_free(ev);
	pmcf_source_free(src);
}

/* A list of another catalogue is resolved in the source's first. */
static void test_other_catalog(void **state)
{
	(void)state;
	pmcf_source *src;
	OK(pmcf_source_new_sim(SPEC, NULL, &src));
	pmcf_catalog *other;
	OK(pmcf_catalog_sim(SPEC, &other));
	pmcf_evlist *ev;
	static const char *const names[] = {"PAPI_TOT_INS", "PAPI_L1_DCM"};
	OK(pmcf_evlist_from_names(other, names, 2, &ev));
	pmcf_profile *p;
	OK(pmcf_source_record(src, ev, 0, &p, NULL));
	assert_int_equal(pmcf_profile_nevents(p), 3);
	assert_string_equal(pmcf_profile_event_name(p, 2), "PAPI_L1_DCM");
	pmcf_profile_free(p);
	pmcf_evlist_free(ev);
	pmcf_catalog_free(other);
	pmcf_source_free(src);
}

static char tool[2400];

/* A program records its resolved list: the collector looks no name up
 * (before pmcf_source it built a second catalogue and found every name). */
static void test_program_no_lookup(void **state)
{
	(void)state;
	char *argv[] = {"true", NULL};
	pmcf_source *src;
	pmcf_program_opts po = {.size = sizeof(po), .tool_path = tool};
	OK(pmcf_source_new_program(1, argv, NULL, &po, &src));
	assert_int_equal(pmcf_source_is_sim(src), 0);
	assert_string_equal(pmcf_source_name(src), "true");
	pmcf_evlist *ev;
	OK(pmcf_source_events(src, "task-clock,faults", &ev)); /* faults: an alias */
	unsigned long before = pmcfi_name_lookups;
	pmcf_profile *p;
	pmcf_exit_info ei = PMCF_EXIT_INFO_INIT;
	int err = pmcf_source_record(src, ev, 0, &p, &ei);
	if (err == PMCF_EPARANOID || err == PMCF_ENOTSUP) {
		pmcf_evlist_free(ev);
		pmcf_source_free(src);
		skip(); /* perf_event_open refused here: nothing to count */
	}
	OK(err);
	assert_int_equal(pmcfi_name_lookups, before);
	assert_int_equal(ei.complete, 1);
	assert_int_equal(pmcf_profile_nevents(p), 3);
	assert_string_equal(pmcf_profile_event_name(p, 2), "page-faults");
	pmcf_profile_free(p);
	pmcf_evlist_free(ev);
	/* the default events of a program: duration and software events */
	OK(pmcf_source_events(src, NULL, &ev));
	assert_string_equal(pmcf_evlist_name(ev, 0), "duration");
	assert_true(pmcf_evlist_size(ev) > 1);
	pmcf_evlist_free(ev);
	pmcf_source_free(src);
}

/* The planner takes the resolved list: parsing N names and planning them
 * looks each up once (before pmcf_plan_make_evlist the planner looked
 * every name up again, and again in every compatibility check), and the
 * plan is the one pmcf_plan_make makes of the names. */
/* a and b: the same events of one catalogue, in the same {…} groups */
static void same_list(const pmcf_evlist *a, const pmcf_evlist *b, int line, size_t k)
{
	if (!a || !b)
		fail_msg("row %d, set %zu: a list is missing", line, k);
	assert_ptr_equal(pmcf_evlist_catalog(a), pmcf_evlist_catalog(b));
	assert_int_equal(pmcf_evlist_size(a), pmcf_evlist_size(b));
	for (size_t i = 0; i < pmcf_evlist_size(a); i++) {
		assert_string_equal(pmcf_evlist_name(a, i), pmcf_evlist_name(b, i));
		if (pmcf_evlist_group(a, i) != pmcf_evlist_group(b, i))
			fail_msg("row %d, set %zu, event %s: group %u, not %u", line, k,
				 pmcf_evlist_name(a, i), pmcf_evlist_group(a, i), pmcf_evlist_group(b, i));
	}
}

/* A plan made of resolved lists owns one list per set (resolved when it
 * was made: the sub-list of the events, then the linking events, that
 * pmcf_evlist_subset gives); a loaded plan has none until pmcf_plan_resolve,
 * which makes the same ones, all or nothing. */
static void check_plan_lists(pmcf_plan *a, const pmcf_evlist *ev, const pmcf_evlist *lk, int line)
{
	pmcf_evlist *all;
	OK(pmcf_evlist_subset(ev, pmcf_evlist_names(ev), pmcf_evlist_size(ev), &all));
	if (lk)
		OK(pmcf_evlist_append(all, lk));
	char *text;
	OK(pmcf_plan_to_json(a, &text));
	pmcf_plan *q;
	OK(pmcf_plan_from_json(text, &q));
	free(text);
	assert_null(pmcf_plan_evlist_at(q, 0));
	assert_null(pmcf_plan_evlist_at(a, pmcf_plan_nsets(a)));
	if (lk) { /* the linking events are not among the events alone */
		assert_int_equal(pmcf_plan_resolve(q, ev), PMCF_EEVENT);
		assert_null(pmcf_plan_evlist_at(q, 0));
	}
	OK(pmcf_plan_resolve(q, all));
	for (size_t k = 0; k < pmcf_plan_nsets(a); k++) {
		const char *const *names;
		size_t m;
		OK(pmcf_plan_events_at(a, k, &names, &m));
		pmcf_evlist *want;
		OK(pmcf_evlist_subset(all, names, m, &want));
		same_list(pmcf_plan_evlist_at(a, k), want, line, k);
		same_list(pmcf_plan_evlist_at(q, k), want, line, k);
		pmcf_evlist_free(want);
	}
	pmcf_plan_free(q);
	pmcf_evlist_free(all);
}

static void test_plan_no_lookup(void **state)
{
	(void)state;
	static const struct {
		int line;
		int strategy;
		const char *events, *link; /* link NULL: none */
		int packing;
		unsigned pmcs;
	} rows[] = {
		{__LINE__, PMCF_COMBINE_CTC, "PAPI_L1_DCM,PAPI_L2_TCM,PAPI_L3_TCM,PAPI_BR_MSP,PAPI_TLB_IM",
		 NULL, PMCF_PACK_BEST, 3},
		{__LINE__, PMCF_COMBINE_BC, "PAPI_L1_DCM,{PAPI_L2_TCM,PAPI_L3_TCM},PAPI_BR_MSP,PAPI_TLB_IM",
		 "PAPI_L1_ICM", PMCF_PACK_BEST, 4},
		{__LINE__, PMCF_COMBINE_LGL, "PAPI_L2_DCA,PAPI_L2_TCM,PAPI_L3_TCM,PAPI_BR_MSP", NULL,
		 PMCF_PACK_GREEDY, 3},
	};
	pmcf_source *src;
	OK(pmcf_source_new_sim(SPEC, NULL, &src));
	const pmcf_catalog *cat;
	OK(pmcf_source_catalog(src, &cat));
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		pmcf_evlist *ev, *lk = NULL;
		unsigned long before = pmcfi_name_lookups;
		OK(pmcf_source_events(src, rows[r].events, &ev));
		if (rows[r].link)
			OK(pmcf_source_events(src, rows[r].link, &lk));
		unsigned long parsed = pmcfi_name_lookups - before;
		pmcf_plan_opts o = PMCF_PLAN_OPTS_INIT;
		o.strategy = rows[r].strategy;
		o.packing = rows[r].packing;
		o.pmcs = rows[r].pmcs;
		pmcf_plan *a, *b;
		OK(pmcf_plan_make_evlist(ev, lk, &o, &a));
		if (pmcfi_name_lookups - before != parsed)
			fail_msg("row %d: %lu names parsed with %lu lookups, planned with %lu more",
				 rows[r].line, pmcf_evlist_size(ev), parsed,
				 pmcfi_name_lookups - before - parsed);
		assert_true(pmcf_plan_nsets(a) > 1);
		check_plan_lists(a, ev, lk, rows[r].line);
		/* the same plan through the names */
		o.groups = pmcf_evlist_groups(ev);
		o.link = lk ? pmcf_evlist_names(lk) : NULL;
		o.nlink = lk ? pmcf_evlist_size(lk) : 0;
		OK(pmcf_plan_make(cat, pmcf_evlist_names(ev), pmcf_evlist_size(ev), &o, &b));
		assert_null(pmcf_plan_evlist_at(b, 0)); /* names: no lists */
		char *ja, *jb;
		OK(pmcf_plan_to_json(a, &ja));
		OK(pmcf_plan_to_json(b, &jb));
		assert_string_equal(ja, jb);
		free(ja);
		free(jb);
		pmcf_plan_free(b);
		/* the lists give the links and groups: the options may not */
		assert_int_equal(pmcf_plan_make_evlist(ev, lk, &o, &b), PMCF_EINVAL);
		pmcf_plan_free(a);
		pmcf_evlist_free(lk);
		pmcf_evlist_free(ev);
	}
	/* a linking list of another catalogue */
	pmcf_catalog *other;
	OK(pmcf_catalog_sim(SPEC, &other));
	pmcf_evlist *ev, *lk;
	OK(pmcf_source_events(src, "PAPI_L1_DCM,PAPI_L1_ICM", &ev));
	OK(pmcf_evlist_parse(other, "PAPI_TOT_INS", &lk));
	pmcf_plan_opts o = PMCF_PLAN_OPTS_INIT;
	pmcf_plan *p = NULL;
	assert_int_equal(pmcf_plan_make_evlist(ev, lk, &o, &p), PMCF_ECONFLICT);
	assert_null(p);
	pmcf_evlist_free(lk);
	pmcf_evlist_free(ev);
	pmcf_catalog_free(other);
	pmcf_source_free(src);
}

/* The options follow the size rule; bad arguments are refused. */
static void test_opts_and_errors(void **state)
{
	(void)state;
	pmcf_source *src = NULL;
	struct {
		pmcf_count_opts o;
		char more[8];
	} big;
	memset(&big, 0, sizeof(big));
	big.o = (pmcf_count_opts)PMCF_COUNT_OPTS_INIT;
	big.o.size = sizeof(big); /* a newer header: zero bytes beyond are fine */
	OK(pmcf_source_new_sim(SPEC, &big.o, &src));
	pmcf_source_free(src);
	big.more[3] = 1; /* a field this library does not know */
	assert_int_equal(pmcf_source_new_sim(SPEC, &big.o, &src), PMCF_EINVAL);
	pmcf_count_opts o = PMCF_COUNT_OPTS_INIT;
	o.size = sizeof(size_t); /* smaller than the first version */
	assert_int_equal(pmcf_source_new_sim(SPEC, &o, &src), PMCF_EINVAL);
	o = (pmcf_count_opts)PMCF_COUNT_OPTS_INIT;
	o.multiplex = 9;
	assert_int_equal(pmcf_source_new_sim(SPEC, &o, &src), PMCF_EINVAL);
	/* every mode the collector and the simulator take, the last one too */
	for (int m = PMCF_MUX_NONE; m <= PMCF_MUX_ROC_COUNTS; m++) {
		o = (pmcf_count_opts)PMCF_COUNT_OPTS_INIT;
		o.multiplex = m;
		OK(pmcf_source_new_sim(SPEC, &o, &src));
		pmcf_source_free(src);
	}
	o.multiplex = PMCF_MUX_ROC_COUNTS + 1;
	assert_int_equal(pmcf_source_new_sim(SPEC, &o, &src), PMCF_EINVAL);
	/* a budget beyond the simulator's 64 counters: refused when the source
	 * is made (it was refused only by the first recording) */
	o = (pmcf_count_opts)PMCF_COUNT_OPTS_INIT;
	o.pmcs = 100;
	assert_int_equal(pmcf_source_new_sim(SPEC, &o, &src), PMCF_EINVAL);
	assert_null(src);
	assert_non_null(strstr(pmcf_errdetail(), "pmcf_count_opts.pmcs"));
	assert_non_null(strstr(pmcf_errdetail(), "at most 64 counters"));
	o.pmcs = 64;
	OK(pmcf_source_new_sim(SPEC, &o, &src));
	pmcf_source_free(src);
	o = (pmcf_count_opts)PMCF_COUNT_OPTS_INIT;
	o.size = 0; /* the first version */
	o.multiplex = PMCF_MUX_RR;
	OK(pmcf_source_new_sim(SPEC, &o, &src));
	pmcf_count_opts got = {.size = sizeof(got)};
	OK(pmcf_source_count_get(src, &got));
	assert_int_equal(got.multiplex, PMCF_MUX_RR);
	assert_true(got.period_ms == 4.0);
	assert_int_equal(pmcf_source_output_set(src, 1, 2), PMCF_EINVAL); /* no program */
	pmcf_source_free(src);
	assert_int_equal(pmcf_source_new_sim("nosuchworkload", NULL, &src), PMCF_ENOENT);
	char *none[] = {NULL};
	assert_int_equal(pmcf_source_new_program(0, none, NULL, NULL, &src), PMCF_EINVAL);
	/* a plan without a source names none */
	pmcf_catalog *c;
	OK(pmcf_catalog_sim(SPEC, &c));
	static const char *const ev[] = {"PAPI_L1_DCM"};
	pmcf_plan_opts po = PMCF_PLAN_OPTS_INIT;
	pmcf_plan *plan;
	OK(pmcf_plan_make(c, ev, 1, &po, &plan));
	assert_int_equal(pmcf_source_new_from_plan(plan, NULL, NULL, &src), PMCF_ENOENT);
	/* a source writes itself into a plan and comes back from it */
	OK(pmcf_source_new_sim(SPEC, NULL, &src));
	pmcf_source_seed_set(src, 11);
	OK(pmcf_source_to_plan(src, plan));
	pmcf_source_free(src);
	assert_int_equal(pmcf_plan_seed(plan), 11);
	OK(pmcf_source_new_from_plan(plan, NULL, NULL, &src));
	assert_int_equal(pmcf_source_seed(src), 11);
	assert_int_equal(pmcf_source_exec_seed(src, 1), pmcf_sim_exec_seed(11, 1));
	pmcf_source_free(src);
	pmcf_plan_free(plan);
	pmcf_catalog_free(c);
}

/* The pair covering and the set check of a resolved list look no name up;
 * the covering is deterministic and owns its sets as lists. */
static void test_cover_check_no_lookup(void **state)
{
	(void)state;
	static const struct {
		int line;
		const char *events;
		unsigned pmcs;
	} rows[] = {
		{__LINE__, "PAPI_L1_DCM,PAPI_L2_TCM,PAPI_L3_TCM,PAPI_BR_MSP,PAPI_TLB_IM", 2},
		{__LINE__,
		 "PAPI_L1_DCM,PAPI_L2_TCM,PAPI_L3_TCM,PAPI_BR_MSP,PAPI_TLB_IM,PAPI_L1_ICM,PAPI_L2_DCA", 3},
		{__LINE__, "PAPI_L1_DCM,{PAPI_L2_TCM,PAPI_L3_TCM},PAPI_BR_MSP,PAPI_TLB_IM", 3},
	};
	pmcf_source *src;
	OK(pmcf_source_new_sim(SPEC, NULL, &src));
	const pmcf_catalog *cat;
	OK(pmcf_source_catalog(src, &cat));
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		pmcf_evlist *ev;
		OK(pmcf_source_events(src, rows[r].events, &ev));
		size_t n = pmcf_evlist_size(ev);
		unsigned long before = pmcfi_name_lookups;
		pmcf_cover *a, *b;
		OK(pmcf_cover_pairs_evlist(ev, rows[r].pmcs, 1, &a));
		char why[256], why2[256];
		int fit = pmcf_evlist_check(ev, rows[r].pmcs, why, sizeof(why));
		if (pmcfi_name_lookups != before)
			fail_msg("row %d: %lu lookups for a covering and a check of a resolved list",
				 rows[r].line, pmcfi_name_lookups - before);
		assert_true(fit == 0 || fit == 1);
		/* deterministic; the same verdict by names */
		OK(pmcf_cover_pairs_evlist(ev, rows[r].pmcs, 1, &b));
		assert_true(pmcf_cover_nsets(a) > 1);
		assert_int_equal(pmcf_cover_nsets(a), pmcf_cover_nsets(b));
		for (size_t k = 0; k < pmcf_cover_nsets(a); k++) {
			size_t ma, mb;
			const char *const *sa = pmcf_cover_events_at(a, k, &ma);
			const char *const *sb = pmcf_cover_events_at(b, k, &mb);
			assert_int_equal(ma, mb);
			for (size_t i = 0; i < ma; i++)
				assert_string_equal(sa[i], sb[i]);
			/* the covering of a list owns its sets as lists; one of names does not */
			pmcf_evlist *want;
			OK(pmcf_evlist_subset(ev, sa, ma, &want));
			same_list(pmcf_cover_evlist_at(a, k), want, rows[r].line, k);
			pmcf_evlist_free(want);
		}
		assert_int_equal(fit, pmcf_catalog_check_events(cat, pmcf_evlist_names(ev), n, rows[r].pmcs,
								why2, sizeof(why2)));
		assert_string_equal(why, why2);
		assert_null(pmcf_cover_evlist_at(a, pmcf_cover_nsets(a)));
		pmcf_cover_free(a);
		pmcf_cover_free(b);
		pmcf_evlist_free(ev);
	}
	pmcf_cover *x = NULL;
	assert_int_equal(pmcf_cover_pairs_evlist(NULL, 2, 1, &x), PMCF_EINVAL);
	assert_null(x);
	assert_int_equal(pmcf_evlist_check(NULL, 2, NULL, 0), PMCF_EINVAL);
	pmcf_source_free(src);
}

int main(void)
{
	const char *tmp = getenv("PMCF_TEST_TMP"); /* <build>/tests/tmp */
	char build_dir[2048] = ".";
	if (tmp) {
		snprintf(build_dir, sizeof(build_dir), "%s", tmp);
		for (int k = 0; k < 2; k++)
			*strrchr(build_dir, '/') = '\0';
	}
	snprintf(tool, sizeof(tool), "%s/libpmcfuse-ompt.so", build_dir);
	setenv("ASAN_OPTIONS", "verify_asan_link_order=0", 0);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sim_no_lookup),         cmocka_unit_test(test_other_catalog),
		cmocka_unit_test(test_program_no_lookup),     cmocka_unit_test(test_plan_no_lookup),
		cmocka_unit_test(test_cover_check_no_lookup), cmocka_unit_test(test_opts_and_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
