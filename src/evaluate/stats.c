/* Small statistics shared by the accuracy metrics: quantiles by selection
 * and the seeded generator behind pair sampling and the bootstrap. */
#include <math.h>
#include <stddef.h>
#include "evaluate/evaluate_impl.h"

/* k-th smallest of v[0..n) by quickselect (reorders v). */
static double select_k(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;
	while (lo < hi) {
		double pivot = v[lo + (hi - lo) / 2];
		size_t i = lo, j = hi;
		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				double t = v[i];
				v[i] = v[j];
				v[j] = t;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			break;
	}
	return v[k];
}

double pmcfi_quantile(double *v, size_t n, double q)
{
	if (n == 0)
		return NAN;
	double pos = q * (double)(n - 1);
	size_t k = (size_t)floor(pos);
	if (k >= n - 1)
		return select_k(v, n, n - 1);
	double a = select_k(v, n, k);
	/* the next order statistic is the minimum of the part above k */
	double b = v[k + 1];
	for (size_t i = k + 2; i < n; i++)
		if (v[i] < b)
			b = v[i];
	return a + (pos - (double)k) * (b - a);
}

double pmcfi_median(double *v, size_t n) { return pmcfi_quantile(v, n, 0.5); }

uint64_t pmcfi_rng_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}
