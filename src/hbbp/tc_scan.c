/* The samples of every thread in time order (PMCF_IMIX_RATE_IV): pairs in
 * one instance of a loop measure its speed, the values of its induction
 * register its trip count (struct pmcfi_hbbp_loopst). */
#include <stdlib.h>
#include <string.h>
#include <Zydis/Zydis.h>
#include "hbbp/hbbp_impl.h"
#include "hbbp/tc_impl.h"
#include "util/internal.h"

static int ts_cmp(const void *x, const void *y)
{
	const struct pmcfi_hbbp_tsample *a = x, *b = y;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return (a->time > b->time) - (a->time < b->time);
}

static struct pmcfi_hbbp_ivs *loop_ivs(const ZydisDecoder *dec, const struct pmcfi_hbbp_func *f,
				       const struct pmcfi_hbbp_blkinfo *bi, struct pmcfi_hbbp_loopst *ls,
				       uint32_t h)
{
	size_t o = f->boff;
	if (!ls[o + h].ivdone)
		pmcfi_hbbp_find_ivs(dec, f, bi->flp + o, bi->flpar + o, bi->once + o, bi->fdom + o, h,
				    &ls[o + h].iv),
			ls[o + h].ivdone = 1;
	return &ls[o + h].iv;
}

/* Can two samples in f lie in one call of it? Not when a register that f
 * never writes differs between them: a loop in a function called from
 * another function's loop (a hash over a short key) otherwise pairs samples
 * of different calls as one instance of its loop (issue 36, item 1). */
static int same_call(const ZydisDecoder *dec, const struct pmcfi_hbbp_func *f, struct pmcfi_hbbp_loopst *ls,
		     const struct pmcfi_hbbp_tsample *a, const struct pmcfi_hbbp_tsample *b)
{
	struct pmcfi_hbbp_loopst *e = &ls[f->boff];
	if (!e->keptdone)
		e->kept = pmcfi_hbbp_func_kept(dec, f), e->keptdone = 1;
	for (uint32_t m = e->kept; m; m &= m - 1) {
		int bit = __builtin_ctz(m);
		uint64_t va, vb;
		if (!pmcfi_hbbp_reg_value(a, bit, &va) && !pmcfi_hbbp_reg_value(b, bit, &vb) && va != vb)
			return 0;
	}
	return 1;
}

/* Do two samples lie in the same iteration of every loop around the loop
 * headed by h (in the function), and in one call of the function? Strict:
 * each such loop needs induction registers; else a loop around without
 * any (a counter in memory) is not checked, and the pairs that step back
 * tell how many pairs cross instances (pairs_ok). */
static int same_instance(const ZydisDecoder *dec, const struct pmcfi_hbbp_func *f,
			 const struct pmcfi_hbbp_blkinfo *bi, struct pmcfi_hbbp_loopst *ls, uint32_t h,
			 const struct pmcfi_hbbp_tsample *a, const struct pmcfi_hbbp_tsample *b, int strict)
{
	if (a->f != b->f || !same_call(dec, f, ls, a, b))
		return 0;
	for (uint32_t l = bi->flpar[f->boff + h]; l != UINT32_MAX; l = bi->flpar[f->boff + l]) {
		const struct pmcfi_hbbp_ivs *iv = loop_ivs(dec, f, bi, ls, l);
		if (!iv->n && !strict)
			continue;
		if (!iv->n || pmcfi_hbbp_iv_iterations(iv, a, b) != 0)
			return 0;
	}
	return 1;
}

/* A value of a w-bit register as the loop's arithmetic sees it. */
static int64_t as_width(uint64_t x, unsigned w)
{
	return w == 32 ? (int64_t)(int32_t)(uint32_t)x : (int64_t)x;
}

void pmcfi_hbbp_trip_flush(struct pmcfi_hbbp_loopst *l)
{
	if (l->ns >= TRIP_MIN_SAMPLES && l->iv.tk >= 0) {
		/* n values (as of after the step) drawn evenly from the T of one
		 * instance spread over about (T - 1) (n - 1) / (n + 1) strides */
		int64_t st = l->iv.stride[l->iv.tk] < 0 ? -l->iv.stride[l->iv.tk] : l->iv.stride[l->iv.tk];
		double span = (double)((uint64_t)l->hi - (uint64_t)l->lo) / (double)st;
		l->tsum += (1 + span * (l->ns + 1) / (l->ns - 1)) * l->ns;
		l->tn += l->ns;
	}
	l->ns = 0;
}

/* The samples of every thread in time order: consecutive pairs in one
 * instance of a loop measure its speed; the values of its first induction
 * register give its trip count. */
