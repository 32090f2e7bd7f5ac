/* A chained string hash table: words made from a counter are inserted and
 * looked up; the hash (FNV-1a over a short key) is a short loop called from
 * the insert and lookup loops.  Written for bench/imix-validate only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
struct ent {
	struct ent *next;
	unsigned h;
	int val;
	char key[24];
};
static unsigned __attribute__((noinline)) fnv(const char *s)
{
	unsigned h = 2166136261u;
	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 16777619u;
	}
	return h;
}
static void mkkey(char *b, unsigned i)
{
	static const char al[] = "etaoinshrdlucmfw";
	int n = 0;
	do {
		b[n++] = al[i & 15];
		i >>= 4;
	} while (i);
	b[n] = 0;
}
int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 200000, nb = 1u << 16;
	struct ent **tab = calloc(nb, sizeof(*tab));
	struct ent *pool = malloc(n * sizeof(*pool));
	char k[24];
	for (unsigned i = 0; i < n; i++) {
		mkkey(k, i * 2654435761u >> 8);
		unsigned h = fnv(k);
		struct ent *e = &pool[i];
		strcpy(e->key, k);
		e->h = h;
		e->val = (int)i;
		e->next = tab[h & (nb - 1)];
		tab[h & (nb - 1)] = e;
	}
	long found = 0;
	for (int r = 0; r < 4; r++)
		for (unsigned i = 0; i < n; i++) {
			mkkey(k, (i * 7u + r) * 2654435761u >> 8);
			unsigned h = fnv(k);
			for (struct ent *e = tab[h & (nb - 1)]; e; e = e->next)
				if (e->h == h && !strcmp(e->key, k)) {
					found += e->val;
					break;
				}
		}
	printf("%ld\n", found);
	return 0;
}
