/* Hardware event multiplexing in simulation: each thread's counters rotate
 * every period (timer phase drawn from the seed) under one of the shared
 * schedulers (src/multiplex/sched.c); counts accrue only while a unit holds
 * a counter. Per XU two estimators (fuse-task-parallel §5.1): cumulative,
 * the difference of the thread's scaled count raw x enabled/running between
 * XU end and start (what PAPI_read users get), and local, the count seen
 * while running during the XU scaled by duration / running time. A value
 * the counters never saw is missing, not 0 (docs/multiplexing.md). */
#include "multiplex/sched.h"
#include "sim/sim_impl.h"
#include "util/internal.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct fit_ctx {
	struct pmcfi_sim_fit fit;
	const struct pmcfi_sim_machine *m;
	unsigned pmcs;
	const int *units;
};

static void fit_reset(void *ctx)
{
	struct fit_ctx *c = ctx;
	pmcfi_sim_fit_reset(&c->fit, c->m, c->pmcs);
}

static int fit_try(void *ctx, size_t u)
{
	struct fit_ctx *c = ctx;
	return pmcfi_sim_fit_add(&c->fit, c->units[u]);
}

static const struct pmcfi_mux_ops fit_ops = {fit_reset, fit_try};

struct tl {
	struct pmcfi_mux *mux;
	struct fit_ctx fc;
	size_t nu;
	double *raw, *run, en;
	uint8_t *on;
	double period, next_rot;
};

static void rotate(struct tl *s)
{
	for (size_t u = 0; u < s->nu; u++)
		if (s->on[u])
			pmcfi_mux_observe(s->mux, u, (uint64_t)s->next_rot,
					  s->run[u] > 0 ? s->raw[u] * s->en / s->run[u] : 0);
	pmcfi_mux_rotate(s->mux, (uint64_t)s->next_rot, &fit_ops, &s->fc, s->on);
	s->next_rot += s->period;
}

/* Advances the thread from time a to b at the given per-unit rates. */
static void advance(struct tl *s, double a, double b, const double *rate)
{
	while (a < b) {
		double e = b < s->next_rot ? b : s->next_rot;
		double dt = e - a;
		s->en += dt;
		for (size_t u = 0; u < s->nu; u++)
			if (s->on[u]) {
				s->raw[u] += rate[u] * dt;
				s->run[u] += dt;
			}
		a = e;
		if (a >= s->next_rot)
			rotate(s);
	}
}

static int by_thread_start(const void *pa, const void *pb, void *ctx)
{
	const struct pmcfi_sim_run *r = ctx;
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	if (r->thread[a] != r->thread[b])
		return r->thread[a] < r->thread[b] ? -1 : 1;
	if (r->start[a] != r->start[b])
		return r->start[a] < r->start[b] ? -1 : 1;
	return a < b ? -1 : a > b;
}

