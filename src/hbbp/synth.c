/* Synthetic HBBP data for the tests: an x86-64 ELF with one function of known
 * control flow (a 3-trip inner loop with a 20-instruction block inside an
 * endless outer loop) and a perf.data whose EBS samples and LBR stacks come
 * from simulating it, so the exact basic-block execution counts are known. */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "hbbp/hbbp_impl.h"
#include "util/abi.h"
#include "util/internal.h"

#define VADDR 0x401000ull
#define FOFF 0x1000ull
#define PID 4242u

/* The code; offsets in comments. Blocks: B0 [0x00,2] B1 [0x06,3] B2 [0x0d,20]
 * B3 [0x49,2] B4 [0x4d,1]. */
static size_t build_code(uint8_t *c, int iv)
{
	size_t n = 0;
	const uint8_t b0[] = {0xb9, 3, 0, 0, 0, 0x90}; /* 0x00 mov ecx,3; nop */
	/* iv: 0x00 mov cl,3; 0x02 add rsi,1 (an induction register of the outer loop) */
	const uint8_t b0iv[] = {0xb1, 3, 0x48, 0x83, 0xc6, 0x01};
	const uint8_t b1[] = {0x01, 0xc8, 0xf6, 0xc1, 0x01, /* 0x06 add eax,ecx; test cl,1 */
			      0x74, 0x3c};                  /* 0x0b jz 0x49 */
	memcpy(c + n, iv ? b0iv : b0, sizeof(b0)), n += sizeof(b0);
	memcpy(c + n, b1, sizeof(b1)), n += sizeof(b1);
	for (int i = 0; i < 20; i++) { /* 0x0d add edx,1 x20 */
		c[n++] = 0x83, c[n++] = 0xc2, c[n++] = 0x01;
	}
	const uint8_t b3[] = {0xff, 0xc9, 0x75, 0xb9, /* 0x49 dec ecx; jnz 0x06 */
			      0xeb, 0xb1};            /* 0x4d jmp 0x00 */
	memcpy(c + n, b3, sizeof(b3)), n += sizeof(b3);
	c[n++] = 0x90; /* 0x4f padding */
	/* 0x50 synth_rep (never run by the simulation; for callgrind tests):
	 * mov ecx,8; rep stosb; ret */
	const uint8_t r[] = {0xb9, 8, 0, 0, 0, 0xf3, 0xaa, 0xc3};
	memcpy(c + n, r, sizeof(r)), n += sizeof(r);
	return n; /* 0x58 */
}

static const uint64_t blk_start[5] = {0x00, 0x06, 0x0d, 0x49, 0x4d};

/* The loop nest of hbbp_synth.nest: offset, bytes, cycles of each
 * instruction. Blocks: N0 [0x00,2] top loop head; N1 [0x09,3] a one-block
 * loop; N2 [0x11,1]; N3 [0x16,1] the nest's outer header; N4 [0x18,4] its
 * inner loop; N5 [0x25,2] its outer latch; N6 [0x2a,1]. */
#define NEST_K1 32 /* trips of N1 */
#define NEST_K2 24 /* trips of the nest's outer loop */
#define NEST_T 16  /* trips of its inner loop (edx += 16 up to 256) */
struct nest_ins {
	uint8_t off, len, cycles, code[6];
};
static const struct nest_ins nest_ins[] = {
	{0x00, 4, 1, {0x49, 0x83, 0xc0, 0x01}},                                 /* add r8,1 */
	{0x04, 5, 1, {0xbb, NEST_K1, 0, 0, 0}},                                 /* mov ebx,K1 */
	{0x09, 3, 6, {0x0f, 0xaf, 0xc0}},                                       /* imul eax,eax */
	{0x0c, 3, 1, {0x83, 0xeb, 0x01}},                                       /* sub ebx,1 */
	{0x0f, 2, 1, {0x75, 0xf8}},                                             /* jnz 0x09 */
	{0x11, 5, 1, {0xb9, NEST_K2, 0, 0, 0}},                                 /* mov ecx,K2 */
	{0x16, 2, 0, {0x31, 0xd2}},                                             /* xor edx,edx */
	{0x18, 3, 1, {0x83, 0xc2, 0x10}},                                       /* add edx,16 */
	{0x1b, 2, 2, {0x01, 0xd0}},                                             /* add eax,edx */
	{0x1d, 6, 1, {0x81, 0xfa, 16 * NEST_T & 0xff, 16 * NEST_T >> 8, 0, 0}}, /* cmp edx,256 */
	{0x23, 2, 0, {0x75, 0xf3}},                                             /* jnz 0x18 */
	{0x25, 3, 0, {0x83, 0xe9, 0x01}},                                       /* sub ecx,1 */
	{0x28, 2, 0, {0x75, 0xec}},                                             /* jnz 0x16 */
	{0x2a, 2, 1, {0xeb, 0xd4}},                                             /* jmp 0x00 */
};
static const uint64_t nest_blk[7] = {0x00, 0x09, 0x11, 0x16, 0x18, 0x25, 0x2a};
static const unsigned nest_len[7] = {2, 3, 1, 1, 4, 2, 1};

/* hbbp_synth.nest 2: a top loop (r8) around a loop of CALLS_K trips (ecx)
 * that calls a function at 0x50 (in synth_rep's place) writing eax and edx
 * only. Blocks: C0 [0x00,2] C1 [0x09,1] (the call) C2 [0x0e,2] C3 [0x13,1]
 * and the callee's F [0x50,3]. */
