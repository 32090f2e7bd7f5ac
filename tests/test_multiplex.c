/* Tests of hardware event multiplexing (src/multiplex, the collector's
 * multiplexed mode): the triangle cost against rate-of-change-multiplexing
 * §3.2 eq. 5 on hand-computed cases, starvation freedom over long runs,
 * the scaling and missing rules of the two per-XU estimators
 * (fuse-task-parallel §5.1), the coverage summary, and rr/roc/kernel on a
 * real OpenMP task program with software events. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "collect/reader.h"
#include "collect/rec.h"
#include "counters/perf_group.h"
#include "multiplex/sched.h"
#include "pmcfuse/collect.h"
#include "pmcfuse/multiplex.h"
#include "pmcfuse/profile.h"
#include "pmcfuse/sim.h"

static char build_dir[2048];

/* ---- triangle cost, eq. 5: |(By - Ay - dy)/2| * dt, dy = (Cy-Ay)/(Cx-Ax)*(Bx-Ax) */
static void test_roc_cost(void **state)
{
	(void)state;
	static const struct {
		int line;
		double ax, ay, bx, by, cx, cy, dt, want;
	} rows[] = {
		/* dy = 2/2*1 = 1; |(2-0-1)/2| * 1 */
		{__LINE__, 0, 0, 1, 2, 2, 2, 1, 0.5},
		/* linear: no triangle, whatever dt */
		{__LINE__, 0, 0, 1, 1, 2, 2, 5, 0},
		{__LINE__, 10, 100, 20, 300, 30, 500, 1e6, 0},
		/* B below the interpolator (e3 of Fig. 3): absolute value; dy = 4/2*1 = 2 */
		{__LINE__, 0, 0, 1, 0, 2, 4, 2, 2},
		/* dy = 8/4*2 = 4; |(6-4)/2| * 10 */
		{__LINE__, 0, 0, 2, 6, 4, 8, 10, 10},
		/* Cx = Ax: dy = 0 ("no changes since A"); |(14-10)/2| * 3 */
		{__LINE__, 3, 10, 3, 14, 3, 20, 3, 6},
		{__LINE__, 7, 5, 7, 5, 7, 9, 100, 0},
		/* dt = 0: just scheduled, no cost */
		{__LINE__, 0, 0, 1, 5, 2, 0, 0, 0},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		double got = pmcfi_mux_roc_cost(rows[i].ax, rows[i].ay, rows[i].bx, rows[i].by, rows[i].cx,
						rows[i].cy, rows[i].dt);
		if (fabs(got - rows[i].want) > 1e-9 * (1 + fabs(rows[i].want)))
			fail_msg("line %d: cost %g, want %g", rows[i].line, got, rows[i].want);
	}
}

/* ---- schedulers: k counters, any unit fits */
struct fit {
	size_t k, used;
};
static void fit_reset(void *c) { ((struct fit *)c)->used = 0; }
static int fit_try(void *c, size_t u)
{
	struct fit *f = c;
	(void)u;
	if (f->used >= f->k)
		return 0;
	f->used++;
	return 1;
}
static const struct pmcfi_mux_ops ops = {fit_reset, fit_try};

/* Unit u's cumulative count at time t: units 0 and 1 change rate often
 * (large triangles), the others are perfectly linear (cost 0 forever). */
static double count_at(size_t u, double t)
{
	if (u < 2)
		return 1e6 * t + 5e8 * sin(t / 3e6 + (double)u);
	return (double)(u + 1) * t;
}

