/* The inputs' labels as one tree of components (issue 33): recorded
 * profiles (format version 2) hold their labels as nodes (parent + own
 * text, "RANK.ADDR" per level of a task tree); combine maps every input's
 * nodes onto one tree whose nodes are single components, shared by the
 * inputs, so that equal labels are one node, the label order is a rank per
 * node and a first common ancestor is a lowest common ancestor: no label
 * is made as text while pairing (O(1) or O(log depth) per comparison
 * instead of O(label length)). Inputs with text labels (version 1) keep
 * the text path (label.c), which is also the reference: both give the same
 * fused profile (test_combine's test_label_tree_same). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "combine/combine_impl.h"
#include "profile/bare.h"
#include "util/abi.h"
#include "util/internal.h"

int pmcfi_cmb_label_text;

#define NONE UINT32_MAX

static uint64_t node_hash(uint32_t par, const char *s, uint32_t len)
{
	return pmcfi_cmb_hash(pmcfi_cmb_hash(PMCFI_CMB_HASH0, &par, sizeof(par)), s, len);
}

void pmcfi_cmb_ltree_free(struct pmcfi_cmb_ltree *lt)
{
	if (!lt)
		return;
	free(lt->par);
	free(lt->jump);
	free(lt->depth);
	free(lt->tlen);
	free(lt->ord);
	free(lt->cs);
	free(lt->cl);
	free(lt->slot);
	for (size_t j = 0; j < lt->nin; j++) {
		if (lt->xlab)
			free(lt->xlab[j]);
		if (lt->xpar)
			free(lt->xpar[j]);
	}
	free(lt->xlab);
	free(lt->xpar);
	for (size_t q = 0; q < lt->nmade; q++)
		free(lt->made[q]);
	free(lt->made);
	free(lt);
}

/* The hash table at twice the nodes at least (slots: node ids). */
static int rehash(struct pmcfi_cmb_ltree *lt, size_t nslot)
{
	uint32_t *slot = malloc(nslot * sizeof(*slot));
	if (!slot)
		return -1;
	memset(slot, 0xff, nslot * sizeof(*slot));
	for (uint32_t k = 1; k < lt->n; k++) {
		size_t h = (size_t)node_hash(lt->par[k], lt->cs[k], lt->cl[k]) & (nslot - 1);
		while (slot[h] != NONE)
			h = (h + 1) & (nslot - 1);
		slot[h] = k;
	}
	free(lt->slot);
	lt->slot = slot;
	lt->nslot = nslot;
	return 0;
}

static size_t find_slot(const struct pmcfi_cmb_ltree *lt, uint32_t par, const char *s, uint32_t len)
{
	size_t h = (size_t)node_hash(par, s, len) & (lt->nslot - 1);
	for (uint32_t k; (k = lt->slot[h]) != NONE; h = (h + 1) & (lt->nslot - 1))
		if (lt->par[k] == par && lt->cl[k] == len && memcmp(lt->cs[k], s, len) == 0)
			break;
	return h;
}

uint32_t pmcfi_cmb_ltree_find(const struct pmcfi_cmb_ltree *lt, uint32_t par, const char *s, uint32_t len)
{
	return lt->slot[find_slot(lt, par, s, len)];
}

static int grow(struct pmcfi_cmb_ltree *lt)
{
	size_t cap = pmcfi_grow_cap(lt->cap, (size_t)lt->n + 1);
	if (cap > UINT32_MAX)
		cap = UINT32_MAX;
	if (cap <= lt->n)
		return -1;
	void **arr[] = {(void **)&lt->par, (void **)&lt->jump, (void **)&lt->depth, (void **)&lt->tlen,
			(void **)&lt->ord, (void **)&lt->cs,   (void **)&lt->cl};
	size_t elem[] = {4, 4, 4, 4, 4, sizeof(*lt->cs), 4};
	for (size_t q = 0; q < PMCF_ARRAY_SIZE(arr); q++) {
		void *p = realloc(*arr[q], cap * elem[q]);
		if (!p)
			return -1;
		*arr[q] = p;
	}
	lt->cap = (uint32_t)cap;
	return 0;
}

