/* Hash index over strings stored by their owner (util/strindex.h). */
#include <stdlib.h>
#include "util/internal.h"
#include "util/strindex.h"

uint64_t pmcfi_hash_byte(uint64_t h, unsigned char c) { return (h ^ c) * 0x100000001b3ull; }

uint64_t pmcfi_hash(uint64_t h, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		h = pmcfi_hash_byte(h, *p);
	return h;
}

long pmcfi_index_find(const struct pmcfi_index *ix, uint64_t h, int (*same)(const void *ctx, size_t pos),
		      const void *ctx)
{
	if (!ix->cap)
		return -1;
	for (size_t m = ix->cap - 1, i = (size_t)h & m; ix->slot[i].pos; i = (i + 1) & m)
		if (ix->slot[i].hash == h && same(ctx, ix->slot[i].pos - 1))
			return (long)(ix->slot[i].pos - 1);
	return -1;
}

static void put(struct pmcfi_slot *slot, size_t cap, uint64_t h, size_t pos1)
{
	size_t i = (size_t)h & (cap - 1);
	while (slot[i].pos)
		i = (i + 1) & (cap - 1);
	slot[i].hash = h;
	slot[i].pos = pos1;
}

int pmcfi_index_reserve(struct pmcfi_index *ix, size_t n)
{
	if (2 * n > ix->cap) { /* at most half full */
		size_t cap = ix->cap ? ix->cap : 16;
		while (2 * n > cap)
			cap *= 2;
		struct pmcfi_slot *s = calloc(cap, sizeof(*s));
		if (!s)
			return PMCF_ENOMEM;
		for (size_t i = 0; i < ix->cap; i++)
			if (ix->slot[i].pos)
				put(s, cap, ix->slot[i].hash, ix->slot[i].pos);
		free(ix->slot);
		ix->slot = s;
		ix->cap = cap;
	}
	return 0;
}

int pmcfi_index_add(struct pmcfi_index *ix, uint64_t h, size_t pos)
{
	if (pmcfi_index_reserve(ix, ix->n + 1))
		return PMCF_ENOMEM;
	put(ix->slot, ix->cap, h, pos + 1);
	ix->n++;
	return 0;
}

void pmcfi_index_free(struct pmcfi_index *ix)
{
	free(ix->slot);
	ix->slot = NULL;
	ix->cap = ix->n = 0;
}
