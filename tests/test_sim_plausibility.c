/* Plausibility checks of the simulator's value model (issue 32,
 * docs/simulation.md "model v3"): a label's cycles stay within a factor
 * between executions and correlate across them, identical tasks last
 * alike, the 192-thread machine does not need several times the cycles of
 * the 32-thread one for the same work, no event sits at 0 on most XUs
 * unless it cannot occur, the NUMA distance to the data follows the
 * schedule, rates change inside an XU, and compulsory misses happen once
 * per footprint. Each mechanism's check also runs on model 2, where it
 * fails (printed, and asserted where model 2 is known to fail it). */
/* clang-format off */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pmcfuse/combine.h"
#include "pmcfuse/evaluate.h"
#include "pmcfuse/profile.h"
#include "pmcfuse/sim.h"
#include "sim/sim_impl.h"

struct ex {
	pmcf_sim_spec *s;
	struct sim_machine *m;
	struct sim_workload *w;
	struct sim_run *r;
};

/* One execution of spec (its seed= and model= keys apply). */
static void ex_run(struct ex *e, const char *spec)
{
	assert_int_equal(pmcf_sim_spec_parse(spec, &e->s), 0);
	assert_int_equal(pmcfi_sim_machine_load(pmcf_sim_spec_machine(e->s), &e->m), 0);
	assert_int_equal(pmcfi_sim_workload_build(e->s, e->m, &e->w), 0);
	assert_int_equal(pmcfi_sim_engine_run(e->w, e->m, pmcf_sim_spec_seed(e->s), e->s->model, 0, 0, &e->r),
			 0);
}

static void ex_free(struct ex *e)
{
	pmcfi_sim_run_free(e->r);
	pmcfi_sim_workload_free(e->w);
	pmcfi_sim_machine_free(e->m);
	pmcf_sim_spec_free(e->s);
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* p90 / p10 of v[0..n) (sorts v). */
static double spread(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_d);
	double lo = v[(size_t)(0.1 * (double)n)], hi = v[(size_t)(0.9 * (double)n)];
	return lo > 0 ? hi / lo : INFINITY;
}

static double corr(const double *x, const double *y, size_t n)
{
	double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
	for (size_t i = 0; i < n; i++) {
		sx += x[i], sy += y[i], sxx += x[i] * x[i], syy += y[i] * y[i], sxy += x[i] * y[i];
	}
	double vx = sxx / n - sx / n * sx / n, vy = syy / n - sy / n * sy / n;
	return vx > 0 && vy > 0 ? (sxy / n - sx / n * sy / n) / sqrt(vx * vy) : NAN;
}

static double nat(const struct ex *e, size_t x, int n) { return e->r->nat[x * NAT_COUNT + (size_t)n]; }

/* The small sizes the checks run on (2 cores: a few seconds in all). */
static const char *const workloads[] = {
	"cholesky,blocks=14",    "seidel,blocks=10,iters=4",      "kmeans,points=65536,iters=4",
	"loops,n=100000,reps=3", "loops,schedule=dynamic,reps=3", "knapsack,items=22,cutoff=10",
};
static const char *const machines[] = {"xeon32", "xeon192"};

/* Per type with >= 20 XUs: the worst p90/p10 of a label's cycles ratio
 * between seeds 1 and 2, and the lowest cross-run correlation of log
 * cycles. */
