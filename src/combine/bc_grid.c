/* Behaviour Clustering: the grid over E_com, its divisions (calc_max_div,
 * the relaxation) and the active XUs of each iteration (bc_impl.h). */
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "combine/bc_impl.h"
#include "util/rng.h"
#include "util/abi.h"
#include "util/internal.h"

/* ---- the grid ------------------------------------------------------------------ */

/* calc_max_div (§3.2): per overlapping event, the smallest difference
 * between an XU of T_prev and one of T_cur, as a grid division
 * range / difference; dmax is the smallest of these. Both sides are sorted
 * (radix) and merged; missing values take no part. */
static unsigned calc_max_div(const struct pmcfi_bc_grid *g)
{
	struct pmcfi_bc_ws *w = g->w;
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
		pmcfi_bc_radix_u64(w->bits, w->btmp, na);
		pmcfi_bc_radix_u64(b, w->btmp, nb);
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
static void coords(const struct pmcfi_bc_grid *g, size_t n, unsigned d, unsigned hb)
{
	struct pmcfi_bc_ws *w = g->w;
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
		w->srt[q] = (struct pmcfi_bc_skey){key, (uint32_t)q, h};
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
static void coords_lex(const struct pmcfi_bc_grid *g, size_t n, unsigned d, unsigned cb)
{
	struct pmcfi_bc_ws *w = g->w;
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
		w->srt[q] = (struct pmcfi_bc_skey){key, (uint32_t)q, id};
	}
}

/* Squared distance of two XUs in grid divisions (§3.2 relaxation). */
static double xu_dist2(const struct pmcfi_bc_grid *g, uint32_t a, uint32_t b, unsigned d)
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

static int tie_add(struct pmcfi_bc_ws *w, size_t *nt, size_t a, size_t b)
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
static int merge_units(struct pmcfi_bc_ws *w, size_t *nt, const uint64_t *x, size_t nx, const uint64_t *y,
		       size_t ny, unsigned sh, uint64_t mask, uint64_t top, int swap)
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
static int lex_neighbours(const struct pmcfi_bc_grid *g, size_t na, size_t nb, size_t *ntp)
{
	struct pmcfi_bc_ws *w = g->w;
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
static int closest_cells(const struct pmcfi_bc_grid *g, size_t na, size_t nb, int64_t *bestp, size_t *ntp)
{
	struct pmcfi_bc_ws *w = g->w;
	if (g->cb && !pmcfi_cmb_bc_all_pairs) { /* a leftover cell is never at distance 0 */
		int err = lex_neighbours(g, na, nb, ntp);
		if (err || *ntp) {
			*bestp = 1;
			return err;
		}
	}
	const struct pmcfi_bc_lcell *A = w->cell[0];
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
	const struct pmcfi_bc_spos *x = a, *y = b;
	if (x->s != y->s)
		return x->s < y->s ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

/* Sorts sp[0..n) by s (>= 0): LSD radix on its bits, 11 a pass, a pass in
 * which every key has the same digit skipped; qsort when n is small. */
static void sort_spos(struct pmcfi_bc_spos *sp, struct pmcfi_bc_spos *tmp, size_t n)
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
	struct pmcfi_bc_spos *src = sp, *dst = tmp;
	uint64_t b0 = f64_bits(sp[0].s);
	for (int p = 0; p < P; p++) {
		uint32_t *c = cnt[p];
		if (!pmcfi_bc_digit_offsets(c, R, n, (b0 >> (p * B)) & (R - 1)))
			continue;
		for (size_t q = 0; q < n; q++)
			dst[c[(f64_bits(src[q].s) >> (p * B)) & (R - 1)]++] = src[q];
		struct pmcfi_bc_spos *t = src;
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
static void distinct_values(const struct pmcfi_bc_grid *g, size_t n)
{
	struct pmcfi_bc_ws *w = g->w;
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
static size_t positions(const struct pmcfi_bc_grid *g, const struct pmcfi_bc_lcell *c, unsigned d,
			struct pmcfi_bc_spos *sp)
{
	struct pmcfi_bc_ws *w = g->w;
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
		sp[m++] = (struct pmcfi_bc_spos){sum * d, id};
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
static double cells_min_dist2(const struct pmcfi_bc_grid *g, const struct pmcfi_bc_lcell *p,
			      const struct pmcfi_bc_lcell *c, unsigned d, double m2)
{
	struct pmcfi_bc_ws *w = g->w;
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
	const struct pmcfi_bc_spos *A = w->sp, *B = w->sp + p->cnt;
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
static unsigned reduced_div(const struct pmcfi_bc_grid *g, size_t nt, unsigned d)
{
	const struct pmcfi_bc_ws *w = g->w;
	const struct pmcfi_bc_lcell *A = w->cell[0], *B = w->cell[1];
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
			const struct pmcfi_bc_lcell *pa = &A[w->tie[2 * (t + PREFETCH)]],
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

static void lower_bounds(const struct pmcfi_bc_grid *g, size_t n)
{
	struct pmcfi_bc_ws *w = g->w;
	size_t k = g->k, k1 = k + 1;
	/* sorted by s quantised to 32 bits: floor is monotone, so an XU after
	 * (before) position i in the order has s >= s_i - qs (<= s_i + qs) */
	double scale = 4294967296.0 / (double)k, qs = 2.0 / scale;
	struct pmcfi_bc_skey *S = w->srt;
	for (size_t q = 0; q < n; q++) {
		const double *x = w->u + q * k;
		double sum = 0;
		for (size_t e = 0; e < k; e++)
			sum += x[e];
		S[q] = (struct pmcfi_bc_skey){(uint64_t)(sum * scale), (uint32_t)q, 0};
	}
	pmcfi_bc_radix_keys(S, w->stmp, g->np, 33);
	pmcfi_bc_radix_keys(S + g->np, w->stmp, g->nc, 33);
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
		const struct pmcfi_bc_skey *SA = side ? S + g->np : S;
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
static void select_active(const struct pmcfi_bc_grid *g, size_t nrem, size_t remp, double thr, size_t *na,
			  size_t *nap)
{
	struct pmcfi_bc_ws *w = g->w;
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

static void grid_pass(struct pmcfi_bc_grid *g, size_t n, size_t np, unsigned d, size_t *ncell)
{
	unsigned cb = coord_bits(d);
	cb = cb ? cb : 1;
	g->d = d;
	if (!pmcfi_cmb_bc_grid_hash && g->k * cb < 64) {
		/* the coordinates are the key: cells are runs of equal keys */
		g->cb = cb;
		coords_lex(g, n, d, g->cb);
		pmcfi_bc_radix_keys(g->w->srt, g->w->stmp, n, (unsigned)g->k * g->cb);
		pmcfi_bc_pair_cells_lex(g, n, np, ncell);
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
	pmcfi_bc_radix_keys(g->w->srt, g->w->stmp, n, kb + hb);
	pmcfi_bc_pair_cells(g, n, np, hb, ncell);
}

/* Moves rem[from..to) down to rem[keep..), leaving out the XUs paired in
 * this iteration (the active ones, under thr, are lst[*m], lst[*m + 1], ...
 * in that order; their paired flags are cleared); returns keep + the number
 * kept. Without branches on the flags (half of the active XUs pair). */
static size_t drop_paired(struct pmcfi_bc_ws *w, size_t from, size_t to, double thr, size_t *m, size_t keep)
{
	size_t mm = *m;
	for (size_t q = from; q < to; q++) {
		struct pmcfi_cmb_rx r = w->rem[q];
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
void pmcfi_cmb_shuffle(struct pmcfi_rng *rng, struct pmcfi_cmb_rx *r, size_t n)
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
		struct pmcfi_cmb_rx t = r[q - 1];
		r[q - 1] = r[o];
		r[o] = t;
	}
}

/* The iterations of Algorithm 3 lines 15-33 for one type. */
int pmcfi_bc_cluster(struct pmcfi_bc_grid *g)
{
	struct pmcfi_bc_ws *w = g->w;
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
