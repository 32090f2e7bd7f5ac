/* The in-memory profile model: metadata, XU types, events, XUs with columnar
 * values (one array per event, labels in one arena: no per-XU allocation),
 * and the optional layers: ground truth, coverage, provenance, base labels. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "profile/bare.h"
#include "profile/profile_impl.h"
#include "util/abi.h"
#include "util/internal.h"

static const char *const kind_names[] = {
	[PMCF_XU_TASK] = "task",     [PMCF_XU_LOOP_CHUNK] = "loop-chunk", [PMCF_XU_LOOP_RANGE] = "loop-range",
	[PMCF_XU_REGION] = "region", [PMCF_XU_THREAD] = "thread",
};

const char *pmcf_xu_kind_name(int kind)
{
	if (kind <= 0 || (size_t)kind >= PMCF_ARRAY_SIZE(kind_names))
		return "unknown";
	return kind_names[kind];
}

int pmcf_xu_kind_parse(const char *name)
{
	if (name)
		for (size_t k = 1; k < PMCF_ARRAY_SIZE(kind_names); k++)
			if (strcmp(name, kind_names[k]) == 0)
				return (int)k;
	return pmcfi_fail(PMCF_ENOENT, "unknown XU kind '%s' (task, loop-chunk, loop-range, region, thread)",
			  name ? name : "(null)");
}

static int nomem(const char *what) { return pmcfi_fail(PMCF_ENOMEM, "out of memory (%s)", what); }

/* Grows a small array (*arr of *cap elements of size elem) to hold need. */
static int grow(void *arr, size_t *cap, size_t need, size_t elem)
{
	if (pmcfi_grow(arr, cap, need, elem))
		return nomem("profile list");
	return 0;
}

static void fill_nan(double *d, size_t n)
{
	for (size_t i = 0; i < n; i++)
		d[i] = PMCF_MISSING;
}

/* Per-XU arrays always have room for at least one element, so that a
 * column of a profile without XUs is still a valid pointer. */
static size_t col_cap(const pmcf_profile *p) { return p->xu_cap ? p->xu_cap : 1; }

int pmcf_profile_new(pmcf_profile **out)
{
	if (!out)
		return pmcfi_fail(PMCF_EINVAL, "pmcf_profile_new: NULL output");
	*out = NULL;
	pmcf_profile *p = calloc(1, sizeof(*p));
	if (!p)
		return nomem("profile");
	p->arena = malloc(64);
	if (!p->arena) {
		free(p);
		return nomem("profile");
	}
	p->arena[0] = '\0'; /* offset 0: the empty label */
	p->arena_len = 1;
	p->arena_cap = 64;
	pthread_mutex_init(&p->ltext_lock, NULL);
	*out = p;
	return 0;
}