static void label_stability(const char *wl, const char *mach, int model, double *worst_ratio,
			    double *worst_corr)
{
	char spec[256];
	struct ex a, b;
	snprintf(spec, sizeof(spec), "%s,machine=%s,seed=1,model=v%d", wl, mach, model);
	ex_run(&a, spec);
	snprintf(spec, sizeof(spec), "%s,machine=%s,seed=2,model=v%d", wl, mach, model);
	ex_run(&b, spec);
	size_t n = a.w->nxu;
	assert_int_equal(n, b.w->nxu);
	double *rat = malloc(n * sizeof(double)), *la = malloc(n * sizeof(double)),
	       *lb = malloc(n * sizeof(double));
	assert_non_null(rat);
	assert_non_null(la);
	assert_non_null(lb);
	*worst_ratio = 0;
	*worst_corr = 1;
	for (int t = 0; t < a.w->ntypes; t++) {
		size_t k = 0;
		for (size_t x = 0; x < n; x++) {
			if ((int)a.w->xu[x].type != t)
				continue;
			double ca = nat(&a, x, NAT_CYC), cb = nat(&b, x, NAT_CYC);
			rat[k] = ca / cb;
			la[k] = log(ca);
			lb[k] = log(cb);
			k++;
		}
		if (k < 20)
			continue;
		double c = corr(la, lb, k), s = spread(rat, k);
		if (s > *worst_ratio)
			*worst_ratio = s;
		/* a type whose labels all do the same work has nothing to
		 * correlate: its spread bound is the check */
		if (!isnan(c) && c < *worst_corr)
			*worst_corr = c;
	}
	free(rat);
	free(la);
	free(lb);
	ex_free(&a);
	ex_free(&b);
}

static void test_label_stability(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(workloads) / sizeof(*workloads); i++)
		for (size_t j = 0; j < 2; j++) {
			double r3, c3, r2, c2;
			label_stability(workloads[i], machines[j], 3, &r3, &c3);
			label_stability(workloads[i], machines[j], 2, &r2, &c2);
			print_message("%-32s %-7s label cycles ratio p90/p10 v3 %.2f (v2 %.2f), "
				      "cross-run corr v3 %.2f (v2 %.2f)\n",
				      workloads[i], machines[j], r3, r2, c3, c2);
			assert_true(r3 <= 3);
			assert_true(c3 >= 0.3);
			if (i == 0 && j == 1) /* issue 32: gemm 0.03x..23.7x, corr 0.05 on v2 */
				assert_true(r2 > 3 || c2 < 0.3);
		}
}

/* Identical tasks: same type and the same instructions (within 0.5 %). */
static double identical_spread(const struct ex *e)
{
	size_t n = e->w->nxu;
	size_t *ord = malloc(n * sizeof(size_t));
	double *d = malloc(n * sizeof(double));
	assert_non_null(ord);
	assert_non_null(d);
	double worst = 0;
	for (int t = 0; t < e->w->ntypes; t++) {
		size_t k = 0;
		for (size_t x = 0; x < n; x++)
			if ((int)e->w->xu[x].type == t)
				ord[k++] = x;
		/* groups of equal work: sort by instructions, cut at > 0.5 % gaps */
		for (size_t a = 1; a < k; a++)
			for (size_t b = a; b > 0 && nat(e, ord[b], NAT_INS) < nat(e, ord[b - 1], NAT_INS);
			     b--) {
				size_t tmp = ord[b];
				ord[b] = ord[b - 1];
				ord[b - 1] = tmp;
			}
		size_t g0 = 0;
		for (size_t a = 1; a <= k; a++) {
			if (a < k && nat(e, ord[a], NAT_INS) <= nat(e, ord[g0], NAT_INS) * 1.005)
				continue;
			if (a - g0 >= 20) {
				for (size_t q = g0; q < a; q++)
					d[q - g0] = (double)(e->r->end[ord[q]] - e->r->start[ord[q]]);
				double s = spread(d, a - g0);
				worst = s > worst ? s : worst;
			}
			g0 = a;
		}
	}
	free(ord);
	free(d);
	return worst;
}

