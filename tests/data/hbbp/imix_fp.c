/* Floating-point test program for the imix time-to-count correction
 * (docs/imix.md): a latency-bound scalar recurrence, divisions and square
 * roots, and a throughput-bound multiply-add over an array (vectorised at
 * -O2 when the compiler does). Argument: iterations (default 20 000 000). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static double v[1024], w[1024];

__attribute__((noinline)) static double recur(unsigned long n)
{
	double a = 0, b = 1.0;
	for (unsigned long i = 0; i < n; i++) {
		a += b * 0.5;
		b = b * 0.999 + 0.001;
	}
	return a + b;
}

__attribute__((noinline)) static double divsqrt(unsigned long n)
{
	double s = 1.0;
	for (unsigned long i = 1; i <= n; i++)
		s = sqrt(s + (double)i) / 1.0001;
	return s;
}

__attribute__((noinline)) static double axpy(unsigned long n)
{
	for (unsigned long r = 0; r < n / 1024; r++)
		for (int i = 0; i < 1024; i++)
			v[i] = v[i] * 0.5 + w[i];
	return v[3];
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 20000000ul;
	for (int i = 0; i < 1024; i++)
		w[i] = i * 0.25;
	double a = recur(n), b = divsqrt(n / 8), c = axpy(n * 2);
	printf("%.6g %.6g %.6g\n", a, b, c);
	return 0;
}