static void run_policy(int policy, size_t n, size_t k, size_t periods, size_t max_gap_allowed)
{
	struct pmcfi_mux *m = pmcfi_mux_new(policy, n);
	assert_non_null(m);
	uint8_t run[64];
	size_t last[64], counted[64], max_gap = 0;
	memset(counted, 0, sizeof(counted));
	struct fit f = {k, 0};
	const uint64_t period = 1000000;
	for (size_t u = 0; u < n; u++)
		last[u] = 0;
	for (size_t p = 0; p < periods; p++) {
		uint64_t now = (uint64_t)p * period;
		if (p)
			for (size_t u = 0; u < n; u++)
				if (run[u])
					pmcfi_mux_observe(m, u, now, count_at(u, (double)now));
		size_t taken = pmcfi_mux_rotate(m, now, &ops, &f, run);
		assert_int_equal(taken, k);
		for (size_t u = 0; u < n; u++)
			if (run[u]) {
				if (p - last[u] > max_gap)
					max_gap = p - last[u];
				last[u] = p;
				counted[u]++;
			}
	}
	for (size_t u = 0; u < n; u++) {
		if (periods - last[u] > max_gap)
			max_gap = periods - last[u];
		if (!counted[u])
			fail_msg("policy %d: unit %zu never counted in %zu periods", policy, u, periods);
	}
	if (max_gap > max_gap_allowed)
		fail_msg("policy %d: a unit waited %zu periods (allowed %zu)", policy, max_gap,
			 max_gap_allowed);
	if (policy == PMCFI_MUX_ROC || policy == PMCFI_MUX_ROC_SAMPLES) {
		/* the variable units get more than their round-robin share */
		size_t fair = periods * k / n;
		if (!(counted[0] > fair && counted[1] > fair))
			fail_msg("rate-of-change did not favour the variable units: %zu %zu (fair %zu)",
				 counted[0], counted[1], fair);
	}
	pmcfi_mux_free(m);
}

static void test_no_starvation(void **state)
{
	(void)state;
	/* round-robin: every unit exactly every n/k periods */
	run_policy(PMCFI_MUX_RR, 8, 2, 20000, 4);
	run_policy(PMCFI_MUX_RR, 33, 4, 20000, 9);
	/* rate-of-change: bounded by the starvation limit plus one round */
	size_t lim = pmcfi_mux_starve_limit(8, 2);
	run_policy(PMCFI_MUX_ROC, 8, 2, 20000, lim + 8);
	run_policy(PMCFI_MUX_ROC, 33, 4, 20000, pmcfi_mux_starve_limit(33, 4) + 33);
	run_policy(PMCFI_MUX_ROC, 3, 1, 20000, pmcfi_mux_starve_limit(3, 1) + 3);
	run_policy(PMCFI_MUX_ROC_SAMPLES, 8, 2, 20000, lim + 8);
	run_policy(PMCFI_MUX_ROC_SAMPLES, 33, 4, 20000, pmcfi_mux_starve_limit(33, 4) + 33);
}

/* ---- the two cost normalisations: one counter, two units with three
 * observations each. Unit 0 counts 1000/ns and its B is 10 % of a period's
 * count off the line (triangle 5e7 counts: 0.05 samples); unit 1 counts
 * 0.001/ns and its B is a whole period's count off (triangle 500 counts:
 * 0.5 samples). In counts unit 0 is costlier, in samples unit 1. */
static size_t first_choice(int policy)
{
	struct pmcfi_mux *m = pmcfi_mux_new(policy, 2);
	assert_non_null(m);
	static const double obs[2][3][2] = {{{1e6, 1e9}, {2e6, 2.1e9}, {3e6, 3e9}},
					    {{1e6, 1e3}, {2e6, 3e3}, {3e6, 3e3}}};
	for (size_t u = 0; u < 2; u++)
		for (int i = 0; i < 3; i++)
			pmcfi_mux_observe(m, u, (uint64_t)obs[u][i][0], obs[u][i][1]);
	struct fit f = {1, 0};
	uint8_t run[2];
	assert_int_equal(pmcfi_mux_rotate(m, 4000000, &ops, &f, run), 1);
	pmcfi_mux_free(m);
	return run[0] ? 0 : 1;
}

