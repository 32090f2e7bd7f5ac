/* Bench program: naive Fibonacci with two tasks per call above a cutoff
 * (the finest-grained task tree: a few additions per task).
 * Usage: fib [N [CUTOFF]] (default 25 12). */
#include <stdio.h>
#include <stdlib.h>

static int cutoff;

static long fib_seq(int k) { return k < 2 ? k : fib_seq(k - 1) + fib_seq(k - 2); }

static long fib(int k, int depth)
{
	if (k < 2 || depth >= cutoff)
		return fib_seq(k);
	long a, b;
#pragma omp task shared(a)
	a = fib(k - 1, depth + 1);
#pragma omp task shared(b)
	b = fib(k - 2, depth + 1);
#pragma omp taskwait
	return a + b;
}

int main(int argc, char **argv)
{
	int k = argc > 1 ? atoi(argv[1]) : 25;
	cutoff = argc > 2 ? atoi(argv[2]) : 12;
	long r = 0;
#pragma omp parallel
#pragma omp single
	r = fib(k, 0);
	printf("fib(%d) = %ld\n", k, r);
	return 0;
}
