/* Counter-inspection analysis on synthetic measurements with known answers:
 * least squares, the goodness of Eq. (1), Table 1 matching with noise, cache
 * step functions with noise, sysfs cache levels, and whole reports. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>
#include "pmcfuse/categorize.h"

/* Seeded normal noise (Box–Muller on a xorshift generator). */
static uint64_t rng = 88172645463325252ull;
static double uniform(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
}
static double gauss(void) { return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform()); }

static void test_fit_line(void **state)
{
	(void)state;
	double x[] = {1, 2, 3, 4}, y[] = {5, 7, 9, 11};
	pmcf_categorize_fit f = PMCF_CATEGORIZE_FIT_INIT;
	assert_int_equal(pmcf_categorize_fit_line(x, y, 4, &f), 0);
	assert_true(fabs(f.slope - 2) < 1e-12 && fabs(f.intercept - 3) < 1e-12);
	assert_true(fabs(f.r2 - 1) < 1e-12);
	double flat[] = {4, 4, 4, 4};
	assert_int_equal(pmcf_categorize_fit_line(x, flat, 4, &f), 0);
	assert_true(f.slope == 0 && f.r2 == 0);
	double noisy[] = {1, 3, 2, 4};
	assert_int_equal(pmcf_categorize_fit_line(x, noisy, 4, &f), 0);
	assert_true(fabs(f.slope - 0.8) < 1e-12 && fabs(f.r2 - 0.64) < 1e-12);
	/* bad input */
	double same[] = {2, 2, 2};
	assert_int_equal(pmcf_categorize_fit_line(same, y, 3, &f), PMCF_EINVAL);
	assert_int_equal(pmcf_categorize_fit_line(x, y, 1, &f), PMCF_EINVAL);
	double nan[] = {1, NAN};
	assert_int_equal(pmcf_categorize_fit_line(x, nan, 2, &f), PMCF_EINVAL);
}

static void test_goodness(void **state)
{
	(void)state;
	assert_true(fabs(pmcf_categorize_goodness(2, 1, 2) - 1) < 1e-15);
	assert_true(fabs(pmcf_categorize_goodness(2.5, 1, 2) - exp(-0.5)) < 1e-15);
	/* r² multiplies the measured slope: a poor fit is punished */
	assert_true(fabs(pmcf_categorize_goodness(2, 0.5, 2) - exp(-2)) < 1e-15);
	assert_true(fabs(pmcf_categorize_goodness(0, 0, 0) - 1) < 1e-15);
	assert_true(pmcf_categorize_goodness(20, 1, 2) < 1e-100);
}

static void test_table1(void **state)
{
	(void)state;
	/* the caption of Fig. 11 (e) and the CE example of §5 */
	static const double e[] = {2.5, 2, 1.5, 0, 0.5};
	for (int c = 0; c < PMCF_CATEGORIZE_NCATS; c++)
		assert_true(pmcf_categorize_expected(c, 4) == e[c]);
	static const double ce[] = {2, 2, 2, 2, 2.5, 2, 1};
	for (unsigned k = 0; k < 7; k++)
		assert_true(pmcf_categorize_expected(PMCF_CATEGORIZE_CE, k) == ce[k]);
	assert_true(isnan(pmcf_categorize_expected(5, 0)) && isnan(pmcf_categorize_expected(0, 7)));
	assert_string_equal(pmcf_categorize_branch_name(PMCF_CATEGORIZE_M), "M");
	assert_string_equal(pmcf_categorize_branch_name(-1), "none");
}

/* Fits of a synthetic event: per-iteration slope[k] plus a start-up
 * intercept, measured at 4 points with relative noise sd. */
static void synth_fits(const double slope[7], double intercept, double sd, pmcf_categorize_fit fits[7])
{
	double x[4] = {1e6, 2e6, 3e6, 4e6}, y[4];
	for (int k = 0; k < 7; k++) {
		for (int p = 0; p < 4; p++)
			y[p] = intercept + slope[k] * x[p] + sd * x[p] * gauss();
		assert_int_equal(pmcf_categorize_fit_line(x, y, 4, &fits[k]), 0);
	}
}

