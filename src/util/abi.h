/* The one rule for caller structs that carry a size field, and the one
 * array-growth helper. Not exported. */
#ifndef PMCF_UTIL_ABI_H
#define PMCF_UTIL_ABI_H
#include <stddef.h>

/* Checks a caller's struct p whose size field says given (libpfm4's
 * pfmlib_check_struct; include/pmcfuse/pmcfuse.h, "Sized structs"):
 * 0 means first_abi, the size of the struct's first published version;
 * smaller than first_abi is refused; bytes of p beyond known (this
 * library's sizeof) must be zero. Returns 0 or PMCF_EINVAL with a detail
 * naming what (the struct's type). */
int pmcfi_check_struct(const char *what, const void *p, size_t given, size_t first_abi, size_t known);
/* Options in: checks src (size field first) and copies its first
 * min(size, known) bytes over dst, which holds the defaults (known bytes);
 * dst's size field becomes known. src may be NULL (dst keeps the defaults). */
int pmcfi_struct_in(const char *what, void *dst, const void *src, size_t first_abi, size_t known);
/* Results out: checks dst (size field first, set by the caller) and copies
 * the first min(size, known) bytes of src (known bytes) into it; dst's size
 * field becomes the bytes written. */
int pmcfi_struct_out(const char *what, void *dst, const void *src, size_t first_abi, size_t known);

/* Makes room for need elements of elem bytes in *p (capacity *cap
 * elements): when need > *cap, reallocates to max(need, 2·cap, 8)
 * elements, overflow-checked. *p and *cap are unchanged on failure.
 * Returns 0 or -ENOMEM. */
int pmcfi_grow(void **p, size_t *cap, size_t need, size_t elem);
/* The capacity pmcfi_grow gives: cap when need <= cap, else max(need,
 * 2·cap, 8) (SIZE_MAX when 2·cap overflows). For arrays that grow
 * together (struct of arrays) through a resize of their own. */
size_t pmcfi_grow_cap(size_t cap, size_t need);
#endif