#define CALLS_K 40
static const struct nest_ins calls_ins[] = {
	{0x00, 4, 1, {0x49, 0x83, 0xc0, 0x01}}, /* add r8,1 */
	{0x04, 5, 1, {0xb9, CALLS_K, 0, 0, 0}}, /* mov ecx,K */
	{0x09, 5, 1, {0xe8, 0x42, 0, 0, 0}},    /* call 0x50 */
	{0x0e, 3, 1, {0x83, 0xe9, 0x01}},       /* sub ecx,1 */
	{0x11, 2, 1, {0x75, 0xf6}},             /* jnz 0x09 */
	{0x13, 2, 1, {0xeb, 0xeb}},             /* jmp 0x00 */
	{0x50, 3, 6, {0x0f, 0xaf, 0xc0}},       /* imul eax,eax */
	{0x53, 3, 1, {0x83, 0xc2, 0x01}},       /* add edx,1 */
	{0x56, 1, 2, {0xc3}},                   /* ret */
};
static const uint64_t calls_blk[5] = {0x00, 0x09, 0x0e, 0x13, 0x50};
static const unsigned calls_len[5] = {2, 1, 2, 1, 3};

/* hbbp_synth.nest 3: a top loop (r8) around a loop nest over the rows of
 * a 2-D array: the outer loop (ecx, 24 trips; header and latch take no
 * cycles) moves the row start esi by 256 bytes, the inner one (edx += 16,
 * ROWS_T trips) starts at esi and stops at edi = esi + 256. Blocks: R0
 * [0x00,3] R1 [0x0b,2] R2 [0x13,4] R3 [0x1c,3] R4 [0x27,1]. */
#define ROWS_K 24
#define ROWS_T 16
static const struct nest_ins rows_ins[] = {
	{0x00, 4, 1, {0x49, 0x83, 0xc0, 0x01}},                /* add r8,1 */
	{0x04, 5, 1, {0xb9, ROWS_K, 0, 0, 0}},                 /* mov ecx,K */
	{0x09, 2, 1, {0x31, 0xf6}},                            /* xor esi,esi */
	{0x0b, 2, 0, {0x89, 0xf2}},                            /* mov edx,esi */
	{0x0d, 6, 0, {0x8d, 0xbe, 0, 16 * ROWS_T >> 8, 0, 0}}, /* lea edi,[rsi+256] */
	{0x13, 3, 1, {0x83, 0xc2, 0x10}},                      /* add edx,16 */
	{0x16, 2, 2, {0x01, 0xd0}},                            /* add eax,edx */
	{0x18, 2, 1, {0x39, 0xfa}},                            /* cmp edx,edi */
	{0x1a, 2, 0, {0x75, 0xf7}},                            /* jnz 0x13 */
	{0x1c, 6, 0, {0x81, 0xc6, 0, 16 * ROWS_T >> 8, 0, 0}}, /* add esi,256 */
	{0x22, 3, 0, {0x83, 0xe9, 0x01}},                      /* sub ecx,1 */
	{0x25, 2, 0, {0x75, 0xe4}},                            /* jnz 0x0b */
	{0x27, 2, 1, {0xeb, 0xd7}},                            /* jmp 0x00 */
};
static const uint64_t rows_blk[5] = {0x00, 0x0b, 0x13, 0x1c, 0x27};
static const unsigned rows_len[5] = {3, 2, 4, 3, 1};

/* hbbp_synth.nest 4: a top loop (r8) with a data-dependent two-way branch
 * whose taken arm is one instruction, as gcc lays out `if (x & 1) s += 3;
 * else ...`: A0 [0x00,4] the head and branch; A1 [0x0e,4] the fall-through
 * arm, which jumps to the join; A2 [0x17,1] the taken arm, which falls into
 * it; A3 [0x1a,4] the join. The branch goes either way with probability 1/2
 * (a pseudo-random bit); a mispredict (a 1-bit predictor: the outcome
 * differs from the last) costs ARMS_PENALTY cycles on the first instruction
 * of the arm, and every sample is taken at the instruction after the one
 * that occupies the sampled cycle (skid), as a timer interrupt is. The
 * branch is fused with its test (no cycle of its own), so no sample falls
 * on the first instruction of an arm. */
#define ARMS_PENALTY 12
static const struct nest_ins arms_ins[] = {
	{0x00, 4, 1, {0x49, 0x83, 0xc0, 0x01}},       /* add r8,1 */
	{0x04, 3, 3, {0x0f, 0xaf, 0xc0}},             /* imul eax,eax */
	{0x07, 5, 1, {0xa9, 0x01, 0x00, 0x00, 0x00}}, /* test eax,1 */
	{0x0c, 2, 0, {0x75, 0x09}},                   /* jnz 0x17 (fused with the test) */
	{0x0e, 2, 1, {0x89, 0xd1}},                   /* mov ecx,edx */
	{0x10, 3, 1, {0x83, 0xea, 0x01}},             /* sub edx,1 */
	{0x13, 2, 1, {0x31, 0xc1}},                   /* xor ecx,eax */
	{0x15, 2, 1, {0xeb, 0x03}},                   /* jmp 0x1a */
	{0x17, 3, 1, {0x83, 0xc2, 0x03}},             /* add edx,3 */
	{0x1a, 2, 1, {0x89, 0xc1}},                   /* mov ecx,eax */
	{0x1c, 3, 1, {0xc1, 0xe9, 0x08}},             /* shr ecx,8 */
	{0x1f, 2, 1, {0x01, 0xca}},                   /* add edx,ecx */
	{0x21, 2, 1, {0xeb, 0xdd}},                   /* jmp 0x00 */
};
static const uint64_t arms_blk[4] = {0x00, 0x0e, 0x17, 0x1a};
static const unsigned arms_len[4] = {4, 4, 1, 4};

/* hbbp_synth.nest 5: the same loop with a taken arm of three instructions
 * (B0 [0x00,4] B1 [0x0e,4] B2 [0x17,3] B3 [0x20,4]), never taken. */
