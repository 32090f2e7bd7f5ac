/* Source identity for fused profiles: a content digest of a profile, and
 * its check when a source is reopened (src/profile/ident.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "profile/ident.h"
#include "profile/profile_impl.h"
#include "util/internal.h"

#define DIGEST_TAG "digest:"

/* Two 64-bit lanes over 8-byte words, every field length-prefixed;
 * finished with the murmur3 avalanche. Linear, no allocation. */
struct dg {
	uint64_t a, b;
};

static void mix(struct dg *d, uint64_t w)
{
	d->a = (d->a ^ w) * 0x9E3779B97F4A7C15ULL;
	d->a ^= d->a >> 32;
	d->b = (d->b + w) * 0xC2B2AE3D27D4EB4FULL;
	d->b = d->b << 31 | d->b >> 33;
}

static void bytes(struct dg *d, const void *p, size_t n)
{
	const unsigned char *s = p;
	mix(d, n);
	for (; n >= 8; n -= 8, s += 8) {
		uint64_t w;
		memcpy(&w, s, 8);
		mix(d, w);
	}
	if (n) {
		uint64_t w = 0;
		memcpy(&w, s, n);
		mix(d, w);
	}
}

static void str(struct dg *d, const char *s) { bytes(d, s ? s : "", s ? strlen(s) : 0); }

static uint64_t fmix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ULL;
	return k ^ k >> 33;
}

/* Node k's text into buf (room for len[k] + 1 bytes), from the end: each
 * node's own text, with a dot before it under a parent. */
static void node_text(const pmcf_profile *p, const size_t *own, const size_t *len, size_t k, char *buf)
{
	size_t end = len[k];
	buf[end] = '\0';
	for (; k; k = p->lpar[k]) {
		end -= own[k];
		memcpy(buf + end, p->lsarena + p->lsuf[k], own[k]);
		if (p->lpar[k])
			buf[--end] = '.';
	}
}

/* The labels and parent labels as text, whether the profile holds them as
 * text or as nodes of its label tree (the same digest either way). With a
 * tree, each node's length is counted once and a parent label that is
 * the label's parent node is the prefix of the label's text: the bytes
 * hashed are the digest's own cost (no strlen, no second copy). */
static void labels(struct dg *d, const pmcf_profile *p)
{
	size_t n = p->nxu, nl = p->nlab, cap = 0, most = 0;
	size_t *own = nl ? malloc(nl * sizeof(*own)) : NULL, *len = nl ? malloc(nl * sizeof(*len)) : NULL;
	char *buf = NULL;
	if (own && len) {
		for (size_t k = 0; k < nl; k++) {
			own[k] = strlen(p->lsarena + p->lsuf[k]);
			len[k] = !k ? 0 : p->lpar[k] ? len[p->lpar[k]] + 1 + own[k] : own[k];
			most = len[k] > most ? len[k] : most;
		}
		buf = malloc(most + 1);
	}
	if (!buf) { /* no tree, or out of memory: one label at a time */
		for (size_t i = 0; i < n; i++) {
			str(d, pmcfi_profile_label_text(p, p->label[i], &buf, &cap));
			str(d, pmcfi_profile_label_text(p, p->parent[i], &buf, &cap));
		}
	} else {
		for (size_t i = 0; i < n; i++) {
			size_t a = p->label[i], b = p->parent[i], k = SIZE_MAX;
			if (a & PMCFI_LAB_NODE) {
				k = a & ~PMCFI_LAB_NODE;
				node_text(p, own, len, k, buf);
				bytes(d, buf, len[k]);
			} else {
				str(d, p->arena + a);
			}
			if (!(b & PMCFI_LAB_NODE)) {
				str(d, p->arena + b);
			} else if (k != SIZE_MAX && (b & ~PMCFI_LAB_NODE) == p->lpar[k]) {
				bytes(d, buf, len[p->lpar[k]]); /* the label's prefix */
			} else {
				node_text(p, own, len, b & ~PMCFI_LAB_NODE, buf);
				bytes(d, buf, len[b & ~PMCFI_LAB_NODE]);
			}
		}
	}
	free(buf);
	free(own);
	free(len);
}

