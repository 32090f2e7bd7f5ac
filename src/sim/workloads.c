/* The simulated workloads as XU graphs: types, labels by the real
 * collector's rules (task creation tree, fuse-task-parallel §3.1; loop
 * chunks by start iteration, fuse-openmp §4.1), data dependencies, data
 * placement and the latent work features of every XU. Nothing here depends
 * on the execution seed: it describes the program and its input. */
#include "sim/sim_impl.h"
#include "util/abi.h"
#include "util/internal.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROOT_CREATE_NS 250 /* the root task creating one task */

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	return pmcfi_grow(p, cap, need, elem) ? pmcfi_fail(PMCF_ENOMEM, "out of memory building the workload")
					      : 0;
}

/* Appends a NUL-terminated string to the label arena; returns its offset
 * in *off. */
static int label_add(struct pmcfi_sim_workload *w, uint32_t *off, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(buf))
		return pmcfi_fail(PMCF_EINVAL, "label too long");
	int err = grow((void **)&w->arena, &w->arena_cap, w->arena_len + (size_t)n + 1, 1);
	if (err)
		return err;
	if (w->arena_len + (size_t)n + 1 > UINT32_MAX)
		return pmcfi_fail(PMCF_EINVAL, "workload too large");
	memcpy(w->arena + w->arena_len, buf, (size_t)n + 1);
	*off = (uint32_t)w->arena_len;
	w->arena_len += (size_t)n + 1;
	return 0;
}

static int add_type(struct pmcfi_sim_workload *w, int kind, const char *name, const char *loc)
{
	struct pmcfi_sim_wtype *t = &w->types[w->ntypes];
	t->kind = kind;
	snprintf(t->name, sizeof(t->name), "%s", name);
	snprintf(t->location, sizeof(t->location), "%s", loc);
	return w->ntypes++;
}

/* A new XU (deps added right after with add_dep). */
static struct pmcfi_sim_wxu *add_xu(struct pmcfi_sim_workload *w, int type, size_t *idx)
{
	if (grow((void **)&w->xu, &w->xu_cap, w->nxu + 1, sizeof(*w->xu)))
		return NULL;
	struct pmcfi_sim_wxu *x = &w->xu[w->nxu];
	memset(x, 0, sizeof(*x));
	x->type = (uint32_t)type;
	x->owner = -1;
	x->phase = -1;
	x->dep_off = (uint32_t)w->ndeps;
	for (int i = 0; i < 4; i++)
		x->data[i] = -1;
	if (idx)
		*idx = w->nxu;
	w->nxu++;
	return x;
}

static int add_dep(struct pmcfi_sim_workload *w, size_t x, long dep)
{
	if (dep < 0)
		return 0;
	struct pmcfi_sim_wxu *u = &w->xu[x];
	for (uint32_t i = 0; i < u->ndeps; i++)
		if (w->deps[u->dep_off + i] == (uint32_t)dep)
			return 0;
	int err = grow((void **)&w->deps, &w->deps_cap, w->ndeps + 1, sizeof(*w->deps));
	if (err)
		return err;
	w->deps[w->ndeps++] = (uint32_t)dep;
	u->ndeps++;
	return 0;
}

/* Deterministic per-XU variation of the input: 1 ± amp. */
static double jit(uint64_t key, uint64_t salt, double amp)
{
	return 1.0 + amp * (2.0 * pmcfi_rng_hash_unif(key, salt) - 1.0);
}

static void work_common(struct pmcfi_sim_work *k, uint64_t key)
{
	k->split = 0.25 + 0.5 * pmcfi_rng_hash_unif(key, 101);
	k->front = 0.55 + 0.3 * pmcfi_rng_hash_unif(key, 102);
}

static int homes(struct pmcfi_sim_workload *w, size_t ndata)
{
	w->data_home = calloc(ndata ? ndata : 1, sizeof(*w->data_home));
	w->data_inter = calloc(ndata ? ndata : 1, 1);
	if (!w->data_home || !w->data_inter)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory building the workload");
	w->ndata = ndata;
	return 0;
}

/* An nb x nb matrix of blocks: data ids i*nb+j placed by first touch of a
 * row-parallel initialisation (rows split across nodes), and the last-writer
 * table (*lw, all -1; the caller frees it) that gives the dependencies. */
