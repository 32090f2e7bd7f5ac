/* Runs TASKS OpenMP tasks, then exec()s itself until GEN images have run:
 * the records of every image must survive the exec (each image gets a
 * generation of its own in the record folder, rec.h).
 * Usage: reexec [TASKS [GEN]] (default 20 2). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20, gen = argc > 2 ? atoi(argv[2]) : 2;
	long sum = 0;
#pragma omp parallel
#pragma omp single
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
