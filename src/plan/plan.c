/* The planner: packs the requested events into as few compatible sets as it
 * can (the catalogue's compatibility check is the oracle), with a lower
 * bound beside the result; for the bc family, every set carries linking
 * events so that it overlaps the sets before it (fuse-task-parallel §3.2),
 * optionally chosen by correlation in pilot profiles (§5.2 heuristic). */
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "pmcfuse/combine.h"
#include "counters/catalog.h"
#include "plan/plan_impl.h"
#include "util/abi.h"
#include "util/internal.h"

int pmcf_packing_parse(const char *name)
{
	if (name && strcmp(name, "best") == 0)
		return PMCF_PACK_BEST;
	if (name && strcmp(name, "greedy") == 0)
		return PMCF_PACK_GREEDY;
	return pmcfi_fail(PMCF_EINVAL, "unknown packing '%s' (best, greedy)", name ? name : "");
}

const char *pmcf_packing_name(int packing) { return packing == PMCF_PACK_GREEDY ? "greedy" : "best"; }

/* ---- plan object ------------------------------------------------------------ */

int pmcfi_plan_fields_check(int opts, int strategy, int packing, uint64_t pmcs)
{
	static const pmcf_plan_opts init = PMCF_PLAN_OPTS_INIT;
	int err = opts ? PMCF_EINVAL : PMCF_ESYNTAX;
	const char *pre = opts ? "pmcf_plan_opts." : "\"", *post = opts ? "" : "\"";
	if (strcmp(pmcf_strategy_name(strategy), "unknown") == 0)
		return pmcfi_fail(err, "%sstrategy%s %d is no strategy (start from PMCF_PLAN_OPTS_INIT: %s)",
				  pre, post, strategy, pmcf_strategy_name(init.strategy));
	if (packing != PMCF_PACK_BEST && packing != PMCF_PACK_GREEDY)
		return pmcfi_fail(err, "%spacking%s %d is no packing (%d best, %d greedy)", pre, post,
				  packing, PMCF_PACK_BEST, PMCF_PACK_GREEDY);
	if (pmcs > PMCF_PLAN_MAX_PMCS)
		return pmcfi_fail(err, "%spmcs%s: %" PRIu64 " is out of range (" PMCFI_PLAN_PMCS_RANGE ")",
				  pre, post, pmcs);
	return 0;
}

int pmcfi_plan_new(pmcf_plan **out)
{
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	(*out)->seed = 1;
	(*out)->strategy = PMCF_COMBINE_BC;
	return 0;
}

int pmcfi_plan_strv_push(char ***arr, size_t *len, const char *const *names, size_t n)
{
	char **a = realloc(*arr, (*len + n + 1) * sizeof(char *));
	if (!a)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	*arr = a;
	for (size_t i = 0; i < n; i++) {
		if (!(a[*len] = strdup(names[i])))
			return pmcfi_fail(PMCF_ENOMEM, "out of memory");
		a[++*len] = NULL;
	}
	a[*len] = NULL;
	return 0;
}

int pmcfi_plan_add_set(pmcf_plan *p, const char *const *names, size_t n)
{
	if (pmcfi_grow((void **)&p->sets, &p->capsets, p->nsets + 1, sizeof(*p->sets)))
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	struct pmcfi_plan_set *s = p->sets;
	s[p->nsets] = (struct pmcfi_plan_set){NULL, 0, NULL, NULL};
	p->nsets++;
	return pmcfi_plan_strv_push(&s[p->nsets - 1].names, &s[p->nsets - 1].n, names, n);
}

