/* Unit tests of the combination strategies on hand-built profiles shaped
 * like fuse-task-parallel Fig. 2: two executions of six tasks of two types,
 * each monitoring part of the events. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "combine/combine_impl.h"
#include "profile/bare.h"
#include "pmcfuse/combine.h"
#include "pmcfuse/profile.h"
#include "util/rng.h"

/* One XU of a hand-built profile: type (0 "a", 1 "b"), label, start, and
 * values for the profile's events in order (duration first). */
struct hx {
	uint32_t type;
	const char *label;
	uint64_t start;
	double v[4];
};

static pmcf_profile *mk(const char *program, const char *const *events, size_t ne, const struct hx *x,
			size_t nx)
{
	pmcf_profile *p;
	assert_int_equal(pmcf_profile_new(&p), 0);
	assert_int_equal(pmcf_profile_meta_set(p, PMCF_META_PROGRAM, program), 0);
	assert_int_equal(pmcf_profile_meta_set(p, PMCF_META_COMPLETE, "1"), 0);
	uint32_t t;
	assert_int_equal(pmcf_profile_type_add(p, PMCF_XU_TASK, "a", "", &t), 0);
	assert_int_equal(pmcf_profile_type_add(p, PMCF_XU_TASK, "b", "", &t), 0);
	for (size_t e = 0; e < ne; e++)
		assert_int_equal(pmcf_profile_event_add(p, events[e], NULL), 0);
	for (size_t i = 0; i < nx; i++) {
		pmcf_xu xu = {.type = x[i].type,
			      .thread = 0,
			      .cpu = 0,
			      .start_ns = x[i].start,
			      .end_ns = x[i].start + (uint64_t)x[i].v[0],
			      .label = x[i].label,
			      .parent_label = ""};
		size_t k;
		assert_int_equal(pmcf_profile_xu_add(p, &xu, &k), 0);
		for (size_t e = 0; e < ne; e++)
			assert_int_equal(pmcf_profile_value_set(p, k, e, x[i].v[e]), 0);
	}
	return p;
}

static unsigned fuse_threads; /* opts.threads of fuse() */

static pmcf_profile *fuse(int strategy, uint64_t seed, pmcf_profile **in, size_t n, pmcf_combine_stats *st)
{
	pmcf_combine_opts o = PMCF_COMBINE_OPTS_INIT;
	o.strategy = strategy;
	o.seed = seed;
	o.threads = fuse_threads;
	pmcf_profile *out = NULL;
	if (st) {
		memset(st, 0, sizeof(*st));
		st->size = sizeof(*st);
	}
	int err = pmcf_combine((const pmcf_profile *const *)in, n, &o, &out, st);
	if (err)
		fail_msg("combine failed: %s (%s)", pmcf_strerror(err), pmcf_errdetail());
	return out;
}

/* Source XU in input j of fused XU f (through the provenance of an event
 * owned by input j). */
static int64_t src_of(const pmcf_profile *p, size_t f, const char *event)
{
	long e = pmcf_profile_event_find(p, event);
	assert_true(e >= 0);
	int32_t s;
	int64_t x;
	assert_int_equal(pmcf_profile_provenance_get(p, f, (size_t)e, &s, &x), 0);
	return x;
}

static double val(const pmcf_profile *p, size_t f, const char *event)
{
	return pmcf_profile_value(p, f, (size_t)pmcf_profile_event_find(p, event));
}

/* Every value of fused profile f is written once by the combination (the
 * XUs are appended without values): with a source, the source's value; with
 * none, a missing value and source -1, XU -1. */
static void check_every_value(const pmcf_profile *f, pmcf_profile *const *in)
{
	for (size_t i = 0; i < pmcf_profile_nxus(f); i++)
		for (size_t e = 0; e < pmcf_profile_nevents(f); e++) {
			int32_t s;
			int64_t x;
			assert_int_equal(pmcf_profile_provenance_get(f, i, e, &s, &x), 0);
			double v = pmcf_profile_value(f, i, e);
			if (s < 0) {
				assert_true(pmcf_is_missing(v));
				assert_int_equal(x, -1);
				continue;
			}
			long se = pmcf_profile_event_find(in[s], pmcf_profile_event_name(f, e));
			assert_true(se >= 0 && x >= 0);
			double w = pmcf_profile_value(in[s], (size_t)x, (size_t)se);
			assert_memory_equal(&v, &w, sizeof(v));
		}
}

static const char *const EA[] = {"duration", "e1", "e2"};
static const char *const EB[] = {"duration", "e3"};

/* Fig. 2: P_alpha and P_beta with the same six tasks, executed in another
 * order and with slightly different durations. */
static const struct hx PA[] = {
	{0, "0", 0, {100, 1, 11, 0}},      {0, "0.0", 10, {200, 2, 12, 0}},
	{1, "0.1", 20, {300, 3, 13, 0}},   {1, "0.0.0", 30, {400, 4, 14, 0}},
	{1, "0.0.1", 40, {500, 5, 15, 0}}, {1, "0.1.0", 50, {600, 6, 16, 0}},
};
static const struct hx PB[] = {
	{1, "0.1.0", 5, {605, 36, 0, 0}}, {0, "0.0", 12, {198, 32, 0, 0}}, {1, "0.0.1", 31, {495, 35, 0, 0}},
	{0, "0", 1, {103, 31, 0, 0}},     {1, "0.1", 45, {301, 33, 0, 0}}, {1, "0.0.0", 60, {402, 34, 0, 0}},
};

static void test_ctc_fig2(void **state)
{
	(void)state;
	pmcf_profile *in[2] = {mk("prog", EA, 3, PA, 6), mk("prog", EB, 2, PB, 6)};
	pmcf_combine_stats st;
	pmcf_profile *f = fuse(PMCF_COMBINE_CTC, 1, in, 2, &st);
	assert_int_equal(pmcf_profile_nxus(f), 6);
	assert_int_equal(pmcf_profile_nevents(f), 4);
	assert_int_equal(st.complete_xus, 6);
	assert_string_equal(pmcf_profile_meta_get(f, PMCF_META_SOURCE), "fused");
	assert_string_equal(pmcf_profile_meta_get(f, PMCF_META_STRATEGY), "ctc");
	/* type a by start: alpha 0,1 ; beta 3 (t=1), 1 (t=12) */
	assert_int_equal(src_of(f, 0, "e3"), 3);
	assert_int_equal(src_of(f, 1, "e3"), 1);
	/* type b by start: alpha 2,3,4,5 ; beta 0 (5), 2 (31), 4 (45), 5 (60) */
	assert_int_equal(src_of(f, 2, "e3"), 0);
	assert_int_equal(src_of(f, 5, "e3"), 5);
	/* every XU has every event; duration from the first profile */
	for (size_t i = 0; i < 6; i++)
		for (size_t e = 0; e < 4; e++)
			assert_false(pmcf_is_missing(pmcf_profile_value(f, i, e)));
	assert_true(val(f, 2, "duration") == 300);
	assert_true(val(f, 2, "e3") == 36);
	for (int k = 0; k < 2; k++)
		pmcf_profile_free(in[k]);
	pmcf_profile_free(f);
}

/* MPI ranks: each input holds Fig. 2's tasks twice, once per rank (same
 * labels and types, start times interleaved, the ranks in opposite order);
 * every strategy pairs XUs of the same rank only and the fused XUs keep
 * their rank. */
static void test_ranks_never_paired(void **state)
{
	(void)state;
	struct hx a2[12], b2[12];
	for (size_t i = 0; i < 12; i++) {
		a2[i] = PA[i % 6];
		b2[i] = PB[i % 6];
		a2[i].start += i / 6;
		b2[i].start += i / 6;
		b2[i].v[0] += (double)(i / 6) * 3;
	}
	static const int strategies[] = {PMCF_COMBINE_CTC, PMCF_COMBINE_LGL, PMCF_COMBINE_BC,
					 PMCF_COMBINE_BC_UNLABELED, PMCF_COMBINE_RANDOM};
	for (size_t s = 0; s < sizeof(strategies) / sizeof(strategies[0]); s++) {
		pmcf_profile *in[2] = {mk("prog", EA, 3, a2, 12), mk("prog", EB, 2, b2, 12)};
		/* rank 1 first in input 1: start order and XU order both pair
		 * across ranks unless ranks are kept apart */
		for (size_t i = 0; i < 6; i++) {
			assert_int_equal(pmcf_profile_rank_set(in[0], i + 6, 1), 0);
			assert_int_equal(pmcf_profile_rank_set(in[1], i, 1), 0);
		}
		pmcf_profile *f = fuse(strategies[s], 5, in, 2, NULL);
		assert_int_equal(pmcf_profile_nxus(f), 12);
		assert_true(pmcf_profile_has_ranks(f));
		size_t per[2] = {0, 0};
		for (size_t x = 0; x < 12; x++) {
			int32_t r = pmcf_profile_rank(f, x);
			per[r]++;
			int64_t sa = src_of(f, x, "e1"), sb = src_of(f, x, "e3");
			if (sa >= 0 && pmcf_profile_rank(in[0], (size_t)sa) != r)
				fail_msg("strategy %d: fused XU %zu of rank %d from rank %d of input 0",
					 strategies[s], x, r, pmcf_profile_rank(in[0], (size_t)sa));
			if (sb >= 0 && pmcf_profile_rank(in[1], (size_t)sb) != r)
				fail_msg("strategy %d: fused XU %zu of rank %d from rank %d of input 1",
					 strategies[s], x, r, pmcf_profile_rank(in[1], (size_t)sb));
		}
		assert_int_equal(per[0], 6);
		assert_int_equal(per[1], 6);
		for (int k = 0; k < 2; k++)
			pmcf_profile_free(in[k]);
		pmcf_profile_free(f);
	}
}

