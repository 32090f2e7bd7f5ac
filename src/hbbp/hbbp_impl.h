/* Private to src/hbbp: static images (ELF text, symbols, disassembly, basic
 * blocks), the mix under construction, and the synthetic perf.data generator
 * used by the tests. */
#ifndef PMCF_HBBP_IMPL_H
#define PMCF_HBBP_IMPL_H
#include <stdint.h>
#include <stdio.h>
#include "pmcfuse/hbbp.h"

/* How imix reference runs callgrind (imix.json's "tool"); a reference
 * folder whose tool lacks --skip-plt=no counts every PLT call twice. */
#define PMCFI_REFERENCE_TOOL "callgrind --dump-instr=yes --skip-plt=no"
#define HBBP_DEFAULT_CUTOFF 18 /* §IV.B: LBR for blocks of 18 instructions or less */

enum { INS_CF = 1, INS_REP = 2, INS_BAD = 4 };

struct pmcfi_hbbp_ins {
	uint64_t addr;
	uint8_t len, flags;
	uint16_t mnem; /* index into the image's name table */
	uint16_t isa_ext, isa_set, cat;
	uint8_t packing; /* 0 NONE, 1 SCALAR, 2 PACKED */
	uint32_t block;  /* index of the block in the function */
};

struct pmcfi_hbbp_block {
	uint64_t start;
	uint32_t first, n; /* instructions [first, first + n) of the function */
};

/* A function (from a symbol) or a gap of an executable section without one. */
struct pmcfi_hbbp_func {
	char *name;
	uint64_t start, end;
	const uint8_t *bytes; /* end - start bytes */
	int decoded;
	struct pmcfi_hbbp_ins *ins;
	size_t nins;
	struct pmcfi_hbbp_block *blocks;
	size_t nblocks;
	/* accumulators of one analysis */
	double *ebs;                 /* per block: EBS sample weight */
	double *ebs_head;            /* per block: of it, samples at the block's first instruction */
	double *lbr;                 /* per instruction: LBR stream weight */
	double *ref;                 /* per instruction: reference count */
	uint64_t *oldest;            /* per block: times its branch was the oldest LBR entry */
	uint64_t *inlbr;             /* per block: times its branch appeared in any LBR entry */
	size_t boff;                 /* the time-to-count correction: first index of its blocks */
	struct pmcfi_hbbp_image *im; /* its image (set when decoded) */
};

struct pmcfi_hbbp_seg {
	uint64_t off, vaddr, filesz;
};

struct pmcfi_hbbp_image {
	char *path;
	int fd;
	void *elf;   /* Elf * */
	void *dwarf; /* Dwarf *, opened on demand */
	int dwarf_tried;
	struct pmcfi_hbbp_seg *segs;
	size_t nsegs;
	struct pmcfi_hbbp_func *funcs;
	size_t nfuncs;
	char **names; /* mnemonic names by id; built on demand */
	size_t nnames;
	int is_kernel;
	uint64_t kernel_text; /* address of _text (kernel images) */
};

/* Opens an x86-64 ELF file: segments, executable sections, functions (from
 * .symtab, else .dynsym, plus gaps). Disassembly is lazy. */
