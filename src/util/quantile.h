/* Order statistics shared by the library and the command: the q-quantile of
 * an array by selection (linear time, no sorting). */
#ifndef PMCF_UTIL_QUANTILE_H
#define PMCF_UTIL_QUANTILE_H
#include <stddef.h>

/* q-quantile (0..1) of v[0..n) by linear interpolation between order
 * statistics (position q·(n-1), R's type 7): the one quantile of pmcfuse.
 * Reorders v, but a sorted v stays sorted (only equal values are swapped).
 * NaN when n == 0. */
double pmcfi_quantile(double *v, size_t n, double q);
/* Median of v[0..n) (the mean of the two middle values when n is even);
 * reorders v. */
double pmcfi_median(double *v, size_t n);
#endif
