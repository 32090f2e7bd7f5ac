/* The generic event catalogue: storage, hashed name lookup, suggestions for
 * misspelt names, event-list parsing (-e) and the dispatch of the
 * compatibility check to the source that built the catalogue. */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include "counters/catalog.h"
#include "counters/perf_syntax.h"
#include "util/abi.h"
#include "util/internal.h"

struct pmcf_catalog {
	char *name;
	pmcf_event_info *ev;
	size_t n, cap;
	uint32_t *slot; /* open addressing: index+1, 0 = empty */
	size_t nslot;   /* power of two */
	const struct pmcfi_catalog_ops *ops;
	void *impl;
};

struct pmcf_evlist {
	const pmcf_catalog *cat; /* what the names were resolved in (borrowed) */
	char **names;
	unsigned *group; /* parallel to names: 0 none, else the {…} group's number */
	size_t *idx;     /* parallel to names: the event's index in cat */
	size_t n, cap;
	unsigned ngroups;
};

_Thread_local unsigned long pmcfi_name_lookups;

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static int rehash(pmcf_catalog *c, size_t nslot)
{
	uint32_t *slot = calloc(nslot, sizeof(*slot));
	if (!slot)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory building the event catalogue");
	for (size_t i = 0; i < c->n; i++) {
		size_t h = hash_str(c->ev[i].name) & (nslot - 1);
		while (slot[h])
			h = (h + 1) & (nslot - 1);
		slot[h] = (uint32_t)(i + 1);
	}
	free(c->slot);
	c->slot = slot;
	c->nslot = nslot;
	return 0;
}

static long lookup_exact(const pmcf_catalog *c, const char *name)
{
	if (!c->nslot)
		return -1;
	size_t h = hash_str(name) & (c->nslot - 1);
	while (c->slot[h]) {
		size_t i = c->slot[h] - 1;
		if (strcmp(c->ev[i].name, name) == 0)
			return (long)i;
		h = (h + 1) & (c->nslot - 1);
	}
	return -1;
}

static void free_info(pmcf_event_info *e)
{
	free((char *)e->name);
	free((char *)e->source);
	free((char *)e->pmu);
	free((char *)e->description);
	free((char *)e->constraints);
}

int pmcfi_catalog_new(const char *name, const struct pmcfi_catalog_ops *ops, void *impl, pmcf_catalog **out)
{
	*out = NULL;
	pmcf_catalog *c = calloc(1, sizeof(*c));
	if (!c || !(c->name = strdup(name))) {
		free(c);
		if (ops && ops->free_impl)
			ops->free_impl(impl);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory building the event catalogue");
	}
	c->ops = ops;
	c->impl = impl;
	pmcf_event_info d = {
		.size = sizeof(pmcf_event_info),
		.name = PMCF_EVENT_DURATION,
		.source = PMCF_SRC_PSEUDO,
		.description = "wall time of the XU from its timestamps, in ns (uses no counter)",
		.available = 1,
		.cost = 0,
	};
	int err = pmcfi_catalog_add(c, &d);
	if (err) {
		pmcf_catalog_free(c);
		return err;
	}
	*out = c;
	return 0;
}

