/* The report through its public API (include/pmcfuse/report.h): the page of
 * a simulated profile, options checked, the gnuplot failure reported with
 * nothing left in the temporary folder, and the numbers for people. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>
#include "pmcfuse/profile.h"
#include "pmcfuse/report.h"
#include "pmcfuse/sim.h"

static pmcf_profile *sim_profile(unsigned seed)
{
	char spec[64];
	snprintf(spec, sizeof(spec), "cholesky,blocks=4,seed=%u", seed);
	pmcf_sim_spec *s = NULL;
	assert_int_equal(pmcf_sim_spec_parse(spec, &s), 0);
	const char *ev[] = {"PAPI_TOT_INS", "PAPI_TOT_CYC"};
	pmcf_profile *p = NULL;
	pmcf_count_opts so = PMCF_COUNT_OPTS_INIT;
	assert_int_equal(pmcf_sim_record(s, ev, 2, &so, &p), 0);
	pmcf_sim_spec_free(s);
	return p;
}

static char *page_of(const pmcf_report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(pmcf_report_write(r, f), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void test_report_page(void **state)
{
	(void)state;
	pmcf_profile *p = sim_profile(1);
	size_t pair[2] = {(size_t)pmcf_profile_event_find(p, "PAPI_TOT_CYC"),
			  (size_t)pmcf_profile_event_find(p, "PAPI_TOT_INS")};
	pmcf_report_opts o = PMCF_REPORT_OPTS_INIT;
	o.plots = 1;
	o.pairs = pair;
	o.npairs = 1;
	o.name = "a <name>.pmcf";
	pmcf_report *r = NULL;
	assert_int_equal(pmcf_report_new(p, NULL, 0, &o, &r), 0);
	char *page = page_of(r);
	assert_true(!strncmp(page, "<!DOCTYPE html>\n", 16));
	assert_non_null(strstr(page, "a &lt;name&gt;.pmcf"));
	assert_non_null(strstr(page, "<h2 id=\"scatter\">"));
	assert_non_null(strstr(page, "PAPI_TOT_INS against PAPI_TOT_CYC"));
	assert_non_null(strstr(page, "<h2 id=\"truth\">"));
	assert_null(strstr(page, "@@IMG:"));
	assert_non_null(strstr(page, "</html>\n"));
	/* the same options give the same page */
	pmcf_report *r2 = NULL;
	assert_int_equal(pmcf_report_new(p, NULL, 0, &o, &r2), 0);
	char *page2 = page_of(r2);
	assert_string_equal(page, page2);
	free(page);
	free(page2);
	pmcf_report_free(r);
	pmcf_report_free(r2);
	pmcf_report_free(NULL);
	pmcf_profile_free(p);
}

static void test_report_opts(void **state)
{
	(void)state;
	pmcf_profile *p = sim_profile(1);
	size_t bad_pair[2] = {0, 99};
	static const struct {
		int line;
		unsigned plots, bins, points;
		int pair, size;
	} rows[] = {
		{__LINE__, 41, 10, 5000, 0, 0},  /* too many plots */
		{__LINE__, 6, 0, 5000, 0, 0},    /* no bins */
		{__LINE__, 6, 31, 5000, 0, 0},   /* too many bins */
		{__LINE__, 6, 10, 99, 0, 0},     /* too few points */
		{__LINE__, 6, 10, 100001, 0, 0}, /* too many points */
		{__LINE__, 6, 10, 5000, 1, 0},   /* a pair beyond the events */
		{__LINE__, 6, 10, 5000, 0, 1},   /* a size smaller than the first version */
	};
	for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		pmcf_report_opts o = PMCF_REPORT_OPTS_INIT;
		o.plots = rows[k].plots;
		o.bins = rows[k].bins;
		o.points = rows[k].points;
		if (rows[k].pair) {
			o.pairs = bad_pair;
			o.npairs = 1;
		}
		if (rows[k].size)
			o.size = offsetof(pmcf_report_opts, pairs);
		pmcf_report *r = (pmcf_report *)&o;
		int err = pmcf_report_new(p, NULL, 0, &o, &r);
		if (err != PMCF_EINVAL || r || !pmcf_errdetail()[0])
			fail_msg("row at line %d: err %d, detail '%s'", rows[k].line, err, pmcf_errdetail());
	}
	assert_int_equal(pmcf_report_new(p, NULL, 0, NULL, NULL), PMCF_EINVAL);
	assert_int_equal(pmcf_report_write(NULL, stdout), PMCF_EINVAL);
	pmcf_profile_free(p);
}