uint32_t pmcfi_cmb_ltree_child(struct pmcfi_cmb_ltree *lt, uint32_t par, const char *s, uint32_t len,
			       int copy)
{
	size_t h = find_slot(lt, par, s, len);
	if (lt->slot[h] != NONE)
		return lt->slot[h];
	uint64_t tl = (uint64_t)(par ? lt->tlen[par] + 1u : 0u) + len;
	if (tl >= UINT32_MAX || lt->n == UINT32_MAX - 1 || (lt->n == lt->cap && grow(lt)))
		return NONE;
	if (copy) {
		char *m = malloc(len ? len : 1);
		if (!m || pmcfi_grow((void **)&lt->made, &lt->madecap, lt->nmade + 1, sizeof(*lt->made))) {
			free(m);
			return NONE;
		}
		memcpy(m, s, len);
		lt->made[lt->nmade++] = m;
		s = m;
	}
	uint32_t v = lt->n++;
	lt->par[v] = par;
	lt->cs[v] = s;
	lt->cl[v] = len;
	lt->depth[v] = lt->depth[par] + 1;
	lt->tlen[v] = (uint32_t)tl;
	lt->ord[v] = NONE; /* made after the order: never compared */
	/* skew-binary jump pointers (Myers 1983): O(log depth) ancestors */
	uint32_t j1 = lt->jump[par], j2 = lt->jump[j1];
	lt->jump[v] = lt->depth[par] - lt->depth[j1] == lt->depth[j1] - lt->depth[j2] ? j2 : par;
	lt->slot[h] = v;
	if (2 * (size_t)lt->n > lt->nslot && rehash(lt, 2 * lt->nslot)) {
		lt->n--; /* slot h was empty before */
		lt->slot[h] = NONE;
		return NONE;
	}
	return v;
}

const char *pmcfi_cmb_ltree_text(const struct pmcfi_cmb_ltree *lt, uint32_t k, char **buf, size_t *cap)
{
	size_t len = lt->tlen[k];
	if (pmcfi_grow((void **)buf, cap, len + 1, 1))
		return NULL;
	(*buf)[len] = '\0';
	for (size_t end = len; k; k = lt->par[k]) {
		end -= lt->cl[k];
		memcpy(*buf + end, lt->cs[k], lt->cl[k]);
		if (end)
			(*buf)[--end] = '.';
	}
	return *buf;
}

/* Input j's nodes onto lt: 1 when some label is not a node or some node
 * has an empty component (the text path then), -1 out of memory. */
static int map_input(struct pmcfi_cmb_ltree *lt, const pmcf_profile *p, size_t j)
{
	size_t nl = pmcfi_profile_label_nodes(p), nx = pmcf_profile_nxus(p);
	if (!nl && nx)
		return 1;
	uint32_t *nm = malloc((nl ? nl : 1) * sizeof(*nm));
	lt->xlab[j] = malloc((nx ? nx : 1) * sizeof(uint32_t));
	lt->xpar[j] = malloc((nx ? nx : 1) * sizeof(uint32_t));
	if (!nm || !lt->xlab[j] || !lt->xpar[j]) {
		free(nm);
		return -1;
	}
	nm[0] = 0;
	int rc = 0;
	for (uint32_t k = 1; k < nl && !rc; k++) {
		uint32_t g = nm[pmcfi_profile_label_node_parent(p, k)];
		const char *s = pmcfi_profile_label_node_suffix(p, k);
		for (;;) {
			size_t l = strcspn(s, ".");
			if (!l || l >= UINT32_MAX) {
				rc = 1; /* "", "a..b", "a.": pmcfi_cmb_label_fca's own cases */
				break;
			}
			if ((g = pmcfi_cmb_ltree_child(lt, g, s, (uint32_t)l, 0)) == NONE) {
				rc = -1;
				break;
			}
			if (!s[l])
				break;
			s += l + 1;
		}
		nm[k] = g;
	}
	for (size_t x = 0; x < nx && !rc; x++) {
		uint32_t a = pmcfi_profile_xu_label_node(p, x, 0), b = pmcfi_profile_xu_label_node(p, x, 1);
		if (a == NONE || b == NONE)
			rc = 1;
		else {
			lt->xlab[j][x] = nm[a];
			lt->xpar[j][x] = nm[b];
		}
	}
	free(nm);
	return rc;
}