static void test_roc_normalisation(void **state)
{
	(void)state;
	/* eq. 5 in samples: cost / (cy / cx * 1e6) */
	assert_true(fabs(pmcfi_mux_roc_cost_samples(1e6, 1e3, 2e6, 3e3, 3e6, 3e3, 1) - 0.5) < 1e-12);
	assert_true(fabs(pmcfi_mux_roc_cost_samples(1e6, 1e9, 2e6, 2.1e9, 3e6, 3e9, 1) - 0.05) < 1e-12);
	assert_true(pmcfi_mux_roc_cost_samples(1e6, 0, 2e6, 0, 3e6, 0, 1) == 0);
	assert_int_equal(first_choice(PMCFI_MUX_ROC), 0);
	assert_int_equal(first_choice(PMCFI_MUX_ROC_SAMPLES), 1);
	/* the public names: roc is the cost in samples, roc-counts eq. 5 on counts */
	assert_int_equal(pmcfi_mux_policy(pmcf_mux_mode_parse("roc")), PMCFI_MUX_ROC_SAMPLES);
	assert_int_equal(pmcfi_mux_policy(pmcf_mux_mode_parse("roc-counts")), PMCFI_MUX_ROC);
	assert_string_equal(pmcf_mux_mode_name(PMCF_MUX_ROC_COUNTS), "roc-counts");
}

/* ---- scaling: raw x enabled / running */
static void test_scaled(void **state)
{
	(void)state;
	struct pmcfi_pgroup_sample s;
	memset(&s, 0, sizeof(s));
	s.v[0] = 300, s.en[0] = 1000, s.run[0] = 250; /* counted a quarter: x4 */
	s.v[1] = 7, s.en[1] = 1000, s.run[1] = 0;     /* never ran: 0 */
	s.v[2] = 42, s.en[2] = 500, s.run[2] = 500;   /* always ran: as is */
	assert_true(fabs(pmcfi_pgroup_scaled(&s, 0) - 1200) < 1e-9);
	assert_true(pmcfi_pgroup_scaled(&s, 1) == 0);
	assert_true(fabs(pmcfi_pgroup_scaled(&s, 2) - 42) < 1e-9);
}

/* ---- the reader's estimators on a hand-made multiplexed record file */
static void put_u64(struct pmcfi_rec *r, size_t i, uint64_t v) { r->v[i] = v; }
static void put_f64(struct pmcfi_rec *r, size_t i, double v) { memcpy(&r->v[i], &v, sizeof(v)); }

/* Writes path: a multiplexed record file (rr) of process pid holding one
 * thread XU in two 100 ns segments of nev events; fill(r, k) sets the
 * values of segment k (raw, running, enabled, scaled difference). */
static void write_mux_rec(const char *path, uint32_t pid, uint32_t nev, uint32_t rotations,
			  void (*fill)(struct pmcfi_rec *r, int k, uint32_t nev))
{
	const uint32_t rs = pmcfi_rec_size(pmcfi_rec_vals(nev, 1));
	size_t size = PMCFI_REC_HEADER_SIZE + 3 * rs;
	unsigned char *buf = calloc(1, size);
	assert_non_null(buf);
	struct pmcfi_rec_header *h = (void *)buf;
	h->magic = PMCFI_REC_MAGIC;
	h->version = PMCFI_REC_VERSION;
	h->header_size = PMCFI_REC_HEADER_SIZE;
	h->pid = pid;
	h->nev = nev;
	h->rec_size = rs;
	h->capacity = 3;
	h->mux = PMCF_MUX_RR;
	h->rotations = rotations;
	atomic_store(&h->count, 3);
	struct pmcfi_rec *r = (void *)(buf + PMCFI_REC_HEADER_SIZE);
	r->type = PMCFI_R_NODE;
	r->kind = PMCF_XU_THREAD;
	r->node = (1ull << 40) | 1;
	r->parent = PMCFI_ROOT;
	for (int k = 0; k < 2; k++) {
		r = (void *)(buf + PMCFI_REC_HEADER_SIZE + (size_t)(k + 1) * rs);
		r->type = PMCFI_R_SEG;
		r->node = (1ull << 40) | 1;
		r->t0 = 1000 + (uint64_t)k * 100;
		r->t1 = r->t0 + 100;
		r->flags = k ? PMCFI_F_FINAL : 0;
		r->enabled = 100;
		r->running = 0;
		fill(r, k, nev);
	}
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, size, f), size);
	fclose(f);
	free(buf);
}

