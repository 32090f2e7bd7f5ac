/* Unit tests of the accuracy metrics (src/evaluate): a hand-computed TMD in
 * the manner of fuse-task-parallel Fig. 7, calibration medians, EPD of a
 * reference repeat near 1 and of a distorted profile far above, missing
 * values and the worst score, sampling, the Correlation Error against its
 * closed form, Spearman, ground truth, and the pair covering. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "evaluate/tmd.h"
#include "pmcfuse/evaluate.h"
#include "pmcfuse/plan.h"
#include "pmcfuse/profile.h"

static uint64_t rng = 77;
static double urand(void) { return (double)(pmcfi_splitmix64(&rng) >> 11) / 9007199254740992.0; }
static double gauss(void)
{
	double u = urand() + 1e-300, v = urand();
	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* Fig. 7 style: 4 bins per event over [0, 40], XUs placed by hand. */
static void test_tmd_by_hand(void **state)
{
	(void)state;
	const double lo[2] = {0, 0}, hi[2] = {40, 40};
	static const struct {
		int line;
		size_t an, bn;
		double ax[3], ay[3], bx[3], by[3];
		double want;
	} rows[] = {
		/* one XU moves one bin to the right: half the mass, one bin */
		{__LINE__, 2, 2, {5, 15}, {5, 15}, {5, 25}, {5, 15}, 0.5},
		/* below the range: the outer bin sits at the centroid (-1, 0.5) */
		{__LINE__, 2, 2, {-10, 15}, {5, 15}, {5, 15}, {5, 15}, 0.75},
		/* two XUs share a bin: centroid (0.5, 0.5) with weight 2/3 */
		{__LINE__, 3, 3, {2, 8, 35}, {2, 8, 35}, {5, 5, 35}, {5, 5, 35}, 0.0},
		/* diagonal move of everything by one bin in both events */
		{__LINE__, 1, 1, {5}, {5}, {15}, {15}, 1.4142135623730951},
		/* above the range in one event: centroid 6.0 vs 3.5 */
		{__LINE__, 1, 1, {60}, {5}, {35}, {5}, 2.5},
	};
	for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		double t = -1, left = -1;
		int err = pmcf_tmd2(NULL, 4, lo, hi, rows[k].ax, rows[k].ay, rows[k].an, rows[k].bx,
				    rows[k].by, rows[k].bn, &t, &left);
		if (err || fabs(t - rows[k].want) > 1e-12)
			fail_msg("row at line %d: err %d, TMD %.15g, want %.15g", rows[k].line, err, t,
				 rows[k].want);
		assert_true(left == 0);
	}
	/* missing values are left out, and their share reported */
	double ax[] = {5, NAN, 15, 15}, ay[] = {5, 5, NAN, 15}, bx[] = {5, 15}, by[] = {5, 15}, t, left;
	assert_int_equal(pmcf_tmd2(NULL, 4, lo, hi, ax, ay, 4, bx, by, 2, &t, &left), 0);
	assert_true(fabs(left - 0.5) < 1e-12 && fabs(t) < 1e-12);
	double nx[] = {NAN}, ny[] = {1};
	assert_int_equal(pmcf_tmd2(NULL, 4, lo, hi, nx, ny, 1, bx, by, 2, &t, &left), PMCF_ENOENT);
	assert_int_equal(pmcf_tmd2(NULL, 0, lo, hi, bx, by, 2, bx, by, 2, &t, &left), PMCF_EINVAL);
}

/* A profile of n XUs of two types with events e0..e{ne-1} drawn around a
 * per-type mean; `shift` distorts e1; names[k] NULL leaves event k out. */
static pmcf_profile *make_profile(size_t n, size_t ne, double shift, const char *const *only)
{
	pmcf_profile *p;
	assert_int_equal(pmcf_profile_new(&p), 0);
	uint32_t ty[2];
	assert_int_equal(pmcf_profile_type_add(p, PMCF_XU_TASK, "gemm", "", &ty[0]), 0);
	assert_int_equal(pmcf_profile_type_add(p, PMCF_XU_TASK, "potrf", "", &ty[1]), 0);
	size_t idx;
	assert_int_equal(pmcf_profile_event_add(p, "duration", &idx), 0);
	size_t evi[8];
	for (size_t e = 0; e < ne; e++) {
		char name[16];
		snprintf(name, sizeof(name), "e%zu", e);
		evi[e] = (size_t)-1;
		if (only) {
			int found = 0;
			for (const char *const *o = only; *o; o++)
				found |= strcmp(*o, name) == 0;
			if (!found)
				continue;
		}
		assert_int_equal(pmcf_profile_event_add(p, name, &evi[e]), 0);
	}
	for (size_t i = 0; i < n; i++) {
		pmcf_xu xu = {0, ty[i % 3 == 0], 0, -1, i * 10, i * 10 + 5, "", ""};
		assert_int_equal(pmcf_profile_xu_add(p, &xu, &idx), 0);
		double base = i % 3 == 0 ? 1000 : 3000;
		double z = gauss();
		pmcf_profile_value_set(p, idx, 0, 5);
		for (size_t e = 0; e < ne; e++) {
			double v = base * (1 + 0.3 * e) + 200 * z + 100 * gauss() + (e == 1 ? shift : 0);
			if (evi[e] != (size_t)-1)
				pmcf_profile_value_set(p, idx, evi[e], v);
		}
	}
	return p;
}

