/* Unit tests of the "match" strategy (src/combine/match.c): the exact
 * assignment on hand cases where greedy pairing is wrong, the information
 * weighting of the linking events (an uninformative linking event with a
 * large spread must not decide the pairing), a run-level shift, the k-d
 * split over many XUs, and surplus XUs; --impute K (impute.c): the median
 * of the K nearest XUs instead of the paired XU's value, and the rank mode
 * (the paired XUs' values dealt out in the neighbours' order). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "combine/combine_impl.h"
#include "combine/match.h"
#include "pmcfuse/combine.h"
#include "pmcfuse/profile.h"

/* Assignment rows -> columns of a hand case, rowof as pmcfi_cmb_match_assign's. */
struct acase {
	int line;
	size_t nr, nc;
	double cost[16];
	int32_t want[4]; /* the column (0-based) of each row */
};

static const struct acase ACASES[] = {
	/* greedy takes (0,0) = 1 and leaves (1,1) = 100: 101; best 2 + 2 */
	{__LINE__, 2, 2, {1, 2, 2, 100}, {1, 0}},
	/* 3 x 3: the diagonal is 3 x 5 = 15, the best 1 + 2 + 3 = 6 */
	{__LINE__, 3, 3, {5, 1, 9, 9, 5, 2, 3, 9, 5}, {1, 2, 0}},
	/* rectangular: two rows, three columns; column 0 left free */
	{__LINE__, 2, 3, {4, 1, 3, 2, 0, 5}, {1, 0}},
	/* ties everywhere but one cheap anti-diagonal */
	{__LINE__, 3, 3, {7, 7, 0, 7, 0, 7, 0, 7, 7}, {2, 1, 0}},
};

static void test_assign_hand_cases(void **state)
{
	(void)state;
	for (size_t t = 0; t < sizeof(ACASES) / sizeof(ACASES[0]); t++) {
		const struct acase *a = &ACASES[t];
		double ws[4 * 5];
		int32_t rowof[2 * 5];
		assert_int_equal(pmcfi_cmb_match_assign(a->cost, a->nr, a->nc, ws, rowof), 0);
		for (size_t c = 1; c <= a->nc; c++)
			if (rowof[c]) {
				size_t r = (size_t)rowof[c] - 1;
				if ((size_t)a->want[r] != c - 1)
					fail_msg("row %d: row %zu got column %zu, want %d", a->line, r, c - 1,
						 a->want[r]);
			}
		for (size_t r = 0; r < a->nr; r++) {
			int found = 0;
			for (size_t c = 1; c <= a->nc; c++)
				found |= rowof[c] == (int32_t)(r + 1);
			if (!found)
				fail_msg("row %d: row %zu left unassigned", a->line, r);
		}
	}
	double ws[20];
	int32_t rowof[10];
	const double c[6] = {0};
	assert_int_equal(pmcfi_cmb_match_assign(c, 3, 2, ws, rowof), -1); /* more rows than columns */
}

/* The metric: y depends on x0 only, so x1 gets (almost) no weight. */
static void test_metric_weights(void **state)
{
	(void)state;
	enum { N = 40 };
	double x[N * 2], y[N], l[4], ws[4 * 4 + 2 * 2 + 2 + 1];
	for (size_t q = 0; q < N; q++) {
		x[q * 2] = (double)q / N;
		x[q * 2 + 1] = (double)((q * 17) % N) / N; /* uncorrelated with q */
		y[q] = 3 * x[q * 2];
	}
	assert_int_equal(pmcfi_cmb_match_metric(x, y, N, 2, 1, l, ws), 0);
	/* M = L L^T: M00 = l00^2, M11 = l10^2 + l11^2 */
	double m00 = l[0] * l[0], m11 = l[2] * l[2] + l[3] * l[3];
	assert_true(m00 > 8.5 && m00 < 9.5);
	assert_true(m11 < 0.05 * m00);
}

/* ---- end to end through pmcf_combine ------------------------------------- */

