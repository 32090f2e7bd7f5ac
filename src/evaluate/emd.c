/* Exact earth mover's distance (fuse-task-parallel §4.2) between two small
 * weighted point sets: masses scaled to integers, shared mass at identical
 * locations (distance 0) cancelled, then a transportation network simplex:
 * greedy least-cost start over the short arcs, block pricing over whole rows
 * (SSE2, or AVX2 where the processor has it), and a preorder thread so that a
 * pivot touches only the subtree it re-hangs, in a single walk. A bounded
 * number of pivots, then an exact successive-shortest-path fallback. */
#include <math.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <stdlib.h>
#include <string.h>
#include "evaluate/emd_impl.h"
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define HAVE_AVX2_PATH 1
#include <immintrin.h>
#endif
#include "util/internal.h"

/* Total integer mass of each side: 2^50 keeps sums exact in int64 and flows
 * exact in doubles, with a rounding error below 1e-15 of the total. */
#define MASS ((int64_t)1 << 50)

#ifndef BLOCK
#define BLOCK 3.0 /* pricing blocks: this times sqrt(arcs) arcs, in whole rows */
#endif
#ifndef GREEDY_T
#define GREEDY_T 6.0 /* candidate arcs of the greedy start: up to this times the mean nearest distance */
#endif
#define NBUCKET 1024 /* cost buckets of the greedy start */

int pmcf_emd_ws_new(pmcf_emd_ws **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : pmcfi_fail(PMCF_ENOMEM, "out of memory");
}

static void free_buffers(pmcf_emd_ws *w)
{
	void *bufs[] = {w->cost, w->sup,   w->dem,   w->ia,  w->ib,   w->sa,   w->sb,   w->qa,
			w->qb,   w->pot,   w->ai,    w->aj,  w->af,   w->head, w->nxt,  w->prv,
			w->par,  w->depth, w->stack, w->cyc, w->flow, w->dist, w->prev, w->done};
	for (size_t i = 0; i < PMCF_ARRAY_SIZE(bufs); i++)
		free(bufs[i]);
	long maxp = w->max_pivots;
	memset(w, 0, sizeof(*w));
	w->max_pivots = maxp;
}

void pmcf_emd_ws_free(pmcf_emd_ws *ws)
{
	if (!ws)
		return;
	free_buffers(ws);
	free(ws);
}

/* On failure p keeps its old buffer (free_buffers releases it); needs a
 * void *grown in scope. */
#define GROW(p, n) ((grown = realloc((p), (n) * sizeof(*(p)))) != NULL && ((p) = grown, 1))

static int reserve(pmcf_emd_ws *w, size_t na, size_t nb)
{
	if (na <= w->cap_m && nb <= w->cap_n)
		return 0;
	size_t m = na > w->cap_m ? na : w->cap_m, n = nb > w->cap_n ? nb : w->cap_n;
	size_t nodes = m + n + 1;
	/* flow: the fallback's m*n flows, the simplex's tree flows and the
	 * greedy start's two candidate lists (2 m*n ints) */
	size_t nflow = m * n > nodes ? m * n : nodes;
	size_t nhead = nodes > NBUCKET + 1 ? nodes : NBUCKET + 1;
	void *grown;
	int ok = GROW(w->cost, m * n) && GROW(w->sup, m) && GROW(w->dem, n) && GROW(w->ia, m) &&
		 GROW(w->ib, n) && GROW(w->sa, nodes) && GROW(w->sb, nodes) && GROW(w->qa, m) &&
		 GROW(w->qb, n) && GROW(w->pot, nodes) && GROW(w->ai, nodes) && GROW(w->aj, nodes) &&
		 GROW(w->af, nodes) && GROW(w->head, nhead) && GROW(w->nxt, nodes) &&
		 GROW(w->prv, 2 * nodes) && GROW(w->par, nodes) && GROW(w->depth, nodes) &&
		 GROW(w->stack, 5 * nodes) && GROW(w->cyc, nodes) && GROW(w->flow, nflow) &&
		 GROW(w->dist, 3 * nodes) && GROW(w->prev, 2 * nodes) && GROW(w->done, nodes);
	if (!ok) {
		free_buffers(w);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory for an EMD of %zu x %zu points", na, nb);
	}
	w->cap_m = m;
	w->cap_n = n;
	return 0;
}

/* ---- input: integer masses, identical locations ---------------------------- */

/* Scales weights w[0..n) (total t > 0) to integers summing to MASS exactly;
 * the rounding remainder goes to the heaviest point. */
static void to_integers(const double *w, size_t n, double t, int64_t *q)
{
	int64_t sum = 0;
	size_t big = 0;
	for (size_t i = 0; i < n; i++) {
		q[i] = (int64_t)floor(w[i] / t * (double)MASS);
		if (q[i] < 0)
			q[i] = 0;
		sum += q[i];
		if (w[i] > w[big])
			big = i;
	}
	q[big] += MASS - sum;
}