static void test_identical_tasks(void **state)
{
	(void)state;
	for (size_t i = 0; i < 3; i++) /* the task graphs */
		for (size_t j = 0; j < 2; j++) {
			char spec[256];
			struct ex e3, e2;
			snprintf(spec, sizeof(spec), "%s,machine=%s,model=v3", workloads[i], machines[j]);
			ex_run(&e3, spec);
			snprintf(spec, sizeof(spec), "%s,machine=%s,model=v2", workloads[i], machines[j]);
			ex_run(&e2, spec);
			double s3 = identical_spread(&e3), s2 = identical_spread(&e2);
			print_message("%-32s %-7s identical tasks' duration p90/p10 v3 %.2f (v2 %.2f)\n",
				      workloads[i], machines[j], s3, s2);
			assert_true(s3 <= 3);
			ex_free(&e3);
			ex_free(&e2);
		}
}

static double total_cycles(const char *wl, const char *mach, int model)
{
	char spec[256];
	struct ex e;
	snprintf(spec, sizeof(spec), "%s,machine=%s,model=v%d", wl, mach, model);
	ex_run(&e, spec);
	double s = 0;
	for (size_t x = 0; x < e.w->nxu; x++)
		s += nat(&e, x, NAT_CYC);
	ex_free(&e);
	return s;
}

static void test_machine_ratio(void **state)
{
	(void)state;
	for (size_t i = 0; i < 3; i++) {
		double r3 =
			total_cycles(workloads[i], "xeon192", 3) / total_cycles(workloads[i], "xeon32", 3);
		double r2 =
			total_cycles(workloads[i], "xeon192", 2) / total_cycles(workloads[i], "xeon32", 2);
		print_message("%-32s total cycles xeon192/xeon32 v3 %.2f (v2 %.2f)\n", workloads[i], r3, r2);
		assert_true(r3 <= 2);
		if (i == 0) /* issue 32: 6.5x on v2 */
			assert_true(r2 > 2);
	}
}

/* Share of XUs where native n is exactly 0, leaving out the XUs where it
 * cannot occur (divisions in an XU whose code has none). */
static double zero_share(const struct ex *e, int n)
{
	size_t z = 0, k = 0;
	for (size_t x = 0; x < e->w->nxu; x++) {
		if (n == NAT_FPU_DIV && e->w->xu[x].w.fdv == 0)
			continue;
		k++;
		z += nat(e, x, n) == 0;
	}
	return k ? (double)z / (double)k : 0;
}

static void test_no_zero_events(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(workloads) / sizeof(*workloads); i++)
		for (size_t j = 0; j < 2; j++) {
			char spec[256];
			struct ex e;
			snprintf(spec, sizeof(spec), "%s,machine=%s,model=v3", workloads[i], machines[j]);
			ex_run(&e, spec);
			for (int n = 0; n < NAT_COUNT; n++) {
				double z = zero_share(&e, n);
				if (z >= 0.5)
					print_message("%s %s: %s is 0 on %.0f %% of XUs\n", workloads[i],
						      machines[j], pmcfi_sim_nat_names[n], 100 * z);
				assert_true(z < 0.5);
			}
			ex_free(&e);
		}
	/* model 2 repeated a warm static loop's passes with no L1 miss at all */
	struct ex e;
	ex_run(&e, "loops,n=100000,reps=3,model=v2");
	double z2 = zero_share(&e, NAT_L1D_REPL);
	ex_free(&e);
	ex_run(&e, "loops,n=100000,reps=3,model=v3");
	double z3 = zero_share(&e, NAT_L1D_REPL);
	ex_free(&e);
	print_message("static loops: L1D:REPLACEMENT = 0 on %.0f %% of XUs with v3, %.0f %% with v2\n",
		      100 * z3, 100 * z2);
	assert_true(z2 >= 0.5);
}

/* Model 3's placement follows the schedule: an XU's NUMA distance to its
 * data is its thread's node against the node where the data's pages were
 * first touched in this run (by the producing XU), so the first XU of
 * cholesky (potrf on block 0, the first to touch it) is local in every
 * execution, wherever the OS put its thread; on model 2 the pages' homes
 * were fixed by the workload, so its distance depends on the pinning; and
 * in the value model more hops cost more cycles, all else equal. */
