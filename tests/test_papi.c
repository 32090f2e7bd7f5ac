/* Unit tests of PAPI presets on the real source: the postfix evaluator and
 * derived types (counters/derive.c), presets in the perf catalogue from a
 * test table (available, unavailable with a reason, cost, the check, "all",
 * libpapi started only when asked), libpapi itself on this machine, and a
 * real collection whose derived presets the reader combines per XU. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "row_check.h"
#include "counters/derive.h"
#include "counters/papi.h"
#include "counters/perf.h"
#include "pmcfuse/collect.h"
#include "pmcfuse/events.h"
#include "pmcfuse/profile.h"
#include "pmcfuse/sim.h"

static char build_dir[2048], table[2300];

static void test_postfix_eval(void **state)
{
	(void)state;
	static const struct {
		int line;
		const char *expr;
		unsigned n;
		int err;            /* 0 or the error */
		double want;        /* with vals 100, 30, 7, 2 and hz 2e9 */
		const char *detail; /* part of the error detail */
	} rows[] = {
		{__LINE__, "", 1, 0, 100, NULL},
		{__LINE__, "N0|", 1, 0, 100, NULL},
		{__LINE__, "N0", 1, 0, 100, NULL},
		{__LINE__, "N0|N1|+|", 2, 0, 130, NULL},
		{__LINE__, "N0|N1|-|", 2, 0, 70, NULL},
		{__LINE__, "N0|N1|-|N2|-|", 3, 0, 63, NULL},
		{__LINE__, "N0|N1|N2|+|-|", 3, 0, 63, NULL},
		{__LINE__, "N0|N1|*|", 2, 0, 3000, NULL},
		{__LINE__, "N0|N3|/|", 4, 0, 50, NULL},
		{__LINE__, "N0|N1|+|N2|N3|*|-|", 4, 0, 116, NULL},
		{__LINE__, "N0|4|*|", 1, 0, 400, NULL},
		{__LINE__, "N0|N1|-|N2|+|", 3, 0, 77, NULL},
		{__LINE__, "N0|#|/|", 1, 0, 5e-8, NULL},
		{__LINE__, "N0N1+", 2, PMCF_ESYNTAX, 0, "unexpected 'N'"},
		{__LINE__, "N1|", 1, PMCF_ESYNTAX, 0, "N1 at 0 but the event has 1 natives"},
		{__LINE__, "N|", 1, PMCF_ESYNTAX, 0, "without a number"},
		{__LINE__, "N0|+|", 1, PMCF_ESYNTAX, 0, "needs two operands"},
		{__LINE__, "N0|N1|", 2, PMCF_ESYNTAX, 0, "leaves 2 values"},
		{__LINE__, "N0|N1|%|", 2, PMCF_ESYNTAX, 0, "unknown token '%'"},
		{__LINE__, "|", 1, PMCF_ESYNTAX, 0, "leaves 0 values"},
		{__LINE__, "N0|99999999999|+|", 1, PMCF_ESYNTAX, 0, "number too long"},
	};
	const double vals[] = {100, 30, 7, 2};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		double out = -1;
		int err = pmcfi_postfix_eval(rows[i].expr, vals, rows[i].n, 2e9, &out);
		ROW_CHECK(rows[i].line, err == rows[i].err, "'%s': got %d, want %d (%s)", rows[i].expr, err,
			  rows[i].err, pmcf_errdetail());
		if (!err)
			ROW_CHECK(rows[i].line, fabs(out - rows[i].want) <= 1e-12 * fabs(rows[i].want),
				  "'%s': got %g, want %g", rows[i].expr, out, rows[i].want);
		else
			ROW_CHECK(rows[i].line, strstr(pmcf_errdetail(), rows[i].detail),
				  "'%s': detail '%s' lacks '%s'", rows[i].expr, pmcf_errdetail(),
				  rows[i].detail);
	}
	/* a stack that overflows */
	char deep[256] = "";
	for (int k = 0; k < 33; k++)
		strcat(deep, "1|");
	double out;
	assert_int_equal(pmcfi_postfix_eval(deep, vals, 1, 0, &out), PMCF_ESYNTAX);
	/* division by zero: missing, not infinite */
	const double zero[] = {5, 0};
	assert_int_equal(pmcfi_postfix_eval("N0|N1|/|", zero, 2, 0, &out), 0);
	assert_true(isnan(out));
}

