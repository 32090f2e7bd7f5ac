/* pmcfuse — instruction mixes from PMU samples (Hybrid Basic Block Profiling,
 * hbbp-instruction-mix): a perf.data reader, basic-block execution counts by
 * EBS, LBR and HBBP, the callgrind reference, pivot tables and error metrics. */
#ifndef PMCFUSE_HBBP_H
#define PMCFUSE_HBBP_H
#include "pmcfuse/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- perf.data (file mode) ------------------------------------------------ */

/* A perf.data file read into memory. Records with an unknown type are
 * skipped; anything that does not fit its bounds makes open fail with
 * PMCF_ECORRUPT (truncated or hostile files never read out of bounds). */
typedef struct pmcf_perfdata pmcf_perfdata;

typedef struct pmcf_pd_attr {
	size_t size; /* sizeof(pmcf_pd_attr) (the ABI rule, pmcfuse/base.h) */
	uint32_t type;
	uint64_t config, sample_period, sample_type, read_format, branch_sample_type;
	int freq, sample_id_all, exclude_user, exclude_kernel, precise_ip;
	const char *name; /* from EVENT_DESC, or "" */
	size_t nids;
	const uint64_t *ids;
	uint64_t sample_regs_user; /* PERF_SAMPLE_REGS_USER mask (perf_regs.h bit numbers) */
} pmcf_pd_attr;
#define PMCF_PD_ATTR_INIT PMCF_SIZED_INIT(pmcf_pd_attr)

typedef struct pmcf_pd_branch {
	size_t size; /* sizeof(pmcf_pd_branch) (the ABI rule, pmcfuse/base.h) */
	uint64_t from, to, flags;
} pmcf_pd_branch;
#define PMCF_PD_BRANCH_INIT PMCF_SIZED_INIT(pmcf_pd_branch)

#define PMCF_PD_NOATTR UINT32_MAX
typedef struct pmcf_pd_sample {
	size_t size;   /* sizeof(pmcf_pd_sample), set by PMCF_PD_SAMPLE_INIT (the ABI rule, pmcfuse/base.h) */
	uint32_t attr; /* index into the attributes, or PMCF_PD_NOATTR */
	uint16_t misc; /* PERF_RECORD_MISC_* (cpu mode in the low 3 bits) */
	uint32_t pid, tid;
	uint64_t ip, time, id, period; /* 0 when the sample does not carry it */
	int has_hw_idx;
	uint64_t hw_idx;
	uint64_t nbranches; /* entry 0 is the most recent branch */
	const pmcf_pd_branch *branches;
	/* PERF_SAMPLE_REGS_USER: abi 0 (PERF_SAMPLE_REGS_ABI_NONE, e.g. a sample
	 * in a kernel thread) has no values; else regs[k] is the register of the
	 * k-th set bit of regs_mask (the attribute's sample_regs_user) */
	uint64_t regs_abi, regs_mask;
	uint32_t nregs;
	const uint64_t *regs;
} pmcf_pd_sample;
#define PMCF_PD_SAMPLE_INIT PMCF_SIZED_INIT(pmcf_pd_sample)

typedef struct pmcf_pd_mmap {
	size_t size; /* sizeof(pmcf_pd_mmap) (the ABI rule, pmcfuse/base.h) */
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint16_t misc;
	int is_mmap2;
	const char *filename;
} pmcf_pd_mmap;
#define PMCF_PD_MMAP_INIT PMCF_SIZED_INIT(pmcf_pd_mmap)

typedef struct pmcf_pd_comm {
	size_t size; /* sizeof(pmcf_pd_comm) (the ABI rule, pmcfuse/base.h) */
	uint32_t pid, tid;
	int exec; /* COMM after an exec */
	const char *comm;
} pmcf_pd_comm;
#define PMCF_PD_COMM_INIT PMCF_SIZED_INIT(pmcf_pd_comm)

