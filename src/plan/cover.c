/* Planning reference executions (fuse-task-parallel §4.1 needs every event
 * pair monitored together): a pair covering with event sets that the
 * catalogue's compatibility check accepts, and a lower bound on the number
 * of sets any such covering needs.
 *
 * The events are split into
 * - free events (cost 0: duration, the fixed-counter events), which ride
 *   along in every set they fit;
 * - classes of events with the same native events (aliases such as
 *   PAPI_L2_DCA = PAPI_L1_DCM): one representative per class is planned, the
 *   others join every set of their representative at no cost;
 * so that the hard part is covering the pairs of the representatives R.
 *
 * Lower bound. Restricting any covering to R still covers every pair of R
 * that can be counted together, with as many sets, so a bound for R is a
 * bound for the whole problem, for any choice of R. An exact search over the
 * countable subsets of R (check_set, pruned by pairwise compatibility) gives
 * m(e), the largest holding e, m the largest of all, and for every partner
 * f of e the largest set holding both and the largest holding e but not f.
 * With p(e) the partners e can be counted with and P = sum p(e) / 2:
 *   (a) pairs:      ceil(P / C(m, 2))
 *   (b) per event:  r(e) = the sets holding e needed to meet its partners,
 *                   at least ceil(p(e) / (m(e) - 1)), and for every f at least
 *                   ceil((p(e) - 1) / most partners other than f in one set)
 *                   (a derived event such as PAPI_L2_TCM meets 3 partners
 *                   only together with PAPI_L2_ICM, which shares its native,
 *                   else 2); the bound is max_e r(e)
 *   (c) Schönheim:  ceil(sum_e r(e) / m): every set holds at most m of R
 * ((c) is the Schönheim bound generalised to unequal events and to pairs
 * that cannot be counted at all.) If the exact search runs out of its budget,
 * m(e) falls back to 1 + the events e can be paired with (still a bound).
 *
 * Packing. Greedy on R (start from the uncovered pair whose events have most
 * uncovered pairs left, add the event covering most new pairs that still
 * fits), with seeded randomised restarts keeping the best; then a tabu
 * search removes one set at a time and repairs the covering by exchanging
 * one or two events of a set for one event that covers an uncovered pair
 * (Nurmela-Östergård style), until the bound is met or
 * the move budget is spent; then the aliases and free events are added to
 * every set they fit, and any pair still uncovered gets greedy sets. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pmcfuse/events.h"
#include "pmcfuse/plan.h"
#include "counters/catalog.h"
#include "util/abi.h"
#include "util/internal.h"
#include "util/rng.h"

#define BOUND_CALLS 600000u /* oracle calls for the exact largest sets */
#define RESTARTS 12         /* greedy restarts (the first one unrandomised) */
#define LS_MOVES 60000u     /* tabu moves in all */
#define LS_LEVEL 30000u     /* tabu moves to repair one removed set */
#define TABU 2              /* moves during which a removed event stays out of its set */

struct pmcf_cover {
	char **ev;
	size_t n;
	size_t **sets; /* event indices */
	size_t *size;
	size_t nsets, cap;
	const char ***names; /* per set, pointers into ev */
	pmcf_evlist **lists; /* per set, resolved (pmcf_cover_pairs_evlist), else NULL */
	size_t *cidx;        /* per event of ev: its catalogue index */
	size_t (*imp)[2];
	size_t nimp;
	size_t lower;
	size_t lb_pairs, lb_event, lb_schoen; /* the three bounds, per repeat */
	size_t nclass, mmax, npairs;          /* |R|, m, P */
	int exact;                            /* 1 when m(e) came from the exact search */
	char text[512];
};

/* ---- the oracle: check_set with a memo keyed by the set's bitset ------------- */

struct oracle {
	const pmcf_catalog *c;
	unsigned pmcs;
	const size_t *cidx; /* per event: its catalogue index (resolved once) */
	size_t W;           /* 64-bit words per key */
	size_t *buf;
	uint64_t *key, *keys;
	unsigned char *st; /* 0 empty, 1 fits, 2 does not */
	size_t cap, used;
	size_t calls; /* check_set calls made */
};

static uint64_t hash_key(const uint64_t *k, size_t W)
{
	uint64_t h = 0x9e3779b97f4a7c15ull;
	for (size_t i = 0; i < W; i++) {
		h ^= k[i] + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
		h *= 0xbf58476d1ce4e5b9ull;
	}
	return h ^ (h >> 31);
}

static int memo_grow(struct oracle *o)
{
	size_t cap = o->cap ? 2 * o->cap : 1024;
	uint64_t *keys = calloc(cap * o->W, sizeof(uint64_t));
	unsigned char *st = calloc(cap, 1);
	if (!keys || !st) {
		free(keys);
		free(st);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < o->cap; i++) {
		if (!o->st[i])
			continue;
		size_t h = (size_t)hash_key(o->keys + i * o->W, o->W) & (cap - 1);
		while (st[h])
			h = (h + 1) & (cap - 1);
		memcpy(keys + h * o->W, o->keys + i * o->W, o->W * sizeof(uint64_t));
		st[h] = o->st[i];
	}
	free(o->keys);
	free(o->st);
	o->keys = keys;
	o->st = st;
	o->cap = cap;
	return 0;
}

