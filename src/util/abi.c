/* Sized caller structs: one rule for every public entry point (array
 * growth is in x/grow.c). */
#include "util/abi.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/internal.h"

int pmcfi_check_struct(const char *what, const void *p, size_t given, size_t first_abi, size_t known)
{
	if (!given)
		given = first_abi;
	if (given < first_abi)
		return pmcfi_fail(PMCF_EINVAL, "%s: size %zu is smaller than its first version (%zu bytes)",
				  what, given, first_abi);
	const unsigned char *b = p;
	for (size_t i = known; i < given; i++)
		if (b[i])
			return pmcfi_fail(PMCF_EINVAL,
					  "%s: size %zu, and byte %zu beyond the %zu this library "
					  "knows is not zero",
					  what, given, i, known);
	return 0;
}

/* Checks p (its size field first) and sets *common to the bytes both the
 * caller and this library know. */
static int check_sized(const char *what, const void *p, size_t first_abi, size_t known, size_t *common)
{
	size_t given;
	memcpy(&given, p, sizeof(given));
	int rc = pmcfi_check_struct(what, p, given, first_abi, known);
	if (!given)
		given = first_abi;
	*common = given < known ? given : known;
	return rc;
}

int pmcfi_struct_in(const char *what, void *dst, const void *src, size_t first_abi, size_t known)
{
	size_t n;
	if (src) {
		int rc = check_sized(what, src, first_abi, known, &n);
		if (rc)
			return rc;
		memcpy(dst, src, n);
	}
	memcpy(dst, &known, sizeof(known));
	return 0;
}

int pmcfi_struct_out(const char *what, void *dst, const void *src, size_t first_abi, size_t known)
{
	size_t n;
	int rc = check_sized(what, dst, first_abi, known, &n);
	if (rc)
		return rc;
	memcpy(dst, src, n);
	memcpy(dst, &n, sizeof(n));
	return 0;
}

int pmcfi_struct_fill(const char *what, void *p, size_t first_abi, size_t known)
{
	size_t n;
	int rc = check_sized(what, p, first_abi, known, &n);
	if (!rc)
		memcpy(p, &n, sizeof(n));
	return rc;
}

int pmcfi_struct_stride(const char *what, const void *arr, size_t n, size_t first_abi, size_t known,
			size_t *stride)
{
	*stride = known;
	if (!n || !arr)
		return 0;
	size_t given, common;
	memcpy(&given, arr, sizeof(given));
	int rc = check_sized(what, arr, first_abi, known, &common);
	if (!rc)
		*stride = given ? given : first_abi;
	return rc;
}

int pmcfi_struct_reset(const char *what, void *p, size_t known)
{
	int rc = pmcfi_struct_fill(what, p, known, known);
	if (!rc)
		memset((char *)p + sizeof(size_t), 0, known - sizeof(size_t));
	return rc;
}