static void test_lgl_fig2(void **state)
{
	(void)state;
	pmcf_profile *in[2] = {mk("prog", EA, 3, PA, 6), mk("prog", EB, 2, PB, 6)};
	pmcf_combine_stats st;
	pmcf_profile *f = fuse(PMCF_COMBINE_LGL, 1, in, 2, &st);
	assert_int_equal(pmcf_profile_nxus(f), 6);
	assert_int_equal(st.labels_matched, 6);
	assert_int_equal(st.labels_missing + st.labels_extra + st.labels_duplicate, 0);
	/* same labels: e3 = 30 + alpha's e1 */
	for (size_t i = 0; i < 6; i++) {
		assert_true(val(f, i, "e3") == 30 + val(f, i, "e1"));
		pmcf_xu xu = PMCF_XU_INIT;
		pmcf_profile_xu_get(f, i, &xu);
		assert_string_equal(xu.label, PA[i].label);
		/* match distance on duration only: |d_b - d_a| / range within type */
		assert_false(pmcf_is_missing(pmcf_profile_match_distance(f, i)));
	}
	int32_t s;
	int64_t x;
	assert_int_equal(pmcf_profile_provenance_get(f, 0, 0, &s, &x), 0);
	assert_int_equal(s, 0);
	assert_int_equal(x, 0);
	assert_int_equal(pmcf_profile_nsources(f), 2);
	for (int k = 0; k < 2; k++)
		pmcf_profile_free(in[k]);
	pmcf_profile_free(f);
}

static void test_lgl_missing_extra(void **state)
{
	(void)state;
	struct hx b[6];
	memcpy(b, PB, sizeof(b));
	b[2].label = "0.9";   /* 0.0.1 missing, 0.9 extra */
	b[4].label = "0.1.0"; /* 0.1 missing, 0.1.0 twice */
	pmcf_profile *in[2] = {mk("prog", EA, 3, PA, 6), mk("prog", EB, 2, b, 6)};
	pmcf_combine_stats st;
	pmcf_profile *f = fuse(PMCF_COMBINE_LGL, 1, in, 2, &st);
	assert_int_equal(pmcf_profile_nxus(f), 4);
	assert_int_equal(st.labels_matched, 4);
	assert_int_equal(st.labels_missing, 2);
	assert_int_equal(st.labels_extra, 2);
	assert_int_equal(st.labels_duplicate, 1);
	assert_int_equal(st.partial_xus, 0);
	for (int k = 0; k < 2; k++)
		pmcf_profile_free(in[k]);
	pmcf_profile_free(f);
}

static void test_lgl_needs_labels(void **state)
{
	(void)state;
	struct hx a[2] = {{0, "", 0, {1, 1, 1, 0}}, {0, "", 5, {2, 2, 2, 0}}};
	pmcf_profile *in[2] = {mk("prog", EA, 3, a, 2), mk("prog", EA, 3, a, 2)};
	pmcf_combine_opts o = PMCF_COMBINE_OPTS_INIT;
	o.strategy = PMCF_COMBINE_LGL;
	pmcf_profile *out;
	assert_int_equal(pmcf_combine((const pmcf_profile *const *)in, 2, &o, &out, NULL), PMCF_EINVAL);
	assert_non_null(strstr(pmcf_errdetail(), "no XU labels"));
	for (int k = 0; k < 2; k++)
		pmcf_profile_free(in[k]);
}

/* BC on two identical profiles pairs every XU with itself. */
static void test_bc_identical(void **state)
{
	(void)state;
	enum { N = 500 };
	static const char *const E1[] = {"duration", "x", "y"}, *const E2[] = {"duration", "x", "z"};
	struct hx a[N];
	char labs[N][16];
	for (size_t i = 0; i < N; i++) {
		snprintf(labs[i], sizeof(labs[i]), "0.%zu", i);
		double d = 1000 + (double)((i * 7919) % 211), x = (double)((i * 104729) % 97);
		a[i] = (struct hx){(uint32_t)(i % 2), labs[i], i, {d, x, (double)i, 0}};
	}
	pmcf_profile *in[2] = {mk("prog", E1, 3, a, N), mk("prog", E2, 3, a, N)};
	for (int strategy = PMCF_COMBINE_BC; strategy <= PMCF_COMBINE_BC_UNLABELED; strategy++) {
		pmcf_combine_stats st;
		pmcf_profile *f = fuse(strategy, 3, in, 2, &st);
		assert_int_equal(pmcf_profile_nxus(f), N);
		assert_int_equal(st.complete_xus, N);
		for (size_t i = 0; i < N; i++) {
			assert_int_equal(src_of(f, i, "y"), src_of(f, i, "z"));
			assert_true(val(f, i, "y") == val(f, i, "z"));
			assert_true(pmcf_profile_match_distance(f, i) == 0.0);
			pmcf_xu xu = PMCF_XU_INIT, x0 = PMCF_XU_INIT;
			pmcf_profile_xu_get(f, i, &xu);
			pmcf_profile_xu_get(in[0], (size_t)src_of(f, i, "y"), &x0);
			assert_string_equal(xu.label, x0.label);
		}
		pmcf_profile_free(f);
	}
	for (int k = 0; k < 2; k++)
		pmcf_profile_free(in[k]);
}

/* dmax and relaxation on known inputs (fuse-task-parallel §3.2): one
 * overlapping event (duration), prev {0, 100}, cur {10, 90}: range 100,
 * smallest cross difference 10, so dmax = 10; the first grid pairs 100
 * with 90 (cell 9); the leftovers 0 and 10 are one grid division apart
 * (m = 1), so d becomes 10 / (1 + 1) = 5 and they pair in cell 0. */
static void test_bc_dmax_relaxation(void **state)
{
	(void)state;
	static const char *const E1[] = {"duration", "p"}, *const E2[] = {"duration", "q"};
	struct hx a[2] = {{0, "0.0", 0, {0, 1, 0, 0}}, {0, "0.1", 1, {100, 2, 0, 0}}};
	struct hx b[2] = {{0, "0.0", 0, {10, 3, 0, 0}}, {0, "0.1", 1, {90, 4, 0, 0}}};
	pmcf_profile *in[2] = {mk("prog", E1, 2, a, 2), mk("prog", E2, 2, b, 2)};
	pmcf_combine_stats st;
	pmcf_profile *f = fuse(PMCF_COMBINE_BC, 1, in, 2, &st);
	assert_int_equal(st.bc_dmax, 10);
	assert_int_equal(st.bc_iterations, 2);
	assert_int_equal(pmcf_profile_nxus(f), 2);
	for (size_t i = 0; i < 2; i++) {
		double p = val(f, i, "p"), q = val(f, i, "q");
		assert_true((p == 1 && q == 3) || (p == 2 && q == 4));
	}
	/* match distance: |10 - 0| / 100 and |90 - 100| / 100 */
	assert_true(fabs(pmcf_profile_match_distance(f, 0) - 0.1) < 1e-12);
	pmcf_profile_free(f);

	/* three XUs: smallest cross difference 3 over a range of 100 */
	struct hx c[3] = {{0, "0.0", 0, {0, 1, 0, 0}},
			  {0, "0.1", 1, {40, 2, 0, 0}},
			  {0, "0.2", 2, {100, 3, 0, 0}}};
	struct hx d[3] = {{0, "0.0", 0, {3, 1, 0, 0}},
			  {0, "0.1", 1, {50, 2, 0, 0}},
			  {0, "0.2", 2, {90, 3, 0, 0}}};
	pmcf_profile *in2[2] = {mk("prog", E1, 2, c, 3), mk("prog", E2, 2, d, 3)};
	f = fuse(PMCF_COMBINE_BC, 1, in2, 2, &st);
	assert_int_equal(st.bc_dmax, 33);
	assert_int_equal(st.complete_xus, 3);
	pmcf_profile_free(f);
	for (int k = 0; k < 2; k++) {
		pmcf_profile_free(in[k]);
		pmcf_profile_free(in2[k]);
	}
}

/* BC grids only the XUs near the other side (bc.c, "active XUs") and finds
 * the closest XUs of two cells by a sweep: the fused profiles must be those
 * of gridding every remaining XU and comparing every pair, on clustered
 * values with exact ties, far outliers, two or three overlapping events
 * (with or without an event of each profile's own), unequal XU counts,
 * missing values, real-shaped task trees with tied and zero-inflated
 * counts, and in bc-unlabeled's shuffled order. */
static uint64_t rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

