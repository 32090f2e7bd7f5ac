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
#include "combine/bc_impl.h"
#include "util/rng.h"
#include "util/abi.h"
#include "util/internal.h"

static void ws_free(struct pmcfi_bc_ws *w)
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

static int ws_init(struct pmcfi_bc_ws *w, size_t n, size_t k, int bylabel)
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

static int numeric_order(const char **lab, const uint32_t *len, uint32_t n, uint32_t *order,
			 struct pmcfi_bc_skey *s, struct pmcfi_bc_skey *tmp)
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
		s[q] = (struct pmcfi_bc_skey){0, q, 0};
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
		pmcfi_bc_radix_keys(s, tmp, n, 64u - (unsigned)__builtin_clzll(hi - lo));
	}
	for (uint32_t q = 0; q < n; q++)
		order[q] = s[q].q;
	return 1;
}

/* rank[i] = position of i in label order among ids[0..n); s and tmp: room
 * for n sort records */
int pmcfi_cmb_bc_label_qsort;

static void label_ranks(const struct pmcfi_cmb_ltree *lt, const uint32_t *node, const char **lab,
			const uint32_t *len, uint32_t n, uint32_t *order, uint32_t *rank,
			struct pmcfi_bc_skey *s, struct pmcfi_bc_skey *tmp)
{
	if (lt) { /* the nodes' ranks in label order, radix-sorted (stable) */
		uint32_t hi = 0;
		for (uint32_t q = 0; q < n; q++) {
			s[q] = (struct pmcfi_bc_skey){lt->ord[node[q]], q, 0};
			hi = lt->ord[node[q]] > hi ? lt->ord[node[q]] : hi;
		}
		pmcfi_bc_radix_keys(s, tmp, n, hi ? 32u - (unsigned)__builtin_clz(hi) : 0);
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
static double fused_value(const struct pmcfi_cmb *c, size_t f, size_t e)
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
	struct pmcfi_cmb *c;
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
	struct pmcfi_bc_ws w;
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
	const struct pmcfi_cmb_ltree *lt;
	const uint32_t *node;
	const char **lab;
	const uint32_t *len;
	uint32_t n;
	uint32_t *order, *rank;
	struct pmcfi_bc_skey *s, *tmp;
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
static size_t lgl_first(struct step_worker *W, struct pmcfi_bc_grid *g)
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
	struct pmcfi_cmb *c = J->c;
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
	const struct pmcfi_cmb_ltree *lt = c->lt;
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
	struct pmcfi_bc_grid g = {.k = kk,
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
	int err = !npre || (g.np && g.nc) ? pmcfi_bc_cluster(&g) : 0;
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
			c->lnode[f] = pmcfi_cmb_lca(lt, c->lnode[f], J->cnode[x]);
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

/* E_com: the events of input i monitored by an earlier input, into ecom;
 * returns their number. */
static size_t step_ecom(const struct pmcfi_cmb *c, size_t i, size_t *ecom)
{
	size_t k = 0;
	for (size_t e = 0; e < c->nev; e++)
		if (c->evidx[i][e] >= 0 && c->nowners[e] > 1 && c->owners[e][0] < i)
			ecom[k++] = e;
	return k;
}

/* Orders each type's fused XUs (pidx, from ps) so that the complete ones,
 * with an XU of every input before i, come first (cluster_type), and sets
 * pfull[t] to their number. */
static int step_full_first(const struct pmcfi_cmb *c, size_t i, size_t nf0, const size_t *ps, uint32_t *pidx,
			   size_t *pfull)
{
	uint32_t *ptmp = malloc((nf0 ? nf0 : 1) * sizeof(uint32_t));
	if (!ptmp)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
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
	return 0;
}

/* Clusters the types of J with nthreads workers of pool (this thread one
 * of them; fewer when a thread cannot start: the others take more types),
 * each with a workspace for nbig XUs. */
static int step_run(struct step_job *J, struct bc_pool *pool, size_t nthreads, size_t nbig)
{
	pthread_t *tid = calloc(nthreads, sizeof(*tid));
	if (!tid)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	int err = pool_get(pool, nthreads, nbig, J->k);
	if (err) {
		free(tid);
		return err;
	}
	struct step_worker *W = pool->W;
	for (size_t q = 0; q < nthreads; q++)
		W[q].J = J;
	pthread_mutex_init(&J->lock, NULL);
	size_t started = 1;
	for (; started < nthreads; started++)
		if (pthread_create(&tid[started], NULL, step_thread, &W[started]) != 0)
			break; /* fewer threads: the others take more types */
	step_thread(&W[0]);
	for (size_t q = 1; q < started; q++)
		pthread_join(tid[q], NULL);
	pthread_mutex_destroy(&J->lock);
	free(tid);
	return J->err;
}

/* After the pairs are applied (cluster_type): type by type in order, a
 * profile with more XUs of a type: its surplus XUs stay, with the events of
 * the other profiles missing (fuse-openmp §3). Adds the step's statistics. */
static int step_keep_unpaired(const struct step_job *J)
{
	struct pmcfi_cmb *c = J->c;
	size_t i = J->i;
	const size_t *cs = J->cs;
	for (uint32_t t = 0; t < c->ntypes; t++) {
		size_t nc = cs[t + 1] - cs[t];
		if (!nc)
			continue;
		c->stats->bc_iterations += J->iters[t];
		if (J->dmax[t] > c->stats->bc_dmax)
			c->stats->bc_dmax = J->dmax[t];
		const unsigned char *paired = J->cpaired + cs[t];
		for (size_t q = 0; q < nc; q++) {
			if (paired[q])
				continue;
			uint32_t x = J->cidx[cs[t] + q];
			long f = pmcfi_cmb_add(c, t);
			if (f < 0)
				return pmcfi_fail(PMCF_ENOMEM, "out of memory");
			c->src[(size_t)f * c->n + i] = (int32_t)x;
			if (c->lt) {
				c->lnode[f] = c->lt->xlab[i][x];
			} else {
				c->lab[f] = J->clab[x];
				c->lablen[f] = J->clen[x];
			}
		}
	}
	return 0;
}

/* One BC step: input i into the fused XUs, type by type. */
static int step(struct pmcfi_cmb *c, size_t i, struct bc_pool *pool)
{
	const pmcf_profile *cur = c->in[i];
	size_t nx = pmcf_profile_nxus(cur), nf0 = c->nf;
	size_t *ecom = malloc(c->nev * sizeof(*ecom));
	if (!ecom)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	size_t k = step_ecom(c, i, ecom);
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
	/* each type's complete fused XUs first (cluster_type) */
	size_t *pfull = calloc(c->ntypes + 1, sizeof(size_t));
	int err = pmcfi_cmb_by_type(c, i, &cidx, &cs);
	if (!err &&
	    (!ps || !pidx || !clab || !clen || !cpaired || !torder || !iters || !tsize || !dmax || !pfull))
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
	if (err)
		goto out;
	pmcfi_cmb_fused_by_type(c, nf0, pidx, ps);
	if ((err = step_full_first(c, i, nf0, ps, pidx, pfull)))
		goto out;
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
	struct step_job J = {.c = c,
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
			     .dmax = dmax,
			     .cpus = pmcfi_cmb_cpus(c)};
	if (!(err = step_run(&J, pool, step_threads(J.cpus, busy), nbig)))
		err = step_keep_unpaired(&J);
out:
	free(pfull);
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

int pmcfi_cmb_bc(struct pmcfi_cmb *c)
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
