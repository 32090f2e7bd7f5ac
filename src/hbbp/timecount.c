/* Time-to-count correction of EBS on a time event (docs/imix.md): timer
 * samples fall in proportion to the time a block takes, executions x cycles,
 * so a block's executions are its samples divided by its cycles per
 * execution from a static cost model (llvm-mca, or the caller's). Skid: a
 * sample's time is charged to the instruction before the sampled IP. */
#include <stdlib.h>
#include <string.h>
#include <Zydis/Zydis.h>
#include "hbbp/hbbp_impl.h"
#include "util/internal.h"

struct edge {
	uint32_t from, to;
	int call; /* the fall-through of a call: its return site */
};

static int edge_cmp(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	return (x->from > y->from) - (x->from < y->from);
}

/* Block index of addr in f when a block starts there, or -1. */
static long block_of(const struct hbbp_func *f, uint64_t addr)
{
	long i = addr >= f->start && addr < f->end ? hbbpi_func_ins(f, addr) : -1;
	if (i < 0 || f->ins[i].addr != addr)
		return -1;
	uint32_t b = f->ins[i].block;
	return f->blocks[b].start == addr ? (long)b : -1;
}

/* The function's static control flow between its blocks: fall-through and
 * direct branches inside the function (calls fall through). *out is
 * malloc'ed, sorted by target. */
static int func_edges(const ZydisDecoder *dec, const struct hbbp_func *f, struct edge **out, size_t *nout)
{
	struct edge *e = malloc((2 * f->nblocks + 1) * sizeof(*e));
	if (!e)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	size_t ne = 0;
	for (size_t b = 0; b < f->nblocks; b++) {
		const struct hbbp_block *bl = &f->blocks[b];
		const struct hbbp_ins *last = &f->ins[bl->first + bl->n - 1];
		int falls = 1, call = 0;
		ZydisDecodedInstruction d;
		if ((last->flags & INS_CF) &&
		    ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(dec, NULL, f->bytes + (last->addr - f->start),
							       last->len, &d))) {
			ZydisInstructionCategory c = d.meta.category;
			call = c == ZYDIS_CATEGORY_CALL;
			falls = c == ZYDIS_CATEGORY_COND_BR || call;
			if ((c == ZYDIS_CATEGORY_COND_BR || c == ZYDIS_CATEGORY_UNCOND_BR) &&
			    (d.attributes & ZYDIS_ATTRIB_IS_RELATIVE) && d.raw.imm[0].is_relative) {
				long t = block_of(f, last->addr + d.length + (uint64_t)d.raw.imm[0].value.s);
				if (t >= 0)
					e[ne++] = (struct edge){(uint32_t)b, (uint32_t)t, 0};
			}
		} else if (last->flags & INS_CF) {
			falls = 0;
		}
		if (falls && b + 1 < f->nblocks && f->blocks[b + 1].start == last->addr + last->len)
			e[ne++] = (struct edge){(uint32_t)b, (uint32_t)(b + 1), call};
	}
	qsort(e, ne, sizeof(*e), edge_cmp);
	*out = e;
	*nout = ne;
	return 0;
}

/* Skid (PMCF_IMIX_SKID_PREV): the samples at a block's first instruction
 * belong to the instruction executed before it, the last one of a
 * predecessor in the function's static control flow (fall-through, direct
 * branches); they are split over the predecessors in proportion to the
 * predecessors' own samples. Blocks without a predecessor in the function
 * (its entry, return sites) keep them. A call's return site is not a
 * predecessor here: the callee ran before it. */
static int move_heads(struct hbbp_func *f, const struct edge *e, size_t ne)
{
	double heads = 0;
	for (size_t b = 0; b < f->nblocks; b++)
		heads += f->ebs_head[b];
	if (heads <= 0)
		return 0;
	double *own = malloc((f->nblocks + 1) * sizeof(*own));
	if (!own)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	for (size_t b = 0; b < f->nblocks; b++)
		own[b] = f->ebs[b];
	for (size_t i = 0; i < ne;) {
		size_t j = i;
		double sum = 0;
		size_t np = 0;
		for (; j < ne && e[j].to == e[i].to; j++)
			if (!e[j].call)
				sum += own[e[j].from], np++;
		uint32_t to = e[i].to;
		double h = f->ebs_head[to];
		if (h > 0 && np) {
			f->ebs[to] -= h;
			for (size_t k = i; k < j; k++)
				if (!e[k].call)
					f->ebs[e[k].from] +=
						sum > 0 ? h * own[e[k].from] / sum : h / (double)np;
		}
		i = j;
	}
	free(own);
	return 0;
}

/* ---- control-equivalent regions ------------------------------------------- */

/* A graph in compressed rows: the successors of v are adj[off[v] .. off[v+1]). */
struct csr {
	uint32_t *off, *adj;
};

