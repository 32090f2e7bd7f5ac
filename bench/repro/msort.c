/* Deterministic recursive task-parallel mergesort (OpenMP tasks). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void merge(int *a, int *t, size_t lo, size_t mid, size_t hi)
{
	size_t i = lo, j = mid, k = lo;
	while (i < mid && j < hi)
		t[k++] = a[i] <= a[j] ? a[i++] : a[j++];
	while (i < mid)
		t[k++] = a[i++];
	while (j < hi)
		t[k++] = a[j++];
	memcpy(a + lo, t + lo, (hi - lo) * sizeof(*a));
}

static int cmp(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;
	return (a > b) - (a < b);
}

static void msort(int *a, int *t, size_t lo, size_t hi, size_t cutoff)
{
	if (hi - lo <= cutoff) {
		qsort(a + lo, hi - lo, sizeof(*a), cmp);
		return;
	}
	size_t mid = lo + (hi - lo) / 2;
#pragma omp task
	msort(a, t, lo, mid, cutoff);
#pragma omp task
	msort(a, t, mid, hi, cutoff);
#pragma omp taskwait
	merge(a, t, lo, mid, hi);
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 4000000;
	size_t cutoff = argc > 2 ? strtoul(argv[2], NULL, 10) : 4096;
	int *a = malloc(n * sizeof(*a)), *t = malloc(n * sizeof(*t));
	if (!a || !t)
		return 1;
	unsigned long long s = 88172645463325252ull;
	for (size_t i = 0; i < n; i++) { /* xorshift: the same input every run */
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		a[i] = (int)(s % 1000000007ull);
	}
#pragma omp parallel
#pragma omp single
	msort(a, t, 0, n, cutoff);
	for (size_t i = 1; i < n; i++)
		if (a[i - 1] > a[i])
			return 2;
	printf("sorted %zu\n", n);
	free(a);
	free(t);
	return 0;
}
