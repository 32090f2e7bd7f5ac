/* util/: the one quantile (pmcfi_quantile) against a sort-based reference,
 * with its table of small cases. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "util/quantile.h"

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The definition: sorted s, position q·(n-1), linear between neighbours. */
static double reference(const double *v, size_t n, double q)
{
	double *s = malloc(n * sizeof(*s));
	assert_non_null(s);
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp);
	double pos = q * (double)(n - 1);
	size_t i = (size_t)pos;
	double r = i + 1 >= n ? s[n - 1] : s[i] + (pos - (double)i) * (s[i + 1] - s[i]);
	free(s);
	return r;
}

static void test_table(void **state)
{
	(void)state;
	static const struct {
		int line;
		size_t n;
		double v[6], q, want;
	} rows[] = {
		{__LINE__, 1, {7}, 0.5, 7},
		{__LINE__, 2, {3, 1}, 0.5, 2},
		{__LINE__, 4, {4, 1, 3, 2}, 0.5, 2.5},
		{__LINE__, 5, {5, 4, 3, 2, 1}, 0.5, 3},
		{__LINE__, 5, {5, 4, 3, 2, 1}, 0, 1},
		{__LINE__, 5, {5, 4, 3, 2, 1}, 1, 5},
		{__LINE__, 5, {5, 4, 3, 2, 1}, 0.9, 4.6},
		{__LINE__, 6, {2, 2, 2, 9, 2, 2}, 0.5, 2},
		{__LINE__, 6, {0, 10, 20, 30, 40, 50}, 0.25, 12.5},
	};
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		double v[6];
		memcpy(v, rows[r].v, sizeof(v));
		double got = pmcfi_quantile(v, rows[r].n, rows[r].q);
		if (fabs(got - rows[r].want) > 1e-12)
			fail_msg("row %d: got %.17g, want %.17g", rows[r].line, got, rows[r].want);
	}
	assert_true(isnan(pmcfi_quantile(NULL, 0, 0.5)));
	double two[] = {1, 4};
	assert_true(pmcfi_median(two, 2) == 2.5);
}

/* Random arrays with ties: bit-identical to the sort-based definition, and
 * a sorted array stays sorted (the report takes several quantiles of one). */
static void test_random(void **state)
{
	(void)state;
	uint64_t x = 0x9e3779b97f4a7c15ull;
	static const double qs[] = {0, 0.05, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 1};
	for (size_t trial = 0; trial < 200; trial++) {
		size_t n = 1 + trial % 37;
		double v[37], w[37];
		for (size_t i = 0; i < n; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			v[i] = (double)(x % 11) / 4; /* few distinct values: ties */
		}
		for (size_t k = 0; k < sizeof(qs) / sizeof(qs[0]); k++) {
			memcpy(w, v, n * sizeof(*w));
			double got = pmcfi_quantile(w, n, qs[k]), want = reference(v, n, qs[k]);
			if (got != want)
				fail_msg("trial %zu, n %zu, q %g: got %.17g, want %.17g", trial, n, qs[k],
					 got, want);
		}
		qsort(v, n, sizeof(*v), cmp);
		for (size_t k = 0; k < sizeof(qs) / sizeof(qs[0]); k++)
			pmcfi_quantile(v, n, qs[k]);
		for (size_t i = 1; i < n; i++)
			if (v[i - 1] > v[i])
				fail_msg("trial %zu: a sorted array is no longer sorted at %zu", trial, i);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_random),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
