/* Instruction mixes: the per-instruction and per-block tables built from
 * BBECs, pivot tables by mnemonic/ISA/category/packing/module/function/block/
 * line, and the error metrics of hbbp-instruction-mix §VI. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "hbbp/hbbp_impl.h"
#include "util/abi.h"
#include "util/internal.h"

int pmcfi_hbbp_mix_new(const pmcf_imix_opts *o, pmcf_imix **out)
{
	pmcf_imix *m = calloc(1, sizeof(*m));
	if (!m)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	m->st.size = sizeof(m->st);
	m->lines = o ? o->lines : 0;
	*out = m;
	return 0;
}

struct pmcfi_hbbp_image *pmcfi_hbbp_mix_image(pmcf_imix *m, const char *path)
{
	for (size_t i = 0; i < m->nimages; i++)
		if (!strcmp(m->images[i]->path, path))
			return m->images[i];
	for (size_t i = 0; i < m->nmissing; i++)
		if (!strcmp(m->missing[i], path))
			return NULL;
	struct pmcfi_hbbp_image *im = NULL;
	if (pmcfi_hbbp_image_open(path, &im) != 0) {
		if (!pmcfi_grow((void **)&m->missing, &m->cap_missing, m->nmissing + 1,
				sizeof(*m->missing)) &&
		    (m->missing[m->nmissing] = strdup(path)))
			m->nmissing++;
		pmcfi_log(PMCF_LOG_INFO, "imix: %s", pmcf_errdetail());
		return NULL;
	}
	if (pmcfi_grow((void **)&m->images, &m->cap_images, m->nimages + 1, sizeof(*m->images))) {
		pmcfi_hbbp_image_free(im);
		return NULL;
	}
	m->images[m->nimages++] = im;
	return im;
}

void pmcf_imix_free(pmcf_imix *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nimages; i++)
		pmcfi_hbbp_image_free(m->images[i]);
	for (size_t i = 0; i < m->nmissing; i++)
		free(m->missing[i]);
	free(m->missing);
	free(m->images);
	free(m->ins);
	free(m->blocks);
	free(m);
}

static const char *base(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

struct pmcfi_hbbp_func *pmcfi_hbbp_mix_next_func(pmcf_imix *m, size_t *pos, struct pmcfi_hbbp_image **im)
{
	/* *pos counts functions over the images in order */
	size_t p = *pos, ii = 0;
	while (ii < m->nimages && p >= m->images[ii]->nfuncs)
		p -= m->images[ii++]->nfuncs;
	for (; ii < m->nimages; ii++, p = 0) {
		for (; p < m->images[ii]->nfuncs; p++, ++*pos) {
			struct pmcfi_hbbp_func *f = &m->images[ii]->funcs[p];
			if (f->decoded > 0) {
				++*pos;
				*im = m->images[ii];
				return f;
			}
		}
	}
	return NULL;
}

int pmcfi_hbbp_mix_emit(pmcf_imix *m, pmcfi_hbbp_choose_fn choose, void *ctx, int per_ins)
{
	size_t capi = 0, capb = 0, pos = 0;
	struct pmcfi_hbbp_image *im;
	m->st.total = 0;
	for (struct pmcfi_hbbp_func *f; (f = pmcfi_hbbp_mix_next_func(m, &pos, &im));) {
		for (size_t b = 0; b < f->nblocks; b++) {
			int src = 0, bias = 0;
			double ebs = 0, lbr = 0;
			double cnt = choose(ctx, f, b, &src, &ebs, &lbr, &bias);
			const struct pmcfi_hbbp_block *bl = &f->blocks[b];
			int any = cnt > 0;
			for (uint32_t k = 0; per_ins && k < bl->n; k++)
				any |= f->ref[bl->first + k] > 0;
			if (!any && ebs <= 0 && lbr <= 0)
				continue;
			if (pmcfi_grow((void **)&m->blocks, &capb, m->nblocks + 1, sizeof(*m->blocks)))
				return pmcfi_fail(PMCF_ENOMEM, "out of memory");
			m->blocks[m->nblocks++] = (pmcf_imix_block){sizeof(pmcf_imix_block),
								    im->path,
								    f->name,
								    bl->start,
								    bl->n,
								    ebs,
								    lbr,
								    cnt,
								    bias,
								    src};
			if (!any)
				continue;
			for (uint32_t k = 0; k < bl->n; k++) {
				const struct pmcfi_hbbp_ins *in = &f->ins[bl->first + k];
				double c = per_ins ? f->ref[bl->first + k] : cnt;
				if (c <= 0)
					continue;
				if (pmcfi_grow((void **)&m->ins, &capi, m->nins + 1, sizeof(*m->ins)))
					return pmcfi_fail(PMCF_ENOMEM, "out of memory");
				pmcf_imix_ins *r = &m->ins[m->nins++];
				memset(r, 0, sizeof(*r));
				r->size = sizeof(*r);
				r->module = im->path;
				r->function = f->name;
				r->mnemonic = pmcfi_hbbp_mnemonic(im, in);
				r->isa_ext = pmcfi_hbbp_isa_ext(in);
				r->isa_set = pmcfi_hbbp_isa_set(in);
				r->category = pmcfi_hbbp_category(in);
				r->packing = pmcfi_hbbp_packing(in);
				r->addr = in->addr;
				r->block = bl->start;
				r->block_len = bl->n;
				r->count = c;
				if (m->lines)
					r->line = pmcfi_hbbp_image_line(im, in->addr, &r->file);
				m->st.total += c;
			}
		}
	}
	return 0;
}

