/* Behaviour Clustering: the radix sorts of cell keys and values (bc_impl.h). */
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "combine/bc_impl.h"
#include "util/rng.h"
#include "util/abi.h"
#include "util/internal.h"

/* ---- sorting ------------------------------------------------------------------- */

/* One radix pass's digit counts c[0..r) -> start offsets; 0 (c unchanged)
 * when every one of the n keys has digit first's value: the pass is skipped. */
int pmcfi_bc_digit_offsets(uint32_t *c, size_t r, size_t n, size_t first)
{
	if (c[first] == n)
		return 0;
	uint32_t sum = 0;
	for (size_t b = 0; b < r; b++) {
		uint32_t t = c[b];
		c[b] = sum;
		sum += t;
	}
	return 1;
}

/* LSD radix sort of a[0..n) (11 bits a pass; a pass in which every key has
 * the same digit is skipped). */
void pmcfi_bc_radix_u64(uint64_t *a, uint64_t *tmp, size_t n)
{
	enum { B = 11, R = 1 << B, P = 6 };
	uint32_t cnt[P][R];
	memset(cnt, 0, sizeof(cnt));
	for (size_t q = 0; q < n; q++)
		for (int p = 0; p < P; p++)
			cnt[p][(a[q] >> (p * B)) & (R - 1)]++;
	uint64_t *src = a, *dst = tmp;
	for (int p = 0; p < P; p++) {
		uint32_t *c = cnt[p];
		if (!n || !pmcfi_bc_digit_offsets(c, R, n, (a[0] >> (p * B)) & (R - 1)))
			continue;
		for (size_t q = 0; q < n; q++)
			dst[c[(src[q] >> (p * B)) & (R - 1)]++] = src[q];
		uint64_t *t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
}

/* Stable LSD radix sort of s[0..n) by key (< 2^bits): the digit counts of
 * every pass in one read, 11 bits a pass, a pass in which every key has the
 * same digit skipped. */
void pmcfi_bc_radix_keys(struct pmcfi_bc_skey *s, struct pmcfi_bc_skey *tmp, size_t n, unsigned bits)
{
	enum { B = 11, R = 1 << B, P = 6 };
	unsigned np = (bits + B - 1) / B;
	np = np > P ? P : np;
	if (n < 2 || !np)
		return;
	uint32_t cnt[P][R];
	memset(cnt, 0, np * sizeof(cnt[0]));
	for (size_t q = 0; q < n; q++) {
		uint64_t key = s[q].key;
		for (unsigned p = 0; p < np; p++)
			cnt[p][(key >> (p * B)) & (R - 1)]++;
	}
	struct pmcfi_bc_skey *src = s, *dst = tmp;
	for (unsigned p = 0; p < np; p++) {
		unsigned sh = p * B;
		if (!pmcfi_bc_digit_offsets(cnt[p], R, n, (s[0].key >> sh) & (R - 1)))
			continue;
		uint32_t *c = cnt[p];
		for (size_t q = 0; q < n; q++)
			dst[c[(src[q].key >> sh) & (R - 1)]++] = src[q];
		struct pmcfi_bc_skey *t = src;
		src = dst;
		dst = t;
	}
	if (src != s)
		memcpy(s, src, n * sizeof(*s));
}

struct co_ctx {
	const int32_t *ci;
	size_t k;
};

/* (hash, coordinates, position): the coordinates are read only on equal
 * hashes, mostly XUs of one cell. */
static int cmp_skey_co(const void *a, const void *b, void *ctx)
{
	const struct co_ctx *C = ctx;
	const struct pmcfi_bc_skey *x = a, *y = b;
	if (x->h != y->h)
		return x->h < y->h ? -1 : 1;
	int r = co_cmp(C->ci + (size_t)x->q * C->k, C->ci + (size_t)y->q * C->k, C->k);
	return r ? r : (x->q > y->q) - (x->q < y->q);
}

/* Orders a run of XUs with one key so that cells become contiguous, each
 * keeping the order of rem. */
void pmcfi_bc_order_run(struct pmcfi_bc_skey *s, size_t n, const int32_t *ci, size_t k)
{
	struct co_ctx C = {ci, k};
	if (n > SMALL_RUN) {
		qsort_r(s, n, sizeof(*s), cmp_skey_co, &C);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		struct pmcfi_bc_skey t = s[i];
		size_t j = i;
		while (j > 0 && cmp_skey_co(&s[j - 1], &t, &C) > 0) {
			s[j] = s[j - 1];
			j--;
		}
		s[j] = t;
	}
}