static void strv_free(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

void pmcf_plan_free(pmcf_plan *p)
{
	if (!p)
		return;
	strv_free(p->events, p->nevents);
	strv_free(p->link, p->nlink);
	for (size_t k = 0; k < p->nsets; k++) {
		strv_free(p->sets[k].names, p->sets[k].n);
		free(p->sets[k].idx);
		pmcf_evlist_free(p->sets[k].list);
	}
	free(p->sets);
	strv_free(p->argv, p->argc);
	free(p->sim);
	free(p->catalog);
	for (size_t k = 0; p->autos && k < p->nsets; k++)
		strv_free(p->autos[k].links, p->autos[k].nlinks);
	free(p->autos);
	free(p->auto_method);
	free(p);
}

size_t pmcf_plan_nsets(const pmcf_plan *p) { return p ? p->nsets : 0; }

int pmcf_plan_events_at(const pmcf_plan *p, size_t k, const char *const **names, size_t *n)
{
	if (!p || k >= p->nsets)
		return pmcfi_fail(PMCF_ENOENT, "the plan has no set %zu (it has %zu)", k, p ? p->nsets : 0);
	*names = (const char *const *)p->sets[k].names;
	*n = p->sets[k].n;
	return 0;
}

const pmcf_evlist *pmcf_plan_evlist_at(const pmcf_plan *p, size_t k)
{
	return p && k < p->nsets ? p->sets[k].list : NULL;
}

int pmcf_plan_events(const pmcf_plan *p, const char *const **names, size_t *n)
{
	*names = (const char *const *)p->events;
	*n = p->nevents;
	return 0;
}

int pmcf_plan_link(const pmcf_plan *p, const char *const **names, size_t *n)
{
	*names = (const char *const *)p->link;
	*n = p->nlink;
	return 0;
}

const char *pmcf_plan_link_method(const pmcf_plan *p, int *exact, size_t *pilots)
{
	if (exact)
		*exact = p->autos ? p->auto_exact : 0;
	if (pilots)
		*pilots = p->autos ? p->auto_pilots : 0;
	return p->autos ? p->auto_method : NULL;
}

int pmcf_plan_link_info(const pmcf_plan *p, size_t k, const char *const **links, size_t *n, double *bits,
			double *base_bits)
{
	if (!p || !p->autos || k >= p->nsets)
		return pmcfi_fail(PMCF_ENOENT, "the plan has no linking events chosen for set %zu", k);
	*links = (const char *const *)p->autos[k].links;
	*n = p->autos[k].nlinks;
	*bits = p->autos[k].bits;
	*base_bits = p->autos[k].base_bits;
	return 0;
}

unsigned pmcf_plan_lower_bound(const pmcf_plan *p) { return p->lower_bound; }
const char *pmcf_plan_bound_counters(const pmcf_plan *p, unsigned *n)
{
	if (n)
		*n = p->bound_counters;
	return p->bound_from;
}
int pmcf_plan_optimal(const pmcf_plan *p) { return p->optimal; }
int pmcf_plan_strategy(const pmcf_plan *p) { return p->strategy; }
unsigned pmcf_plan_pmcs(const pmcf_plan *p) { return p->pmcs; }
int pmcf_plan_packing(const pmcf_plan *p) { return p->packing; }
const char *pmcf_plan_catalog(const pmcf_plan *p) { return p->catalog ? p->catalog : ""; }
const char *pmcf_plan_sim(const pmcf_plan *p) { return p->sim; }
uint64_t pmcf_plan_seed(const pmcf_plan *p) { return p->seed; }
void pmcf_plan_seed_set(pmcf_plan *p, uint64_t seed) { p->seed = seed; }

const char *const *pmcf_plan_program(const pmcf_plan *p, size_t *argc)
{
	if (argc)
		*argc = p->argc;
	return p->argc ? (const char *const *)p->argv : NULL;
}

int pmcf_plan_sim_set(pmcf_plan *p, const char *spec)
{
	char *s = strdup(spec ? spec : "");
	if (!s)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	free(p->sim);
	p->sim = s;
	strv_free(p->argv, p->argc);
	p->argv = NULL;
	p->argc = 0;
	return 0;
}

int pmcf_plan_program_set(pmcf_plan *p, const char *const *argv, size_t argc)
{
	if (!argc)
		return pmcfi_fail(PMCF_EINVAL, "a program needs at least its name");
	strv_free(p->argv, p->argc);
	p->argv = NULL;
	p->argc = 0;
	free(p->sim);
	p->sim = NULL;
	return pmcfi_plan_strv_push(&p->argv, &p->argc, argv, argc);
}

/* ---- packing ---------------------------------------------------------------------- */

/* Events are catalogue indices from here on (the list was resolved once,
 * by the caller or pmcf_plan_make); names only for the plan's text. */
struct packer {
	const pmcf_catalog *c;
	unsigned pmcs;
	const size_t *base; /* duration and the linking events, in every set */
	size_t nbase;
	const size_t *item; /* the units to place: an event, or the first of a {…} group */
	unsigned *cost;     /* a unit's: the sum of its events' */
	size_t n;
	const size_t *flat; /* every unit's events: unit i is flat[first[i] .. first[i] + len[i]) */
	size_t *first, *len, nflat;
	size_t *buf; /* nbase + n scratch */
	int err;
	size_t checks;
};

static const char *name_at(const pmcf_catalog *c, size_t i) { return pmcf_catalog_at(c, i)->name; }

/* Adds the set of events idx[0..n) to the plan; names: n entries of scratch. */
/* Appends the set of catalogue events idx[0..n) (names: n entries of
 * scratch, left holding their names), keeping the indices for
 * pmcf_plan_make_evlist's lists. */
static int add_set_idx(pmcf_plan *p, const pmcf_catalog *c, const size_t *idx, size_t n, const char **names)
{
	for (size_t i = 0; i < n; i++)
		names[i] = name_at(c, idx[i]);
	int err = pmcfi_plan_add_set(p, names, n);
	if (err)
		return err; /* the caller frees the plan, its sets with it */
	struct pmcfi_plan_set *s = &p->sets[p->nsets - 1];
	if (!(s->idx = malloc((n ? n : 1) * sizeof(*s->idx))))
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	memcpy(s->idx, idx, n * sizeof(*idx));
	return 0;
}

/* Appends the names of events idx[0..n) to *arr / *len. */
static int push_idx(char ***arr, size_t *len, const pmcf_catalog *c, const size_t *idx, size_t n)
{
	int err = 0;
	for (size_t i = 0; i < n && !err; i++) {
		const char *name = name_at(c, idx[i]);
		err = pmcfi_plan_strv_push(arr, len, &name, 1);
	}
	return err;
}

/* Appends the events of unit i to out at k; returns the new k. */
static size_t unit_events(const struct packer *pk, size_t i, size_t *out, size_t k)
{
	for (size_t j = 0; j < pk->len[i]; j++)
		out[k++] = pk->flat[pk->first[i] + j];
	return k;
}

/* Does base + items mem[0..m) (+ extra when != (size_t)-1) fit? 1, 0; on
 * error sets pk->err and answers 0. */
static int fits(struct packer *pk, const size_t *mem, size_t m, size_t extra)
{
	size_t k = 0;
	for (size_t i = 0; i < pk->nbase; i++)
		pk->buf[k++] = pk->base[i];
	for (size_t i = 0; i < m; i++)
		k = unit_events(pk, mem[i], pk->buf, k);
	if (extra != (size_t)-1)
		k = unit_events(pk, extra, pk->buf, k);
	pk->checks++;
	int r = pmcfi_catalog_check_idx(pk->c, pk->buf, k, pk->pmcs, NULL, 0);
	if (r < 0) {
		pk->err = r;
		return 0;
	}
	return r;
}

/* A packing: set[i] = set of item i; sets 0..nsets-1. */
struct packing {
	size_t *set;
	size_t nsets;
};

static size_t members(const struct packer *pk, const struct packing *P, size_t s, size_t *mem)
{
	size_t m = 0;
	for (size_t i = 0; i < pk->n; i++)
		if (P->set[i] == s)
			mem[m++] = i;
	return m;
}

/* The papers' packing (fuse-task-parallel §5.2): in list order, into the
 * current set until one does not fit, which opens the next set. */
static void pack_greedy(struct packer *pk, struct packing *P, size_t *mem)
{
	P->nsets = 0;
	size_t m = 0;
	for (size_t i = 0; i < pk->n; i++) {
		if (P->nsets && fits(pk, mem, m, i)) {
			mem[m++] = i;
			P->set[i] = P->nsets - 1;
			continue;
		}
		P->set[i] = P->nsets++;
		mem[0] = i;
		m = 1;
	}
}

/* First-fit decreasing: by cost, largest first, into the first set it fits. */
static void pack_ffd(struct packer *pk, struct packing *P, const size_t *order, size_t *mem)
{
	P->nsets = 0;
	for (size_t i = 0; i < pk->n; i++)
		P->set[i] = (size_t)-1;
	for (size_t q = 0; q < pk->n; q++) {
		size_t i = order[q], s = 0;
		for (; s < P->nsets; s++) {
			size_t m = members(pk, P, s, mem);
			if (fits(pk, mem, m, i))
				break;
		}
		if (s == P->nsets)
			P->nsets++;
		P->set[i] = s;
	}
}

/* Improvement: empty the smallest sets into the others when every one of
 * their events fits elsewhere. */
static void improve(struct packer *pk, struct packing *P, size_t *mem, size_t *save)
{
	for (int changed = 1; changed && P->nsets > 1 && !pk->err;) {
		changed = 0;
		for (size_t s = P->nsets; s-- > 0 && !changed;) {
			memcpy(save, P->set, pk->n * sizeof(size_t));
			int all = 1;
			for (size_t i = 0; i < pk->n && all; i++) {
				if (P->set[i] != s)
					continue;
				size_t t = 0;
				for (; t < P->nsets; t++) {
					if (t == s)
						continue;
					size_t m = members(pk, P, t, mem);
					if (fits(pk, mem, m, i))
						break;
				}
				if (t == P->nsets)
					all = 0;
				else
					P->set[i] = t;
			}
			if (!all) {
				memcpy(P->set, save, pk->n * sizeof(size_t));
				continue;
			}
			for (size_t i = 0; i < pk->n; i++)
				if (P->set[i] > s)
					P->set[i]--;
			P->nsets--;
			changed = 1;
		}
	}
}

/* Exact search (small cases): depth-first assignment of the items in FFD
 * order to an existing set or a new one, pruned at the best count found,
 * within a time bound. Returns 1 when it finished (the best is minimal). */
struct exact {
	struct packer *pk;
	const size_t *order;
	size_t *cur, *best, nbest, lb;
	size_t *mem;
	struct timespec deadline;
	size_t nodes;
	int timeout;
};

static void dfs(struct exact *x, size_t q, size_t nsets)
{
	if (x->timeout || x->pk->err || x->nbest <= x->lb)
		return;
	if ((++x->nodes & 255) == 0 && pmcfi_plan_past(&x->deadline)) {
		x->timeout = 1;
		return;
	}
	if (nsets >= x->nbest)
		return;
	if (q == x->pk->n) {
		x->nbest = nsets;
		memcpy(x->best, x->cur, x->pk->n * sizeof(size_t));
		return;
	}
	size_t i = x->order[q];
	for (size_t s = 0; s <= nsets && s < x->nbest - 1; s++) {
		if (s < nsets) {
			size_t m = 0;
			for (size_t r = 0; r < q; r++)
				if (x->cur[x->order[r]] == s)
					x->mem[m++] = x->order[r];
			if (!fits(x->pk, x->mem, m, i))
				continue;
		}
		x->cur[i] = s;
		dfs(x, q + 1, s == nsets ? nsets + 1 : nsets);
		x->cur[i] = (size_t)-1;
	}
}

/* ---- lower bound --------------------------------------------------------------------- */

/* Counters of the machine: pmcs when given, else the largest counter index
 * named in the events' constraints ("counters":[...]) plus one, else the
 * catalogue's own count (perf: the PMU probed); 0 unknown. from: where the
 * number came from, or why there is none. */
static unsigned counters_of(const pmcf_catalog *c, unsigned pmcs, char *from, size_t fromlen)
{
	if (pmcs) {
		snprintf(from, fromlen, "the counter budget (pmcs; --pmcs)");
		return pmcs;
	}
	unsigned most = 0;
	for (size_t i = 0; i < pmcf_catalog_size(c); i++) {
		const pmcf_event_info *e = pmcf_catalog_at(c, i);
		if (!e->constraints)
			continue;
		json_t *j = json_loads(e->constraints, 0, NULL);
		json_t *cs = j ? json_object_get(j, "counters") : NULL;
		size_t k;
		json_t *v;
		json_array_foreach(cs, k, v) if (json_is_integer(v) && json_integer_value(v) >= 0 &&
						 (unsigned)json_integer_value(v) + 1 > most) most =
			(unsigned)json_integer_value(v) + 1;
		json_decref(j);
	}
	if (most) {
		snprintf(from, fromlen, "the counters the events' constraints name (the machine's table)");
		return most;
	}
	if (pmcfi_catalog_counters(c, &most, from, fromlen) == 0 && most)
		return most;
	snprintf(
		from, fromlen,
		"unknown: no counter budget (pmcs; --pmcs), no counter table for these events, and no hardware event "
		"opens here to probe them; the bound counts only events that exclude each other");
	return 0;
}

/* Whether e takes a counter for the bound: under a --pmcs budget every
 * event with a cost; without one, software events and tracepoints need
 * none (the kernel counts any number of them). */
static int takes_counter(const pmcf_event_info *e, unsigned pmcs)
{
	const char *s = e->source ? e->source : "";
	return pmcs || (strcmp(s, PMCF_SRC_SOFTWARE) != 0 && strcmp(s, PMCF_SRC_TRACEPOINT) != 0 &&
			strcmp(s, PMCF_SRC_PSEUDO) != 0);
}

/* Counters the items need at least: their distinct general-counter natives
 * when the catalogue names them (aliases and derived events share natives,
 * so costs do not add up), else their costs (of the events that takes_counter). */
static unsigned counters_needed(const struct packer *pk, unsigned pmcs)
{
	unsigned total = 0;
	size_t nn = 0;
	size_t nflat = pk->nflat;
	const char **seen = malloc((4 * nflat + 1) * sizeof(char *));
	json_t **docs = calloc(nflat + 1, sizeof(json_t *));
	for (size_t i = 0; i < nflat; i++) {
		const pmcf_event_info *e = pmcf_catalog_at(pk->c, pk->flat[i]);
		if (!takes_counter(e, pmcs))
			continue;
		json_t *j = e->constraints && seen && docs ? json_loads(e->constraints, 0, NULL) : NULL;
		json_t *nat = j ? json_object_get(j, "native") : NULL;
		if (!json_is_array(nat) || json_is_true(json_object_get(j, "fixed")) ||
		    json_array_size(nat) > 4) {
			total += json_is_true(json_object_get(j, "fixed")) ? 0 : e->cost;
			json_decref(j);
			continue;
		}
		docs[i] = j;
		size_t k;
		json_t *v;
		json_array_foreach(nat, k, v)
		{
			const char *name = json_string_value(v);
			size_t q = 0;
			while (name && q < nn && strcmp(seen[q], name) != 0)
				q++;
			if (name && q == nn)
				seen[nn++] = name;
		}
	}
	for (size_t i = 0; docs && i < nflat; i++)
		json_decref(docs[i]);
	free(docs);
	free(seen);
	return total + (unsigned)nn;
}

/* max(ceil(counters needed / free counters), a clique of pairwise
 * incompatible events); the counters used and where they came from go to
 * the plan (only when some event needs one). */
static size_t lower_bound(struct packer *pk, unsigned pmcs, unsigned basecost, pmcf_plan *plan)
{
	size_t lb = pk->n ? 1 : 0;
	unsigned total = counters_needed(pk, pmcs), counters = 0;
	if (total)
		counters = plan->bound_counters =
			counters_of(pk->c, pmcs, plan->bound_from, sizeof(plan->bound_from));
	if (counters > basecost && total) {
		size_t b = (total + (counters - basecost) - 1) / (counters - basecost);
		if (b > lb)
			lb = b;
	}
	if (pk->n < 2 || pk->n > 200)
		return lb;
	size_t n = pk->n;
	unsigned char *conf = calloc(n * n, 1);
	size_t *deg = calloc(n, sizeof(size_t)), *clq = malloc(n * sizeof(size_t));
	if (conf && deg && clq) {
		for (size_t a = 0; a < n; a++)
			for (size_t b = a + 1; b < n; b++) {
				size_t pair[1] = {a};
				if (!fits(pk, pair, 1, b)) {
					conf[a * n + b] = conf[b * n + a] = 1;
					deg[a]++;
					deg[b]++;
				}
			}
		/* greedy cliques from every vertex, largest degrees first */
		for (size_t v = 0; v < n; v++) {
			size_t m = 1;
			clq[0] = v;
			for (size_t u = 0; u < n; u++) {
				if (u == v || deg[u] < m)
					continue;
				size_t ok = 1;
				for (size_t k = 0; k < m && ok; k++)
					ok = conf[u * n + clq[k]];
				if (ok)
					clq[m++] = u;
			}
			if (m > lb)
				lb = m;
		}
	}
	free(conf);
	free(deg);
	free(clq);
	return lb;
}

/* ---- correlations from pilot profiles (--from) ------------------------------------------- */

static const double *pilot_column(const pmcf_profile *p, const char *name)
{
	long e = pmcf_profile_event_find(p, name);
	if (e >= 0)
		return pmcf_profile_column_const(p, (size_t)e);
	e = pmcf_profile_truth_find(p, name);
	return e >= 0 ? pmcf_profile_truth_column_const(p, (size_t)e) : NULL;
}

/* |Pearson r| of a and b over the XUs where both have values, averaged
 * over the pilots that have both; NaN when none. */
static double corr(const pmcf_plan_opts *o, const char *a, const char *b)
{
	double sum = 0;
	size_t np = 0;
	for (size_t k = 0; k < o->npilots; k++) {
		const double *x = pilot_column(o->pilots[k], a), *y = pilot_column(o->pilots[k], b);
		if (!x || !y)
			continue;
		double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
		size_t n = 0, nx = pmcf_profile_nxus(o->pilots[k]);
		for (size_t i = 0; i < nx; i++) {
			if (pmcf_is_missing(x[i]) || pmcf_is_missing(y[i]))
				continue;
			sx += x[i];
			sy += y[i];
			sxx += x[i] * x[i];
			syy += y[i] * y[i];
			sxy += x[i] * y[i];
			n++;
		}
		if (n < 3)
			continue;
		double cov = sxy - sx * sy / n, vx = sxx - sx * sx / n, vy = syy - sy * sy / n;
		if (vx <= 0 || vy <= 0)
			continue;
		sum += fabs(cov / sqrt(vx * vy));
		np++;
	}
	return np ? sum / (double)np : NAN;
}

struct cpair {
	double r;
	size_t fresh, seen;
};
static int cmp_cpair(const void *a, const void *b)
{
	const struct cpair *p = a, *q = b;
	if (p->r != q->r)
		return p->r > q->r ? -1 : 1;
	if (p->fresh != q->fresh)
		return p->fresh < q->fresh ? -1 : 1;
	return (p->seen > q->seen) - (p->seen < q->seen);
}

/* fuse-task-parallel §5.2: the first set is the largest packed set; then,
 * over the pairs (remaining event, already placed event) by decreasing
 * correlation, the placed event joins the new set as an overlapping event
 * and the remaining one as a new event, while the set stays compatible. */
static int pack_correlated(struct packer *pk, const pmcf_plan_opts *o, const size_t *order, size_t *mem,
			   pmcf_plan *plan)
{
	size_t n = pk->n;
	unsigned char *placed = calloc(n ? n : 1, 1), *in = calloc(n ? n : 1, 1);
	struct cpair *pr = malloc((n * n + 1) * sizeof(*pr));
	size_t *set = malloc((pk->nbase + pk->nflat + 1) * sizeof(*set));
	const char **names = malloc((pk->nbase + pk->nflat + 1) * sizeof(char *));
	int err = placed && in && pr && set && names ? 0 : pmcfi_fail(PMCF_ENOMEM, "out of memory");
	size_t left = n;
	while (!err && left) {
		size_t m = 0;
		memset(in, 0, n);
		if (left == n) { /* first set: first fit by decreasing cost */
			for (size_t q = 0; q < n; q++)
				if (fits(pk, mem, m, order[q]))
					mem[m++] = order[q];
		} else {
			size_t np = 0;
			for (size_t a = 0; a < n; a++)
				for (size_t b = 0; b < n && !placed[a]; b++)
					if (placed[b]) {
						double r = corr(o, name_at(pk->c, pk->item[a]),
								name_at(pk->c, pk->item[b]));
						pr[np++] = (struct cpair){isnan(r) ? 0 : r, a, b};
					}
			qsort(pr, np, sizeof(*pr), cmp_cpair);
			size_t fresh = 0;
			for (size_t q = 0; q < np; q++) {
				size_t a = pr[q].fresh, b = pr[q].seen, add = 0;
				if (in[a])
					continue;
				if (!in[b]) {
					if (!fits(pk, mem, m, b))
						continue;
					mem[m++] = b;
					in[b] = 1;
					add = 1;
				}
				if (fits(pk, mem, m, a)) {
					mem[m++] = a;
					in[a] = 1;
					fresh++;
				} else if (add) {
					in[b] = 0;
					m--;
				}
			}
			if (!fresh) /* nothing fits with an overlap: one event alone */
				for (size_t a = 0; a < n && !fresh; a++)
					if (!placed[a]) {
						mem[m++] = a;
						fresh = 1;
					}
		}
		for (size_t q = 0; q < m; q++)
			if (!placed[mem[q]]) {
				placed[mem[q]] = 1;
				left--;
			}
		size_t k = 0;
		for (size_t i = 0; i < pk->nbase; i++)
			set[k++] = pk->base[i];
		for (size_t i = 0; i < n; i++) /* in request order */
			for (size_t q = 0; q < m; q++)
				if (mem[q] == i)
					k = unit_events(pk, i, set, k);
		err = pk->err ? pk->err : add_set_idx(plan, pk->c, set, k, names);
	}
	free(placed);
	free(in);
	free(pr);
	free(set);
	free(names);
	return err;
}

/* ---- --link auto ------------------------------------------------------------------------------- */

struct auto_ctx {
	struct packer *pk;
	const size_t *set; /* set of each unit */
	const size_t *evi; /* event numbers of the search -> catalogue indices */
};

/* Do the base, links and the units of set k fit? */
static int auto_fits(void *ctx, size_t k, const size_t *links, size_t n)
{
	struct auto_ctx *a = ctx;
	struct packer *pk = a->pk;
	size_t m = 0; /* links are other sets' events: m <= nbase + nflat */
	for (size_t i = 0; i < pk->nbase; i++)
		pk->buf[m++] = pk->base[i];
	for (size_t q = 0; q < n; q++)
		pk->buf[m++] = a->evi[links[q]];
	for (size_t i = 0; i < pk->n; i++)
		if (a->set[i] == k)
			m = unit_events(pk, i, pk->buf, m);
	pk->checks++;
	int r = pmcfi_catalog_check_idx(pk->c, pk->buf, m, pk->pmcs, NULL, 0);
	if (r < 0)
		pk->err = r;
	return r;
}

/* Orders the sets of packing P and adds linking events to each by
 * information (pmcfi_plan_lk_search), then adds the sets to plan. */
static int plan_auto(struct packer *pk, const struct packing *P, const pmcf_plan_opts *o, pmcf_plan *plan)
{
	size_t nev = pk->nbase + pk->nflat, K = P->nsets;
	const char **evn = malloc((nev + 1) * sizeof(char *));
	size_t *evi = malloc((nev + 1) * sizeof(size_t));
	double *mi = malloc((nev * nev + 1) * sizeof(double));
	size_t *setev = malloc((nev + 1) * sizeof(size_t)), *first = malloc((K + 1) * sizeof(size_t));
	size_t *base = malloc((pk->nbase + 1) * sizeof(size_t));
	const char **names = malloc((nev + PMCFI_PLAN_LK_MAX_LINKS + 1) * sizeof(char *));
	size_t *ci = malloc((nev + PMCFI_PLAN_LK_MAX_LINKS + 1) * sizeof(size_t));
	struct pmcfi_plan_lk_result r = {0};
	int err = evn && evi && mi && setev && first && base && names && ci
			  ? 0
			  : pmcfi_fail(PMCF_ENOMEM, "out of memory");
	if (!err && !(plan->autos = calloc(K ? K : 1, sizeof(*plan->autos))))
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
	if (err)
		goto out;
	for (size_t i = 0; i < pk->nbase; i++) {
		evi[i] = pk->base[i];
		base[i] = i;
	}
	for (size_t i = 0; i < pk->nflat; i++)
		evi[pk->nbase + i] = pk->flat[i];
	for (size_t i = 0; i < nev; i++)
		evn[i] = name_at(pk->c, evi[i]);
	size_t m = 0;
	for (size_t k = 0; k < K; k++) {
		first[k] = m;
		for (size_t i = 0; i < pk->n; i++)
			for (size_t j = 0; P->set[i] == k && j < pk->len[i]; j++)
				setev[m++] = pk->nbase + pk->first[i] + j;
	}
	first[K] = m;
	if ((err = pmcfi_plan_mi_matrix(o->pilots, o->npilots, evn, nev, mi)))
		goto out;
	struct auto_ctx ctx = {pk, P->set, evi};
	struct pmcfi_plan_lk lk = {.nsets = K,
				   .nev = nev,
				   .mi = mi,
				   .base = base,
				   .nbase = pk->nbase,
				   .setev = setev,
				   .setfirst = first,
				   .fits = auto_fits,
				   .ctx = &ctx,
				   .maxlinks = o->max_links ? o->max_links : 2,
				   .bound_scale = 1};
	if ((err = pmcfi_plan_lk_search(&lk, PMCFI_PLAN_LK_AUTO, o->time_limit_s, &r)))
		goto out;
	if (pk->err) {
		err = pk->err;
		goto out;
	}
	plan->auto_method = strdup(r.method == PMCFI_PLAN_LK_GREEDY ? "greedy" : "branch and bound");
	plan->auto_exact = r.exact;
	plan->auto_pilots = o->npilots;
	if (!plan->auto_method)
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
	for (size_t p = 0; p < K && !err; p++) {
		size_t k = r.order[p], n = 0;
		const size_t *lv = r.links + p * PMCFI_PLAN_LK_MAX_LINKS;
		for (size_t i = 0; i < pk->nbase; i++)
			ci[n++] = evi[i];
		for (size_t q = 0; q < r.nlinks[p]; q++)
			ci[n++] = evi[lv[q]];
		for (size_t j = first[k]; j < first[k + 1]; j++)
			ci[n++] = evi[setev[j]];
		struct pmcfi_plan_auto *a = &plan->autos[p];
		a->bits = r.bits[p];
		a->base_bits = r.base_bits[p];
		if (!(err = add_set_idx(plan, pk->c, ci, n, names)))
			err = pmcfi_plan_strv_push(&a->links, &a->nlinks, names + pk->nbase, r.nlinks[p]);
	}
out:
	pmcfi_plan_lk_result_free(&r);
	free(evn);
	free(evi);
	free(mi);
	free(setev);
	free(first);
	free(base);
	free(names);
	free(ci);
	return err;
}

/* ---- pmcf_plan_make -------------------------------------------------------------------------- */

static int cmp_cost_desc(const void *a, const void *b, void *ctx)
{
	const unsigned *cost = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	if (cost[x] != cost[y])
		return cost[x] > cost[y] ? -1 : 1;
	return (x > y) - (x < y);
}

static int in_list(const size_t *v, size_t n, size_t k)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == k)
			return 1;
	return 0;
}