static int blocks_setup(struct pmcfi_sim_workload *w, const struct pmcfi_sim_machine *m, long nb, long **lw)
{
	size_t nblk = (size_t)(nb * nb);
	*lw = malloc(nblk * sizeof(**lw));
	int err = *lw ? homes(w, nblk) : pmcfi_fail(PMCF_ENOMEM, "out of memory");
	if (err) {
		free(*lw);
		return err;
	}
	for (size_t i = 0; i < nblk; i++) {
		(*lw)[i] = -1;
		w->data_home[i] = (int32_t)((long)(i / (size_t)nb) * m->numa_nodes / nb);
	}
	return 0;
}

/* ---- cholesky: tiled right-looking factorisation, one task per kernel call */
static int build_cholesky(struct pmcfi_sim_workload *w, const pmcf_sim_spec *s,
			  const struct pmcfi_sim_machine *m)
{
	long nb = pmcfi_sim_spec_get(s, "blocks"), b = pmcfi_sim_spec_get(s, "bsize");
	int tp = add_type(w, PMCF_XU_TASK, "potrf", "cholesky.c:52");
	int tt = add_type(w, PMCF_XU_TASK, "trsm", "cholesky.c:61");
	int ts = add_type(w, PMCF_XU_TASK, "syrk", "cholesky.c:70");
	int tg = add_type(w, PMCF_XU_TASK, "gemm", "cholesky.c:79");
	long *lw;
	int err = blocks_setup(w, m, nb, &lw);
	if (err)
		return err;
	double b3 = (double)b * b * b, blk = 8.0 * b * b;
	uint32_t root;
	err = label_add(w, &root, "0");
	uint64_t rank = 0;
#define XU(TYPE, OUT, IN0, IN1)                                                                         \
	do {                                                                                            \
		size_t ix;                                                                              \
		struct pmcfi_sim_wxu *x = add_xu(w, TYPE, &ix);                                         \
		if (!x) {                                                                               \
			err = PMCF_ENOMEM;                                                              \
			break;                                                                          \
		}                                                                                       \
		x->parent = root;                                                                       \
		x->create_ns = rank * ROOT_CREATE_NS;                                                   \
		if ((err = label_add(w, &x->label, "0.%llu", (unsigned long long)rank++)))              \
			break;                                                                          \
		long in0 = IN0, in1 = IN1, out = OUT;                                                   \
		x->data[0] = (int32_t)in0;                                                              \
		x->data[1] = (int32_t)in1;                                                              \
		x->data[3] = (int32_t)out;                                                              \
		if ((err = add_dep(w, ix, in0 >= 0 ? lw[in0] : -1)) ||                                  \
		    (err = add_dep(w, ix, in1 >= 0 ? lw[in1] : -1)) || (err = add_dep(w, ix, lw[out]))) \
			break;                                                                          \
		lw[out] = (long)ix;                                                                     \
		cur = x;                                                                                \
	} while (0)
	struct pmcfi_sim_wxu *cur = NULL;
	for (long k = 0; k < nb && !err; k++) {
		XU(tp, k * nb + k, -1, -1);
		if (err)
			break;
		cur->w = (struct pmcfi_sim_work){.ins = b3 / 3 * 0.45 + 3000,
						 .ld = 0.36,
						 .st = 0.1,
						 .br = 0.07,
						 .cond = 0.85,
						 .taken = 0.8,
						 .misp = 0.012,
						 .fdv = b * (b + 1) / 2.0,
						 .foot = blk,
						 .passes = b / 16.0 + 1,
						 .code = 2200,
						 .cpi0 = 0.85};
		work_common(&cur->w, w->nxu);
		for (long i = k + 1; i < nb && !err; i++) {
			XU(tt, i * nb + k, k * nb + k, -1);
			if (err)
				break;
			cur->w = (struct pmcfi_sim_work){.ins = b3 * 0.36 + 2500,
							 .ld = 0.38,
							 .st = 0.1,
							 .br = 0.06,
							 .cond = 0.85,
							 .taken = 0.82,
							 .misp = 0.008,
							 .fdv = (double)b,
							 .foot = 2 * blk,
							 .passes = b / 16.0 + 1,
							 .code = 2600,
							 .cpi0 = 0.62};
			work_common(&cur->w, w->nxu);
		}
		for (long i = k + 1; i < nb && !err; i++) {
			XU(ts, i * nb + i, i * nb + k, -1);
			if (err)
				break;
			cur->w = (struct pmcfi_sim_work){.ins = b3 * 0.34 + 2500,
							 .ld = 0.37,
							 .st = 0.09,
							 .br = 0.055,
							 .cond = 0.85,
							 .taken = 0.85,
							 .misp = 0.006,
							 .fdv = 0,
							 .foot = 2 * blk,
							 .passes = b / 16.0 + 1,
							 .code = 2500,
							 .cpi0 = 0.52};
			work_common(&cur->w, w->nxu);
			for (long j = k + 1; j < i && !err; j++) {
				XU(tg, i * nb + j, i * nb + k, j * nb + k);
				if (err)
					break;
				cur->w = (struct pmcfi_sim_work){.ins = b3 * 0.66 * jit(w->nxu, 7, 0.002) +
									2500,
								 .ld = 0.36,
								 .st = 0.08,
								 .br = 0.05,
								 .cond = 0.86,
								 .taken = 0.88,
								 .misp = 0.004,
								 .fdv = 0,
								 .foot = 3 * blk,
								 .passes = b / 16.0 + 1,
								 .code = 3100,
								 .cpi0 = 0.45};
				work_common(&cur->w, w->nxu);
			}
		}
	}
#undef XU
	free(lw);
	w->policy = SIM_POL_STEAL;
	w->root_busy_ns = rank * ROOT_CREATE_NS;
	return err;
}

