/* The helpers of include/pmcfuse/util.h that live in util/: exported names
 * for the library's internal text and number helpers. */
#include "pmcfuse/util.h"
#include "util/abi.h"
#include "util/internal.h"
#include "util/json_bytes.h"
#include "util/quantile.h"

int pmcf_utf8_valid(const char *s) { return pmcfi_utf8_valid(s); }

size_t pmcf_base64(const char *s, char *out) { return pmcfi_base64(s, out); }

void pmcf_shorten(char *dst, size_t cap, const char *src) { pmcfi_shorten(dst, cap, src); }

double pmcf_median(double *v, size_t n) { return pmcfi_median(v, n); }

int pmcf_grow(void **p, size_t *cap, size_t need, size_t elem)
{
	return pmcfi_grow(p, cap, need, elem) ? PMCF_ENOMEM : 0;
}
