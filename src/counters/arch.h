/* Everything that differs between the architectures pmcfuse runs on
 * (x86-64, aarch64), in one place: reading a hardware counter from user space
 * (x86 rdpmc, arm64 mrs pmevcntr<n>_el0 / pmccntr_el0), the user-space
 * timestamp counter the mmap page's time fields are scaled from (rdtsc,
 * cntvct_el0), what perf_event_attr must ask for so that user space may read
 * a counter (arm64: config1 bits), and the features only one architecture
 * has (imix decodes x86-64 only). Header-only: the collector's hot path
 * inlines it. Any other architecture builds with the read(2) path only. */
#ifndef PMCF_COUNTERS_ARCH_H
#define PMCF_COUNTERS_ARCH_H
#include <stdint.h>
#include <stdio.h>
#include <linux/perf_event.h>

#if defined(__x86_64__)
#define PMCFI_ARCH_NAME "x86_64"
#define PMCFI_ARCH_USER_READ 1
static inline uint64_t pmcfi_arch_read_counter(uint32_t idx)
{
	uint32_t lo, hi;
	__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(idx));
	return lo | ((uint64_t)hi << 32);
}
static inline uint64_t pmcfi_arch_timestamp(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return lo | ((uint64_t)hi << 32);
}
#elif defined(__aarch64__)
#define PMCFI_ARCH_NAME "aarch64"
#define PMCFI_ARCH_USER_READ 1
/* The mmap page's index - 1: an event counter 0..30, or 31 for the cycle
 * counter (the kernel's ARMV8_IDX_CYCLE_COUNTER_USER). The counter number is
 * part of the instruction's encoding, hence the switch. */
#define PMCFI_EVCNTR(n)                                                   \
	case n:                                                           \
		__asm__ volatile("mrs %0, pmevcntr" #n "_el0" : "=r"(v)); \
		break;
static inline uint64_t pmcfi_arch_read_counter(uint32_t idx)
{
	uint64_t v = 0;
	switch (idx) {
		PMCFI_EVCNTR(0)
		PMCFI_EVCNTR(1)
		PMCFI_EVCNTR(2)
		PMCFI_EVCNTR(3)
		PMCFI_EVCNTR(4)
		PMCFI_EVCNTR(5)
		PMCFI_EVCNTR(6)
		PMCFI_EVCNTR(7)
		PMCFI_EVCNTR(8)
		PMCFI_EVCNTR(9)
		PMCFI_EVCNTR(10)
		PMCFI_EVCNTR(11)
		PMCFI_EVCNTR(12)
		PMCFI_EVCNTR(13)
		PMCFI_EVCNTR(14)
		PMCFI_EVCNTR(15)
		PMCFI_EVCNTR(16)
		PMCFI_EVCNTR(17)
		PMCFI_EVCNTR(18)
		PMCFI_EVCNTR(19)
		PMCFI_EVCNTR(20)
		PMCFI_EVCNTR(21)
		PMCFI_EVCNTR(22)
		PMCFI_EVCNTR(23)
		PMCFI_EVCNTR(24)
		PMCFI_EVCNTR(25)
		PMCFI_EVCNTR(26)
		PMCFI_EVCNTR(27)
		PMCFI_EVCNTR(28)
		PMCFI_EVCNTR(29)
		PMCFI_EVCNTR(30)
	case 31: __asm__ volatile("mrs %0, pmccntr_el0" : "=r"(v)); break;
	default: break;
	}
	return v;
}
#undef PMCFI_EVCNTR
static inline uint64_t pmcfi_arch_timestamp(void)
{
	uint64_t v;
	__asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(v)::"memory");
	return v;
}
#else
#define PMCFI_ARCH_NAME "this architecture"
#define PMCFI_ARCH_USER_READ 0
#endif

/* 1 when the kernel is asked for user-space reads (rdpmc) of the hardware
 * events of a group. x86: always (the kernel decides, /sys/.../cpu/rdpmc).
 * arm64: only when kernel.perf_user_access is 1, and the events must ask
 * for it in attr.config1 (pmcfi_arch_user_read_attr). */
static inline int pmcfi_arch_user_read_wanted(void)
{
#if defined(__aarch64__)
	FILE *f = fopen("/proc/sys/kernel/perf_user_access", "r");
	int v = 0;
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v == 1;
#else
	return PMCFI_ARCH_USER_READ;
#endif
}

/* What attr a (a hardware event of the core PMU) must carry for user-space
 * reads; wide: also ask for a 64-bit counter (arm64 PMUv3.5; the caller
 * retries without when the kernel refuses). 0 when nothing is needed or the
 * event is of another kind; 1 when a was changed. */
static inline int pmcfi_arch_user_read_attr(struct perf_event_attr *a, int wide)
{
#if defined(__aarch64__)
	if (a->type != PERF_TYPE_HARDWARE && a->type != PERF_TYPE_HW_CACHE && a->type != PERF_TYPE_RAW)
		return 0;
	/* arch/arm64/kernel/perf_event.c: config1 bit 1 "rdpmc", bit 0 "long" */
	a->config1 |= 0x2u | (wide ? 0x1u : 0);
	return 1;
#else
	(void)a;
	(void)wide;
	return 0;
#endif
}

/* imix decodes x86-64 machine code (Zydis): NULL where it works, else why not. */
static inline const char *pmcfi_arch_imix_unsupported(void)
{
#if defined(__x86_64__)
	return NULL;
#else
	return "instruction mixes decode x86-64 code only (Zydis); this is " PMCFI_ARCH_NAME;
#endif
}

#endif
