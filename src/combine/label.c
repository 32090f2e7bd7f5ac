/* Labels of the label graph (fuse-task-parallel §3.1, fuse-openmp §4):
 * the depth-first visiting order used by BC inside a cell, and the first
 * common ancestor given to a BC-combined XU (§3.2, Algorithm 4). */
#include <string.h>
#include "combine/combine_impl.h"

static int is_digit(char ch) { return ch >= '0' && ch <= '9'; }

/* Length of the component starting at s (up to '.' or the end). */
static size_t comp_len(const char *s, size_t left)
{
	size_t k = 0;
	while (k < left && s[k] != '.')
		k++;
	return k;
}

static int all_digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!is_digit(s[i]))
			return 0;
	return n > 0;
}

int pmcfi_cmb_label_comp_cmp(const char *a, size_t na, const char *b, size_t nb)
{
	if (all_digits(a, na) && all_digits(b, nb)) {
		while (na > 1 && *a == '0')
			a++, na--;
		while (nb > 1 && *b == '0')
			b++, nb--;
		if (na != nb)
			return na < nb ? -1 : 1;
	}
	size_t m = na < nb ? na : nb;
	int r = memcmp(a, b, m);
	if (r)
		return r < 0 ? -1 : 1;
	return (na > nb) - (na < nb);
}

/* Pre-order of the label graph: an ancestor before its descendants, then
 * siblings by creation rank (numeric components compared as numbers). */
/* Length of the common prefix of a and b. */
static size_t common(const char *a, const char *b, size_t n)
{
	size_t m = 0;
	while (m + 8 <= n && memcmp(a + m, b + m, 8) == 0)
		m += 8;
	while (m < n && a[m] == b[m])
		m++;
	return m;
}

int pmcfi_cmb_label_cmp(const char *a, size_t la, const char *b, size_t lb)
{
	/* components inside the common prefix are equal: start at the one
	 * holding the first difference */
	size_t m = common(a, b, la < lb ? la : lb);
	while (m > 0 && a[m - 1] != '.')
		m--;
	size_t i = m, j = m;
	for (;;) {
		if (i >= la || j >= lb)
			return (i < la) - (j < lb);
		size_t ca = comp_len(a + i, la - i), cb = comp_len(b + j, lb - j);
		int r = pmcfi_cmb_label_comp_cmp(a + i, ca, b + j, cb);
		if (r)
			return r;
		i += ca + 1;
		j += cb + 1;
	}
}

size_t pmcfi_cmb_label_fca(const char *a, size_t la, const char *b, size_t lb)
{
	/* the end of the last equal component, within the common prefix: the
	 * one holding the first difference when it ends there in both strings
	 * (and starts before the end of both), else the one before it */
	size_t n = la < lb ? la : lb, m = common(a, b, n), s = m;
	while (s > 0 && a[s - 1] != '.')
		s--;
	if ((m == la || a[m] == '.') && (m == lb || b[m] == '.') && s < n)
		return m;
	return s ? s - 1 : 0;
}

/* A component of at most 19 significant digits fits in 64 bits with 1
 * added (10^19 < 2^64 - 1). */
#define NUM_DIGITS 19

long pmcfi_cmb_label_ncomp(const char *s, size_t len)
{
	long n = 0;
	for (size_t i = 0; i < len; n++) {
		size_t c = comp_len(s + i, len - i), z = 0;
		if (!all_digits(s + i, c))
			return -1;
		while (z + 1 < c && s[i + z] == '0')
			z++;
		if (c - z > NUM_DIGITS)
			return -1;
		i += c + 1;
		if (i == len) /* a trailing '.': an empty last component */
			return -1;
	}
	return n;
}

uint64_t pmcfi_cmb_label_comp(const char *s, size_t len, size_t c)
{
	size_t i = 0;
	for (; c > 0 && i < len; c--)
		i += comp_len(s + i, len - i) + 1;
	if (i >= len)
		return 0;
	uint64_t v = 0;
	for (; i < len && s[i] != '.'; i++)
		v = v * 10 + (uint64_t)(s[i] - '0');
	return v + 1;
}