/* 1 when the events set[0..k) (indices into ev) fit one execution, 0 when
 * not, negative on error. */
static int fits(struct oracle *o, const size_t *set, size_t k)
{
	memset(o->key, 0, o->W * sizeof(uint64_t));
	for (size_t i = 0; i < k; i++)
		o->key[set[i] / 64] |= 1ull << (set[i] % 64);
	if (2 * (o->used + 1) > o->cap) {
		int err = memo_grow(o);
		if (err)
			return err;
	}
	size_t h = (size_t)hash_key(o->key, o->W) & (o->cap - 1);
	while (o->st[h]) {
		if (memcmp(o->keys + h * o->W, o->key, o->W * sizeof(uint64_t)) == 0)
			return o->st[h] == 1;
		h = (h + 1) & (o->cap - 1);
	}
	for (size_t i = 0; i < k; i++)
		o->buf[i] = o->cidx[set[i]];
	int r = pmcfi_catalog_check_idx(o->c, o->buf, k, o->pmcs, NULL, 0);
	o->calls++;
	if (r < 0)
		return r;
	memcpy(o->keys + h * o->W, o->key, o->W * sizeof(uint64_t));
	o->st[h] = r == 1 ? 1 : 2;
	o->used++;
	return r == 1;
}

/* ---- helpers ------------------------------------------------------------------ */

static size_t ceil_div(size_t a, size_t b) { return b ? (a + b - 1) / b : 0; }

static uint64_t rnd(uint64_t *s) { return pmcfi_splitmix64(s); }

/* The native events of an event as a text key (the "native" array of its
 * constraints), or "" when the catalogue does not say. */
static void natives_key(const pmcf_event_info *info, char *out, size_t len)
{
	out[0] = '\0';
	const char *s = info && info->constraints ? strstr(info->constraints, "\"native\"") : NULL;
	const char *b = s ? strchr(s, '[') : NULL;
	const char *e = b ? strchr(b, ']') : NULL;
	if (!e || (size_t)(e - b) + 1 >= len)
		return;
	memcpy(out, b, (size_t)(e - b) + 1);
	out[e - b + 1] = '\0';
}

/* ---- the planner's workspace ------------------------------------------------- */

struct plan {
	struct oracle o;
	size_t E;
	unsigned char *ok2; /* E*E: the pair fits one execution */
	size_t nR;
	size_t *R;          /* representatives (event indices) */
	unsigned *costR;    /* catalogue cost of each representative */
	unsigned char *okR; /* nR*nR */
	uint64_t rng;
	int err;
	/* a covering of R: nb sets of up to nR events each */
	size_t *bs, *bk, nb, bcap; /* sets (nR slots each), sizes */
	unsigned *cnt;             /* nR*nR: sets covering the pair */
	size_t unc;                /* required pairs of R not covered */
	size_t *tmp, *tmp2;        /* nR + 1 scratch */
};

static int plan_sets_reserve(struct plan *p, size_t n)
{
	/* bk holds bcap sets, bs bcap rows of nR */
	size_t cap = p->bcap, r = p->nR ? p->nR : 1, cbs = p->bcap * r;
	if (pmcfi_grow((void **)&p->bk, &cap, n, sizeof(size_t)) ||
	    pmcfi_grow((void **)&p->bs, &cbs, cap * r, sizeof(size_t)))
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	p->bcap = cap;
	return 0;
}

/* fits() on R-indices */
static int fitsR(struct plan *p, const size_t *set, size_t k)
{
	for (size_t i = 0; i < k; i++)
		p->tmp2[i] = p->R[set[i]];
	return fits(&p->o, p->tmp2, k);
}

/* ---- exact largest countable subsets of R ---------------------------------- */

struct bsearch {
	struct plan *p;
	size_t *m;              /* per representative */
	size_t *S;              /* current set */
	size_t *cands;          /* nR * (nR + 1): candidate lists per depth */
	size_t *with, *without; /* nR*nR: largest set holding e and f, holding e but not f */
	unsigned char *member;  /* nR: in S */
	size_t limit;           /* oracle calls allowed */
	int aborted;
};

static void bound_dfs(struct bsearch *b, size_t k, const size_t *cand, size_t nc)
{
	struct plan *p = b->p;
	size_t nR = p->nR;
	if (k)
		b->member[b->S[k - 1]] = 1;
	for (size_t i = 0; i < k; i++) {
		size_t e = b->S[i];
		if (b->m[e] < k)
			b->m[e] = k;
		for (size_t f = 0; f < nR; f++) {
			size_t *t = b->member[f] ? &b->with[e * nR + f] : &b->without[e * nR + f];
			if (*t < k)
				*t = k;
		}
	}
	size_t *next = b->cands + (k + 1) * p->nR;
	for (size_t i = 0; i < nc && !b->aborted && !p->err; i++) {
		size_t e = cand[i], nn = 0;
		for (size_t j = i + 1; j < nc; j++)
			if (p->okR[e * p->nR + cand[j]])
				next[nn++] = cand[j];
		b->S[k] = e;
		if (k + 1 > 2) {
			if (p->o.calls >= b->limit) {
				b->aborted = 1;
				return;
			}
			int r = fitsR(p, b->S, k + 1);
			if (r < 0) {
				p->err = r;
				return;
			}
			if (!r)
				continue;
		}
		bound_dfs(b, k + 1, next, nn);
	}
	if (k)
		b->member[b->S[k - 1]] = 0;
}

