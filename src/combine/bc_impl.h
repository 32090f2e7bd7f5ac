/* Behaviour Clustering's parts (bc.c: one step and the strategy entry;
 * bc_grid.c: the grid, its divisions and the active XUs; bc_pair.c: pairing
 * inside the cells, by position or by label; bc_sort.c: the radix sorts).
 * Shared types and the functions that cross those files. */
#ifndef PMCF_COMBINE_BC_IMPL_H
#define PMCF_COMBINE_BC_IMPL_H
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "combine/combine_impl.h"
#include "util/rng.h"

/* Largest grid division: cells finer than 2^20 per dimension separate
 * nothing that exact ties do not (and keep coordinates in 32 bits). */
#define DMAX_CAP (1u << 20)
/* Cells with more XUs than this sharing one key are ordered by qsort. */
#define SMALL_RUN 24
/* Loops that read at random positions known ahead prefetch this many
 * elements ahead (the results do not depend on it). */
#define PREFETCH 16

struct pmcfi_bc_skey {
	uint64_t key; /* sum of the cell coordinates (the sweep axis), then hb
		       * bits of h: sorting by it groups the XUs by cell */
	uint32_t q;   /* position in rem */
	uint32_t h;   /* hash of the cell coordinates */
};

/* A cell with leftover XUs of one side after the pairing of an iteration. */
struct pmcfi_bc_lcell {
	uint64_t key;
	uint32_t start, cnt; /* their ids: litem[start .. start+cnt) */
};

/* Workspace of one step, sized for its largest type and reused by every
 * type and every iteration (no allocation inside the iterations). */
struct pmcfi_bc_ws {
	size_t cap, kcap;
	struct pmcfi_cmb_rx *rem;         /* remaining ids: T_prev then T_cur */
	uint32_t *lst;                    /* the remaining ids gridded this iteration */
	double *u, *lb;                   /* per id: (value - min) / range, k each; the bound */
	double *pts;                      /* lower_bounds: s and u, k + 1 each */
	int32_t *ci;                      /* cell coordinates of lst[q]: ci[q * k ..] */
	struct pmcfi_bc_skey *srt, *stmp; /* lst positions sorted by cell */
	uint8_t *paired;                  /* per position in lst: paired this iteration (n + 1) */
	uint32_t *litem;                  /* leftover ids, cell by cell */
	struct pmcfi_bc_lcell *cell[2];   /* leftover cells of T_prev, T_cur, by key */
	uint64_t *ckey[2];                /* their keys, contiguous for the sweep */
	int32_t *cco[2];                  /* their coordinates, k each */
	uint32_t *tie;                    /* closest pairs of cells: (prev cell, cur cell) */
	size_t tcap;
	uint64_t *bits, *btmp;            /* calc_max_div: sortable bits of the values */
	struct pmcfi_bc_spos *sp, *sptmp; /* reduced_div: the XUs of two cells by position */
	uint32_t *vslot;                  /* distinct_values: hash table, up to 4n */
	double *usum;                     /* per id: sum of its u, -1 with a missing value */
	uint32_t *dv;                     /* per id: the first id with the same values */
	uint32_t *stamp, epoch;           /* per dv: positions() call that last took it */
	/* bc-label's pairing inside a cell (label_pair_cell), by srt position:
	 * the cell's XUs merged in label order, the next XU of a group's list,
	 * and the stack of groups */
	uint32_t *lseq, *lnext;
	struct pmcfi_bc_lgroup *lgrp;
};

/* A subtree of the label order: its unpaired XUs (all of one side) as a
 * list through lnext, and the depth at which it joins the group below it. */
struct pmcfi_bc_lgroup {
	int64_t join;
	uint32_t head, tail, cnt;
	int side; /* 0: T_prev, 1: T_cur */
};

/* An XU and its position along the diagonal, s = d * sum of u. */
struct pmcfi_bc_spos {
	double s;
	uint32_t id;
};

/* One step for one type. */
struct pmcfi_bc_grid {
	size_t k; /* dimensions: overlapping events with a range > 0 */
	size_t np, nc;
	const double *v; /* (np + nc) x k values */
	double *lo, *range;
	uint32_t *rank;   /* per id */
	const char **lab; /* per id: its label (bc-label) */
	const uint32_t *llen;
	const struct pmcfi_cmb_ltree *lt; /* the label tree (c->lt), or NULL */
	const uint32_t *node;             /* per id: its label's node (bc-label, lt) */
	int strategy;
	struct pmcfi_rng rng;
	struct pmcfi_bc_ws *w;
	/* output: pairs (prev id, cur id) */
	uint32_t *pp, *pc;
	size_t npairs;
	size_t iterations;
	unsigned dmax;
	/* this grid pass: cb > 0 when the cell coordinates, cb bits each (c_0
	 * most significant), are the sort key itself (k cb < 64); else 0 and
	 * the key is their sum and hash bits */
	unsigned cb, d;
};

/* Doubles as unsigned integers in the same order. */
static inline uint64_t f64_bits(double x)
{
	uint64_t u;
	memcpy(&u, &x, sizeof(u));
	return (u >> 63) ? ~u : u | (1ull << 63);
}

static inline double bits_f64(uint64_t u)
{
	u = (u >> 63) ? u & ~(1ull << 63) : ~u;
	double x;
	memcpy(&x, &u, sizeof(x));
	return x;
}

static inline int co_cmp(const int32_t *a, const int32_t *b, size_t k)
{
	for (size_t e = 0; e < k; e++)
		if (a[e] != b[e])
			return a[e] < b[e] ? -1 : 1;
	return 0;
}

/* pmcfi_cmb_label_cmp of the labels of ids x and y: their ranks in the label
 * tree lt (node: per id), else their texts (lab, len). */
static inline int lab_cmp(const struct pmcfi_cmb_ltree *lt, const uint32_t *node, const char *const *lab,
			  const uint32_t *len, uint32_t x, uint32_t y)
{
	if (lt) {
		uint32_t a = lt->ord[node[x]], b = lt->ord[node[y]];
		return (a > b) - (a < b);
	}
	return pmcfi_cmb_label_cmp(lab[x], len[x], lab[y], len[y]);
}

int pmcfi_bc_digit_offsets(uint32_t *c, size_t r, size_t n, size_t first);
void pmcfi_bc_radix_u64(uint64_t *a, uint64_t *tmp, size_t n);
void pmcfi_bc_radix_keys(struct pmcfi_bc_skey *s, struct pmcfi_bc_skey *tmp, size_t n, unsigned bits);
void pmcfi_bc_order_run(struct pmcfi_bc_skey *s, size_t n, const int32_t *ci, size_t k);
void pmcfi_bc_pair_cells(struct pmcfi_bc_grid *g, size_t n, size_t remp, unsigned hb, size_t *ncell);
void pmcfi_bc_pair_cells_lex(struct pmcfi_bc_grid *g, size_t n, size_t remp, size_t *ncell);
int pmcfi_bc_cluster(struct pmcfi_bc_grid *g);

#endif
