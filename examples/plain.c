/* A plain pthread program (no OpenMP): under `pmcfuse record` it gives one
 * XU per thread. Thread i first-touches (i+1)*PAGES pages.
 * Usage: plain [THREADS [PAGES]] (default 3 16). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

static int pages;

static void *work(void *arg)
{
	long i = (long)arg;
	size_t len = (size_t)(i + 1) * pages * 4096;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED) {
		for (size_t o = 0; o < len; o += 4096)
			p[o] = 1;
		munmap(p, len);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	pages = argc > 2 ? atoi(argv[2]) : 16;
	pthread_t th[64];
	if (n < 1 || n > 64)
		return 2;
	for (long i = 0; i < n; i++)
		pthread_create(&th[i], NULL, work, (void *)i);
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	printf("plain: %d threads\n", n);
	return 0;
}