/* Every unit must fit beside the linking events, each alone; else the
 * error saying which does not and why. */
static int check_units(struct packer *pk, unsigned pmcs)
{
	const pmcf_catalog *c = pk->c;
	if (!fits(pk, NULL, 0, (size_t)-1)) {
		char why[512] = "";
		pmcfi_catalog_check_idx(c, pk->base, pk->nbase, pmcs, why, sizeof(why));
		return pk->err ? pk->err
			       : pmcfi_fail(PMCF_ETOOMANY, "the linking events do not fit together: %s", why);
	}
	for (size_t i = 0; i < pk->n; i++) {
		if (fits(pk, NULL, 0, i))
			continue;
		if (pk->err)
			return pk->err;
		char why[512] = "", what[512];
		size_t k = 0;
		for (size_t b = 0; b < pk->nbase; b++)
			pk->buf[k++] = pk->base[b];
		k = unit_events(pk, i, pk->buf, k);
		pmcfi_catalog_check_idx(c, pk->buf, k, pmcs, why, sizeof(why));
		if (pk->len[i] == 1) {
			snprintf(what, sizeof(what), "event '%s'", name_at(c, pk->item[i]));
		} else {
			size_t w = (size_t)snprintf(what, sizeof(what), "the group {");
			for (size_t j = 0; j < pk->len[i] && w < sizeof(what); j++)
				w += (size_t)snprintf(what + w, sizeof(what) - w, "%s%s", j ? "," : "",
						      name_at(c, pk->flat[pk->first[i] + j]));
			if (w < sizeof(what))
				snprintf(what + w, sizeof(what) - w, "}");
		}
		return pmcfi_fail(PMCF_ETOOMANY, "%s cannot be counted%s%s: %s", what,
				  pk->len[i] > 1 ? " in one execution" : "",
				  pk->nbase > 1 ? " together with the linking events" : "", why);
	}
	return 0;
}

