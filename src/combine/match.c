/* "match": minimum-cost matching of XUs on information-weighted linking
 * events (issue 21; not from the papers). Inputs are folded in order as in
 * BC; at step i, per group (rank, type), the fused rows so far (T_prev,
 * valued by the first input that monitored each event) and the XUs of input
 * i (T_cur) are matched one to one, minimising the sum of squared distances
 * in a space where the linking events E_com are weighted by how well they
 * predict the events input i adds (E_add = E_cur \ E_prev):
 *  1. every value v becomes log(1 + v), standardised by its median and MAD
 *     over both sides (robust to heavy tails and ties);
 *  2. in input i, a ridge regression of E_add (log units: squared
 *     differences ~ squared relative errors) on E_com gives B (k x m);
 *     the metric is M = B B^T + eps I: the squared distance of two XUs is
 *     the squared difference of the E_add values they predict, so redundant
 *     linking events are not counted twice and uninformative ones drop out;
 *  3. features z = L^T x with M = L L^T (Cholesky), k per XU;
 *  4. the assignment: both sides are split together at the same rank
 *     quantile along the feature of largest spread (a k-d tree over both
 *     sides, O(n log^2 n)) down to leaves of at most LEAF XUs a side, where
 *     an exact assignment (Hungarian, shortest augmenting paths, O(LEAF^3))
 *     pairs them. Cost O(n log^2 n + n LEAF^2) per step and group.
 * Deterministic (ties by XU index). Unmatched XUs of a larger side stay as
 * in bc (surplus rows with the other inputs' events missing). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "combine/combine_impl.h"
#include "combine/match.h"
#include "util/internal.h"

/* Leaf size of the k-d split: exact assignment below it. */
#define LEAF 48
/* Ridge of the regression (relative to the diagonal of X^T X) and the
 * floor of the metric (relative to its trace): keep both well posed. */
#define RIDGE 1e-3
#define FLOOR 1e-3

/* ---- exact assignment: shortest augmenting paths with potentials ---------- */

int pmcfi_cmb_match_assign(const double *cost, size_t nr, size_t nc, double *ws, int32_t *rowof)
{
	/* rows 1..nr, columns 1..nc (nr <= nc); ws: 3 (nc + 1) + nr + 1 doubles,
	 * rowof: nc + 1 + nc + 1 ints (the second half: way). rowof[j] = row of
	 * column j (1-based; 0 none) on return. */
	if (nr > nc)
		return -1;
	double *u = ws, *v = u + nr + 1, *minv = v + nc + 1, *used = minv + nc + 1;
	int32_t *p = rowof, *way = rowof + nc + 1;
	for (size_t j = 0; j <= nr; j++)
		u[j] = 0;
	for (size_t j = 0; j <= nc; j++) {
		v[j] = 0;
		p[j] = 0;
		way[j] = 0;
	}
	for (size_t r = 1; r <= nr; r++) {
		p[0] = (int32_t)r;
		size_t j0 = 0;
		for (size_t j = 0; j <= nc; j++) {
			minv[j] = INFINITY;
			used[j] = 0;
		}
		do {
			used[j0] = 1;
			size_t r0 = (size_t)p[j0], j1 = 0;
			double delta = INFINITY;
			for (size_t j = 1; j <= nc; j++) {
				if (used[j])
					continue;
				double cur = cost[(r0 - 1) * nc + (j - 1)] - u[r0] - v[j];
				if (cur < minv[j]) {
					minv[j] = cur;
					way[j] = (int32_t)j0;
				}
				if (minv[j] < delta) {
					delta = minv[j];
					j1 = j;
				}
			}
			for (size_t j = 0; j <= nc; j++) {
				if (used[j]) {
					u[p[j]] += delta;
					v[j] -= delta;
				} else {
					minv[j] -= delta;
				}
			}
			j0 = j1;
		} while (p[j0] != 0);
		do {
			size_t j1 = (size_t)way[j0];
			p[j0] = p[j1];
			j0 = j1;
		} while (j0);
	}
	return 0;
}

