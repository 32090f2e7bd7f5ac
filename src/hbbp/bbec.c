/* Basic-block execution counts from perf samples (hbbp-instruction-mix):
 * EBS (§III.A: a sample counts its enclosing block, divided by the block
 * length), LBR (§III.B: N-1 streams per stack, 1/(N-1) each; entry[0] bias,
 * §III.C) and HBBP (§IV: LBR for blocks of at most 18 instructions). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "hbbp/hbbp_impl.h"
#include "util/abi.h"
#include "util/internal.h"

#define MAX_STREAM_INS 4096 /* longer streams are not straight-line code */

enum { SRC_OTHER, SRC_EBS, SRC_LBR };

static int icontains(const char *h, const char *n)
{
	size_t ln = strlen(n);
	for (; h && *h; h++)
		if (!strncasecmp(h, n, ln))
			return 1;
	return 0;
}

static int is_branch_event(const pmcf_pd_attr *a)
{
	if (icontains(a->name, "br_inst") || icontains(a->name, "branch") ||
	    icontains(a->name, "near_taken") || icontains(a->name, "taken"))
		return 1;
	if (a->type == 0 && a->config == 4) /* PERF_COUNT_HW_BRANCH_INSTRUCTIONS */
		return 1;
	return a->type == 4 && (a->config & 0xff) == 0xc4; /* raw BR_INST_RETIRED.* */
}

static int is_instruction_event(const pmcf_pd_attr *a)
{
	if (icontains(a->name, "inst_retired") || icontains(a->name, "instructions"))
		return 1;
	if (a->type == 0 && a->config == 1) /* PERF_COUNT_HW_INSTRUCTIONS */
		return 1;
	return a->type == 4 && (a->config & 0xff) == 0xc0;
}

/* cpu-clock and task-clock: samples fall in proportion to time. */
static int is_time_event(const pmcf_pd_attr *a)
{
	if (icontains(a->name, "cpu-clock") || icontains(a->name, "task-clock"))
		return 1;
	return a->type == 1 && (a->config == 0 || a->config == 1); /* PERF_TYPE_SOFTWARE */
}

/* Address spaces: the mmaps of each pid, with fork parents. */
struct space {
	uint32_t pid, ppid;
	size_t *maps, n, cap;
};

struct ctx {
	const pmcf_perfdata *pd;
	pmcf_imix *m;
	const pmcf_imix_opts *o;
	struct space *sp;
	size_t nsp, capsp;
	struct pmcfi_hbbp_image *vmlinux;
	int method, have_ebs, have_lbr;
	unsigned cutoff;
	double bias_ratio, depth_sum;
	uint64_t depth_n;
	struct pmcfi_hbbp_tsample *ts; /* time samples with user registers (PMCF_IMIX_RATE_IV) */
	size_t nts, capts;
	int oom;
};

static struct space *space_of(struct ctx *c, uint32_t pid, int create)
{
	for (size_t i = 0; i < c->nsp; i++)
		if (c->sp[i].pid == pid)
			return &c->sp[i];
	if (!create)
		return NULL;
	if (pmcfi_grow((void **)&c->sp, &c->capsp, c->nsp + 1, sizeof(*c->sp)))
		return NULL;
	struct space *s = &c->sp[c->nsp++];
	memset(s, 0, sizeof(*s));
	s->pid = pid;
	s->ppid = pid;
	return s;
}

static int build_spaces(struct ctx *c)
{
	const pmcf_perfdata *pd = c->pd;
	for (size_t i = 0; i < pmcf_perfdata_nmmaps(pd); i++) {
		struct space *s = space_of(c, pmcf_perfdata_mmap(pd, i)->pid, 1);
		if (!s)
			return pmcfi_fail(PMCF_ENOMEM, "out of memory");
		if (pmcfi_grow((void **)&s->maps, &s->cap, s->n + 1, sizeof(*s->maps)))
			return pmcfi_fail(PMCF_ENOMEM, "out of memory");
		s->maps[s->n++] = i;
	}
	for (size_t i = 0; i < pmcf_perfdata_ntasks(pd); i++) {
		const pmcf_pd_task *t = pmcf_perfdata_task(pd, i);
		if (t->exit || t->pid == t->ppid)
			continue;
		struct space *s = space_of(c, t->pid, 1);
		if (!s)
			return pmcfi_fail(PMCF_ENOMEM, "out of memory");
		s->ppid = t->ppid;
	}
	return 0;
}

