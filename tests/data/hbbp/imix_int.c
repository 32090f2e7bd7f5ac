/* Integer test program for the imix time-to-count correction (docs/imix.md):
 * phases with very different cycles per instruction: a multiply chain (IMUL
 * latency), 64-bit division, xor/shift/add hashing and a bit-test branch.
 * Argument: iterations (default 20 000 000). */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static unsigned long mul_chain(unsigned long n)
{
	unsigned long x = 7;
	for (unsigned long i = 0; i < n; i++)
		x = x * 2862933555777941757ul + i;
	return x;
}

__attribute__((noinline)) static unsigned long divide(unsigned long n)
{
	unsigned long s = 0;
	for (unsigned long i = 1; i <= n; i++)
		s += (s ^ 0x9e3779b97f4a7c15ul) / (i | 1);
	return s;
}

__attribute__((noinline)) static unsigned long hash(unsigned long n)
{
	unsigned long h = 1469598103934665603ul, t = 0;
	for (unsigned long i = 0; i < n; i++) {
		h ^= i;
		h ^= h << 13;
		h ^= h >> 7;
		h ^= h << 17;
		if (!(h & 0x10))
			t += h >> 40;
	}
	return h + t;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 20000000ul;
	unsigned long a = mul_chain(n), b = divide(n / 8), c = hash(n);
	printf("%lu %lu %lu\n", a, b, c);
	return 0;
}