static void test_epd_calibration(void **state)
{
	(void)state;
	pmcf_profile *refs[5];
	for (int k = 0; k < 5; k++)
		refs[k] = make_profile(600, 3, 0, NULL);
	pmcf_profile *fresh = make_profile(600, 3, 0, NULL);
	pmcf_profile *bad = make_profile(600, 3, 1500, NULL);
	pmcf_epd_result *r;
	pmcf_epd_opts o = PMCF_EPD_OPTS_INIT;
	/* options not started from PMCF_EPD_OPTS_INIT: the detail names the
	 * field and the macro (it said "EPD: 0 bins (1 to 30)") */
	pmcf_epd_opts zero;
	memset(&zero, 0, sizeof(zero));
	zero.size = sizeof(zero);
	assert_int_equal(pmcf_epd_compute(fresh, (const pmcf_profile *const *)refs, 5, &zero, &r),
			 PMCF_EINVAL);
	assert_string_equal(pmcf_errdetail(),
			    "EPD: pmcf_epd_opts.bins 0 is not 1 to 30 (start from PMCF_EPD_OPTS_INIT: 10)");
	assert_int_equal(pmcf_epd_compute(fresh, (const pmcf_profile *const *)refs, 5, &o, &r), 0);
	assert_int_equal(pmcf_epd_npairs(r), 3);
	assert_int_equal(pmcf_epd_uncovered(r), 0);
	double epd_fresh = pmcf_epd_value(r);
	assert_true(epd_fresh > 0.5 && epd_fresh < 2.0);

	/* the calibration of (e0, e1) is the median of the 10 repeat-pair TMDs */
	const pmcf_epd_pair *p = pmcf_epd_pair_at(r, 0);
	assert_string_equal(p->a, "e0");
	assert_string_equal(p->b, "e1");
	assert_int_equal(p->repeats, 5);
	double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY}, d[10];
	const double *cx[5], *cy[5];
	for (int k = 0; k < 5; k++) {
		cx[k] = pmcf_profile_column_const(refs[k], 1);
		cy[k] = pmcf_profile_column_const(refs[k], 2);
		for (size_t i = 0; i < 600; i++) {
			lo[0] = fmin(lo[0], cx[k][i]);
			hi[0] = fmax(hi[0], cx[k][i]);
			lo[1] = fmin(lo[1], cy[k][i]);
			hi[1] = fmax(hi[1], cy[k][i]);
		}
	}
	int nd = 0;
	for (int a = 0; a < 5; a++)
		for (int b = a + 1; b < 5; b++)
			assert_int_equal(pmcf_tmd2(NULL, 10, lo, hi, cx[a], cy[a], 600, cx[b], cy[b], 600,
						   &d[nd++], NULL),
					 0);
	for (int a = 1; a < 10; a++)
		for (int b = a; b > 0 && d[b] < d[b - 1]; b--) {
			double t = d[b];
			d[b] = d[b - 1];
			d[b - 1] = t;
		}
	assert_true(fabs(p->calibration - 0.5 * (d[4] + d[5])) < 1e-12);
	/* the target's TMD: median of its five TMDs, over the calibration */
	const double *tx = pmcf_profile_column_const(fresh, 1), *tyy = pmcf_profile_column_const(fresh, 2);
	double dt[5];
	for (int k = 0; k < 5; k++)
		assert_int_equal(pmcf_tmd2(NULL, 10, lo, hi, tx, tyy, 600, cx[k], cy[k], 600, &dt[k], NULL),
				 0);
	for (int a = 1; a < 5; a++)
		for (int b = a; b > 0 && dt[b] < dt[b - 1]; b--) {
			double t = dt[b];
			dt[b] = dt[b - 1];
			dt[b - 1] = t;
		}
	assert_true(fabs(p->uncalibrated - dt[2]) < 1e-12);
	/* floored: never below the best leave-one-out score of a repeat */
	assert_true(fabs(p->tmd - fmax(dt[2] / p->calibration, p->floor)) < 1e-9);
	assert_true(p->floor > 0.3 && p->floor <= 1.0 + 1e-12);
	double cal = p->calibration; /* p lives in r */
	pmcf_epd_result_free(r);
	o.formula = PMCF_EPD_PAPER;
	assert_int_equal(pmcf_epd_compute(fresh, (const pmcf_profile *const *)refs, 5, &o, &r), 0);
	assert_true(fabs(pmcf_epd_pair_at(r, 0)->tmd - dt[2] / cal) < 1e-9);
	pmcf_epd_result_free(r);
	o.formula = PMCF_EPD_FLOORED;

	/* a reference repeat itself scores near 1 */
	assert_int_equal(pmcf_epd_compute(refs[2], (const pmcf_profile *const *)refs, 5, &o, &r), 0);
	assert_true(pmcf_epd_value(r) < 1.5);
	pmcf_epd_result_free(r);

	/* a distorted profile scores far above */
	assert_int_equal(pmcf_epd_compute(bad, (const pmcf_profile *const *)refs, 5, &o, &r), 0);
	assert_true(pmcf_epd_value(r) > 3 * epd_fresh);
	pmcf_epd_result_free(r);

	/* per type, and a sample of 2 pairs with a bootstrap interval */
	o.per_type = 1;
	assert_int_equal(pmcf_epd_compute(fresh, (const pmcf_profile *const *)refs, 5, &o, &r), 0);
	assert_true(pmcf_epd_value(r) > 0.3 && pmcf_epd_value(r) < 3);
	pmcf_epd_result_free(r);
	o.per_type = 0;
	o.sample = 2;
	o.seed = 9;
	assert_int_equal(pmcf_epd_compute(bad, (const pmcf_profile *const *)refs, 5, &o, &r), 0);
	assert_int_equal(pmcf_epd_npairs(r), 2);
	assert_int_equal(pmcf_epd_evaluated(r), 2);
	double clo, chi;
	pmcf_epd_ci(r, &clo, &chi);
	assert_true(clo <= pmcf_epd_value(r) * (1 + 1e-9) && chi >= pmcf_epd_value(r) * (1 - 1e-9));
	double v1 = pmcf_epd_value(r);
	pmcf_epd_result_free(r);
	assert_int_equal(pmcf_epd_compute(bad, (const pmcf_profile *const *)refs, 5, &o, &r), 0);
	assert_true(pmcf_epd_value(r) == v1); /* reproducible with the seed */
	pmcf_epd_result_free(r);
	/* a sample larger than the pairs: every covered pair, evaluated says how many */
	o.sample = 1000;
	assert_int_equal(pmcf_epd_compute(bad, (const pmcf_profile *const *)refs, 5, &o, &r), 0);
	assert_true(pmcf_epd_total_pairs(r) < 1000);
	assert_int_equal(pmcf_epd_evaluated(r), pmcf_epd_total_pairs(r) - pmcf_epd_uncovered(r));
	assert_int_equal(pmcf_epd_evaluated(r), pmcf_epd_npairs(r) + pmcf_epd_nexcluded(r));
	pmcf_epd_result_free(r);
	o.sample = 0;

	/* single-threaded and multi-threaded give the same numbers */
	pmcf_epd_opts o1 = PMCF_EPD_OPTS_INIT, o2 = PMCF_EPD_OPTS_INIT;
	o1.threads = 1;
	o2.threads = 3;
	pmcf_epd_result *r1, *r2;
	assert_int_equal(pmcf_epd_compute(bad, (const pmcf_profile *const *)refs, 5, &o1, &r1), 0);
	assert_int_equal(pmcf_epd_compute(bad, (const pmcf_profile *const *)refs, 5, &o2, &r2), 0);
	assert_true(pmcf_epd_value(r1) == pmcf_epd_value(r2));
	pmcf_epd_result_free(r1);
	pmcf_epd_result_free(r2);

	pmcf_profile_free(fresh);
	pmcf_profile_free(bad);
	for (int k = 0; k < 5; k++)
		pmcf_profile_free(refs[k]);
}

/* A pair on which the target and every reference agree exactly (an event
 * that is always 0, as many software events and tracepoints are) scores 1,
 * not 0/0; the other pairs keep their scores. */