/* ---- seidel: blocked Gauss-Seidel sweeps as a task graph (wavefronts) */
static int build_seidel(struct pmcfi_sim_workload *w, const pmcf_sim_spec *s,
			const struct pmcfi_sim_machine *m)
{
	long nb = pmcfi_sim_spec_get(s, "blocks"), it = pmcfi_sim_spec_get(s, "iters"),
	     b = pmcfi_sim_spec_get(s, "bsize");
	int t = add_type(w, PMCF_XU_TASK, "gauss_seidel_block", "seidel.c:38");
	long *lw;
	int err = blocks_setup(w, m, nb, &lw);
	if (err)
		return err;
	uint32_t root;
	err = label_add(w, &root, "0");
	uint64_t rank = 0;
	double pts = (double)b * b;
	for (long r = 0; r < it && !err; r++)
		for (long i = 0; i < nb && !err; i++)
			for (long j = 0; j < nb && !err; j++) {
				size_t ix;
				struct pmcfi_sim_wxu *x = add_xu(w, t, &ix);
				if (!x)
					return free(lw), PMCF_ENOMEM;
				x->parent = root;
				x->create_ns = rank * ROOT_CREATE_NS;
				if ((err = label_add(w, &x->label, "0.%llu", (unsigned long long)rank++)))
					break;
				long self = i * nb + j;
				long north = i > 0 ? self - nb : -1, west = j > 0 ? self - 1 : -1;
				long south = i + 1 < nb ? self + nb : -1, east = j + 1 < nb ? self + 1 : -1;
				x->data[0] = (int32_t)north;
				x->data[1] = (int32_t)west;
				x->data[2] = (int32_t)south;
				x->data[3] = (int32_t)self;
				/* north and west already updated in this sweep, south and
				 * east from the previous one: the last writer of each */
				err = add_dep(w, ix, north >= 0 ? lw[north] : -1);
				if (!err)
					err = add_dep(w, ix, west >= 0 ? lw[west] : -1);
				if (!err)
					err = add_dep(w, ix, south >= 0 ? lw[south] : -1);
				if (!err)
					err = add_dep(w, ix, east >= 0 ? lw[east] : -1);
				if (!err)
					err = add_dep(w, ix, lw[self]);
				lw[self] = (long)ix;
				int nbrs = (north >= 0) + (west >= 0) + (south >= 0) + (east >= 0);
				double edge = (4 - nbrs) * 0.08;
				x->w = (struct pmcfi_sim_work){.ins = pts * 11.0 * (1 - edge) +
								      400 * (4 - nbrs) + 1500,
							       .ld = 0.42,
							       .st = 0.08,
							       .br = 0.07 + edge * 0.3,
							       .cond = 0.9,
							       .taken = 0.9 - edge,
							       .misp = 0.004 + edge * 0.05,
							       .fdv = 0,
							       .foot = 8 * pts + 8.0 * b * nbrs,
							       .passes = 1.3,
							       .code = 1800,
							       .cpi0 = 0.7};
				work_common(&x->w, w->nxu);
			}
	free(lw);
	w->policy = SIM_POL_STEAL;
	w->root_busy_ns = rank * ROOT_CREATE_NS;
	return err;
}

