/* Behaviour Clustering: pairing inside the cells, by position or by label
 * (bc-label, bc-lgl) (bc_impl.h). */
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "combine/bc_impl.h"
#include "util/rng.h"
#include "util/abi.h"
#include "util/internal.h"

static inline uint32_t srt_id(const struct pmcfi_bc_grid *g, size_t x)
{
	const struct pmcfi_bc_skey *s = &g->w->srt[x];
	return g->cb ? s->h : g->w->lst[s->q];
}

/* The pair (XU at srt position a, XU at srt position b), a of T_prev. */
static inline void pair_at(struct pmcfi_bc_grid *g, size_t a, size_t b)
{
	struct pmcfi_bc_ws *w = g->w;
	g->pp[g->npairs] = srt_id(g, a);
	g->pc[g->npairs++] = srt_id(g, b);
	w->paired[w->srt[a].q] = w->paired[w->srt[b].q] = 1;
}

/* Label proximity of two XUs at srt positions: twice the length of their
 * first common ancestor, plus 1 when the labels are equal. */
static inline int64_t label_near(const struct pmcfi_bc_grid *g, size_t a, size_t b)
{
	uint32_t x = g->w->lst[g->w->srt[a].q], y = g->w->lst[g->w->srt[b].q];
	if (g->lt)
		return 2 * (int64_t)g->lt->tlen[pmcfi_cmb_lca(g->lt, g->node[x], g->node[y])] +
		       (g->node[x] == g->node[y]);
	size_t f = pmcfi_cmb_label_fca(g->lab[x], g->llen[x], g->lab[y], g->llen[y]);
	int eq = g->llen[x] == g->llen[y] && f == g->llen[x];
	return 2 * (int64_t)f + eq;
}

/* Merges the top group of the stack into the one below: opposite sides pair
 * head to head (the first in label order first), the rest stays below. */
static void group_merge(struct pmcfi_bc_grid *g, struct pmcfi_bc_lgroup *st, size_t *nst)
{
	struct pmcfi_bc_ws *w = g->w;
	struct pmcfi_bc_lgroup *b = &st[*nst - 2], *t = &st[*nst - 1];
	if (!t->cnt) {
	} else if (!b->cnt) {
		b->head = t->head, b->tail = t->tail, b->cnt = t->cnt, b->side = t->side;
	} else if (b->side == t->side) {
		w->lnext[b->tail] = t->head;
		b->tail = t->tail;
		b->cnt += t->cnt;
	} else {
		while (b->cnt && t->cnt) {
			if (b->side == 0)
				pair_at(g, b->head, t->head);
			else
				pair_at(g, t->head, b->head);
			b->head = w->lnext[b->head];
			t->head = w->lnext[t->head];
			b->cnt--;
			t->cnt--;
		}
		if (t->cnt)
			b->head = t->head, b->tail = t->tail, b->cnt = t->cnt, b->side = t->side;
	}
	(*nst)--;
}

/* bc-label's pairing inside one cell: srt[cs..m) of T_prev and srt[m..ce)
 * of T_cur, each in label order. Both are merged in label order; in that
 * order the first common ancestor of two XUs is the shallowest of those of
 * the neighbours between them, so a stack of subtrees (each holding the
 * unpaired XUs of one side) pairs bottom-up: equal labels first, then the
 * deepest common ancestor, the rest at the root, as bc would. O(cell size)
 * label comparisons; no allocation. */
static void label_pair_cell(struct pmcfi_bc_grid *g, size_t cs, size_t m, size_t ce)
{
	struct pmcfi_bc_ws *w = g->w;
	size_t a = cs, b = m, n = 0, nst = 0;
	while (a < m || b < ce) {
		int takea = b == ce;
		if (a < m && b < ce) {
			uint32_t x = w->lst[w->srt[a].q], y = w->lst[w->srt[b].q];
			takea = lab_cmp(g->lt, g->node, g->lab, g->llen, x, y) <= 0;
		}
		w->lseq[n++] = (uint32_t)(takea ? a++ : b++);
	}
	for (size_t q = 0; q < n; q++) {
		uint32_t x = w->lseq[q];
		int64_t h = q ? label_near(g, w->lseq[q - 1], x) : -1;
		while (nst >= 2 && w->lgrp[nst - 1].join > h)
			group_merge(g, w->lgrp, &nst);
		w->lnext[x] = UINT32_MAX;
		w->lgrp[nst++] = (struct pmcfi_bc_lgroup){h, x, x, 1, x >= m};
	}
	while (nst >= 2)
		group_merge(g, w->lgrp, &nst);
}

/* One cell, srt[cs..ce) with its T_prev XUs in [cs, m), of sort key key (a
 * leftover cell's key) and coordinates co (NULL: packed in the key, cb
 * bits each): the j-th XUs of the two sides pair (or by label, bc-label),
 * and the XUs left of the larger side make a leftover cell. Returns the
 * leftover ids so far (nleft before, plus this cell's). */