static void compute_bound(struct plan *p, pmcf_cover *cv, size_t *m)
{
	size_t nR = p->nR;
	struct bsearch b = {p, m, p->tmp, NULL, NULL, NULL, NULL, p->o.calls + BOUND_CALLS, 0};
	for (size_t i = 0; i < nR; i++)
		m[i] = 1;
	b.cands = malloc((nR * (nR + 1) + 1) * sizeof(size_t));
	b.with = calloc(nR * nR + 1, sizeof(size_t));
	b.without = calloc(nR * nR + 1, sizeof(size_t));
	b.member = calloc(nR + 1, 1);
	if (b.cands && b.with && b.without && b.member) {
		for (size_t i = 0; i < nR; i++)
			b.cands[i] = i;
		bound_dfs(&b, 0, b.cands, nR);
	} else {
		b.aborted = 1;
	}
	cv->exact = !b.aborted;
	size_t P = 0, sumr = 0, mmax = 1, lbe = 0;
	for (size_t i = 0; i < nR; i++) {
		size_t pe = 0;
		for (size_t j = 0; j < nR; j++)
			pe += j != i && p->okR[i * nR + j];
		if (b.aborted)
			m[i] = pe + 1;
		P += pe;
		if (m[i] > mmax)
			mmax = m[i];
		if (!pe)
			continue;
		/* all partners, at most m(e) - 1 per set; or all partners but f,
		 * at most max(largest set with e but not f - 1, largest with both - 2) */
		size_t r = ceil_div(pe, m[i] - 1);
		for (size_t f = 0; f < nR && !b.aborted && pe > 1; f++) {
			if (f == i || !p->okR[i * nR + f])
				continue;
			size_t w = b.with[i * nR + f], wo = b.without[i * nR + f];
			size_t most = wo > 1 ? wo - 1 : 0;
			most = w > 2 && w - 2 > most ? w - 2 : most;
			if (most && ceil_div(pe - 1, most) > r)
				r = ceil_div(pe - 1, most);
		}
		sumr += r;
		lbe = r > lbe ? r : lbe;
	}
	free(b.cands);
	free(b.with);
	free(b.without);
	free(b.member);
	P /= 2;
	cv->npairs = P;
	cv->nclass = nR;
	cv->mmax = mmax;
	cv->lb_pairs = mmax >= 2 ? ceil_div(P, mmax * (mmax - 1) / 2) : 0;
	cv->lb_event = lbe;
	cv->lb_schoen = ceil_div(sumr, mmax);
}

/* ---- covering R: greedy ------------------------------------------------------ */

static void cover_reset(struct plan *p)
{
	size_t nR = p->nR;
	memset(p->cnt, 0, nR * nR * sizeof(unsigned));
	p->unc = 0;
	for (size_t i = 0; i < nR; i++)
		for (size_t j = i + 1; j < nR; j++)
			p->unc += p->okR[i * nR + j];
	p->nb = 0;
}

static void cover_count(struct plan *p, const size_t *s, size_t k, int add)
{
	size_t nR = p->nR;
	for (size_t i = 0; i < k; i++)
		for (size_t j = i + 1; j < k; j++) {
			size_t a = s[i], b = s[j];
			if (add) {
				if (p->cnt[a * nR + b]++ == 0)
					p->unc--;
			} else if (--p->cnt[a * nR + b] == 0) {
				p->unc++;
			}
			p->cnt[b * nR + a] = p->cnt[a * nR + b];
		}
}

struct cand {
	size_t e, gain;
	unsigned cost;
	uint64_t key;
};

static int cand_cmp(const void *x, const void *y)
{
	const struct cand *a = x, *b = y;
	if (a->gain != b->gain)
		return a->gain > b->gain ? -1 : 1;
	if (a->cost != b->cost)
		return a->cost < b->cost ? -1 : 1;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->e < b->e ? -1 : a->e > b->e;
}