static int child_cmp(const void *a, const void *b, void *ctx)
{
	const struct pmcfi_cmb_ltree *lt = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return pmcfi_cmb_label_comp_cmp(lt->cs[x], lt->cl[x], lt->cs[y], lt->cl[y]);
}

/* ord: pre-order with siblings in component order, which is
 * pmcfi_cmb_label_cmp's order of the labels; 1 when two siblings compare equal
 * (the text path then), -1 out of memory. */
static int order(struct pmcfi_cmb_ltree *lt)
{
	uint32_t n = lt->n;
	uint32_t *start = calloc((size_t)n + 2, sizeof(*start)), *kid = malloc((size_t)n * sizeof(*kid));
	uint32_t *stack = malloc((size_t)n * sizeof(*stack));
	int rc = 0;
	if (!start || !kid || !stack) {
		rc = -1;
		goto out;
	}
	for (uint32_t v = 1; v < n; v++)
		start[lt->par[v] + 2]++;
	for (uint32_t v = 0; v < n; v++)
		start[v + 2] += start[v + 1];
	for (uint32_t v = 1; v < n; v++)
		kid[start[lt->par[v] + 1]++] = v;
	for (uint32_t v = 0; v < n && !rc; v++) {
		uint32_t *k = kid + start[v], m = start[v + 1] - start[v];
		if (m > 1)
			qsort_r(k, m, sizeof(*k), child_cmp, lt);
		for (uint32_t q = 1; q < m && !rc; q++)
			rc = child_cmp(&k[q - 1], &k[q], lt) == 0;
	}
	uint32_t sp = 0, next = 0;
	stack[sp++] = 0;
	while (sp && !rc) {
		uint32_t v = stack[--sp];
		lt->ord[v] = next++;
		for (uint32_t q = start[v + 1]; q > start[v]; q--)
			stack[sp++] = kid[q - 1];
	}
out:
	free(start);
	free(kid);
	free(stack);
	return rc;
}

int pmcfi_cmb_ltree_build(struct pmcfi_cmb *c)
{
	c->lt = NULL;
	if (pmcfi_cmb_label_text)
		return 0;
	for (size_t j = 0; j < c->n; j++)
		if (!pmcfi_profile_label_nodes(c->in[j]) && pmcf_profile_nxus(c->in[j]))
			return 0;
	struct pmcfi_cmb_ltree *lt = calloc(1, sizeof(*lt));
	int rc = !lt || grow(lt) || rehash(lt, 1024) ? -1 : 0;
	if (!rc) {
		lt->n = 1; /* the root, "" */
		lt->par[0] = lt->jump[0] = lt->depth[0] = lt->tlen[0] = lt->ord[0] = 0;
		lt->cs[0] = "";
		lt->cl[0] = 0;
		lt->nin = c->n;
		lt->xlab = calloc(c->n, sizeof(*lt->xlab));
		lt->xpar = calloc(c->n, sizeof(*lt->xpar));
		rc = lt->xlab && lt->xpar ? 0 : -1;
	}
	for (size_t j = 0; j < c->n && !rc; j++)
		rc = map_input(lt, c->in[j], j);
	if (!rc)
		rc = order(lt);
	if (rc) {
		pmcfi_cmb_ltree_free(lt);
		return rc < 0 ? pmcfi_fail(PMCF_ENOMEM, "out of memory for the label tree") : 0;
	}
	c->lt = lt;
	return 0;
}

/* Taken labels (unique_labels' rule, on nodes): per node 0 or 1 + the
 * fused XU that holds it, grown with lt. */
static int taken_room(uint32_t **tk, size_t *cap, size_t n)
{
	size_t old = *cap;
	if (pmcfi_grow((void **)tk, cap, n, sizeof(**tk)))
		return -1;
	memset(*tk + old, 0, (*cap - old) * sizeof(**tk));
	return 0;
}