static pmcf_profile *mk(const char *const *events, size_t ne, const double *v, size_t nx,
			const char *const *labels)
{
	pmcf_profile *p;
	assert_int_equal(pmcf_profile_new(&p), 0);
	assert_int_equal(pmcf_profile_meta_set(p, PMCF_META_PROGRAM, "prog"), 0);
	uint32_t t;
	assert_int_equal(pmcf_profile_type_add(p, PMCF_XU_TASK, "a", "", &t), 0);
	for (size_t e = 0; e < ne; e++)
		assert_int_equal(pmcf_profile_event_add(p, events[e], NULL), 0);
	for (size_t i = 0; i < nx; i++) {
		pmcf_xu xu = {.type = 0,
			      .start_ns = 10 * i,
			      .end_ns = 10 * i + (uint64_t)v[i * ne],
			      .label = labels[i],
			      .parent_label = ""};
		size_t k;
		assert_int_equal(pmcf_profile_xu_add(p, &xu, &k), 0);
		for (size_t e = 0; e < ne; e++)
			assert_int_equal(pmcf_profile_value_set(p, k, e, v[i * ne + e]), 0);
	}
	return p;
}

static unsigned impute; /* opts.impute of fuse() */

static pmcf_profile *fuse(int strategy, pmcf_profile *a, pmcf_profile *b, pmcf_combine_stats *st)
{
	pmcf_profile *in[2] = {a, b};
	pmcf_combine_opts o = PMCF_COMBINE_OPTS_INIT;
	o.strategy = strategy;
	o.impute = impute;
	pmcf_profile *out = NULL;
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	int err = pmcf_combine((const pmcf_profile *const *)in, 2, &o, &out, st);
	if (err)
		fail_msg("combine failed: %s (%s)", pmcf_strerror(err), pmcf_errdetail());
	return out;
}

/* Source XU in input 1 of fused XU f, through event e2's provenance. */
static int64_t partner(const pmcf_profile *p, size_t f)
{
	long e = pmcf_profile_event_find(p, "e2");
	int32_t s;
	int64_t x;
	assert_int_equal(pmcf_profile_provenance_get(p, f, (size_t)e, &s, &x), 0);
	return x;
}

static const char *const LAB[] = {"0.0", "0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9"};

/* Ten XUs with a hidden state h (their durations); input 1 is a
 * permutation, 1.5x slower (a run-level shift), with an unrelated "junk"
 * linking event of large spread; e2 follows the state. The right pairing
 * (same label) follows the durations; an unweighted distance over
 * (duration, junk) would follow junk. */
static void test_weighting_and_shift(void **state)
{
	(void)state;
	enum { N = 10 };
	static const double h[N] = {100, 130, 170, 220, 290, 380, 500, 650, 850, 1100};
	static const double j0[N] = {9000, 10, 4000, 600, 50, 7000, 300, 2000, 80, 1000};
	static const double j1[N] = {20, 8000, 500, 30, 6000, 900, 70, 3000, 400, 1500};
	static const size_t perm[N] = {7, 2, 9, 0, 5, 3, 8, 1, 6, 4}; /* input 1 XU q is label perm[q] */
	const char *const ea[] = {"duration", "junk", "e1"}, *const eb[] = {"duration", "junk", "e2"};
	double va[N * 3], vb[N * 3];
	const char *lb[N];
	for (size_t i = 0; i < N; i++) {
		va[i * 3] = h[i];
		va[i * 3 + 1] = j0[i];
		va[i * 3 + 2] = 2 * h[i];
	}
	for (size_t q = 0; q < N; q++) {
		size_t i = perm[q];
		vb[q * 3] = 1.5 * h[i];
		vb[q * 3 + 1] = j1[q];
		vb[q * 3 + 2] = 7 * h[i] * (1 + 0.01 * (double)(q % 3));
		lb[q] = LAB[i];
	}
	pmcf_profile *a = mk(ea, 3, va, N, LAB), *b = mk(eb, 3, vb, N, lb);
	pmcf_combine_stats st;
	pmcf_profile *f = fuse(PMCF_COMBINE_MATCH, a, b, &st);
	assert_int_equal(pmcf_profile_nxus(f), N);
	assert_int_equal(st.complete_xus, N);
	for (size_t i = 0; i < N; i++) {
		int64_t x = partner(f, i);
		assert_true(x >= 0 && x < N);
		if (perm[x] != i)
			fail_msg("XU %zu (label %s) paired with input 1's XU %lld (label %s)", i, LAB[i],
				 (long long)x, LAB[perm[x]]);
	}
	pmcf_profile_free(f);
	pmcf_profile_free(a);
	pmcf_profile_free(b);
}

/* 600 XUs (many k-d leaves): input 1 is a permutation of input 0 on two
 * linking events with distinct values; every XU must find its twin. */