/* event 0 ran 50 of 200 ns, event 1 never */
static void fill_estimators(struct pmcfi_rec *r, int k, uint32_t nev)
{
	(void)nev;
	put_u64(r, 0, k ? 0 : 100); /* raw */
	put_u64(r, 1, 3);           /* raw of event 1: a stale read, never counted */
	put_u64(r, 2, k ? 0 : 50);  /* running */
	put_u64(r, 3, 0);
	put_u64(r, 4, 100); /* enabled */
	put_u64(r, 5, 100);
	put_f64(r, 6, k ? 10.0 : 200.0); /* scaled cumulative differences */
	put_f64(r, 7, k ? -5.0 : 0.0);
}

static void test_estimators(void **state)
{
	(void)state;
	char dir[2400], path[2600];
	snprintf(dir, sizeof(dir), "%s/tests/tmp/multiplex-est", build_dir);
	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/rec-77-0-0", dir);
	write_mux_rec(path, 77, 2, 9, fill_estimators);
	const char *names[] = {"page-faults", "context-switches"};
	for (int est = 0; est < 2; est++) {
		pmcf_profile *p;
		struct pmcfi_collect_stats st;
		assert_int_equal(pmcf_profile_new(&p), 0);
		assert_int_equal(pmcfi_collect_read_est(dir, names, 2, 0, est, p, &st), 0);
		assert_int_equal(pmcf_profile_nxus(p), 1);
		assert_int_equal(st.mux, PMCF_MUX_RR);
		assert_int_equal(st.rotations, 9);
		assert_int_equal(st.multiplexed, 1);
		double v0 = pmcf_profile_value(p, 0, 1), v1 = pmcf_profile_value(p, 0, 2);
		if (est == PMCF_EST_LOCAL) {
			assert_true(fabs(v0 - 100.0 * 200 / 50) < 1e-9); /* raw x en / run */
			assert_true(isnan(v1));                          /* never ran: missing */
			assert_int_equal(st.missing, 1);
		} else {
			assert_true(fabs(v0 - 210) < 1e-9); /* sum of the differences */
			assert_true(fabs(v1 + 5) < 1e-9);   /* negative kept */
			assert_int_equal(st.negative, 1);
		}
		uint64_t en, run;
		assert_int_equal(pmcf_profile_coverage_get(p, 0, 1, &en, &run), 0);
		assert_int_equal(en, 200);
		assert_int_equal(run, 50);
		double sm, ts;
		assert_int_equal(pmcf_profile_coverage_summary(p, 1, &sm, &ts), 0);
		assert_true(sm == 1 && fabs(ts - 0.25) < 1e-12);
		assert_int_equal(pmcf_profile_coverage_summary(p, 2, &sm, &ts), 0);
		assert_true(sm == 0 && ts == 0);
		assert_int_equal(pmcf_profile_coverage_summary(p, 9, &sm, &ts), PMCF_EINVAL);
		pmcf_profile_free(p);
	}
	pmcf_profile *q;
	assert_int_equal(pmcf_profile_new(&q), 0);
	size_t ev;
	assert_int_equal(pmcf_profile_event_add(q, "x", &ev), 0);
	assert_int_equal(pmcf_profile_coverage_summary(q, 0, NULL, NULL), PMCF_ENOENT);
	pmcf_profile_free(q);
	unlink(path);
	rmdir(dir);
}

