/* The 64-bit finaliser of MurmurHash3 (splitmix64's mix): the deterministic
 * per-node random numbers of the task-tree bench programs (uts, deeptree). */
#ifndef PMCF_BENCH_MIX64_H
#define PMCF_BENCH_MIX64_H
#include <stdint.h>

static inline uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}
#endif
