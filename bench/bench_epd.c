/* Benchmark of EPD (src/evaluate/epd.c): a 33-event profile (528 pairs)
 * against 5 reference repeats with every pair, calibration included, on
 * simulated Cholesky profiles whose values are the simulator's ground truth.
 * Baseline in the same run: reading and binning the values of every pair of
 * every profile (no EMD). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "pmcfuse/evaluate.h"
#include "evaluate/tmd.h"
#include "pmcfuse/sim.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One simulated execution whose 33 event columns hold the true values. */
static pmcf_profile *truth_profile(const char *spec_text, uint64_t seed)
{
	pmcf_sim_spec *spec;
	pmcf_profile *p;
	if (pmcf_sim_spec_parse(spec_text, &spec))
		return NULL;
	pmcf_sim_spec_seed_set(spec, seed);
	const char *ev[] = {"duration"};
	pmcf_count_opts o = PMCF_COUNT_OPTS_INIT;
	int err = pmcf_sim_record(spec, ev, 1, &o, &p);
	pmcf_sim_spec_free(spec);
	if (err)
		return NULL;
	size_t nt = pmcf_profile_ntruth(p), n = pmcf_profile_nxus(p);
	for (size_t t = 0; t < nt; t++) {
		const char *name = pmcf_profile_truth_name(p, t);
		size_t e;
		if (strcmp(name, "duration") == 0 || pmcf_profile_event_add(p, name, &e))
			continue;
		memcpy(pmcf_profile_column(p, e), pmcf_profile_truth_column_const(p, t), n * sizeof(double));
	}
	return p;
}

int main(int argc, char **argv)
{
	const char *spec = argc > 1 ? argv[1] : "cholesky";
	pmcf_profile *refs[5], *target = truth_profile(spec, 1000);
	for (int k = 0; k < 5; k++)
		refs[k] = truth_profile(spec, 1 + (uint64_t)k);
	if (!target || !refs[4]) {
		fprintf(stderr, "bench_epd: cannot simulate '%s': %s\n", spec, pmcf_errdetail());
		return 1;
	}
	size_t ne = pmcf_profile_nevents(target) - 1, nx = pmcf_profile_nxus(target);

	/* baseline: read and bin every pair of the 6 profiles */
	double t0 = now();
	struct pmcfi_grid g;
	double *acc = malloc(3 * 144 * sizeof(double)), w[144], pts[288];
	size_t used, bins = 0;
	for (size_t a = 1; a <= ne; a++)
		for (size_t b = a + 1; b <= ne; b++) {
			/* the reference range of the pair */
			double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
			for (int k = 0; k < 5; k++)
				for (int d = 0; d < 2; d++) {
					const double *c = pmcf_profile_column_const(refs[k], d ? b : a);
					for (size_t i = 0; i < pmcf_profile_nxus(refs[k]); i++) {
						lo[d] = fmin(lo[d], c[i]);
						hi[d] = fmax(hi[d], c[i]);
					}
				}
			pmcfi_tmd_grid(10, lo, hi, &g);
			for (int k = 0; k < 6; k++) {
				const pmcf_profile *p = k < 5 ? refs[k] : target;
				bins += pmcfi_tmd_hist(&g, pmcf_profile_column_const(p, a),
						       pmcf_profile_column_const(p, b), NULL,
						       pmcf_profile_nxus(p), acc, w, pts, &used);
			}
		}
	double base = now() - t0;
	free(acc);

	double best[2] = {INFINITY, INFINITY}, epd = 0;
	size_t np = 0;
	for (int mode = 0; mode < 2; mode++)
		for (int rep = 0; rep < 3; rep++) {
			pmcf_epd_opts o = PMCF_EPD_OPTS_INIT;
			o.threads = mode == 0 ? 1 : 0;
			pmcf_epd_result *r;
			t0 = now();
			if (pmcf_epd_compute(target, (const pmcf_profile *const *)refs, 5, &o, &r)) {
				fprintf(stderr, "bench_epd: %s\n", pmcf_errdetail());
				return 1;
			}
			double t = now() - t0;
			best[mode] = t < best[mode] ? t : best[mode];
			epd = pmcf_epd_value(r);
			np = pmcf_epd_npairs(r);
			pmcf_epd_result_free(r);
		}
	printf("bench_epd: %s, %zu events (%zu pairs), %zu XUs, 5 reference repeats\n", spec, ne, np, nx);
	printf("  EPD %.4g (calibration: 10 TMDs per pair; target: 5 TMDs per pair; %zu EMDs)\n", epd,
	       np * 15);
	printf("  EPD 1 thread      %8.1f ms   (%.1f us per EMD incl. binning)\n", best[0] * 1e3,
	       best[0] * 1e6 / (double)(np * 15));
	printf("  EPD all CPUs      %8.1f ms\n", best[1] * 1e3);
	printf("  baseline: read + bin every pair of the 6 profiles %8.1f ms (%.0f bins/histogram)\n",
	       base * 1e3, (double)bins / (double)(np * 6));
	printf("  ratio EPD(1 thread) / baseline %.1fx; target < 1000 ms: %s\n", best[0] / base,
	       best[1] < 1.0 ? "met" : "NOT met");
	for (int k = 0; k < 5; k++)
		pmcf_profile_free(refs[k]);
	pmcf_profile_free(target);
	return 0;
}