/* The newest mapping of pid (or its fork ancestors, or the kernel's) that
 * covers ip. */
static const pmcf_pd_mmap *find_map(struct ctx *c, uint32_t pid, uint64_t ip)
{
	for (int depth = 0; depth < 64; depth++) {
		struct space *s = space_of(c, pid, 0);
		if (!s)
			break;
		for (size_t k = s->n; k-- > 0;) {
			const pmcf_pd_mmap *mm = pmcf_perfdata_mmap(c->pd, s->maps[k]);
			if (ip >= mm->addr && ip - mm->addr < mm->len)
				return mm;
		}
		if (s->ppid == pid)
			break;
		pid = s->ppid;
	}
	if (pid != UINT32_MAX)
		return find_map(c, UINT32_MAX, ip);
	return NULL;
}

/* Resolves a runtime address to a decoded function and instruction index. */
static struct pmcfi_hbbp_func *resolve(struct ctx *c, uint32_t pid, uint64_t ip, int kernel, long *idx,
				       struct pmcfi_hbbp_image **imo)
{
	const pmcf_pd_mmap *mm = find_map(c, kernel ? UINT32_MAX : pid, ip);
	struct pmcfi_hbbp_image *im = NULL;
	uint64_t addr = 0;
	if (kernel || (mm && mm->filename[0] == '[' && !strncmp(mm->filename, "[kernel", 7))) {
		if (!c->vmlinux)
			return NULL;
		im = c->vmlinux;
		addr = ip;
		if (mm && im->kernel_text && !strncmp(mm->filename, "[kernel", 7))
			addr = ip - mm->pgoff + im->kernel_text;
	} else {
		if (!mm || mm->filename[0] != '/')
			return NULL;
		im = pmcfi_hbbp_mix_image(c->m, mm->filename);
		if (!im || pmcfi_hbbp_image_off2addr(im, ip - mm->addr + mm->pgoff, &addr) != 0)
			return NULL;
	}
	struct pmcfi_hbbp_func *f = pmcfi_hbbp_image_func(im, addr);
	if (!f)
		return NULL;
	*idx = pmcfi_hbbp_func_ins(f, addr);
	*imo = im;
	return *idx < 0 ? NULL : f;
}

static double weight_of(const pmcf_pd_attr *a, const pmcf_pd_sample *s)
{
	if (s->period)
		return (double)s->period;
	if (!a->freq && a->sample_period)
		return (double)a->sample_period;
	return 1.0;
}

static void ebs_sample(struct ctx *c, const pmcf_pd_attr *a, const pmcf_pd_sample *s)
{
	int kernel = (s->misc & 7) == 1 || (s->ip >> 63);
	double w = weight_of(a, s);
	long i;
	struct pmcfi_hbbp_image *im;
	struct pmcfi_hbbp_func *f = resolve(c, s->pid, s->ip, kernel, &i, &im);
	c->m->st.ebs_samples++;
	c->m->st.ebs_weight += w;
	if (!f) {
		if (kernel) {
			c->m->st.unattr_kernel += w;
			c->m->st.unattr_kernel_samples++;
		} else {
			c->m->st.unattr_user += w;
			c->m->st.unattr_user_samples++;
		}
		return;
	}
	uint32_t b = f->ins[i].block;
	f->ebs[b] += w;
	if ((size_t)i == f->blocks[b].first)
		f->ebs_head[b] += w;
	if (c->o->rate != PMCF_IMIX_RATE_NONE && c->m->st.time_event && s->nregs && !kernel) {
		if (pmcfi_grow((void **)&c->ts, &c->capts, c->nts + 1, sizeof(*c->ts))) {
			c->oom = 1;
			return;
		}
		c->ts[c->nts++] = (struct pmcfi_hbbp_tsample){f, (uint32_t)i,  s->tid, s->time,
							      w, s->regs_mask, s->regs};
	}
}