int pmcfi_catalog_add(pmcf_catalog *c, const pmcf_event_info *info)
{
	if (!info->name || !info->name[0])
		return pmcfi_fail(PMCF_EINVAL, "event without a name");
	if (lookup_exact(c, info->name) >= 0)
		return pmcfi_fail(PMCF_ECONFLICT, "event '%s' listed twice", info->name);
	if (pmcfi_grow((void **)&c->ev, &c->cap, c->n + 1, sizeof(*c->ev)))
		return pmcfi_fail(PMCF_ENOMEM, "out of memory building the event catalogue");
	if (2 * (c->n + 1) > c->nslot) {
		int err = rehash(c, c->nslot ? 2 * c->nslot : 512);
		if (err)
			return err;
	}
	pmcf_event_info e = *info;
	e.name = strdup(info->name);
	e.source = strdup(info->source ? info->source : "");
	e.pmu = pmcfi_strdup(info->pmu);
	e.description = strdup(info->description ? info->description : "");
	e.constraints = pmcfi_strdup(info->constraints);
	if (!e.name || !e.source || !e.description || (info->pmu && !e.pmu) ||
	    (info->constraints && !e.constraints)) {
		free_info(&e);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory building the event catalogue");
	}
	c->ev[c->n] = e;
	size_t h = hash_str(e.name) & (c->nslot - 1);
	while (c->slot[h])
		h = (h + 1) & (c->nslot - 1);
	c->slot[h] = (uint32_t)(c->n + 1);
	c->n++;
	return 0;
}

pmcf_event_info *pmcfi_catalog_at_mut(pmcf_catalog *c, size_t i) { return i < c->n ? &c->ev[i] : NULL; }

void *pmcfi_catalog_impl(const pmcf_catalog *c) { return c->impl; }

void pmcf_catalog_free(pmcf_catalog *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		free_info(&c->ev[i]);
	free(c->ev);
	free(c->slot);
	free(c->name);
	if (c->ops && c->ops->free_impl)
		c->ops->free_impl(c->impl);
	free(c);
}

const char *pmcf_catalog_name(const pmcf_catalog *c) { return c->name; }
size_t pmcf_catalog_size(const pmcf_catalog *c) { return c->n; }

const pmcf_event_info *pmcf_catalog_at(const pmcf_catalog *c, size_t i)
{
	return i < c->n ? &c->ev[i] : NULL;
}

/* perf's own names (software, hardware, hw-cache events, tracepoints and
 * their modified forms) are case-sensitive, as `perf stat -e TASK-CLOCK`
 * refuses them; PAPI presets, native and simulated events are not. */
static int perf_exact(const pmcf_event_info *e)
{
	const char *s = e->source ? e->source : "";
	if (strcmp(s, PMCF_SRC_SOFTWARE) == 0 || strcmp(s, PMCF_SRC_HARDWARE) == 0 ||
	    strcmp(s, PMCF_SRC_HWCACHE) == 0 || strcmp(s, PMCF_SRC_TRACEPOINT) == 0 || strchr(e->name, '/'))
		return 1;
	/* a raw event as written (r01c2, r01c2:u) */
	char head[40];
	size_t n = strcspn(e->name, ":");
	if (n >= sizeof(head))
		return 0;
	memcpy(head, e->name, n);
	head[n] = '\0';
	return pmcfi_perf_raw_parse(head, &(uint64_t){0});
}

long pmcf_catalog_find(const pmcf_catalog *c, const char *name)
{
	pmcfi_name_lookups++;
	long i = lookup_exact(c, name);
	if (i >= 0)
		return i;
	long found = -1;
	for (size_t k = 0; k < c->n; k++) {
		if (perf_exact(&c->ev[k]))
			continue;
		if (strcasecmp(c->ev[k].name, name) == 0) {
			if (found >= 0)
				return PMCF_EEVENT; /* ambiguous */
			found = (long)k;
		}
	}
	return found >= 0 ? found : PMCF_EEVENT;
}

int pmcfi_catalog_counters(const pmcf_catalog *c, unsigned *n, char *from, size_t fromlen)
{
	if (!c->ops || !c->ops->counters)
		return -1;
	return c->ops->counters(c->impl, c, n, from, fromlen);
}

long pmcfi_catalog_resolve(pmcf_catalog *c, const char *name)
{
	long i = pmcf_catalog_find(c, name);
	if (i >= 0 || !c->ops || !c->ops->resolve)
		return i;
	return c->ops->resolve(c->impl, c, name);
}

/* Damerau-Levenshtein (optimal string alignment) distance, case-insensitive,
 * giving up above limit. */
