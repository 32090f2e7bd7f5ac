/* Shared state of one combination: inputs, the union of their types and
 * events, and the pairing being built (one row of source XU indices per
 * fused XU). Each strategy only fills the pairing; combine.c builds the
 * fused profile, provenance and match distances from it. */
#ifndef PMCF_COMBINE_IMPL_H
#define PMCF_COMBINE_IMPL_H
#include <stddef.h>
#include <stdint.h>
#include "pmcfuse/combine.h"

struct pmcfi_cmb {
	const pmcf_profile *const *in;
	size_t n;
	const pmcf_combine_opts *opts;
	pmcf_combine_stats *stats;
	size_t imputed, imputed_changed; /* counted by pmcfi_cmb_impute */

	/* fused types: tmap[j][t] is the fused type of input j's type t. The
	 * strategies pair XUs within a group, (MPI rank, fused type): group
	 * rank * nftypes + type, ntypes groups in all (= nftypes when no input
	 * has ranks, so groups are the fused types) */
	pmcf_profile *out; /* holds the fused types and events while pairing */
	uint32_t ntypes, nftypes;
	uint32_t **tmap;
	int ranks; /* some input has the rank layer */
	/* fused events: evidx[j][e] = column of fused event e in input j, or -1;
	 * owners[e] lists the inputs that monitored e, in input order */
	size_t nev;
	long **evidx;
	uint32_t **owners;
	uint32_t *nowners;
	/* icol[e * n + j]: input j's column of fused event e, or NULL */
	const double **icol;

	/* the pairing: nf fused XUs, src[f * n + j] = XU of input j or -1;
	 * lab/lablen: the label of fused XU f when set (bc: first common
	 * ancestor, a prefix of a source label), else the first source's */
	size_t nf, fcap;
	int32_t *src;
	const char **lab;
	uint32_t *lablen;
	uint32_t *ftype;
	/* the label tree of all inputs (ltree.c), NULL when some input's
	 * labels are text (format version 1): then lab/lablen above; else
	 * lnode[f], the node of fused XU f's label when set (bc: first common
	 * ancestor), UINT32_MAX for the first source's */
	struct pmcfi_cmb_ltree *lt;
	uint32_t *lnode;
	uint32_t *lomap; /* lt's nodes in the fused profile's tree (combine.c) */
};

/* Labels as nodes of one tree of components (issue 33): a node is one
 * component under its parent (node 0: the root, ""), the same text in two
 * inputs the same node. ord is the label order (pmcfi_cmb_label_cmp's) as a
 * rank, so that comparing two labels is comparing two numbers, and the
 * first common ancestor is the nodes' lowest common ancestor (jump: skew-
 * binary jump pointers, O(log depth)); tlen the bytes of a node's text,
 * which pmcfi_cmb_label_fca counts. xlab[j][x] / xpar[j][x]: the nodes of the
 * label and parent label of input j's XU x. */
struct pmcfi_cmb_ltree {
	uint32_t n, cap;
	uint32_t *par, *jump, *depth, *tlen, *ord;
	const char **cs; /* each node's component (cl bytes, no NUL) */
	uint32_t *cl;
	uint32_t *slot; /* hash table of (parent, component) */
	size_t nslot;
	size_t nin;
	uint32_t **xlab, **xpar;
	char **made; /* components made here (renamed labels: "C~K") */
	size_t nmade, madecap;
};
/* Makes c->lt when every input's labels are a tree and their components
 * order as whole labels do (no empty component, no two siblings that
 * pmcfi_cmb_label_cmp holds equal, such as "7" and "07"); otherwise (or with
 * pmcfi_cmb_label_text set) leaves it NULL for the text path. 0 or an error. */
int pmcfi_cmb_ltree_build(struct pmcfi_cmb *c);
void pmcfi_cmb_ltree_free(struct pmcfi_cmb_ltree *lt);
/* The fused profile's label tree (with c->lt): sets c->lomap (lt's nodes
 * there: those that some fused XU's label, parent label or base label is)
 * and *olab[f], the node of fused XU f's label (whole source labels made
 * unique as on text: "LABEL~K"); base[f] is its first source. Free *olab. */