/* ---- the missing rules of the two estimators (docs/multiplexing.md), one
 * event per row over a thread XU of two 100 ns segments: raw count, running
 * and enabled ns and the scaled cumulative difference of each segment (NaN:
 * the event had not yet run on the thread at the segment end). A value never
 * counted is missing, not 0. */
#define NOT_YET ((double)NAN)
static const struct est_row {
	int line;
	uint64_t raw[2], run[2];
	double c[2];
	double want_cum, want_local; /* NAN: missing */
} est_rows[] = {
	/* counted a quarter of the XU: both estimate */
	{__LINE__, {100, 0}, {50, 0}, {200, 10}, 210, 100.0 * 200 / 50},
	/* never ran on the thread up to the XU end: missing for both */
	{__LINE__, {0, 0}, {0, 0}, {NOT_YET, NOT_YET}, NAN, NAN},
	/* a stale raw count of an event that never ran: still missing */
	{__LINE__, {3, 3}, {0, 0}, {NOT_YET, NOT_YET}, NAN, NAN},
	/* ran before the XU, not during it: cumulative extrapolates (and may be
     * negative), local has nothing */
	{__LINE__, {0, 0}, {0, 0}, {30, 20}, 50, NAN},
	{__LINE__, {0, 0}, {0, 0}, {0, -5}, -5, NAN},
	/* first ran during the second segment: an estimate, the first segment
     * adds nothing (the scaled count was 0 before, as PAPI_read says) */
	{__LINE__, {0, 40}, {0, 25}, {NOT_YET, 160}, 160, 40.0 * 200 / 25},
	/* the second segment on a thread where it had not run yet */
	{__LINE__, {10, 0}, {10, 0}, {10, NOT_YET}, 10, 10.0 * 200 / 10},
	/* counted the whole XU */
	{__LINE__, {7, 9}, {100, 100}, {7, 9}, 16, 16},
};

static void fill_rules(struct pmcfi_rec *r, int k, uint32_t nev)
{
	for (uint32_t e = 0; e < nev; e++) {
		put_u64(r, e, est_rows[e].raw[k]);
		put_u64(r, nev + e, est_rows[e].run[k]);
		put_u64(r, 2 * nev + e, 100);
		put_f64(r, 3 * nev + e, est_rows[e].c[k]);
	}
}

static void test_missing_rules(void **state)
{
	(void)state;
	char dir[2400], path[2600];
	snprintf(dir, sizeof(dir), "%s/tests/tmp/multiplex-rules", build_dir);
	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/rec-78-0-0", dir);
	const uint32_t nev = sizeof(est_rows) / sizeof(est_rows[0]);
	write_mux_rec(path, 78, nev, 0, fill_rules);
	char names_buf[32][16];
	const char *names[32];
	for (uint32_t e = 0; e < nev; e++) {
		snprintf(names_buf[e], sizeof(names_buf[e]), "ev%u", e);
		names[e] = names_buf[e];
	}
	for (int est = 0; est < 2; est++) {
		pmcf_profile *p;
		struct pmcfi_collect_stats st;
		assert_int_equal(pmcf_profile_new(&p), 0);
		assert_int_equal(pmcfi_collect_read_est(dir, names, nev, 0, est, p, &st), 0);
		assert_int_equal(pmcf_profile_nxus(p), 1);
		size_t want_missing = 0;
		for (uint32_t e = 0; e < nev; e++) {
			const struct est_row *w = &est_rows[e];
			double want = est == PMCF_EST_LOCAL ? w->want_local : w->want_cum;
			double got = pmcf_profile_value(p, 0, e + 1);
			want_missing += isnan(want);
			if (isnan(want) != isnan(got) ||
			    (!isnan(want) && fabs(got - want) > 1e-9 * (1 + fabs(want))))
				fail_msg("line %d, %s estimate: got %g, want %g", w->line,
					 pmcf_estimate_name(est), got, want);
		}
		assert_int_equal(st.missing, want_missing);
		pmcf_profile_free(p);
	}
	unlink(path);
	rmdir(dir);
}