int pmcfi_hbbp_image_open(const char *path, struct pmcfi_hbbp_image **out);
void pmcfi_hbbp_image_free(struct pmcfi_hbbp_image *im);
/* File offset -> link-time address; 0 and -1 when outside every PT_LOAD. */
int pmcfi_hbbp_image_off2addr(const struct pmcfi_hbbp_image *im, uint64_t off, uint64_t *addr);
/* Function containing addr (decoded), or NULL. */
struct pmcfi_hbbp_func *pmcfi_hbbp_image_func(struct pmcfi_hbbp_image *im, uint64_t addr);
/* Function containing addr, not decoded here, or NULL. */
const struct pmcfi_hbbp_func *pmcfi_hbbp_image_func_at(const struct pmcfi_hbbp_image *im, uint64_t addr);
/* Index of the instruction that starts at (or contains) addr, or -1. */
long pmcfi_hbbp_func_ins(const struct pmcfi_hbbp_func *f, uint64_t addr);
/* Decodes one function: instructions, leaders, blocks; allocates accumulators. */
int pmcfi_hbbp_func_decode(struct pmcfi_hbbp_image *im, struct pmcfi_hbbp_func *f);
const char *pmcfi_hbbp_mnemonic(const struct pmcfi_hbbp_image *im, const struct pmcfi_hbbp_ins *in);
const char *pmcfi_hbbp_isa_ext(const struct pmcfi_hbbp_ins *in);
const char *pmcfi_hbbp_isa_set(const struct pmcfi_hbbp_ins *in);
const char *pmcfi_hbbp_category(const struct pmcfi_hbbp_ins *in);
const char *pmcfi_hbbp_packing(const struct pmcfi_hbbp_ins *in);
/* Source line of addr (libdw); 0 when unknown. *file is owned by the image. */
unsigned pmcfi_hbbp_image_line(struct pmcfi_hbbp_image *im, uint64_t addr, const char **file);

/* The mix under construction: images by path, the output tables. */
struct pmcf_imix {
	struct pmcfi_hbbp_image **images;
	size_t nimages, cap_images;
	char **missing; /* paths that could not be opened */
	size_t nmissing, cap_missing;
	pmcf_imix_ins *ins;
	size_t nins;
	pmcf_imix_block *blocks;
	size_t nblocks;
	pmcf_imix_stats st;
	int lines;
	uint64_t rate_clamped; /* units held to their loop's count (timecount.c) */
};
int pmcfi_hbbp_mix_new(const pmcf_imix_opts *o, pmcf_imix **out);
/* Image for a path, opened once; NULL (and remembered) when not readable. */
struct pmcfi_hbbp_image *pmcfi_hbbp_mix_image(pmcf_imix *m, const char *path);
/* Turns the accumulators into block and instruction tables. choose gives
 * a block's count (and its source, the EBS/LBR estimates, the bias flag);
 * with per_ins the instructions take their own f->ref counts instead. */
typedef double (*pmcfi_hbbp_choose_fn)(void *ctx, const struct pmcfi_hbbp_func *f, size_t b, int *src,
				       double *ebs, double *lbr, int *bias);
int pmcfi_hbbp_mix_emit(pmcf_imix *m, pmcfi_hbbp_choose_fn choose, void *ctx, int per_ins);
/* Walks the decoded functions of every image: start with *pos = 0; returns
 * NULL at the end, and sets *im to the function's image. */
struct pmcfi_hbbp_func *pmcfi_hbbp_mix_next_func(pmcf_imix *m, size_t *pos, struct pmcfi_hbbp_image **im);

/* Cost model of the time-to-count correction (cost.c): llvm-mca and the
 * -mcpu naming the recording CPU. */
struct pmcfi_hbbp_cost_model {
	int ok;        /* the correction can be made */
	char mca[512]; /* llvm-mca path */
	char mcpu[64];
	char cpu[96];       /* "AuthenticAMD family 0x1a model 0x2" */
	char cpu_note[128]; /* the CPU's own LLVM name when an older model stands in */
	char note[768];     /* !ok: why (fits the longest: mca, cpu and names whole) */
};
/* Finds llvm-mca (mca, else $PMCF_LLVM_MCA, else PATH) and the -mcpu for
 * cpuid (perf's "Vendor,family,model,stepping"; NULL or "": this host) unless
 * mcpu is given. cm->ok says whether it can be used, cm->note why not.
 * Returns 0, or a negative error for failures of the machine (temp files). */
int pmcfi_hbbp_cost_model_find(const char *mca, const char *mcpu, const char *cpuid,
			       struct pmcfi_hbbp_cost_model *cm);
/* One line for report headers: the model used, or why there is none.
 * Returns 0, or PMCF_EINVAL when it does not fit out[n] (never cut). */
int pmcfi_hbbp_cost_model_describe(const struct pmcfi_hbbp_cost_model *cm, char *out, size_t n);
/* Cycles per execution of each block (each its own llvm-mca code region,
 * run as a loop); 0 where llvm-mca gave none. Instructions llvm-mca cannot
 * assemble are left out of their block. */