static void test_placement_follows_schedule(void **state)
{
	(void)state;
	int far2 = 0, moved3 = 0;
	for (int seed = 1; seed <= 6; seed++) {
		char spec[128];
		struct ex e3, e2;
		snprintf(spec, sizeof(spec), "cholesky,blocks=8,machine=xeon192,seed=%d,model=v3", seed);
		ex_run(&e3, spec);
		snprintf(spec, sizeof(spec), "cholesky,blocks=8,machine=xeon192,seed=%d,model=v2", seed);
		ex_run(&e2, spec);
		assert_true(e3.r->hops[0] == 0);
		far2 += e2.r->hops[0] > 0;
		/* a later consumer's distance changes with the schedule */
		if (seed > 1) {
			struct ex p3;
			ex_run(&p3, "cholesky,blocks=8,machine=xeon192,seed=1,model=v3");
			for (size_t x = 1; x < e3.w->nxu; x++)
				moved3 += e3.r->hops[x] != p3.r->hops[x];
			ex_free(&p3);
		}
		ex_free(&e3);
		ex_free(&e2);
	}
	print_message("cholesky xeon192: first task remote on model 2 in %d of 6 seeds, local on model 3 "
		      "in all; %d later XU distances moved between seeds\n",
		      far2, moved3);
	assert_true(far2 > 0);
	assert_true(moved3 > 0);
	/* the value model: a memory-bound pass, 0 and 4 hops from its data */
	struct sim_machine *m;
	assert_int_equal(pmcfi_sim_machine_load("xeon192", &m), 0);
	struct sim_work w = {.ins = 1e6,
			     .ld = 0.4,
			     .st = 0.1,
			     .br = 0.1,
			     .cond = 0.9,
			     .taken = 0.5,
			     .misp = 0.01,
			     .foot = 64e6,
			     .passes = 1,
			     .code = 2000,
			     .cpi0 = 0.6};
	struct sim_ctx c = {.freq = 1, .v3 = 1, .scale = 10, .run_cyc = 1, .run_mem = 1};
	double nat0[NAT_COUNT], nat4[NAT_COUNT], f[NAT_COUNT], fs;
	struct pmcfi_rng r;
	pmcfi_rng_seed(&r, 7);
	double d0 = pmcfi_sim_model_xu(m, &w, &c, &r, nat0, f, &fs);
	c.remote_hops = 4;
	pmcfi_rng_seed(&r, 7);
	double d4 = pmcfi_sim_model_xu(m, &w, &c, &r, nat4, f, &fs);
	print_message("memory-bound pass: %.0f cycles local, %.0f at 4 hops\n", nat0[NAT_CYC], nat4[NAT_CYC]);
	assert_true(nat4[NAT_CYC] > 1.2 * nat0[NAT_CYC]);
	assert_true(d4 > d0);
	pmcfi_sim_machine_free(m);
}

/* Rates change inside an XU: the load pass (first phase) against the
 * compute passes, instructions per ns and L2 misses per ns. Returns the
 * share of XUs whose instruction rate differs by > 5 % between the phases
 * and whose L2 miss rate differs by more than 2x (0 when the run has one
 * rate per native, as model 2's instructions). */