/* ---- features ------------------------------------------------------------- */

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double flog(double v) { return pmcf_is_missing(v) ? NAN : log1p(v > 0 ? v : 0); }

/* Median and robust scale (1.4826 MAD, else the mean absolute deviation
 * scaled to a normal's sigma) of the non-missing x[0..n); tmp: n doubles.
 * *s_out 0 for a constant or empty column. */
static void robust_scale(const double *x, size_t n, double *tmp, double *med_out, double *s_out)
{
	size_t m = 0;
	for (size_t q = 0; q < n; q++)
		if (!isnan(x[q]))
			tmp[m++] = x[q];
	*med_out = 0;
	*s_out = 0;
	if (!m)
		return;
	qsort(tmp, m, sizeof(*tmp), cmp_dbl);
	double med = m % 2 ? tmp[m / 2] : (tmp[m / 2 - 1] + tmp[m / 2]) / 2, mad = 0;
	for (size_t q = 0; q < m; q++) {
		tmp[q] = fabs(tmp[q] - med);
		mad += tmp[q];
	}
	mad /= (double)m;
	qsort(tmp, m, sizeof(*tmp), cmp_dbl);
	double s = 1.4826 * (m % 2 ? tmp[m / 2] : (tmp[m / 2 - 1] + tmp[m / 2]) / 2);
	if (!(s > 1e-12))
		s = mad * 1.2533;
	*med_out = med;
	*s_out = s;
}

/* Cholesky of the k x k symmetric positive definite a (row-major) into the
 * lower triangle l; -1 when not positive definite. */
static int cholesky(const double *a, size_t k, double *l)
{
	memset(l, 0, k * k * sizeof(*l));
	for (size_t r = 0; r < k; r++)
		for (size_t c = 0; c <= r; c++) {
			double s = a[r * k + c];
			for (size_t q = 0; q < c; q++)
				s -= l[r * k + q] * l[c * k + q];
			if (r == c) {
				if (!(s > 0))
					return -1;
				l[r * k + r] = sqrt(s);
			} else {
				l[r * k + c] = s / l[c * k + c];
			}
		}
	return 0;
}

/* The metric's factor L (k x k, lower) from input i's standardised linking
 * features x (n x k) and log added events y (n x m): M = B B^T + floor. */
int pmcfi_cmb_match_metric(const double *x, const double *y, size_t n, size_t k, size_t m, double *l,
			   double *ws)
{
	double *xtx = ws, *xty = xtx + k * k, *lx = xty + k * m, *b = lx + k * k, *mm = b + k * m;
	double *mx = mm + k * k, *my = mx + k;
	memset(mx, 0, (k + m) * sizeof(*mx));
	for (size_t q = 0; q < n; q++) {
		for (size_t a = 0; a < k; a++)
			mx[a] += x[q * k + a] / (double)n;
		for (size_t e = 0; e < m; e++)
			my[e] += y[q * m + e] / (double)n;
	}
	memset(xtx, 0, (k * k + k * m) * sizeof(*xtx));
	for (size_t q = 0; q < n; q++)
		for (size_t a = 0; a < k; a++) {
			double xa = x[q * k + a] - mx[a];
			for (size_t c = 0; c < k; c++)
				xtx[a * k + c] += xa * (x[q * k + c] - mx[c]);
			for (size_t e = 0; e < m; e++)
				xty[a * m + e] += xa * (y[q * m + e] - my[e]);
		}
	double tr = 0;
	for (size_t a = 0; a < k; a++)
		tr += xtx[a * k + a];
	for (size_t a = 0; a < k; a++)
		xtx[a * k + a] += RIDGE * (tr > 0 ? tr / (double)k : 1);
	/* B = (X^T X)^-1 X^T Y, column by column through the Cholesky factor */
	int ok = m > 0 && n > k && cholesky(xtx, k, lx) == 0;
	for (size_t e = 0; ok && e < m; e++) {
		for (size_t a = 0; a < k; a++) { /* forward: lx z = xty[:, e] */
			double s = xty[a * m + e];
			for (size_t c = 0; c < a; c++)
				s -= lx[a * k + c] * b[c * m + e];
			b[a * m + e] = s / lx[a * k + a];
		}
		for (size_t a = k; a-- > 0;) { /* backward: lx^T b = z */
			double s = b[a * m + e];
			for (size_t c = a + 1; c < k; c++)
				s -= lx[c * k + a] * b[c * m + e];
			b[a * m + e] = s / lx[a * k + a];
		}
	}
	double mtr = 0;
	for (size_t a = 0; a < k; a++)
		for (size_t c = 0; c < k; c++) {
			double s = 0;
			for (size_t e = 0; ok && e < m; e++)
				s += b[a * m + e] * b[c * m + e];
			mm[a * k + c] = s;
			if (a == c)
				mtr += s;
		}
	double fl = mtr > 0 ? FLOOR * mtr / (double)k : 1;
	for (size_t a = 0; a < k; a++)
		mm[a * k + a] += fl;
	return cholesky(mm, k, l) == 0 ? 0 : -1;
}

