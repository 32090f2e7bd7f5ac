/* The value model: the true native event counts of one XU from its latent
 * work features (sim_work), the dynamic context of this execution (core,
 * NUMA distance to the data, co-running XUs, cache warmth, frequency) and
 * noise. Reasons for each term: docs/simulation.md. */
#include "sim/sim_impl.h"
#include <math.h>

/* Share of a working set of f bytes that does not fit a cache of c bytes:
 * a smooth step (sharp caches are an idealisation; associativity, the
 * replacement policy and other data blur the edge). */
static inline double over(double f, double c)
{
	double r = c / (f + 1);
	r = r * r;
	return 1.0 / (1.0 + r * r);
}

/* Multiplicative noise exp(sigma*N(0,1)). */
static inline double lnoise(struct pmcfi_rng *r, double sigma)
{
	return sigma > 0 ? exp(sigma * pmcfi_rng_normal(r)) : 1.0;
}

int pmcfi_sim_nat_is_memory(int n)
{
	switch (n) {
	case NAT_L1D_REPL:
	case NAT_L1_LDM:
	case NAT_L1_STM:
	case NAT_L2_DRD:
	case NAT_L2_RFO:
	case NAT_L2_RFO_MISS:
	case NAT_L2_WB:
	case NAT_L2_DRD_MISS:
	case NAT_OFF_DATA_RD:
	case NAT_OFF_RFO:
	case NAT_OFF_WB:
	case NAT_LLC_REF:
	case NAT_LLC_MISS:
	case NAT_STALL_CYC:
	case NAT_ICACHE_MISS:
	case NAT_L2_CODE_ALL:
	case NAT_L2_CODE_MISS:
	case NAT_L2_CODE_HIT:
	case NAT_OFF_CODE:
	case NAT_ITLB_MISS: return 1;
	default: return 0;
	}
}

void pmcfi_sim_model_idle_rates(const struct pmcfi_sim_machine *m, double *rate)
{
	for (int i = 0; i < NAT_COUNT; i++)
		rate[i] = 0;
	/* a worker spinning on its queues and trying to steal */
	rate[NAT_INS] = 1.6 * m->freq_ghz;
	rate[NAT_CYC] = m->freq_ghz;
	rate[NAT_REF] = m->freq_ghz;
	rate[NAT_BR_ALL] = 0.3 * m->freq_ghz;
	rate[NAT_BR_COND] = 0.25 * m->freq_ghz;
	rate[NAT_BR_TAKEN_COND] = 0.24 * m->freq_ghz;
	rate[NAT_BR_MISP] = 0.0005;
	rate[NAT_LOADS] = 0.5 * m->freq_ghz;
	rate[NAT_STORES] = 0.02 * m->freq_ghz;
	rate[NAT_L1D_REPL] = 0.001;
	rate[NAT_L1_LDM] = 0.0008;
	rate[NAT_L2_DRD] = 0.0007;
	rate[NAT_LLC_REF] = 0.0003;
	rate[NAT_LLC_MISS] = 0.00005;
	rate[NAT_STALL_CYC] = 0.1 * m->freq_ghz;
}

/* One pass of the XU's kernel in context c: unrounded native counts and the
 * duration in ns without the rotations' cost. */
