/* Test program for `pmcfuse imix` (tests/e2e/slow_imix.sh): an integer loop
 * (LCG, shifts, xor, a data-dependent branch), a scalar double loop and a
 * memset, so that the mix has clear top mnemonics. Argument: iterations. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char buf[1 << 16];

__attribute__((noinline)) static unsigned long work_int(unsigned long n)
{
	unsigned long s = 0, x = 1;
	for (unsigned long i = 0; i < n; i++) {
		x = x * 6364136223846793005ul + 1442695040888963407ul;
		s += (x >> 33) ^ i;
		if (x & 0x100)
			s += i;
	}
	return s;
}

__attribute__((noinline)) static double work_fp(unsigned long n)
{
	double a = 0, b = 1.0;
	for (unsigned long i = 0; i < n; i++) {
		a += b * 0.5;
		b = b * 0.999 + 0.001;
	}
	return a;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 20000000ul;
	unsigned long s = work_int(n);
	double d = work_fp(n / 4);
	for (int k = 0; k < 64; k++)
		memset(buf, k, sizeof(buf));
	printf("%lu %.3f %d\n", s, d, buf[7]);
	return 0;
}
