/* The seeded generator behind pair sampling and the bootstrap of the
 * accuracy metrics (quantiles are in util/quantile.c). */
#include <math.h>
#include <stddef.h>
#include "evaluate/evaluate_impl.h"

uint64_t pmcfi_rng_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}