static void test_epd_constant_event(void **state)
{
	(void)state;
	pmcf_profile *refs[4], *t = NULL;
	for (int k = 0; k < 5; k++) {
		pmcf_profile *p = make_profile(300, 2, 0, NULL);
		size_t z;
		assert_int_equal(pmcf_profile_event_add(p, "zero", &z), 0);
		for (size_t i = 0; i < pmcf_profile_nxus(p); i++)
			pmcf_profile_value_set(p, i, z, 0.0);
		if (k < 4)
			refs[k] = p;
		else
			t = p;
	}
	pmcf_epd_result *r;
	assert_int_equal(pmcf_epd_compute(t, (const pmcf_profile *const *)refs, 4, NULL, &r), 0);
	size_t zero_pairs = 0;
	for (size_t i = 0; i < pmcf_epd_npairs(r); i++) {
		const pmcf_epd_pair *pr = pmcf_epd_pair_at(r, i);
		if (strcmp(pr->a, "zero") && strcmp(pr->b, "zero"))
			continue;
		zero_pairs++;
		/* zero with itself is never a pair; with e0/e1 the TMD is that of one event */
		assert_true(pr->tmd > 0.05 && pr->tmd < 20);
	}
	assert_true(zero_pairs >= 2);
	/* a fresh repeat scores near 1, not near 0 */
	assert_true(pmcf_epd_value(r) > 0.3 && pmcf_epd_value(r) < 3);
	pmcf_epd_result_free(r);
	/* two constant events: the pair's histograms are one point each, all equal */
	pmcf_profile *c[5];
	for (int k = 0; k < 5; k++) {
		assert_int_equal(pmcf_profile_new(&c[k]), 0);
		uint32_t ty;
		size_t a, b, x;
		assert_int_equal(pmcf_profile_type_add(c[k], PMCF_XU_TASK, "t", "", &ty), 0);
		assert_int_equal(pmcf_profile_event_add(c[k], "z1", &a), 0);
		assert_int_equal(pmcf_profile_event_add(c[k], "z2", &b), 0);
		for (int i = 0; i < 50; i++) {
			pmcf_xu xu = {0, ty, 0, -1, (uint64_t)i, (uint64_t)i + 1, "", ""};
			assert_int_equal(pmcf_profile_xu_add(c[k], &xu, &x), 0);
			pmcf_profile_value_set(c[k], x, a, 0.0);
			pmcf_profile_value_set(c[k], x, b, 0.0);
		}
	}
	/* floored: no spread in the references, the only pair is left out */
	assert_int_equal(pmcf_epd_compute(c[4], (const pmcf_profile *const *)c, 4, NULL, &r), PMCF_ENOENT);
	assert_non_null(strstr(pmcf_errdetail(),
			       "(1 pair; PMCF_EPD_PAPER, the command's --formula paper, scores them)"));
	/* the paper's formula scores it 1 (1e-6 / 1e-6) */
	pmcf_epd_opts po = PMCF_EPD_OPTS_INIT;
	po.formula = PMCF_EPD_PAPER;
	assert_int_equal(pmcf_epd_compute(c[4], (const pmcf_profile *const *)c, 4, &po, &r), 0);
	assert_int_equal(pmcf_epd_npairs(r), 1);
	assert_true(fabs(pmcf_epd_pair_at(r, 0)->tmd - 1.0) < 1e-9);
	assert_true(fabs(pmcf_epd_value(r) - 1.0) < 1e-9);
	pmcf_epd_result_free(r);
	for (int k = 0; k < 5; k++)
		pmcf_profile_free(c[k]);
	for (int k = 0; k < 4; k++)
		pmcf_profile_free(refs[k]);
	pmcf_profile_free(t);
}

/* A profile of one type whose XU i has value cols[e][i] for event "e<e>". */
static pmcf_profile *hand_profile(size_t n, size_t ne, const double *const *cols)
{
	pmcf_profile *p;
	uint32_t ty;
	size_t x, ev[4];
	assert_int_equal(pmcf_profile_new(&p), 0);
	assert_int_equal(pmcf_profile_type_add(p, PMCF_XU_TASK, "t", "", &ty), 0);
	for (size_t e = 0; e < ne; e++) {
		char name[8];
		snprintf(name, sizeof(name), "e%zu", e);
		assert_int_equal(pmcf_profile_event_add(p, name, &ev[e]), 0);
	}
	for (size_t i = 0; i < n; i++) {
		pmcf_xu xu = {0, ty, 0, -1, i, i + 1, "", ""};
		assert_int_equal(pmcf_profile_xu_add(p, &xu, &x), 0);
		for (size_t e = 0; e < ne; e++)
			pmcf_profile_value_set(p, x, ev[e], cols[e][i]);
	}
	return p;
}

/* Degenerate pairs by hand (4 bins over [5, 35], 4 XUs on the diagonal):
 * repeats 0 and 1 identical, repeat 2 moves XU 0 by 4/3 bin in e1, so the
 * distances are 0, 1/3, 1/3 and the calibration 1/3. A target identical to
 * repeat 0 has uncalibrated TMD median(0, 0, 1/3) = 0: the paper's formula
 * scores it 1e-6 / (1/3) = 3e-6, the floored one max(0.25, ...) and the
 * floor: repeat 0's median of max(0, 1/4) and 1/3 is 7/24, over 1/3 = 0.875.
 * Pairs on which every repeat is identical (e0, e2, e3) are left out
 * (floored) or scored 1e-6 / 1e-6 = 1 (paper). */
static void test_epd_degenerate_by_hand(void **state)
{
	(void)state;
	static const double diag[] = {5, 15, 25, 35}, moved[] = {15, 15, 25, 35};
	static const double rev[] = {35, 25, 15, 5};
	/* columns e0..e3 of repeats 0, 1, 2; e2 and e3 never vary */
	const double *c0[] = {diag, diag, diag, rev}, *c2[] = {diag, moved, diag, rev};
	pmcf_profile *refs[3] = {hand_profile(4, 4, c0), hand_profile(4, 4, c0), hand_profile(4, 4, c2)};
	pmcf_profile *t = hand_profile(4, 4, c0);
	pmcf_epd_opts o = PMCF_EPD_OPTS_INIT;
	o.bins = 4;
	o.threads = 1;
	static const struct {
		int line, formula;
		const char *a, *b;
		double tmd, cal, floor;
		int excluded;
	} rows[] = {
		{__LINE__, PMCF_EPD_FLOORED, "e0", "e1", 0.875, 1.0 / 3, 0.875, 0},
		{__LINE__, PMCF_EPD_PAPER, "e0", "e1", 3e-6, 1.0 / 3, 0, 0},
		{__LINE__, PMCF_EPD_FLOORED, "e2", "e3", NAN, 0, 0, PMCF_EPD_NO_SPREAD},
		{__LINE__, PMCF_EPD_PAPER, "e2", "e3", 1.0, 0, 0, 0},
	};
	for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		o.formula = rows[k].formula;
		pmcf_epd_result *r;
		assert_int_equal(pmcf_epd_compute(t, (const pmcf_profile *const *)refs, 3, &o, &r), 0);
		const pmcf_epd_pair *p = NULL;
		for (size_t i = 0; i < pmcf_epd_npairs(r); i++)
			if (!strcmp(pmcf_epd_pair_at(r, i)->a, rows[k].a) &&
			    !strcmp(pmcf_epd_pair_at(r, i)->b, rows[k].b))
				p = pmcf_epd_pair_at(r, i);
		for (size_t i = 0; i < pmcf_epd_nexcluded(r); i++)
			if (!strcmp(pmcf_epd_excluded_at(r, i)->a, rows[k].a) &&
			    !strcmp(pmcf_epd_excluded_at(r, i)->b, rows[k].b))
				p = pmcf_epd_excluded_at(r, i);
		if (!p)
			fail_msg("row at line %d: pair not found", rows[k].line);
		int tmd_ok = rows[k].excluded ? p->tmd != p->tmd
					      : fabs(p->tmd - rows[k].tmd) < 1e-9 * (1 + rows[k].tmd);
		if (!tmd_ok || fabs(p->calibration - rows[k].cal) > 1e-9 ||
		    fabs(p->floor - rows[k].floor) > 1e-9 || p->excluded != rows[k].excluded)
			fail_msg("row at line %d: tmd %.17g cal %.17g floor %.17g excluded %d", rows[k].line,
				 p->tmd, p->calibration, p->floor, p->excluded);
		if (rows[k].formula == PMCF_EPD_FLOORED)
			assert_true(fabs(p->resolution - 0.25) < 1e-12);
		/* the left-out pair is not among the scored ones */
		assert_int_equal(pmcf_epd_npairs(r) + pmcf_epd_nexcluded(r), 6);
		assert_int_equal(pmcf_epd_nexcluded(r), rows[k].formula == PMCF_EPD_FLOORED ? 3 : 0);
		pmcf_epd_result_free(r);
	}
	o.formula = 7;
	pmcf_epd_result *r;
	assert_int_equal(pmcf_epd_compute(t, (const pmcf_profile *const *)refs, 3, &o, &r), PMCF_EINVAL);
	pmcf_profile_free(t);
	for (int k = 0; k < 3; k++)
		pmcf_profile_free(refs[k]);
}