static void test_branch_rows_with_noise(void **state)
{
	(void)state;
	/* every row of Table 1, 50 noisy draws each: the right category */
	for (int c = 0; c < PMCF_CATEGORIZE_NCATS; c++) {
		double s[7];
		for (unsigned k = 0; k < 7; k++)
			s[k] = pmcf_categorize_expected(c, k);
		for (int rep = 0; rep < 50; rep++) {
			pmcf_categorize_fit f[7] = {PMCF_CATEGORIZE_FIT_INIT};
			pmcf_categorize_branch_match m = PMCF_CATEGORIZE_BRANCH_MATCH_INIT;
			synth_fits(s, 2e5, 0.005, f);
			assert_int_equal(pmcf_categorize_branch_classify(f, 0, &m), 0);
			if (m.category != c)
				fail_msg("row %s draw %d: got %s (%.3f)", pmcf_categorize_branch_name(c), rep,
					 pmcf_categorize_branch_name(m.category), m.confidence);
			assert_true(m.confidence > 0.9);
		}
	}
}

static const struct {
	int line;
	double slope[7];
	int want;
} branch_cases[] = {
	/* §5's example: BR_INST_EXEC:ALL_COND is CE */
	{__LINE__, {2, 2, 2, 2, 2.5, 2, 1}, PMCF_CATEGORIZE_CE},
	/* cachegrind's Bc (architectural: no speculation) is CR */
	{__LINE__, {2.0004, 2.0002, 2.0003, 2, 2.0001, 2.0002, 1.0003}, PMCF_CATEGORIZE_CR},
	/* instructions: linear in iterations but far from every row */
	{__LINE__, {15.5, 21, 18, 29.5, 21.5, 22, 6}, -1},
	/* data reads: near T on some kernels, not all */
	{__LINE__, {0.5, 3, 2, 1.5, 1.5, 3, 1}, -1},
	/* an event that never counts in the branch kernels (cache misses) */
	{__LINE__, {0, 0, 0, 0, 0, 0, 0}, -1},
	/* half of T: no row */
	{__LINE__, {0.75, 0.5, 1, 0.75, 0.75, 0.5, 0.5}, -1},
	/* a misprediction event with a predictor slightly worse than 50% */
	{__LINE__, {0.01, 0, 0, 0.55, 0.52, 0, 0.001}, PMCF_CATEGORIZE_M},
};

static void test_branch_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(branch_cases) / sizeof(branch_cases[0]); i++) {
		pmcf_categorize_fit f[7] = {PMCF_CATEGORIZE_FIT_INIT};
		synth_fits(branch_cases[i].slope, 1e5, 0.001, f);
		pmcf_categorize_branch_match m = PMCF_CATEGORIZE_BRANCH_MATCH_INIT;
		assert_int_equal(pmcf_categorize_branch_classify(f, 0, &m), 0);
		if (m.category != branch_cases[i].want)
			fail_msg("line %d: got %s (%.3f), want %s", branch_cases[i].line,
				 pmcf_categorize_branch_name(m.category), m.confidence,
				 pmcf_categorize_branch_name(branch_cases[i].want));
	}
}

static void test_branch_pure_noise(void **state)
{
	(void)state;
	/* counts that do not grow with iterations: r² near 0 shrinks the slope,
	 * so nothing but the all-zero rows could match, and they do not */
	double x[4] = {1, 2, 3, 4};
	for (int rep = 0; rep < 20; rep++) {
		pmcf_categorize_fit f[7] = {PMCF_CATEGORIZE_FIT_INIT};
		for (int k = 0; k < 7; k++) {
			double y[4];
			for (int p = 0; p < 4; p++)
				y[p] = 1000 + 300 * gauss();
			assert_int_equal(pmcf_categorize_fit_line(x, y, 4, &f[k]), 0);
		}
		pmcf_categorize_branch_match m = PMCF_CATEGORIZE_BRANCH_MATCH_INIT;
		assert_int_equal(pmcf_categorize_branch_classify(f, 0, &m), 0);
		assert_int_equal(m.category, -1);
	}
}

/* Three levels like Fig. 12–13: L1 32 KiB, L2 256 KiB, L3 32 MiB. */
static const pmcf_categorize_levels three = {0, 3, {32768, 262144, 33554432}, {"L1D", "L2", "LL"}};

/* Per-access values at sizes 4 KiB..128 MiB: 1 in the regions listed
 * (bit r set: region r), 0 elsewhere, with relative noise sd (and a twentieth
 * of it as absolute noise, so that zeros are not exact). */
static size_t synth_steps(unsigned regions, double sd, double *bytes, double *v)
{
	size_t n = 0;
	for (double b = 4096; b <= 134217728.0; b *= 2, n++) {
		unsigned r = 0;
		while (r < three.n && b > (double)three.bytes[r])
			r++;
		bytes[n] = b;
		v[n] = ((regions >> r) & 1) * (1 + sd * gauss()) + sd / 20 * gauss();
	}
	return n;
}