/* f0 and f1 have the same XUs, labels, match distances and provenance. */
static void same_fused(const pmcf_profile *f0, const pmcf_profile *f1)
{
	size_t nx = pmcf_profile_nxus(f0), nev = pmcf_profile_nevents(f0);
	assert_int_equal(pmcf_profile_nxus(f1), nx);
	assert_int_equal(pmcf_profile_nevents(f1), nev);
	for (size_t i = 0; i < nx; i++) {
		pmcf_xu x0 = PMCF_XU_INIT, x1 = PMCF_XU_INIT;
		pmcf_profile_xu_get(f0, i, &x0);
		pmcf_profile_xu_get(f1, i, &x1);
		assert_string_equal(x0.label, x1.label);
		double m0 = pmcf_profile_match_distance(f0, i);
		double m1 = pmcf_profile_match_distance(f1, i);
		assert_true(m0 == m1 || (m0 != m0 && m1 != m1));
		for (size_t e = 0; e < nev; e++) {
			double v0 = pmcf_profile_value(f0, i, e), v1 = pmcf_profile_value(f1, i, e);
			assert_true(v0 == v1 || (v0 != v0 && v1 != v1));
			int32_t s0, s1;
			int64_t i0, i1;
			pmcf_profile_provenance_get(f0, i, e, &s0, &i0);
			pmcf_profile_provenance_get(f1, i, e, &s1, &i1);
			assert_int_equal(s0, s1);
			assert_int_equal(i0, i1);
		}
	}
}

static void test_bc_active_same(void **state)
{
	(void)state;
	enum { N = 400, P = 4 };
	static const char *const E[P][4] = {{"duration", "x", "y", "p0"},
					    {"duration", "x", "y", "p1"},
					    {"duration", "x", "y", "p2"},
					    {"duration", "x", "y", "p3"}};
	static char labs[P][N][16];
	for (int variant = 0; variant < 9; variant++) {
		uint64_t s = 12345 + (uint64_t)variant;
		size_t ne = 2 + (size_t)variant % 3; /* events: duration, x, y, own */
		pmcf_profile *in[P];
		for (size_t j = 0; j < P; j++) {
			struct hx a[N];
			size_t n = N - 37 * j * (variant % 2);
			for (size_t i = 0; i < n; i++) {
				snprintf(labs[j][i], sizeof(labs[j][i]), "0.%zu", (i * 13 + j) % N);
				double c = (double)(rnd(&s) % 5) * 1000; /* clusters */
				a[i] = (struct hx){(uint32_t)(rnd(&s) % 2), labs[j][i], i, {0, 0, 0, 0}};
				for (size_t e = 0; e < 4; e++) {
					double v = c + (double)(rnd(&s) % (variant < 2 ? 1000 : 30));
					if (rnd(&s) % 50 == 0)
						v = 1e6 + (double)(rnd(&s) % 1000); /* far outliers */
					if (variant == 5 && e > 0 && rnd(&s) % 40 == 0)
						v = PMCF_MISSING;
					a[i].v[e] = v;
				}
				a[i].v[0] = fabs(a[i].v[0]) + 1;
				if (variant >= 6) {
					/* real-shaped: a task tree (most tasks alike, a
					 * geometric tail), runs 1.5x apart in speed, tied
					 * and zero-inflated counts */
					unsigned lvl = (unsigned)__builtin_ctzll(i + 1);
					a[i].v[0] = floor(7000.0 * (double)(1u << lvl) *
							  (1 + 0.5 * (double)(j % 3)) *
							  (1 + 0.1 * (double)(rnd(&s) % 100) / 100));
					a[i].v[1] = rnd(&s) % 5 ? 0 : (double)(rnd(&s) % 3);
					a[i].v[2] = floor(a[i].v[0] / 1000);
					if (variant == 8 && rnd(&s) % 60 == 0)
						a[i].v[1] = PMCF_MISSING;
				}
			}
			in[j] = mk("prog", E[j], ne, a, n);
		}
		static const int bcs[4] = {PMCF_COMBINE_BC, PMCF_COMBINE_BC_UNLABELED, PMCF_COMBINE_BC_LABEL,
					   PMCF_COMBINE_BC_LGL};
		for (size_t si = 0; si < 4; si++) {
			int strategy = bcs[si];
			pmcf_combine_stats st0, st1;
			/* the reference: every XU gridded, every pair of XUs of the
			 * closest cells compared, one type at a time; against the
			 * fast paths with the types on 1, 2 and 3 threads */
			pmcfi_cmb_bc_all_active = pmcfi_cmb_bc_all_pairs = pmcfi_cmb_bc_grid_hash = 1;
			fuse_threads = 1;
			pmcf_profile *f0 = fuse(strategy, 7, in, P, &st0);
			pmcfi_cmb_bc_all_active = pmcfi_cmb_bc_all_pairs = 0;
			fuse_threads = 1 + (unsigned)variant % 3;
			/* cells keyed by coordinate sum and hash in every pass, then
			 * by the packed coordinates where they fit (the default) */
			for (int lex = 0; lex < 2; lex++) {
				pmcfi_cmb_bc_grid_hash = !lex;
				pmcf_profile *f1 = fuse(strategy, 7, in, P, &st1);
				assert_int_equal(st0.bc_iterations, st1.bc_iterations);
				assert_int_equal(st0.bc_dmax, st1.bc_dmax);
				same_fused(f0, f1);
				pmcf_profile_free(f1);
			}
			fuse_threads = 0;
			pmcf_profile_free(f0);
		}
		for (size_t j = 0; j < P; j++)
			pmcf_profile_free(in[j]);
	}
}

/* The fused values filled on 1 thread and on 2 and 3 (events interleaved
 * over the threads), every strategy, unequal counts and missing values:
 * the same values, provenance and match distances. */
static void test_fill_threads(void **state)
{
	(void)state;
	enum { N = 300, P = 5 };
	static const char *const E[P][4] = {{"duration", "x", "y", "p0"},
					    {"duration", "x", "p1", "q1"},
					    {"duration", "y", "p2", "q2"},
					    {"duration", "x", "y", "p3"},
					    {"duration", "p4", "q4", "r4"}};
	static char labs[P][N][16];
	uint64_t s = 99;
	pmcf_profile *in[P];
	for (size_t j = 0; j < P; j++) {
		struct hx a[N];
		size_t n = N - 11 * j;
		for (size_t i = 0; i < n; i++) {
			snprintf(labs[j][i], sizeof(labs[j][i]), "0.%zu", (i * 7 + j) % N);
			a[i] = (struct hx){(uint32_t)(rnd(&s) % 2),
					   labs[j][i],
					   rnd(&s) % 100000,
					   {0, 0, 0, 0}};
			for (size_t e = 0; e < 4; e++)
				a[i].v[e] =
					e && rnd(&s) % 30 == 0 ? PMCF_MISSING : (double)(1 + rnd(&s) % 5000);
		}
		in[j] = mk("prog", E[j], 4, a, n);
	}
	for (int strategy = PMCF_COMBINE_CTC; strategy <= PMCF_COMBINE_MATCH; strategy++)
		for (unsigned t = 2; t <= 3; t++) {
			pmcfi_cmb_fill_thread_min = SIZE_MAX;
			fuse_threads = 1;
			pmcf_profile *f0 = fuse(strategy, 3, in, P, NULL);
			pmcfi_cmb_fill_thread_min = 1;
			fuse_threads = t;
			pmcf_profile *f1 = fuse(strategy, 3, in, P, NULL);
			pmcfi_cmb_fill_thread_min = 65536;
			fuse_threads = 0;
			check_every_value(f1, in);
			same_fused(f0, f1);
			pmcf_profile_free(f0);
			pmcf_profile_free(f1);
		}
	for (size_t j = 0; j < P; j++)
		pmcf_profile_free(in[j]);
}

/* bc-unlabeled's shuffle draws its positions ahead (to prefetch them): the
 * same permutation, and the same generator state after, as the textbook
 * loop, for lengths around the look-ahead. */
static void test_bc_shuffle(void **state)
{
	(void)state;
	static const size_t lens[] = {0, 1, 2, 3, 15, 16, 17, 18, 19, 31, 32, 33, 1000};
	for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
		size_t n = lens[l];
		struct pmcfi_cmb_rx a[1000], b[1000];
		for (size_t q = 0; q < n; q++)
			a[q] = b[q] = (struct pmcfi_cmb_rx){(uint32_t)q, (float)q / 2};
		struct pmcfi_rng ra, rb;
		pmcfi_rng_seed(&ra, 42 + n);
		pmcfi_rng_seed(&rb, 42 + n);
		pmcfi_cmb_shuffle(&ra, a, n);
		for (size_t q = n; q > 1; q--) {
			size_t o = pmcfi_rng_below(&rb, (uint32_t)q);
			struct pmcfi_cmb_rx t = b[q - 1];
			b[q - 1] = b[o];
			b[o] = t;
		}
		for (size_t q = 0; q < n; q++) {
			assert_int_equal(a[q].id, b[q].id);
			assert_true(a[q].lb == b[q].lb);
		}
		assert_int_equal(pmcfi_rng_next(&ra), pmcfi_rng_next(&rb));
	}
}

/* Unequal XU counts: CTC and BC keep the larger count per type, the surplus
 * with missing values; LGL keeps the intersection. */