void pmcfi_hbbp_iv_scan(const ZydisDecoder *dec, struct pmcfi_hbbp_tsample *ts, size_t nts,
			const struct pmcfi_hbbp_blkinfo *bi, struct pmcfi_hbbp_loopst *ls)
{
	qsort(ts, nts, sizeof(*ts), ts_cmp);
	for (size_t i = 0; i < nts; i++) {
		const struct pmcfi_hbbp_tsample *b = &ts[i];
		if (!b->regs)
			continue;
		const struct pmcfi_hbbp_func *f = b->f;
		size_t o = f->boff;
		uint32_t bb = f->ins[b->ins].block;
		for (uint32_t h = bi->flp[o + bb]; h != UINT32_MAX; h = bi->flpar[o + h]) {
			struct pmcfi_hbbp_loopst *l = &ls[o + h];
			const struct pmcfi_hbbp_ivs *iv = loop_ivs(dec, f, bi, ls, h);
			int64_t v;
			if (!l->last || ts[l->last - 1].tid != b->tid ||
			    !same_instance(dec, f, bi, ls, h, &ts[l->last - 1], b, 1))
				l->ninst++;
			l->last = i + 1;
			int k = iv->tk;
			if (k < 0 || pmcfi_hbbp_iv_value(iv, (unsigned)k, b, bi->fdom + o, 1, &v))
				continue;
			uint64_t x = 0, y = 0;
			unsigned w = iv->wide[k];
			int64_t st = iv->stride[k];
			if ((iv->skind == START_NONE || iv->skind == START_SAME) && iv->bkind != BOUND_NONE) {
				/* steps left to the bound: 0 .. T - 1 */
				y = (uint64_t)iv->bc;
				if (iv->bkind == BOUND_REG && pmcfi_hbbp_reg_value(b, iv->breg, &y))
					continue;
				int64_t d = as_width(y - (uint64_t)v, w);
				if (d % st == 0 && d / st >= 0)
					l->rmax = d / st > l->rmax ? d / st : l->rmax, l->rn++;
				continue;
			}
			if (iv->skind == START_REG || iv->skind == START_CONST) {
				/* the instance's start, and its trip count when the
				 * bound is known; else the steps since the start */
				if (iv->skind == START_REG && pmcfi_hbbp_reg_value(b, iv->sreg, &x))
					continue;
				int64_t start = as_width(x + (uint64_t)iv->sc, w);
				if (iv->bkind == BOUND_CONST)
					y = (uint64_t)iv->bc;
				if (iv->bkind == BOUND_REG && pmcfi_hbbp_reg_value(b, iv->breg, &y))
					continue;
				int64_t d = as_width(y - (uint64_t)start, w), n = d / st + !iv->bafter;
				if (iv->bkind != BOUND_NONE && d % st == 0 && n >= 1 && n < (1ll << 40))
					l->hinv += 1. / (double)n, l->hn++;
				d = as_width((uint64_t)v - (uint64_t)start, w);
				if (iv->bkind == BOUND_NONE && d % st == 0 && d / st >= 1)
					l->dmax = d / st > l->dmax ? d / st : l->dmax, l->dn++;
				continue;
			}
			if (l->ns && l->tid != b->tid)
				pmcfi_hbbp_trip_flush(l);
			if (!l->ns)
				l->tid = b->tid, l->lo = l->hi = v;
			l->lo = v < l->lo ? v : l->lo;
			l->hi = v > l->hi ? v : l->hi;
			l->ns++;
		}
		if (!i)
			continue;
		const struct pmcfi_hbbp_tsample *a = &ts[i - 1];
		if (a->tid != b->tid || a->f != b->f || !a->regs)
			continue;
		uint32_t ba = f->ins[a->ins].block;
		for (uint32_t h = bi->flp[o + ba]; h != UINT32_MAX; h = bi->flpar[o + h]) {
			if (!pmcfi_hbbp_in_loop(bi->flp + o, bi->flpar + o, bb, h))
				continue;
			const struct pmcfi_hbbp_ivs *iv = loop_ivs(dec, f, bi, ls, h);
			if (!iv->n || !same_instance(dec, f, bi, ls, h, a, b, 0))
				continue;
			double it = pmcfi_hbbp_iv_iterations(iv, a, b);
			if (it == -2)
				ls[o + h].nback++;
			if (it < 0 || it > IV_MAX_RATE * b->w)
				continue;
			ls[o + h].iter += it;
			ls[o + h].ptime += b->w;
			ls[o + h].npair++;
		}
	}
}
