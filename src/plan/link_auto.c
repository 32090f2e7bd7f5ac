/* --link auto: the linking events of each set of a bc plan, and the order of
 * the sets, chosen by the information the linking events carry about the
 * events each set adds. Pairwise mutual information is estimated in
 * reference or pilot executions (rank-binned, per XU type); a branch and
 * bound over the set orders then maximises it (the idea of the Fuse
 * prototype's BC sequence generator; docs/fusion.md, "--link auto"). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "plan/plan_impl.h"
#include "util/abi.h"
#include "util/internal.h"

/* ---- mutual information --------------------------------------------------------- */

size_t pmcfi_plan_mi_bins(size_t n)
{
	if (n < PMCFI_PLAN_MI_MIN_XUS)
		return 0;
	size_t b = (size_t)cbrt((double)n);
	return b < 2 ? 2 : b > PMCFI_PLAN_MI_MAX_BINS ? PMCFI_PLAN_MI_MAX_BINS : b;
}

static int cmp_rv(const void *a, const void *b)
{
	const struct pmcfi_plan_rv *x = a, *y = b;
	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

void pmcfi_plan_rank_bins(const double *x, size_t n, size_t nb, struct pmcfi_plan_rv *scr, uint8_t *bins)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (pmcf_is_missing(x[i]))
			bins[i] = PMCFI_PLAN_MI_NOBIN;
		else
			scr[m++] = (struct pmcfi_plan_rv){x[i], (uint32_t)i};
	}
	qsort(scr, m, sizeof(*scr), cmp_rv);
	for (size_t r = 0, first = 0; r < m; r++) {
		if (r && scr[r].v != scr[r - 1].v)
			first = r; /* ties share the bin of their first rank */
		bins[scr[r].i] = (uint8_t)(first * nb / m);
	}
}

/* -sum p log2 p of counts c[0..n) over total, and the cells used */
static double entropy(const uint32_t *c, size_t n, double total, size_t *used)
{
	double h = 0;
	*used = 0;
	for (size_t i = 0; i < n; i++)
		if (c[i]) {
			double p = c[i] / total;
			h -= p * log2(p);
			++*used;
		}
	return h;
}

double pmcfi_plan_mi_binned(const uint8_t *bx, const uint8_t *by, size_t n, size_t nb, uint32_t *hist)
{
	uint32_t *hx = hist + nb * nb, *hy = hx + nb;
	memset(hist, 0, (nb * nb + 2 * nb) * sizeof(*hist));
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (bx[i] == PMCFI_PLAN_MI_NOBIN || by[i] == PMCFI_PLAN_MI_NOBIN)
			continue;
		hist[bx[i] * nb + by[i]]++;
		hx[bx[i]]++;
		hy[by[i]]++;
		m++;
	}
	if (m < PMCFI_PLAN_MI_MIN_XUS)
		return NAN;
	size_t ux, uy, uxy;
	double hX = entropy(hx, nb, (double)m, &ux), hY = entropy(hy, nb, (double)m, &uy);
	double hXY = entropy(hist, nb * nb, (double)m, &uxy);
	/* Miller-Madow: each plug-in entropy is low by (cells used - 1) / 2m nats */
	double mi =
		hX + hY - hXY + ((double)ux + (double)uy - (double)uxy - 1.0) / (2.0 * (double)m * log(2.0));
	return mi > 0 ? mi : 0;
}

double pmcfi_plan_mi(const double *x, const double *y, size_t n)
{
	size_t nb = pmcfi_plan_mi_bins(n);
	struct pmcfi_plan_rv *scr = malloc((n ? n : 1) * sizeof(*scr));
	uint8_t *bx = malloc(n ? n : 1), *by = malloc(n ? n : 1);
	uint32_t *hist = malloc((nb * nb + 2 * nb + 1) * sizeof(*hist));
	double mi = NAN;
	if (nb && scr && bx && by && hist) {
		pmcfi_plan_rank_bins(x, n, nb, scr, bx);
		pmcfi_plan_rank_bins(y, n, nb, scr, by);
		mi = pmcfi_plan_mi_binned(bx, by, n, nb, hist);
	}
	free(scr);
	free(bx);
	free(by);
	free(hist);
	return mi;
}