static void test_derive_postfix(void **state)
{
	(void)state;
	static const struct {
		int line;
		const char *derived, *postfix;
		unsigned n;
		int err;
		const char *want; /* the program, or part of the error detail */
	} rows[] = {
		{__LINE__, "NOT_DERIVED", "", 1, 0, "N0|"},
		{__LINE__, "", NULL, 1, 0, "N0|"},
		{__LINE__, "DERIVED_CMPD", "", 2, 0, "N0|"},
		{__LINE__, "DERIVED_ADD", "", 1, 0, "N0|"},
		{__LINE__, "DERIVED_ADD", "", 3, 0, "N0|N1|+|N2|+|"},
		{__LINE__, "DERIVED_SUB", "", 2, 0, "N0|N1|-|"},
		{__LINE__, "DERIVED_SUB", "", 3, 0, "N0|N1|-|N2|-|"},
		{__LINE__, "DERIVED_POSTFIX", "N0|N1|+|N2|-|", 3, 0, "N0|N1|+|N2|-|"},
		{__LINE__, "DERIVED_POSTFIX", "N0|N3|+|", 3, PMCF_ESYNTAX, "N3"},
		{__LINE__, "DERIVED_POSTFIX", NULL, 3, PMCF_ESYNTAX, "missing"},
		{__LINE__, "DERIVED_PS", "", 2, PMCF_ENOTSUP, "rate per second"},
		{__LINE__, "DERIVED_ADD_PS", "", 3, PMCF_ENOTSUP, "rate per second"},
		{__LINE__, "DERIVED_INFIX", "N0+N1", 2, PMCF_ENOTSUP, "DERIVED_INFIX"},
		{__LINE__, "DERIVED_ADD", "", 0, PMCF_EINVAL, "0 natives"},
		{__LINE__, "DERIVED_ADD", "", PMCFI_DERIVE_MAX + 1, PMCF_EINVAL, "natives"},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char out[PMCFI_DERIVE_EXPR];
		int err = pmcfi_derive_postfix(rows[i].derived, rows[i].postfix, rows[i].n, out, sizeof(out));
		ROW_CHECK(rows[i].line, err == rows[i].err, "%s: got %d, want %d (%s)", rows[i].derived, err,
			  rows[i].err, pmcf_errdetail());
		if (!err)
			ROW_CHECK(rows[i].line, strcmp(out, rows[i].want) == 0, "%s: got '%s', want '%s'",
				  rows[i].derived, out, rows[i].want);
		else
			ROW_CHECK(rows[i].line, strstr(pmcf_errdetail(), rows[i].want),
				  "%s: detail '%s' lacks '%s'", rows[i].derived, pmcf_errdetail(),
				  rows[i].want);
	}
	/* every program made from a type evaluates */
	char out[PMCFI_DERIVE_EXPR];
	assert_int_equal(pmcfi_derive_postfix("DERIVED_SUB", NULL, PMCFI_DERIVE_MAX, out, sizeof(out)), 0);
	assert_int_equal(pmcfi_postfix_check(out, PMCFI_DERIVE_MAX), 0);
}

static void test_derive_value(void **state)
{
	(void)state;
	/* natives of three events side by side, as the reader holds them */
	const double v[] = {11, 100, 30, 7, 5, PMCF_MISSING, 9};
	struct pmcfi_derive plain = {.name = "task-clock", .first = 0, .n = 1};
	struct pmcfi_derive sub = {.name = "PAPI_X", .first = 1, .n = 3};
	struct pmcfi_derive miss = {.name = "PAPI_Y", .first = 4, .n = 2};
	snprintf(sub.expr, sizeof(sub.expr), "N0|N1|-|N2|-|");
	snprintf(miss.expr, sizeof(miss.expr), "N0|N1|+|");
	assert_true(pmcfi_derive_value(&plain, v) == 11);
	assert_true(pmcfi_derive_value(&sub, v) == 63);
	assert_true(isnan(pmcfi_derive_value(&miss, v)));
	struct pmcfi_derive bad = {.name = "PAPI_Z", .first = 0, .n = 1};
	snprintf(bad.expr, sizeof(bad.expr), "N0|+|");
	assert_true(isnan(pmcfi_derive_value(&bad, v)));
	assert_string_equal(pmcf_errdetail(), ""); /* the reader's loop reports nothing */
}