static const struct {
	int line;
	unsigned regions;
	const char *want, *signature;
} cache_cases[] = {
	{__LINE__, 0x1, "L1D-hit", "-L1D"},      {__LINE__, 0xe, "L1D-miss", "+L1D"},
	{__LINE__, 0x2, "L2-hit", "+L1D -L2"},   {__LINE__, 0xc, "L2-miss", "+L2"},
	{__LINE__, 0x4, "LL-hit", "+L2 -LL"},    {__LINE__, 0x8, "LL-miss", "+LL"},
	{__LINE__, 0xf, "none", "flat"}, /* every access: loads, instructions */
	{__LINE__, 0x0, "none", "flat"}, /* nothing: writes, instruction misses */
	{__LINE__, 0x5, "none", "-L1D +L2 -LL"},
};

static void test_cache_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cache_cases) / sizeof(cache_cases[0]); i++) {
		for (int rep = 0; rep < 20; rep++) {
			double b[64], v[64];
			size_t n = synth_steps(cache_cases[i].regions, rep ? 0.03 : 0, b, v);
			pmcf_categorize_cache_match m = PMCF_CATEGORIZE_CACHE_MATCH_INIT;
			assert_int_equal(pmcf_categorize_cache_classify(&three, b, v, n, 0, &m), 0);
			if (strcmp(m.category, cache_cases[i].want) != 0)
				fail_msg("line %d draw %d: got %s (%.3f, %s), want %s", cache_cases[i].line,
					 rep, m.category, m.confidence, m.signature, cache_cases[i].want);
			if (rep == 0)
				assert_string_equal(m.signature, cache_cases[i].signature);
			if (strcmp(m.category, "none") != 0)
				assert_true(m.confidence > 0.9);
		}
	}
}

