/* MPI + OpenMP tasks: a 2-D Jacobi (5-point) heat stencil on an N x N grid
 * split into block rows, one per MPI rank. Each iteration the ranks swap
 * their boundary rows with their neighbours (halo exchange), then every
 * rank sweeps its rows as OpenMP tasks, one per TILE x TILE tile, and the
 * ranks reduce the residual. The example of docs/collector.md "MPI
 * programs": each rank records its own tasks (`relax` per tile, `residual`
 * per row of tiles). Usage: mpi_tiles [N [TILE [ITERS]]] (default 512 64 8);
 * N divisible by the rank count and TILE. Prints the final residual. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int n, tile, rows; /* grid size, tile size, rows of this rank */
/* This rank's rows with one halo row above and below: (rows + 2) x n. */
static double *cur, *nxt;

#define AT(g, i, j) ((g)[(size_t)(i) * (size_t)n + (size_t)(j)])

/* One tile of the Jacobi sweep: rows [r0, r0 + tile) (1-based: row 0 is
 * the halo), columns [c0, c0 + tile); the outer boundary stays fixed. */
static void relax(int r0, int c0, int top, int bottom)
{
	for (int i = r0; i < r0 + tile; i++)
		for (int j = c0; j < c0 + tile; j++) {
			if (j == 0 || j == n - 1 || (top && i == 1) || (bottom && i == rows))
				AT(nxt, i, j) = AT(cur, i, j);
			else
				AT(nxt, i, j) = 0.25 * (AT(cur, i - 1, j) + AT(cur, i + 1, j) +
							AT(cur, i, j - 1) + AT(cur, i, j + 1));
		}
}

/* The squared change over one row of tiles, into *out. */
static void residual(int r0, double *out)
{
	double s = 0;
	for (int i = r0; i < r0 + tile; i++)
		for (int j = 0; j < n; j++) {
			double d = AT(nxt, i, j) - AT(cur, i, j);
			s += d * d;
		}
	*out = s;
}

int main(int argc, char **argv)
{
	int provided, rank, size;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	n = argc > 1 ? atoi(argv[1]) : 512;
	tile = argc > 2 ? atoi(argv[2]) : 64;
	int iters = argc > 3 ? atoi(argv[3]) : 8;
	if (n <= 0 || tile <= 0 || iters <= 0 || n % size || n % tile || (n / size) % tile) {
		if (rank == 0)
			fprintf(stderr, "mpi_tiles: N (%d) must be a multiple of the ranks (%d) x TILE (%d)\n",
				n, size, tile);
		MPI_Finalize();
		return 2;
	}
	rows = n / size;
	int trows = rows / tile, tcols = n / tile;
	cur = calloc((size_t)(rows + 2) * (size_t)n, sizeof(double));
	nxt = calloc((size_t)(rows + 2) * (size_t)n, sizeof(double));
	double *part = calloc((size_t)trows, sizeof(double));
	if (!cur || !nxt || !part) {
		fprintf(stderr, "mpi_tiles: out of memory\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	/* hot top edge of the whole grid: the first rank's first row */
	if (rank == 0)
		for (int j = 0; j < n; j++)
			AT(cur, 1, j) = AT(nxt, 1, j) = 100.0;
	int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
	double res = 0;
	for (int it = 0; it < iters; it++) {
		/* halo exchange: my first row up, my last row down */
		MPI_Sendrecv(&AT(cur, 1, 0), n, MPI_DOUBLE, up, 0, &AT(cur, rows + 1, 0), n, MPI_DOUBLE,
			     down, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Sendrecv(&AT(cur, rows, 0), n, MPI_DOUBLE, down, 1, &AT(cur, 0, 0), n, MPI_DOUBLE, up,
			     1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
#pragma omp parallel
#pragma omp single
		{
			for (int tr = 0; tr < trows; tr++)
				for (int tc = 0; tc < tcols; tc++) {
#pragma omp task firstprivate(tr, tc)
					relax(1 + tr * tile, tc * tile, rank == 0, rank == size - 1);
				}
#pragma omp taskwait
			for (int tr = 0; tr < trows; tr++) {
#pragma omp task firstprivate(tr)
				residual(1 + tr * tile, &part[tr]);
			}
#pragma omp taskwait
		}
		double local = 0;
		for (int tr = 0; tr < trows; tr++)
			local += part[tr];
		MPI_Allreduce(&local, &res, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		double *t = cur;
		cur = nxt;
		nxt = t;
	}
	if (rank == 0)
		printf("mpi_tiles: %d ranks, %dx%d grid, %d tiles per rank, %d iterations, residual %.6g\n",
		       size, n, n, trows * tcols, iters, sqrt(res));
	free(cur);
	free(nxt);
	free(part);
	MPI_Finalize();
	return 0;
}