/* The test table: software natives libpfm4 encodes on any Linux machine. */
static void write_table(const char *extra)
{
	FILE *f = fopen(table, "w");
	assert_non_null(f);
	fprintf(f,
		"# name\tderived\tpostfix\tnatives\tdescription\n%s"
		"PAPI_T_PF\tNOT_DERIVED\t-\tperf::PERF_COUNT_SW_PAGE_FAULTS\tpage faults\n"
		"PAPI_T_PF2\tDERIVED_ADD\t-\tperf::PERF_COUNT_SW_PAGE_FAULTS,"
		"perf::PERF_COUNT_SW_PAGE_FAULTS\ttwice the page faults\n"
		"PAPI_T_ZERO\tDERIVED_SUB\t-\tperf::PERF_COUNT_SW_PAGE_FAULTS,"
		"perf::PERF_COUNT_SW_PAGE_FAULTS\tno page faults\n"
		"PAPI_T_HALF\tDERIVED_POSTFIX\tN0|N1|+|2|/|\tperf::PERF_COUNT_SW_PAGE_FAULTS,"
		"perf::PERF_COUNT_SW_PAGE_FAULTS\tpage faults again\n"
		"PAPI_T_NONE\tNOT_DERIVED\t-\t-\tno native here\n"
		"PAPI_T_RATE\tDERIVED_PS\t-\tperf::PERF_COUNT_SW_TASK_CLOCK,"
		"perf::PERF_COUNT_SW_PAGE_FAULTS\ta rate\n"
		"PAPI_T_BAD\tNOT_DERIVED\t-\tno::SUCH_EVENT\tunencodable\n",
		extra);
	fclose(f);
	setenv("PMCF_TEST_PAPI_PRESETS", table, 1);
}

static const pmcf_event_info *info(const pmcf_catalog *c, const char *name)
{
	long i = pmcf_catalog_find(c, name);
	if (i < 0)
		fail_msg("'%s' is not in the catalogue", name);
	return pmcf_catalog_at(c, (size_t)i);
}