/* ---- kmeans: per iteration, assignment tasks over parts then an update */
static int build_kmeans(struct pmcfi_sim_workload *w, const pmcf_sim_spec *s,
			const struct pmcfi_sim_machine *m)
{
	long pts = pmcfi_sim_spec_get(s, "points"), parts = pmcfi_sim_spec_get(s, "parts");
	long k = pmcfi_sim_spec_get(s, "k"), dims = pmcfi_sim_spec_get(s, "dims"),
	     it = pmcfi_sim_spec_get(s, "iters");
	if (parts > pts)
		parts = pts;
	int ta = add_type(w, PMCF_XU_TASK, "assign", "kmeans.c:88");
	int tu = add_type(w, PMCF_XU_TASK, "update", "kmeans.c:104");
	int err = homes(w, (size_t)(2 * parts + 1));
	if (err)
		return err;
	for (long p = 0; p < 2 * parts + 1; p++)
		w->data_home[p] = (int32_t)((p % (parts + 1)) * m->numa_nodes / (parts + 1));
	w->data_inter[parts] = 1; /* the centroids: read by every assign task */
	uint32_t root;
	err = label_add(w, &root, "0");
	uint64_t rank = 0;
	long prev_update = -1;
	for (long r = 0; r < it && !err; r++) {
		size_t first = w->nxu;
		/* convergence: fewer points change cluster, branches get predictable */
		double conv = exp(-(double)r / 2.5);
		for (long p = 0; p < parts && !err; p++) {
			size_t ix;
			struct pmcfi_sim_wxu *x = add_xu(w, ta, &ix);
			if (!x)
				return PMCF_ENOMEM;
			x->parent = root;
			x->create_ns = rank * ROOT_CREATE_NS;
			if ((err = label_add(w, &x->label, "0.%llu", (unsigned long long)rank++)))
				break;
			double n = (double)(pts / parts + (p < pts % parts));
			x->data[0] = (int32_t)p;
			x->data[1] = (int32_t)parts;
			x->data[3] = (int32_t)(parts + 1 + p);
			err = add_dep(w, ix, prev_update);
			x->w = (struct pmcfi_sim_work){.ins = n * (double)k * ((double)dims * 3 + 4) + 800,
						       .ld = 0.4,
						       .st = 0.02,
						       .br = 0.1,
						       .cond = 0.95,
						       .taken = 0.5,
						       .misp = (0.01 + 0.2 * conv) * jit(ix, 3, 0.3),
						       .fdv = 0,
						       .foot = n * (double)dims * 8 + (double)(k * dims) * 8,
						       .passes = 1.05,
						       .code = 1500,
						       .cpi0 = 0.55};
			work_common(&x->w, w->nxu);
		}
		size_t ix;
		struct pmcfi_sim_wxu *x = err ? NULL : add_xu(w, tu, &ix);
		if (!x)
			return err ? err : PMCF_ENOMEM;
		x->parent = root;
		x->create_ns = rank * ROOT_CREATE_NS;
		if ((err = label_add(w, &x->label, "0.%llu", (unsigned long long)rank++)))
			break;
		x->data[0] = (int32_t)(parts + 1);
		x->data[3] = (int32_t)parts;
		for (size_t d = first; d < ix && !err; d++)
			err = add_dep(w, ix, (long)d);
		double kd = (double)(k * dims);
		x->w = (struct pmcfi_sim_work){.ins = kd * (double)parts * 3 + kd * 12 + 600,
					       .ld = 0.45,
					       .st = 0.15,
					       .br = 0.08,
					       .cond = 0.9,
					       .taken = 0.9,
					       .misp = 0.005,
					       .fdv = kd,
					       .foot = kd * 8 * (double)parts,
					       .passes = 1.0,
					       .code = 900,
					       .cpi0 = 0.9};
		work_common(&x->w, w->nxu);
		prev_update = (long)ix;
	}
	w->policy = SIM_POL_STEAL;
	w->root_busy_ns = rank * ROOT_CREATE_NS;
	return err;
}