#ifdef HAVE_AVX2_PATH
/* The planar distances of prepare with 256-bit vectors (sqrt, like every
 * operation here, is correctly rounded: the same doubles as the SSE2 and
 * scalar loops). Rows i of cost: distances from (ax[i], ay[i]) to the
 * columns (bx, by); mins[0..m) and cm[0..n) get the row and column minima. */
__attribute__((target("avx2"))) static void dist2_avx2(const pmcf_emd_ws *w, const double *xa, int m, int n,
						       const double *bx, const double *by, double *mins,
						       double *pcmax, double *pcmin)
{
	double cmax = *pcmax, cmin = *pcmin, *cm = mins + m;
	for (int i = 0; i < m; i++) {
		double ax = xa[2 * (size_t)w->ia[i]], ay = xa[2 * (size_t)w->ia[i] + 1];
		double *row = w->cost + (size_t)i * (size_t)n, rmin = INFINITY;
		int j = 0;
		__m256d vx = _mm256_set1_pd(ax), vy = _mm256_set1_pd(ay), vmin = _mm256_set1_pd(INFINITY);
		__m256d vmax = _mm256_setzero_pd();
		for (; j + 4 <= n; j += 4) {
			__m256d dx = _mm256_sub_pd(_mm256_loadu_pd(bx + j), vx);
			__m256d dy = _mm256_sub_pd(_mm256_loadu_pd(by + j), vy);
			__m256d c =
				_mm256_sqrt_pd(_mm256_add_pd(_mm256_mul_pd(dx, dx), _mm256_mul_pd(dy, dy)));
			_mm256_storeu_pd(row + j, c);
			vmin = _mm256_min_pd(vmin, c);
			vmax = _mm256_max_pd(vmax, c);
			_mm256_storeu_pd(cm + j, _mm256_min_pd(_mm256_loadu_pd(cm + j), c));
		}
		__m128d lo = _mm_min_pd(_mm256_castpd256_pd128(vmin), _mm256_extractf128_pd(vmin, 1));
		__m128d hi = _mm_max_pd(_mm256_castpd256_pd128(vmax), _mm256_extractf128_pd(vmax, 1));
		lo = _mm_min_sd(lo, _mm_unpackhi_pd(lo, lo));
		hi = _mm_max_sd(hi, _mm_unpackhi_pd(hi, hi));
		rmin = _mm_cvtsd_f64(lo);
		if (_mm_cvtsd_f64(hi) > cmax)
			cmax = _mm_cvtsd_f64(hi);
		for (; j < n; j++) {
			double dx = bx[j] - ax, dy = by[j] - ay, c = sqrt(dx * dx + dy * dy);
			row[j] = c;
			rmin = c < rmin ? c : rmin;
			cmax = c > cmax ? c : cmax;
			cm[j] = c < cm[j] ? c : cm[j];
		}
		mins[i] = rmin;
		cmin = rmin < cmin ? rmin : cmin;
	}
	*pcmax = cmax;
	*pcmin = cmin;
}
#endif

/* Compacts the points of positive mass, computes their m x n ground
 * distances (rows: supplies) with the minimum of every row in mins[0..m)
 * and of every column in mins[m..m+n), and cancels the mass shared by
 * identical locations (distance 0), compacting again if a point empties. */
