/* Measured loop speeds applied to the cost model's units (PMCF_IMIX_RATE_IV):
 * loop counts from sample pairs and trip counts, functions counted from
 * their call sites, and the loops left without a count named. */
#include <stdlib.h>
#include <string.h>
#include <Zydis/Zydis.h>
#include "hbbp/hbbp_impl.h"
#include "hbbp/tc_impl.h"
#include "util/abi.h"
#include "util/internal.h"

/* Do a loop's pairs measure its speed? Enough of them, and few that ran
 * backwards: a pair whose registers all stepped back spans two instances
 * of the loop (a monotonic register restarts), and as many pairs across
 * instances step forwards by chance, adding their time but few of the
 * iterations in it. Within one call, same_call rules such pairs out; where
 * it cannot (the function writes every register: gzip's longest_match,
 * called per position, 100x under its count), the backward pairs count
 * the others: the loop is taken as measured only while they are within
 * the pairs' own sampling noise, sqrt(n) (issue 36, item 1). */
static int pairs_ok(const struct pmcfi_hbbp_loopst *l)
{
	return l->npair >= IV_MIN_PAIRS && l->ptime > 0 && l->nback * (double)l->nback <= l->npair;
}

/* A direct call in a function with samples: its target and the count of
 * its block (-1: none). */
struct site {
	const struct pmcfi_hbbp_func *g; /* the caller and its block */
	uint32_t b;
	uint64_t to;
	double w; /* the callee's sample weight (0: not in the mix) */
};

static int site_cmp(const void *x, const void *y)
{
	const struct site *a = x, *b = y;
	if (a->g->im != b->g->im)
		return (uintptr_t)a->g->im < (uintptr_t)b->g->im ? -1 : 1;
	return (a->to > b->to) - (a->to < b->to);
}