/* Packs the units into P (greedy, or first-fit decreasing improved and,
 * for up to 12 units above the bound, the exact search); scratch: n
 * entries each of order (by cost), mem, save, cur, best. */
static void pack_sets(struct packer *pk, struct packing *P, const pmcf_plan_opts *o, size_t *order,
		      size_t *mem, size_t *save, size_t *cur, size_t *best, pmcf_plan *plan)
{
	size_t nitem = pk->n;
	if (o->packing == PMCF_PACK_GREEDY) {
		pack_greedy(pk, P, mem);
		return;
	}
	pack_ffd(pk, P, order, mem);
	improve(pk, P, mem, save);
	if (nitem <= 12 && P->nsets > plan->lower_bound && !pk->err) {
		struct exact x = {pk, order, cur, best, P->nsets, plan->lower_bound, mem, {0, 0}, 0, 0};
		for (size_t i = 0; i < nitem; i++)
			cur[i] = (size_t)-1;
		pmcfi_plan_deadline(o->time_limit_s, &x.deadline);
		dfs(&x, 0, 0);
		if (x.nbest < P->nsets) {
			memcpy(P->set, best, nitem * sizeof(size_t));
			P->nsets = x.nbest;
		}
		plan->optimal = !x.timeout && !pk->err;
	}
}