/* ---- loops: OpenMP parallel loops (static ranges/chunks or dynamic chunks) */
static int build_loops(struct pmcfi_sim_workload *w, const pmcf_sim_spec *s,
		       const struct pmcfi_sim_machine *m)
{
	long n = pmcfi_sim_spec_get(s, "n"), nl = pmcfi_sim_spec_get(s, "loops"),
	     reps = pmcfi_sim_spec_get(s, "reps");
	int dynamic = pmcfi_sim_spec_get(s, "schedule") == 1;
	long chunk = pmcfi_sim_spec_get(s, "chunk");
	long T = w->threads;
	int ranges = !dynamic && chunk == 0; /* static without chunk: one range per thread */
	if (dynamic && chunk == 0)
		chunk = 1024;
	long nchunks = ranges ? (n < T ? n : T) : (n + chunk - 1) / chunk;
	int types[64];
	for (long l = 0; l < nl; l++) {
		char name[40], loc[32];
		snprintf(loc, sizeof(loc), "loops.c:%ld", 30 + 12 * l);
		snprintf(name, sizeof(name), "loop@%s", loc);
		if (l < 16)
			types[l] = add_type(w, ranges ? PMCF_XU_LOOP_RANGE : PMCF_XU_LOOP_CHUNK, name, loc);
		else
			types[l] = types[l % 16];
	}
	int err = homes(w, (size_t)nchunks);
	if (err)
		return err;
	for (long c = 0; c < nchunks; c++)
		w->data_home[c] = (int32_t)(c * m->numa_nodes / nchunks);
	uint32_t root;
	err = label_add(w, &root, "0");
	w->nphases = (int)(reps * nl);
	for (long r = 0; r < reps && !err; r++)
		for (long l = 0; l < nl && !err; l++) {
			/* fuse-openmp §4.1: parallel region and for construct ranks with
			 * their code addresses, then the start iteration */
			uint32_t loop_label;
			unsigned long paddr = 0x401a00, faddr = 0x401a40 + 0x40ul * (unsigned long)l;
			err = label_add(w, &loop_label, "0.%ld.0x%lx.%ld.0x%lx", r + 1, paddr, l + 1, faddr);
			for (long c = 0; c < nchunks && !err; c++) {
				long lo = ranges ? c * n / nchunks : c * chunk;
				long hi = ranges ? (c + 1) * n / nchunks : (lo + chunk < n ? lo + chunk : n);
				size_t ix;
				struct pmcfi_sim_wxu *x = add_xu(w, types[l], &ix);
				if (!x)
					return PMCF_ENOMEM;
				x->parent = loop_label;
				x->phase = (int32_t)(r * nl + l);
				x->owner = dynamic ? -1 : (int32_t)(c % T);
				if ((err = label_add(w, &x->label, "%s.%ld", w->arena + loop_label, lo)))
					break;
				x->data[3] = (int32_t)c;
				double it = (double)(hi - lo);
				struct pmcfi_sim_work k;
				switch (l % 4) {
				case 0: /* stream: a[i] = b[i] + s*c[i] */
					k = (struct pmcfi_sim_work){.ins = it * 6,
								    .ld = 0.5,
								    .st = 0.17,
								    .br = 0.17,
								    .cond = 1,
								    .taken = 0.99,
								    .misp = 0.0005,
								    .foot = it * 24,
								    .passes = 1,
								    .code = 400,
								    .cpi0 = 0.5};
					break;
				case 1: /* compute-bound with a division per iteration */
					k = (struct pmcfi_sim_work){.ins = it * 60,
								    .ld = 0.15,
								    .st = 0.02,
								    .br = 0.04,
								    .cond = 1,
								    .taken = 0.95,
								    .misp = 0.002,
								    .fdv = it,
								    .foot = it * 8,
								    .passes = 1,
								    .code = 900,
								    .cpi0 = 0.8};
					break;
				case 2: /* branchy search, data-dependent predictability */
					k = (struct pmcfi_sim_work){
						.ins = it * 20,
						.ld = 0.3,
						.st = 0.05,
						.br = 0.25,
						.cond = 0.95,
						.taken = 0.5,
						.misp = 0.04 + 0.2 * pmcfi_rng_hash_unif((uint64_t)lo, 77),
						.foot = it * 16,
						.passes = 1,
						.code = 1200,
						.cpi0 = 0.6};
					break;
				default: /* triangular: work grows with the iteration index */
					k = (struct pmcfi_sim_work){.ins = it *
									   (8 + 40.0 * ((double)lo + it / 2) /
											(double)n),
								    .ld = 0.4,
								    .st = 0.1,
								    .br = 0.12,
								    .cond = 1,
								    .taken = 0.97,
								    .misp = 0.003,
								    .foot = it * 16,
								    .passes = 2,
								    .code = 700,
								    .cpi0 = 0.55};
					break;
				}
				k.ins += 300; /* chunk dispatch in the runtime */
				x->w = k;
				work_common(&x->w, (uint64_t)(l * 1000003 + lo));
			}
		}
	w->policy = dynamic ? SIM_POL_SHARED : SIM_POL_OWNER;
	return err;
}

