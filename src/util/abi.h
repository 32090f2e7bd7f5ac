/* The one rule for caller structs that carry a size field (and, through
 * x/x.h, the one array-growth helper). Not exported. */
#ifndef PMCF_UTIL_ABI_H
#define PMCF_UTIL_ABI_H
#include <stddef.h>
#include "x/x.h"

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

/* Results out, filled field by field: checks the caller's p (size field
 * first, the rule) and sets its size to min(size, known), the bytes the
 * library fills. For structs whose first version's fields are all written
 * (first_abi == known for every struct sized since issue 37). */
int pmcfi_struct_fill(const char *what, void *p, size_t first_abi, size_t known);
/* The same with the common case inline, for getters called per XU: a size
 * equal to this library's (the caller's header is this one) needs no check
 * and stays as it is. */
#define PMCFI_STRUCT_FILL(what, p, first_abi, known) \
	((p)->size == (known) ? 0 : pmcfi_struct_fill(what, p, first_abi, known))
/* Results out, cleared: pmcfi_struct_fill for a struct of first_abi ==
 * known bytes, then every byte after the size field zeroed (instead of a
 * memset that would overwrite the caller's size). */
int pmcfi_struct_reset(const char *what, void *p, size_t known);
/* Arrays the caller passes (in or out): element 0's size field is every
 * element's (0: first_abi), checked as the rule says; *stride becomes the
 * bytes from one element to the next. n 0 (or arr NULL): *stride = known,
 * nothing checked. Element i is at (char *)arr + i * *stride. */
int pmcfi_struct_stride(const char *what, const void *arr, size_t n, size_t first_abi, size_t known,
			size_t *stride);

/* pmcfi_grow and pmcfi_grow_cap, the array-growth rule, are in x/x.h. */
#endif