static void prepare(pmcf_emd_ws *w, size_t dim, const double *xa, size_t na, const double *xb, size_t nb,
		    int *pm, int *pn, double *pcmax)
{
	int m = 0, n = 0;
	for (size_t i = 0; i < na; i++)
		if (w->qa[i] > 0) {
			w->ia[m] = (int)i;
			w->sup[m++] = w->qa[i];
		}
	for (size_t j = 0; j < nb; j++)
		if (w->qb[j] > 0) {
			w->ib[n] = (int)j;
			w->dem[n++] = w->qb[j];
		}
	double *mins = w->dist, cmax = 0, cmin = INFINITY;
	if (m == 0 || n == 0) {
		*pm = m;
		*pn = n;
		return;
	}
	for (int j = 0; j < n; j++)
		mins[m + j] = INFINITY;
	if (dim == 2) {
		double *bx = w->dist + m + n, *by = bx + n; /* columns' coordinates, SoA */
		for (int j = 0; j < n; j++) {
			bx[j] = xb[2 * (size_t)w->ib[j]];
			by[j] = xb[2 * (size_t)w->ib[j] + 1];
		}
#ifdef HAVE_AVX2_PATH
		if (__builtin_cpu_supports("avx2"))
			dist2_avx2(w, xa, m, n, bx, by, mins, &cmax, &cmin);
		else
#endif
			for (int i = 0; i < m; i++) {
				double ax = xa[2 * (size_t)w->ia[i]], ay = xa[2 * (size_t)w->ia[i] + 1];
				double *row = w->cost + (size_t)i * (size_t)n, *cm = mins + m,
				       rmin = INFINITY;
				int j = 0;
#ifdef __SSE2__
				__m128d vx = _mm_set1_pd(ax), vy = _mm_set1_pd(ay),
					vmin = _mm_set1_pd(INFINITY);
				__m128d vmax = _mm_setzero_pd();
				for (; j + 2 <= n; j += 2) {
					__m128d dx = _mm_sub_pd(_mm_loadu_pd(bx + j), vx);
					__m128d dy = _mm_sub_pd(_mm_loadu_pd(by + j), vy);
					__m128d c = _mm_sqrt_pd(
						_mm_add_pd(_mm_mul_pd(dx, dx), _mm_mul_pd(dy, dy)));
					_mm_storeu_pd(row + j, c);
					vmin = _mm_min_pd(vmin, c);
					vmax = _mm_max_pd(vmax, c);
					_mm_storeu_pd(cm + j, _mm_min_pd(_mm_loadu_pd(cm + j), c));
				}
				vmin = _mm_min_sd(vmin, _mm_unpackhi_pd(vmin, vmin));
				vmax = _mm_max_sd(vmax, _mm_unpackhi_pd(vmax, vmax));
				rmin = _mm_cvtsd_f64(vmin);
				if (_mm_cvtsd_f64(vmax) > cmax)
					cmax = _mm_cvtsd_f64(vmax);
#endif
				for (; j < n; j++) {
					double dx = bx[j] - ax, dy = by[j] - ay, c = sqrt(dx * dx + dy * dy);
					row[j] = c;
					rmin = c < rmin ? c : rmin;
					cmax = c > cmax ? c : cmax;
					cm[j] = c < cm[j] ? c : cm[j];
				}
				mins[i] = rmin;
				cmin = rmin < cmin ? rmin : cmin;
			}
	} else {
		for (int i = 0; i < m; i++) {
			const double *pa = xa + (size_t)w->ia[i] * dim;
			double *row = w->cost + (size_t)i * (size_t)n, rmin = INFINITY;
			for (int j = 0; j < n; j++) {
				const double *pb = xb + (size_t)w->ib[j] * dim;
				double s = 0;
				for (size_t k = 0; k < dim; k++) {
					double d = pa[k] - pb[k];
					s += d * d;
				}
				double c = row[j] = sqrt(s);
				rmin = c < rmin ? c : rmin;
				cmax = c > cmax ? c : cmax;
				mins[m + j] = c < mins[m + j] ? c : mins[m + j];
			}
			mins[i] = rmin;
			cmin = rmin < cmin ? rmin : cmin;
		}
	}
	if (cmin == 0) {
		/* shared mass at identical locations travels nowhere: remove it */
		int emptied = 0;
		for (int i = 0; i < m; i++) {
			if (mins[i] != 0)
				continue;
			const double *row = w->cost + (size_t)i * (size_t)n;
			for (int j = 0; j < n && w->sup[i] > 0; j++)
				if (row[j] == 0 && w->dem[j] > 0) {
					int64_t x = w->sup[i] < w->dem[j] ? w->sup[i] : w->dem[j];
					w->sup[i] -= x;
					w->dem[j] -= x;
					emptied = 1;
				}
		}
		if (emptied) { /* drop the emptied rows and columns, in place */
			int m2 = 0, n2 = 0;
			int *keepc = w->sb;
			for (int j = 0; j < n; j++)
				if (w->dem[j] > 0) {
					keepc[n2] = j;
					w->dem[n2] = w->dem[j];
					w->ib[n2++] = w->ib[j];
				}
			for (int i = 0; i < m; i++) {
				if (w->sup[i] == 0)
					continue;
				const double *row = w->cost + (size_t)i * (size_t)n;
				double *to = w->cost + (size_t)m2 * (size_t)n2;
				for (int j = 0; j < n2; j++)
					to[j] = row[keepc[j]];
				w->sup[m2] = w->sup[i];
				w->ia[m2++] = w->ia[i];
			}
			m = m2;
			n = n2;
			for (int j = 0; j < n; j++)
				mins[m + j] = INFINITY;
			for (int i = 0; i < m; i++) {
				const double *row = w->cost + (size_t)i * (size_t)n;
				double rmin = INFINITY;
				for (int j = 0; j < n; j++) {
					rmin = row[j] < rmin ? row[j] : rmin;
					mins[m + j] = row[j] < mins[m + j] ? row[j] : mins[m + j];
				}
				mins[i] = rmin;
			}
		}
	}
	*pm = m;
	*pn = n;
	*pcmax = cmax;
}

/* ---- network simplex on the transportation problem ------------------------- */
/* Nodes: supply i is node i, demand j is node m+j. The basis is a spanning
 * tree rooted at node 0, stored per node v != 0 as its parent par[v], the
 * flow fl[v] of the arc between v and par[v] (supply to demand, whichever
 * of the two is the supply) and its depth; a preorder thread thr/rthr
 * (circular through the root) lists every subtree as one contiguous run.
 * Potentials pi give reduced costs r(i,j) = c(i,j) + pi[i] - pi[m+j], zero
 * on tree arcs. Workspace buffers, reused: par, depth, thr = nxt,
 * rthr = prv, fl = flow, the two sides of a pivot's cycle = ai and aj
 * (free once the tree is built), its per-path-node scratch (5 arrays) =
 * stack. */

struct tree {
	int m, n;
	const double *c;
	double *pi;
	int *par, *depth, *thr, *rthr, *sidep, *sideq, *lasts;
	int64_t *fl;
};

