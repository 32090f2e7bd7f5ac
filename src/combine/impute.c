/* Conditional imputation (`combine --impute K`, issue 21; not from the
 * papers): after an ordered strategy (bc family, match) has paired the XUs,
 * every value a fused XU took from another execution's XU is replaced by
 * (mode median) the median of that event over the K nearest XUs of that
 * execution in the
 * same group (rank, type), nearest in match's linking space (pmcfi_cmb_match_embed:
 * the linking events of the step, log, standardised, weighted by how well
 * they predict the events the execution adds). Inputs are taken in order
 * as in the fold: at step i the query is the fused row's linking values so
 * far (as the fused profile holds them, imputed ones included), the
 * candidates are input i's XUs; the values replaced are those of the
 * events input i adds (first owner i) in rows whose base execution (first
 * source) is before i and that have a source in input i. Rows without one
 * keep their missing values; the base execution's own values stay copies.
 * K nearest: exact, through a k-d tree (median splits on the dimension of
 * largest spread), ties broken by XU index, so the result is deterministic.
 * Mode rank keeps each event's distribution: per group and added event,
 * the rows are sorted by a key (the neighbours' median blended with the
 * paired XU's value, rank_keys) and the paired XUs' values, sorted, are
 * dealt out in that order; so the column holds exactly bc's values, and
 * only which row gets which changes. A row whose paired XU has the row's
 * linking values exactly (a twin) keeps its copies.
 * Provenance of an imputed value: source i, XU -1 (from several XUs of
 * execution i). O(n log n + n K log n) per step and group (the k-d tree by
 * quickselect); rank adds at most 1024 leave-one-out queries per group and
 * a sort per event. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "combine/combine_impl.h"
#include "combine/match.h"
#include "util/internal.h"

struct key;
struct knn {
	const double *z; /* candidate features, d each */
	size_t d, k;
	uint32_t *perm; /* the tree: perm[lo..hi) a node, its split at mid */
	unsigned char *dim;
	struct key *keys; /* the build's sort */
	/* the current query's best k: dist ascending, then index */
	double *bd;
	uint32_t *bi;
	size_t nb;
};

static double dist2(const double *a, const double *b, size_t d)
{
	double s = 0;
	for (size_t q = 0; q < d; q++) {
		double t = a[q] - b[q];
		s += t * t;
	}
	return s;
}

struct key {
	double v;
	uint32_t id;
};

static int key_less(const struct key *x, const struct key *y)
{
	return x->v < y->v || (x->v == y->v && x->id < y->id);
}

/* Puts the n-th smallest of a[0..len) (by value, then id) at a[n], the
 * smaller ones before it, the larger after (quickselect, middle pivot). */
static void select_nth(struct key *a, size_t len, size_t n)
{
	size_t lo = 0, hi = len; /* the n-th is in a[lo..hi) */
	while (hi - lo > 1) {
		struct key p = a[lo + (hi - lo - 1) / 2], tmp; /* lower middle: j < hi - 1 */
		size_t i = lo, j = hi - 1;
		for (;;) { /* Hoare partition around p */
			while (key_less(&a[i], &p))
				i++;
			while (key_less(&p, &a[j]))
				j--;
			if (i >= j)
				break;
			tmp = a[i];
			a[i] = a[j];
			a[j] = tmp;
			i++;
			j--;
		}
		/* a[lo..j] <= p <= a[j+1..hi) */
		if (n <= j)
			hi = j + 1;
		else
			lo = j + 1;
	}
}

/* Builds the node perm[lo..hi): split on its dimension of largest spread
 * at the point of median rank there (dim[mid]), the smaller points before
 * it, the larger after. */
static void build(struct knn *t, size_t lo, size_t hi)
{
	if (hi - lo <= 1) {
		if (hi > lo)
			t->dim[lo] = 0;
		return;
	}
	int best = 0;
	double bs = -1;
	for (size_t q = 0; q < t->d; q++) {
		double mn = INFINITY, mx = -INFINITY;
		for (size_t r = lo; r < hi; r++) {
			double v = t->z[(size_t)t->perm[r] * t->d + q];
			mn = v < mn ? v : mn;
			mx = v > mx ? v : mx;
		}
		if (mx - mn > bs) {
			bs = mx - mn;
			best = (int)q;
		}
	}
	for (size_t r = lo; r < hi; r++) {
		t->keys[r].id = t->perm[r];
		t->keys[r].v = t->z[(size_t)t->perm[r] * t->d + (size_t)best];
	}
	select_nth(t->keys + lo, hi - lo, (hi - lo) / 2);
	for (size_t r = lo; r < hi; r++)
		t->perm[r] = t->keys[r].id;
	size_t mid = lo + (hi - lo) / 2;
	t->dim[mid] = (unsigned char)best;
	build(t, lo, mid);
	build(t, mid + 1, hi);
}

