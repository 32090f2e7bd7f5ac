/* The shared seeded RNG (util/rng.h): splitmix64 (Steele et al.) to expand seeds and
 * hash keys, xoshiro256** (Blackman & Vigna) as the stream generator. */
#include "util/rng.h"
#include <math.h>

uint64_t pmcfi_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t pmcfi_rng_hash2(uint64_t a, uint64_t b)
{
	uint64_t x = a * 0xd1b54a32d192ed03ull + 0x8cb92ba72f3d8dd7ull;
	pmcfi_splitmix64(&x);
	x ^= b;
	return pmcfi_splitmix64(&x);
}

void pmcfi_rng_seed(struct pmcfi_rng *r, uint64_t seed)
{
	uint64_t x = seed;
	for (int i = 0; i < 4; i++)
		r->s[i] = pmcfi_splitmix64(&x);
}

uint64_t pmcfi_rng_next(struct pmcfi_rng *r) { return pmcfi_rng_next_inline(r); }

double pmcfi_rng_unif(struct pmcfi_rng *r) { return (double)(pmcfi_rng_next(r) >> 11) * 0x1.0p-53; }

uint32_t pmcfi_rng_below(struct pmcfi_rng *r, uint32_t n) { return pmcfi_rng_below_inline(r, n); }

double pmcfi_rng_normal(struct pmcfi_rng *r)
{
	double u1 = pmcfi_rng_unif(r), u2 = pmcfi_rng_unif(r);
	if (u1 < 1e-300)
		u1 = 1e-300;
	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

double pmcfi_rng_hash_unif(uint64_t a, uint64_t b)
{
	return (double)(pmcfi_rng_hash2(a, b) >> 11) * 0x1.0p-53;
}