/* Greedy covering of R from scratch; random tie-breaks unless restart 0. */
static void greedy(struct plan *p, int randomise, struct cand *cs)
{
	size_t nR = p->nR;
	cover_reset(p);
	size_t *deg = p->tmp;
	for (size_t i = 0; i < nR; i++) {
		deg[i] = 0;
		for (size_t j = 0; j < nR; j++)
			deg[i] += j != i && p->okR[i * nR + j];
	}
	while (p->unc && !p->err) {
		size_t a = 0, b = 0;
		uint64_t best = 0;
		int found = 0;
		for (size_t x = 0; x < nR; x++)
			for (size_t y = x + 1; y < nR; y++) {
				if (!p->okR[x * nR + y] || p->cnt[x * nR + y])
					continue;
				uint64_t sc = (uint64_t)(deg[x] + deg[y]) << 20;
				if (randomise)
					sc |= rnd(&p->rng) & 0xfffff;
				if (!found || sc > best) {
					best = sc;
					a = x;
					b = y;
					found = 1;
				}
			}
		if (plan_sets_reserve(p, p->nb + 1)) {
			p->err = PMCF_ENOMEM;
			return;
		}
		size_t *s = p->bs + p->nb * nR, k = 2;
		s[0] = a;
		s[1] = b;
		for (;;) {
			size_t nc = 0;
			for (size_t e = 0; e < nR; e++) {
				size_t g = 0;
				int okk = 1;
				for (size_t i = 0; i < k && okk; i++) {
					okk = e != s[i] && p->okR[e * nR + s[i]];
					g += okk && !p->cnt[e * nR + s[i]];
				}
				if (okk && g)
					cs[nc++] = (struct cand){e, g, p->costR[e],
								 randomise ? rnd(&p->rng) : 0};
			}
			qsort(cs, nc, sizeof(*cs), cand_cmp);
			int added = 0;
			for (size_t i = 0; i < nc && !added; i++) {
				s[k] = cs[i].e;
				int r = fitsR(p, s, k + 1);
				if (r < 0) {
					p->err = r;
					return;
				}
				added = r;
			}
			if (!added)
				break;
			k++;
		}
		for (size_t i = 0; i < k; i++)
			for (size_t j = 0; j < k; j++)
				if (i != j && !p->cnt[s[i] * nR + s[j]])
					deg[s[i]]--;
		cover_count(p, s, k, 1);
		p->bk[p->nb++] = k;
	}
}

/* ---- covering R: tabu search with one set fewer -------------------------------- */

struct move {
	size_t s, out, out2; /* nR: nothing removed */
	size_t in;
	long delta;
	uint64_t key;
};

static int move_cmp(const void *x, const void *y)
{
	const struct move *a = x, *b = y;
	if (a->delta != b->delta)
		return a->delta < b->delta ? -1 : 1;
	return a->key < b->key ? -1 : a->key > b->key;
}

static int in_set(const size_t *s, size_t k, size_t e)
{
	for (size_t i = 0; i < k; i++)
		if (s[i] == e)
			return 1;
	return 0;
}

/* Tries to cover every pair of R with the current nb sets; returns 1 when
 * done, 0 when the move budget ran out. */
static int repair(struct plan *p, size_t budget, size_t *moves_used, struct move *mv, size_t *tabu,
		  size_t *pairs)
{
	size_t nR = p->nR;
	size_t it0 = *moves_used;
	memset(tabu, 0, p->nb * nR * sizeof(size_t));
	while (p->unc && *moves_used - it0 < budget && !p->err) {
		size_t it = ++*moves_used;
		/* an uncovered pair at random */
		size_t np = 0;
		for (size_t x = 0; x < nR; x++)
			for (size_t y = x + 1; y < nR; y++)
				if (p->okR[x * nR + y] && !p->cnt[x * nR + y])
					pairs[np++] = x * nR + y;
		size_t pr = pairs[rnd(&p->rng) % np];
		size_t ends[2] = {pr / nR, pr % nR};
		size_t nm = 0;
		for (size_t side = 0; side < 2; side++) {
			size_t a = ends[side], in = ends[1 - side];
			for (size_t si = 0; si < p->nb; si++) {
				size_t *s = p->bs + si * nR, k = p->bk[si];
				if (!in_set(s, k, a) || in_set(s, k, in))
					continue;
				if (tabu[si * nR + in] > it)
					continue;
				/* add in, or exchange one or two events of s (other than a) for it */
				for (size_t oi = 0; oi <= k; oi++)
					for (size_t oj = oi; oj <= k; oj++) {
						size_t o1 = oi < k ? s[oi] : nR,
						       o2 = oj < k && oj > oi ? s[oj] : nR;
						if (o1 == a || o2 == a || (oj > oi && oj == k))
							continue;
						long gained = 0, lost = 0;
						int okk = 1;
						for (size_t i = 0; i < k && okk; i++) {
							size_t z = s[i];
							if (z == o1 || z == o2)
								continue;
							okk = p->okR[in * nR + z];
							gained += !p->cnt[in * nR + z];
							if (o1 < nR)
								lost += p->cnt[o1 * nR + z] == 1;
							if (o2 < nR)
								lost += p->cnt[o2 * nR + z] == 1;
						}
						if (o2 < nR)
							lost += p->cnt[o1 * nR + o2] == 1;
						if (okk)
							mv[nm++] = (struct move){si,
										 o1,
										 o2,
										 in,
										 lost - gained,
										 rnd(&p->rng)};
					}
			}
		}
		/* the best moves first (random among equals) until one fits */
		for (size_t tries = 0; tries < nm; tries++) {
			size_t bi = tries;
			for (size_t j = tries + 1; j < nm; j++)
				if (move_cmp(&mv[j], &mv[bi]) < 0)
					bi = j;
			struct move t = mv[bi];
			mv[bi] = mv[tries];
			mv[tries] = t;
			size_t i = tries;
			size_t *s = p->bs + mv[i].s * nR, k = p->bk[mv[i].s], nk = 0;
			for (size_t j = 0; j < k; j++)
				if (s[j] != mv[i].out && s[j] != mv[i].out2)
					p->tmp[nk++] = s[j];
			p->tmp[nk++] = mv[i].in;
			int r = fitsR(p, p->tmp, nk);
			if (r < 0) {
				p->err = r;
				return 0;
			}
			if (!r)
				continue;
			cover_count(p, s, k, 0);
			memcpy(s, p->tmp, nk * sizeof(size_t));
			p->bk[mv[i].s] = nk;
			cover_count(p, s, nk, 1);
			if (mv[i].out < nR)
				tabu[mv[i].s * nR + mv[i].out] = it + TABU;
			if (mv[i].out2 < nR)
				tabu[mv[i].s * nR + mv[i].out2] = it + TABU;
			break;
		}
	}
	return p->unc == 0;
}

