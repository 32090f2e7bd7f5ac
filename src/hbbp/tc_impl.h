/* Private to the time-to-count correction (timecount.c and tc_*.c): the
 * flow graph, the cost model's units, the loops and their induction registers,
 * and the steps of the correction, each in its own file. */
#ifndef PMCF_HBBP_TC_IMPL_H
#define PMCF_HBBP_TC_IMPL_H
#include <stdint.h>
#include <Zydis/Zydis.h>
#include "hbbp/hbbp_impl.h"

/* An edge of a function's static flow between its blocks (indices). */
struct pmcfi_hbbp_edge {
	uint32_t from, to;
	int call; /* the fall-through of a call: its return site */
};

/* A unit of the cost model: one block, or a class of control-equivalent
 * blocks (members linked by next[], in address order). */
struct pmcfi_hbbp_unit {
	struct pmcfi_hbbp_func *f;
	const char *module;
	const uint32_t *next; /* the function's member links */
	uint32_t first;       /* block */
	double w;             /* sample weight of the members */
};

/* Per block of every function (from f->boff): the units' classes and
 * member links, the loops of the sampled flow graph (the classes' nesting
 * level), and for measured loop speeds the loops of the full static flow
 * graph (sampled or not) and whether a block runs once per iteration of its
 * innermost loop there. */
struct pmcfi_hbbp_blkinfo {
	uint32_t *cls, *next, *lp, *lpar;
	uint32_t *flp, *flpar, *fcls, *fdom; /* NULL unless PMCF_IMIX_RATE_IV; fdom: immediate dominator */
	uint8_t *once;
};

/* ---- measured loop speeds (PMCF_IMIX_RATE_IV) ---- */
#define IV_MAX 4            /* induction registers kept per loop */
#define IV_MIN_PAIRS 3      /* sample pairs a loop needs to be measured */
#define IV_MAX_RATE 16.     /* iterations per unit of sample weight (ns): a bound no loop reaches */
#define IV_LONG_INSTANCE 16 /* pairs per instance of a nested loop to prefer them to its trip count */
/* Smallest number of one thread's samples in a loop that estimates its trip
 * count from the spread of their induction register's values. */
#define TRIP_MIN_SAMPLES 8

/* Induction registers of a loop: perf register bit, stride, width in bits. */
struct pmcfi_hbbp_ivs {
	uint8_t n, bit[IV_MAX], wide[IV_MAX];
	int64_t stride[IV_MAX];
	uint32_t wblk[IV_MAX], wins[IV_MAX]; /* the block and instruction that step it */
	/* an instance's trip count from register tk: its start, the last write
	 * in the preheader (register sreg + sc; a constant sc; or a constant
	 * not known here, rip-relative), and the bound of the loop's only exit
	 * when tk equals it (register breg, or the constant bc) */
	int8_t tk, sreg, breg;
	uint8_t skind, bkind, bafter; /* bafter: the exit test follows the step */
	int64_t sc, bc;
};
enum { START_NONE, START_REG, START_CONST, START_SAME };
enum { BOUND_NONE, BOUND_REG, BOUND_CONST };

/* Per loop of the full static flow graph (indexed by its header's block,
 * from f->boff): its induction registers, the sample pairs that measure
 * its speed, the spread of its induction register's sampled values (its
 * trip count), and the executions of its header found from them. */
struct pmcfi_hbbp_loopst {
	struct pmcfi_hbbp_ivs iv;
	uint8_t ivdone;
	uint32_t npair;
	uint32_t nback;     /* pairs whose registers all stepped back (two instances) */
	double iter, ptime; /* summed over the valid pairs */
	/* trip count: one thread's lowest and highest value of the first
	 * induction register, then the estimates summed over threads */
	uint32_t tid, ns;
	int64_t lo, hi;
	size_t last;    /* the latest sample in the loop (index + 1; 0: none) */
	uint32_t ninst; /* instances of the loop the samples fell in */
	double tsum, tn;
	double hinv;         /* samples with start and bound: sum of 1 / their instance's trips */
	uint32_t hn, dn, rn; /* samples with start and bound; with a start only; a bound only */
	int64_t dmax, rmax;  /* the most steps since the start; before the bound */
	double trip;         /* the estimate (0: none) */
	double t;            /* sample weight of the loop's blocks */
	double N;            /* executions of the header: measured, or from the trip count */
	double fac;          /* N over the cost model's count of the loop's anchor unit */
	int how;             /* 1 measured, 2 from the loop around times its trip count */
	double cmax;         /* the highest modelled count of its own conditional units */
	/* per function, in the entry of its block 0: the GPRs (perf bits) its
	 * own code never writes, which hold one value for a whole call */
	uint32_t kept;
	uint8_t keptdone;
};

/* tc_flow.c: the static flow graph. */
/* Fall-through and direct-branch edges between f's blocks (calls fall
 * through; padding that nothing reaches is left out); *out is malloc'ed,
 * sorted by target. */
