/* Conditional imputation (`combine --impute K`, issue 21; not from the
 * papers): after an ordered strategy (bc family, match) has paired the XUs,
 * every value a fused XU took from another execution's XU is replaced by
 * the median of that event over the K nearest XUs of that execution in the
 * same group (rank, type), nearest in match's linking space (cmbi_match_embed:
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
 * Provenance of an imputed value: source i, XU -1 (from several XUs of
 * execution i). O(n log^2 n + n K log n) per step and group. */
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

static int cmp_key(const void *a, const void *b)
{
	const struct key *x = a, *y = b;
	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

/* Builds the node perm[lo..hi): sorted on its dimension of largest spread,
 * the point at mid splits it (dim[mid]). */
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
	qsort(t->keys + lo, hi - lo, sizeof(*t->keys), cmp_key);
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

/* Imputes the rows rows[0..nr) from input i's XUs cx[0..nc) of one group. */
static int impute_group(struct cmb *c, const struct istep *s, const uint32_t *rows, size_t nr,
			const uint32_t *cx, size_t nc)
{
	size_t k = s->k, m = s->m, i = s->i, kk = c->opts->impute < nc ? c->opts->impute : nc;
	if (!nr || !nc)
		return 0;
	double *zp = malloc((nr * k + 1) * sizeof(double)), *zc = malloc((nc * k + 1) * sizeof(double));
	double *y = malloc((nc * m + 1) * sizeof(double)), *vals = malloc((kk + 1) * sizeof(double));
	struct knn t = {.z = zc, .d = k, .k = kk};
	t.perm = malloc((nc + 1) * sizeof(uint32_t));
	t.dim = malloc(nc + 1);
	t.keys = malloc((nc + 1) * sizeof(*t.keys));
	t.bd = malloc((kk + 1) * sizeof(double));
	t.bi = malloc((kk + 1) * sizeof(uint32_t));
	int err = 0;
	if (!zp || !zc || !y || !vals || !t.perm || !t.dim || !t.keys || !t.bd || !t.bi) {
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory imputing values");
		goto out;
	}
	for (size_t a = 0; a < k; a++) {
		const double *ocol = pmcf_profile_column(c->out, s->ecom[a]);
		const double *icol = pmcf_profile_column_const(c->in[i], (size_t)c->evidx[i][s->ecom[a]]);
		for (size_t q = 0; q < nr; q++)
			zp[q * k + a] = cmbi_match_log(ocol[rows[q]]);
		for (size_t q = 0; q < nc; q++)
			zc[q * k + a] = cmbi_match_log(icol[cx[q]]);
	}
	for (size_t b = 0; b < m; b++) {
		const double *icol = pmcf_profile_column_const(c->in[i], (size_t)c->evidx[i][s->eadd[b]]);
		for (size_t q = 0; q < nc; q++)
			y[q * m + b] = cmbi_match_log(icol[cx[q]]);
	}
	if (cmbi_match_embed(zp, nr, zc, nc, y, k, m) != 0) {
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory imputing values");
		goto out;
	}
	for (size_t q = 0; q < nc; q++)
		t.perm[q] = (uint32_t)q;
	build(&t, 0, nc);
	for (size_t q = 0; q < nr && !err; q++) {
		t.nb = 0;
		search(&t, zp + q * k, 0, nc);
		for (size_t b = 0; b < m && !err; b++) {
			size_t e = s->eadd[b];
			const double *icol = pmcf_profile_column_const(c->in[i], (size_t)c->evidx[i][e]);
			size_t nv = 0;
			for (size_t r = 0; r < t.nb; r++) {
				double v = icol[cx[t.bi[r]]];
				if (!pmcf_is_missing(v))
					vals[nv++] = v;
			}
			if (!nv)
				continue; /* the neighbours have nothing: keep the copy */
			qsort(vals, nv, sizeof(*vals), cmp_dbl);
			pmcf_profile_column(c->out, e)[rows[q]] =
				nv % 2 ? vals[nv / 2] : (vals[nv / 2 - 1] + vals[nv / 2]) / 2;
			err = pmcf_profile_provenance_set(c->out, rows[q], e, (int32_t)i, -1);
		}
	}
out:
	free(zp);
	free(zc);
	free(y);
	free(vals);
	free(t.perm);
	free(t.dim);
	free(t.keys);
	free(t.bd);
	free(t.bi);
	return err;
}

static int impute_step(struct cmb *c, struct istep *s)
{
	size_t i = s->i, *rs = calloc(c->ntypes + 2, sizeof(size_t)), *cs = NULL;
	uint32_t *ridx = malloc((c->nf + 1) * sizeof(uint32_t)), *cidx = NULL;
	int err = cmbi_by_type(c, i, &cidx, &cs);
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
	cmbi_fused_by_type(c, c->nf, ridx, rs);
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

int cmbi_impute(struct cmb *c)
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
