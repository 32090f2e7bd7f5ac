/* Benchmark of the combination strategies: P synthetic execution profiles of
 * N XUs each (4 types, labels, 3 linking events in every profile and 3 of
 * its own), fused with ctc, lgl, bc and bc-unlabeled on one core; and the
 * same number of real-shaped profiles (--shape real): one dominant task
 * type, counts as software events give them (integer ns clocks, zero-
 * inflated page faults, context switches that are mostly 0), durations of
 * a task tree (most tasks alike, a geometric tail, the root spanning the
 * run), only duration in
 * common, runs that differ in speed as a whole, and XU counts that differ
 * a little between executions. The
 * baseline, measured in the same run, copies the inputs' values into a
 * profile of the fused size: the least work any combination does.
 * --digest prints a hash of each fused profile (labels, values, provenance,
 * match distances), to check that a faster combination pairs the same XUs.
 * -t THREADS clusters the types of a BC step on that many threads (the
 * seconds column is then the wall time to compare). --labels tree gives the
 * real shape the deep labels of a task tree (parent.RANK.ADDR per level, as
 * the collector writes them) instead of flat 0.i; the values are the same.
 * usage: bench_combine [-p PROFILES] [-s STRATEGY]... [--shape synthetic|real|both]
 *        [--labels flat|tree] [-t THREADS] [--digest] [N...] (default: -p 15, every strategy, both
 *        shapes, one thread, 10000 100000 1000000) */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "pmcfuse/combine.h"
#include "pmcfuse/profile.h"
#include "util/rng.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double cpu(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "bench_combine: %s: %s (%s)\n", what, pmcf_strerror(err), pmcf_errdetail());
	exit(1);
}

/* Execution j of a program whose XU i has a latent size; per-execution
 * variability on everything but instructions. */
static pmcf_profile *make(size_t j, size_t n, const double *size)
{
	pmcf_profile *p;
	int err = pmcf_profile_new(&p);
	if (err)
		die("new", err);
	pmcf_profile_meta_set(p, PMCF_META_PROGRAM, "synthetic");
	static const char *types[] = {"potrf", "trsm", "syrk", "gemm"};
	uint32_t t;
	for (int k = 0; k < 4; k++)
		pmcf_profile_type_add(p, PMCF_XU_TASK, types[k], "", &t);
	char name[32];
	static const char *link[] = {"duration", "instructions", "cycles"};
	for (int k = 0; k < 3; k++)
		pmcf_profile_event_add(p, link[k], NULL);
	for (int k = 0; k < 3; k++) {
		snprintf(name, sizeof(name), "e%zu_%d", j, k);
		pmcf_profile_event_add(p, name, NULL);
	}
	if ((err = pmcf_profile_reserve(p, n)))
		die("reserve", err);
	struct pmcfi_rng r;
	pmcfi_rng_seed(&r, 1000 + j);
	char lab[64], par[32];
	for (size_t i = 0; i < n; i++) {
		snprintf(par, sizeof(par), "0.%zu", i % 4);
		snprintf(lab, sizeof(lab), "%s.%zu", par, i / 4);
		pmcf_xu xu = {.type = (uint32_t)(i % 4),
			      .thread = (int32_t)(i % 32),
			      .cpu = -1,
			      .start_ns = pmcfi_rng_next(&r) % 1000000000ull,
			      .label = lab,
			      .parent_label = par};
		xu.end_ns = xu.start_ns + 1000;
		if ((err = pmcf_profile_xu_add(p, &xu, NULL)))
			die("xu_add", err);
	}
	double *col[6];
	for (int k = 0; k < 6; k++)
		col[k] = pmcf_profile_column(p, (size_t)k);
	for (size_t i = 0; i < n; i++) {
		double v = 1 + 0.15 * pmcfi_rng_normal(&r), s = size[i];
		col[0][i] = floor(s * v * 1000);
		col[1][i] = floor(s * 1e4 * (1 + 0.002 * pmcfi_rng_normal(&r)));
		col[2][i] = floor(s * v * 2900);
		for (int k = 0; k < 3; k++)
			col[3 + k][i] = floor(s * v * (50 + 40 * k) * (1 + 0.05 * pmcfi_rng_normal(&r)));
	}
	return p;
}

/* Real-shaped execution j of n XUs (the first n of the program's tasks:
 * a tree search or simulation explores a little more or less each run).
 * Task i has latent work w[i] (us); task 0 spans the whole run. */