/* Rows of the edges (from, to) of nn nodes, or of the reversed edges. */
static int csr_build(size_t nn, const uint32_t (*ed)[2], size_t ne, int rev, struct csr *g)
{
	g->off = calloc(nn + 2, sizeof(uint32_t));
	g->adj = malloc((ne + 1) * sizeof(uint32_t));
	if (!g->off || !g->adj)
		return PMCF_ENOMEM;
	for (size_t i = 0; i < ne; i++)
		g->off[ed[i][rev] + 1]++;
	for (size_t v = 0; v < nn; v++)
		g->off[v + 1] += g->off[v];
	for (size_t i = 0; i < ne; i++)
		g->adj[g->off[ed[i][rev]]++] = ed[i][!rev];
	for (size_t v = nn; v > 0; v--)
		g->off[v] = g->off[v - 1];
	g->off[0] = 0;
	return 0;
}

/* Marks what a depth-first walk of g from v reaches; stack holds nn entries. */
static void reach(const struct csr *g, uint32_t v, uint8_t *seen, uint32_t *stack)
{
	size_t sp = 0;
	if (seen[v])
		return;
	seen[v] = 1;
	stack[sp++] = v;
	while (sp) {
		uint32_t u = stack[--sp];
		for (uint32_t k = g->off[u]; k < g->off[u + 1]; k++)
			if (!seen[g->adj[k]])
				seen[g->adj[k]] = 1, stack[sp++] = g->adj[k];
	}
}

/* Immediate dominators from root over successors g and predecessors p
 * (Cooper, Harvey, Kennedy: "A Simple, Fast Dominance Algorithm", 2001):
 * po numbers the nodes in postorder; unreached nodes keep idom UINT32_MAX.
 * w is scratch of 3 x nn entries. */
static void dominators(size_t nn, uint32_t root, const struct csr *g, const struct csr *p, uint32_t *idom,
		       uint32_t *po, uint32_t *w)
{
	uint32_t *order = w, *stack = w + nn, *next = w + 2 * nn;
	for (size_t v = 0; v < nn; v++)
		idom[v] = po[v] = UINT32_MAX, next[v] = g->off[v];
	/* iterative depth-first postorder */
	size_t sp = 0, no = 0;
	stack[sp++] = root;
	po[root] = UINT32_MAX - 1; /* on the stack */
	while (sp) {
		uint32_t u = stack[sp - 1];
		if (next[u] < g->off[u + 1]) {
			uint32_t v = g->adj[next[u]++];
			if (po[v] == UINT32_MAX)
				po[v] = UINT32_MAX - 1, stack[sp++] = v;
		} else {
			po[u] = (uint32_t)no;
			order[no++] = u;
			sp--;
		}
	}
	idom[root] = root;
	for (int changed = 1; changed;) {
		changed = 0;
		for (size_t i = no - 1; i-- > 0;) { /* reverse postorder, root (last) left out */
			uint32_t v = order[i], nd = UINT32_MAX;
			for (uint32_t k = p->off[v]; k < p->off[v + 1]; k++) {
				uint32_t a = p->adj[k];
				if (idom[a] == UINT32_MAX)
					continue;
				if (nd == UINT32_MAX) {
					nd = a;
					continue;
				}
				uint32_t b = nd;
				while (a != b) {
					while (po[a] < po[b])
						a = idom[a];
					while (po[b] < po[a])
						b = idom[b];
				}
				nd = a;
			}
			if (nd != idom[v])
				idom[v] = nd, changed = 1;
		}
	}
}

static uint32_t uf_find(uint32_t *par, uint32_t x)
{
	while (par[x] != x)
		x = par[x] = par[par[x]];
	return x;
}

/* Control-equivalence classes of the sampled blocks of f (f->ebs > 0), on
 * the static flow graph restricted to them: A and B are equivalent when A
 * dominates B and B post-dominates A, so both run equally often (a loop
 * body's blocks, a diamond's head and join). Blocks without samples are
 * taken as not run (a rare exit or error path does not split a loop body).
 * A virtual entry leads to every sampled block without a sampled
 * predecessor, and to the first block (in address order) of a cycle the
 * entry does not reach (a loop whose preheader has no samples); likewise
 * a virtual exit from blocks without a sampled successor and from the last
 * block of a cycle that reaches no exit. cls[b]: the class (its lowest
 * block), or UINT32_MAX for blocks without samples; lp[b]: the header of
 * the innermost natural loop holding b, and for a header lpar[b] the header
 * of the loop around its own (UINT32_MAX: none). */