/* The units of pk (item and flat, its arrays, cost, first, len; n and nflat set): each
 * of ev1[0..nev1) (costs cost1) alone, or with the later events of its
 * {…} group grp (0: none; overwritten). */
static void make_units(struct packer *pk, size_t *item, size_t *flat, const size_t *ev1,
		       const unsigned *cost1, unsigned *grp, size_t nev1)
{
	size_t nitem = 0, nflat = 0;
	for (size_t i = 0; i < nev1; i++) {
		if (grp[i] == (unsigned)-1)
			continue; /* placed with its group */
		pk->first[nitem] = nflat;
		pk->len[nitem] = 0;
		pk->cost[nitem] = 0;
		item[nitem] = ev1[i];
		for (size_t j = i; j < nev1; j++)
			if (j == i || (grp[i] && grp[j] == grp[i])) {
				flat[nflat++] = ev1[j];
				pk->len[nitem]++;
				pk->cost[nitem] += cost1[j];
				if (j > i)
					grp[j] = (unsigned)-1;
			}
		nitem++;
	}
	pk->n = nitem;
	pk->nflat = nflat;
}

/* The planner on catalogue indices: events[0..n) with groups (parallel,
 * may be NULL), linking events link[0..nlink); o checked (its link and
 * groups unused). */