/* Removes the set covering the fewest pairs no other set covers. */
static void drop_weakest(struct plan *p)
{
	size_t nR = p->nR, worst = 0, wv = (size_t)-1;
	for (size_t si = 0; si < p->nb; si++) {
		size_t *s = p->bs + si * nR, k = p->bk[si], u = 0;
		for (size_t i = 0; i < k; i++)
			for (size_t j = i + 1; j < k; j++)
				u += p->cnt[s[i] * nR + s[j]] == 1;
		if (u < wv) {
			wv = u;
			worst = si;
		}
	}
	size_t *s = p->bs + worst * nR;
	cover_count(p, s, p->bk[worst], 0);
	size_t last = p->nb - 1;
	if (worst != last) {
		memcpy(s, p->bs + last * nR, p->bk[last] * sizeof(size_t));
		p->bk[worst] = p->bk[last];
	}
	p->nb--;
}

/* ---- the whole plan ---------------------------------------------------------- */

static int push_set(pmcf_cover *cv, const size_t *set, size_t k)
{
	size_t cs = cv->cap, cz = cv->cap; /* two arrays of one capacity */
	if (pmcfi_grow((void **)&cv->sets, &cs, cv->nsets + 1, sizeof(*cv->sets)) ||
	    pmcfi_grow((void **)&cv->size, &cz, cv->nsets + 1, sizeof(*cv->size)))
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	cv->cap = cs;
	if (!(cv->sets[cv->nsets] = malloc((k ? k : 1) * sizeof(size_t))))
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	memcpy(cv->sets[cv->nsets], set, k * sizeof(size_t));
	cv->size[cv->nsets++] = k;
	return 0;
}

static int size_cmp(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	return a < b ? -1 : a > b;
}

/* Plans the covering of R, then completes it for all events. */
/* Greedy restarts, keeping the fewest sets in *best (nR slots a set) and
 * *bestk (their sizes; both malloc'ed, the caller frees them), then a
 * tabu search that drops one set at a time while the rest can be repaired,
 * down to lower at most. */
static int search_sets(struct plan *p, pmcf_cover *cv, size_t lower, struct cand *cs, size_t **bestp,
		       size_t **bestkp, size_t *nbestp)
{
	size_t nR = p->nR, *best = NULL, *bestk = NULL, nbest = 0;
	int err = 0;
	for (int r = 0; r < RESTARTS && !err; r++) {
		greedy(p, r > 0, cs);
		if ((err = p->err))
			break;
		if (!best || p->nb < nbest) {
			free(best);
			free(bestk);
			best = malloc(p->nb * nR * sizeof(size_t));
			bestk = malloc(p->nb * sizeof(size_t));
			if (!best || !bestk) {
				err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
				break;
			}
			memcpy(best, p->bs, p->nb * nR * sizeof(size_t));
			memcpy(bestk, p->bk, p->nb * sizeof(size_t));
			nbest = p->nb;
		}
		if (nbest <= lower)
			break;
	}
	*bestp = best, *bestkp = bestk, *nbestp = nbest;
	if (err)
		return err;
	struct move *mv = malloc(2 * (nbest + 1) * (cv->mmax + 2) * (cv->mmax + 2) * sizeof(*mv));
	size_t *tabu = malloc((nbest + 1) * nR * sizeof(size_t)), *pairs = malloc(nR * nR * sizeof(size_t));
	if (!mv || !tabu || !pairs)
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
	if (!err) {
		/* load the best greedy covering */
		cover_reset(p);
		memcpy(p->bs, best, nbest * nR * sizeof(size_t));
		memcpy(p->bk, bestk, nbest * sizeof(size_t));
		p->nb = nbest;
		for (size_t si = 0; si < p->nb; si++)
			cover_count(p, p->bs + si * nR, p->bk[si], 1);
		size_t used = 0;
		while (nbest > lower && used < LS_MOVES && !err) {
			drop_weakest(p);
			size_t left = LS_MOVES - used;
			int done = repair(p, left < LS_LEVEL ? left : LS_LEVEL, &used, mv, tabu, pairs);
			if ((err = p->err))
				break;
			if (!done)
				break;
			memcpy(best, p->bs, p->nb * nR * sizeof(size_t));
			memcpy(bestk, p->bk, p->nb * sizeof(size_t));
			nbest = p->nb;
		}
	}
	*nbestp = nbest;
	free(mv);
	free(tabu);
	free(pairs);
	return err;
}