/* With references the TMD heat map needs gnuplot: a binary that cannot run
 * is PMCF_ENOTSUP, and the temporary folder is gone. */
static void test_report_gnuplot_missing(void **state)
{
	(void)state;
	const char *tmp = getenv("PMCF_TEST_TMP");
	if (!tmp)
		skip();
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/report-tmp", tmp);
	mkdir(dir, 0700);
	pmcf_profile *p = sim_profile(1), *ref[2] = {sim_profile(2), sim_profile(3)};
	pmcf_report_opts o = PMCF_REPORT_OPTS_INIT;
	o.gnuplot = "/nonexistent/gnuplot";
	o.tmpdir = dir;
	pmcf_report *r = NULL;
	assert_int_equal(pmcf_report_new(p, (const pmcf_profile *const *)ref, 2, &o, &r), PMCF_ENOTSUP);
	assert_null(r);
	assert_non_null(strstr(pmcf_errdetail(), "cannot run /nonexistent/gnuplot"));
	DIR *d = opendir(dir);
	assert_non_null(d);
	struct dirent *de;
	size_t n = 0;
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	assert_int_equal(n, 0);
	pmcf_profile_free(p);
	pmcf_profile_free(ref[0]);
	pmcf_profile_free(ref[1]);
}

static void test_report_human(void **state)
{
	(void)state;
	static const struct {
		int line;
		double v;
		int ns;
		const char *want;
	} rows[] = {
		{__LINE__, 812, 0, "812"},     {__LINE__, 0.5, 0, "0.5"},
		{__LINE__, 1210, 0, "1.21 k"}, {__LINE__, 3.4e9, 0, "3.4 G"},
		{__LINE__, 812, 1, "812 ns"},  {__LINE__, 3.4e6, 1, "3.4 ms"},
		{__LINE__, 1.2e9, 1, "1.2 s"}, {__LINE__, PMCF_MISSING, 0, "-"},
	};
	char buf[32];
	for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++)
		if (strcmp(pmcf_report_human(buf, sizeof(buf), rows[k].v, rows[k].ns), rows[k].want))
			fail_msg("row at line %d: '%s', want '%s'", rows[k].line, buf, rows[k].want);
	assert_true(pmcf_report_event_is_ns("duration"));
	assert_true(pmcf_report_event_is_ns("task-clock:u"));
	assert_false(pmcf_report_event_is_ns("task-clocks"));
	assert_false(pmcf_report_event_is_ns("PAPI_TOT_INS"));
}

/* The types table sums each XU's own time (duration), not end - start:
 * a task that waits for the 10 tasks it created spans 1000 ms but ran 100. */
static void test_report_type_time(void **state)
{
	(void)state;
	pmcf_profile *p = NULL;
	uint32_t outer, inner;
	size_t dur, ix;
	assert_int_equal(pmcf_profile_new(&p), 0);
	assert_int_equal(pmcf_profile_type_add(p, PMCF_XU_TASK, "outer", "t.c:1", &outer), 0);
	assert_int_equal(pmcf_profile_type_add(p, PMCF_XU_TASK, "inner", "t.c:2", &inner), 0);
	assert_int_equal(pmcf_profile_event_add(p, "duration", &dur), 0);
	pmcf_xu x = {.type = outer, .start_ns = 0, .end_ns = 1000000000, .label = "o", .cpu = -1};
	assert_int_equal(pmcf_profile_xu_add(p, &x, &ix), 0);
	assert_int_equal(pmcf_profile_value_set(p, ix, dur, 100e6), 0);
	for (int k = 0; k < 10; k++) { /* 90 ms each, inside the outer task */
		pmcf_xu y = {.type = inner,
			     .start_ns = 100000000u + 90000000u * (unsigned)k,
			     .end_ns = 190000000u + 90000000u * (unsigned)k,
			     .label = "i",
			     .parent_label = "o",
			     .cpu = -1};
		assert_int_equal(pmcf_profile_xu_add(p, &y, &ix), 0);
		assert_int_equal(pmcf_profile_value_set(p, ix, dur, 90e6), 0);
	}
	pmcf_report_opts o = PMCF_REPORT_OPTS_INIT;
	pmcf_report *r = NULL;
	assert_int_equal(pmcf_report_new(p, NULL, 0, &o, &r), 0);
	char *page = page_of(r);
	assert_non_null(strstr(page, "<th>own time (ms): sum of duration</th><th>share of own time</th>"));
	/* outer: 100 ms of 1000 ms own time in all; inner: 10 x 90 ms */
	const char *row = strstr(page, ">outer</a>");
	assert_non_null(row);
	if (!strstr(row, "<td>1</td><td>100</td><td>10.0%</td>"))
		fail_msg("outer row: %.300s", row);
	row = strstr(page, ">inner</a>");
	assert_non_null(row);
	if (!strstr(row, "<td>10</td><td>900</td><td>90.0%</td>"))
		fail_msg("inner row: %.300s", row);
	free(page);
	pmcf_report_free(r);
	pmcf_profile_free(p);
}

