/* `imix train`: learns HBBP's choice between EBS and LBR per block as a
 * decision stump (a one-split classification tree with Gini impurity,
 * hbbp-instruction-mix §IV.A-B) over block length and the bias flag, from
 * examples that pair a reference's blocks with measured ones. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "hbbp/hbbp_impl.h"
#include "util/abi.h"
#include "util/internal.h"

static double gini(double lbr, double all)
{
	if (all <= 0)
		return 0;
	double p = lbr / all;
	return 2 * p * (1 - p);
}

static int len_cmp(const void *a, const void *b)
{
	const pmcf_imix_example *x = a, *y = b;
	return (x->len > y->len) - (x->len < y->len);
}

int pmcf_imix_train(const pmcf_imix_example *ex, size_t n, pmcf_imix_stump *out)
{
	pmcfi_clear_error();
	int rc = pmcfi_struct_reset("pmcf_imix_stump", out, sizeof(*out));
	if (rc)
		return rc;
	size_t stride;
	rc = pmcfi_struct_stride("pmcf_imix_example", ex, n, sizeof(*ex), sizeof(*ex), &stride);
	if (rc)
		return rc;
	if (stride != sizeof(*ex)) { /* a newer caller's examples: this library's part of each */
		pmcf_imix_example *copy = malloc(n * sizeof(*copy));
		if (!copy)
			return pmcfi_fail(PMCF_ENOMEM, "out of memory");
		for (size_t i = 0; i < n; i++) {
			memcpy(&copy[i], (const char *)ex + i * stride, sizeof(*copy));
			copy[i].size = sizeof(*copy);
		}
		rc = pmcf_imix_train(copy, n, out);
		free(copy);
		return rc;
	}
	double all = 0, lbr = 0;
	for (size_t i = 0; i < n; i++) {
		if (!(ex[i].weight >= 0))
			return pmcfi_fail(PMCF_EINVAL, "training example %zu: negative weight", i);
		all += ex[i].weight;
		lbr += ex[i].lbr ? ex[i].weight : 0;
	}
	if (n == 0 || all <= 0)
		return pmcfi_fail(PMCF_EINVAL, "no training examples with weight");
	pmcf_imix_example *s = malloc(n * sizeof(*s));
	if (!s)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	memcpy(s, ex, n * sizeof(*s));
	qsort(s, n, sizeof(*s), len_cmp);
	double g0 = gini(lbr, all);
	/* length: LBR when len <= cutoff; every distinct length is a candidate */
	double best_len = g0, lw = 0, ll = 0;
	/* no useful split: the majority for every block (cut-off 0: all EBS) */
	unsigned cut = 2 * lbr >= all ? s[n - 1].len : 0;
	double acc_len = 2 * lbr >= all ? lbr / all : (all - lbr) / all;
	for (size_t i = 0; i < n; i++) {
		lw += s[i].weight;
		ll += s[i].lbr ? s[i].weight : 0;
		if (i + 1 < n && s[i + 1].len == s[i].len)
			continue;
		double rw = all - lw, rl = lbr - ll;
		double g = (lw * gini(ll, lw) + rw * gini(rl, rw)) / all;
		if (g < best_len - 1e-15) {
			best_len = g;
			cut = s[i].len;
			/* accuracy of the HBBP rule: LBR left, EBS right */
			acc_len = (ll + (rw - rl)) / all;
		}
	}
	free(s);
	/* bias: LBR when the block carries no bias flag */
	double bw = 0, bl = 0;
	for (size_t i = 0; i < n; i++)
		if (ex[i].bias) {
			bw += ex[i].weight;
			bl += ex[i].lbr ? ex[i].weight : 0;
		}
	double nw = all - bw, nl = lbr - bl;
	double g_bias = (bw * gini(bl, bw) + nw * gini(nl, nw)) / all;
	double gain_len = g0 - best_len, gain_bias = g0 - g_bias;
	out->gini_before = g0;
	out->cutoff = cut;
	out->length_importance = gain_len + gain_bias > 0 ? gain_len / (gain_len + gain_bias) : 1.0;
	if (gain_bias > gain_len) {
		out->feature = 1;
		out->gini_after = g_bias;
		out->accuracy = (nl + (bw - bl)) / all;
	} else {
		out->feature = 0;
		out->gini_after = best_len;
		out->accuracy = acc_len;
	}
	return 0;
}

