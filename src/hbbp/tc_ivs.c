/* Induction registers of loops, read from the code (PMCF_IMIX_RATE_IV):
 * which GPRs step once per iteration, an instance's start and bound, and how
 * many iterations lie between two samples that carry user registers. */
#include <stdlib.h>
#include <string.h>
#include <Zydis/Zydis.h>
#include "hbbp/hbbp_impl.h"
#include "hbbp/tc_impl.h"
#include "util/internal.h"

#define CALLEE_DEPTH 3 /* calls followed to see what a callee writes */

/* perf_regs.h bit of a 64-bit GPR (Zydis order rax, rcx, rdx, rbx, rsp, rbp,
 * rsi, rdi, r8..r15), or -1. */
static int gpr_bit(ZydisRegister r)
{
	static const int8_t bit[16] = {0, 2, 3, 1, 7, 6, 4, 5, 16, 17, 18, 19, 20, 21, 22, 23};
	r = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
	return r >= ZYDIS_REGISTER_RAX && r <= ZYDIS_REGISTER_R15 ? bit[r - ZYDIS_REGISTER_RAX] : -1;
}

/* Register bit's value in a sample, or -1 when it is not recorded. */
int pmcfi_hbbp_reg_value(const struct pmcfi_hbbp_tsample *t, int bit, uint64_t *v)
{
	if (!t->regs || !((t->mask >> bit) & 1))
		return -1;
	*v = t->regs[__builtin_popcountll(t->mask & ((1ull << bit) - 1))];
	return 0;
}

static void iv_trip_setup(const ZydisDecoder *dec, const struct pmcfi_hbbp_func *f, const uint32_t *flp,
			  const uint32_t *flpar, const uint8_t *once, const uint32_t *fdom, uint32_t h,
			  const uint8_t *lwrites, struct pmcfi_hbbp_ivs *iv);

/* The GPRs (perf register bits) an instruction writes. */
static uint32_t gprs_written(const ZydisDecodedInstruction *d, const ZydisDecodedOperand *op)
{
	uint32_t w = 0;
	for (unsigned k = 0; k < d->operand_count; k++) {
		int r = op[k].type == ZYDIS_OPERAND_TYPE_REGISTER &&
					(op[k].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE)
				? gpr_bit(op[k].reg.value)
				: -1;
		if (r >= 0)
			w |= 1u << r;
	}
	return w;
}

/* The caller-saved GPRs (perf register bits) that a direct call to addr in
 * image im may change: those the callee writes, with what it calls or
 * jumps to in turn (depth levels); every caller-saved one for a call it
 * cannot follow (indirect, outside the image, too deep). */
#define CALLER_SAVED ((1u << 0) | (1u << 2) | (1u << 3) | (1u << 4) | (1u << 5) | (0xfu << 16))
static uint32_t callee_writes(const ZydisDecoder *dec, const struct pmcfi_hbbp_image *im, uint64_t addr,
			      int depth)
{
	const struct pmcfi_hbbp_func *g = im ? pmcfi_hbbp_image_func_at(im, addr) : NULL;
	if (!g || g->start != addr || depth <= 0)
		return CALLER_SAVED;
	uint32_t w = 0;
	ZydisDecodedInstruction d;
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
	for (uint64_t at = g->start; at < g->end && w != CALLER_SAVED; at += d.length) {
		if (ZYAN_FAILED(ZydisDecoderDecodeFull(dec, g->bytes + (at - g->start), g->end - at, &d, op)))
			return CALLER_SAVED;
		ZydisInstructionCategory c = d.meta.category;
		if (c == ZYDIS_CATEGORY_CALL || c == ZYDIS_CATEGORY_UNCOND_BR ||
		    c == ZYDIS_CATEGORY_COND_BR) {
			if (!(d.attributes & ZYDIS_ATTRIB_IS_RELATIVE) ||
			    op[0].type != ZYDIS_OPERAND_TYPE_IMMEDIATE)
				return CALLER_SAVED; /* indirect: a call, a tail call or a jump table */
			uint64_t t = at + d.length + (uint64_t)op[0].imm.value.s;
			if (c == ZYDIS_CATEGORY_CALL || t < g->start || t >= g->end)
				w |= callee_writes(dec, im, t, depth - 1);
		}
		w |= gprs_written(&d, op) & CALLER_SAVED;
	}
	return w;
}

