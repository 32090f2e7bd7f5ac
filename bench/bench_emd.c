/* Benchmark of the exact EMD (src/evaluate/emd.c) against Python Optimal
 * Transport's ot.emd2 (the baseline, run side by side by bench/pot_emd.py)
 * on identical 12x12 histograms: TMD-like (binned samples, centroid
 * locations, from 800 or 60 XUs) and dense (all 144 bins). Checks that the values agree to 1e-6.
 * Both sides time every call of a pair and keep the fastest (BATCH calls
 * timed together), which other load on the machine disturbs little and
 * equally: a mean over many calls catches more preemption the longer the
 * call, which flatters the faster side.
 * POT is timed in a tight Python loop with the cost matrix precomputed
 * (ot.emd2, the target's baseline) and also through its C++ solver directly
 * (ot.lp.emd_c), which leaves out emd2's per-call Python overhead; we
 * compute our distances from the points on every call. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "evaluate/evaluate_impl.h"

#define SIDE 12 /* 10 bins + one below + one above */
#define NB (SIDE * SIDE)
#define BATCH 1 /* calls timed together (1: the fastest single call); keep equal to pot_emd.py's */

struct hist {
	size_t n;
	double w[NB], x[2 * NB];
};
struct pair {
	const char *kind;
	struct hist a, b;
};