typedef struct pmcf_pd_task {
	size_t size; /* sizeof(pmcf_pd_task) (the ABI rule, pmcfuse/base.h) */
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
	int exit; /* 0 FORK, 1 EXIT */
} pmcf_pd_task;
#define PMCF_PD_TASK_INIT PMCF_SIZED_INIT(pmcf_pd_task)

typedef struct pmcf_pd_stats {
	size_t size; /* sizeof(pmcf_pd_stats) (the ABI rule, pmcfuse/base.h) */
	uint64_t records, samples, mmaps, comms, tasks, lost, skipped;
} pmcf_pd_stats;
#define PMCF_PD_STATS_INIT PMCF_SIZED_INIT(pmcf_pd_stats)

/* Opens and parses a perf.data file; *out is freed with pmcf_perfdata_free. */
PMCF_API int pmcf_perfdata_open(const char *path, pmcf_perfdata **out);
/* Same from a buffer (copied). */
PMCF_API int pmcf_perfdata_open_buffer(const void *buf, size_t len, pmcf_perfdata **out);
PMCF_API void pmcf_perfdata_free(pmcf_perfdata *pd);
PMCF_API size_t pmcf_perfdata_nattrs(const pmcf_perfdata *pd);
PMCF_API const pmcf_pd_attr *pmcf_perfdata_attr(const pmcf_perfdata *pd, size_t i);
PMCF_API size_t pmcf_perfdata_nsamples(const pmcf_perfdata *pd);
PMCF_API const pmcf_pd_sample *pmcf_perfdata_sample(const pmcf_perfdata *pd, size_t i);
PMCF_API size_t pmcf_perfdata_nmmaps(const pmcf_perfdata *pd);
PMCF_API const pmcf_pd_mmap *pmcf_perfdata_mmap(const pmcf_perfdata *pd, size_t i);
PMCF_API size_t pmcf_perfdata_ncomms(const pmcf_perfdata *pd);
PMCF_API const pmcf_pd_comm *pmcf_perfdata_comm(const pmcf_perfdata *pd, size_t i);
PMCF_API size_t pmcf_perfdata_ntasks(const pmcf_perfdata *pd);
PMCF_API const pmcf_pd_task *pmcf_perfdata_task(const pmcf_perfdata *pd, size_t i);
PMCF_API const pmcf_pd_stats *pmcf_perfdata_stats(const pmcf_perfdata *pd);
/* The recording CPU from the CPUID header feature ("AuthenticAMD,26,2,1" on
 * x86: vendor, family, model, stepping), or "" when the file has none. */
PMCF_API const char *pmcf_perfdata_cpuid(const pmcf_perfdata *pd);

/* ---- instruction mixes ------------------------------------------------------ */

/* Per-instruction execution counts with static properties: built from PMU
 * samples (BBEC by EBS, LBR or HBBP) or from callgrind (the reference). */
typedef struct pmcf_imix pmcf_imix;

enum pmcf_imix_method {
	PMCF_IMIX_HBBP = 0,   /* LBR for blocks of at most `cutoff` instructions, EBS above (§IV) */
	PMCF_IMIX_EBS = 1,    /* samples / block length (§III.A) */
	PMCF_IMIX_LBR = 2,    /* streams between consecutive entries, 1/(N-1) each (§III.B) */
	PMCF_IMIX_EBS_RAW = 3 /* EBS without the time-to-count correction of time events */
};

/* A basic block handed to a cost model: its x86-64 code and where it lives. */
typedef struct pmcf_imix_code_block {
	size_t size; /* sizeof(pmcf_imix_code_block) (the ABI rule, pmcfuse/base.h) */
	const char *module, *function;
	uint64_t start;       /* link-time address */
	unsigned len;         /* instructions */
	const uint8_t *bytes; /* the block's code, nbytes long */
	size_t nbytes;
} pmcf_imix_code_block;
#define PMCF_IMIX_CODE_BLOCK_INIT PMCF_SIZED_INIT(pmcf_imix_code_block)

/* A cost model: sets cycles[i] to the cycles one execution of blocks[i]
 * takes (0 when unknown); returns 0 or a negative PMCF_E* code. */
