/* Bench program: counts the N-queens solutions with one OpenMP task per
 * placement down to depth CUTOFF (fine-grained tasks, taskwait at every
 * level). Usage: nqueens [N [CUTOFF]] (default 10 4). */
#include <stdio.h>
#include <stdlib.h>

static int n, cutoff;

/* rows placed: cols[0..row); 1 when queen (row, c) attacks none of them */
static int safe(const int *cols, int row, int c)
{
	for (int r = 0; r < row; r++)
		if (cols[r] == c || abs(cols[r] - c) == row - r)
			return 0;
	return 1;
}

static long place(const int *cols, int row)
{
	if (row == n)
		return 1;
	long count[32] = {0};
	for (int c = 0; c < n; c++) {
		if (!safe(cols, row, c))
			continue;
		if (row < cutoff) {
#pragma omp task shared(count) firstprivate(c)
			{
				int next[32];
				for (int r = 0; r < row; r++)
					next[r] = cols[r];
				next[row] = c;
				count[c] = place(next, row + 1);
			}
		} else {
			int next[32];
			for (int r = 0; r < row; r++)
				next[r] = cols[r];
			next[row] = c;
			count[c] = place(next, row + 1);
		}
	}
#pragma omp taskwait
	long total = 0;
	for (const long *p = count; p < count + n; p++)
		total += *p;
	return total;
}

int main(int argc, char **argv)
{
	n = 10;
	cutoff = 4;
	if (argc > 1 && ((n = atoi(argv[1])) < 1 || n > 32))
		return 2;
	if (argc > 2)
		cutoff = atoi(argv[2]);
	long r = 0;
	int none[32];
#pragma omp parallel
#pragma omp single
	r = place(none, 0);
	printf("nqueens %d: %ld solutions\n", n, r);
	return 0;
}