static inline size_t cell_pairs(struct pmcfi_bc_grid *g, size_t cs, size_t m, size_t ce, uint64_t key,
				const int32_t *co, size_t *ncell, size_t nleft)
{
	struct pmcfi_bc_ws *w = g->w;
	const struct pmcfi_bc_skey *s = w->srt;
	size_t k = g->k, np = m - cs, nc = ce - m, kp = np < nc ? np : nc;
	int bylabel = (g->lab || g->node) && kp;
	if (bylabel)
		label_pair_cell(g, cs, m, ce);
	else
		for (size_t j = 0; j < kp; j++)
			pair_at(g, cs + j, m + j);
	if (np == nc)
		return nleft;
	int side = np > nc ? 0 : 1;
	size_t from = side ? m : cs, to = side ? ce : m;
	size_t c = ncell[side]++;
	w->ckey[side][c] = key;
	w->cell[side][c] = (struct pmcfi_bc_lcell){key, (uint32_t)nleft, (uint32_t)(to - from - kp)};
	int32_t *cc = w->cco[side] + c * k;
	uint64_t mask = (1ull << g->cb) - 1;
	for (size_t e = 0; e < k; e++)
		cc[e] = co ? co[e] : (int32_t)((key >> ((k - 1 - e) * g->cb)) & mask);
	if (!bylabel)
		from += kp;
	for (size_t x = from; x < to; x++)
		if (!bylabel || !w->paired[s[x].q])
			w->litem[nleft++] = srt_id(g, x);
	return nleft;
}

/* Pairs inside the cells of srt[0..n) (Algorithm 3 lines 19-31): in each
 * cell, T_prev XUs first, both sides in the order of rem; the j-th of each
 * side form a pair. The leftovers of the larger side make a leftover cell. */
void pmcfi_bc_pair_cells(struct pmcfi_bc_grid *g, size_t n, size_t remp, unsigned hb, size_t *ncell)
{
	struct pmcfi_bc_ws *w = g->w;
	const struct pmcfi_bc_skey *s = w->srt;
	size_t k = g->k, nleft = 0;
	ncell[0] = ncell[1] = 0;
	for (size_t r = 0; r < n;) {
		size_t re = r + 1;
		while (re < n && s[re].key == s[r].key)
			re++;
		if (re - r > 1) { /* mostly one cell; else order it */
			const int32_t *c0 = w->ci + (size_t)s[r].q * k;
			size_t x = r + 1;
			while (x < re && s[x].h == s[r].h && co_cmp(w->ci + (size_t)s[x].q * k, c0, k) == 0)
				x++;
			if (x < re)
				pmcfi_bc_order_run(w->srt + r, re - r, w->ci, k);
		}
		for (size_t cs = r; cs < re;) {
			if (cs + PREFETCH < n) { /* srt is in cell order: ci, lst at random */
				__builtin_prefetch(w->ci + (size_t)s[cs + PREFETCH].q * k);
				__builtin_prefetch(w->lst + s[cs + PREFETCH].q);
			}
			const int32_t *co = w->ci + (size_t)s[cs].q * k;
			size_t ce = cs + 1, m = cs;
			while (ce < re && s[ce].h == s[cs].h &&
			       co_cmp(w->ci + (size_t)s[ce].q * k, co, k) == 0)
				ce++;
			while (m < ce && s[m].q < remp)
				m++;
			nleft = cell_pairs(g, cs, m, ce, s[cs].key >> hb, co, ncell, nleft);
			cs = ce;
		}
		r = re;
	}
}

/* pmcfi_bc_pair_cells() when the key is the cell (coords_lex): a run of equal keys is
 * a cell, T_prev first, both sides in the order of rem (the sort is
 * stable); the ids are in srt, the leftover cells' coordinates come from
 * their keys. */
void pmcfi_bc_pair_cells_lex(struct pmcfi_bc_grid *g, size_t n, size_t remp, size_t *ncell)
{
	struct pmcfi_bc_ws *w = g->w;
	const struct pmcfi_bc_skey *s = w->srt;
	size_t nleft = 0;
	ncell[0] = ncell[1] = 0;
	for (size_t cs = 0; cs < n;) {
		if (cs + PREFETCH < n) /* paired is written at random */
			__builtin_prefetch(w->paired + s[cs + PREFETCH].q, 1);
		uint64_t key = s[cs].key;
		size_t ce = cs + 1, m = cs;
		while (ce < n && s[ce].key == key)
			ce++;
		while (m < ce && s[m].q < remp)
			m++;
		nleft = cell_pairs(g, cs, m, ce, key, NULL, ncell, nleft);
		cs = ce;
	}
}

int pmcfi_cmb_bc_all_active;