/* The induction registers of the loop headed by h, on the function's full
 * static flow graph (flp, flpar: innermost loop and enclosing loop; once:
 * runs once per iteration). A GPR written once in the loop's blocks (sampled
 * or not, nested loops included; but a block without samples that need not
 * run every iteration counts as not run), in a block that runs once per iteration,
 * as r = s + c (add/sub r,imm and inc/dec r: s = r; lea r,[s+disp]; mov
 * r,s: c = 0), 32 or 64 bits, is an induction register when s = r (stride
 * c), when s is written the same way from r (a pair that goes round, lea
 * rax,[rbx+1] and mov rbx,rax: both step by the sum), or when s is one
 * itself (r follows s: its stride). Any other write, or a call for the
 * caller-saved registers, rules a register out. */
void pmcfi_hbbp_find_ivs(const ZydisDecoder *dec, const struct pmcfi_hbbp_func *f, const uint32_t *flp,
			 const uint32_t *flpar, const uint8_t *once, const uint32_t *fdom, uint32_t h,
			 struct pmcfi_hbbp_ivs *iv)
{
	uint8_t writes[24] = {0}, wide[24] = {0};
	int8_t src[24];
	int64_t add[24] = {0}, stride[24] = {0};
	uint32_t wblk[24], wins[24];
	iv->n = 0;
	for (uint32_t b = 0; b < f->nblocks; b++) {
		/* a block without samples that need not run every iteration is
		 * taken as not run (a slow path: sqrt's call for a negative
		 * argument), as in the regions */
		if (!pmcfi_hbbp_in_loop(flp, flpar, b, h) ||
		    (!(f->ebs[b] > 0) && !(flp[b] == h && (once[b] & 1))))
			continue;
		const struct pmcfi_hbbp_block *bl = &f->blocks[b];
		for (uint32_t i = bl->first; i < bl->first + bl->n; i++) {
			ZydisDecodedInstruction d;
			ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
			const struct pmcfi_hbbp_ins *in = &f->ins[i];
			if (ZYAN_FAILED(ZydisDecoderDecodeFull(dec, f->bytes + (in->addr - f->start), in->len,
							       &d, op)))
				return; /* unknown code: no IV */
			if (d.meta.category == ZYDIS_CATEGORY_CALL) {
				/* a direct call in the image changes what its callee
				 * writes (the compiler may keep a counter in a
				 * caller-saved register it does not touch) */
				uint32_t cw = CALLER_SAVED;
				if ((d.attributes & ZYDIS_ATTRIB_IS_RELATIVE) &&
				    op[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE)
					cw = callee_writes(dec, f->im,
							   in->addr + d.length + (uint64_t)op[0].imm.value.s,
							   CALLEE_DEPTH);
				for (int r = 0; r < 24; r++)
					if ((cw >> r) & 1)
						writes[r] = 2;
			}
			int s0 = -1;
			int64_t c = 0;
			int r0 = d.operand_count_visible >= 1 && op[0].type == ZYDIS_OPERAND_TYPE_REGISTER
					 ? gpr_bit(op[0].reg.value)
					 : -1;
			unsigned width = d.operand_width;
			if (r0 >= 0 && (width == 32 || width == 64) && flp[b] == h && (once[b] & 1) &&
			    d.operand_count_visible ==
				    (d.mnemonic == ZYDIS_MNEMONIC_INC || d.mnemonic == ZYDIS_MNEMONIC_DEC
					     ? 1
					     : 2)) {
				int imm = op[1].type == ZYDIS_OPERAND_TYPE_IMMEDIATE;
				if (d.mnemonic == ZYDIS_MNEMONIC_ADD && imm)
					s0 = r0, c = op[1].imm.value.s;
				else if (d.mnemonic == ZYDIS_MNEMONIC_SUB && imm)
					s0 = r0, c = -op[1].imm.value.s;
				else if (d.mnemonic == ZYDIS_MNEMONIC_INC)
					s0 = r0, c = 1;
				else if (d.mnemonic == ZYDIS_MNEMONIC_DEC)
					s0 = r0, c = -1;
				else if (d.mnemonic == ZYDIS_MNEMONIC_LEA &&
					 op[1].mem.index == ZYDIS_REGISTER_NONE &&
					 gpr_bit(op[1].mem.base) >= 0)
					s0 = gpr_bit(op[1].mem.base), c = op[1].mem.disp.value;
				else if (d.mnemonic == ZYDIS_MNEMONIC_MOV &&
					 op[1].type == ZYDIS_OPERAND_TYPE_REGISTER &&
					 gpr_bit(op[1].reg.value) >= 0 && op[1].size == width)
					s0 = gpr_bit(op[1].reg.value), c = 0;
				if (s0 == r0 && c == 0)
					s0 = -1; /* no step */
			}
			for (unsigned k = 0; k < d.operand_count; k++) {
				if (op[k].type != ZYDIS_OPERAND_TYPE_REGISTER ||
				    !(op[k].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
					continue;
				int r = gpr_bit(op[k].reg.value);
				if (r < 0)
					continue;
				if (k == 0 && r == r0 && s0 >= 0 && writes[r] == 0)
					writes[r] = 1, src[r] = (int8_t)s0, add[r] = c,
					wide[r] = (uint8_t)width, wblk[r] = b, wins[r] = i;
				else
					writes[r] = 2;
			}
		}
	}
	for (int r = 0; r < 24; r++) {
		if (writes[r] != 1)
			continue;
		int s = src[r];
		if (s == r)
			stride[r] = add[r];
		else if (writes[s] == 1 && src[s] == r) /* a pair that goes round */
			stride[r] = add[r] + add[s];
		else if (writes[s] == 1 && src[s] == s && wide[s] == wide[r]) /* follows s */
			stride[r] = add[s];
	}
	for (int r = 0; r < 24 && iv->n < IV_MAX; r++)
		if (writes[r] == 1 && stride[r] && r != 7) /* not rsp */
			iv->bit[iv->n] = (uint8_t)r, iv->stride[iv->n] = stride[r], iv->wide[iv->n] = wide[r],
			iv->wblk[iv->n] = wblk[r], iv->wins[iv->n++] = wins[r];
	iv_trip_setup(dec, f, flp, flpar, once, fdom, h, writes, iv);
}

/* The start and the bound of the loop headed by h (iv->tk, docs/imix.md):
 * lwrites[] tells the registers written in the loop (0: none). The start
 * is the last write of an induction register in the loop's preheader (its
 * only way in): mov r,x; lea r,[x+c] (x neither written after it there nor
 * in the loop); xor r,r or mov r,imm (a known constant); lea r,[rip+c] (a
 * constant, not known here: the samples see it relocated). The bound is
 * the loop's only exit (a block without samples that need not run every
 * iteration counts as not run), a jz/jnz on cmp r,y or cmp r,imm with y
 * not written in the loop, leaving when r equals it. */
static void iv_trip_setup(const ZydisDecoder *dec, const struct pmcfi_hbbp_func *f, const uint32_t *flp,
			  const uint32_t *flpar, const uint8_t *once, const uint32_t *fdom, uint32_t h,
			  const uint8_t *lwrites, struct pmcfi_hbbp_ivs *iv)
{
	static const uint8_t clobber[] = {0, 2, 3, 4, 5, 16, 17, 18, 19};
	ZydisDecodedInstruction d;
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
	iv->tk = -1;
	iv->skind = START_NONE;
	iv->bkind = BOUND_NONE;
	uint32_t p = fdom[h];
	if (!(once[h] & 4) || p == UINT32_MAX || !iv->n)
		return;
	for (unsigned k = 0; k < iv->n && iv->tk < 0; k++) {
		int r = iv->bit[k], kind = START_NONE, x = -1, xclob = 0;
		int64_t c = 0;
		const struct pmcfi_hbbp_block *bl = &f->blocks[p];
		for (uint32_t i = bl->first; i < bl->first + bl->n; i++) {
			if (pmcfi_hbbp_decode_ins(dec, f, i, &d, op))
				return;
			if (d.meta.category == ZYDIS_CATEGORY_CALL)
				for (size_t j = 0; j < sizeof(clobber); j++)
					kind = clobber[j] == r ? START_NONE : kind, xclob |= clobber[j] == x;
			for (unsigned j = 0; j < d.operand_count; j++) {
				if (op[j].type != ZYDIS_OPERAND_TYPE_REGISTER ||
				    !(op[j].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
					continue;
				int w = gpr_bit(op[j].reg.value);
				if (w >= 0 && w == x && w != r)
					xclob = 1;
				if (w != r)
					continue;
				kind = START_NONE, x = -1, xclob = 0;
				if (j || d.operand_count_visible != 2)
					continue;
				unsigned width = d.operand_width;
				if (width != 32 && width != 64)
					continue; /* a partial write: the rest unknown */
				if (d.mnemonic == ZYDIS_MNEMONIC_MOV &&
				    op[1].type == ZYDIS_OPERAND_TYPE_IMMEDIATE)
					kind = START_CONST, c = (int64_t)op[1].imm.value.u;
				else if ((d.mnemonic == ZYDIS_MNEMONIC_XOR ||
					  d.mnemonic == ZYDIS_MNEMONIC_SUB) &&
					 op[1].type == ZYDIS_OPERAND_TYPE_REGISTER &&
					 op[1].reg.value == op[0].reg.value)
					kind = START_CONST, c = 0;
				else if (width != iv->wide[k])
					continue;
				else if (d.mnemonic == ZYDIS_MNEMONIC_MOV &&
					 op[1].type == ZYDIS_OPERAND_TYPE_REGISTER &&
					 gpr_bit(op[1].reg.value) >= 0 && op[1].size == width)
					kind = START_REG, x = gpr_bit(op[1].reg.value), c = 0;
				else if (d.mnemonic == ZYDIS_MNEMONIC_LEA &&
					 op[1].mem.index == ZYDIS_REGISTER_NONE &&
					 op[1].mem.base == ZYDIS_REGISTER_RIP)
					kind = START_SAME;
				else if (d.mnemonic == ZYDIS_MNEMONIC_LEA &&
					 op[1].mem.index == ZYDIS_REGISTER_NONE &&
					 gpr_bit(op[1].mem.base) >= 0)
					kind = START_REG, x = gpr_bit(op[1].mem.base),
					c = op[1].mem.disp.value;
				if (width == 32 && kind == START_CONST)
					c = (int64_t)(int32_t)(uint32_t)c;
			}
		}
		if (kind == START_REG && (xclob || x == r || x == 7 || lwrites[x]))
			kind = START_NONE;
		if (kind != START_NONE)
			iv->tk = (int8_t)k, iv->skind = (uint8_t)kind, iv->sreg = (int8_t)x, iv->sc = c;
	}
	/* the only exit */
	uint32_t xb = UINT32_MAX;
	int nexit = 0;
	for (uint32_t b = 0; b < f->nblocks && nexit < 2; b++) {
		if (!pmcfi_hbbp_in_loop(flp, flpar, b, h) ||
		    (!(f->ebs[b] > 0) && !(flp[b] == h && (once[b] & 1))))
			continue;
		long succ[2];
		int ns = pmcfi_hbbp_block_succ(dec, f, b, succ);
		int out = ns < 0;
		for (int j = 0; j < ns; j++)
			out |= !pmcfi_hbbp_in_loop(flp, flpar, (uint32_t)succ[j], h);
		if (out)
			nexit++, xb = b;
	}
	if (nexit != 1 || flp[xb] != h || f->blocks[xb].n < 2)
		return;
	const struct pmcfi_hbbp_block *bl = &f->blocks[xb];
	uint32_t ci = bl->first + bl->n - 2;
	long succ[2];
	if (pmcfi_hbbp_decode_ins(dec, f, ci + 1, &d, op) || pmcfi_hbbp_block_succ(dec, f, xb, succ) != 2 ||
	    (d.mnemonic != ZYDIS_MNEMONIC_JNZ && d.mnemonic != ZYDIS_MNEMONIC_JZ))
		return;
	/* jnz: taken stays, fall-through leaves; jz the other way round */
	int taken_in = pmcfi_hbbp_in_loop(flp, flpar, (uint32_t)succ[0], h);
	if ((d.mnemonic == ZYDIS_MNEMONIC_JNZ) != taken_in)
		return;
	if (pmcfi_hbbp_decode_ins(dec, f, ci, &d, op))
		return;
	/* the step itself sets the flags: leaves when the register reaches 0 */
	for (unsigned k = 0; k < iv->n; k++)
		if (xb == iv->wblk[k] && ci == iv->wins[k] &&
		    (d.mnemonic == ZYDIS_MNEMONIC_ADD || d.mnemonic == ZYDIS_MNEMONIC_SUB ||
		     d.mnemonic == ZYDIS_MNEMONIC_INC || d.mnemonic == ZYDIS_MNEMONIC_DEC) &&
		    (iv->tk < 0 || iv->tk == (int)k)) {
			iv->tk = (int8_t)k, iv->bkind = BOUND_CONST, iv->bc = 0, iv->bafter = 1;
			return;
		}
	if (d.mnemonic != ZYDIS_MNEMONIC_CMP || d.operand_count_visible != 2)
		return;
	for (unsigned k = 0; k < iv->n && iv->tk < 0; k++) /* no start: the compared one */
		for (int j = 0; j < 2; j++)
			if (op[j].type == ZYDIS_OPERAND_TYPE_REGISTER &&
			    gpr_bit(op[j].reg.value) == iv->bit[k])
				iv->tk = (int8_t)k;
	if (iv->tk < 0 || d.operand_width != iv->wide[iv->tk])
		return;
	int r = iv->bit[iv->tk];
	for (int j = 0; j < 2; j++) {
		if (op[j].type != ZYDIS_OPERAND_TYPE_REGISTER || gpr_bit(op[j].reg.value) != r)
			continue;
		const ZydisDecodedOperand *y = &op[!j];
		if (y->type == ZYDIS_OPERAND_TYPE_IMMEDIATE)
			iv->bkind = BOUND_CONST, iv->bc = y->imm.value.s;
		else if (y->type == ZYDIS_OPERAND_TYPE_REGISTER && gpr_bit(y->reg.value) >= 0 &&
			 !lwrites[gpr_bit(y->reg.value)] && gpr_bit(y->reg.value) != r)
			iv->bkind = BOUND_REG, iv->breg = (int8_t)gpr_bit(y->reg.value);
		break;
	}
	iv->bafter = xb == iv->wblk[iv->tk] ? ci > iv->wins[iv->tk]
					    : pmcfi_hbbp_blk_dominated(fdom, xb, iv->wblk[iv->tk]);
}

/* Induction register k's value in a sample, 32-bit registers
 * sign-extended; -1 when the register is not recorded. With norm, as of
 * after its step in the current iteration: a sample is taken before its
 * IP's instruction runs, so at or before the step in the step's block, or
 * in a block the step does not dominate, the step is still to come and is
 * added (fdom: the immediate dominators of the sample's function). */
int pmcfi_hbbp_iv_value(const struct pmcfi_hbbp_ivs *iv, unsigned k, const struct pmcfi_hbbp_tsample *t,
			const uint32_t *fdom, int norm, int64_t *v)
{
	uint64_t x;
	if (pmcfi_hbbp_reg_value(t, iv->bit[k], &x))
		return -1;
	uint32_t b = t->f->ins[t->ins].block;
	if (norm &&
	    (b == iv->wblk[k] ? t->ins <= iv->wins[k] : !pmcfi_hbbp_blk_dominated(fdom, b, iv->wblk[k])))
		x += (uint64_t)iv->stride[k];
	*v = iv->wide[k] == 32 ? (int64_t)(int32_t)(uint32_t)x : (int64_t)x;
	return 0;
}

/* Steps of stride st that take a w-bit register by d (mod 2^w): the
 * solution of st * k = d in the register's arithmetic, taken in
 * (-2^(b-1), 2^(b-1)] where st = 2^t * odd and b = w - t; -1 when d is
 * not a multiple of 2^t. A stride such as gcc's strength-reduced
 * `i * 2654435761` (add ebp,0x538453d7) wraps round the register every few
 * steps, and plain division found no steps there (issue 36). */
static int iv_steps(uint64_t d, int64_t st, unsigned w, int64_t *k)
{
	uint64_t m = w >= 64 ? ~0ull : (1ull << w) - 1, s = (uint64_t)st & m;
	d &= m;
	if (!s)
		return -1;
	unsigned t = (unsigned)__builtin_ctzll(s);
	if (d & ((1ull << t) - 1))
		return -1;
	uint64_t odd = s >> t, inv = odd; /* Newton: inv = odd^-1 mod 2^64 */
	for (int i = 0; i < 6; i++)
		inv *= 2 - odd * inv;
	unsigned b = w - t;
	uint64_t bm = b >= 64 ? ~0ull : (1ull << b) - 1, x = ((d >> t) * inv) & bm;
	*k = b < 64 && x > (bm >> 1) ? (int64_t)x - (int64_t)(1ull << b) : (int64_t)x;
	return 0;
}

/* Iterations of a loop between two samples from its induction registers:
 * the steps each register took (its difference over its stride, not
 * negative), which is the same for all, or differs by one where the two
 * samples fall between the steps of registers stepped at different points
 * of the iteration: their mean; -1 when not (or not recorded). Counting
 * steps, not iteration starts, sees all T iterations of an instance (the
 * start of its first one is never between two samples in the loop). */
double pmcfi_hbbp_iv_iterations(const struct pmcfi_hbbp_ivs *iv, const struct pmcfi_hbbp_tsample *a,
				const struct pmcfi_hbbp_tsample *b)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	double sum = 0;
	for (unsigned k = 0; k < iv->n; k++) {
		int64_t va, vb;
		if (pmcfi_hbbp_iv_value(iv, k, a, NULL, 0, &va) ||
		    pmcfi_hbbp_iv_value(iv, k, b, NULL, 0, &vb))
			return -1;
		int64_t it;
		if (iv_steps((uint64_t)vb - (uint64_t)va, iv->stride[k], iv->wide[k], &it))
			return -1;
		lo = it < lo ? it : lo;
		hi = it > hi ? it : hi;
		sum += (double)it;
	}
	if (!iv->n || hi - lo > 1)
		return -1;
	if (hi < 0)
		return -2; /* every register stepped back: two instances */
	if (lo < 0)
		return -1;
	return sum / iv->n;
}

/* The GPRs (perf bits, not rsp) that no instruction of f writes, and no
 * call in it may change (a direct call into the image: what its callee
 * writes; any other: the caller-saved ones). Their values are the same
 * all through one call of f: the caller's (a callee-saved register f does
 * not save is one it does not write). 0 for code that does not decode. */
#define GPR_BITS (0xffu | (0xffu << 16))
uint32_t pmcfi_hbbp_func_kept(const ZydisDecoder *dec, const struct pmcfi_hbbp_func *f)
{
	uint32_t w = 1u << 7; /* rsp */
	for (size_t i = 0; i < f->nins && w != GPR_BITS; i++) {
		ZydisDecodedInstruction d;
		ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
		const struct pmcfi_hbbp_ins *in = &f->ins[i];
		if (in->flags & INS_BAD ||
		    ZYAN_FAILED(
			    ZydisDecoderDecodeFull(dec, f->bytes + (in->addr - f->start), in->len, &d, op)))
			return 0;
		if (d.meta.category == ZYDIS_CATEGORY_CALL)
			w |= (d.attributes & ZYDIS_ATTRIB_IS_RELATIVE) &&
					     op[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE
				     ? callee_writes(dec, f->im,
						     in->addr + d.length + (uint64_t)op[0].imm.value.s,
						     CALLEE_DEPTH)
				     : CALLER_SAVED;
		w |= gprs_written(&d, op);
	}
	return GPR_BITS & ~w;
}
