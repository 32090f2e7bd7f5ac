/* The static control flow of a function for the time-to-count correction
 * (timecount.c): edges between its blocks, the skid of samples at a block's
 * head, control-equivalent classes, dominators and natural loops. */
#include <stdlib.h>
#include <string.h>
#include <Zydis/Zydis.h>
#include "hbbp/hbbp_impl.h"
#include "hbbp/tc_impl.h"
#include "util/internal.h"

static int edge_cmp(const void *a, const void *b)
{
	const struct pmcfi_hbbp_edge *x = a, *y = b;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	return (x->from > y->from) - (x->from < y->from);
}

/* Block index of addr in f when a block starts there, or -1. */
static long block_of(const struct pmcfi_hbbp_func *f, uint64_t addr)
{
	long i = addr >= f->start && addr < f->end ? pmcfi_hbbp_func_ins(f, addr) : -1;
	if (i < 0 || f->ins[i].addr != addr)
		return -1;
	uint32_t b = f->ins[i].block;
	return f->blocks[b].start == addr ? (long)b : -1;
}

/* The function's static control flow between its blocks: fall-through and
 * direct branches inside the function (calls fall through). *out is
 * malloc'ed, sorted by target. */
int pmcfi_hbbp_func_edges(const ZydisDecoder *dec, const struct pmcfi_hbbp_func *f,
			  struct pmcfi_hbbp_edge **out, size_t *nout)
{
	struct pmcfi_hbbp_edge *e = malloc((2 * f->nblocks + 1) * sizeof(*e));
	if (!e)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	size_t ne = 0;
	for (size_t b = 0; b < f->nblocks; b++) {
		const struct pmcfi_hbbp_block *bl = &f->blocks[b];
		const struct pmcfi_hbbp_ins *last = &f->ins[bl->first + bl->n - 1];
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
					e[ne++] = (struct pmcfi_hbbp_edge){(uint32_t)b, (uint32_t)t, 0};
			}
		} else if (last->flags & INS_CF) {
			falls = 0;
		}
		if (falls && b + 1 < f->nblocks && f->blocks[b + 1].start == last->addr + last->len)
			e[ne++] = (struct pmcfi_hbbp_edge){(uint32_t)b, (uint32_t)(b + 1), call};
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
		const struct pmcfi_hbbp_block *bl = &f->blocks[b];
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
int pmcfi_hbbp_move_heads(struct pmcfi_hbbp_func *f, const struct pmcfi_hbbp_edge *e, size_t ne)
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

/* Virtual entry (node n) and exit (n + 1) edges over the nreal real edges
 * of ed, appended at *ned (see pmcfi_hbbp_equiv_classes). w: scratch of
 * 2 (n + 2) entries; seen: n + 2. */
static int virtual_edges(size_t n, uint32_t (*ed)[2], size_t nreal, size_t *ned, uint32_t *w, uint8_t *seen)
{
	size_t nn = n + 2, ENTRY = n, EXIT = n + 1;
	int rc = 0;
	for (int dir = 0; !rc && dir < 2; dir++) {
		struct csr r = {0};
		rc = csr_build(nn, ed, nreal, dir, &r);
		for (size_t v = 0; !rc && v < n; v++)
			seen[v] = 0, w[v] = 0;
		for (size_t i = 0; !rc && i < nreal; i++)
			w[ed[i][!dir]]++; /* real predecessors (dir 0) or successors (dir 1) */
		for (size_t v = 0; !rc && v < n; v++)
			if (!w[v]) {
				ed[*ned][dir] = (uint32_t)(dir ? EXIT : ENTRY),
				ed[(*ned)++][!dir] = (uint32_t)v;
				reach(&r, (uint32_t)v, seen, w + nn);
			}
		for (size_t k = 0; !rc && k < n; k++) {
			size_t v = dir ? n - 1 - k : k; /* entry to the first, exit from the last */
			if (!seen[v]) {
				ed[*ned][dir] = (uint32_t)(dir ? EXIT : ENTRY),
				ed[(*ned)++][!dir] = (uint32_t)v;
				reach(&r, (uint32_t)v, seen, w + nn);
			}
		}
		free(r.off);
		free(r.adj);
	}
	return rc;
}