int pmcfi_hbbp_func_edges(const ZydisDecoder *dec, const struct pmcfi_hbbp_func *f,
			  struct pmcfi_hbbp_edge **out, size_t *nout);
/* Skid (PMCF_IMIX_SKID_PREV): moves the samples at each block's first
 * instruction to its predecessors' last ones. */
int pmcfi_hbbp_move_heads(struct pmcfi_hbbp_func *f, const struct pmcfi_hbbp_edge *e, size_t ne);
/* Control-equivalence classes of f's sampled blocks (all: every block),
 * innermost loops (lp, lpar), once-per-iteration flags and immediate
 * dominators (once, dom: may be NULL); per block of f. */
int pmcfi_hbbp_equiv_classes(const struct pmcfi_hbbp_func *f, const struct pmcfi_hbbp_edge *e, size_t ne,
			     int all, uint32_t *cls, uint32_t *lp, uint32_t *lpar, uint8_t *once,
			     uint32_t *dom);
/* Decodes instruction i of f: 0, or -1 when it does not decode. */
int pmcfi_hbbp_decode_ins(const ZydisDecoder *dec, const struct pmcfi_hbbp_func *f, uint32_t i,
			  ZydisDecodedInstruction *d, ZydisDecodedOperand *op);
/* Successors of block b in f: 0 to 2, -1 for a way out of f. */
int pmcfi_hbbp_block_succ(const ZydisDecoder *dec, const struct pmcfi_hbbp_func *f, uint32_t b, long succ[2]);
/* Is block b inside the loop headed by h (its own or a nested one)? */
int pmcfi_hbbp_in_loop(const uint32_t *lp, const uint32_t *lpar, uint32_t b, uint32_t h);
/* Does block w dominate block b (fdom: immediate dominators)? */
int pmcfi_hbbp_blk_dominated(const uint32_t *fdom, uint32_t b, uint32_t w);

/* tc_ivs.c: induction registers read from the code. */
/* Register bit's value in a sample, or -1 when it is not recorded. */
int pmcfi_hbbp_reg_value(const struct pmcfi_hbbp_tsample *t, int bit, uint64_t *v);
/* The induction registers of the loop headed by h, with an instance's
 * start and bound where the code shows them. */
void pmcfi_hbbp_find_ivs(const ZydisDecoder *dec, const struct pmcfi_hbbp_func *f, const uint32_t *flp,
			 const uint32_t *flpar, const uint8_t *once, const uint32_t *fdom, uint32_t h,
			 struct pmcfi_hbbp_ivs *iv);
/* Induction register k's value in a sample (norm: as of after its step);
 * -1 when not recorded. */
int pmcfi_hbbp_iv_value(const struct pmcfi_hbbp_ivs *iv, unsigned k, const struct pmcfi_hbbp_tsample *t,
			const uint32_t *fdom, int norm, int64_t *v);
/* Iterations between two samples from the induction registers; -1 when
 * they do not tell, -2 when every register stepped back. */
double pmcfi_hbbp_iv_iterations(const struct pmcfi_hbbp_ivs *iv, const struct pmcfi_hbbp_tsample *a,
				const struct pmcfi_hbbp_tsample *b);
/* The GPRs (perf bits) that keep one value through a call of f. */
uint32_t pmcfi_hbbp_func_kept(const ZydisDecoder *dec, const struct pmcfi_hbbp_func *f);

/* tc_scan.c: the samples in time order. */
/* Sorts ts by thread and time and fills ls (per block from f->boff):
 * sample pairs, instances and trip-count evidence of each loop. */
void pmcfi_hbbp_iv_scan(const ZydisDecoder *dec, struct pmcfi_hbbp_tsample *ts, size_t nts,
			const struct pmcfi_hbbp_blkinfo *bi, struct pmcfi_hbbp_loopst *ls);
/* Adds the trip count of the thread's samples gathered in l. */
void pmcfi_hbbp_trip_flush(struct pmcfi_hbbp_loopst *l);

/* tc_rates.c: measured loop speeds onto the units' counts cnt[]. */
int pmcfi_hbbp_apply_rates(pmcf_imix *m, const ZydisDecoder *dec, struct pmcfi_hbbp_tsample *ts, size_t nts,
			   const struct pmcfi_hbbp_unit *u, size_t n, const struct pmcfi_hbbp_blkinfo *bi,
			   size_t nblk, double *cnt, double *xc, uint8_t *umeas, const unsigned *ulen,
			   int unmeasured);

/* tc_arms.c: flow conservation at f's two-way branches (bc: per block
 * counts, changed; dens: sample density; anch: counts measured). */
int pmcfi_hbbp_split_arms(pmcf_imix *m, const ZydisDecoder *dec, struct pmcfi_hbbp_func *f,
			  const struct pmcfi_hbbp_blkinfo *bi, int skid_prev, double *bc, const double *dens,
			  uint8_t *anch);
#endif
