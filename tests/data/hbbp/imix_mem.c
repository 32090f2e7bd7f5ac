/* Memory-bound test program for the imix time-to-count correction
 * (docs/imix.md): a pointer chase through a 64 MiB random cycle (a cache
 * miss per step), a streaming sum and in-cache arithmetic. Argument:
 * iterations (default 20 000 000). */
#include <stdio.h>
#include <stdlib.h>

#define NODES (8u << 20) /* 8 Mi x 8 bytes */

__attribute__((noinline)) static unsigned long chase(const unsigned long *next, unsigned long n)
{
	unsigned long p = 0;
	for (unsigned long i = 0; i < n; i++)
		p = next[p];
	return p;
}

__attribute__((noinline)) static unsigned long stream(const unsigned long *a, unsigned long n)
{
	unsigned long s = 0;
	for (unsigned long i = 0; i < n; i++)
		s += a[(i * 8) & (NODES - 1)];
	return s;
}

__attribute__((noinline)) static unsigned long compute(unsigned long n)
{
	unsigned long s = 0;
	for (unsigned long i = 0; i < n; i++)
		s += (i ^ (i >> 3)) + 7;
	return s;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 20000000ul;
	unsigned long *next = malloc(NODES * sizeof(*next));
	if (!next)
		return 1;
	/* Sattolo's shuffle: one cycle through every node */
	for (unsigned long i = 0; i < NODES; i++)
		next[i] = i;
	unsigned long x = 2463534242ul;
	for (unsigned long i = NODES - 1; i > 0; i--) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		unsigned long j = x % i, t = next[i];
		next[i] = next[j];
		next[j] = t;
	}
	unsigned long a = chase(next, n / 16), b = stream(next, n / 2), c = compute(n);
	printf("%lu %lu %lu\n", a, b, c);
	free(next);
	return 0;
}
