/* TMD histograms shared by the EPD driver and the tests: the binning grid
 * of one event pair and the histogram of a set of XUs on it
 * (fuse-task-parallel §4.3). */
#ifndef PMCF_EVALUATE_TMD_H
#define PMCF_EVALUATE_TMD_H
#include <stddef.h>
#include "evaluate/evaluate_impl.h"

#define PMCFI_TMD_MAX_BINS 30

struct pmcfi_grid {
	unsigned bins, side; /* B, and B + 2 cells a side */
	double lo[2];        /* reference minimum of each event */
	double scale[2];     /* bins per unit of each event */
};

/* The grid of B bins over [lo, hi] per event; an empty range [l, l] is
 * widened to [l, l + max(|l|, 1)]. */
void pmcfi_tmd_grid(unsigned bins, const double lo[2], const double hi[2], struct pmcfi_grid *g);

/* Histogram of the XUs idx[0..n) (idx NULL: 0..n-1) with values x[i], y[i];
 * XUs missing a value are left out. acc: 3*side^2 scratch doubles. Writes
 * the populated bins' weights (shares of the kept XUs) to w and centroids
 * (fractional bin units) to pts; returns their count; *used = XUs kept. */
size_t pmcfi_tmd_hist(const struct pmcfi_grid *g, const double *x, const double *y, const size_t *idx,
		      size_t n, double *acc, double *w, double *pts, size_t *used);
#endif
