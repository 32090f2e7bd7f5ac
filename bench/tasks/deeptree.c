/* Bench program (issue 33): a task-parallel tree search whose task tree is
 * deep, the shape that made labels grow with XUs x depth. Each node has two
 * children with probability Q (from a hash of its id, so the tree is the
 * same in every run), else none; ROOTS root tasks. With Q = 0.4975 (mean
 * 0.995 children) a root's subtree has 200 nodes on average and paths of
 * several hundred levels, and 4000 roots give about 800,000 tasks. "flat"
 * creates the same number of tasks from one loop (depth 1), the flat
 * program of the same XU count for comparisons.
 * Usage: deeptree [ROOTS [SEED [flat]]] (default 4000 1). Prints the tasks
 * and the deepest level. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mix64.h"

#define Q_PER_10K 4975u /* per 10,000 */
#define MAX_DEPTH 20000

static int deepest;

/* the work of one node: a little arithmetic, so that a task is not empty */
static uint64_t work(uint64_t id)
{
	uint64_t h = id;
	for (int i = 0; i < 64; i++)
		h = mix(h + (uint64_t)i);
	return h & 1;
}

static long visit(uint64_t id, int depth)
{
	long c[2] = {0, 0};
	uint64_t odd = work(id);
	if (depth > deepest)
		deepest = depth; /* a race between threads only loses a maximum */
	if (mix(id ^ 0x9e3779b97f4a7c15ull) % 10000 < Q_PER_10K && depth < MAX_DEPTH) {
		for (int i = 0; i < 2; i++) {
			uint64_t child = mix(id * 31 + (uint64_t)i + 1);
#pragma omp task shared(c) firstprivate(i, child)
			c[i] = visit(child, depth + 1);
		}
#pragma omp taskwait
	}
	return 1 + c[0] + c[1] + (long)odd * 0;
}

/* the tree's size without tasks: how many tasks the flat program makes */
static long size(uint64_t id, int depth)
{
	long n = 1;
	if (mix(id ^ 0x9e3779b97f4a7c15ull) % 10000 < Q_PER_10K && depth < MAX_DEPTH)
		for (int i = 0; i < 2; i++)
			n += size(mix(id * 31 + (uint64_t)i + 1), depth + 1);
	return n;
}

int main(int argc, char **argv)
{
	int roots = argc > 1 ? atoi(argv[1]) : 4000;
	uint64_t seed = argc > 2 ? (uint64_t)atoll(argv[2]) : 1;
	int flat = argc > 3 && strcmp(argv[3], "flat") == 0;
	if (roots < 1 || roots > 10000000) {
		fprintf(stderr, "usage: deeptree [ROOTS [SEED [flat]]]\n");
		return 2;
	}
	long total = 0;
	if (flat) {
		for (int r = 0; r < roots; r++)
			total += size(mix(seed * 1000003 + (uint64_t)r), 1);
		long done = 0;
#pragma omp parallel
#pragma omp single
		for (long k = 0; k < total; k++) {
#pragma omp task firstprivate(k) shared(done)
			{
				uint64_t odd = work((uint64_t)k);
#pragma omp atomic
				done += 1 + (long)odd * 0;
			}
		}
		printf("deeptree flat: %ld tasks, depth 1\n", done);
		return 0;
	}
	long *count = calloc((size_t)roots, sizeof(*count));
	if (!count)
		return 2;
#pragma omp parallel
#pragma omp single
	{
		for (int r = 0; r < roots; r++) {
#pragma omp task firstprivate(r) shared(count)
			count[r] = visit(mix(seed * 1000003 + (uint64_t)r), 1);
		}
#pragma omp taskwait
	}
	for (int r = 0; r < roots; r++)
		total += count[r];
	free(count);
	printf("deeptree: %ld tasks, deepest level %d\n", total, deepest);
	return 0;
}