static int plan_make_idx(const pmcf_catalog *c, const size_t *events, const unsigned *groups, size_t n,
			 const size_t *link, size_t nlink, const pmcf_plan_opts *o, pmcf_plan **out)
{
	pmcf_plan *plan;
	int err = pmcfi_plan_fields_check(1, o->strategy, o->packing, o->pmcs);
	if (!err)
		err = pmcfi_plan_new(&plan);
	if (err)
		return err;
	plan->strategy = o->strategy;
	plan->packing = o->packing;
	plan->pmcs = o->pmcs;
	int ordered = pmcf_strategy_ordered(o->strategy);
	size_t cap = n + nlink + 2;
	size_t *req = malloc(cap * sizeof(size_t)), *base = malloc(cap * sizeof(size_t));
	size_t *item = malloc(cap * sizeof(size_t)), *buf = malloc(2 * cap * sizeof(size_t));
	const char **names = malloc((2 * cap + PMCFI_PLAN_LK_MAX_LINKS) * sizeof(char *));
	unsigned *cost = malloc(cap * sizeof(unsigned));
	size_t *order = malloc(cap * sizeof(size_t)), *mem = malloc(cap * sizeof(size_t));
	size_t *set = malloc(cap * sizeof(size_t)), *save = malloc(cap * sizeof(size_t));
	size_t *best = malloc(cap * sizeof(size_t)), *cur = malloc(cap * sizeof(size_t));
	size_t *flat = malloc(cap * sizeof(size_t)), *ev1 = malloc(cap * sizeof(size_t));
	size_t *first = malloc(cap * sizeof(size_t)), *len = malloc(cap * sizeof(size_t));
	unsigned *grp = calloc(cap, sizeof(unsigned)), *cost1 = malloc(cap * sizeof(unsigned));
	size_t nreq = 0, nbase = 0, nitem = 0, nev1 = 0;
	unsigned basecost = 0;
	if (!(plan->catalog = strdup(pmcf_catalog_name(c))) || !req || !base || !item || !buf || !names ||
	    !cost || !order || !mem || !set || !save || !best || !cur || !flat || !ev1 || !first || !len ||
	    !grp || !cost1) {
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
		goto out;
	}
	/* requested events, duration (index 0) first */
	req[nreq++] = PMCFI_EVENT_DURATION_INDEX;
	for (size_t i = 0; i < n; i++) {
		size_t k = events[i];
		if (!in_list(req, nreq, k))
			req[nreq++] = k;
		if (groups && groups[i])
			for (size_t r = 1; r < nreq; r++)
				if (req[r] == k && !grp[r])
					grp[r] = groups[i];
	}
	/* linking events (bc family): duration, --link, and the free ones */
	base[nbase++] = PMCFI_EVENT_DURATION_INDEX;
	for (size_t i = 0; ordered && i < nlink; i++) {
		size_t k = link[i];
		if (!in_list(base, nbase, k)) {
			base[nbase++] = k;
			if (takes_counter(pmcf_catalog_at(c, k), o->pmcs))
				basecost += pmcf_catalog_at(c, k)->cost;
		}
		if (!in_list(req, nreq, k))
			req[nreq++] = k;
	}
	for (size_t i = 1; i < nreq; i++) {
		const pmcf_event_info *e = pmcf_catalog_at(c, req[i]);
		if (ordered && e->cost == 0 && !in_list(base, nbase, req[i]))
			base[nbase++] = req[i];
		if (!in_list(base, nbase, req[i])) {
			cost1[nev1] = e->cost;
			grp[nev1] = grp[i]; /* nev1 <= i */
			ev1[nev1++] = req[i];
		}
	}
	/* the units to place: an event, or a {…} group's events together */
	struct packer pk = {.c = c,
			    .pmcs = o->pmcs,
			    .base = base,
			    .nbase = nbase,
			    .item = item,
			    .cost = cost,
			    .flat = flat,
			    .first = first,
			    .len = len,
			    .buf = buf};
	make_units(&pk, item, flat, ev1, cost1, grp, nev1);
	nitem = pk.n;
	if ((err = push_idx(&plan->events, &plan->nevents, c, req, nreq)) ||
	    (ordered && (err = push_idx(&plan->link, &plan->nlink, c, base, nbase))))
		goto out;
	if ((err = check_units(&pk, o->pmcs)))
		goto out;
	for (size_t i = 0; i < nitem; i++)
		order[i] = i;
	qsort_r(order, nitem, sizeof(size_t), cmp_cost_desc, cost);
	plan->lower_bound = (unsigned)lower_bound(&pk, o->pmcs, basecost, plan);

	if (ordered && o->link_auto && !o->npilots) {
		err = pmcfi_fail(PMCF_EINVAL,
				 "link_auto (--link auto) needs reference or pilot profiles (pilots)");
		goto out;
	}
	if (ordered && o->npilots && !o->link_auto) {
		err = pack_correlated(&pk, o, order, mem, plan);
		goto out;
	}
	struct packing P = {set, 0};
	pack_sets(&pk, &P, o, order, mem, save, cur, best, plan);
	if (pk.err) {
		err = pk.err;
		goto out;
	}
	if (P.nsets <= plan->lower_bound)
		plan->optimal = 1;
	if (ordered && o->link_auto && P.nsets) {
		err = plan_auto(&pk, &P, o, plan);
		goto out;
	}
	/* sets in order of their first event in the request; events in request order */
	for (size_t s = 0; s < P.nsets && !err; s++) {
		size_t k = 0;
		for (size_t b = 0; b < (ordered ? nbase : 1); b++)
			buf[k++] = base[b];
		for (size_t i = 0; i < nitem; i++)
			if (set[i] == s)
				k = unit_events(&pk, i, buf, k);
		err = add_set_idx(plan, c, buf, k, names);
	}
	if (!err && !P.nsets) /* only free events */
		err = add_set_idx(plan, c, base, ordered ? nbase : 1, names);
out:
	free(req);
	free(base);
	free(item);
	free(buf);
	free(names);
	free(cost);
	free(order);
	free(mem);
	free(set);
	free(save);
	free(best);
	free(cur);
	free(flat);
	free(ev1);
	free(first);
	free(len);
	free(grp);
	free(cost1);
	if (err) {
		pmcf_plan_free(plan);
		return err;
	}
	*out = plan;
	return 0;
}