static void test_unequal_counts(void **state)
{
	(void)state;
	pmcf_profile *in[2] = {mk("prog", EA, 3, PA, 6), mk("prog", EB, 2, PB, 5)};
	for (int s = PMCF_COMBINE_CTC; s <= PMCF_COMBINE_BC_LGL; s++) {
		pmcf_combine_stats st;
		pmcf_profile *f = fuse(s, 1, in, 2, &st);
		assert_int_equal(pmcf_profile_nxus(f), s == PMCF_COMBINE_LGL ? 5 : 6);
		assert_int_equal(st.partial_xus, s == PMCF_COMBINE_LGL ? 0 : 1);
		size_t miss = 0;
		for (size_t i = 0; i < pmcf_profile_nxus(f); i++)
			miss += pmcf_is_missing(val(f, i, "e3"));
		assert_int_equal(miss, st.partial_xus);
		check_every_value(f, in);
		pmcf_profile_free(f);
	}
	/* the other way round: the second profile has the surplus */
	pmcf_profile *in2[2] = {mk("prog", EB, 2, PB, 6), mk("prog", EA, 3, PA, 4)};
	pmcf_combine_stats st;
	pmcf_profile *f = fuse(PMCF_COMBINE_BC, 1, in2, 2, &st);
	assert_int_equal(pmcf_profile_nxus(f), 6);
	assert_int_equal(st.partial_xus, 2);
	check_every_value(f, in2);
	pmcf_profile_free(f);
	for (int k = 0; k < 2; k++) {
		pmcf_profile_free(in[k]);
		pmcf_profile_free(in2[k]);
	}
}

/* Every fused XU's base label is the label of its provenance source XU in
 * its base input (joinable with that input); labels taken whole from a
 * source are unique, with unequal counts too (a surplus XU of input 1 may
 * carry a label of input 0); bc's ancestors are prefixes of base labels. */
static void test_base_labels_join(void **state)
{
	(void)state;
	const struct {
		int line;
		const struct hx *a, *b;
		size_t na, nb;
	} rows[] = {
		{__LINE__, PA, PB, 6, 6},
		{__LINE__, PA, PB, 4, 6}, /* ctc: PB's b XUs 0.1, 0.0.0 are surplus */
		{__LINE__, PB, PA, 6, 3},
	};
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		pmcf_profile *in[2] = {mk("prog", EA, 3, rows[r].a, rows[r].na),
				       mk("prog", EB, 2, rows[r].b, rows[r].nb)};
		if (rows[r].a == PB) { /* EB first: duration and e3 from input 0 */
			pmcf_profile_free(in[0]);
			in[0] = mk("prog", EB, 2, rows[r].a, rows[r].na);
			pmcf_profile_free(in[1]);
			in[1] = mk("prog", EA, 3, rows[r].b, rows[r].nb);
		}
		for (int s = PMCF_COMBINE_CTC; s <= PMCF_COMBINE_BC_LGL; s++) {
			pmcf_profile *f = fuse(s, 1, in, 2, NULL);
			size_t nx = pmcf_profile_nxus(f);
			assert_true(pmcf_profile_has_base_labels(f));
			for (size_t i = 0; i < nx; i++) {
				int32_t bs, ps;
				int64_t bx, px;
				const char *bl;
				pmcf_xu xu = PMCF_XU_INIT, sx = PMCF_XU_INIT;
				assert_int_equal(pmcf_profile_base_label_get(f, i, &bs, &bx, &bl), 0);
				assert_int_equal(pmcf_profile_provenance_get(f, i, 0, &ps, &px), 0);
				if (bs != ps || bx != px)
					fail_msg(
						"row at line %d, %s, XU %zu: base %d/%lld, duration from %d/%lld",
						rows[r].line, pmcf_strategy_name(s), i, bs, (long long)bx, ps,
						(long long)px);
				assert_int_equal(pmcf_profile_xu_get(in[bs], (size_t)bx, &sx), 0);
				assert_string_equal(bl, sx.label);
				pmcf_profile_xu_get(f, i, &xu);
				int renamed =
					strncmp(xu.label, bl, strlen(bl)) == 0 && xu.label[strlen(bl)] == '~';
				int ancestor = strlen(xu.label) < strlen(bl) &&
					       strncmp(xu.label, bl, strlen(xu.label)) == 0;
				if (strcmp(xu.label, bl) != 0 && !renamed &&
				    !(ancestor && s == PMCF_COMBINE_BC))
					fail_msg("row at line %d, %s, XU %zu: label %s, base label %s",
						 rows[r].line, pmcf_strategy_name(s), i, xu.label, bl);
				for (size_t k = 0; k < i; k++) {
					pmcf_xu o = PMCF_XU_INIT;
					pmcf_profile_xu_get(f, k, &o);
					const char *ol;
					pmcf_profile_base_label_get(f, k, NULL, NULL, &ol);
					int whole = strlen(o.label) >= strlen(ol) &&
						    strlen(xu.label) >= strlen(bl);
					if (whole && strcmp(o.label, xu.label) == 0)
						fail_msg(
							"row at line %d, %s: XUs %zu and %zu share the label %s",
							rows[r].line, pmcf_strategy_name(s), k, i, xu.label);
				}
			}
			pmcf_profile_free(f);
		}
		for (int k = 0; k < 2; k++)
			pmcf_profile_free(in[k]);
	}
}

static int same_pairing(const pmcf_profile *a, const pmcf_profile *b)
{
	if (pmcf_profile_nxus(a) != pmcf_profile_nxus(b))
		return 0;
	for (size_t i = 0; i < pmcf_profile_nxus(a); i++)
		if (src_of(a, i, "e3") != src_of(b, i, "e3") || src_of(a, i, "e1") != src_of(b, i, "e1"))
			return 0;
	return 1;
}

static void test_seeds_reproduce(void **state)
{
	(void)state;
	pmcf_profile *in[2] = {mk("prog", EA, 3, PA, 6), mk("prog", EB, 2, PB, 6)};
	int strategies[] = {PMCF_COMBINE_RANDOM, PMCF_COMBINE_BC_UNLABELED};
	for (size_t k = 0; k < 2; k++) {
		pmcf_profile *f1 = fuse(strategies[k], 42, in, 2, NULL);
		pmcf_profile *f2 = fuse(strategies[k], 42, in, 2, NULL);
		assert_true(same_pairing(f1, f2));
		pmcf_profile_free(f1);
		pmcf_profile_free(f2);
	}
	/* some seed gives another random pairing */
	pmcf_profile *f1 = fuse(PMCF_COMBINE_RANDOM, 1, in, 2, NULL);
	int differs = 0;
	for (uint64_t seed = 2; seed < 30 && !differs; seed++) {
		pmcf_profile *f2 = fuse(PMCF_COMBINE_RANDOM, seed, in, 2, NULL);
		differs = !same_pairing(f1, f2);
		pmcf_profile_free(f2);
	}
	assert_true(differs);
	pmcf_profile_free(f1);
	for (int k = 0; k < 2; k++)
		pmcf_profile_free(in[k]);
}

static void test_mismatch_refused(void **state)
{
	(void)state;
	pmcf_profile *in[2] = {mk("cholesky", EA, 3, PA, 6), mk("seidel", EB, 2, PB, 6)};
	const char *names[2] = {"chol.pmcf", "seidel.pmcf"};
	pmcf_combine_opts o = PMCF_COMBINE_OPTS_INIT;
	o.names = names;
	pmcf_profile *out = NULL;
	for (int s = PMCF_COMBINE_CTC; s <= PMCF_COMBINE_BC_LGL; s++) {
		o.strategy = s;
		assert_int_equal(pmcf_combine((const pmcf_profile *const *)in, 2, &o, &out, NULL),
				 PMCF_ECONFLICT);
		assert_non_null(strstr(pmcf_errdetail(), "seidel.pmcf"));
		assert_non_null(strstr(pmcf_errdetail(), "--force"));
	}
	o.force = 1;
	assert_int_equal(pmcf_combine((const pmcf_profile *const *)in, 2, &o, &out, NULL), 0);
	pmcf_profile_free(out);
	/* simulated runs differing only in their seed belong together */
	pmcf_profile_meta_set(in[1], PMCF_META_PROGRAM, "cholesky");
	pmcf_profile_meta_set(in[0], PMCF_META_SIM_SPEC, "cholesky,blocks=8,seed=1");
	pmcf_profile_meta_set(in[1], PMCF_META_SIM_SPEC, "cholesky,blocks=8,seed=2");
	o.force = 0;
	assert_int_equal(pmcf_combine((const pmcf_profile *const *)in, 2, &o, &out, NULL), 0);
	pmcf_profile_free(out);
	pmcf_profile_meta_set(in[1], PMCF_META_SIM_SPEC, "cholesky,blocks=9,seed=2");
	assert_int_equal(pmcf_combine((const pmcf_profile *const *)in, 2, &o, &out, NULL), PMCF_ECONFLICT);
	/* options not started from PMCF_COMBINE_OPTS_INIT: the detail says so
	 * (it said "unknown strategy 0") */
	pmcf_combine_opts zero;
	memset(&zero, 0, sizeof(zero));
	zero.size = sizeof(zero);
	assert_int_equal(pmcf_combine((const pmcf_profile *const *)in, 2, &zero, &out, NULL), PMCF_EINVAL);
	assert_string_equal(
		pmcf_errdetail(),
		"pmcf_combine_opts.strategy 0 is no strategy (start from PMCF_COMBINE_OPTS_INIT: bc)");
	for (int k = 0; k < 2; k++)
		pmcf_profile_free(in[k]);
}

