/* Seeded, reproducible random numbers shared by the simulator, the
 * combination strategies, the accuracy metrics and the benchmarks:
 * splitmix64 for seeding, hashing and plain streams, xoshiro256** as the
 * generator, and the few distributions the simulator's model needs. */
#ifndef PMCF_UTIL_RNG_H
#define PMCF_UTIL_RNG_H
#include <stdint.h>

struct pmcfi_rng {
	uint64_t s[4];
};

/* splitmix64 step: advances *x and returns the next output (also a
 * generator on its own: the state is one uint64_t). */
uint64_t pmcfi_splitmix64(uint64_t *x);
/* A 64-bit mix of a and b (order matters), for counter-based streams. */
uint64_t pmcfi_rng_hash2(uint64_t a, uint64_t b);
/* Seeds r from seed (any value, 0 included). */
void pmcfi_rng_seed(struct pmcfi_rng *r, uint64_t seed);
uint64_t pmcfi_rng_next(struct pmcfi_rng *r);
/* Uniform in [0, 1). */
double pmcfi_rng_unif(struct pmcfi_rng *r);
/* Uniform integer in [0, n), n > 0. */
uint32_t pmcfi_rng_below(struct pmcfi_rng *r, uint32_t n);
/* pmcfi_rng_next and pmcfi_rng_below inline, for loops that draw one per
 * element (the same numbers). */
static inline uint64_t pmcfi_rng_next_inline(struct pmcfi_rng *r)
{
	uint64_t *s = r->s;
	uint64_t x = s[1] * 5, result = ((x << 7) | (x >> 57)) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = (s[3] << 45) | (s[3] >> 19);
	return result;
}

static inline uint32_t pmcfi_rng_below_inline(struct pmcfi_rng *r, uint32_t n)
{
	return (uint32_t)(((pmcfi_rng_next_inline(r) >> 32) * (uint64_t)n) >> 32);
}
/* Standard normal (Box-Muller, one value per call). */
double pmcfi_rng_normal(struct pmcfi_rng *r);
/* Uniform in [0, 1) from a hash of a and b (stateless). */
double pmcfi_rng_hash_unif(uint64_t a, uint64_t b);
#endif
