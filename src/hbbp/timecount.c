/* Time-to-count correction of EBS on a time event (docs/imix.md): timer
 * samples fall in proportion to the time a block takes, executions x cycles,
 * so a block's executions are its samples divided by its cycles per
 * execution from a static cost model (llvm-mca, or the caller's). Skid: a
 * sample's time is charged to the instruction before the sampled IP. */
#include <stdlib.h>
#include <string.h>
#include <Zydis/Zydis.h>
#include "hbbp/hbbp_impl.h"
#include "util/internal.h"

struct edge {
	uint32_t from, to;
};

static int edge_cmp(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	return (x->from > y->from) - (x->from < y->from);
}

/* Block index of addr in f when a block starts there, or -1. */
static long block_of(const struct hbbp_func *f, uint64_t addr)
{
	long i = addr >= f->start && addr < f->end ? hbbpi_func_ins(f, addr) : -1;
	if (i < 0 || f->ins[i].addr != addr)
		return -1;
	uint32_t b = f->ins[i].block;
	return f->blocks[b].start == addr ? (long)b : -1;
}

/* Skid (PMCF_IMIX_SKID_PREV): the samples at a block's first instruction
 * belong to the instruction executed before it, the last one of a
 * predecessor in the function's static control flow (fall-through, direct
 * branches); they are split over the predecessors in proportion to the
 * predecessors' own samples. Blocks without a predecessor in the function
 * (its entry, return sites) keep them. */
static int move_heads(const ZydisDecoder *dec, struct hbbp_func *f)
{
	double heads = 0;
	for (size_t b = 0; b < f->nblocks; b++)
		heads += f->ebs_head[b];
	if (heads <= 0)
		return 0;
	struct edge *e = malloc(2 * f->nblocks * sizeof(*e));
	double *own = malloc(f->nblocks * sizeof(*own));
	if (!e || !own) {
		free(e);
		free(own);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	}
	size_t ne = 0;
	for (size_t b = 0; b < f->nblocks; b++) {
		own[b] = f->ebs[b];
		const struct hbbp_block *bl = &f->blocks[b];
		const struct hbbp_ins *last = &f->ins[bl->first + bl->n - 1];
		int falls = 1;
		ZydisDecodedInstruction d;
		if ((last->flags & INS_CF) &&
		    ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(dec, NULL, f->bytes + (last->addr - f->start),
								last->len, &d))) {
			ZydisInstructionCategory c = d.meta.category;
			falls = c == ZYDIS_CATEGORY_COND_BR;
			if ((c == ZYDIS_CATEGORY_COND_BR || c == ZYDIS_CATEGORY_UNCOND_BR) &&
			    (d.attributes & ZYDIS_ATTRIB_IS_RELATIVE) && d.raw.imm[0].is_relative) {
				long t = block_of(f, last->addr + d.length + (uint64_t)d.raw.imm[0].value.s);
				if (t >= 0)
					e[ne++] = (struct edge){(uint32_t)b, (uint32_t)t};
			}
		} else if (last->flags & INS_CF) {
			falls = 0;
		}
		if (falls && b + 1 < f->nblocks && f->blocks[b + 1].start == last->addr + last->len)
			e[ne++] = (struct edge){(uint32_t)b, (uint32_t)(b + 1)};
	}
	qsort(e, ne, sizeof(*e), edge_cmp);
	for (size_t i = 0; i < ne;) {
		size_t j = i;
		double sum = 0;
		for (; j < ne && e[j].to == e[i].to; j++)
			sum += own[e[j].from];
		uint32_t to = e[i].to;
		double h = f->ebs_head[to];
		if (h > 0) {
			f->ebs[to] -= h;
			for (size_t k = i; k < j; k++)
				f->ebs[e[k].from] += sum > 0 ? h * own[e[k].from] / sum : h / (double)(j - i);
		}
		i = j;
	}
	free(e);
	free(own);
	return 0;
}

struct costed {
	struct hbbp_func *f;
	size_t b;
};

