/* Exact earth mover's distance (fuse-task-parallel §4.2) between two small
 * weighted point sets: masses scaled to integers, shared mass at identical
 * locations cancelled, then a transportation network simplex (row-minimum
 * start, block pricing, subtree potential updates) with a bounded number of
 * pivots and an exact successive-shortest-path fallback. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "evaluate/evaluate_impl.h"
#include "util/internal.h"

/* Total integer mass of each side: 2^50 keeps sums exact in int64 and flows
 * exact in doubles, with a rounding error below 1e-15 of the total. */
#define MASS ((int64_t)1 << 50)

int pmcf_emd_ws_new(pmcf_emd_ws **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : pmcfi_fail(PMCF_ENOMEM, "out of memory");
}

static void free_buffers(pmcf_emd_ws *w)
{
	void *bufs[] = {w->cost, w->sup, w->dem, w->ia, w->ib, w->sa, w->sb, w->qa,
			w->qb, w->pot, w->ai, w->aj, w->af, w->head, w->nxt, w->prv,
			w->par, w->depth, w->stack, w->cyc, w->flow, w->dist, w->prev, w->done};
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

#define GROW(p, n) ((p) = realloc((p), (n) * sizeof(*(p))), (p) != NULL)

static int reserve(pmcf_emd_ws *w, size_t na, size_t nb)
{
	if (na <= w->cap_m && nb <= w->cap_n)
		return 0;
	size_t m = na > w->cap_m ? na : w->cap_m, n = nb > w->cap_n ? nb : w->cap_n;
	size_t nodes = m + n, arcs = m + n;
	int ok = GROW(w->cost, m * n) && GROW(w->sup, m) && GROW(w->dem, n) && GROW(w->ia, m) &&
		 GROW(w->ib, n) && GROW(w->sa, m) && GROW(w->sb, n) && GROW(w->qa, m) &&
		 GROW(w->qb, n) && GROW(w->pot, nodes + 1) && GROW(w->ai, arcs) && GROW(w->aj, arcs) &&
		 GROW(w->af, arcs) && GROW(w->head, nodes) && GROW(w->nxt, 2 * arcs) &&
		 GROW(w->prv, 2 * arcs) && GROW(w->par, nodes) && GROW(w->depth, nodes) &&
		 GROW(w->stack, nodes + 1) && GROW(w->cyc, nodes + 1) && GROW(w->flow, m * n) &&
		 GROW(w->dist, nodes + 1) && GROW(w->prev, nodes + 1) && GROW(w->done, nodes + 1);
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

struct sort_ctx {
	const double *x;
	size_t dim;
};

static int cmp_points(const void *pa, const void *pb, void *pc)
{
	const struct sort_ctx *c = pc;
	const double *a = c->x + (size_t) * (const int *)pa * c->dim;
	const double *b = c->x + (size_t) * (const int *)pb * c->dim;
	for (size_t k = 0; k < c->dim; k++)
		if (a[k] != b[k])
			return a[k] < b[k] ? -1 : 1;
	return 0;
}

static int cmp_between(const double *a, const double *b, size_t dim)
{
	for (size_t k = 0; k < dim; k++)
		if (a[k] != b[k])
			return a[k] < b[k] ? -1 : 1;
	return 0;
}

/* Mass at the same location on both sides travels nowhere: remove it. */
static void cancel_shared(pmcf_emd_ws *w, size_t dim, const double *xa, size_t na,
			  const double *xb, size_t nb)
{
	for (size_t i = 0; i < na; i++)
		w->sa[i] = (int)i;
	for (size_t j = 0; j < nb; j++)
		w->sb[j] = (int)j;
	struct sort_ctx ca = {xa, dim}, cb = {xb, dim};
	qsort_r(w->sa, na, sizeof(int), cmp_points, &ca);
	qsort_r(w->sb, nb, sizeof(int), cmp_points, &cb);
	size_t i = 0, j = 0;
	while (i < na && j < nb) {
		int c = cmp_between(xa + (size_t)w->sa[i] * dim, xb + (size_t)w->sb[j] * dim, dim);
		if (c < 0) {
			i++;
		} else if (c > 0) {
			j++;
		} else {
			int64_t *qa = &w->qa[w->sa[i]], *qb = &w->qb[w->sb[j]];
			int64_t s = *qa < *qb ? *qa : *qb;
			*qa -= s;
			*qb -= s;
			if (*qa == 0)
				i++;
			if (*qb == 0)
				j++;
		}
	}
}

/* ---- network simplex on the transportation problem ------------------------- */
/* Nodes: supply i is node i, demand j is node m+j. Basic arc k joins ai[k]
 * and aj[k]; its adjacency entries are 2k (in the list of node ai[k]) and
 * 2k+1 (node m+aj[k]). */

static void link_arc(pmcf_emd_ws *w, int m, int k)
{
	int nodes[2] = {w->ai[k], m + w->aj[k]};
	for (int s = 0; s < 2; s++) {
		int e = 2 * k + s, v = nodes[s];
		w->prv[e] = -1;
		w->nxt[e] = w->head[v];
		if (w->head[v] >= 0)
			w->prv[w->head[v]] = e;
		w->head[v] = e;
	}
}

static void unlink_arc(pmcf_emd_ws *w, int m, int k)
{
	int nodes[2] = {w->ai[k], m + w->aj[k]};
	for (int s = 0; s < 2; s++) {
		int e = 2 * k + s;
		if (w->prv[e] >= 0)
			w->nxt[w->prv[e]] = w->nxt[e];
		else
			w->head[nodes[s]] = w->nxt[e];
		if (w->nxt[e] >= 0)
			w->prv[w->nxt[e]] = w->prv[e];
	}
}

/* Sets parent arc, depth and potential of every node of the subtree hanging
 * from root (whose own par/depth/pot are already set), not crossing
 * root's parent arc. */
static void dfs(pmcf_emd_ws *w, int m, int n, int root)
{
	int sp = 0;
	w->stack[sp++] = root;
	while (sp) {
		int v = w->stack[--sp];
		for (int e = w->head[v]; e >= 0; e = w->nxt[e]) {
			int k = e >> 1;
			if (k == w->par[v])
				continue;
			int u = (e & 1) ? w->ai[k] : m + w->aj[k];
			w->par[u] = k;
			w->depth[u] = w->depth[v] + 1;
			w->pot[u] = w->cost[(size_t)w->ai[k] * (size_t)n + (size_t)w->aj[k]] - w->pot[v];
			w->stack[sp++] = u;
		}
	}
}

static int other_end(const pmcf_emd_ws *w, int m, int k, int v)
{
	return v == w->ai[k] ? m + w->aj[k] : w->ai[k];
}

/* Row-minimum start: each step takes the first live supply, ships to its
 * cheapest live demand and deletes one line, which gives a spanning tree of
 * m+n-1 arcs. */
static void initial_basis(pmcf_emd_ws *w, int m, int n)
{
	int64_t *rs = w->qa, *rd = w->qb; /* reused as remaining masses */
	int *live_col = w->sb;            /* live demands, compacted */
	int ncol = n;
	memcpy(rs, w->sup, (size_t)m * sizeof(*rs));
	memcpy(rd, w->dem, (size_t)n * sizeof(*rd));
	for (int j = 0; j < n; j++)
		live_col[j] = j;
	for (int v = 0; v < m + n; v++)
		w->head[v] = -1;
	int k = 0, i = 0;
	while (k < m + n - 1) {
		const double *row = w->cost + (size_t)i * (size_t)n;
		int best = 0;
		for (int c = 1; c < ncol; c++)
			if (row[live_col[c]] < row[live_col[best]])
				best = c;
		int j = live_col[best];
		int64_t x = rs[i] < rd[j] ? rs[i] : rd[j];
		rs[i] -= x;
		rd[j] -= x;
		w->ai[k] = i;
		w->aj[k] = j;
		w->af[k] = x;
		link_arc(w, m, k);
		k++;
		if (rs[i] == 0 && i < m - 1) {
			i++; /* delete the row */
		} else {
			live_col[best] = live_col[--ncol]; /* delete the column */
			if (ncol == 0)
				break;
		}
	}
}

/* Returns 0 when optimal, 1 when the pivot bound was hit. */
static int network_simplex(pmcf_emd_ws *w, int m, int n, double cmax)
{
	initial_basis(w, m, n);
	w->par[0] = -1;
	w->depth[0] = 0;
	w->pot[0] = 0;
	dfs(w, m, n, 0);

	const double eps = cmax * 1e-11;
	const size_t narcs = (size_t)m * (size_t)n;
	size_t block = (size_t)sqrt((double)narcs);
	if (block < 16)
		block = 16;
	size_t next = 0;
	long bound = w->max_pivots ? w->max_pivots : 2000L + 200L * (m + n);
	w->pivots = 0;
	for (;;) {
		/* block pricing: the most negative reduced cost of the next block */
		size_t scanned = 0, best_e = 0;
		double best = -eps;
		int found = 0;
		size_t i = next / (size_t)n, j = next % (size_t)n;
		while (scanned < narcs) {
			size_t end = scanned + block < narcs ? scanned + block : narcs;
			for (; scanned < end; scanned++) {
				double r = w->cost[i * (size_t)n + j] - w->pot[i] - w->pot[(size_t)m + j];
				if (r < best) {
					best = r;
					best_e = i * (size_t)n + j;
					found = 1;
				}
				if (++j == (size_t)n) {
					j = 0;
					if (++i == (size_t)m)
						i = 0;
				}
			}
			if (found)
				break;
		}
		if (!found)
			return 0;
		next = i * (size_t)n + j;
		if (w->pivots >= bound)
			return 1;
		w->pivots++;

		/* the cycle: entering arc P->Q, then Q up to the apex, the apex down to P */
		int p = (int)(best_e / (size_t)n), q = (int)(best_e % (size_t)n);
		int P = p, Q = m + q, a = Q, b = P;
		int na = 0, nb = 0; /* arcs from Q upwards in cyc[0..na), from P downwards at the end */
		int total = m + n;
		while (a != b) {
			if (w->depth[a] >= w->depth[b]) {
				w->cyc[na++] = w->par[a];
				a = other_end(w, m, w->par[a], a);
			} else {
				w->cyc[total - 1 - nb++] = w->par[b];
				b = other_end(w, m, w->par[b], b);
			}
		}
		/* the arcs at even positions counted from either end lose flow; the
		 * leaving arc is the last blocking one in cycle order from the apex:
		 * down to P, the entering arc, up from Q to the apex */
		int64_t theta = INT64_MAX;
		int leave = -1, leave_side = 0;
		for (int t = nb - 1; t >= 0; t--) {
			if (t % 2)
				continue;
			int k = w->cyc[total - 1 - t];
			if (w->af[k] <= theta) { /* apex down to P: later is smaller t */
				theta = w->af[k];
				leave = k;
				leave_side = 0;
			}
		}
		for (int t = 0; t < na; t += 2) {
			int k = w->cyc[t];
			if (w->af[k] <= theta) {
				theta = w->af[k];
				leave = k;
				leave_side = 1;
			}
		}
		for (int t = 0; t < na; t++)
			w->af[w->cyc[t]] += (t % 2) ? theta : -theta;
		for (int t = 0; t < nb; t++)
			w->af[w->cyc[total - 1 - t]] += (t % 2) ? theta : -theta;

		/* swap the leaving arc for the entering one: the tree falls in two
		 * parts; the one without the root is re-hung below the entering arc */
		unlink_arc(w, m, leave);
		w->ai[leave] = p;
		w->aj[leave] = q;
		w->af[leave] = theta;
		link_arc(w, m, leave);
		int X = leave_side ? Q : P, Y = leave_side ? P : Q; /* X: in the cut subtree */
		w->par[X] = leave;
		w->depth[X] = w->depth[Y] + 1;
		w->pot[X] = w->cost[best_e] - w->pot[Y];
		dfs(w, m, n, X);
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
				if (!w->done[v] && w->dist[v] < INFINITY && (u < 0 || w->dist[v] < w->dist[u]))
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
					double r = -w->cost[(size_t)i * (size_t)n + (size_t)j] + w->pot[u] - w->pot[i];
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
			return pmcfi_fail(PMCF_EINVAL, "EMD: weight %zu of %s is %g (must be finite and >= 0)",
					  i + 1, side, wt[i]);
		for (size_t k = 0; k < dim; k++)
			if (!isfinite(x[i * dim + k]))
				return pmcfi_fail(PMCF_EINVAL, "EMD: point %zu of %s has a coordinate %g",
						  i + 1, side, x[i * dim + k]);
		t += wt[i];
	}
	if (!(t > 0) || !isfinite(t))
		return pmcfi_fail(PMCF_EINVAL, "EMD: the weights of %s sum to %g (must be > 0)", side, t);
	*total = t;
	return 0;
}

int pmcf_emd(pmcf_emd_ws *ws, size_t dim, const double *wa, const double *xa, size_t na,
	     const double *wb, const double *xb, size_t nb, double *out)
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
	cancel_shared(w, dim, xa, na, xb, nb);
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
	double work = 0;
	if (m > 0 && n > 0) {
		double cmax = 0;
		for (int i = 0; i < m; i++) {
			const double *pa = xa + (size_t)w->ia[i] * dim;
			double *row = w->cost + (size_t)i * (size_t)n;
			for (int j = 0; j < n; j++) {
				const double *pb = xb + (size_t)w->ib[j] * dim;
				double s = 0;
				for (size_t k = 0; k < dim; k++) {
					double d = pa[k] - pb[k];
					s += d * d;
				}
				row[j] = sqrt(s);
				if (row[j] > cmax)
					cmax = row[j];
			}
		}
		if (m == 1 || n == 1) {
			for (size_t e = 0; e < (size_t)m * (size_t)n; e++)
				work += (double)(m == 1 ? w->dem[e] : w->sup[e]) * w->cost[e];
			work /= (double)MASS;
		} else if (w->max_pivots >= 0 && network_simplex(w, m, n, cmax) == 0) {
			for (int k = 0; k < m + n - 1; k++)
				work += (double)w->af[k] * w->cost[(size_t)w->ai[k] * (size_t)n + (size_t)w->aj[k]];
			work /= (double)MASS;
		} else {
			w->fallback = 1;
			pmcfi_log(PMCF_LOG_DEBUG, "EMD: %ld pivots without optimum on %d x %d; exact fallback",
				  w->pivots, m, n);
			work = ssp(w, m, n);
		}
	}
	pmcf_emd_ws_free(tmp);
	*out = work;
	return 0;
}