static double model_once(const struct pmcfi_sim_machine *m, const struct pmcfi_sim_work *w,
			 const struct pmcfi_sim_ctx *c, struct pmcfi_rng *r, double *nat)
{
	const double nz = m->noise;
	/* instruction mix: a property of the code and input; the runtime's own
	 * instructions (task entry/exit, queue work) jitter slightly */
	double rt = 150 + 60 * pmcfi_rng_unif(r);
	double ins = w->ins + rt;
	double loads = w->ins * w->ld + rt * 0.3, stores = w->ins * w->st + rt * 0.1;
	double br = w->ins * w->br + rt * 0.2;
	double cond = br * w->cond, taken = cond * w->taken;
	double misp = cond * w->misp * lnoise(r, 0.05 * nz) + rt * 0.004;

	/* data caches: compulsory misses (lines not left warm by the core's last
	 * XU) plus capacity misses of the repeated sweeps; a busy sibling
	 * hardware thread halves the effective L1/L2, busy cores share the L3 */
	double lines = w->foot / 64.0;
	double l1 = m->l1d / (c->sibling_busy ? 2.0 : 1.0);
	double l2 = m->l2 / (c->sibling_busy ? 1.7 : 1.0);
	double l3 = m->l3 / (c->socket_busy > 1 ? 0.6 * c->socket_busy : 1.0);
	/* model 2: this execution's placement (docs/simulation.md) */
	double pl = c->v2 ? exp(c->place) : 1.0;
	double sweeps = w->passes > 1 ? w->passes - 1 : 0;
	double rot_lines = c->rotations * 48; /* HEM handler pollutes the caches */
	double cold = lines * (1 - c->warm);
	double cold1 = cold, cold2 = lines * (1 - c->warm * 0.97) * 0.9;
	if (c->v3) {
		/* model 3: the first sweep of a pass misses what does not fit the
		 * level even when the previous pass left the data warm (the warm
		 * share is what the L2 keeps; L1 keeps less) */
		double o1 = over(w->foot, l1), o2 = over(w->foot, l2) * 0.9;
		cold1 = cold1 > lines * o1 ? cold1 : lines * o1;
		cold2 = cold2 > lines * o2 ? cold2 : lines * o2;
	}
	double m1 = cold1 + sweeps * lines * over(w->foot, l1) + rot_lines;
	double m2 = cold2 + sweeps * lines * over(w->foot, l2) + rot_lines * 0.5;
	if (c->v2) {
		/* a busy sibling thread shares L1; co-runners on the socket evict
		 * from L2 and L3 (the same factor, stronger further out) */
		m1 *= exp(0.6 * c->place);
		m2 *= exp(0.7 * c->place);
	}
	if (m2 > m1)
		m2 = m1;
	double from_mem = cold * (1 - c->warm_l3) + sweeps * lines * over(w->foot, l3);
	if (c->v3) {
		double o3 = lines * over(w->foot, l3);
		double c3 = cold * (1 - c->warm_l3);
		from_mem = (c3 > o3 ? c3 : o3) + sweeps * lines * over(w->foot, l3);
	}
	double m3 = from_mem * 0.95;
	if (c->v2)
		m3 *= pl;
	if (m3 > m2)
		m3 = m2;
	double sf = stores / (loads + stores + 1);

	double ldm = m1 * (1 - sf) * lnoise(r, 0.03 * nz);
	double stm = m1 * sf * 1.1 * lnoise(r, 0.04 * nz);
	double pref = lines * 0.15 * (1 - c->warm) * lnoise(r, 0.1 * nz); /* L1 prefetcher fills */
	nat[NAT_L1_LDM] = ldm;
	nat[NAT_L1_STM] = stm;
	nat[NAT_L1D_REPL] = (ldm + stm) * 0.97 + pref;
	nat[NAT_L2_DRD] = ldm * 0.93 + pref * 0.5;
	nat[NAT_L2_RFO] = stm * lnoise(r, 0.01 * nz);
	double l2ratio = m1 > 0 ? m2 / m1 : 0;
	double drd_miss = nat[NAT_L2_DRD] * l2ratio * lnoise(r, 0.05 * nz);
	double rfo_miss = nat[NAT_L2_RFO] * l2ratio * lnoise(r, 0.06 * nz);
	nat[NAT_L2_DRD_MISS] = drd_miss;
	nat[NAT_L2_RFO_MISS] = rfo_miss;
	nat[NAT_L2_WB] = nat[NAT_L1D_REPL] * sf * 1.6 * lnoise(r, 0.05 * nz);

	/* instruction side: the core keeps the code of its last XU type warm */
	double clines = (w->code + 6000) / 64.0;
	double icm = clines * (1 - 0.85 * c->code_warm) * 0.6 +
		     ins / 16.0 * over(w->code + 6000, m->l1i) * 0.02 + 12 + c->rotations * 20;
	icm *= lnoise(r, 0.08 * nz);
	if (c->v2) /* the co-runner on the core shares L1I and L2 */
		icm *= exp(0.6 * c->place);
	nat[NAT_ICACHE_MISS] = icm;
	double code_all = icm * 1.12 * lnoise(r, 0.03 * nz);
	double code_miss = code_all * (c->code_warm > 0.5 ? 0.04 : 0.35) * lnoise(r, 0.15 * nz);
	if (c->v2) /* ... and the socket's L3 */
		code_miss *= exp(0.4 * c->place);
	if (code_miss > code_all)
		code_miss = code_all;
	nat[NAT_L2_CODE_ALL] = code_all;
	nat[NAT_L2_CODE_MISS] = code_miss;
	nat[NAT_L2_CODE_HIT] = code_all - code_miss;
	nat[NAT_OFF_CODE] = code_miss * 0.96 * lnoise(r, 0.02 * nz);
	nat[NAT_ITLB_MISS] = (c->code_warm > 0.5 ? 0.3 : 2.5) * lnoise(r, 0.5 * nz) + c->rotations * 1.5 +
			     (w->code > 8192 ? w->code / 8192 : 0);
	if (c->v2) /* the sibling's pages share the iTLB */
		nat[NAT_ITLB_MISS] *= exp(0.6 * c->place);

	/* offcore and last level */
	nat[NAT_OFF_DATA_RD] = drd_miss * 0.97 * lnoise(r, 0.02 * nz);
	nat[NAT_OFF_RFO] = rfo_miss * 0.97 * lnoise(r, 0.02 * nz);
	double l2wb = (drd_miss + rfo_miss) * sf * 1.4 * lnoise(r, 0.08 * nz);
	nat[NAT_OFF_WB] = l2wb;
	double llc_ref = drd_miss + rfo_miss + code_miss + pref * 0.2 * l2ratio;
	nat[NAT_LLC_REF] = llc_ref * lnoise(r, 0.02 * nz);
	double llc_miss = m3 * lnoise(r, 0.06 * nz) + code_miss * 0.05;
	if (llc_miss > nat[NAT_LLC_REF])
		llc_miss = nat[NAT_LLC_REF];
	nat[NAT_LLC_MISS] = llc_miss;

	/* cycles: base CPI, memory stalls (remote NUMA latency, bandwidth
	 * contention on the socket) overlapped by memory-level parallelism,
	 * branch mispredictions, divisions, SMT sharing of the core */
	double lat_mem = (m->lat_mem + m->lat_hop * c->remote_hops) * c->freq *
			 (1 + 0.6 * (c->socket_busy > 1 ? c->socket_busy - 1 : 0) /
				      (double)(m->cores_per_socket * m->threads_per_core));
	if (c->v2) /* the placement's NUMA distance and queues; the run's memory */
		lat_mem *= pl * c->run_mem;
	double mlp = 3.0;
	double stall_mem = ((m1 - m2) * m->lat_l2 + (m2 - llc_miss) * m->lat_l3 + llc_miss * lat_mem) / mlp;
	double stall = stall_mem + misp * 16 + w->fdv * 12 + icm * 8;
	double base = ins * w->cpi0 * (c->sibling_busy ? 1.3 : 1.0);
	if (c->v2) /* a co-runner on the core's ports and the run's drift */
		base *= exp(0.4 * c->place) * c->run_cyc;
	/* interference from the rest of the machine (coherence and interconnect
	 * traffic, memory controller queues): grows with the machine's
	 * variability and with the distance to the data; model 2 moves most of
	 * it into the placement factor, which also moves the misses */
	double interf =
		lnoise(r, (c->v2 || c->v3 ? 0.008 : 0.025) * m->variability * (1 + c->remote_hops) / 2);
	double cyc = (base + stall) * interf * lnoise(r, 0.01 * nz);
	nat[NAT_CYC] = cyc;
	nat[NAT_REF] = cyc / c->freq;
	nat[NAT_STALL_CYC] = (stall * 0.85 + base * 0.06) * lnoise(r, 0.03 * nz);

	nat[NAT_INS] = ins;
	nat[NAT_LOADS] = loads;
	nat[NAT_STORES] = stores;
	nat[NAT_BR_ALL] = br;
	nat[NAT_BR_COND] = cond;
	nat[NAT_BR_TAKEN_COND] = taken;
	nat[NAT_BR_MISP] = misp;
	nat[NAT_FPU_DIV] = w->fdv;
	return cyc / (m->freq_ghz * c->freq);
}