static size_t edit_distance(const char *a, const char *b, size_t limit)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 64 || lb > 64)
		return limit + 1;
	if ((la > lb ? la - lb : lb - la) > limit)
		return limit + 1;
	size_t d[65][65];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t rowmin = (size_t)-1;
		for (size_t j = 1; j <= lb; j++) {
			int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
			size_t cost = ca != cb;
			size_t v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + cost < v)
				v = d[i - 1][j - 1] + cost;
			if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
			if (v < rowmin)
				rowmin = v;
		}
		if (rowmin > limit)
			return limit + 1;
	}
	return d[la][lb];
}

size_t pmcf_catalog_suggest(const pmcf_catalog *c, const char *name, const char **names, size_t max)
{
	if (!max)
		return 0;
	size_t len = strlen(name);
	size_t limit = len < 4 ? 1 : len < 9 ? 2 : 3;
	size_t best[16], dist[16], nbest = 0;
	if (max > 16)
		max = 16;
	for (size_t i = 0; i < c->n; i++) {
		size_t dd = edit_distance(name, c->ev[i].name, limit);
		if (dd > limit && len >= 4 && strcasestr(c->ev[i].name, name))
			dd = limit; /* a substring match ranks after close spellings */
		if (dd > limit)
			continue;
		/* insert sorted by distance, then catalogue order */
		size_t pos = nbest;
		while (pos > 0 && dist[pos - 1] > dd)
			pos--;
		if (pos >= max)
			continue;
		size_t last = nbest < max ? nbest : max - 1;
		for (size_t k = last; k > pos; k--) {
			best[k] = best[k - 1];
			dist[k] = dist[k - 1];
		}
		best[pos] = i;
		dist[pos] = dd;
		if (nbest < max)
			nbest++;
	}
	for (size_t k = 0; k < nbest; k++)
		names[k] = c->ev[best[k]].name;
	return nbest;
}

int pmcf_catalog_check_events(const pmcf_catalog *c, const char *const *names, size_t n, unsigned pmcs,
			      char *why, size_t whylen)
{
	pmcfi_clear_error();
	if (whylen)
		why[0] = '\0';
	size_t *idx = malloc((n ? n : 1) * sizeof(*idx));
	if (!idx)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	int err = 0;
	for (size_t i = 0; i < n && !err; i++) {
		long k = pmcfi_catalog_resolve((pmcf_catalog *)c, names[i]);
		if (k == PMCF_EEVENT)
			err = pmcfi_fail(PMCF_EEVENT, "unknown event '%s'", names[i]);
		else if (k < 0)
			err = (int)k;
		else
			idx[i] = (size_t)k;
	}
	if (!err)
		err = pmcfi_catalog_check_idx(c, idx, n, pmcs, why, whylen);
	free(idx);
	return err;
}

int pmcf_evlist_check(const pmcf_evlist *l, unsigned pmcs, char *why, size_t whylen)
{
	pmcfi_clear_error();
	if (whylen)
		why[0] = '\0';
	if (!l)
		return pmcfi_fail(PMCF_EINVAL, "pmcf_evlist_check: no event list");
	return pmcfi_catalog_check_idx(l->cat, l->idx, l->n, pmcs, why, whylen);
}

int pmcfi_catalog_check_idx(const pmcf_catalog *c, const size_t *events, size_t n, unsigned pmcs, char *why,
			    size_t whylen)
{
	if (whylen)
		why[0] = '\0';
	size_t *idx = malloc((n ? n : 1) * sizeof(*idx));
	if (!idx)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		size_t k = events[i];
		if (k >= c->n || strcmp(c->ev[k].name, PMCF_EVENT_DURATION) == 0)
			continue;
		int dup = 0;
		for (size_t j = 0; j < m; j++)
			dup |= idx[j] == k;
		if (!dup)
			idx[m++] = k;
	}
	int err;
	if (!c->ops || !c->ops->check_set)
		err = pmcfi_fail(PMCF_ENOTSUP, "catalogue '%s' has no compatibility check", c->name);
	else
		err = c->ops->check_set(c->impl, c, idx, m, pmcs, why, whylen);
	free(idx);
	return err;
}

