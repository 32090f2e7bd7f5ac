/* Singly linked lists: sorted insertion into short lists, then repeated
 * traversals that sum and filter.  Written for bench/imix-validate only. */
#include <stdio.h>
#include <stdlib.h>
struct node {
	struct node *next;
	long v;
};
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 40000, nl = 64;
	struct node **heads = calloc((size_t)nl, sizeof(*heads));
	unsigned x = 12345;
	for (long i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		struct node *e = malloc(sizeof(*e));
		e->v = (long)(x >> 8) % 100000;
		struct node **pp = &heads[i % nl];
		while (*pp && (*pp)->v < e->v)
			pp = &(*pp)->next;
		e->next = *pp;
		*pp = e;
	}
	long s = 0;
	for (int r = 0; r < 300; r++)
		for (long l = 0; l < nl; l++)
			for (struct node *p = heads[l]; p; p = p->next)
				if (p->v & 1)
					s += p->v;
				else
					s ^= p->v >> 2;
	printf("%ld\n", s);
	return 0;
}