static const struct nest_ins arms3_ins[] = {
	{0x00, 4, 1, {0x49, 0x83, 0xc0, 0x01}},       /* add r8,1 */
	{0x04, 3, 3, {0x0f, 0xaf, 0xc0}},             /* imul eax,eax */
	{0x07, 5, 1, {0xa9, 0x01, 0x00, 0x00, 0x00}}, /* test eax,1 */
	{0x0c, 2, 0, {0x75, 0x09}},                   /* jnz 0x17 (fused with the test) */
	{0x0e, 2, 1, {0x89, 0xd1}},                   /* mov ecx,edx */
	{0x10, 3, 1, {0x83, 0xea, 0x01}},             /* sub edx,1 */
	{0x13, 2, 1, {0x31, 0xc1}},                   /* xor ecx,eax */
	{0x15, 2, 1, {0xeb, 0x09}},                   /* jmp 0x20 */
	{0x17, 3, 1, {0x83, 0xc2, 0x03}},             /* add edx,3 */
	{0x1a, 3, 1, {0x83, 0xc1, 0x01}},             /* add ecx,1 */
	{0x1d, 3, 1, {0x83, 0xc2, 0x01}},             /* add edx,1 */
	{0x20, 2, 1, {0x89, 0xc1}},                   /* mov ecx,eax */
	{0x22, 3, 1, {0xc1, 0xe9, 0x08}},             /* shr ecx,8 */
	{0x25, 2, 1, {0x01, 0xca}},                   /* add edx,ecx */
	{0x27, 2, 1, {0xeb, 0xd7}},                   /* jmp 0x00 */
};
static const uint64_t arms3_blk[4] = {0x00, 0x0e, 0x17, 0x20};
static const unsigned arms3_len[4] = {4, 4, 3, 4};

/* hbbp_synth.nest 6: a top loop (r8) around a loop of CLOOP_K trips (ebx,
 * callee-saved) that calls a function at 0x50 whose own short loop runs
 * CLOOP_T trips (edx from 0, written by the callee only). Blocks: L0
 * [0x00,2] L1 [0x09,1] (the call) L2 [0x0e,2] L3 [0x13,1]; the callee's
 * F0 [0x50,1], F1 [0x52,3] (its loop), F2 [0x5a,1]. Consecutive samples in
 * F1 almost always fall in different calls (an instance is 12 cycles). */
#define CLOOP_K 40
#define CLOOP_T 3
static const struct nest_ins cloop_ins[] = {
	{0x00, 4, 1, {0x49, 0x83, 0xc0, 0x01}}, /* add r8,1 */
	{0x04, 5, 1, {0xbb, CLOOP_K, 0, 0, 0}}, /* mov ebx,K */
	{0x09, 5, 1, {0xe8, 0x42, 0, 0, 0}},    /* call 0x50 */
	{0x0e, 3, 24, {0x83, 0xeb, 0x01}},      /* sub ebx,1 (waits 24 cycles) */
	{0x11, 2, 1, {0x75, 0xf6}},             /* jnz 0x09 */
	{0x13, 2, 1, {0xeb, 0xeb}},             /* jmp 0x00 */
	{0x50, 2, 1, {0x31, 0xd2}},             /* xor edx,edx */
	{0x52, 3, 2, {0x83, 0xc2, 0x01}},       /* add edx,1 */
	{0x55, 3, 1, {0x83, 0xfa, CLOOP_T}},    /* cmp edx,T */
	{0x58, 2, 1, {0x75, 0xf8}},             /* jnz 0x52 */
	{0x5a, 1, 2, {0xc3}},                   /* ret */
};
static const uint64_t cloop_blk[7] = {0x00, 0x09, 0x0e, 0x13, 0x50, 0x52, 0x5a};
static const unsigned cloop_len[7] = {2, 1, 2, 1, 1, 3, 1};

/* hbbp_synth.nest 7: a pointer chase without induction registers: S0
 * [0x00,3] loads rdx from [rdx] and leaves on null (every 8th load); S1
 * [0x08,2] compares it and loops, its compare waiting CHASE_WAIT cycles for
 * the load (a miss); S2 [0x0d,1] the list's end, a return (the simulated
 * caller calls again at once). S1 runs 7/8 as often as S0. */
#define CHASE_WAIT 40
static const struct nest_ins chase_ins[] = {
	{0x00, 3, 1, {0x48, 0x8b, 0x12}},          /* mov rdx,[rdx] */
	{0x03, 3, 1, {0x48, 0x85, 0xd2}},          /* test rdx,rdx */
	{0x06, 2, 0, {0x74, 0x05}},                /* je 0x0d (fused) */
	{0x08, 3, CHASE_WAIT, {0x48, 0x39, 0xca}}, /* cmp rdx,rcx (waits for the load) */
	{0x0b, 2, 1, {0x75, 0xf3}},                /* jne 0x00 */
	{0x0d, 1, 1, {0xc3}},                      /* ret (called again) */
};
static const uint64_t chase_blk[3] = {0x00, 0x08, 0x0d};
static const unsigned chase_len[3] = {3, 2, 1};

/* The nest programs by hbbp_synth.nest (1 to 7): code, blocks. */
struct nest_prog {
	const struct nest_ins *ins;
	size_t nins;
	const uint64_t *blk;
	const unsigned *len;
	unsigned nblocks;
};
#define NEST_PROG(i, b, l)                                                  \
	{                                                                   \
		i, sizeof(i) / sizeof(i[0]), b, l, sizeof(b) / sizeof(b[0]) \
	}
static const struct nest_prog nest_progs[] = {
	{0},
	NEST_PROG(nest_ins, nest_blk, nest_len),
	NEST_PROG(calls_ins, calls_blk, calls_len),
	NEST_PROG(rows_ins, rows_blk, rows_len),
	NEST_PROG(arms_ins, arms_blk, arms_len),
	NEST_PROG(arms3_ins, arms3_blk, arms3_len),
	NEST_PROG(cloop_ins, cloop_blk, cloop_len),
	NEST_PROG(chase_ins, chase_blk, chase_len),
};
#define NEST_PROGS (sizeof(nest_progs) / sizeof(nest_progs[0]))

