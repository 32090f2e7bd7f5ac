/* OpenMP tasks whose bodies execute a known number of user-mode
 * instructions (tests/hw/run.sh): three task types, each a loop of a fixed
 * number of instructions per iteration written in assembly, so that the
 * compiler cannot change the count. Task i (0-based, creation order, all
 * created by thread 0 inside `master`) runs loop (i % 3) for
 * iters(i) = 1000 * (i + 1) + 7 * i iterations:
 *   type a: 4 instructions per iteration, type b: 7, type c: 5 (+ a, b, c
 * each as its own task construct, so that each is an XU type of its own).
 * Usage: hw-tasks NTASKS [NTHREADS]. Prints "task I TYPE ITERS EXPECTED" per
 * task in creation order (EXPECTED = the loop's instructions, without the
 * few around it, which are the same for every task of a type). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#if !defined(__aarch64__)
#error "tests/hw/tasks.c is aarch64 code (the hardware suite runs in the emulated arm64 guest)"
#endif

__attribute__((noinline)) static void loop4(unsigned long n)
{
	__asm__ volatile("1: add x9, x9, #1\n\t"
			 "nop\n\t"
			 "subs %0, %0, #1\n\t"
			 "b.ne 1b"
			 : "+r"(n)
			 :
			 : "x9", "cc");
}

__attribute__((noinline)) static void loop7(unsigned long n)
{
	__asm__ volatile("1: add x9, x9, #1\n\t"
			 "eor x10, x10, x9\n\t"
			 "orr x11, x11, x10\n\t"
			 "nop\n\t"
			 "nop\n\t"
			 "subs %0, %0, #1\n\t"
			 "b.ne 1b"
			 : "+r"(n)
			 :
			 : "x9", "x10", "x11", "cc");
}

__attribute__((noinline)) static void loop5(unsigned long n)
{
	__asm__ volatile("1: add x9, x9, #1\n\t"
			 "eor x10, x10, x9\n\t"
			 "nop\n\t"
			 "subs %0, %0, #1\n\t"
			 "b.ne 1b"
			 : "+r"(n)
			 :
			 : "x9", "x10", "cc");
}

/* one task construct per type, each its own call site: three XU types */
__attribute__((noinline)) static void spawn_a(unsigned long k)
{
#pragma omp task firstprivate(k)
	loop4(k);
}
__attribute__((noinline)) static void spawn_b(unsigned long k)
{
#pragma omp task firstprivate(k)
	loop7(k);
}
__attribute__((noinline)) static void spawn_c(unsigned long k)
{
#pragma omp task firstprivate(k)
	loop5(k);
}

static unsigned long iters(int i) { return 1000ul * (unsigned long)(i + 1) + 7ul * (unsigned long)i; }

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 12;
	int nth = argc > 2 ? atoi(argv[2]) : 1;
	static const char types[] = "abc";
	static const int per[] = {4, 7, 5};
	for (int i = 0; i < n; i++)
		printf("task %d %c %lu %lu\n", i, types[i % 3], iters(i), per[i % 3] * iters(i));
	fflush(stdout);
#pragma omp parallel num_threads(nth)
#pragma omp master
	for (int i = 0; i < n; i++) {
		if (i % 3 == 0)
			spawn_a(iters(i));
		else if (i % 3 == 1)
			spawn_b(iters(i));
		else
			spawn_c(iters(i));
	}
	return 0;
}
