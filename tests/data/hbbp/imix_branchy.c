/* Branchy test program for the imix time-to-count correction (docs/imix.md):
 * a switch and nested ifs on pseudo-random data (mispredicted branches), next
 * to a predictable counting loop. Argument: iterations (default 20 000 000). */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static unsigned long random_branches(unsigned long n)
{
	unsigned long x = 88172645463325252ul, s = 0;
	for (unsigned long i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (x & 1)
			s += 3;
		else if (x & 2)
			s ^= i;
		else
			s -= 1;
		if ((x >> 8) % 3 == 0)
			s += x >> 60;
	}
	return s;
}

__attribute__((noinline)) static unsigned long predictable(unsigned long n)
{
	unsigned long s = 0;
	for (unsigned long i = 0; i < n; i++) {
		if (i & 0x10000)
			s += i;
		else
			s ^= i;
	}
	return s;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 20000000ul;
	unsigned long a = random_branches(n), b = predictable(n);
	printf("%lu %lu\n", a, b);
	return 0;
}