/* The sets' lists, by the catalogue indices the planner kept, from events
 * and then link (their {…} groups numbered after those of events, as
 * pmcf_evlist_append numbers them). */
static int resolve_idx(pmcf_plan *p, const pmcf_evlist *events, const pmcf_evlist *link)
{
	pmcf_evlist *all = NULL;
	int err = pmcfi_evlist_pick(events, pmcfi_evlist_indices(events), pmcf_evlist_size(events), &all);
	if (!err && link)
		err = pmcf_evlist_append(all, link);
	for (size_t k = 0; k < p->nsets && !err; k++)
		err = pmcfi_evlist_pick(all, p->sets[k].idx, p->sets[k].n, &p->sets[k].list);
	pmcf_evlist_free(all);
	return err;
}

int pmcf_plan_resolve(pmcf_plan *p, const pmcf_evlist *events)
{
	pmcfi_clear_error();
	if (!p || !events)
		return pmcfi_fail(PMCF_EINVAL, "pmcf_plan_resolve: NULL argument");
	pmcf_evlist **v = calloc(p->nsets ? p->nsets : 1, sizeof(*v));
	if (!v)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	int err = 0;
	for (size_t k = 0; k < p->nsets && !err; k++)
		err = pmcf_evlist_subset(events, (const char *const *)p->sets[k].names, p->sets[k].n, &v[k]);
	for (size_t k = 0; k < p->nsets; k++) { /* all or nothing */
		pmcf_evlist **keep = err ? &v[k] : &p->sets[k].list;
		pmcf_evlist_free(*keep);
		if (!err)
			p->sets[k].list = v[k];
	}
	free(v);
	return err;
}