/* ---- the matrix over the plan's events, from the pilots ----------------------------------- */

/* One pilot's contribution: per XU type (XUs grouped by type in ord), the
 * rank bins of every event it measured, then the MI of every pair it
 * measured, weighted by the XUs it was estimated on. */
static int pilot_mi(const pmcf_profile *p, const char *const *names, size_t n, double *sum, double *weight)
{
	size_t nx = pmcf_profile_nxus(p), nt = pmcf_profile_ntypes(p);
	if (!nx || !nt)
		return 0;
	size_t *tstart = calloc(nt + 1, sizeof(size_t)), *ord = malloc(nx * sizeof(size_t));
	uint32_t *type = malloc(nx * sizeof(uint32_t));
	long *col = malloc((n ? n : 1) * sizeof(long));
	uint8_t *bins = malloc(n * nx + 1);
	double *vals = malloc(nx * sizeof(double));
	struct pmcfi_plan_rv *scr = malloc(nx * sizeof(*scr));
	uint32_t *hist = malloc((PMCFI_PLAN_MI_MAX_BINS + 2) * PMCFI_PLAN_MI_MAX_BINS * sizeof(uint32_t));
	int err = 0;
	if (!tstart || !ord || !type || !col || !bins || !vals || !scr || !hist) {
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < nx; i++) {
		pmcf_xu xu = PMCF_XU_INIT;
		pmcf_profile_xu_fields_get(p, i, &xu);
		type[i] = xu.type < nt ? xu.type : 0;
		tstart[type[i] + 1]++;
	}
	for (size_t t = 0; t < nt; t++)
		tstart[t + 1] += tstart[t];
	for (size_t i = 0; i < nx; i++) /* counting sort, stable */
		ord[tstart[type[i]]++] = i;
	for (size_t t = nt; t-- > 0;) /* tstart[t] moved to the end of type t: back */
		tstart[t + 1] = tstart[t];
	tstart[0] = 0;
	for (size_t e = 0; e < n; e++) {
		col[e] = pmcf_profile_event_find(p, names[e]);
		const double *c = col[e] >= 0 ? pmcf_profile_column_const(p, (size_t)col[e]) : NULL;
		if (!c) {
			col[e] = -1;
			continue;
		}
		for (size_t t = 0; t < nt; t++) {
			size_t a = tstart[t], m = tstart[t + 1] - a, nb = pmcfi_plan_mi_bins(m);
			for (size_t j = 0; j < m; j++)
				vals[j] = c[ord[a + j]];
			if (nb)
				pmcfi_plan_rank_bins(vals, m, nb, scr, bins + e * nx + a);
		}
	}
	for (size_t a = 0; a < n; a++)
		for (size_t b = a + 1; b < n && col[a] >= 0; b++) {
			if (col[b] < 0)
				continue;
			for (size_t t = 0; t < nt; t++) {
				size_t s = tstart[t], m = tstart[t + 1] - s, nb = pmcfi_plan_mi_bins(m);
				double mi = nb ? pmcfi_plan_mi_binned(bins + a * nx + s, bins + b * nx + s, m,
								      nb, hist)
					       : NAN;
				if (isnan(mi))
					continue;
				sum[a * n + b] += (double)m * mi;
				weight[a * n + b] += (double)m;
			}
		}
out:
	free(tstart);
	free(ord);
	free(type);
	free(col);
	free(bins);
	free(vals);
	free(scr);
	free(hist);
	return err;
}

int pmcfi_plan_mi_matrix(const pmcf_profile *const *pilots, size_t np, const char *const *names, size_t n,
			 double *mi)
{
	double *w = calloc(n * n + 1, sizeof(double));
	if (!w)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	memset(mi, 0, n * n * sizeof(double));
	int err = 0;
	for (size_t k = 0; k < np && !err; k++)
		err = pilot_mi(pilots[k], names, n, mi, w);
	for (size_t a = 0; a < n; a++) {
		mi[a * n + a] = NAN;
		for (size_t b = a + 1; b < n; b++)
			mi[a * n + b] = mi[b * n + a] = w[a * n + b] > 0 ? mi[a * n + b] / w[a * n + b] : NAN;
	}
	free(w);
	return err;
}