int pmcfi_cmb_ltree_out(struct pmcfi_cmb *c, const int32_t *base, uint32_t **olab);
/* bc family, after pairing: c->stats' bc_label_* counts (label
 * agreement of the pairs, and of the inputs' labels with the first's). */
int pmcfi_cmb_label_agreement(struct pmcfi_cmb *c);
/* Test hook: nonzero keeps labels as text (the reference path). */
extern int pmcfi_cmb_label_text;
/* The first common ancestor of nodes a and b. */
static inline uint32_t pmcfi_cmb_lca(const struct pmcfi_cmb_ltree *lt, uint32_t a, uint32_t b)
{
	const uint32_t *d = lt->depth, *jp = lt->jump, *par = lt->par;
	if (d[a] < d[b]) {
		uint32_t t = a;
		a = b;
		b = t;
	}
	while (d[a] > d[b])
		a = d[jp[a]] >= d[b] ? jp[a] : par[a];
	while (a != b) {
		if (jp[a] != jp[b]) {
			a = jp[a];
			b = jp[b];
		} else {
			a = par[a];
			b = par[b];
		}
	}
	return a;
}
/* The child of node par with component s (len bytes): found, else made
 * (s copied when copy, else it must outlive lt). UINT32_MAX when out of
 * memory or too long. */
uint32_t pmcfi_cmb_ltree_child(struct pmcfi_cmb_ltree *lt, uint32_t par, const char *s, uint32_t len,
			       int copy);
/* The child of par with component s, or UINT32_MAX. */
uint32_t pmcfi_cmb_ltree_find(const struct pmcfi_cmb_ltree *lt, uint32_t par, const char *s, uint32_t len);
/* The text of node k into *buf (grown; the caller frees it), NULL when out
 * of memory. */
const char *pmcfi_cmb_ltree_text(const struct pmcfi_cmb_ltree *lt, uint32_t k, char **buf, size_t *cap);

/* Threads a combination may use: opts->threads, else the online CPUs (at
 * most 64); the result never depends on it (combine.c). */
size_t pmcfi_cmb_cpus(const struct pmcfi_cmb *c);

/* ---- pairing helpers shared by the strategies (pairing.c) ---- */
/* Appends a fused XU of group t with no sources; returns its index or -1. */
long pmcfi_cmb_add(struct pmcfi_cmb *c, uint32_t t);
/* Group (rank, fused type) of XU x of input j; "type" in the strategies. */
uint32_t pmcfi_cmb_type(const struct pmcfi_cmb *c, size_t j, size_t x);
/* For every group, the XUs of input j of that group in XU order:
 * idx[start[t] .. start[t+1]). Free idx and start. */
int pmcfi_cmb_by_type(const struct pmcfi_cmb *c, size_t j, uint32_t **idx, size_t **start);
/* The fused XUs 0..nf-1 grouped by type, as pmcfi_cmb_by_type groups an input's:
 * idx[start[t]..start[t+1]) in fused order; start has ntypes + 2 entries,
 * zeroed by the caller, idx room for nf */
void pmcfi_cmb_fused_by_type(const struct pmcfi_cmb *c, size_t nf, uint32_t *idx, size_t *start);

/* Positional pairing per type: idx[j] / start[j] as from pmcfi_cmb_by_type,
 * reordered by the caller; the k-th XU of a type in every input form one
 * fused XU; a type keeps the largest count among the inputs (the inputs
 * that run out leave missing values; fuse-openmp §3). Frees nothing. */
int pmcfi_cmb_zip(struct pmcfi_cmb *c, uint32_t *const *idx, size_t *const *start);

/* Positional pairing after putting, for every input j and type t, the
 * input's XUs of that type (xus[0..n), XU indices) in the strategy's order
 * (CTC: start time; random: a seeded shuffle). order returns 0 or an error. */
typedef int (*pmcfi_cmb_order_fn)(struct pmcfi_cmb *c, size_t j, uint32_t t, uint32_t *xus, size_t n,
				  void *arg);
int pmcfi_cmb_zip_ordered(struct pmcfi_cmb *c, pmcfi_cmb_order_fn order, void *arg);

