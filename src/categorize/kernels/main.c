/* pmcfuse-categorize-kernels: runs one counter-inspection micro-benchmark in its own
 * process, so that an outside counter (perf, cachegrind) sees only the
 * kernel plus a constant start-up cost that a baseline run subtracts. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernels.h"

static volatile void *chase_sink;

static int number(const char *s, unsigned long long *out)
{
	char *end;
	errno = 0;
	if (!s || !*s || *s == '-')
		return -1;
	*out = strtoull(s, &end, 10);
	return errno || *end ? -1 : 0;
}

static int usage(void)
{
	fputs("usage: pmcfuse-categorize-kernels none\n"
	      "       pmcfuse-categorize-kernels branch a|b|c|d|e|f|g ITERATIONS\n"
	      "       pmcfuse-categorize-kernels cache BYTES UNIT PAGES_PER_BLOCK ACCESSES [SEED]\n"
	      "Runs one micro-benchmark of the counter inspection toolkit (pmcfuse categorize).\n"
	      "ITERATIONS or ACCESSES 0 runs only the set-up (the baseline).\n",
	      stderr);
	return 2;
}

static int run_branch(const char *k, unsigned long long iters)
{
	static void (*const kernels[])(long) = {cit_branch_a, cit_branch_b, cit_branch_c, cit_branch_d,
						cit_branch_e, cit_branch_f, cit_branch_g};
	if (strlen(k) != 1 || k[0] < 'a' || k[0] > 'g')
		return usage();
	if (iters > 0)
		kernels[k[0] - 'a']((long)iters);
	return 0;
}

static int run_cache(char **argv, int argc)
{
	unsigned long long bytes, unit, ppb, accesses, seed = 1;
	if (number(argv[0], &bytes) || number(argv[1], &unit) || number(argv[2], &ppb) ||
	    number(argv[3], &accesses) || (argc > 4 && number(argv[4], &seed)))
		return usage();
	if (unit < sizeof(void *) || unit % sizeof(void *) || bytes < unit)
		return usage();
	size_t alloc = (bytes + 4095) / 4096 * 4096;
	void *buf = aligned_alloc(4096, alloc);
	if (!buf) {
		fprintf(stderr, "pmcfuse-categorize-kernels: cannot allocate %llu bytes\n", bytes);
		return 1;
	}
	void **p = cit_chain_build(buf, bytes, unit, ppb, (unsigned)seed);
	if (!p) {
		free(buf);
		fprintf(stderr, "pmcfuse-categorize-kernels: out of memory\n");
		return 1;
	}
	/* one whole round to warm the caches, then the measured chase */
	p = cit_chase(p, bytes / unit);
	p = cit_chase(p, accesses);
	chase_sink = p;
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long long n;
	if (argc == 2 && strcmp(argv[1], "none") == 0)
		return 0;
	if (argc == 4 && strcmp(argv[1], "branch") == 0 && number(argv[3], &n) == 0)
		return run_branch(argv[2], n);
	if ((argc == 6 || argc == 7) && strcmp(argv[1], "cache") == 0)
		return run_cache(argv + 2, argc - 2);
	return usage();
}