static void lbr_sample(struct ctx *c, const pmcf_pd_attr *a, const pmcf_pd_sample *s)
{
	uint64_t n = s->nbranches;
	c->m->st.lbr_samples++;
	if (n < 2)
		return;
	double w = weight_of(a, s) / (double)(n - 1);
	c->m->st.lbr_weight += weight_of(a, s);
	c->depth_sum += (double)n;
	c->depth_n++;
	/* bias bookkeeping: the block ending with each source, and the oldest */
	for (uint64_t k = 0; k < n; k++) {
		long i;
		struct pmcfi_hbbp_image *im;
		uint64_t from = s->branches[k].from;
		struct pmcfi_hbbp_func *f = resolve(c, s->pid, from, from >> 63, &i, &im);
		if (!f)
			continue;
		f->inlbr[f->ins[i].block]++;
		if (k == n - 1)
			f->oldest[f->ins[i].block]++;
	}
	/* streams: target of the older entry to the source of the newer one */
	for (uint64_t k = 0; k + 1 < n; k++) {
		uint64_t t = s->branches[k + 1].to, src = s->branches[k].from;
		long it, is;
		struct pmcfi_hbbp_image *imt, *ims;
		c->m->st.lbr_streams++;
		struct pmcfi_hbbp_func *ft = resolve(c, s->pid, t, t >> 63, &it, &imt);
		struct pmcfi_hbbp_func *fs = ft ? resolve(c, s->pid, src, src >> 63, &is, &ims) : NULL;
		if (!ft || ft != fs || it > is || is - it > MAX_STREAM_INS) {
			c->m->st.lbr_streams_discarded++;
			continue;
		}
		for (long k2 = it; k2 <= is; k2++)
			ft->lbr[k2] += w;
	}
}

static double choose(void *vc, const struct pmcfi_hbbp_func *f, size_t b, int *src, double *ebs, double *lbr,
		     int *bias)
{
	struct ctx *c = vc;
	const struct pmcfi_hbbp_block *bl = &f->blocks[b];
	double sum = 0;
	for (uint32_t k = 0; k < bl->n; k++)
		sum += f->lbr[bl->first + k];
	*ebs = f->ebs[b] / bl->n;
	*lbr = sum / bl->n;
	double depth = c->depth_n ? c->depth_sum / (double)c->depth_n : 16;
	*bias = f->inlbr[b] >= 8 && (double)f->oldest[b] / (double)f->inlbr[b] > c->bias_ratio / depth;
	int use_lbr;
	if (c->method == PMCF_IMIX_EBS || c->method == PMCF_IMIX_EBS_RAW)
		use_lbr = 0;
	else if (c->method == PMCF_IMIX_LBR)
		use_lbr = 1;
	else if (!c->have_lbr)
		use_lbr = 0;
	else if (!c->have_ebs)
		use_lbr = 1;
	else
		use_lbr = bl->n <= c->cutoff;
	*src = use_lbr ? PMCF_IMIX_SRC_LBR : PMCF_IMIX_SRC_EBS;
	return use_lbr ? *lbr : *ebs;
}

