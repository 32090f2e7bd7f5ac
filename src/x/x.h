/* Helpers of the library and of the command, curl's curlx model: the
 * sources of src/x/ are compiled into libpmcfuse (where the version script
 * keeps their pmcfi_ names local) and into the pmcfuse command, so that they
 * are not ABI. They use the C library (and Nettle) only, never another
 * module; the command may include this header (tests/include_graph.py). */
#ifndef PMCF_X_X_H
#define PMCF_X_X_H
#include <stddef.h>

/* ---- text (x/text.c) -------------------------------------------------------- */
/* 1 when the NUL-terminated s is valid UTF-8 (as JSON and jansson require:
 * no overlong form, no surrogate, nothing beyond U+10FFFF), else 0. */
int pmcfi_utf8_valid(const char *s);
/* The base64 text (RFC 4648, padded) of the bytes of s into out, which holds
 * PMCFI_BASE64_LEN(strlen(s)) + 1 bytes; returns the text's length. */
#define PMCFI_BASE64_LEN(n) (4 * (((n) + 2) / 3))
size_t pmcfi_base64(const char *s, char *out);
/* The 64 digits of base64, in order. */
extern const char pmcfi_base64_digits[];
/* Copies the message src into dst (cap bytes, NUL included): whole when it
 * fits, else with its longest words (paths) cut in their middle ("...") and,
 * only if that is not enough, the middle of the message, so that the reason
 * after a long path is kept. Never splits a UTF-8 sequence. */
void pmcfi_shorten(char *dst, size_t cap, const char *src);

/* ---- order statistics (x/quantile.c) ----------------------------------------- */
/* q-quantile (0..1) of v[0..n) by linear interpolation between order
 * statistics (position q·(n-1), R's type 7): the one quantile of pmcfuse.
 * Reorders v, but a sorted v stays sorted (only equal values are swapped).
 * NaN when n == 0. */
double pmcfi_quantile(double *v, size_t n, double q);
/* Median of v[0..n) (the mean of the two middle values when n is even);
 * reorders v. */
double pmcfi_median(double *v, size_t n);

/* ---- arrays (x/grow.c) ------------------------------------------------------- */
/* Makes room for need elements of elem bytes in *p (capacity *cap
 * elements): when need > *cap, reallocates to max(need, 2·cap, 8)
 * elements, overflow-checked. *p and *cap are unchanged on failure.
 * Returns 0 or -ENOMEM. */
int pmcfi_grow(void **p, size_t *cap, size_t need, size_t elem);
/* The capacity pmcfi_grow gives: cap when need <= cap, else max(need,
 * 2·cap, 8) (SIZE_MAX when 2·cap overflows). For arrays that grow
 * together (struct of arrays) through a resize of their own. */
size_t pmcfi_grow_cap(size_t cap, size_t need);

/* ---- files (x/files.c) ------------------------------------------------------- */
/* Removes dir and everything under it (files, folders; symbolic links are
 * removed, not followed). Best effort: what cannot be removed stays. */
void pmcfi_rm_tree(const char *dir);

/* ---- digests (x/sha256.c) ---------------------------------------------------- */
/* The SHA-256 of n bytes at data: 64 lowercase hex digits and a NUL in hex. */
void pmcfi_sha256_buf(const void *data, size_t n, char hex[65]);
/* n bytes at d as 2n lowercase hex digits and a NUL into hex. */
void pmcfi_hex(const unsigned char *d, size_t n, char *hex);
#endif
