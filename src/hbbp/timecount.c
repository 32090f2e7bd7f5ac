/* Time-to-count correction of EBS on a time event (docs/imix.md): timer
 * samples fall in proportion to the time a block takes, executions x cycles,
 * so a block's executions are its samples divided by its cycles per
 * execution from a static cost model (llvm-mca, or the caller's). Skid: a
 * sample's time is charged to the instruction before the sampled IP.
 * This file builds the cost model's units and drives the correction; the
 * steps live apart (tc_impl.h): tc_flow.c the flow graph and loops, tc_ivs.c
 * induction registers, tc_scan.c the samples in time order, tc_rates.c the
 * measured loop speeds, tc_arms.c the arms of two-way branches. */
#include <stdlib.h>
#include <string.h>
#include <Zydis/Zydis.h>
#include "hbbp/hbbp_impl.h"
#include "hbbp/tc_impl.h"
#include "util/internal.h"

/* Cycles charged per pointer-chasing load (PMCF_IMIX_COST_REGIONS_CHASE):
 * a load whose address register is the register it loads waits for its
 * previous execution, and through a working set larger than the caches each
 * step is a memory access; ~80 ns of DRAM latency (plus a TLB walk) at
 * 3-4 GHz. llvm-mca assumes an L1 hit (4-5 cycles). */
#define CHASE_CYCLES 300

unsigned pmcfi_hbbp_chase_loads(const uint8_t *code, size_t n)
{
	ZydisDecoder dec0, *dec = &dec0;
	if (ZYAN_FAILED(ZydisDecoderInit(dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)))
		return 0;
	unsigned k = 0;
	ZydisDecodedInstruction d;
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
	for (size_t at = 0; at < n && ZYAN_SUCCESS(ZydisDecoderDecodeFull(dec, code + at, n - at, &d, op));
	     at += d.length) {
		if (d.operand_count_visible < 2 || op[0].type != ZYDIS_OPERAND_TYPE_REGISTER ||
		    op[1].type != ZYDIS_OPERAND_TYPE_MEMORY || op[1].mem.type != ZYDIS_MEMOP_TYPE_MEM)
			continue;
		ZydisRegister r =
			ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, op[0].reg.value);
		if (r != ZYDIS_REGISTER_NONE &&
		    (r == ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, op[1].mem.base) ||
		     r == ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, op[1].mem.index)))
			k++;
	}
	return k;
}

/* Bytes of block b of f. */
static size_t block_bytes(const struct pmcfi_hbbp_func *f, uint32_t b)
{
	const struct pmcfi_hbbp_block *bl = &f->blocks[b];
	const struct pmcfi_hbbp_ins *last = &f->ins[bl->first + bl->n - 1];
	return (size_t)(last->addr + last->len - bl->start);
}

/* Skid, then the units of one function: a block each, or its classes. */
static int func_units(const ZydisDecoder *dec, struct pmcfi_hbbp_func *f, const char *module,
		      const pmcf_imix_opts *o, const struct pmcfi_hbbp_blkinfo *bi, struct pmcfi_hbbp_unit *u,
		      size_t *nu)
{
	struct pmcfi_hbbp_edge *e = NULL;
	size_t ne = 0, off = f->boff;
	uint32_t *cls = bi->cls + off, *next = bi->next + off, *lp = bi->lp + off, *lpar = bi->lpar + off;
	int rc = pmcfi_hbbp_func_edges(dec, f, &e, &ne);
	if (!rc && o->skid == PMCF_IMIX_SKID_PREV)
		rc = pmcfi_hbbp_move_heads(f, e, ne);
	int regions = o->costing != PMCF_IMIX_COST_BLOCKS;
	if (!rc && regions)
		rc = pmcfi_hbbp_equiv_classes(f, e, ne, 0, cls, lp, lpar, NULL, NULL);
	if (!rc && bi->flp) /* the full graph; its classes are not used */
		rc = pmcfi_hbbp_equiv_classes(f, e, ne, 1, bi->fcls + off, bi->flp + off, bi->flpar + off,
					      bi->once + off, bi->fdom + off);
	free(e);
	if (rc)
		return rc;
	for (size_t b = 0; b < f->nblocks; b++) {
		if (!regions)
			cls[b] = f->ebs[b] > 0 ? (uint32_t)b : UINT32_MAX, lp[b] = lpar[b] = UINT32_MAX;
		next[b] = UINT32_MAX;
	}
	/* members in address order: walk backwards, prepend */
	for (size_t b = f->nblocks; b-- > 0;) {
		uint32_t c = cls[b];
		if (c == UINT32_MAX)
			continue;
		if (c != b) {
			next[b] = next[c];
			next[c] = (uint32_t)b;
			continue;
		}
		u[*nu] = (struct pmcfi_hbbp_unit){f, module, next, (uint32_t)b, 0};
		for (uint32_t k = (uint32_t)b; k != UINT32_MAX; k = next[k])
			u[*nu].w += f->ebs[k];
		++*nu;
	}
	return 0;
}

