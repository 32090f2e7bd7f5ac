/* Benchmark of the profile store: save and load time of a large profile
 * (default 1,000,000 XUs x 64 events), and the peak memory of a process that
 * only loads it, against a baseline process that only holds the raw counts.
 * Usage: bench_store [--xus N] [--events M] [--repeat R] [--dir DIR] [--cold] */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "pmcfuse/profile.h"

#define TARGET_S 2.0
#define TARGET_RSS 1.5

struct report {
	double build_s, save_s, load_s;
	double check; /* a sum over the loaded values, to compare with the saved one */
	int err;
};

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double value_sum(const pmcf_profile *p)
{
	double s = 0;
	for (size_t e = 0; e < pmcf_profile_nevents(p); e++) {
		const double *c = pmcf_profile_column_const(p, e);
		for (size_t i = 0; i < pmcf_profile_nxus(p); i += 97)
			if (!pmcf_is_missing(c[i]))
				s += c[i];
	}
	return s;
}

/* Builds a profile like a recorded one: labels "3.1.12.4", about 2% of the
 * values missing, and saves it. */
static void do_save(const char *path, size_t nxu, size_t nev, struct report *r)
{
	double t0 = now();
	pmcf_profile *p;
	uint32_t ty[4];
	if ((r->err = pmcf_profile_new(&p)))
		return;
	pmcf_profile_meta_set(p, PMCF_META_PROGRAM, "bench_store");
	pmcf_profile_meta_set(p, PMCF_META_SOURCE, "sim");
	pmcf_profile_type_add(p, PMCF_XU_TASK, "gemm", "blas.c:10", &ty[0]);
	pmcf_profile_type_add(p, PMCF_XU_TASK, "trsm", "blas.c:40", &ty[1]);
	pmcf_profile_type_add(p, PMCF_XU_LOOP_CHUNK, "loop@main.c:42", "main.c:42", &ty[2]);
	pmcf_profile_type_add(p, PMCF_XU_REGION, "init", "main.c:7", &ty[3]);
	for (size_t e = 0; e < nev; e++) {
		char name[32];
		snprintf(name, sizeof(name), e ? "event%02zu" : "duration", e);
		if ((r->err = pmcf_profile_event_add(p, name, NULL)))
			goto out;
	}
	if ((r->err = pmcf_profile_reserve(p, nxu)))
		goto out;
	char lab[64], par[48];
	for (size_t i = 0; i < nxu; i++) {
		unsigned a = (unsigned)(i / 100000), b = (unsigned)(i / 1000 % 100),
			 c = (unsigned)(i / 10 % 100), d = (unsigned)(i % 10);
		snprintf(par, sizeof(par), "%u.%u.%u", a + 1, b, c);
		snprintf(lab, sizeof(lab), "%s.%u", par, d);
		pmcf_xu xu = {.type = ty[i % 4],
			      .thread = (int32_t)(i % 16),
			      .cpu = (int32_t)(i % 16),
			      .start_ns = i * 1000,
			      .end_ns = i * 1000 + 900,
			      .label = lab,
			      .parent_label = par};
		if ((r->err = pmcf_profile_xu_add(p, &xu, NULL)))
			goto out;
	}
	for (size_t e = 0; e < nev; e++) {
		double *col = pmcf_profile_column(p, e);
		for (size_t i = 0; i < nxu; i++) {
			uint64_t x = next_rand();
			col[i] = x % 50 == 0 ? PMCF_MISSING : (double)(x >> 40);
		}
	}
	r->check = value_sum(p);
	r->build_s = now() - t0;
	t0 = now();
	r->err = pmcf_profile_save(p, path);
	r->save_s = now() - t0;
	if (r->err)
		fprintf(stderr, "bench_store: save: %s\n", pmcf_errdetail());
out:
	pmcf_profile_free(p);
}

static void do_load(const char *path, size_t nxu, size_t nev, struct report *r)
{
	pmcf_profile *p;
	double t0 = now();
	r->err = pmcf_profile_open(path, &p);
	r->load_s = now() - t0;
	if (r->err) {
		fprintf(stderr, "bench_store: load: %s\n", pmcf_errdetail());
		return;
	}
	if (pmcf_profile_nxus(p) != nxu || pmcf_profile_nevents(p) != nev)
		r->err = -1;
	r->check = value_sum(p);
	pmcf_profile_free(p);
}

/* The baseline: a process that allocates and touches the raw counts only. */
static void do_baseline(size_t bytes, struct report *r)
{
	volatile unsigned char *b = malloc(bytes);
	if (!b) {
		r->err = -ENOMEM;
		return;
	}
	for (size_t i = 0; i < bytes; i += 4096)
		b[i] = 1;
	r->check = b[bytes / 2];
	free((void *)b);
}

enum { SAVE, LOAD, BASELINE, NOTHING };

/* Runs one job in a child process, so that its peak RSS (kB) is its own;
 * the parent stays small, and NOTHING measures what a child inherits. */
