/* Unit tests of the exact EMD (src/evaluate/emd.c): 1-D closed forms,
 * permutations, zero distance, one point against many, symmetry, agreement
 * with a brute-force vertex enumeration on tiny problems, the fallback
 * solver, both initial bases, degenerate grids, cancelled and zero
 * masses, and bad input. */
#include <errno.h>
#include <math.h>
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
#include "evaluate/emd_impl.h"
#include "pmcfuse/evaluate.h"

static uint64_t rng = 12345;
static double urand(void) { return (double)(pmcfi_splitmix64(&rng) >> 11) / 9007199254740992.0; }

static double emd(pmcf_emd_ws *ws, size_t dim, const double *wa, const double *xa, size_t na,
		  const double *wb, const double *xb, size_t nb)
{
	double v = -1;
	assert_int_equal(pmcf_emd(ws, dim, wa, xa, na, wb, xb, nb, &v), 0);
	return v;
}

/* 1-D: EMD = integral of |F_a - F_b| (weights sum to 1). */
static double closed_form_1d(const double *wa, const double *xa, size_t na, const double *wb,
			     const double *xb, size_t nb)
{
	double xs[64];
	size_t nx = 0;
	for (size_t i = 0; i < na; i++)
		xs[nx++] = xa[i];
	for (size_t j = 0; j < nb; j++)
		xs[nx++] = xb[j];
	for (size_t i = 1; i < nx; i++)
		for (size_t k = i; k > 0 && xs[k] < xs[k - 1]; k--) {
			double t = xs[k];
			xs[k] = xs[k - 1];
			xs[k - 1] = t;
		}
	double s = 0;
	for (size_t k = 0; k + 1 < nx; k++) {
		double fa = 0, fb = 0;
		for (size_t i = 0; i < na; i++)
			fa += xa[i] <= xs[k] ? wa[i] : 0;
		for (size_t j = 0; j < nb; j++)
			fb += xb[j] <= xs[k] ? wb[j] : 0;
		s += fabs(fa - fb) * (xs[k + 1] - xs[k]);
	}
	return s;
}

static void random_weights(double *w, size_t n)
{
	double t = 0;
	for (size_t i = 0; i < n; i++)
		t += w[i] = urand() + 0.01;
	for (size_t i = 0; i < n; i++)
		w[i] /= t;
}

static void test_1d_closed_form(void **state)
{
	(void)state;
	pmcf_emd_ws *ws;
	assert_int_equal(pmcf_emd_ws_new(&ws), 0);
	for (int rep = 0; rep < 200; rep++) {
		size_t na = 1 + pmcfi_splitmix64(&rng) % 20, nb = 1 + pmcfi_splitmix64(&rng) % 20;
		double wa[20], wb[20], xa[20], xb[20];
		random_weights(wa, na);
		random_weights(wb, nb);
		for (size_t i = 0; i < na; i++)
			xa[i] = floor(urand() * 10); /* shared locations are common */
		for (size_t j = 0; j < nb; j++)
			xb[j] = floor(urand() * 10);
		double want = closed_form_1d(wa, xa, na, wb, xb, nb);
		assert_true(fabs(emd(ws, 1, wa, xa, na, wb, xb, nb) - want) < 1e-9);
	}
	/* a golden row: mass 1/2 at 0 and 1/2 at 2 against all at 1 */
	double wa[] = {0.5, 0.5}, xa[] = {0, 2}, wb[] = {1}, xb[] = {1};
	assert_true(fabs(emd(ws, 1, wa, xa, 2, wb, xb, 1) - 1.0) < 1e-12);
	pmcf_emd_ws_free(ws);
}

