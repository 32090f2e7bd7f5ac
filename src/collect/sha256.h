/* SHA-256 of a file (FIPS 180-4), for the binary hash in profile metadata. */
#ifndef PMCF_COLLECT_SHA256_H
#define PMCF_COLLECT_SHA256_H
#include <stddef.h>
/* Writes 64 lowercase hex digits and a NUL to hex. 0 or -errno. */
int pmcfi_sha256_file(const char *path, char hex[65]);
/* The same of n bytes at data. */
void pmcfi_sha256_buf(const void *data, size_t n, char hex[65]);
#endif
