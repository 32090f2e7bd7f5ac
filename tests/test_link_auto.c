/* Unit tests of --link auto's parts (src/plan/link_auto.c): the mutual
 * information estimator on data whose information is known, and the branch
 * and bound over set orders against an exhaustive search (with a broken
 * bound, the comparison must fail). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "plan/plan_impl.h"

static uint64_t rng_state = 88172645463325252ull;
static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}
static double unif(void) { return ((double)(rnd() >> 11) + 0.5) / 9007199254740992.0; }
static double gauss(void) { return sqrt(-2 * log(unif())) * cos(6.283185307179586 * unif()); }

static void test_mi_known(void **state)
{
	(void)state;
	enum { N = 4000 };
	double *x = malloc(N * sizeof(double)), *y = malloc(N * sizeof(double));
	assert_non_null(x);
	assert_non_null(y);
	size_t nb = pmcfi_plan_mi_bins(N);
	assert_int_equal(nb, 15); /* cbrt(4000) = 15.9 */
	/* independent: about 0 */
	for (size_t i = 0; i < N; i++) {
		x[i] = unif();
		y[i] = unif();
	}
	double mi = pmcfi_plan_mi(x, y, N);
	if (!(mi >= 0 && mi < 0.02))
		fail_msg("independent: %g bits, expected ~0", mi);
	/* identical: the entropy of the binned variable, log2(bins) for distinct values */
	mi = pmcfi_plan_mi(x, x, N);
	if (fabs(mi - log2((double)nb)) > 0.03)
		fail_msg("identical: %g bits, expected %g", mi, log2((double)nb));
	/* a monotone, heavy-tailed transform changes no rank: the same */
	for (size_t i = 0; i < N; i++)
		y[i] = exp(30 * x[i]);
	double mi2 = pmcfi_plan_mi(x, y, N);
	if (fabs(mi2 - mi) > 1e-12)
		fail_msg("monotone transform: %g bits, identical gave %g", mi2, mi);
	/* ties: a fair coin copied, 1 bit; with a constant, 0 */
	for (size_t i = 0; i < N; i++) {
		x[i] = (double)(rnd() & 1) * 1000;
		y[i] = x[i] / 1000;
	}
	mi = pmcfi_plan_mi(x, y, N);
	if (fabs(mi - 1) > 0.01)
		fail_msg("coin: %g bits, expected 1", mi);
	for (size_t i = 0; i < N; i++)
		y[i] = 7;
	mi = pmcfi_plan_mi(x, y, N);
	if (!(mi >= 0 && mi < 0.005))
		fail_msg("constant: %g bits, expected 0", mi);
	/* Gaussians of correlation 0.9: -log2(1 - 0.81) / 2 = 1.198 bits, less
	 * what 15 bins cannot resolve; 0.5: 0.208 */
	for (size_t i = 0; i < N; i++) {
		x[i] = gauss();
		y[i] = 0.9 * x[i] + sqrt(1 - 0.81) * gauss();
	}
	mi = pmcfi_plan_mi(x, y, N);
	if (!(mi > 0.95 && mi < 1.25))
		fail_msg("rho 0.9: %g bits, expected about 1.1", mi);
	for (size_t i = 0; i < N; i++)
		y[i] = 0.5 * x[i] + sqrt(1 - 0.25) * gauss();
	double mi5 = pmcfi_plan_mi(x, y, N);
	if (!(mi5 > 0.15 && mi5 < 0.26))
		fail_msg("rho 0.5: %g bits, expected about 0.2", mi5);
	/* missing values are left out; too few values: NaN */
	for (size_t i = 0; i < N; i += 2)
		x[i] = NAN;
	assert_true(pmcfi_plan_mi(x, y, N) > 0.1);
	assert_true(isnan(pmcfi_plan_mi(x, y, 10)));
	free(x);
	free(y);
}

/* A random instance: nsets sets of 1..3 new events each, nbase base
 * events, a random information matrix, and a counter budget per set. */
struct inst {
	size_t nsets, nev, nbase;
	double mi[64 * 64];
	size_t base[4], setev[64], setfirst[17];
	unsigned spare[16];
};

static int inst_fits(void *ctx, size_t k, const size_t *links, size_t n)
{
	(void)links;
	const struct inst *I = ctx;
	return n <= I->spare[k];
}

static void make_inst(struct inst *I, size_t nsets)
{
	memset(I, 0, sizeof(*I));
	I->nsets = nsets;
	I->nbase = 1 + rnd() % 2;
	size_t e = 0;
	for (size_t b = 0; b < I->nbase; b++)
		I->base[b] = e++;
	for (size_t k = 0; k < nsets; k++) {
		I->setfirst[k] = e - I->nbase;
		size_t m = 1 + rnd() % 3;
		for (size_t j = 0; j < m; j++, e++)
			I->setev[e - I->nbase] = e;
		I->spare[k] = (unsigned)(rnd() % 3);
	}
	I->setfirst[nsets] = e - I->nbase;
	I->nev = e;
	for (size_t a = 0; a < e; a++)
		for (size_t b = a; b < e; b++)
			I->mi[a * e + b] = I->mi[b * e + a] = a == b ? NAN : unif() * unif() * 3;
}