static void free_strv(char **v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void free_ptrv(void *arr, size_t n)
{
	void **v = arr;
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void pmcf_profile_free(pmcf_profile *p)
{
	if (!p)
		return;
	free_strv(p->meta_key, p->nmeta);
	free_strv(p->meta_val, p->nmeta);
	for (size_t i = 0; i < p->ntypes; i++) {
		free(p->types[i].name);
		free(p->types[i].location);
		free(p->types[i].callee);
	}
	free(p->types);
	free_strv(p->ev_name, p->nev);
	free_ptrv(p->val, p->nev);
	free(p->xtype);
	free(p->thread);
	free(p->cpu);
	free(p->start);
	free(p->end);
	free(p->label);
	free(p->parent);
	free(p->arena);
	free(p->lpar);
	free(p->lsuf);
	free(p->lsarena);
	free(p->ltoff);
	free(p->ltext);
	pthread_mutex_destroy(&p->ltext_lock);
	free_strv(p->truth_name, p->ntruth);
	free_ptrv(p->truth, p->ntruth);
	free_ptrv(p->cov_enabled, p->has_cov ? p->nev : 0);
	free_ptrv(p->cov_running, p->has_cov ? p->nev : 0);
	free_strv(p->src_path, p->nsrc);
	free_strv(p->src_id, p->nsrc);
	free_ptrv(p->prov_src, p->has_prov ? p->nev : 0);
	free_ptrv(p->prov_xu, p->has_prov ? p->nev : 0);
	free(p->match);
	free(p->base_src);
	free(p->base_xu);
	free(p->base_lab);
	free(p->rank);
	pmcfi_index_free(&p->meta_ix);
	pmcfi_index_free(&p->type_ix);
	pmcfi_index_free(&p->ev_ix);
	pmcfi_index_free(&p->truth_ix);
	free(p);
}

/* ---- metadata ---------------------------------------------------------- */

/* A name in names[] through its index ix. */
struct name_key {
	char *const *names;
	const char *key;
};

static int same_name(const void *ctx, size_t pos)
{
	const struct name_key *k = ctx;
	return strcmp(k->names[pos], k->key) == 0;
}

static long name_find(const struct pmcfi_index *ix, char *const *names, const char *name)
{
	struct name_key k = {names, name};
	return pmcfi_index_find(ix, pmcfi_hash(PMCFI_HASH0, name), same_name, &k);
}

static long meta_find(const pmcf_profile *p, const char *key)
{
	return name_find(&p->meta_ix, p->meta_key, key);
}

/* After a key is removed (positions shift): the index built again. */
static void meta_reindex(pmcf_profile *p)
{
	p->meta_ix.n = 0;
	for (size_t i = 0; i < p->meta_ix.cap; i++)
		p->meta_ix.slot[i].pos = 0;
	for (size_t i = 0; i < p->nmeta; i++)
		pmcfi_index_add(&p->meta_ix, pmcfi_hash(PMCFI_HASH0, p->meta_key[i]), i); /* room kept */
}

int pmcf_profile_meta_set(pmcf_profile *p, const char *key, const char *value)
{
	if (!p || !key || !*key)
		return pmcfi_fail(PMCF_EINVAL, "metadata key must be a non-empty string");
	long at = meta_find(p, key);
	if (!value) {
		if (at < 0)
			return 0;
		free(p->meta_key[at]);
		free(p->meta_val[at]);
		size_t rest = p->nmeta - (size_t)at - 1;
		memmove(p->meta_key + at, p->meta_key + at + 1, rest * sizeof(char *));
		memmove(p->meta_val + at, p->meta_val + at + 1, rest * sizeof(char *));
		p->nmeta--;
		meta_reindex(p);
		return 0;
	}
	char *v = strdup(value);
	if (!v)
		return nomem("metadata");
	if (at >= 0) {
		free(p->meta_val[at]);
		p->meta_val[at] = v;
		return 0;
	}
	size_t cap = p->meta_cap;
	char *k = strdup(key);
	if (!k || pmcfi_index_reserve(&p->meta_ix, p->nmeta + 1) ||
	    grow(&p->meta_key, &cap, p->nmeta + 1, sizeof(char *))) {
		free(k);
		free(v);
		return nomem("metadata");
	}
	cap = p->meta_cap;
	if (grow(&p->meta_val, &cap, p->nmeta + 1, sizeof(char *))) {
		free(k);
		free(v);
		return nomem("metadata");
	}
	p->meta_cap = cap;
	p->meta_key[p->nmeta] = k;
	p->meta_val[p->nmeta] = v;
	pmcfi_index_add(&p->meta_ix, pmcfi_hash(PMCFI_HASH0, k), p->nmeta); /* reserved */
	p->nmeta++;
	return 0;
}

const char *pmcf_profile_meta_get(const pmcf_profile *p, const char *key)
{
	if (!p || !key)
		return NULL;
	long at = meta_find(p, key);
	return at < 0 ? NULL : p->meta_val[at];
}

size_t pmcf_profile_meta_count(const pmcf_profile *p) { return p ? p->nmeta : 0; }

int pmcf_profile_meta_at(const pmcf_profile *p, size_t i, const char **key, const char **value)
{
	if (!p || i >= p->nmeta)
		return pmcfi_fail(PMCF_ENOENT, "metadata index %zu out of range (%zu keys)", i,
				  p ? p->nmeta : 0);
	if (key)
		*key = p->meta_key[i];
	if (value)
		*value = p->meta_val[i];
	return 0;
}

int pmcf_profile_complete(const pmcf_profile *p)
{
	const char *v = pmcf_profile_meta_get(p, PMCF_META_COMPLETE);
	return v && strcmp(v, "1") == 0;
}

const char *pmcf_profile_cpu_in_xus(const pmcf_profile *p, double *in_xus, double *run)
{
	static const char *const clocks[] = {"task-clock", "cpu-clock"};
	const char *v = pmcf_profile_meta_get(p, PMCF_META_CPU_TIME_NS);
	const char *src = pmcf_profile_meta_get(p, PMCF_META_SOURCE);
	char *end = NULL;
	double t = v ? strtod(v, &end) : 0;
	if (!v || end == v || *end || !(t > 0) || !src || strcmp(src, "perf"))
		return NULL;
	for (size_t k = 0; k < PMCF_ARRAY_SIZE(clocks); k++) {
		long e = pmcf_profile_event_find(p, clocks[k]);
		if (e < 0)
			continue;
		const double *col = pmcf_profile_column_const(p, (size_t)e);
		double sum = 0;
		for (size_t i = 0; col && i < pmcf_profile_nxus(p); i++)
			if (!pmcf_is_missing(col[i]))
				sum += col[i];
		*in_xus = sum;
		*run = t;
		return clocks[k];
	}
	return NULL;
}

/* ---- XU types ---------------------------------------------------------- */

/* A type is its kind, name and location together. */
struct type_key {
	const struct pmcf_type_rec *types;
	int kind;
	const char *name, *location;
};

static int same_type(const void *ctx, size_t pos)
{
	const struct type_key *k = ctx;
	const struct pmcf_type_rec *t = &k->types[pos];
	return t->kind == k->kind && strcmp(t->name, k->name) == 0 && strcmp(t->location, k->location) == 0;
}

static uint64_t type_hash(int kind, const char *name, const char *location)
{
	uint64_t h = pmcfi_hash_byte(PMCFI_HASH0, (unsigned char)kind);
	return pmcfi_hash(pmcfi_hash_byte(pmcfi_hash(h, name), 0), location);
}

int pmcf_profile_type_add(pmcf_profile *p, int kind, const char *name, const char *location, uint32_t *id)
{
	if (!p || !name)
		return pmcfi_fail(PMCF_EINVAL, "XU type needs a name");
	if (kind < PMCF_XU_TASK || kind > PMCF_XU_THREAD)
		return pmcfi_fail(PMCF_EINVAL, "XU type '%s': invalid kind %d", name, kind);
	if (!location)
		location = "";
	struct type_key k = {p->types, kind, name, location};
	uint64_t h = type_hash(kind, name, location);
	long at = pmcfi_index_find(&p->type_ix, h, same_type, &k);
	if (at >= 0) {
		if (id)
			*id = (uint32_t)at;
		return 0;
	}
	if (p->ntypes >= PMCF_PROFILE_MAX_TYPES)
		return pmcfi_fail(PMCF_EINVAL, "too many XU types (a profile holds at most %u)",
				  PMCF_PROFILE_MAX_TYPES);
	if (pmcfi_index_reserve(&p->type_ix, p->ntypes + 1))
		return nomem("XU type");
	if (grow(&p->types, &p->types_cap, p->ntypes + 1, sizeof(*p->types)))
		return PMCF_ENOMEM;
	char *n = strdup(name), *l = strdup(location);
	if (!n || !l) {
		free(n);
		free(l);
		return nomem("XU type");
	}
	p->types[p->ntypes] = (struct pmcf_type_rec){kind, n, l, NULL};
	pmcfi_index_add(&p->type_ix, h, p->ntypes); /* reserved */
	if (id)
		*id = (uint32_t)p->ntypes;
	p->ntypes++;
	return 0;
}

size_t pmcf_profile_ntypes(const pmcf_profile *p) { return p ? p->ntypes : 0; }

int pmcf_profile_type_get(const pmcf_profile *p, uint32_t id, pmcf_xu_type *out)
{
	if (!p || !out)
		return pmcfi_fail(PMCF_EINVAL, "pmcf_profile_type_get: NULL argument");
	if (id >= p->ntypes)
		return pmcfi_fail(PMCF_ENOENT, "XU type %u out of range (%zu types)", id, p->ntypes);
	int err = PMCFI_STRUCT_FILL("pmcf_xu_type", out, sizeof(*out), sizeof(*out));
	if (err)
		return err;
	out->kind = p->types[id].kind;
	out->name = p->types[id].name;
	out->location = p->types[id].location;
	return 0;
}

int pmcf_profile_type_callee_set(pmcf_profile *p, uint32_t id, const char *callee)
{
	if (!p)
		return pmcfi_fail(PMCF_EINVAL, "pmcf_profile_type_callee_set: NULL profile");
	if (id >= p->ntypes)
		return pmcfi_fail(PMCF_ENOENT, "XU type %u out of range (%zu types)", id, p->ntypes);
	char *c = callee && *callee ? strdup(callee) : NULL;
	if (callee && *callee && !c)
		return nomem("XU type callee");
	free(p->types[id].callee);
	p->types[id].callee = c;
	return 0;
}

const char *pmcf_profile_type_callee(const pmcf_profile *p, uint32_t id)
{
	return p && id < p->ntypes && p->types[id].callee ? p->types[id].callee : "";
}

/* ---- events ------------------------------------------------------------- */

/* The optional per-event layers of a new event ev (the event arrays have
 * room for it). */
static int event_layers_add(pmcf_profile *p, size_t ev)
{
	size_t cap = col_cap(p);
	if (p->has_cov) {
		p->cov_enabled[ev] = calloc(cap, sizeof(uint64_t));
		p->cov_running[ev] = calloc(cap, sizeof(uint64_t));
		if (!p->cov_enabled[ev] || !p->cov_running[ev])
			goto fail;
	}
	if (p->has_prov) {
		p->prov_src[ev] = malloc(cap * sizeof(int32_t));
		p->prov_xu[ev] = malloc(cap * sizeof(int64_t));
		if (!p->prov_src[ev] || !p->prov_xu[ev])
			goto fail;
		memset(p->prov_src[ev], 0xff, cap * sizeof(int32_t)); /* -1 */
		memset(p->prov_xu[ev], 0xff, cap * sizeof(int64_t));
	}
	return 0;
fail:
	if (p->has_cov) {
		free(p->cov_enabled[ev]);
		free(p->cov_running[ev]);
	}
	if (p->has_prov) {
		free(p->prov_src[ev]);
		free(p->prov_xu[ev]);
	}
	return nomem("event column");
}

int pmcf_profile_event_add(pmcf_profile *p, const char *name, size_t *index)
{
	if (!p || !name || !*name)
		return pmcfi_fail(PMCF_EINVAL, "event name must be a non-empty string");
	if (name_find(&p->ev_ix, p->ev_name, name) >= 0)
		return pmcfi_fail(PMCF_ECONFLICT, "event '%s' is already in the profile", name);
	if (p->nev >= PMCF_PROFILE_MAX_EVENTS)
		return pmcfi_fail(PMCF_EINVAL, "too many events (a profile holds at most %u)",
				  PMCF_PROFILE_MAX_EVENTS);
	if (pmcfi_index_reserve(&p->ev_ix, p->nev + 1))
		return nomem("event");
	size_t need = p->nev + 1, cap;
	cap = p->ev_cap;
	if (grow(&p->ev_name, &cap, need, sizeof(char *)))
		return PMCF_ENOMEM;
	cap = p->ev_cap;
	if (grow(&p->val, &cap, need, sizeof(double *)))
		return PMCF_ENOMEM;
	if (p->has_cov) {
		cap = p->ev_cap;
		if (grow(&p->cov_enabled, &cap, need, sizeof(void *)))
			return PMCF_ENOMEM;
		cap = p->ev_cap;
		if (grow(&p->cov_running, &cap, need, sizeof(void *)))
			return PMCF_ENOMEM;
	}
	if (p->has_prov) {
		cap = p->ev_cap;
		if (grow(&p->prov_src, &cap, need, sizeof(void *)))
			return PMCF_ENOMEM;
		cap = p->ev_cap;
		if (grow(&p->prov_xu, &cap, need, sizeof(void *)))
			return PMCF_ENOMEM;
	}
	p->ev_cap = cap > p->ev_cap ? cap : p->ev_cap;
	char *n = strdup(name);
	double *col = malloc(col_cap(p) * sizeof(double));
	if (!n || !col) {
		free(n);
		free(col);
		return nomem("event column");
	}
	int err = event_layers_add(p, p->nev);
	if (err) {
		free(n);
		free(col);
		return err;
	}
	fill_nan(col, p->nxu);
	p->ev_name[p->nev] = n;
	p->val[p->nev] = col;
	pmcfi_index_add(&p->ev_ix, pmcfi_hash(PMCFI_HASH0, n), p->nev); /* reserved */
	if (index)
		*index = p->nev;
	p->nev++;
	return 0;
}

size_t pmcf_profile_nevents(const pmcf_profile *p) { return p ? p->nev : 0; }

const char *pmcf_profile_event_name(const pmcf_profile *p, size_t ev)
{
	return p && ev < p->nev ? p->ev_name[ev] : NULL;
}

long pmcf_profile_event_find(const pmcf_profile *p, const char *name)
{
	long i = p && name ? name_find(&p->ev_ix, p->ev_name, name) : -1;
	return i >= 0 ? i : PMCF_ENOENT;
}

/* ---- XUs ---------------------------------------------------------------- */

static int resize(void *arr, size_t n, size_t elem)
{
	void **a = arr;
	void *q = realloc(*a, n * elem);
	if (!q)
		return nomem("XU arrays");
	*a = q;
	return 0;
}

/* Gives every per-XU array room for cap XUs (cap > 0). On failure some
 * arrays may already be larger, which keeps the invariant (>= xu_cap). */
static int xu_realloc(pmcf_profile *p, size_t cap)
{
	if (resize(&p->xtype, cap, sizeof(uint32_t)) || resize(&p->thread, cap, sizeof(int32_t)) ||
	    resize(&p->cpu, cap, sizeof(int32_t)) || resize(&p->start, cap, sizeof(uint64_t)) ||
	    resize(&p->end, cap, sizeof(uint64_t)) || resize(&p->label, cap, sizeof(size_t)) ||
	    resize(&p->parent, cap, sizeof(size_t)))
		return PMCF_ENOMEM;
	for (size_t e = 0; e < p->nev; e++) {
		if (resize(&p->val[e], cap, sizeof(double)))
			return PMCF_ENOMEM;
		if (p->has_cov && (resize(&p->cov_enabled[e], cap, sizeof(uint64_t)) ||
				   resize(&p->cov_running[e], cap, sizeof(uint64_t))))
			return PMCF_ENOMEM;
		if (p->has_prov && (resize(&p->prov_src[e], cap, sizeof(int32_t)) ||
				    resize(&p->prov_xu[e], cap, sizeof(int64_t))))
			return PMCF_ENOMEM;
	}
	for (size_t t = 0; t < p->ntruth; t++)
		if (resize(&p->truth[t], cap, sizeof(double)))
			return PMCF_ENOMEM;
	if (p->match && resize(&p->match, cap, sizeof(double)))
		return PMCF_ENOMEM;
	if (p->rank && resize(&p->rank, cap, sizeof(int32_t)))
		return PMCF_ENOMEM;
	if (p->base_src &&
	    (resize(&p->base_src, cap, sizeof(int32_t)) || resize(&p->base_xu, cap, sizeof(int64_t)) ||
	     resize(&p->base_lab, cap, sizeof(size_t))))
		return PMCF_ENOMEM;
	p->xu_cap = cap;
	return 0;
}

static int arena_reserve(pmcf_profile *p, size_t more)
{
	if (pmcfi_grow((void **)&p->arena, &p->arena_cap, p->arena_len + more, 1))
		return nomem("label arena");
	return 0;
}

size_t pmcf_profile_nxus(const pmcf_profile *p) { return p ? p->nxu : 0; }

/* Also reserves an estimated 24 bytes of labels per XU: label lengths are
 * not known in advance, so longer labels may still grow the arena. */
int pmcf_profile_reserve(pmcf_profile *p, size_t n)
{
	if (!p)
		return pmcfi_fail(PMCF_EINVAL, "pmcf_profile_reserve: NULL profile");
	if (n <= p->xu_cap)
		return 0;
	if (n > SIZE_MAX / 64)
		return nomem("XU arrays");
	int err = xu_realloc(p, n);
	if (err)
		return err;
	return arena_reserve(p, (n - p->nxu) * 24);
}

static size_t label_put(pmcf_profile *p, const char *s, size_t len)
{
	if (!len)
		return 0;
	size_t off = p->arena_len;
	memcpy(p->arena + off, s, len + 1);
	p->arena_len += len + 1;
	return off;
}

/* pmcf_profile_xu_add, and with layers 0 only the fixed fields, label and
 * parent (pmcfi_profile_xu_add_bare). */
static int xu_add(pmcf_profile *p, const pmcf_xu *xu, size_t *index, int layers)
{
	if (!p || !xu)
		return pmcfi_fail(PMCF_EINVAL, "pmcf_profile_xu_add: NULL argument");
	if (xu->type >= p->ntypes)
		return pmcfi_fail(PMCF_EINVAL, "XU type %u out of range (%zu types)", xu->type, p->ntypes);
	if (xu->end_ns < xu->start_ns)
		return pmcfi_fail(PMCF_EINVAL, "XU ends (%llu ns) before it starts (%llu ns)",
				  (unsigned long long)xu->end_ns, (unsigned long long)xu->start_ns);
	const char *lab = xu->label ? xu->label : "";
	const char *par = xu->parent_label ? xu->parent_label : "";
	size_t ll = strlen(lab), pl = strlen(par);
	if (p->nxu >= PMCF_PROFILE_MAX_XUS)
		return pmcfi_fail(PMCF_EINVAL, "too many XUs (a profile holds at most %llu)",
				  PMCF_PROFILE_MAX_XUS);
	if (p->nxu == p->xu_cap) {
		int err = xu_realloc(p, pmcfi_grow_cap(p->xu_cap, p->nxu + 1));
		if (err)
			return err;
	}
	if (arena_reserve(p, ll + pl + 2))
		return PMCF_ENOMEM;
	size_t i = p->nxu;
	p->xtype[i] = xu->type;
	p->thread[i] = xu->thread;
	p->cpu[i] = xu->cpu;
	p->start[i] = xu->start_ns;
	p->end[i] = xu->end_ns;
	p->label[i] = label_put(p, lab, ll);
	p->parent[i] = label_put(p, par, pl);
	for (size_t e = 0; layers && e < p->nev; e++) {
		p->val[e][i] = PMCF_MISSING;
		if (p->has_cov)
			p->cov_enabled[e][i] = p->cov_running[e][i] = 0;
		if (p->has_prov) {
			p->prov_src[e][i] = -1;
			p->prov_xu[e][i] = -1;
		}
	}
	for (size_t t = 0; layers && t < p->ntruth; t++)
		p->truth[t][i] = PMCF_MISSING;
	if (layers && p->match)
		p->match[i] = PMCF_MISSING;
	if (layers && p->rank)
		p->rank[i] = 0;
	if (layers && p->base_src) {
		p->base_src[i] = -1;
		p->base_xu[i] = -1;
		p->base_lab[i] = 0;
	}
	p->nxu++;
	if (index)
		*index = i;
	return 0;
}

int pmcf_profile_xu_add(pmcf_profile *p, const pmcf_xu *xu, size_t *index)
{
	if (xu) {
		int err = xu->size == sizeof(*xu)
				  ? 0
				  : pmcfi_check_struct("pmcf_xu", xu, xu->size, sizeof(*xu), sizeof(*xu));
		if (err)
			return err;
	}
	return xu_add(p, xu, index, 1);
}

/* ---- the label tree ----------------------------------------------------------- */

int pmcfi_profile_label_node(pmcf_profile *p, uint32_t parent, const char *suffix, size_t len, uint32_t *id)
{
	if (!p->nlab) { /* node 0: "" */
		if (pmcfi_grow((void **)&p->lpar, &p->lab_cap, 64, sizeof(*p->lpar)))
			return nomem("label tree");
		size_t cap = p->lab_cap;
		void *q = realloc(p->lsuf, cap * sizeof(*p->lsuf));
		if (!q)
			return nomem("label tree");
		p->lsuf = q;
		if (pmcfi_grow((void **)&p->lsarena, &p->lsarena_cap, 4096, 1))
			return nomem("label tree");
		p->lpar[0] = 0;
		p->lsuf[0] = 0;
		p->lsarena[0] = '\0';
		p->lsarena_len = 1;
		p->nlab = 1;
	}
	if (parent >= p->nlab)
		return pmcfi_fail(PMCF_EINVAL, "label node %u under node %u, of %zu", (unsigned)p->nlab,
				  parent, p->nlab);
	if (p->nlab >= UINT32_MAX)
		return pmcfi_fail(PMCF_EINVAL, "too many label nodes (at most %u)", UINT32_MAX - 1);
	if (p->nlab == p->lab_cap) {
		size_t cap = p->lab_cap;
		if (pmcfi_grow((void **)&p->lpar, &cap, p->nlab + 1, sizeof(*p->lpar)))
			return nomem("label tree");
		void *q = realloc(p->lsuf, cap * sizeof(*p->lsuf));
		if (!q)
			return nomem("label tree");
		p->lsuf = q;
		p->lab_cap = cap;
	}
	if (pmcfi_grow((void **)&p->lsarena, &p->lsarena_cap, p->lsarena_len + len + 1, 1))
		return nomem("label tree");
	memcpy(p->lsarena + p->lsarena_len, suffix, len);
	p->lsarena[p->lsarena_len + len] = '\0';
	p->lpar[p->nlab] = parent;
	p->lsuf[p->nlab] = p->lsarena_len;
	p->lsarena_len += len + 1;
	*id = (uint32_t)p->nlab++;
	return 0;
}

int pmcfi_profile_xu_add_nodes(pmcf_profile *p, const pmcf_xu *xu, uint32_t label, uint32_t parent,
			       size_t *index)
{
	if (!p || label >= (p->nlab ? p->nlab : 1) || parent >= (p->nlab ? p->nlab : 1))
		return pmcfi_fail(PMCF_EINVAL, "label node out of range");
	pmcf_xu x = *xu;
	x.label = x.parent_label = "";
	size_t i;
	int err = xu_add(p, &x, &i, 1);
	if (err)
		return err;
	p->label[i] = label ? PMCFI_LAB_NODE | label : 0;
	p->parent[i] = parent ? PMCFI_LAB_NODE | parent : 0;
	if (index)
		*index = i;
	return 0;
}

const char *pmcfi_profile_label_text(const pmcf_profile *p, size_t lab, char **buf, size_t *cap)
{
	if (!(lab & PMCFI_LAB_NODE))
		return p->arena + lab;
	size_t k = lab & ~PMCFI_LAB_NODE, len = 0;
	for (size_t q = k; q; q = p->lpar[q])
		len += strlen(p->lsarena + p->lsuf[q]) + 1;
	if (pmcfi_grow((void **)buf, cap, len + 1, 1))
		return NULL;
	/* from the end: each node's text, with a dot before it under a parent */
	size_t end = len ? len - 1 : 0;
	(*buf)[end] = '\0';
	for (size_t q = k; q; q = p->lpar[q]) {
		const char *s = p->lsarena + p->lsuf[q];
		size_t l = strlen(s);
		end -= l;
		memcpy(*buf + end, s, l);
		if (p->lpar[q])
			(*buf)[--end] = '.';
	}
	return *buf;
}

size_t pmcfi_profile_label_bytes(const pmcf_profile *p)
{
	return p->arena_cap + p->lab_cap * (sizeof(*p->lpar) + sizeof(*p->lsuf)) + p->lsarena_cap +
	       (p->ltoff ? p->ltext_nodes * sizeof(*p->ltoff) : 0) +
	       (p->ltext && p->ltext_nodes
			? p->ltoff[p->ltext_nodes - 1] + strlen(p->ltext + p->ltoff[p->ltext_nodes - 1]) + 1
			: 0);
}

/* Makes the full text of every node (parents come first: lpar[k] < k). */
static int ltext_build(pmcf_profile *p)
{
	size_t n = p->nlab, total = 0;
	size_t *off = malloc(n * sizeof(*off));
	if (!off)
		return nomem("label texts");
	for (size_t k = 0; k < n; k++) { /* off[k]: the text's length, for now */
		size_t l = strlen(p->lsarena + p->lsuf[k]);
		off[k] = k == 0 ? 0 : p->lpar[k] ? off[p->lpar[k]] + 1 + l : l;
	}
	for (size_t k = 0; k < n; k++)
		total += off[k] + 1;
	char *t = malloc(total ? total : 1);
	if (!t) {
		free(off);
		return nomem("label texts");
	}
	size_t o = 0;
	for (size_t k = 0; k < n; k++) {
		size_t l = off[k];
		char *d = t + o;
		if (k && p->lpar[k]) {
			size_t pl = strlen(t + off[p->lpar[k]]); /* parent's offset: set already */
			memcpy(d, t + off[p->lpar[k]], pl);
			d[pl] = '.';
			memcpy(d + pl + 1, p->lsarena + p->lsuf[k], l - pl - 1);
		} else if (k) {
			memcpy(d, p->lsarena + p->lsuf[k], l);
		}
		d[l] = '\0';
		off[k] = o;
		o += l + 1;
	}
	free(p->ltoff);
	free(p->ltext);
	p->ltoff = off;
	p->ltext = t;
	p->ltext_nodes = n;
	return 0;
}

/* The text of label value lab for pmcf_profile_xu_get: a node's from the
 * full texts, made once (they stay valid until the profile changes). */
static const char *label_of(const pmcf_profile *cp, size_t lab)
{
	if (!(lab & PMCFI_LAB_NODE))
		return cp->arena + lab;
	pmcf_profile *p = (pmcf_profile *)cp; /* the cache of texts only */
	size_t k = lab & ~PMCFI_LAB_NODE;
	pthread_mutex_lock(&p->ltext_lock);
	int err = k < p->ltext_nodes ? 0 : ltext_build(p);
	pthread_mutex_unlock(&p->ltext_lock);
	return err ? NULL : p->ltext + p->ltoff[k];
}

int pmcfi_profile_xu_add_bare(pmcf_profile *p, const pmcf_xu *xu, size_t *index)
{
	if (p && (p->has_cov || p->ntruth || p->match || p->rank || p->base_src))
		return pmcfi_fail(PMCF_EINVAL, "pmcfi_profile_xu_add_bare: the profile has per-XU layers");
	return xu_add(p, xu, index, 0);
}

int pmcf_profile_xu_get(const pmcf_profile *p, size_t i, pmcf_xu *out)
{
	int err = pmcf_profile_xu_fields_get(p, i, out);
	if (err)
		return err;
	out->label = label_of(p, p->label[i]);
	out->parent_label = label_of(p, p->parent[i]);
	if (!out->label || !out->parent_label)
		return PMCF_ENOMEM;
	return 0;
}

int pmcf_profile_xu_fields_get(const pmcf_profile *p, size_t i, pmcf_xu *out)
{
	if (!p || !out)
		return pmcfi_fail(PMCF_EINVAL, "pmcf_profile_xu_fields_get: NULL argument");
	if (i >= p->nxu)
		return pmcfi_fail(PMCF_ENOENT, "XU %zu out of range (%zu XU%s)", i, p->nxu,
				  p->nxu == 1 ? "" : "s");
	int err = PMCFI_STRUCT_FILL("pmcf_xu", out, sizeof(*out), sizeof(*out));
	if (err)
		return err;
	out->type = p->xtype[i];
	out->thread = p->thread[i];
	out->cpu = p->cpu[i];
	out->start_ns = p->start[i];
	out->end_ns = p->end[i];
	out->label = out->parent_label = NULL;
	return 0;
}

size_t pmcfi_profile_label_nodes(const pmcf_profile *p) { return p->nlab; }

uint32_t pmcfi_profile_label_node_parent(const pmcf_profile *p, uint32_t k) { return p->lpar[k]; }

const char *pmcfi_profile_label_node_suffix(const pmcf_profile *p, uint32_t k)
{
	return p->lsarena + p->lsuf[k];
}

uint32_t pmcfi_profile_xu_label_node(const pmcf_profile *p, size_t i, int parent)
{
	size_t lab = parent ? p->parent[i] : p->label[i];
	return lab & PMCFI_LAB_NODE ? (uint32_t)(lab & ~PMCFI_LAB_NODE) : lab ? UINT32_MAX : 0;
}

int pmcfi_profile_xu_set_label_nodes(pmcf_profile *p, size_t i, uint32_t label, uint32_t parent)
{
	if (!p || i >= p->nxu || label >= (p->nlab ? p->nlab : 1) || parent >= (p->nlab ? p->nlab : 1))
		return pmcfi_fail(PMCF_EINVAL, "XU %zu or label node out of range", i);
	p->label[i] = label ? PMCFI_LAB_NODE | label : 0;
	p->parent[i] = parent ? PMCFI_LAB_NODE | parent : 0;
	return 0;
}

const char *pmcf_profile_xu_label(const pmcf_profile *p, size_t i, int parent, char **buf, size_t *cap)
{
	if (!p || !buf || !cap || i >= p->nxu)
		return NULL;
	return pmcfi_profile_label_text(p, parent ? p->parent[i] : p->label[i], buf, cap);
}

int pmcfi_profile_alloc_xus(pmcf_profile *p, size_t n, size_t arena_bytes)
{
	if (p->nxu)
		return pmcfi_fail(PMCF_EINVAL, "profile already has XUs");
	if (n > SIZE_MAX / 64 || arena_bytes > SIZE_MAX - 1)
		return nomem("XU arrays");
	int err = xu_realloc(p, n ? n : 1);
	if (err)
		return err;
	char *a = realloc(p->arena, arena_bytes + 1);
	if (!a)
		return nomem("label arena");
	p->arena = a;
	p->arena_cap = arena_bytes + 1;
	p->arena_len = 1;
	p->nxu = n;
	return 0;
}

/* ---- values ------------------------------------------------------------- */

double pmcf_profile_value(const pmcf_profile *p, size_t i, size_t ev)
{
	if (!p || i >= p->nxu || ev >= p->nev)
		return PMCF_MISSING;
	return p->val[ev][i];
}

/* PMCF_EINVAL for a NULL profile, PMCF_ENOENT for an XU out of range, else 0. */
static int xu_check(const pmcf_profile *p, size_t i)
{
	if (!p)
		return pmcfi_fail(PMCF_EINVAL, "NULL profile");
	if (i >= p->nxu)
		return pmcfi_fail(PMCF_ENOENT, "XU %zu out of range (%zu XU%s)", i, p->nxu,
				  p->nxu == 1 ? "" : "s");
	return 0;
}

static int check_iev(const pmcf_profile *p, size_t i, size_t ev)
{
	int err = xu_check(p, i);
	if (err)
		return err;
	if (ev >= p->nev)
		return pmcfi_fail(PMCF_ENOENT, "event %zu out of range (%zu events)", ev, p->nev);
	return 0;
}

int pmcf_profile_value_set(pmcf_profile *p, size_t i, size_t ev, double v)
{
	int err = check_iev(p, i, ev);
	if (err)
		return err;
	p->val[ev][i] = v;
	return 0;
}

double *pmcf_profile_column(pmcf_profile *p, size_t ev) { return p && ev < p->nev ? p->val[ev] : NULL; }

const double *pmcf_profile_column_const(const pmcf_profile *p, size_t ev)
{
	return p && ev < p->nev ? p->val[ev] : NULL;
}

/* ---- ground truth -------------------------------------------------------- */

int pmcf_profile_truth_event_add(pmcf_profile *p, const char *name, size_t *index)
{
	if (!p || !name || !*name)
		return pmcfi_fail(PMCF_EINVAL, "truth event name must be a non-empty string");
	if (name_find(&p->truth_ix, p->truth_name, name) >= 0)
		return pmcfi_fail(PMCF_ECONFLICT, "truth event '%s' is already in the profile", name);
	if (p->ntruth >= PMCF_PROFILE_MAX_EVENTS)
		return pmcfi_fail(PMCF_EINVAL, "too many truth events (a profile holds at most %u)",
				  PMCF_PROFILE_MAX_EVENTS);
	if (pmcfi_index_reserve(&p->truth_ix, p->ntruth + 1))
		return nomem("truth event");
	size_t cap = p->truth_cap;
	if (grow(&p->truth_name, &cap, p->ntruth + 1, sizeof(char *)))
		return PMCF_ENOMEM;
	cap = p->truth_cap;
	if (grow(&p->truth, &cap, p->ntruth + 1, sizeof(double *)))
		return PMCF_ENOMEM;
	p->truth_cap = cap;
	char *n = strdup(name);
	double *col = malloc(col_cap(p) * sizeof(double));
	if (!n || !col) {
		free(n);
		free(col);
		return nomem("truth column");
	}
	fill_nan(col, p->nxu);
	p->truth_name[p->ntruth] = n;
	p->truth[p->ntruth] = col;
	pmcfi_index_add(&p->truth_ix, pmcfi_hash(PMCFI_HASH0, n), p->ntruth); /* reserved */
	if (index)
		*index = p->ntruth;
	p->ntruth++;
	return 0;
}

size_t pmcf_profile_ntruth(const pmcf_profile *p) { return p ? p->ntruth : 0; }

const char *pmcf_profile_truth_name(const pmcf_profile *p, size_t tev)
{
	return p && tev < p->ntruth ? p->truth_name[tev] : NULL;
}

long pmcf_profile_truth_find(const pmcf_profile *p, const char *name)
{
	long i = p && name ? name_find(&p->truth_ix, p->truth_name, name) : -1;
	return i >= 0 ? i : PMCF_ENOENT;
}

double *pmcf_profile_truth_column(pmcf_profile *p, size_t tev)
{
	return p && tev < p->ntruth ? p->truth[tev] : NULL;
}

const double *pmcf_profile_truth_column_const(const pmcf_profile *p, size_t tev)
{
	return p && tev < p->ntruth ? p->truth[tev] : NULL;
}

/* ---- coverage ------------------------------------------------------------ */

int pmcf_profile_coverage_enable(pmcf_profile *p)
{
	if (!p)
		return pmcfi_fail(PMCF_EINVAL, "NULL profile");
	if (p->has_cov)
		return 0;
	size_t n = p->ev_cap ? p->ev_cap : 1, cap = col_cap(p);
	p->cov_enabled = calloc(n, sizeof(uint64_t *));
	p->cov_running = calloc(n, sizeof(uint64_t *));
	if (!p->cov_enabled || !p->cov_running)
		goto fail;
	for (size_t e = 0; e < p->nev; e++) {
		p->cov_enabled[e] = calloc(cap, sizeof(uint64_t));
		p->cov_running[e] = calloc(cap, sizeof(uint64_t));
		if (!p->cov_enabled[e] || !p->cov_running[e])
			goto fail;
	}
	p->has_cov = 1;
	return 0;
fail:
	free_ptrv(p->cov_enabled, p->cov_enabled ? p->nev : 0);
	free_ptrv(p->cov_running, p->cov_running ? p->nev : 0);
	p->cov_enabled = p->cov_running = NULL;
	return nomem("coverage layer");
}

int pmcf_profile_has_coverage(const pmcf_profile *p) { return p && p->has_cov; }

int pmcf_profile_coverage_set(pmcf_profile *p, size_t i, size_t ev, uint64_t enabled_ns, uint64_t running_ns)
{
	int err = check_iev(p, i, ev);
	if (err)
		return err;
	if (!p->has_cov)
		return pmcfi_fail(PMCF_ENOENT, "profile has no coverage layer");
	p->cov_enabled[ev][i] = enabled_ns;
	p->cov_running[ev][i] = running_ns;
	return 0;
}

int pmcf_profile_coverage_get(const pmcf_profile *p, size_t i, size_t ev, uint64_t *enabled_ns,
			      uint64_t *running_ns)
{
	int err = check_iev(p, i, ev);
	if (err)
		return err;
	if (!p->has_cov)
		return pmcfi_fail(PMCF_ENOENT, "profile has no coverage layer");
	if (enabled_ns)
		*enabled_ns = p->cov_enabled[ev][i];
	if (running_ns)
		*running_ns = p->cov_running[ev][i];
	return 0;
}

/* ---- provenance ------------------------------------------------------------ */

int pmcf_profile_source_add(pmcf_profile *p, const char *path, const char *id, uint32_t *index)
{
	if (!p || !path)
		return pmcfi_fail(PMCF_EINVAL, "source profile needs a path");
	if (p->nsrc >= INT32_MAX)
		return pmcfi_fail(PMCF_EINVAL, "too many source profiles");
	size_t cap = p->src_cap;
	if (grow(&p->src_path, &cap, p->nsrc + 1, sizeof(char *)))
		return PMCF_ENOMEM;
	cap = p->src_cap;
	if (grow(&p->src_id, &cap, p->nsrc + 1, sizeof(char *)))
		return PMCF_ENOMEM;
	p->src_cap = cap;
	char *a = strdup(path), *b = strdup(id ? id : "");
	if (!a || !b) {
		free(a);
		free(b);
		return nomem("source profile");
	}
	p->src_path[p->nsrc] = a;
	p->src_id[p->nsrc] = b;
	if (index)
		*index = (uint32_t)p->nsrc;
	p->nsrc++;
	return 0;
}

size_t pmcf_profile_nsources(const pmcf_profile *p) { return p ? p->nsrc : 0; }

int pmcf_profile_source_get(const pmcf_profile *p, uint32_t index, const char **path, const char **id)
{
	if (!p || index >= p->nsrc)
		return pmcfi_fail(PMCF_ENOENT, "source profile %u out of range (%zu sources)", index,
				  p ? p->nsrc : 0);
	if (path)
		*path = p->src_path[index];
	if (id)
		*id = p->src_id[index];
	return 0;
}

/* pmcf_profile_provenance_enable; with blank 0 the columns are left
 * unwritten (pmcfi_profile_provenance_enable_bare). */
static int provenance_enable(pmcf_profile *p, int blank)
{
	if (!p)
		return pmcfi_fail(PMCF_EINVAL, "NULL profile");
	if (p->has_prov)
		return 0;
	size_t n = p->ev_cap ? p->ev_cap : 1, cap = col_cap(p);
	p->prov_src = calloc(n, sizeof(int32_t *));
	p->prov_xu = calloc(n, sizeof(int64_t *));
	if (!p->prov_src || !p->prov_xu)
		goto fail;
	for (size_t e = 0; e < p->nev; e++) {
		p->prov_src[e] = malloc(cap * sizeof(int32_t));
		p->prov_xu[e] = malloc(cap * sizeof(int64_t));
		if (!p->prov_src[e] || !p->prov_xu[e])
			goto fail;
		if (blank) {
			memset(p->prov_src[e], 0xff, cap * sizeof(int32_t)); /* -1 */
			memset(p->prov_xu[e], 0xff, cap * sizeof(int64_t));
		}
	}
	p->has_prov = 1;
	return 0;
fail:
	free_ptrv(p->prov_src, p->prov_src ? p->nev : 0);
	free_ptrv(p->prov_xu, p->prov_xu ? p->nev : 0);
	p->prov_src = NULL;
	p->prov_xu = NULL;
	return nomem("provenance layer");
}

int pmcf_profile_provenance_enable(pmcf_profile *p) { return provenance_enable(p, 1); }

int pmcfi_profile_provenance_enable_bare(pmcf_profile *p) { return provenance_enable(p, 0); }

void pmcfi_profile_provenance_columns(pmcf_profile *p, size_t ev, int32_t **src, int64_t **xu)
{
	*src = p->prov_src[ev];
	*xu = p->prov_xu[ev];
}

int pmcf_profile_has_provenance(const pmcf_profile *p) { return p && p->has_prov; }

int pmcf_profile_provenance_set(pmcf_profile *p, size_t i, size_t ev, int32_t source, int64_t source_xu)
{
	int err = check_iev(p, i, ev);
	if (err)
		return err;
	if (!p->has_prov)
		return pmcfi_fail(PMCF_ENOENT, "profile has no provenance layer");
	if (source < -1 || (source >= 0 && (size_t)source >= p->nsrc))
		return pmcfi_fail(PMCF_EINVAL, "source profile %d out of range (%zu sources)", (int)source,
				  p->nsrc);
	if (source_xu < -1)
		return pmcfi_fail(PMCF_EINVAL, "invalid source XU index %lld", (long long)source_xu);
	p->prov_src[ev][i] = source;
	p->prov_xu[ev][i] = source_xu;
	return 0;
}

int pmcf_profile_provenance_get(const pmcf_profile *p, size_t i, size_t ev, int32_t *source,
				int64_t *source_xu)
{
	int err = check_iev(p, i, ev);
	if (err)
		return err;
	if (!p->has_prov)
		return pmcfi_fail(PMCF_ENOENT, "profile has no provenance layer");
	if (source)
		*source = p->prov_src[ev][i];
	if (source_xu)
		*source_xu = p->prov_xu[ev][i];
	return 0;
}

int pmcfi_profile_match_enable(pmcf_profile *p)
{
	if (p->match)
		return 0;
	p->match = malloc(col_cap(p) * sizeof(double));
	if (!p->match)
		return nomem("match distances");
	fill_nan(p->match, p->nxu);
	return 0;
}

int pmcf_profile_match_distance_set(pmcf_profile *p, size_t i, double d)
{
	int err = xu_check(p, i);
	if (err)
		return err;
	err = pmcfi_profile_match_enable(p);
	if (err)
		return err;
	p->match[i] = d;
	return 0;
}

double pmcf_profile_match_distance(const pmcf_profile *p, size_t i)
{
	if (!p || !p->match || i >= p->nxu)
		return PMCF_MISSING;
	return p->match[i];
}

/* ---- base labels ------------------------------------------------------------ */

int pmcfi_profile_base_enable(pmcf_profile *p, size_t arena_bytes)
{
	if (!p->base_src) {
		size_t cap = col_cap(p);
		int32_t *s = malloc(cap * sizeof(int32_t));
		int64_t *x = malloc(cap * sizeof(int64_t));
		size_t *l = malloc(cap * sizeof(size_t));
		if (!s || !x || !l) {
			free(s);
			free(x);
			free(l);
			return nomem("base labels");
		}
		memset(s, 0xff, cap * sizeof(int32_t)); /* -1 */
		memset(x, 0xff, cap * sizeof(int64_t));
		memset(l, 0, cap * sizeof(size_t));
		p->base_src = s;
		p->base_xu = x;
		p->base_lab = l;
	}
	return arena_bytes > SIZE_MAX / 2 ? nomem("label arena") : arena_reserve(p, arena_bytes);
}

int pmcf_profile_has_base_labels(const pmcf_profile *p) { return p && p->base_src; }

static int base_check(const pmcf_profile *p, size_t i, int32_t source, int64_t source_xu)
{
	int err = xu_check(p, i);
	if (err)
		return err;
	if (source < -1 || (source >= 0 && (size_t)source >= p->nsrc))
		return pmcfi_fail(PMCF_EINVAL, "source profile %d out of range (%zu sources)", (int)source,
				  p->nsrc);
	if (source_xu < -1 || (source < 0) != (source_xu < 0))
		return pmcfi_fail(PMCF_EINVAL, "source %d with source XU %lld", (int)source,
				  (long long)source_xu);
	return 0;
}

int pmcf_profile_base_label_set(pmcf_profile *p, size_t i, int32_t source, int64_t source_xu,
				const char *label)
{
	int err = base_check(p, i, source, source_xu);
	if (err)
		return err;
	const char *lab = label ? label : "";
	size_t ll = strlen(lab);
	err = pmcfi_profile_base_enable(p, ll ? ll + 1 : 0);
	if (err)
		return err;
	p->base_src[i] = source;
	p->base_xu[i] = source_xu;
	p->base_lab[i] = label_put(p, lab, ll);
	return 0;
}

int pmcfi_profile_base_label_set_node(pmcf_profile *p, size_t i, int32_t source, int64_t source_xu,
				      uint32_t node)
{
	int err = base_check(p, i, source, source_xu);
	if (!err && node >= (p->nlab ? p->nlab : 1))
		err = pmcfi_fail(PMCF_EINVAL, "label node %u out of range", node);
	if (!err)
		err = pmcfi_profile_base_enable(p, 0);
	if (err)
		return err;
	p->base_src[i] = source;
	p->base_xu[i] = source_xu;
	p->base_lab[i] = node ? PMCFI_LAB_NODE | node : 0;
	return 0;
}

int pmcf_profile_base_label_get(const pmcf_profile *p, size_t i, int32_t *source, int64_t *source_xu,
				const char **label)
{
	int err = xu_check(p, i);
	if (err)
		return err;
	if (!p->base_src)
		return pmcfi_fail(PMCF_ENOENT, "profile has no base labels");
	if (source)
		*source = p->base_src[i];
	if (source_xu)
		*source_xu = p->base_xu[i];
	if (label && !(*label = label_of(p, p->base_lab[i])))
		return PMCF_ENOMEM;
	return 0;
}

/* ---- MPI ranks -------------------------------------------------------------- */

int pmcf_profile_ranks_enable(pmcf_profile *p)
{
	if (!p)
		return pmcfi_fail(PMCF_EINVAL, "NULL profile");
	if (p->rank)
		return 0;
	p->rank = calloc(col_cap(p), sizeof(int32_t));
	return p->rank ? 0 : nomem("ranks");
}

int pmcf_profile_has_ranks(const pmcf_profile *p) { return p && p->rank; }

int pmcf_profile_rank_set(pmcf_profile *p, size_t i, int32_t rank)
{
	int err = xu_check(p, i);
	if (!err && rank < 0)
		err = pmcfi_fail(PMCF_EINVAL, "negative rank %d", (int)rank);
	if (!err && !(err = pmcf_profile_ranks_enable(p)))
		p->rank[i] = rank;
	return err;
}

int32_t pmcf_profile_rank(const pmcf_profile *p, size_t i)
{
	return p && p->rank && i < p->nxu ? p->rank[i] : 0;
}

uint32_t pmcf_profile_nranks(const pmcf_profile *p)
{
	int32_t max = 0;
	for (size_t i = 0; p && p->rank && i < p->nxu; i++)
		if (p->rank[i] > max)
			max = p->rank[i];
	return (uint32_t)max + 1;
}