/* ---- event lists ------------------------------------------------------------- */

/* Adds catalogue event k of c (the list's catalogue) unless listed. */
static int evlist_push(pmcf_evlist *l, const pmcf_catalog *c, size_t k, unsigned group)
{
	const char *name = c->ev[k].name;
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->names[i], name) == 0) {
			if (group && l->group[i] && l->group[i] != group)
				return pmcfi_fail(PMCF_ESYNTAX,
						  "event '%s' is in two {…} groups: an event can "
						  "share one execution with one group",
						  name);
			if (group)
				l->group[i] = group;
			return 0;
		}
	/* three arrays of one capacity: each grows from l->cap to the same size */
	size_t cn = l->cap, cg = l->cap, ci = l->cap;
	if (pmcfi_grow((void **)&l->names, &cn, l->n + 1, sizeof(*l->names)) ||
	    pmcfi_grow((void **)&l->group, &cg, l->n + 1, sizeof(*l->group)) ||
	    pmcfi_grow((void **)&l->idx, &ci, l->n + 1, sizeof(*l->idx)))
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	l->cap = cn;
	if (!(l->names[l->n] = strdup(name)))
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	l->idx[l->n] = k;
	l->group[l->n++] = group;
	return 0;
}

static int unknown_event(const pmcf_catalog *c, const char *name)
{
	const char *sug[3];
	size_t ns = pmcf_catalog_suggest(c, name, sug, 3);
	if (!ns)
		return pmcfi_fail(PMCF_EEVENT, "unknown event '%s' (`pmcfuse events` lists the known ones)",
				  name);
	char buf[512];
	size_t off = 0;
	for (size_t i = 0; i < ns && off < sizeof(buf); i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s",
					i ? (i + 1 == ns ? " or " : ", ") : "", sug[i]);
	return pmcfi_fail(PMCF_EEVENT, "unknown event '%s' (did you mean %s?)", name, buf);
}

/* perf's tracepoint globs (sched:*, sched:sched_s*), and any other name
 * with * ? or [: every available event of the catalogue that matches, in
 * catalogue order, after loading the part that may hold them. Modifiers
 * after the pattern (sched:sched_wak*:u, or a group's) apply to every
 * match. A match this machine cannot count (ftrace:function, cycles
 * without a PMU) is left out, as it would be from a listing; only when
 * none can be counted is the pattern refused, with the first one's reason.
 * Matches not probed yet are opened once each, up to GLOB_PROBES of them. */
#define GLOB_PROBES 64

