/* Label Graph Location combination (fuse-task-parallel §3.1, Algorithms 1-2;
 * fuse-openmp §3): XUs with the same type and label in every profile form
 * one fused XU. A hash table on (type, label) keeps it linear; a label seen
 * twice in one profile pairs its k-th occurrences. The result holds the
 * labels present in every profile (fuse-openmp §3), in the first's order. */
#include <stdlib.h>
#include <string.h>
#include "combine/combine_impl.h"
#include "util/internal.h"

struct cand {
	const char *label;
	uint32_t node; /* the label's node, with c->lt (label NULL then) */
	uint32_t type;
	int32_t next; /* next occurrence of the same (type, label), or -1 */
};

int pmcfi_cmb_lgl(struct pmcfi_cmb *c)
{
	size_t n = c->n, n0 = pmcf_profile_nxus(c->in[0]);
	size_t nslot = 16;
	while (nslot < 2 * n0)
		nslot *= 2;
	struct cand *cd = malloc((n0 ? n0 : 1) * sizeof(*cd));
	int32_t *slot = malloc(nslot * sizeof(*slot));
	int32_t *src = malloc((n0 ? n0 : 1) * n * sizeof(*src));
	int err = 0;
	if (!cd || !slot || !src) {
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory for the label table");
		goto out;
	}
	memset(slot, 0xff, nslot * sizeof(*slot));
	memset(src, 0xff, (n0 ? n0 : 1) * n * sizeof(*src));
	for (size_t j = 0; j < n; j++) {
		size_t nx = pmcf_profile_nxus(c->in[j]);
		for (size_t x = 0; x < nx; x++) {
			pmcf_xu xu = PMCF_XU_INIT;
			uint32_t t = pmcfi_cmb_type(c, j, x), node = c->lt ? c->lt->xlab[j][x] : 0;
			if (!c->lt)
				pmcf_profile_xu_get(c->in[j], x, &xu);
			uint64_t h0 = pmcfi_cmb_hash(PMCFI_CMB_HASH0, &t, sizeof(t));
			size_t h = (xu.label ? pmcfi_cmb_hash(h0, xu.label, strlen(xu.label))
					     : pmcfi_cmb_hash(h0, &node, sizeof(node))) &
				   (nslot - 1);
			int32_t head = -1;
			while (slot[h] >= 0) {
				struct cand *k = &cd[slot[h]];
				if (k->type == t &&
				    (xu.label ? strcmp(k->label, xu.label) == 0 : k->node == node)) {
					head = slot[h];
					break;
				}
				h = (h + 1) & (nslot - 1);
			}
			if (head >= 0 && src[(size_t)head * n + j] >= 0)
				c->stats->labels_duplicate++;
			/* first occurrence in the chain that input j has not filled */
			int32_t k = head, last = -1;
			while (k >= 0 && src[(size_t)k * n + j] >= 0) {
				last = k;
				k = cd[k].next;
			}
			if (k < 0 && j == 0) {
				k = (int32_t)x; /* input 0 makes candidate x */
				cd[k] = (struct cand){xu.label, node, t, -1};
				if (last >= 0)
					cd[last].next = k;
				else
					slot[h] = k;
			}
			if (k < 0) {
				c->stats->labels_extra++;
				continue;
			}
			src[(size_t)k * n + j] = (int32_t)x;
		}
	}
	for (size_t k = 0; k < n0; k++) {
		int all = 1;
		for (size_t j = 0; j < n; j++)
			all &= src[k * n + j] >= 0;
		if (!all) {
			c->stats->labels_missing++;
			continue;
		}
		long f = pmcfi_cmb_add(c, cd[k].type);
		if (f < 0) {
			err = pmcfi_fail(PMCF_ENOMEM, "out of memory pairing XUs");
			break;
		}
		memcpy(c->src + (size_t)f * n, src + k * n, n * sizeof(*src));
	}
	c->stats->labels_matched = c->nf;
out:
	free(cd);
	free(slot);
	free(src);
	return err;
}