static void test_epd_missing_and_coverage(void **state)
{
	(void)state;
	/* references covering only (e0, e1) and (e1, e2), twice each */
	const char *s01[] = {"e0", "e1", NULL}, *s12[] = {"e1", "e2", NULL};
	pmcf_profile *refs[4] = {make_profile(300, 3, 0, s01), make_profile(300, 3, 0, s01),
				 make_profile(300, 3, 0, s12), make_profile(300, 3, 0, s12)};
	pmcf_profile *t = make_profile(300, 3, 0, NULL);
	/* e2 missing everywhere in the target; e0 missing for a third of the XUs */
	size_t n = pmcf_profile_nxus(t);
	for (size_t i = 0; i < n; i++) {
		pmcf_profile_value_set(t, i, 3, PMCF_MISSING);
		if (i % 3 == 1)
			pmcf_profile_value_set(t, i, 1, PMCF_MISSING);
	}
	pmcf_epd_result *r;
	assert_int_equal(pmcf_epd_compute(t, (const pmcf_profile *const *)refs, 4, NULL, &r), 0);
	assert_int_equal(pmcf_epd_total_pairs(r), 3);
	assert_int_equal(pmcf_epd_uncovered(r), 1); /* (e0, e2) */
	assert_int_equal(pmcf_epd_npairs(r), 2);
	const pmcf_epd_pair *p0 = pmcf_epd_pair_at(r, 0), *p1 = pmcf_epd_pair_at(r, 1);
	assert_string_equal(p0->b, "e1");
	assert_true(fabs(p0->left_out - 1.0 / 3) < 1e-9);
	assert_int_equal(p0->worst, 0);
	assert_string_equal(p1->a, "e1");
	assert_int_equal(p1->worst, 1);
	assert_true(p1->left_out == 1.0);
	assert_true(fabs(p1->uncalibrated - 12 * sqrt(2.0)) < 1e-12);
	pmcf_epd_result_free(r);
	/* fewer than two references: an error with a detail */
	assert_int_equal(pmcf_epd_compute(t, (const pmcf_profile *const *)refs, 1, NULL, &r), PMCF_ENOENT);
	pmcf_profile_free(t);
	for (int k = 0; k < 4; k++)
		pmcf_profile_free(refs[k]);
}

static void test_spearman_correrr(void **state)
{
	(void)state;
	double x[] = {1, 2, 3, 4, 5}, y[] = {2, 4, 6, 8, 100}, z[] = {5, 4, 3, 2, 1};
	double ties[] = {1, 1, 2, 2, 3}, c[] = {7, 7, 7, 7, 7}, m[] = {1, NAN, 3, 4, 5};
	assert_true(fabs(pmcf_spearman(x, y, 5) - 1) < 1e-12);
	assert_true(fabs(pmcf_spearman(x, z, 5) + 1) < 1e-12);
	assert_true(pmcf_spearman(x, c, 5) == 0);
	assert_true(fabs(pmcf_spearman(x, m, 5) - 1) < 1e-12);
	/* ties get average ranks: ranks 1.5 1.5 3.5 3.5 5 against 1..5 */
	double want = 0.9486832980505138;
	assert_true(fabs(pmcf_spearman(x, ties, 5) - want) < 1e-12);

	/* the area between the CDFs equals the mean absolute difference */
	pmcf_profile *refs[3];
	for (int k = 0; k < 3; k++)
		refs[k] = make_profile(200, 4, 0, NULL);
	pmcf_profile *t = make_profile(200, 4, 0, NULL);
	/* scramble e3 in the target: its correlations vanish */
	size_t n = pmcf_profile_nxus(t);
	for (size_t i = 0; i < n; i++)
		pmcf_profile_value_set(t, i, 4, urand());
	pmcf_correrr_result *r;
	assert_int_equal(pmcf_correrr_compute(t, (const pmcf_profile *const *)refs, 3, &r), 0);
	assert_int_equal(pmcf_correrr_npairs(r), 6);
	double s = 0;
	for (size_t k = 0; k < 6; k++) {
		const pmcf_correrr_pair *p = pmcf_correrr_pair_at(r, k);
		s += fabs(p->target - p->reference);
		assert_int_equal(p->repeats, 3);
	}
	assert_true(fabs(pmcf_correrr_value(r) - s / 6) < 1e-12);
	assert_true(pmcf_correrr_value(r) > 0.1 && pmcf_correrr_value(r) <= 2);
	pmcf_correrr_result_free(r);
	assert_int_equal(pmcf_correrr_compute(refs[0], (const pmcf_profile *const *)refs, 3, &r), 0);
	assert_true(pmcf_correrr_value(r) < 0.05);
	pmcf_correrr_result_free(r);
	pmcf_profile_free(t);
	for (int k = 0; k < 3; k++)
		pmcf_profile_free(refs[k]);
}

/* Two EPD pairs equal to the last bit (NaN included). */
static void assert_same_pair(const pmcf_epd_pair *x, const pmcf_epd_pair *y)
{
	assert_string_equal(x->a, y->a);
	assert_string_equal(x->b, y->b);
	const double dx[] = {x->tmd,      x->uncalibrated, x->calibration, x->spread,
			     x->left_out, x->resolution,   x->floor};
	const double dy[] = {y->tmd,      y->uncalibrated, y->calibration, y->spread,
			     y->left_out, y->resolution,   y->floor};
	assert_memory_equal(dx, dy, sizeof(dx));
	assert_int_equal(x->repeats, y->repeats);
	assert_int_equal(x->worst, y->worst);
	assert_int_equal(x->excluded, y->excluded);
}