static void test_split_exact(void **state)
{
	(void)state;
	enum { N = 600 };
	const char *const ea[] = {"duration", "ins", "e1"}, *const eb[] = {"duration", "ins", "e2"};
	double *va = malloc(N * 3 * sizeof(double)), *vb = malloc(N * 3 * sizeof(double));
	const char **la = malloc(N * sizeof(char *)), **lbl = malloc(N * sizeof(char *));
	char(*names)[16] = malloc(N * sizeof(*names));
	assert_non_null(va);
	assert_non_null(vb);
	assert_non_null(la);
	assert_non_null(lbl);
	assert_non_null(names);
	for (size_t i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "0.%zu", i);
		la[i] = names[i];
		double d = 1000 + 37 * (double)((i * 7919) % N) + (double)i / N;
		double ins = 50 + (double)((i * 104729) % 97) + (double)i / N;
		va[i * 3] = d;
		va[i * 3 + 1] = ins;
		va[i * 3 + 2] = 1;
		size_t q = (i * 211) % N; /* 211 is prime to 600: a permutation */
		vb[q * 3] = d;
		vb[q * 3 + 1] = ins;
		vb[q * 3 + 2] = d * sqrt(ins);
		lbl[q] = names[i];
	}
	pmcf_profile *a = mk(ea, 3, va, N, la), *b = mk(eb, 3, vb, N, lbl);
	pmcf_combine_stats st;
	pmcf_profile *f = fuse(PMCF_COMBINE_MATCH, a, b, &st);
	size_t wrong = 0;
	for (size_t i = 0; i < N; i++)
		wrong += partner(f, i) != (int64_t)((i * 211) % N);
	assert_int_equal(wrong, 0);
	pmcf_profile_free(f);
	pmcf_profile_free(a);
	pmcf_profile_free(b);
	free(va);
	free(vb);
	free(la);
	free(lbl);
	free(names);
}

/* Input 1 has one XU more: it stays as a surplus XU with e1 missing. */
static void test_surplus(void **state)
{
	(void)state;
	const char *const ea[] = {"duration", "e1"}, *const eb[] = {"duration", "e2"};
	const double va[] = {100, 1, 200, 2, 300, 3};
	const double vb[] = {305, 30, 99, 10, 5000, 99, 198, 20};
	const char *const lb[] = {"0.2", "0.0", "0.9", "0.1"};
	pmcf_profile *a = mk(ea, 2, va, 3, LAB), *b = mk(eb, 2, vb, 4, lb);
	pmcf_combine_stats st;
	pmcf_profile *f = fuse(PMCF_COMBINE_MATCH, a, b, &st);
	assert_int_equal(st.xus, 4);
	assert_int_equal(st.partial_xus, 1);
	assert_int_equal(partner(f, 0), 1);
	assert_int_equal(partner(f, 1), 3);
	assert_int_equal(partner(f, 2), 0);
	assert_int_equal(partner(f, 3), 2);
	assert_true(pmcf_is_missing(pmcf_profile_value(f, 3, (size_t)pmcf_profile_event_find(f, "e1"))));
	pmcf_profile_free(f);
	pmcf_profile_free(a);
	pmcf_profile_free(b);
}

static void test_name(void **state)
{
	(void)state;
	assert_int_equal(pmcf_strategy_parse("match"), PMCF_COMBINE_MATCH);
	assert_string_equal(pmcf_strategy_name(PMCF_COMBINE_MATCH), "match");
	assert_int_equal(pmcf_strategy_ordered(PMCF_COMBINE_MATCH), 1);
}

/* --impute K (impute.c): input 0's XU (e0 = 100) pairs with input 1's XU
 * e0 = 100, whose e2 is 50; the nearest on e0 are 100, 101, 99, 102, 98
 * (e2 50, 10, 12, 14, 16), and two far XUs (e0 ~ 10000, e2 999) are
 * never among them. Copying gives 50; the median of the 3 nearest 12, of
 * the 5 nearest 14; provenance: input 1, XU -1; input 1's own (surplus)
 * XUs keep their values. */