size_t pmcf_imix_size(const pmcf_imix *m) { return m->nins; }
const pmcf_imix_ins *pmcf_imix_at(const pmcf_imix *m, size_t i) { return i < m->nins ? &m->ins[i] : NULL; }
size_t pmcf_imix_nblocks(const pmcf_imix *m) { return m->nblocks; }
const pmcf_imix_block *pmcf_imix_block_at(const pmcf_imix *m, size_t i)
{
	return i < m->nblocks ? &m->blocks[i] : NULL;
}
const pmcf_imix_stats *pmcf_imix_stats_get(const pmcf_imix *m) { return &m->st; }

static const char *const key_names[] = {"mnemonic", "isa",      "isa-set", "category", "packing",
					"module",   "function", "block",   "line"};

static int key1_parse(const char *name, size_t n)
{
	for (size_t i = 0; i < PMCF_ARRAY_SIZE(key_names); i++)
		if (strlen(key_names[i]) == n && !strncmp(name, key_names[i], n))
			return (int)i;
	return -1;
}

/* "KEY" or "KEY1,KEY2" (two different keys: the rows of KEY2 within each
 * KEY1, e.g. function,mnemonic), as KEY1 + PMCF_IMIX_BY_THEN * (KEY2 + 1). */
int pmcf_imix_key_parse(const char *name)
{
	if (!name)
		return -1;
	const char *comma = strchr(name, ',');
	if (!comma)
		return key1_parse(name, strlen(name));
	int a = key1_parse(name, (size_t)(comma - name)), b = key1_parse(comma + 1, strlen(comma + 1));
	return a < 0 || b < 0 || a == b ? -1 : a + PMCF_IMIX_BY_THEN * (b + 1);
}

static int row_key_cmp(const void *a, const void *b)
{
	return strcmp(((const pmcf_imix_row *)a)->key, ((const pmcf_imix_row *)b)->key);
}

static int row_count_cmp(const void *a, const void *b)
{
	const pmcf_imix_row *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->key, y->key);
}

void pmcf_imix_rows_free(pmcf_imix_row *rows, size_t n)
{
	for (size_t i = 0; rows && i < n; i++)
		free(rows[i].key);
	free(rows);
}

static char *key_of(const pmcf_imix_ins *r, int key)
{
	char buf[1024];
	switch (key) {
	case PMCF_IMIX_BY_MNEMONIC: return strdup(r->mnemonic);
	case PMCF_IMIX_BY_ISA: return strdup(r->isa_ext);
	case PMCF_IMIX_BY_ISA_SET: return strdup(r->isa_set);
	case PMCF_IMIX_BY_CATEGORY: return strdup(r->category);
	case PMCF_IMIX_BY_PACKING:
		snprintf(buf, sizeof(buf), "%s/%s", r->isa_ext, r->packing);
		return strdup(buf);
	case PMCF_IMIX_BY_MODULE: return strdup(r->module);
	case PMCF_IMIX_BY_FUNCTION:
		snprintf(buf, sizeof(buf), "%s!%s", base(r->module), r->function);
		return strdup(buf);
	case PMCF_IMIX_BY_BLOCK:
		snprintf(buf, sizeof(buf), "%s!%s@0x%llx", base(r->module), r->function,
			 (unsigned long long)r->block);
		return strdup(buf);
	default: snprintf(buf, sizeof(buf), "%s:%u", r->file ? r->file : "??", r->line); return strdup(buf);
	}
}

/* A one- or two-level key's value; the levels joined by '|'. */
static char *key2_of(const pmcf_imix_ins *r, int key)
{
	if (key < PMCF_IMIX_BY_THEN)
		return key_of(r, key);
	char *a = key_of(r, key % PMCF_IMIX_BY_THEN), *b = key_of(r, key / PMCF_IMIX_BY_THEN - 1), *k = NULL;
	if (a && b && asprintf(&k, "%s|%s", a, b) < 0)
		k = NULL;
	free(a);
	free(b);
	return k;
}

