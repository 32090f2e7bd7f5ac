/* Tasks created inside `single` (the common OpenMP task pattern), for the
 * label tests: with DELAY_MS > 0 thread 0 arrives late, so another thread
 * executes the single region. Usage: single [DELAY_MS [TASKS]] (default 0 8). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile double sink;

static void work(int i)
{
	double s = 0;
	for (int k = 0; k < 20000 * (i + 1); k++)
		s += k * 0.5;
	sink = s;
}

int main(int argc, char **argv)
{
	int delay = argc > 1 ? atoi(argv[1]) : 0;
	int ntasks = argc > 2 ? atoi(argv[2]) : 8;
	int winner = -1;
#pragma omp parallel num_threads(2)
	{
		if (omp_get_thread_num() == 0 && delay > 0) {
			struct timespec ts = {0, (long)delay * 1000000L};
			nanosleep(&ts, NULL);
		}
#pragma omp single
		{
			winner = omp_get_thread_num();
			for (int i = 0; i < ntasks; i++) {
#pragma omp task firstprivate(i)
				work(i);
			}
		}
	}
	printf("single: executed by thread %d, %d tasks\n", winner, ntasks);
	return 0;
}