/* Initial basis. Greedy ("least cost" method, start == PMCFI_EMD_START_GREEDY):
 * the cheapest arcs first, each allocation shipping as much as it can and
 * deleting exactly one line (a row, or a column, never the last live one
 * of its kind), so the m+n-1 arcs chosen form a spanning tree. Only the
 * arcs up to GREEDY_T times the mean nearest distance are ordered (by
 * cost bucket); the lines left over, or all with PMCFI_EMD_START_ROWMIN,
 * are finished by row minima. Writes the arcs to ai/aj/af. */
static void initial_basis(pmcf_emd_ws *w, int m, int n, int greedy)
{
	int64_t *rs = w->qa, *rd = w->qb; /* remaining masses */
	unsigned char *live = w->done;    /* rows 0..m-1, then columns */
	memcpy(rs, w->sup, (size_t)m * sizeof(*rs));
	memcpy(rd, w->dem, (size_t)n * sizeof(*rd));
	memset(live, 1, (size_t)(m + n));
	int lr = m, lc = n, k = 0;
	const int goal = m + n - 1;
#define ALLOC(I, J)                                         \
	do {                                                \
		int64_t x_ = rs[I] < rd[J] ? rs[I] : rd[J]; \
		rs[I] -= x_;                                \
		rd[J] -= x_;                                \
		w->ai[k] = (I);                             \
		w->aj[k] = (J);                             \
		w->af[k++] = x_;                            \
		if (rs[I] == 0 && lr > 1) {                 \
			live[I] = 0;                        \
			lr--;                               \
		} else {                                    \
			live[m + (J)] = 0;                  \
			lc--;                               \
		}                                           \
	} while (0)

	if (greedy) {
		/* candidates: the arcs no longer than GREEDY_T times the mean
		 * distance of a point to its nearest counterpart */
		const double *mins = w->dist;
		double mean = 0;
		for (int v = 0; v < m + n; v++)
			mean += mins[v];
		double T = GREEDY_T * mean / (m + n);
		/* candidates packed as i << 16 | j (at most 2^15 points a side) */
		uint32_t *cand = (uint32_t *)w->flow, *sorted = cand + (size_t)m * (size_t)n;
		int nc = 0;            /* flow: >= m*n int64, free until the fallback */
		int *bucket = w->head; /* NBUCKET + 1 counters */
		for (int i = 0; i < m; i++) {
			const double *row = w->cost + (size_t)i * (size_t)n;
			int j = 0;
#ifdef __SSE2__
			__m128d vt = _mm_set1_pd(T);
			for (; j + 4 <= n; j += 4) {
				int b = _mm_movemask_pd(_mm_cmple_pd(_mm_loadu_pd(row + j), vt)) |
					_mm_movemask_pd(_mm_cmple_pd(_mm_loadu_pd(row + j + 2), vt)) << 2;
				for (; b; b &= b - 1)
					cand[nc++] = (uint32_t)i << 16 |
						     (uint32_t)(j + __builtin_ctz((unsigned)b));
			}
#endif
			for (; j < n; j++)
				if (row[j] <= T)
					cand[nc++] = (uint32_t)i << 16 | (uint32_t)j;
		}
		/* counting sort by cost bucket */
		double scale = T > 0 ? (NBUCKET - 1) / T : 0;
		memset(bucket, 0, (NBUCKET + 1) * sizeof(*bucket));
#define COST_OF(A) w->cost[(size_t)((A) >> 16) * (size_t)n + ((A)&0xffff)]
		for (int s = 0; s < nc; s++)
			bucket[1 + (int)(COST_OF(cand[s]) * scale)]++;
		for (int b = 0; b < NBUCKET; b++)
			bucket[b + 1] += bucket[b];
		for (int s = 0; s < nc; s++)
			sorted[bucket[(int)(COST_OF(cand[s]) * scale)]++] = cand[s];
#undef COST_OF
		for (int s = 0; s < nc && k < goal; s++) {
			int i = (int)(sorted[s] >> 16), j = (int)(sorted[s] & 0xffff);
			if (live[i] && live[m + j])
				ALLOC(i, j);
		}
	}
	/* the rest: row minima over the live columns */
	for (int i = 0; i < m && k < goal; i++) {
		while (live[i] && k < goal) {
			const double *row = w->cost + (size_t)i * (size_t)n;
			int best = -1;
			for (int j = 0; j < n; j++)
				if (live[m + j] && (best < 0 || row[j] < row[best]))
					best = j;
			ALLOC(i, best);
		}
	}
#undef ALLOC
	(void)lc;
}

/* Roots the basis arcs (ai/aj/af) at node 0: parents, flows, depths,
 * potentials and the preorder thread. */