/* ---- the summary of a multiplexed recording, on a hand-made profile: 3 XUs,
 * events a (always counted), b (part of XU 1 only), c (never) */
static void test_mux_summary(void **state)
{
	(void)state;
	pmcf_profile *p;
	assert_int_equal(pmcf_profile_new(&p), 0);
	uint32_t ty;
	assert_int_equal(pmcf_profile_type_add(p, PMCF_XU_TASK, "t", "", &ty), 0);
	const char *ev[] = {"duration", "a", "b", "c"};
	for (size_t e = 0; e < 4; e++)
		assert_int_equal(pmcf_profile_event_add(p, ev[e], NULL), 0);
	for (int i = 0; i < 3; i++) {
		pmcf_xu xu = {.type = ty,
			      .start_ns = 1000 + 500 * (uint64_t)i,
			      .end_ns = 1400 + 500 * (uint64_t)i};
		assert_int_equal(pmcf_profile_xu_add(p, &xu, NULL), 0);
	}
	pmcf_mux_summary s = {.size = sizeof(s)};
	assert_int_equal(pmcf_profile_mux_summary(p, &s), PMCF_ENOENT); /* not multiplexed */
	assert_int_equal(pmcf_profile_coverage_never_counted(p, 3), PMCF_ENOENT);
	assert_int_equal(pmcf_profile_coverage_enable(p), 0);
	assert_int_equal(pmcf_profile_meta_set(p, PMCF_META_PERIOD_MS, "4"), 0);
	static const struct {
		int line;
		size_t xu, ev;
		uint64_t en, run;
		double v;
	} cells[] = {
		{__LINE__, 0, 1, 400, 400, 5}, {__LINE__, 1, 1, 400, 400, 6}, {__LINE__, 2, 1, 400, 400, -1},
		{__LINE__, 0, 2, 400, 0, NAN}, {__LINE__, 1, 2, 400, 100, 8}, {__LINE__, 2, 2, 400, 0, 3},
		{__LINE__, 0, 3, 400, 0, NAN}, {__LINE__, 1, 3, 400, 0, NAN}, {__LINE__, 2, 3, 400, 0, NAN},
	};
	for (size_t k = 0; k < sizeof(cells) / sizeof(cells[0]); k++) {
		assert_int_equal(pmcf_profile_value_set(p, cells[k].xu, cells[k].ev, cells[k].v), 0);
		assert_int_equal(pmcf_profile_coverage_set(p, cells[k].xu, cells[k].ev, cells[k].en,
							   cells[k].run),
				 0);
	}
	for (size_t i = 0; i < 3; i++)
		pmcf_profile_value_set(p, i, 0, 400);
	static const struct {
		int line;
		size_t ev;
		int never;
	} never[] = {{__LINE__, 0, 0}, {__LINE__, 1, 0}, {__LINE__, 2, 0}, {__LINE__, 3, 1}};
	for (size_t k = 0; k < 4; k++)
		if (pmcf_profile_coverage_never_counted(p, never[k].ev) != never[k].never)
			fail_msg("line %d: never counted %d, want %d", never[k].line,
				 pmcf_profile_coverage_never_counted(p, never[k].ev), never[k].never);
	assert_int_equal(pmcf_profile_coverage_never_counted(p, 4), PMCF_EINVAL);
	assert_int_equal(pmcf_profile_mux_summary(p, &s), 0);
	assert_int_equal(s.events, 3);
	assert_int_equal(s.never_counted, 1);
	assert_int_equal(s.values, 9);
	assert_int_equal(s.missing, 4);
	assert_int_equal(s.negative, 1);
	assert_int_equal(s.xus, 3);
	assert_int_equal(s.partial_xus, 3);
	assert_true(s.run_ns == 1400 && s.period_ns == 4e6); /* 1000 .. 2400 */
	assert_int_equal(pmcf_profile_meta_set(p, "makespan_ns", "5000"), 0);
	assert_int_equal(pmcf_profile_mux_summary(p, &s), 0);
	assert_true(s.run_ns == 5000);
	s.size = 8;
	assert_int_equal(pmcf_profile_mux_summary(p, &s), PMCF_EINVAL);
	pmcf_profile_free(p);
}