static int equiv_classes(const struct hbbp_func *f, const struct edge *e, size_t ne, uint32_t *cls,
			 uint32_t *lp, uint32_t *lpar)
{
	size_t nb = f->nblocks, n = 0;
	uint32_t *id = malloc((nb + 1) * sizeof(uint32_t)), *blk = malloc((nb + 1) * sizeof(uint32_t));
	if (!id || !blk) {
		free(id);
		free(blk);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	}
	for (size_t b = 0; b < nb; b++) {
		cls[b] = lp[b] = lpar[b] = UINT32_MAX;
		id[b] = f->ebs[b] > 0 ? (uint32_t)n : UINT32_MAX;
		if (f->ebs[b] > 0)
			blk[n++] = (uint32_t)b;
	}
	size_t nn = n + 2, ENTRY = n, EXIT = n + 1, ned = 0;
	uint32_t(*ed)[2] = malloc((ne + 2 * n + 1) * sizeof(*ed));
	uint32_t *w = malloc((12 * nn + 1) * sizeof(uint32_t)), *lsz = w + 10 * nn, *lpr = w + 11 * nn;
	uint8_t *seen = malloc(nn + 1);
	struct csr g = {0}, p = {0};
	int rc = !ed || !w || !seen ? PMCF_ENOMEM : 0;
	if (rc) /* lsz and lpr point into w */
		lsz = lpr = NULL;
	for (size_t i = 0; !rc && i < ne; i++)
		if (id[e[i].from] != UINT32_MAX && id[e[i].to] != UINT32_MAX)
			ed[ned][0] = id[e[i].from], ed[ned++][1] = id[e[i].to];
	size_t nreal = ned;
	/* virtual entry and exit edges, over the real edges only */
	for (int dir = 0; !rc && dir < 2; dir++) {
		struct csr r = {0};
		rc = csr_build(nn, ed, nreal, dir, &r);
		for (size_t v = 0; !rc && v < n; v++)
			seen[v] = 0, w[v] = 0;
		for (size_t i = 0; !rc && i < nreal; i++)
			w[ed[i][!dir]]++; /* real predecessors (dir 0) or successors (dir 1) */
		for (size_t v = 0; !rc && v < n; v++)
			if (!w[v]) {
				ed[ned][dir] = (uint32_t)(dir ? EXIT : ENTRY), ed[ned++][!dir] = (uint32_t)v;
				reach(&r, (uint32_t)v, seen, w + nn);
			}
		for (size_t k = 0; !rc && k < n; k++) {
			size_t v = dir ? n - 1 - k : k; /* entry to the first, exit from the last */
			if (!seen[v]) {
				ed[ned][dir] = (uint32_t)(dir ? EXIT : ENTRY), ed[ned++][!dir] = (uint32_t)v;
				reach(&r, (uint32_t)v, seen, w + nn);
			}
		}
		free(r.off);
		free(r.adj);
	}
	if (!rc)
		rc = csr_build(nn, ed, ned, 0, &g);
	if (!rc)
		rc = csr_build(nn, ed, ned, 1, &p);
	if (!rc) {
		uint32_t *idom = w, *ipdom = w + nn, *po = w + 2 * nn, *scratch = w + 3 * nn;
		dominators(nn, (uint32_t)ENTRY, &g, &p, idom, po, scratch);
		dominators(nn, (uint32_t)EXIT, &p, &g, ipdom, po, scratch);
		/* B post-dominates A when B is an ancestor of A in the tree of
		 * immediate post-dominators: preorder intervals of that tree */
		uint32_t(*te)[2] = ed; /* the tree's edges replace the graph's */
		size_t nt = 0;
		for (size_t v = 0; v < nn; v++)
			if (v != EXIT && ipdom[v] < nn)
				te[nt][0] = ipdom[v], te[nt++][1] = (uint32_t)v;
		struct csr t = {0};
		rc = csr_build(nn, te, nt, 0, &t);
		uint32_t *pre = po, *last = scratch, *stack = scratch + nn, *next = scratch + 2 * nn;
		size_t sp = 0;
		uint32_t clock = 0;
		for (size_t v = 0; !rc && v < nn; v++)
			pre[v] = last[v] = UINT32_MAX, next[v] = t.off[v];
		if (!rc)
			pre[EXIT] = clock++, stack[sp++] = (uint32_t)EXIT;
		while (sp) {
			uint32_t u = stack[sp - 1];
			if (next[u] < t.off[u + 1]) {
				uint32_t c = t.adj[next[u]++];
				pre[c] = clock++, stack[sp++] = c;
			} else {
				last[u] = clock - 1; /* the highest preorder number below u */
				sp--;
			}
		}
		free(t.off);
		free(t.adj);
		/* innermost natural loop of each node (header h of back edges
		 * u -> h, h dominating u; body: what reaches u backwards without
		 * passing h): blocks of one loop nest level only are equivalent
		 * (a preheader dominates its loop's header, which post-dominates it) */
		uint32_t *inner = w + 6 * nn, *best = w + 7 * nn, *stamp = w + 8 * nn, *bst = w + 9 * nn;
		for (size_t v = 0; v < nn; v++)
			inner[v] = best[v] = stamp[v] = UINT32_MAX;
		uint32_t *lsize = lsz;
		for (size_t v = 0; v < nn; v++)
			lsize[v] = lpr[v] = UINT32_MAX;
		for (int pass = 0; !rc && pass < 2; pass++) {
			for (size_t v = 0; v < nn; v++)
				stamp[v] = UINT32_MAX;
			for (uint32_t h = 0; h < n; h++) {
				size_t sp2 = 0, size;
				for (uint32_t k = p.off[h]; k < p.off[h + 1]; k++) {
					uint32_t x = p.adj[k];
					while (x < n && x != h && idom[x] != x)
						x = idom[x];
					if (x == h && stamp[p.adj[k]] != h && p.adj[k] != h) /* a latch */
						stamp[p.adj[k]] = h, bst[sp2++] = p.adj[k];
					else if (x == h && p.adj[k] == h && stamp[h] != h)
						stamp[h] = h; /* a one-block loop */
				}
				if (!sp2 && stamp[h] != h)
					continue;
				stamp[h] = h;
				size = 1 + sp2;
				while (sp2) {
					uint32_t x = bst[--sp2];
					for (uint32_t k = p.off[x]; k < p.off[x + 1]; k++)
						if (p.adj[k] < n && stamp[p.adj[k]] != h)
							stamp[p.adj[k]] = h, bst[sp2++] = p.adj[k], size++;
				}
				lsize[h] = (uint32_t)size;
				/* pass 1: the loop tree, each header's smallest enclosing loop */
				for (size_t v = 0; v < n; v++)
					if (stamp[v] == h && !pass && size < best[v])
						best[v] = (uint32_t)size, inner[v] = h;
					else if (stamp[v] == h && pass && v != h && lsize[v] < size &&
						 (lpr[v] == UINT32_MAX || size < lsize[lpr[v]]))
						lpr[v] = h;
			}
		}
		for (size_t v = 0; v < n; v++) {
			lp[blk[v]] = inner[v] < n ? blk[inner[v]] : UINT32_MAX;
			lpar[blk[v]] = lpr[v] < n ? blk[lpr[v]] : UINT32_MAX;
		}
		uint32_t *par = ipdom; /* A's post-dominators are no longer needed */
		for (size_t v = 0; !rc && v < n; v++)
			par[v] = (uint32_t)v;
		for (size_t v = 0; !rc && v < n; v++)
			for (uint32_t a = idom[v]; a < n; a = idom[a])
				if (pre[v] != UINT32_MAX && pre[a] >= pre[v] && pre[a] <= last[v] &&
				    inner[a] == inner[v]) {
					uint32_t ra = uf_find(par, a), rv = uf_find(par, (uint32_t)v);
					par[ra > rv ? ra : rv] = ra < rv ? ra : rv;
				}
		for (size_t v = 0; !rc && v < n; v++)
			cls[blk[v]] = blk[uf_find(par, (uint32_t)v)];
	}
	free(g.off);
	free(g.adj);
	free(p.off);
	free(p.adj);
	free(ed);
	free(w);
	free(seen);
	free(id);
	free(blk);
	return rc ? pmcfi_fail(PMCF_ENOMEM, "out of memory") : 0;
}

