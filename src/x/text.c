/* Text helpers of the library and the command (compiled into both, never
 * exported: x/x.h): UTF-8 validity, base64, messages shortened to one line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "x/x.h"

const char pmcfi_base64_digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int pmcfi_utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		unsigned c = *p, n, cp;
		if (c < 0x80) {
			p++;
			continue;
		}
		if (c >= 0xC2 && c <= 0xDF)
			n = 1, cp = c & 0x1F;
		else if (c >= 0xE0 && c <= 0xEF)
			n = 2, cp = c & 0x0F;
		else if (c >= 0xF0 && c <= 0xF4)
			n = 3, cp = c & 0x07;
		else
			return 0; /* a continuation byte, an overlong 0xC0/0xC1, or beyond 0xF4 */
		for (unsigned k = 1; k <= n; k++) {
			if ((p[k] & 0xC0) != 0x80)
				return 0; /* also stops at the NUL */
			cp = cp << 6 | (p[k] & 0x3F);
		}
		if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10FFFF)) ||
		    (cp >= 0xD800 && cp <= 0xDFFF))
			return 0; /* overlong, beyond Unicode, or a surrogate */
		p += n + 1;
	}
	return 1;
}

size_t pmcfi_base64(const char *s, char *out)
{
	size_t n = strlen(s);
	char *q = out;
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < n; i += 3) {
		unsigned x = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) |
			     (i + 2 < n ? p[i + 2] : 0);
		*q++ = pmcfi_base64_digits[x >> 18 & 63];
		*q++ = pmcfi_base64_digits[x >> 12 & 63];
		*q++ = i + 1 < n ? pmcfi_base64_digits[x >> 6 & 63] : '=';
		*q++ = i + 2 < n ? pmcfi_base64_digits[x & 63] : '=';
	}
	*q = '\0';
	return (size_t)(q - out);
}

/* A continuation byte of a UTF-8 sequence */
#define UTF8_CONT(c) (((unsigned char)(c)&0xC0) == 0x80)

/* Replaces s[at, at + len) by "..." keeping at most keep bytes of it (half
 * before, half after, whole UTF-8 sequences); returns the new length of s. */
static size_t cut_middle(char *s, size_t n, size_t at, size_t len, size_t keep)
{
	size_t head = keep / 2, tail = keep - head;
	while (head > 0 && UTF8_CONT(s[at + head]))
		head--;
	size_t from = at + len - tail;
	while (from < at + len && UTF8_CONT(s[from]))
		from++;
	memcpy(s + at + head, "...", 3);
	memmove(s + at + head + 3, s + from, n - from + 1);
	return n - (from - (at + head + 3));
}

void pmcfi_shorten(char *dst, size_t cap, const char *src)
{
	enum { KEEP = 60 }; /* bytes of a cut word that stay */
	size_t n = strlen(src);
	if (cap == 0)
		return;
	char *s = n < cap ? NULL : strdup(src);
	if (!s) { /* it fits (or no memory: cut at the end) */
		snprintf(dst, cap, "%s", src);
		return;
	}
	while (n >= cap) {
		size_t best = 0, blen = 0; /* the longest word */
		for (size_t i = 0; i < n;) {
			size_t j = i;
			while (j < n && s[j] != ' ')
				j++;
			if (j - i > blen)
				best = i, blen = j - i;
			i = j + 1;
		}
		if (blen <= KEEP + 3)
			break;
		size_t excess = n - (cap - 1);
		size_t keep = blen > excess + 3 + KEEP ? blen - excess - 3 : KEEP;
		n = cut_middle(s, n, best, blen, keep);
	}
	if (n >= cap && cap > 8)
		n = cut_middle(s, n, 0, n, cap - 4);
	snprintf(dst, cap, "%s", s);
	free(s);
}
