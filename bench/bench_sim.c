/* Benchmark of the simulator: one execution of ~50,000 XUs (cholesky,
 * blocks=66: 50,116 tasks) recording all 33 events (they cannot share the
 * counters, so multiplexed: rr at the default 4 ms) plus the truth layer,
 * against the 1 s target and against a baseline measured in the same run:
 * filling a profile of the same shape (XUs, labels, 34 event columns, 34
 * truth columns) with random numbers. */
#include "pmcfuse/profile.h"
#include "pmcfuse/sim.h"
#include "util/rng.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *const events[] = {
	"PAPI_TOT_INS", "PAPI_TOT_CYC", "PAPI_REF_CYC", "PAPI_L1_DCM", "PAPI_L1_ICM", "PAPI_L1_LDM",
	"PAPI_L1_STM",  "PAPI_L2_DCA",  "PAPI_L2_DCR",  "PAPI_L2_DCW", "PAPI_L2_STM", "PAPI_L2_TCW",
	"PAPI_L2_TCM",  "PAPI_L2_ICM",  "PAPI_L2_ICH",  "PAPI_L2_ICA", "PAPI_L2_ICR", "PAPI_L3_ICA",
	"PAPI_L3_ICR",  "PAPI_L3_DCR",  "PAPI_L3_DCW",  "PAPI_L3_TCA", "PAPI_L3_TCM", "PAPI_L3_TCW",
	"PAPI_TLB_IM",  "PAPI_BR_INS",  "PAPI_BR_CN",   "PAPI_BR_NTK", "PAPI_BR_MSP", "PAPI_LD_INS",
	"PAPI_SR_INS",  "PAPI_FDV_INS", "PAPI_STL_ICY",
};
#define NEV 33

/* The baseline: a profile of the same shape filled with random numbers. */
static double baseline(size_t nxu)
{
	double t0 = now();
	pmcf_profile *p;
	if (pmcf_profile_new(&p))
		exit(1);
	uint32_t type;
	pmcf_profile_type_add(p, PMCF_XU_TASK, "gemm", "cholesky.c:79", &type);
	pmcf_profile_event_add(p, "duration", NULL);
	pmcf_profile_truth_event_add(p, "duration", NULL);
	for (int e = 0; e < NEV; e++) {
		pmcf_profile_event_add(p, events[e], NULL);
		pmcf_profile_truth_event_add(p, events[e], NULL);
	}
	pmcf_profile_reserve(p, nxu);
	struct pmcfi_rng r;
	pmcfi_rng_seed(&r, 1);
	char label[32];
	for (size_t i = 0; i < nxu; i++) {
		snprintf(label, sizeof(label), "0.%zu", i);
		uint64_t s = pmcfi_rng_next(&r) >> 40;
		pmcf_xu xu = {sizeof(pmcf_xu), type, (int32_t)(i % 32), (int32_t)(i % 32), s, s + 1000,
			      label,           "0"};
		pmcf_profile_xu_add(p, &xu, NULL);
	}
	for (size_t e = 0; e <= NEV; e++) {
		double *v = pmcf_profile_column(p, e), *t = pmcf_profile_truth_column(p, e);
		for (size_t i = 0; i < nxu; i++)
			v[i] = t[i] = (double)(pmcfi_rng_next(&r) >> 44);
	}
	pmcf_profile_free(p);
	return now() - t0;
}

static size_t nev_used = NEV;

static double sim(const char *spec, pmcf_count_opts *o, size_t *nxu)
{
	pmcf_sim_spec *s;
	if (pmcf_sim_spec_parse(spec, &s))
		exit(1);
	double t0 = now();
	pmcf_profile *p;
	int err = pmcf_sim_record(s, events, nev_used, o, &p);
	double t = now() - t0;
	if (err) {
		fprintf(stderr, "bench_sim: %s\n", pmcf_errdetail());
		exit(1);
	}
	*nxu = pmcf_profile_nxus(p);
	pmcf_profile_free(p);
	pmcf_sim_spec_free(s);
	return t;
}

static double best(double (*f)(const char *, pmcf_count_opts *, size_t *), const char *spec,
		   pmcf_count_opts *o, size_t *nxu, int reps)
{
	double b = 1e9;
	for (int i = 0; i < reps; i++) {
		double t = f(spec, o, nxu);
		if (t < b)
			b = t;
	}
	return b;
}

int main(void)
{
	pmcf_count_opts o = PMCF_COUNT_OPTS_INIT;
	o.multiplex = PMCF_MUX_RR;
	size_t nxu;
	double t = best(sim, "cholesky,blocks=66", &o, &nxu, 3);
	double b = 1e9;
	for (int i = 0; i < 3; i++) {
		double x = baseline(nxu);
		if (x < b)
			b = x;
	}
	printf("bench_sim: cholesky,blocks=66 (%zu XUs), all 33 events (rr, 4 ms) + truth: %.3f s\n", nxu, t);
	printf("  vs target 1 s: %.3f of the budget\n", t / 1.0);
	printf("  vs baseline (fill a profile of the same shape with random numbers, %.3f s): %.2fx\n", b,
	       t / b);
	o.multiplex = PMCF_MUX_ROC;
	o.period_ms = 0.1;
	double tm = best(sim, "cholesky,blocks=66", &o, &nxu, 3);
	printf("  roc at 0.1 ms: %.3f s (%.2fx the rr 4 ms run)\n", tm, tm / t);
	pmcf_count_opts n = PMCF_COUNT_OPTS_INIT;
	nev_used = 2; /* PAPI_TOT_INS, PAPI_TOT_CYC: fits, no multiplexing */
	double tn = best(sim, "cholesky,blocks=66", &n, &nxu, 3);
	printf("  2 events, no multiplexing (schedule + model + truth): %.3f s\n", tn);
	double t192 = best(sim, "cholesky,blocks=66,machine=xeon192", &n, &nxu, 3);
	printf("  same on xeon192 (192 threads): %.3f s\n", t192);
	return 0;
}
