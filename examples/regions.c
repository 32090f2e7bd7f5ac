/* Task-API regions around OpenMP: each phase is a region (an XU of type
 * "phase") around a parallel region whose single thread creates tasks; the
 * tasks are XUs too, children of their phase in the label tree, and the
 * phase's counts exclude them. Usage: regions [PHASES [TASKS [PAGES]]]
 * (default 2 8 16). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include "pmcfuse/task.h"

static long touch(int pages)
{
	size_t len = (size_t)pages * 4096;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long s = 0;
	if (p == MAP_FAILED)
		return 0;
	for (int i = 0; i < pages; i++)
		s += p[(size_t)i * 4096] = (char)i;
	munmap(p, len);
	return s;
}

int main(int argc, char **argv)
{
	int phases = argc > 1 ? atoi(argv[1]) : 2, tasks = argc > 2 ? atoi(argv[2]) : 8,
	    pages = argc > 3 ? atoi(argv[3]) : 16;
	uint32_t t_phase;
	long sum = 0;
	pmcf_task_type("phase", &t_phase);
	for (int ph = 0; ph < phases; ph++) {
		pmcf_task_id r = pmcf_task_create(PMCF_TASK_ROOT, t_phase);
		pmcf_task_begin(r);
		sum += touch(pages); /* the phase's own work */
#pragma omp parallel
#pragma omp single
		for (int i = 0; i < tasks; i++) {
#pragma omp task shared(sum)
			{
				long v = touch(pages + i);
#pragma omp atomic
				sum += v;
			}
		}
		pmcf_task_end(r);
	}
	printf("regions: %d phases x %d tasks: %ld\n", phases, tasks, sum);
	return 0;
}
