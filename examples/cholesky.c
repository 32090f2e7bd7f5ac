/* Tiled Cholesky factorisation with OpenMP task dependencies: task types
 * potrf, trsm, syrk and gemm. Usage: cholesky [BLOCKS [BS]] (default 6 64).
 * Every task works in a freshly mapped scratch tile, so page faults vary
 * per task type (potrf 1 tile, trsm/syrk 2, gemm 3). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static int bs;

static double *scratch(int tiles)
{
	size_t n = (size_t)tiles * bs * bs * sizeof(double);
	double *w = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (w == MAP_FAILED)
		return NULL;
	memset(w, 0, n); /* first touch: tiles pages faults */
	return w;
}

static void release(double *w, int tiles) { munmap(w, (size_t)tiles * bs * bs * sizeof(double)); }

static void potrf(double *a)
{
	double *w = scratch(1);
	memcpy(w, a, (size_t)bs * bs * sizeof(double));
	for (int k = 0; k < bs; k++) {
		w[k * bs + k] = sqrt(w[k * bs + k]);
		for (int i = k + 1; i < bs; i++)
			w[i * bs + k] /= w[k * bs + k];
		for (int j = k + 1; j < bs; j++)
			for (int i = j; i < bs; i++)
				w[i * bs + j] -= w[i * bs + k] * w[j * bs + k];
	}
	memcpy(a, w, (size_t)bs * bs * sizeof(double));
	release(w, 1);
}

static void trsm(const double *l, double *b)
{
	double *w = scratch(2);
	memcpy(w, b, (size_t)bs * bs * sizeof(double));
	for (int i = 0; i < bs; i++)
		for (int k = 0; k < bs; k++) {
			double s = w[i * bs + k];
			for (int j = 0; j < k; j++)
				s -= w[i * bs + j] * l[k * bs + j];
			w[i * bs + k] = s / l[k * bs + k];
		}
	memcpy(b, w, (size_t)bs * bs * sizeof(double));
	release(w, 2);
}

static void syrk(const double *a, double *c)
{
	double *w = scratch(2);
	for (int i = 0; i < bs; i++)
		for (int j = 0; j <= i; j++) {
			double s = 0;
			for (int k = 0; k < bs; k++)
				s += a[i * bs + k] * a[j * bs + k];
			w[i * bs + j] = s;
		}
	for (int i = 0; i < bs; i++)
		for (int j = 0; j <= i; j++)
			c[i * bs + j] -= w[i * bs + j];
	release(w, 2);
}

static void gemm(const double *a, const double *b, double *c)
{
	double *w = scratch(3);
	for (int i = 0; i < bs; i++)
		for (int j = 0; j < bs; j++) {
			double s = 0;
			for (int k = 0; k < bs; k++)
				s += a[i * bs + k] * b[j * bs + k];
			w[i * bs + j] = s;
		}
	for (int i = 0; i < bs * bs; i++)
		c[i] -= w[i];
	release(w, 3);
}

int main(int argc, char **argv)
{
	int nb = argc > 1 ? atoi(argv[1]) : 6;
	bs = argc > 2 ? atoi(argv[2]) : 64;
	if (nb < 1 || bs < 1)
		return 2;
	int n = nb * bs;
	double **t = calloc((size_t)nb * nb, sizeof(*t));
	for (int bi = 0; bi < nb; bi++)
		for (int bj = 0; bj < nb; bj++) {
			double *a = malloc((size_t)bs * bs * sizeof(double));
			for (int i = 0; i < bs; i++)
				for (int j = 0; j < bs; j++) {
					int gi = bi * bs + i, gj = bj * bs + j;
					a[i * bs + j] = (gi == gj ? n : 0) + 1.0 / (1 + abs(gi - gj));
				}
			t[bi * nb + bj] = a;
		}
#define T(i, j) t[(i) * nb + (j)]
#pragma omp parallel
#pragma omp single
	for (int k = 0; k < nb; k++) {
		double *akk = T(k, k);
#pragma omp task depend(inout : akk[0])
		potrf(akk);
		for (int i = k + 1; i < nb; i++) {
			double *aik = T(i, k);
#pragma omp task depend(in : akk[0]) depend(inout : aik[0])
			trsm(akk, aik);
		}
		for (int i = k + 1; i < nb; i++) {
			double *aik = T(i, k), *aii = T(i, i);
#pragma omp task depend(in : aik[0]) depend(inout : aii[0])
			syrk(aik, aii);
			for (int j = k + 1; j < i; j++) {
				double *ajk = T(j, k), *aij = T(i, j);
#pragma omp task depend(in : aik[0], ajk[0]) depend(inout : aij[0])
				gemm(aik, ajk, aij);
			}
		}
	}
	double tr = 0;
	for (int i = 0; i < nb; i++)
		tr += T(i, i)[0];
	printf("cholesky %d x %d blocks of %d: L[0][0] sum %.6f\n", nb, nb, bs, tr);
	for (int i = 0; i < nb * nb; i++)
		free(t[i]);
	free(t);
	return 0;
}