static double search(const struct inst *I, int method, double scale, size_t *order)
{
	struct pmcfi_plan_lk P = {.nsets = I->nsets,
				  .nev = I->nev,
				  .mi = I->mi,
				  .base = I->base,
				  .nbase = I->nbase,
				  .setev = I->setev,
				  .setfirst = I->setfirst,
				  .fits = inst_fits,
				  .ctx = (void *)I,
				  .maxlinks = 2,
				  .bound_scale = scale};
	struct pmcfi_plan_lk_result r;
	assert_int_equal(pmcfi_plan_lk_search(&P, method, 10, &r), 0);
	assert_true(r.exact || method == PMCFI_PLAN_LK_GREEDY);
	/* the reported order's value is what the per-position bits add up to,
	 * and no set got more links than it has room for */
	double sum = 0;
	for (size_t p = 0; p < I->nsets; p++) {
		sum += r.bits[p];
		assert_true(r.nlinks[p] <= I->spare[r.order[p]]);
		assert_true(r.bits[p] >= r.base_bits[p] - 1e-12);
	}
	assert_true(fabs(sum - r.total) < 1e-9);
	if (order)
		memcpy(order, r.order, I->nsets * sizeof(size_t));
	double v = r.total;
	pmcfi_plan_lk_result_free(&r);
	return v;
}

static void test_bnb_equals_exhaustive(void **state)
{
	(void)state;
	struct inst *I = malloc(sizeof(*I));
	assert_non_null(I);
	size_t broken_differs = 0, greedy_worse = 0;
	for (int t = 0; t < 300; t++) {
		make_inst(I, 2 + (size_t)t % 6);
		double ex = search(I, PMCFI_PLAN_LK_EXHAUSTIVE, 1, NULL);
		double bb = search(I, PMCFI_PLAN_LK_BNB, 1, NULL);
		if (fabs(ex - bb) > 1e-9)
			fail_msg("case %d (%zu sets): branch and bound %.12g, exhaustive %.12g", t, I->nsets,
				 bb, ex);
		double gr = search(I, PMCFI_PLAN_LK_GREEDY, 1, NULL);
		assert_true(gr <= ex + 1e-9);
		greedy_worse += gr < ex - 1e-9;
		/* a bound that is not one (half of it) prunes optimal orders */
		broken_differs += fabs(search(I, PMCFI_PLAN_LK_BNB, 0.5, NULL) - ex) > 1e-9;
	}
	/* the comparison has teeth: a broken bound and greedy both lose somewhere */
	if (!broken_differs || !greedy_worse)
		fail_msg("broken bound differed in %zu cases, greedy was worse in %zu", broken_differs,
			 greedy_worse);
	free(I);
}

static void test_bnb_small_by_hand(void **state)
{
	(void)state;
	/* base event 0; set 0 = {1}, set 1 = {2}, set 2 = {3}; 2 knows 3 well
	 * (2 bits), 1 knows 2 (1 bit); sets 1 and 2 have room for one link:
	 * the best order is 0, 1 (+1), 2 (+2) = 3 bits, every other is less. */
	struct inst I;
	memset(&I, 0, sizeof(I));
	I.nsets = 3;
	I.nev = 4;
	I.nbase = 1;
	I.base[0] = 0;
	for (size_t k = 0; k < 3; k++) {
		I.setev[k] = k + 1;
		I.setfirst[k] = k;
		I.spare[k] = 1;
	}
	I.setfirst[3] = 3;
	for (size_t i = 0; i < 16; i++)
		I.mi[i] = 0.01;
	I.mi[2 * 4 + 3] = I.mi[3 * 4 + 2] = 2;
	I.mi[1 * 4 + 2] = I.mi[2 * 4 + 1] = 1;
	size_t order[3];
	double v = search(&I, PMCFI_PLAN_LK_BNB, 1, order);
	assert_true(fabs(v - 3) < 1e-9);
	assert_int_equal(order[0], 0);
	assert_int_equal(order[1], 1);
	assert_int_equal(order[2], 2);
	/* no room for links: only the base's 0.01 per set after the first */
	I.spare[0] = I.spare[1] = I.spare[2] = 0;
	assert_true(fabs(search(&I, PMCFI_PLAN_LK_BNB, 1, NULL) - 0.02) < 1e-9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mi_known),
		cmocka_unit_test(test_bnb_equals_exhaustive),
		cmocka_unit_test(test_bnb_small_by_hand),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