typedef int (*pmcf_imix_cost_fn)(void *ctx, const pmcf_imix_code_block *blocks, size_t n, double *cycles);

/* Skid of time samples: where a sample's time is charged. */
enum pmcf_imix_skid {
	PMCF_IMIX_SKID_PREV = 0, /* to the instruction before the sampled IP (default) */
	PMCF_IMIX_SKID_NONE = 1  /* to the sampled instruction itself */
};

/* What the cost model of time samples costs (docs/imix.md). */
enum pmcf_imix_costing {
	PMCF_IMIX_COST_REGIONS = 0,      /* control-equivalent sampled blocks of a function (one loop
				       body) pool their samples and are costed as one region */
	PMCF_IMIX_COST_BLOCKS = 1,       /* every block alone (the first correction) */
	PMCF_IMIX_COST_REGIONS_CHASE = 2 /* REGIONS, plus a memory latency per pointer-chasing
					    load (one whose address uses the register it loads) */
};

/* Measured loop speeds of time samples (docs/imix.md): with the user
 * registers in the samples, a loop's iterations per unit of time are read
 * from its induction registers and replace the cost model's speed; samples
 * without registers leave the cost model alone. */
enum pmcf_imix_rate {
	PMCF_IMIX_RATE_DEFAULT = 0, /* PMCF_IMIX_RATE_IV */
	PMCF_IMIX_RATE_NONE = 1,    /* the cost model alone */
	PMCF_IMIX_RATE_IV = 2       /* induction-variable rates where samples carry registers */
};

/* The two arms of a conditional branch in timer samples (docs/imix.md):
 * with PMCF_IMIX_RATE_IV, the arms' counts are held to the branch's by flow
 * conservation, and an arm that timer samples cannot see (too short to hold
 * a sample, e.g. one instruction) is given half the branch's executions. */
enum pmcf_imix_arms {
	PMCF_IMIX_ARMS_FLOW = 0,   /* flow conservation, the prior 1/2 for an unseen arm (default) */
	PMCF_IMIX_ARMS_SAMPLES = 1 /* each arm by its own samples (before) */
};

/* Code of timer samples with no measured count (with PMCF_IMIX_RATE_IV: not
 * in a loop with a measured speed or trip count, not a function counted
 * from its call sites; docs/imix.md). */
enum pmcf_imix_unmeasured {
	PMCF_IMIX_UNMEASURED_SAMPLES = 0, /* at the measured code's instructions per sample: the raw
					     estimate there; nothing measured, no correction (default) */
	PMCF_IMIX_UNMEASURED_MODEL = 1,   /* the cost model, scaled by the measured code's mean factor
					     (before) */
	PMCF_IMIX_UNMEASURED_BOUND = 2    /* the lower of the two: llvm-mca's cycles and the measured
					     code's time per instruction taken as lower bounds of a
					     unit's time */
};

typedef struct pmcf_imix_opts {
	size_t size;           /* sizeof(pmcf_imix_opts) */
	int method;            /* enum pmcf_imix_method */
	unsigned cutoff;       /* HBBP block-length cut-off; 0 means 18 */
	const char *ebs_event; /* attribute names for the two sources; NULL: by heuristics */
	const char *lbr_event;
	const char *vmlinux; /* kernel image for kernel samples; NULL: unattributed */
	int lines;           /* resolve source lines (libdw) */
	double bias_ratio;   /* entry[0] bias: share above bias_ratio/N; 0 means 3 */
	/* Time-to-count correction of EBS on a time event (cpu-clock, task-clock;
	 * docs/imix.md): a block's samples are divided by its cycles per
	 * execution. Not for method PMCF_IMIX_EBS_RAW. */
	const char *llvm_mca;   /* the cost model program; NULL: $PMCF_LLVM_MCA, else the newest
				  llvm-mca-NN or llvm-mca on PATH */
	const char *mcpu;       /* llvm-mca -mcpu; NULL: from the recording's CPUID */
	pmcf_imix_cost_fn cost; /* a cost model of the caller's instead of llvm-mca */
	void *cost_ctx;
	int skid;       /* enum pmcf_imix_skid */
	int costing;    /* enum pmcf_imix_costing */
	int rate;       /* enum pmcf_imix_rate */
	int arms;       /* enum pmcf_imix_arms */
	int unmeasured; /* enum pmcf_imix_unmeasured */
} pmcf_imix_opts;
#define PMCF_IMIX_OPTS_INIT PMCF_SIZED_INIT(pmcf_imix_opts)