static int check_opts(const pmcf_imix_opts *o)
{
	if (o->arms < PMCF_IMIX_ARMS_FLOW || o->arms > PMCF_IMIX_ARMS_SAMPLES)
		return pmcfi_fail(PMCF_EINVAL, "unknown arms %d", o->arms);
	if (o->unmeasured < PMCF_IMIX_UNMEASURED_SAMPLES || o->unmeasured > PMCF_IMIX_UNMEASURED_BOUND)
		return pmcfi_fail(PMCF_EINVAL, "unknown unmeasured %d", o->unmeasured);
	if (o->costing < PMCF_IMIX_COST_REGIONS || o->costing > PMCF_IMIX_COST_REGIONS_CHASE)
		return pmcfi_fail(PMCF_EINVAL, "unknown costing %d", o->costing);
	if (o->rate < PMCF_IMIX_RATE_DEFAULT || o->rate > PMCF_IMIX_RATE_IV)
		return pmcfi_fail(PMCF_EINVAL, "unknown rate %d", o->rate);
	return 0;
}

/* The code of each unit into cb[]: a block's own bytes, a class's members
 * one after the other in *code (malloc'ed; relative branches are costed as
 * branches to the region's start: the loop llvm-mca runs); *nregions counts
 * the units of several blocks. */
static int unit_code(const struct pmcfi_hbbp_unit *u, size_t n, pmcf_imix_code_block *cb, uint8_t **code,
		     size_t *nregions)
{
	size_t ncode = 0, at = 0;
	for (size_t i = 0; i < n; i++)
		if (u[i].next[u[i].first] != UINT32_MAX)
			for (uint32_t b = u[i].first; b != UINT32_MAX; b = u[i].next[b])
				ncode += block_bytes(u[i].f, b);
	if (ncode && !(*code = malloc(ncode)))
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		const struct pmcfi_hbbp_func *f = u[i].f;
		const struct pmcfi_hbbp_block *bl = &f->blocks[u[i].first];
		cb[i] = (pmcf_imix_code_block){sizeof(pmcf_imix_code_block),
					       u[i].module,
					       f->name,
					       bl->start,
					       bl->n,
					       f->bytes + (bl->start - f->start),
					       block_bytes(f, u[i].first)};
		if (u[i].next[u[i].first] == UINT32_MAX)
			continue;
		++*nregions;
		cb[i].bytes = *code + at;
		cb[i].len = 0;
		cb[i].nbytes = 0;
		for (uint32_t b = u[i].first; b != UINT32_MAX; b = u[i].next[b]) {
			size_t nb = block_bytes(f, b);
			memcpy(*code + at, f->bytes + (f->blocks[b].start - f->start), nb);
			at += nb;
			cb[i].nbytes += nb;
			cb[i].len += f->blocks[b].n;
		}
	}
	return 0;
}

/* executions = weight / cycles (cyc[] becomes the units' executions);
 * units without a cost take the average cycles per instruction of the
 * others. ulen[]: the units' instructions; returns the total weight. */