/* ---- the search ----------------------------------------------------------------------- */

/* One choice of linking events for a set: its score (the sum, over the
 * set's new events, of the most information one linking event carries about
 * it), the sets its events come from (need), the events. */
struct choice {
	double score;
	uint64_t need;
	size_t ev[PMCFI_PLAN_LK_MAX_LINKS];
	unsigned n;
};

struct lk_state {
	const struct pmcfi_plan_lk *P;
	size_t *owner;      /* set of each event, (size_t)-1 for the base */
	struct choice **ch; /* per set, by decreasing score; the last needs nothing */
	size_t *nch, *capch;
	double *ub; /* per set: its best score with every other set before it */
	size_t *cur, *best;
	double bestval;
	size_t nodes;
	struct timespec deadline;
	int timeout, err;
};

static double mi_at(const struct pmcfi_plan_lk *P, size_t a, size_t b)
{
	double v = P->mi[a * P->nev + b];
	return isnan(v) ? 0 : v;
}

/* best[j]: the most information a base event carries about new event j of set k */
static double score_of(const struct pmcfi_plan_lk *P, size_t k, const double *basebest, const size_t *ev,
		       unsigned n)
{
	double s = 0;
	for (size_t j = P->setfirst[k]; j < P->setfirst[k + 1]; j++) {
		double b = basebest[j - P->setfirst[k]];
		for (unsigned q = 0; q < n; q++) {
			double v = mi_at(P, ev[q], P->setev[j]);
			if (v > b)
				b = v;
		}
		s += b;
	}
	return s;
}

static int push_choice(struct lk_state *S, size_t k, const struct choice *c)
{
	if (pmcfi_grow((void **)&S->ch[k], &S->capch[k], S->nch[k] + 1, sizeof(*S->ch[k])))
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	S->ch[k][S->nch[k]++] = *c;
	return 0;
}

/* Every countable choice for set k built on c from candidates cand[from..m):
 * countable sets are closed under removal (a subset of events that fits the
 * counters fits), so a choice that does not fit is not extended. */
static int enum_choices(struct lk_state *S, size_t k, const size_t *cand, size_t m, size_t from,
			struct choice *c, const double *basebest)
{
	const struct pmcfi_plan_lk *P = S->P;
	for (size_t q = from; q < m; q++) {
		c->ev[c->n++] = cand[q];
		int f = P->fits(P->ctx, k, c->ev, c->n);
		if (f < 0)
			return f;
		if (f) {
			uint64_t need = c->need;
			c->need |= (uint64_t)1 << S->owner[cand[q]];
			c->score = score_of(P, k, basebest, c->ev, c->n);
			int err = push_choice(S, k, c);
			if (!err && c->n < P->maxlinks)
				err = enum_choices(S, k, cand, m, q + 1, c, basebest);
			if (err)
				return err;
			c->need = need;
		}
		c->n--;
	}
	return 0;
}

static int cmp_choice(const void *a, const void *b)
{
	const struct choice *x = a, *y = b;
	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return (x->n > y->n) - (x->n < y->n); /* fewer links first */
}

/* The choices of every set: the candidates are the events of the other sets
 * that tell more about one of its new events than the base does. */