static void test_catalogue(void **state)
{
	(void)state;
	write_table("");
	pmcf_catalog *c;
	assert_int_equal(pmcf_catalog_perf(PMCF_CATALOG_NO_TRACEPOINTS | PMCF_CATALOG_PROBE, &c), 0);
	static const struct {
		int line;
		const char *name;
		int available;
		unsigned cost;
		const char *constraints; /* part of */
	} rows[] = {
		{__LINE__, "PAPI_T_PF", 1, 1, "\"natives\":[\"perf::PERF_COUNT_SW_PAGE_FAULTS\"]"},
		{__LINE__, "PAPI_T_PF2", 1, 2, "\"postfix\":\"N0|N1|+|\""},
		{__LINE__, "PAPI_T_ZERO", 1, 2, "\"derived\":\"DERIVED_SUB\""},
		{__LINE__, "PAPI_T_HALF", 1, 2, "\"postfix\":\"N0|N1|+|2|/|\""},
		{__LINE__, "PAPI_T_NONE", 0, 1, "{\"unavailable\":\"PAPI maps it to no native event"},
		{__LINE__, "PAPI_T_RATE", 0, 1, "rate per second (DERIVED_PS)"},
		{__LINE__, "PAPI_T_BAD", 0, 1, "libpfm4 cannot encode 'no::SUCH_EVENT'"},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const pmcf_event_info *e = info(c, rows[i].name);
		ROW_CHECK(rows[i].line, strcmp(e->source, PMCF_SRC_PAPI) == 0, "source %s", e->source);
		ROW_CHECK(rows[i].line, e->available == rows[i].available, "available %d", e->available);
		ROW_CHECK(rows[i].line, e->cost == rows[i].cost, "cost %u", e->cost);
		ROW_CHECK(rows[i].line, e->constraints && strstr(e->constraints, rows[i].constraints),
			  "constraints %s", e->constraints ? e->constraints : "(none)");
	}
	/* a derived preset opens all its natives; one PAPI cannot map is an error */
	char why[512];
	const char *ok[] = {"PAPI_T_PF2", "PAPI_T_HALF", "task-clock"};
	assert_int_equal(pmcf_catalog_check_events(c, ok, 3, 0, why, sizeof(why)), 1);
	assert_int_equal(pmcf_catalog_check_events(c, ok, 2, 3, why, sizeof(why)), 0); /* 4 > 3 */
	assert_non_null(strstr(why, "need 4 counters"));
	const char *none[] = {"task-clock", "PAPI_T_NONE"};
	assert_int_equal(pmcf_catalog_check_events(c, none, 2, 0, why, sizeof(why)), PMCF_ENOTSUP);
	assert_string_equal(pmcf_errdetail(),
			    "PAPI preset 'PAPI_T_NONE' cannot be counted on this machine: PAPI maps "
			    "it to no native event of this CPU (test table)");
	/* expansion: natives and how the reader combines them */
	struct perf_event_attr a[PMCFI_DERIVE_MAX];
	struct pmcfi_derive d;
	size_t n;
	assert_int_equal(pmcfi_perf_expand(c, "papi_t_half", a, PMCFI_DERIVE_MAX, &n, &d), 0);
	assert_int_equal(n, 2);
	assert_int_equal(a[0].type, PERF_TYPE_SOFTWARE);
	assert_int_equal(a[1].config, PERF_COUNT_SW_PAGE_FAULTS);
	assert_string_equal(d.name, "PAPI_T_HALF");
	assert_string_equal(d.expr, "N0|N1|+|2|/|");
	assert_int_equal(pmcfi_perf_expand(c, "PAPI_T_PF2", a, 1, &n, &d), PMCF_ETOOMANY);
	assert_int_equal(pmcfi_perf_expand(c, "PAPI_T_RATE", a, PMCFI_DERIVE_MAX, &n, &d), PMCF_ENOTSUP);
	assert_non_null(strstr(pmcf_errdetail(), "'PAPI_T_RATE' cannot be counted"));
	assert_int_equal(pmcfi_perf_expand(c, "task-clock", a, PMCFI_DERIVE_MAX, &n, &d), 0);
	assert_int_equal(n, 1);
	assert_string_equal(d.expr, "");
	assert_int_equal(pmcfi_perf_encode(c, "PAPI_T_PF", a), PMCF_EINVAL); /* one attr cannot */
	/* "all" does not count presets on top of their natives */
	pmcf_evlist *l;
	assert_int_equal(pmcf_evlist_parse(c, "all", &l), 0);
	for (size_t i = 0; i < pmcf_evlist_size(l); i++)
		assert_true(strncmp(pmcf_evlist_name(l, i), "PAPI_", 5) != 0);
	pmcf_evlist_free(l);
	pmcf_catalog_free(c);

	/* lists that name no preset do not start libpapi (no presets listed) */
	const char *plain[] = {"task-clock", "no-such-event"};
	assert_int_equal(pmcfi_catalog_perf_for(plain, 2, &c), 0);
	assert_true(pmcf_catalog_find(c, "PAPI_T_PF") < 0);
	pmcf_catalog_free(c);
	const char *papi[] = {"task-clock", "PAPI_T_PF"};
	assert_int_equal(pmcfi_catalog_perf_for(papi, 2, &c), 0);
	assert_true(pmcf_catalog_find(c, "PAPI_T_PF") >= 0);
	pmcf_catalog_free(c);
	assert_int_equal(pmcf_catalog_perf(PMCF_CATALOG_NO_TRACEPOINTS | PMCF_CATALOG_NO_PMU, &c), 0);
	assert_true(pmcf_catalog_find(c, "PAPI_T_PF") < 0);
	pmcf_catalog_free(c);
	unsetenv("PMCF_TEST_PAPI_PRESETS");
}

