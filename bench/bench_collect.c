/* Collector overhead, all against a plain run measured in the same bench run
 * (runs interleaved, medians of R): each example runs plain, under
 * `perf stat -e <the same events>` and under pmcf_collect_program.
 *
 *  - in-program: the program's own wall time (fork .. waitpid) under the
 *    collector, tool load and record files included, against the plain run's
 *    fork .. waitpid ("prog/plain"); perf stat's counterpart is its whole run
 *    ("perf/plain", which includes perf's own start-up);
 *  - end to end: pmcf_collect_program's wall time, launcher included (event
 *    catalogue, preflight group, record folder, reading the records, source
 *    lookups, metadata) ("rec/plain"); setup_ms and read_ms show the
 *    launcher's part before and after the program;
 *  - us/XU: (in-program time - plain) / XUs, and reads/XU: the same in
 *    units of one group read(2) of the same events, measured in this bench
 *    run (the machine's syscall floor: the collector reads at most twice
 *    per XU, see docs/collector.md);
 *  - rec/perf: the collector's in-program overhead against perf stat's
 *    with the same events, (prog - plain) / (perf - plain);
 *  - null_s: the program under a null OMPT tool (bench/tasks/null_ompt.c:
 *    the collector's callbacks registered, doing nothing), i.e. libomp's own
 *    cost of an attached tool, which perf stat does not pay and no OMPT tool
 *    avoids; omp/XU = (null - plain) / XUs and ours/XU = (prog - null) / XUs,
 *    both in group reads of this run; ours/perf = (prog - null) / (perf -
 *    plain).
 * Wall times move with the machine's load (other processes take the cpu
 * between reads); a second table gives the same ratios in CPU time (user +
 * sys of the program, of perf stat with its program, and of one group read,
 * all from the kernel's accounting), which load disturbs much less.
 * The launcher's and perf stat's fixed costs are measured on a program with
 * 2 XUs. The cases are the bundled examples and the task-heavy programs of
 * bench/tasks (nqueens, fib, uts), with 4 software events, and some with
 * task-clock and cpu-clock added (6). Usage: bench_collect [BUILD_DIR
 * [REPEATS [NAMES]]], NAMES a comma list of the cases to run (default all),
 * e.g. knapsack,nqueens,fib,uts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "collect/reader.h"
#include "counters/perf_group.h"
#include "pmcfuse/collect.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double tv_s(struct timeval tv) { return (double)tv.tv_sec + tv.tv_usec * 1e-6; }

/* CPU seconds (user + sys) of the reaped children so far. */
static double children_cpu(void)
{
	struct rusage ru;
	getrusage(RUSAGE_CHILDREN, &ru);
	return tv_s(ru.ru_utime) + tv_s(ru.ru_stime);
}

/* Wall time of argv, under the OMPT tool library `tool` when not NULL;
 * *cpu (when not NULL): its CPU seconds. */
static double run_tool(char **argv, const char *tool, double *cpu)
{
	fflush(stdout);
	double t = now();
	pid_t pid = fork();
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout))
			_exit(126);
		if (tool && setenv("OMP_TOOL_LIBRARIES", tool, 1) != 0)
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	int st;
	struct rusage ru;
	memset(&ru, 0, sizeof(ru));
	wait4(pid, &st, 0, &ru);
	if (cpu)
		*cpu = tv_s(ru.ru_utime) + tv_s(ru.ru_stime);
	return now() - t;
}

static double run_plain(char **argv) { return run_tool(argv, NULL, NULL); }

static const char *EV[] = {"page-faults",  "context-switches", "cpu-migrations",
			   "minor-faults", "task-clock",       "cpu-clock"};
static const char *EV_LIST[] = {NULL,
				NULL,
				NULL,
				NULL,
				"page-faults,context-switches,cpu-migrations,minor-faults",
				NULL,
				"page-faults,context-switches,cpu-migrations,minor-faults,task-clock,"
				"cpu-clock"};