static int add_glob(const pmcf_catalog *c, pmcf_evlist *l, const char *pat, unsigned group)
{
	char *base = strdup(pat);
	if (!base)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	const char *mods = NULL;
	char *colon = strrchr(base, ':');
	/* "glob:mods" (or "glob:"): the modifiers split off, unless the
	 * pattern matches as it is */
	if (colon && colon > base && colon[-1] != ':' && (!colon[1] || pmcfi_perf_mods_like(colon + 1)) &&
	    strpbrk(base, "*?[") < colon) {
		int whole = 0;
		(void)pmcfi_catalog_resolve((pmcf_catalog *)c, pat);
		for (size_t i = 0; i < c->n && !whole; i++)
			whole = c->ev[i].available != 0 && fnmatch(pat, c->ev[i].name, 0) == 0;
		if (!whole) {
			*colon = '\0';
			mods = colon + 1;
		}
	}
	long k = pmcfi_catalog_resolve((pmcf_catalog *)c, base); /* loads tracepoints for a:b */
	if (k < 0 && k != PMCF_EEVENT) {
		free(base);
		return (int)k;
	}
	pmcfi_clear_error();
	/* the matches first: resolving NAME:mods adds entries to c */
	size_t nm = 0, *match = malloc((c->n ? c->n : 1) * sizeof(*match));
	if (!match) {
		free(base);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < c->n; i++)
		if (c->ev[i].available != 0 && fnmatch(base, c->ev[i].name, 0) == 0)
			match[nm++] = i;
	int err = 0, first_err = 0;
	size_t hits = 0, probes = 0;
	char first_why[600] = "";
	for (size_t m = 0; m < nm && !err; m++) {
		long e = (long)match[m];
		if (mods && *mods) {
			size_t len = strlen(c->ev[match[m]].name) + strlen(mods) + 2;
			char *name = malloc(len);
			if (!name) {
				err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
				break;
			}
			snprintf(name, len, "%s:%s", c->ev[match[m]].name, mods);
			e = pmcfi_catalog_resolve((pmcf_catalog *)c, name);
			free(name);
			if (e == PMCF_EEVENT)
				err = pmcfi_fail(PMCF_ESYNTAX, "'%s': '%s' takes no modifiers ':%s'", pat,
						 c->ev[match[m]].name, mods);
			else if (e < 0)
				err = (int)e;
			if (err)
				break;
		}
		/* countable here? Known (probed) events are not asked again; of the
		 * others at most GLOB_PROBES are opened (a tracepoint's close waits
		 * ~40 ms), the rest kept for the set's own check */
		if (c->ev[e].available == 1 || probes == GLOB_PROBES) {
			if ((err = evlist_push(l, c, (size_t)e, group)))
				break;
			hits++;
			continue;
		}
		probes++;
		char why[512];
		int fits = pmcfi_catalog_check_idx(c, &(size_t){(size_t)e}, 1, 64, why, sizeof(why));
		if (fits == PMCF_ENOMEM) {
			err = fits;
			break;
		}
		if (fits != 1) {
			if (!first_err) {
				first_err = fits < 0 ? fits : PMCF_ENOTSUP;
				snprintf(first_why, sizeof(first_why), "%s",
					 fits < 0 ? pmcf_errdetail() : why);
			}
			pmcfi_clear_error();
			continue;
		}
		if ((err = evlist_push(l, c, (size_t)e, group)))
			break;
		hits++;
	}
	free(match);
	free(base);
	if (err)
		return err;
	if (!hits && first_err)
		return pmcfi_fail(first_err,
				  "'%s': none of the %zu events it matches can be counted here (%s)", pat, nm,
				  first_why);
	if (!hits)
		return pmcfi_fail(PMCF_EEVENT, "no event matches '%s' (`pmcfuse events` lists them)", pat);
	return 0;
}

static int add_token(const pmcf_catalog *c, pmcf_evlist *l, const char *tok, unsigned group)
{
	if (strcmp(tok, "all") == 0) {
		if (group)
			return pmcfi_fail(PMCF_ESYNTAX, "'all' cannot be in a {…} group");
		for (size_t i = 0; i < c->n; i++) {
			/* PAPI presets count what natives listed here count: not twice */
			if (c->ev[i].available == 0 || strcmp(c->ev[i].source, PMCF_SRC_PAPI) == 0)
				continue;
			int err = evlist_push(l, c, i, 0);
			if (err)
				return err;
		}
		return 0;
	}
	if (strpbrk(tok, "*?["))
		return add_glob(c, l, tok, group);
	long k = pmcfi_catalog_resolve((pmcf_catalog *)c, tok);
	if (k == PMCF_EEVENT)
		return unknown_event(c, tok);
	if (k < 0)
		return (int)k;
	return evlist_push(l, c, (size_t)k, group);
}

/* The end of the token at p: a separator (a comma; blanks and '#' too when
 * from_file) or a brace, outside a PMU event's slashes (cpu/event=1,umask=2/). */
