/* Two taskloops and a taskloop inside a task, for the collector's type test:
 * libomp gives every taskloop's tasks the same address inside the runtime,
 * so each taskloop must still be its own XU type, named by its line.
 * Usage: taskloop [N] (default 64): N iterations of grainsize 4, N/2 in 5
 * tasks, and 3 tasks that each run a taskloop of 2 tasks. */
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;

static void work(int n)
{
	double s = 0;
	for (int i = 0; i < n; i++)
		s += i * 0.5;
	sink = s;
}

static void inner(int k)
{
#pragma omp taskloop num_tasks(2)
	for (int i = 0; i < 8; i++)
		work(500 + k);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 64;
#pragma omp parallel
#pragma omp single
	{
#pragma omp taskloop grainsize(4)
		for (int i = 0; i < n; i++)
			work(1000);
#pragma omp taskloop num_tasks(5)
		for (int i = 0; i < n / 2; i++)
			work(3000);
		for (int k = 0; k < 3; k++) {
#pragma omp task
			inner(k);
		}
	}
	printf("taskloop: %d iterations\n", n);
	return 0;
}