int hbbpi_time_to_count(pmcf_imix *m, const pmcf_imix_opts *o, const char *cpuid)
{
	pmcf_imix_stats *st = &m->st;
	struct hbbp_cost_model cm;
	if (o->cost) {
		snprintf(st->cost_model, sizeof(st->cost_model), "the caller's cost model");
	} else {
		int rc = hbbpi_cost_model_find(o->llvm_mca, o->mcpu, cpuid, &cm);
		if (rc)
			return rc;
		hbbpi_cost_model_describe(&cm, st->cost_model, sizeof(st->cost_model));
		if (!cm.ok) {
			st->correction = PMCF_IMIX_CORR_UNAVAILABLE;
			return 0;
		}
	}
	ZydisDecoder dec;
	if (ZYAN_FAILED(ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)))
		return pmcfi_fail(PMCF_ENOTSUP, "Zydis decoder init failed");
	size_t n = 0, pos = 0;
	struct hbbp_image *im;
	for (struct hbbp_func *f; (f = hbbpi_mix_next_func(m, &pos, &im));) {
		if (o->skid == PMCF_IMIX_SKID_PREV) {
			int rc = move_heads(&dec, f);
			if (rc)
				return rc;
		}
		for (size_t b = 0; b < f->nblocks; b++)
			n += f->ebs[b] > 0;
	}
	struct costed *cs = malloc((n + 1) * sizeof(*cs));
	pmcf_imix_code_block *cb = malloc((n + 1) * sizeof(*cb));
	double *cyc = malloc((n + 1) * sizeof(*cyc));
	if (!cs || !cb || !cyc) {
		free(cs);
		free(cb);
		free(cyc);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	}
	size_t k = 0;
	pos = 0;
	for (struct hbbp_func *f; (f = hbbpi_mix_next_func(m, &pos, &im));) {
		for (size_t b = 0; b < f->nblocks; b++) {
			if (f->ebs[b] <= 0)
				continue;
			const struct hbbp_block *bl = &f->blocks[b];
			const struct hbbp_ins *last = &f->ins[bl->first + bl->n - 1];
			cs[k] = (struct costed){f, b};
			cb[k++] = (pmcf_imix_code_block){im->path, f->name, bl->start, bl->n,
							 f->bytes + (bl->start - f->start),
							 (size_t)(last->addr + last->len - bl->start)};
		}
	}
	int rc = o->cost ? o->cost(o->cost_ctx, cb, n, cyc) : hbbpi_cost_blocks(&cm, cb, n, cyc);
	if (rc) {
		free(cs);
		free(cb);
		free(cyc);
		return rc < 0 ? rc : pmcfi_fail(PMCF_EINVAL, "cost model failed (%d)", rc);
	}
	/* executions = weight / cycles; blocks without a cost take the average
	 * cycles per instruction of the others; the total weight is kept */
	double w_known = 0, ins_known = 0, w_all = 0, ins_all = 0;
	for (size_t i = 0; i < n; i++) {
		double w = cs[i].f->ebs[cs[i].b];
		w_all += w;
		if (cyc[i] > 0) {
			w_known += w;
			ins_known += w / cyc[i] * cb[i].len;
		}
	}
	double cpi = ins_known > 0 ? w_known / ins_known : 1;
	for (size_t i = 0; i < n; i++) {
		if (!(cyc[i] > 0)) {
			cyc[i] = cpi * cb[i].len;
			st->cost_unknown++;
		}
		ins_all += cs[i].f->ebs[cs[i].b] / cyc[i] * cb[i].len;
	}
	double scale = ins_all > 0 ? w_all / ins_all : 1;
	for (size_t i = 0; i < n; i++)
		cs[i].f->ebs[cs[i].b] *= scale * cb[i].len / cyc[i];
	st->cost_blocks = n;
	st->correction = PMCF_IMIX_CORR_APPLIED;
	free(cs);
	free(cb);
	free(cyc);
	return 0;
}