/* BC needs each event set to overlap the ones before it. */
static void test_bc_needs_overlap(void **state)
{
	(void)state;
	static const char *const E1[] = {"e1", "e2"}, *const E2[] = {"e3"};
	struct hx a[1] = {{0, "0", 0, {1, 2, 0, 0}}};
	pmcf_profile *in[2] = {mk("prog", E1, 2, a, 1), mk("prog", E2, 1, a, 1)};
	pmcf_combine_opts o = PMCF_COMBINE_OPTS_INIT;
	pmcf_profile *out = NULL;
	assert_int_equal(pmcf_combine((const pmcf_profile *const *)in, 2, &o, &out, NULL), PMCF_EINVAL);
	assert_non_null(strstr(pmcf_errdetail(), "shares no event"));
	o.strategy = PMCF_COMBINE_CTC; /* CTC does not need it */
	assert_int_equal(pmcf_combine((const pmcf_profile *const *)in, 2, &o, &out, NULL), 0);
	assert_int_equal(pmcf_profile_nevents(out), 3);
	pmcf_profile_free(out);
	for (int k = 0; k < 2; k++)
		pmcf_profile_free(in[k]);
}

/* Three profiles: BC folds them in order; first common ancestor labels. */
static void test_bc_three_and_fca(void **state)
{
	(void)state;
	static const char *const E3[] = {"duration", "e4"};
	struct hx c[6];
	memcpy(c, PA, sizeof(c));
	for (size_t i = 0; i < 6; i++)
		c[i].v[1] = 70 + (double)i;
	pmcf_profile *in[3] = {mk("prog", EA, 3, PA, 6), mk("prog", EB, 2, PB, 6), mk("prog", E3, 2, c, 6)};
	pmcf_combine_stats st;
	pmcf_profile *f = fuse(PMCF_COMBINE_BC, 1, in, 3, &st);
	assert_int_equal(pmcf_profile_nxus(f), 6);
	assert_int_equal(pmcf_profile_nevents(f), 5);
	assert_int_equal(st.complete_xus, 6);
	for (size_t i = 0; i < 6; i++) {
		pmcf_xu xu = PMCF_XU_INIT, x0 = PMCF_XU_INIT;
		pmcf_profile_xu_get(f, i, &xu);
		pmcf_profile_xu_get(in[0], (size_t)src_of(f, i, "e1"), &x0);
		/* the label is an ancestor (prefix) of the first source's */
		assert_int_equal(strncmp(xu.label, x0.label, strlen(xu.label)), 0);
		for (size_t e = 0; e < 5; e++)
			assert_false(pmcf_is_missing(pmcf_profile_value(f, i, e)));
	}
	pmcf_match_summary ms = {.size = sizeof(ms)};
	assert_int_equal(pmcf_combine_match_summary(f, &ms), 0);
	assert_int_equal(ms.xus, 6);
	assert_int_equal(ms.measured, 6);
	assert_true(ms.min <= ms.p50 && ms.p50 <= ms.max);
	pmcf_profile_free(f);
	for (int k = 0; k < 3; k++)
		pmcf_profile_free(in[k]);
}

/* bc leaves no more partial XUs than ctc (issue 33: 32 against 22 on three
 * recordings): the 4 XUs that input 1 has beyond input 0 are partial after
 * the first step; input 2 has as many XUs as input 0, 4 of them close to
 * those 4 surplus XUs. Pairing them would leave 4 complete XUs without
 * input 2 (8 partial); the minimum, ctc's, is 4. */
static void test_bc_partial_min(void **state)
{
	(void)state;
	static const char *const E3[] = {"duration", "e4"};
	struct hx a[20], b[24], c[20];
	static char lab[24][16];
	for (size_t k = 0; k < 24; k++)
		snprintf(lab[k], sizeof(lab[k]), "0.%zu", k < 20 ? k : 100 + k);
	for (size_t k = 0; k < 24; k++) {
		double d = k < 20 ? 100 + 10 * (double)k : 1000 + (double)k;
		if (k < 20)
			a[k] = (struct hx){0, lab[k], 10 * k, {d, (double)k, 1, 0}};
		b[k] = (struct hx){0, lab[k], 10 * k, {d + 1, 50 + (double)k, 0, 0}};
	}
	for (size_t k = 0; k < 20; k++) /* 16 like input 0's, 4 like input 1's surplus */
		c[k] = (struct hx){0,
				   lab[k < 16 ? k : k + 4],
				   10 * k,
				   {k < 16 ? 102 + 10 * (double)k : 1001 + (double)k + 4, 70 + (double)k, 0,
				    0}};
	pmcf_profile *in[3] = {mk("prog", EA, 3, a, 20), mk("prog", EB, 2, b, 24), mk("prog", E3, 2, c, 20)};
	pmcf_combine_stats st;
	pmcf_profile *f = fuse(PMCF_COMBINE_CTC, 1, in, 3, &st);
	size_t ctc = st.partial_xus;
	assert_int_equal(ctc, 4);
	pmcf_profile_free(f);
	static const int bcs[] = {PMCF_COMBINE_BC, PMCF_COMBINE_BC_UNLABELED, PMCF_COMBINE_BC_LABEL,
				  PMCF_COMBINE_BC_LGL};
	for (size_t s = 0; s < sizeof(bcs) / sizeof(bcs[0]); s++) {
		f = fuse(bcs[s], 1, in, 3, &st);
		if (st.partial_xus > ctc)
			fail_msg("%s: %zu partial XUs, ctc %zu", pmcf_strategy_name(bcs[s]),
				 (size_t)st.partial_xus, ctc);
		assert_int_equal(pmcf_profile_nxus(f), 24);
		check_every_value(f, in);
		pmcf_profile_free(f);
	}
	for (int k = 0; k < 3; k++)
		pmcf_profile_free(in[k]);
}

static void test_labels(void **state)
{
	(void)state;
	static const struct {
		int line;
		const char *a, *b;
		int cmp;
		const char *fca;
	} rows[] = {
		{__LINE__, "0", "0", 0, "0"},
		{__LINE__, "0", "0.1", -1, "0"},
		{__LINE__, "0.2", "0.10", -1, "0"},
		{__LINE__, "0.10.1", "0.9.5", 1, "0"},
		{__LINE__, "0.1.2", "0.1.3", -1, "0.1"},
		{__LINE__, "0.1.2", "0.1.2.0", -1, "0.1.2"},
		{__LINE__, "0.12", "0.1", 1, "0"},
		{__LINE__, "0.1", "1.1", -1, ""},
		{__LINE__, "0.1@0x40", "0.1@0x41", -1, "0"},
		{__LINE__, "", "0", -1, ""},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const char *a = rows[i].a, *b = rows[i].b;
		int c = pmcfi_cmb_label_cmp(a, strlen(a), b, strlen(b));
		c = (c > 0) - (c < 0);
		if (c != rows[i].cmp || -pmcfi_cmb_label_cmp(b, strlen(b), a, strlen(a)) != c)
			fail_msg("row at line %d: cmp %d", rows[i].line, c);
		size_t l = pmcfi_cmb_label_fca(a, strlen(a), b, strlen(b));
		if (l != strlen(rows[i].fca) || strncmp(a, rows[i].fca, l) != 0)
			fail_msg("row at line %d: fca length %zu", rows[i].line, l);
	}
}

/* Numeric labels: the order of their component keys is pmcfi_cmb_label_cmp's
 * (leading zeros, equal numbers written differently, ancestors first, 19
 * significant digits); BC fuses the same with the keys as with qsort. */