/* ---- a real OpenMP task program, software events, user-space and kernel */
static const char *EV[] = {"page-faults", "minor-faults", "context-switches", "task-clock", "cpu-clock"};

/* The OpenMP Cholesky example's path into prog; 0 (and a note) when the
 * examples were not built. */
static int cholesky(char *prog, size_t n)
{
	snprintf(prog, n, "%s/examples/cholesky", build_dir);
	if (access(prog, X_OK) == 0)
		return 1;
	fprintf(stderr, "test_multiplex: no OpenMP examples: skipping the real runs\n");
	return 0;
}

static void real_run(int mux, int est)
{
	char prog[2400];
	if (!cholesky(prog, sizeof(prog)))
		return;
	char *argv[] = {prog, "12", "64", NULL};
	pmcf_count_opts o = {.size = sizeof(o),
			     .pmcs = 2,
			     .multiplex = mux,
			     .period_ms = 0.2,
			     .estimate = est};
	pmcf_profile *p = NULL;
	pmcf_exit_info ei = PMCF_EXIT_INFO_INIT;
	int err = pmcf_collect_program(argv, EV, 5, &o, NULL, &p, &ei);
	if (err)
		fail_msg("%s/%s: %s: %s", pmcf_mux_mode_name(mux), pmcf_estimate_name(est),
			 pmcf_strerror(err), pmcf_errdetail());
	size_t n = pmcf_profile_nxus(p);
	assert_true(n >= 300); /* 12 blocks: 364 tasks */
	assert_true(pmcf_profile_has_coverage(p));
	size_t partial = 0, ok_ratio = 0, timed = 0;
	for (size_t e = 1; e <= 5; e++)
		for (size_t i = 0; i < n; i++) {
			uint64_t en = 0, run = 0;
			assert_int_equal(pmcf_profile_coverage_get(p, i, e, &en, &run), 0);
			double v = pmcf_profile_value(p, i, e);
			if (run < en)
				partial++;
			/* every XU that saw the event has an estimate; local misses
			 * exactly the others, cumulative never misses */
			if (run > 0)
				assert_false(isnan(v));
			else if (est == PMCF_EST_LOCAL)
				assert_true(isnan(v));
			if (mux == PMCF_MUX_KERNEL)
				assert_true(run > 0); /* software events never rotate */
			if (e == 4 && est == PMCF_EST_LOCAL && run > 0) {
				/* task-clock scaled up: the XU's time on the cpu, which
				 * cannot exceed its wall time by much (the scaling's
				 * error); no lower bound: a loaded machine preempts */
				double d = pmcf_profile_value(p, i, 0);
				timed++;
				if (v < 1.5 * d)
					ok_ratio++;
			}
		}
	if (mux == PMCF_MUX_KERNEL) {
		/* software events need no counter: fully counted, and said so
		 * (each event's running time against its own enabled time) */
		assert_int_equal(partial, 0);
		assert_int_equal(ei.multiplexed_xus, 0);
		assert_int_equal(ei.missing_values, 0);
	} else {
		assert_true(partial > 0);
		assert_true(ei.rotations > 0);
		double sm, ts;
		assert_int_equal(pmcf_profile_coverage_summary(p, 1, &sm, &ts), 0);
		assert_true(sm > 0 && ts > 0 && ts < 1);
	}
	if (timed)
		assert_true(ok_ratio * 10 >= timed * 8);
	pmcf_profile_free(p);
}

