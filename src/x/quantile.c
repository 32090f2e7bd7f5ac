/* Quantiles by Wirth's selection: linear expected time, in place. */
#include <math.h>
#include "x/x.h"

/* The k-th smallest of v[0..n), leaving v[0..k) <= v[k] <= v[k+1..n). */
static double select_k(double *v, size_t n, size_t kk)
{
	long l = 0, m = (long)n - 1, k = (long)kk;
	while (l < m) {
		double x = v[k];
		long i = l, j = m;
		do {
			while (v[i] < x)
				i++;
			while (x < v[j])
				j--;
			if (i <= j) {
				double t = v[i];
				v[i] = v[j];
				v[j] = t;
				i++;
				j--;
			}
		} while (i <= j);
		if (j < k)
			l = i;
		if (k < i)
			m = j;
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
	if (pos == (double)k)
		return a;
	/* the next order statistic is the minimum of the part above k */
	double b = v[k + 1];
	for (size_t i = k + 2; i < n; i++)
		if (v[i] < b)
			b = v[i];
	return a + (pos - (double)k) * (b - a);
}

double pmcfi_median(double *v, size_t n) { return pmcfi_quantile(v, n, 0.5); }