static void test_impute_median(void **state)
{
	(void)state;
	static const char *const ea[] = {"e0", "e1"}, *const eb[] = {"e0", "e2"};
	static const double va[] = {100, 7};
	static const double vb[] = {10000, 999, 98, 16, 102, 14, 100, 50, 99, 12, 101, 10, 10050, 999};
	static const char *const lb[] = {"0.0", "0.1", "0.2", "0.3", "0.4", "0.5", "0.6"};
	static const struct {
		int strategy;
		unsigned k;
		double want;
	} cases[] = {
		{PMCF_COMBINE_BC, 0, 50},    {PMCF_COMBINE_BC, 3, 12},  {PMCF_COMBINE_BC, 5, 14},
		{PMCF_COMBINE_MATCH, 5, 14}, {PMCF_COMBINE_BC, 64, 16}, /* 7 XUs: 10 12 14 16 50 999 999 */
	};
	pmcf_profile *a = mk(ea, 2, va, 1, LAB), *b = mk(eb, 2, vb, 7, lb);
	for (size_t t = 0; t < sizeof(cases) / sizeof(cases[0]); t++) {
		pmcf_combine_stats st;
		impute = cases[t].k;
		pmcf_profile *f = fuse(cases[t].strategy, a, b, &st);
		size_t e2 = (size_t)pmcf_profile_event_find(f, "e2");
		assert_int_equal(pmcf_profile_nxus(f), 7);
		if (pmcf_profile_value(f, 0, e2) != cases[t].want)
			fail_msg("case %zu: e2 %g, want %g", t, pmcf_profile_value(f, 0, e2), cases[t].want);
		int32_t s;
		int64_t x;
		assert_int_equal(pmcf_profile_provenance_get(f, 0, e2, &s, &x), 0);
		assert_int_equal(s, 1);
		assert_int_equal(x, cases[t].k ? -1 : 3); /* imputed: no single XU */
		const char *m = pmcf_profile_meta_get(f, "combine_impute");
		if (cases[t].k)
			assert_int_equal(strtoul(m ? m : "0", NULL, 10), cases[t].k);
		else
			assert_null(m);
		for (size_t g = 1; g < 7; g++) { /* input 1's own XUs: copies */
			assert_int_equal(pmcf_profile_provenance_get(f, g, e2, &s, &x), 0);
			assert_true(s == 1 && x >= 0);
			assert_true(pmcf_profile_value(f, g, e2) == pmcf_profile_value(b, (size_t)x, 1));
		}
		pmcf_profile_free(f);
	}
	/* not for an unordered strategy, nor beyond 64 */
	pmcf_profile *in[2] = {a, b}, *out = NULL;
	pmcf_combine_opts o = PMCF_COMBINE_OPTS_INIT;
	o.strategy = PMCF_COMBINE_RANDOM;
	o.impute = 5;
	assert_int_equal(pmcf_combine((const pmcf_profile *const *)in, 2, &o, &out, NULL), PMCF_EINVAL);
	o.strategy = PMCF_COMBINE_BC;
	o.impute = 65;
	assert_int_equal(pmcf_combine((const pmcf_profile *const *)in, 2, &o, &out, NULL), PMCF_EINVAL);
	assert_null(out);
	impute = 0;
	pmcf_profile_free(a);
	pmcf_profile_free(b);
}

static pmcf_profile *fuse_mode(pmcf_profile *a, pmcf_profile *b, unsigned k, int mode)
{
	pmcf_profile *in[2] = {a, b}, *out = NULL;
	pmcf_combine_opts o = PMCF_COMBINE_OPTS_INIT;
	o.impute = k;
	o.impute_mode = mode;
	int err = pmcf_combine((const pmcf_profile *const *)in, 2, &o, &out, NULL);
	if (err)
		fail_msg("combine failed: %s (%s)", pmcf_strerror(err), pmcf_errdetail());
	return out;
}