typedef struct pmcf_imix_ins {
	size_t size; /* sizeof(pmcf_imix_ins) (the ABI rule, pmcfuse/base.h) */
	const char *module, *function;
	const char *mnemonic, *isa_ext, *isa_set, *category, *packing;
	uint64_t addr, block; /* link-time addresses in the module */
	unsigned block_len;
	double count;
	const char *file; /* source file or NULL (needs opts.lines) */
	unsigned line;
} pmcf_imix_ins;
#define PMCF_IMIX_INS_INIT PMCF_SIZED_INIT(pmcf_imix_ins)

enum pmcf_imix_source {
	PMCF_IMIX_SRC_NONE = 0,
	PMCF_IMIX_SRC_EBS = 1,
	PMCF_IMIX_SRC_LBR = 2,
	PMCF_IMIX_SRC_REF = 3
};
typedef struct pmcf_imix_block {
	size_t size; /* sizeof(pmcf_imix_block) (the ABI rule, pmcfuse/base.h) */
	const char *module, *function;
	uint64_t start;
	unsigned len;
	double ebs, lbr, count; /* BBEC by each source and the chosen one */
	int bias;               /* entry[0] bias flag (§III.C) */
	int source;             /* enum pmcf_imix_source of count */
} pmcf_imix_block;
#define PMCF_IMIX_BLOCK_INIT PMCF_SIZED_INIT(pmcf_imix_block)

typedef struct pmcf_imix_stats {
	size_t size;                   /* sizeof(pmcf_imix_stats) (the ABI rule, pmcfuse/base.h) */
	double ebs_weight, lbr_weight; /* summed sample weights per source */
	uint64_t ebs_samples, lbr_samples, other_samples;
	uint64_t lbr_streams, lbr_streams_discarded;
	double unattr_kernel, unattr_user; /* EBS sample weight that hit no known code */
	uint64_t unattr_kernel_samples, unattr_user_samples;
	int relative;               /* counts have no absolute scale (EBS on a time event) */
	double total;               /* instructions in the mix */
	int time_event;             /* the EBS event counts time (cpu-clock, task-clock) */
	int correction;             /* enum pmcf_imix_correction */
	char cost_model[1536];      /* APPLIED: the model ("llvm-mca-16 -mcpu=znver4 ...");
				  UNAVAILABLE: why the correction could not be made.
				  Never cut: sized for the longest (an llvm-mca name of
				  511 bytes and every clause, about 1100 bytes); a text
				  that does not fit fails the call (PMCF_EINVAL) */
	uint64_t cost_blocks;       /* blocks given to the cost model */
	uint64_t cost_unknown;      /* of them, blocks it gave no cost (average CPI used) */
	uint64_t rate_loops;        /* loops whose speed was measured (PMCF_IMIX_RATE_IV) */
	double rate_share;          /* share of the EBS weight in those loops */
	uint64_t rate_trip;         /* of them, nested loops counted as the loop around's count times
				  their trip count (the spread of their induction register) */
	uint64_t rate_funcs;        /* functions outside every measured loop counted from their direct
				  call sites (PMCF_IMIX_RATE_IV) */
	uint64_t arms_flow;         /* two-way branches whose arms' counts were held to the branch's
				  (PMCF_IMIX_ARMS_FLOW) */
	uint64_t arms_prior;        /* of them, with an arm that no sample can show: split 1/2 */
	double unmeasured_share;    /* share of the EBS weight in code with no measured count
				    (PMCF_IMIX_RATE_IV; see enum pmcf_imix_unmeasured) */
	char unmeasured_loops[512]; /* the largest loops with no measured count (PMCF_IMIX_RATE_IV):
				       "FUNC@0xHEAD NN % (why)", by share of the samples, "; "
				       between, as many as fit */
	char glibc_tunables[256];   /* GLIBC_TUNABLES of the recording (pmcf_imix_load of a record
				     folder; "" when none or unknown): the string routines glibc
				     picks depend on it */
} pmcf_imix_stats;
#define PMCF_IMIX_STATS_INIT PMCF_SIZED_INIT(pmcf_imix_stats)