double pmcfi_cmb_match_log(double v) { return flog(v); }

int pmcfi_cmb_match_embed(double *zp, size_t np, double *zc, size_t nc, double *y, size_t k, size_t m)
{
	double *tmp = malloc((np + nc + 1) * sizeof(double)), *tmp2 = malloc((np + nc + 1) * sizeof(double));
	double *mws = malloc((4 * k * k + 2 * k * m + k + m + 1) * sizeof(double));
	double *l = malloc((k * k + 1) * sizeof(double));
	int err = 0;
	if (!tmp || !tmp2 || !mws || !l || k > 64) {
		err = -1;
		goto out;
	}
	/* 1. standardised by the median and MAD pooled over both sides: a
	 * per-side median falls anywhere between the modes of a bimodal
	 * column (local/remote placement) */
	for (size_t a = 0; a < k; a++) {
		for (size_t q = 0; q < np; q++)
			tmp2[q] = zp[q * k + a];
		for (size_t q = 0; q < nc; q++)
			tmp2[np + q] = zc[q * k + a];
		double med, scl;
		robust_scale(tmp2, np + nc, tmp, &med, &scl);
		for (size_t q = 0; q < np; q++)
			zp[q * k + a] =
				isnan(zp[q * k + a]) || !(scl > 1e-12) ? 0 : (zp[q * k + a] - med) / scl;
		for (size_t q = 0; q < nc; q++)
			zc[q * k + a] =
				isnan(zc[q * k + a]) || !(scl > 1e-12) ? 0 : (zc[q * k + a] - med) / scl;
	}
	for (size_t b = 0; b < m; b++) {
		double sum = 0;
		size_t cnt = 0;
		for (size_t q = 0; q < nc; q++)
			if (!isnan(y[q * m + b])) {
				sum += y[q * m + b];
				cnt++;
			}
		for (size_t q = 0; q < nc; q++) /* missing: the mean (no evidence) */
			if (isnan(y[q * m + b]))
				y[q * m + b] = cnt ? sum / (double)cnt : 0;
	}
	/* 2-3. the metric and the features z = L^T x */
	if (pmcfi_cmb_match_metric(zc, y, nc, k, m, l, mws) != 0) {
		memset(l, 0, k * k * sizeof(*l));
		for (size_t a = 0; a < k; a++)
			l[a * k + a] = 1;
	}
	for (size_t side = 0; side < 2; side++) {
		double *z = side ? zc : zp;
		size_t cnt = side ? nc : np;
		for (size_t q = 0; q < cnt; q++) {
			double w[64];
			for (size_t a = 0; a < k; a++) {
				w[a] = 0;
				for (size_t b = a; b < k; b++)
					w[a] += l[b * k + a] * z[q * k + b];
			}
			memcpy(z + q * k, w, k * sizeof(double));
		}
	}
out:
	free(tmp);
	free(tmp2);
	free(mws);
	free(l);
	return err;
}

/* ---- the k-d split and the leaves ------------------------------------------ */