static const uint64_t EV_CONFIG[] = {PERF_COUNT_SW_PAGE_FAULTS,    PERF_COUNT_SW_CONTEXT_SWITCHES,
				     PERF_COUNT_SW_CPU_MIGRATIONS, PERF_COUNT_SW_PAGE_FAULTS_MIN,
				     PERF_COUNT_SW_TASK_CLOCK,     PERF_COUNT_SW_CPU_CLOCK};

static double median(double *v, int n);

static double thread_cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The baseline: ns per read(2) of one group of the first nev events, as
 * the collector opens it in each thread (median of 7 batches of 20000),
 * in wall time; *cpu_ns: the same in this thread's CPU time. */
static double group_read_ns(int nev, double *cpu_ns)
{
	struct perf_event_attr a[6];
	memset(a, 0, sizeof(a));
	for (int i = 0; i < nev; i++) {
		a[i].type = PERF_TYPE_SOFTWARE;
		a[i].config = EV_CONFIG[i];
	}
	struct pmcfi_pgroup g;
	if (pmcfi_pgroup_open(&g, a, EV, nev, 0) != 0) {
		fprintf(stderr, "bench_collect: cannot open the group: %s\n", pmcf_errdetail());
		exit(1);
	}
	double b[7], c[7];
	struct pmcfi_pgroup_sample smp;
	for (int k = 0; k < 7; k++) {
		double t = now(), tc = thread_cpu();
		for (int i = 0; i < 20000; i++)
			pmcfi_pgroup_read(&g, &smp);
		b[k] = (now() - t) / 20000 * 1e9;
		c[k] = (thread_cpu() - tc) / 20000 * 1e9;
	}
	pmcfi_pgroup_close(&g);
	*cpu_ns = median(c, 7);
	return median(b, 7);
}

struct rec_time {
	double total, prog, setup, read, cpu; /* cpu: the program's CPU seconds */
};