static void test_label_keys(void **state)
{
	(void)state;
	static const struct {
		int line;
		const char *s;
		long n;
	} rows[] = {
		{__LINE__, "", 0},
		{__LINE__, "0", 1},
		{__LINE__, "0.07.0000000000000000000000012", 3},
		{__LINE__, "9999999999999999999", 1},
		{__LINE__, "0.10000000000000000000", -1},
		{__LINE__, "0.", -1},
		{__LINE__, ".1", -1},
		{__LINE__, "0..1", -1},
		{__LINE__, "0.1a", -1},
		{__LINE__, "0.1@0x40", -1},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (pmcfi_cmb_label_ncomp(rows[i].s, strlen(rows[i].s)) != rows[i].n)
			fail_msg("row at line %d", rows[i].line);
	static const char *const comp[] =
		{"0", "00", "7", "07", "10", "9", "010", "9999999999999999999", "0009999999999999999999"};
	enum { N = 300, P = 3 };
	static char labs[P][N][96];
	uint64_t s = 99;
	for (size_t j = 0; j < P; j++)
		for (size_t i = 0; i < N; i++) {
			char *l = labs[j][i];
			size_t depth = rnd(&s) % 5, o = 0;
			for (size_t c = 0; c < depth; c++)
				o += (size_t)snprintf(l + o, 96 - o, "%s%s", c ? "." : "", comp[rnd(&s) % 9]);
			l[o] = 0;
		}
	for (size_t a = 0; a < N; a++)
		for (size_t b = 0; b < N; b++) {
			const char *x = labs[0][a], *y = labs[0][b];
			size_t lx = strlen(x), ly = strlen(y);
			int c = pmcfi_cmb_label_cmp(x, lx, y, ly), k = 0;
			c = (c > 0) - (c < 0);
			for (size_t q = 0; q < 5 && !k; q++) {
				uint64_t u = pmcfi_cmb_label_comp(x, lx, q),
					 v = pmcfi_cmb_label_comp(y, ly, q);
				k = (u > v) - (u < v);
			}
			if (c != k)
				fail_msg("'%s' vs '%s': cmp %d, keys %d", x, y, c, k);
		}
	/* BC with these labels (and one profile of non-numeric ones), keys
	 * against qsort */
	pmcf_profile *in[P];
	static const char *const E[] = {"duration", "x"};
	for (size_t j = 0; j < P; j++) {
		struct hx h[N];
		for (size_t i = 0; i < N; i++) {
			if (j == 2 && i % 7 == 0)
				labs[j][i][0] = 'a';
			h[i] = (struct hx){(uint32_t)(i % 2),
					   labs[j][i],
					   i,
					   {(double)(rnd(&s) % 4 + 1), (double)(rnd(&s) % 3), 0, 0}};
		}
		in[j] = mk("prog", E, 2, h, N);
	}
	for (int strategy = PMCF_COMBINE_BC; strategy <= PMCF_COMBINE_BC_UNLABELED; strategy++) {
		pmcfi_cmb_bc_label_qsort = 1;
		pmcf_profile *f0 = fuse(strategy, 3, in, P, NULL);
		pmcfi_cmb_bc_label_qsort = 0;
		pmcf_profile *f1 = fuse(strategy, 3, in, P, NULL);
		same_fused(f0, f1);
		pmcf_profile_free(f0);
		pmcf_profile_free(f1);
	}
	for (size_t j = 0; j < P; j++)
		pmcf_profile_free(in[j]);
}

/* Labels of a task tree as real programs give them (parent.RANK.ADDR per
 * level, tens of levels deep: a recursive sort or tree search), numbered
 * in creation order: node i of n at in-order position i of a tree whose
 * nodes split their range at a random point, a third of them very unevenly
 * (deep branches). ADDR is 0-padded at random (`05163` = `5163`). Labels
 * are malloc'd into lab[0..n); returns the deepest label's components. */
static size_t deep_tree_labels(char **lab, size_t n, uint64_t *s)
{
	struct range {
		size_t lo, hi, parent;
		int rank;
	} st[1024];
	size_t top = 0, deepest = 0;
	st[top++] = (struct range){0, n, SIZE_MAX, 0};
	while (top) {
		struct range g = st[--top];
		if (g.lo >= g.hi)
			continue;
		size_t w = g.hi - g.lo, m = g.lo + rnd(s) % w;
		if (rnd(s) % 3 == 0) /* uneven: the split near an end */
			m = rnd(s) % 2 ? g.lo + rnd(s) % (w / 16 + 1) : g.hi - 1 - rnd(s) % (w / 16 + 1);
		const char *pl = g.parent == SIZE_MAX ? "0.1.4851" : lab[g.parent];
		size_t len = strlen(pl) + 32;
		lab[m] = malloc(len);
		assert_non_null(lab[m]);
		if (g.parent == SIZE_MAX)
			snprintf(lab[m], len, "%s", pl);
		else
			snprintf(lab[m], len, "%s.%d.%s%d", pl, g.rank, rnd(s) % 4 ? "" : "0",
				 g.rank == 1 ? 5163 : 5225);
		size_t nc = 1;
		for (const char *c = lab[m]; *c; c++)
			nc += *c == '.';
		deepest = nc > deepest ? nc : deepest;
		assert_true(top + 2 <= sizeof(st) / sizeof(st[0]));
		st[top++] = (struct range){m + 1, g.hi, m, 2};
		st[top++] = (struct range){g.lo, m, m, 1};
	}
	return deepest;
}

/* BC's label order of numeric labels (radix by component, bc.c) equals the
 * comparison sort's on deep labels too: every bc-family strategy fuses the
 * same with either. Few distinct durations, so that cells hold many XUs of
 * each side and the label order decides the pairs; each input lists its
 * XUs in another order, and input 1 has fewer. */
static void test_bc_deep_labels(void **state)
{
	(void)state;
	enum { N = 700, P = 3 };
	static const char *const E[P][2] = {{"duration", "x"}, {"duration", "y"}, {"duration", "z"}};
	char *lab[N];
	uint64_t s = 4242;
	size_t deepest = deep_tree_labels(lab, N, &s);
	assert_true(deepest >= 60); /* over 30 levels: what the test is for */
	pmcf_profile *in[P];
	for (size_t j = 0; j < P; j++) {
		size_t n = j == 1 ? N - 40 : N, perm[N];
		for (size_t i = 0; i < N; i++)
			perm[i] = i;
		for (size_t i = N - 1; i > 0; i--) {
			size_t k = rnd(&s) % (i + 1), t = perm[i];
			perm[i] = perm[k];
			perm[k] = t;
		}
		struct hx h[N];
		for (size_t i = 0; i < n; i++)
			h[i] = (struct hx){(uint32_t)(perm[i] % 2),
					   lab[perm[i]],
					   i,
					   {(double)(rnd(&s) % 3 + 1), (double)(rnd(&s) % 5), 0, 0}};
		in[j] = mk("prog", E[j], 2, h, n);
	}
	static const int strategies[] = {PMCF_COMBINE_BC, PMCF_COMBINE_BC_UNLABELED, PMCF_COMBINE_BC_LABEL,
					 PMCF_COMBINE_BC_LGL};
	for (size_t k = 0; k < sizeof(strategies) / sizeof(strategies[0]); k++) {
		pmcfi_cmb_bc_label_qsort = 1;
		pmcf_profile *f0 = fuse(strategies[k], 3, in, P, NULL);
		pmcfi_cmb_bc_label_qsort = 0;
		pmcf_profile *f1 = fuse(strategies[k], 3, in, P, NULL);
		same_fused(f0, f1);
		pmcf_profile_free(f0);
		pmcf_profile_free(f1);
	}
	for (size_t j = 0; j < P; j++)
		pmcf_profile_free(in[j]);
	for (size_t i = 0; i < N; i++)
		free(lab[i]);
}

/* bc-label (bc.c, label_pair_cell): inside a cell (here one cell: every XU
 * has the same duration, so no event separates them), XUs with equal labels
 * pair first, then the closest in the label tree (0.1 with 0.1.5), and what
 * is left stays unpaired. bc pairs the same cell by position in label order
 * (0.1 with 0.0, 0.2 with 0.1.5, ...). Both in a second cell of another
 * duration, reversed, so that the cells' orders interleave. */
static void test_bc_label_equal_first(void **state)
{
	(void)state;
	static const char *const LA[] = {"0.1", "0.2", "0.3", "0.4", "1.7"};
	static const char *const LB[] = {"0.0", "0.1.5", "0.2", "0.3", "0.4", "1.7", "1.2"};
	enum { NA = 5, NB = 7 };
	struct hx a[2 * NA], b[2 * NB];
	char la[2 * NA][16], lb[2 * NB][16];
	for (size_t c = 0; c < 2; c++) {
		for (size_t i = 0; i < NA; i++) {
			size_t q = c * NA + i;
			snprintf(la[q], sizeof(la[q]), "%zu.%s", c, LA[c ? NA - 1 - i : i]);
			a[q] = (struct hx){0, la[q], q, {100.0 + 900.0 * (double)c, (double)q, (double)q, 0}};
		}
		for (size_t i = 0; i < NB; i++) {
			size_t q = c * NB + i;
			snprintf(lb[q], sizeof(lb[q]), "%zu.%s", c, LB[c ? NB - 1 - i : i]);
			b[q] = (struct hx){0, lb[q], q, {100.0 + 900.0 * (double)c, 50.0 + (double)q, 0, 0}};
		}
	}
	pmcf_profile *in[2] = {mk("prog", EA, 3, a, 2 * NA), mk("prog", EB, 2, b, 2 * NB)};
	static const int strategies[] = {PMCF_COMBINE_BC, PMCF_COMBINE_BC_LABEL, PMCF_COMBINE_BC_LGL};
	for (size_t si = 0; si < 3; si++) {
		int strategy = strategies[si];
		pmcf_profile *f = fuse(strategy, 1, in, 2, NULL);
		check_every_value(f, in);
		size_t nx = pmcf_profile_nxus(f), both = 0, equal = 0, near = 0;
		assert_int_equal(nx, 2 * NB);
		for (size_t i = 0; i < nx; i++) {
			int64_t xa = src_of(f, i, "e1"), xb = src_of(f, i, "e3");
			if (xa < 0 || xb < 0)
				continue;
			both++;
			const char *sa = a[xa].label, *sb = b[xb].label;
			assert_int_equal(sa[0], sb[0]); /* same cell */
			equal += strcmp(sa, sb) == 0;
			near += strcmp(sa + 1, ".0.1") == 0 && strcmp(sb + 1, ".0.1.5") == 0;
		}
		assert_int_equal(both, 2 * NA);
		if (strategy != PMCF_COMBINE_BC) {
			assert_int_equal(equal, 2 * (NA - 1)); /* 0.2, 0.3, 0.4, 1.7 */
			assert_int_equal(near, 2);             /* 0.1 with 0.1.5 */
		} else {
			assert_true(equal < 2 * (NA - 1)); /* bc: by position */
		}
		pmcf_profile_free(f);
	}
	for (int k = 0; k < 2; k++)
		pmcf_profile_free(in[k]);
}

/* bc-lgl pairs equal labels before any value is compared (lgl), bc and
 * bc-label by their values: 0.1 and 0.2 swap durations between the runs. */
static void test_bc_lgl_labels_first(void **state)
{
	(void)state;
	static const struct hx A[] = {{0, "0.1", 0, {100, 1, 1, 0}}, {0, "0.2", 1, {1000, 2, 2, 0}}};
	static const struct hx B[] = {{0, "0.2", 0, {101, 3, 0, 0}}, {0, "0.1", 1, {1001, 4, 0, 0}}};
	pmcf_profile *in[2] = {mk("prog", EA, 3, A, 2), mk("prog", EB, 2, B, 2)};
	for (int strategy = PMCF_COMBINE_BC_LABEL; strategy <= PMCF_COMBINE_BC_LGL; strategy++) {
		pmcf_profile *f = fuse(strategy, 1, in, 2, NULL);
		assert_int_equal(pmcf_profile_nxus(f), 2);
		for (size_t i = 0; i < 2; i++) {
			int64_t xa = src_of(f, i, "e1"), xb = src_of(f, i, "e3");
			assert_true(xa >= 0 && xb >= 0);
			if (strategy == PMCF_COMBINE_BC_LGL)
				assert_string_equal(A[xa].label, B[xb].label);
			else
				assert_int_equal(xa, xb); /* by duration */
		}
		pmcf_profile_free(f);
	}
	for (int k = 0; k < 2; k++)
		pmcf_profile_free(in[k]);
}

static void test_strategy_names(void **state)
{
	(void)state;
	for (int s = PMCF_COMBINE_CTC; s <= PMCF_COMBINE_BC_LGL; s++)
		assert_int_equal(pmcf_strategy_parse(pmcf_strategy_name(s)), s);
	assert_int_equal(pmcf_strategy_parse("bogus"), PMCF_EINVAL);
	/* bc-nn was tried and removed (docs/fusion.md) */
	assert_int_equal(pmcf_strategy_parse("bc-nn"), PMCF_EINVAL);
	assert_non_null(strstr(pmcf_errdetail(), "bc-unlabeled"));
}

/* Profiles that carry ground truth: the fused profile keeps its first
 * source's truth. */
/* ---- labels through the label tree (ltree.c) against the text path ---- */

/* The node of label text s in p (made with its ancestors): a node holds
 * the last two components under its parent ("RANK.ADDR", as the recorder
 * makes them) when pairs, else one component each, so that inputs split
 * the same texts differently. */
static uint32_t tree_node(pmcf_profile *p, char **texts, size_t *ntexts, uint32_t *ids, const char *s,
			  int pairs)
{
	if (!*s)
		return 0;
	for (size_t k = 0; k < *ntexts; k++)
		if (strcmp(texts[k], s) == 0)
			return ids[k];
	size_t len = strlen(s), cut = len, dots = 0;
	while (cut > 0 && dots < (pairs ? 2u : 1u))
		dots += s[--cut] == '.';
	uint32_t par = 0;
	if (s[cut] == '.') {
		char *pre = strndup(s, cut);
		assert_non_null(pre);
		par = tree_node(p, texts, ntexts, ids, pre, pairs);
		free(pre);
		cut++;
	}
	uint32_t id;
	assert_int_equal(pmcfi_profile_label_node(p, par, s + cut, len - cut, &id), 0);
	texts[*ntexts] = strdup(s);
	assert_non_null(texts[*ntexts]);
	ids[(*ntexts)++] = id;
	return id;
}

/* mk with the labels (and parent labels: the label less its last two
 * components) as nodes of a label tree, as recorded profiles hold them. */
static pmcf_profile *mk_tree(const char *const *events, size_t ne, const struct hx *x, size_t nx, int pairs)
{
	pmcf_profile *p = mk("prog", events, ne, x, 0);
	char **texts = calloc(4 * nx + 1, sizeof(*texts));
	uint32_t *ids = calloc(4 * nx + 1, sizeof(*ids));
	size_t nt = 0;
	assert_true(texts && ids);
	for (size_t i = 0; i < nx; i++) {
		char par[4096];
		snprintf(par, sizeof(par), "%s", x[i].label);
		for (int d = 0; d < 2; d++) {
			char *dot = strrchr(par, '.');
			if (dot)
				*dot = '\0';
			else
				par[0] = '\0';
		}
		uint32_t a = tree_node(p, texts, &nt, ids, x[i].label, pairs);
		uint32_t b = tree_node(p, texts, &nt, ids, par, pairs);
		pmcf_xu xu = {.type = x[i].type,
			      .start_ns = x[i].start,
			      .end_ns = x[i].start + (uint64_t)x[i].v[0]};
		size_t k;
		assert_int_equal(pmcfi_profile_xu_add_nodes(p, &xu, a, b, &k), 0);
		for (size_t e = 0; e < ne; e++)
			assert_int_equal(pmcf_profile_value_set(p, k, e, x[i].v[e]), 0);
	}
	for (size_t k = 0; k < nt; k++)
		free(texts[k]);
	free(texts);
	free(ids);
	return p;
}

/* f0 and f1 also have the same parent labels and base labels. */
static void same_fused_labels(const pmcf_profile *f0, const pmcf_profile *f1)
{
	same_fused(f0, f1);
	assert_int_equal(pmcf_profile_has_base_labels(f0), pmcf_profile_has_base_labels(f1));
	for (size_t i = 0; i < pmcf_profile_nxus(f0); i++) {
		char *b0 = NULL, *b1 = NULL;
		size_t c0 = 0, c1 = 0;
		const char *p0 = pmcf_profile_xu_label(f0, i, 1, &b0, &c0);
		const char *p1 = pmcf_profile_xu_label(f1, i, 1, &b1, &c1);
		assert_true(p0 && p1);
		assert_string_equal(p0, p1);
		free(b0);
		free(b1);
		int32_t s0, s1;
		int64_t x0, x1;
		const char *l0, *l1;
		if (!pmcf_profile_has_base_labels(f0))
			continue;
		assert_int_equal(pmcf_profile_base_label_get(f0, i, &s0, &x0, &l0), 0);
		assert_int_equal(pmcf_profile_base_label_get(f1, i, &s1, &x1, &l1), 0);
		assert_int_equal(s0, s1);
		assert_int_equal(x0, x1);
		assert_string_equal(l0, l1);
	}
}

/* Inputs whose labels are a tree (recorded profiles) fuse through node ids
 * (label order as a rank, first common ancestors as lowest common
 * ancestors, renamed LABEL~K as nodes) exactly as through the label texts
 * (pmcfi_cmb_label_text, the reference): deep task-tree labels split into nodes
 * differently by the inputs, repeated labels (LABEL~K, with a "~2" taken
 * already), every strategy; the fused profile keeps a tree, saved and read
 * back the same. Siblings that the label order holds equal ("7", "07")
 * take the text path. */
static void test_label_tree_same(void **state)
{
	(void)state;
	enum { N = 500, P = 3 };
	static const char *const E[P][2] = {{"duration", "x"}, {"duration", "y"}, {"duration", "z"}};
	char *lab[N];
	uint64_t s = 777;
	assert_true(deep_tree_labels(lab, N, &s) >= 40);
	pmcf_profile *in[P];
	for (size_t j = 0; j < P; j++) {
		size_t n = j == 1 ? N - 30 : N;
		struct hx h[N];
		for (size_t i = 0; i < n; i++) {
			/* input 2 repeats labels (LABEL~K), input 0 has one
			 * named as such a repeat would be */
			size_t q = j == 2 && i % 50 == 7 ? i - 1 : i;
			h[i] = (struct hx){(uint32_t)(q % 2),
					   lab[q],
					   i * 10 + rnd(&s) % 30,
					   {(double)(rnd(&s) % 4 + 1), (double)(rnd(&s) % 6), 0, 0}};
		}
		char renamed[4096];
		if (j == 0) {
			snprintf(renamed, sizeof(renamed), "%s~2", lab[6]);
			h[8].label = renamed;
		}
		in[j] = mk_tree(E[j], 2, h, n, j != 1);
	}
	static const int strategies[] = {PMCF_COMBINE_CTC,      PMCF_COMBINE_LGL,
					 PMCF_COMBINE_BC,       PMCF_COMBINE_BC_UNLABELED,
					 PMCF_COMBINE_BC_LABEL, PMCF_COMBINE_BC_LGL,
					 PMCF_COMBINE_RANDOM,   PMCF_COMBINE_MATCH};
	for (size_t k = 0; k < sizeof(strategies) / sizeof(strategies[0]); k++) {
		pmcfi_cmb_label_text = 1;
		pmcf_profile *f0 = fuse(strategies[k], 5, in, P, NULL);
		pmcfi_cmb_label_text = 0;
		pmcf_profile *f1 = fuse(strategies[k], 5, in, P, NULL);
		assert_int_equal(pmcfi_profile_label_nodes(f0), 0); /* text */
		assert_true(pmcfi_profile_label_nodes(f1) > 0);     /* the tree path */
		same_fused_labels(f0, f1);
		char path[] = "/tmp/pmcf-ltree-XXXXXX";
		int fd = mkstemp(path);
		assert_true(fd >= 0);
		close(fd);
		pmcf_profile *f2 = NULL;
		assert_int_equal(pmcf_profile_save(f1, path), 0);
		assert_int_equal(pmcf_profile_open(path, &f2), 0);
		unlink(path);
		same_fused_labels(f0, f2);
		pmcf_profile_free(f0);
		pmcf_profile_free(f1);
		pmcf_profile_free(f2);
	}
	for (size_t j = 0; j < P; j++)
		pmcf_profile_free(in[j]);
	/* "7" and "07" under one parent: equal in label order, not in text */
	static const struct hx A[] = {{0, "0.7", 0, {2, 1, 0, 0}},
				      {0, "0.07", 5, {3, 2, 0, 0}},
				      {0, "0.7.1", 9, {2, 3, 0, 0}}};
	pmcf_profile *two[2] = {mk_tree(E[0], 2, A, 3, 0), mk_tree(E[1], 2, A, 3, 0)};
	pmcfi_cmb_label_text = 1;
	pmcf_profile *t0 = fuse(PMCF_COMBINE_BC, 1, two, 2, NULL);
	pmcfi_cmb_label_text = 0;
	pmcf_profile *t1 = fuse(PMCF_COMBINE_BC, 1, two, 2, NULL);
	assert_int_equal(pmcfi_profile_label_nodes(t1), 0); /* the text path */
	same_fused_labels(t0, t1);
	pmcf_profile_free(t0);
	pmcf_profile_free(t1);
	pmcf_profile_free(two[0]);
	pmcf_profile_free(two[1]);
	for (size_t i = 0; i < N; i++)
		free(lab[i]);
}

/* bc's pairs against the labels (pmcf_combine_stats bc_label_*, combine's
 * warning): two runs of the same 40 tasks whose durations moved (label k
 * takes label k + 7's duration) pair by duration, so every pair but those
 * of equal durations joins two labels; the same runs with the durations
 * kept pair label with label; bc-lgl pairs labels first. Text labels and
 * a label tree count the same. */
/* The advice combine and run print (pmcf_combine_label_advice): only for
 * the bc family, 20 pairs or more, a tenth or more differing, nine tenths
 * of the labels shared, and never for a simulated profile. */
static void test_label_advice(void **state)
{
	(void)state;
	pmcf_profile *p;
	assert_int_equal(pmcf_profile_new(&p), 0);
	pmcf_combine_stats st = PMCF_COMBINE_STATS_INIT;
	st.bc_label_pairs = 100;
	st.bc_label_differ = 10;
	st.bc_labelled = 100;
	st.bc_label_common = 90;
	char buf[512];
	assert_int_equal(pmcf_combine_label_advice(p, &st, PMCF_COMBINE_BC, buf, sizeof(buf)), 1);
	assert_non_null(strstr(buf, "bc paired XUs of different labels in 10 of 100 pairs (10 %)"));
	assert_int_equal(pmcf_combine_label_advice(p, &st, PMCF_COMBINE_LGL, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	st.bc_label_differ = 9; /* under a tenth */
	assert_int_equal(pmcf_combine_label_advice(p, &st, PMCF_COMBINE_BC, buf, sizeof(buf)), 0);
	st.bc_label_differ = 10;
	st.bc_label_common = 89; /* under nine tenths shared */
	assert_int_equal(pmcf_combine_label_advice(p, &st, PMCF_COMBINE_BC, buf, sizeof(buf)), 0);
	st.bc_label_common = 90;
	st.bc_label_pairs = 19;
	st.bc_label_differ = 19;
	assert_int_equal(pmcf_combine_label_advice(p, &st, PMCF_COMBINE_MATCH, buf, sizeof(buf)), 0);
	st.bc_label_pairs = 20;
	assert_int_equal(pmcf_combine_label_advice(p, &st, PMCF_COMBINE_MATCH, buf, sizeof(buf)), 1);
	assert_int_equal(pmcf_profile_meta_set(p, PMCF_META_SIM_SPEC, "cholesky,blocks=4"), 0);
	assert_int_equal(pmcf_combine_label_advice(p, &st, PMCF_COMBINE_MATCH, buf, sizeof(buf)), 0);
	st.size = 3;
	assert_int_equal(pmcf_combine_label_advice(p, &st, PMCF_COMBINE_BC, buf, sizeof(buf)), PMCF_EINVAL);
	pmcf_profile_free(p);
}

static void test_bc_label_agreement(void **state)
{
	(void)state;
	enum { N = 40 };
	static const char *const E[2][2] = {{"duration", "x"}, {"duration", "y"}};
	char names[N][16];
	struct hx a[N], b[N], c[N];
	for (int k = 0; k < N; k++) {
		snprintf(names[k], sizeof(names[k]), "0.%d", k);
		a[k] = (struct hx){0, names[k], (uint64_t)k * 100, {(double)(k + 1) * 10, (double)k, 0, 0}};
		b[k] = (struct hx){0, names[k], (uint64_t)k * 100, {(double)((k + 7) % N + 1) * 10, 1, 0, 0}};
		c[k] = (struct hx){0, names[k], (uint64_t)k * 100, {(double)(k + 1) * 10, 1, 0, 0}};
	}
	for (int tree = 0; tree < 2; tree++) {
		pmcf_profile *in[2] = {tree ? mk_tree(E[0], 2, a, N, 1) : mk("prog", E[0], 2, a, N),
				       tree ? mk_tree(E[1], 2, b, N, 1) : mk("prog", E[1], 2, b, N)};
		pmcf_profile *same[2] = {in[0], tree ? mk_tree(E[1], 2, c, N, 1) : mk("prog", E[1], 2, c, N)};
		pmcf_combine_stats st;
		pmcf_profile *f = fuse(PMCF_COMBINE_BC, 1, in, 2, &st);
		assert_int_equal(st.bc_label_pairs, N);
		assert_int_equal(st.bc_label_differ, N);
		assert_int_equal(st.bc_labelled, N);
		assert_int_equal(st.bc_label_common, N);
		pmcf_profile_free(f);
		f = fuse(PMCF_COMBINE_BC, 1, same, 2, &st);
		assert_int_equal(st.bc_label_pairs, N);
		assert_int_equal(st.bc_label_differ, 0);
		pmcf_profile_free(f);
		f = fuse(PMCF_COMBINE_BC_LGL, 1, in, 2, &st);
		assert_int_equal(st.bc_label_pairs, N);
		assert_int_equal(st.bc_label_differ, 0);
		pmcf_profile_free(f);
		f = fuse(PMCF_COMBINE_LGL, 1, in, 2, &st);
		assert_int_equal(st.bc_label_pairs, 0); /* bc family only */
		pmcf_profile_free(f);
		pmcf_profile_free(in[0]);
		pmcf_profile_free(in[1]);
		pmcf_profile_free(same[1]);
	}
}

static void test_truth_copied(void **state)
{
	(void)state;
	pmcf_profile *in[2] = {mk("prog", EA, 3, PA, 6), mk("prog", EB, 2, PB, 6)};
	for (int k = 0; k < 2; k++) {
		size_t t;
		assert_int_equal(pmcf_profile_truth_event_add(in[k], "e1", &t), 0);
		double *col = pmcf_profile_truth_column(in[k], t);
		for (size_t i = 0; i < 6; i++)
			col[i] = 1000.0 * k + (double)i;
	}
	pmcf_profile *f = fuse(PMCF_COMBINE_CTC, 1, in, 2, NULL);
	assert_int_equal(pmcf_profile_ntruth(f), 1);
	for (size_t i = 0; i < 6; i++)
		assert_true(pmcf_profile_truth_column_const(f, 0)[i] == (double)src_of(f, i, "e1"));
	pmcf_profile_free(f);
	for (int k = 0; k < 2; k++)
		pmcf_profile_free(in[k]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ctc_fig2),
		cmocka_unit_test(test_ranks_never_paired),
		cmocka_unit_test(test_lgl_fig2),
		cmocka_unit_test(test_lgl_missing_extra),
		cmocka_unit_test(test_lgl_needs_labels),
		cmocka_unit_test(test_bc_identical),
		cmocka_unit_test(test_bc_dmax_relaxation),
		cmocka_unit_test(test_bc_active_same),
		cmocka_unit_test(test_fill_threads),
		cmocka_unit_test(test_unequal_counts),
		cmocka_unit_test(test_bc_shuffle),
		cmocka_unit_test(test_base_labels_join),
		cmocka_unit_test(test_seeds_reproduce),
		cmocka_unit_test(test_mismatch_refused),
		cmocka_unit_test(test_bc_needs_overlap),
		cmocka_unit_test(test_bc_three_and_fca),
		cmocka_unit_test(test_bc_partial_min),
		cmocka_unit_test(test_labels),
		cmocka_unit_test(test_label_keys),
		cmocka_unit_test(test_bc_deep_labels),
		cmocka_unit_test(test_bc_label_equal_first),
		cmocka_unit_test(test_bc_lgl_labels_first),
		cmocka_unit_test(test_strategy_names),
		cmocka_unit_test(test_truth_copied),
		cmocka_unit_test(test_label_tree_same),
		cmocka_unit_test(test_bc_label_agreement),
		cmocka_unit_test(test_label_advice),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
