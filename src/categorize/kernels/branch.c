/* The seven branch kernels of counter-inspection-toolkit Fig. 11 (a)–(g),
 * written in C as the paper asks, with the guards that keep their control
 * flow (one `if` that skips its body when false, one loop branch) at any -O. */
#include <stdint.h>
#include "kernels.h"

/* Globals the kernels update: volatile, so that the conditional stores stay
 * behind real branches (no if-conversion, no hoisting). */
static volatile long global_var1, global_var2;
/* Where each kernel leaves its generator state, so the generator stays live. */
volatile uint64_t cit_sink;
volatile uint64_t cit_seed = 0x9E3779B97F4A7C15ull;

/* random_number(result) of §2: a branch-free generator (xorshift64*) on the
 * local state, whose high bits land in result. */
#define random_number(r)                                                 \
	do {                                                             \
		state ^= state << 13;                                    \
		state ^= state >> 7;                                     \
		state ^= state << 17;                                    \
		(r) = (uint32_t)((state * 0x2545F4914F6CDD1Dull) >> 32); \
	} while (0)

/* goto as one direct jump the compiler can neither lay out away nor
 * duplicate the target of (the paper's Fig. 11 (f) needs an executed direct
 * branch; C alone lets the compiler place the label right after the jump). */
#if defined(__x86_64__) || defined(__i386__)
#define DIRECT_GOTO(l)                             \
	do {                                       \
		__asm__ goto("jmp %l0" : : : : l); \
		__builtin_unreachable();           \
	} while (0)
#elif defined(__aarch64__)
#define DIRECT_GOTO(l)                           \
	do {                                     \
		__asm__ goto("b %l0" : : : : l); \
		__builtin_unreachable();         \
	} while (0)
#else
#define DIRECT_GOTO(l) goto l
#endif

/* Hides a value from the optimiser: the loop counter, each iteration, so
 * that no trip count is known (no loop splitting, no rotation into a
 * while-loop with an extra exit test). */
#define OPAQUE(x) __asm__ volatile("" : "+r"(x))

/* Lay the then-body out right after the test, as in the paper's listings:
 * the if's branch skips the body when the condition is false (what Table 1's
 * taken counts assume), and no jump is needed to rejoin the loop. */
#define INLINE_THEN(c) __builtin_expect(!!(c), 1)

/* One loop branch per iteration: no unrolling, no vectorising. */
#if defined(__clang__)
#define NO_UNROLL _Pragma("clang loop unroll(disable) vectorize(disable)")
#elif defined(__GNUC__)
#define NO_UNROLL _Pragma("GCC unroll 1")
#else
#define NO_UNROLL
#endif

#define KERNEL __attribute__((noinline, noclone, used))
#if defined(__clang__)
#undef KERNEL
#define KERNEL __attribute__((noinline, used))
#endif

/* (a) {CE 2, CR 2, T 1.5, D 0, M 0}: the if holds for the first half. */
KERNEL void cit_branch_a(long size)
{
	uint64_t state = cit_seed;
	uint32_t result = 0;
	long temp = 0, half = size / 2;
	NO_UNROLL
	do {

		if (INLINE_THEN(temp < half))
			global_var2 += 2;
		random_number(result);
		temp++;
		OPAQUE(temp);
	} while (temp < size);
	cit_sink = state + result;
}

/* (b) {2, 2, 1, 0, 0}: the if always holds (global_var2 grows faster). */
KERNEL void cit_branch_b(long size)
{
	uint64_t state = cit_seed;
	uint32_t result = 0;
	long temp = 0;
	global_var2 = 0;
	NO_UNROLL
	do {
		global_var2 += 2;
		if (INLINE_THEN(temp < global_var2))
			global_var1 += 2;
		random_number(result);
		temp++;
		OPAQUE(temp);
	} while (temp < size);
	cit_sink = state + result;
}

/* (c) {2, 2, 2, 0, 0}: the if never holds, its branch is always taken. */
KERNEL void cit_branch_c(long size)
{
	uint64_t state = cit_seed;
	uint32_t result = 0;
	long temp = 0;
	global_var2 = 0;
	NO_UNROLL
	do {
		global_var2 += 2;
		if (INLINE_THEN(temp > global_var2))
			global_var1 += 2;
		random_number(result);
		temp++;
		OPAQUE(temp);
	} while (temp < size);
	cit_sink = state + result;
}

/* (d) {2, 2, 1.5, 0, 0.5}: a random if, with work before the loop branch
 * so that speculation does not reach it (§2, Fig. 5). */
KERNEL void cit_branch_d(long size)
{
	uint64_t state = cit_seed;
	uint32_t result = 0;
	long temp = 0;
	global_var2 = 0;
	NO_UNROLL
	do {
		random_number(result);
		global_var2 += 2;
		if (INLINE_THEN((result % 2) == 0))
			global_var1 += 2;
		random_number(result);
		temp++;
		OPAQUE(temp);
	} while (temp < size);
	cit_sink = state + result;
}

/* (e) {2.5, 2, 1.5, 0, 0.5}: a random if right before the loop branch, which
 * then executes speculatively after each misprediction. */
KERNEL void cit_branch_e(long size)
{
	uint64_t state = cit_seed;
	uint32_t result = 0;
	long temp = 0;
	global_var2 = 0;
	NO_UNROLL
	do {
		random_number(result);
		global_var2 += 2;
		if (INLINE_THEN((result % 2) == 0))
			global_var1 += 2;
		temp++;
		OPAQUE(temp);
	} while (temp < size);
	cit_sink = state + result;
}

/* (f) {2, 2, 1, 1, 0}: the if always holds and leaves with a goto, one
 * direct jump per iteration that the compiler cannot lay out away. */
KERNEL void cit_branch_f(long size)
{
	uint64_t state = cit_seed;
	uint32_t result = 0;
	long temp = 0;
	global_var2 = 0;
	NO_UNROLL
	do {
		global_var2 += 2;
		if (INLINE_THEN(temp < global_var2)) {
			global_var1 += 2;
			DIRECT_GOTO(zz);
		}
		random_number(result);
	zz:
		temp++;
		OPAQUE(temp);
		random_number(result);
	} while (temp < size);
	cit_sink = state + result;
}

/* (g) {1, 1, 1, 0, 0}: only the loop branch. */
KERNEL void cit_branch_g(long size)
{
	long temp = 0;
	global_var2 = 0;
	NO_UNROLL
	do {
		global_var2 += 2;
		temp++;
		OPAQUE(temp);
	} while (temp < size);
}