static void test_permutation_symmetry_zero(void **state)
{
	(void)state;
	pmcf_emd_ws *ws;
	assert_int_equal(pmcf_emd_ws_new(&ws), 0);
	for (int rep = 0; rep < 50; rep++) {
		size_t na = 2 + pmcfi_splitmix64(&rng) % 40, nb = 2 + pmcfi_splitmix64(&rng) % 40;
		double wa[42], wb[42], xa[84], xb[84], pwa[42], pxa[84];
		random_weights(wa, na);
		random_weights(wb, nb);
		for (size_t i = 0; i < 2 * na; i++)
			xa[i] = urand() * 12 - 1;
		for (size_t j = 0; j < 2 * nb; j++)
			xb[j] = urand() * 12 - 1;
		double v = emd(ws, 2, wa, xa, na, wb, xb, nb);
		assert_true(v > 0);
		/* symmetry */
		assert_true(fabs(emd(ws, 2, wb, xb, nb, wa, xa, na) - v) < 1e-9);
		/* reversed order of a's points */
		for (size_t i = 0; i < na; i++) {
			pwa[i] = wa[na - 1 - i];
			pxa[2 * i] = xa[2 * (na - 1 - i)];
			pxa[2 * i + 1] = xa[2 * (na - 1 - i) + 1];
		}
		assert_true(fabs(emd(ws, 2, pwa, pxa, na, wb, xb, nb) - v) < 1e-9);
		/* zero distance to itself, and to itself in another order */
		assert_true(emd(ws, 2, wa, xa, na, wa, xa, na) == 0.0);
		assert_true(fabs(emd(ws, 2, pwa, pxa, na, wa, xa, na)) < 1e-12);
		/* scaling both weight sets does not change the value */
		double swa[42], swb[42];
		for (size_t i = 0; i < na; i++)
			swa[i] = wa[i] * 1000;
		for (size_t j = 0; j < nb; j++)
			swb[j] = wb[j] * 1000;
		assert_true(fabs(emd(ws, 2, swa, xa, na, swb, xb, nb) - v) < 1e-9);
	}
	pmcf_emd_ws_free(ws);
}

static void test_one_against_many(void **state)
{
	(void)state;
	double wa[] = {1}, xa[] = {1, 1};
	double wb[5], xb[10];
	random_weights(wb, 5);
	double want = 0;
	for (size_t j = 0; j < 5; j++) {
		xb[2 * j] = urand() * 5;
		xb[2 * j + 1] = urand() * 5;
		want += wb[j] * hypot(xb[2 * j] - 1, xb[2 * j + 1] - 1);
	}
	assert_true(fabs(emd(NULL, 2, wa, xa, 1, wb, xb, 5) - want) < 1e-12);
	assert_true(fabs(emd(NULL, 2, wb, xb, 5, wa, xa, 1) - want) < 1e-12);
}

static double emd_start(pmcf_emd_ws *ws, const double *wa, const double *xa, size_t na, const double *wb,
			const double *xb, size_t nb, int start)
{
	double v = -1;
	assert_int_equal(pmcfi_emd_start(ws, 2, wa, xa, na, wb, xb, nb, start, &v), 0);
	return v;
}

/* Brute force: the optimum of a transportation problem is at a basic
 * solution; enumerate every set of m+n-1 arcs, solve it as a tree by peeling
 * leaves, keep the cheapest feasible one. */
static double brute_force(const double *s, size_t m, const double *d, size_t n, const double *c)
{
	size_t na = m * n, k = m + n - 1;
	double best = INFINITY;
	for (uint32_t mask = 0; mask < (1u << na); mask++) {
		if ((size_t)__builtin_popcount(mask) != k)
			continue;
		double rem[8], flow[16];
		int used[16] = {0};
		for (size_t i = 0; i < m; i++)
			rem[i] = s[i];
		for (size_t j = 0; j < n; j++)
			rem[m + j] = d[j];
		size_t left = k;
		int ok = 1;
		while (left && ok) {
			ok = 0;
			for (size_t v = 0; v < m + n && !ok; v++) {
				int cnt = 0, arc = -1;
				for (size_t e = 0; e < na; e++) {
					if (!(mask & (1u << e)) || used[e])
						continue;
					size_t i = e / n, j = e % n;
					if (i == v || m + j == v) {
						cnt++;
						arc = (int)e;
					}
				}
				if (cnt == 1) {
					size_t i = (size_t)arc / n, j = (size_t)arc % n;
					double f = rem[v];
					flow[arc] = f;
					used[arc] = 1;
					rem[i] -= f;
					rem[m + j] -= f;
					left--;
					ok = 1;
				}
			}
		}
		if (left)
			continue; /* not a tree */
		double cost = 0;
		int feasible = 1;
		for (size_t e = 0; e < na; e++)
			if (mask & (1u << e)) {
				if (flow[e] < -1e-12)
					feasible = 0;
				cost += flow[e] * c[e];
			}
		if (feasible && cost < best)
			best = cost;
	}
	return best;
}