static void build_tree(pmcf_emd_ws *w, const struct tree *t)
{
	int m = t->m, n = t->n, N = m + n, narcs = N - 1;
	int *off = w->head, *adj = w->prev, *stack = w->stack;
	memset(off, 0, (size_t)(N + 1) * sizeof(*off));
	for (int k = 0; k < narcs; k++) {
		off[w->ai[k] + 1]++;
		off[m + w->aj[k] + 1]++;
	}
	for (int v = 0; v < N; v++)
		off[v + 1] += off[v];
	int *pos = w->sa; /* fill positions (sa holds m+n) */
	for (int v = 0; v < N; v++)
		pos[v] = off[v];
	for (int k = 0; k < narcs; k++) {
		adj[pos[w->ai[k]]++] = k;
		adj[pos[m + w->aj[k]]++] = k;
	}
	int sp = 0, prevv = 0;
	t->par[0] = -1;
	t->depth[0] = 0;
	t->pi[0] = 0;
	t->fl[0] = 0;
	stack[sp++] = 0;
	while (sp) {
		int v = stack[--sp];
		if (v) { /* preorder: append v to the thread */
			t->thr[prevv] = v;
			t->rthr[v] = prevv;
			prevv = v;
		}
		for (int e = off[v]; e < off[v + 1]; e++) {
			int k = adj[e], u = v < m ? m + w->aj[k] : w->ai[k];
			if (u == t->par[v])
				continue;
			t->par[u] = v;
			t->depth[u] = t->depth[v] + 1;
			t->fl[u] = w->af[k];
			double c = t->c[(size_t)w->ai[k] * (size_t)n + (size_t)w->aj[k]];
			t->pi[u] = u < m ? t->pi[v] - c : t->pi[v] + c;
			stack[sp++] = u;
		}
	}
	t->thr[prevv] = 0;
	t->rthr[0] = prevv;
}

/* Most negative c[j] - pc[j] over a row (the caller adds the row's potential). */
static double row_min(const double *c, const double *pc, int n)
{
	int j = 0;
	double best = INFINITY;
#ifdef __SSE2__
	__m128d b0 = _mm_set1_pd(INFINITY), b1 = b0;
	for (; j + 4 <= n; j += 4) {
		b0 = _mm_min_pd(b0, _mm_sub_pd(_mm_loadu_pd(c + j), _mm_loadu_pd(pc + j)));
		b1 = _mm_min_pd(b1, _mm_sub_pd(_mm_loadu_pd(c + j + 2), _mm_loadu_pd(pc + j + 2)));
	}
	b0 = _mm_min_pd(b0, b1);
	b0 = _mm_min_sd(b0, _mm_unpackhi_pd(b0, b0));
	best = _mm_cvtsd_f64(b0);
#endif
	for (; j < n; j++) {
		double d = c[j] - pc[j];
		if (d < best)
			best = d;
	}
	return best;
}

/* First j with c[j] - pc[j] == v (v: the row's minimum, from row_min). */
static int row_find(const double *c, const double *pc, int n, double v)
{
	int j = 0;
#ifdef __SSE2__
	__m128d vv = _mm_set1_pd(v);
	for (; j + 4 <= n; j += 4) {
		int b = _mm_movemask_pd(
				_mm_cmpeq_pd(_mm_sub_pd(_mm_loadu_pd(c + j), _mm_loadu_pd(pc + j)), vv)) |
			_mm_movemask_pd(
				_mm_cmpeq_pd(_mm_sub_pd(_mm_loadu_pd(c + j + 2), _mm_loadu_pd(pc + j + 2)),
					     vv))
				<< 2;
		if (b)
			return j + __builtin_ctz((unsigned)b);
	}
#endif
	for (; j < n; j++)
		if (c[j] - pc[j] == v)
			return j;
	return 0; /* not reached: v is attained */
}

#ifdef HAVE_AVX2_PATH
/* The same with 256-bit vectors, for processors that have AVX2 (chosen at
 * run time; the results are identical, min and subtraction being exact
 * operations on the same doubles). */
__attribute__((target("avx2"))) static double row_min_avx2(const double *c, const double *pc, int n)
{
	int j = 0;
	__m256d b0 = _mm256_set1_pd(INFINITY), b1 = b0;
	for (; j + 8 <= n; j += 8) {
		b0 = _mm256_min_pd(b0, _mm256_sub_pd(_mm256_loadu_pd(c + j), _mm256_loadu_pd(pc + j)));
		b1 = _mm256_min_pd(b1,
				   _mm256_sub_pd(_mm256_loadu_pd(c + j + 4), _mm256_loadu_pd(pc + j + 4)));
	}
	b0 = _mm256_min_pd(b0, b1);
	__m128d h = _mm_min_pd(_mm256_castpd256_pd128(b0), _mm256_extractf128_pd(b0, 1));
	h = _mm_min_sd(h, _mm_unpackhi_pd(h, h));
	double best = _mm_cvtsd_f64(h);
	for (; j < n; j++) {
		double d = c[j] - pc[j];
		if (d < best)
			best = d;
	}
	return best;
}
#endif

/* One pivot on entering arc (p, q) with reduced cost r < 0: pushes flow
 * round the cycle, swaps the leaving arc for the entering one and re-hangs
 * the cut-off subtree below the entering arc (thread spliced piecewise,
 * depths and potentials updated over that subtree only). */