static void phase_rates(const char *spec, double *ipc_share, double *miss_share, double *dur_ms,
			double *load_ms)
{
	struct ex e;
	ex_run(&e, spec);
	size_t n = e.w->nxu, ki = 0, km = 0;
	double *d = malloc(2 * n * sizeof(*d));
	assert_non_null(d);
	for (size_t x = 0; x < n; x++) {
		double sp = e.r->split[x];
		d[x] = (double)(e.r->end[x] - e.r->start[x]) / 1e6;
		d[n + x] = d[x] * sp;
		double i0, i1, m0, m1;
		if (e.r->first) {
			i0 = e.r->first[x * NAT_COUNT + NAT_INS] / sp;
			i1 = (nat(&e, x, NAT_INS) - e.r->first[x * NAT_COUNT + NAT_INS]) / (1 - sp);
			m0 = e.r->first[x * NAT_COUNT + NAT_L2_DRD_MISS] / sp;
			m1 = (nat(&e, x, NAT_L2_DRD_MISS) - e.r->first[x * NAT_COUNT + NAT_L2_DRD_MISS]) /
			     (1 - sp);
		} else { /* hem.c: non-memory natives at one rate, memory front-loaded */
			i0 = i1 = nat(&e, x, NAT_INS);
			m0 = nat(&e, x, NAT_L2_DRD_MISS) * e.r->front[x] / sp;
			m1 = nat(&e, x, NAT_L2_DRD_MISS) * (1 - e.r->front[x]) / (1 - sp);
		}
		ki += fabs(i0 / i1 - 1) > 0.05;
		km += m0 > 2 * m1 || m1 > 2 * m0;
	}
	*ipc_share = (double)ki / (double)n;
	*miss_share = (double)km / (double)n;
	qsort(d, n, sizeof(*d), cmp_d);
	qsort(d + n, n, sizeof(*d), cmp_d);
	*dur_ms = d[n / 2];
	*load_ms = d[n + n / 2];
	free(d);
	ex_free(&e);
}

static void test_phases(void **state)
{
	(void)state;
	/* the task graphs: a task's first pass loads its blocks (static loops
	 * find their range warm from the last repetition: one rate) */
	for (size_t i = 0; i < 3; i++) {
		char spec[256];
		double i3, m3, i2, m2, d3, l3, d2, l2;
		snprintf(spec, sizeof(spec), "%s,model=v3", workloads[i]);
		phase_rates(spec, &i3, &m3, &d3, &l3);
		snprintf(spec, sizeof(spec), "%s,model=v2", workloads[i]);
		phase_rates(spec, &i2, &m2, &d2, &l2);
		print_message("%-32s XUs whose instruction rate changes inside: v3 %.0f %% (v2 %.0f %%), "
			      "L2 miss rate x2: v3 %.0f %% (v2 %.0f %%)\n",
			      workloads[i], 100 * i3, 100 * i2, 100 * m3, 100 * m2);
		/* the time scale of the change against multiplexing periods of
		 * 1-4 ms (docs/results/model-v3.md, RoC against RR) */
		print_message("%-32s median XU %.3f ms, its load phase %.3f ms (v3)\n", workloads[i], d3, l3);
		assert_true(i3 > 0.5);
		assert_true(i2 == 0);
	}
}

/* Compulsory misses once per footprint: in cholesky's gemm the blocks fit
 * the L2; model 2 repeated the first pass's cold misses in each of its 100
 * passes, model 3 takes them in the load pass and the other passes miss
 * only what does not fit. Returns the median over gemm XUs of L2 data
 * misses per footprint line, and (model 3) of the load pass's misses over
 * one later pass's. */
static double gemm_l2_per_footprint(int model, double *load_over_pass)
{
	char spec[128];
	struct ex e;
	snprintf(spec, sizeof(spec), "cholesky,blocks=14,model=v%d", model);
	ex_run(&e, spec);
	double *v = malloc(e.w->nxu * sizeof(double)), *q = malloc(e.w->nxu * sizeof(double));
	assert_non_null(v);
	assert_non_null(q);
	size_t k = 0;
	for (size_t x = 0; x < e.w->nxu; x++)
		if (strcmp(e.w->types[e.w->xu[x].type].name, "gemm") == 0) {
			double all = nat(&e, x, NAT_L2_DRD_MISS);
			v[k] = all / (e.w->xu[x].w.foot / 64);
			if (e.r->first) {
				double f = e.r->first[x * NAT_COUNT + NAT_L2_DRD_MISS];
				q[k] = f / ((all - f) / (e.w->time_scale - 1));
			}
			k++;
		}
	qsort(v, k, sizeof(*v), cmp_d);
	qsort(q, k, sizeof(*q), cmp_d);
	double med = v[k / 2];
	*load_over_pass = e.r->first ? q[k / 2] : 1;
	free(v);
	free(q);
	ex_free(&e);
	return med;
}

