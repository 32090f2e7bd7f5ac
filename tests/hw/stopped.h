/* The hardware suite's counting tools (count.c, ksample.c): a command
 * started stopped, so that counters attach to it before its exec. */
#ifndef PMCF_HW_STOPPED_H
#define PMCF_HW_STOPPED_H
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

/* Forks argv[0] ARGS..., stopped (SIGSTOP) before its exec; its pid, or -1
 * after a line on stderr naming tool. */
static inline pid_t hw_start_stopped(const char *tool, char **argv)
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		raise(SIGSTOP);
		execvp(argv[0], argv);
		fprintf(stderr, "%s: exec %s: ", tool, argv[0]);
		perror(NULL);
		_exit(127);
	}
	int st;
	if (waitpid(pid, &st, WUNTRACED) < 0 || !WIFSTOPPED(st)) {
		fprintf(stderr, "%s: the child did not stop\n", tool);
		return -1;
	}
	return pid;
}
#endif
