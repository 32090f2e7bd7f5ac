/* Collector overhead: the examples run plain, under `perf stat` with the same
 * events (baseline, same run) and under pmcf_collect_program; prints the
 * slowdown ratios and the cost per XU. The launcher's fixed cost (event
 * catalogue, preflight, hashing, reading, source lookup) is measured on a
 * program with 2 XUs and taken out of the per-XU cost and of "rec-fixed".
 * Usage: bench_collect [BUILD_DIR]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "pmcfuse/collect.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double run_plain(char **argv)
{
	fflush(stdout);
	double t = now();
	pid_t pid = fork();
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout))
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	int st;
	waitpid(pid, &st, 0);
	return now() - t;
}

static const char *EV[] = {"page-faults", "context-switches", "cpu-migrations", "minor-faults"};

static double run_collect(char **argv, size_t *nxus)
{
	pmcf_profile *p = NULL;
	pmcf_exit_info ei;
	int so = dup(1);
	if (!freopen("/dev/null", "w", stdout))
		return -1;
	double t = now();
	int err = pmcf_collect_program(argv, EV, 4, NULL, &p, &ei);
	t = now() - t;
	fflush(stdout);
	dup2(so, 1);
	close(so);
	if (err) {
		fprintf(stderr, "bench_collect: %s: %s\n", argv[0], pmcf_errdetail());
		exit(1);
	}
	*nxus = pmcf_profile_nxus(p);
	pmcf_profile_free(p);
	return t;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return v[n / 2];
}

int main(int argc, char **argv)
{
	const char *build = argc > 1 ? argv[1] : ".";
	char tool[4096], prog[4096];
	snprintf(tool, sizeof(tool), "%s/libpmcfuse-ompt.so", build);
	setenv("PMCF_OMPT_TOOL", tool, 0);
	struct {
		const char *name, *a1, *a2;
	} cases[] = {{"cholesky", "10", "96"}, {"knapsack", "20", "12"}, {"loops", "1048576", "10"}};
	enum { R = 5 };
	double fixed = 0;
	{
		snprintf(prog, sizeof(prog), "%s/examples/plain", build);
		char *pa[] = {prog, "1", "1", NULL};
		double a[R], b[R];
		size_t nx;
		for (int r = 0; r < R; r++) {
			a[r] = run_plain(pa);
			b[r] = run_collect(pa, &nx);
		}
		fixed = median(b, R) - median(a, R);
		printf("launcher fixed cost: %.4f s\n", fixed);
	}
	printf("%-10s %8s %10s %10s %10s %9s %9s %9s %8s\n", "example", "XUs", "plain_s", "perfstat_s",
	       "record_s", "perf/plain", "rec/plain", "rec-fixed", "us/XU");
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		snprintf(prog, sizeof(prog), "%s/examples/%s", build, cases[c].name);
		if (access(prog, X_OK) != 0) {
			printf("%-10s (not built)\n", cases[c].name);
			continue;
		}
		char *pa[] = {prog, (char *)cases[c].a1, (char *)cases[c].a2, NULL};
		char *ps[] = {"/usr/bin/perf", "stat", "-x,", "-o", "/dev/null",
			      "-e", "page-faults,context-switches,cpu-migrations,minor-faults",
			      prog, (char *)cases[c].a1, (char *)cases[c].a2, NULL};
		double tp[R], ts[R], tr[R];
		size_t nx = 0;
		int have_perf = access(ps[0], X_OK) == 0;
		for (int r = 0; r < R; r++) {
			tp[r] = run_plain(pa);
			ts[r] = have_perf ? run_plain(ps) : 0;
			tr[r] = run_collect(pa, &nx);
		}
		double mp = median(tp, R), ms = median(ts, R), mr = median(tr, R);
		printf("%-10s %8zu %10.4f %10.4f %10.4f %9.3f %9.3f %9.3f %8.2f\n", cases[c].name, nx,
		       mp, ms, mr, have_perf ? ms / mp : 0, mr / mp, (mr - fixed) / mp,
		       nx ? (mr - fixed - mp) * 1e6 / (double)nx : 0);
	}
	return 0;
}