enum pmcf_imix_correction {
	PMCF_IMIX_CORR_NONE = 0,       /* not a time event, or PMCF_IMIX_EBS_RAW asked */
	PMCF_IMIX_CORR_APPLIED = 1,    /* EBS counts are samples / cycles per execution */
	PMCF_IMIX_CORR_UNAVAILABLE = 2 /* time event, but no cost model: the raw estimate */
};

/* Builds the mix from perf samples. opts may be NULL (HBBP, cut-off 18). */
PMCF_API int pmcf_imix_from_perfdata(const pmcf_perfdata *pd, const pmcf_imix_opts *opts, pmcf_imix **out);
/* Builds the exact mix from a callgrind output written with --dump-instr=yes;
 * rep-prefixed instructions count once per execution, not per iteration. */
PMCF_API int pmcf_imix_from_callgrind(const char *path, const pmcf_imix_opts *opts, pmcf_imix **out);
PMCF_API void pmcf_imix_free(pmcf_imix *m);
PMCF_API size_t pmcf_imix_size(const pmcf_imix *m);
PMCF_API const pmcf_imix_ins *pmcf_imix_at(const pmcf_imix *m, size_t i);
PMCF_API size_t pmcf_imix_nblocks(const pmcf_imix *m);
PMCF_API const pmcf_imix_block *pmcf_imix_block_at(const pmcf_imix *m, size_t i);
PMCF_API const pmcf_imix_stats *pmcf_imix_stats_get(const pmcf_imix *m);

/* ---- pivot tables and errors --------------------------------------------- */

enum pmcf_imix_key {
	PMCF_IMIX_BY_MNEMONIC,
	PMCF_IMIX_BY_ISA,
	PMCF_IMIX_BY_ISA_SET,
	PMCF_IMIX_BY_CATEGORY,
	PMCF_IMIX_BY_PACKING,
	PMCF_IMIX_BY_MODULE,
	PMCF_IMIX_BY_FUNCTION,
	PMCF_IMIX_BY_BLOCK,
	PMCF_IMIX_BY_LINE
};
/* Two keys: KEY1 + PMCF_IMIX_BY_THEN * (KEY2 + 1) groups by KEY1, then by KEY2
 * within it (rows "k1|k2"), e.g. the mix of every function. */
#define PMCF_IMIX_BY_THEN 16
/* Name <-> key ("mnemonic", "isa", "isa-set", ..., or two of them joined by a
 * comma, "function,mnemonic"); -1 when unknown. */
PMCF_API int pmcf_imix_key_parse(const char *name);

typedef struct pmcf_imix_row {
	size_t size; /* sizeof(pmcf_imix_row) (the ABI rule, pmcfuse/base.h) */
	char *key;
	double count, share;
} pmcf_imix_row;
#define PMCF_IMIX_ROW_INIT PMCF_SIZED_INIT(pmcf_imix_row)

/* Groups the mix by key; rows sorted by count, descending (ties by key).
 * *rows is freed with pmcf_imix_rows_free. */
PMCF_API int pmcf_imix_pivot(const pmcf_imix *m, int key, pmcf_imix_row **rows, size_t *n);
PMCF_API void pmcf_imix_rows_free(pmcf_imix_row *rows, size_t n);

typedef struct pmcf_imix_cmp_row {
	size_t size; /* sizeof(pmcf_imix_cmp_row) (the ABI rule, pmcfuse/base.h) */
	const char *mnemonic;
	double ref, measured, error; /* error: |ref - measured| / ref (§VI.B) */
} pmcf_imix_cmp_row;
#define PMCF_IMIX_CMP_ROW_INIT PMCF_SIZED_INIT(pmcf_imix_cmp_row)