int pmcfi_sim_hem_run(const struct pmcfi_sim_machine *m, const struct pmcfi_sim_run *r, const int *units,
		      size_t nu, unsigned pmcs, int mode, double period_ns, int estimate, uint64_t seed,
		      struct pmcfi_sim_hem_out *out)
{
	size_t n = r->nxu;
	int policy = pmcfi_mux_policy(mode);
	out->est = malloc((n && nu ? n * nu : 1) * sizeof(double));
	out->running = malloc((n && nu ? n * nu : 1) * sizeof(uint64_t));
	size_t *ord = malloc((n ? n : 1) * sizeof(size_t));
	double *mem = malloc((6 * nu + NAT_COUNT + 1) * sizeof(double));
	struct tl s = {0};
	s.nu = nu;
	s.on = malloc(nu + 1);
	s.mux = pmcfi_mux_new(policy, nu);
	if (!out->est || !out->running || !ord || !mem || !s.on || !s.mux) {
		free(ord);
		free(mem);
		free(s.on);
		pmcfi_mux_free(s.mux);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory simulating multiplexing");
	}
	double *raw = mem, *run = mem + nu, *idle = mem + 2 * nu, *r1 = mem + 3 * nu, *r2 = mem + 4 * nu;
	double *snap = mem + 5 * nu, *idle_nat = mem + 6 * nu;
	s.raw = raw;
	s.run = run;
	s.period = period_ns;
	s.fc.m = m;
	s.fc.pmcs = pmcs;
	s.fc.units = units;
	pmcfi_sim_model_idle_rates(m, idle_nat);
	for (size_t u = 0; u < nu; u++)
		idle[u] = idle_nat[units[u]];
	for (size_t i = 0; i < n; i++)
		ord[i] = i;
	qsort_r(ord, n, sizeof(*ord), by_thread_start, (void *)r);
	/* the snapshot of a unit at XU start: C(start) for cumulative, raw and
	 * running time for local (snap holds C or raw; run0 the running time) */
	double *run0 = malloc((nu ? nu : 1) * sizeof(double));
	if (!run0) {
		free(ord);
		free(mem);
		free(s.on);
		pmcfi_mux_free(s.mux);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory simulating multiplexing");
	}
	size_t i = 0;
	while (i < n) {
		int th = r->thread[ord[i]];
		/* a fresh thread: its events are enabled when it starts, at 0 */
		pmcfi_mux_free(s.mux);
		s.mux = pmcfi_mux_new(policy, nu);
		if (!s.mux)
			break;
		memset(raw, 0, nu * sizeof(double));
		memset(run, 0, nu * sizeof(double));
		memset(s.on, 0, nu);
		s.en = 0;
		s.next_rot = 0;
		double phase = pmcfi_rng_hash_unif(seed ^ 0x7133ull, (uint64_t)th) * period_ns;
		rotate(&s); /* first assignment at 0 */
		s.next_rot = phase > 0 ? phase : period_ns;
		double t = 0;
		for (; i < n && r->thread[ord[i]] == th; i++) {
			size_t x = ord[i];
			double st = (double)r->start[x], en = (double)r->end[x], d = en - st;
			advance(&s, t, st, idle);
			for (size_t u = 0; u < nu; u++) {
				snap[u] = estimate == PMCF_EST_LOCAL
						  ? raw[u]
						  : (run[u] > 0 ? raw[u] * s.en / run[u] : 0);
				run0[u] = run[u];
				double c = r->nat[x * NAT_COUNT + (size_t)units[u]];
				double sp = r->split[x];
				double g = pmcfi_sim_nat_is_memory(units[u]) ? r->front[x] : sp;
				if (r->first) /* model 3: the load pass, then the others */
					g = c > 0 ? r->first[x * NAT_COUNT + (size_t)units[u]] / c : sp;
				r1[u] = d > 0 ? c * g / (sp * d) : 0;
				r2[u] = d > 0 && sp < 1 ? c * (1 - g) / ((1 - sp) * d) : 0;
			}
			double mid = st + r->split[x] * d;
			advance(&s, st, mid, r1);
			advance(&s, mid, en, r2);
			for (size_t u = 0; u < nu; u++) {
				double rn = run[u] - run0[u];
				double v;
				/* missing, like perf's <not counted>: local, the unit
				 * never held a counter during the XU; cumulative, it never
				 * held one on this thread up to the XU end (the scaled
				 * count is 0/0 there). The scaled count at XU start of a
				 * unit that had not yet counted is 0, as PAPI_read says. */
				if (estimate == PMCF_EST_LOCAL)
					v = rn > 0 ? (raw[u] - snap[u]) * d / rn : PMCF_MISSING;
				else
					v = run[u] > 0 ? raw[u] * s.en / run[u] - snap[u] : PMCF_MISSING;
				out->est[x * nu + u] = v;
				out->running[x * nu + u] = (uint64_t)(rn + 0.5);
			}
			t = en;
		}
	}
	int err = s.mux ? 0 : pmcfi_fail(PMCF_ENOMEM, "out of memory simulating multiplexing");
	pmcfi_mux_free(s.mux);
	free(run0);
	free(ord);
	free(mem);
	free(s.on);
	return err;
}