/* ---- knapsack: branch-and-bound tasks down to a cutoff depth; pruning uses
 * the greedy incumbent only, so the task tree is the same in every run */
struct ks_item {
	double wt, val;
};

static int ks_cmp(const void *a, const void *b)
{
	const struct ks_item *x = a, *y = b;
	double dx = x->val / x->wt, dy = y->val / y->wt;
	return dx < dy ? 1 : dx > dy ? -1 : 0;
}

static double ks_bound(const struct ks_item *it, int n, int d, double cap, double val)
{
	for (int i = d; i < n; i++) {
		if (it[i].wt <= cap) {
			cap -= it[i].wt;
			val += it[i].val;
		} else
			return val + it[i].val * cap / it[i].wt;
	}
	return val;
}

static int build_knapsack(struct pmcfi_sim_workload *w, const pmcf_sim_spec *s,
			  const struct pmcfi_sim_machine *m)
{
	(void)m;
	int n = (int)pmcfi_sim_spec_get(s, "items"), cutoff = (int)pmcfi_sim_spec_get(s, "cutoff");
	int tn = add_type(w, PMCF_XU_TASK, "knap_branch", "knapsack.c:44");
	int tl = add_type(w, PMCF_XU_TASK, "knap_leaf", "knapsack.c:31");
	struct ks_item it[40];
	double total = 0;
	for (int i = 0; i < n; i++) {
		it[i].wt = 10 + 90 * pmcfi_rng_hash_unif((uint64_t)n, (uint64_t)i * 2);
		it[i].val = it[i].wt * (0.6 + 0.8 * pmcfi_rng_hash_unif((uint64_t)n, (uint64_t)i * 2 + 1));
		total += it[i].wt;
	}
	qsort(it, (size_t)n, sizeof(it[0]), ks_cmp);
	double cap0 = 0.45 * total, inc = 0, c = cap0;
	/* a weak incumbent (85% of the greedy value) keeps an unbalanced tree */
	for (int i = 0; i < n; i++)
		if (it[i].wt <= c) {
			c -= it[i].wt;
			inc += it[i].val;
		}
	inc *= 0.85;
	int err = homes(w, 1);
	if (err)
		return err;
	w->data_inter[0] = 1; /* the items: read by every task */
	struct node {
		long xu;
		int depth;
		double cap, val;
	};
	size_t sp = 0, scap = 0;
	struct node *st = NULL;
	uint32_t root;
	err = label_add(w, &root, "0");
	/* the search root, created by the implicit root task */
	size_t ix;
	struct pmcfi_sim_wxu *x = err ? NULL : add_xu(w, cutoff == 0 ? tl : tn, &ix);
	if (!x)
		return err ? err : PMCF_ENOMEM;
	x->parent = root;
	err = label_add(w, &x->label, "0.0");
	if (!err)
		err = grow((void **)&st, &scap, 1, sizeof(*st));
	if (!err)
		st[sp++] = (struct node){(long)ix, 0, cap0, 0};
	while (sp && !err) {
		struct node nd = st[--sp];
		struct pmcfi_sim_wxu *u = &w->xu[nd.xu];
		int leaf = nd.depth >= cutoff || nd.depth >= n;
		double bnd = ks_bound(it, n, nd.depth, nd.cap, nd.val);
		if (leaf) {
			/* sequential search of the rest: visited nodes shrink with the gap
			 * between the bound and the incumbent */
			int rest = n - nd.depth;
			double gap = (bnd - inc) / (inc + 1);
			double visited = pow(2.0, rest < 14 ? rest : 14) * (0.05 + (gap > 0 ? gap : 0) * 3);
			u->type = (uint32_t)tl;
			u->w = (struct pmcfi_sim_work){.ins = 45 * visited + 400,
						       .ld = 0.3,
						       .st = 0.1,
						       .br = 0.2,
						       .cond = 0.9,
						       .taken = 0.45,
						       .misp = 0.08 + 0.12 * pmcfi_rng_hash_unif(nd.xu, 5),
						       .fdv = 0,
						       .foot = 16.0 * n + 64.0 * rest,
						       .passes = visited / 8 + 1,
						       .code = 1300,
						       .cpi0 = 0.7};
			work_common(&u->w, (uint64_t)nd.xu);
			continue;
		}
		u->w = (struct pmcfi_sim_work){.ins = 8.0 * (n - nd.depth) + 350,
					       .ld = 0.3,
					       .st = 0.12,
					       .br = 0.18,
					       .cond = 0.9,
					       .taken = 0.5,
					       .misp = 0.1,
					       .fdv = 1,
					       .foot = 16.0 * n,
					       .passes = 1,
					       .code = 1100,
					       .cpi0 = 0.8};
		work_common(&u->w, (uint64_t)nd.xu);
		int rank = 0;
		struct node kids[2];
		int nk = 0;
		const struct ks_item *item = &it[nd.depth];
		if (item->wt <= nd.cap &&
		    ks_bound(it, n, nd.depth + 1, nd.cap - item->wt, nd.val + item->val) > inc)
			kids[nk++] = (struct node){0, nd.depth + 1, nd.cap - item->wt, nd.val + item->val};
		if (ks_bound(it, n, nd.depth + 1, nd.cap, nd.val) > inc)
			kids[nk++] = (struct node){0, nd.depth + 1, nd.cap, nd.val};
		for (int k = 0; k < nk && !err; k++) {
			uint32_t plabel = w->xu[nd.xu].label;
			size_t cx;
			struct pmcfi_sim_wxu *cu = add_xu(w, tn, &cx);
			if (!cu) {
				err = PMCF_ENOMEM;
				break;
			}
			cu->parent = plabel;
			err = label_add(w, &cu->label, "%s.%d", w->arena + plabel, rank++);
			if (!err)
				err = add_dep(w, cx, nd.xu);
			if (!err)
				err = grow((void **)&st, &scap, sp + 1, sizeof(*st));
			if (!err) {
				kids[k].xu = (long)cx;
				st[sp++] = kids[k];
			}
		}
	}
	free(st);
	w->policy = SIM_POL_STEAL;
	return err;
}

