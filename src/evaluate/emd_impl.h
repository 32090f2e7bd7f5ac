/* Private to src/evaluate/emd.c and its tests: the EMD with a chosen
 * initial basis, so that every start can be checked against brute force. */
#ifndef PMCF_EMD_IMPL_H
#define PMCF_EMD_IMPL_H
#include "evaluate/evaluate_impl.h"

enum {
	PMCFI_EMD_START_GREEDY = 0, /* least cost over the short arcs, then row minima (the default) */
	PMCFI_EMD_START_ROWMIN = 1, /* row minima only */
};

/* pmcf_emd with the given start. */
int pmcfi_emd_start(pmcf_emd_ws *ws, size_t dim, const double *wa, const double *xa, size_t na,
		    const double *wb, const double *xb, size_t nb, int start, double *out);
#endif