static struct rec_time run_collect(char **argv, size_t nev, size_t *nxus)
{
	pmcf_profile *p = NULL;
	pmcf_exit_info ei = PMCF_EXIT_INFO_INIT;
	struct rec_time r = {0, 0, 0, 0, 0};
	fflush(stdout);
	int so = dup(1);
	if (!freopen("/dev/null", "w", stdout))
		exit(1);
	double t = now(), c0 = children_cpu(); /* the program is its only child */
	int err = pmcf_collect_program(argv, EV, nev, NULL, NULL, &p, &ei);
	r.total = now() - t;
	r.cpu = children_cpu() - c0;
	fflush(stdout);
	dup2(so, 1);
	close(so);
	if (err) {
		fprintf(stderr, "bench_collect: %s: %s\n", argv[0], pmcf_errdetail());
		exit(1);
	}
	r.prog = (double)pmcfi_collect_last_timing.program_ns * 1e-9;
	r.setup = (double)pmcfi_collect_last_timing.setup_ns * 1e-9;
	r.read = (double)pmcfi_collect_last_timing.read_ns * 1e-9;
	*nxus = pmcf_profile_nxus(p);
	pmcf_profile_free(p);
	return r;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

enum { RMAX = 64 };

/* 1 when name is an item of the comma list. */
static int in_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; p && *p;) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		if (l == n && strncmp(p, name, n) == 0)
			return 1;
		p = e ? e + 1 : NULL;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *build = argc > 1 ? argv[1] : ".";
	int R = argc > 2 ? atoi(argv[2]) : 7;
	if (R < 1 || R > RMAX)
		R = 7;
	char tool[4096], prog[4096], null_tool[4096];
	snprintf(tool, sizeof(tool), "%s/libpmcfuse-ompt.so", build);
	setenv("PMCF_OMPT_TOOL", tool, 0);
	snprintf(null_tool, sizeof(null_tool), "%s/bench/tasks/libnull-ompt.so", build);
	int have_null = access(null_tool, R_OK) == 0;
	if (!have_null)
		printf("null OMPT tool: skipped (%s not built)\n", null_tool);
	struct {
		const char *dir, *name, *a1, *a2;
		int nev;
	} cases[] = {{"examples", "cholesky", "16", "128", 4},  {"examples", "cholesky", "10", "96", 4},
		     {"examples", "knapsack", "20", "12", 4},   {"examples", "knapsack", "20", "12", 6},
		     {"examples", "loops", "1048576", "10", 4}, {"bench/tasks", "nqueens", "11", "5", 4},
		     {"bench/tasks", "fib", "27", "14", 4},     {"bench/tasks", "fib", "27", "14", 6},
		     {"bench/tasks", "uts", "2000", "7", 4}};
	const char *perf = "/usr/bin/perf";
	int have_perf = access(perf, X_OK) == 0;
	if (have_perf) {
		char *ps[] = {(char *)perf, "stat",       "-x,",       "-o", "/dev/null",
			      "-e",         "task-clock", "/bin/true", NULL};
		pid_t pid = fork();
		if (pid == 0) {
			execv(perf, ps);
			_exit(127);
		}
		int st = 1;
		waitpid(pid, &st, 0);
		have_perf = WIFEXITED(st) && WEXITSTATUS(st) == 0;
	}
	if (!have_perf)
		printf("perf stat: skipped (%s)\n",
		       access(perf, X_OK) == 0 ? "perf stat fails here" : "no /usr/bin/perf");
	double rc4, rc6, rd4 = group_read_ns(4, &rc4), rd6 = group_read_ns(6, &rc6);
	printf("one group read(2) here: %.0f ns with 4 software events, %.0f ns with 6 (task-clock, "
	       "cpu-clock added); in CPU time %.0f and %.0f ns\n",
	       rd4, rd6, rc4, rc6);
	char cpu_rows[32][200];
	int ncpu_rows = 0;
	{
		snprintf(prog, sizeof(prog), "%s/examples/plain", build);
		char *pa[] = {prog, "1", "1", NULL};
		char *ps[] = {(char *)perf,       "stat", "-x,", "-o", "/dev/null", "-e",
			      (char *)EV_LIST[4], prog,   "1",   "1",  NULL};
		double a[RMAX], b[RMAX], c[RMAX], s[RMAX], rd[RMAX], pr[RMAX], ac[RMAX], pc[RMAX];
		size_t nx;
		for (int r = 0; r < R; r++) {
			a[r] = run_tool(pa, NULL, &ac[r]);
			c[r] = have_perf ? run_plain(ps) : 0;
			struct rec_time t = run_collect(pa, 4, &nx);
			b[r] = t.total;
			s[r] = t.setup;
			rd[r] = t.read;
			pr[r] = t.prog;
			pc[r] = t.cpu;
		}
		double ma = median(a, R);
		printf("fixed costs on a 2-XU program (plain %.4f s): launcher %.4f s (setup %.4f, "
		       "program under the tool %+.4f, read %.4f), perf stat %.4f s; the tool's CPU "
		       "time in the program %+.4f s\n",
		       ma, median(b, R) - ma, median(s, R), median(pr, R) - ma, median(rd, R),
		       have_perf ? median(c, R) - ma : 0, median(pc, R) - median(ac, R));
	}
	printf("medians of %d runs; ratios against the plain run of the same bench run\n", R);
	printf("%-8s %-10s %2s %6s %8s %8s %8s %8s %10s %9s %9s %7s %8s %8s %8s %7s %8s %6s %7s "
	       "%9s\n",
	       "example", "args", "ev", "XUs", "plain_s", "perf_s", "prog_s", "rec_s", "perf/plain",
	       "prog/plain", "rec/plain", "us/XU", "reads/XU", "rec/perf", "setup_ms", "read_ms", "null_s",
	       "omp/XU", "ours/XU", "ours/perf");
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		snprintf(prog, sizeof(prog), "%s/%s/%s", build, cases[c].dir, cases[c].name);
		char args[32];
		snprintf(args, sizeof(args), "%s %s", cases[c].a1, cases[c].a2);
		if (argc > 3 && !in_list(argv[3], cases[c].name))
			continue;
		if (access(prog, X_OK) != 0) {
			printf("%-8s (not built)\n", cases[c].name);
			continue;
		}
		int nev = cases[c].nev;
		char *pa[] = {prog, (char *)cases[c].a1, (char *)cases[c].a2, NULL};
		char *ps[] = {(char *)perf,
			      "stat",
			      "-x,",
			      "-o",
			      "/dev/null",
			      "-e",
			      (char *)EV_LIST[nev],
			      prog,
			      (char *)cases[c].a1,
			      (char *)cases[c].a2,
			      NULL};
		double tp[RMAX], ts[RMAX], tr[RMAX], tg[RMAX], su[RMAX], rd[RMAX], tn[RMAX];
		double cp[RMAX], cs[RMAX], cn[RMAX], cg[RMAX]; /* CPU seconds */
		size_t nx = 0;
		for (int r = 0; r < R; r++) {
			tp[r] = run_tool(pa, NULL, &cp[r]);
			cs[r] = 0;
			ts[r] = have_perf ? run_tool(ps, NULL, &cs[r]) : 0;
			cn[r] = 0;
			tn[r] = have_null ? run_tool(pa, null_tool, &cn[r]) : 0;
			struct rec_time t = run_collect(pa, (size_t)nev, &nx);
			tr[r] = t.total;
			cg[r] = t.cpu;
			tg[r] = t.prog;
			su[r] = t.setup;
			rd[r] = t.read;
		}
		double mp = median(tp, R), ms = median(ts, R), mr = median(tr, R), mg = median(tg, R);
		double mn = median(tn, R), rdn = nev == 6 ? rd6 : rd4;
		double usxu = nx ? (mg - mp) * 1e6 / (double)nx : 0;
		/* per XU in group reads: libomp's tool overhead, and ours beyond it */
		double omp = have_null && nx ? (mn - mp) * 1e9 / (double)nx / rdn : 0;
		double ours = have_null && nx ? (mg - mn) * 1e9 / (double)nx / rdn : 0;
		printf("%-8s %-10s %2d %6zu %8.4f %8.4f %8.4f %8.4f %10.3f %9.3f %9.3f %7.2f %8.2f %8.2f "
		       "%8.2f %7.2f %8.4f %6.2f %7.2f %9.2f\n",
		       cases[c].name, args, nev, nx, mp, ms, mg, mr, have_perf ? ms / mp : 0, mg / mp,
		       mr / mp, usxu, usxu * 1e3 / rdn, have_perf && ms > mp ? (mg - mp) / (ms - mp) : 0,
		       median(su, R) * 1e3, median(rd, R) * 1e3, mn, omp, ours,
		       have_perf && have_null && ms > mp ? (mg - mn) / (ms - mp) : 0);
		double xp = median(cp, R), xs = median(cs, R), xn = median(cn, R), xg = median(cg, R);
		double rcn = nev == 6 ? rc6 : rc4;
		if (ncpu_rows < 32)
			snprintf(cpu_rows[ncpu_rows++], sizeof(cpu_rows[0]),
				 "%-8s %-10s %2d %6zu %8.4f %8.4f %8.4f %8.4f %8.2f %7.2f %8.2f %9.2f",
				 cases[c].name, args, nev, nx, xp, xs, xn, xg,
				 nx ? (xg - xp) * 1e9 / (double)nx / rcn : 0,
				 have_null && nx ? (xg - xn) * 1e9 / (double)nx / rcn : 0,
				 have_perf && xs > xp ? (xg - xp) / (xs - xp) : 0,
				 have_perf && have_null && xs > xp ? (xg - xn) / (xs - xp) : 0);
	}
	printf("\nCPU time (user + sys of the program; perf stat: perf and its program), medians; "
	       "per XU in group reads of CPU time\n");
	printf("%-8s %-10s %2s %6s %8s %8s %8s %8s %8s %7s %8s %9s\n", "example", "args", "ev", "XUs",
	       "plain_c", "perf_c", "null_c", "prog_c", "reads/XU", "ours/XU", "rec/perf", "ours/perf");
	for (int i = 0; i < ncpu_rows; i++)
		printf("%s\n", cpu_rows[i]);
	return 0;
}