static int build_choices(struct lk_state *S)
{
	const struct pmcfi_plan_lk *P = S->P;
	size_t *cand = malloc((P->nev + 1) * sizeof(size_t));
	double *basebest = malloc((P->nev + 1) * sizeof(double));
	int err = cand && basebest ? 0 : pmcfi_fail(PMCF_ENOMEM, "out of memory");
	for (size_t k = 0; k < P->nsets && !err; k++) {
		size_t a = P->setfirst[k], b = P->setfirst[k + 1];
		for (size_t j = a; j < b; j++) {
			basebest[j - a] = 0;
			for (size_t q = 0; q < P->nbase; q++) {
				double v = mi_at(P, P->base[q], P->setev[j]);
				if (v > basebest[j - a])
					basebest[j - a] = v;
			}
		}
		size_t m = 0;
		for (size_t e = 0; e < P->nev; e++) {
			if (S->owner[e] == (size_t)-1 || S->owner[e] == k)
				continue;
			int useful = 0;
			for (size_t j = a; j < b && !useful; j++)
				useful = mi_at(P, e, P->setev[j]) > basebest[j - a];
			if (useful)
				cand[m++] = e;
		}
		struct choice c = {0, 0, {0}, 0};
		c.score = score_of(P, k, basebest, NULL, 0);
		if ((err = push_choice(S, k, &c)))
			break;
		if (P->maxlinks && (err = enum_choices(S, k, cand, m, 0, &c, basebest)))
			break;
		qsort(S->ch[k], S->nch[k], sizeof(struct choice), cmp_choice);
		S->ub[k] = S->ch[k][0].score;
	}
	free(cand);
	free(basebest);
	return err;
}

/* The best choice for set k when the sets of mask come before it */
static const struct choice *best_choice(const struct lk_state *S, size_t k, uint64_t mask)
{
	for (size_t q = 0; q < S->nch[k]; q++)
		if ((S->ch[k][q].need & ~mask) == 0)
			return &S->ch[k][q];
	return NULL; /* not reached: the base choice needs nothing */
}

/* The value of an order: every set but the first scores its best choice. */
static double order_value(const struct lk_state *S, const size_t *order)
{
	double v = 0;
	uint64_t mask = 0;
	for (size_t p = 0; p < S->P->nsets; p++) {
		if (p)
			v += best_choice(S, order[p], mask)->score;
		mask |= (uint64_t)1 << order[p];
	}
	return v;
}

#define LK_EPS 1e-12

/* Branch and bound over the orders: a prefix's value plus, for every set
 * not placed yet, its score with every other set before it (ub), bounds
 * every completion: a set's best choice can only improve as more sets come
 * before it, and the set placed first scores nothing. With prune 0, every
 * order (the exhaustive search the tests compare with). */
static void bnb(struct lk_state *S, size_t depth, uint64_t mask, double val, int prune)
{
	const struct pmcfi_plan_lk *P = S->P;
	if (S->timeout)
		return;
	if ((++S->nodes & 1023) == 0 && prune && pmcfi_plan_past(&S->deadline)) {
		S->timeout = 1;
		return;
	}
	if (depth == P->nsets) {
		if (val > S->bestval + LK_EPS) {
			S->bestval = val;
			memcpy(S->best, S->cur, P->nsets * sizeof(size_t));
		}
		return;
	}
	double bound = 0;
	for (size_t k = 0; k < P->nsets; k++)
		if (!(mask >> k & 1))
			bound += S->ub[k];
	if (prune && val + P->bound_scale * bound <= S->bestval + LK_EPS)
		return;
	for (size_t k = 0; k < P->nsets; k++) {
		if (mask >> k & 1)
			continue;
		S->cur[depth] = k;
		bnb(S, depth + 1, mask | (uint64_t)1 << k, val + (depth ? best_choice(S, k, mask)->score : 0),
		    prune);
	}
}

/* Greedy: first the set with the least to gain from links, then each time
 * the set whose best choice scores most. */
static void greedy(struct lk_state *S)
{
	const struct pmcfi_plan_lk *P = S->P;
	uint64_t mask = 0;
	for (size_t p = 0; p < P->nsets; p++) {
		size_t pick = (size_t)-1;
		double pv = 0;
		for (size_t k = 0; k < P->nsets; k++) {
			if (mask >> k & 1)
				continue;
			double v = p ? best_choice(S, k, mask)->score : -S->ub[k];
			if (pick == (size_t)-1 || v > pv + LK_EPS) {
				pick = k;
				pv = v;
			}
		}
		S->best[p] = pick;
		mask |= (uint64_t)1 << pick;
	}
	S->bestval = order_value(S, S->best);
}

void pmcfi_plan_lk_result_free(struct pmcfi_plan_lk_result *r)
{
	if (!r)
		return;
	free(r->order);
	free(r->links);
	free(r->nlinks);
	free(r->bits);
	free(r->base_bits);
	memset(r, 0, sizeof(*r));
}

