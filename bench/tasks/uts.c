/* Bench program: an unbalanced tree search in the manner of UTS: each node
 * draws its number of children from a hash of its id (geometric, mean
 * just under 1, so the tree is deep and irregular), one task per node.
 * Usage: uts [ROOTS [SEED]] (default 2000 7). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "mix64.h"

/* children of node id: 0 to 4, P(k) falling geometrically */
static int children(uint64_t id)
{
	uint64_t h = mix(id);
	int k = 0;
	while (k < 4 && (h & 0xff) < 128) { /* continue with p = 1/2: mean 0.94 */
		k++;
		h >>= 8;
	}
	return k;
}

static long visit(uint64_t id, int depth)
{
	int k = children(id);
	long count[4] = {0};
	for (int i = 0; i < k; i++) {
		uint64_t child = mix(id * 31 + (uint64_t)i + 1);
#pragma omp task shared(count) firstprivate(i, child)
		count[i] = depth < 4000 ? visit(child, depth + 1) : 1;
	}
#pragma omp taskwait
	long total = 1;
	for (int i = 0; i < k; i++)
		total += count[i];
	return total;
}

int main(int argc, char **argv)
{
	int roots = argc > 1 ? atoi(argv[1]) : 2000;
	uint64_t seed = argc > 2 ? (uint64_t)atoll(argv[2]) : 7;
	if (roots < 1 || roots > 100000)
		return 2;
	long total = 0;
#pragma omp parallel
#pragma omp single
	{
		long *c = calloc((size_t)roots, sizeof(*c));
		for (int r = 0; r < roots && c; r++)
#pragma omp task firstprivate(r)
			c[r] = visit(mix(seed * 1000003 + (uint64_t)r), 0);
#pragma omp taskwait
		for (int r = 0; r < roots && c; r++)
			total += c[r];
		free(c);
	}
	printf("uts: %ld nodes\n", total);
	return 0;
}