static char *token_end(char *p, int from_file)
{
	int slash = 0;
	for (; *p; p++) {
		if (*p == '/')
			slash = !slash;
		else if (!slash && (*p == ',' || *p == '{' || *p == '}' ||
				    (from_file && (isspace((unsigned char)*p) || *p == '#'))))
			break;
	}
	return p;
}

/* Adds the token [start, end) (blanks trimmed) with modifiers mods (a
 * group's, or NULL) appended. */
static int add_span(const pmcf_catalog *c, pmcf_evlist *l, const char *start, const char *end,
		    const char *mods, unsigned group)
{
	while (start < end && isspace((unsigned char)*start))
		start++;
	while (end > start && isspace((unsigned char)end[-1]))
		end--;
	if (start == end)
		return 0;
	/* a member with modifiers of its own keeps them ({task-clock:u}:k is
	 * task-clock:u, as perf counts it); the group's go to the others */
	if (mods) {
		const char *cp = memrchr(start, ':', (size_t)(end - start));
		if (cp && cp > start && cp[-1] != ':' && cp + 1 < end &&
		    !memchr(start, '/', (size_t)(end - start))) {
			size_t ml = (size_t)(end - cp - 1);
			char own[32];
			if (ml < sizeof(own)) {
				memcpy(own, cp + 1, ml);
				own[ml] = '\0';
				if (pmcfi_perf_mods_like(own))
					mods = NULL;
			}
		}
	}
	size_t n = (size_t)(end - start), m = mods ? strlen(mods) + 1 : 0;
	char *tok = malloc(n + m + 1);
	if (!tok)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	memcpy(tok, start, n);
	if (mods) {
		tok[n] = ':';
		memcpy(tok + n + 1, mods, m - 1);
	}
	tok[n + m] = '\0';
	int err = add_token(c, l, tok, group);
	free(tok);
	return err;
}

/* perf's group {a,b,c}[:mods]: the events must be counted in one execution
 * (the planner keeps them in one set); modifiers after the brace apply to
 * each. *pp points at '{'; on return past the group. */
static int add_group(const pmcf_catalog *c, pmcf_evlist *l, char **pp, int from_file)
{
	char *open = *pp, *close = strchr(open + 1, '}');
	if (!close)
		return pmcfi_fail(PMCF_ESYNTAX, "'{' without its '}' in the event list");
	char *nested = strchr(open + 1, '{');
	if (nested && nested < close)
		return pmcfi_fail(PMCF_ESYNTAX, "{…} groups cannot be nested");
	char *after = close + 1, *mods = NULL, save = 0;
	char *mend = after;
	if (*after == ':') {
		mods = after + 1;
		mend = token_end(mods, from_file);
		save = *mend;
		*mend = '\0';
		if (!*mods) {
			*mend = save;
			return pmcfi_fail(PMCF_ESYNTAX, "':' after a {…} group must be followed by "
							"modifiers");
		}
	}
	unsigned group = ++l->ngroups;
	int err = 0;
	size_t before = l->n;
	for (char *p = open + 1; p < close && !err;) {
		if (*p == ',' || (from_file && isspace((unsigned char)*p))) {
			p++;
			continue;
		}
		char *e = token_end(p, from_file);
		if (e > close)
			e = close;
		err = add_span(c, l, p, e, mods, group);
		p = e;
	}
	if (mods)
		*mend = save;
	if (!err && l->n == before) {
		int named = 0; /* every member already listed is fine; an empty group is not */
		for (size_t i = 0; i < l->n; i++)
			named |= l->group[i] == group;
		if (!named)
			err = pmcfi_fail(PMCF_ESYNTAX, "an empty {} group in the event list");
	}
	*pp = mend;
	return err;
}

/* Splits text at separators (commas always; blanks and newlines too when
 * from_file, outside PMU slashes), drops '#' comments in files, and adds
 * every token and {…} group. */