/* ---- examples from a reference and measurements (`imix train`) ---------- */

struct bkey {
	const char *module;
	uint64_t start;
	double count;
};

struct pmcf_imix_trainer {
	struct bkey *keys; /* the reference's blocks by (module, start) */
	size_t nkeys;
	pmcf_imix_example *ex;
	size_t nex, capex;
};

static int bkey_cmp(const void *a, const void *b)
{
	const struct bkey *x = a, *y = b;
	int c = strcmp(x->module, y->module);
	if (c)
		return c;
	return (x->start > y->start) - (x->start < y->start);
}

int pmcf_imix_trainer_new(const pmcf_imix *ref, pmcf_imix_trainer **out)
{
	pmcfi_clear_error();
	*out = NULL;
	pmcf_imix_trainer *t = calloc(1, sizeof(*t));
	size_t nb = pmcf_imix_nblocks(ref);
	if (t)
		t->keys = calloc(nb + 1, sizeof(*t->keys));
	if (!t || !t->keys) {
		free(t);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < nb; i++) {
		const pmcf_imix_block *b = pmcf_imix_block_at(ref, i);
		t->keys[i] = (struct bkey){b->module, b->start, b->count};
	}
	qsort(t->keys, nb, sizeof(*t->keys), bkey_cmp);
	t->nkeys = nb;
	*out = t;
	return 0;
}

int pmcf_imix_trainer_add(pmcf_imix_trainer *t, const pmcf_imix *measured)
{
	pmcfi_clear_error();
	const pmcf_imix_stats *st = pmcf_imix_stats_get(measured);
	if (!st->lbr_samples || !st->ebs_samples)
		return pmcfi_fail(PMCF_EINVAL, "training needs both EBS and LBR samples "
					       "(record on an LBR machine without ebs_only, "
					       "the command's --ebs-only)");
	for (size_t i = 0; i < pmcf_imix_nblocks(measured); i++) {
		const pmcf_imix_block *b = pmcf_imix_block_at(measured, i);
		struct bkey q = {b->module, b->start, 0};
		struct bkey *r = bsearch(&q, t->keys, t->nkeys, sizeof(*t->keys), bkey_cmp);
		double truth = r ? r->count : 0;
		if (truth <= 0 || fabs(b->lbr - b->ebs) <= 1e-9 * truth)
			continue; /* ties say nothing about which source is better */
		if (pmcfi_grow((void **)&t->ex, &t->capex, t->nex + 1, sizeof(*t->ex)))
			return pmcfi_fail(PMCF_ENOMEM, "out of memory");
		t->ex[t->nex++] =
			(pmcf_imix_example){sizeof(pmcf_imix_example), b->len, b->bias, truth * b->len,
					    fabs(b->lbr - truth) < fabs(b->ebs - truth)};
	}
	return 0;
}

const pmcf_imix_example *pmcf_imix_trainer_examples(const pmcf_imix_trainer *t, size_t *n)
{
	*n = t->nex;
	return t->ex;
}

int pmcf_imix_trainer_fit(const pmcf_imix_trainer *t, pmcf_imix_stump *out)
{
	if (!t->nex) {
		pmcfi_clear_error();
		int rc = pmcfi_struct_reset("pmcf_imix_stump", out, sizeof(*out));
		if (rc)
			return rc;
		return pmcfi_fail(PMCF_EINVAL, "no block where EBS and LBR disagree and the reference "
					       "has a count: nothing to learn from");
	}
	return pmcf_imix_train(t->ex, t->nex, out);
}

void pmcf_imix_trainer_free(pmcf_imix_trainer *t)
{
	if (!t)
		return;
	free(t->keys);
	free(t->ex);
	free(t);
}