static void test_real_rr(void **state)
{
	(void)state;
	real_run(PMCF_MUX_RR, PMCF_EST_LOCAL);
	real_run(PMCF_MUX_RR, PMCF_EST_CUMULATIVE);
}

static void test_real_roc(void **state)
{
	(void)state;
	real_run(PMCF_MUX_ROC, PMCF_EST_LOCAL);
	real_run(PMCF_MUX_ROC, PMCF_EST_CUMULATIVE);
}

static void test_real_kernel(void **state)
{
	(void)state;
	real_run(PMCF_MUX_KERNEL, PMCF_EST_LOCAL);
	real_run(PMCF_MUX_KERNEL, PMCF_EST_CUMULATIVE);
}

/* A period far longer than the run: each thread keeps its first assignment
 * (the first --pmcs events), so the others never count and every value of
 * theirs is missing under both estimators, not 0. */
static void test_real_never_counted(void **state)
{
	(void)state;
	char prog[2400];
	if (!cholesky(prog, sizeof(prog)))
		return;
	char *argv[] = {prog, "6", "64", NULL};
	for (int est = 0; est < 2; est++) {
		pmcf_count_opts o = {.size = sizeof(o),
				     .pmcs = 2,
				     .multiplex = PMCF_MUX_RR,
				     .period_ms = 600000,
				     .estimate = est};
		pmcf_profile *p = NULL;
		pmcf_exit_info ei = PMCF_EXIT_INFO_INIT;
		int err = pmcf_collect_program(argv, EV, 5, &o, NULL, &p, &ei);
		if (err)
			fail_msg("%s: %s", pmcf_strerror(err), pmcf_errdetail());
		size_t n = pmcf_profile_nxus(p);
		assert_true(n > 0);
		for (size_t e = 1; e <= 5; e++) {
			int never = pmcf_profile_coverage_never_counted(p, e);
			assert_int_equal(never, e > 2); /* the first two events hold the counters */
			for (size_t i = 0; i < n; i++) {
				double v = pmcf_profile_value(p, i, e);
				if (never && !isnan(v))
					fail_msg("%s estimate: %s never counted, but XU %zu reads %g",
						 pmcf_estimate_name(est), EV[e - 1], i, v);
			}
		}
		assert_int_equal(ei.missing_values, 3 * n);
		pmcf_mux_summary s = {.size = sizeof(s)};
		assert_int_equal(pmcf_profile_mux_summary(p, &s), 0);
		assert_int_equal(s.never_counted, 3);
		assert_int_equal(s.missing, 3 * n);
		assert_true(s.run_ns < s.period_ns);
		pmcf_profile_free(p);
	}
}

int main(void)
{
	const char *tmp = getenv("PMCF_TEST_TMP"); /* <build>/tests/tmp */
	if (tmp) {
		snprintf(build_dir, sizeof(build_dir), "%s", tmp);
		for (int k = 0; k < 2; k++)
			*strrchr(build_dir, '/') = '\0';
	} else
		snprintf(build_dir, sizeof(build_dir), ".");
	char tool[2400];
	snprintf(tool, sizeof(tool), "%s/libpmcfuse-ompt.so", build_dir);
	setenv("PMCF_OMPT_TOOL", tool, 1);
	setenv("ASAN_OPTIONS", "verify_asan_link_order=0", 0);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roc_cost),           cmocka_unit_test(test_no_starvation),
		cmocka_unit_test(test_roc_normalisation),  cmocka_unit_test(test_scaled),
		cmocka_unit_test(test_estimators),         cmocka_unit_test(test_real_rr),
		cmocka_unit_test(test_real_roc),           cmocka_unit_test(test_real_kernel),
		cmocka_unit_test(test_missing_rules),      cmocka_unit_test(test_mux_summary),
		cmocka_unit_test(test_real_never_counted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
