/* pmcfuse — small helpers the library uses and exports for its tools (the
 * pmcfuse command links only the public library): text as JSON takes it
 * (the bytes rule of plans and metadata, docs/profile-format.md), messages
 * shortened to one line, SHA-256 digests, the median, removing a folder
 * tree, growing an array. */
#ifndef PMCFUSE_UTIL_H
#define PMCFUSE_UTIL_H

#include "pmcfuse/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when s is valid UTF-8 (no overlong forms, no surrogates), else 0. */
PMCF_API int pmcf_utf8_valid(const char *s);
/* Bytes of the base64 text of n bytes (without the NUL). */
#define PMCF_BASE64_LEN(n) (4 * (((n) + 2) / 3))
/* Writes the base64 of s's bytes (up to its NUL) and a NUL into out, which
 * holds PMCF_BASE64_LEN(strlen(s)) + 1 bytes; returns the length. */
PMCF_API size_t pmcf_base64(const char *s, char *out);
/* Copies the message src into dst (cap bytes, NUL included): whole when it
 * fits, else with its longest words (paths) cut in their middle ("...") and,
 * only if that is not enough, the middle of the message, so that the reason
 * after a long path is kept. Never splits a UTF-8 sequence. */
PMCF_API void pmcf_shorten(char *dst, size_t cap, const char *src);
/* The SHA-256 of n bytes at data: 64 lowercase hex digits and a NUL in hex. */
PMCF_API void pmcf_sha256_hex(const void *data, size_t n, char hex[65]);
/* Median of v[0..n) (the mean of the two middle values when n is even;
 * NaN when n is 0); reorders v. */
PMCF_API double pmcf_median(double *v, size_t n);
/* Removes dir and everything under it (symbolic links removed, not
 * followed); best effort, what cannot be removed stays. For folders the
 * caller made, e.g. a staging folder renamed into place at the end. */
PMCF_API void pmcf_rm_tree(const char *dir);
/* Makes room for need elements of elem bytes in the array *p of capacity
 * *cap elements: when need > *cap, reallocates to max(need, 2·cap, 8)
 * elements (overflow-checked) and updates *p and *cap; both unchanged on
 * failure. Returns 0 or PMCF_ENOMEM. The library's own growth rule. */
PMCF_API int pmcf_grow(void **p, size_t *cap, size_t need, size_t elem);

#ifdef __cplusplus
}
#endif
#endif