/* A machine without a PMU: PAPI's perf_event component is disabled and
 * every preset says so. */
static void test_disabled(void **state)
{
	(void)state;
	write_table("disabled\tno PMU in this test\n");
	pmcf_catalog *c;
	assert_int_equal(pmcf_catalog_perf(PMCF_CATALOG_NO_TRACEPOINTS, &c), 0);
	const pmcf_event_info *e = info(c, "PAPI_T_PF2");
	assert_int_equal(e->available, 0);
	assert_string_equal(e->constraints, "{\"unavailable\":\"PAPI's perf_event component is "
					    "disabled (no PMU in this test)\"}");
	pmcf_evlist *l;
	assert_int_equal(pmcf_evlist_parse(c, "PAPI_T_PF2", &l), 0); /* known, not countable */
	char why[256];
	assert_int_equal(pmcf_catalog_check_events(c, pmcf_evlist_names(l), 1, 4, why, sizeof(why)),
			 PMCF_ENOTSUP);
	assert_non_null(strstr(pmcf_errdetail(), "perf_event component is disabled"));
	pmcf_evlist_free(l);
	pmcf_catalog_free(c);
	/* a malformed table is an error of its own, not a silent empty list */
	FILE *f = fopen(table, "w");
	assert_non_null(f);
	fputs("PAPI_ONLY_NAME\n", f);
	fclose(f);
	struct pmcfi_papi *t;
	assert_int_equal(pmcfi_papi_load(&t), PMCF_ESYNTAX);
	setenv("PMCF_TEST_PAPI_PRESETS", "/nonexistent/papi.tsv", 1);
	assert_int_equal(pmcfi_papi_load(&t), PMCF_ENOTSUP);
	unsetenv("PMCF_TEST_PAPI_PRESETS");
}

/* libpapi on this machine: PAPI_TOT_INS either maps to natives libpfm4
 * encodes, or is unavailable with a reason. */
static void test_libpapi(void **state)
{
	(void)state;
	unsetenv("PMCF_TEST_PAPI_PRESETS");
	struct pmcfi_papi *t;
	int err = pmcfi_papi_load(&t);
	if (err == PMCF_ENOTSUP) {
		print_message("libpapi cannot start here (%s): skipped\n", pmcf_errdetail());
		skip();
	}
	assert_int_equal(err, 0);
	assert_true(t->n >= 50); /* PAPI 7 defines 108 presets */
	pmcfi_papi_free(t);
	pmcf_catalog *c;
	assert_int_equal(pmcf_catalog_perf(PMCF_CATALOG_NO_TRACEPOINTS, &c), 0);
	const pmcf_event_info *e = info(c, "PAPI_TOT_INS");
	assert_string_equal(e->source, PMCF_SRC_PAPI);
	assert_non_null(e->constraints);
	if (e->available == 0) {
		assert_non_null(strstr(e->constraints, "\"unavailable\":"));
		print_message("PAPI_TOT_INS here: %s\n", e->constraints);
	} else {
		assert_non_null(strstr(e->constraints, "\"natives\":"));
		assert_true(e->cost >= 1);
	}
	pmcf_catalog_free(c);
}

/* A real collection: the collector counts every native, the reader stores
 * only the presets' combined values. */
