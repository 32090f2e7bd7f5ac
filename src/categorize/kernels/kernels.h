/* The counter-inspection micro-benchmarks (counter-inspection-toolkit §3–4):
 * seven branch kernels with known per-iteration branch behaviour (Fig. 11 a–g,
 * Table 1) and pointer-chasing cache kernels (§4, Fig. 12–15). */
#ifndef PMCF_CATEGORIZE_KERNELS_H
#define PMCF_CATEGORIZE_KERNELS_H
#include <stddef.h>
#include <stdint.h>

/* Branch kernels: each runs `size` iterations (size >= 1) of the loop of
 * Fig. 11 (a)..(g). Never inlined, so that the control-flow test finds them
 * by name in the disassembly. */
void cit_branch_a(long size);
void cit_branch_b(long size);
void cit_branch_c(long size);
void cit_branch_d(long size);
void cit_branch_e(long size);
void cit_branch_f(long size);
void cit_branch_g(long size);

/* Pointer chains (§4): buf holds bytes / unit elements of unit bytes (unit a
 * multiple of sizeof(void *)), each starting with a pointer to the next one.
 * With pages_per_block 0 one random cyclic chain covers the whole buffer;
 * otherwise the buffer is cut into blocks of pages_per_block 4 KiB pages,
 * each block is walked in its own random order and the blocks one after the
 * other (Fig. 15). Random order from random() seeded with seed, which
 * prefetchers cannot guess. Returns the first element; needs bytes >= unit. */
void **cit_chain_build(void *buf, size_t bytes, size_t unit, size_t pages_per_block, unsigned seed);
/* Follows the chain for steps steps and returns where it stopped. */
void **cit_chase(void **p, uint64_t steps);
#endif
