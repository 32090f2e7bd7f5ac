/* SHA-256 (Nettle) of a file or a buffer, and the GNU build-id of an ELF
 * file (libelf), for the binary_sha256 and binary_build_id metadata. */
#ifndef PMCF_COLLECT_SHA256_H
#define PMCF_COLLECT_SHA256_H
#include <stddef.h>
#include "x/x.h"
/* Writes 64 lowercase hex digits and a NUL to hex. 0 or -errno. */
int pmcfi_sha256_file(const char *path, char hex[65]);
/* The same of n bytes at data: pmcfi_sha256_buf (x/x.h). */
/* The GNU build-id note (NT_GNU_BUILD_ID) of ELF file path as lowercase hex
 * into hex (len bytes: 2 per byte of the id and a NUL, 41 for the usual
 * SHA-1 id); 0, -ENOENT when it has none (a script, a binary linked without
 * --build-id), or -errno. hex is "" unless 0. */
int pmcfi_build_id_file(const char *path, char *hex, size_t len);
#endif