static void pivot(struct tree *t, int p, int q, double r)
{
	int m = t->m, P = p, Q = m + q;
	int *par = t->par, *depth = t->depth, *thr = t->thr, *rthr = t->rthr;
	int64_t *fl = t->fl;
	/* the apex, recording both sides of the cycle below it: the deeper
	 * side climbs alone to the other's depth, then both climb together
	 * (predictable branches) */
	int *sp = t->sidep, *sq = t->sideq, np = 0, nq = 0, a = P, b = Q;
	int da = depth[P], db = depth[Q];
	for (; da > db; da--, a = par[a])
		sp[np++] = a;
	for (; db > da; db--, b = par[b])
		sq[nq++] = b;
	while (a != b) {
		sp[np++] = a;
		sq[nq++] = b;
		a = par[a];
		b = par[b];
	}
	/* flow is pushed P -> Q -> up to the apex -> down to P; losing arcs: on
	 * Q's side those whose child is a demand, on P's side those whose child
	 * is a supply. Leaving arc: the last blocking arc counted from the apex
	 * (down P's side, then up Q's side), which keeps ties deterministic. */
	int64_t tp = INT64_MAX, tq = INT64_MAX;
	int op = -1, oq = -1;
	for (int s = 0; s < np; s++) {
		int v = sp[s];
		if (v < m && fl[v] < tp) {
			tp = fl[v];
			op = s;
		}
	}
	for (int s = 0; s < nq; s++) {
		int v = sq[s];
		if (v >= m && fl[v] <= tq) {
			tq = fl[v];
			oq = s;
		}
	}
	int outq = tq <= tp;
	int64_t theta = outq ? tq : tp;
	if (theta) {
		for (int s = 0; s < np; s++)
			fl[sp[s]] += sp[s] < m ? -theta : theta;
		for (int s = 0; s < nq; s++)
			fl[sq[s]] += sq[s] >= m ? -theta : theta;
	}
	int X = outq ? Q : P, Y = outq ? P : Q; /* X lies in the cut-off subtree */
	double delta = outq ? r : -r;           /* potential shift of that subtree */

	/* path X = x0, x1, ..., xk = out: a prefix of X's side */
	int *x = outq ? sq : sp, k = outq ? oq : op, out = x[k];
	/* new depth minus old depth of the nodes hanging from each x_s */
	int *last = t->lasts, *dd = last + k + 1, *od = dd + k + 1, dY = depth[Y];
	for (int s = 0; s <= k; s++) {
		od[s] = depth[x[s]];
		dd[s] = dY + 1 + s - od[s];
	}
	/* one walk over the old subtree of out, in the old preorder: every node
	 * belongs to its nearest ancestor x_s on the path (the innermost open
	 * one); x_s closes, innermost first, where the depth falls back, which
	 * gives the ends last[s] of the old subtrees */
	int open = k, next_open = k - 1, nx = k > 0 ? x[k - 1] : -1;
	int *restrict dep = depth;
	const int *restrict th = thr;
	double *restrict pi = t->pi;
	int v = out, dv = dep[out], ddo = dd[k], odo = od[k];
	for (;;) {
		if (v == nx) {
			open = next_open--;
			nx = next_open >= 0 ? x[next_open] : -1;
			ddo = dd[open];
			odo = od[open];
		}
		int nv = th[v], dn = dep[nv];
		dep[v] = dv + ddo;
		pi[v] += delta;
		if (dn <= odo) {
			do
				last[open++] = v;
			while (open <= k && dn <= od[open]);
			if (open > k)
				break;
			ddo = dd[open];
			odo = od[open];
		}
		v = nv;
		dv = dn;
	}
	/* parents and flows along the path */
	for (int s = k - 1; s >= 0; s--) {
		par[x[s + 1]] = x[s];
		fl[x[s + 1]] = fl[x[s]];
	}
	par[X] = Y;
	fl[X] = theta;
	/* the new preorder of the subtree, in runs of the old one: x0's
	 * subtree; then for s >= 1, x_s up to just before x_{s-1}, and after
	 * x_{s-1}'s subtree up to the end of x_s's. The links that delimit the
	 * runs are read before any is rewritten. */
	int *rs = od, *re = rs + k + 1, *as = re + k + 1; /* od is no longer needed */
	for (int s = 1; s <= k; s++) {
		rs[s] = x[s];
		re[s] = rthr[x[s - 1]];
		as[s] = last[s - 1] != last[s] ? thr[last[s - 1]] : -1;
	}
	int before = rthr[out], after = thr[last[k]];
	thr[before] = after; /* cut the old run out */
	rthr[after] = before;
	int tail = Y, ytail = thr[Y];
#define RUN(FROM, TO)               \
	do {                        \
		thr[tail] = (FROM); \
		rthr[FROM] = tail;  \
		tail = (TO);        \
	} while (0)
	RUN(X, last[0]);
	for (int s = 1; s <= k; s++) {
		RUN(rs[s], re[s]);
		if (as[s] >= 0)
			RUN(as[s], last[s]);
	}
#undef RUN
	thr[tail] = ytail;
	rthr[ytail] = tail;
}