/* The fused labels as nodes: whole source labels unique ("LABEL~K" for a
 * later XU with a label already taken, K >= 2 the smallest free, as
 * combine.c's unique_labels on text), first common ancestors shared. */
static int fused_labels(struct pmcfi_cmb *c, const int32_t *base, uint32_t *want)
{
	struct pmcfi_cmb_ltree *lt = c->lt;
	size_t cap = 0;
	uint32_t *tk = NULL, *nextk = NULL;
	unsigned char *lose = calloc(c->nf ? c->nf : 1, 1);
	char *name = NULL;
	size_t ncap = 0;
	int err = !lose || taken_room(&tk, &cap, lt->n) ? -1 : 0;
	if (!err && !(nextk = malloc((size_t)lt->n * sizeof(*nextk))))
		err = -1;
	for (int pass = 1; pass <= 2 && !err; pass++)
		for (size_t j = 0; j < c->n && !err; j++)
			for (size_t f = 0; f < c->nf && !err; f++) {
				if (base[f] != (int32_t)j || (pass == 2 && !lose[f]))
					continue;
				uint32_t s = lt->xlab[j][c->src[f * c->n + j]];
				want[f] = c->lnode[f] != NONE ? c->lnode[f] : s;
				if (!s || want[f] != s)
					continue; /* "" or a first common ancestor */
				if (pass == 1) {
					if (tk[s])
						lose[f] = 1;
					else {
						tk[s] = (uint32_t)f + 1;
						nextk[s] = 2;
					}
					continue;
				}
				uint32_t v = NONE, l = lt->cl[s];
				if (pmcfi_grow((void **)&name, &ncap, (size_t)l + 16, 1)) {
					err = -1;
					break;
				}
				memcpy(name, lt->cs[s], l);
				do {
					int m = snprintf(name + l, 16, "~%u", nextk[s]++);
					v = pmcfi_cmb_ltree_child(lt, lt->par[s], name, l + (uint32_t)m, 1);
					if (v == NONE || taken_room(&tk, &cap, lt->n)) {
						err = -1;
						break;
					}
				} while (tk[v]);
				if (!err) {
					tk[v] = (uint32_t)f + 1;
					want[f] = v;
				}
			}
	free(tk);
	free(nextk);
	free(lose);
	free(name);
	return err;
}

int pmcfi_cmb_ltree_out(struct pmcfi_cmb *c, const int32_t *base, uint32_t **olab)
{
	struct pmcfi_cmb_ltree *lt = c->lt;
	uint32_t *want = malloc((c->nf ? c->nf : 1) * sizeof(*want)), *comp = NULL;
	int err = !want || fused_labels(c, base, want) ? -1 : 0;
	unsigned char *mark = err ? NULL : calloc(lt->n, 1);
	c->lomap = err ? NULL : malloc((size_t)lt->n * sizeof(*c->lomap));
	char *sfx = NULL;
	size_t ccap = 0, scap = 0;
	if (!mark || !c->lomap)
		err = -1;
	/* the nodes some fused XU names: label, parent label, base label */
	for (size_t f = 0; f < c->nf && !err; f++) {
		int32_t j = base[f], x = c->src[f * c->n + (size_t)j];
		mark[want[f]] = mark[lt->xpar[j][x]] = mark[lt->xlab[j][x]] = 1;
	}
	/* each under the nearest marked ancestor, the components between as
	 * its own text (parents have smaller ids: made first) */
	if (!err)
		c->lomap[0] = 0;
	for (uint32_t v = 1; v < lt->n && !err; v++) {
		if (!mark[v])
			continue;
		size_t nc = 0, len = 0;
		uint32_t a = v;
		do {
			if (pmcfi_grow((void **)&comp, &ccap, nc + 1, sizeof(*comp))) {
				err = -1;
				break;
			}
			comp[nc++] = a;
			len += lt->cl[a] + 1;
			a = lt->par[a];
		} while (a && !mark[a]);
		if (err || pmcfi_grow((void **)&sfx, &scap, len, 1)) {
			err = -1;
			break;
		}
		size_t o = 0;
		while (nc--) {
			memcpy(sfx + o, lt->cs[comp[nc]], lt->cl[comp[nc]]);
			o += lt->cl[comp[nc]];
			if (nc)
				sfx[o++] = '.';
		}
		err = pmcfi_profile_label_node(c->out, c->lomap[a], sfx, o, &c->lomap[v]);
	}
	free(mark);
	free(comp);
	free(sfx);
	if (err) {
		free(want);
		return err == -1 ? pmcfi_fail(PMCF_ENOMEM, "out of memory for the fused labels") : err;
	}
	for (size_t f = 0; f < c->nf; f++)
		want[f] = c->lomap[want[f]];
	*olab = want;
	return 0;
}

