/* Behaviour Clustering (fuse-task-parallel §3.2, Algorithms 3-4;
 * fuse-openmp §3): profiles are folded in order; at each step, per XU type,
 * XUs of the fused-so-far profile (T_prev) and of the next profile (T_cur)
 * are clustered on a grid over their overlapping events E_com and paired
 * inside each cell, the grid division d going from dmax down to 1 with the
 * paper's relaxation between iterations. Only occupied cells exist: items
 * are sorted by a hash of their cell coordinates, never d^|E_com| cells. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "combine/combine_impl.h"
#include "sim/rng.h"
#include "util/internal.h"

/* Largest grid division: cells finer than 2^20 per dimension separate
 * nothing that exact ties do not (and keep coordinates in 32 bits). */
#define DMAX_CAP (1u << 20)
/* Work bounds of the relaxation search (pairs of cells / of XUs looked at);
 * past them the closest pair found so far is used, which only relaxes d a
 * little more than the exact search would. */
#define CELL_WORK (20u * 1000u * 1000u)
#define XU_WORK (20u * 1000u * 1000u)

struct item {
	uint64_t h;     /* hash of the cell coordinates */
	uint32_t id;    /* prev: 0..np-1, cur: np..np+nc-1 */
	uint32_t rank;  /* label order (bc) or a random number (bc-unlabeled) */
	uint8_t side;   /* 0 prev, 1 cur */
};

struct cell {
	uint32_t start, cnt; /* leftover items left[start .. start+cnt) */
	uint8_t side;
	const int32_t *co;
	uint64_t key;        /* sum of the coordinates: the sweep axis */
};