/* Returns 0 when optimal, 1 when the pivot bound was hit. */
static int network_simplex(pmcf_emd_ws *w, int m, int n, double cmax, int greedy)
{
	struct tree t = {m,      n,      w->cost, w->pot, w->par,   w->depth,
			 w->nxt, w->prv, w->ai,   w->aj,  w->stack, w->flow};
	initial_basis(w, m, n, greedy);
	build_tree(w, &t);

	const double eps = cmax * 1e-11;
	/* block pricing over whole rows: at least sqrt(arcs) arcs a block */
	int rows = (int)ceil(BLOCK * sqrt((double)m * (double)n) / (double)n);
	if (rows < 1)
		rows = 1;
	const double *pc = w->pot + m;
	double (*rowmin)(const double *, const double *, int) = row_min;
#ifdef HAVE_AVX2_PATH
	if (__builtin_cpu_supports("avx2"))
		rowmin = row_min_avx2;
#endif
	long bound = w->max_pivots ? w->max_pivots : 2000L + 200L * (m + n);
	w->pivots = 0;
	int i = 0;
	for (;;) {
		int scanned = 0, best_i = -1;
		double best = -eps, best_raw = 0;
		while (scanned < m) {
			int end = scanned + rows < m ? scanned + rows : m;
			for (; scanned < end; scanned++) {
				double raw = rowmin(w->cost + (size_t)i * (size_t)n, pc, n),
				       r = raw + w->pot[i];
				if (r < best) {
					best = r;
					best_raw = raw;
					best_i = i;
				}
				if (++i == m)
					i = 0;
			}
			if (best_i >= 0)
				break;
		}
		if (best_i < 0)
			return 0;
		if (w->pivots >= bound)
			return 1;
		w->pivots++;
		/* the entering column: the first where the row attains its
		 * minimum (the same subtractions as rowmin, so exactly equal) */
		const double *row = w->cost + (size_t)best_i * (size_t)n;
		int q = row_find(row, pc, n, best_raw);
		pivot(&t, best_i, q, best);
	}
}

/* ---- fallback: successive shortest paths (exact, always terminates) --------- */
/* Supplies 0..m-1, demands m..m+n-1, the sink t = m+n; the source has
 * potential 0. Dijkstra on reduced costs c(u,v) + pot[u] - pot[v] >= 0. */
static double ssp(pmcf_emd_ws *w, int m, int n)
{
	int t = m + n, N = m + n + 1;
	int64_t *rs = w->qa, *rd = w->qb;
	memcpy(rs, w->sup, (size_t)m * sizeof(*rs));
	memcpy(rd, w->dem, (size_t)n * sizeof(*rd));
	memset(w->flow, 0, (size_t)m * (size_t)n * sizeof(*w->flow));
	for (int v = 0; v < N; v++)
		w->pot[v] = 0;
	int64_t left = MASS;
	while (left > 0) {
		for (int v = 0; v < N; v++) {
			w->dist[v] = (v < m && rs[v] > 0) ? (w->pot[v] < 0 ? -w->pot[v] : 0) : INFINITY;
			w->prev[v] = -1;
			w->done[v] = 0;
		}
		for (;;) {
			int u = -1;
			for (int v = 0; v < N; v++)
				if (!w->done[v] && w->dist[v] < INFINITY &&
				    (u < 0 || w->dist[v] < w->dist[u]))
					u = v;
			if (u < 0 || u == t)
				break;
			w->done[u] = 1;
			if (u < m) {
				const double *row = w->cost + (size_t)u * (size_t)n;
				for (int j = 0; j < n; j++) {
					int v = m + j;
					double r = row[j] + w->pot[u] - w->pot[v];
					double d = w->dist[u] + (r > 0 ? r : 0);
					if (!w->done[v] && d < w->dist[v]) {
						w->dist[v] = d;
						w->prev[v] = u;
					}
				}
			} else {
				int j = u - m;
				for (int i = 0; i < m; i++) {
					if (w->done[i] || w->flow[(size_t)i * (size_t)n + (size_t)j] <= 0)
						continue;
					double r = -w->cost[(size_t)i * (size_t)n + (size_t)j] + w->pot[u] -
						   w->pot[i];
					double d = w->dist[u] + (r > 0 ? r : 0);
					if (d < w->dist[i]) {
						w->dist[i] = d;
						w->prev[i] = u;
					}
				}
				if (rd[j] > 0) {
					double r = w->pot[u] - w->pot[t];
					double d = w->dist[u] + (r > 0 ? r : 0);
					if (d < w->dist[t]) {
						w->dist[t] = d;
						w->prev[t] = u;
					}
				}
			}
		}
		if (w->prev[t] < 0)
			break; /* cannot happen with equal totals */
		double dt = w->dist[t];
		for (int v = 0; v < N; v++)
			w->pot[v] += w->dist[v] < dt ? w->dist[v] : dt;
		/* bottleneck along the path */
		int last = w->prev[t], v = last, src = last;
		int64_t x = rd[last - m];
		while (v >= 0) {
			int u = w->prev[v];
			if (u < 0) {
				src = v;
				break;
			}
			if (u >= m) { /* backward arc: demand u -> supply v */
				int64_t f = w->flow[(size_t)v * (size_t)n + (size_t)(u - m)];
				if (f < x)
					x = f;
			}
			v = u;
		}
		if (rs[src] < x)
			x = rs[src];
		for (v = last; w->prev[v] >= 0; v = w->prev[v]) {
			int u = w->prev[v];
			if (u < m)
				w->flow[(size_t)u * (size_t)n + (size_t)(v - m)] += x;
			else
				w->flow[(size_t)v * (size_t)n + (size_t)(u - m)] -= x;
		}
		rs[src] -= x;
		rd[last - m] -= x;
		left -= x;
	}
	double work = 0;
	for (size_t e = 0; e < (size_t)m * (size_t)n; e++)
		if (w->flow[e])
			work += (double)w->flow[e] * w->cost[e];
	return work / (double)MASS;
}