static int add_text(const pmcf_catalog *c, pmcf_evlist *l, char *text, int from_file)
{
	char *p = text;
	while (*p) {
		if (from_file && *p == '#') {
			while (*p && *p != '\n')
				p++;
			continue;
		}
		if (*p == ',' || isspace((unsigned char)*p)) {
			p++;
			continue;
		}
		int err;
		if (*p == '{') {
			err = add_group(c, l, &p, from_file);
		} else if (*p == '}') {
			err = pmcfi_fail(PMCF_ESYNTAX, "'}' without its '{' in the event list");
		} else {
			char *e = token_end(p, from_file);
			if (e == p) /* a stray brace handled above; nothing else stops at once */
				e++;
			err = add_span(c, l, p, e, NULL, 0);
			p = e;
		}
		if (err)
			return err;
	}
	return 0;
}

static int read_file(const char *path, char **out)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return pmcfi_fail(-errno, "cannot read event file '%s': %s", path, strerror(errno));
	struct stat sb;
	if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
		fclose(f);
		return pmcfi_fail(-EISDIR, "event file '%s' is a directory, not a list of events", path);
	}
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	if (!buf) {
		fclose(f);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	}
	size_t r;
	while ((r = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += r;
		if (n + 1 == cap) {
			if (cap >= (1u << 24)) {
				free(buf);
				fclose(f);
				return pmcfi_fail(PMCF_EINVAL, "event file '%s' is too large", path);
			}
			if (pmcfi_grow((void **)&buf, &cap, cap + 1, 1)) {
				free(buf);
				fclose(f);
				return pmcfi_fail(PMCF_ENOMEM, "out of memory");
			}
		}
	}
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		free(buf);
		return pmcfi_fail(-EIO, "cannot read event file '%s'", path);
	}
	buf[n] = '\0';
	if (memchr(buf, '\0', n)) {
		free(buf);
		return pmcfi_fail(PMCF_ESYNTAX, "event file '%s' is not text", path);
	}
	*out = buf;
	return 0;
}

/* A list on the command line has no empty element: 'a,', ',a', 'a,,b' are
 * refused (perf's "event syntax error"), as a typo that would otherwise
 * count fewer events than meant. A list of only commas is "empty". */
static int check_commas(const char *text)
{
	const char *first = text + strspn(text, " \t\n");
	if (!*first || strspn(first, ", \t\n") == strlen(first))
		return 0; /* nothing but separators: the empty list, said below */
	/* before p: 1 the start or '{', 2 a comma, 0 a name or '}' */
	int prev_sep = 1, empty = 0;
	for (const char *p = text; *p && !empty; p++) {
		if (isspace((unsigned char)*p))
			continue;
		/* a comma after the start, a comma or '{'; a '}' after a comma */
		empty = (*p == ',' && prev_sep) || (*p == '}' && prev_sep == 2);
		prev_sep = *p == ',' ? 2 : *p == '{';
	}
	if (empty || prev_sep == 2) /* ... or a comma at the end */
		return pmcfi_fail(PMCF_ESYNTAX, "an empty event in the list '%s' (a comma too many)", text);
	return 0;
}

int pmcf_evlist_parse(const pmcf_catalog *c, const char *spec, pmcf_evlist **out)
{
	pmcfi_clear_error();
	*out = NULL;
	pmcf_evlist *l = calloc(1, sizeof(*l));
	if (!l)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	l->cat = c;
	char *text = NULL;
	int err, from_file = spec[0] == '@';
	if (from_file) {
		if (!spec[1])
			err = pmcfi_fail(PMCF_ESYNTAX, "'@' must be followed by a file name");
		else
			err = read_file(spec + 1, &text);
	} else {
		text = strdup(spec);
		err = text ? 0 : pmcfi_fail(PMCF_ENOMEM, "out of memory");
	}
	if (!err && !from_file)
		err = check_commas(text);
	if (!err)
		err = add_text(c, l, text, from_file);
	if (!err && l->n == 0)
		err = from_file ? pmcfi_fail(PMCF_ESYNTAX, "event file '%s' names no event", spec + 1)
				: pmcfi_fail(PMCF_ESYNTAX, "empty event list");
	free(text);
	if (err) {
		pmcf_evlist_free(l);
		return err;
	}
	*out = l;
	return 0;
}