/* B post-dominates A when B is an ancestor of A in the tree of immediate
 * post-dominators (ipdom, root exit): preorder intervals of that tree,
 * pre[] and last[] (the highest preorder number below a node). te: room
 * for nn edges; scratch: 3 nn entries, last[] its first nn. */
static int postdom_intervals(size_t nn, size_t exit, const uint32_t *ipdom, uint32_t (*te)[2], uint32_t *pre,
			     uint32_t *scratch)
{
	size_t nt = 0;
	for (size_t v = 0; v < nn; v++)
		if (v != exit && ipdom[v] < nn)
			te[nt][0] = ipdom[v], te[nt++][1] = (uint32_t)v;
	struct csr t = {0};
	int rc = csr_build(nn, te, nt, 0, &t);
	uint32_t *last = scratch, *stack = scratch + nn, *next = scratch + 2 * nn;
	size_t sp = 0;
	uint32_t clock = 0;
	for (size_t v = 0; !rc && v < nn; v++)
		pre[v] = last[v] = UINT32_MAX, next[v] = t.off[v];
	if (!rc)
		pre[exit] = clock++, stack[sp++] = (uint32_t)exit;
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
	return rc;
}

/* Innermost natural loop of each node (header h of back edges u -> h, h
 * dominating u; body: what reaches u backwards without passing h): inner[v]
 * its header, and for a header lpr[h] the header of the loop around its
 * own (UINT32_MAX: none). p: predecessors; w: scratch of 4 nn entries. */