static size_t build_nest(uint8_t *c, int variant)
{
	const struct nest_prog *np = &nest_progs[variant];
	size_t n = variant == 6 ? 0x5b : 0x58;
	memset(c, 0x90, n); /* padding */
	for (size_t i = 0; i < np->nins; i++)
		memcpy(c + np->ins[i].off, np->ins[i].code, np->ins[i].len);
	if (variant == 6)
		return n;
	if (variant != 2) {
		const uint8_t r[] = {0xb9, 8, 0, 0, 0, 0xf3, 0xaa, 0xc3};
		memcpy(c + 0x50, r, sizeof(r));
	}
	return 0x58;
}

unsigned pmcfi_hbbp_synth_nest_cycles(uint64_t off)
{
	for (size_t i = 0; i < sizeof(nest_ins) / sizeof(nest_ins[0]); i++)
		if (nest_ins[i].off == off)
			return nest_ins[i].cycles;
	return 0;
}

unsigned pmcfi_hbbp_synth_cycles(uint64_t off)
{
	switch (off) {
	case 0x00: return 3; /* mov ecx,3 */
	case 0x06: return 7; /* add eax,ecx */
	case 0x0b: return 2; /* jz */
	case 0x49: return 5; /* dec ecx */
	case 0x4d: return 4; /* jmp */
	default: return 1;
	}
}
static const unsigned blk_len[5] = {2, 3, 20, 2, 1};

static int write_elf(const char *path, const uint8_t *code, size_t ncode)
{
	static const char strtab[] = "\0synth_loop\0synth_rep";
	static const char shstr[] = "\0.text\0.symtab\0.strtab\0.shstrtab";
	size_t off_sym = (FOFF + ncode + 7) & ~7ull;
	size_t off_str = off_sym + 3 * sizeof(Elf64_Sym);
	size_t off_shs = off_str + sizeof(strtab);
	size_t off_sh = (off_shs + sizeof(shstr) + 7) & ~7ull;
	size_t total = off_sh + 5 * sizeof(Elf64_Shdr);
	uint8_t *b = calloc(1, total);
	if (!b)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	Elf64_Ehdr *eh = (Elf64_Ehdr *)b;
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_EXEC;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_entry = VADDR;
	eh->e_phoff = sizeof(Elf64_Ehdr);
	eh->e_shoff = off_sh;
	eh->e_ehsize = sizeof(Elf64_Ehdr);
	eh->e_phentsize = sizeof(Elf64_Phdr);
	eh->e_phnum = 1;
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_shnum = 5;
	eh->e_shstrndx = 4;
	Elf64_Phdr ph = {PT_LOAD, PF_R | PF_X, FOFF, VADDR, VADDR, ncode, ncode, 0x1000};
	memcpy(b + eh->e_phoff, &ph, sizeof(ph));
	memcpy(b + FOFF, code, ncode);
	Elf64_Sym sym[3] = {{0},
			    {1, ELF64_ST_INFO(STB_GLOBAL, STT_FUNC), 0, 1, VADDR, 0x4f},
			    {12, ELF64_ST_INFO(STB_GLOBAL, STT_FUNC), 0, 1, VADDR + 0x50, ncode - 0x50}};
	memcpy(b + off_sym, sym, sizeof(sym));
	memcpy(b + off_str, strtab, sizeof(strtab));
	memcpy(b + off_shs, shstr, sizeof(shstr));
	Elf64_Shdr sh[5] = {{0}};
	sh[1] = (Elf64_Shdr){1, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, VADDR, FOFF, ncode, 0, 0, 16, 0};
	sh[2] = (Elf64_Shdr){7, SHT_SYMTAB, 0, 0, off_sym, sizeof(sym), 3, 1, 8, sizeof(Elf64_Sym)};
	sh[3] = (Elf64_Shdr){15, SHT_STRTAB, 0, 0, off_str, sizeof(strtab), 0, 0, 1, 0};
	sh[4] = (Elf64_Shdr){23, SHT_STRTAB, 0, 0, off_shs, sizeof(shstr), 0, 0, 1, 0};
	memcpy(b + off_sh, sh, sizeof(sh));
	FILE *f = fopen(path, "wb");
	int ok = f && fwrite(b, 1, total, f) == total;
	if (f && fclose(f) != 0)
		ok = 0;
	free(b);
	return ok ? 0 : pmcfi_fail(-EIO, "cannot write %s", path);
}

/* A growing byte buffer. */
struct buf {
	uint8_t *p;
	size_t n, cap;
	int oom;
};

static void put(struct buf *b, const void *d, size_t n)
{
	if (b->oom)
		return;
	if (pmcfi_grow((void **)&b->p, &b->cap, b->n + n < 4096 ? 4096 : b->n + n, 1)) {
		b->oom = 1;
		return;
	}
	memcpy(b->p + b->n, d, n);
	b->n += n;
}
static void put64(struct buf *b, uint64_t v) { put(b, &v, 8); }
static void put32(struct buf *b, uint32_t v) { put(b, &v, 4); }
static void put16(struct buf *b, uint16_t v) { put(b, &v, 2); }

static void rec_header(struct buf *b, uint32_t type, uint16_t misc, size_t size)
{
	put32(b, type);
	put16(b, misc);
	put16(b, (uint16_t)size);
}

enum { ST = (1u << 16) | (1u << 0) | (1u << 1) | (1u << 2) | (1u << 6) };

static void attr_bytes(uint8_t *a, uint32_t type, uint64_t config, uint64_t period, uint64_t sample_type,
		       uint64_t bst, int precise)
{
	memset(a, 0, 128);
	uint32_t size = 128;
	uint64_t flags =
		(1ull << 18) | ((uint64_t)precise << 15) | (1ull << 5); /* sample_id_all, exclude_kernel */
	memcpy(a, &type, 4);
	memcpy(a + 4, &size, 4);
	memcpy(a + 8, &config, 8);
	memcpy(a + 16, &period, 8);
	memcpy(a + 24, &sample_type, 8);
	memcpy(a + 40, &flags, 8);
	memcpy(a + 72, &bst, 8);
}