int pmcf_imix_pivot(const pmcf_imix *m, int key, pmcf_imix_row **rows, size_t *n)
{
	pmcfi_clear_error();
	*rows = NULL;
	*n = 0;
	int k1 = key % PMCF_IMIX_BY_THEN, k2 = key / PMCF_IMIX_BY_THEN - 1;
	if (key < 0 || k1 > PMCF_IMIX_BY_LINE || k2 > PMCF_IMIX_BY_LINE || k1 == k2)
		return pmcfi_fail(PMCF_EINVAL, "unknown pivot key %d", key);
	pmcf_imix_row *r = calloc(m->nins + 1, sizeof(*r));
	if (!r)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	for (size_t i = 0; i < m->nins; i++) {
		r[i].size = sizeof(r[i]);
		r[i].key = key2_of(&m->ins[i], key);
		r[i].count = m->ins[i].count;
		if (!r[i].key) {
			pmcf_imix_rows_free(r, i);
			return pmcfi_fail(PMCF_ENOMEM, "out of memory");
		}
	}
	qsort(r, m->nins, sizeof(*r), row_key_cmp);
	size_t w = 0;
	double total = 0;
	for (size_t i = 0; i < m->nins; i++) {
		total += r[i].count;
		if (w && !strcmp(r[w - 1].key, r[i].key)) {
			r[w - 1].count += r[i].count;
			free(r[i].key);
		} else {
			r[w++] = r[i];
		}
	}
	for (size_t i = 0; i < w; i++)
		r[i].share = total > 0 ? r[i].count / total : 0;
	qsort(r, w, sizeof(*r), row_count_cmp);
	*rows = r;
	*n = w;
	return 0;
}

void pmcf_imix_cmp_free(pmcf_imix_cmp *c)
{
	if (!c)
		return;
	free(c->rows);
	free(c);
}

/* §VI.B: Error(M) = |ref(M) - measured(M)| / ref(M); the average weighted
 * error is sum_M Error(M) * ref(M) / #instructions_ref. */
int pmcf_imix_compare(const pmcf_imix_row *ref, size_t nref, const pmcf_imix_row *meas, size_t nmeas,
		      int normalize, pmcf_imix_cmp **out)
{
	pmcfi_clear_error();
	*out = NULL;
	size_t sr, sm;
	int rc = pmcfi_struct_stride("pmcf_imix_row", ref, nref, sizeof(*ref), sizeof(*ref), &sr);
	if (rc || (rc = pmcfi_struct_stride("pmcf_imix_row", meas, nmeas, sizeof(*meas), sizeof(*meas), &sm)))
		return rc;
	if (sr != sizeof(*ref) || sm != sizeof(*meas)) { /* a newer caller's rows: this library's part */
		pmcf_imix_row *r = malloc((nref + nmeas + 1) * sizeof(*r));
		if (!r)
			return pmcfi_fail(PMCF_ENOMEM, "out of memory");
		for (size_t i = 0; i < nref + nmeas; i++) {
			if (i < nref)
				memcpy(&r[i], (const char *)ref + i * sr, sizeof(*r));
			else
				memcpy(&r[i], (const char *)meas + (i - nref) * sm, sizeof(*r));
			r[i].size = sizeof(*r);
		}
		rc = pmcf_imix_compare(r, nref, r + nref, nmeas, normalize, out);
		free(r);
		return rc;
	}
	pmcf_imix_cmp *c = calloc(1, sizeof(*c));
	if (!c || !(c->rows = calloc(nref + 1, sizeof(*c->rows)))) {
		free(c);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	}
	c->size = sizeof(*c);
	for (size_t i = 0; i < nref; i++)
		if (ref[i].count > 0)
			c->ref_total += ref[i].count;
	for (size_t j = 0; j < nmeas; j++)
		if (meas[j].count > 0)
			c->measured_total += meas[j].count;
	if (c->ref_total <= 0) {
		pmcf_imix_cmp_free(c);
		return pmcfi_fail(PMCF_EINVAL, "the reference mix is empty");
	}
	if (normalize && c->measured_total <= 0) {
		pmcf_imix_cmp_free(c);
		return pmcfi_fail(PMCF_EINVAL, "the measured mix is empty: nothing to normalize");
	}
	c->scale = normalize ? c->ref_total / c->measured_total : 1.0;
	double matched = 0;
	for (size_t i = 0; i < nref; i++) {
		if (!(ref[i].count > 0))
			continue;
		double mv = 0;
		for (size_t j = 0; j < nmeas; j++)
			if (!strcmp(meas[j].key, ref[i].key) && meas[j].count > 0)
				mv += meas[j].count;
		matched += mv;
		mv *= c->scale;
		pmcf_imix_cmp_row *r = &c->rows[c->n++];
		r->size = sizeof(*r);
		r->mnemonic = ref[i].key;
		r->ref = ref[i].count;
		r->measured = mv;
		r->error = fabs(ref[i].count - mv) / ref[i].count;
		c->avg_weighted_error += r->error * ref[i].count / c->ref_total;
	}
	c->extra = (c->measured_total - matched) * c->scale;
	*out = c;
	return 0;
}