static void test_collect_derived(void **state)
{
	(void)state;
	char prog[2300], tool[2300];
	snprintf(prog, sizeof(prog), "%s/examples/plain", build_dir);
	snprintf(tool, sizeof(tool), "%s/libpmcfuse-ompt.so", build_dir);
	if (access(prog, X_OK) != 0 || access(tool, R_OK) != 0) {
		print_message("%s or the collector is not built: skipped\n", prog);
		skip();
	}
	setenv("PMCF_OMPT_TOOL", tool, 1);
	write_table("");
	const char *ev[] = {"duration",    "PAPI_T_PF2",  "page-faults",
			    "PAPI_T_ZERO", "PAPI_T_HALF", "PAPI_T_PF"};
	char *argv[] = {prog, "3", "16", NULL};
	pmcf_count_opts o = PMCF_COUNT_OPTS_INIT;
	pmcf_profile *p = NULL;
	pmcf_exit_info ei = PMCF_EXIT_INFO_INIT;
	int err = pmcf_collect_program(argv, ev, 6, &o, NULL, &p, &ei);
	if (err)
		fail_msg("collect: %s", pmcf_errdetail());
	assert_int_equal(pmcf_profile_nevents(p), 6); /* no column per native */
	for (size_t e = 0; e < 6; e++)
		assert_string_equal(pmcf_profile_event_name(p, e), ev[e]);
	assert_true(pmcf_profile_nxus(p) >= 4);
	for (size_t i = 0; i < pmcf_profile_nxus(p); i++) {
		double pf = pmcf_profile_value(p, i, 2);
		assert_true(pf >= 1);
		assert_true(pmcf_profile_value(p, i, 1) == 2 * pf);
		assert_true(pmcf_profile_value(p, i, 3) == 0);
		assert_true(pmcf_profile_value(p, i, 4) == pf);
		assert_true(pmcf_profile_value(p, i, 5) == pf);
	}
	pmcf_profile_free(p);
	/* user-space multiplexing over 1 counter: natives rotate one at a time,
	 * each is estimated, the preset's value and coverage come from them */
	pmcf_count_opts mx = {.size = sizeof(mx),
			      .pmcs = 1,
			      .multiplex = PMCF_MUX_RR,
			      .period_ms = 0.05,
			      .estimate = PMCF_EST_LOCAL};
	const char *mev[] = {"PAPI_T_PF2", "page-faults"};
	err = pmcf_collect_program(argv, mev, 2, &mx, NULL, &p, &ei);
	if (err)
		fail_msg("collect, multiplexed: %s", pmcf_errdetail());
	assert_int_equal(pmcf_profile_nevents(p), 3);
	assert_string_equal(pmcf_profile_event_name(p, 1), "PAPI_T_PF2");
	assert_true(pmcf_profile_has_coverage(p));
	for (size_t i = 0; i < pmcf_profile_nxus(p); i++) {
		uint64_t en, run;
		assert_int_equal(pmcf_profile_coverage_get(p, i, 1, &en, &run), 0);
		assert_true(run <= en);
		double v = pmcf_profile_value(p, i, 1);
		assert_true(isnan(v) || v >= 0);
		if (run == 0) /* a native never ran in this XU: the preset is missing */
			assert_true(isnan(v));
	}
	pmcf_profile_free(p);
	/* an unavailable preset stops the recording before the program runs */
	const char *bad[] = {"page-faults", "PAPI_T_NONE"};
	assert_int_equal(pmcf_collect_program(argv, bad, 2, &o, NULL, &p, &ei), PMCF_ENOTSUP);
	assert_null(p);
	assert_non_null(strstr(pmcf_errdetail(), "PAPI preset 'PAPI_T_NONE' cannot be counted"));
	unsetenv("PMCF_TEST_PAPI_PRESETS");
}

int main(void)
{
	const char *tmp = getenv("PMCF_TEST_TMP"); /* <build>/tests/tmp */
	snprintf(build_dir, sizeof(build_dir), "%s", tmp ? tmp : "./tests/tmp");
	snprintf(table, sizeof(table), "%s/papi-presets.tsv", build_dir);
	for (int k = 0; k < 2; k++)
		*strrchr(build_dir, '/') = '\0';
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_postfix_eval),    cmocka_unit_test(test_derive_postfix),
		cmocka_unit_test(test_derive_value),    cmocka_unit_test(test_catalogue),
		cmocka_unit_test(test_disabled),        cmocka_unit_test(test_libpapi),
		cmocka_unit_test(test_collect_derived),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