/* DIR/ref/callgrind.out with the exact per-instruction counts (a reference
 * folder for `imix compare` and `imix train`). */
static int write_reference(const char *dir, const struct pmcfi_hbbp_synth *s)
{
	char p[600];
	snprintf(p, sizeof(p), "%s/ref", dir);
	if (mkdir(p, 0755) != 0 && errno != EEXIST)
		return pmcfi_fail(-errno, "cannot create %s: %s", p, strerror(errno));
	snprintf(p, sizeof(p), "%s/ref/callgrind.out", dir);
	FILE *f = fopen(p, "w");
	if (!f)
		return pmcfi_fail(-errno, "cannot write %s: %s", p, strerror(errno));
	fprintf(f,
		"# exact counts of the synthetic program\nversion: 1\ncreator: pmcfuse imix synth\n"
		"positions: instr\nevents: Ir\nob=(1) %s\nfn=(1) synth_loop\n",
		s->elf_path);
	static const uint8_t lens[] = {5, 1, 2, 3, 2};
	for (int b = 0; b < 5; b++) {
		uint64_t a = VADDR + blk_start[b];
		for (unsigned k = 0; k < blk_len[b]; k++) {
			fprintf(f, "0x%llx %.0f\n", (unsigned long long)a, s->block_count[b]);
			a += b == 0 ? lens[k] : b == 1 ? lens[2 + k] : 2 + (b == 2);
		}
	}
	return fclose(f) == 0 ? 0 : pmcfi_fail(-EIO, "cannot write %s", p);
}

struct sim {
	uint64_t ecx, rsi, ins, taken;
	uint64_t ring_from[64], ring_to[64];
	unsigned nring, head;
};

static void sample_at(struct buf *d, struct pmcfi_hbbp_synth *s, uint64_t *t, uint8_t off,
		      const uint64_t *regs)
{
	rec_header(d, 9, 2, 8 + 8 * 5 + 8 + 8 * 6);
	put64(d, 100), put64(d, s->load_addr + off);
	put32(d, PID), put32(d, PID), put64(d, (*t)++), put64(d, 100);
	put64(d, 2);
	for (int i = 0; i < 6; i++)
		put64(d, regs[i]);
}

/* Runs hbbp_synth.nest 4 or 5 for s->periods iterations of its loop. */
static void simulate_arms(struct buf *d, struct pmcfi_hbbp_synth *s, uint64_t *t)
{
	int three = s->nest == 5;
	const struct nest_ins *prog = three ? arms3_ins : arms_ins;
	const uint64_t *blk = three ? arms3_blk : arms_blk;
	size_t nins =
		three ? sizeof(arms3_ins) / sizeof(arms3_ins[0]) : sizeof(arms_ins) / sizeof(arms_ins[0]);
	size_t arm = 8, join = three ? 11 : 9; /* the taken arm's and the join's first instruction */
	uint64_t r[6] = {0}, cyc = 0;          /* bx, cx, dx, si, di, r8 */
	uint32_t x = 12345;
	int last = 0, miss = 0;
	size_t pc = 0;
	for (unsigned top = 0;;) {
		uint8_t off = prog[pc].off;
		if (off == 0x00 && top++ == s->periods)
			break;
		for (unsigned b = 0; b < s->nblocks; b++)
			if (blk[b] == off)
				s->block_count[b] += 1;
		unsigned cycles = prog[pc].cycles + (miss ? ARMS_PENALTY : 0);
		miss = 0;
		size_t next = pc + 1;
		if (off == 0x00) {
			r[5]++;
		} else if (off == 0x0c) { /* the branch: a pseudo-random bit, or never (5) */
			x = x * 1103515245u + 12345u;
			int taken = !three && ((x >> 16) & 1);
			miss = taken != last;
			last = taken;
			next = taken ? arm : pc + 1;
		} else if (off == 0x15) { /* the fall-through arm's jmp */
			next = join;
		} else if (pc + 1 == nins) {
			next = 0;
		}
		/* the sampled IP is the next instruction, with the registers
		 * from before it runs */
		for (unsigned k = 0; k < cycles; k++)
			if (!(++cyc % s->ebs_period))
				sample_at(d, s, t, prog[next].off, r);
		pc = next;
	}
}

/* Runs the loop nest (hbbp_synth.nest) for s->periods iterations of its top
 * loop: a cpu-clock sample every ebs_period cycles on the instruction that
 * occupies that cycle, with the registers from before it. */