static void digest(const pmcf_profile *p, char hex[33])
{
	struct dg d = {0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL};
	mix(&d, p->nmeta);
	for (size_t i = 0; i < p->nmeta; i++) {
		str(&d, p->meta_key[i]);
		str(&d, p->meta_val[i]);
	}
	mix(&d, p->ntypes);
	for (size_t i = 0; i < p->ntypes; i++) {
		mix(&d, (uint64_t)p->types[i].kind);
		str(&d, p->types[i].name);
		str(&d, p->types[i].location);
	}
	size_t n = p->nxu;
	mix(&d, n);
	bytes(&d, p->xtype, n * sizeof(*p->xtype));
	bytes(&d, p->thread, n * sizeof(*p->thread));
	bytes(&d, p->cpu, n * sizeof(*p->cpu));
	bytes(&d, p->start, n * sizeof(*p->start));
	bytes(&d, p->end, n * sizeof(*p->end));
	labels(&d, p);
	if (p->rank) /* only then: digests of profiles without ranks are unchanged */
		bytes(&d, p->rank, n * sizeof(*p->rank));
	mix(&d, p->nev);
	for (size_t e = 0; e < p->nev; e++) {
		str(&d, p->ev_name[e]);
		bytes(&d, p->val[e], n * sizeof(double));
	}
	mix(&d, p->ntruth);
	for (size_t e = 0; e < p->ntruth; e++) {
		str(&d, p->truth_name[e]);
		bytes(&d, p->truth[e], n * sizeof(double));
	}
	snprintf(hex, 33, "%016llx%016llx", (unsigned long long)fmix(d.a ^ (d.b << 17 | d.b >> 47)),
		 (unsigned long long)fmix(d.b ^ d.a));
}

/* what the execution was: its simulated spec, else its start time */
static const char *what(const pmcf_profile *p)
{
	const char *spec = pmcf_profile_meta_get(p, PMCF_META_SIM_SPEC);
	const char *st = pmcf_profile_meta_get(p, PMCF_META_START_TIME);
	return spec ? spec : st ? st : "";
}

char *pmcfi_profile_ident(const pmcf_profile *p)
{
	char hex[33];
	digest(p, hex);
	const char *w = what(p);
	size_t n = strlen(w) + sizeof(DIGEST_TAG) + 34;
	char *s = malloc(n);
	if (s)
		snprintf(s, n, "%s%s" DIGEST_TAG "%s", w, *w ? " " : "", hex);
	return s;
}

int pmcfi_profile_ident_check(const pmcf_profile *src, const char *ident)
{
	const char *tag = strstr(ident, DIGEST_TAG);
	while (tag && tag != ident && tag[-1] != ' ')
		tag = strstr(tag + 1, DIGEST_TAG);
	size_t wl = tag ? (size_t)(tag - ident) - (tag != ident) : strlen(ident);
	const char *w = what(src);
	if (wl && (strlen(w) != wl || memcmp(w, ident, wl) != 0))
		return pmcfi_fail(PMCF_ECONFLICT,
				  "it is not the execution that was fused (it is '%s', the "
				  "fused profile names '%.*s')",
				  w, (int)wl, ident);
	if (tag) {
		char hex[33];
		digest(src, hex);
		if (strcmp(hex, tag + strlen(DIGEST_TAG)) != 0)
			return pmcfi_fail(PMCF_ECONFLICT,
					  "it is not the execution that was fused (content digest %s, the "
					  "fused profile recorded %s: the file was replaced or changed)",
					  hex, tag + strlen(DIGEST_TAG));
	}
	return 0;
}

char *pmcf_profile_ident(const pmcf_profile *p) { return pmcfi_profile_ident(p); }