int pmcfi_plan_lk_search(const struct pmcfi_plan_lk *P, int method, double time_limit_s,
			 struct pmcfi_plan_lk_result *r)
{
	memset(r, 0, sizeof(*r));
	if (P->nsets > 64)
		return pmcfi_fail(PMCF_ETOOMANY,
				  "link_auto (--link auto) orders at most 64 sets (this plan has %zu)",
				  P->nsets);
	if (P->maxlinks > PMCFI_PLAN_LK_MAX_LINKS)
		return pmcfi_fail(PMCF_EINVAL, "at most %d linking events per set", PMCFI_PLAN_LK_MAX_LINKS);
	size_t K = P->nsets ? P->nsets : 1;
	struct lk_state S = {.P = P};
	S.owner = malloc((P->nev + 1) * sizeof(size_t));
	S.ch = calloc(K, sizeof(*S.ch));
	S.nch = calloc(K, sizeof(size_t));
	S.capch = calloc(K, sizeof(size_t));
	S.ub = calloc(K, sizeof(double));
	S.cur = calloc(K, sizeof(size_t));
	S.best = calloc(K, sizeof(size_t));
	r->order = calloc(K, sizeof(size_t));
	r->links = calloc(K * PMCFI_PLAN_LK_MAX_LINKS, sizeof(size_t));
	r->nlinks = calloc(K, sizeof(size_t));
	r->bits = calloc(K, sizeof(double));
	r->base_bits = calloc(K, sizeof(double));
	int err = 0;
	if (!S.owner || !S.ch || !S.nch || !S.capch || !S.ub || !S.cur || !S.best || !r->order || !r->links ||
	    !r->nlinks || !r->bits || !r->base_bits) {
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t e = 0; e < P->nev; e++)
		S.owner[e] = (size_t)-1;
	for (size_t k = 0; k < P->nsets; k++)
		for (size_t j = P->setfirst[k]; j < P->setfirst[k + 1]; j++)
			S.owner[P->setev[j]] = k;
	if ((err = build_choices(&S)))
		goto out;
	if (method == PMCFI_PLAN_LK_AUTO)
		method = P->nsets <= PMCFI_PLAN_LK_BNB_MAX_SETS ? PMCFI_PLAN_LK_BNB : PMCFI_PLAN_LK_GREEDY;
	greedy(&S); /* the incumbent of the branch and bound */
	r->method = method;
	r->exact = method != PMCFI_PLAN_LK_GREEDY;
	if (method == PMCFI_PLAN_LK_BNB) {
		pmcfi_plan_deadline(time_limit_s, &S.deadline);
		bnb(&S, 0, 0, 0, 1);
		r->exact = !S.timeout;
	} else if (method == PMCFI_PLAN_LK_EXHAUSTIVE) {
		S.bestval = -1;
		bnb(&S, 0, 0, 0, 0);
	}
	r->nodes = S.nodes;
	r->total = S.bestval;
	uint64_t mask = 0;
	for (size_t p = 0; p < P->nsets; p++) {
		size_t k = S.best[p];
		const struct choice *c = best_choice(&S, k, p ? mask : 0);
		const struct choice *base = &S.ch[k][S.nch[k] - 1];
		for (size_t q = 0; q < S.nch[k]; q++) /* the choice without links */
			if (S.ch[k][q].n == 0)
				base = &S.ch[k][q];
		r->order[p] = k;
		r->base_bits[p] = p ? base->score : 0;
		r->bits[p] = p ? c->score : 0;
		r->nlinks[p] = p ? c->n : 0;
		for (unsigned q = 0; p && q < c->n; q++)
			r->links[p * PMCFI_PLAN_LK_MAX_LINKS + q] = c->ev[q];
		mask |= (uint64_t)1 << k;
	}
out:
	for (size_t k = 0; S.ch && k < K; k++)
		free(S.ch[k]);
	free(S.ch);
	free(S.nch);
	free(S.capch);
	free(S.ub);
	free(S.cur);
	free(S.best);
	free(S.owner);
	if (err)
		pmcfi_plan_lk_result_free(r);
	return err;
}