/* A unit of the cost model: one block, or a class of control-equivalent
 * blocks (members linked by next[], in address order). */
struct unit {
	struct hbbp_func *f;
	const char *module;
	const uint32_t *next; /* the function's member links */
	uint32_t first;       /* block */
	double w;             /* sample weight of the members */
};

/* Cycles charged per pointer-chasing load (PMCF_IMIX_COST_REGIONS_CHASE):
 * a load whose address register is the register it loads waits for its
 * previous execution, and through a working set larger than the caches each
 * step is a memory access; ~80 ns of DRAM latency (plus a TLB walk) at
 * 3-4 GHz. llvm-mca assumes an L1 hit (4-5 cycles). */
#define CHASE_CYCLES 300

unsigned hbbpi_chase_loads(const uint8_t *code, size_t n)
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
static size_t block_bytes(const struct hbbp_func *f, uint32_t b)
{
	const struct hbbp_block *bl = &f->blocks[b];
	const struct hbbp_ins *last = &f->ins[bl->first + bl->n - 1];
	return (size_t)(last->addr + last->len - bl->start);
}

/* Skid, then the units of one function: a block each, or its classes. */
static int func_units(const ZydisDecoder *dec, struct hbbp_func *f, const char *module,
		      const pmcf_imix_opts *o, uint32_t *cls, uint32_t *next, uint32_t *lp, uint32_t *lpar,
		      struct unit *u, size_t *nu)
{
	struct edge *e = NULL;
	size_t ne = 0;
	int rc = func_edges(dec, f, &e, &ne);
	if (!rc && o->skid == PMCF_IMIX_SKID_PREV)
		rc = move_heads(f, e, ne);
	int regions = o->costing != PMCF_IMIX_COST_BLOCKS;
	if (!rc && regions)
		rc = equiv_classes(f, e, ne, cls, lp, lpar);
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
		u[*nu] = (struct unit){f, module, next, (uint32_t)b, 0};
		for (uint32_t k = (uint32_t)b; k != UINT32_MAX; k = next[k])
			u[*nu].w += f->ebs[k];
		++*nu;
	}
	return 0;
}

