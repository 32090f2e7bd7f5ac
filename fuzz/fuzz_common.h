/* Shared by the libFuzzer harnesses: the input as a NUL-terminated string,
 * or as a scratch file (for parsers that take a path). */
#ifndef PMCF_FUZZ_COMMON_H
#define PMCF_FUZZ_COMMON_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A copy of data with a terminating NUL (NULs inside cut the string). */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = 0;
	return s;
}

/* Writes data to a per-process scratch file whose name ends with suffix;
 * returns the path (static storage). */
static inline const char *fuzz_file(const uint8_t *data, size_t size, const char *suffix)
{
	static char path[256];
	const char *dir = getenv("TMPDIR");
	snprintf(path, sizeof(path), "%s/pmcf-fuzz-%d%s", dir && *dir ? dir : "/tmp", (int)getpid(),
		 suffix);
	FILE *f = fopen(path, "wb");
	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
		abort();
	return path;
}
#endif