static void test_brute_force(void **state)
{
	(void)state;
	pmcf_emd_ws *ws;
	assert_int_equal(pmcf_emd_ws_new(&ws), 0);
	for (int rep = 0; rep < 300; rep++) {
		size_t m = 2 + pmcfi_splitmix64(&rng) % 3, n = 2 + pmcfi_splitmix64(&rng) % 3;
		if (m * n > 12)
			n = 12 / m;
		double wa[4], wb[4], xa[8], xb[8], c[16];
		random_weights(wa, m);
		random_weights(wb, n);
		for (size_t i = 0; i < 2 * m; i++)
			xa[i] = floor(urand() * 4); /* ties and degeneracy */
		for (size_t j = 0; j < 2 * n; j++)
			xb[j] = floor(urand() * 4);
		for (size_t i = 0; i < m; i++)
			for (size_t j = 0; j < n; j++)
				c[i * n + j] = hypot(xa[2 * i] - xb[2 * j], xa[2 * i + 1] - xb[2 * j + 1]);
		double want = brute_force(wa, m, wb, n, c);
		double got = emd(ws, 2, wa, xa, m, wb, xb, n);
		assert_true(fabs(got - want) < 1e-9);
		assert_true(fabs(emd_start(ws, wa, xa, m, wb, xb, n, PMCFI_EMD_START_ROWMIN) - want) < 1e-9);
		ws->max_pivots = -1; /* the fallback alone */
		assert_true(fabs(emd(ws, 2, wa, xa, m, wb, xb, n) - want) < 1e-9);
		ws->max_pivots = 0;
	}
	pmcf_emd_ws_free(ws);
}

/* Large and degenerate problems: the network simplex, the fallback after a
 * few pivots and the fallback alone agree. */
static void test_fallback_agrees(void **state)
{
	(void)state;
	pmcf_emd_ws *ws;
	assert_int_equal(pmcf_emd_ws_new(&ws), 0);
	static double wa[144], wb[144], xa[288], xb[288];
	for (int rep = 0; rep < 12; rep++) {
		size_t m = rep < 6 ? 144 : 30, n = rep < 6 ? 144 : 50;
		random_weights(wa, m);
		random_weights(wb, n);
		for (size_t i = 0; i < m; i++) {
			/* a 12x12 grid (many equal costs) or jittered centroids */
			xa[2 * i] = (double)(i % 12) + (rep % 2 ? urand() - 0.5 : 0);
			xa[2 * i + 1] = (double)(i / 12 % 12) + (rep % 2 ? urand() - 0.5 : 0);
		}
		for (size_t j = 0; j < n; j++) {
			xb[2 * j] = (double)(j % 12) + (rep % 2 ? urand() - 0.5 : 0);
			xb[2 * j + 1] = (double)((j + 5) / 12 % 12) + (rep % 2 ? urand() - 0.5 : 0);
		}
		ws->max_pivots = 0;
		double v = emd(ws, 2, wa, xa, m, wb, xb, n);
		assert_int_equal(ws->fallback, 0);
		ws->max_pivots = 5;
		double f = emd(ws, 2, wa, xa, m, wb, xb, n);
		assert_int_equal(ws->fallback, 1);
		ws->max_pivots = -1;
		double g = emd(ws, 2, wa, xa, m, wb, xb, n);
		assert_true(fabs(v - f) < 1e-9 * (1 + v));
		assert_true(fabs(v - g) < 1e-9 * (1 + v));
	}
	pmcf_emd_ws_free(ws);
}

/* Ties everywhere (integer grid points, equal masses, duplicated points on
 * one side), zero-mass points and identical locations partly cancelled:
 * brute force on the problem as given, both starts, and the fallback. */
static void test_degenerate_starts(void **state)
{
	(void)state;
	pmcf_emd_ws *ws;
	assert_int_equal(pmcf_emd_ws_new(&ws), 0);
	for (int rep = 0; rep < 400; rep++) {
		size_t m = 1 + pmcfi_splitmix64(&rng) % 4, n = 1 + pmcfi_splitmix64(&rng) % 4;
		if (m * n > 12)
			n = 12 / m;
		double wa[4], wb[4], xa[8], xb[8], c[16];
		for (size_t i = 0; i < m; i++)
			wa[i] = rep % 3 ? (double)(pmcfi_splitmix64(&rng) % 3) : 1.0; /* zeros and ties */
		for (size_t j = 0; j < n; j++)
			wb[j] = rep % 3 ? (double)(pmcfi_splitmix64(&rng) % 3) : 1.0;
		double ta = 0, tb = 0;
		for (size_t i = 0; i < m; i++)
			ta += wa[i];
		for (size_t j = 0; j < n; j++)
			tb += wb[j];
		if (ta == 0 || tb == 0)
			continue;
		for (size_t i = 0; i < m; i++)
			wa[i] /= ta;
		for (size_t j = 0; j < n; j++)
			wb[j] /= tb;
		for (size_t i = 0; i < 2 * m; i++)
			xa[i] = floor(urand() * 2); /* few locations: shared and duplicated points */
		for (size_t j = 0; j < 2 * n; j++)
			xb[j] = floor(urand() * 2);
		for (size_t i = 0; i < m; i++)
			for (size_t j = 0; j < n; j++)
				c[i * n + j] = hypot(xa[2 * i] - xb[2 * j], xa[2 * i + 1] - xb[2 * j + 1]);
		double want = brute_force(wa, m, wb, n, c);
		assert_true(fabs(emd_start(ws, wa, xa, m, wb, xb, n, PMCFI_EMD_START_GREEDY) - want) < 1e-9);
		assert_true(fabs(emd_start(ws, wa, xa, m, wb, xb, n, PMCFI_EMD_START_ROWMIN) - want) < 1e-9);
		ws->max_pivots = -1;
		assert_true(fabs(emd(ws, 2, wa, xa, m, wb, xb, n) - want) < 1e-9);
		ws->max_pivots = 0;
	}
	pmcf_emd_ws_free(ws);
}