static uint64_t rng = 2024;
static double urand(void) { return (double)(pmcfi_splitmix64(&rng) >> 11) / 9007199254740992.0; }
static double gauss(void)
{
	double u = urand() + 1e-300, v = urand();
	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* Bins `count` points of a 3-cluster mixture in [0,10)^2 (with spill into the
 * outer bins) and places each bin at its centroid, as TMD does. */
static void tmd_hist(struct hist *h, int count, double shift)
{
	double cnt[NB] = {0}, sx[NB] = {0}, sy[NB] = {0};
	const double cx[] = {2.5, 6, 7.5}, cy[] = {3, 7, 2}, sd[] = {1.2, 0.8, 1.5};
	for (int k = 0; k < count; k++) {
		int c = (int)(urand() * 3);
		double x = cx[c] + shift + sd[c] * gauss(), y = cy[c] + sd[c] * gauss();
		int bx = x < 0 ? 0 : x >= 10 ? SIDE - 1 : 1 + (int)x;
		int by = y < 0 ? 0 : y >= 10 ? SIDE - 1 : 1 + (int)y;
		cnt[by * SIDE + bx]++;
		sx[by * SIDE + bx] += x;
		sy[by * SIDE + bx] += y;
	}
	h->n = 0;
	for (int b = 0; b < NB; b++)
		if (cnt[b] > 0) {
			h->w[h->n] = cnt[b] / count;
			h->x[2 * h->n] = sx[b] / cnt[b];
			h->x[2 * h->n + 1] = sy[b] / cnt[b];
			h->n++;
		}
}

static void dense_hist(struct hist *h)
{
	double t = 0;
	h->n = NB;
	for (int b = 0; b < NB; b++) {
		t += h->w[b] = urand() + 0.01;
		h->x[2 * b] = (b % SIDE) - 0.5 + urand();
		h->x[2 * b + 1] = (b / SIDE) - 0.5 + urand();
	}
	for (int b = 0; b < NB; b++)
		h->w[b] /= t;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void write_hist(FILE *f, const struct hist *h)
{
	fprintf(f, "%zu\n", h->n);
	for (size_t i = 0; i < h->n; i++)
		fprintf(f, "%.17g %.17g %.17g\n", h->w[i], h->x[2 * i], h->x[2 * i + 1]);
}

/* Runs pot_emd.py on the pairs; returns its JSON or NULL (with a reason). */
static json_t *run_pot(const char *file, int reps, char *why, size_t whylen)
{
	char script[4096];
	const char *src = getenv("PMCF_SOURCE_DIR");
	if (src)
		snprintf(script, sizeof(script), "%s/bench/pot_emd.py", src);
	else {
		snprintf(script, sizeof(script), "%s", __FILE__);
		char *slash = strrchr(script, '/');
		snprintf(slash ? slash + 1 : script,
			 sizeof(script) - (size_t)(slash ? slash + 1 - script : 0), "pot_emd.py");
	}
	const char *py = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
	char cmd[8192];
	snprintf(cmd, sizeof(cmd), "%s '%s' '%s' %d 2>&1", py, script, file, reps);
	FILE *p = popen(cmd, "r");
	if (!p) {
		snprintf(why, whylen, "cannot run %s", py);
		return NULL;
	}
	json_error_t e;
	json_t *j = json_loadf(p, JSON_DISABLE_EOF_CHECK, &e);
	pclose(p);
	if (!j) {
		snprintf(why, whylen, "%.200s gave no JSON (%.200s)", script, e.text);
		return NULL;
	}
	if (json_object_get(j, "error")) {
		snprintf(why, whylen, "%s", json_string_value(json_object_get(j, "error")));
		json_decref(j);
		return NULL;
	}
	return j;
}

int main(int argc, char **argv)
{
	int npairs = argc > 1 ? atoi(argv[1]) : 40, reps = argc > 2 ? atoi(argv[2]) : 50;
	struct pair *pairs = calloc((size_t)npairs, sizeof(*pairs));
	for (int k = 0; k < npairs; k++) {
		if (k < npairs / 3) {
			pairs[k].kind = "tmd";
			tmd_hist(&pairs[k].a, 800, 0);
			tmd_hist(&pairs[k].b, 800, 0.3 * (k % 4));
		} else if (k < 2 * npairs / 3) {
			pairs[k].kind = "small"; /* as many bins as EPD meets on simulated Cholesky (~35) */
			tmd_hist(&pairs[k].a, 60, 0);
			tmd_hist(&pairs[k].b, 60, 0.3 * (k % 4));
		} else {
			pairs[k].kind = "dense";
			dense_hist(&pairs[k].a);
			dense_hist(&pairs[k].b);
		}
	}
	char file[] = "/tmp/pmcf-bench-emd-XXXXXX";
	int fd = mkstemp(file);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		perror("bench_emd: temporary file");
		return 1;
	}
	for (int k = 0; k < npairs; k++) {
		write_hist(f, &pairs[k].a);
		write_hist(f, &pairs[k].b);
	}
	fclose(f);

	pmcf_emd_ws *ws;
	pmcf_emd_ws_new(&ws);
	double *ours = calloc((size_t)npairs, sizeof(double)), *val = calloc((size_t)npairs, sizeof(double));
	long pivots[3] = {0, 0, 0};
	size_t bins[3] = {0, 0, 0};
	for (int k = 0; k < npairs; k++) {
		const struct pair *p = &pairs[k];
		/* reps calls in batches of BATCH; the fastest batch's mean, as
		 * pot_emd.py does */
		ours[k] = INFINITY;
		for (int done = 0; done < reps; done += BATCH) {
			int nr = reps - done < BATCH ? reps - done : BATCH;
			double t = now();
			for (int r = 0; r < nr; r++)
				pmcf_emd(ws, 2, p->a.w, p->a.x, p->a.n, p->b.w, p->b.x, p->b.n, &val[k]);
			t = (now() - t) / nr * 1e6;
			if (t < ours[k])
				ours[k] = t;
		}
		int kd = p->kind[0] == 't' ? 0 : p->kind[0] == 's' ? 1 : 2;
		pivots[kd] += ws->pivots;
		bins[kd] += p->a.n + p->b.n;
	}
	char why[512] = "";
	json_t *pot = run_pot(file, reps, why, sizeof(why));
	unlink(file);

	printf("bench_emd: %d pairs of 12x12 histograms (tmd-like from 800 and from 60 XUs, dense), "
	       "%d repetitions each\n",
	       npairs, reps);
	const char *kinds[] = {"tmd", "small", "dense"};
	int bad = 0;
	for (int kd = 0; kd < 3; kd++) {
		double so = 0, sp = 0, sc = 0, maxdiff = 0;
		int cnt = 0;
		for (int k = 0; k < npairs; k++) {
			if (strcmp(pairs[k].kind, kinds[kd]) != 0)
				continue;
			cnt++;
			so += ours[k];
			if (pot) {
				sp += json_real_value(
					json_array_get(json_object_get(pot, "us_per_emd"), (size_t)k));
				sc += json_real_value(
					json_array_get(json_object_get(pot, "us_per_emd_c"), (size_t)k));
				double pv = json_real_value(
					json_array_get(json_object_get(pot, "values"), (size_t)k));
				double d = fabs(pv - val[k]);
				if (d > maxdiff)
					maxdiff = d;
			}
		}
		if (!cnt)
			continue;
		printf("  %-5s  bins/side %5.1f  pivots %6.1f  pmcfuse %8.2f us/EMD", kinds[kd],
		       (double)bins[kd] / (2.0 * cnt), (double)pivots[kd] / cnt, so / cnt);
		if (pot) {
			printf("  POT ot.emd2 %8.2f us  speed-up %5.1fx  (emd_c %8.2f us, %5.1fx)  max |diff| %.1e",
			       sp / cnt, sp / so, sc / cnt, sc / so, maxdiff);
			if (maxdiff > 1e-6)
				bad = 1;
		}
		printf("\n");
	}
	if (pot)
		printf("  baseline: POT %s (ot.emd2 in a tight loop, cost matrix precomputed; emd_c: its C++ "
		       "solver called directly), same histograms, same run; both sides: fastest of batches of %d call(s)\n",
		       json_string_value(json_object_get(pot, "pot")), BATCH);
	else
		printf("  baseline unavailable: %s (install python3-pot); our numbers only\n", why);
	if (bad)
		printf("  DISAGREEMENT with POT above 1e-6\n");
	json_decref(pot);
	pmcf_emd_ws_free(ws);
	free(ours);
	free(val);
	free(pairs);
	return bad;
}