static double executions(pmcf_imix_stats *st, const struct pmcfi_hbbp_unit *u, size_t n,
			 const pmcf_imix_code_block *cb, double *cyc, unsigned *ulen)
{
	double w_known = 0, ins_known = 0, w_all = 0;
	for (size_t i = 0; i < n; i++) {
		w_all += u[i].w;
		if (cyc[i] > 0) {
			w_known += u[i].w;
			ins_known += u[i].w / cyc[i] * cb[i].len;
		}
	}
	double cpi = ins_known > 0 ? w_known / ins_known : 1;
	for (size_t i = 0; i < n; i++) {
		if (!(cyc[i] > 0)) {
			cyc[i] = cpi * cb[i].len;
			st->cost_unknown++;
		}
		cyc[i] = u[i].w / cyc[i]; /* now the unit's executions */
	}
	for (size_t i = 0; i < n; i++)
		ulen[i] = cb[i].len;
	return w_all;
}

/* Per block counts bc[] (from f->boff): a unit's members its count, a
 * block without samples the count of its loop (already in bc); then the
 * arms of two-way branches. */
static int arm_counts(pmcf_imix *m, const pmcf_imix_opts *o, const ZydisDecoder *dec,
		      const struct pmcfi_hbbp_unit *u, size_t n, const struct pmcfi_hbbp_blkinfo *bi,
		      size_t nblk, const pmcf_imix_code_block *cb, const double *cyc, const uint8_t *umeas,
		      double *bc)
{
	int rc = 0;
	double *dens = calloc(nblk + 1, sizeof(double));
	uint8_t *anch = calloc(nblk + 1, 1);
	if (!dens || !anch)
		rc = pmcfi_fail(PMCF_ENOMEM, "out of memory");
	for (size_t b = 0; !rc && b < nblk; b++)
		anch[b] = bc[b] > 0; /* a block without samples at its loop's count */
	for (size_t i = 0; !rc && i < n; i++)
		for (uint32_t b = u[i].first; b != UINT32_MAX; b = u[i].next[b]) {
			size_t x = u[i].f->boff + b;
			bc[x] = cyc[i];
			dens[x] = cyc[i] > 0 && cb[i].len ? u[i].w / cyc[i] / cb[i].len : 0;
			anch[x] = umeas[i];
		}
	for (size_t i = 0; !rc && i < n; i++)
		if (!i || u[i - 1].f != u[i].f)
			rc = pmcfi_hbbp_split_arms(m, dec, u[i].f, bi, o->skid == PMCF_IMIX_SKID_PREV, bc,
						   dens, anch);
	free(dens);
	free(anch);
	return rc;
}

/* The new weights of the blocks: count x length, scaled to the same total
 * weight w_all (bc: per block counts, or NULL for the units' cyc[]). */
static void reweigh(pmcf_imix_stats *st, const struct pmcfi_hbbp_unit *u, size_t n,
		    const pmcf_imix_code_block *cb, const double *cyc, const double *bc, double w_all)
{
	double ins_all = 0;
	for (size_t i = 0; i < n; i++) {
		const struct pmcfi_hbbp_func *f = u[i].f;
		if (!bc)
			ins_all += cyc[i] * cb[i].len;
		for (uint32_t b = 0; bc && (!i || u[i - 1].f != f) && b < f->nblocks; b++)
			ins_all += bc[f->boff + b] * f->blocks[b].n;
	}
	double scale = ins_all > 0 ? w_all / ins_all : 1;
	for (size_t i = 0; i < n; i++) {
		struct pmcfi_hbbp_func *f = u[i].f;
		for (uint32_t b = u[i].first; b != UINT32_MAX; b = u[i].next[b]) {
			f->ebs[b] = scale * (bc ? bc[f->boff + b] : cyc[i]) * f->blocks[b].n;
			st->cost_blocks++;
		}
		for (uint32_t b = 0; bc && (!i || u[i - 1].f != f) && b < f->nblocks; b++)
			if (bc[f->boff + b] > 0)
				f->ebs[b] = scale * bc[f->boff + b] * f->blocks[b].n;
	}
}

/* The report header's account of the correction, after the cost model's
 * name in st->cost_model; fails rather than cut (hbbp.h). */