/* ---- measured loop speeds (PMCF_IMIX_RATE_IV) ------------------------------ */

#define IV_MAX 4        /* induction registers kept per loop */
#define IV_MIN_PAIRS 3  /* sample pairs a loop needs to be measured */
#define IV_MAX_RATE 16. /* iterations per unit of sample weight (ns): a bound no loop reaches */

/* Induction registers of a loop: perf register bit, stride, width in bits. */
struct ivs {
	uint8_t n, bit[IV_MAX], wide[IV_MAX];
	int64_t stride[IV_MAX];
};

/* perf_regs.h bit of a 64-bit GPR (Zydis order rax, rcx, rdx, rbx, rsp, rbp,
 * rsi, rdi, r8..r15), or -1. */
static int gpr_bit(ZydisRegister r)
{
	static const int8_t bit[16] = {0, 2, 3, 1, 7, 6, 4, 5, 16, 17, 18, 19, 20, 21, 22, 23};
	r = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
	return r >= ZYDIS_REGISTER_RAX && r <= ZYDIS_REGISTER_R15 ? bit[r - ZYDIS_REGISTER_RAX] : -1;
}

/* Register bit's value in a sample, or -1 when it is not recorded. */
static int reg_value(const struct hbbp_tsample *t, int bit, uint64_t *v)
{
	if (!t->regs || !((t->mask >> bit) & 1))
		return -1;
	*v = t->regs[__builtin_popcountll(t->mask & ((1ull << bit) - 1))];
	return 0;
}

/* Is block b inside the loop headed by h (its own loop or a nested one)? */
static int in_loop(const uint32_t *lp, const uint32_t *lpar, uint32_t b, uint32_t h)
{
	for (uint32_t l = lp[b]; l != UINT32_MAX; l = lpar[l])
		if (l == h)
			return 1;
	return 0;
}

/* The induction registers of the loop headed by h: a GPR whose only write
 * in the loop's (sampled) blocks is one add/sub r,imm, inc/dec r or lea
 * r,[r+disp] of 32 or 64 bits, in a block of the header's class (once per
 * iteration). A call writes the caller-saved registers. */
