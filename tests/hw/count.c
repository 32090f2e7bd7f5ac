/* hw-count: the instructions a command executes, user and kernel mode, all
 * its processes and threads (the counter is inherited), counted with the
 * cycles event, which equals instructions at -icount shift=0 and sits on
 * the PMU's cycle counter, leaving the 6 general counters to the command's
 * own use (the collector's events). HW_COUNT_USER=1 counts user mode only.
 * Usage: hw-count -- PROG ARGS; prints
 * "instructions N" on stderr and exits with PROG's status. */
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
	attr.inherit = 1;
	attr.disabled = 1;
	attr.enable_on_exec = 1; /* from the child's exec on: not this process's fork */
	attr.exclude_hv = 1;
	/* HW_COUNT_USER=1: user mode only */
	const char *u = getenv("HW_COUNT_USER");
	attr.exclude_kernel = u && *u == '1';
	pid_t pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		/* stopped until the parent has attached the counter */
		raise(SIGSTOP);
		execvp(argv[a], argv + a);
		perror("hw-count: exec");
		_exit(127);
	}
	int st;
	if (waitpid(pid, &st, WUNTRACED) < 0 || !WIFSTOPPED(st)) {
		fprintf(stderr, "hw-count: the child did not stop\n");
		return 2;
	}
	int fd = (int)syscall(SYS_perf_event_open, &attr, pid, -1, -1, 0);
	if (fd < 0) {
		perror("hw-count: perf_event_open");
		kill(pid, SIGKILL);
		return 2;
	}
	kill(pid, SIGCONT);
	if (waitpid(pid, &st, 0) < 0)
		return 2;
	uint64_t v = 0;
	if (read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		return 2;
	fprintf(stderr, "instructions %llu\n", (unsigned long long)v);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 2;
}