void pmcf_evlist_free(pmcf_evlist *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++)
		free(l->names[i]);
	free(l->names);
	free(l->group);
	free(l->idx);
	free(l);
}

size_t pmcf_evlist_size(const pmcf_evlist *l) { return l->n; }
const char *pmcf_evlist_name(const pmcf_evlist *l, size_t i) { return i < l->n ? l->names[i] : NULL; }
const char *const *pmcf_evlist_names(const pmcf_evlist *l) { return (const char *const *)l->names; }
unsigned pmcf_evlist_group(const pmcf_evlist *l, size_t i) { return i < l->n ? l->group[i] : 0; }
const unsigned *pmcf_evlist_groups(const pmcf_evlist *l) { return l->group; }

const pmcf_catalog *pmcf_evlist_catalog(const pmcf_evlist *l) { return l->cat; }
const size_t *pmcfi_evlist_indices(const pmcf_evlist *l) { return l->idx; }

int pmcf_evlist_from_names(const pmcf_catalog *c, const char *const *names, size_t n, pmcf_evlist **out)
{
	pmcfi_clear_error();
	*out = NULL;
	pmcf_evlist *l = calloc(1, sizeof(*l));
	if (!l)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	l->cat = c;
	int err = n ? 0 : pmcfi_fail(PMCF_ESYNTAX, "empty event list");
	for (size_t i = 0; i < n && !err; i++) {
		long k = pmcfi_catalog_resolve((pmcf_catalog *)c, names[i]);
		err = k == PMCF_EEVENT ? unknown_event(c, names[i])
		      : k < 0          ? (int)k
				       : evlist_push(l, c, (size_t)k, 0);
	}
	if (err) {
		pmcf_evlist_free(l);
		return err;
	}
	*out = l;
	return 0;
}

/* Position of catalogue event k in l, or -1. */
static long position_of(const pmcf_evlist *l, size_t k)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->idx[i] == k)
			return (long)i;
	return -1;
}

int pmcf_evlist_subset(const pmcf_evlist *l, const char *const *names, size_t n, pmcf_evlist **out)
{
	pmcfi_clear_error();
	*out = NULL;
	pmcf_evlist *s = calloc(1, sizeof(*s));
	if (!s)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	s->cat = l->cat;
	s->ngroups = l->ngroups;
	int err = 0;
	for (size_t i = 0; i < n && !err; i++) {
		/* names of a plan or covering made from l: catalogue spellings */
		long k = lookup_exact(l->cat, names[i]), at = k < 0 ? -1 : position_of(l, (size_t)k);
		if (k == 0 && at < 0) /* duration: in every list */
			err = evlist_push(s, l->cat, 0, 0);
		else if (at < 0)
			err = pmcfi_fail(PMCF_EEVENT, "event '%s' is not in the list", names[i]);
		else
			err = evlist_push(s, l->cat, (size_t)k, l->group[at]);
	}
	if (err) {
		pmcf_evlist_free(s);
		return err;
	}
	*out = s;
	return 0;
}

int pmcf_evlist_append(pmcf_evlist *dst, const pmcf_evlist *src)
{
	pmcfi_clear_error();
	if (dst->cat != src->cat)
		return pmcfi_fail(PMCF_ECONFLICT, "event lists of two catalogues cannot be joined");
	unsigned base = dst->ngroups;
	for (size_t i = 0; i < src->n; i++) {
		int err = evlist_push(dst, dst->cat, src->idx[i], src->group[i] ? base + src->group[i] : 0);
		if (err)
			return err;
	}
	dst->ngroups = base + src->ngroups;
	return 0;
}