struct kd {
	const double *zp, *zc; /* features of T_prev rows / T_cur XUs, k each */
	size_t k;
	int dim;           /* the sort dimension of cmp_side */
	double *cost, *ws; /* LEAF^2, the assignment's workspace */
	int32_t *rowof;
	uint32_t *outp, *outc; /* pairs found (local indices) */
	size_t npairs;
};

struct sidx {
	double key;
	uint32_t id;
};

static int cmp_sidx(const void *a, const void *b)
{
	const struct sidx *p = a, *q = b;
	if (p->key != q->key)
		return p->key < q->key ? -1 : 1;
	return (p->id > q->id) - (p->id < q->id);
}

static void sort_side(struct sidx *s, size_t n, const double *z, size_t k, int d)
{
	for (size_t q = 0; q < n; q++)
		s[q].key = k ? z[(size_t)s[q].id * k + (size_t)d] : 0;
	qsort(s, n, sizeof(*s), cmp_sidx);
}

static void leaf(struct kd *t, const struct sidx *p, size_t np, const struct sidx *c, size_t nc)
{
	int flip = np > nc; /* rows are the smaller side */
	const struct sidx *r = flip ? c : p, *col = flip ? p : c;
	const double *zr = flip ? t->zc : t->zp, *zcol = flip ? t->zp : t->zc;
	size_t nr = flip ? nc : np, ncol = flip ? np : nc, k = t->k;
	if (!nr)
		return;
	for (size_t a = 0; a < nr; a++)
		for (size_t b = 0; b < ncol; b++) {
			double s = 0;
			for (size_t d = 0; d < k; d++) {
				double dd = zr[(size_t)r[a].id * k + d] - zcol[(size_t)col[b].id * k + d];
				s += dd * dd;
			}
			t->cost[a * ncol + b] = s;
		}
	pmcfi_cmb_match_assign(t->cost, nr, ncol, t->ws, t->rowof);
	for (size_t b = 1; b <= ncol; b++) {
		if (!t->rowof[b])
			continue;
		uint32_t ri = r[t->rowof[b] - 1].id, ci = col[b - 1].id;
		t->outp[t->npairs] = flip ? ci : ri;
		t->outc[t->npairs] = flip ? ri : ci;
		t->npairs++;
	}
}

/* Splits both sides at the same rank quantile of the dimension of largest
 * spread until each side has at most LEAF XUs. */
static void split(struct kd *t, struct sidx *p, size_t np, struct sidx *c, size_t nc)
{
	while (np > LEAF || nc > LEAF) {
		if (!np || !nc)
			return; /* nothing to pair: the rest stays unmatched */
		int best = 0;
		double bspread = -1;
		for (size_t d = 0; d < t->k; d++) {
			double lo = INFINITY, hi = -INFINITY;
			for (size_t q = 0; q < np; q++) {
				double v = t->zp[(size_t)p[q].id * t->k + d];
				lo = v < lo ? v : lo;
				hi = v > hi ? v : hi;
			}
			for (size_t q = 0; q < nc; q++) {
				double v = t->zc[(size_t)c[q].id * t->k + d];
				lo = v < lo ? v : lo;
				hi = v > hi ? v : hi;
			}
			if (hi - lo > bspread) {
				bspread = hi - lo;
				best = (int)d;
			}
		}
		sort_side(p, np, t->zp, t->k, best);
		sort_side(c, nc, t->zc, t->k, best);
		size_t hp = np / 2, hc = (size_t)((double)nc * (double)hp / (double)np + 0.5);
		split(t, p, hp, c, hc);
		p += hp;
		c += hc;
		np -= hp;
		nc -= hc;
	}
	leaf(t, p, np, c, nc);
}

/* ---- one step ---------------------------------------------------------------- */