/* Strategies (fill c->src / c->nf); combine.c's table maps enum
 * pmcf_strategy to them. */
int pmcfi_cmb_ctc(struct pmcfi_cmb *c);
int pmcfi_cmb_lgl(struct pmcfi_cmb *c);
int pmcfi_cmb_random(struct pmcfi_cmb *c);
int pmcfi_cmb_naive(struct pmcfi_cmb *c); /* naive.c */
int pmcfi_cmb_bc(struct pmcfi_cmb *c);    /* bc, bc-unlabeled, bc-label, bc-lgl (c->opts->strategy) */
int pmcfi_cmb_match(struct pmcfi_cmb *c); /* match.c */
/* match.c: the oracle, simulated inputs only; match's assignment on the
 * truth of the fused rows against input i's values of the events it adds */
int pmcfi_cmb_oracle(struct pmcfi_cmb *c);
/* After fill_values: c->opts->impute > 0 replaces the values taken from
 * other executions by the median over their K nearest XUs (impute.c). */
int pmcfi_cmb_impute(struct pmcfi_cmb *c);
/* Test hook: nonzero makes BC grid every remaining XU in every iteration
 * instead of the active ones only (same result, slower). */
extern int pmcfi_cmb_bc_all_active;
/* Test hook: 1 compares every pair of XUs of the closest leftover cells
 * (the paper's calc_reduced_div), not the sweep along the diagonal, and
 * every pair of cells in the key window, not only the keys next to a
 * cell's once the closest are 1 apart. */
extern int pmcfi_cmb_bc_all_pairs;
/* Test hook: nonzero keys BC's cells by coordinate sum and hash in every
 * grid pass, never by the packed coordinates (same result). */
extern int pmcfi_cmb_bc_grid_hash;
/* Fused values are filled on several threads (opts->threads) from this
 * many values (fused XUs x events) on; tests lower it (same result). */
extern size_t pmcfi_cmb_fill_thread_min;
/* A remaining XU of a BC step and the lower bound of its distance to the
 * other side (together: bc-unlabeled's shuffles swap them at random). */
struct pmcfi_cmb_rx {
	uint32_t id;
	float lb;
};
struct pmcfi_rng;
/* bc-unlabeled's shuffle (bc.c): Fisher-Yates over r[0..n), for q = n,
 * n - 1, ..., 2 the swap of r[q - 1] with r[pmcfi_rng_below(rng, q)]. */
void pmcfi_cmb_shuffle(struct pmcfi_rng *rng, struct pmcfi_cmb_rx *r, size_t n);
/* Test hook: nonzero orders labels by qsort with pmcfi_cmb_label_cmp, never by
 * numeric keys (same order, slower). */
extern int pmcfi_cmb_bc_label_qsort;

/* Labels (fuse-task-parallel §3.1): depth-first order of the label graph
 * (components compared numerically when both are numbers), and the first
 * common ancestor (length of the longest common prefix of whole
 * components). Lengths bound the strings (no NUL needed inside). */
int pmcfi_cmb_label_cmp(const char *a, size_t la, const char *b, size_t lb);
/* pmcfi_cmb_label_cmp of two single components (numbers as numbers). */
int pmcfi_cmb_label_comp_cmp(const char *a, size_t na, const char *b, size_t nb);
size_t pmcfi_cmb_label_fca(const char *a, size_t la, const char *b, size_t lb);
/* Numeric labels, for sorting by keys: the number of components of s (0 for
 * ""), or -1 unless every one is a non-empty run of digits with at most 19
 * significant ones. For those labels pmcfi_cmb_label_cmp is the lexicographic
 * order of pmcfi_cmb_label_comp(s, len, 0), (s, len, 1), ...: 1 + the value of
 * component c, 0 past the last. */
long pmcfi_cmb_label_ncomp(const char *s, size_t len);
uint64_t pmcfi_cmb_label_comp(const char *s, size_t len, size_t c);

/* 64-bit FNV-1a of n bytes, continuing from h. */
static inline uint64_t pmcfi_cmb_hash(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 1099511628211ull;
	return h;
}
#define PMCFI_CMB_HASH0 1469598103934665603ull
#endif