/* The sets as events, completed by the aliases and free events that fit,
 * into cv. set: scratch of E + 1 entries. */
static int complete_sets(struct plan *p, pmcf_cover *cv, const size_t *best, const size_t *bestk,
			 size_t nbest, size_t *set)
{
	size_t E = p->E, nR = p->nR;
	int err = 0;
	/* the sets as events, completed by the aliases and free events that fit */
	for (size_t si = 0; si < nbest && !err; si++) {
		size_t k = bestk[si];
		for (size_t i = 0; i < k; i++)
			set[i] = p->R[best[si * nR + i]];
		for (size_t f = 0; f < E && !err; f++) {
			int isR = 0, okk = 1;
			for (size_t i = 0; i < nR && !isR; i++)
				isR = p->R[i] == f;
			for (size_t i = 0; i < k && okk; i++)
				okk = p->ok2[f * E + set[i]];
			if (isR || !okk)
				continue;
			set[k] = f;
			int r = fits(&p->o, set, k + 1);
			if (r < 0)
				err = r;
			else if (r)
				k++;
		}
		qsort(set, k, sizeof(size_t), size_cmp);
		if (!err)
			err = push_set(cv, set, k);
	}
	return err;
}

/* Whatever cv leaves uncovered (pairs with events that joined no set):
 * sets grown greedily from the uncovered pair with the most uncovered
 * neighbours. cov: E x E scratch; cs: E + 1 candidates; set: E + 1. */
static int cover_rest(struct plan *p, pmcf_cover *cv, unsigned char *cov, struct cand *cs, size_t *set)
{
	size_t E = p->E;
	int err = 0;
	/* whatever is still uncovered (pairs with events that joined no set) */
	for (size_t si = 0; si < cv->nsets; si++)
		for (size_t i = 0; i < cv->size[si]; i++)
			for (size_t j = 0; j < cv->size[si]; j++)
				cov[cv->sets[si][i] * E + cv->sets[si][j]] = 1;
	for (size_t a = 0; a < E; a++)
		for (size_t b = 0; b < E; b++)
			cov[a * E + b] |= a == b || !p->ok2[a * E + b];
	while (!err) {
		size_t a = E, b = E;
		long bestdeg = -1;
		for (size_t x = 0; x < E; x++)
			for (size_t y = x + 1; y < E; y++) {
				if (cov[x * E + y])
					continue;
				long d = 0;
				for (size_t z = 0; z < E; z++)
					d += !cov[x * E + z] + !cov[y * E + z];
				if (d > bestdeg) {
					bestdeg = d;
					a = x;
					b = y;
				}
			}
		if (a == E)
			break;
		set[0] = a;
		set[1] = b;
		size_t k = 2;
		for (;;) {
			size_t nc = 0;
			for (size_t e = 0; e < E; e++) {
				size_t g = 0;
				int okk = 1;
				for (size_t i = 0; i < k && okk; i++) {
					okk = e != set[i] && p->ok2[e * E + set[i]];
					g += okk && !cov[e * E + set[i]];
				}
				if (okk && g)
					cs[nc++] = (struct cand){e, g, 0, 0};
			}
			qsort(cs, nc, sizeof(*cs), cand_cmp);
			int added = 0;
			for (size_t i = 0; i < nc && !added && !err; i++) {
				set[k] = cs[i].e;
				int r = fits(&p->o, set, k + 1);
				if (r < 0)
					err = r;
				added = r > 0;
			}
			if (!added)
				break;
			k++;
		}
		if (err)
			break;
		for (size_t i = 0; i < k; i++)
			for (size_t j = 0; j < k; j++)
				cov[set[i] * E + set[j]] = 1;
		qsort(set, k, sizeof(size_t), size_cmp);
		err = push_set(cv, set, k);
	}
	return err;
}