static int describe(pmcf_imix *m, const pmcf_imix_opts *o, int iv, size_t nregions, size_t nchase)
{
	pmcf_imix_stats *st = &m->st;
	size_t l = strlen(st->cost_model);
	if (o->costing != PMCF_IMIX_COST_BLOCKS)
		snprintf(st->cost_model + l, sizeof(st->cost_model) - l,
			 "; control-equivalent blocks pooled (%zu regions)", nregions);
	else
		snprintf(st->cost_model + l, sizeof(st->cost_model) - l, "; blocks costed alone");
	l = strlen(st->cost_model);
	if (o->costing == PMCF_IMIX_COST_REGIONS_CHASE)
		snprintf(st->cost_model + l, sizeof(st->cost_model) - l,
			 "; %zu pointer-chasing loads at %d cycles", nchase, CHASE_CYCLES);
	l = strlen(st->cost_model);
	if (o->rate != PMCF_IMIX_RATE_NONE && !iv)
		snprintf(st->cost_model + l, sizeof(st->cost_model) - l,
			 "; no loop speed measured (the samples carry no user registers)");
	else if (iv)
		snprintf(
			st->cost_model + l, sizeof(st->cost_model) - l,
			"; %llu loops at their measured speed (%llu by trip count, %llu arms capped), "
			"%llu functions from their call sites (%.0f %% of the samples); %.0f %% of the "
			"samples in code with no measured count, %s",
			(unsigned long long)st->rate_loops, (unsigned long long)st->rate_trip,
			(unsigned long long)m->rate_clamped, (unsigned long long)st->rate_funcs,
			100 * st->rate_share, 100 * st->unmeasured_share,
			o->unmeasured == PMCF_IMIX_UNMEASURED_MODEL
				? "cost model at the measured code's mean factor (PMCF_IMIX_UNMEASURED_MODEL; "
				  "--unmeasured model)"
			: o->unmeasured == PMCF_IMIX_UNMEASURED_BOUND
				? "counted at the lower of the raw estimate and the cost model "
				  "(PMCF_IMIX_UNMEASURED_BOUND; --unmeasured bound)"
				: "counted at the measured code's instructions per sample (the raw "
				  "estimate there)");
	/* a full buffer is a cut clause: fail rather than cut (hbbp.h) */
	if (strlen(st->cost_model) + 1 >= sizeof(st->cost_model))
		return pmcfi_fail(PMCF_EINVAL, "imix: the cost model's description does not fit %zu bytes",
				  sizeof(st->cost_model) - 1);
	st->correction = PMCF_IMIX_CORR_APPLIED;
	return 0;
}

