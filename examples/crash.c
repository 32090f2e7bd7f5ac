/* An OpenMP program that dies mid-run: TASKS tasks complete, then the
 * program crashes with SIGSEGV (mode "segv"), kills itself with SIGKILL
 * ("kill") or exits with status 3 ("exit"). For the crash-safety tests.
 * Usage: crash MODE [TASKS] (default 10). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "segv";
	int n = argc > 2 ? atoi(argv[2]) : 10;
	volatile int sink = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
	{
		for (int i = 0; i < n; i++) {
#pragma omp task
			sink += i;
		}
#pragma omp taskwait
	}
	if (!strcmp(mode, "kill"))
		kill(getpid(), SIGKILL);
	else if (!strcmp(mode, "exit"))
		exit(3);
	else {
		volatile int *p = NULL;
		*p = sink;
	}
	return 0;
}
