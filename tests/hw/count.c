/* hw-count: the instructions a command executes, user and kernel mode, all
 * its processes and threads (the counter is inherited), counted with the
 * cycles event, which equals instructions at -icount shift=0 and sits on
 * the PMU's cycle counter, leaving the 6 general counters to the command's
 * own use (the collector's events). HW_COUNT_USER=1 counts user mode only.
 * HW_COUNT_SW=1 also counts, inherited, the software events that say where
 * kernel instructions come from: page-faults, context-switches,
 * cpu-migrations (no hardware counter used). HW_COUNT_SPLIT=1 also counts,
 * at the same time, instructions in user mode and in kernel mode alone on
 * two general counters ("user-instructions N", "kernel-instructions N"):
 * their sum against the first count checks the emulator's mode filter.
 * Usage: hw-count -- PROG ARGS; prints
 * "instructions N" (and "page-faults N", ...) on stderr and exits with
 * PROG's status. */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include "stopped.h"

int main(int argc, char **argv)
{
	int a = 1;
	if (a < argc && strcmp(argv[a], "--") == 0)
		a++;
	if (a >= argc) {
		fprintf(stderr, "usage: hw-count -- PROG ARGS\n");
		return 1;
	}
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	/* HW_COUNT_INSTRUCTIONS=1: the instructions event instead, on a
	 * general counter (cross-checks the cycle counter) */
	const char *ins = getenv("HW_COUNT_INSTRUCTIONS");
	if (ins && *ins == '1')
		attr.config = PERF_COUNT_HW_INSTRUCTIONS;
	attr.inherit = 1;
	attr.disabled = 1;
	attr.enable_on_exec = 1; /* from the child's exec on: not this process's fork */
	attr.exclude_hv = 1;
	/* HW_COUNT_USER=1: user mode only */
	const char *u = getenv("HW_COUNT_USER");
	attr.exclude_kernel = u && *u == '1';
	/* stopped until the counter is attached */
	pid_t pid = hw_start_stopped("hw-count", argv + a);
	if (pid < 0)
		return 2;
	int st;
	int fd = (int)syscall(SYS_perf_event_open, &attr, pid, -1, -1, 0);
	if (fd < 0) {
		perror("hw-count: perf_event_open");
		kill(pid, SIGKILL);
		return 2;
	}
	/* HW_COUNT_SW=1: software events beside it, same inheritance */
	static const struct {
		const char *name;
		uint64_t config;
	} sw[] = {{"page-faults", PERF_COUNT_SW_PAGE_FAULTS},
		  {"context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES},
		  {"cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS}};
	int swfd[sizeof(sw) / sizeof(sw[0])];
	const char *s = getenv("HW_COUNT_SW");
	for (size_t i = 0; i < sizeof(sw) / sizeof(sw[0]); i++) {
		struct perf_event_attr sa = attr;
		sa.type = PERF_TYPE_SOFTWARE;
		sa.config = sw[i].config;
		swfd[i] = s && *s == '1' ? (int)syscall(SYS_perf_event_open, &sa, pid, -1, -1, 0) : -1;
	}
	/* HW_COUNT_SPLIT=1: user and kernel instructions, counted at once */
	int splitfd[2] = {-1, -1};
	const char *sp = getenv("HW_COUNT_SPLIT");
	for (int i = 0; i < 2 && sp && *sp == '1'; i++) {
		struct perf_event_attr ia = attr;
		ia.config = PERF_COUNT_HW_INSTRUCTIONS;
		ia.exclude_kernel = i == 0;
		ia.exclude_user = i == 1;
		splitfd[i] = (int)syscall(SYS_perf_event_open, &ia, pid, -1, -1, 0);
	}
	kill(pid, SIGCONT);
	if (waitpid(pid, &st, 0) < 0)
		return 2;
	uint64_t v = 0;
	if (read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		return 2;
	fprintf(stderr, "instructions %llu\n", (unsigned long long)v);
	for (int i = 0; i < 2; i++)
		if (splitfd[i] >= 0 && read(splitfd[i], &v, sizeof(v)) == (ssize_t)sizeof(v))
			fprintf(stderr, "%s %llu\n", i ? "kernel-instructions" : "user-instructions",
				(unsigned long long)v);
	for (size_t i = 0; i < sizeof(sw) / sizeof(sw[0]); i++)
		if (swfd[i] >= 0 && read(swfd[i], &v, sizeof(v)) == (ssize_t)sizeof(v))
			fprintf(stderr, "%s %llu\n", sw[i].name, (unsigned long long)v);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 2;
}
