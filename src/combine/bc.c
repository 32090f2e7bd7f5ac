/* Behaviour Clustering (fuse-task-parallel §3.2, Algorithms 3-4;
 * fuse-openmp §3): profiles are folded in order; at each step, per XU type,
 * XUs of the fused-so-far profile (T_prev) and of the next profile (T_cur)
 * are clustered on a grid over their overlapping events E_com and paired
 * inside each cell, the grid division d going from dmax down to 1 with the
 * paper's relaxation between iterations. Only occupied cells exist: each
 * iteration radix-sorts the XUs by their cell coordinates packed into one
 * 64-bit key (or, when k of them do not fit, by the sum of the coordinates
 * and a hash), which groups them into cells and orders the cells for the
 * relaxation's search; d^|E_com| cells are never enumerated. */
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "combine/combine_impl.h"
#include "util/rng.h"
#include "util/abi.h"
#include "util/internal.h"

/* Largest grid division: cells finer than 2^20 per dimension separate
 * nothing that exact ties do not (and keep coordinates in 32 bits). */
#define DMAX_CAP (1u << 20)
/* Cells with more XUs than this sharing one key are ordered by qsort. */
#define SMALL_RUN 24
/* Loops that read at random positions known ahead prefetch this many
 * elements ahead (the results do not depend on it). */
#define PREFETCH 16

struct skey {
	uint64_t key; /* sum of the cell coordinates (the sweep axis), then hb
		       * bits of h: sorting by it groups the XUs by cell */
	uint32_t q;   /* position in rem */
	uint32_t h;   /* hash of the cell coordinates */
};

/* A cell with leftover XUs of one side after the pairing of an iteration. */
struct lcell {
	uint64_t key;
	uint32_t start, cnt; /* their ids: litem[start .. start+cnt) */
};

/* Workspace of one step, sized for its largest type and reused by every
 * type and every iteration (no allocation inside the iterations). */
struct ws {
	size_t cap, kcap;
	struct cmbi_rx *rem;     /* remaining ids: T_prev then T_cur */
	uint32_t *lst;           /* the remaining ids gridded this iteration */
	double *u, *lb;          /* per id: (value - min) / range, k each; the bound */
	double *pts;             /* lower_bounds: s and u, k + 1 each */
	int32_t *ci;             /* cell coordinates of lst[q]: ci[q * k ..] */
	struct skey *srt, *stmp; /* lst positions sorted by cell */
	uint8_t *paired;         /* per position in lst: paired this iteration (n + 1) */
	uint32_t *litem;         /* leftover ids, cell by cell */
	struct lcell *cell[2];   /* leftover cells of T_prev, T_cur, by key */
	uint64_t *ckey[2];       /* their keys, contiguous for the sweep */
	int32_t *cco[2];         /* their coordinates, k each */
	uint32_t *tie;           /* closest pairs of cells: (prev cell, cur cell) */
	size_t tcap;
	uint64_t *bits, *btmp;   /* calc_max_div: sortable bits of the values */
	struct spos *sp, *sptmp; /* reduced_div: the XUs of two cells by position */
	uint32_t *vslot;         /* distinct_values: hash table, up to 4n */
	double *usum;            /* per id: sum of its u, -1 with a missing value */
	uint32_t *dv;            /* per id: the first id with the same values */
	uint32_t *stamp, epoch;  /* per dv: positions() call that last took it */
	/* bc-label's pairing inside a cell (label_pair_cell), by srt position:
	 * the cell's XUs merged in label order, the next XU of a group's list,
	 * and the stack of groups */
	uint32_t *lseq, *lnext;
	struct lgroup *lgrp;
};

/* A subtree of the label order: its unpaired XUs (all of one side) as a
 * list through lnext, and the depth at which it joins the group below it. */
struct lgroup {
	int64_t join;
	uint32_t head, tail, cnt;
	int side; /* 0: T_prev, 1: T_cur */
};

/* An XU and its position along the diagonal, s = d * sum of u. */
struct spos {
	double s;
	uint32_t id;
};

/* One step for one type. */
struct grid {
	size_t k; /* dimensions: overlapping events with a range > 0 */
	size_t np, nc;
	const double *v; /* (np + nc) x k values */
	double *lo, *range;
	uint32_t *rank;   /* per id */
	const char **lab; /* per id: its label (bc-label) */
	const uint32_t *llen;
	const struct cmbi_ltree *lt; /* the label tree (c->lt), or NULL */
	const uint32_t *node;        /* per id: its label's node (bc-label, lt) */
	int strategy;
	struct pmcfi_rng rng;
	struct ws *w;
	/* output: pairs (prev id, cur id) */
	uint32_t *pp, *pc;
	size_t npairs;
	size_t iterations;
	unsigned dmax;
	/* this grid pass: cb > 0 when the cell coordinates, cb bits each (c_0
	 * most significant), are the sort key itself (k cb < 64); else 0 and
	 * the key is their sum and hash bits */
	unsigned cb, d;
};

static void ws_free(struct ws *w)
{
	free(w->rem);
	free(w->lst);
	free(w->u);
	free(w->lb);
	free(w->pts);
	free(w->ci);
	free(w->srt);
	free(w->stmp);
	free(w->paired);
	free(w->litem);
	for (int s = 0; s < 2; s++) {
		free(w->cell[s]);
		free(w->ckey[s]);
		free(w->cco[s]);
	}
	free(w->tie);
	free(w->bits);
	free(w->btmp);
	free(w->sp);
	free(w->sptmp);
	free(w->vslot);
	free(w->usum);
	free(w->dv);
	free(w->stamp);
	free(w->lseq);
	free(w->lnext);
	free(w->lgrp);
	memset(w, 0, sizeof(*w));
}

static int ws_init(struct ws *w, size_t n, size_t k, int bylabel)
{
	memset(w, 0, sizeof(*w));
	n = n ? n : 1;
	k = k ? k : 1;
	w->cap = n;
	w->kcap = k;
	w->rem = malloc(n * sizeof(*w->rem));
	w->lst = malloc(n * sizeof(*w->lst));
	w->u = malloc(n * k * sizeof(*w->u));
	w->lb = malloc(n * sizeof(*w->lb));
	w->pts = malloc(n * (k + 1) * sizeof(*w->pts));
	w->ci = malloc(n * k * sizeof(*w->ci));
	w->srt = malloc(n * sizeof(*w->srt));
	w->stmp = malloc(n * sizeof(*w->stmp));
	w->paired = calloc(n + 1, 1);
	w->litem = malloc(n * sizeof(*w->litem));
	int ok = w->rem && w->lst && w->u && w->lb && w->pts && w->ci && w->srt && w->stmp && w->paired &&
		 w->litem;
	for (int s = 0; s < 2; s++) {
		w->cell[s] = malloc(n * sizeof(*w->cell[s]));
		w->ckey[s] = malloc(n * sizeof(*w->ckey[s]));
		w->cco[s] = malloc(n * k * sizeof(*w->cco[s]));
		ok = ok && w->cell[s] && w->ckey[s] && w->cco[s];
	}
	w->tcap = 64;
	w->tie = malloc(2 * w->tcap * sizeof(*w->tie));
	w->bits = malloc(n * sizeof(*w->bits));
	w->btmp = malloc(n * sizeof(*w->btmp));
	w->sp = malloc(n * sizeof(*w->sp));
	w->sptmp = malloc(n * sizeof(*w->sptmp));
	w->vslot = malloc(4 * n * sizeof(*w->vslot));
	w->usum = malloc(n * sizeof(*w->usum));
	w->dv = malloc(n * sizeof(*w->dv));
	w->stamp = calloc(n, sizeof(*w->stamp));
	if (bylabel) {
		w->lseq = malloc(n * sizeof(*w->lseq));
		w->lnext = malloc(n * sizeof(*w->lnext));
		w->lgrp = malloc(n * sizeof(*w->lgrp));
		ok = ok && w->lseq && w->lnext && w->lgrp;
	}
	if (!ok || !w->tie || !w->bits || !w->btmp || !w->sp || !w->sptmp || !w->vslot || !w->usum ||
	    !w->dv || !w->stamp) {
		ws_free(w);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory clustering XUs");
	}
	return 0;
}

/* ---- sorting ------------------------------------------------------------------- */

/* Doubles as unsigned integers in the same order. */
static inline uint64_t f64_bits(double x)
{
	uint64_t u;
	memcpy(&u, &x, sizeof(u));
	return (u >> 63) ? ~u : u | (1ull << 63);
}

static inline double bits_f64(uint64_t u)
{
	u = (u >> 63) ? u & ~(1ull << 63) : ~u;
	double x;
	memcpy(&x, &u, sizeof(x));
	return x;
}

/* One radix pass's digit counts c[0..r) -> start offsets; 0 (c unchanged)
 * when every one of the n keys has digit first's value: the pass is skipped. */
static int digit_offsets(uint32_t *c, size_t r, size_t n, size_t first)
{
	if (c[first] == n)
		return 0;
	uint32_t sum = 0;
	for (size_t b = 0; b < r; b++) {
		uint32_t t = c[b];
		c[b] = sum;
		sum += t;
	}
	return 1;
}

/* LSD radix sort of a[0..n) (11 bits a pass; a pass in which every key has
 * the same digit is skipped). */
