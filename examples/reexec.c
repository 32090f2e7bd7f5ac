/* Runs TASKS OpenMP tasks, then exec()s itself until GEN images have run:
 * the records of every image must survive the exec (each image gets a
 * generation of its own in the record folder, rec.h).
 * With PROG ARGS after GEN, the last image exec()s PROG from inside a task
 * while the other tasks have not all run (their XUs are cut off: the
 * profile must say so, tests/e2e/adversarial_run.sh).
 * Usage: reexec [TASKS [GEN [PROG ARGS...]]] (default 20 2). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20, gen = argc > 2 ? atoi(argv[2]) : 2;
	char **then = argc > 3 && gen <= 1 ? argv + 3 : NULL;
	long sum = 0;
#pragma omp parallel
#pragma omp single
	{
		for (int i = 0; i < n; i++) {
#pragma omp task shared(sum)
			{
				long s = 0;
				for (int j = 0; j < 100000; j++)
					s += j % 7;
#pragma omp atomic
				sum += s;
			}
		}
		if (then) {
#pragma omp task
			{
				printf("reexec: exec %s from a task\n", then[0]);
				fflush(stdout);
				execv(then[0], then);
				perror("reexec: exec");
				exit(1);
			}
		}
	}
	printf("reexec: %d tasks (sum %ld), %d images to go\n", n, sum, gen - 1);
	fflush(stdout);
	if (gen > 1) {
		char nb[16], gb[16];
		snprintf(nb, sizeof(nb), "%d", n);
		snprintf(gb, sizeof(gb), "%d", gen - 1);
		char *av[] = {argv[0], nb, gb, NULL};
		execv("/proc/self/exe", av);
		perror("reexec: exec");
		return 1;
	}
	return 0;
}
