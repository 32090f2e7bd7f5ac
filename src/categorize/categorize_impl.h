/* Inside the counter-inspection toolkit: the backends that count events over
 * runs of the kernels executable (cachegrind.c, perf_backend.c) and the
 * driver (run.c) that plans the runs and builds the report. */
#ifndef PMCF_CATEGORIZE_IMPL_H
#define PMCF_CATEGORIZE_IMPL_H
#include "pmcfuse/categorize.h"

/* One run of the kernels executable: argv[0] is the executable, NULL-ended. */
#define CATEGORIZE_MAX_ARGS 10
struct pmcfi_categorize_run {
	char *argv[CATEGORIZE_MAX_ARGS];
	char store[CATEGORIZE_MAX_ARGS][32];
};

/* The cache geometry cachegrind simulates, fixed for reproducibility. */
#define CATEGORIZE_CG_L1 32768u
#define CATEGORIZE_CG_LL 8388608u

/* Count events[0..n) in each of runs[0..nruns): counts[r * n + e]. */
int pmcfi_categorize_cachegrind_measure(const pmcf_categorize_options *o,
					const struct pmcfi_categorize_run *runs, size_t nruns,
					const char *const *events, size_t n, double *counts);
int pmcfi_categorize_cachegrind_catalog(pmcf_catalog **out);
void pmcfi_categorize_cachegrind_levels(pmcf_categorize_levels *lv);

int pmcfi_categorize_perf_measure(const pmcf_categorize_options *o, const struct pmcfi_categorize_run *runs,
				  size_t nruns, const char *const *events, size_t n, double *counts);
/* PMCF_ENOTSUP with "no hardware PMU: use PMCF_CATEGORIZE_CACHEGRIND (the
 * command's --backend cachegrind)" when the
 * machine has none. */
int pmcfi_categorize_perf_check(void);
#endif
