/* The two arms of a conditional branch (PMCF_IMIX_ARMS_FLOW): flow
 * conservation at the two-way branches of a function with measured counts. */
#include <stdlib.h>
#include <string.h>
#include <Zydis/Zydis.h>
#include "hbbp/hbbp_impl.h"
#include "hbbp/tc_impl.h"
#include "util/internal.h"

/* Expected samples below which an arm with none is not taken as not run. */
#define ARM_MIN_SAMPLES 3.

/* Flow conservation at the two-way branches of f (docs/imix.md): where a
 * block h with a count ends in a conditional branch to two distinct blocks
 * a and b whose only way in is that branch (N_a + N_b = N_h), in h's
 * innermost loop, the blocks a dominates (a's arm) and those b dominates are
 * scaled so that the two arm heads add up to h's count, keeping their ratio.
 * An arm without any count is not run when, run half as often as h at the
 * sample density of h's unit, its instructions after the first (with skid
 * prev the first one's samples go to h) would have held ARM_MIN_SAMPLES or
 * more; below that (a one-instruction arm holds no sample with skid prev,
 * whatever its count: its time is sampled at the join, with the other
 * arm's last instruction) the samples cannot tell, and an arm of one block
 * is given N_h / 2 (the prior: half each way), the other arm the rest.
 * Branches are visited from the top of the dominator tree down, so a
 * branch inside an arm sees the arm's corrected count. Only where h's
 * count is measured (anch: a block that runs once per iteration of a loop
 * with a measured count, or an arm scaled here from one): two counts of
 * the cost model alone are no better than each other, and scaling one to
 * the other moves the model's error between the arms and the rest of the
 * loop. bc: per block count (from f->boff), dens: per block the samples per
 * instruction and execution of its unit (0 without one). */
int pmcfi_hbbp_split_arms(pmcf_imix *m, const ZydisDecoder *dec, struct pmcfi_hbbp_func *f,
			  const struct pmcfi_hbbp_blkinfo *bi, int skid_prev, double *bc, const double *dens,
			  uint8_t *anch)
{
	size_t nb = f->nblocks, o = f->boff, ne = 0;
	const uint32_t *flp = bi->flp + o, *fdom = bi->fdom + o;
	double *c = bc + o;
	uint8_t *an = anch + o;
	struct pmcfi_hbbp_edge *e = NULL;
	int rc = pmcfi_hbbp_func_edges(dec, f, &e, &ne);
	if (rc)
		return rc;
	/* w: npred, nsucc, succ0, succ1, the dominator tree (children in rows),
	 * preorder number, last preorder below, blocks in preorder, stack */
	uint32_t *w = malloc((10 * nb + 2) * sizeof(uint32_t));
	if (!w) {
		free(e);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	}
	uint32_t *npred = w, *nsucc = w + nb, *succ = w + 2 * nb, *coff = w + 4 * nb, *child = w + 5 * nb + 1,
		 *pre = w + 6 * nb + 1, *last = w + 7 * nb + 1, *order = w + 8 * nb + 1,
		 *stack = w + 9 * nb + 1;
	for (size_t b = 0; b < nb; b++)
		npred[b] = nsucc[b] = 0, coff[b] = 0, pre[b] = last[b] = UINT32_MAX;
	coff[nb] = 0;
	for (size_t i = 0; i < ne; i++) {
		npred[e[i].to]++;
		uint32_t fr = e[i].from;
		if (nsucc[fr] < 2)
			succ[2 * fr + nsucc[fr]] = e[i].call ? UINT32_MAX : e[i].to;
		nsucc[fr]++;
	}
	/* the dominator tree's children in rows, then preorder from its roots */
	for (size_t b = 0; b < nb; b++)
		if (fdom[b] < nb)
			coff[fdom[b] + 1]++;
	for (size_t b = 0; b < nb; b++)
		coff[b + 1] += coff[b];
	for (size_t b = 0; b < nb; b++)
		stack[b] = coff[b];
	for (size_t b = 0; b < nb; b++)
		if (fdom[b] < nb)
			child[stack[fdom[b]]++] = (uint32_t)b;
	uint32_t clock = 0;
	for (size_t r = 0; r < nb; r++) {
		if (fdom[r] < nb || pre[r] != UINT32_MAX)
			continue;
		size_t sp = 0;
		pre[r] = clock, order[clock++] = (uint32_t)r, stack[sp++] = (uint32_t)r;
		/* the next child to visit of each node on the stack: last[] */
		last[r] = coff[r];
		while (sp) {
			uint32_t v = stack[sp - 1];
			if (last[v] < coff[v + 1]) {
				uint32_t ch = child[last[v]++];
				pre[ch] = clock, order[clock++] = ch, last[ch] = coff[ch], stack[sp++] = ch;
			} else {
				last[v] = clock - 1;
				sp--;
			}
		}
	}
	for (uint32_t k = 0; k < clock; k++) {
		uint32_t h = order[k];
		if (nsucc[h] != 2 || !(c[h] > 0) || !an[h])
			continue;
		uint32_t s[2] = {succ[2 * h], succ[2 * h + 1]}, ok = 1;
		for (int j = 0; j < 2 && ok; j++)
			ok = s[j] < nb && s[j] != h && npred[s[j]] == 1 && fdom[s[j]] == h &&
			     flp[s[j]] == flp[h] && flp[h] != UINT32_MAX && s[j] != flp[h];
		if (!ok || s[0] == s[1])
			continue;
		/* each arm: the blocks its head dominates, all in h's loop;
		 * whether any of them has a count; its instructions */
		int seen[2] = {0, 0};
		unsigned len[2] = {0, 0}, nblk[2] = {0, 0};
		for (int j = 0; j < 2 && ok; j++)
			for (uint32_t q = pre[s[j]]; ok && q <= last[s[j]]; q++) {
				uint32_t x = order[q];
				ok = flp[x] == flp[h];
				seen[j] |= c[x] > 0;
				len[j] += f->blocks[x].n;
				nblk[j]++;
			}
		if (!ok || (!seen[0] && !seen[1]))
			continue;
		double target[2];
		if (seen[0] && seen[1]) {
			double sum = c[s[0]] + c[s[1]];
			if (!(c[s[0]] > 0) || !(c[s[1]] > 0))
				continue;
			target[0] = c[h] * c[s[0]] / sum, target[1] = c[h] * c[s[1]] / sum;
		} else {
			int a = !seen[0] ? 0 : 1;                  /* the arm without a count */
			if (!(c[s[!a]] > 0) || !(dens[o + h] > 0)) /* h without samples: no density */
				continue;
			/* the samples its instructions would hold at N_h / 2 */
			double lambda = dens[o + h] * (len[a] - (skid_prev ? 1 : 0)) * c[h] / 2;
			if (lambda >= ARM_MIN_SAMPLES) { /* not run */
				target[a] = 0, target[!a] = c[h];
			} else {
				if (nblk[a] != 1)
					continue;
				target[a] = target[!a] = c[h] / 2;
				c[s[a]] = target[a], an[s[a]] = 1;
				m->st.arms_prior++;
			}
		}
		for (int j = 0; j < 2; j++) {
			if (!(c[s[j]] > 0))
				continue;
			double k2 = target[j] / c[s[j]];
			for (uint32_t q = pre[s[j]]; q <= last[s[j]]; q++)
				c[order[q]] *= k2, an[order[q]] = 1;
		}
		m->st.arms_flow++;
	}
	free(w);
	free(e);
	return 0;
}