static int cmp_d(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

/* --impute-mode rank: 40 XUs; input 1's linking value e0 is input 0's plus
 * 3 (so no exact twin), and its e2 follows e0 (100 + 5 q) plus noise of
 * +-40. bc copies the paired XU's e2 (truth + noise); the median of the 9
 * nearest cuts the noise but shrinks the column (its range lies inside the
 * copies'); rank deals the copies out in the neighbours' order: the column
 * is exactly bc's values (sorted, equal), closer to the truth than bc's,
 * every value with provenance (input 1, XU -1). */
static void test_impute_rank_keeps_distribution(void **state)
{
	(void)state;
	enum { N = 40 };
	static const char *const ea[] = {"e0", "e1"}, *const eb[] = {"e0", "e2"};
	double va[N * 2], vb[N * 2], truth[N];
	char names[N][16];
	const char *la[N];
	for (size_t q = 0; q < N; q++) {
		snprintf(names[q], sizeof(names[q]), "0.%zu", q);
		la[q] = names[q];
		va[q * 2] = 1000 + 10 * (double)q;
		va[q * 2 + 1] = 1;
		vb[q * 2] = va[q * 2] + 3;
		truth[q] = 100 + 5 * (double)q;
		vb[q * 2 + 1] = truth[q] + 20 * (double)((int)((q * 7) % 5) - 2);
	}
	pmcf_profile *a = mk(ea, 2, va, N, la), *b = mk(eb, 2, vb, N, la);
	pmcf_profile *fb = fuse_mode(a, b, 0, PMCF_IMPUTE_MEDIAN);
	pmcf_profile *fm = fuse_mode(a, b, 9, PMCF_IMPUTE_MEDIAN);
	pmcf_profile *fr = fuse_mode(a, b, 9, PMCF_IMPUTE_RANK);
	size_t e2 = (size_t)pmcf_profile_event_find(fr, "e2");
	assert_int_equal(pmcf_profile_nxus(fr), N);
	double cb[N], cm[N], cr[N], eb_ = 0, er = 0;
	for (size_t f = 0; f < N; f++) {
		cb[f] = pmcf_profile_value(fb, f, e2);
		cm[f] = pmcf_profile_value(fm, f, e2);
		cr[f] = pmcf_profile_value(fr, f, e2);
		eb_ += fabs(cb[f] - truth[f]);
		er += fabs(cr[f] - truth[f]);
		int32_t s;
		int64_t x;
		assert_int_equal(pmcf_profile_provenance_get(fr, f, e2, &s, &x), 0);
		assert_int_equal(s, 1);
		assert_int_equal(x, -1);
	}
	if (!(er < eb_))
		fail_msg("rank's total error %g not below bc's %g", er, eb_);
	qsort(cb, N, sizeof(double), cmp_d);
	qsort(cm, N, sizeof(double), cmp_d);
	qsort(cr, N, sizeof(double), cmp_d);
	for (size_t f = 0; f < N; f++)
		if (cr[f] != cb[f])
			fail_msg("rank's %zu-th smallest e2 %g, bc's %g", f, cr[f], cb[f]);
	assert_true(cm[0] > cb[0] && cm[N - 1] < cb[N - 1]); /* the median shrinks */
	const char *m = pmcf_profile_meta_get(fr, "combine_impute_mode");
	assert_non_null(m);
	assert_string_equal(m, "rank");
	pmcf_profile_free(fb);
	pmcf_profile_free(fm);
	pmcf_profile_free(fr);
	/* an exact twin (input 1's XU with input 0's linking values) keeps its
	 * copy under rank, and is imputed under median */
	vb[5 * 2] = va[5 * 2];
	pmcf_profile_free(b);
	b = mk(eb, 2, vb, N, la);
	fr = fuse_mode(a, b, 9, PMCF_IMPUTE_RANK);
	int32_t s;
	int64_t x;
	assert_int_equal(pmcf_profile_provenance_get(fr, 5, e2, &s, &x), 0);
	assert_int_equal(s, 1);
	assert_int_equal(x, 5);
	assert_true(pmcf_profile_value(fr, 5, e2) == vb[5 * 2 + 1]);
	pmcf_profile_free(fr);
	/* an unknown mode is refused */
	pmcf_profile *in[2] = {a, b}, *out = NULL;
	pmcf_combine_opts o = PMCF_COMBINE_OPTS_INIT;
	o.impute = 5;
	o.impute_mode = 7;
	assert_int_equal(pmcf_combine((const pmcf_profile *const *)in, 2, &o, &out, NULL), PMCF_EINVAL);
	assert_null(out);
	assert_int_equal(pmcf_impute_mode_parse("rank"), PMCF_IMPUTE_RANK);
	assert_int_equal(pmcf_impute_mode_parse("median"), PMCF_IMPUTE_MEDIAN);
	assert_int_equal(pmcf_impute_mode_parse("mean"), PMCF_EINVAL);
	assert_string_equal(pmcf_impute_mode_name(PMCF_IMPUTE_RANK), "rank");
	pmcf_profile_free(a);
	pmcf_profile_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_assign_hand_cases),
		cmocka_unit_test(test_metric_weights),
		cmocka_unit_test(test_weighting_and_shift),
		cmocka_unit_test(test_split_exact),
		cmocka_unit_test(test_surplus),
		cmocka_unit_test(test_name),
		cmocka_unit_test(test_impute_median),
		cmocka_unit_test(test_impute_rank_keeps_distribution),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
