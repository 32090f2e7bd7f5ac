/* Three task constructs that call one function (as branch-and-bound
 * searches do), one whose block allocates before it calls, and one that
 * calls another function after an allocation: the XU types must have
 * distinct names ("solve@samecall.c:LINE": the callee where the block is
 * that one call, else the enclosing function, solve too), with their
 * callees (solve, leaf; not malloc), taken from the debug info even when
 * the source file is gone. Usage: samecall [DEPTH] (default 6). */
#include <stdio.h>
#include <stdlib.h>

/* the last scratch buffer: it escapes, so the compiler keeps its malloc */
char *volatile samecall_last;

static long leaf(long x)
{
	volatile long s = 0;
	for (long i = 0; i < 1000 + x; i++)
		s += i ^ x;
	return s;
}

static long solve(int depth, int branch)
{
	long a = 0, b = 0, c = 0, d = 0;
	if (depth == 0)
		return leaf(branch);
#pragma omp task shared(a)
	a = solve(depth - 1, 0);
#pragma omp task shared(b)
	b = solve(depth - 1, 1);
	if (depth % 2 == 0) {
#pragma omp task shared(c)
		{
			long *buf = malloc(64 * sizeof(long));
			if (buf) {
				buf[0] = depth;
				c = solve(depth - 2 > 0 ? depth - 2 : 0, 2) + buf[0];
				free(buf);
			}
		}
	}
#pragma omp task shared(d)
	{
		char *tmp = malloc(256);
		d = tmp ? leaf(depth) + (tmp[0] = 1) : 0;
		samecall_last = tmp;
		free(tmp);
	}
#pragma omp taskwait
	return a + b + c + d;
}

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 6;
	long r = 0;
#pragma omp parallel
#pragma omp single
	r = solve(depth, 0);
	printf("samecall depth %d: %ld\n", depth, r);
	return 0;
}