static void simulate_nest(struct buf *d, struct pmcfi_hbbp_synth *s, uint64_t *t)
{
	uint64_t r[6] = {0}; /* bx, cx, dx, si, di, r8 */
	uint64_t cyc = 0;
	int calls = s->nest == 2, rows = s->nest == 3, cloop = s->nest == 6, chase = s->nest == 7;
	uint32_t x = 12345;
	const struct nest_prog *np = &nest_progs[s->nest];
	const struct nest_ins *prog = np->ins;
	const uint64_t *blk = np->blk;
	size_t pc = 0, ret = 0, nins = np->nins;
	unsigned top = 0;
	for (;;) {
		uint8_t off = prog[pc].off;
		if (off == 0x00 && top++ == s->periods)
			break;
		for (unsigned b = 0; b < s->nblocks; b++)
			if (blk[b] == off)
				s->block_count[b] += 1;
		uint64_t before[6] = {r[0], r[1], r[2], r[3], r[4], r[5]};
		for (unsigned k = 0; k < prog[pc].cycles; k++) {
			if (++cyc % s->ebs_period)
				continue;
			rec_header(d, 9, 2, 8 + 8 * 5 + 8 + 8 * 6);
			put64(d, 100), put64(d, s->load_addr + off);
			put32(d, PID), put32(d, PID), put64(d, (*t)++), put64(d, 100);
			put64(d, 2);
			for (int i = 0; i < 6; i++)
				put64(d, before[i]);
		}
		size_t next = pc + 1;
		if (chase) {
			switch (off) {
			case 0x00: /* a list of 8 nodes: null every 8th load */
				x = x * 1103515245u + 12345u, r[2] = ++r[3] % 8 ? 0x10000u | x : 0;
				break;
			case 0x06: next = r[2] ? pc + 1 : 5; break;
			case 0x0b: next = r[2] != r[1] ? 0 : pc + 1; break;
			case 0x0d: next = 0; break;
			default: break;
			}
			pc = next;
			continue;
		}
		if (cloop) {
			switch (off) {
			case 0x00: r[5]++; break;
			case 0x04: r[0] = CLOOP_K; break;
			case 0x09: ret = pc + 1, next = 6; break;
			case 0x0e: r[0] = (uint32_t)(r[0] - 1); break;
			case 0x11: next = r[0] ? 2 : pc + 1; break;
			case 0x13: next = 0; break;
			case 0x50: r[2] = 0; break;
			case 0x52: r[2] = (uint32_t)(r[2] + 1); break;
			case 0x58: next = r[2] != CLOOP_T ? 7 : pc + 1; break;
			case 0x5a: next = ret; break;
			default: break;
			}
			pc = next;
			continue;
		}
		if (rows) {
			switch (off) {
			case 0x00: r[5]++; break;
			case 0x04: r[1] = ROWS_K; break;
			case 0x09: r[3] = 0; break;
			case 0x0b: r[2] = r[3]; break;
			case 0x0d: r[4] = (uint32_t)(r[3] + 16 * ROWS_T); break;
			case 0x13: r[2] = (uint32_t)(r[2] + 16); break;
			case 0x1a: next = r[2] != r[4] ? 5 : pc + 1; break;
			case 0x1c: r[3] = (uint32_t)(r[3] + 16 * ROWS_T); break;
			case 0x22: r[1] = (uint32_t)(r[1] - 1); break;
			case 0x25: next = r[1] ? 3 : pc + 1; break;
			case 0x27: next = 0; break;
			default: break;
			}
			pc = next;
			continue;
		}
		if (calls) {
			switch (off) {
			case 0x00: r[5]++; break;
			case 0x04: r[1] = CALLS_K; break;
			case 0x09: ret = pc + 1, next = 6; break;
			case 0x0e: r[1] = (uint32_t)(r[1] - 1); break;
			case 0x11: next = r[1] ? 2 : pc + 1; break;
			case 0x13: next = 0; break;
			case 0x53: r[2] = (uint32_t)(r[2] + 1); break;
			case 0x56: next = ret; break;
			default: break;
			}
			pc = next;
			continue;
		}
		switch (off) {
		case 0x00: r[5]++; break;
		case 0x04: r[0] = NEST_K1; break;
		case 0x0c: r[0] = (uint32_t)(r[0] - 1); break;
		case 0x0f: next = r[0] ? 2 : pc + 1; break;
		case 0x11: r[1] = NEST_K2; break;
		case 0x16: r[2] = 0; break;
		case 0x18: r[2] += 16; break;
		case 0x23: next = r[2] != 16 * NEST_T ? 7 : pc + 1; break;
		case 0x25: r[1] = (uint32_t)(r[1] - 1); break;
		case 0x28: next = r[1] ? 6 : pc + 1; break;
		case 0x2a: next = 0; break;
		default: break;
		}
		pc = next < nins ? next : 0;
	}
}

/* The records that open the synthetic perf.data: comm, fork and the mmap
 * of the ELF file. */
static void write_task_records(struct buf *d, const struct pmcfi_hbbp_synth *s)
{
	const char *comm = "synth";
	rec_header(d, 3, 0, 8 + 8 + 8);
	put32(d, PID), put32(d, PID);
	put(d, comm, 6), put16(d, 0);
	rec_header(d, 7, 0, 8 + 24);
	put32(d, PID), put32(d, 1), put32(d, PID), put32(d, 1), put64(d, 1);
	size_t fl = strlen(s->elf_path) + 1, flp = (fl + 7) & ~(size_t)7;
	rec_header(d, 10, 2, 8 + 64 + flp);
	put32(d, PID), put32(d, PID);
	put64(d, s->load_addr), put64(d, 0x1000), put64(d, FOFF);
	put64(d, 0), put64(d, 0), put64(d, 0), put32(d, 5), put32(d, 2);
	put(d, s->elf_path, fl);
	for (size_t k = fl; k < flp; k++)
		put(d, "", 1);
}

/* One instruction of the first synthetic program at pc (offset) on m:
 * *next its fall-through, *target where it branches (UINT64_MAX: it does
 * not). */
static void step_code(const struct pmcfi_hbbp_synth *s, struct sim *m, uint64_t pc, uint64_t *next_out,
		      uint64_t *target_out)
{
	uint64_t next = pc, target = UINT64_MAX;
	switch (pc) {
	case 0x00:
		m->ecx = 3;
		next = s->iv ? 0x02 : 0x05;
		break;
	case 0x02:
		m->rsi++;
		next = 0x06;
		break;
	case 0x05: next = 0x06; break;
	case 0x06: next = 0x08; break;
	case 0x08: next = 0x0b; break;
	case 0x0b:
		next = 0x0d;
		if (!(m->ecx & 1))
			target = 0x49;
		break;
	case 0x49:
		m->ecx--;
		next = 0x4b;
		break;
	case 0x4b:
		next = 0x4d;
		if (m->ecx)
			target = 0x06;
		break;
	case 0x4d:
		next = 0x4f;
		target = 0x00;
		break;
	default: next = pc + 3; break; /* add edx,1 */
	}
	*next_out = next;
	*target_out = target;
}

/* The EBS samples that fall on the instruction at pc (measured periods
 * only): instructions, or cycles in timer mode (a time sample falls on the
 * instruction that occupies that cycle); ecx0, rsi0: the registers before it. */
