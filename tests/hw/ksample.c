/* hw-ksample: where a command's kernel-mode instructions go. Samples the
 * instructions event in kernel mode only (every PERIOD instructions, default
 * 997) of the command's process (not inherited: its threads are not
 * followed), maps each sampled address to a kernel symbol (/proc/kallsyms,
 * as root) and prints "samples symbol" per symbol, most first, on stderr.
 * Usage: hw-ksample [-p PERIOD] -- PROG ARGS; exits with PROG's status. */
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "stopped.h"

struct sym {
	uint64_t addr;
	char name[64];
	uint64_t hits;
};

static int by_addr(const void *a, const void *b)
{
	uint64_t x = ((const struct sym *)a)->addr, y = ((const struct sym *)b)->addr;
	return x < y ? -1 : x > y;
}

static int by_hits(const void *a, const void *b)
{
	uint64_t x = ((const struct sym *)a)->hits, y = ((const struct sym *)b)->hits;
	return x < y ? 1 : x > y ? -1 : 0;
}

int main(int argc, char **argv)
{
	int a = 1;
	uint64_t period = 997;
	if (a + 1 < argc && strcmp(argv[a], "-p") == 0) {
		period = strtoull(argv[a + 1], NULL, 10);
		a += 2;
	}
	if (a < argc && strcmp(argv[a], "--") == 0)
		a++;
	if (a >= argc || !period) {
		fprintf(stderr, "usage: hw-ksample [-p PERIOD] -- PROG ARGS\n");
		return 1;
	}
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_INSTRUCTIONS;
	attr.sample_period = period;
	attr.sample_type = PERF_SAMPLE_IP;
	attr.exclude_user = 1;
	attr.exclude_hv = 1;
	attr.disabled = 1;
	attr.enable_on_exec = 1;
	pid_t pid = hw_start_stopped("hw-ksample", argv + a);
	if (pid < 0)
		return 2;
	int st;
	int fd = (int)syscall(SYS_perf_event_open, &attr, pid, -1, -1, 0);
	if (fd < 0) {
		perror("hw-ksample: perf_event_open");
		kill(pid, SIGKILL);
		return 2;
	}
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), npg = 4096; /* 16 MiB of samples */
	unsigned char *m = mmap(NULL, (npg + 1) * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		perror("hw-ksample: mmap");
		kill(pid, SIGKILL);
		return 2;
	}
	kill(pid, SIGCONT);
	if (waitpid(pid, &st, 0) < 0)
		return 2;
	struct perf_event_mmap_page *h = (void *)m;
	uint64_t head = __atomic_load_n(&h->data_head, __ATOMIC_ACQUIRE), size = npg * pg;
	/* the kernel's symbols, sorted */
	static struct sym syms[400000];
	size_t ns = 0;
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512];
	while (f && ns < sizeof(syms) / sizeof(syms[0]) && fgets(line, sizeof(line), f)) {
		unsigned long long ad;
		char t, nm[256];
		if (sscanf(line, "%llx %c %255s", &ad, &t, nm) == 3 && ad && (t == 't' || t == 'T')) {
			syms[ns].addr = ad;
			snprintf(syms[ns].name, sizeof(syms[ns].name), "%.63s", nm);
			syms[ns++].hits = 0;
		}
	}
	if (f)
		fclose(f);
	qsort(syms, ns, sizeof(syms[0]), by_addr);
	uint64_t total = 0, unknown = 0, lost = 0;
	unsigned char *data = m + pg;
	for (uint64_t off = head > size ? head - size : 0; off < head;) {
		struct perf_event_header eh;
		unsigned char rec[64];
		for (size_t i = 0; i < sizeof(eh); i++)
			((unsigned char *)&eh)[i] = data[(off + i) % size];
		if (eh.size < sizeof(eh))
			break;
		for (size_t i = 0; i < eh.size && i < sizeof(rec); i++)
			rec[i] = data[(off + i) % size];
		if (eh.type == PERF_RECORD_SAMPLE) {
			uint64_t ip;
			memcpy(&ip, rec + sizeof(eh), sizeof(ip));
			size_t lo = 0, hi = ns;
			while (hi - lo > 1) {
				size_t mid = (lo + hi) / 2;
				if (syms[mid].addr <= ip)
					lo = mid;
				else
					hi = mid;
			}
			if (ns && syms[lo].addr <= ip)
				syms[lo].hits++;
			else
				unknown++;
			total++;
		} else if (eh.type == PERF_RECORD_LOST) {
			uint64_t n;
			memcpy(&n, rec + sizeof(eh) + 8, sizeof(n));
			lost += n;
		}
		off += eh.size;
	}
	qsort(syms, ns, sizeof(syms[0]), by_hits);
	uint64_t count = 0;
	if (read(fd, &count, sizeof(count)) != (ssize_t)sizeof(count))
		count = 0;
	fprintf(stderr,
		"kernel instructions %llu, samples %llu (period %llu), lost %llu, outside the symbols %llu\n",
		(unsigned long long)count, (unsigned long long)total, (unsigned long long)period,
		(unsigned long long)lost, (unsigned long long)unknown);
	for (size_t i = 0; i < ns && syms[i].hits; i++)
		fprintf(stderr, "%8llu %s\n", (unsigned long long)syms[i].hits, syms[i].name);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 2;
}