/* The descriptors of the workloads above (the table: workload_table.c).
 * scale: model 2's kernel repetitions, chosen so that a run at the default
 * size lasts about 0.5 s or more, as the papers' runs do (loops: static,
 * dynamic). */
const struct pmcfi_sim_workload_def pmcfi_sim_wl_cholesky =
	{"cholesky",
	 "tiled Cholesky factorisation: potrf, trsm, syrk and gemm tasks over a task graph",
	 {{"blocks", 24, 1, 400, NULL}, {"bsize", 64, 4, 1024, NULL}},
	 build_cholesky,
	 100,
	 100};
const struct pmcfi_sim_workload_def pmcfi_sim_wl_seidel =
	{"seidel",
	 "Gauss-Seidel sweeps: a gauss_seidel_block task per block and iteration (wavefront)",
	 {{"blocks", 16, 1, 512, NULL}, {"iters", 10, 1, 10000, NULL}, {"bsize", 64, 4, 4096, NULL}},
	 build_seidel,
	 250,
	 250};
const struct pmcfi_sim_workload_def pmcfi_sim_wl_kmeans =
	{"kmeans",
	 "k-means: an assign task per part of the points and one update per iteration",
	 {{"points", 262144, 1, 1L << 32, NULL},
	  {"parts", 64, 1, 1 << 20, NULL},
	  {"k", 8, 1, 4096, NULL},
	  {"dims", 8, 1, 1024, NULL},
	  {"iters", 10, 1, 10000, NULL}},
	 build_kmeans,
	 80,
	 80};