static void test_compulsory_once(void **state)
{
	(void)state;
	double q3, q2;
	double v3 = gemm_l2_per_footprint(3, &q3), v2 = gemm_l2_per_footprint(2, &q2);
	print_message("gemm L2 data misses per footprint line (100 passes): v3 %.2f, v2 %.2f; "
		      "v3's load pass misses %.1fx a later pass\n",
		      v3, v2, q3);
	assert_true(v3 < 0.5 * v2);
	assert_true(q3 > 1.5); /* model 2: 1, every pass alike */
}

static pmcf_profile *rec(const char *spec, const char *const *ev, size_t n)
{
	pmcf_sim_spec *s;
	assert_int_equal(pmcf_sim_spec_parse(spec, &s), 0);
	pmcf_count_opts o = PMCF_COUNT_OPTS_INIT;
	pmcf_profile *p = NULL;
	assert_int_equal(pmcf_sim_record(s, ev, n, &o, &p), 0);
	pmcf_sim_spec_free(s);
	return p;
}

static double fused_truth_mean(const pmcf_profile *const *in, int strategy)
{
	pmcf_combine_opts o = PMCF_COMBINE_OPTS_INIT;
	o.strategy = strategy;
	o.seed = 3;
	pmcf_profile *f = NULL;
	assert_int_equal(pmcf_combine(in, 2, &o, &f, NULL), 0);
	pmcf_truth_result *r;
	assert_int_equal(pmcf_truth_compare(f, NULL, &r), 0);
	double m = pmcf_truth_mean(r);
	pmcf_truth_result_free(r);
	pmcf_profile_free(f);
	return m;
}

/* The oracle pairs by the truth: a ceiling no strategy passes (random the
 * floor); it refuses a profile without ground truth. */
static void test_oracle(void **state)
{
	(void)state;
	const char *e1[] = {"PAPI_TOT_CYC", "PAPI_L1_DCM", "PAPI_BR_MSP"};
	const char *e2[] = {"PAPI_TOT_CYC", "PAPI_L2_TCM", "PAPI_L3_TCM"};
	pmcf_profile *in[2] = {rec("cholesky,blocks=12,machine=xeon192,seed=1", e1, 3),
			       rec("cholesky,blocks=12,machine=xeon192,seed=2", e2, 3)};
	double rnd = fused_truth_mean((const pmcf_profile *const *)in, PMCF_COMBINE_RANDOM);
	double bc = fused_truth_mean((const pmcf_profile *const *)in, PMCF_COMBINE_BC);
	double lgl = fused_truth_mean((const pmcf_profile *const *)in, PMCF_COMBINE_LGL);
	double orc = fused_truth_mean((const pmcf_profile *const *)in, PMCF_COMBINE_ORACLE);
	print_message("truth mean error: random %.3f bc %.3f lgl %.3f oracle %.3f\n", rnd, bc, lgl, orc);
	assert_true(orc < bc);
	assert_true(orc < lgl);
	assert_true(orc < rnd);
	assert_int_equal(pmcf_strategy_parse("oracle"), PMCF_COMBINE_ORACLE);
	pmcf_profile_meta_set(in[1], PMCF_META_SOURCE, "perf");
	pmcf_combine_opts o = PMCF_COMBINE_OPTS_INIT;
	o.strategy = PMCF_COMBINE_ORACLE;
	pmcf_profile *f = NULL;
	assert_int_not_equal(pmcf_combine_check((const pmcf_profile *const *)in, 2, &o), 0);
	assert_int_not_equal(pmcf_combine((const pmcf_profile *const *)in, 2, &o, &f, NULL), 0);
	assert_null(f);
	pmcf_profile_free(in[0]);
	pmcf_profile_free(in[1]);
}