static int check_side(const char *side, size_t dim, const double *wt, const double *x, size_t np,
		      double *total)
{
	double t = 0;
	for (size_t i = 0; i < np; i++) {
		if (!isfinite(wt[i]) || wt[i] < 0)
			return pmcfi_fail(PMCF_EINVAL,
					  "EMD: weight %zu of %s is %g (must be finite and >= 0)", i + 1,
					  side, wt[i]);
		for (size_t k = 0; k < dim; k++)
			if (!isfinite(x[i * dim + k]) ||
			    fabs(x[i * dim + k]) > 1e150) /* distances stay finite */
				return pmcfi_fail(PMCF_EINVAL, "EMD: point %zu of %s has a coordinate %g",
						  i + 1, side, x[i * dim + k]);
		t += wt[i];
	}
	if (!(t > 0) || !isfinite(t))
		return pmcfi_fail(PMCF_EINVAL, "EMD: the weights of %s sum to %g (must be > 0)", side, t);
	*total = t;
	return 0;
}

int pmcf_emd(pmcf_emd_ws *ws, size_t dim, const double *wa, const double *xa, size_t na, const double *wb,
	     const double *xb, size_t nb, double *out)
{
	return pmcfi_emd_start(ws, dim, wa, xa, na, wb, xb, nb, PMCFI_EMD_START_GREEDY, out);
}

int pmcfi_emd_start(pmcf_emd_ws *ws, size_t dim, const double *wa, const double *xa, size_t na,
		    const double *wb, const double *xb, size_t nb, int start, double *out)
{
	pmcfi_clear_error();
	*out = NAN;
	if (dim < 1 || dim > 16)
		return pmcfi_fail(PMCF_EINVAL, "EMD: %zu dimensions (1 to 16 supported)", dim);
	if (na == 0 || nb == 0)
		return pmcfi_fail(PMCF_EINVAL, "EMD: a point set is empty");
	if (na > (1u << 15) || nb > (1u << 15))
		return pmcfi_fail(PMCF_EINVAL, "EMD: more than %u points on a side", 1u << 15);
	double ta, tb;
	int err = check_side("the first set", dim, wa, xa, na, &ta);
	if (!err)
		err = check_side("the second set", dim, wb, xb, nb, &tb);
	if (err)
		return err;
	if (fabs(ta - tb) > 1e-6 * (ta > tb ? ta : tb))
		return pmcfi_fail(PMCF_EINVAL, "EMD: the totals differ (%.17g and %.17g)", ta, tb);
	pmcf_emd_ws *tmp = NULL;
	if (!ws) {
		if ((err = pmcf_emd_ws_new(&tmp)))
			return err;
		ws = tmp;
	}
	if ((err = reserve(ws, na, nb))) {
		pmcf_emd_ws_free(tmp);
		return err;
	}
	pmcf_emd_ws *w = ws;
	w->pivots = 0;
	w->fallback = 0;
	to_integers(wa, na, ta, w->qa);
	to_integers(wb, nb, tb, w->qb);
	int m, n;
	double cmax = 0, work = 0;
	prepare(w, dim, xa, na, xb, nb, &m, &n, &cmax);
	if (m > 0 && n > 0) {
		if (m == 1 || n == 1) {
			for (size_t e = 0; e < (size_t)m * (size_t)n; e++)
				work += (double)(m == 1 ? w->dem[e] : w->sup[e]) * w->cost[e];
			work /= (double)MASS;
		} else if (w->max_pivots >= 0 &&
			   network_simplex(w, m, n, cmax, start == PMCFI_EMD_START_GREEDY) == 0) {
			for (int v = 1; v < m + n; v++)
				if (w->flow[v])
					work += (double)w->flow[v] *
						(v < m ? w->cost[(size_t)v * (size_t)n +
								 (size_t)(w->par[v] - m)]
						       : w->cost[(size_t)w->par[v] * (size_t)n +
								 (size_t)(v - m)]);
			work /= (double)MASS;
		} else {
			w->fallback = 1;
			pmcfi_log(PMCF_LOG_DEBUG,
				  "EMD: %ld pivots without optimum on %d x %d; exact fallback", w->pivots, m,
				  n);
			work = ssp(w, m, n);
		}
	}
	pmcf_emd_ws_free(tmp);
	*out = work;
	return 0;
}
