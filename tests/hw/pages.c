/* hw-pages: the kernel's cost of record space, for hw-count to count
 * (bench/hw/kernel.sh): creates a file of MIB MiB in DIR, makes it ready
 * the collector's ways (src/collect/rt.c map_chunk) and writes one byte per
 * 64, then exits (unmapping it; the file stays, as record files do: the
 * caller removes it). MODE: fallocate (posix_fallocate, then
 * MADV_POPULATE_WRITE over the whole file: the collector until issue 31),
 * window (a sparse file made ready 256 KiB at a time: MADV_POPULATE_WRITE
 * alone), fwindow (the same, each window fallocated first through a
 * descriptor opened for it: the collector since issue 31), none (the file and
 * the mapping only, nothing made ready or written).
 * Usage: hw-pages MODE MIB DIR */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: hw-pages fallocate|window|fwindow|none MIB DIR\n");
		return 1;
	}
	size_t bytes = (size_t)atol(argv[2]) << 20, win = 256u << 10;
	char path[4096];
	snprintf(path, sizeof(path), "%s/hw-pages", argv[3]);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)bytes) != 0)
		return 2;
	if (strcmp(argv[1], "fallocate") == 0 && posix_fallocate(fd, 0, (off_t)bytes) != 0)
		return 2;
	unsigned char *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return 2;
	if (strcmp(argv[1], "none") == 0)
		return 0;
	if (strcmp(argv[1], "fallocate") == 0 && madvise(m, bytes, MADV_POPULATE_WRITE) != 0)
		return 2;
	for (size_t off = 0; off < bytes; off += 64) {
		size_t w = bytes - off < win ? bytes - off : win;
		if (strcmp(argv[1], "fwindow") == 0 && off % win == 0) {
			int f = open(path, O_RDWR);
			int e = f < 0 || posix_fallocate(f, (off_t)off, (off_t)w) != 0;
			if (f >= 0)
				close(f);
			if (e || madvise(m + off, w, MADV_POPULATE_WRITE) != 0)
				return 2;
		}
		if (strcmp(argv[1], "window") == 0 && off % win == 0 &&
		    madvise(m + off, bytes - off < win ? bytes - off : win, MADV_POPULATE_WRITE) != 0)
			return 2;
		m[off] = 1;
	}
	return 0;
}