/* Counts are integers; the code hits stay all - misses. */
static void round_counts(double *nat, double k)
{
	for (int i = 0; i < NAT_COUNT; i++)
		nat[i] = nat[i] > 0 ? floor(nat[i] * k + 0.5) : 0;
	if (nat[NAT_L2_CODE_HIT] != nat[NAT_L2_CODE_ALL] - nat[NAT_L2_CODE_MISS])
		nat[NAT_L2_CODE_HIT] = nat[NAT_L2_CODE_ALL] - nat[NAT_L2_CODE_MISS];
}

double pmcfi_sim_model_xu(const struct pmcfi_sim_machine *m, const struct pmcfi_sim_work *w,
			  const struct pmcfi_sim_ctx *c, struct pmcfi_rng *r, double *nat, double *first,
			  double *first_share)
{
	if (c->v3) {
		/* model 3: the kernel runs scale passes over its data. The first
		 * pass finds the data where this execution's schedule left it
		 * (context c: warmth, NUMA home); the others find it where the
		 * first pass left it: the share of the footprint that fits the L2
		 * (L3) stays, the code stays warm. Compulsory misses happen once
		 * per footprint; the first pass is the XU's load phase, the rest
		 * its compute phase (hem.c accrues the two at their own rates). */
		double k = c->scale > 1 ? c->scale - 1 : 0;
		double n0 = model_once(m, w, c, r, first);
		struct pmcfi_sim_ctx s = *c;
		double l2 = m->l2 / (c->sibling_busy ? 1.7 : 1.0);
		double l3 = m->l3 / (c->socket_busy > 1 ? 0.6 * c->socket_busy : 1.0);
		s.warm = w->foot > l2 ? l2 / w->foot : 1;
		s.warm_l3 = w->foot > l3 ? l3 / w->foot : 1;
		s.code_warm = 1;
		double n1 = k > 0 ? model_once(m, w, &s, r, nat) : 0;
		for (int i = 0; i < NAT_COUNT; i++)
			nat[i] = first[i] + (k > 0 ? k * nat[i] : 0);
		round_counts(first, 1.0);
		round_counts(nat, 1.0);
		for (int i = 0; i < NAT_COUNT; i++)
			if (first[i] > nat[i])
				first[i] = nat[i];
		double t0 = n0 + c->rotations * c->rot_cost_ns;
		double t = t0 + k * (n1 + c->rotations * c->rot_cost_ns);
		*first_share = t > 0 ? t0 / t : 1;
		return t;
	}
	double ns = model_once(m, w, c, r, nat);
	/* model 2: the kernel repeats scale times (counts and time) */
	double k = c->v2 ? c->scale : 1.0;
	round_counts(nat, k);
	(void)first;
	*first_share = 0;
	return (ns + c->rotations * c->rot_cost_ns) * k;
}
