/* The example program of fuse-openmp Listing 1.1: 16 XUs of 4 types (2
 * static iteration ranges, 8 tasks, 4 dynamic chunks, 2 tasks created
 * directly in the parallel region). Each XU first-touches its own pages. */
#include <stddef.h>
#include <sys/mman.h>

static void touch(int pages)
{
	size_t n = (size_t)pages * 4096;
	char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return;
	for (int i = 0; i < pages; i++)
		p[(size_t)i * 4096] = (char)i;
	munmap(p, n);
}

int main(void)
{
#pragma omp parallel num_threads(2)
	{
#pragma omp for schedule(static) // 2 XUs
		for (int i = 0; i < 8; i++) {
#pragma omp task // 8 XUs
			touch(1 + i);
		}

#pragma omp for schedule(dynamic, 2) // 4 XUs
		for (int i = 0; i < 8; i++)
			touch(16 + i);

#pragma omp task // 2 XUs
		touch(40);
	}
	return 0;
}
