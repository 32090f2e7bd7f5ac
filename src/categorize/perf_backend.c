/* The perf backend of the counter-inspection toolkit: counts catalogue
 * events (encoded by counters/perf.c) over whole runs of the kernels
 * executable with perf_event_open, a few events per run, never multiplexed. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "categorize/categorize_impl.h"
#include "counters/perf.h"
#include "counters/perf_group.h"
#include "util/internal.h"

/* Events opened together in one run; a run whose events did not all count
 * the whole time (multiplexed) is repeated with fewer. */
#define BATCH 4

int pmcfi_categorize_perf_check(void)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	int fd = pmcfi_perf_event_open(&a, 0, -1);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	int e = errno;
	if (e == EACCES || e == EPERM)
		return pmcfi_fail(PMCF_EPARANOID,
				  "perf_event_open denied (kernel.perf_event_paranoid"
				  " is %d): lower it or use PMCF_CATEGORIZE_CACHEGRIND (the command's "
				  "--backend cachegrind)",
				  pmcfi_perf_paranoid());
	return pmcfi_fail(PMCF_ENOTSUP, "no hardware PMU: use PMCF_CATEGORIZE_CACHEGRIND (the command's "
					"--backend cachegrind)");
}

/* Runs argv once with events idx[0..m) counted; 1 when some event was
 * multiplexed (the caller splits the batch). */
static int run_batch(const pmcf_catalog *c, const struct pmcfi_categorize_run *run, const char *const *events,
		     const size_t *idx, size_t m, double *counts)
{
	int go[2];
	if (pipe2(go, O_CLOEXEC) < 0)
		return pmcfi_fail(-errno, "pipe: %s", strerror(errno));
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(go[0]), close(go[1]);
		return pmcfi_fail(-e, "fork: %s", strerror(e));
	}
	if (pid == 0) {
		/* wait until the counters are attached, then become the kernel */
		char b;
		close(go[1]);
		if (read(go[0], &b, 1) != 1)
			pmcfi_child_exit(127);
		execv(run->argv[0], run->argv);
		pmcfi_child_exit(127);
	}
	close(go[0]);
	int fds[BATCH], err = 0;
	size_t opened = 0;
	for (; opened < m; opened++) {
		struct perf_event_attr a;
		if ((err = pmcfi_perf_encode(c, events[idx[opened]], &a)))
			break;
		a.disabled = 1;
		a.enable_on_exec = 1;
		a.inherit = 1;
		a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		fds[opened] = pmcfi_perf_event_open(&a, pid, -1);
		if (fds[opened] < 0) {
			err = pmcfi_fail(errno == EACCES || errno == EPERM ? PMCF_EPARANOID : PMCF_ENOTSUP,
					 "cannot count %s: %s", events[idx[opened]], strerror(errno));
			break;
		}
	}
	if (err)
		kill(pid, SIGKILL);
	else if (write(go[1], "g", 1) != 1)
		err = pmcfi_fail(-errno, "cannot start the kernel: %s", strerror(errno));
	close(go[1]);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	int multiplexed = 0;
	if (!err && (!WIFEXITED(st) || WEXITSTATUS(st) != 0))
		err = pmcfi_fail(PMCF_EPROGRAM, "kernel run '%s %s' failed (status %d)",
				 run->argv[1] ? run->argv[1] : "", run->argv[2] ? run->argv[2] : "",
				 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	for (size_t k = 0; k < opened; k++) {
		uint64_t v[3];
		if (!err && read(fds[k], v, sizeof(v)) != (ssize_t)sizeof(v))
			err = pmcfi_fail(-EIO, "cannot read %s", events[idx[k]]);
		if (!err) {
			counts[idx[k]] = (double)v[0];
			if (v[2] < v[1])
				multiplexed = 1;
		}
		close(fds[k]);
	}
	return err ? err : multiplexed;
}

/* Counts events idx[0..m) in run, splitting batches that multiplex. */
static int measure_run(const pmcf_catalog *c, const struct pmcfi_categorize_run *run,
		       const char *const *events, const size_t *idx, size_t m, double *counts)
{
	for (size_t s = 0; s < m; s += BATCH) {
		size_t k = m - s < BATCH ? m - s : BATCH;
		int r = run_batch(c, run, events, idx + s, k, counts);
		if (r < 0)
			return r;
		if (r == 1 && k == 1)
			continue; /* alone and still shared: keep the value (best effort) */
		if (r == 1)
			for (size_t j = 0; j < k; j++)
				if ((r = measure_run(c, run, events, idx + s + j, 1, counts)) < 0)
					return r;
	}
	return 0;
}

int pmcfi_categorize_perf_measure(const pmcf_categorize_options *o, const struct pmcfi_categorize_run *runs,
				  size_t nruns, const char *const *events, size_t n, double *counts)
{
	(void)o;
	int err = pmcfi_categorize_perf_check();
	if (err)
		return err;
	pmcf_catalog *c;
	if ((err = pmcf_catalog_perf(PMCF_CATALOG_NO_TRACEPOINTS | PMCF_CATALOG_NO_PAPI, &c)))
		return err;
	size_t *idx = malloc((n ? n : 1) * sizeof(*idx));
	if (!idx) {
		pmcf_catalog_free(c);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	}
	for (size_t e = 0; e < n; e++)
		idx[e] = e;
	for (size_t r = 0; r < nruns && !err; r++)
		err = measure_run(c, &runs[r], events, idx, n, counts + r * n);
	free(idx);
	pmcf_catalog_free(c);
	return err;
}