int pmcf_plan_make(const pmcf_catalog *c, const char *const *events, size_t n, const pmcf_plan_opts *opts,
		   pmcf_plan **out)
{
	pmcfi_clear_error();
	if (!c || !out || !opts || (n && !events))
		return pmcfi_fail(PMCF_EINVAL, "pmcf_plan_make: NULL argument");
	*out = NULL;
	pmcf_plan_opts o = PMCF_PLAN_OPTS_INIT; /* groups came later */
	int err = pmcfi_struct_in("pmcf_plan_opts", &o, opts, offsetof(pmcf_plan_opts, groups), sizeof(o));
	if (err)
		return err;
	/* each name looked up once, in catalogue c */
	size_t nlink = pmcf_strategy_ordered(o.strategy) ? o.nlink : 0;
	size_t *idx = malloc((n + nlink + 1) * sizeof(*idx));
	if (!idx)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	for (size_t i = 0; i < n + nlink && !err; i++) {
		const char *name = i < n ? events[i] : o.link[i - n];
		long k = pmcf_catalog_find(c, name);
		if (k < 0)
			err = pmcfi_fail(PMCF_EEVENT, "unknown %sevent '%s'", i < n ? "" : "linking ", name);
		idx[i] = (size_t)k;
	}
	if (!err)
		err = plan_make_idx(c, idx, o.groups, n, idx + n, nlink, &o, out);
	free(idx);
	return err;
}

int pmcf_plan_make_evlist(const pmcf_evlist *events, const pmcf_evlist *link, const pmcf_plan_opts *opts,
			  pmcf_plan **out)
{
	pmcfi_clear_error();
	if (!events || !out || !opts)
		return pmcfi_fail(PMCF_EINVAL, "pmcf_plan_make_evlist: NULL argument");
	*out = NULL;
	pmcf_plan_opts o = PMCF_PLAN_OPTS_INIT;
	int err = pmcfi_struct_in("pmcf_plan_opts", &o, opts, offsetof(pmcf_plan_opts, groups), sizeof(o));
	if (err)
		return err;
	const pmcf_catalog *c = pmcf_evlist_catalog(events);
	if (o.nlink || o.groups)
		return pmcfi_fail(PMCF_EINVAL, "pmcf_plan_make_evlist: the linking events and groups come "
					       "from the lists, not the options");
	if (link && pmcf_evlist_catalog(link) != c)
		return pmcfi_fail(PMCF_ECONFLICT, "the linking events were resolved in another catalogue");
	size_t nlink = link && pmcf_strategy_ordered(o.strategy) ? pmcf_evlist_size(link) : 0;
	err = plan_make_idx(c, pmcfi_evlist_indices(events), pmcf_evlist_groups(events),
			    pmcf_evlist_size(events), nlink ? pmcfi_evlist_indices(link) : NULL, nlink, &o,
			    out);
	if (!err && (err = resolve_idx(*out, events, link))) {
		pmcf_plan_free(*out);
		*out = NULL;
	}
	/* for the end-to-end check that no name is looked up twice (tests/e2e/lookups.sh) */
	pmcfi_log(PMCF_LOG_DEBUG, "plan: %zu events planned; %lu event names looked up on this thread so far",
		  pmcf_evlist_size(events), pmcfi_name_lookups);
	return err;
}
