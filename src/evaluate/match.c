/* Matches a target profile with its reference profiles for EPD and the
 * Correlation Error: the target's events (duration excluded) located in
 * every reference by name, value ranges, and XU types by kind and name. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "evaluate/evaluate_impl.h"
#include "pmcfuse/events.h"
#include "util/abi.h"
#include "util/internal.h"

static long type_id(struct pmcfi_match *m, const char *key)
{
	for (size_t t = 0; t < m->ntypes; t++)
		if (strcmp(m->types[t], key) == 0)
			return (long)t;
	if (pmcfi_grow((void **)&m->types, &m->captypes, m->ntypes + 1, sizeof(*m->types)))
		return -1;
	if (!(m->types[m->ntypes] = strdup(key)))
		return -1;
	return (long)m->ntypes++;
}

static int build_view(struct pmcfi_match *m, const pmcf_profile *p, struct pmcfi_view *v)
{
	v->p = p;
	v->nxu = pmcf_profile_nxus(p);
	v->col = calloc(m->nev ? m->nev : 1, sizeof(*v->col));
	v->mn = calloc(m->nev ? m->nev : 1, sizeof(*v->mn));
	v->mx = calloc(m->nev ? m->nev : 1, sizeof(*v->mx));
	v->gtype = calloc(v->nxu ? v->nxu : 1, sizeof(*v->gtype));
	size_t nt = pmcf_profile_ntypes(p);
	long *map = calloc(nt ? nt : 1, sizeof(*map));
	if (!v->col || !v->mn || !v->mx || !v->gtype || !map) {
		free(map);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	}
	for (size_t t = 0; t < nt; t++) {
		pmcf_xu_type ty = PMCF_XU_TYPE_INIT;
		char key[512];
		if (pmcf_profile_type_get(p, (uint32_t)t, &ty) == 0)
			snprintf(key, sizeof(key), "%s/%s", pmcf_xu_kind_name(ty.kind), ty.name);
		else
			snprintf(key, sizeof(key), "type-%zu", t);
		if ((map[t] = type_id(m, key)) < 0) {
			free(map);
			return pmcfi_fail(PMCF_ENOMEM, "out of memory");
		}
	}
	for (size_t i = 0; i < v->nxu; i++) {
		pmcf_xu xu = PMCF_XU_INIT;
		v->gtype[i] = pmcf_profile_xu_fields_get(p, i, &xu) == 0 && xu.type < nt
				      ? (uint32_t)map[xu.type]
				      : 0;
	}
	free(map);
	for (size_t e = 0; e < m->nev; e++) {
		long k = pmcf_profile_event_find(p, m->ev[e]);
		v->mn[e] = v->mx[e] = NAN;
		if (k < 0)
			continue;
		const double *c = pmcf_profile_column_const(p, (size_t)k);
		double lo = INFINITY, hi = -INFINITY;
		for (size_t i = 0; i < v->nxu; i++) {
			if (c[i] != c[i])
				continue;
			lo = c[i] < lo ? c[i] : lo;
			hi = c[i] > hi ? c[i] : hi;
		}
		if (lo <= hi) {
			v->col[e] = c;
			v->mn[e] = lo;
			v->mx[e] = hi;
		}
	}
	return 0;
}

static void free_view(struct pmcfi_view *v)
{
	free(v->col);
	free(v->mn);
	free(v->mx);
	free(v->gtype);
}

int pmcfi_match_build(const pmcf_profile *target, const pmcf_profile *const *refs, size_t nrefs,
		      struct pmcfi_match *m)
{
	memset(m, 0, sizeof(*m));
	size_t ne = pmcf_profile_nevents(target);
	m->ev = calloc(ne ? ne : 1, sizeof(*m->ev));
	m->refs = calloc(nrefs ? nrefs : 1, sizeof(*m->refs));
	if (!m->ev || !m->refs) {
		pmcfi_match_free(m);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	}
	for (size_t e = 0; e < ne; e++) {
		const char *name = pmcf_profile_event_name(target, e);
		if (strcmp(name, PMCF_EVENT_DURATION) == 0)
			continue;
		if (!(m->ev[m->nev++] = strdup(name))) {
			pmcfi_match_free(m);
			return pmcfi_fail(PMCF_ENOMEM, "out of memory");
		}
	}
	int err = build_view(m, target, &m->target);
	for (size_t r = 0; r < nrefs && !err; r++, m->nrefs++)
		err = build_view(m, refs[r], &m->refs[r]);
	if (err)
		pmcfi_match_free(m);
	return err;
}

void pmcfi_match_free(struct pmcfi_match *m)
{
	for (size_t e = 0; e < m->nev; e++)
		free(m->ev[e]);
	free(m->ev);
	free_view(&m->target);
	for (size_t r = 0; r < m->nrefs; r++)
		free_view(&m->refs[r]);
	free(m->refs);
	for (size_t t = 0; t < m->ntypes; t++)
		free(m->types[t]);
	free(m->types);
	memset(m, 0, sizeof(*m));
}

int pmcfi_match_compatible(const struct pmcfi_match *x, const struct pmcfi_match *y)
{
	if (x->nev != y->nev || x->ntypes != y->ntypes || x->nrefs != y->nrefs)
		return 0;
	for (size_t e = 0; e < x->nev; e++)
		if (strcmp(x->ev[e], y->ev[e]) != 0)
			return 0;
	for (size_t t = 0; t < x->ntypes; t++)
		if (strcmp(x->types[t], y->types[t]) != 0)
			return 0;
	for (size_t r = 0; r < x->nrefs; r++)
		if (x->refs[r].p != y->refs[r].p)
			return 0;
	return 1;
}

int pmcfi_match_groups(const pmcf_profile *const *targets, size_t ntargets, const pmcf_profile *const *refs,
		       size_t nrefs, pmcfi_group_fn fn, void *ctx)
{
	struct pmcfi_match *m = calloc(ntargets, sizeof(*m)), *gm = calloc(ntargets, sizeof(*gm));
	size_t *order = malloc(ntargets * sizeof(*order));
	unsigned char *done = calloc(ntargets, 1);
	int err = m && gm && order && done ? 0 : pmcfi_fail(PMCF_ENOMEM, "out of memory");
	size_t built = 0;
	for (; built < ntargets && !err; built++)
		err = pmcfi_match_build(targets[built], refs, nrefs, &m[built]);
	if (err && built)
		built--; /* the failed build freed its own match */
	/* groups of compatible targets, each evaluated on one reference side */
	for (size_t first = 0; first < ntargets && !err; first++) {
		if (done[first])
			continue;
		size_t n = 0;
		for (size_t t = first; t < ntargets; t++)
			if (!done[t] && pmcfi_match_compatible(&m[first], &m[t]))
				order[n++] = t;
		for (size_t g = 0; g < n; g++)
			gm[g] = m[order[g]];
		err = fn(ctx, gm, n, order);
		for (size_t g = 0; g < n; g++) {
			m[order[g]] = gm[g]; /* the names went to the results */
			done[order[g]] = 1;
		}
	}
	for (size_t t = 0; m && t < built; t++)
		pmcfi_match_free(&m[t]);
	free(m);
	free(gm);
	free(order);
	free(done);
	return err;
}