/* pmcf_epd_compute_many gives every target what pmcf_epd_compute gives it,
 * bit for bit, whatever the options; targets with other events (not
 * sharing the reference side) are evaluated apart; all or nothing. */
static void test_epd_many(void **state)
{
	(void)state;
	const char *s01[] = {"e0", "e1", NULL}, *s12[] = {"e1", "e2", NULL}, *s5[] = {"e5", NULL};
	pmcf_profile *refs[6] = {make_profile(400, 3, 0, NULL), make_profile(400, 3, 0, NULL),
				 make_profile(400, 3, 0, NULL), make_profile(400, 3, 0, s01),
				 make_profile(400, 3, 0, s01),  make_profile(400, 3, 0, s12)};
	pmcf_profile *t[5] = {make_profile(400, 3, 0, NULL), make_profile(400, 3, 1500, NULL),
			      make_profile(300, 3, 0, s01), /* other events: its own group */
			      make_profile(500, 3, 0, NULL), refs[1]};
	for (size_t i = 0; i < pmcf_profile_nxus(t[3]); i += 4)
		pmcf_profile_value_set(t[3], i, 2, PMCF_MISSING);
	for (int v = 0; v < 5; v++) {
		pmcf_epd_opts o = PMCF_EPD_OPTS_INIT;
		o.threads = v == 4 ? 3 : 1;
		if (v == 1)
			o.per_type = 1;
		if (v == 2) {
			o.sample = 2;
			o.seed = 9;
		}
		if (v == 3)
			o.formula = PMCF_EPD_PAPER;
		pmcf_epd_result *many[5];
		assert_int_equal(pmcf_epd_compute_many((const pmcf_profile *const *)t, 5,
						       (const pmcf_profile *const *)refs, 6, &o, many),
				 0);
		for (int k = 0; k < 5; k++) {
			pmcf_epd_result *one;
			assert_int_equal(pmcf_epd_compute(t[k], (const pmcf_profile *const *)refs, 6, &o,
							  &one),
					 0);
			double a = pmcf_epd_value(one), b = pmcf_epd_value(many[k]);
			assert_memory_equal(&a, &b, sizeof(a));
			double l1, h1, l2, h2;
			pmcf_epd_ci(one, &l1, &h1);
			pmcf_epd_ci(many[k], &l2, &h2);
			assert_memory_equal(&l1, &l2, sizeof(l1));
			assert_memory_equal(&h1, &h2, sizeof(h1));
			assert_int_equal(pmcf_epd_npairs(one), pmcf_epd_npairs(many[k]));
			assert_int_equal(pmcf_epd_nexcluded(one), pmcf_epd_nexcluded(many[k]));
			assert_int_equal(pmcf_epd_uncovered(one), pmcf_epd_uncovered(many[k]));
			assert_int_equal(pmcf_epd_total_pairs(one), pmcf_epd_total_pairs(many[k]));
			for (size_t q = 0; q < pmcf_epd_npairs(one); q++)
				assert_same_pair(pmcf_epd_pair_at(one, q), pmcf_epd_pair_at(many[k], q));
			pmcf_epd_result_free(one);
		}
		/* the distorted target scores worse than the fresh one */
		assert_true(pmcf_epd_value(many[1]) > 2 * pmcf_epd_value(many[0]));
		for (int k = 0; k < 5; k++)
			pmcf_epd_result_free(many[k]);
	}
	/* one target without a covered pair: an error, no result for any */
	pmcf_profile *none = make_profile(100, 6, 0, s5);
	pmcf_profile *two[2] = {t[0], none};
	pmcf_epd_result *out[2] = {(pmcf_epd_result *)1, (pmcf_epd_result *)1};
	assert_int_equal(pmcf_epd_compute_many((const pmcf_profile *const *)two, 2,
					       (const pmcf_profile *const *)refs, 6, NULL, out),
			 PMCF_ENOENT);
	assert_null(out[0]);
	assert_null(out[1]);
	assert_int_equal(pmcf_epd_compute_many((const pmcf_profile *const *)two, 0,
					       (const pmcf_profile *const *)refs, 6, NULL, out),
			 PMCF_EINVAL);
	pmcf_profile_free(none);
	for (int k = 0; k < 4; k++)
		pmcf_profile_free(t[k]);
	for (int k = 0; k < 6; k++)
		pmcf_profile_free(refs[k]);
}