static void test_cache_scale_and_prefetch(void **state)
{
	(void)state;
	/* scale does not matter (a count of 64 bytes per miss), and a prefetcher
	 * that hides 30% of the L2 misses (Fig. 14–15) still reads as L2-miss */
	double b[64], v[64];
	size_t n = synth_steps(0xc, 0, b, v);
	for (size_t i = 0; i < n; i++)
		v[i] *= 64 * (b[i] > 262144 && b[i] <= 33554432 ? 0.7 : 1);
	pmcf_categorize_cache_match m = PMCF_CATEGORIZE_CACHE_MATCH_INIT;
	assert_int_equal(pmcf_categorize_cache_classify(&three, b, v, n, 0, &m), 0);
	assert_string_equal(m.category, "L2-miss");
	assert_true(m.confidence > 0.6);
	/* a sweep that never leaves L1: no plateau beyond, no category */
	assert_int_equal(pmcf_categorize_cache_classify(&three, b, v, 3, 0, &m), 0);
	assert_string_equal(m.category, "none");
	/* bad input */
	pmcf_categorize_levels none = {0, 0, {0}, {""}};
	assert_int_equal(pmcf_categorize_cache_classify(&none, b, v, n, 0, &m), PMCF_EINVAL);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_levels_sysfs(void **state)
{
	(void)state;
	const char *tmp = getenv("PMCF_TEST_TMP");
	if (!tmp) {
		printf("skipped: PMCF_TEST_TMP is not set (run through ctest)\n");
		skip();
	}
	char root[512], dir[600], path[700];
	snprintf(root, sizeof(root), "%s/cit_sysfs", tmp);
	mkdir(root, 0777);
	static const char *const idx[][3] = {{"1", "Data", "48K\n"},
					     {"1", "Instruction", "32K\n"},
					     {"2", "Unified", "1024K\n"},
					     {"3", "Unified", "32768K\n"}};
	for (int i = 0; i < 4; i++) {
		snprintf(dir, sizeof(dir), "%s/index%d", root, i);
		mkdir(dir, 0777);
		snprintf(path, sizeof(path), "%s/level", dir);
		write_text(path, idx[i][0]);
		snprintf(path, sizeof(path), "%s/type", dir);
		write_text(path, idx[i][1]);
		snprintf(path, sizeof(path), "%s/size", dir);
		write_text(path, idx[i][2]);
	}
	pmcf_categorize_levels lv = PMCF_CATEGORIZE_LEVELS_INIT;
	assert_int_equal(pmcf_categorize_levels_sysfs(root, &lv), 0);
	assert_int_equal(lv.n, 3);
	assert_true(lv.bytes[0] == 49152 && lv.bytes[1] == 1048576 && lv.bytes[2] == 33554432);
	assert_string_equal(lv.name[0], "L1D");
	assert_string_equal(lv.name[1], "L2");
	assert_string_equal(lv.name[2], "LL");
	snprintf(path, sizeof(path), "%s/missing", root);
	assert_int_equal(pmcf_categorize_levels_sysfs(path, &lv), PMCF_ENOENT);
}

static void test_report_from(void **state)
{
	(void)state;
	/* two events over both sweeps: Bc-like (CR, flat in the chase) and
	 * D1mr-like (zero in the branch kernels, L1D-miss) */
	static const pmcf_categorize_levels two = {0, 2, {32768, 8388608}, {"L1D", "LL"}};
	const char *ev[] = {"Bc", "D1mr", "Ir"};
	double it[3] = {1e4, 2e4, 3e4};
	double counts[3 * 7 * 3];
	for (int k = 0; k < 7; k++)
		for (int p = 0; p < 3; p++) {
			counts[(0 * 7 + k) * 3 + p] = (k == 6 ? 1 : 2) * it[p] + 50;
			counts[(1 * 7 + k) * 3 + p] = 3;
			counts[(2 * 7 + k) * 3 + p] = (10 + k) * it[p];
		}
	double bytes[14], pa[3 * 14];
	for (int s = 0; s < 14; s++) {
		bytes[s] = 4096.0 * (1 << s);
		pa[0 * 14 + s] = 1;
		pa[1 * 14 + s] = bytes[s] > 32768 ? 1 : 0;
		pa[2 * 14 + s] = 3;
	}
	pmcf_categorize_report *r;
	assert_int_equal(pmcf_categorize_report_from("test", &two, ev, 3, it, 3, counts, bytes, 14, pa, 0,
						     &r),
			 0);
	assert_int_equal(pmcf_categorize_report_size(r), 3);
	assert_string_equal(pmcf_categorize_report_at(r, 0)->category, "CR");
	assert_string_equal(pmcf_categorize_report_at(r, 1)->category, "L1D-miss");
	assert_string_equal(pmcf_categorize_report_at(r, 2)->category, "none");
	assert_true(fabs(pmcf_categorize_report_at(r, 0)->fit[6].slope - 1) < 1e-9);
	assert_null(pmcf_categorize_report_at(r, 3));
	const double *b;
	assert_int_equal(pmcf_categorize_report_sizes(r, &b), 14);
	assert_true(b[13] == 4096.0 * 8192);
	pmcf_categorize_report_free(r);
	/* branch part only */
	assert_int_equal(pmcf_categorize_report_from("test", NULL, ev, 1, it, 3, counts, NULL, 0, NULL, 0,
						     &r),
			 0);
	assert_string_equal(pmcf_categorize_report_at(r, 0)->category, "CR");
	pmcf_categorize_report_free(r);
	/* one point cannot make a slope */
	assert_int_equal(pmcf_categorize_report_from("test", NULL, ev, 1, it, 1, counts, NULL, 0, NULL, 0,
						     &r),
			 PMCF_EINVAL);
}

static void test_run_bad_input(void **state)
{
	(void)state;
	pmcf_categorize_options o;
	pmcf_categorize_options_init(&o, "cachegrind");
	assert_string_equal(o.backend, "cachegrind");
	assert_true(o.iterations == 20000 && o.points == 4 && o.unit == 64);
	const char *ev[] = {"Bc"};
	pmcf_categorize_report *r;
	o.points = 1;
	assert_int_equal(pmcf_categorize_run(&o, ev, 1, &r), PMCF_EINVAL);
	pmcf_categorize_options_init(&o, "cachegrind");
	o.kernels = "/nonexistent/pmcfuse-categorize-kernels";
	assert_int_equal(pmcf_categorize_run(&o, ev, 1, &r), PMCF_ENOENT);
	assert_non_null(strstr(pmcf_errdetail(), "PMCF_CATEGORIZE_KERNELS"));
	o.backend = "oprofile";
	assert_int_equal(pmcf_categorize_run(&o, ev, 1, &r), PMCF_EINVAL);
	pmcf_catalog *c;
	assert_int_equal(pmcf_categorize_catalog("cachegrind", &c), 0);
	assert_true(pmcf_catalog_find(c, "Bcm") >= 0 && pmcf_catalog_find(c, "DLmr") >= 0);
	pmcf_catalog_free(c);
	assert_int_equal(pmcf_categorize_catalog("oprofile", &c), PMCF_EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fit_line),      cmocka_unit_test(test_goodness),
		cmocka_unit_test(test_table1),        cmocka_unit_test(test_branch_rows_with_noise),
		cmocka_unit_test(test_branch_table),  cmocka_unit_test(test_branch_pure_noise),
		cmocka_unit_test(test_cache_table),   cmocka_unit_test(test_cache_scale_and_prefetch),
		cmocka_unit_test(test_levels_sysfs),  cmocka_unit_test(test_report_from),
		cmocka_unit_test(test_run_bad_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