/* The first of the sorted sites that calls f (ns when none). */
static size_t site_first(const struct site *st, size_t ns, const struct pmcfi_hbbp_func *f)
{
	struct site key = {f, 0, f->start, 0};
	size_t lo = 0, hi = ns;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (site_cmp(&st[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The direct calls in the functions with samples (u[], functions
 * consecutive), sorted by image and callee, with the weight of their
 * callees. */
static int collect_calls(const ZydisDecoder *dec, const struct pmcfi_hbbp_unit *u, size_t n,
			 struct site **out, size_t *nout)
{
	struct site *st = NULL;
	size_t ns = 0, cap = 0;
	for (size_t i = 0; i < n; i++) {
		const struct pmcfi_hbbp_func *g = u[i].f;
		if (i && u[i - 1].f == g)
			continue;
		for (uint32_t b = 0; b < g->nblocks; b++) {
			const struct pmcfi_hbbp_block *bl = &g->blocks[b];
			uint32_t li = bl->first + bl->n - 1;
			ZydisDecodedInstruction d;
			ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
			if (!(g->ins[li].flags & INS_CF) || pmcfi_hbbp_decode_ins(dec, g, li, &d, op) ||
			    d.meta.category != ZYDIS_CATEGORY_CALL ||
			    !(d.attributes & ZYDIS_ATTRIB_IS_RELATIVE) ||
			    op[0].type != ZYDIS_OPERAND_TYPE_IMMEDIATE)
				continue;
			if (pmcfi_grow((void **)&st, &cap, ns + 1, sizeof(*st))) {
				free(st);
				return pmcfi_fail(PMCF_ENOMEM, "out of memory");
			}
			st[ns++] = (struct site){g, b,
						 g->ins[li].addr + d.length + (uint64_t)op[0].imm.value.s, 0};
		}
	}
	if (ns)
		qsort(st, ns, sizeof(*st), site_cmp);
	/* the callees' weights */
	for (size_t i = 0; i < n; i++)
		for (size_t q = site_first(st, ns, u[i].f);
		     q < ns && st[q].g->im == u[i].f->im && st[q].to == u[i].f->start; q++)
			st[q].w += u[i].w;
	*out = st;
	*nout = ns;
	return 0;
}

/* Functions counted from their call sites: a function whose entry block's
 * unit has no factor (outside every loop with a count), called directly
 * from blocks (of functions with samples, in its image) that all have
 * counts, runs as often as they do together; its units without a factor
 * are scaled by that count over its entry unit's modelled one. Calls the
 * samples cannot show (indirect, from other images, from code without
 * samples) are not counted. kf[] (0: none) and the time-weighted sums of
 * pmcfi_hbbp_apply_rates are updated. */
static int count_calls(pmcf_imix *m, const struct pmcfi_hbbp_unit *u, size_t n, const uint32_t *uof,
		       const double *xc, const double *cnt, double *kf, const struct site *st, size_t ns,
		       double *w_rate, double *kw)
{
	/* repeated: a function counted this way counts the ones it calls */
	for (int changed = 1; changed;) {
		changed = 0;
		for (size_t i = 0; i < n; i++) {
			const struct pmcfi_hbbp_func *f = u[i].f;
			if ((i && u[i - 1].f == f) || !f->nblocks || f->blocks[0].start != f->start)
				continue;
			uint32_t e0 = uof[f->boff];
			if (e0 == UINT32_MAX || kf[e0] > 0 || !(cnt[e0] > 0))
				continue;
			double calls = 0;
			int ok = 1, nsite = 0;
			for (size_t j = site_first(st, ns, f);
			     ok && j < ns && st[j].g->im == f->im && st[j].to == f->start; j++) {
				size_t at = st[j].g->boff + st[j].b;
				uint32_t k = uof[at];
				double c = k != UINT32_MAX && kf[k] > 0 ? cnt[k] * kf[k]
					   : xc[at] > 0                 ? xc[at]
									: -1;
				nsite++, ok = c >= 0, calls += c;
			}
			if (!ok || !nsite || !(calls > 0))
				continue;
			double fac = calls / cnt[e0];
			for (size_t k = i; k < n && u[k].f == f; k++)
				if (!(kf[k] > 0))
					kf[k] = fac, *w_rate += u[k].w, *kw += fac * u[k].w;
			m->st.rate_funcs++;
			changed = 1;
		}
	}
	return 0;
}

/* Is unit x (of the function at block offset o) made of blocks of loop l's
 * own (not of a nested loop)? 0: no; 1: yes; 2: yes, and one of them runs
 * every iteration. */
static int own_unit(const struct pmcfi_hbbp_blkinfo *bi, size_t o, const struct pmcfi_hbbp_unit *x,
		    uint32_t l)
{
	int every = 0;
	for (uint32_t b = x->first; b != UINT32_MAX; b = x->next[b]) {
		if (bi->flp[o + b] != l)
			return 0;
		every |= bi->once[o + b] & 1;
	}
	return 1 + every;
}

/* The largest loops without a count, with why, into the stats (the report
 * header names them: issue 36, item 7). A loop's share includes its nested
 * loops'. */
struct lref {
	const struct pmcfi_hbbp_func *f;
	uint32_t h;
	double t;
};

static int lref_cmp(const void *x, const void *y)
{
	const struct lref *a = x, *b = y;
	if (a->t != b->t)
		return a->t > b->t ? -1 : 1;
	return a->f->start != b->f->start ? (a->f->start < b->f->start ? -1 : 1)
					  : (a->h > b->h) - (a->h < b->h);
}

static void name_unmeasured(pmcf_imix *m, const struct pmcfi_hbbp_unit *u, size_t n,
			    const struct pmcfi_hbbp_blkinfo *bi, const struct pmcfi_hbbp_loopst *ls,
			    double w_all)
{
	char *out = m->st.unmeasured_loops;
	size_t cap = sizeof(m->st.unmeasured_loops), len = 0, nl = 0, capl = 0;
	out[0] = 0;
	struct lref *lr = NULL;
	for (size_t i = 0; w_all > 0 && i < n; i++) {
		const struct pmcfi_hbbp_func *f = u[i].f;
		if (i && u[i - 1].f == f)
			continue;
		for (uint32_t h = 0; h < f->nblocks; h++) {
			const struct pmcfi_hbbp_loopst *l = &ls[f->boff + h];
			if (bi->flp[f->boff + h] != h || l->N > 0 || l->t < 0.01 * w_all)
				continue;
			if (pmcfi_grow((void **)&lr, &capl, nl + 1, sizeof(*lr)))
				break;
			lr[nl++] = (struct lref){f, h, l->t};
		}
	}
	if (nl)
		qsort(lr, nl, sizeof(*lr), lref_cmp);
	for (size_t k = 0; k < nl; k++) {
		const struct pmcfi_hbbp_loopst *l = &ls[lr[k].f->boff + lr[k].h];
		const char *why = !l->iv.n                  ? "no induction register"
				  : l->npair < IV_MIN_PAIRS ? "too few sample pairs in one instance"
				  : l->nback * (double)l->nback > l->npair
					  ? "its pairs span instances (calls)"
					  : "no measured count";
		char one[200];
		int w = snprintf(one, sizeof(one), "%s%s@0x%llx %.0f %% (%s)", len ? "; " : "", lr[k].f->name,
				 (unsigned long long)lr[k].f->blocks[lr[k].h].start, 100 * lr[k].t / w_all,
				 why);
		if (w < 0 || len + (size_t)w + 1 > cap)
			break;
		memcpy(out + len, one, (size_t)w + 1);
		len += (size_t)w;
	}
	free(lr);
}

/* Each loop's trip count from its samples (TRIP_MIN_SAMPLES at least). */
static void loop_trips(struct pmcfi_hbbp_loopst *ls, size_t nblk)
{
	for (size_t i = 0; i < nblk; i++) {
		struct pmcfi_hbbp_loopst *l = &ls[i];
		pmcfi_hbbp_trip_flush(l);
		/* start and bound: the mean over instances, from samples that
		 * fall in each in proportion to its trips: n / sum 1/T; a start
		 * only: the most steps seen, m + m/n - 1 (as many values of 1..T
		 * drawn evenly); a constant start not known here: the spread */
		double rm = (double)l->rmax + !l->iv.bafter; /* the bound's iteration */
		l->trip = l->hn >= TRIP_MIN_SAMPLES   ? l->hn / l->hinv
			  : l->dn >= TRIP_MIN_SAMPLES ? (double)l->dmax * (l->dn + 1) / l->dn
			  : l->rn >= TRIP_MIN_SAMPLES ? (rm + 1) * (l->rn + 1) / l->rn
			  : l->tn > 0                 ? l->tsum / l->tn
						      : 0;
	}
}

/* Each loop's time (ls[].t): its blocks' weight, and that of a function it
 * calls directly when every call to it the samples show is in the loop
 * (sites sorted by callee; not a recursive call, whose time is the loop's
 * own). */
static void loop_times(const struct pmcfi_hbbp_unit *u, size_t n, const struct pmcfi_hbbp_blkinfo *bi,
		       struct pmcfi_hbbp_loopst *ls, const struct site *sites, size_t nsites)
{
	for (size_t i = 0; i < n; i++) {
		const struct pmcfi_hbbp_func *f = u[i].f;
		if (i && u[i - 1].f == f)
			continue;
		for (uint32_t b = 0; b < f->nblocks; b++)
			for (uint32_t h = bi->flp[f->boff + b]; h != UINT32_MAX; h = bi->flpar[f->boff + h])
				ls[f->boff + h].t += f->ebs[b];
	}
	for (size_t a = 0, z; a < nsites; a = z) {
		const struct pmcfi_hbbp_func *g = sites[a].g;
		int one = 1;
		for (z = a + 1; z < nsites && sites[z].g->im == g->im && sites[z].to == sites[a].to; z++)
			one &= sites[z].g == g;
		if (!one || !(sites[a].w > 0) || sites[a].to == g->start)
			continue;
		const uint32_t *flp = bi->flp + g->boff, *flpar = bi->flpar + g->boff;
		for (uint32_t h = flp[sites[a].b]; h != UINT32_MAX; h = flpar[h]) {
			int all = 1;
			for (size_t q = a + 1; q < z && all; q++)
				all = pmcfi_hbbp_in_loop(flp, flpar, sites[q].b, h);
			if (all)
				ls[g->boff + h].t += sites[a].w;
		}
	}
}

/* The loop counts of function f (ls[].N, how, fac; uof: unit of each
 * block), and xc[] for its blocks without samples. */
static void func_loop_counts(const struct pmcfi_hbbp_func *f, const struct pmcfi_hbbp_unit *u,
			     const struct pmcfi_hbbp_blkinfo *bi, struct pmcfi_hbbp_loopst *ls,
			     const uint32_t *uof, const double *cnt, double *xc)
{
	size_t o = f->boff;
	const uint32_t *flp = bi->flp + o, *flpar = bi->flpar + o;
	/* measured: loops with enough pairs, but a nested loop with few
	 * pairs per instance is left to its trip count where it has one
	 * (pairs in a short instance miss the steps near its ends) */
	for (uint32_t h = 0; h < f->nblocks; h++) {
		struct pmcfi_hbbp_loopst *l = &ls[o + h];
		int by_trip = flpar[h] != UINT32_MAX && (bi->once[o + h] & 2) && l->trip > 0 &&
			      l->npair < IV_LONG_INSTANCE * (double)l->ninst;
		if (flp[h] == h && pairs_ok(l) && !by_trip)
			l->N = l->iter / l->ptime * l->t, l->how = 1;
		if (getenv("PMCF_IV_DEBUG") && flp[h] == h)
			fprintf(stderr,
				"iv %s@%llx: npair %u back %u iter %g ptime %g t %g N %g trip %g ninst %u how %d ivs %u\n",
				f->name, (unsigned long long)f->blocks[h].start, l->npair, l->nback, l->iter,
				l->ptime, l->t, l->N, l->trip, l->ninst, l->how, l->iv.n);
	}
	/* counts from the loop around: outer loops first (repeated until
	 * no loop gets one) */
	for (int changed = 1; changed;) {
		changed = 0;
		for (uint32_t h = 0; h < f->nblocks; h++) {
			struct pmcfi_hbbp_loopst *l = &ls[o + h];
			if (flp[h] != h || l->how || flpar[h] == UINT32_MAX || !(bi->once[o + h] & 2) ||
			    !(l->trip > 0) || !(ls[o + flpar[h]].N > 0))
				continue;
			l->N = ls[o + flpar[h]].N * l->trip, l->how = 2;
			changed = 1;
		}
	}
	for (uint32_t h = 0; h < f->nblocks; h++) { /* nothing better than few pairs */
		struct pmcfi_hbbp_loopst *l = &ls[o + h];
		if (flp[h] == h && !l->how && pairs_ok(l))
			l->N = l->iter / l->ptime * l->t, l->how = 1;
	}
	for (uint32_t h = 0; h < f->nblocks; h++) {
		struct pmcfi_hbbp_loopst *l = &ls[o + h];
		if (!(l->N > 0))
			continue;
		uint32_t best = UINT32_MAX;
		for (uint32_t b = 0; b < f->nblocks; b++) {
			uint32_t k = uof[o + b];
			if (flp[b] == h && (bi->once[o + b] & 1) && k != UINT32_MAX && cnt[k] > 0 &&
			    (best == UINT32_MAX || u[k].w > u[best].w))
				best = k;
		}
		if (best != UINT32_MAX)
			l->fac = l->N / cnt[best];
	}
	for (uint32_t b = 0; b < f->nblocks; b++)
		if (uof[o + b] == UINT32_MAX && flp[b] != UINT32_MAX && (bi->once[o + b] & 1) &&
		    ls[o + flp[b]].N > 0)
			xc[o + b] = ls[o + flp[b]].N;
}

/* Each unit's factor: that of its innermost loop with one; the others
 * take the time-weighted mean of the measured units' factors, i.e. the
 * cost model's cycles per unit of time over the measured time. kf[i]: 0
 * for none; the weights are summed into *w_all, *w_rate and *kw. */
static void unit_factors(pmcf_imix *m, const struct pmcfi_hbbp_unit *u, size_t n,
			 const struct pmcfi_hbbp_blkinfo *bi, size_t nblk, struct pmcfi_hbbp_loopst *ls,
			 const double *cnt, double *kf, uint8_t *umeas, int unmeasured, double *w_all,
			 double *w_rate, double *kw)
{
	for (size_t i = 0; i < nblk; i++)
		if (ls[i].N > 0)
			m->st.rate_loops++, m->st.rate_trip += ls[i].how == 2;
	/* a unit of a loop's own blocks (not of a nested loop) runs at most
	 * once per iteration, exactly once when it has a block that runs every
	 * iteration. Where the model puts a conditional unit (an arm) above
	 * the loop's count, its ratio to the anchor is wrong (timer samples
	 * fall far from where the time went: on a clang build an arm got 12x
	 * its loop's count); the loop's arms are then scaled together so that
	 * the highest is at the count, keeping the model's ratios among them */
	for (size_t i = 0; i < n; i++) {
		size_t o = u[i].f->boff;
		for (uint32_t l = bi->flp[o + u[i].first]; l != UINT32_MAX; l = bi->flpar[o + l])
			if (ls[o + l].fac > 0) {
				if (own_unit(bi, o, &u[i], l) == 1 && cnt[i] > ls[o + l].cmax)
					ls[o + l].cmax = cnt[i];
				break;
			}
	}
	for (size_t i = 0; i < n; i++) {
		size_t o = u[i].f->boff;
		*w_all += u[i].w;
		kf[i] = 0;
		uint32_t inner = bi->flp[o + u[i].first];
		for (uint32_t l = inner; l != UINT32_MAX; l = bi->flpar[o + l])
			if (ls[o + l].fac > 0) {
				/* a loop nested in l without a count of its own has no
				 * measured count: l's factor on the model's ratio to l's
				 * anchor put a pointer chase's 2-instruction compare,
				 * waiting on its load, at 13x its count (issue 36) */
				if (l != inner && unmeasured != PMCF_IMIX_UNMEASURED_MODEL)
					break;
				kf[i] = ls[o + l].fac;
				*w_rate += u[i].w;
				*kw += kf[i] * u[i].w;
				int own = own_unit(bi, o, &u[i], l);
				if (own == 2 && cnt[i] > 0) /* runs every iteration */
					kf[i] = ls[o + l].N / cnt[i], umeas[i] = 1;
				else if (own == 1 && ls[o + l].cmax * kf[i] > ls[o + l].N)
					kf[i] = ls[o + l].N / ls[o + l].cmax, m->rate_clamped++;
				break;
			}
	}
}

/* Units with no measured count: the cost model at the measured units'
 * mean factor (PMCF_IMIX_UNMEASURED_MODEL), or (the default) at the
 * instructions per sample of the measured units, i.e. the raw estimate
 * scaled to the measured code: the model's correction is evidence only
 * where a count measures it. Corrected by the model alone, a short
 * block that waits on a load miss became most of the mix (issue 36,
 * item 2); on the independent corpus the raw estimate beat the model
 * on 7 of 13 programs (docs/imix.md). Sets every cnt[]; returns the weight
 * of the units without a measured count. */
static double unmeasured_counts(const struct pmcfi_hbbp_unit *u, size_t n, double *cnt, const double *kf,
				const unsigned *ulen, double kbar, int unmeasured)
{
	double ins_meas = 0, w_meas = 0, w_un = 0;
	for (size_t i = 0; i < n; i++)
		if (kf[i] > 0)
			ins_meas += cnt[i] * kf[i] * ulen[i], w_meas += u[i].w;
		else
			w_un += u[i].w;
	/* nothing measured: the instructions per sample the model gives the
	 * whole program, on its own (relative) scale */
	double ins_model = 0, w_model = 0;
	for (size_t i = 0; i < n; i++)
		if (cnt[i] > 0)
			ins_model += cnt[i] * ulen[i], w_model += u[i].w;
	double ipw = w_meas > 0 && ins_meas > 0     ? ins_meas / w_meas
		     : w_model > 0 && ins_model > 0 ? ins_model / w_model
						    : 1;
	for (size_t i = 0; i < n; i++) {
		if (kf[i] > 0) {
			cnt[i] *= kf[i];
			continue;
		}
		double model = cnt[i] * kbar, raw = ulen[i] ? u[i].w / ulen[i] * ipw : model;
		/* BOUND: llvm-mca's cycles assume cache hits and predicted
		 * branches, a lower bound of the time: a unit takes at least its
		 * modelled time, and at least the measured code's time per
		 * instruction, so it runs at most min(raw, model) times: the
		 * model lowers a long-latency unit (a divide) and never raises a
		 * short one that waits on a miss */
		cnt[i] = unmeasured == PMCF_IMIX_UNMEASURED_MODEL     ? model
			 : unmeasured == PMCF_IMIX_UNMEASURED_SAMPLES ? raw
			 : model < raw                                ? model
								      : raw;
	}
	return w_un;
}

/* Measured loop speeds, on the full static flow graph of each function:
 * - a loop with at least IV_MIN_PAIRS valid sample pairs runs iter / ptime
 *   iterations per unit of time, over the weight of its blocks;
 * - a nested loop that is not measured, entered once per iteration of a
 *   loop with a count, runs that count times its trip count;
 * - a loop with a count is anchored at the unit (with samples) of one of
 *   its blocks that run once per iteration, the one with the most samples:
 *   its factor is the count over that unit's modelled count, and every unit
 *   inside the loop (and not in a nested loop with its own factor) is
 *   scaled by it: the loop's real speed, the model's ratios inside it.
 * Units outside every loop with a factor take the time-weighted mean of
 * the factors of the others (the model's cycles per unit of time over the
 * measured time). cnt[] are the units' executions; a block without samples
 * that runs once per iteration of a loop with a count gets that count in
 * xc[] (per block from f->boff, zero otherwise): an outer loop's header and
 * latch that no sample fell on. */
int pmcfi_hbbp_apply_rates(pmcf_imix *m, const ZydisDecoder *dec, struct pmcfi_hbbp_tsample *ts, size_t nts,
			   const struct pmcfi_hbbp_unit *u, size_t n, const struct pmcfi_hbbp_blkinfo *bi,
			   size_t nblk, double *cnt, double *xc, uint8_t *umeas, const unsigned *ulen,
			   int unmeasured)
{
	struct site *sites = NULL;
	size_t nsites = 0;
	int rc = collect_calls(dec, u, n, &sites, &nsites);
	if (rc)
		return rc;
	struct pmcfi_hbbp_loopst *ls = calloc(nblk + 1, sizeof(*ls));
	uint32_t *uof = malloc((nblk + 1) * sizeof(uint32_t));
	double *kf = malloc((n + 1) * sizeof(double));
	if (!ls || !uof || !kf) {
		free(sites);
		free(ls);
		free(uof);
		free(kf);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	}
	pmcfi_hbbp_iv_scan(dec, ts, nts, bi, ls);
	loop_trips(ls, nblk);
	for (size_t i = 0; i < nblk; i++)
		uof[i] = UINT32_MAX;
	for (size_t i = 0; i < n; i++)
		for (uint32_t b = u[i].first; b != UINT32_MAX; b = u[i].next[b])
			uof[u[i].f->boff + b] = (uint32_t)i;
	loop_times(u, n, bi, ls, sites, nsites);
	/* the functions, once each (their units are consecutive) */
	for (size_t i = 0; i < n; i++) {
		const struct pmcfi_hbbp_func *f = u[i].f;
		if (i && u[i - 1].f == f)
			continue;
		func_loop_counts(f, u, bi, ls, uof, cnt, xc);
	}
	double w_all = 0, w_rate = 0, kw = 0;
	unit_factors(m, u, n, bi, nblk, ls, cnt, kf, umeas, unmeasured, &w_all, &w_rate, &kw);
	rc = count_calls(m, u, n, uof, xc, cnt, kf, sites, nsites, &w_rate, &kw);
	double kbar = w_rate > 0 ? kw / w_rate : 1;
	double w_un = unmeasured_counts(u, n, cnt, kf, ulen, kbar, unmeasured);
	m->st.unmeasured_share = w_all > 0 ? w_un / w_all : 0;
	name_unmeasured(m, u, n, bi, ls, w_all);
	m->st.rate_share = w_all > 0 ? w_rate / w_all : 0;
	free(sites);
	free(ls);
	free(uof);
	free(kf);
	return rc;
}