/* The truth headline counts missing values: an event missing 40 % of its
 * values (the rest exact) has a median error of 0 and a mean of 0.4. */
static void test_truth_missing(void **state)
{
	(void)state;
	const char *ev[] = {"PAPI_TOT_INS", "PAPI_L1_DCM"};
	pmcf_profile *p = rec("cholesky,blocks=10", ev, 2);
	double *col = pmcf_profile_column(p, 2);
	size_t n = pmcf_profile_nxus(p), gone = 0;
	for (size_t x = 0; x < n; x++)
		if (x % 5 < 2) {
			col[x] = PMCF_MISSING;
			gone++;
		}
	pmcf_truth_result *r;
	assert_int_equal(pmcf_truth_compare(p, NULL, &r), 0);
	double med, p90, miss;
	pmcf_truth_summary(r, &med, &p90, &miss);
	double mean = pmcf_truth_mean(r);
	print_message("40 %% missing: median of medians %.3f, mean %.3f\n", med, mean);
	assert_true(med == 0); /* the old summary hides them */
	assert_true(fabs(mean - 0.5 * (double)gone / (double)n) < 1e-9);
	pmcf_truth_result_free(r);
	pmcf_profile_free(p);
}

/* EPD: the resolution comes from the references, and missing values in the
 * target raise its score instead of leaving pairs out. */
static void test_epd_missing(void **state)
{
	(void)state;
	const char *ev[] = {"PAPI_TOT_INS", "PAPI_L1_DCM", "PAPI_L2_TCM"};
	pmcf_profile *ref[3], *t = rec("cholesky,blocks=10,seed=9", ev, 3),
			      *tm = rec("cholesky,blocks=10,seed=9", ev, 3);
	for (int k = 0; k < 3; k++) {
		char spec[64];
		snprintf(spec, sizeof(spec), "cholesky,blocks=10,seed=%d", 20 + k);
		ref[k] = rec(spec, ev, 3);
	}
	double *col = pmcf_profile_column(tm, 2);
	for (size_t x = 0; x < pmcf_profile_nxus(tm); x++)
		if (x % 2)
			col[x] = PMCF_MISSING;
	pmcf_epd_result *r, *rm;
	assert_int_equal(pmcf_epd_compute(t, (const pmcf_profile *const *)ref, 3, NULL, &r), 0);
	assert_int_equal(pmcf_epd_compute(tm, (const pmcf_profile *const *)ref, 3, NULL, &rm), 0);
	assert_int_equal(pmcf_epd_npairs(r), pmcf_epd_npairs(rm));
	assert_int_equal(pmcf_epd_nexcluded(r), pmcf_epd_nexcluded(rm));
	for (size_t i = 0; i < pmcf_epd_npairs(r); i++)
		assert_true(pmcf_epd_pair_at(r, i)->resolution == pmcf_epd_pair_at(rm, i)->resolution);
	print_message("EPD complete %.3f, half of PAPI_L1_DCM missing %.3f\n", pmcf_epd_value(r),
		      pmcf_epd_value(rm));
	assert_true(pmcf_epd_value(rm) > 1.5 * pmcf_epd_value(r));
	pmcf_epd_result_free(r);
	pmcf_epd_result_free(rm);
	for (int k = 0; k < 3; k++)
		pmcf_profile_free(ref[k]);
	pmcf_profile_free(t);
	pmcf_profile_free(tm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_label_stability),
		cmocka_unit_test(test_identical_tasks),
		cmocka_unit_test(test_machine_ratio),
		cmocka_unit_test(test_no_zero_events),
		cmocka_unit_test(test_placement_follows_schedule),
		cmocka_unit_test(test_phases),
		cmocka_unit_test(test_compulsory_once),
		cmocka_unit_test(test_oracle),
		cmocka_unit_test(test_truth_missing),
		cmocka_unit_test(test_epd_missing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