int pmcf_imix_from_perfdata(const pmcf_perfdata *pd, const pmcf_imix_opts *opts, pmcf_imix **out)
{
	pmcfi_clear_error();
	*out = NULL;
	pmcf_imix_opts o = {0};
	int rc = pmcfi_struct_in("pmcf_imix_opts", &o, opts, offsetof(pmcf_imix_opts, llvm_mca), sizeof(o));
	if (rc)
		return rc;
	if (o.method < PMCF_IMIX_HBBP || o.method > PMCF_IMIX_EBS_RAW)
		return pmcfi_fail(PMCF_EINVAL, "unknown BBEC method %d", o.method);
	struct ctx c = {.pd = pd, .o = &o, .method = o.method};
	c.cutoff = o.cutoff ? o.cutoff : HBBP_DEFAULT_CUTOFF;
	c.bias_ratio = o.bias_ratio > 0 ? o.bias_ratio : 3.0;
	rc = pmcfi_hbbp_mix_new(&o, &c.m);
	if (rc)
		return rc;
	size_t na = pmcf_perfdata_nattrs(pd);
	int *cls = calloc(na + 1, sizeof(int));
	if (!cls) {
		pmcf_imix_free(c.m);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	}
	int nlbr_named = 0;
	for (size_t i = 0; i < na; i++) {
		const pmcf_pd_attr *a = pmcf_perfdata_attr(pd, i);
		if (o.ebs_event || o.lbr_event) {
			cls[i] = o.lbr_event && !strcasecmp(a->name, o.lbr_event)   ? SRC_LBR
				 : o.ebs_event && !strcasecmp(a->name, o.ebs_event) ? SRC_EBS
										    : SRC_OTHER;
		} else {
			cls[i] = (a->sample_type & (1u << 11)) && is_branch_event(a) ? SRC_LBR : SRC_EBS;
		}
		nlbr_named += cls[i] == SRC_LBR;
	}
	/* one attribute with branch stacks and nothing else: use its stacks for LBR too */
	int lbr_from_ebs = !nlbr_named && o.method == PMCF_IMIX_LBR;
	for (size_t i = 0; i < na; i++) {
		const pmcf_pd_attr *a = pmcf_perfdata_attr(pd, i);
		if (cls[i] == SRC_EBS && !is_instruction_event(a))
			c.m->st.relative = 1;
		if (cls[i] == SRC_EBS && is_time_event(a))
			c.m->st.time_event = 1;
	}
	rc = build_spaces(&c);
	if (!rc && o.vmlinux) {
		c.vmlinux = pmcfi_hbbp_mix_image(c.m, o.vmlinux);
		if (!c.vmlinux)
			rc = pmcfi_fail(PMCF_EINVAL, "cannot read the kernel image %s", o.vmlinux);
		else
			c.vmlinux->is_kernel = 1;
	}
	for (size_t i = 0; !rc && i < pmcf_perfdata_nsamples(pd); i++) {
		const pmcf_pd_sample *s = pmcf_perfdata_sample(pd, i);
		if (s->attr == PMCF_PD_NOATTR || s->attr >= na) {
			c.m->st.other_samples++;
			continue;
		}
		const pmcf_pd_attr *a = pmcf_perfdata_attr(pd, s->attr);
		int k = cls[s->attr];
		if (k == SRC_EBS) {
			c.have_ebs = 1;
			ebs_sample(&c, a, s);
		}
		if (k == SRC_LBR || (lbr_from_ebs && s->nbranches)) {
			c.have_lbr = 1;
			lbr_sample(&c, a, s);
		}
		if (k == SRC_OTHER)
			c.m->st.other_samples++;
	}
	free(cls);
	if (!rc && c.oom)
		rc = pmcfi_fail(PMCF_ENOMEM, "out of memory");
	if (!rc && o.method == PMCF_IMIX_LBR && !c.have_lbr)
		rc = pmcfi_fail(PMCF_EINVAL, "no branch stacks in the samples: LBR needs a "
					     "recording with -b/-j (without ebs_only; imix record "
					     "without --ebs-only)");
	if (!rc && (o.method == PMCF_IMIX_EBS || o.method == PMCF_IMIX_EBS_RAW) && !c.have_ebs)
		rc = pmcfi_fail(PMCF_EINVAL, "no EBS samples in the recording");
	/* timer samples weigh blocks by time: turn them into executions */
	if (!rc && c.have_ebs && c.m->st.time_event && o.method != PMCF_IMIX_EBS_RAW &&
	    o.method != PMCF_IMIX_LBR)
		rc = pmcfi_hbbp_time_to_count(c.m, &o, pmcf_perfdata_cpuid(pd), c.ts, c.nts);
	free(c.ts);
	if (!rc)
		rc = pmcfi_hbbp_mix_emit(c.m, choose, &c, 0);
	for (size_t i = 0; i < c.nsp; i++)
		free(c.sp[i].maps);
	free(c.sp);
	if (rc) {
		pmcf_imix_free(c.m);
		return rc;
	}
	*out = c.m;
	return 0;
}