/* One step for one type. */
struct grid {
	size_t k;          /* dimensions: overlapping events with a range > 0 */
	size_t np, nc;
	const double *v;   /* (np + nc) x k values */
	double *lo, *range;
	int32_t *co;       /* (np + nc) x k coordinates of the current grid */
	uint32_t *rank;    /* per id */
	int strategy;
	struct sim_rng rng;
	/* output: pairs (prev id, cur id), leftovers */
	uint32_t *pp, *pc;
	size_t npairs;
	size_t iterations;
	unsigned dmax;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* calc_max_div (§3.2): per overlapping event, the smallest difference
 * between an XU of T_prev and one of T_cur, as a grid division
 * range / difference; dmax is the smallest of these. */
static unsigned calc_max_div(const struct grid *g, double *a, double *b)
{
	double dmax = DMAX_CAP;
	for (size_t e = 0; e < g->k; e++) {
		for (size_t i = 0; i < g->np; i++)
			a[i] = g->v[i * g->k + e];
		for (size_t i = 0; i < g->nc; i++)
			b[i] = g->v[(g->np + i) * g->k + e];
		qsort(a, g->np, sizeof(double), cmp_double);
		qsort(b, g->nc, sizeof(double), cmp_double);
		double best = INFINITY;
		for (size_t i = 0, j = 0; i < g->np && j < g->nc;) {
			double dd = fabs(a[i] - b[j]);
			if (dd < best)
				best = dd;
			if (a[i] < b[j])
				i++;
			else
				j++;
		}
		if (best > 0 && g->range[e] / best < dmax)
			dmax = g->range[e] / best;
	}
	return dmax < 1 ? 1u : (unsigned)dmax;
}

static void coords(struct grid *g, struct item *it, size_t n, unsigned d)
{
	for (size_t q = 0; q < n; q++) {
		uint32_t id = it[q].id;
		int32_t *co = g->co + (size_t)id * g->k;
		uint64_t h = CMBI_HASH0;
		for (size_t e = 0; e < g->k; e++) {
			double x = g->v[(size_t)id * g->k + e];
			double r = pmcf_is_missing(x) ? 0 : (x - g->lo[e]) / g->range[e] * d;
			int32_t c = r < 0 ? 0 : r >= d ? (int32_t)d - 1 : (int32_t)r;
			co[e] = c;
			h = (h ^ (uint32_t)c) * 1099511628211ull;
		}
		it[q].h = h;
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

static int64_t cell_dist2(const struct grid *g, const struct cell *a, const struct cell *b)
{
	int64_t s = 0;
	for (size_t e = 0; e < g->k; e++) {
		int64_t dd = (int64_t)a->co[e] - b->co[e];
		s += dd * dd;
	}
	return s;
}

/* calc_reduced_div (§3.2): the closest pairs of leftover cells (Euclidean
 * distance of their integer coordinates, one holding T_prev XUs, the other
 * T_cur XUs), then the closest cross pair of XUs between them, in grid
 * divisions (m); the next cells are (1 + m) times as large. */
static void sort_cells(struct cell *cl, struct cell *tmp, size_t n);

static unsigned calc_reduced_div(const struct grid *g, struct cell *cl, struct cell *tmp,
				 size_t ncl, const struct item *rem, unsigned d)
{
	sort_cells(cl, tmp, ncl);
	/* sweep along the diagonal: |sum a - sum b|^2 <= k |a - b|^2 */
	int64_t best = INT64_MAX, k = (int64_t)(g->k ? g->k : 1);
	size_t work = 0;
	for (size_t a = 0; a < ncl && work < CELL_WORK; a++)
		for (size_t b = a + 1; b < ncl && work < CELL_WORK; b++, work++) {
			int64_t ds = (int64_t)(cl[b].key - cl[a].key);
			if (best != INT64_MAX && ds * ds > k * best)
				break;
			if (cl[a].side == cl[b].side)
				continue;
			int64_t dd = cell_dist2(g, &cl[a], &cl[b]);
			if (dd < best)
				best = dd;
		}
	if (best == INT64_MAX)
		return d > 1 ? d - 1 : 1;
	double m2 = INFINITY;
	work = 0;
	size_t xwork = 0;
	for (size_t a = 0; a < ncl && work < CELL_WORK && xwork < XU_WORK; a++)
		for (size_t b = a + 1; b < ncl && work < CELL_WORK; b++, work++) {
			int64_t ds = (int64_t)(cl[b].key - cl[a].key);
			if (ds * ds > k * best)
				break;
			if (cl[a].side == cl[b].side || cell_dist2(g, &cl[a], &cl[b]) != best)
				continue;
			for (uint32_t x = 0; x < cl[a].cnt; x++)
				for (uint32_t y = 0; y < cl[b].cnt; y++, xwork++) {
					double dd = xu_dist2(g, rem[cl[a].start + x].id,
							     rem[cl[b].start + y].id, d);
					if (dd < m2)
						m2 = dd;
				}
		}
	double next = isfinite(m2) ? floor((double)d / (1.0 + sqrt(m2))) : (double)d - 1;
	if (next >= d)
		next = (double)d - 1;
	return next < 1 ? 1u : (unsigned)next;
}

static int cmp_rank(const void *a, const void *b)
{
	const struct item *p = a, *q = b;
	if (p->rank != q->rank)
		return p->rank < q->rank ? -1 : 1;
	return (p->id > q->id) - (p->id < q->id);
}

/* Stable grouping of it[0..n) by cell (hash; a 64-bit collision between
 * two occupied cells is negligible and would only merge them) into out:
 * O(n), keeping the order of the items inside each cell. */
static int group_cells(const struct item *it, size_t n, struct item *out, uint32_t *slotof,
		       uint64_t **tab_h, uint32_t **tab_c, size_t *tab_cap)
{
	size_t cap = 16;
	while (cap < 2 * n)
		cap *= 2;
	if (cap > *tab_cap) {
		uint64_t *h = realloc(*tab_h, cap * sizeof(uint64_t));
		if (h)
			*tab_h = h;
		uint32_t *c = realloc(*tab_c, 2 * cap * sizeof(uint32_t));
		if (c)
			*tab_c = c;
		if (!h || !c)
			return pmcfi_fail(PMCF_ENOMEM, "out of memory clustering XUs");
		*tab_cap = cap;
	}
	uint64_t *th = *tab_h;
	uint32_t *cnt = *tab_c, *start = *tab_c + cap;
	memset(cnt, 0, cap * sizeof(uint32_t));
	for (size_t q = 0; q < n; q++) {
		size_t h = (size_t)(it[q].h ^ (it[q].h >> 29)) & (cap - 1);
		while (cnt[h] && th[h] != it[q].h)
			h = (h + 1) & (cap - 1);
		th[h] = it[q].h;
		cnt[h]++;
		slotof[q] = (uint32_t)h;
	}
	uint32_t off = 0;
	for (size_t q = 0; q < n; q++) { /* cells in order of first appearance */
		uint32_t h = slotof[q];
		if (cnt[h]) {
			start[h] = off;
			off += cnt[h];
			cnt[h] = 0;
		}
	}
	for (size_t q = 0; q < n; q++)
		out[start[slotof[q]]++] = it[q];
	return 0;
}

/* LSD radix sort of cells by key (< 2^33). */
static void sort_cells(struct cell *cl, struct cell *tmp, size_t n)
{
	for (int pass = 0; pass < 3; pass++) {
		size_t cnt[2049] = {0};
		int sh = 11 * pass;
		for (size_t q = 0; q < n; q++)
			cnt[((cl[q].key >> sh) & 2047) + 1]++;
		for (size_t b = 1; b < 2049; b++)
			cnt[b] += cnt[b - 1];
		for (size_t q = 0; q < n; q++)
			tmp[cnt[(cl[q].key >> sh) & 2047]++] = cl[q];
		memcpy(cl, tmp, n * sizeof(*cl));
	}
}

/* The iterations of Algorithm 3 lines 15-33 for one type. */
static int cluster(struct grid *g)
{
	size_t n = g->np + g->nc;
	struct item *rem = malloc((n ? n : 1) * sizeof(*rem));
	struct cell *cl = malloc((n ? n : 1) * sizeof(*cl));
	double *a = malloc((g->np ? g->np : 1) * sizeof(double));
	double *b = malloc((g->nc ? g->nc : 1) * sizeof(double));
	unsigned char *used = calloc(n ? n : 1, 1);
	struct item *grp = malloc((n ? n : 1) * sizeof(*grp));
	struct cell *ctmp = malloc((n ? n : 1) * sizeof(*ctmp));
	uint32_t *slotof = malloc((n ? n : 1) * sizeof(*slotof));
	struct item *left = malloc((n ? n : 1) * sizeof(*left));
	unsigned char *paired = calloc(n ? n : 1, 1);
	uint64_t *tab_h = NULL;
	uint32_t *tab_c = NULL;
	size_t tab_cap = 0;
	int err = 0;
	if (!rem || !cl || !a || !b || !used || !grp || !ctmp || !slotof || !left || !paired) {
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory clustering XUs");
		goto out;
	}
	/* rem: T_prev then T_cur, each in label order; the stable grouping
	 * keeps that order inside every cell */
	for (size_t q = 0; q < n; q++)
		rem[q] = (struct item){0, (uint32_t)q, g->rank[q], q >= g->np};
	qsort(rem, g->np, sizeof(*rem), cmp_rank);
	qsort(rem + g->np, g->nc, sizeof(*rem), cmp_rank);
	unsigned d = g->k ? calc_max_div(g, a, b) : 1;
	g->dmax = d;
	size_t nrem = n, remp = g->np, remc = g->nc;
	while (remp && remc) {
		g->iterations++;
		if (g->strategy == PMCF_COMBINE_BC_UNLABELED) /* a seeded shuffle per side */
			for (size_t side = 0, lo = 0; side < 2; side++) {
				size_t hi = side ? nrem : remp;
				for (size_t q = hi - lo; q > 1; q--) {
					size_t o = lo + sim_rng_below(&g->rng, (uint32_t)q);
					struct item t = rem[lo + q - 1];
					rem[lo + q - 1] = rem[o];
					rem[o] = t;
				}
				lo = hi;
			}
		coords(g, rem, nrem, d);
		if ((err = group_cells(rem, nrem, grp, slotof, &tab_h, &tab_c, &tab_cap)))
			break;
		/* grp: the items cell by cell, each cell's T_prev XUs first */
		size_t nleft = 0, ncl = 0;
		for (size_t s = 0; s < nrem;) {
			size_t m = s, e = s;
			while (e < nrem && grp[e].h == grp[s].h)
				e++;
			while (m < e && grp[m].side == 0)
				m++;
			size_t np = m - s, nc = e - m, k = np < nc ? np : nc;
			memset(used + s, 0, e - s);
			for (size_t q = 0; q < k; q++) { /* Algorithm 3 lines 22-30 */
				g->pp[g->npairs] = grp[s + q].id;
				g->pc[g->npairs++] = grp[m + q].id;
			}
			memset(used + s, 1, k);
			memset(used + m, 1, k);
			remp -= k;
			remc -= k;
			for (size_t q = s; q < e; q++)
				if (used[q])
					paired[grp[q].id] = 1;
			if (np != nc) { /* leftovers of one side, for the relaxation */
				cl[ncl++] = (struct cell){(uint32_t)nleft,
							   (uint32_t)(np > nc ? np - k : nc - k),
							   (uint8_t)(np > nc ? 0 : 1), NULL, 0};
				for (size_t q = s; q < e; q++)
					if (!used[q])
						left[nleft++] = grp[q];
			}
			s = e;
		}
		size_t keep = 0; /* rem keeps its order: T_prev, then T_cur, by label */
		for (size_t q = 0; q < nrem; q++)
			if (!paired[rem[q].id])
				rem[keep++] = rem[q];
		nrem = keep;
		for (size_t q = 0; q < ncl; q++) {
			cl[q].co = g->co + (size_t)left[cl[q].start].id * g->k;
			cl[q].key = 0;
			for (size_t e = 0; e < g->k; e++)
				cl[q].key += (uint64_t)cl[q].co[e];
		}
		if (!remp || !remc || d == 1)
			break;
		d = calc_reduced_div(g, cl, ctmp, ncl, left, d);
	}
out:
	free(rem);
	free(cl);
	free(a);
	free(b);
	free(used);
	free(grp);
	free(ctmp);
	free(slotof);
	free(left);
	free(paired);
	free(tab_h);
	free(tab_c);
	return err;
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
	int r = cmbi_label_cmp(L->lab[x], L->len[x], L->lab[y], L->len[y]);
	return r ? r : (x > y) - (x < y);
}

/* rank[i] = position of i in label order among ids[0..n) */
static void label_ranks(const char **lab, const uint32_t *len, uint32_t n, uint32_t *order,
			uint32_t *rank)
{
	struct lab_ctx L = {lab, len};
	for (uint32_t q = 0; q < n; q++)
		order[q] = q;
	qsort_r(order, n, sizeof(*order), cmp_lab, &L);
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

static int step(struct cmb *c, size_t i)
{
	const pmcf_profile *cur = c->in[i];
	size_t nx = pmcf_profile_nxus(cur), nf0 = c->nf;
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
	size_t nmax = nf0 + nx + 1;
	double *v = malloc(nmax * (k ? k : 1) * sizeof(double));
	int32_t *co = malloc(nmax * (k ? k : 1) * sizeof(int32_t));
	uint32_t *rank = malloc(nmax * sizeof(uint32_t)), *order = malloc(nmax * sizeof(uint32_t));
	uint32_t *pp = malloc(nmax * sizeof(uint32_t)), *pc = malloc(nmax * sizeof(uint32_t));
	const char **glab = malloc(nmax * sizeof(*glab));
	uint32_t *glen = malloc(nmax * sizeof(*glen));
	double lo[k ? k : 1], hi[k ? k : 1], range[k ? k : 1];
	size_t dim[k ? k : 1];
	int err = cmbi_by_type(c, i, &cidx, &cs);
	if (!err && (!ps || !pidx || !clab || !clen || !v || !co || !rank || !order || !pp || !pc ||
		     !glab || !glen))
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
	if (err)
		goto out;
	for (size_t f = 0; f < nf0; f++)
		ps[c->ftype[f] + 2]++;
	for (uint32_t t = 0; t < c->ntypes; t++)
		ps[t + 2] += ps[t + 1];
	for (size_t f = 0; f < nf0; f++)
		pidx[ps[c->ftype[f] + 1]++] = (uint32_t)f;
	for (size_t x = 0; x < nx; x++) {
		pmcf_xu xu;
		pmcf_profile_xu_get(cur, x, &xu);
		clab[x] = xu.label;
		clen[x] = (uint32_t)strlen(xu.label);
	}
	for (uint32_t t = 0; t < c->ntypes; t++) {
		size_t np = ps[t + 1] - ps[t], nc = cs[t + 1] - cs[t];
		const uint32_t *P = pidx + ps[t], *C = cidx + cs[t];
		if (!nc)
			continue;
		/* values on E_com, their bounds (Algorithm 3 lines 9-13) */
		for (size_t e = 0; e < k; e++) {
			lo[e] = INFINITY;
			hi[e] = -INFINITY;
		}
		for (size_t q = 0; q < np + nc; q++)
			for (size_t e = 0; e < k; e++) {
				size_t ev = ecom[e];
				double x = q < np ? fused_value(c, P[q], ev)
						  : pmcf_profile_value(cur, C[q - np], (size_t)c->evidx[i][ev]);
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
				dim[kk++] = e;
		for (size_t q = 0; q < np + nc; q++)
			for (size_t e = 0; e < kk; e++)
				v[q * kk + e] = v[q * k + dim[e]];
		for (size_t e = 0; e < kk; e++) {
			lo[e] = lo[dim[e]];
			range[e] = hi[dim[e]] - lo[dim[e]];
		}
		/* label order on each side */
		for (size_t q = 0; q < np + nc; q++) {
			glab[q] = q < np ? c->lab[P[q]] : clab[C[q - np]];
			glen[q] = q < np ? c->lablen[P[q]] : clen[C[q - np]];
		}
		label_ranks(glab, glen, (uint32_t)np, order, rank);
		label_ranks(glab + np, glen + np, (uint32_t)nc, order, rank + np);
		struct grid g = {.k = kk, .np = np, .nc = nc, .v = v, .lo = lo, .range = range,
				 .co = co, .rank = rank, .strategy = c->opts->strategy, .pp = pp,
				 .pc = pc};
		sim_rng_seed(&g.rng, sim_hash2(sim_hash2(c->opts->seed, i), t));
		if ((err = cluster(&g)))
			goto out;
		c->stats->bc_iterations += g.iterations;
		if (g.dmax > c->stats->bc_dmax)
			c->stats->bc_dmax = g.dmax;
		/* Algorithm 4: counts of E_prev from t_prev (already there), of
		 * E_cur \ E_prev from t_cur; label = first common ancestor */
		unsigned char *paired = calloc(nc ? nc : 1, 1);
		if (!paired) {
			err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
			goto out;
		}
		for (size_t q = 0; q < g.npairs; q++) {
			uint32_t f = P[pp[q]], x = C[pc[q] - np];
			c->src[(size_t)f * c->n + i] = (int32_t)x;
			c->lablen[f] = (uint32_t)cmbi_label_fca(c->lab[f], c->lablen[f], clab[x],
								 clen[x]);
			paired[pc[q] - np] = 1;
		}
		/* a profile with more XUs of this type: its surplus XUs stay, with
		 * the events of the other profiles missing (fuse-openmp §3) */
		for (size_t q = 0; q < nc; q++) {
			if (paired[q])
				continue;
			long f = cmbi_add(c, t);
			if (f < 0) {
				free(paired);
				err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
				goto out;
			}
			c->src[(size_t)f * c->n + i] = (int32_t)C[q];
			c->lab[f] = clab[C[q]];
			c->lablen[f] = clen[C[q]];
		}
		free(paired);
	}
out:
	free(ecom);
	free(ps);
	free(cs);
	free(pidx);
	free(cidx);
	free(clab);
	free(clen);
	free(v);
	free(co);
	free(rank);
	free(order);
	free(pp);
	free(pc);
	free(glab);
	free(glen);
	return err;
}

int cmbi_bc(struct cmb *c)
{
	/* P_combined,1 = P_1 */
	const pmcf_profile *p0 = c->in[0];
	size_t nx = pmcf_profile_nxus(p0);
	for (size_t x = 0; x < nx; x++) {
		pmcf_xu xu;
		pmcf_profile_xu_get(p0, x, &xu);
		long f = cmbi_add(c, c->tmap[0][xu.type]);
		if (f < 0)
			return pmcfi_fail(PMCF_ENOMEM, "out of memory");
		c->src[(size_t)f * c->n] = (int32_t)x;
		c->lab[f] = xu.label;
		c->lablen[f] = (uint32_t)strlen(xu.label);
	}
	for (size_t i = 1; i < c->n; i++) {
		int err = step(c, i);
		if (err)
			return err;
	}
	return 0;
}