static int run_child(int job, const char *path, size_t nxu, size_t nev, struct report *r, long *maxrss_kb)
{
	int fds[2];
	if (pipe(fds) < 0)
		return -1;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		struct report c = {0};
		close(fds[0]);
		if (job == SAVE)
			do_save(path, nxu, nev, &c);
		else if (job == LOAD)
			do_load(path, nxu, nev, &c);
		else if (job == BASELINE)
			do_baseline(nxu * nev * sizeof(double), &c);
		ssize_t w = write(fds[1], &c, sizeof(c));
		_exit(w == (ssize_t)sizeof(c) ? 0 : 1);
	}
	close(fds[1]);
	ssize_t n = read(fds[0], r, sizeof(*r));
	close(fds[0]);
	int status;
	struct rusage ru;
	if (wait4(pid, &status, 0, &ru) < 0 || n != (ssize_t)sizeof(*r) || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		return -1;
	*maxrss_kb = ru.ru_maxrss;
	return r->err;
}

static void drop_caches(void)
{
	sync();
	FILE *f = fopen("/proc/sys/vm/drop_caches", "w");
	if (f) {
		fputs("3\n", f);
		fclose(f);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

#define MAX_REPEAT 16

int main(int argc, char **argv)
{
	size_t nxu = 1000000, nev = 64;
	const char *dir = getenv("PMCF_BENCH_TMP") ? getenv("PMCF_BENCH_TMP") : ".";
	int cold = 0, repeat = 3;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--xus") == 0 && i + 1 < argc)
			nxu = strtoull(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--events") == 0 && i + 1 < argc)
			nev = strtoull(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc)
			dir = argv[++i];
		else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc)
			repeat = atoi(argv[++i]);
		else if (strcmp(argv[i], "--cold") == 0)
			cold = 1;
		else {
			fprintf(stderr,
				"usage: bench_store [--xus N] [--events M] [--repeat R] [--dir DIR] [--cold]\n");
			return 2;
		}
	}
	if (repeat < 1 || repeat > MAX_REPEAT)
		repeat = 3;
	char path[4096];
	snprintf(path, sizeof(path), "%s/bench_store.%d.pmcf", dir, (int)getpid());
	double raw = (double)nxu * (double)nev * sizeof(double);

	/* each round: a child builds and saves, another only loads */
	double save_s[MAX_REPEAT], load_s[MAX_REPEAT], build_s = 0;
	long long file_bytes = 0;
	long rss_load = 0;
	for (int k = 0; k < repeat; k++) {
		struct report s, l;
		long rss_save, rss;
		if (run_child(SAVE, path, nxu, nev, &s, &rss_save)) {
			fprintf(stderr, "bench_store: save failed\n");
			unlink(path);
			return 1;
		}
		FILE *f = fopen(path, "rb");
		if (f) {
			fseek(f, 0, SEEK_END);
			file_bytes = ftell(f);
			fclose(f);
		}
		if (cold)
			drop_caches();
		int err = run_child(LOAD, path, nxu, nev, &l, &rss);
		unlink(path);
		if (err || l.check != s.check) {
			fprintf(stderr, "bench_store: load failed or returned other values\n");
			return 1;
		}
		save_s[k] = s.save_s;
		load_s[k] = l.load_s;
		build_s = s.build_s;
		rss_load = rss > rss_load ? rss : rss_load;
		printf("round %d: save %.3f s, load %.3f s, load peak RSS %.1f MiB\n", k + 1, s.save_s,
		       l.load_s, rss / 1024.0);
	}
	struct report b, z;
	long rss_base, rss_none;
	if (run_child(BASELINE, path, nxu, nev, &b, &rss_base) ||
	    run_child(NOTHING, path, 0, 0, &z, &rss_none)) {
		fprintf(stderr, "bench_store: baseline failed\n");
		return 1;
	}
	qsort(save_s, (size_t)repeat, sizeof(double), cmp_double);
	qsort(load_s, (size_t)repeat, sizeof(double), cmp_double);
	double save = save_s[repeat / 2], load = load_s[repeat / 2];

	printf("profile store: %zu XUs x %zu events, file %.1f MB, raw counts %.1f MB, %s cache, median of %d\n",
	       nxu, nev, (double)file_bytes / 1e6, raw / 1e6, cold ? "cold" : "warm", repeat);
	printf("  build %.3f s (not timed against a target)\n", build_s);
	printf("  save  %.3f s (min %.3f, max %.3f)  save_s/%.1f = %.2f  %.2f M XUs/s  %.1f M values/s\n",
	       save, save_s[0], save_s[repeat - 1], TARGET_S, save / TARGET_S, (double)nxu / save / 1e6,
	       raw / 8 / save / 1e6);
	printf("  load  %.3f s (min %.3f, max %.3f)  load_s/%.1f = %.2f  %.2f M XUs/s  %.1f M values/s\n",
	       load, load_s[0], load_s[repeat - 1], TARGET_S, load / TARGET_S, (double)nxu / load / 1e6,
	       raw / 8 / load / 1e6);
	printf("  peak RSS: load %.1f MiB, baseline (raw counts only) %.1f MiB, empty child %.1f MiB\n",
	       rss_load / 1024.0, rss_base / 1024.0, rss_none / 1024.0);
	if (raw > 0)
		printf("  load_peak_rss/raw_bytes = %.3f (target < %.1f)  load_peak_rss/baseline_rss = %.3f\n",
		       rss_load * 1024.0 / raw, TARGET_RSS, (double)rss_load / (double)rss_base);
	return 0;
}
