/* Pointer-chasing cache kernels (counter-inspection-toolkit §4): random
 * cyclic chains that hardware prefetchers cannot guess, with a minimum unit
 * size (Fig. 14) and an optional split into blocks of pages (Fig. 15). */
#include <stdlib.h>
#include "kernels.h"

#define PAGE 4096u

void **cit_chain_build(void *buf, size_t bytes, size_t unit, size_t pages_per_block, unsigned seed)
{
	size_t n = bytes / unit;
	size_t per_block = pages_per_block ? pages_per_block * PAGE / unit : n;
	if (per_block == 0)
		per_block = 1;
	size_t *order = malloc(n * sizeof(*order));
	if (!order || n == 0) {
		free(order);
		return NULL;
	}
	/* Each block in its own random order (Fisher–Yates with random(), §4),
	 * the blocks one after the other. */
	srandom(seed);
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	for (size_t b = 0; b < n; b += per_block) {
		size_t m = n - b < per_block ? n - b : per_block;
		for (size_t i = m - 1; i > 0; i--) {
			size_t j = (size_t)random() % (i + 1);
			size_t t = order[b + i];
			order[b + i] = order[b + j];
			order[b + j] = t;
		}
	}
	char *base = buf;
	for (size_t i = 0; i < n; i++)
		*(void **)(base + order[i] * unit) = base + order[(i + 1) % n] * unit;
	void **first = (void **)(base + order[0] * unit);
	free(order);
	return first;
}

__attribute__((noinline)) void **cit_chase(void **p, uint64_t steps)
{
	while (steps--)
		p = (void **)*p;
	return p;
}