static int plan_all(struct plan *p, pmcf_cover *cv)
{
	size_t E = p->E, nR = p->nR;
	int err = 0;
	size_t *m = malloc((nR ? nR : 1) * sizeof(size_t));
	struct cand *cs = malloc((E + 1) * sizeof(*cs));
	size_t *best = NULL, *bestk = NULL, nbest = 0;
	unsigned char *cov = calloc(E * E, 1);
	size_t *set = malloc((E + 1) * sizeof(size_t));
	if (!m || !cs || !cov || !set) {
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
		goto out;
	}
	compute_bound(p, cv, m);
	if ((err = p->err))
		goto out;
	size_t lower = cv->lb_pairs;
	lower = cv->lb_event > lower ? cv->lb_event : lower;
	lower = cv->lb_schoen > lower ? cv->lb_schoen : lower;
	int anyreq = 0;
	for (size_t i = 0; i < E * E && !anyreq; i++)
		anyreq = p->ok2[i];
	if (anyreq && !lower)
		lower = 1;
	cv->lower = lower;

	if (cv->npairs) {
		err = search_sets(p, cv, lower, cs, &best, &bestk, &nbest);
		if (err)
			goto out;
	}
	err = complete_sets(p, cv, best, bestk, nbest, set);
	if (!err)
		err = cover_rest(p, cv, cov, cs, set);
out:
	free(m);
	free(cs);
	free(best);
	free(bestk);
	free(cov);
	free(set);
	return err;
}

/* The covering of the events idx[0..n) of c (catalogue indices, resolved
 * by the caller: no name is looked up here). */
static int cover_idx(const pmcf_catalog *c, const size_t *idx, size_t n, unsigned pmcs, uint64_t seed,
		     pmcf_cover **out)
{
	*out = NULL;
	pmcf_cover *cv = calloc(1, sizeof(*cv));
	size_t *cidx = malloc((n ? n : 1) * sizeof(*cidx));
	if (!cv || !cidx || !(cv->ev = calloc(n ? n : 1, sizeof(char *)))) {
		free(cidx);
		pmcf_cover_free(cv);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		const char *name = pmcf_catalog_at(c, idx[i])->name;
		int dup = strcmp(name, PMCF_EVENT_DURATION) == 0;
		for (size_t j = 0; j < cv->n && !dup; j++)
			dup = cidx[j] == idx[i];
		if (dup)
			continue;
		if (!(cv->ev[cv->n] = strdup(name))) {
			free(cidx);
			pmcf_cover_free(cv);
			return pmcfi_fail(PMCF_ENOMEM, "out of memory");
		}
		cidx[cv->n++] = idx[i];
	}
	size_t E = cv->n;
	if (E < 2) {
		free(cidx);
		pmcf_cover_free(cv);
		return pmcfi_fail(PMCF_ESYNTAX, "a pair covering needs at least two events besides duration");
	}
	struct plan p;
	memset(&p, 0, sizeof(p));
	p.E = E;
	p.rng = seed;
	p.o.c = c;
	p.o.pmcs = pmcs;
	p.o.cidx = cidx;
	p.o.W = (E + 63) / 64;
	p.o.buf = malloc((E + 1) * sizeof(size_t));
	p.o.key = malloc(p.o.W * sizeof(uint64_t));
	p.ok2 = calloc(E * E, 1);
	p.R = malloc(E * sizeof(size_t));
	p.costR = malloc(E * sizeof(unsigned));
	p.okR = calloc(E * E, 1);
	p.cnt = calloc(E * E, sizeof(unsigned));
	p.tmp = malloc((E + 1) * sizeof(size_t));
	p.tmp2 = malloc((E + 1) * sizeof(size_t));
	cv->imp = malloc((E * (E - 1) / 2 + 1) * sizeof(*cv->imp));
	char(*keys)[256] = calloc(E, sizeof(*keys));
	int err = 0;
	if (!p.o.buf || !p.o.key || !p.ok2 || !p.R || !p.costR || !p.okR || !p.cnt || !p.tmp || !p.tmp2 ||
	    !cv->imp || !keys)
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
	/* which pairs can be counted at all */
	for (size_t a = 0; a < E && !err; a++)
		for (size_t b = a + 1; b < E && !err; b++) {
			size_t pr[2] = {a, b};
			int r = fits(&p.o, pr, 2);
			if (r < 0) {
				err = r;
				break;
			}
			p.ok2[a * E + b] = p.ok2[b * E + a] = (unsigned char)r;
			if (!r) {
				cv->imp[cv->nimp][0] = a;
				cv->imp[cv->nimp][1] = b;
				cv->nimp++;
			}
		}
	/* representatives: events that take counters, one per set of natives */
	for (size_t e = 0; e < E && !err; e++) {
		const pmcf_event_info *info = pmcf_catalog_at(c, cidx[e]);
		if (!info || info->cost == 0)
			continue;
		natives_key(info, keys[e], sizeof(keys[e]));
		int twin = 0;
		for (size_t i = 0; i < p.nR && !twin && keys[e][0]; i++)
			twin = strcmp(keys[p.R[i]], keys[e]) == 0 && p.ok2[p.R[i] * E + e];
		if (!twin) {
			p.costR[p.nR] = info->cost;
			p.R[p.nR++] = e;
		}
	}
	for (size_t i = 0; i < p.nR; i++)
		for (size_t j = 0; j < p.nR; j++)
			p.okR[i * p.nR + j] = p.ok2[p.R[i] * E + p.R[j]];
	if (!err)
		err = plan_all(&p, cv);
	free(keys);
	cv->cidx = cidx; /* freed with cv */
	free(p.o.buf);
	free(p.o.key);
	free(p.o.keys);
	free(p.o.st);
	free(p.ok2);
	free(p.R);
	free(p.costR);
	free(p.okR);
	free(p.cnt);
	free(p.tmp);
	free(p.tmp2);
	free(p.bs);
	free(p.bk);
	if (!err && !(cv->names = calloc(cv->nsets ? cv->nsets : 1, sizeof(*cv->names))))
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
	for (size_t s = 0; s < cv->nsets && !err; s++) {
		if (!(cv->names[s] = malloc(cv->size[s] * sizeof(char *)))) {
			err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
			break;
		}
		for (size_t i = 0; i < cv->size[s]; i++)
			cv->names[s][i] = cv->ev[cv->sets[s][i]];
	}
	if (err) {
		pmcf_cover_free(cv);
		return err;
	}
	snprintf(cv->text, sizeof(cv->text),
		 "%zu per repeat = max of (a) pairs: %zu pairs of %zu event classes, at most %zu in one "
		 "execution -> %zu; (b) per event: partners / most partners in one execution -> %zu; "
		 "(c) Schoenheim: sets each event needs / at most %zu classes in one execution -> %zu%s",
		 cv->lower, cv->npairs, cv->nclass, cv->mmax * (cv->mmax - 1) / 2, cv->lb_pairs, cv->lb_event,
		 cv->mmax, cv->lb_schoen,
		 cv->exact ? "" : " (largest sets not searched exhaustively: a weaker bound)");
	*out = cv;
	return 0;
}

