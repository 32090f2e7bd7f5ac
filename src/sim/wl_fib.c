/* The fib workload: Fibonacci by recursive tasks, the task-creation
 * benchmark of BOTS (Duran et al., "Barcelona OpenMP Tasks Suite", ICPP
 * 2009) and of OpenMP runtimes. fib(k) above the cutoff is a task `fib`
 * that creates the tasks fib(k-1) and fib(k-2); at or below it, a task
 * `fib_seq` computes fib(k) by plain recursion (2·fib(k+1) − 1 calls). Many
 * tiny, branchy tasks of two types whose sizes follow k: the case of short
 * tasks, where multiplexing is least accurate (fuse-task-parallel §6). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "sim/sim_impl.h"
#include "util/abi.h"
#include "util/internal.h"
#include "util/rng.h"

/* Calls of the plain recursion fib(k): 2·fib(k+1) − 1. */
static double fib_calls(int k)
{
	double a = 0, b = 1; /* fib(0), fib(1) */
	for (int i = 0; i <= k; i++) {
		double c = a + b;
		a = b;
		b = c;
	}
	return 2 * a - 1;
}

struct fib_node {
	long xu;
	int k;
};

static int build_fib(struct pmcfi_sim_workload *w, const pmcf_sim_spec *s, const struct pmcfi_sim_machine *m)
{
	(void)m;
	int n = (int)pmcfi_sim_spec_get(s, "n"), cutoff = (int)pmcfi_sim_spec_get(s, "cutoff");
	int tf = pmcfi_sim_wl_type(w, PMCF_XU_TASK, "fib", "fib.c:12");
	int ts = pmcfi_sim_wl_type(w, PMCF_XU_TASK, "fib_seq", "fib.c:5");
	int err = pmcfi_sim_wl_homes(w, 0);
	uint32_t root;
	if (!err)
		err = pmcfi_sim_wl_label(w, &root, "0");
	size_t ix;
	struct pmcfi_sim_wxu *x = err ? NULL : pmcfi_sim_wl_xu(w, n > cutoff ? tf : ts, &ix);
	if (!x)
		return err ? err : PMCF_ENOMEM;
	x->parent = root;
	err = pmcfi_sim_wl_label(w, &x->label, "0.0");
	struct fib_node *st = NULL;
	size_t sp = 0, scap = 0;
	if (!err)
		err = pmcfi_grow((void **)&st, &scap, 1, sizeof(*st));
	if (!err)
		st[sp++] = (struct fib_node){(long)ix, n};
	while (sp && !err) {
		struct fib_node nd = st[--sp];
		struct pmcfi_sim_wxu *u = &w->xu[nd.xu];
		if (nd.k <= cutoff) {
			/* the plain recursion: call, compare, add, return */
			double calls = fib_calls(nd.k);
			u->w = (struct pmcfi_sim_work){.ins = 14 * calls + 60,
						       .ld = 0.22,
						       .st = 0.2,
						       .br = 0.24,
						       .cond = 0.45,
						       .taken = 0.5,
						       .misp = 0.03 +
							       0.04 * pmcfi_rng_hash_unif((uint64_t)nd.xu, 7),
						       .fdv = 0,
						       .foot = 48.0 * (nd.k + 1),
						       .passes = calls / (nd.k + 1) + 1,
						       .code = 400,
						       .cpi0 = 0.6};
			pmcfi_sim_wl_work_common(&u->w, (uint64_t)nd.xu);
			continue;
		}
		/* create fib(k-1) and fib(k-2), wait for them, add */
		u->w = (struct pmcfi_sim_work){.ins = 420,
					       .ld = 0.28,
					       .st = 0.16,
					       .br = 0.16,
					       .cond = 0.8,
					       .taken = 0.45,
					       .misp = 0.05,
					       .fdv = 0,
					       .foot = 512,
					       .passes = 1,
					       .code = 900,
					       .cpi0 = 0.8};
		pmcfi_sim_wl_work_common(&u->w, (uint64_t)nd.xu);
		for (int c = 0; c < 2 && !err; c++) {
			uint32_t plabel = w->xu[nd.xu].label;
			int k = nd.k - 1 - c;
			size_t cx;
			struct pmcfi_sim_wxu *cu = pmcfi_sim_wl_xu(w, k > cutoff ? tf : ts, &cx);
			if (!cu) {
				err = PMCF_ENOMEM;
				break;
			}
			char lab[512];
			if (snprintf(lab, sizeof(lab), "%s.%d", pmcfi_sim_label(w, plabel), c) >=
			    (int)sizeof(lab))
				err = pmcfi_fail(PMCF_EINVAL, "label too long");
			cu->parent = plabel;
			if (!err)
				err = pmcfi_sim_wl_label(w, &cu->label, lab);
			if (!err)
				err = pmcfi_sim_wl_dep(w, cx, nd.xu);
			if (!err)
				err = pmcfi_grow((void **)&st, &scap, sp + 1, sizeof(*st));
			if (!err)
				st[sp++] = (struct fib_node){(long)cx, k};
		}
	}
	free(st);
	w->policy = SIM_POL_STEAL;
	return err == -ENOMEM ? PMCF_ENOMEM : err;
}

const struct pmcfi_sim_workload_def pmcfi_sim_wl_fib =
	{"fib",
	 "Fibonacci by recursive tasks (BOTS fib): fib tasks create two each, fib_seq leaves below the "
	 "cutoff",
	 {{"n", 24, 2, 40, NULL}, {"cutoff", 10, 1, 30, NULL}},
	 build_fib,
	 /* 1,973 short tasks by default: the repetitions make a run of about
	 * 0.5 s (model v2: 0.47 s on xeon32), as the other workloads' */
	 8000,
	 8000};
