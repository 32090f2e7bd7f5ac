/* A hash index over strings that live elsewhere (the names of a profile's
 * events, XU types, metadata keys): open addressing, linear probing, each
 * slot the hash and the position of its string, so lookups and insertions
 * are O(1) on average and loading n names O(n) instead of O(n^2). */
#ifndef PMCF_UTIL_STRINDEX_H
#define PMCF_UTIL_STRINDEX_H
#include <stddef.h>
#include <stdint.h>

struct pmcfi_index {
	struct pmcfi_slot {
		uint64_t hash;
		size_t pos; /* position + 1; 0: empty */
	} * slot;
	size_t cap, n; /* cap a power of two, or 0 */
};

/* FNV-1a of the bytes of s, continuing from h (start with PMCFI_HASH0);
 * hash several strings of one key by chaining, with a separator byte. */
#define PMCFI_HASH0 0xcbf29ce484222325ull
uint64_t pmcfi_hash(uint64_t h, const char *s);
uint64_t pmcfi_hash_byte(uint64_t h, unsigned char c);

/* The position whose string equals the key (hash h; same(ctx, pos) says
 * whether the string at pos is the key), or -1. */
long pmcfi_index_find(const struct pmcfi_index *ix, uint64_t h, int (*same)(const void *ctx, size_t pos),
		      const void *ctx);
/* Makes room for n positions in all: 0 or PMCF_ENOMEM. */
int pmcfi_index_reserve(struct pmcfi_index *ix, size_t n);
/* Records position pos with hash h (not already present); 0, or PMCF_ENOMEM
 * (never after pmcfi_index_reserve made room for it). */
int pmcfi_index_add(struct pmcfi_index *ix, uint64_t h, size_t pos);
/* Empties the index (keeps nothing allocated). */
void pmcfi_index_free(struct pmcfi_index *ix);
#endif
