/* A test preload library that counts the read(2) calls made on perf_event
 * file descriptors by a profiled program (the collector's counter reads),
 * without strace: LD_PRELOAD it after the tool, and each process that
 * records (PMCF_COLLECT_DIR set) appends "reads N" to $PMCF_READCOUNT_OUT
 * at exit. tests/e2e/collect_reads.sh divides by the XUs recorded. */

#include <dlfcn.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_FD 65536

static _Atomic unsigned char kind[MAX_FD]; /* 0 unknown, 1 perf, 2 other */
static _Atomic unsigned long reads;

typedef ssize_t (*read_fn)(int, void *, size_t);
typedef int (*close_fn)(int);

static int is_perf(int fd)
{
	if (fd < 0 || fd >= MAX_FD)
		return 0;
	unsigned char k = atomic_load_explicit(&kind[fd], memory_order_relaxed);
	if (!k) {
		char path[64], link[128];
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		ssize_t n = readlink(path, link, sizeof(link) - 1);
		link[n > 0 ? n : 0] = '\0';
		k = strcmp(link, "anon_inode:[perf_event]") == 0 ? 1 : 2;
		atomic_store_explicit(&kind[fd], k, memory_order_relaxed);
	}
	return k == 1;
}

__attribute__((visibility("default"))) ssize_t read(int fd, void *buf, size_t len)
{
	static read_fn real;
	if (!real) {
		void *f = dlsym(RTLD_NEXT, "read");
		memcpy(&real, &f, sizeof(real));
	}
	if (is_perf(fd))
		atomic_fetch_add_explicit(&reads, 1, memory_order_relaxed);
	return real(fd, buf, len);
}

__attribute__((visibility("default"))) int close(int fd)
{
	static close_fn real;
	if (!real) {
		void *f = dlsym(RTLD_NEXT, "close");
		memcpy(&real, &f, sizeof(real));
	}
	if (fd >= 0 && fd < MAX_FD)
		atomic_store_explicit(&kind[fd], 0, memory_order_relaxed);
	return real(fd);
}

__attribute__((destructor)) static void report(void)
{
	const char *out = getenv("PMCF_READCOUNT_OUT");
	if (!out || !getenv("PMCF_COLLECT_DIR"))
		return;
	int fd = open(out, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	char line[64];
	int n = snprintf(line, sizeof(line), "reads %lu\n", atomic_load(&reads));
	if (write(fd, line, (size_t)n) != n) {
		/* the test then finds the count missing */
	}
	close(fd);
}
