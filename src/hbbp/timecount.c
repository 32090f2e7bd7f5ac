/* Time-to-count correction of EBS on a time event (docs/imix.md): timer
 * samples fall in proportion to the time a block takes, executions x cycles,
 * so a block's executions are its samples divided by its cycles per
 * execution from a static cost model (llvm-mca, or the caller's). Skid: a
 * sample's time is charged to the instruction before the sampled IP. */
#include <stdlib.h>
#include <string.h>
#include <Zydis/Zydis.h>
#include "hbbp/hbbp_impl.h"
#include "util/abi.h"
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
	/* alignment padding: a block of NOPs that nothing leads to (not the
	 * entry) is not run, so its fall-through into the next block is no
	 * way in (it would make a loop header there look entered twice) */
	size_t keep = 0;
	for (size_t i = 0; i < ne; i++) {
		uint32_t b = e[i].from;
		int pad = b > 0;
		for (size_t k = 0; pad && k < ne; k++)
			pad = e[k].to != b;
		const struct hbbp_block *bl = &f->blocks[b];
		for (uint32_t k = bl->first; pad && k < bl->first + bl->n; k++) {
			ZydisDecodedInstruction d;
			pad = ZYAN_SUCCESS(
				      ZydisDecoderDecodeInstruction(dec, NULL,
								    f->bytes + (f->ins[k].addr - f->start),
								    f->ins[k].len, &d)) &&
			      d.mnemonic == ZYDIS_MNEMONIC_NOP;
		}
		if (!pad)
			e[keep++] = e[i];
	}
	ne = keep;
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

/* Does h dominate u (u < n; idom from a virtual root, which is its own idom)? */
static int dominated(const uint32_t *idom, uint32_t u, uint32_t h, size_t n)
{
	for (uint32_t x = u; x < n; x = idom[x]) {
		if (x == h)
			return 1;
		if (idom[x] == x)
			break;
	}
	return 0;
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
static int equiv_classes(const struct hbbp_func *f, const struct edge *e, size_t ne, int all, uint32_t *cls,
			 uint32_t *lp, uint32_t *lpar, uint8_t *once, uint32_t *dom)
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
		if (dom)
			dom[b] = UINT32_MAX;
		int use = all || f->ebs[b] > 0;
		id[b] = use ? (uint32_t)n : UINT32_MAX;
		if (use)
			blk[n++] = (uint32_t)b;
		if (once)
			once[b] = 0;
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
			if (dom)
				dom[blk[v]] = idom[v] < n ? blk[idom[v]] : UINT32_MAX;
		}
		/* once per iteration: v's innermost loop is h and v dominates
		 * every latch of h (u -> h, u in the loop), so every iteration
		 * that goes round runs v exactly once, whatever the loop's exits */
		for (size_t v = 0; once && v < n; v++) {
			uint32_t h = inner[v];
			if (h >= n)
				continue;
			int ok = 1;
			for (uint32_t k = p.off[h]; ok && k < p.off[h + 1]; k++) {
				uint32_t u = p.adj[k], x = u;
				if (u >= n || (u != h && !dominated(idom, u, h, n)))
					continue; /* an entry edge, not a latch */
				while (x < n && x != v && idom[x] != x)
					x = idom[x];
				ok = x == v;
			}
			once[blk[v]] = (uint8_t)ok;
		}
		/* a nested loop's header entered once per iteration of the loop
		 * around it: every entry edge comes from a block that runs once
		 * per iteration of that loop (its preheader) */
		for (size_t h = 0; once && h < n; h++) {
			if (inner[h] != h || lpr[h] >= n)
				continue;
			int ok = 1, nent = 0;
			for (uint32_t k = p.off[h]; ok && k < p.off[h + 1]; k++) {
				uint32_t u = p.adj[k];
				if (u == h || (u < n && dominated(idom, u, (uint32_t)h, n)))
					continue; /* a latch */
				ok = u < n && inner[u] == lpr[h] && (once[blk[u]] & 1);
				nent++;
			}
			if (ok && nent)
				once[blk[h]] |= 2;
			if (ok && nent == 1) /* one way in: its immediate dominator */
				once[blk[h]] |= 4;
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

/* Per block of every function (from f->boff): the units' classes and
 * member links, the loops of the sampled flow graph (the classes' nesting
 * level), and for measured loop speeds the loops of the full static flow
 * graph (sampled or not) and whether a block runs once per iteration of its
 * innermost loop there. */
struct blkinfo {
	uint32_t *cls, *next, *lp, *lpar;
	uint32_t *flp, *flpar, *fcls, *fdom; /* NULL unless PMCF_IMIX_RATE_IV; fdom: immediate dominator */
	uint8_t *once;
};

/* Skid, then the units of one function: a block each, or its classes. */
static int func_units(const ZydisDecoder *dec, struct hbbp_func *f, const char *module,
		      const pmcf_imix_opts *o, const struct blkinfo *bi, struct unit *u, size_t *nu)
{
	struct edge *e = NULL;
	size_t ne = 0, off = f->boff;
	uint32_t *cls = bi->cls + off, *next = bi->next + off, *lp = bi->lp + off, *lpar = bi->lpar + off;
	int rc = func_edges(dec, f, &e, &ne);
	if (!rc && o->skid == PMCF_IMIX_SKID_PREV)
		rc = move_heads(f, e, ne);
	int regions = o->costing != PMCF_IMIX_COST_BLOCKS;
	if (!rc && regions)
		rc = equiv_classes(f, e, ne, 0, cls, lp, lpar, NULL, NULL);
	if (!rc && bi->flp) /* the full graph; its classes are not used */
		rc = equiv_classes(f, e, ne, 1, bi->fcls + off, bi->flp + off, bi->flpar + off,
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
		u[*nu] = (struct unit){f, module, next, (uint32_t)b, 0};
		for (uint32_t k = (uint32_t)b; k != UINT32_MAX; k = next[k])
			u[*nu].w += f->ebs[k];
		++*nu;
	}
	return 0;
}

/* ---- measured loop speeds (PMCF_IMIX_RATE_IV) ------------------------------ */

#define IV_MAX 4            /* induction registers kept per loop */
#define IV_MIN_PAIRS 3      /* sample pairs a loop needs to be measured */
#define IV_MAX_RATE 16.     /* iterations per unit of sample weight (ns): a bound no loop reaches */
#define IV_LONG_INSTANCE 16 /* pairs per instance of a nested loop to prefer them to its trip count */
#define CALLEE_DEPTH 3      /* calls followed to see what a callee writes */

/* Induction registers of a loop: perf register bit, stride, width in bits. */
struct ivs {
	uint8_t n, bit[IV_MAX], wide[IV_MAX];
	int64_t stride[IV_MAX];
	uint32_t wblk[IV_MAX], wins[IV_MAX]; /* the block and instruction that step it */
	/* an instance's trip count from register tk: its start, the last write
	 * in the preheader (register sreg + sc; a constant sc; or a constant
	 * not known here, rip-relative), and the bound of the loop's only exit
	 * when tk equals it (register breg, or the constant bc) */
	int8_t tk, sreg, breg;
	uint8_t skind, bkind, bafter; /* bafter: the exit test follows the step */
	int64_t sc, bc;
};
enum { START_NONE, START_REG, START_CONST, START_SAME };
enum { BOUND_NONE, BOUND_REG, BOUND_CONST };

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
/* Does block w dominate block b (full graph; fdom: immediate dominators)? */
static int blk_dominated(const uint32_t *fdom, uint32_t b, uint32_t w)
{
	for (uint32_t x = b; x != UINT32_MAX; x = fdom[x])
		if (x == w)
			return 1;
	return 0;
}

static void iv_trip_setup(const ZydisDecoder *dec, const struct hbbp_func *f, const uint32_t *flp,
			  const uint32_t *flpar, const uint8_t *once, const uint32_t *fdom, uint32_t h,
			  const uint8_t *lwrites, struct ivs *iv);

/* The caller-saved GPRs (perf register bits) that a direct call to addr in
 * image im may change: those the callee writes, with what it calls or
 * jumps to in turn (depth levels); every caller-saved one for a call it
 * cannot follow (indirect, outside the image, too deep). */
#define CALLER_SAVED ((1u << 0) | (1u << 2) | (1u << 3) | (1u << 4) | (1u << 5) | (0xfu << 16))
static uint32_t callee_writes(const ZydisDecoder *dec, const struct hbbp_image *im, uint64_t addr, int depth)
{
	const struct hbbp_func *g = im ? hbbpi_image_func_at(im, addr) : NULL;
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
		for (unsigned k = 0; k < d.operand_count; k++) {
			int r = op[k].type == ZYDIS_OPERAND_TYPE_REGISTER &&
						(op[k].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE)
					? gpr_bit(op[k].reg.value)
					: -1;
			if (r >= 0)
				w |= (1u << r) & CALLER_SAVED;
		}
	}
	return w;
}