static pmcf_profile *make_real(size_t j, size_t n, const double *w, char *const *tlab, const size_t *tpar)
{
	pmcf_profile *p;
	int err = pmcf_profile_new(&p);
	if (err)
		die("new", err);
	pmcf_profile_meta_set(p, PMCF_META_PROGRAM, "real-shaped");
	static const char *types[] = {"step", "leaf"};
	uint32_t t;
	for (int k = 0; k < 2; k++)
		pmcf_profile_type_add(p, PMCF_XU_TASK, types[k], "", &t);
	char name[32];
	pmcf_profile_event_add(p, "duration", NULL);
	for (int k = 0; k < 2; k++) {
		snprintf(name, sizeof(name), "e%zu_%d", j, k);
		pmcf_profile_event_add(p, name, NULL);
	}
	if ((err = pmcf_profile_reserve(p, n)))
		die("reserve", err);
	struct pmcfi_rng r;
	pmcfi_rng_seed(&r, 5000 + j);
	char lab[64];
	uint64_t clock = 0;
	for (size_t i = 0; i < n; i++) {
		snprintf(lab, sizeof(lab), "0.%zu", i);
		pmcf_xu xu = {.type = i % 50 == 49 ? 1u : 0u,
			      .thread = (int32_t)(i % 2),
			      .cpu = -1,
			      .start_ns = clock,
			      .label = tlab ? tlab[i] : lab,
			      .parent_label = tlab && tpar[i] != SIZE_MAX ? tlab[tpar[i]] : "0"};
		clock += 100;
		xu.end_ns = xu.start_ns + 1000;
		if ((err = pmcf_profile_xu_add(p, &xu, NULL)))
			die("xu_add", err);
	}
	double *col[3];
	for (int k = 0; k < 3; k++)
		col[k] = pmcf_profile_column(p, (size_t)k);
	for (size_t i = 0; i < n; i++) {
		/* runs differ in speed as a whole (load, frequency, placement) */
		double speed = 1 + 0.5 * (double)(j % 3); /* 2x apart: measured here under load */
		double d = floor(w[i] * 1000 * speed * (1 + 0.2 * fabs(pmcfi_rng_normal(&r))));
		col[0][i] = d; /* ns */
		for (int k = 0; k < 2; k++) {
			int kind = (int)((j + (size_t)k) % 3);
			double v;
			if (kind == 0) /* a clock: integer ns, a little below the duration */
				v = floor(d * (0.9 + 0.05 * pmcfi_rng_unif(&r)));
			else if (kind == 1) /* page faults: zero-inflated, small integers */
				v = pmcfi_rng_unif(&r) < 0.8 ? 0 : floor(1 + w[i] / 20 * pmcfi_rng_unif(&r));
			else /* context switches: mostly 0 */
				v = pmcfi_rng_unif(&r) < w[i] / (w[i] + 200) ? floor(1 + w[i] / 1e4) : 0;
			col[1 + k][i] = v;
		}
	}
	return p;
}

/* --labels tree: labels of a task tree as the OpenMP collector writes them
 * (docs/collector.md: a task created in a task is parent.RANK.ADDR), one
 * per task of a recursive divide and conquer: task i is at in-order
 * position i of a binary tree whose every node splits its range at a
 * uniformly random point (a quicksort's tree: about 2 ln n levels on
 * average, some branches over twice that; a real quicksort of 114,356
 * tasks had labels of up to 78 components, a tree search of 127,657 up to
 * 124). The same tree for every execution (one program); par[i] is i's
 * parent, SIZE_MAX for the root. Deep labels are what real programs give
 * and what the flat "0.i" labels of the default never exercise. */
static char **tree_labels(size_t n, size_t **par_out)
{
	struct range {
		size_t lo, hi, parent;
		int rank;
	};
	char **lab = calloc(n, sizeof(*lab));
	size_t *par = malloc(n * sizeof(*par));
	struct range *st = malloc((n + 1) * sizeof(*st));
	if (!lab || !par || !st) {
		fprintf(stderr, "bench_combine: out of memory\n");
		exit(1);
	}
	struct pmcfi_rng r;
	pmcfi_rng_seed(&r, 11);
	size_t top = 0;
	st[top++] = (struct range){0, n, SIZE_MAX, 0};
	while (top) {
		struct range g = st[--top];
		if (g.lo >= g.hi)
			continue;
		size_t m = g.lo + (size_t)(pmcfi_rng_unif(&r) * (double)(g.hi - g.lo));
		m = m < g.hi ? m : g.hi - 1;
		const char *pl = g.parent == SIZE_MAX ? "0.1.4851" : lab[g.parent];
		size_t len = strlen(pl) + 32;
		if (!(lab[m] = malloc(len))) {
			fprintf(stderr, "bench_combine: out of memory\n");
			exit(1);
		}
		if (g.parent == SIZE_MAX)
			snprintf(lab[m], len, "%s", pl);
		else
			snprintf(lab[m], len, "%s.%d.%d", pl, g.rank, g.rank == 1 ? 5163 : 5225);
		par[m] = g.parent;
		st[top++] = (struct range){m + 1, g.hi, m, 2};
		st[top++] = (struct range){g.lo, m, m, 1};
	}
	free(st);
	*par_out = par;
	return lab;
}