struct step {
	size_t *ecom, *eadd, k, m;
	int oracle;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The oracle's features: a missing entry of column b of z (n x k) takes the
 * median of the column's present ones (0 when none is). */
static void fill_median(double *z, size_t n, size_t k)
{
	double *v = malloc((n + 1) * sizeof(double));
	for (size_t b = 0; b < k && v; b++) {
		size_t h = 0;
		for (size_t q = 0; q < n; q++)
			if (!isnan(z[q * k + b]))
				v[h++] = z[q * k + b];
		qsort(v, h, sizeof(*v), cmp_double);
		double med = h ? v[h / 2] : 0;
		for (size_t q = 0; q < n; q++)
			if (isnan(z[q * k + b]))
				z[q * k + b] = med;
	}
	free(v);
}

/* Value of fused event e for row f before step i: from its first owner
 * that has a source for the row (what the fused profile will hold). */
static double row_value(const struct pmcfi_cmb *c, size_t f, size_t e, size_t i)
{
	const int32_t *row = c->src + f * c->n;
	for (uint32_t q = 0; q < c->nowners[e] && c->owners[e][q] < i; q++) {
		uint32_t j = c->owners[e][q];
		if (row[j] >= 0)
			return pmcf_profile_value(c->in[j], (size_t)row[j], (size_t)c->evidx[j][e]);
	}
	return PMCF_MISSING;
}

/* Pairs T_prev rows pr[0..np) with T_cur XUs cx[0..nc) of one group. */
static int match_group(struct pmcfi_cmb *c, size_t i, const struct step *s, const uint32_t *pr, size_t np,
		       const uint32_t *cx, size_t nc)
{
	size_t k = s->k, m = s->m, n = np > nc ? np : nc;
	size_t kk = s->oracle ? m : k;
	double *zp = malloc((np * kk + 1) * sizeof(double)), *zc = malloc((nc * kk + 1) * sizeof(double));
	double *y = malloc((nc * m + 1) * sizeof(double));
	struct sidx *sp = malloc((np + 1) * sizeof(*sp)), *sc = malloc((nc + 1) * sizeof(*sc));
	struct kd t = {.zp = zp, .zc = zc, .k = k};
	t.cost = malloc(LEAF * LEAF * sizeof(double));
	t.ws = malloc((4 * (LEAF + 1)) * sizeof(double));
	t.rowof = malloc(2 * (LEAF + 1) * sizeof(int32_t));
	t.outp = malloc((n + 1) * sizeof(uint32_t));
	t.outc = malloc((n + 1) * sizeof(uint32_t));
	int err = 0;
	if (!zp || !zc || !y || !sp || !sc || !t.cost || !t.ws || !t.rowof || !t.outp || !t.outc) {
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory matching XUs");
		goto out;
	}
	for (size_t a = 0; a < k && !s->oracle; a++) {
		size_t e = s->ecom[a];
		const double *col = pmcf_profile_column_const(c->in[i], (size_t)c->evidx[i][e]);
		for (size_t q = 0; q < np; q++)
			zp[q * k + a] = flog(row_value(c, pr[q], e, i));
		for (size_t q = 0; q < nc; q++)
			zc[q * k + a] = flog(col[cx[q]]);
	}
	for (size_t b = 0; b < m; b++) {
		const double *col = pmcf_profile_column_const(c->in[i], (size_t)c->evidx[i][s->eadd[b]]);
		for (size_t q = 0; q < nc; q++)
			y[q * m + b] = flog(col[cx[q]]);
	}
	if (s->oracle) {
		/* the truth of each row's first source (the fused XU's truth)
		 * against input i's values of the events it adds: squared log
		 * differences ~ squared relative errors, every event alike;
		 * a missing value (its error is the same with any partner) and
		 * an absent truth take the column's median */
		k = t.k = m;
		for (size_t b = 0; b < m; b++) {
			const char *name = pmcf_profile_event_name(c->out, s->eadd[b]);
			for (size_t q = 0; q < np; q++) {
				const int32_t *row = c->src + (size_t)pr[q] * c->n;
				size_t j = 0;
				while (j + 1 < i && row[j] < 0)
					j++;
				long te = row[j] >= 0 ? pmcf_profile_truth_find(c->in[j], name) : -1;
				zp[q * k + b] =
					te >= 0 ? flog(pmcf_profile_truth_column_const(c->in[j],
										       (size_t)te)[row[j]])
						: NAN;
			}
			for (size_t q = 0; q < nc; q++)
				zc[q * k + b] = y[q * m + b];
		}
		fill_median(zp, np, k);
		fill_median(zc, nc, k);
	} else if (pmcfi_cmb_match_embed(zp, np, zc, nc, y, k, m) != 0) {
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory matching XUs");
		goto out;
	}
	/* 4. the assignment */
	for (size_t q = 0; q < np; q++)
		sp[q].id = (uint32_t)q;
	for (size_t q = 0; q < nc; q++)
		sc[q].id = (uint32_t)q;
	split(&t, sp, np, sc, nc);
	unsigned char *paired = calloc(nc + 1, 1);
	if (!paired) {
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory matching XUs");
		goto out;
	}
	for (size_t q = 0; q < t.npairs; q++) {
		c->src[(size_t)pr[t.outp[q]] * c->n + i] = (int32_t)cx[t.outc[q]];
		paired[t.outc[q]] = 1;
	}
	for (size_t q = 0; q < nc && !err; q++) { /* surplus XUs of input i */
		if (paired[q])
			continue;
		long f = pmcfi_cmb_add(c, pmcfi_cmb_type(c, i, cx[q]));
		if (f < 0)
			err = pmcfi_fail(PMCF_ENOMEM, "out of memory matching XUs");
		else
			c->src[(size_t)f * c->n + i] = (int32_t)cx[q];
	}
	free(paired);
out:
	free(zp);
	free(zc);
	free(y);
	free(sp);
	free(sc);
	free(t.cost);
	free(t.ws);
	free(t.rowof);
	free(t.outp);
	free(t.outc);
	return err;
}

static int step(struct pmcfi_cmb *c, size_t i, int oracle)
{
	struct step s = {0};
	s.oracle = oracle;
	size_t nf0 = c->nf;
	s.ecom = malloc((c->nev + 1) * sizeof(size_t));
	s.eadd = malloc((c->nev + 1) * sizeof(size_t));
	size_t *ps = calloc(c->ntypes + 2, sizeof(size_t)), *cs = NULL;
	uint32_t *pidx = malloc((nf0 + 1) * sizeof(uint32_t)), *cidx = NULL;
	int err = pmcfi_cmb_by_type(c, i, &cidx, &cs);
	if (!err && (!s.ecom || !s.eadd || !ps || !pidx))
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
	if (err)
		goto out;
	for (size_t e = 0; e < c->nev; e++) {
		if (c->evidx[i][e] < 0)
			continue;
		if (c->owners[e][0] < i)
			s.ecom[s.k++] = e;
		else
			s.eadd[s.m++] = e;
	}
	if (s.k > 64)
		s.k = 64; /* the first 64 linking events (duration first) */
	if (oracle && s.m > 64)
		s.m = 64; /* the oracle's features: the first 64 added events */
	pmcfi_cmb_fused_by_type(c, nf0, pidx, ps);
	for (uint32_t t = 0; t < c->ntypes && !err; t++)
		err = match_group(c, i, &s, pidx + ps[t], ps[t + 1] - ps[t], cidx + cs[t], cs[t + 1] - cs[t]);
out:
	free(s.ecom);
	free(s.eadd);
	free(ps);
	free(cs);
	free(pidx);
	free(cidx);
	return err;
}

static int match_all(struct pmcfi_cmb *c, int oracle)
{
	size_t nx = pmcf_profile_nxus(c->in[0]);
	for (size_t x = 0; x < nx; x++) {
		long f = pmcfi_cmb_add(c, pmcfi_cmb_type(c, 0, x));
		if (f < 0)
			return pmcfi_fail(PMCF_ENOMEM, "out of memory");
		c->src[(size_t)f * c->n] = (int32_t)x;
	}
	int err = 0;
	for (size_t i = 1; i < c->n && !err; i++)
		err = step(c, i, oracle);
	return err;
}

int pmcfi_cmb_match(struct pmcfi_cmb *c) { return match_all(c, 0); }

int pmcfi_cmb_oracle(struct pmcfi_cmb *c) { return match_all(c, 1); }
