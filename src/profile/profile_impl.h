/* Private definition of struct pmcf_profile (columnar in-memory model) and the
 * helpers the SQLite store (store.c) uses to fill it without per-XU work.
 * Not installed; unit tests may include it. */
#ifndef PMCF_PROFILE_IMPL_H
#define PMCF_PROFILE_IMPL_H
#include <stddef.h>
#include <stdint.h>
#include "pmcfuse/profile.h"
#include "profile/bare.h"

struct pmcf_type_rec {
	int kind;
	char *name;
	char *location;
	char *callee; /* NULL: none (pmcf_profile_type_callee) */
};

/*
 * Every per-XU array holds xu_cap elements, of which nxu are in use. Values
 * are columnar: one array of doubles per event. Labels live in one arena;
 * label[i] and parent[i] are offsets into it (offset 0 is a shared "").
 */
#include <pthread.h>
#include "util/strindex.h"

/* label[i] / parent[i] with this bit: the low bits are a node of the label
 * tree, not an arena offset (issue 33: labels of deep task trees). */
#define PMCFI_LAB_NODE ((size_t)1 << (sizeof(size_t) * 8 - 1))

struct pmcf_profile {
	size_t nmeta, meta_cap;
	char **meta_key, **meta_val;

	size_t ntypes, types_cap;
	struct pmcf_type_rec *types;

	size_t nev, ev_cap;
	char **ev_name;
	double **val;

	size_t nxu, xu_cap;
	uint32_t *xtype;
	int32_t *thread, *cpu;
	uint64_t *start, *end;
	size_t *label, *parent;
	char *arena;
	size_t arena_len, arena_cap;
	/* the label tree (docs/profile-format.md, version 2): node 0 is "";
	 * node k > 0 has parent lpar[k] < k and its own components, the text
	 * lsarena + lsuf[k]: its label is that text under the root (lpar 0),
	 * else its parent's label, ".", that text. XUs that were given nodes
	 * (pmcfi_profile_xu_add_nodes, the recorder, files of version 2) hold
	 * PMCFI_LAB_NODE | node. nlab 0: no tree */
	uint32_t *lpar;
	size_t *lsuf;
	size_t nlab, lab_cap;
	char *lsarena;
	size_t lsarena_len, lsarena_cap;
	/* the nodes' full texts, made on the first pmcf_profile_xu_get that
	 * needs one (all ltext_nodes nodes at once, under ltext_lock) */
	size_t *ltoff;
	char *ltext;
	size_t ltext_nodes;
	pthread_mutex_t ltext_lock;

	/* ground truth: its own event list, one column per truth event */
	size_t ntruth, truth_cap;
	char **truth_name;
	double **truth;

	/* coverage layer (has_cov): per event, per XU */
	int has_cov;
	uint64_t **cov_enabled, **cov_running;

	/* provenance: source list, per-value layer (has_prov), per-XU match
	 * distance (match, NULL until enabled or first set) */
	size_t nsrc, src_cap;
	char **src_path, **src_id;
	int has_prov;
	int32_t **prov_src;
	int64_t **prov_xu;
	double *match;

	/* base layer (fused profiles; base_src NULL until enabled): per XU the
	 * source that provided it, its XU index there, and its label in that
	 * source (offset into the arena, 0 = "") */
	int32_t *base_src;
	int64_t *base_xu;
	size_t *base_lab;
	/* MPI rank per XU (NULL until enabled: every XU rank 0) */
	int32_t *rank;
	/* hash indexes of the names (util/strindex.h): loading is linear */
	struct pmcfi_index meta_ix, type_ix, ev_ix, truth_ix;
};

/* For the store: makes the profile hold exactly n XUs whose fixed fields,
 * values and truth values are left uninitialised (the caller fills every
 * one), with a label arena of arena_bytes bytes (arena_len set to 0; the
 * caller appends and sets label/parent offsets). Only on a profile with no
 * XUs. */
int pmcfi_profile_alloc_xus(pmcf_profile *p, size_t n, size_t arena_bytes);
/* pmcfi_profile_label_node, pmcfi_profile_xu_add_nodes: profile/bare.h */
/* The text of a label (label[i], parent[i] or base_lab[i] value): arena
 * text as it is, a node's text built into *buf (grown as needed, the caller
 * frees it); NULL when out of memory. No allocation held by the profile. */
const char *pmcfi_profile_label_text(const pmcf_profile *p, size_t lab, char **buf, size_t *cap);
/* Bytes the profile holds for its labels: the arena, the tree's nodes and
 * their own text, and the full texts once made. */
size_t pmcfi_profile_label_bytes(const pmcf_profile *p);

/* Enables the base layer (every XU: source -1, XU -1, label "") and makes
 * room for arena_bytes more label bytes, for the store to append to. */
int pmcfi_profile_base_enable(pmcf_profile *p, size_t arena_bytes);
/* Enables the match-distance layer (every XU NaN). */
int pmcfi_profile_match_enable(pmcf_profile *p);

/* For the store: writes the SQL layer (table xu_row, views xu_values and
 * xu_values_long; docs/profile-format.md, "SQL access") of p into db, inside
 * the save's transaction. With more than PMCF_SQL_MAX_EVENTS events, the
 * long form only (xu_row of XU fields, xu_value, xu_values_long) and a format
 * row 'sql_layer' that says so; with more than PMCFI_SQL_AUTO_VALUES values
 * (unless always), only that row, saying why. Returns an SQLite result code. */
#define PMCFI_SQL_AUTO_VALUES 8000000
struct sqlite3;
int pmcfi_sql_layer_write(struct sqlite3 *db, const pmcf_profile *p, int always);

/* Fault injection for the atomic-write tests: the next pmcf_profile_save
 * fails with -EIO at step 1 (temporary created), 2 (while writing the
 * tables) or 3 (written and synced, before the rename). 0 disables. */
void pmcfi_store_inject_fault(int step);

#endif
