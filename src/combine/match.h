/* Internals of the "match" strategy (match.c) that its unit tests reach. */
#ifndef PMCF_COMBINE_MATCH_H
#define PMCF_COMBINE_MATCH_H
#include <stddef.h>
#include <stdint.h>

/* Exact minimum-cost assignment of nr rows to nc >= nr columns (cost
 * row-major nr x nc). ws: 4 (nc + 1) doubles; rowof: 2 (nc + 1) ints, of
 * which rowof[1..nc] is on return the row (1-based, 0 none) of each
 * column. -1 when nr > nc. */
int pmcfi_cmb_match_assign(const double *cost, size_t nr, size_t nc, double *ws, int32_t *rowof);

/* The factor L (k x k, lower, row-major) of the metric M = B B^T + floor,
 * B the ridge regression of y (n x m) on x (n x k); ws: 4 k^2 + 2 k m + k +
 * m doubles. -1 when M could not be factored. */
int pmcfi_cmb_match_metric(const double *x, const double *y, size_t n, size_t k, size_t m, double *l,
			   double *ws);

/* log(1 + v) of a value (NaN for a missing one): match's feature scale. */
double pmcfi_cmb_match_log(double v);

/* match's linking space, in place: zp (np x k) and zc (nc x k) hold log
 * linking values of the two sides (NaN missing), y (nc x m) the log added
 * events of side c (NaN missing; replaced by the column mean). Each linking
 * column is standardised by its median and MAD pooled over both sides,
 * then z = L^T x with L the metric's factor learnt on side c (the identity
 * when it cannot be learnt). k <= 64. -1 out of memory. */
int pmcfi_cmb_match_embed(double *zp, size_t np, double *zc, size_t nc, double *y, size_t k, size_t m);
#endif