typedef struct pmcf_imix_cmp {
	size_t size;                             /* sizeof(pmcf_imix_cmp) (the ABI rule, pmcfuse/base.h) */
	double avg_weighted_error;               /* sum_M Error(M) * ref(M) / #ref (§VI.B) */
	double ref_total, measured_total, scale; /* measured values were multiplied by scale */
	double extra;                            /* measured count of mnemonics absent from the reference */
	size_t n;
	pmcf_imix_cmp_row *rows; /* the reference's mnemonics, by reference count */
} pmcf_imix_cmp;
#define PMCF_IMIX_CMP_INIT PMCF_SIZED_INIT(pmcf_imix_cmp)

/* Compares two mnemonic tables. normalize: scale measured to the
 * reference's total (compare shares). Free with pmcf_imix_cmp_free. */
PMCF_API int pmcf_imix_compare(const pmcf_imix_row *ref, size_t nref, const pmcf_imix_row *meas, size_t nmeas,
			       int normalize, pmcf_imix_cmp **out);
PMCF_API void pmcf_imix_cmp_free(pmcf_imix_cmp *c);

/* ---- training the block-length rule (§IV.B) ------------------------------- */

typedef struct pmcf_imix_example {
	size_t size;   /* sizeof(pmcf_imix_example) (the ABI rule, pmcfuse/base.h) */
	unsigned len;  /* block length in instructions */
	int bias;      /* entry[0] bias flag */
	double weight; /* executions (reference) x length */
	int lbr;       /* label: 1 when LBR was closer to the reference, 0 for EBS */
} pmcf_imix_example;
#define PMCF_IMIX_EXAMPLE_INIT PMCF_SIZED_INIT(pmcf_imix_example)

typedef struct pmcf_imix_stump {
	size_t size; /* sizeof(pmcf_imix_stump) (the ABI rule, pmcfuse/base.h) */
	int feature; /* 0: length (LBR when len <= cutoff), 1: bias (LBR when no bias) */
	unsigned cutoff;
	double gini_before, gini_after, accuracy; /* weighted */
	double length_importance;                 /* gain of the best length split over the sum of gains */
} pmcf_imix_stump;
#define PMCF_IMIX_STUMP_INIT PMCF_SIZED_INIT(pmcf_imix_stump)

/* Learns a decision stump (one-split classification tree, Gini impurity). */
PMCF_API int pmcf_imix_train(const pmcf_imix_example *ex, size_t n, pmcf_imix_stump *out);

/* Training examples (`imix train`): blocks of measured mixes (with both EBS
 * and LBR samples) paired by module and address with a reference mix (from
 * callgrind). A block whose reference count is 0, or whose EBS and LBR
 * estimates tie, gives no example; the others are labelled with the source
 * closer to the reference, weighted by reference executions x length. */
typedef struct pmcf_imix_trainer pmcf_imix_trainer;

/* A trainer over ref, which must outlive it (module names are borrowed).
 * Free with pmcf_imix_trainer_free. Errors: PMCF_ENOMEM. */
PMCF_API int pmcf_imix_trainer_new(const pmcf_imix *ref, pmcf_imix_trainer **out);
/* Adds the examples of one measured mix (not kept). PMCF_EINVAL when it
 * lacks EBS or LBR samples (nothing added); PMCF_ENOMEM. */
PMCF_API int pmcf_imix_trainer_add(pmcf_imix_trainer *t, const pmcf_imix *measured);
/* The examples so far (owned by t, valid until the next add). */
PMCF_API const pmcf_imix_example *pmcf_imix_trainer_examples(const pmcf_imix_trainer *t, size_t *n);
/* pmcf_imix_train over the examples; PMCF_EINVAL when there are none. */
PMCF_API int pmcf_imix_trainer_fit(const pmcf_imix_trainer *t, pmcf_imix_stump *out);
PMCF_API void pmcf_imix_trainer_free(pmcf_imix_trainer *t);