/* Layout and choices (issue 35): the page opens on the summary and ends
 * with the run's metadata; the scatter plots sit in a grid; an event with
 * two values (0/1) or one value at 95 % of the XUs is never a chosen pair;
 * the timeline colours by an event when asked; a duration axis with one
 * outlier is logarithmic. */
static void test_report_layout(void **state)
{
	(void)state;
	pmcf_profile *p = sim_profile(2);
	size_t n = pmcf_profile_nxus(p), flag, mostly, ev;
	assert_true(n >= 20);
	assert_int_equal(pmcf_profile_event_add(p, "flag01", &flag), 0);
	assert_int_equal(pmcf_profile_event_add(p, "mostly7", &mostly), 0);
	assert_int_equal(pmcf_profile_event_add(p, "varied", &ev), 0);
	long dur = pmcf_profile_event_find(p, "duration");
	assert_true(dur >= 0);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(pmcf_profile_value_set(p, i, flag, (double)(i % 2)), 0);
		assert_int_equal(pmcf_profile_value_set(p, i, mostly, i == 0 ? 3.0 : 7.0), 0);
		assert_int_equal(pmcf_profile_value_set(p, i, ev, (double)(i * i % 97) + 1), 0);
		/* durations within 10 %, one outlier 50 times longer (under two decades) */
		assert_int_equal(pmcf_profile_value_set(p, i, (size_t)dur,
							i == 3 ? 5e7 : 1e6 + (double)(i % 10) * 1e4),
				 0);
	}
	pmcf_report_opts o = PMCF_REPORT_OPTS_INIT;
	o.plots = 40;
	o.colour_by = (long)ev;
	pmcf_report *r = NULL;
	assert_int_equal(pmcf_report_new(p, NULL, 0, &o, &r), 0);
	char *page = page_of(r);
	const char *sum = strstr(page, "<div class=\"summary\">"), *types = strstr(page, "<h2 id=\"types\">"),
		   *meta = strstr(page, "<h2 id=\"meta\">"), *scatter = strstr(page, "<h2 id=\"scatter\">");
	assert_non_null(sum);
	assert_non_null(types);
	assert_non_null(meta);
	assert_non_null(scatter);
	assert_true(sum < types && types < meta);
	assert_null(strstr(meta + 1, "<h2 "));
	assert_true(!strncmp(strstr(scatter, "</p>\n") + 5, "<div class=\"grid\">", 18));
	assert_null(strstr(page, "against flag01"));
	assert_null(strstr(page, "flag01 against"));
	assert_null(strstr(page, "against mostly7"));
	assert_null(strstr(page, "mostly7 against"));
	assert_non_null(strstr(page, "varied against"));
	assert_non_null(strstr(page, "colour = varied per XU"));
	/* the duration box plot: a log axis (data-ylog="1" on its svg) */
	const char *box = strstr(page, "<h2 id=\"distributions\">");
	assert_non_null(box);
	const char *dsvg = strstr(box, "data-ylog=");
	assert_non_null(dsvg);
	assert_true(!strncmp(dsvg, "data-ylog=\"1\"", 12));
	free(page);
	pmcf_report_free(r);
	/* an event index out of range is refused */
	o.colour_by = (long)pmcf_profile_nevents(p);
	assert_int_equal(pmcf_report_new(p, NULL, 0, &o, &r), PMCF_EINVAL);
	pmcf_profile_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_page),
		cmocka_unit_test(test_report_opts),
		cmocka_unit_test(test_report_gnuplot_missing),
		cmocka_unit_test(test_report_human),
		cmocka_unit_test(test_report_type_time),
		cmocka_unit_test(test_report_layout),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