/* The column of event name in p */
static const double *column_of(const pmcf_profile *p, const char *name)
{
	long k = pmcf_profile_event_find(p, name);
	assert_true(k >= 0);
	return pmcf_profile_column_const(p, (size_t)k);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The Correlation Error ranks each column once: every coefficient is still
 * pmcf_spearman's to the last bit (ties, missing values), and
 * pmcf_correrr_compute_many gives every target what pmcf_correrr_compute
 * gives it. */
static void test_correrr_many(void **state)
{
	(void)state;
	const char *s02[] = {"e0", "e2", NULL}, *s123[] = {"e1", "e2", "e3", NULL}, *s5[] = {"e5", NULL};
	pmcf_profile *refs[4] = {make_profile(200, 4, 0, NULL), make_profile(200, 4, 0, NULL),
				 make_profile(200, 4, 0, s123), make_profile(200, 4, 0, NULL)};
	/* ties in one reference: e2 rounded to hundreds */
	for (size_t i = 0; i < 200; i++) {
		double v = pmcf_profile_value(refs[1], i, 3);
		pmcf_profile_value_set(refs[1], i, 3, 100 * floor(v / 100));
	}
	pmcf_profile *t[5] = {make_profile(200, 4, 0, NULL), make_profile(250, 4, 0, NULL),
			      make_profile(200, 4, 0, s02), make_profile(200, 4, 900, NULL), refs[0]};
	for (size_t i = 0; i < 250; i += 5) /* missing values: pmcf_spearman drops rows per pair */
		pmcf_profile_value_set(t[1], i, 2, PMCF_MISSING);
	for (size_t i = 0; i < 200; i++) /* e3 scrambled */
		pmcf_profile_value_set(t[3], i, 4, urand());
	pmcf_correrr_result *many[5];
	assert_int_equal(pmcf_correrr_compute_many((const pmcf_profile *const *)t, 5,
						   (const pmcf_profile *const *)refs, 4, many),
			 0);
	for (int k = 0; k < 5; k++) {
		pmcf_correrr_result *one;
		assert_int_equal(pmcf_correrr_compute(t[k], (const pmcf_profile *const *)refs, 4, &one), 0);
		double a = pmcf_correrr_value(one), b = pmcf_correrr_value(many[k]);
		assert_memory_equal(&a, &b, sizeof(a));
		assert_int_equal(pmcf_correrr_npairs(one), pmcf_correrr_npairs(many[k]));
		for (size_t q = 0; q < pmcf_correrr_npairs(one); q++) {
			const pmcf_correrr_pair *x = pmcf_correrr_pair_at(one, q),
						*y = pmcf_correrr_pair_at(many[k], q);
			assert_string_equal(x->a, y->a);
			assert_string_equal(x->b, y->b);
			assert_memory_equal(&x->target, &y->target, sizeof(double));
			assert_memory_equal(&x->reference, &y->reference, sizeof(double));
			assert_int_equal(x->repeats, y->repeats);
			/* against pmcf_spearman itself */
			size_t n = pmcf_profile_nxus(t[k]);
			double want = pmcf_spearman(column_of(t[k], x->a), column_of(t[k], x->b), n);
			assert_memory_equal(&x->target, &want, sizeof(double));
			double rr[4];
			unsigned nr = 0;
			for (int r = 0; r < 4; r++)
				if (pmcf_profile_event_find(refs[r], x->a) >= 0 &&
				    pmcf_profile_event_find(refs[r], x->b) >= 0)
					rr[nr++] = pmcf_spearman(column_of(refs[r], x->a),
								 column_of(refs[r], x->b),
								 pmcf_profile_nxus(refs[r]));
			assert_int_equal(nr, x->repeats);
			qsort(rr, nr, sizeof(double), cmp_dbl);
			double med =
				nr % 2 ? rr[nr / 2] : rr[nr / 2 - 1] + 0.5 * (rr[nr / 2] - rr[nr / 2 - 1]);
			assert_memory_equal(&x->reference, &med, sizeof(double));
		}
		pmcf_correrr_result_free(one);
	}
	assert_true(pmcf_correrr_value(many[3]) > 2 * pmcf_correrr_value(many[0]));
	for (int k = 0; k < 5; k++)
		pmcf_correrr_result_free(many[k]);
	/* one target without a pair in any reference: an error, no result */
	pmcf_profile *none = make_profile(100, 6, 0, s5);
	pmcf_profile *two[2] = {t[0], none};
	pmcf_correrr_result *out[2] = {(pmcf_correrr_result *)1, (pmcf_correrr_result *)1};
	assert_int_equal(pmcf_correrr_compute_many((const pmcf_profile *const *)two, 2,
						   (const pmcf_profile *const *)refs, 4, out),
			 PMCF_ENOENT);
	assert_null(out[0]);
	assert_null(out[1]);
	pmcf_profile_free(none);
	for (int k = 0; k < 4; k++)
		pmcf_profile_free(t[k]);
	for (int k = 0; k < 4; k++)
		pmcf_profile_free(refs[k]);
}

static void test_truth_own(void **state)
{
	(void)state;
	pmcf_profile *p = make_profile(100, 2, 0, NULL);
	pmcf_epd_result *dummy = NULL;
	(void)dummy;
	pmcf_truth_result *r;
	assert_int_equal(pmcf_truth_compare(p, NULL, &r), PMCF_ENOENT);
	size_t t0, t1;
	assert_int_equal(pmcf_profile_truth_event_add(p, "e0", &t0), 0);
	assert_int_equal(pmcf_profile_truth_event_add(p, "e1", &t1), 0);
	double *c0 = pmcf_profile_truth_column(p, t0), *c1 = pmcf_profile_truth_column(p, t1);
	for (size_t i = 0; i < 100; i++) {
		double v0 = pmcf_profile_value(p, i, 1), v1 = pmcf_profile_value(p, i, 2);
		c0[i] = v0;                        /* exact */
		c1[i] = v1 / (i < 50 ? 1.1 : 1.3); /* 10 % or 30 % too high */
		if (i >= 90)
			pmcf_profile_value_set(p, i, 2, PMCF_MISSING);
	}
	assert_int_equal(pmcf_truth_compare(p, NULL, &r), 0);
	assert_string_equal(pmcf_truth_mode(r), "own");
	assert_int_equal(pmcf_truth_nevents(r), 2);
	const pmcf_truth_event *e0 = pmcf_truth_event_at(r, 0), *e1 = pmcf_truth_event_at(r, 1);
	assert_true(e0->median_rel == 0 && e0->p90_rel == 0);
	assert_int_equal(e1->missing, 10);
	assert_int_equal(e1->values, 90);
	/* a missing value counts as error 1: 50 x 0.1, 40 x 0.3, 10 x 1 */
	assert_true(fabs(e1->median_rel - 0.2) < 1e-9);
	assert_true(fabs(e1->p90_rel - 0.37) < 1e-9);
	double med, p90, miss;
	pmcf_truth_summary(r, &med, &p90, &miss);
	assert_true(fabs(miss - 10.0 / 200) < 1e-12);
	/* over the events' medians {0, 0.2} */
	assert_true(fabs(med - 0.1) < 1e-9 && fabs(p90 - 0.18) < 1e-9);
	/* the first summary: every present value pooled, missing left out
	 * (100 x 0, 50 x 0.1, 40 x 0.3) */
	pmcf_truth_summary_pooled(r, &med, &p90, &miss);
	assert_true(med == 0 && fabs(p90 - 0.3) < 1e-9);
	assert_true(fabs(miss - 10.0 / 200) < 1e-12);
	pmcf_truth_result_free(r);

	/* fused: e0 copied from the XU compared with (source 0), e1 from source
	 * 1 and 20 % off; the copies are exact and must not dilute the median */
	for (size_t i = 0; i < 100; i++) {
		pmcf_profile_value_set(p, i, 2, pmcf_profile_value(p, i, 1) * 1.2);
		c1[i] = pmcf_profile_value(p, i, 1);
	}
	uint32_t si;
	assert_int_equal(pmcf_profile_source_add(p, "a.pmcf", "a", &si), 0);
	assert_int_equal(pmcf_profile_source_add(p, "b.pmcf", "b", &si), 0);
	assert_int_equal(pmcf_profile_provenance_enable(p), 0);
	for (size_t i = 0; i < 100; i++) {
		assert_int_equal(pmcf_profile_provenance_set(p, i, 1, 0, (int64_t)i), 0);
		assert_int_equal(pmcf_profile_provenance_set(p, i, 2, 1, (int64_t)(99 - i)), 0);
	}
	assert_int_equal(pmcf_truth_compare(p, NULL, &r), 0);
	e0 = pmcf_truth_event_at(r, 0);
	e1 = pmcf_truth_event_at(r, 1);
	assert_int_equal(e0->from_base, 100);
	assert_int_equal(e0->values, 0);
	assert_true(e0->median_rel != e0->median_rel);
	assert_int_equal(e1->from_base, 0);
	assert_int_equal(e1->values, 100);
	pmcf_truth_summary(r, &med, &p90, &miss);
	assert_true(fabs(med - 0.2) < 1e-9 && fabs(p90 - 0.2) < 1e-9 && miss == 0);
	pmcf_truth_summary_pooled(r, &med, &p90, &miss);
	assert_true(fabs(med - 0.1) < 1e-9); /* half exact: what the first summary showed */
	pmcf_truth_result_free(r);
	pmcf_profile_free(p);
}

/* ---- the pair covering -------------------------------------------------------- */

/* Does some choice of at most `left` of the sets max[] (event bitmasks)
 * cover every pair of need[] (bitmask pairs)? */
static int coverable(const unsigned *max, size_t nmax, size_t from, const unsigned *need, size_t nneed,
		     const unsigned char *done, size_t left)
{
	size_t first = nneed;
	for (size_t i = 0; i < nneed && first == nneed; i++)
		if (!done[i])
			first = i;
	if (first == nneed)
		return 1;
	if (!left)
		return 0;
	unsigned char d2[64];
	for (size_t s = from; s < nmax; s++) {
		if ((max[s] & need[first]) != need[first])
			continue;
		for (size_t i = 0; i < nneed; i++)
			d2[i] = done[i] || (max[s] & need[i]) == need[i];
		/* the first uncovered pair must be covered by one of the sets: any order */
		if (coverable(max, nmax, 0, need, nneed, d2, left - 1))
			return 1;
	}
	return 0;
}

/* Checks a covering against the catalogue: every set fits, every pair that
 * fits is in a set, the impossible pairs are exactly those that do not fit,
 * the bound is at most the sets found; for up to 7 events, that no covering
 * with fewer sets than the bound exists (exhaustive). */
/* The covering of names ev[0..n) of c (resolved first). */
static int cover_names(const pmcf_catalog *c, const char *const *ev, size_t n, unsigned pmcs, uint64_t seed,
		       pmcf_cover **out)
{
	pmcf_evlist *l;
	*out = NULL;
	int err = pmcf_evlist_from_names(c, ev, n, &l);
	if (!err)
		err = pmcf_cover_pairs_evlist(l, pmcs, seed, out);
	pmcf_evlist_free(l);
	return err;
}

static void check_cover(const pmcf_catalog *c, const char **ev, size_t n, unsigned pmcs, uint64_t seed)
{
	pmcf_cover *cv;
	assert_int_equal(cover_names(c, ev, n, pmcs, seed, &cv), 0);
	size_t ns = pmcf_cover_nsets(cv), lb = pmcf_cover_lower_bound(cv), a, b, d;
	pmcf_cover_bound_parts(cv, &a, &b, &d);
	assert_true(lb >= a && lb >= b && lb >= d);
	if (lb > ns)
		fail_msg("bound %zu above the %zu sets found (%zu events, pmcs %u)", lb, ns, n, pmcs);
	char why[256];
	uint64_t setmask[256]; /* events as bits: up to 64 events */
	assert_true(ns <= 256 && n <= 64);
	for (size_t s = 0; s < ns; s++) {
		size_t k;
		const char *const *set = pmcf_cover_events_at(cv, s, &k);
		assert_int_equal(pmcf_catalog_check_events(c, set, k, pmcs, why, sizeof(why)), 1);
		setmask[s] = 0;
		for (size_t i = 0; i < k; i++)
			for (size_t j = 0; j < n; j++)
				if (strcmp(set[i], ev[j]) == 0)
					setmask[s] |= 1ull << j;
	}
	size_t nimp = 0, nneed = 0;
	unsigned need[64];
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			const char *pr[2] = {ev[i], ev[j]};
			int ok = pmcf_catalog_check_events(c, pr, 2, pmcs, why, sizeof(why));
			uint64_t m = 1ull << i | 1ull << j;
			int covered = 0;
			for (size_t s = 0; s < ns; s++)
				covered |= (setmask[s] & m) == m;
			if (ok != covered)
				fail_msg("pair %s %s: fits %d, covered %d", ev[i], ev[j], ok, covered);
			if (!ok) {
				int listed = 0;
				for (size_t k = 0; k < pmcf_cover_nimpossible(cv); k++) {
					const char *x, *y;
					pmcf_cover_impossible(cv, k, &x, &y);
					listed |= (!strcmp(x, ev[i]) && !strcmp(y, ev[j])) ||
						  (!strcmp(x, ev[j]) && !strcmp(y, ev[i]));
				}
				assert_true(listed);
				nimp++;
			} else if (nneed < 64 && n <= 7) { /* the exhaustive check below */
				need[nneed++] = (unsigned)m;
			}
		}
	assert_int_equal(pmcf_cover_nimpossible(cv), nimp);
	if (n <= 7 && lb > 1) {
		/* the maximal countable sets, then no lb - 1 of them cover all */
		unsigned fitm[128], maxm[128];
		size_t nf = 0, nmax = 0;
		for (unsigned m = 1; m < 1u << n; m++) {
			const char *set[8];
			size_t k = 0;
			for (size_t i = 0; i < n; i++)
				if (m >> i & 1)
					set[k++] = ev[i];
			if (pmcf_catalog_check_events(c, set, k, pmcs, why, sizeof(why)) == 1)
				fitm[nf++] = m;
		}
		for (size_t i = 0; i < nf; i++) {
			int maximal = 1;
			for (size_t j = 0; j < nf && maximal; j++)
				maximal = j == i || (fitm[j] & fitm[i]) != fitm[i];
			if (maximal)
				maxm[nmax++] = fitm[i];
		}
		unsigned char done[64] = {0};
		if (coverable(maxm, nmax, 0, need, nneed, done, lb - 1))
			fail_msg("a covering with %zu sets exists below the bound %zu", lb - 1, lb);
	}
	pmcf_cover_free(cv);
}