/* ---- loading a mix (`imix report`, `compare`, `train`) -------------------- */

/* A mix read from a folder written by `imix record` (DIR/perf.data) or
 * `imix reference` (DIR/callgrind.out), from a perf.data or callgrind file,
 * or a mnemonic table from a CSV of `imix report --format csv`. */
typedef struct pmcf_imix_input pmcf_imix_input;

enum pmcf_imix_input_kind {
	PMCF_IMIX_INPUT_PERF = 1,      /* perf samples: a mix by opts' method */
	PMCF_IMIX_INPUT_CALLGRIND = 2, /* the exact mix (the reference) */
	PMCF_IMIX_INPUT_CSV = 3        /* KEY,COUNT rows only, no mix */
};

#define PMCF_IMIX_LOAD_CSV 1u /* flags: accept a CSV (a file that is neither perf.data nor callgrind) */

/* Loads path: a folder takes its perf.data, else its callgrind.out; a file is
 * told by its first bytes (PERFILE2, a callgrind header, else a CSV with
 * PMCF_IMIX_LOAD_CSV, else perf.data, whose reader says what is wrong).
 * opts (may be NULL) builds the mix as pmcf_imix_from_perfdata does. Free
 * *out with pmcf_imix_input_free. Errors: -ENOENT (a folder with neither
 * file), -errno (cannot open), PMCF_ESYNTAX (a malformed CSV), the readers'
 * errors (PMCF_ENOTOURS, PMCF_ECORRUPT, ...), PMCF_EINVAL (opts, flags); the detail names the file. */
PMCF_API int pmcf_imix_load(const char *path, const pmcf_imix_opts *opts, unsigned flags,
			    pmcf_imix_input **out);
PMCF_API void pmcf_imix_input_free(pmcf_imix_input *in);
/* enum pmcf_imix_input_kind */
PMCF_API int pmcf_imix_input_kind(const pmcf_imix_input *in);
/* The mix; NULL for a CSV. Owned by in. */
PMCF_API const pmcf_imix *pmcf_imix_input_mix(const pmcf_imix_input *in);
/* The table by mnemonic (the CSV's rows in file order, share 0); owned by in. */
PMCF_API const pmcf_imix_row *pmcf_imix_input_rows(const pmcf_imix_input *in, size_t *n);

/* Reads a CSV of KEY,COUNT[,...] rows (`imix report --format csv`; a first
 * line starting "key," and lines starting '#' are skipped; lines of any
 * length). Counts must be finite and >= 0; share is 0. Free *rows with
 * pmcf_imix_rows_free. Errors: -errno (cannot open or read), PMCF_ESYNTAX
 * (a truncated, foreign or malformed file: "FILE:LINE: expected KEY,COUNT",
 * or "FILE: no rows"), PMCF_ENOMEM. */
PMCF_API int pmcf_imix_csv_read(const char *path, pmcf_imix_row **rows, size_t *n);

/* ---- recording folders (`pmcfuse imix record`, `imix reference`) ----------- */

/* The expected run time of a recorded program: picks the sampling periods
 * (hbbp Table 4: EBS 1000037 / 10000019 / 100000007 instructions, LBR a
 * tenth of that, primes). */
enum pmcf_imix_runtime {
	PMCF_IMIX_RUNTIME_SECONDS = 0,
	PMCF_IMIX_RUNTIME_MINUTES = 1,
	PMCF_IMIX_RUNTIME_LONG = 2
};
/* Options of pmcf_imix_record (a sized struct, base.h): start from
 * PMCF_IMIX_RECORD_OPTS_INIT. */
typedef struct pmcf_imix_record_opts {
	size_t size;
	int ebs_only;         /* EBS on cpu-clock alone (any CPU), no LBR */
	int user_only;        /* user space only, even where the kernel may be sampled */
	int runtime;          /* enum pmcf_imix_runtime */
	unsigned long period; /* sampling period; 0: by runtime (ebs_only: 50000) */
} pmcf_imix_record_opts;
#define PMCF_IMIX_RECORD_OPTS_INIT                        \
	{                                                 \
		sizeof(pmcf_imix_record_opts), 0, 0, 0, 0 \
	}