static void ebs_samples(struct buf *d, const struct pmcfi_hbbp_synth *s, struct sim *m, uint64_t pc,
			int measure, uint64_t *t, uint64_t ecx0, uint64_t rsi0)
{
	unsigned ticks = s->timer ? pmcfi_hbbp_synth_cycles(pc) : 1, hits = 0;
	for (unsigned k = 0; k < ticks; k++)
		hits += ++m->ins % s->ebs_period == 0;
	for (; measure && hits; hits--) {
		/* EBS sample on the retiring instruction */
		rec_header(d, 9, 2,
			   8 + 8 * 5 + (s->ebs_only ? 0 : 8 + (s->hw_idx ? 8 : 0)) + (s->iv ? 24 : 0));
		put64(d, 100), put64(d, s->load_addr + pc);
		put32(d, PID), put32(d, PID), put64(d, (*t)++), put64(d, 100);
		if (s->iv) /* user registers: abi 2 (64-bit), CX, SI */
			put64(d, 2), put64(d, ecx0), put64(d, rsi0);
		if (!s->ebs_only) {
			put64(d, 0); /* empty branch stack (LBR of the EBS event is discarded) */
			if (s->hw_idx)
				put64(d, m->head);
		}
	}
}

/* A taken branch at pc to target into the LBR ring, and an LBR sample
 * every lbr_period taken branches (measured periods only). */
static void lbr_taken(struct buf *d, const struct pmcfi_hbbp_synth *s, struct sim *m, unsigned depth,
		      uint64_t pc, uint64_t target, int measure, uint64_t *t)
{
	m->ring_from[m->head] = s->load_addr + pc;
	m->ring_to[m->head] = s->load_addr + target;
	m->head = (m->head + 1) % depth;
	if (m->nring < depth)
		m->nring++;
	m->taken++;
	if (measure && !s->ebs_only && m->taken % s->lbr_period == 0) {
		size_t sz = 8 + 8 * 5 + 8 + (s->hw_idx ? 8 : 0) + 24 * (size_t)m->nring;
		rec_header(d, 9, 2, sz);
		put64(d, 200), put64(d, s->load_addr + pc);
		put32(d, PID), put32(d, PID), put64(d, (*t)++), put64(d, 200);
		put64(d, m->nring);
		if (s->hw_idx)
			put64(d, m->head);
		for (unsigned k = 0; k < m->nring; k++) { /* newest first */
			unsigned at = (m->head + depth - 1 - k) % depth;
			put64(d, m->ring_from[at]), put64(d, m->ring_to[at]), put64(d, 0);
		}
	}
}

/* The first synthetic program (no nest), simulated: warm-up, then
 * `periods` iterations of the outer loop with their samples. */
static void simulate_code(struct buf *d, struct pmcfi_hbbp_synth *s, unsigned depth, uint64_t *t)
{
	struct sim m = {0};
	uint64_t pc = 0;
	unsigned warm = depth / 4 + 2;
	for (unsigned per = 0; per < warm + s->periods; per++) {
		int measure = per >= warm;
		if (per == warm)
			m.ins = m.taken = 0;
		for (;;) {
			int blk = -1;
			for (int i = 0; i < 5; i++)
				if (pc == blk_start[i])
					blk = i;
			if (blk >= 0 && measure)
				s->block_count[blk] += 1;
			uint64_t next, target;
			/* a sample is taken before its IP's instruction runs: the
			 * registers it records are those before it */
			uint64_t ecx0 = m.ecx, rsi0 = m.rsi;
			step_code(s, &m, pc, &next, &target);
			ebs_samples(d, s, &m, pc, measure, t, ecx0, rsi0);
			if (target != UINT64_MAX) {
				lbr_taken(d, s, &m, depth, pc, target, measure, t);
				pc = target;
				if (target == 0x00)
					break;
			} else {
				pc = next;
			}
		}
	}
}

/* The file around the data records d: header, attrs, ids, data, feature
 * table, EVENT_DESC; into *f (and *e, the EVENT_DESC, freed by the caller). */
static void write_file(struct buf *f, struct buf *e, const struct buf *d, const struct pmcfi_hbbp_synth *s,
		       unsigned nattr, uint64_t st, uint64_t bst)
{
	size_t attr_size = 128 + 16;
	size_t off_attrs = 104, off_ids = off_attrs + nattr * attr_size;
	size_t off_data = off_ids + nattr * 8;
	put(f, "PERFILE2", 8);
	put64(f, 104), put64(f, attr_size);
	put64(f, off_attrs), put64(f, nattr * attr_size);
	put64(f, off_data), put64(f, d->n);
	put64(f, 0), put64(f, 0);
	put64(f, 1ull << 12), put64(f, 0), put64(f, 0), put64(f, 0);
	uint8_t a[128];
	static const char *const names[2] = {"inst_retired.prec_dist", "br_inst_retired.near_taken"};
	uint32_t ebs_type = s->timer ? 1 : 4; /* cpu-clock: PERF_TYPE_SOFTWARE, config 0 */
	uint64_t ebs_config = s->timer ? 0 : 0x1c0;
	for (unsigned i = 0; i < nattr; i++) {
		attr_bytes(a, i ? 4 : ebs_type, i ? 0x20c4 : ebs_config, i ? s->lbr_period : s->ebs_period,
			   st, s->ebs_only ? 0 : bst,
			   i          ? 1
			   : s->timer ? 0
				      : 3);
		if (s->iv || s->nest) { /* sample_regs_user: CX, SI; nest: BX, CX, DX, SI, DI, R8 */
			uint64_t regs = s->nest ? (1u << 1) | (1u << 2) | (1u << 3) | (1u << 4) | (1u << 5) |
							  (1u << 16)
						: (1u << 2) | (1u << 4);
			memcpy(a + 80, &regs, 8);
		}
		put(f, a, 128);
		put64(f, off_ids + 8 * i), put64(f, 8);
	}
	for (unsigned i = 0; i < nattr; i++)
		put64(f, 100 + 100 * i);
	put(f, d->p, d->n);
	size_t off_feat = f->n + 16;
	put32(e, nattr), put32(e, 128);
	for (unsigned i = 0; i < nattr; i++) {
		attr_bytes(a, i ? 4 : ebs_type, i ? 0x20c4 : ebs_config, 0, st, 0, 0);
		put(e, a, 128);
		put32(e, 1);
		uint8_t nm[64] = {0};
		const char *name = !i && s->timer ? "cpu-clock" : names[i];
		memcpy(nm, name, strlen(name));
		put32(e, 64), put(e, nm, 64);
		put64(e, 100 + 100 * i);
	}
	put64(f, off_feat), put64(f, e->n);
	put(f, e->p, e->n);
}