/* ---- do bc's pairs agree with the labels? ---- */

/* Input j's XU x's label as text (the text path). */
static const char *label_text_of(const struct pmcfi_cmb *c, size_t j, size_t x)
{
	pmcf_xu xu = PMCF_XU_INIT;
	return pmcf_profile_xu_get(c->in[j], x, &xu) == 0 && xu.label ? xu.label : "";
}

int pmcfi_cmb_label_agreement(struct pmcfi_cmb *c)
{
	const struct pmcfi_cmb_ltree *lt = c->lt;
	size_t n0 = pmcf_profile_nxus(c->in[0]), nslot = 16;
	while (nslot < 2 * n0)
		nslot *= 2;
	/* the first input's labels: a mark per node, else a hash set of texts */
	unsigned char *mark = lt ? calloc(lt->n, 1) : NULL;
	uint32_t *slot = lt ? NULL : malloc(nslot * sizeof(*slot));
	if (lt ? !mark : !slot) {
		free(mark);
		free(slot);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	}
	if (slot)
		memset(slot, 0xff, nslot * sizeof(*slot));
	for (size_t x = 0; x < n0; x++) {
		if (lt) {
			mark[lt->xlab[0][x]] = 1;
			continue;
		}
		const char *s = label_text_of(c, 0, x);
		size_t h = (size_t)pmcfi_cmb_hash(PMCFI_CMB_HASH0, s, strlen(s)) & (nslot - 1);
		while (slot[h] != NONE && strcmp(label_text_of(c, 0, slot[h]), s) != 0)
			h = (h + 1) & (nslot - 1);
		slot[h] = (uint32_t)x;
	}
	pmcf_combine_stats *st = c->stats;
	for (size_t j = 1; j < c->n; j++)
		for (size_t x = 0; x < pmcf_profile_nxus(c->in[j]); x++) {
			int common;
			if (lt) {
				uint32_t v = lt->xlab[j][x];
				if (!v)
					continue;
				common = mark[v];
			} else {
				const char *s = label_text_of(c, j, x);
				if (!*s)
					continue;
				size_t h =
					(size_t)pmcfi_cmb_hash(PMCFI_CMB_HASH0, s, strlen(s)) & (nslot - 1);
				while (slot[h] != NONE && strcmp(label_text_of(c, 0, slot[h]), s) != 0)
					h = (h + 1) & (nslot - 1);
				common = slot[h] != NONE;
			}
			st->bc_labelled++;
			st->bc_label_common += (size_t)common;
		}
	for (size_t f = 0; f < c->nf; f++) {
		const int32_t *row = c->src + f * c->n;
		size_t b = 0;
		while (b < c->n && row[b] < 0)
			b++;
		for (size_t j = b + 1; j < c->n; j++) {
			if (row[j] < 0)
				continue;
			int differ;
			if (lt) {
				uint32_t u = lt->xlab[b][row[b]], v = lt->xlab[j][row[j]];
				if (!u || !v)
					continue;
				differ = u != v;
			} else {
				const char *u = label_text_of(c, b, (size_t)row[b]);
				const char *v = label_text_of(c, j, (size_t)row[j]);
				if (!*u || !*v)
					continue;
				differ = strcmp(u, v) != 0;
			}
			st->bc_label_pairs++;
			st->bc_label_differ += (size_t)differ;
		}
	}
	free(mark);
	free(slot);
	return 0;
}