/* FNV-1a over everything a combination decides. */
static uint64_t digest(const pmcf_profile *p)
{
	uint64_t h = 1469598103934665603ull;
#define MIX(x)                                                                      \
	do {                                                                        \
		uint64_t m_ = 0;                                                    \
		memcpy(&m_, &(x), sizeof(m_) < sizeof(x) ? sizeof(m_) : sizeof(x)); \
		h = (h ^ m_) * 1099511628211ull;                                    \
	} while (0)
	size_t nx = pmcf_profile_nxus(p), ne = pmcf_profile_nevents(p);
	for (size_t i = 0; i < nx; i++) {
		pmcf_xu xu = PMCF_XU_INIT;
		pmcf_profile_xu_get(p, i, &xu);
		uint64_t t = xu.type;
		MIX(t);
		for (const char *c = xu.label; *c; c++)
			h = (h ^ (unsigned char)*c) * 1099511628211ull;
		double md = pmcf_profile_match_distance(p, i);
		MIX(md);
		for (size_t e = 0; e < ne; e++) {
			double v = pmcf_profile_value(p, i, e);
			int32_t src = -1;
			int64_t sx = -1;
			pmcf_profile_provenance_get(p, i, e, &src, &sx);
			uint64_t s64 = (uint64_t)(int64_t)src;
			MIX(v);
			MIX(s64);
			MIX(sx);
		}
	}
#undef MIX
	return h;
}

/* Baseline: a profile of n XUs with every input's events, values copied. */
static double baseline(pmcf_profile **in, size_t np, size_t n)
{
	double t0 = now();
	pmcf_profile *out;
	pmcf_profile_new(&out);
	for (size_t j = 0; j < np; j++)
		for (size_t e = 0; e < pmcf_profile_nevents(in[j]); e++)
			if (pmcf_profile_event_find(out, pmcf_profile_event_name(in[j], e)) < 0)
				pmcf_profile_event_add(out, pmcf_profile_event_name(in[j], e), NULL);
	for (size_t t = 0; t < pmcf_profile_ntypes(in[0]); t++) {
		pmcf_xu_type ty = PMCF_XU_TYPE_INIT;
		uint32_t id;
		pmcf_profile_type_get(in[0], (uint32_t)t, &ty);
		pmcf_profile_type_add(out, ty.kind, ty.name, ty.location, &id);
	}
	pmcf_profile_reserve(out, n);
	for (size_t i = 0; i < n; i++) {
		pmcf_xu xu = PMCF_XU_INIT;
		pmcf_profile_xu_get(in[0], i, &xu);
		pmcf_profile_xu_add(out, &xu, NULL);
	}
	for (size_t j = 0; j < np; j++)
		for (size_t e = 0; e < pmcf_profile_nevents(in[j]); e++) {
			double *dst = pmcf_profile_column(
				out, (size_t)pmcf_profile_event_find(out, pmcf_profile_event_name(in[j], e)));
			memcpy(dst, pmcf_profile_column_const(in[j], e), n * sizeof(double));
		}
	double t = now() - t0;
	pmcf_profile_free(out);
	return t;
}