/* Writes the file's bytes to s->data_path. */
static int save_data(const struct pmcfi_hbbp_synth *s, const struct buf *f)
{
	FILE *fp = fopen(s->data_path, "wb");
	int ok = fp && fwrite(f->p, 1, f->n, fp) == f->n;
	if (fp && fclose(fp) != 0)
		ok = 0;
	if (!ok)
		return pmcfi_fail(-EIO, "cannot write %s", s->data_path);
	return 0;
}

int pmcfi_hbbp_synth_write(const char *dir, struct pmcfi_hbbp_synth *s)
{
	uint8_t code[128];
	if (s->iv || s->nest)
		s->timer = s->ebs_only = 1;
	if (s->nest && (s->iv || s->write_ref))
		return pmcfi_fail(PMCF_EINVAL, "synth: nest has no reference and its own registers");
	if (s->nest < 0 || (size_t)s->nest >= NEST_PROGS)
		return pmcfi_fail(PMCF_EINVAL, "synth: no nest program %d", s->nest);
	size_t ncode = s->nest ? build_nest(code, s->nest) : build_code(code, s->iv);
	unsigned depth = s->lbr_depth ? s->lbr_depth : 16;
	if (depth > 64 || depth < 2 || !s->ebs_period || (!s->ebs_only && !s->lbr_period))
		return pmcfi_fail(PMCF_EINVAL, "synth: bad parameters");
	snprintf(s->elf_path, sizeof(s->elf_path), "%s/synth.elf", dir);
	snprintf(s->data_path, sizeof(s->data_path), "%s/perf.data", dir);
	int rc = write_elf(s->elf_path, code, ncode);
	if (rc)
		return rc;
	const struct nest_prog *np = s->nest ? &nest_progs[s->nest] : NULL;
	s->nblocks = np ? np->nblocks : 5;
	s->load_addr = 0x7f0000001000ull;
	for (unsigned i = 0; i < s->nblocks; i++) {
		s->block_start[i] = VADDR + (np ? np->blk[i] : blk_start[i]);
		s->block_len[i] = np ? np->len[i] : blk_len[i];
		s->block_count[i] = 0;
	}
	unsigned nattr = s->ebs_only ? 1 : 2;
	uint64_t bst = (1ull << 3) | 1ull | (s->hw_idx ? (1ull << 17) : 0);
	uint64_t st = ST | (s->ebs_only ? 0 : (1u << 11)) | (s->iv || s->nest ? (1u << 12) : 0);
	struct buf d = {0};
	write_task_records(&d, s);
	/* simulate: warm-up, then sample */
	uint64_t t = 10;
	if (s->nest == 4 || s->nest == 5)
		simulate_arms(&d, s, &t);
	else if (s->nest)
		simulate_nest(&d, s, &t);
	else
		simulate_code(&d, s, depth, &t);
	rec_header(&d, 4, 0, 8 + 24);
	put32(&d, PID), put32(&d, 1), put32(&d, PID), put32(&d, 1), put64(&d, t);
	struct buf f = {0}, e = {0};
	write_file(&f, &e, &d, s, nattr, st, bst);
	rc = 0;
	if (d.oom || f.oom || e.oom) {
		rc = pmcfi_fail(PMCF_ENOMEM, "out of memory");
	} else {
		rc = save_data(s, &f);
	}
	free(d.p);
	free(f.p);
	free(e.p);
	if (!rc && s->write_ref)
		rc = write_reference(dir, s);
	return rc;
}

/* The first published pmcf_imix_synth_opts ends after timer. */
#define SYNTH_OPTS_ABI0 (offsetof(pmcf_imix_synth_opts, timer) + sizeof(int))

int pmcf_imix_synth_write(const char *dir, const pmcf_imix_synth_opts *opts, pmcf_imix_synth_block *blocks,
			  size_t cap, size_t *nblocks)
{
	pmcfi_clear_error();
	pmcf_imix_synth_opts o = PMCF_IMIX_SYNTH_OPTS_INIT;
	int rc = pmcfi_struct_in("pmcf_imix_synth_opts", &o, opts, SYNTH_OPTS_ABI0, sizeof(o));
	if (rc)
		return rc;
	if (!dir || (cap && !blocks) || !nblocks)
		return pmcfi_fail(PMCF_EINVAL, "pmcf_imix_synth_write: no folder or no block count");
	size_t stride;
	rc = pmcfi_struct_stride("pmcf_imix_synth_block", blocks, cap, sizeof(*blocks), sizeof(*blocks),
				 &stride);
	if (rc)
		return rc;
	struct pmcfi_hbbp_synth s = {.ebs_period = 11,
				     .lbr_period = 7,
				     .lbr_depth = 16,
				     .periods = 308,
				     .ebs_only = o.ebs_only || o.timer,
				     .write_ref = 1,
				     .timer = o.timer};
	if (o.timer) /* a cycle period coprime to the outer loop's 96 cycles */
		s.ebs_period = 7, s.periods = 7 * 44;
	rc = pmcfi_hbbp_synth_write(dir, &s);
	if (rc)
		return rc;
	for (unsigned i = 0; i < s.nblocks && i < cap; i++) {
		pmcf_imix_synth_block b = {sizeof(b), s.block_start[i], s.block_len[i], s.block_count[i]};
		memcpy((char *)blocks + i * stride, &b, sizeof(b));
	}
	*nblocks = s.nblocks;
	return 0;
}
