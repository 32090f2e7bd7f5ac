/* 0/1 knapsack by recursive branch and bound with OpenMP tasks (as in
 * fuse-openmp): each node takes or leaves an item, tasks above a cutoff
 * depth. The task tree depends only on the input (pruning uses the
 * capacity, not a shared bound), so labels repeat across runs.
 * Usage: knapsack [ITEMS [CUTOFF]] (default 22 10).
 * Built with -DKNAPSACK_UNTIED (examples/knapsack_untied), the tasks are
 * untied, as in many task benchmarks (tests/e2e/collect_reads.sh). */
#include <stdio.h>
#include <stdlib.h>

#ifdef KNAPSACK_UNTIED
#define TASK_SHARED(v) _Pragma("omp task untied shared(v)")
#else
#define TASK_SHARED(v) _Pragma("omp task shared(v)")
#endif

static int n, cutoff, wt[64], val[64], cap;

static int best(int i, int w, int v)
{
	if (i == n)
		return v;
	int a = 0, b = 0;
	if (i < cutoff) {
		if (w + wt[i] <= cap) {
			TASK_SHARED(a)
			a = best(i + 1, w + wt[i], v + val[i]);
		}
		TASK_SHARED(b)
		b = best(i + 1, w, v);
#pragma omp taskwait
	} else {
		if (w + wt[i] <= cap)
			a = best(i + 1, w + wt[i], v + val[i]);
		b = best(i + 1, w, v);
	}
	return a > b ? a : b;
}

int main(int argc, char **argv)
{
	n = argc > 1 ? atoi(argv[1]) : 22;
	cutoff = argc > 2 ? atoi(argv[2]) : 10;
	if (n < 1 || n > 64)
		return 2;
	unsigned s = 12345;
	for (int i = 0; i < n; i++) {
		s = s * 1103515245u + 12345u;
		wt[i] = 1 + (int)(s >> 16) % 30;
		s = s * 1103515245u + 12345u;
		val[i] = 1 + (int)(s >> 16) % 50;
		cap += wt[i];
	}
	cap /= 2;
	int r = 0;
#pragma omp parallel
#pragma omp single
	r = best(0, 0, 0);
	printf("knapsack %d items: best %d\n", n, r);
	return 0;
}