/* Larger problems with many ties: 12x12 integer grids with equal masses, and
 * histograms with empty and shared bins; both starts agree with the fallback,
 * and the workspace is reused across sizes. */
static void test_starts_agree_large(void **state)
{
	(void)state;
	pmcf_emd_ws *ws;
	assert_int_equal(pmcf_emd_ws_new(&ws), 0);
	static double wa[144], wb[144], xa[288], xb[288];
	for (int rep = 0; rep < 24; rep++) {
		size_t m = rep % 3 == 0 ? 144 : 20 + pmcfi_splitmix64(&rng) % 100;
		size_t n = rep % 3 == 0 ? 144 : 20 + pmcfi_splitmix64(&rng) % 100;
		for (size_t i = 0; i < m; i++) {
			wa[i] = rep % 2 ? 1.0 : (double)(pmcfi_splitmix64(&rng) % 4);
			xa[2 * i] = (double)(i % 12);
			xa[2 * i + 1] = (double)(i / 12 % 12);
		}
		for (size_t j = 0; j < n; j++) {
			wb[j] = rep % 2 ? 1.0 : (double)(pmcfi_splitmix64(&rng) % 4);
			size_t b = (j * 7 + (size_t)rep) % 144;
			xb[2 * j] = (double)(b % 12);
			xb[2 * j + 1] = (double)(b / 12);
		}
		wa[0] += 1; /* never all zero */
		wb[0] += 1;
		double ta = 0, tb = 0;
		for (size_t i = 0; i < m; i++)
			ta += wa[i];
		for (size_t j = 0; j < n; j++)
			tb += wb[j];
		for (size_t j = 0; j < n; j++)
			wb[j] *= ta / tb;
		double g = emd_start(ws, wa, xa, m, wb, xb, n, PMCFI_EMD_START_GREEDY);
		assert_int_equal(ws->fallback, 0);
		double r = emd_start(ws, wa, xa, m, wb, xb, n, PMCFI_EMD_START_ROWMIN);
		assert_int_equal(ws->fallback, 0);
		ws->max_pivots = -1;
		double f = emd(ws, 2, wa, xa, m, wb, xb, n);
		ws->max_pivots = 0;
		assert_true(fabs(g - f) < 1e-9 * (1 + f));
		assert_true(fabs(r - f) < 1e-9 * (1 + f));
	}
	pmcf_emd_ws_free(ws);
}

static void test_bad_input(void **state)
{
	(void)state;
	double w1[] = {1}, x1[] = {0, 0}, w2[] = {0.5, 0.5}, x2[] = {0, 0, 1, 1};
	double neg[] = {1.5, -0.5}, nan2[] = {NAN, 1}, big[] = {1, 1}, zero[] = {0, 0};
	double xnan[] = {0, NAN, 1, 1}, v;
	assert_int_equal(pmcf_emd(NULL, 2, w1, x1, 1, neg, x2, 2, &v), PMCF_EINVAL);
	assert_int_equal(pmcf_emd(NULL, 2, w1, x1, 1, nan2, x2, 2, &v), PMCF_EINVAL);
	assert_int_equal(pmcf_emd(NULL, 2, w1, x1, 1, big, x2, 2, &v), PMCF_EINVAL);
	assert_int_equal(pmcf_emd(NULL, 2, zero, x2, 2, zero, x2, 2, &v), PMCF_EINVAL);
	assert_int_equal(pmcf_emd(NULL, 2, w1, x1, 1, w2, xnan, 2, &v), PMCF_EINVAL);
	assert_int_equal(pmcf_emd(NULL, 2, w1, x1, 0, w2, x2, 2, &v), PMCF_EINVAL);
	assert_int_equal(pmcf_emd(NULL, 0, w1, x1, 1, w2, x2, 2, &v), PMCF_EINVAL);
	assert_true(strlen(pmcf_errdetail()) > 0);
	/* zero-weight points are fine */
	double w3[] = {1, 0}, x3[] = {0, 0, 100, 100};
	assert_int_equal(pmcf_emd(NULL, 2, w3, x3, 2, w1, x1, 1, &v), 0);
	assert_true(v == 0.0);
}