static void natural_loops(size_t n, size_t nn, const struct csr *pg, const uint32_t *idom, uint32_t *inner,
			  uint32_t *lpr, uint32_t *w)
{
	const struct csr p = *pg;
	uint32_t *best = w, *stamp = w + nn, *bst = w + 2 * nn, *lsize = w + 3 * nn;
	for (size_t v = 0; v < nn; v++)
		inner[v] = best[v] = stamp[v] = UINT32_MAX;
	for (size_t v = 0; v < nn; v++)
		lsize[v] = lpr[v] = UINT32_MAX;
	for (int pass = 0; pass < 2; pass++) {
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
}

/* Once per iteration (once[] bit 0): v's innermost loop is h and v
 * dominates every latch of h (u -> h, u in the loop), so every iteration
 * that goes round runs v exactly once, whatever the loop's exits. Bit 1: a
 * nested loop's header entered once per iteration of the loop around it
 * (every entry edge from a block that runs once per iteration of that
 * loop: its preheader); bit 2: by one such edge. */
static void once_flags(size_t n, const struct csr *pg, const uint32_t *idom, const uint32_t *inner,
		       const uint32_t *lpr, const uint32_t *blk, uint8_t *once)
{
	const struct csr p = *pg;
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
int pmcfi_hbbp_equiv_classes(const struct pmcfi_hbbp_func *f, const struct pmcfi_hbbp_edge *e, size_t ne,
			     int all, uint32_t *cls, uint32_t *lp, uint32_t *lpar, uint8_t *once,
			     uint32_t *dom)
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
	uint32_t *w = malloc((12 * nn + 1) * sizeof(uint32_t));
	uint8_t *seen = malloc(nn + 1);
	struct csr g = {0}, p = {0};
	int rc = !ed || !w || !seen ? PMCF_ENOMEM : 0;
	for (size_t i = 0; !rc && i < ne; i++)
		if (id[e[i].from] != UINT32_MAX && id[e[i].to] != UINT32_MAX)
			ed[ned][0] = id[e[i].from], ed[ned++][1] = id[e[i].to];
	if (!rc) /* over the real edges only */
		rc = virtual_edges(n, ed, ned, &ned, w, seen);
	if (!rc)
		rc = csr_build(nn, ed, ned, 0, &g);
	if (!rc)
		rc = csr_build(nn, ed, ned, 1, &p);
	uint32_t *idom = w, *ipdom = w + nn, *pre = w + 2 * nn, *scratch = w + 3 * nn, *last = scratch;
	uint32_t *inner = w + 6 * nn, *lpr = w + 7 * nn;
	if (!rc) {
		dominators(nn, (uint32_t)ENTRY, &g, &p, idom, pre, scratch);
		dominators(nn, (uint32_t)EXIT, &p, &g, ipdom, pre, scratch);
		rc = postdom_intervals(nn, EXIT, ipdom, ed, pre,
				       scratch); /* the tree's edges replace the graph's */
	}
	if (!rc) {
		/* blocks of one loop nest level only are equivalent (a preheader
		 * dominates its loop's header, which post-dominates it) */
		natural_loops(n, nn, &p, idom, inner, lpr, w + 8 * nn);
		for (size_t v = 0; v < n; v++) {
			lp[blk[v]] = inner[v] < n ? blk[inner[v]] : UINT32_MAX;
			lpar[blk[v]] = lpr[v] < n ? blk[lpr[v]] : UINT32_MAX;
			if (dom)
				dom[blk[v]] = idom[v] < n ? blk[idom[v]] : UINT32_MAX;
		}
		if (once)
			once_flags(n, &p, idom, inner, lpr, blk, once);
		uint32_t *par = ipdom; /* A's post-dominators are no longer needed */
		for (size_t v = 0; v < n; v++)
			par[v] = (uint32_t)v;
		for (size_t v = 0; v < n; v++)
			for (uint32_t a = idom[v]; a < n; a = idom[a])
				if (pre[v] != UINT32_MAX && pre[a] >= pre[v] && pre[a] <= last[v] &&
				    inner[a] == inner[v]) {
					uint32_t ra = uf_find(par, a), rv = uf_find(par, (uint32_t)v);
					par[ra > rv ? ra : rv] = ra < rv ? ra : rv;
				}
		for (size_t v = 0; v < n; v++)
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

int pmcfi_hbbp_decode_ins(const ZydisDecoder *dec, const struct pmcfi_hbbp_func *f, uint32_t i,
			  ZydisDecodedInstruction *d, ZydisDecodedOperand *op)
{
	const struct pmcfi_hbbp_ins *in = &f->ins[i];
	return ZYAN_SUCCESS(ZydisDecoderDecodeFull(dec, f->bytes + (in->addr - f->start), in->len, d, op))
		       ? 0
		       : -1;
}

/* Successors of block b in f (fall-through, direct branch): 0 to 2; -1 for
 * a way out that is not a block of f (return, indirect or outside jump). */
int pmcfi_hbbp_block_succ(const ZydisDecoder *dec, const struct pmcfi_hbbp_func *f, uint32_t b, long succ[2])
{
	const struct pmcfi_hbbp_block *bl = &f->blocks[b];
	const struct pmcfi_hbbp_ins *last = &f->ins[bl->first + bl->n - 1];
	int n = 0, falls = 1;
	if (last->flags & INS_CF) {
		ZydisDecodedInstruction d;
		ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
		if (pmcfi_hbbp_decode_ins(dec, f, bl->first + bl->n - 1, &d, op))
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

/* Is block b inside the loop headed by h (its own loop or a nested one)? */
int pmcfi_hbbp_in_loop(const uint32_t *lp, const uint32_t *lpar, uint32_t b, uint32_t h)
{
	for (uint32_t l = lp[b]; l != UINT32_MAX; l = lpar[l])
		if (l == h)
			return 1;
	return 0;
}

/* Does block w dominate block b (full graph; fdom: immediate dominators)? */
int pmcfi_hbbp_blk_dominated(const uint32_t *fdom, uint32_t b, uint32_t w)
{
	for (uint32_t x = b; x != UINT32_MAX; x = fdom[x])
		if (x == w)
			return 1;
	return 0;
}