int pmcf_cover_pairs_evlist(const pmcf_evlist *events, unsigned pmcs, uint64_t seed, pmcf_cover **out)
{
	pmcfi_clear_error();
	if (!out)
		return pmcfi_fail(PMCF_EINVAL, "pmcf_cover_pairs_evlist: no output");
	*out = NULL;
	if (!events)
		return pmcfi_fail(PMCF_EINVAL, "pmcf_cover_pairs_evlist: no event list");
	int err = cover_idx(pmcf_evlist_catalog(events), pmcfi_evlist_indices(events),
			    pmcf_evlist_size(events), pmcs, seed, out);
	pmcf_cover *cv = *out;
	size_t *ci = NULL;
	if (!err && !(cv->lists = calloc(cv->nsets ? cv->nsets : 1, sizeof(*cv->lists))))
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
	/* each set once, from the list by the catalogue indices of its events */
	for (size_t s = 0; s < (err ? 0 : cv->nsets) && !err; s++) {
		size_t *t = realloc(ci, (cv->size[s] + 1) * sizeof(*ci));
		if (!t) {
			err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
			break;
		}
		ci = t;
		for (size_t i = 0; i < cv->size[s]; i++)
			ci[i] = cv->cidx[cv->sets[s][i]];
		err = pmcfi_evlist_pick(events, ci, cv->size[s], &cv->lists[s]);
	}
	free(ci);
	if (err) {
		pmcf_cover_free(*out);
		*out = NULL;
	}
	return err;
}

void pmcf_cover_free(pmcf_cover *cv)
{
	if (!cv)
		return;
	for (size_t s = 0; s < cv->nsets; s++) {
		free(cv->sets[s]);
		if (cv->names)
			free(cv->names[s]);
		if (cv->lists)
			pmcf_evlist_free(cv->lists[s]);
	}
	free(cv->sets);
	free(cv->size);
	free(cv->names);
	free(cv->lists);
	free(cv->cidx);
	for (size_t i = 0; cv->ev && i < cv->n; i++)
		free(cv->ev[i]);
	free(cv->ev);
	free(cv->imp);
	free(cv);
}

size_t pmcf_cover_nsets(const pmcf_cover *cv) { return cv->nsets; }
const char *const *pmcf_cover_events_at(const pmcf_cover *cv, size_t k, size_t *n)
{
	if (k >= cv->nsets) {
		*n = 0;
		return NULL;
	}
	*n = cv->size[k];
	return cv->names[k];
}
const pmcf_evlist *pmcf_cover_evlist_at(const pmcf_cover *cv, size_t k)
{
	return cv && cv->lists && k < cv->nsets ? cv->lists[k] : NULL;
}
size_t pmcf_cover_lower_bound(const pmcf_cover *cv) { return cv->lower; }
void pmcf_cover_bound_parts(const pmcf_cover *cv, size_t *pairs, size_t *per_event, size_t *schoenheim)
{
	*pairs = cv->lb_pairs;
	*per_event = cv->lb_event;
	*schoenheim = cv->lb_schoen;
}
const char *pmcf_cover_bound_text(const pmcf_cover *cv) { return cv->text; }
size_t pmcf_cover_nimpossible(const pmcf_cover *cv) { return cv->nimp; }
void pmcf_cover_impossible(const pmcf_cover *cv, size_t k, const char **a, const char **b)
{
	*a = k < cv->nimp ? cv->ev[cv->imp[k][0]] : NULL;
	*b = k < cv->nimp ? cv->ev[cv->imp[k][1]] : NULL;
}