/* The point files of `pmcfuse emd` (pmcf_emd_read_csv): rows read and
 * normalised, headers and comments skipped, each refusal with its code and
 * the detail naming file and line. */
static void test_read_csv(void **state)
{
	(void)state;
	static const struct {
		int line;
		const char *text; /* NULL: a folder */
		size_t len;       /* 0: strlen(text) */
		int err;
		size_t n;
		const char *detail; /* after the path */
		double w0, x1;      /* first normalised weight, last y */
	} rows[] = {
		{__LINE__, "weight,x,y\n1,0,0\n3,1,2\n", 0, 0, 2, NULL, 0.25, 2},
		{__LINE__, "# c\n\n 1 , 5 , 6 \r\n", 0, 0, 1, NULL, 1, 6},
		{__LINE__, "1,0,0\n-1,1,1\n", 0, PMCF_ESYNTAX, 0, ":2: negative weight", 0, 0},
		{__LINE__, "1,0\n", 0, PMCF_ESYNTAX, 0, ":1: expected 'weight,x,y' with three numbers", 0, 0},
		{__LINE__, "1,0,0\nw,x,y\n", 0, PMCF_ESYNTAX, 0, ":2: expected 'weight,x,y'", 0, 0},
		{__LINE__, "nan,0,0\n", 0, PMCF_ESYNTAX, 0, ":1: weight and coordinates must be finite", 0,
		 0},
		{__LINE__, "", 0, PMCF_ESYNTAX, 0, ": no 'weight,x,y' rows", 0, 0},
		{__LINE__, "0,0,0\n0,1,1\n", 0, PMCF_ESYNTAX, 0, ": the weights sum to 0", 0, 0},
		{__LINE__, "1,0,0\n\0\n", 8, PMCF_ESYNTAX, 0, ":2: a NUL byte: not a text file", 0, 0},
		{__LINE__, NULL, 0, -EISDIR, 0, ": is a directory, not a CSV file", 0, 0},
	};
	const char *tmp = getenv("PMCF_TEST_TMP");
	char path[4096];
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		snprintf(path, sizeof(path), "%s/emd-%zu%s", tmp ? tmp : "/tmp", r,
			 rows[r].text ? ".csv" : "");
		if (rows[r].text) {
			FILE *f = fopen(path, "wb");
			assert_non_null(f);
			size_t len = rows[r].len ? rows[r].len : strlen(rows[r].text);
			assert_int_equal(fwrite(rows[r].text, 1, len, f), len);
			fclose(f);
		} else {
			rmdir(path);
			assert_int_equal(mkdir(path, 0755), 0);
		}
		double *w = (double *)1, *x = (double *)1;
		size_t n = 99;
		int err = pmcf_emd_read_csv(path, &w, &x, &n);
		char want[4200];
		snprintf(want, sizeof(want), "%s%s", path, rows[r].detail ? rows[r].detail : "");
		if (err != rows[r].err || (err && strncmp(pmcf_errdetail(), want, strlen(want)) != 0))
			fail_msg("row %d: got %d '%s', want %d '%s'", rows[r].line, err, pmcf_errdetail(),
				 rows[r].err, want);
		if (err) {
			assert_true(w == NULL && x == NULL && n == 0);
		} else {
			if (n != rows[r].n || fabs(w[0] - rows[r].w0) > 1e-15 || x[2 * n - 1] != rows[r].x1)
				fail_msg("row %d: n %zu, w0 %g, last y %g", rows[r].line, n, w[0],
					 x[2 * n - 1]);
			free(w);
			free(x);
		}
		if (rows[r].text)
			unlink(path);
		else
			rmdir(path);
	}
	double *w, *x;
	size_t n;
	assert_true(pmcf_emd_read_csv("/nonexistent/a.csv", &w, &x, &n) == -ENOENT);
	assert_int_equal(pmcf_emd_read_csv(NULL, &w, &x, &n), PMCF_EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_1d_closed_form),     cmocka_unit_test(test_permutation_symmetry_zero),
		cmocka_unit_test(test_one_against_many),   cmocka_unit_test(test_brute_force),
		cmocka_unit_test(test_fallback_agrees),    cmocka_unit_test(test_degenerate_starts),
		cmocka_unit_test(test_starts_agree_large), cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_read_csv),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