/* Runs the program argv[0..argc) (looked up in PATH) under `perf record`
 * into the new folder dir: perf.data, perf.log (perf's stderr) and
 * imix.json (kind "record", mode "hybrid" or "ebs-only", kernel, events,
 * command), for pmcf_imix_load. Hybrid mode samples INST_RETIRED.PREC_DIST
 * and LBR on BR_INST_RETIRED.NEAR_TAKEN (Intel only); the kernel too where
 * perf_event_paranoid allows it, unless user_only. dir is written as
 * dir.tmp.PID and renamed at the end; an existing empty folder is replaced.
 * Errors (the detail says what): PMCF_ECONFLICT (dir exists and is not an
 * empty folder), PMCF_ENOTSUP (no LBR here: use ebs_only; perf not
 * installed; perf record failed), PMCF_EPROGRAM (the program exited with a
 * non-zero status), PMCF_EINVAL, PMCF_ENOMEM, -errno; no folder is left. */
PMCF_API int pmcf_imix_record(const char *dir, const pmcf_imix_record_opts *opts, int argc,
			      char *const argv[]);
/* The exact reference of the same program: valgrind --tool=callgrind
 * --dump-instr=yes into the new folder dir (callgrind.out, valgrind.log,
 * imix.json of kind "reference"), written as pmcf_imix_record writes.
 * Errors: PMCF_ECONFLICT, PMCF_ENOTSUP (valgrind not installed),
 * PMCF_EPROGRAM (the program failed under valgrind, or callgrind wrote an
 * empty or unusable profile, as for a program that replaces itself with
 * exec: callgrind does not follow exec), PMCF_EINVAL, PMCF_ENOMEM, -errno;
 * no folder is left. */
PMCF_API int pmcf_imix_reference(const char *dir, int argc, char *const argv[]);

/* ---- a synthetic recording (`pmcfuse imix synth`) --------------------------- */

/* Options (a sized struct, base.h): start from PMCF_IMIX_SYNTH_OPTS_INIT. */
typedef struct pmcf_imix_synth_opts {
	size_t size;
	int ebs_only; /* one EBS attribute, no branch stacks (no LBR) */
	int timer;    /* EBS on cpu-clock instead of instructions (implies ebs_only) */
} pmcf_imix_synth_opts;
#define PMCF_IMIX_SYNTH_OPTS_INIT                  \
	{                                          \
		sizeof(pmcf_imix_synth_opts), 0, 0 \
	}

/* One basic block of the synthetic program and how often it ran. */
typedef struct pmcf_imix_synth_block {
	size_t size;    /* sizeof(pmcf_imix_synth_block) (the ABI rule, pmcfuse/base.h) */
	uint64_t start; /* address in the text */
	unsigned len;   /* instructions */
	double count;   /* exact executions */
} pmcf_imix_synth_block;
#define PMCF_IMIX_SYNTH_BLOCK_INIT PMCF_SIZED_INIT(pmcf_imix_synth_block)

/* Writes into the existing folder dir (an absolute path: perf.data names
 * the ELF by it) a small x86-64 ELF and the perf.data of a recording of it
 * (EBS every 11 instructions, or every 7 cycles with timer, and 16-deep
 * LBR stacks unless ebs_only), plus ref/callgrind.out with the exact
 * counts, so that the instruction mix can be checked without a PMU. Fills
 * blocks[0 .. min(*nblocks, cap)) and sets *nblocks to the number of blocks
 * (at most 8). Errors: PMCF_EINVAL, -errno. */
PMCF_API int pmcf_imix_synth_write(const char *dir, const pmcf_imix_synth_opts *opts,
				   pmcf_imix_synth_block *blocks, size_t cap, size_t *nblocks);

#ifdef __cplusplus
}
#endif
#endif