int pmcfi_hbbp_time_to_count(pmcf_imix *m, const pmcf_imix_opts *o, const char *cpuid,
			     struct pmcfi_hbbp_tsample *ts, size_t nts)
{
	pmcf_imix_stats *st = &m->st;
	struct pmcfi_hbbp_cost_model cm;
	m->rate_clamped = 0;
	st->arms_flow = st->arms_prior = 0;
	int rc = check_opts(o);
	if (rc)
		return rc;
	if (o->cost) {
		snprintf(st->cost_model, sizeof(st->cost_model), "the caller's cost model");
	} else {
		if ((rc = pmcfi_hbbp_cost_model_find(o->llvm_mca, o->mcpu, cpuid, &cm)))
			return rc;
		if ((rc = pmcfi_hbbp_cost_model_describe(&cm, st->cost_model, sizeof(st->cost_model))))
			return rc;
		if (!cm.ok) {
			st->correction = PMCF_IMIX_CORR_UNAVAILABLE;
			return 0;
		}
	}
	ZydisDecoder dec;
	if (ZYAN_FAILED(ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)))
		return pmcfi_fail(PMCF_ENOTSUP, "Zydis decoder init failed");
	/* per block of every function: its class and the next member; units */
	size_t nblk = 0, pos = 0;
	struct pmcfi_hbbp_image *im;
	for (struct pmcfi_hbbp_func *f; (f = pmcfi_hbbp_mix_next_func(m, &pos, &im));)
		nblk += f->nblocks;
	int iv = o->rate != PMCF_IMIX_RATE_NONE && nts; /* the default: measured where it can */
	uint32_t *cls = malloc(((iv ? 8 : 4) * nblk + 1) * sizeof(uint32_t));
	uint8_t *once = iv ? malloc(nblk + 1) : NULL;
	double *xc = iv ? calloc(nblk + 1, sizeof(double)) : NULL;
	struct pmcfi_hbbp_blkinfo bi = {0};
	if (cls) {
		bi = (struct pmcfi_hbbp_blkinfo){cls,  cls + nblk, cls + 2 * nblk, cls + 3 * nblk,
						 NULL, NULL,       NULL,           NULL,
						 once};
		if (iv && once)
			bi.flp = cls + 4 * nblk, bi.flpar = cls + 5 * nblk, bi.fcls = cls + 6 * nblk,
			bi.fdom = cls + 7 * nblk;
	}
	struct pmcfi_hbbp_unit *u = malloc((nblk + 1) * sizeof(*u));
	pmcf_imix_code_block *cb = malloc((nblk + 1) * sizeof(*cb));
	double *cyc = malloc((nblk + 1) * sizeof(*cyc));
	uint8_t *umeas = calloc(nblk + 1, 1);             /* per unit: its count is its loop's measured one */
	unsigned *ulen = calloc(nblk + 1, sizeof(*ulen)); /* per unit: its instructions */
	uint8_t *code = NULL;
	size_t n = 0, off = 0, nregions = 0, nchase = 0;
	rc = !cls || (iv && (!once || !xc)) || !u || !cb || !cyc || !umeas || !ulen
		     ? pmcfi_fail(PMCF_ENOMEM, "out of memory")
		     : 0;
	pos = 0;
	for (struct pmcfi_hbbp_func *f; !rc && (f = pmcfi_hbbp_mix_next_func(m, &pos, &im));
	     off += f->nblocks) {
		f->boff = off;
		rc = func_units(&dec, f, im->path, o, &bi, u, &n);
	}
	if (!rc)
		rc = unit_code(u, n, cb, &code, &nregions);
	if (!rc) {
		rc = o->cost ? o->cost(o->cost_ctx, cb, n, cyc) : pmcfi_hbbp_cost_blocks(&cm, cb, n, cyc);
		if (rc > 0)
			rc = pmcfi_fail(PMCF_EINVAL, "cost model failed (%d)", rc);
	}
	for (size_t i = 0; !rc && o->costing == PMCF_IMIX_COST_REGIONS_CHASE && i < n; i++) {
		unsigned k = pmcfi_hbbp_chase_loads(cb[i].bytes, cb[i].nbytes);
		if (k && cyc[i] > 0)
			cyc[i] += k * CHASE_CYCLES;
		nchase += k;
	}
	if (!rc) {
		double w_all = executions(st, u, n, cb, cyc, ulen);
		if (iv)
			rc = pmcfi_hbbp_apply_rates(m, &dec, ts, nts, u, n, &bi, nblk, cyc, xc, umeas, ulen,
						    o->unmeasured);
		/* per block counts (bc reuses xc: a unit's members have no xc count) */
		double *bc = xc;
		if (!rc && iv && o->arms != PMCF_IMIX_ARMS_SAMPLES)
			rc = arm_counts(m, o, &dec, u, n, &bi, nblk, cb, cyc, umeas, bc);
		else if (bc)
			for (size_t i = 0; i < n; i++)
				for (uint32_t b = u[i].first; b != UINT32_MAX; b = u[i].next[b])
					bc[u[i].f->boff + b] = cyc[i];
		if (!rc)
			reweigh(st, u, n, cb, cyc, bc, w_all);
		int drc = describe(m, o, iv, nregions, nchase);
		if (drc)
			rc = drc;
	}
	free(cls);
	free(once);
	free(xc);
	free(u);
	free(cb);
	free(cyc);
	free(umeas);
	free(ulen);
	free(code);
	return rc;
}