static void test_cover_random(void **state)
{
	(void)state;
	const char *machines[2] = {"cholesky", "cholesky,machine=xeon192"};
	uint64_t r = 12345;
	for (int m = 0; m < 2; m++) {
		pmcf_catalog *c;
		assert_int_equal(pmcf_catalog_sim(machines[m], &c), 0);
		const char *all[64];
		size_t na = 0;
		for (size_t i = 0; i < pmcf_catalog_size(c) && na < 64; i++)
			if (strcmp(pmcf_catalog_at(c, i)->name, "duration") != 0)
				all[na++] = pmcf_catalog_at(c, i)->name;
		for (int t = 0; t < 60; t++) {
			/* a random small catalogue: a few events, a random counter budget */
			size_t n = 2 + pmcfi_splitmix64(&r) % (t < 40 ? 6 : 12);
			unsigned pmcs = (unsigned)(pmcfi_splitmix64(&r) % 6);
			const char *ev[16];
			for (size_t i = 0; i < n; i++) {
				int dup;
				do {
					ev[i] = all[pmcfi_splitmix64(&r) % na];
					dup = 0;
					for (size_t j = 0; j < i; j++)
						dup |= ev[j] == ev[i];
				} while (dup);
			}
			check_cover(c, ev, n, pmcs, pmcfi_splitmix64(&r));
		}
		pmcf_catalog_free(c);
	}
}