/* Offers candidate x at squared distance s to the best k. */
static void offer(struct knn *t, uint32_t x, double s)
{
	size_t p = t->nb;
	if (p == t->k && !(s < t->bd[p - 1] || (s == t->bd[p - 1] && x < t->bi[p - 1])))
		return;
	if (p == t->k)
		p--;
	while (p > 0 && (s < t->bd[p - 1] || (s == t->bd[p - 1] && x < t->bi[p - 1]))) {
		t->bd[p] = t->bd[p - 1];
		t->bi[p] = t->bi[p - 1];
		p--;
	}
	t->bd[p] = s;
	t->bi[p] = x;
	if (t->nb < t->k)
		t->nb++;
}

static void search(struct knn *t, const double *qz, size_t lo, size_t hi)
{
	if (hi <= lo)
		return;
	size_t mid = lo + (hi - lo) / 2;
	uint32_t x = t->perm[mid];
	const double *px = t->z + (size_t)x * t->d;
	offer(t, x, dist2(qz, px, t->d));
	if (hi - lo == 1)
		return;
	double diff = t->d ? qz[t->dim[mid]] - px[t->dim[mid]] : 0;
	int left_first = diff < 0;
	for (int side = 0; side < 2; side++) {
		int left = side == 0 ? left_first : !left_first;
		/* the far side only when it can hold a point as close as the
		 * worst kept (>=: an equal distance may win on the index) */
		if (side == 1 && t->nb == t->k && diff * diff > t->bd[t->nb - 1])
			return;
		if (left)
			search(t, qz, lo, mid);
		else
			search(t, qz, mid + 1, hi);
	}
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

struct istep {
	size_t i, *ecom, *eadd, k, m;
	int32_t *base; /* first source of each fused row */
};

/* The median of event e over the best t->nb of input i's XUs cx[] (missing
 * when none has a value); vals: t->k doubles. */
static double knn_median(const struct pmcfi_cmb *c, size_t i, size_t e, const struct knn *t,
			 const uint32_t *cx, double *vals)
{
	const double *icol = pmcf_profile_column_const(c->in[i], (size_t)c->evidx[i][e]);
	size_t nv = 0;
	for (size_t r = 0; r < t->nb; r++) {
		double v = icol[cx[t->bi[r]]];
		if (!pmcf_is_missing(v))
			vals[nv++] = v;
	}
	if (!nv)
		return PMCF_MISSING;
	for (size_t a = 1; a < nv; a++) { /* insertion sort: nv <= 65 */
		double v = vals[a];
		size_t b = a;
		for (; b > 0 && vals[b - 1] > v; b--)
			vals[b] = vals[b - 1];
		vals[b] = v;
	}
	return nv % 2 ? vals[nv / 2] : (vals[nv / 2 - 1] + vals[nv / 2]) / 2;
}

/* 1 when fused row f and input i's XU x have the same value on every
 * linking event (an exact twin: rank mode keeps the copy). */
static int twin(const struct pmcfi_cmb *c, const struct istep *s, uint32_t f, int32_t x)
{
	if (x < 0)
		return 0;
	for (size_t a = 0; a < s->k; a++) {
		double u = pmcf_profile_column_const(c->out, s->ecom[a])[f];
		double v = pmcf_profile_column_const(c->in[s->i], (size_t)c->evidx[s->i][s->ecom[a]])[x];
		if (pmcf_is_missing(u) || pmcf_is_missing(v) || u != v)
			return 0;
	}
	return 1;
}

/* Rank mode: how well the K nearest predict each added event inside input i
 * itself. For the XUs of cx[] (every one, or an even stride of RHO_SAMPLE of
 * them), the median of its K nearest others (leave one out); rho[b] =
 * Pearson correlation of log(1 + that median) with log(1 + the XU's value)
 * over the XUs with both (0 under 3 XUs or without spread). t: the tree over
 * cx[], its best lists sized for k + 1; sums: 6 m. */
#define RHO_SAMPLE 1024
static void loo_rho(const struct pmcfi_cmb *c, const struct istep *s, struct knn *t, const double *zc,
		    const uint32_t *cx, size_t nc, double *vals, double *sums, double *rho)
{
	size_t kk = t->k, m = s->m, step = (nc + RHO_SAMPLE - 1) / RHO_SAMPLE;
	if (t->k < nc)
		t->k++; /* one more: the XU itself */
	memset(sums, 0, 6 * m * sizeof(double));
	for (size_t q = 0; q < nc; q += step) {
		t->nb = 0;
		search(t, zc + q * t->d, 0, nc);
		size_t w = 0;
		for (size_t r = 0; r < t->nb; r++)
			if (t->bi[r] != q && w < kk) {
				t->bi[w] = t->bi[r];
				t->bd[w++] = t->bd[r];
			}
		t->nb = w;
		for (size_t b = 0; b < m; b++) {
			double md = knn_median(c, s->i, s->eadd[b], t, cx, vals);
			double v = pmcf_profile_column_const(c->in[s->i],
							     (size_t)c->evidx[s->i][s->eadd[b]])[cx[q]];
			if (pmcf_is_missing(md) || pmcf_is_missing(v))
				continue;
			double a = pmcfi_cmb_match_log(md), y = pmcfi_cmb_match_log(v), *sb = sums + 6 * b;
			sb[0] += 1;
			sb[1] += a;
			sb[2] += y;
			sb[3] += a * a;
			sb[4] += y * y;
			sb[5] += a * y;
		}
	}
	t->k = kk;
	for (size_t b = 0; b < m; b++) {
		const double *sb = sums + 6 * b;
		double n = sb[0] > 0 ? sb[0] : 1;
		double va = sb[3] - sb[1] * sb[1] / n, vy = sb[4] - sb[2] * sb[2] / n;
		rho[b] = sb[0] >= 3 && va > 0 && vy > 0 ? (sb[5] - sb[1] * sb[2] / n) / sqrt(va * vy) : 0;
	}
}

/* One row of a rank step: its key, its copy (the paired XU's value), its
 * position in rows[]. */
struct rrow {
	double key, copy;
	uint32_t q;
};

static int cmp_rrow(const void *a, const void *b)
{
	const struct rrow *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	int mx = pmcf_is_missing(x->copy), my = pmcf_is_missing(y->copy);
	if (mx != my)
		return mx - my;
	if (!mx && x->copy != y->copy)
		return x->copy < y->copy ? -1 : 1;
	return (x->q > y->q) - (x->q < y->q);
}

/* One value imputed: v replaces the copy old. */
static void count_imputed(struct pmcfi_cmb *c, double old, double v)
{
	c->imputed++;
	c->imputed_changed += !(old == v || (pmcf_is_missing(old) && pmcf_is_missing(v)));
}

/* Rank mode, one added event e: the rows rr[0..n) are sorted by key (then
 * copy, then row); the copies that are there, sorted, are dealt out by rank
 * (by quantile when some copies are missing), so that the imputed column
 * holds the paired XUs' values, ordered by the keys. */
static int rank_event(struct pmcfi_cmb *c, const struct istep *s, const uint32_t *rows, size_t e,
		      struct rrow *rr, size_t n, double *pool)
{
	size_t np = 0;
	for (size_t r = 0; r < n; r++)
		if (!pmcf_is_missing(rr[r].copy))
			pool[np++] = rr[r].copy;
	if (!np)
		return 0; /* no copy to deal out: the rows keep theirs (missing) */
	qsort(rr, n, sizeof(*rr), cmp_rrow);
	qsort(pool, np, sizeof(*pool), cmp_dbl);
	double *col = pmcf_profile_column(c->out, e);
	int err = 0;
	for (size_t r = 0; r < n && !err; r++) {
		size_t at = np == n ? r : (size_t)(((double)r + 0.5) * (double)np / (double)n);
		double v = pool[at < np ? at : np - 1], *cell = &col[rows[rr[r].q]];
		count_imputed(c, *cell, v);
		*cell = v;
		err = pmcf_profile_provenance_set(c->out, rows[rr[r].q], e, (int32_t)s->i, -1);
	}
	return err;
}

/* Rank mode, the keys of a row (key[b] for each added event; missing where
 * its neighbours have no value): (1 - w_b) log(1 + the median of its K
 * nearest) + w_b log(1 + the paired XU x's value), w_b = sqrt(1 - rho_b^2):
 * where the neighbours predict the event well the order follows them, where
 * they do not it follows the paired XU (and with it keeps the joint of the
 * events input i adds, which an order by the neighbours' medians alone
 * scrambles: deterministic relations between two such events broke). */
static void rank_keys(const struct pmcfi_cmb *c, const struct istep *s, struct knn *t, const double *zq,
		      const uint32_t *cx, size_t nc, int32_t x, const double *rho, double *vals, double *key)
{
	size_t m = s->m, i = s->i;
	t->nb = 0;
	search(t, zq, 0, nc);
	for (size_t b = 0; b < m; b++) {
		double md = knn_median(c, i, s->eadd[b], t, cx, vals);
		key[b] = pmcf_is_missing(md) ? md : pmcfi_cmb_match_log(md);
	}
	if (x < 0)
		return;
	for (size_t b = 0; b < m; b++) {
		double v = pmcf_profile_column_const(c->in[i], (size_t)c->evidx[i][s->eadd[b]])[x];
		if (pmcf_is_missing(key[b]) || pmcf_is_missing(v))
			continue;
		double w = rho[b] < 1 ? sqrt(1 - (rho[b] > 0 ? rho[b] * rho[b] : 0)) : 0;
		key[b] = (1 - w) * key[b] + w * pmcfi_cmb_match_log(v);
	}
}

/* Imputes the rows rows[0..nr) from input i's XUs cx[0..nc) of one group. */
static int impute_group(struct pmcfi_cmb *c, const struct istep *s, const uint32_t *rows, size_t nr,
			const uint32_t *cx, size_t nc)
{
	size_t k = s->k, m = s->m, i = s->i, kk = c->opts->impute < nc ? c->opts->impute : nc;
	int rank = c->opts->impute_mode == PMCF_IMPUTE_RANK;
	if (!nr || !nc)
		return 0;
	double *zp = malloc((nr * k + 1) * sizeof(double)), *zc = malloc((nc * k + 1) * sizeof(double));
	double *y = malloc((nc * m + 1) * sizeof(double)), *vals = malloc((kk + 2) * sizeof(double));
	double *key = rank ? malloc((nr * m + 1) * sizeof(double)) : NULL;
	double *pool = rank ? malloc((nr + 1) * sizeof(double)) : NULL;
	double *sums = rank ? malloc((6 * m + 1) * sizeof(double)) : NULL;
	double *rho = rank ? malloc((m + 1) * sizeof(double)) : NULL;
	struct rrow *rr = rank ? malloc((nr + 1) * sizeof(*rr)) : NULL;
	struct knn t = {.z = zc, .d = k, .k = kk};
	t.perm = malloc((nc + 1) * sizeof(uint32_t));
	t.dim = malloc(nc + 1);
	t.keys = malloc((nc + 1) * sizeof(*t.keys));
	t.bd = malloc((kk + 2) * sizeof(double));
	t.bi = malloc((kk + 2) * sizeof(uint32_t));
	int err = 0;
	if (!zp || !zc || !y || !vals || !t.perm || !t.dim || !t.keys || !t.bd || !t.bi ||
	    (rank && (!key || !pool || !sums || !rho || !rr))) {
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory imputing values");
		goto out;
	}
	for (size_t a = 0; a < k; a++) {
		const double *ocol = pmcf_profile_column(c->out, s->ecom[a]);
		const double *icol = pmcf_profile_column_const(c->in[i], (size_t)c->evidx[i][s->ecom[a]]);
		for (size_t q = 0; q < nr; q++)
			zp[q * k + a] = pmcfi_cmb_match_log(ocol[rows[q]]);
		for (size_t q = 0; q < nc; q++)
			zc[q * k + a] = pmcfi_cmb_match_log(icol[cx[q]]);
	}
	for (size_t b = 0; b < m; b++) {
		const double *icol = pmcf_profile_column_const(c->in[i], (size_t)c->evidx[i][s->eadd[b]]);
		for (size_t q = 0; q < nc; q++)
			y[q * m + b] = pmcfi_cmb_match_log(icol[cx[q]]);
	}
	if (pmcfi_cmb_match_embed(zp, nr, zc, nc, y, k, m) != 0) {
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory imputing values");
		goto out;
	}
	for (size_t q = 0; q < nc; q++)
		t.perm[q] = (uint32_t)q;
	build(&t, 0, nc);
	if (rank) {
		loo_rho(c, s, &t, zc, cx, nc, vals, sums, rho);
		for (size_t q = 0; q < nr; q++) {
			int32_t x = c->src[(size_t)rows[q] * c->n + i];
			if (twin(c, s, rows[q], x)) { /* an exact twin: its copy stays */
				for (size_t b = 0; b < m; b++)
					key[q * m + b] = PMCF_MISSING;
				continue;
			}
			rank_keys(c, s, &t, zp + q * k, cx, nc, x, rho, vals, key + q * m);
		}
		for (size_t b = 0; b < m && !err; b++) {
			size_t e = s->eadd[b], n = 0;
			const double *col = pmcf_profile_column_const(c->out, e);
			for (size_t q = 0; q < nr; q++)
				if (!pmcf_is_missing(key[q * m + b]))
					rr[n++] = (struct rrow){key[q * m + b], col[rows[q]], (uint32_t)q};
			err = rank_event(c, s, rows, e, rr, n, pool);
		}
		goto out;
	}
	for (size_t q = 0; q < nr && !err; q++) {
		t.nb = 0;
		search(&t, zp + q * k, 0, nc);
		for (size_t b = 0; b < m && !err; b++) {
			size_t e = s->eadd[b];
			double md = knn_median(c, i, e, &t, cx, vals);
			if (pmcf_is_missing(md))
				continue; /* the neighbours have nothing: keep the copy */
			count_imputed(c, pmcf_profile_column(c->out, e)[rows[q]], md);
			pmcf_profile_column(c->out, e)[rows[q]] = md;
			err = pmcf_profile_provenance_set(c->out, rows[q], e, (int32_t)i, -1);
		}
	}
out:
	free(zp);
	free(zc);
	free(y);
	free(vals);
	free(key);
	free(pool);
	free(sums);
	free(rho);
	free(rr);
	free(t.perm);
	free(t.dim);
	free(t.keys);
	free(t.bd);
	free(t.bi);
	return err;
}

static int impute_step(struct pmcfi_cmb *c, struct istep *s)
{
	size_t i = s->i, *rs = calloc(c->ntypes + 2, sizeof(size_t)), *cs = NULL;
	uint32_t *ridx = malloc((c->nf + 1) * sizeof(uint32_t)), *cidx = NULL;
	int err = pmcfi_cmb_by_type(c, i, &cidx, &cs);
	if (!err && (!rs || !ridx))
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory imputing values");
	s->k = s->m = 0;
	for (size_t e = 0; e < c->nev && !err; e++) {
		if (c->evidx[i][e] < 0)
			continue;
		if (c->owners[e][0] < i) {
			if (s->k < 64) /* the first 64 linking events, as match */
				s->ecom[s->k++] = e;
		} else {
			s->eadd[s->m++] = e;
		}
	}
	if (err || !s->k || !s->m)
		goto out;
	/* the rows to impute, by group (in fused order): base before i, a source in i */
	pmcfi_cmb_fused_by_type(c, c->nf, ridx, rs);
	for (uint32_t t = 0; t < c->ntypes && !err; t++) {
		uint32_t *g = ridx + rs[t];
		size_t ng = 0;
		for (size_t k = rs[t]; k < rs[t + 1]; k++) {
			uint32_t f = ridx[k];
			if (s->base[f] >= 0 && (size_t)s->base[f] < i && c->src[(size_t)f * c->n + i] >= 0)
				g[ng++] = f;
		}
		err = impute_group(c, s, g, ng, cidx + cs[t], cs[t + 1] - cs[t]);
	}
out:
	free(rs);
	free(cs);
	free(ridx);
	free(cidx);
	return err;
}

int pmcfi_cmb_impute(struct pmcfi_cmb *c)
{
	if (!c->opts->impute)
		return 0;
	struct istep s = {0};
	s.ecom = malloc((c->nev + 1) * sizeof(size_t));
	s.eadd = malloc((c->nev + 1) * sizeof(size_t));
	s.base = malloc((c->nf + 1) * sizeof(int32_t));
	int err = 0;
	if (!s.ecom || !s.eadd || !s.base)
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory imputing values");
	for (size_t f = 0; f < c->nf && !err; f++) {
		s.base[f] = -1;
		for (size_t j = 0; j < c->n && s.base[f] < 0; j++)
			if (c->src[f * c->n + j] >= 0)
				s.base[f] = (int32_t)j;
	}
	for (s.i = 1; s.i < c->n && !err; s.i++)
		err = impute_step(c, &s);
	free(s.ecom);
	free(s.eadd);
	free(s.base);
	return err;
}