int main(int argc, char **argv)
{
	size_t np = 15, sizes[16], ns = 0;
	int dig = 0, shapes = 3, tree = 0; /* 1 synthetic, 2 real */
	unsigned threads = 1;
	const char *only[8];
	size_t nonly = 0;
	for (int a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--digest") == 0)
			dig = 1;
		else if (strcmp(argv[a], "--labels") == 0 && a + 1 < argc)
			tree = strcmp(argv[++a], "tree") == 0;
		else if (strcmp(argv[a], "-t") == 0 && a + 1 < argc)
			threads = (unsigned)strtoul(argv[++a], NULL, 10);
		else if (strcmp(argv[a], "--shape") == 0 && a + 1 < argc) {
			a++;
			shapes = !strcmp(argv[a], "synthetic") ? 1 : !strcmp(argv[a], "real") ? 2 : 3;
		} else if (strcmp(argv[a], "-s") == 0 && a + 1 < argc && nonly < 8)
			only[nonly++] = argv[++a];
		else if (strcmp(argv[a], "--help") == 0 || strcmp(argv[a], "-h") == 0) {
			printf("usage: bench_combine [-p PROFILES] [-s STRATEGY]... [--shape S] [--labels L] "
			       "[--digest] [N...]\n"
			       "  -p PROFILES  profiles fused (default 15)\n"
			       "  --shape S    synthetic, real or both (default both)\n"
			       "  --labels L   real shape's labels: flat (0.i, default) or tree (a task\n"
			       "               tree's, parent.RANK.ADDR, as deep as a real quicksort's)\n"
			       "  -t THREADS   bc family: types clustered at once (default 1; 0: the CPUs)\n"
			       "  -s STRATEGY  only this strategy (ctc, lgl, bc, bc-unlabeled; bc-label,\n"
			       "               bc-lgl only when named; repeatable)\n"
			       "  --digest     print a hash of each fused profile and the grid statistics\n"
			       "  N...         XUs per profile (default 10000 100000 1000000)\n");
			return 0;
		} else if (strcmp(argv[a], "-p") == 0 && a + 1 < argc)
			np = strtoul(argv[++a], NULL, 10);
		else if (ns < 16)
			sizes[ns++] = strtoul(argv[a], NULL, 10);
	}
	if (!ns) {
		sizes[0] = 10000;
		sizes[1] = 100000;
		sizes[2] = 1000000;
		ns = 3;
	}
	/* the first four by default; bc-label and bc-lgl only when named */
	static const int strategies[] = {PMCF_COMBINE_CTC,      PMCF_COMBINE_LGL,
					 PMCF_COMBINE_BC,       PMCF_COMBINE_BC_UNLABELED,
					 PMCF_COMBINE_BC_LABEL, PMCF_COMBINE_BC_LGL};
	printf("%-10s %-9s %-13s %10s %10s %12s %10s\n", "XUs", "shape", "strategy", "seconds", "cpu s",
	       "vs baseline", "per XU");
	for (size_t k = 0; k < ns * 2; k++) {
		size_t n = sizes[k / 2];
		int real = (int)(k % 2);
		if (!(shapes & (1 << real)))
			continue;
		const char *shape = real ? (tree ? "real-tree" : "real") : "synthetic";
		double *size = malloc(n * sizeof(double));
		struct pmcfi_rng r;
		pmcfi_rng_seed(&r, 7);
		if (!real) {
			for (size_t i = 0; i < n; i++) /* log-uniform task sizes, a few big ones */
				size[i] = exp(pmcfi_rng_unif(&r) * 4) * (i % 4 == 3 ? 3 : 1);
		} else {
			/* a task tree (search, divide and conquer): half the tasks are
			 * leaves of ~7 us, a quarter wait for two leaves, and so on up
			 * to the root, which spans the run */
			for (size_t i = 1; i < n; i++)
				size[i] = 7 * (double)(1ull << __builtin_ctzll(i)) *
					  (1 + 0.1 * pmcfi_rng_unif(&r));
			size[0] = 7 * (double)n;
		}
		size_t *tpar = NULL;
		char **tlab = real && tree ? tree_labels(n, &tpar) : NULL;
		pmcf_profile **in = malloc(np * sizeof(*in));
		for (size_t j = 0; j < np; j++)
			in[j] = real ? make_real(j, n - (j % 3) * (n / 1000), size, tlab, tpar)
				     : make(j, n, size);
		if (tlab)
			for (size_t i = 0; i < n; i++)
				free(tlab[i]);
		free(tlab);
		free(tpar);
		double c0 = cpu(), base = baseline(in, np, real ? n - 2 * (n / 1000) : n);
		printf("%-10zu %-9s %-13s %10.3f %10.3f %12s %8.0fns\n", n, shape, "baseline", base,
		       cpu() - c0, "1.00", base / (double)n * 1e9);
		for (size_t s = 0; s < sizeof(strategies) / sizeof(strategies[0]); s++) {
			int run = !nonly && s < 4;
			for (size_t q = 0; q < nonly; q++)
				run |= strcmp(only[q], pmcf_strategy_name(strategies[s])) == 0;
			if (!run)
				continue;
			pmcf_combine_opts o = PMCF_COMBINE_OPTS_INIT;
			o.strategy = strategies[s];
			o.threads = threads;
			pmcf_profile *out;
			pmcf_combine_stats st = {.size = sizeof(st)};
			double t0 = now(), c1 = cpu();
			int err = pmcf_combine((const pmcf_profile *const *)in, np, &o, &out, &st);
			double t = now() - t0, ct = cpu() - c1;
			if (err)
				die("combine", err);
			printf("%-10zu %-9s %-13s %10.3f %10.3f %11.2fx %8.0fns\n", n, shape,
			       pmcf_strategy_name(strategies[s]), t, ct, t / base, t / (double)n * 1e9);
			if (dig)
				printf("%-10zu %-9s %-13s digest %016llx, %zu grid iterations, dmax %u\n", n,
				       shape, pmcf_strategy_name(strategies[s]),
				       (unsigned long long)digest(out), st.bc_iterations, st.bc_dmax);
			fflush(stdout);
			pmcf_profile_free(out);
		}
		for (size_t j = 0; j < np; j++)
			pmcf_profile_free(in[j]);
		free(in);
		free(size);
	}
	return 0;
}