static void find_ivs(const ZydisDecoder *dec, const struct hbbp_func *f, const uint32_t *cls,
		     const uint32_t *lp, const uint32_t *lpar, uint32_t h, struct ivs *iv)
{
	uint8_t writes[24] = {0}, wide[24] = {0};
	int64_t stride[24] = {0};
	iv->n = 0;
	for (uint32_t b = 0; b < f->nblocks; b++) {
		if (!in_loop(lp, lpar, b, h))
			continue;
		const struct hbbp_block *bl = &f->blocks[b];
		for (uint32_t i = bl->first; i < bl->first + bl->n; i++) {
			ZydisDecodedInstruction d;
			ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
			const struct hbbp_ins *in = &f->ins[i];
			if (ZYAN_FAILED(ZydisDecoderDecodeFull(dec, f->bytes + (in->addr - f->start), in->len,
							       &d, op))) {
				memset(writes, 2, sizeof(writes)); /* unknown code: no IV */
				return;
			}
			if (d.meta.category == ZYDIS_CATEGORY_CALL) {
				static const uint8_t clobber[] = {0, 2, 3, 4, 5, 16, 17, 18, 19};
				for (size_t k = 0; k < sizeof(clobber); k++)
					writes[clobber[k]] = 2;
			}
			int64_t st = 0;
			int r0 = d.operand_count_visible >= 1 && op[0].type == ZYDIS_OPERAND_TYPE_REGISTER
					 ? gpr_bit(op[0].reg.value)
					 : -1;
			unsigned width = d.operand_width;
			if (r0 >= 0 && (width == 32 || width == 64)) {
				int imm = d.operand_count_visible == 2 &&
					  op[1].type == ZYDIS_OPERAND_TYPE_IMMEDIATE;
				if (d.mnemonic == ZYDIS_MNEMONIC_ADD && imm)
					st = op[1].imm.value.s;
				else if (d.mnemonic == ZYDIS_MNEMONIC_SUB && imm)
					st = -op[1].imm.value.s;
				else if (d.mnemonic == ZYDIS_MNEMONIC_INC && d.operand_count_visible == 1)
					st = 1;
				else if (d.mnemonic == ZYDIS_MNEMONIC_DEC && d.operand_count_visible == 1)
					st = -1;
				else if (d.mnemonic == ZYDIS_MNEMONIC_LEA &&
					 op[1].mem.index == ZYDIS_REGISTER_NONE &&
					 gpr_bit(op[1].mem.base) == r0 && op[1].mem.disp.has_displacement)
					st = op[1].mem.disp.value;
				if (cls[b] != cls[h])
					st = 0; /* not once per iteration */
			}
			for (unsigned k = 0; k < d.operand_count; k++) {
				if (op[k].type != ZYDIS_OPERAND_TYPE_REGISTER ||
				    !(op[k].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
					continue;
				int r = gpr_bit(op[k].reg.value);
				if (r < 0)
					continue;
				if (k == 0 && r == r0 && st && writes[r] == 0)
					writes[r] = 1, stride[r] = st, wide[r] = (uint8_t)width;
				else
					writes[r] = 2;
			}
		}
	}
	for (int r = 0; r < 24 && iv->n < IV_MAX; r++)
		if (writes[r] == 1 && r != 7) /* not rsp */
			iv->bit[iv->n] = (uint8_t)r, iv->stride[iv->n] = stride[r],
			iv->wide[iv->n++] = wide[r];
}

/* Iterations of a loop between two samples from its induction registers:
 * every register's difference is the same non-negative multiple of its
 * stride; -1 when not (or not recorded). */
static double iv_iterations(const struct ivs *iv, const struct hbbp_tsample *a, const struct hbbp_tsample *b)
{
	double it = -1;
	for (unsigned k = 0; k < iv->n; k++) {
		uint64_t va, vb;
		if (reg_value(a, iv->bit[k], &va) || reg_value(b, iv->bit[k], &vb))
			return -1;
		int64_t dl = iv->wide[k] == 32 ? (int64_t)(int32_t)(uint32_t)(vb - va) : (int64_t)(vb - va);
		if (dl % iv->stride[k] || dl / iv->stride[k] < 0 ||
		    (it >= 0 && it != (double)(dl / iv->stride[k])))
			return -1;
		it = (double)(dl / iv->stride[k]);
	}
	return it;
}

/* Do two samples lie in the same iteration of every loop around the loop
 * headed by h (in the function)? Each such loop needs induction registers. */
static int same_instance(const struct ivs *iv, const uint32_t *lpar, uint32_t h, const struct hbbp_tsample *a,
			 const struct hbbp_tsample *b)
{
	for (uint32_t l = lpar[h]; l != UINT32_MAX; l = lpar[l])
		if (!iv[l].n || iv_iterations(&iv[l], a, b) != 0)
			return 0;
	return 1;
}

static int ts_cmp(const void *x, const void *y)
{
	const struct hbbp_tsample *a = x, *b = y;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return (a->time > b->time) - (a->time < b->time);
}

/* Per loop header of every function (block arrays from off[f]): iter[] and
 * ptime[] sum the iterations and time of the valid consecutive sample pairs
 * of one thread in the loop; npair[] counts them. */
static void iv_pairs(const ZydisDecoder *dec, struct hbbp_tsample *ts, size_t nts, const uint32_t *cls,
		     const uint32_t *lp, const uint32_t *lpar, struct ivs *iv, uint8_t *ivdone, double *iter,
		     double *ptime, uint32_t *npair)
{
	qsort(ts, nts, sizeof(*ts), ts_cmp);
	for (size_t i = 1; i < nts; i++) {
		const struct hbbp_tsample *a = &ts[i - 1], *b = &ts[i];
		if (a->tid != b->tid || a->f != b->f || !a->regs || !b->regs)
			continue;
		const struct hbbp_func *f = a->f;
		size_t o = f->boff;
		uint32_t ba = f->ins[a->ins].block, bb = f->ins[b->ins].block;
		for (uint32_t h = lp[o + ba]; h != UINT32_MAX; h = lpar[o + h]) {
			if (!in_loop(lp + o, lpar + o, bb, h))
				continue;
			for (uint32_t l = h; l != UINT32_MAX; l = lpar[o + l])
				if (!ivdone[o + l])
					find_ivs(dec, f, cls + o, lp + o, lpar + o, l, &iv[o + l]),
						ivdone[o + l] = 1;
			if (!iv[o + h].n || !same_instance(iv + o, lpar + o, h, a, b))
				continue;
			double it = iv_iterations(&iv[o + h], a, b);
			if (it < 0 || it > IV_MAX_RATE * b->w)
				continue;
			iter[o + h] += it;
			ptime[o + h] += b->w;
			npair[o + h]++;
		}
	}
}

/* Measured loop speeds: for every loop with at least IV_MIN_PAIRS valid
 * sample pairs, its header class's count is iterations per unit of time x
 * the time spent in the loop (its blocks' weight); every unit inside it (not
 * in a measured nested loop) is scaled by the same factor, the header
 * class's measured count over its modelled one. Units outside every
 * measured loop take the measured loops' pooled factor (the clock and the
 * model's average error). cnt[] are the units' executions. */
static int apply_rates(pmcf_imix *m, const ZydisDecoder *dec, struct hbbp_tsample *ts, size_t nts,
		       const struct unit *u, size_t n, const uint32_t *cls, const uint32_t *lp,
		       const uint32_t *lpar, size_t nblk, double *cnt)
{
	struct ivs *iv = calloc(nblk + 1, sizeof(*iv));
	uint8_t *done = calloc(nblk + 1, 1);
	double *iter = calloc(nblk + 1, sizeof(double)), *ptime = calloc(nblk + 1, sizeof(double));
	double *fac = calloc(nblk + 1, sizeof(double));
	uint32_t *npair = calloc(nblk + 1, sizeof(uint32_t));
	int rc = !iv || !done || !iter || !ptime || !fac || !npair ? pmcfi_fail(PMCF_ENOMEM, "out of memory")
								   : 0;
	if (!rc) {
		iv_pairs(dec, ts, nts, cls, lp, lpar, iv, done, iter, ptime, npair);
		double sm = 0, sc = 0, w_all = 0, w_rate = 0;
		for (size_t i = 0; i < n; i++) {
			const struct hbbp_func *f = u[i].f;
			size_t o = f->boff;
			w_all += u[i].w;
			for (uint32_t h = u[i].first; h != UINT32_MAX; h = u[i].next[h]) {
				if (lp[o + h] != h) /* the header of a loop: its class is unit i */
					continue;
				if (npair[o + h] < IV_MIN_PAIRS || !(ptime[o + h] > 0) || !(cnt[i] > 0))
					continue;
				double t = 0;
				for (uint32_t b = 0; b < f->nblocks; b++)
					if (in_loop(lp + o, lpar + o, b, h))
						t += f->ebs[b];
				double meas = iter[o + h] / ptime[o + h] * t;
				fac[o + h] = meas / cnt[i];
				sm += meas, sc += cnt[i];
				m->st.rate_loops++;
			}
		}
		double kbar = sc > 0 ? sm / sc : 1;
		for (size_t i = 0; i < n; i++) {
			size_t o = u[i].f->boff;
			double k = kbar;
			for (uint32_t l = lp[o + u[i].first]; l != UINT32_MAX; l = lpar[o + l])
				if (fac[o + l] > 0) {
					k = fac[o + l];
					w_rate += u[i].w;
					break;
				}
			cnt[i] *= k;
		}
		m->st.rate_share = w_all > 0 ? w_rate / w_all : 0;
	}
	free(iv);
	free(done);
	free(iter);
	free(ptime);
	free(fac);
	free(npair);
	return rc;
}

int hbbpi_time_to_count(pmcf_imix *m, const pmcf_imix_opts *o, const char *cpuid, struct hbbp_tsample *ts,
			size_t nts)
{
	pmcf_imix_stats *st = &m->st;
	struct hbbp_cost_model cm;
	if (o->costing < PMCF_IMIX_COST_REGIONS || o->costing > PMCF_IMIX_COST_REGIONS_CHASE)
		return pmcfi_fail(PMCF_EINVAL, "unknown costing %d", o->costing);
	if (o->rate < PMCF_IMIX_RATE_DEFAULT || o->rate > PMCF_IMIX_RATE_IV)
		return pmcfi_fail(PMCF_EINVAL, "unknown rate %d", o->rate);
	int regions = o->costing != PMCF_IMIX_COST_BLOCKS;
	if (o->cost) {
		snprintf(st->cost_model, sizeof(st->cost_model), "the caller's cost model");
	} else {
		int rc = hbbpi_cost_model_find(o->llvm_mca, o->mcpu, cpuid, &cm);
		if (rc)
			return rc;
		hbbpi_cost_model_describe(&cm, st->cost_model, sizeof(st->cost_model));
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
	struct hbbp_image *im;
	for (struct hbbp_func *f; (f = hbbpi_mix_next_func(m, &pos, &im));)
		nblk += f->nblocks;
	uint32_t *cls = malloc((4 * nblk + 1) * sizeof(uint32_t)), *lp = cls + 2 * nblk,
		 *lpar = cls + 3 * nblk;
	struct unit *u = malloc((nblk + 1) * sizeof(*u));
	pmcf_imix_code_block *cb = malloc((nblk + 1) * sizeof(*cb));
	double *cyc = malloc((nblk + 1) * sizeof(*cyc));
	uint8_t *code = NULL;
	size_t n = 0, off = 0, ncode = 0, nregions = 0;
	int rc = !cls || !u || !cb || !cyc ? pmcfi_fail(PMCF_ENOMEM, "out of memory") : 0;
	pos = 0;
	for (struct hbbp_func *f; !rc && (f = hbbpi_mix_next_func(m, &pos, &im)); off += f->nblocks) {
		f->boff = off;
		rc = func_units(&dec, f, im->path, o, cls + off, cls + nblk + off, lp + off, lpar + off, u,
				&n);
	}
	/* the code of each unit: a block's own bytes, a class's members one
	 * after the other (relative branches are costed as branches to the
	 * region's start: the loop llvm-mca runs) */
	for (size_t i = 0; !rc && i < n; i++)
		if (u[i].next[u[i].first] != UINT32_MAX)
			for (uint32_t b = u[i].first; b != UINT32_MAX; b = u[i].next[b])
				ncode += block_bytes(u[i].f, b);
	if (!rc && ncode && !(code = malloc(ncode)))
		rc = pmcfi_fail(PMCF_ENOMEM, "out of memory");
	size_t at = 0;
	for (size_t i = 0; !rc && i < n; i++) {
		const struct hbbp_func *f = u[i].f;
		const struct hbbp_block *bl = &f->blocks[u[i].first];
		cb[i] = (pmcf_imix_code_block){u[i].module,
					       f->name,
					       bl->start,
					       bl->n,
					       f->bytes + (bl->start - f->start),
					       block_bytes(f, u[i].first)};
		if (u[i].next[u[i].first] == UINT32_MAX)
			continue;
		nregions++;
		cb[i].bytes = code + at;
		cb[i].len = 0;
		cb[i].nbytes = 0;
		for (uint32_t b = u[i].first; b != UINT32_MAX; b = u[i].next[b]) {
			size_t nb = block_bytes(f, b);
			memcpy(code + at, f->bytes + (f->blocks[b].start - f->start), nb);
			at += nb;
			cb[i].nbytes += nb;
			cb[i].len += f->blocks[b].n;
		}
	}
	if (!rc) {
		rc = o->cost ? o->cost(o->cost_ctx, cb, n, cyc) : hbbpi_cost_blocks(&cm, cb, n, cyc);
		if (rc > 0)
			rc = pmcfi_fail(PMCF_EINVAL, "cost model failed (%d)", rc);
	}
	size_t nchase = 0;
	for (size_t i = 0; !rc && o->costing == PMCF_IMIX_COST_REGIONS_CHASE && i < n; i++) {
		unsigned k = hbbpi_chase_loads(cb[i].bytes, cb[i].nbytes);
		if (k && cyc[i] > 0)
			cyc[i] += k * CHASE_CYCLES;
		nchase += k;
	}
	if (!rc) {
		/* executions = weight / cycles; units without a cost take the
		 * average cycles per instruction of the others; every member of a
		 * unit gets its executions; the total weight is kept */
		double w_known = 0, ins_known = 0, w_all = 0, ins_all = 0;
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
		if (o->rate == PMCF_IMIX_RATE_IV && nts)
			rc = apply_rates(m, &dec, ts, nts, u, n, cls, lp, lpar, nblk, cyc);
		for (size_t i = 0; i < n; i++)
			ins_all += cyc[i] * cb[i].len;
		double scale = ins_all > 0 ? w_all / ins_all : 1;
		for (size_t i = 0; !rc && i < n; i++)
			for (uint32_t b = u[i].first; b != UINT32_MAX; b = u[i].next[b]) {
				u[i].f->ebs[b] = scale * cyc[i] * u[i].f->blocks[b].n;
				st->cost_blocks++;
			}
		size_t l = strlen(st->cost_model);
		if (regions)
			snprintf(st->cost_model + l, sizeof(st->cost_model) - l,
				 "; control-equivalent blocks pooled (%zu regions)", nregions);
		else
			snprintf(st->cost_model + l, sizeof(st->cost_model) - l, "; blocks costed alone");
		l = strlen(st->cost_model);
		if (o->costing == PMCF_IMIX_COST_REGIONS_CHASE)
			snprintf(st->cost_model + l, sizeof(st->cost_model) - l,
				 "; %zu pointer-chasing loads at %d cycles", nchase, CHASE_CYCLES);
		l = strlen(st->cost_model);
		if (o->rate == PMCF_IMIX_RATE_IV)
			snprintf(st->cost_model + l, sizeof(st->cost_model) - l,
				 "; %llu loops at their measured speed (%.0f %% of the samples)",
				 (unsigned long long)st->rate_loops, 100 * st->rate_share);
		st->correction = PMCF_IMIX_CORR_APPLIED;
	}
	free(cls);
	free(u);
	free(cb);
	free(cyc);
	free(code);
	return rc;
}
