/* CG/MG-like OpenMP loops: a first-touch initialisation and an axpy with
 * schedule(static), a smoother with schedule(dynamic, CHUNK) whose cost
 * grows with the row. Usage: loops [N [ITER [CHUNK]]] (default 1<<16 3 4096). */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1 << 16;
	int iters = argc > 2 ? atoi(argv[2]) : 3;
	long chunk = argc > 3 ? atol(argv[3]) : 4096;
	double *x = malloc((size_t)n * sizeof(double)), *y = malloc((size_t)n * sizeof(double));
	double s = 0;
	if (!x || !y)
		return 2;
#pragma omp parallel
	{
#pragma omp for schedule(static)
		for (long i = 0; i < n; i++) { /* first touch: page faults per range */
			x[i] = 1.0 / (double)(i + 1);
			y[i] = 0;
		}
		for (int it = 0; it < iters; it++) {
#pragma omp for schedule(static)
			for (long i = 0; i < n; i++)
				y[i] += 0.5 * x[i];
#pragma omp for schedule(dynamic, chunk) reduction(+ : s)
			for (long i = 1; i < n - 1; i++) {
				double v = 0;
				for (long k = 0; k < 1 + i * 8 / n; k++)
					v += (x[i - 1] + x[i + 1] - 2 * x[i]) * 0.25;
				s += v + y[i];
			}
		}
	}
	printf("loops n=%ld iters=%d: %.6f\n", n, iters, s);
	free(x);
	free(y);
	return 0;
}