static void radix_u64(uint64_t *a, uint64_t *tmp, size_t n)
{
	enum { B = 11, R = 1 << B, P = 6 };
	uint32_t cnt[P][R];
	memset(cnt, 0, sizeof(cnt));
	for (size_t q = 0; q < n; q++)
		for (int p = 0; p < P; p++)
			cnt[p][(a[q] >> (p * B)) & (R - 1)]++;
	uint64_t *src = a, *dst = tmp;
	for (int p = 0; p < P; p++) {
		uint32_t *c = cnt[p];
		if (!n || !digit_offsets(c, R, n, (a[0] >> (p * B)) & (R - 1)))
			continue;
		for (size_t q = 0; q < n; q++)
			dst[c[(src[q] >> (p * B)) & (R - 1)]++] = src[q];
		uint64_t *t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
}

/* Stable LSD radix sort of s[0..n) by key (< 2^bits): the digit counts of
 * every pass in one read, 11 bits a pass, a pass in which every key has the
 * same digit skipped. */
static void radix_keys(struct skey *s, struct skey *tmp, size_t n, unsigned bits)
{
	enum { B = 11, R = 1 << B, P = 6 };
	unsigned np = (bits + B - 1) / B;
	np = np > P ? P : np;
	if (n < 2 || !np)
		return;
	uint32_t cnt[P][R];
	memset(cnt, 0, np * sizeof(cnt[0]));
	for (size_t q = 0; q < n; q++) {
		uint64_t key = s[q].key;
		for (unsigned p = 0; p < np; p++)
			cnt[p][(key >> (p * B)) & (R - 1)]++;
	}
	struct skey *src = s, *dst = tmp;
	for (unsigned p = 0; p < np; p++) {
		unsigned sh = p * B;
		if (!digit_offsets(cnt[p], R, n, (s[0].key >> sh) & (R - 1)))
			continue;
		uint32_t *c = cnt[p];
		for (size_t q = 0; q < n; q++)
			dst[c[(src[q].key >> sh) & (R - 1)]++] = src[q];
		struct skey *t = src;
		src = dst;
		dst = t;
	}
	if (src != s)
		memcpy(s, src, n * sizeof(*s));
}

static int co_cmp(const int32_t *a, const int32_t *b, size_t k)
{
	for (size_t e = 0; e < k; e++)
		if (a[e] != b[e])
			return a[e] < b[e] ? -1 : 1;
	return 0;
}

struct co_ctx {
	const int32_t *ci;
	size_t k;
};

/* (hash, coordinates, position): the coordinates are read only on equal
 * hashes, mostly XUs of one cell. */
static int cmp_skey_co(const void *a, const void *b, void *ctx)
{
	const struct co_ctx *C = ctx;
	const struct skey *x = a, *y = b;
	if (x->h != y->h)
		return x->h < y->h ? -1 : 1;
	int r = co_cmp(C->ci + (size_t)x->q * C->k, C->ci + (size_t)y->q * C->k, C->k);
	return r ? r : (x->q > y->q) - (x->q < y->q);
}

/* Orders a run of XUs with one key so that cells become contiguous, each
 * keeping the order of rem. */
static void order_run(struct skey *s, size_t n, const int32_t *ci, size_t k)
{
	struct co_ctx C = {ci, k};
	if (n > SMALL_RUN) {
		qsort_r(s, n, sizeof(*s), cmp_skey_co, &C);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		struct skey t = s[i];
		size_t j = i;
		while (j > 0 && cmp_skey_co(&s[j - 1], &t, &C) > 0) {
			s[j] = s[j - 1];
			j--;
		}
		s[j] = t;
	}
}

/* ---- the grid ------------------------------------------------------------------ */

/* calc_max_div (§3.2): per overlapping event, the smallest difference
 * between an XU of T_prev and one of T_cur, as a grid division
 * range / difference; dmax is the smallest of these. Both sides are sorted
 * (radix) and merged; missing values take no part. */
static unsigned calc_max_div(const struct grid *g)
{
	struct ws *w = g->w;
	double dmax = DMAX_CAP;
	for (size_t e = 0; e < g->k; e++) {
		size_t na = 0, nb = 0;
		for (size_t i = 0; i < g->np; i++) {
			double x = g->v[i * g->k + e];
			if (!pmcf_is_missing(x))
				w->bits[na++] = f64_bits(x);
		}
		uint64_t *b = w->bits + na;
		for (size_t i = 0; i < g->nc; i++) {
			double x = g->v[(g->np + i) * g->k + e];
			if (!pmcf_is_missing(x))
				b[nb++] = f64_bits(x);
		}
		radix_u64(w->bits, w->btmp, na);
		radix_u64(b, w->btmp, nb);
		double best = INFINITY;
		for (size_t i = 0, j = 0; i < na && j < nb;) {
			double x = bits_f64(w->bits[i]), y = bits_f64(b[j]);
			double dd = fabs(x - y);
			if (dd < best)
				best = dd;
			if (x < y)
				i++;
			else
				j++;
		}
		if (best > 0 && g->range[e] / best < dmax)
			dmax = g->range[e] / best;
	}
	return dmax < 1 ? 1u : (unsigned)dmax;
}

/* Cell coordinates of rem[0..n) on the grid of division d (tasks_in_cluster,
 * Algorithm 3: cell c[e] holds values in [min + size c[e], min + size
 * (c[e] + 1)), the maximum in the last cell); srt gets (key, position). */
static void coords(const struct grid *g, size_t n, unsigned d, unsigned hb)
{
	struct ws *w = g->w;
	for (size_t q = 0; q < n; q++) {
		if (q + PREFETCH < n) /* lst is in rem order: u is read at random */
			__builtin_prefetch(w->u + (size_t)w->lst[q + PREFETCH] * g->k);
		const double *x = w->u + (size_t)w->lst[q] * g->k;
		int32_t *co = w->ci + q * g->k;
		uint64_t key = 0;
		uint32_t h = 2166136261u;
		for (size_t e = 0; e < g->k; e++) {
			double r = x[e] * d; /* u = (value - min) / range, 0 if missing */
			int32_t c = r < 0 ? 0 : r >= d ? (int32_t)d - 1 : (int32_t)r;
			co[e] = c;
			key += (uint32_t)c;
			h = (h ^ (uint32_t)c) * 16777619u;
		}
		h ^= h >> 15;
		key = hb ? key << hb | h >> (32 - hb) : key;
		w->srt[q] = (struct skey){key, (uint32_t)q, h};
	}
}

/* Bits that hold a cell coordinate (0 .. d - 1). */
static unsigned coord_bits(unsigned d)
{
	unsigned b = 0;
	while (b < 32 && ((uint64_t)(d - 1) >> b))
		b++;
	return b;
}

/* coords() when the coordinates fit the key: srt gets (c_0 .. c_k-1 packed
 * cb bits each, position, id); no hash, and ci is not written (pair_cells_lex
 * reads the coordinates back from the key). */
static void coords_lex(const struct grid *g, size_t n, unsigned d, unsigned cb)
{
	struct ws *w = g->w;
	for (size_t q = 0; q < n; q++) {
		if (q + PREFETCH < n)
			__builtin_prefetch(w->u + (size_t)w->lst[q + PREFETCH] * g->k);
		uint32_t id = w->lst[q];
		const double *x = w->u + (size_t)id * g->k;
		uint64_t key = 0;
		for (size_t e = 0; e < g->k; e++) {
			double r = x[e] * d;
			uint64_t c = r < 0 ? 0 : r >= d ? d - 1 : (uint64_t)r;
			key = key << cb | c;
		}
		w->srt[q] = (struct skey){key, (uint32_t)q, id};
	}
}

/* Squared distance of two XUs in grid divisions (§3.2 relaxation). */
static double xu_dist2(const struct grid *g, uint32_t a, uint32_t b, unsigned d)
{
	double s = 0;
	for (size_t e = 0; e < g->k; e++) {
		double x = g->v[(size_t)a * g->k + e], y = g->v[(size_t)b * g->k + e];
		if (pmcf_is_missing(x) || pmcf_is_missing(y))
			continue;
		double dd = (x - y) / g->range[e] * d;
		s += dd * dd;
	}
	return s;
}

static inline int64_t co_dist2(const int32_t *a, const int32_t *b, size_t k)
{
	int64_t s = 0;
	for (size_t e = 0; e < k; e++) {
		int64_t dd = (int64_t)a[e] - b[e];
		s += dd * dd;
	}
	return s;
}

/* floor(sqrt(x)) */
static uint64_t isqrt_u64(uint64_t x)
{
	uint64_t r = (uint64_t)sqrt((double)x);
	while (r > 0 && r * r > x)
		r--;
	while ((r + 1) * (r + 1) <= x)
		r++;
	return r;
}

static int tie_add(struct ws *w, size_t *nt, size_t a, size_t b)
{
	/* (a, b) pairs */
	if (pmcfi_grow((void **)&w->tie, &w->tcap, *nt + 1, 2 * sizeof(*w->tie)))
		return pmcfi_fail(PMCF_ENOMEM, "out of memory clustering XUs");
	w->tie[2 * *nt] = (uint32_t)a;
	w->tie[2 * *nt + 1] = (uint32_t)b;
	(*nt)++;
	return 0;
}

int pmcfi_cmb_bc_all_pairs;

/* One merge of lex_neighbours: the pairs (x[i], y[j]) with y[j] = x[i] +
 * one whose coordinate at sh is below top (else the unit carries into the
 * next field), added as (i, j) or, with swap, (j, i). x[i] + one is in
 * order, both lists hold distinct keys: branch-free steps. */
static int merge_units(struct ws *w, size_t *nt, const uint64_t *x, size_t nx, const uint64_t *y, size_t ny,
		       unsigned sh, uint64_t mask, uint64_t top, int swap)
{
	uint64_t one = 1ull << sh;
	for (size_t i = 0, j = 0; i < nx && j < ny;) {
		uint64_t t = x[i] + one, v = y[j];
		if (t == v && ((x[i] >> sh) & mask) < top) {
			int err = swap ? tie_add(w, nt, j, i) : tie_add(w, nt, i, j);
			if (err)
				return err;
		}
		i += t <= v;
		j += v <= t;
	}
	return 0;
}

/* With the coordinates as keys (cb > 0, k cb < 64): the pairs of leftover
 * cells at distance 1, i.e. keys that differ by one unit of one coordinate:
 * per coordinate, T_prev keys plus the unit merged with T_cur keys and T_cur
 * keys plus the unit with T_prev keys; 2k merges, O(k (na + nb)) sequential
 * reads. */
static int lex_neighbours(const struct grid *g, size_t na, size_t nb, size_t *ntp)
{
	struct ws *w = g->w;
	size_t k = g->k, nt = 0;
	unsigned cb = g->cb;
	uint64_t mask = (1ull << cb) - 1, top = g->d - 1;
	for (size_t e = 0; e < k; e++) {
		unsigned sh = (unsigned)(k - 1 - e) * cb;
		int err = merge_units(w, &nt, w->ckey[0], na, w->ckey[1], nb, sh, mask, top, 0);
		if (!err)
			err = merge_units(w, &nt, w->ckey[1], nb, w->ckey[0], na, sh, mask, top, 1);
		if (err)
			return err;
	}
	*ntp = nt;
	return 0;
}

/* calc_reduced_div (§3.2): the closest pairs of leftover cells (Euclidean
 * distance of their integer coordinates, one holding T_prev XUs, the other
 * T_cur XUs), then the closest cross pair of XUs between them, in grid
 * divisions (m); the next cells are (1 + m) times as large. Exact: cells
 * of each side come sorted along an axis (the sum of their coordinates
 * with hash keys, c_0 with coordinate keys), and a pair farther apart than
 * sqrt(kk * best) along it (kk = k for the sum, 1 for c_0) cannot be at
 * distance best (|sum a - sum b|^2 <= k |a - b|^2), so each T_prev cell is
 * compared only with the T_cur cells inside that window; with coordinate
 * keys, pairs at distance 1 (the usual best) are found by merges first. (k best <= k^2 2^40 stays
 * within 64 bits for k < 4096 overlapping events.) */
static int closest_cells(const struct grid *g, size_t na, size_t nb, int64_t *bestp, size_t *ntp)
{
	struct ws *w = g->w;
	if (g->cb && !pmcfi_cmb_bc_all_pairs) { /* a leftover cell is never at distance 0 */
		int err = lex_neighbours(g, na, nb, ntp);
		if (err || *ntp) {
			*bestp = 1;
			return err;
		}
	}
	const struct lcell *A = w->cell[0];
	const int32_t *ca = w->cco[0], *cb = w->cco[1];
	size_t k = g->k;
	/* the sweep axis: the sum of the coordinates (hash keys), or c_0
	 * (coordinate keys; |c_0 a - c_0 b|^2 <= |a - b|^2) */
	unsigned ssh = g->cb ? (unsigned)(k - 1) * g->cb : 0;
	int64_t kk = g->cb ? 1 : (int64_t)(k ? k : 1);
	/* a first bound: some T_prev cells against their neighbours in key
	 * order (the sweep finds the exact minimum from there) */
	int64_t best = INT64_MAX;
	const uint64_t *bk = w->ckey[1];
	for (size_t a = 0, step = na / 64 + 1; a < na; a += step) {
		size_t b = 0, hi = nb;
		while (b < hi) { /* first B cell with key >= A[a].key */
			size_t mid = b + (hi - b) / 2;
			if (bk[mid] < A[a].key)
				b = mid + 1;
			else
				hi = mid;
		}
		if (b < nb) {
			int64_t dd = co_dist2(ca + a * k, cb + b * k, k);
			best = dd < best ? dd : best;
		}
		if (b > 0) {
			int64_t dd = co_dist2(ca + a * k, cb + (b - 1) * k, k);
			best = dd < best ? dd : best;
		}
	}
	/* the sweep: every pair at distance <= best is looked at; the key
	 * window is |key a - key b| <= win = floor(sqrt(k best)) */
	size_t nt = 0, lo = 0, hi = 0;
	uint64_t win = isqrt_u64((uint64_t)kk * (uint64_t)best);
	for (size_t a = 0; a < na; a++) {
		const int32_t *x = ca + a * k;
		uint64_t key = A[a].key >> ssh;
		while (lo < nb && (bk[lo] >> ssh) + win < key)
			lo++;
		if (best == 1 && !pmcfi_cmb_bc_all_pairs && !g->cb) {
			/* Two cells at distance 1 differ by 1 in one coordinate, so
			 * their keys differ by exactly 1; a cell of the other side
			 * with the same key is at distance 2 or more (the same
			 * coordinates would make it the same cell, and a leftover cell
			 * holds one side only). So only keys key - 1 and key + 1 are
			 * looked at: the same pairs at distance 1, in the same order. */
			while (hi < nb && bk[hi] <= key)
				hi++;
			for (size_t b = lo; b < hi && bk[b] < key; b++)
				if (bk[b] + 1 == key && co_dist2(x, cb + b * k, k) == 1) {
					int err = tie_add(w, &nt, a, b);
					if (err)
						return err;
				}
			for (size_t b = hi; b < nb && bk[b] == key + 1; b++)
				if (co_dist2(x, cb + b * k, k) == 1) {
					int err = tie_add(w, &nt, a, b);
					if (err)
						return err;
				}
			continue;
		}
		for (size_t b = lo; b < nb && (bk[b] >> ssh) <= key + win; b++) {
			int64_t dd = co_dist2(x, cb + b * k, k);
			if (dd > best)
				continue;
			if (dd < best) {
				best = dd;
				nt = 0;
				win = isqrt_u64((uint64_t)kk * (uint64_t)best);
			}
			int err = tie_add(w, &nt, a, b);
			if (err)
				return err;
		}
	}
	*bestp = best;
	*ntp = nt;
	return 0;
}

/* Cells this small are compared pair by pair. */
#define SMALL_PAIRS 256

static int cmp_spos(const void *a, const void *b)
{
	const struct spos *x = a, *y = b;
	if (x->s != y->s)
		return x->s < y->s ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

/* Sorts sp[0..n) by s (>= 0): LSD radix on its bits, 11 a pass, a pass in
 * which every key has the same digit skipped; qsort when n is small. */
static void sort_spos(struct spos *sp, struct spos *tmp, size_t n)
{
	enum { B = 11, R = 1 << B, P = 6, SMALL = 64 };
	if (n < SMALL) {
		qsort(sp, n, sizeof(*sp), cmp_spos);
		return;
	}
	uint32_t cnt[P][R];
	memset(cnt, 0, sizeof(cnt));
	for (size_t q = 0; q < n; q++) {
		uint64_t b = f64_bits(sp[q].s);
		for (int p = 0; p < P; p++)
			cnt[p][(b >> (p * B)) & (R - 1)]++;
	}
	struct spos *src = sp, *dst = tmp;
	uint64_t b0 = f64_bits(sp[0].s);
	for (int p = 0; p < P; p++) {
		uint32_t *c = cnt[p];
		if (!digit_offsets(c, R, n, (b0 >> (p * B)) & (R - 1)))
			continue;
		for (size_t q = 0; q < n; q++)
			dst[c[(f64_bits(src[q].s) >> (p * B)) & (R - 1)]++] = src[q];
		struct spos *t = src;
		src = dst;
		dst = t;
	}
	if (src != sp)
		memcpy(sp, src, n * sizeof(*sp));
}

static inline uint64_t vec_hash(const double *v, size_t k)
{
	uint64_t h = 0x9e3779b97f4a7c15ull;
	for (size_t e = 0; e < k; e++) {
		uint64_t u;
		memcpy(&u, &v[e], sizeof(u));
		h = (h ^ u) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	return h;
}

/* Once per step and type, for positions(): w->usum and w->dv of ids
 * 0..n) (equal values found by hashing, so real counts full of repeats
 * cost linear time). */
static void distinct_values(const struct grid *g, size_t n)
{
	struct ws *w = g->w;
	size_t k = g->k, cap = 2;
	while (cap < 2 * n)
		cap *= 2;
	uint32_t *slot = w->vslot;
	memset(slot, 0xff, cap * sizeof(*slot));
	for (size_t id = 0; id < n; id++) {
		const double *v = g->v + id * k, *u = w->u + id * k;
		double sum = 0;
		w->dv[id] = (uint32_t)id;
		for (size_t e = 0; e < k && sum >= 0; e++)
			sum = pmcf_is_missing(v[e]) ? -1 : sum + u[e];
		w->usum[id] = sum;
		if (sum < 0)
			continue;
		size_t h = vec_hash(v, k) & (cap - 1);
		for (; slot[h] != UINT32_MAX; h = (h + 1) & (cap - 1))
			if (memcmp(g->v + (size_t)slot[h] * k, v, k * sizeof(double)) == 0)
				break;
		if (slot[h] != UINT32_MAX)
			w->dv[id] = slot[h];
		else
			slot[h] = (uint32_t)id;
	}
}

/* The XUs of leftover cell c at sp[0..), sorted by s, one of each set of
 * equal values (they are at the same distance from everything); returns how
 * many, or 0 when one has a missing value (the metric then skips
 * dimensions, and s bounds nothing). */
static size_t positions(const struct grid *g, const struct lcell *c, unsigned d, struct spos *sp)
{
	struct ws *w = g->w;
	size_t m = 0;
	if (++w->epoch == 0) {
		memset(w->stamp, 0, w->cap * sizeof(*w->stamp));
		w->epoch = 1;
	}
	for (uint32_t x = 0; x < c->cnt; x++) {
		uint32_t id = w->litem[c->start + x];
		double sum = w->usum[id];
		if (sum < 0)
			return 0;
		if (w->stamp[w->dv[id]] == w->epoch)
			continue;
		w->stamp[w->dv[id]] = w->epoch;
		sp[m++] = (struct spos){sum * d, id};
	}
	sort_spos(sp, w->sptmp, m);
	return m;
}

/* The smallest xu_dist2 between an XU of cell p and one of cell c, or m2
 * when none is smaller. Exact without looking at every pair: with s = d *
 * sum of u, |s_a - s_b| <= sqrt(k) * (distance in grid divisions), so from
 * each XU of p the XUs of c are visited outwards in s until the gap alone
 * rules out anything below m2; eps covers the rounding of s (u in [0, 1],
 * s < k d). Ties and repeated values, which real counts are full of, are
 * compared once. Cells with a missing value are compared pair by pair. */
static double cells_min_dist2(const struct grid *g, const struct lcell *p, const struct lcell *c, unsigned d,
			      double m2)
{
	struct ws *w = g->w;
	size_t na = 0, nb = 0;
	if ((size_t)p->cnt * c->cnt > SMALL_PAIRS && !pmcfi_cmb_bc_all_pairs) {
		na = positions(g, p, d, w->sp);
		nb = na ? positions(g, c, d, w->sp + p->cnt) : 0;
	}
	if (!na || !nb) {
		for (uint32_t x = 0; x < p->cnt; x++)
			for (uint32_t y = 0; y < c->cnt; y++) {
				double dd = xu_dist2(g, w->litem[p->start + x], w->litem[c->start + y], d);
				if (dd < m2)
					m2 = dd;
			}
		return m2;
	}
	const struct spos *A = w->sp, *B = w->sp + p->cnt;
	double kk = (double)(g->k ? g->k : 1), eps = 1e-9 * (kk * d + 1);
	for (size_t i = 0, j = 0; i < na; i++) {
		double sa = A[i].s;
		while (j < nb && B[j].s < sa)
			j++;
		/* outwards from the nearest in s: left from j - 1, right from j */
		size_t l = j, r = j;
		for (;;) {
			double gl = l ? sa - B[l - 1].s : INFINITY, gr = r < nb ? B[r].s - sa : INFINITY;
			double gm = gl < gr ? gl : gr;
			if (gm == INFINITY || (gm > eps && (gm - eps) * (gm - eps) > kk * m2))
				break;
			uint32_t b = gl < gr ? B[--l].id : B[r++].id;
			double dd = xu_dist2(g, A[i].id, b, d);
			if (dd < m2)
				m2 = dd;
		}
	}
	return m2;
}

/* The relaxation from the closest pairs of cells: the next division. */
static unsigned reduced_div(const struct grid *g, size_t nt, unsigned d)
{
	const struct ws *w = g->w;
	const struct lcell *A = w->cell[0], *B = w->cell[1];
	double m2 = INFINITY;
	/* the ties' cells, their ids and the ids' values are read at random:
	 * each level is prefetched one step before the next needs it */
	for (size_t t = 0; t < nt; t++) {
		if (t + 3 * PREFETCH < nt) {
			__builtin_prefetch(&A[w->tie[2 * (t + 3 * PREFETCH)]]);
			__builtin_prefetch(&B[w->tie[2 * (t + 3 * PREFETCH) + 1]]);
		}
		if (t + 2 * PREFETCH < nt) {
			__builtin_prefetch(w->litem + A[w->tie[2 * (t + 2 * PREFETCH)]].start);
			__builtin_prefetch(w->litem + B[w->tie[2 * (t + 2 * PREFETCH) + 1]].start);
		}
		if (t + PREFETCH < nt) {
			const struct lcell *pa = &A[w->tie[2 * (t + PREFETCH)]],
					   *pb = &B[w->tie[2 * (t + PREFETCH) + 1]];
			__builtin_prefetch(g->v + (size_t)w->litem[pa->start] * g->k);
			__builtin_prefetch(g->v + (size_t)w->litem[pb->start] * g->k);
		}
		m2 = cells_min_dist2(g, &A[w->tie[2 * t]], &B[w->tie[2 * t + 1]], d, m2);
	}
	double next = isfinite(m2) ? floor((double)d / (1.0 + sqrt(m2))) : (double)d - 1;
	if (next >= d)
		next = (double)d - 1;
	return next < 1 ? 1u : (unsigned)next;
}

/* The XU at srt position x: its id travels in the sort record with
 * coordinate keys (h), else it is read from lst. */
static inline uint32_t srt_id(const struct grid *g, size_t x)
{
	const struct skey *s = &g->w->srt[x];
	return g->cb ? s->h : g->w->lst[s->q];
}

/* The pair (XU at srt position a, XU at srt position b), a of T_prev. */
static inline void pair_at(struct grid *g, size_t a, size_t b)
{
	struct ws *w = g->w;
	g->pp[g->npairs] = srt_id(g, a);
	g->pc[g->npairs++] = srt_id(g, b);
	w->paired[w->srt[a].q] = w->paired[w->srt[b].q] = 1;
}

/* pmcfi_cmb_label_cmp of the labels of ids x and y: their ranks in the label
 * tree lt (node: per id), else their texts (lab, len). */
static inline int lab_cmp(const struct cmbi_ltree *lt, const uint32_t *node, const char *const *lab,
			  const uint32_t *len, uint32_t x, uint32_t y)
{
	if (lt) {
		uint32_t a = lt->ord[node[x]], b = lt->ord[node[y]];
		return (a > b) - (a < b);
	}
	return pmcfi_cmb_label_cmp(lab[x], len[x], lab[y], len[y]);
}

/* Label proximity of two XUs at srt positions: twice the length of their
 * first common ancestor, plus 1 when the labels are equal. */
static inline int64_t label_near(const struct grid *g, size_t a, size_t b)
{
	uint32_t x = g->w->lst[g->w->srt[a].q], y = g->w->lst[g->w->srt[b].q];
	if (g->lt)
		return 2 * (int64_t)g->lt->tlen[cmbi_lca(g->lt, g->node[x], g->node[y])] +
		       (g->node[x] == g->node[y]);
	size_t f = pmcfi_cmb_label_fca(g->lab[x], g->llen[x], g->lab[y], g->llen[y]);
	int eq = g->llen[x] == g->llen[y] && f == g->llen[x];
	return 2 * (int64_t)f + eq;
}

/* Merges the top group of the stack into the one below: opposite sides pair
 * head to head (the first in label order first), the rest stays below. */
static void group_merge(struct grid *g, struct lgroup *st, size_t *nst)
{
	struct ws *w = g->w;
	struct lgroup *b = &st[*nst - 2], *t = &st[*nst - 1];
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
static void label_pair_cell(struct grid *g, size_t cs, size_t m, size_t ce)
{
	struct ws *w = g->w;
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
		w->lgrp[nst++] = (struct lgroup){h, x, x, 1, x >= m};
	}
	while (nst >= 2)
		group_merge(g, w->lgrp, &nst);
}

/* One cell, srt[cs..ce) with its T_prev XUs in [cs, m), of sort key key (a
 * leftover cell's key) and coordinates co (NULL: packed in the key, cb
 * bits each): the j-th XUs of the two sides pair (or by label, bc-label),
 * and the XUs left of the larger side make a leftover cell. Returns the
 * leftover ids so far (nleft before, plus this cell's). */
static inline size_t cell_pairs(struct grid *g, size_t cs, size_t m, size_t ce, uint64_t key,
				const int32_t *co, size_t *ncell, size_t nleft)
{
	struct ws *w = g->w;
	const struct skey *s = w->srt;
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
	w->cell[side][c] = (struct lcell){key, (uint32_t)nleft, (uint32_t)(to - from - kp)};
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
static void pair_cells(struct grid *g, size_t n, size_t remp, unsigned hb, size_t *ncell)
{
	struct ws *w = g->w;
	const struct skey *s = w->srt;
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
				order_run(w->srt + r, re - r, w->ci, k);
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

/* pair_cells() when the key is the cell (coords_lex): a run of equal keys is
 * a cell, T_prev first, both sides in the order of rem (the sort is
 * stable); the ids are in srt, the leftover cells' coordinates come from
 * their keys. */
static void pair_cells_lex(struct grid *g, size_t n, size_t remp, size_t *ncell)
{
	struct ws *w = g->w;
	const struct skey *s = w->srt;
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

/* ---- active XUs -------------------------------------------------------------- */

/* Most XUs are far from every XU of the other side for most of the
 * iterations (at d = 2^20 a cell is 2^-20 of the range). Such an XU cannot
 * change an iteration's result: with u = (value - min) / range, position
 * p = u d and cell c = floor(p) (the maximum in cell d - 1), |p - c| <= 1 per
 * dimension, so two XUs at distance L (in u) lie in cells at distance
 * >= L d - sqrt(k). Let lb_x <= the distance from x to every XU of the other
 * side, and call x active at (d, T) when lb_x d <= T + sqrt(k) + 1/100. An
 * inactive x has its cell at distance > T from every cell of the other
 * side, so
 * - x shares no cell with the other side: every cell that pairs holds only
 *   active XUs, in the same order, and pairs the same XUs;
 * - if the active XUs' closest leftover cells are at distance B <= T, every
 *   cell with only inactive XUs is farther than B from the other side: the
 *   closest pairs of cells are the same, and an inactive XU in one of them
 *   is at more than T + sqrt(k) + 1/100 (grid divisions) from every XU of
 *   the other side, while two active XUs of the pair are at most
 *   B + sqrt(k) apart: m is the same.
 * Each iteration therefore grids only the active XUs with T = 1 (no two
 * leftover cells are closer than 1); when their closest leftover cells are
 * farther than T (or one side has none), T grows to that distance and the
 * iteration's active XUs, paired already, are gridded again for the
 * relaxation. The margin 1/100 covers rounding (about 1e-9 grid divisions at
 * 2^20). Values that are missing in some dimension are not in u's metric:
 * then every XU is active, as before. */

/* Lower bounds of the distance (in u) from every XU to the nearest XU of the
 * other side: both sides sorted by s = sum of u (|s_a - s_b| <= sqrt(k) |a - b|);
 * each XU looks at up to LB_SCAN XUs of the other side nearest in s; the
 * bound is the nearest of them or, if more could be nearer, the gap in s to
 * the first not looked at over sqrt(k). */
#define LB_SCAN 16

static void lower_bounds(const struct grid *g, size_t n)
{
	struct ws *w = g->w;
	size_t k = g->k, k1 = k + 1;
	/* sorted by s quantised to 32 bits: floor is monotone, so an XU after
	 * (before) position i in the order has s >= s_i - qs (<= s_i + qs) */
	double scale = 4294967296.0 / (double)k, qs = 2.0 / scale;
	struct skey *S = w->srt;
	for (size_t q = 0; q < n; q++) {
		const double *x = w->u + q * k;
		double sum = 0;
		for (size_t e = 0; e < k; e++)
			sum += x[e];
		S[q] = (struct skey){(uint64_t)(sum * scale), (uint32_t)q, 0};
	}
	radix_keys(S, w->stmp, g->np, 33);
	radix_keys(S + g->np, w->stmp, g->nc, 33);
	/* s and u of each side in that order, contiguous */
	double *P = w->pts;
	for (size_t q = 0; q < n; q++) {
		if (q + PREFETCH < n)
			__builtin_prefetch(w->u + (size_t)S[q + PREFETCH].q * k);
		const double *x = w->u + (size_t)S[q].q * k;
		double *o = P + q * k1, sum = 0;
		for (size_t e = 0; e < k; e++) {
			o[1 + e] = x[e];
			sum += x[e];
		}
		o[0] = sum;
	}
	double sk = sqrt((double)k);
	for (int side = 0; side < 2; side++) {
		const double *A = side ? P + g->np * k1 : P, *B = side ? P : P + g->np * k1;
		const struct skey *SA = side ? S + g->np : S;
		size_t na = side ? g->nc : g->np, nb = side ? g->np : g->nc;
		for (size_t i = 0, j = 0; i < na; i++) {
			const double *xa = A + i * k1;
			double sa = xa[0];
			while (j < nb && B[j * k1] < sa)
				j++;
			while (j > 0 && B[(j - 1) * k1] >= sa)
				j--;
			size_t l = j, r = j;
			double best2 = INFINITY;
			double gl = l ? sa - B[(l - 1) * k1] - qs : INFINITY;
			double gr = r < nb ? B[r * k1] - sa - qs : INFINITY;
			for (int c = 0; c < LB_SCAN; c++) {
				double gm = gl < gr ? gl : gr;
				if (gm == INFINITY || (gm > 0 && gm * gm >= best2 * (double)k))
					break;
				size_t b = gl < gr ? --l : r++;
				const double *xb = B + b * k1;
				double d2 = 0;
				for (size_t e = 1; e <= k; e++)
					d2 += (xa[e] - xb[e]) * (xa[e] - xb[e]);
				best2 = d2 < best2 ? d2 : best2;
				if (b < j)
					gl = l ? sa - B[(l - 1) * k1] - qs : INFINITY;
				else
					gr = r < nb ? B[r * k1] - sa - qs : INFINITY;
			}
			double gm = gl < gr ? gl : gr, lb = sqrt(best2);
			if (gm / sk < lb)
				lb = gm > 0 ? gm / sk : 0;
			w->lb[SA[i].q] = lb;
		}
	}
}

/* The remaining XUs active under thr (rem order, T_prev first) into lst. */
static void select_active(const struct grid *g, size_t nrem, size_t remp, double thr, size_t *na, size_t *nap)
{
	struct ws *w = g->w;
	size_t m = 0;
	for (size_t q = 0; q < remp; q++) {
		w->lst[m] = w->rem[q].id;
		m += w->rem[q].lb <= thr;
	}
	*nap = m;
	for (size_t q = remp; q < nrem; q++) {
		w->lst[m] = w->rem[q].id;
		m += w->rem[q].lb <= thr;
	}
	*na = m;
}

/* The distance (in u) under which an XU is active at (d, T): XUs in cells
 * whose integer coordinates differ by D are less than sqrt(sum (|D_e| +
 * 1)^2) grid divisions apart, which is at most T + sqrt(k) for |D| <= T and,
 * for T = 1 (D a unit vector or 0), sqrt(k + 3). */
static double active_thr(int64_t T, size_t k, unsigned d)
{
	if (T >= (1 << 26))
		return INFINITY;
	double r = T == 1 ? sqrt((double)k + 3) : (double)T + sqrt((double)k);
	return (r + 0.01) / d;
}

/* Places lst[0..n) (np of T_prev first) in the cells of division d and pairs
 * inside them. */
int pmcfi_cmb_bc_grid_hash;

static void grid_pass(struct grid *g, size_t n, size_t np, unsigned d, size_t *ncell)
{
	unsigned cb = coord_bits(d);
	cb = cb ? cb : 1;
	g->d = d;
	if (!pmcfi_cmb_bc_grid_hash && g->k * cb < 64) {
		/* the coordinates are the key: cells are runs of equal keys */
		g->cb = cb;
		coords_lex(g, n, d, g->cb);
		radix_keys(g->w->srt, g->w->stmp, n, (unsigned)g->k * g->cb);
		pair_cells_lex(g, n, np, ncell);
		return;
	}
	g->cb = 0;
	/* sort key: the coordinate sum (< k d), then as many bits of the cell
	 * hash as fill three radix passes */
	unsigned kb = 0, hb;
	while (kb < 64 && ((uint64_t)g->k * (d - 1)) >> kb)
		kb++;
	hb = kb < 33 ? 33 - kb : 0;
	hb = hb > 32 ? 32 : hb;
	coords(g, n, d, hb);
	radix_keys(g->w->srt, g->w->stmp, n, kb + hb);
	pair_cells(g, n, np, hb, ncell);
}

/* Moves rem[from..to) down to rem[keep..), leaving out the XUs paired in
 * this iteration (the active ones, under thr, are lst[*m], lst[*m + 1], ...
 * in that order; their paired flags are cleared); returns keep + the number
 * kept. Without branches on the flags (half of the active XUs pair). */
static size_t drop_paired(struct ws *w, size_t from, size_t to, double thr, size_t *m, size_t keep)
{
	size_t mm = *m;
	for (size_t q = from; q < to; q++) {
		struct cmbi_rx r = w->rem[q];
		unsigned act = r.lb <= thr, gone = act & w->paired[mm]; /* paired has room for n + 1 */
		w->paired[mm] &= (uint8_t)!act;
		w->rem[keep] = r;
		keep += !gone;
		mm += act;
	}
	*m = mm;
	return keep;
}

/* The positions are drawn PREFETCH swaps ahead, in the same order, so that
 * r's random accesses are prefetched. */
void pmcfi_cmb_shuffle(struct pmcfi_rng *rng, struct cmbi_rx *r, size_t n)
{
	uint32_t ring[PREFETCH];
	for (size_t a = 0; a < PREFETCH && n > a + 1; a++) {
		ring[a] = pmcfi_rng_below_inline(rng, (uint32_t)(n - a));
		__builtin_prefetch(r + ring[a]);
	}
	for (size_t q = n, a = 0; q > 1; q--, a = (a + 1) % PREFETCH) {
		size_t o = ring[a];
		if (q > PREFETCH + 1) {
			ring[a] = pmcfi_rng_below_inline(rng, (uint32_t)(q - PREFETCH));
			__builtin_prefetch(r + ring[a]);
		}
		struct cmbi_rx t = r[q - 1];
		r[q - 1] = r[o];
		r[o] = t;
	}
}

/* The iterations of Algorithm 3 lines 15-33 for one type. */
static int cluster(struct grid *g)
{
	struct ws *w = g->w;
	size_t n = g->np + g->nc, k = g->k;
	/* rem: T_prev then T_cur, each in label order; the stable sort by cell
	 * keeps that order inside every cell */
	for (size_t q = 0; q < n; q++) /* rank: a permutation on each side */
		w->rem[(q < g->np ? 0 : g->np) + g->rank[q]].id = (uint32_t)q;
	int flt = k > 0 && !pmcfi_cmb_bc_all_active;
	for (size_t q = 0; q < n * k; q++) {
		double x = g->v[q];
		if (pmcf_is_missing(x)) {
			w->u[q] = 0; /* cell 0, as Algorithm 3 places it */
			flt = 0;
		} else {
			w->u[q] = (x - g->lo[q % k]) / g->range[q % k];
		}
	}
	distinct_values(g, n);
	unsigned d = k ? calc_max_div(g) : 1;
	g->dmax = d;
	if (flt)
		lower_bounds(g, n);
	for (size_t q = 0; q < n; q++) {
		double lb = flt ? w->lb[w->rem[q].id] * (1 - 1e-6) - 1e-12 : 0;
		w->rem[q].lb = lb > 0 ? (float)lb : 0;
	}
	size_t nrem = n, remp = g->np, remc = g->nc;
	while (remp && remc) {
		g->iterations++;
		if (g->strategy == PMCF_COMBINE_BC_UNLABELED) /* a seeded shuffle per side */
			for (size_t side = 0, lo = 0; side < 2; side++) {
				size_t hi = side ? nrem : remp;
				pmcfi_cmb_shuffle(&g->rng, w->rem + lo, hi - lo);
				lo = hi;
			}
		int64_t T = 1;
		size_t na, nap, ncell[2];
		double thr = active_thr(T, k, d);
		select_active(g, nrem, remp, thr, &na, &nap);
		int all = na == nrem;
		size_t before = g->npairs;
		grid_pass(g, na, nap, d, ncell);
		size_t kp = g->npairs - before;
		if (kp) { /* rem keeps its order; lst is its active XUs in order */
			size_t m = 0, keepp = drop_paired(w, 0, remp, thr, &m, 0);
			nrem = drop_paired(w, remp, nrem, thr, &m, keepp);
			remp = keepp;
			remc -= kp;
		}
		if (!remp || !remc || d == 1)
			break;
		int64_t best = 0;
		size_t nt = 0;
		for (;;) {
			if (ncell[0] && ncell[1]) {
				int err = closest_cells(g, ncell[0], ncell[1], &best, &nt);
				if (err)
					return err;
				if (all || best <= T * T)
					break;
				T = (int64_t)isqrt_u64((uint64_t)best);
				T += T * T < best;
			} else if (all) {
				break;
			} else {
				T = 2 * T + 1;
			}
			/* more XUs for the relaxation; none of them pairs */
			select_active(g, nrem, remp, active_thr(T, k, d), &na, &nap);
			all = na == nrem;
			grid_pass(g, na, nap, d, ncell);
		}
		d = ncell[0] && ncell[1] ? reduced_div(g, nt, d) : d > 1 ? d - 1 : 1u;
	}
	return 0;
}

/* ---- one BC step --------------------------------------------------------------- */

struct lab_ctx {
	const char **lab;
	const uint32_t *len;
};

static int cmp_lab(const void *a, const void *b, void *ctx)
{
	const struct lab_ctx *L = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int r = pmcfi_cmb_label_cmp(L->lab[x], L->len[x], L->lab[y], L->len[y]);
	return r ? r : (x > y) - (x < y);
}

/* Labels made of numbers only (what runtimes give: "0.3.17"), in label
 * order into order[0..n): a stable radix sort by each component from the
 * last to the first (ancestors, with no such component, first), in s and tmp;
 * 0 when some label is not numeric. Ties keep their index order, as
 * cmp_lab's. Labels deeper than NUMERIC_DEPTH components are left to the
 * comparison sort: a pass per component reads every label from its start
 * (n x depth x length), while comparisons skip the common prefix; a task
 * tree's labels (parent.RANK.ADDR per level, 100 components and more) made
 * bc 7-11x ctc on real programs (bench/RESULTS.md). */
#define NUMERIC_DEPTH 16

static int numeric_order(const char **lab, const uint32_t *len, uint32_t n, uint32_t *order, struct skey *s,
			 struct skey *tmp)
{
	size_t depth = 0;
	for (uint32_t q = 0; q < n; q++) {
		long c = pmcfi_cmb_label_ncomp(lab[q], len[q]);
		if (c < 0)
			return 0;
		depth = (size_t)c > depth ? (size_t)c : depth;
	}
	if (depth > NUMERIC_DEPTH)
		return 0;
	for (uint32_t q = 0; q < n; q++)
		s[q] = (struct skey){0, q, 0};
	for (size_t c = depth; c-- > 0;) {
		uint64_t lo = UINT64_MAX, hi = 0;
		for (uint32_t q = 0; q < n; q++) {
			uint64_t x = pmcfi_cmb_label_comp(lab[s[q].q], len[s[q].q], c);
			s[q].key = x;
			lo = x < lo ? x : lo;
			hi = x > hi ? x : hi;
		}
		if (lo == hi)
			continue;
		for (uint32_t q = 0; q < n; q++)
			s[q].key -= lo;
		radix_keys(s, tmp, n, 64u - (unsigned)__builtin_clzll(hi - lo));
	}
	for (uint32_t q = 0; q < n; q++)
		order[q] = s[q].q;
	return 1;
}

/* rank[i] = position of i in label order among ids[0..n); s and tmp: room
 * for n sort records */
int pmcfi_cmb_bc_label_qsort;

static void label_ranks(const struct cmbi_ltree *lt, const uint32_t *node, const char **lab,
			const uint32_t *len, uint32_t n, uint32_t *order, uint32_t *rank, struct skey *s,
			struct skey *tmp)
{
	if (lt) { /* the nodes' ranks in label order, radix-sorted (stable) */
		uint32_t hi = 0;
		for (uint32_t q = 0; q < n; q++) {
			s[q] = (struct skey){lt->ord[node[q]], q, 0};
			hi = lt->ord[node[q]] > hi ? lt->ord[node[q]] : hi;
		}
		radix_keys(s, tmp, n, hi ? 32u - (unsigned)__builtin_clz(hi) : 0);
		for (uint32_t q = 0; q < n; q++)
			order[q] = s[q].q;
	} else if (pmcfi_cmb_bc_label_qsort || !numeric_order(lab, len, n, order, s, tmp)) {
		struct lab_ctx L = {lab, len};
		for (uint32_t q = 0; q < n; q++)
			order[q] = q;
		qsort_r(order, n, sizeof(*order), cmp_lab, &L);
	}
	for (uint32_t q = 0; q < n; q++)
		rank[order[q]] = q;
}

/* Value of fused event e for fused XU f: its first source that has it. */
static double fused_value(const struct cmb *c, size_t f, size_t e)
{
	for (uint32_t k = 0; k < c->nowners[e]; k++) {
		uint32_t j = c->owners[e][k];
		int32_t x = c->src[f * c->n + j];
		if (x >= 0)
			return pmcf_profile_value(c->in[j], (size_t)x, (size_t)c->evidx[j][e]);
	}
	return PMCF_MISSING;
}

/* One step (T_prev = the fused XUs, T_cur = input i), read-only while the
 * types are clustered: their XUs by type, E_com, and the pairs found. */
struct step_job {
	struct cmb *c;
	size_t i, k;
	const size_t *ecom;
	const size_t *ps, *cs;       /* start of each type in pidx, cidx */
	const uint32_t *pidx, *cidx; /* fused XUs, XUs of input i, by type */
	const size_t *pfull;         /* per type: its first pfull[t] fused XUs (in
					pidx) have an XU of every earlier input */
	const char **clab;           /* labels of input i's XUs */
	const uint32_t *clen;
	const uint32_t *cnode; /* their nodes, with c->lt (clab NULL then) */
	const uint32_t *order; /* types, largest first */
	/* results per type t: its pairs applied to c (input i's XU into the
	 * fused XU's row, the label cut to the first common ancestor), and
	 * cpaired[cs[t] + q] set for the q-th XU of input i of type t that
	 * paired (types write disjoint rows and ranges: any thread order) */
	unsigned char *cpaired;
	size_t *iters;
	unsigned *dmax;
	pthread_mutex_t lock;
	size_t next; /* the next type in order to take */
	int err;
	size_t cpus; /* threads the step may use */
};

/* What one thread clusters with, sized for the largest type. */
struct step_worker {
	struct step_job *J;
	struct ws w;
	double *v;
	uint32_t *rank, *order, *pp, *pc, *glen, *gnode;
	const char **glab;
	/* bc-lgl: the XUs left by the equal-label pairs, renumbered: their
	 * values, label ranks and ids before */
	double *v2;
	uint32_t *rank2, *map, *glen2, *gnode2;
	const char **glab2;
	double *lo, *hi, *range;
	size_t *dim;
};

static void worker_free(struct step_worker *W)
{
	ws_free(&W->w);
	free(W->v);
	free(W->rank);
	free(W->order);
	free(W->pp);
	free(W->pc);
	free(W->glen);
	free(W->glab);
	free(W->gnode);
	free(W->lo);
	free(W->hi);
	free(W->range);
	free(W->dim);
	free(W->v2);
	free(W->rank2);
	free(W->map);
	free(W->glab2);
	free(W->glen2);
	free(W->gnode2);
}

static int worker_init(struct step_worker *W, size_t nbig, size_t kbig, int bylabel)
{
	memset(W, 0, sizeof(*W));
	size_t n = nbig + 1, k = kbig ? kbig : 1;
	W->v = malloc(n * k * sizeof(*W->v));
	W->rank = malloc(n * sizeof(uint32_t));
	W->order = malloc(n * sizeof(uint32_t));
	W->pp = malloc(n * sizeof(uint32_t));
	W->pc = malloc(n * sizeof(uint32_t));
	W->glen = malloc(n * sizeof(uint32_t));
	W->glab = malloc(n * sizeof(*W->glab));
	W->gnode = malloc(n * sizeof(uint32_t));
	W->lo = malloc(k * sizeof(double));
	W->hi = malloc(k * sizeof(double));
	W->range = malloc(k * sizeof(double));
	W->dim = malloc(k * sizeof(size_t));
	if (bylabel == 2) {
		W->v2 = malloc(n * k * sizeof(*W->v2));
		W->rank2 = malloc(n * sizeof(uint32_t));
		W->map = malloc(n * sizeof(uint32_t));
		W->glen2 = malloc(n * sizeof(uint32_t));
		W->glab2 = malloc(n * sizeof(*W->glab2));
		W->gnode2 = malloc(n * sizeof(uint32_t));
	}
	int err = ws_init(&W->w, nbig, k, bylabel != 0);
	if (!err && bylabel == 2 && !(W->v2 && W->rank2 && W->map && W->glen2 && W->glab2 && W->gnode2))
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
	if (!err && !(W->v && W->rank && W->order && W->pp && W->pc && W->glen && W->glab && W->gnode &&
		      W->lo && W->hi && W->range && W->dim))
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
	if (err)
		worker_free(W);
	return err;
}

/* Label orders of this many XUs and more may use a spare thread. */
#define RANK_THREAD_MIN 32768

struct rank_job {
	const struct cmbi_ltree *lt;
	const uint32_t *node;
	const char **lab;
	const uint32_t *len;
	uint32_t n;
	uint32_t *order, *rank;
	struct skey *s, *tmp;
};

static void *rank_thread(void *arg)
{
	struct rank_job *r = arg;
	label_ranks(r->lt, r->node, r->lab, r->len, r->n, r->order, r->rank, r->s, r->tmp);
	return NULL;
}

/* bc-lgl: pairs the XUs of g with equal labels (the k-th of a label on
 * each side, in label order), as lgl does, into W->pp / W->pc, and leaves
 * in g the others, renumbered (W->map: their ids before), for bc; returns
 * the pairs. Both sides are walked in label order: O(n) comparisons. */
static size_t lgl_first(struct step_worker *W, struct grid *g)
{
	size_t np = g->np, nc = g->nc, k = g->k, a = 0, b = 0, npre = 0, n2 = 0, np2 = 0;
	const uint32_t *op = W->order, *oc = W->order + np;
	uint8_t *used = W->w.paired; /* per id; cleared below (cluster needs it clear) */
	while (a < np && b < nc) {
		uint32_t x = op[a], y = (uint32_t)np + oc[b];
		int r = lab_cmp(g->lt, W->gnode, W->glab, W->glen, x, y);
		if (r == 0) {
			W->pp[npre] = x;
			W->pc[npre++] = y;
			used[x] = used[y] = 1;
		}
		a += r <= 0;
		b += r >= 0;
	}
	if (!npre)
		return 0;
	/* the rest, in label order on each side, renumbered 0.. */
	for (size_t side = 0; side < 2; side++) {
		size_t cnt = side ? nc : np, base = side ? np : 0, first = n2;
		for (size_t q = 0; q < cnt; q++) {
			uint32_t x = (uint32_t)base + W->order[base + q];
			if (used[x]) {
				used[x] = 0;
				continue;
			}
			W->map[n2] = x;
			W->rank2[n2] = (uint32_t)(n2 - first);
			memcpy(W->v2 + n2 * k, g->v + (size_t)x * k, k * sizeof(double));
			n2++;
		}
		if (!side)
			np2 = n2;
	}
	g->np = np2;
	g->nc = n2 - np2;
	g->v = W->v2;
	g->rank = W->rank2;
	g->pp = W->pp + npre;
	g->pc = W->pc + npre;
	for (size_t q = 0; q < n2; q++) { /* their labels, for label_pair_cell */
		W->glab2[q] = W->glab[W->map[q]];
		W->glen2[q] = W->glen[W->map[q]];
		W->gnode2[q] = W->gnode[W->map[q]];
	}
	g->lab = g->lab ? W->glab2 : NULL;
	g->llen = W->glen2;
	g->node = g->node ? W->gnode2 : NULL;
	return npre;
}

/* Algorithm 3 for type t: the pairs of the step, into J's results. */
/* Clusters fused XUs P[0..np) of type t with XUs C[0..nc) of input i and
 * applies the pairs; the q-th of C is the cpos[q]-th of the type's XUs of
 * input i (cpos NULL: the q-th). part seeds the grid's generator. */
static int cluster_part(struct step_worker *W, uint32_t t, const uint32_t *P, size_t np, const uint32_t *C,
			size_t nc, const uint32_t *cpos, unsigned part)
{
	struct step_job *J = W->J;
	struct cmb *c = J->c;
	const pmcf_profile *cur = c->in[J->i];
	size_t k = J->k;
	double *v = W->v, *lo = W->lo, *hi = W->hi, *range = W->range;
	/* values on E_com, their bounds (Algorithm 3 lines 9-13) */
	for (size_t e = 0; e < k; e++) {
		lo[e] = INFINITY;
		hi[e] = -INFINITY;
	}
	for (size_t q = 0; q < np + nc; q++)
		for (size_t e = 0; e < k; e++) {
			size_t ev = J->ecom[e];
			double x = q < np ? fused_value(c, P[q], ev)
					  : pmcf_profile_value(cur, C[q - np], (size_t)c->evidx[J->i][ev]);
			v[q * k + e] = x;
			if (x < lo[e])
				lo[e] = x;
			if (x > hi[e])
				hi[e] = x;
		}
	/* only dimensions with a spread: a constant event separates nothing */
	size_t kk = 0;
	for (size_t e = 0; e < k; e++)
		if (hi[e] > lo[e])
			W->dim[kk++] = e;
	for (size_t q = 0; q < np + nc; q++)
		for (size_t e = 0; e < kk; e++)
			v[q * kk + e] = v[q * k + W->dim[e]];
	for (size_t e = 0; e < kk; e++) {
		lo[e] = lo[W->dim[e]];
		range[e] = hi[W->dim[e]] - lo[W->dim[e]];
	}
	/* label order on each side */
	const struct cmbi_ltree *lt = c->lt;
	for (size_t q = 0; q < np + nc; q++)
		if (lt) {
			W->gnode[q] = q < np ? c->lnode[P[q]] : J->cnode[C[q - np]];
		} else {
			W->glab[q] = q < np ? c->lab[P[q]] : J->clab[C[q - np]];
			W->glen[q] = q < np ? c->lablen[P[q]] : J->clen[C[q - np]];
		}
	/* a large type when the step may use several CPUs (one type holds
	 * most XUs in task-tree searches, and the other workers are soon
	 * idle): the two sides' label orders on two threads (the same ranks
	 * either way) */
	struct rank_job rj = {lt,           W->gnode + np, W->glab + np,
			      W->glen + np, (uint32_t)nc,  W->order + np,
			      W->rank + np, W->w.srt + np, W->w.stmp + np};
	pthread_t th;
	int spawned =
		np + nc >= RANK_THREAD_MIN && J->cpus > 1 && pthread_create(&th, NULL, rank_thread, &rj) == 0;
	label_ranks(lt, W->gnode, W->glab, W->glen, (uint32_t)np, W->order, W->rank, W->w.srt, W->w.stmp);
	if (spawned)
		pthread_join(th, NULL);
	else
		rank_thread(&rj);
	struct grid g = {.k = kk,
			 .np = np,
			 .nc = nc,
			 .v = v,
			 .lo = lo,
			 .range = range,
			 .w = &W->w,
			 .rank = W->rank,
			 .lab = !lt && c->opts->strategy >= PMCF_COMBINE_BC_LABEL ? W->glab : NULL,
			 .llen = W->glen,
			 .lt = lt,
			 .node = lt && c->opts->strategy >= PMCF_COMBINE_BC_LABEL ? W->gnode : NULL,
			 .strategy = c->opts->strategy,
			 .pp = W->pp,
			 .pc = W->pc};
	uint64_t seed = pmcfi_rng_hash2(pmcfi_rng_hash2(c->opts->seed, J->i), t);
	pmcfi_rng_seed(&g.rng, part ? pmcfi_rng_hash2(seed, part) : seed);
	size_t npre = c->opts->strategy == PMCF_COMBINE_BC_LGL ? lgl_first(W, &g) : 0;
	int err = !npre || (g.np && g.nc) ? cluster(&g) : 0;
	if (err)
		return err;
	if (npre) { /* back to the ids before lgl_first */
		for (size_t q = npre; q < npre + g.npairs; q++) {
			W->pp[q] = W->map[W->pp[q]];
			W->pc[q] = W->map[W->pc[q]];
		}
		g.npairs += npre;
	}
	J->iters[t] += g.iterations;
	if (g.dmax > J->dmax[t])
		J->dmax[t] = g.dmax;
	/* Algorithm 4 for the pairs: counts of E_prev from t_prev (already
	 * there), of E_cur \ E_prev from t_cur; label = first common ancestor */
	for (size_t q = 0; q < g.npairs; q++) {
		uint32_t f = P[W->pp[q]], xl = W->pc[q] - (uint32_t)np, x = C[xl];
		c->src[(size_t)f * c->n + J->i] = (int32_t)x;
		if (lt)
			c->lnode[f] = cmbi_lca(lt, c->lnode[f], J->cnode[x]);
		else
			c->lablen[f] = (uint32_t)pmcfi_cmb_label_fca(c->lab[f], c->lablen[f], J->clab[x],
								     J->clen[x]);
		J->cpaired[J->cs[t] + (cpos ? cpos[xl] : xl)] = 1;
	}
	return 0;
}

/* Type t of the step. A fused XU that already lacks an earlier input pairs
 * only with what the complete ones leave: the complete ones cluster with
 * input i's XUs first, the partial ones with the rest, so that a step adds
 * no partial XU that pairing could avoid and bc leaves as few as ctc
 * (max - min XUs of the type over the inputs). */
static int cluster_type(struct step_worker *W, uint32_t t)
{
	struct step_job *J = W->J;
	size_t np = J->ps[t + 1] - J->ps[t], nc = J->cs[t + 1] - J->cs[t], nfull = J->pfull[t];
	const uint32_t *P = J->pidx + J->ps[t], *C = J->cidx + J->cs[t];
	if (nfull == 0 || nfull == np)
		return cluster_part(W, t, P, np, C, nc, NULL, 0);
	int err = cluster_part(W, t, P, nfull, C, nc, NULL, 0);
	if (err || nfull >= nc)
		return err;
	/* the XUs of input i the complete ones left, for the partial ones */
	uint32_t *rest = malloc(2 * (nc - nfull) * sizeof(*rest)), *pos = rest + (nc - nfull);
	if (!rest)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	size_t nr = 0;
	for (size_t q = 0; q < nc; q++)
		if (!J->cpaired[J->cs[t] + q]) {
			rest[nr] = C[q];
			pos[nr++] = (uint32_t)q;
		}
	err = cluster_part(W, t, P + nfull, np - nfull, rest, nr, pos, 1);
	free(rest);
	return err;
}

/* Takes types, largest first, until none is left or one fails. */
static void *step_thread(void *arg)
{
	struct step_worker *W = arg;
	struct step_job *J = W->J;
	for (;;) {
		pthread_mutex_lock(&J->lock);
		size_t q = J->err ? J->c->ntypes : J->next++;
		pthread_mutex_unlock(&J->lock);
		if (q >= J->c->ntypes)
			break;
		uint32_t t = J->order[q];
		if (J->cs[t + 1] == J->cs[t])
			continue;
		int err = cluster_type(W, t);
		if (err) {
			pthread_mutex_lock(&J->lock);
			if (!J->err)
				J->err = err;
			pthread_mutex_unlock(&J->lock);
		}
	}
	return NULL;
}

static int cmp_type_size(const void *a, const void *b, void *ctx)
{
	const size_t *n = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (n[x] != n[y])
		return n[x] > n[y] ? -1 : 1;
	return (x > y) - (x < y);
}

static size_t step_threads(size_t cpus, size_t busy) { return busy < cpus ? (busy ? busy : 1) : cpus; }

/* The workers of every step, kept from step to step (their workspaces are
 * tens of MB: allocating them anew each step page-faulted them in again)
 * and grown when a step needs more threads, XUs or dimensions. */
struct bc_pool {
	struct step_worker *W;
	size_t nw, nbig, k;
	int bylabel; /* 1 bc-label, 2 bc-lgl: the workspaces for the labels */
};

static void pool_free(struct bc_pool *pool)
{
	for (size_t q = 0; q < pool->nw; q++)
		worker_free(&pool->W[q]);
	free(pool->W);
	*pool = (struct bc_pool){.bylabel = pool->bylabel};
}

static int pool_get(struct bc_pool *pool, size_t nthreads, size_t nbig, size_t k)
{
	k = k ? k : 1;
	if (pool->nw >= nthreads && pool->nbig >= nbig && pool->k >= k)
		return 0;
	nthreads = nthreads > pool->nw ? nthreads : pool->nw;
	nbig = nbig > pool->nbig ? nbig : pool->nbig;
	k = k > pool->k ? k : pool->k;
	pool_free(pool);
	if (!(pool->W = calloc(nthreads, sizeof(*pool->W))))
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	for (; pool->nw < nthreads; pool->nw++) {
		int err = worker_init(&pool->W[pool->nw], nbig, k, pool->bylabel);
		if (err) {
			pool_free(pool);
			return err;
		}
	}
	pool->nbig = nbig;
	pool->k = k;
	return 0;
}

static int step(struct cmb *c, size_t i, struct bc_pool *pool)
{
	const pmcf_profile *cur = c->in[i];
	size_t nx = pmcf_profile_nxus(cur), nf0 = c->nf;
	struct step_job J = {.c = c, .i = i};
	/* E_com: events of input i monitored by an earlier input */
	size_t *ecom = malloc(c->nev * sizeof(*ecom)), k = 0;
	if (!ecom)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	for (size_t e = 0; e < c->nev; e++)
		if (c->evidx[i][e] >= 0 && c->nowners[e] > 1 && c->owners[e][0] < i)
			ecom[k++] = e;
	/* group both sides by type */
	size_t *ps = calloc(c->ntypes + 2, sizeof(size_t)), *cs = NULL;
	uint32_t *pidx = malloc((nf0 ? nf0 : 1) * sizeof(uint32_t)), *cidx = NULL;
	const char **clab = malloc((nx ? nx : 1) * sizeof(*clab));
	uint32_t *clen = malloc((nx ? nx : 1) * sizeof(*clen));
	unsigned char *cpaired = calloc(nx ? nx : 1, 1);
	uint32_t *torder = malloc((c->ntypes ? c->ntypes : 1) * sizeof(uint32_t));
	size_t *iters = calloc(c->ntypes + 1, sizeof(size_t));
	size_t *tsize = calloc(c->ntypes + 1, sizeof(size_t));
	unsigned *dmax = calloc(c->ntypes + 1, sizeof(unsigned));
	struct step_worker *W = NULL;
	pthread_t *tid = NULL;
	size_t nthreads = 0, *pfull = NULL;
	int err = pmcfi_cmb_by_type(c, i, &cidx, &cs);
	if (!err && (!ps || !pidx || !clab || !clen || !cpaired || !torder || !iters || !tsize || !dmax))
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
	if (err)
		goto out;
	pmcfi_cmb_fused_by_type(c, nf0, pidx, ps);
	/* each type's complete fused XUs first (cluster_type) */
	pfull = calloc(c->ntypes + 1, sizeof(size_t));
	uint32_t *ptmp = malloc((nf0 ? nf0 : 1) * sizeof(uint32_t));
	if (!pfull || !ptmp) {
		free(ptmp);
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
		goto out;
	}
	for (uint32_t t = 0; t < c->ntypes; t++) {
		size_t a = ps[t], b = ps[t], m = 0;
		for (size_t q = ps[t]; q < ps[t + 1]; q++) {
			uint32_t f = pidx[q];
			int full = 1;
			for (size_t j = 0; j < i && full; j++)
				full = c->src[(size_t)f * c->n + j] >= 0;
			if (full)
				pidx[a++] = f;
			else
				ptmp[m++] = f;
		}
		memcpy(pidx + a, ptmp, m * sizeof(*ptmp));
		pfull[t] = a - b;
	}
	free(ptmp);
	J.pfull = pfull;
	for (size_t x = 0; x < nx && !c->lt; x++) {
		pmcf_xu xu = PMCF_XU_INIT;
		pmcf_profile_xu_get(cur, x, &xu);
		clab[x] = xu.label;
		clen[x] = (uint32_t)strlen(xu.label);
	}
	/* the types to cluster, largest first; a workspace per thread for the
	 * largest type */
	size_t nbig = 0, busy = 0;
	for (uint32_t t = 0; t < c->ntypes; t++) {
		torder[t] = t;
		tsize[t] = cs[t + 1] > cs[t] ? ps[t + 1] - ps[t] + cs[t + 1] - cs[t] : 0;
		busy += tsize[t] > 0;
		if (tsize[t] > nbig)
			nbig = tsize[t];
	}
	qsort_r(torder, c->ntypes, sizeof(*torder), cmp_type_size, tsize);
	J = (struct step_job){.c = c,
			      .i = i,
			      .k = k,
			      .ecom = ecom,
			      .ps = ps,
			      .cs = cs,
			      .pidx = pidx,
			      .cidx = cidx,
			      .pfull = pfull,
			      .clab = clab,
			      .clen = clen,
			      .cnode = c->lt ? c->lt->xlab[i] : NULL,
			      .order = torder,
			      .cpaired = cpaired,
			      .iters = iters,
			      .dmax = dmax};
	J.cpus = pmcfi_cmb_cpus(c);
	nthreads = step_threads(J.cpus, busy);
	tid = calloc(nthreads, sizeof(*tid));
	if (!tid) {
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
		goto out;
	}
	if ((err = pool_get(pool, nthreads, nbig, k)))
		goto out;
	W = pool->W;
	for (size_t q = 0; q < nthreads; q++)
		W[q].J = &J;
	pthread_mutex_init(&J.lock, NULL);
	size_t started = 1;
	for (; started < nthreads; started++)
		if (pthread_create(&tid[started], NULL, step_thread, &W[started]) != 0)
			break; /* fewer threads: the others take more types */
	step_thread(&W[0]);
	for (size_t q = 1; q < started; q++)
		pthread_join(tid[q], NULL);
	pthread_mutex_destroy(&J.lock);
	if ((err = J.err))
		goto out;
	/* the pairs are applied (cluster_type); type by type in order, a
	 * profile with more XUs of a type: its surplus XUs stay, with the
	 * events of the other profiles missing (fuse-openmp §3) */
	for (uint32_t t = 0; t < c->ntypes && !err; t++) {
		size_t nc = cs[t + 1] - cs[t];
		if (!nc)
			continue;
		c->stats->bc_iterations += iters[t];
		if (dmax[t] > c->stats->bc_dmax)
			c->stats->bc_dmax = dmax[t];
		const unsigned char *paired = cpaired + cs[t];
		for (size_t q = 0; q < nc && !err; q++) {
			if (paired[q])
				continue;
			uint32_t x = cidx[cs[t] + q];
			long f = pmcfi_cmb_add(c, t);
			if (f < 0) {
				err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
				break;
			}
			c->src[(size_t)f * c->n + i] = (int32_t)x;
			if (c->lt) {
				c->lnode[f] = c->lt->xlab[i][x];
			} else {
				c->lab[f] = clab[x];
				c->lablen[f] = clen[x];
			}
		}
	}
out:
	free(pfull);
	free(tid);
	free(ecom);
	free(ps);
	free(cs);
	free(pidx);
	free(cidx);
	free(clab);
	free(clen);
	free(cpaired);
	free(torder);
	free(iters);
	free(tsize);
	free(dmax);
	return err;
}

int pmcfi_cmb_bc(struct cmb *c)
{
	/* P_combined,1 = P_1 */
	const pmcf_profile *p0 = c->in[0];
	size_t nx = pmcf_profile_nxus(p0);
	for (size_t x = 0; x < nx; x++) {
		long f = pmcfi_cmb_add(c, pmcfi_cmb_type(c, 0, x));
		if (f < 0)
			return pmcfi_fail(PMCF_ENOMEM, "out of memory");
		c->src[(size_t)f * c->n] = (int32_t)x;
		if (c->lt) {
			c->lnode[f] = c->lt->xlab[0][x];
			continue;
		}
		pmcf_xu xu = PMCF_XU_INIT;
		pmcf_profile_xu_get(p0, x, &xu);
		c->lab[f] = xu.label;
		c->lablen[f] = (uint32_t)strlen(xu.label);
	}
	int s = c->opts->strategy;
	struct bc_pool pool = {.bylabel = s == PMCF_COMBINE_BC_LABEL ? 1 : s == PMCF_COMBINE_BC_LGL ? 2 : 0};
	int err = 0;
	for (size_t i = 1; i < c->n && !err; i++)
		err = step(c, i, &pool);
	pool_free(&pool);
	return err;
}