static void test_cover_all_events(void **state)
{
	(void)state;
	pmcf_catalog *c;
	assert_int_equal(pmcf_catalog_sim("cholesky", &c), 0);
	const char *all[64];
	size_t na = 0;
	for (size_t i = 0; i < pmcf_catalog_size(c) && na < 64; i++)
		if (strcmp(pmcf_catalog_at(c, i)->name, "duration") != 0)
			all[na++] = pmcf_catalog_at(c, i)->name;
	assert_int_equal(na, 33);
	check_cover(c, all, na, 0, 1);
	pmcf_cover *cv, *cv2;
	assert_int_equal(cover_names(c, all, na, 0, 1, &cv), 0);
	/* the offcore-response conflicts: two pairs never fit */
	assert_int_equal(pmcf_cover_nimpossible(cv), 2);
	const char *x, *y;
	pmcf_cover_impossible(cv, 0, &x, &y);
	assert_true(strstr(x, "PAPI_L3_") && strstr(y, "PAPI_L3_"));
	/* the bound of docs/accuracy.md: 27 classes (aliases merged, fixed-counter
	 * events free), 4 per execution; derived events need 13 sets */
	size_t a, b, d;
	pmcf_cover_bound_parts(cv, &a, &b, &d);
	assert_int_equal(a, 59);
	assert_int_equal(b, 13);
	assert_int_equal(d, 64);
	assert_int_equal(pmcf_cover_lower_bound(cv), 64);
	assert_true(pmcf_cover_nsets(cv) < 79); /* the first greedy planner's count */
	/* deterministic for a seed */
	assert_int_equal(cover_names(c, all, na, 0, 1, &cv2), 0);
	assert_int_equal(pmcf_cover_nsets(cv), pmcf_cover_nsets(cv2));
	for (size_t s = 0; s < pmcf_cover_nsets(cv); s++) {
		size_t k1, k2;
		const char *const *s1 = pmcf_cover_events_at(cv, s, &k1), *const *s2 =
										  pmcf_cover_events_at(cv2, s,
												       &k2);
		assert_int_equal(k1, k2);
		for (size_t i = 0; i < k1; i++)
			assert_string_equal(s1[i], s2[i]);
	}
	pmcf_cover_free(cv);
	pmcf_cover_free(cv2);
	/* errors */
	assert_int_equal(cover_names(c, all, 1, 0, 1, &cv), PMCF_ESYNTAX);
	const char *bad[2] = {"PAPI_TOT_INS", "PAPI_NOPE"};
	assert_int_equal(cover_names(c, bad, 2, 0, 1, &cv), PMCF_EEVENT);
	pmcf_catalog_free(c);
}

/* Consistency: a profile built with known violations. XU i has duration
 * 1000; task-clock breaks it on XUs 1, 2 (1021 is within 2 % + 2 us, 3100
 * is not; 5000 is not) and minor-faults > page-faults on XU 3; values of
 * XU 2 come from two sources, of XU 1 from one; major-faults is absent. */
static void test_consistency(void **state)
{
	(void)state;
	static const struct {
		int line;
		double dur, tc, pf, minf;
		int32_t tc_src;
	} rows[] = {
		{__LINE__, 1000, 900, 5, 5, 0},          /* fine: equal faults */
		{__LINE__, 1000, 3100, 5, 4, 0},         /* task-clock > 1000 * 1.02 + 2000 */
		{__LINE__, 1000, 5000, 0, 0, 1},         /* the same, values of two sources */
		{__LINE__, 1000, 3020, 2, 3, 1},         /* 3020 within the slack; minor > page */
		{__LINE__, 1000, PMCF_MISSING, 1, 1, 0}, /* not checked for task-clock */
	};
	const size_t nr = sizeof(rows) / sizeof(rows[0]);
	pmcf_profile *p;
	uint32_t t;
	assert_int_equal(pmcf_profile_new(&p), 0);
	assert_int_equal(pmcf_profile_type_add(p, PMCF_XU_TASK, "t", "", &t), 0);
	static const char *const ev[] = {"duration", "task-clock", "page-faults", "minor-faults"};
	for (size_t e = 0; e < 4; e++)
		assert_int_equal(pmcf_profile_event_add(p, ev[e], NULL), 0);
	assert_int_equal(pmcf_profile_source_add(p, "a.pmcf", "", NULL), 0);
	assert_int_equal(pmcf_profile_source_add(p, "b.pmcf", "", NULL), 0);
	assert_int_equal(pmcf_profile_provenance_enable(p), 0);
	for (size_t i = 0; i < nr; i++) {
		pmcf_xu xu = {.type = t, .end_ns = 1000};
		assert_int_equal(pmcf_profile_xu_add(p, &xu, NULL), 0);
		const double v[4] = {rows[i].dur, rows[i].tc, rows[i].pf, rows[i].minf};
		for (size_t e = 0; e < 4; e++) {
			assert_int_equal(pmcf_profile_value_set(p, i, e, v[e]), 0);
			assert_int_equal(pmcf_profile_provenance_set(p, i, e, e == 1 ? rows[i].tc_src : 0,
								     (int64_t)i),
					 0);
		}
	}
	pmcf_consistency c[16] = {PMCF_CONSISTENCY_INIT};
	size_t n;
	assert_true(pmcf_consistency_nrelations() <= 16);
	assert_int_equal(pmcf_consistency_check(p, c, 16, &n), 0);
	assert_int_equal(n, 2); /* task-clock <= duration, minor-faults <= page-faults */
	assert_string_equal(c[0].lhs, "task-clock");
	assert_string_equal(c[0].rhs, "duration");
	assert_int_equal(c[0].checked, nr - 1);
	assert_int_equal(c[0].violated, 2);
	assert_int_equal(c[0].cross, 1);
	assert_string_equal(c[1].lhs, "minor-faults");
	assert_int_equal(c[1].checked, nr);
	assert_int_equal(c[1].violated, 1);
	assert_int_equal(c[1].cross, 0);
	/* cap bounds the output; no relation of a profile without the events */
	assert_int_equal(pmcf_consistency_check(p, c, 1, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(pmcf_consistency_check(NULL, c, 16, &n), PMCF_EINVAL);
	pmcf_profile *q;
	assert_int_equal(pmcf_profile_new(&q), 0);
	assert_int_equal(pmcf_profile_event_add(q, "duration", NULL), 0);
	assert_int_equal(pmcf_consistency_check(q, c, 16, &n), 0);
	assert_int_equal(n, 0);
	pmcf_profile_free(q);
	pmcf_profile_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tmd_by_hand),
		cmocka_unit_test(test_consistency),
		cmocka_unit_test(test_epd_calibration),
		cmocka_unit_test(test_epd_constant_event),
		cmocka_unit_test(test_epd_degenerate_by_hand),
		cmocka_unit_test(test_epd_missing_and_coverage),
		cmocka_unit_test(test_spearman_correrr),
		cmocka_unit_test(test_epd_many),
		cmocka_unit_test(test_correrr_many),
		cmocka_unit_test(test_truth_own),
		cmocka_unit_test(test_cover_random),
		cmocka_unit_test(test_cover_all_events),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