static void find_ivs(const ZydisDecoder *dec, const struct hbbp_func *f, const uint32_t *flp,
		     const uint32_t *flpar, const uint8_t *once, const uint32_t *fdom, uint32_t h,
		     struct ivs *iv)
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
		if (!in_loop(flp, flpar, b, h) || (!(f->ebs[b] > 0) && !(flp[b] == h && (once[b] & 1))))
			continue;
		const struct hbbp_block *bl = &f->blocks[b];
		for (uint32_t i = bl->first; i < bl->first + bl->n; i++) {
			ZydisDecodedInstruction d;
			ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
			const struct hbbp_ins *in = &f->ins[i];
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

static int decode_ins(const ZydisDecoder *dec, const struct hbbp_func *f, uint32_t i,
		      ZydisDecodedInstruction *d, ZydisDecodedOperand *op)
{
	const struct hbbp_ins *in = &f->ins[i];
	return ZYAN_SUCCESS(ZydisDecoderDecodeFull(dec, f->bytes + (in->addr - f->start), in->len, d, op))
		       ? 0
		       : -1;
}

/* Successors of block b in f (fall-through, direct branch): 0 to 2; -1 for
 * a way out that is not a block of f (return, indirect or outside jump). */
static int block_succ(const ZydisDecoder *dec, const struct hbbp_func *f, uint32_t b, long succ[2])
{
	const struct hbbp_block *bl = &f->blocks[b];
	const struct hbbp_ins *last = &f->ins[bl->first + bl->n - 1];
	int n = 0, falls = 1;
	if (last->flags & INS_CF) {
		ZydisDecodedInstruction d;
		ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
		if (decode_ins(dec, f, bl->first + bl->n - 1, &d, op))
			return -1;
		ZydisInstructionCategory c = d.meta.category;
		if (c == ZYDIS_CATEGORY_COND_BR || c == ZYDIS_CATEGORY_UNCOND_BR) {
			if (!(d.attributes & ZYDIS_ATTRIB_IS_RELATIVE) ||
			    op[0].type != ZYDIS_OPERAND_TYPE_IMMEDIATE)
				return -1;
			long t = block_of(f, last->addr + d.length + (uint64_t)op[0].imm.value.s);
			if (t < 0)
				return -1;
			succ[n++] = t;
			falls = c == ZYDIS_CATEGORY_COND_BR;
		} else if (c != ZYDIS_CATEGORY_CALL) {
			return -1;
		}
	}
	if (falls) {
		if (b + 1 >= f->nblocks || f->blocks[b + 1].start != last->addr + last->len)
			return -1;
		succ[n++] = (long)b + 1;
	}
	return n;
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
static void iv_trip_setup(const ZydisDecoder *dec, const struct hbbp_func *f, const uint32_t *flp,
			  const uint32_t *flpar, const uint8_t *once, const uint32_t *fdom, uint32_t h,
			  const uint8_t *lwrites, struct ivs *iv)
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
		const struct hbbp_block *bl = &f->blocks[p];
		for (uint32_t i = bl->first; i < bl->first + bl->n; i++) {
			if (decode_ins(dec, f, i, &d, op))
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
		if (!in_loop(flp, flpar, b, h) || (!(f->ebs[b] > 0) && !(flp[b] == h && (once[b] & 1))))
			continue;
		long succ[2];
		int ns = block_succ(dec, f, b, succ);
		int out = ns < 0;
		for (int j = 0; j < ns; j++)
			out |= !in_loop(flp, flpar, (uint32_t)succ[j], h);
		if (out)
			nexit++, xb = b;
	}
	if (nexit != 1 || flp[xb] != h || f->blocks[xb].n < 2)
		return;
	const struct hbbp_block *bl = &f->blocks[xb];
	uint32_t ci = bl->first + bl->n - 2;
	long succ[2];
	if (decode_ins(dec, f, ci + 1, &d, op) || block_succ(dec, f, xb, succ) != 2 ||
	    (d.mnemonic != ZYDIS_MNEMONIC_JNZ && d.mnemonic != ZYDIS_MNEMONIC_JZ))
		return;
	/* jnz: taken stays, fall-through leaves; jz the other way round */
	int taken_in = in_loop(flp, flpar, (uint32_t)succ[0], h);
	if ((d.mnemonic == ZYDIS_MNEMONIC_JNZ) != taken_in)
		return;
	if (decode_ins(dec, f, ci, &d, op))
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
	iv->bafter =
		xb == iv->wblk[iv->tk] ? ci > iv->wins[iv->tk] : blk_dominated(fdom, xb, iv->wblk[iv->tk]);
}

/* Induction register k's value in a sample, 32-bit registers
 * sign-extended; -1 when the register is not recorded. With norm, as of
 * after its step in the current iteration: a sample is taken before its
 * IP's instruction runs, so at or before the step in the step's block, or
 * in a block the step does not dominate, the step is still to come and is
 * added (fdom: the immediate dominators of the sample's function). */
static int iv_value(const struct ivs *iv, unsigned k, const struct hbbp_tsample *t, const uint32_t *fdom,
		    int norm, int64_t *v)
{
	uint64_t x;
	if (reg_value(t, iv->bit[k], &x))
		return -1;
	uint32_t b = t->f->ins[t->ins].block;
	if (norm && (b == iv->wblk[k] ? t->ins <= iv->wins[k] : !blk_dominated(fdom, b, iv->wblk[k])))
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
static double iv_iterations(const struct ivs *iv, const struct hbbp_tsample *a, const struct hbbp_tsample *b)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	double sum = 0;
	for (unsigned k = 0; k < iv->n; k++) {
		int64_t va, vb;
		if (iv_value(iv, k, a, NULL, 0, &va) || iv_value(iv, k, b, NULL, 0, &vb))
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

static int ts_cmp(const void *x, const void *y)
{
	const struct hbbp_tsample *a = x, *b = y;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return (a->time > b->time) - (a->time < b->time);
}

/* Per loop of the full static flow graph (indexed by its header's block,
 * from f->boff): its induction registers, the sample pairs that measure
 * its speed, the spread of its induction register's sampled values (its
 * trip count), and the executions of its header found from them. */
struct loopst {
	struct ivs iv;
	uint8_t ivdone;
	uint32_t npair;
	uint32_t nback;     /* pairs whose registers all stepped back (two instances) */
	double iter, ptime; /* summed over the valid pairs */
	/* trip count: one thread's lowest and highest value of the first
	 * induction register, then the estimates summed over threads */
	uint32_t tid, ns;
	int64_t lo, hi;
	size_t last;    /* the latest sample in the loop (index + 1; 0: none) */
	uint32_t ninst; /* instances of the loop the samples fell in */
	double tsum, tn;
	double hinv;         /* samples with start and bound: sum of 1 / their instance's trips */
	uint32_t hn, dn, rn; /* samples with start and bound; with a start only; a bound only */
	int64_t dmax, rmax;  /* the most steps since the start; before the bound */
	double trip;         /* the estimate (0: none) */
	double t;            /* sample weight of the loop's blocks */
	double N;            /* executions of the header: measured, or from the trip count */
	double fac;          /* N over the cost model's count of the loop's anchor unit */
	int how;             /* 1 measured, 2 from the loop around times its trip count */
	double cmax;         /* the highest modelled count of its own conditional units */
	/* per function, in the entry of its block 0: the GPRs (perf bits) its
	 * own code never writes, which hold one value for a whole call */
	uint32_t kept;
	uint8_t keptdone;
};

/* Do a loop's pairs measure its speed? Enough of them, and few that ran
 * backwards: a pair whose registers all stepped back spans two instances
 * of the loop (a monotonic register restarts), and as many pairs across
 * instances step forwards by chance, adding their time but few of the
 * iterations in it. Within one call, same_call rules such pairs out; where
 * it cannot (the function writes every register: gzip's longest_match,
 * called per position, 100x under its count), the backward pairs count
 * the others: the loop is taken as measured only while they are within
 * the pairs' own sampling noise, sqrt(n) (issue 36, item 1). */
static int pairs_ok(const struct loopst *l)
{
	return l->npair >= IV_MIN_PAIRS && l->ptime > 0 && l->nback * (double)l->nback <= l->npair;
}

static struct ivs *loop_ivs(const ZydisDecoder *dec, const struct hbbp_func *f, const struct blkinfo *bi,
			    struct loopst *ls, uint32_t h)
{
	size_t o = f->boff;
	if (!ls[o + h].ivdone)
		find_ivs(dec, f, bi->flp + o, bi->flpar + o, bi->once + o, bi->fdom + o, h, &ls[o + h].iv),
			ls[o + h].ivdone = 1;
	return &ls[o + h].iv;
}

/* The GPRs (perf bits, not rsp) that no instruction of f writes, and no
 * call in it may change (a direct call into the image: what its callee
 * writes; any other: the caller-saved ones). Their values are the same
 * all through one call of f: the caller's (a callee-saved register f does
 * not save is one it does not write). 0 for code that does not decode. */
#define GPR_BITS (0xffu | (0xffu << 16))
static uint32_t func_kept(const ZydisDecoder *dec, const struct hbbp_func *f)
{
	uint32_t w = 1u << 7; /* rsp */
	for (size_t i = 0; i < f->nins && w != GPR_BITS; i++) {
		ZydisDecodedInstruction d;
		ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
		const struct hbbp_ins *in = &f->ins[i];
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
		for (unsigned k = 0; k < d.operand_count; k++) {
			int r = op[k].type == ZYDIS_OPERAND_TYPE_REGISTER &&
						(op[k].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE)
					? gpr_bit(op[k].reg.value)
					: -1;
			if (r >= 0)
				w |= 1u << r;
		}
	}
	return GPR_BITS & ~w;
}

/* Can two samples in f lie in one call of it? Not when a register that f
 * never writes differs between them: a loop in a function called from
 * another function's loop (a hash over a short key) otherwise pairs samples
 * of different calls as one instance of its loop (issue 36, item 1). */
static int same_call(const ZydisDecoder *dec, const struct hbbp_func *f, struct loopst *ls,
		     const struct hbbp_tsample *a, const struct hbbp_tsample *b)
{
	struct loopst *e = &ls[f->boff];
	if (!e->keptdone)
		e->kept = func_kept(dec, f), e->keptdone = 1;
	for (uint32_t m = e->kept; m; m &= m - 1) {
		int bit = __builtin_ctz(m);
		uint64_t va, vb;
		if (!reg_value(a, bit, &va) && !reg_value(b, bit, &vb) && va != vb)
			return 0;
	}
	return 1;
}

/* Do two samples lie in the same iteration of every loop around the loop
 * headed by h (in the function), and in one call of the function? Strict:
 * each such loop needs induction registers; else a loop around without
 * any (a counter in memory) is not checked, and the pairs that step back
 * tell how many pairs cross instances (pairs_ok). */
static int same_instance(const ZydisDecoder *dec, const struct hbbp_func *f, const struct blkinfo *bi,
			 struct loopst *ls, uint32_t h, const struct hbbp_tsample *a,
			 const struct hbbp_tsample *b, int strict)
{
	if (a->f != b->f || !same_call(dec, f, ls, a, b))
		return 0;
	for (uint32_t l = bi->flpar[f->boff + h]; l != UINT32_MAX; l = bi->flpar[f->boff + l]) {
		const struct ivs *iv = loop_ivs(dec, f, bi, ls, l);
		if (!iv->n && !strict)
			continue;
		if (!iv->n || iv_iterations(iv, a, b) != 0)
			return 0;
	}
	return 1;
}

/* Smallest number of one thread's samples in a loop that estimates its trip
 * count from the spread of their induction register's values. */
#define TRIP_MIN_SAMPLES 8

/* A value of a w-bit register as the loop's arithmetic sees it. */
static int64_t as_width(uint64_t x, unsigned w)
{
	return w == 32 ? (int64_t)(int32_t)(uint32_t)x : (int64_t)x;
}

static void trip_flush(struct loopst *l)
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
static void iv_scan(const ZydisDecoder *dec, struct hbbp_tsample *ts, size_t nts, const struct blkinfo *bi,
		    struct loopst *ls)
{
	qsort(ts, nts, sizeof(*ts), ts_cmp);
	for (size_t i = 0; i < nts; i++) {
		const struct hbbp_tsample *b = &ts[i];
		if (!b->regs)
			continue;
		const struct hbbp_func *f = b->f;
		size_t o = f->boff;
		uint32_t bb = f->ins[b->ins].block;
		for (uint32_t h = bi->flp[o + bb]; h != UINT32_MAX; h = bi->flpar[o + h]) {
			struct loopst *l = &ls[o + h];
			const struct ivs *iv = loop_ivs(dec, f, bi, ls, h);
			int64_t v;
			if (!l->last || ts[l->last - 1].tid != b->tid ||
			    !same_instance(dec, f, bi, ls, h, &ts[l->last - 1], b, 1))
				l->ninst++;
			l->last = i + 1;
			int k = iv->tk;
			if (k < 0 || iv_value(iv, (unsigned)k, b, bi->fdom + o, 1, &v))
				continue;
			uint64_t x = 0, y = 0;
			unsigned w = iv->wide[k];
			int64_t st = iv->stride[k];
			if ((iv->skind == START_NONE || iv->skind == START_SAME) && iv->bkind != BOUND_NONE) {
				/* steps left to the bound: 0 .. T - 1 */
				y = (uint64_t)iv->bc;
				if (iv->bkind == BOUND_REG && reg_value(b, iv->breg, &y))
					continue;
				int64_t d = as_width(y - (uint64_t)v, w);
				if (d % st == 0 && d / st >= 0)
					l->rmax = d / st > l->rmax ? d / st : l->rmax, l->rn++;
				continue;
			}
			if (iv->skind == START_REG || iv->skind == START_CONST) {
				/* the instance's start, and its trip count when the
				 * bound is known; else the steps since the start */
				if (iv->skind == START_REG && reg_value(b, iv->sreg, &x))
					continue;
				int64_t start = as_width(x + (uint64_t)iv->sc, w);
				if (iv->bkind == BOUND_CONST)
					y = (uint64_t)iv->bc;
				if (iv->bkind == BOUND_REG && reg_value(b, iv->breg, &y))
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
				trip_flush(l);
			if (!l->ns)
				l->tid = b->tid, l->lo = l->hi = v;
			l->lo = v < l->lo ? v : l->lo;
			l->hi = v > l->hi ? v : l->hi;
			l->ns++;
		}
		if (!i)
			continue;
		const struct hbbp_tsample *a = &ts[i - 1];
		if (a->tid != b->tid || a->f != b->f || !a->regs)
			continue;
		uint32_t ba = f->ins[a->ins].block;
		for (uint32_t h = bi->flp[o + ba]; h != UINT32_MAX; h = bi->flpar[o + h]) {
			if (!in_loop(bi->flp + o, bi->flpar + o, bb, h))
				continue;
			const struct ivs *iv = loop_ivs(dec, f, bi, ls, h);
			if (!iv->n || !same_instance(dec, f, bi, ls, h, a, b, 0))
				continue;
			double it = iv_iterations(iv, a, b);
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

/* A direct call in a function with samples: its target and the count of
 * its block (-1: none). */
struct site {
	const struct hbbp_func *g; /* the caller and its block */
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
static size_t site_first(const struct site *st, size_t ns, const struct hbbp_func *f)
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
static int collect_calls(const ZydisDecoder *dec, const struct unit *u, size_t n, struct site **out,
			 size_t *nout)
{
	struct site *st = NULL;
	size_t ns = 0, cap = 0;
	for (size_t i = 0; i < n; i++) {
		const struct hbbp_func *g = u[i].f;
		if (i && u[i - 1].f == g)
			continue;
		for (uint32_t b = 0; b < g->nblocks; b++) {
			const struct hbbp_block *bl = &g->blocks[b];
			uint32_t li = bl->first + bl->n - 1;
			ZydisDecodedInstruction d;
			ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
			if (!(g->ins[li].flags & INS_CF) || decode_ins(dec, g, li, &d, op) ||
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
 * apply_rates are updated. */
static int count_calls(pmcf_imix *m, const struct unit *u, size_t n, const uint32_t *uof, const double *xc,
		       const double *cnt, double *kf, const struct site *st, size_t ns, double *w_rate,
		       double *kw)
{
	/* repeated: a function counted this way counts the ones it calls */
	for (int changed = 1; changed;) {
		changed = 0;
		for (size_t i = 0; i < n; i++) {
			const struct hbbp_func *f = u[i].f;
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
static int own_unit(const struct blkinfo *bi, size_t o, const struct unit *x, uint32_t l)
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
	const struct hbbp_func *f;
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

static void name_unmeasured(pmcf_imix *m, const struct unit *u, size_t n, const struct blkinfo *bi,
			    const struct loopst *ls, double w_all)
{
	char *out = m->st.unmeasured_loops;
	size_t cap = sizeof(m->st.unmeasured_loops), len = 0, nl = 0, capl = 0;
	out[0] = 0;
	struct lref *lr = NULL;
	for (size_t i = 0; w_all > 0 && i < n; i++) {
		const struct hbbp_func *f = u[i].f;
		if (i && u[i - 1].f == f)
			continue;
		for (uint32_t h = 0; h < f->nblocks; h++) {
			const struct loopst *l = &ls[f->boff + h];
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
		const struct loopst *l = &ls[lr[k].f->boff + lr[k].h];
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
static int apply_rates(pmcf_imix *m, const ZydisDecoder *dec, struct hbbp_tsample *ts, size_t nts,
		       const struct unit *u, size_t n, const struct blkinfo *bi, size_t nblk, double *cnt,
		       double *xc, uint8_t *umeas, const unsigned *ulen, int unmeasured)
{
	struct site *sites = NULL;
	size_t nsites = 0;
	int rc = collect_calls(dec, u, n, &sites, &nsites);
	if (rc)
		return rc;
	struct loopst *ls = calloc(nblk + 1, sizeof(*ls));
	uint32_t *uof = malloc((nblk + 1) * sizeof(uint32_t));
	double *kf = malloc((n + 1) * sizeof(double));
	if (!ls || !uof || !kf) {
		free(sites);
		free(ls);
		free(uof);
		free(kf);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	}
	iv_scan(dec, ts, nts, bi, ls);
	for (size_t i = 0; i < nblk; i++) {
		struct loopst *l = &ls[i];
		trip_flush(l);
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
		uof[i] = UINT32_MAX;
	}
	for (size_t i = 0; i < n; i++)
		for (uint32_t b = u[i].first; b != UINT32_MAX; b = u[i].next[b])
			uof[u[i].f->boff + b] = (uint32_t)i;
	/* each loop's time: its blocks' weight, and that of a function it
	 * calls directly when every call to it the samples show is in the loop
	 * (sites sorted by callee; not a recursive call, whose time is the
	 * loop's own) */
	for (size_t i = 0; i < n; i++) {
		const struct hbbp_func *f = u[i].f;
		if (i && u[i - 1].f == f)
			continue;
		for (uint32_t b = 0; b < f->nblocks; b++)
			for (uint32_t h = bi->flp[f->boff + b]; h != UINT32_MAX; h = bi->flpar[f->boff + h])
				ls[f->boff + h].t += f->ebs[b];
	}
	for (size_t a = 0, z; a < nsites; a = z) {
		const struct hbbp_func *g = sites[a].g;
		int one = 1;
		for (z = a + 1; z < nsites && sites[z].g->im == g->im && sites[z].to == sites[a].to; z++)
			one &= sites[z].g == g;
		if (!one || !(sites[a].w > 0) || sites[a].to == g->start)
			continue;
		const uint32_t *flp = bi->flp + g->boff, *flpar = bi->flpar + g->boff;
		for (uint32_t h = flp[sites[a].b]; h != UINT32_MAX; h = flpar[h]) {
			int all = 1;
			for (size_t q = a + 1; q < z && all; q++)
				all = in_loop(flp, flpar, sites[q].b, h);
			if (all)
				ls[g->boff + h].t += sites[a].w;
		}
	}
	/* the functions, once each (their units are consecutive) */
	for (size_t i = 0; i < n; i++) {
		const struct hbbp_func *f = u[i].f;
		size_t o = f->boff;
		if (i && u[i - 1].f == f)
			continue;
		const uint32_t *flp = bi->flp + o, *flpar = bi->flpar + o;
		/* measured: loops with enough pairs, but a nested loop with few
		 * pairs per instance is left to its trip count where it has one
		 * (pairs in a short instance miss the steps near its ends) */
		for (uint32_t h = 0; h < f->nblocks; h++) {
			struct loopst *l = &ls[o + h];
			int by_trip = flpar[h] != UINT32_MAX && (bi->once[o + h] & 2) && l->trip > 0 &&
				      l->npair < IV_LONG_INSTANCE * (double)l->ninst;
			if (flp[h] == h && pairs_ok(l) && !by_trip)
				l->N = l->iter / l->ptime * l->t, l->how = 1;
			if (getenv("PMCF_IV_DEBUG") && flp[h] == h)
				fprintf(stderr,
					"iv %s@%llx: npair %u back %u iter %g ptime %g t %g N %g trip %g ninst %u how %d ivs %u\n",
					f->name, (unsigned long long)f->blocks[h].start, l->npair, l->nback,
					l->iter, l->ptime, l->t, l->N, l->trip, l->ninst, l->how, l->iv.n);
		}
		/* counts from the loop around: outer loops first (repeated until
		 * no loop gets one) */
		for (int changed = 1; changed;) {
			changed = 0;
			for (uint32_t h = 0; h < f->nblocks; h++) {
				struct loopst *l = &ls[o + h];
				if (flp[h] != h || l->how || flpar[h] == UINT32_MAX ||
				    !(bi->once[o + h] & 2) || !(l->trip > 0) || !(ls[o + flpar[h]].N > 0))
					continue;
				l->N = ls[o + flpar[h]].N * l->trip, l->how = 2;
				changed = 1;
			}
		}
		for (uint32_t h = 0; h < f->nblocks; h++) { /* nothing better than few pairs */
			struct loopst *l = &ls[o + h];
			if (flp[h] == h && !l->how && pairs_ok(l))
				l->N = l->iter / l->ptime * l->t, l->how = 1;
		}
		for (uint32_t h = 0; h < f->nblocks; h++) {
			struct loopst *l = &ls[o + h];
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
	/* each unit's factor: that of its innermost loop with one; the others
	 * take the time-weighted mean of the measured units' factors, i.e. the
	 * cost model's cycles per unit of time over the measured time */
	double w_all = 0, w_rate = 0, kw = 0;
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
		w_all += u[i].w;
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
				w_rate += u[i].w;
				kw += kf[i] * u[i].w;
				int own = own_unit(bi, o, &u[i], l);
				if (own == 2 && cnt[i] > 0) /* runs every iteration */
					kf[i] = ls[o + l].N / cnt[i], umeas[i] = 1;
				else if (own == 1 && ls[o + l].cmax * kf[i] > ls[o + l].N)
					kf[i] = ls[o + l].N / ls[o + l].cmax, m->rate_clamped++;
				break;
			}
	}
	rc = count_calls(m, u, n, uof, xc, cnt, kf, sites, nsites, &w_rate, &kw);
	double kbar = w_rate > 0 ? kw / w_rate : 1;
	/* units with no measured count: the cost model at the measured units'
	 * mean factor (PMCF_IMIX_UNMEASURED_MODEL), or (the default) at the
	 * instructions per sample of the measured units, i.e. the raw estimate
	 * scaled to the measured code: the model's correction is evidence only
	 * where a count measures it. Corrected by the model alone, a short
	 * block that waits on a load miss became most of the mix (issue 36,
	 * item 2); on the independent corpus the raw estimate beat the model
	 * on 7 of 13 programs (docs/imix.md) */
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
	m->st.unmeasured_share = w_all > 0 ? w_un / w_all : 0;
	name_unmeasured(m, u, n, bi, ls, w_all);
	m->st.rate_share = w_all > 0 ? w_rate / w_all : 0;
	free(sites);
	free(ls);
	free(uof);
	free(kf);
	return rc;
}

/* ---- the two arms of a conditional branch (PMCF_IMIX_ARMS_FLOW) ---------- */

/* Expected samples below which an arm with none is not taken as not run. */
#define ARM_MIN_SAMPLES 3.

/* Flow conservation at the two-way branches of f (docs/imix.md): where a
 * block h with a count ends in a conditional branch to two distinct blocks
 * a and b whose only way in is that branch (N_a + N_b = N_h), in h's
 * innermost loop, the blocks a dominates (a's arm) and those b dominates are
 * scaled so that the two arm heads add up to h's count, keeping their ratio.
 * An arm without any count is not run when, run half as often as h at the
 * sample density of h's unit, its instructions after the first (with skid
 * prev the first one's samples go to h) would have held ARM_MIN_SAMPLES or
 * more; below that (a one-instruction arm holds no sample with skid prev,
 * whatever its count: its time is sampled at the join, with the other
 * arm's last instruction) the samples cannot tell, and an arm of one block
 * is given N_h / 2 (the prior: half each way), the other arm the rest.
 * Branches are visited from the top of the dominator tree down, so a
 * branch inside an arm sees the arm's corrected count. Only where h's
 * count is measured (anch: a block that runs once per iteration of a loop
 * with a measured count, or an arm scaled here from one): two counts of
 * the cost model alone are no better than each other, and scaling one to
 * the other moves the model's error between the arms and the rest of the
 * loop. bc: per block count (from f->boff), dens: per block the samples per
 * instruction and execution of its unit (0 without one). */
static int split_arms(pmcf_imix *m, const ZydisDecoder *dec, struct hbbp_func *f, const struct blkinfo *bi,
		      int skid_prev, double *bc, const double *dens, uint8_t *anch)
{
	size_t nb = f->nblocks, o = f->boff, ne = 0;
	const uint32_t *flp = bi->flp + o, *fdom = bi->fdom + o;
	double *c = bc + o;
	uint8_t *an = anch + o;
	struct edge *e = NULL;
	int rc = func_edges(dec, f, &e, &ne);
	if (rc)
		return rc;
	/* w: npred, nsucc, succ0, succ1, the dominator tree (children in rows),
	 * preorder number, last preorder below, blocks in preorder, stack */
	uint32_t *w = malloc((10 * nb + 2) * sizeof(uint32_t));
	if (!w) {
		free(e);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	}
	uint32_t *npred = w, *nsucc = w + nb, *succ = w + 2 * nb, *coff = w + 4 * nb, *child = w + 5 * nb + 1,
		 *pre = w + 6 * nb + 1, *last = w + 7 * nb + 1, *order = w + 8 * nb + 1,
		 *stack = w + 9 * nb + 1;
	for (size_t b = 0; b < nb; b++)
		npred[b] = nsucc[b] = 0, coff[b] = 0, pre[b] = last[b] = UINT32_MAX;
	coff[nb] = 0;
	for (size_t i = 0; i < ne; i++) {
		npred[e[i].to]++;
		uint32_t fr = e[i].from;
		if (nsucc[fr] < 2)
			succ[2 * fr + nsucc[fr]] = e[i].call ? UINT32_MAX : e[i].to;
		nsucc[fr]++;
	}
	/* the dominator tree's children in rows, then preorder from its roots */
	for (size_t b = 0; b < nb; b++)
		if (fdom[b] < nb)
			coff[fdom[b] + 1]++;
	for (size_t b = 0; b < nb; b++)
		coff[b + 1] += coff[b];
	for (size_t b = 0; b < nb; b++)
		stack[b] = coff[b];
	for (size_t b = 0; b < nb; b++)
		if (fdom[b] < nb)
			child[stack[fdom[b]]++] = (uint32_t)b;
	uint32_t clock = 0;
	for (size_t r = 0; r < nb; r++) {
		if (fdom[r] < nb || pre[r] != UINT32_MAX)
			continue;
		size_t sp = 0;
		pre[r] = clock, order[clock++] = (uint32_t)r, stack[sp++] = (uint32_t)r;
		/* the next child to visit of each node on the stack: last[] */
		last[r] = coff[r];
		while (sp) {
			uint32_t v = stack[sp - 1];
			if (last[v] < coff[v + 1]) {
				uint32_t ch = child[last[v]++];
				pre[ch] = clock, order[clock++] = ch, last[ch] = coff[ch], stack[sp++] = ch;
			} else {
				last[v] = clock - 1;
				sp--;
			}
		}
	}
	for (uint32_t k = 0; k < clock; k++) {
		uint32_t h = order[k];
		if (nsucc[h] != 2 || !(c[h] > 0) || !an[h])
			continue;
		uint32_t s[2] = {succ[2 * h], succ[2 * h + 1]}, ok = 1;
		for (int j = 0; j < 2 && ok; j++)
			ok = s[j] < nb && s[j] != h && npred[s[j]] == 1 && fdom[s[j]] == h &&
			     flp[s[j]] == flp[h] && flp[h] != UINT32_MAX && s[j] != flp[h];
		if (!ok || s[0] == s[1])
			continue;
		/* each arm: the blocks its head dominates, all in h's loop;
		 * whether any of them has a count; its instructions */
		int seen[2] = {0, 0};
		unsigned len[2] = {0, 0}, nblk[2] = {0, 0};
		for (int j = 0; j < 2 && ok; j++)
			for (uint32_t q = pre[s[j]]; ok && q <= last[s[j]]; q++) {
				uint32_t x = order[q];
				ok = flp[x] == flp[h];
				seen[j] |= c[x] > 0;
				len[j] += f->blocks[x].n;
				nblk[j]++;
			}
		if (!ok || (!seen[0] && !seen[1]))
			continue;
		double target[2];
		if (seen[0] && seen[1]) {
			double sum = c[s[0]] + c[s[1]];
			if (!(c[s[0]] > 0) || !(c[s[1]] > 0))
				continue;
			target[0] = c[h] * c[s[0]] / sum, target[1] = c[h] * c[s[1]] / sum;
		} else {
			int a = !seen[0] ? 0 : 1;                  /* the arm without a count */
			if (!(c[s[!a]] > 0) || !(dens[o + h] > 0)) /* h without samples: no density */
				continue;
			/* the samples its instructions would hold at N_h / 2 */
			double lambda = dens[o + h] * (len[a] - (skid_prev ? 1 : 0)) * c[h] / 2;
			if (lambda >= ARM_MIN_SAMPLES) { /* not run */
				target[a] = 0, target[!a] = c[h];
			} else {
				if (nblk[a] != 1)
					continue;
				target[a] = target[!a] = c[h] / 2;
				c[s[a]] = target[a], an[s[a]] = 1;
				m->st.arms_prior++;
			}
		}
		for (int j = 0; j < 2; j++) {
			if (!(c[s[j]] > 0))
				continue;
			double k2 = target[j] / c[s[j]];
			for (uint32_t q = pre[s[j]]; q <= last[s[j]]; q++)
				c[order[q]] *= k2, an[order[q]] = 1;
		}
		m->st.arms_flow++;
	}
	free(w);
	free(e);
	return 0;
}

int hbbpi_time_to_count(pmcf_imix *m, const pmcf_imix_opts *o, const char *cpuid, struct hbbp_tsample *ts,
			size_t nts)
{
	pmcf_imix_stats *st = &m->st;
	struct hbbp_cost_model cm;
	m->rate_clamped = 0;
	st->arms_flow = st->arms_prior = 0;
	if (o->arms < PMCF_IMIX_ARMS_FLOW || o->arms > PMCF_IMIX_ARMS_SAMPLES)
		return pmcfi_fail(PMCF_EINVAL, "unknown arms %d", o->arms);
	if (o->unmeasured < PMCF_IMIX_UNMEASURED_SAMPLES || o->unmeasured > PMCF_IMIX_UNMEASURED_BOUND)
		return pmcfi_fail(PMCF_EINVAL, "unknown unmeasured %d", o->unmeasured);
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
		if ((rc = hbbpi_cost_model_describe(&cm, st->cost_model, sizeof(st->cost_model))))
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
	struct hbbp_image *im;
	for (struct hbbp_func *f; (f = hbbpi_mix_next_func(m, &pos, &im));)
		nblk += f->nblocks;
	int iv = o->rate != PMCF_IMIX_RATE_NONE && nts; /* the default: measured where it can */
	uint32_t *cls = malloc(((iv ? 8 : 4) * nblk + 1) * sizeof(uint32_t));
	uint8_t *once = iv ? malloc(nblk + 1) : NULL;
	double *xc = iv ? calloc(nblk + 1, sizeof(double)) : NULL;
	struct blkinfo bi = {0};
	if (cls) {
		bi = (struct blkinfo){cls,  cls + nblk, cls + 2 * nblk, cls + 3 * nblk, NULL, NULL, NULL,
				      NULL, once};
		if (iv && once)
			bi.flp = cls + 4 * nblk, bi.flpar = cls + 5 * nblk, bi.fcls = cls + 6 * nblk,
			bi.fdom = cls + 7 * nblk;
	}
	struct unit *u = malloc((nblk + 1) * sizeof(*u));
	pmcf_imix_code_block *cb = malloc((nblk + 1) * sizeof(*cb));
	double *cyc = malloc((nblk + 1) * sizeof(*cyc));
	uint8_t *umeas = calloc(nblk + 1, 1);             /* per unit: its count is its loop's measured one */
	unsigned *ulen = calloc(nblk + 1, sizeof(*ulen)); /* per unit: its instructions */
	uint8_t *code = NULL;
	size_t n = 0, off = 0, ncode = 0, nregions = 0;
	int rc = !cls || (iv && (!once || !xc)) || !u || !cb || !cyc || !umeas || !ulen
			 ? pmcfi_fail(PMCF_ENOMEM, "out of memory")
			 : 0;
	pos = 0;
	for (struct hbbp_func *f; !rc && (f = hbbpi_mix_next_func(m, &pos, &im)); off += f->nblocks) {
		f->boff = off;
		rc = func_units(&dec, f, im->path, o, &bi, u, &n);
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
		cb[i] = (pmcf_imix_code_block){sizeof(pmcf_imix_code_block),
					       u[i].module,
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
		for (size_t i = 0; i < n; i++)
			ulen[i] = cb[i].len;
		if (iv)
			rc = apply_rates(m, &dec, ts, nts, u, n, &bi, nblk, cyc, xc, umeas, ulen,
					 o->unmeasured);
		/* per block counts: a unit's members its count, a block without
		 * samples the count of its loop (xc); then the arms of two-way
		 * branches (bc reuses xc: a unit's members have no xc count) */
		double *bc = xc;
		if (!rc && iv && o->arms != PMCF_IMIX_ARMS_SAMPLES) {
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
					rc = split_arms(m, &dec, u[i].f, &bi, o->skid == PMCF_IMIX_SKID_PREV,
							bc, dens, anch);
			free(dens);
			free(anch);
		} else if (bc) {
			for (size_t i = 0; i < n; i++)
				for (uint32_t b = u[i].first; b != UINT32_MAX; b = u[i].next[b])
					bc[u[i].f->boff + b] = cyc[i];
		}
		for (size_t i = 0; i < n; i++) {
			const struct hbbp_func *f = u[i].f;
			if (!bc)
				ins_all += cyc[i] * cb[i].len;
			for (uint32_t b = 0; bc && (!i || u[i - 1].f != f) && b < f->nblocks; b++)
				ins_all += bc[f->boff + b] * f->blocks[b].n;
		}
		double scale = ins_all > 0 ? w_all / ins_all : 1;
		for (size_t i = 0; !rc && i < n; i++) {
			struct hbbp_func *f = u[i].f;
			for (uint32_t b = u[i].first; b != UINT32_MAX; b = u[i].next[b]) {
				f->ebs[b] = scale * (bc ? bc[f->boff + b] : cyc[i]) * f->blocks[b].n;
				st->cost_blocks++;
			}
			for (uint32_t b = 0; bc && (!i || u[i - 1].f != f) && b < f->nblocks; b++)
				if (bc[f->boff + b] > 0)
					f->ebs[b] = scale * bc[f->boff + b] * f->blocks[b].n;
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
					? "cost model at the measured code's mean factor (--unmeasured model)"
				: o->unmeasured == PMCF_IMIX_UNMEASURED_BOUND
					? "counted at the lower of the raw estimate and the cost model "
					  "(--unmeasured bound)"
					: "counted at the measured code's instructions per sample (the raw "
					  "estimate there)");
		/* a full buffer is a cut clause: fail rather than cut (hbbp.h) */
		if (strlen(st->cost_model) + 1 >= sizeof(st->cost_model))
			rc = pmcfi_fail(PMCF_EINVAL,
					"imix: the cost model's description does not fit %zu bytes",
					sizeof(st->cost_model) - 1);
		else
			st->correction = PMCF_IMIX_CORR_APPLIED;
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