int pmcfi_hbbp_cost_blocks(const struct pmcfi_hbbp_cost_model *cm, const pmcf_imix_code_block *blocks,
			   size_t n, double *cycles);
/* The time-to-count correction (timecount.c, its steps in tc_*.c): moves each function's f->ebs
 * from sample weight to weight x length / cycles per execution, scaled to the
 * same total, after the skid model; fills the correction fields of m->st. */
struct pmcfi_hbbp_tsample { /* a time sample with user registers (PMCF_IMIX_RATE_IV) */
	struct pmcfi_hbbp_func *f;
	uint32_t ins; /* instruction index in f */
	uint32_t tid;
	uint64_t time;
	double w; /* its period: the thread's time since its previous sample */
	uint64_t mask;
	const uint64_t *regs;
};
int pmcfi_hbbp_time_to_count(pmcf_imix *m, const pmcf_imix_opts *o, const char *cpuid,
			     struct pmcfi_hbbp_tsample *ts, size_t nts);
/* Pointer-chasing loads in x86-64 code (PMCF_IMIX_COST_REGIONS_CHASE): loads
 * into a register that is the base or index of their own address (mov
 * rdx,[rdi+rdx*8]), so each waits for the previous one. */
unsigned pmcfi_hbbp_chase_loads(const uint8_t *code, size_t n);

/* Synthetic data with a known control flow (tests): writes DIR/synth.elf
 * (x86-64 code of one function, loop with a long and short blocks) and
 * DIR/perf.data with an EBS event (instructions, period ebs_period) and an
 * LBR event (taken branches, period lbr_period, stacks of lbr_depth) over
 * `periods` iterations of the outer loop; fills the exact BBEC per block. */
struct pmcfi_hbbp_synth {
	unsigned ebs_period, lbr_period, lbr_depth, periods;
	int hw_idx;    /* write hw_idx in branch stacks */
	int ebs_only;  /* one attribute, no branch stacks */
	int write_ref; /* also DIR/ref/callgrind.out with the exact counts */
	int timer;     /* EBS on cpu-clock: ebs_period counts cycles of
				pmcfi_hbbp_synth_cycles, not instructions */
	int iv;        /* timer, and the outer loop counts in rsi (mov cl,3; add rsi,1
		   in block 0); samples carry the user registers cx and si */
	int nest;      /* timer with user registers on another program
		   (pmcfi_hbbp_synth_nest_code): a top loop (r8) around a one-block loop
		   (ebx, 32 trips) and a loop nest (ecx, 24 trips, around edx += 16,
		   16 trips) whose outer header and latch take no cycles, so no
		   sample falls on them; 2: a top loop (r8) around a loop (ecx) that
		   calls a function writing eax and edx only; 3: a top loop around a
		   nest over the rows of a 2-D array (the inner loop starts at the
		   row, esi, and stops at edi = esi + 256); 4: a top loop (r8) with
		   a random two-way branch whose taken arm is one instruction, a
		   mispredict penalty and skid (synth.c); 5: the same with a taken
		   arm of three instructions, never taken; 6: a top loop (r8)
		   around a loop (ebx) calling a function with a 3-trip loop
		   of its own (edx); 7: a pointer chase whose compare waits
		   for its load; samples carry bx, cx,
		   dx, si, di, r8 */
	/* out */
	unsigned nblocks;
	uint64_t block_start[8];
	unsigned block_len[8];
	double block_count[8]; /* exact executions */
	uint64_t load_addr;    /* where the text is mapped */
	char elf_path[512], data_path[512];
};
int pmcfi_hbbp_synth_write(const char *dir, struct pmcfi_hbbp_synth *s);
/* Cycles of the synthetic instruction at offset off of the text (timer mode). */
unsigned pmcfi_hbbp_synth_cycles(uint64_t off);
/* Cycles of the loop nest's instruction at offset off (hbbp_synth.nest). */
unsigned pmcfi_hbbp_synth_nest_cycles(uint64_t off);
#endif
