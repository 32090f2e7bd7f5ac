/* Seeded, reproducible random numbers for the simulator: splitmix64 for
 * seeding and hashing, xoshiro256** as the generator, and the few
 * distributions the model needs. */
#ifndef PMCF_SIM_RNG_H
#define PMCF_SIM_RNG_H
#include <stdint.h>

struct sim_rng {
	uint64_t s[4];
};

/* splitmix64 step: advances *x and returns the next output. */
uint64_t sim_splitmix64(uint64_t *x);
/* A 64-bit mix of a and b (order matters), for counter-based streams. */
uint64_t sim_hash2(uint64_t a, uint64_t b);
/* Seeds r from seed (any value, 0 included). */
void sim_rng_seed(struct sim_rng *r, uint64_t seed);
uint64_t sim_rng_next(struct sim_rng *r);
/* Uniform in [0, 1). */
double sim_rng_unif(struct sim_rng *r);
/* Uniform integer in [0, n), n > 0. */
uint32_t sim_rng_below(struct sim_rng *r, uint32_t n);
/* Standard normal (Box-Muller, one value per call). */
double sim_rng_normal(struct sim_rng *r);
/* Uniform in [0, 1) from a hash of a and b (stateless). */
double sim_hash_unif(uint64_t a, uint64_t b);
#endif