static const char *const sched_choices[] = {"static", "dynamic", NULL};
const struct pmcfi_sim_workload_def pmcfi_sim_wl_loops =
	{"loops",
	 "parallel loops (worksharing): a range per thread (static) or chunks (dynamic, chunk=)",
	 {{"n", 100000, 1, 1L << 32, NULL},
	  {"loops", 4, 1, 64, NULL},
	  {"reps", 5, 1, 100000, NULL},
	  {"schedule", 0, 0, 1, sched_choices},
	  {"chunk", 0, 0, 1L << 32, NULL}},
	 build_loops,
	 600,
	 400};
const struct pmcfi_sim_workload_def pmcfi_sim_wl_knapsack =
	{"knapsack",
	 "0/1 knapsack branch and bound: tasks create their children, an unbalanced tree",
	 {{"items", 24, 2, 40, NULL}, {"cutoff", 12, 1, 18, NULL}},
	 build_knapsack,
	 300,
	 300};

long pmcfi_sim_spec_get(const pmcf_sim_spec *s, const char *key)
{
	const struct pmcfi_sim_workload_def *w = s->def;
	for (size_t i = 0; i < SIM_MAX_KEYS && w->keys[i].name; i++)
		if (strcmp(w->keys[i].name, key) == 0)
			return s->val[i];
	return -1;
}

/* The helpers above for workloads in files of their own (sim_impl.h). */
int pmcfi_sim_wl_type(struct pmcfi_sim_workload *w, int kind, const char *name, const char *loc)
{
	return add_type(w, kind, name, loc);
}
struct pmcfi_sim_wxu *pmcfi_sim_wl_xu(struct pmcfi_sim_workload *w, int type, size_t *idx)
{
	return add_xu(w, type, idx);
}
int pmcfi_sim_wl_dep(struct pmcfi_sim_workload *w, size_t x, long dep) { return add_dep(w, x, dep); }
int pmcfi_sim_wl_label(struct pmcfi_sim_workload *w, uint32_t *off, const char *text)
{
	return label_add(w, off, "%s", text);
}
void pmcfi_sim_wl_work_common(struct pmcfi_sim_work *k, uint64_t key) { work_common(k, key); }
int pmcfi_sim_wl_homes(struct pmcfi_sim_workload *w, size_t ndata) { return homes(w, ndata); }

void pmcfi_sim_workload_free(struct pmcfi_sim_workload *w)
{
	if (!w)
		return;
	free(w->xu);
	free(w->deps);
	free(w->arena);
	free(w->data_home);
	free(w->data_inter);
	free(w);
}

int pmcfi_sim_workload_build(const pmcf_sim_spec *s, const struct pmcfi_sim_machine *m,
			     struct pmcfi_sim_workload **out)
{
	*out = NULL;
	struct pmcfi_sim_workload *w = calloc(1, sizeof(*w));
	if (!w)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	w->name = s->def->name;
	w->threads = s->threads ? (int)s->threads : m->ncpus;
	const struct pmcfi_sim_workload_def *d = s->def;
	int err = d->build(w, s, m);
	w->time_scale = w->policy == SIM_POL_SHARED ? d->scale_shared : d->scale;
	if (err == PMCF_ENOMEM)
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory building the workload");
	if (!err && w->nxu == 0)
		err = pmcfi_fail(PMCF_EINVAL, "workload '%s' has no XU with these parameters", w->name);
	if (err) {
		pmcfi_sim_workload_free(w);
		return err;
	}
	*out = w;
	return 0;
}
