/* The combination driver: checks that the inputs belong together, unites
 * their types and events, runs one strategy to pair XUs, then builds the
 * fused profile with per-value provenance, per-XU match distances and the
 * ground truth of each fused XU's first source. */
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "combine/combine_impl.h"
#include "pmcfuse/events.h"
#include "profile/bare.h"
#include "profile/ident.h"
#include "util/testhook.h"
#include "util/json_bytes.h"
#include "util/abi.h"
#include "util/internal.h"
#include "x/x.h"

/* The strategies, by enum pmcf_strategy (libpfm4's pfmlib_pmu_t style):
 * one descriptor each, in this one table, which also gives the lists of
 * names in error texts and the command's --help (pmcf_strategy_info). A new
 * strategy is one row, its enum value and its pair function. */
static const struct strategy {
	const char *name;
	const char *help;                 /* one line (the command wraps it) */
	unsigned needs;                   /* PMCF_STRATEGY_* */
	int (*pair)(struct pmcfi_cmb *c); /* fills c->src / c->nf */
} strategies[] = {
	[PMCF_COMBINE_CTC] = {"ctc", "per XU type, pair XUs by start-time order", 0, pmcfi_cmb_ctc},
	[PMCF_COMBINE_LGL] = {"lgl", "pair XUs with the same label", PMCF_STRATEGY_LABELS, pmcfi_cmb_lgl},
	[PMCF_COMBINE_BC] = {"bc",
			     "behaviour clustering on the overlapping events (default; inputs in plan "
			     "order: each shares events with those before)",
			     PMCF_STRATEGY_ORDERED, pmcfi_cmb_bc},
	[PMCF_COMBINE_BC_UNLABELED] = {"bc-unlabeled", "bc with a seeded shuffle instead of label order",
				       PMCF_STRATEGY_ORDERED | PMCF_STRATEGY_SEEDED, pmcfi_cmb_bc},
	[PMCF_COMBINE_RANDOM] = {"random", "seeded random pairing within a type (a floor)",
				 PMCF_STRATEGY_SEEDED, pmcfi_cmb_random},
	[PMCF_COMBINE_MATCH] = {"match",
				"minimum-cost matching on the linking events weighted by how well they "
				"predict each input's new events (bc's order)",
				PMCF_STRATEGY_ORDERED, pmcfi_cmb_match},
	[PMCF_COMBINE_BC_LABEL] = {"bc-label",
				   "bc, but inside a cell equal labels pair first, then the closest in the "
				   "label tree, then label order (needs labels)",
				   PMCF_STRATEGY_ORDERED | PMCF_STRATEGY_LABELS, pmcfi_cmb_bc},
	[PMCF_COMBINE_BC_LGL] = {"bc-lgl", "equal labels pair first (as lgl), bc-label the rest",
				 PMCF_STRATEGY_ORDERED | PMCF_STRATEGY_LABELS, pmcfi_cmb_bc},
	[PMCF_COMBINE_ORACLE] = {"oracle",
				 "simulated profiles only: pairs by the ground truth (the best pairing, a "
				 "ceiling beside random's floor)",
				 PMCF_STRATEGY_TRUTH, pmcfi_cmb_oracle},
	[PMCF_COMBINE_NAIVE] = {"naive",
				"per XU type, the k-th XU of a thread with the k-th of the same thread (the "
				"paper's naive baseline: exact for static schedules only)",
				0, pmcfi_cmb_naive},
};

/* The row of strategy s, or NULL. */
static const struct strategy *strategy_of(int s)
{
	if (s <= 0 || (size_t)s >= PMCF_ARRAY_SIZE(strategies) || !strategies[s].name)
		return NULL;
	return &strategies[s];
}

int pmcf_strategy_info_get(size_t i, pmcf_strategy_info *info)
{
	pmcfi_clear_error();
	if (!info)
		return pmcfi_fail(PMCF_EINVAL, "pmcf_strategy_info_get: NULL info");
	/* the i-th row in table order */
	for (size_t s = 1; s < PMCF_ARRAY_SIZE(strategies); s++) {
		if (!strategies[s].name || i--)
			continue;
		pmcf_strategy_info si = {sizeof(si), (int)s, strategies[s].name, strategies[s].help,
					 strategies[s].needs};
		return pmcfi_struct_out("pmcf_strategy_info", info, &si, sizeof(si), sizeof(si));
	}
	return PMCF_ENOENT;
}

size_t pmcf_strategy_list(unsigned needs, char *buf, size_t len)
{
	size_t off = 0;
	if (len)
		buf[0] = '\0';
	for (size_t s = 1; s < PMCF_ARRAY_SIZE(strategies); s++) {
		if (!strategies[s].name || (strategies[s].needs & needs) != needs)
			continue;
		int n = snprintf(off < len ? buf + off : NULL, off < len ? len - off : 0, "%s%s",
				 off ? ", " : "", strategies[s].name);
		off += n > 0 ? (size_t)n : 0;
	}
	return off;
}

int pmcf_strategy_parse(const char *name)
{
	for (size_t s = 1; name && s < PMCF_ARRAY_SIZE(strategies); s++)
		if (strategies[s].name && strcmp(name, strategies[s].name) == 0)
			return (int)s;
	char list[512];
	pmcf_strategy_list(0, list, sizeof(list));
	return pmcfi_fail(PMCF_EINVAL, "unknown strategy '%s' (%s)", name ? name : "", list);
}

const char *pmcf_strategy_name(int s)
{
	const struct strategy *st = strategy_of(s);
	return st ? st->name : "unknown";
}

static const char *const impute_modes[] = {"median", "rank"};

int pmcf_impute_mode_parse(const char *name)
{
	for (size_t m = 0; name && m < PMCF_ARRAY_SIZE(impute_modes); m++)
		if (strcmp(name, impute_modes[m]) == 0)
			return (int)m;
	return pmcfi_fail(PMCF_EINVAL, "unknown impute mode '%s' (median, rank)", name ? name : "");
}

const char *pmcf_impute_mode_name(int m)
{
	return m >= 0 && (size_t)m < PMCF_ARRAY_SIZE(impute_modes) ? impute_modes[m] : "unknown";
}

int pmcf_strategy_ordered(int s)
{
	const struct strategy *st = strategy_of(s);
	return st && (st->needs & PMCF_STRATEGY_ORDERED);
}

/* ---- checks -------------------------------------------------------------- */

static const char *in_name(const pmcf_combine_opts *o, size_t j, char *buf, size_t len)
{
	if (o && o->names && o->names[j])
		return o->names[j];
	snprintf(buf, len, "input %zu", j + 1);
	return buf;
}

/* The simulated workload of a spec without its seed= key. */
static void spec_sans_seed(const char *spec, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = '\0';
	while (spec && *spec) {
		const char *end = strchr(spec, ',');
		size_t n = end ? (size_t)(end - spec) : strlen(spec);
		if (!(n >= 5 && strncmp(spec, "seed=", 5) == 0) && o + n + 2 < len) {
			if (o)
				buf[o++] = ',';
			memcpy(buf + o, spec, n);
			o += n;
			buf[o] = '\0';
		}
		spec += n + (end ? 1 : 0);
	}
}

static const char *meta_or_empty(const pmcf_profile *p, const char *k)
{
	const char *v = pmcf_profile_meta_get(p, k);
	return v ? v : "";
}

/* The metadata that says which run a profile is: the program, its
 * arguments and binary, and its OMP_* environment (OMP_NUM_THREADS,
 * OMP_SCHEDULE, OMP_PROC_BIND, …: the team and the schedule). */
#define META_OMP_ENV "omp_env"
static const char *const run_keys[] = {PMCF_META_PROGRAM, PMCF_META_ARGS, PMCF_META_BINARY_SHA256,
				       META_OMP_ENV};

/* p's value of run key k ("" when absent; an absent omp_env is "{}": none
 * of the variables set). */
static const char *run_value(const pmcf_profile *p, const char *k)
{
	const char *v = meta_or_empty(p, k);
	return !*v && strcmp(k, META_OMP_ENV) == 0 ? "{}" : v;
}

static int same_program(const pmcf_profile *a, const pmcf_profile *b, const char **what)
{
	const char *const *keys = run_keys;
	for (size_t k = 0; k < PMCF_ARRAY_SIZE(run_keys); k++)
		if (strcmp(run_value(a, keys[k]), run_value(b, keys[k])) != 0) {
			*what = keys[k];
			return 0;
		}
	char sa[1024], sb[1024];
	spec_sans_seed(meta_or_empty(a, PMCF_META_SIM_SPEC), sa, sizeof(sa));
	spec_sans_seed(meta_or_empty(b, PMCF_META_SIM_SPEC), sb, sizeof(sb));
	if (strcmp(sa, sb) != 0) {
		*what = "simulated workload";
		return 0;
	}
	return 1;
}

/* One label's text at a time: pmcf_profile_xu_get would make every label
 * tree node's text at once. */
static int has_labels(const pmcf_profile *p)
{
	size_t nx = pmcf_profile_nxus(p), cap = 0;
	char *buf = NULL;
	int any = nx == 0;
	for (size_t i = 0; i < nx && !any; i++) {
		const char *s = pmcf_profile_xu_label(p, i, 0, &buf, &cap);
		any = s && s[0];
	}
	free(buf);
	return any;
}

/* The plan set of p (PMCF_META_PLAN_SET) or -1; *nsets its plan's sets. */
static long plan_set(const pmcf_profile *p, unsigned long *nsets)
{
	const char *s = pmcf_profile_meta_get(p, PMCF_META_PLAN_SET);
	const char *t = pmcf_profile_meta_get(p, PMCF_META_PLAN_SETS);
	char *e1 = NULL, *e2 = NULL;
	long k = s ? strtol(s, &e1, 10) : -1;
	*nsets = t ? strtoul(t, &e2, 10) : 0;
	if (!s || !t || *e1 || *e2 || k < 0 || (unsigned long)k >= *nsets || *nsets > 1000000)
		return -1;
	return k;
}

/* Inputs that are executions of a plan: one plan, each set once, and every
 * set unless o->partial. */
static int check_plan_sets(const pmcf_profile *const *in, size_t n, const pmcf_combine_opts *o)
{
	char b1[32], b2[32];
	size_t first = n;
	for (size_t j = 0; j < n && first == n; j++)
		if (pmcf_profile_meta_get(in[j], PMCF_META_PLAN_DIGEST))
			first = j;
	if (first == n)
		return 0;
	const char *digest = pmcf_profile_meta_get(in[first], PMCF_META_PLAN_DIGEST);
	unsigned long nsets = 0, ns;
	/* a fused profile of sets: not a set itself */
	for (size_t j = 0; j < n; j++) {
		const char *fused = pmcf_profile_meta_get(in[j], PMCF_META_PLAN_SETS_FUSED);
		if (fused)
			return pmcfi_fail(PMCF_ECONFLICT,
					  "%s is a fused profile (sets %s of its plan), not an execution of "
					  "one set; fuse the sets' own profiles",
					  in_name(o, j, b2, sizeof(b2)), fused);
	}
	/* one file's own plan_set, plan_sets wrong: that file named, once */
	for (size_t j = 0; j < n; j++)
		if (pmcf_profile_meta_get(in[j], PMCF_META_PLAN_DIGEST) && plan_set(in[j], &ns) < 0) {
			const char *s = pmcf_profile_meta_get(in[j], PMCF_META_PLAN_SET);
			const char *t = pmcf_profile_meta_get(in[j], PMCF_META_PLAN_SETS);
			return pmcfi_fail(PMCF_ECONFLICT,
					  "%s: its plan set is damaged (%s '%s' of %s '%s': a whole "
					  "number below the plan's sets); record that set again",
					  in_name(o, j, b1, sizeof(b1)), PMCF_META_PLAN_SET, s ? s : "(none)",
					  PMCF_META_PLAN_SETS, t ? t : "(none)");
		}
	plan_set(in[first], &nsets);
	for (size_t j = 0; j < n; j++) {
		const char *d = pmcf_profile_meta_get(in[j], PMCF_META_PLAN_DIGEST);
		plan_set(in[j], &ns);
		if (!d || strcmp(d, digest) != 0 || ns != nsets) {
			char why[96];
			if (!d)
				snprintf(why, sizeof(why), "the second was not recorded from a plan");
			else if (strcmp(d, digest) != 0)
				snprintf(why, sizeof(why), "plan digests differ");
			else
				snprintf(why, sizeof(why), "the same plan digest, but %lu vs %lu sets", nsets,
					 ns);
			return pmcfi_fail(PMCF_ECONFLICT,
					  "%s and %s are not executions of the same plan (%s); fuse the "
					  "sets of one plan",
					  in_name(o, first, b1, sizeof(b1)), in_name(o, j, b2, sizeof(b2)),
					  why);
		}
	}
	unsigned char *seen = calloc(nsets ? nsets : 1, sizeof(*seen));
	size_t *who = calloc(nsets ? nsets : 1, sizeof(*who));
	if (!seen || !who) {
		free(seen);
		free(who);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	}
	int err = 0;
	for (size_t j = 0; j < n && !err; j++) {
		long k = plan_set(in[j], &ns);
		if (seen[k])
			err = pmcfi_fail(PMCF_ECONFLICT, "%s and %s are both set %ld of the plan",
					 in_name(o, who[k], b1, sizeof(b1)), in_name(o, j, b2, sizeof(b2)),
					 k);
		seen[k] = 1;
		who[k] = j;
	}
	if (!err && n < nsets && !o->partial) {
		char miss[256];
		size_t len = 0, nmiss = 0;
		miss[0] = '\0';
		for (unsigned long k = 0; k < nsets; k++)
			if (!seen[k] && nmiss++ < 12 && len + 24 < sizeof(miss))
				len += (size_t)snprintf(miss + len, sizeof(miss) - len, "%s%lu",
							len ? ", " : "", k);
		err = pmcfi_fail(PMCF_ECONFLICT,
				 "the plan has %lu sets and %zu %s missing: set%s %s%s (give every set, "
				 "or set partial (--partial) to fuse what is there)",
				 nsets, nmiss, nmiss == 1 ? "is" : "are", nmiss == 1 ? "" : "s", miss,
				 nmiss > 12 ? ", …" : "");
	}
	free(seen);
	free(who);
	return err;
}

/* A fused profile is no execution: it holds the plan set of its first
 * input (plan_set), so fusing it again would take it for that set and
 * report the fusion as exact. Refused as an input. */
static int check_not_fused(const pmcf_profile *const *in, size_t n, const pmcf_combine_opts *o)
{
	char b1[32];
	for (size_t j = 0; j < n; j++) {
		const char *src = pmcf_profile_meta_get(in[j], PMCF_META_SOURCE);
		if (src && strcmp(src, "fused") == 0)
			return pmcfi_fail(PMCF_EINVAL,
					  "%s is a fused profile, not an execution: combine fuses "
					  "recorded executions (give the executions it was fused "
					  "from; `pmcfuse show` lists them as inputs)",
					  in_name(o, j, b1, sizeof(b1)));
	}
	return 0;
}

/* The linking events (those two or more inputs share, which pair the XUs)
 * must be finite: an infinite value has no place in an order or a
 * distance (it crashed bc). Missing values (NaN) are allowed: every
 * strategy treats them as missing. */
static int check_linking_finite(const pmcf_profile *const *in, size_t n, const pmcf_combine_opts *o)
{
	char b1[32];
	for (size_t j = 0; j < n; j++) {
		size_t ne = pmcf_profile_nevents(in[j]), nx = pmcf_profile_nxus(in[j]);
		for (size_t e = 0; e < ne; e++) {
			const char *name = pmcf_profile_event_name(in[j], e);
			int shared = 0;
			for (size_t k = 0; k < n && !shared; k++)
				shared = k != j && pmcf_profile_event_find(in[k], name) >= 0;
			const double *col = shared ? pmcf_profile_column_const(in[j], e) : NULL;
			size_t bad = 0, first = 0;
			for (size_t x = 0; col && x < nx; x++)
				if (isinf(col[x]) && !bad++)
					first = x;
			if (bad)
				return pmcfi_fail(PMCF_EINVAL,
						  "%s: the linking event '%s' is infinite on %zu of its "
						  "%zu XU%s (XU %zu: %s): XUs are paired by the events the "
						  "inputs share, which must be finite (record it again)",
						  in_name(o, j, b1, sizeof(b1)), name, bad, nx,
						  nx == 1 ? "" : "s", first, col[first] > 0 ? "inf" : "-inf");
		}
	}
	return 0;
}

/* The caller's options, checked, over the defaults (fields after threads
 * came later). */
static int opts_in(const pmcf_combine_opts *o, pmcf_combine_opts *local)
{
	*local = (pmcf_combine_opts)PMCF_COMBINE_OPTS_INIT;
	return pmcfi_struct_in("pmcf_combine_opts", local, o, offsetof(pmcf_combine_opts, threads),
			       sizeof(*local));
}

int pmcf_combine_check_run(const pmcf_profile *const *in, size_t n, const pmcf_combine_opts *opts)
{
	pmcfi_clear_error();
	char b1[32], b2[32];
	if (!in || !n || !opts)
		return pmcfi_fail(PMCF_EINVAL, "combine needs at least one profile and options");
	pmcf_combine_opts local, *o = &local;
	int rc = opts_in(opts, o);
	if (rc)
		return rc;
	if (!strategy_of(o->strategy))
		return pmcfi_fail(PMCF_EINVAL,
				  "pmcf_combine_opts.strategy %d is no strategy (start from "
				  "PMCF_COMBINE_OPTS_INIT: %s)",
				  o->strategy,
				  pmcf_strategy_name(((pmcf_combine_opts)PMCF_COMBINE_OPTS_INIT).strategy));
	for (size_t j = 0; j < n; j++) {
		if (!in[j])
			return pmcfi_fail(PMCF_EINVAL, "profile %zu is NULL", j + 1);
		if (!pmcf_profile_nevents(in[j]))
			return pmcfi_fail(PMCF_EINVAL, "%s has no events", in_name(o, j, b1, sizeof(b1)));
	}
	for (size_t j = 1; j < n && !o->force; j++) {
		const char *what;
		if (!same_program(in[0], in[j], &what)) {
			int sim = strcmp(what, "simulated workload") == 0;
			char sa[256], sb[256];
			if (sim) {
				spec_sans_seed(meta_or_empty(in[0], PMCF_META_SIM_SPEC), sa, sizeof(sa));
				spec_sans_seed(meta_or_empty(in[j], PMCF_META_SIM_SPEC), sb, sizeof(sb));
			} else {
				snprintf(sa, sizeof(sa), "%s", run_value(in[0], what));
				snprintf(sb, sizeof(sb), "%s", run_value(in[j], what));
			}
			return pmcfi_fail(PMCF_ECONFLICT,
					  "%s and %s are not the same program run (%s '%s' vs '%s'%s); "
					  "set force (--force) to fuse them anyway",
					  in_name(o, 0, b1, sizeof(b1)), in_name(o, j, b2, sizeof(b2)), what,
					  sa, sb,
					  strcmp(what, META_OMP_ENV) == 0
						  ? ": the OMP_* variables change the team and the schedule"
						  : "");
		}
	}
	return 0;
}

/* A stopped or failed execution (complete 0) is no full execution: only
 * o->partial fuses it, and the result is then marked incomplete. */
static int check_complete(const pmcf_profile *const *in, size_t n, const pmcf_combine_opts *o)
{
	char b1[32];
	int partial = o->partial;
	for (size_t j = 0; j < n && !partial; j++) {
		const char *done = pmcf_profile_meta_get(in[j], PMCF_META_COMPLETE);
		if (done && strcmp(done, "0") == 0)
			return pmcfi_fail(
				PMCF_ECONFLICT,
				"%s is incomplete (its program was stopped or failed: "
				"complete 0); record it again, or set partial (--partial) to fuse it "
				"anyway",
				in_name(o, j, b1, sizeof(b1)));
	}
	return 0;
}

int pmcf_combine_check(const pmcf_profile *const *in, size_t n, const pmcf_combine_opts *opts)
{
	char b1[32];
	int err = pmcf_combine_check_run(in, n, opts);
	pmcf_combine_opts local, *o = &local;
	if (!err)
		err = opts_in(opts, o);
	if (!err)
		err = check_not_fused(in, n, o);
	if (!err)
		err = check_plan_sets(in, n, o);
	if (!err)
		err = check_complete(in, n, o);
	if (!err)
		err = check_linking_finite(in, n, o);
	if (err)
		return err;
	if (o->strategy == PMCF_COMBINE_ORACLE)
		for (size_t j = 0; j < n; j++) {
			const char *src = pmcf_profile_meta_get(in[j], PMCF_META_SOURCE);
			if (!src || strcmp(src, "sim") != 0 || !pmcf_profile_ntruth(in[j]))
				return pmcfi_fail(
					PMCF_EINVAL,
					"%s is not a simulated profile with ground truth; the "
					"oracle pairs by the truth (pmcf_source_new_sim; record --sim)",
					in_name(o, j, b1, sizeof(b1)));
		}
	if ((strategy_of(o->strategy)->needs & PMCF_STRATEGY_LABELS))
		for (size_t j = 0; j < n; j++)
			if (!has_labels(in[j]))
				return pmcfi_fail(PMCF_EINVAL,
						  "%s has no XU labels; %s pairs XUs by label "
						  "(use ctc or bc-unlabeled)",
						  in_name(o, j, b1, sizeof(b1)),
						  pmcf_strategy_name(o->strategy));
	if (pmcf_strategy_ordered(o->strategy)) {
		/* fuse-task-parallel §3.2: E_i ∩ (E_1 ∪ … ∪ E_{i-1}) ≠ ∅ for i ≥ 2 */
		for (size_t j = 1; j < n; j++) {
			int shared = 0;
			size_t ne = pmcf_profile_nevents(in[j]);
			for (size_t e = 0; e < ne && !shared; e++) {
				const char *name = pmcf_profile_event_name(in[j], e);
				for (size_t k = 0; k < j && !shared; k++)
					shared = pmcf_profile_event_find(in[k], name) >= 0;
			}
			if (!shared)
				return pmcfi_fail(PMCF_EINVAL,
						  "%s shares no event with the profiles before it; %s "
						  "needs each event set to overlap the union of the "
						  "previous ones (reorder the inputs or record with "
						  "overlapping events)",
						  in_name(o, j, b1, sizeof(b1)),
						  pmcf_strategy_name(o->strategy));
		}
	}
	return 0;
}

/* ---- setup: types and events ----------------------------------------------------- */

static int setup(struct pmcfi_cmb *c)
{
	int err = pmcf_profile_new(&c->out);
	if (err)
		return err;
	c->tmap = calloc(c->n, sizeof(*c->tmap));
	c->evidx = calloc(c->n, sizeof(*c->evidx));
	if (!c->tmap || !c->evidx)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	for (size_t j = 0; j < c->n; j++) {
		size_t nt = pmcf_profile_ntypes(c->in[j]);
		c->tmap[j] = malloc((nt ? nt : 1) * sizeof(uint32_t));
		if (!c->tmap[j])
			return pmcfi_fail(PMCF_ENOMEM, "out of memory");
		for (uint32_t t = 0; t < nt; t++) {
			pmcf_xu_type ty = PMCF_XU_TYPE_INIT;
			if ((err = pmcf_profile_type_get(c->in[j], t, &ty)) ||
			    (err = pmcf_profile_type_add(c->out, ty.kind, ty.name, ty.location,
							 &c->tmap[j][t])))
				return err;
			const char *callee = pmcf_profile_type_callee(c->in[j], t);
			if (*callee && !*pmcf_profile_type_callee(c->out, c->tmap[j][t]) &&
			    (err = pmcf_profile_type_callee_set(c->out, c->tmap[j][t], callee)))
				return err;
		}
	}
	c->nftypes = (uint32_t)pmcf_profile_ntypes(c->out);
	/* groups: XUs of different MPI ranks are never paired */
	uint32_t nranks = 1;
	for (size_t j = 0; j < c->n; j++) {
		uint32_t r = pmcf_profile_nranks(c->in[j]);
		nranks = r > nranks ? r : nranks;
		c->ranks |= pmcf_profile_has_ranks(c->in[j]);
	}
	if (c->nftypes && nranks > (UINT32_MAX / 4) / c->nftypes)
		return pmcfi_fail(PMCF_EINVAL, "%u MPI ranks x %u XU types are too many groups to pair",
				  nranks, c->nftypes);
	c->ntypes = c->nftypes * nranks;
	/* events: duration first when any input has it, then input order */
	for (size_t j = 0; j < c->n; j++)
		if (pmcf_profile_event_find(c->in[j], PMCF_EVENT_DURATION) >= 0) {
			if ((err = pmcf_profile_event_add(c->out, PMCF_EVENT_DURATION, NULL)))
				return err;
			break;
		}
	for (size_t j = 0; j < c->n; j++)
		for (size_t e = 0; e < pmcf_profile_nevents(c->in[j]); e++) {
			const char *name = pmcf_profile_event_name(c->in[j], e);
			if (pmcf_profile_event_find(c->out, name) < 0 &&
			    (err = pmcf_profile_event_add(c->out, name, NULL)))
				return err;
		}
	c->nev = pmcf_profile_nevents(c->out);
	c->owners = calloc(c->nev, sizeof(*c->owners));
	c->nowners = calloc(c->nev, sizeof(*c->nowners));
	if (!c->owners || !c->nowners)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	for (size_t j = 0; j < c->n; j++) {
		c->evidx[j] = malloc(c->nev * sizeof(long));
		if (!c->evidx[j])
			return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	}
	c->icol = malloc((c->nev ? c->nev : 1) * c->n * sizeof(*c->icol));
	if (!c->icol)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	for (size_t e = 0; e < c->nev; e++) {
		c->owners[e] = malloc(c->n * sizeof(uint32_t));
		if (!c->owners[e])
			return pmcfi_fail(PMCF_ENOMEM, "out of memory");
		const char *name = pmcf_profile_event_name(c->out, e);
		for (size_t j = 0; j < c->n; j++) {
			long k = pmcf_profile_event_find(c->in[j], name);
			c->evidx[j][e] = k >= 0 ? k : -1;
			c->icol[e * c->n + j] =
				k >= 0 ? pmcf_profile_column_const(c->in[j], (size_t)k) : NULL;
			if (k >= 0)
				c->owners[e][c->nowners[e]++] = (uint32_t)j;
		}
	}
	return pmcfi_cmb_ltree_build(c);
}

static void teardown(struct pmcfi_cmb *c)
{
	for (size_t j = 0; j < c->n; j++) {
		if (c->tmap)
			free(c->tmap[j]);
		if (c->evidx)
			free(c->evidx[j]);
	}
	for (size_t e = 0; c->owners && e < c->nev; e++)
		free(c->owners[e]);
	free(c->tmap);
	free(c->evidx);
	free(c->owners);
	free(c->nowners);
	free(c->icol);
	free(c->src);
	free(c->lab);
	free(c->lablen);
	free(c->lnode);
	free(c->lomap);
	pmcfi_cmb_ltree_free(c->lt);
	free(c->ftype);
	pmcf_profile_free(c->out);
}

/* ---- building the fused profile ---------------------------------------------------- */

static int first_source(const struct pmcfi_cmb *c, size_t f)
{
	for (size_t j = 0; j < c->n; j++)
		if (c->src[f * c->n + j] >= 0)
			return (int)j;
	return -1;
}

/* Labels taken whole from a source XU are unique in the fused profile:
 * unequal XU counts (ctc, random, bc's surplus) or an input repeating a
 * label would otherwise give two fused XUs the same one. Inputs take
 * precedence in order (then XU order); a later XU with a label already
 * taken becomes "LABEL~K", the smallest K >= 2 free. First common
 * ancestors (bc) name a subtree and stay shared; empty labels stay empty.
 * Sets *roff[f] to the offset in *names of XU f's new label, or SIZE_MAX. */
struct ulab {
	const struct pmcfi_cmb *c;
	const int32_t *base; /* base input of each fused XU */
	size_t *roff;
	char *names;
	size_t len, cap;
	int64_t *slot;
	size_t mask;
};

static const char *src_label(const struct pmcfi_cmb *c, size_t f, int j)
{
	pmcf_xu xu = PMCF_XU_INIT;
	pmcf_profile_xu_get(c->in[j], (size_t)c->src[f * c->n + (size_t)j], &xu);
	return xu.label;
}

static const char *ulab_str(const struct ulab *u, size_t f)
{
	return u->roff[f] != SIZE_MAX ? u->names + u->roff[f] : src_label(u->c, f, u->base[f]);
}

/* The slot holding label s, or the empty slot where it belongs. */
static size_t ulab_find(const struct ulab *u, const char *s)
{
	size_t h = (size_t)pmcfi_cmb_hash(PMCFI_CMB_HASH0, s, strlen(s)) & u->mask;
	while (u->slot[h] >= 0 && strcmp(ulab_str(u, (size_t)u->slot[h]), s) != 0)
		h = (h + 1) & u->mask;
	return h;
}

static int unique_labels(const struct pmcfi_cmb *c, const int32_t *base, size_t **roff_out, char **names)
{
	struct ulab u = {.c = c, .base = base};
	size_t nslot = 16;
	while (nslot < 2 * c->nf)
		nslot *= 2;
	u.mask = nslot - 1;
	u.roff = malloc((c->nf ? c->nf : 1) * sizeof(*u.roff));
	u.slot = malloc(nslot * sizeof(*u.slot));
	uint32_t *next = malloc((c->nf ? c->nf : 1) * sizeof(*next)); /* K to try */
	unsigned char *lose = calloc(c->nf ? c->nf : 1, 1);
	int err = 0;
	if (!u.roff || !u.slot || !next || !lose) {
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
		goto out;
	}
	memset(u.slot, 0xff, nslot * sizeof(*u.slot));
	for (size_t f = 0; f < c->nf; f++)
		u.roff[f] = SIZE_MAX;
	/* pass 1: every whole source label, inputs in order; pass 2: the
	 * losers renamed, each K checked against everything already taken */
	for (int pass = 1; pass <= 2 && !err; pass++)
		for (size_t j = 0; j < c->n && !err; j++)
			for (size_t f = 0; f < c->nf && !err; f++) {
				if (base[f] != (int32_t)j || (pass == 2 && !lose[f]))
					continue;
				const char *s = src_label(c, f, (int)j);
				size_t l = strlen(s);
				if (!l || (c->lab[f] && c->lablen[f] != l))
					continue;
				size_t h = ulab_find(&u, s);
				if (pass == 1) {
					if (u.slot[h] >= 0) {
						lose[f] = 1;
					} else {
						u.slot[h] = (int64_t)f;
						next[f] = 2;
					}
					continue;
				}
				int64_t w = u.slot[h]; /* the XU that kept the label */
				size_t need = u.len + l + 16;
				if (pmcfi_grow((void **)&u.names, &u.cap, need < 4096 ? 4096 : need, 1)) {
					err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
					break;
				}
				u.roff[f] = u.len;
				do
					snprintf(u.names + u.len, l + 16, "%s~%u", s, next[w]++);
				while (u.slot[h = ulab_find(&u, u.names + u.len)] >= 0);
				u.slot[h] = (int64_t)f;
				u.len += strlen(u.names + u.len) + 1;
			}
out:
	free(u.slot);
	free(next);
	free(lose);
	if (err) {
		free(u.roff);
		free(u.names);
		return err;
	}
	*roff_out = u.roff;
	*names = u.names;
	return 0;
}

static int add_xus(struct pmcfi_cmb *c)
{
	int err = pmcf_profile_reserve(c->out, c->nf);
	if (err)
		return err;
	int32_t *base = malloc((c->nf ? c->nf : 1) * sizeof(*base));
	if (!base)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	for (size_t f = 0; f < c->nf; f++)
		base[f] = first_source(c, f);
	size_t *roff = NULL;
	char *names = NULL, *buf = NULL;
	size_t bufcap = 0;
	uint32_t *olab = NULL; /* with a label tree: the labels as its nodes */
	err = c->lt ? pmcfi_cmb_ltree_out(c, base, &olab) : unique_labels(c, base, &roff, &names);
	for (size_t f = 0; f < c->nf && !err; f++) {
		int j = base[f];
		size_t x = j < 0 ? 0 : (size_t)c->src[f * c->n + (size_t)j];
		pmcf_xu xu = PMCF_XU_INIT;
		if (j < 0 || (err = olab ? pmcf_profile_xu_fields_get(c->in[j], x, &xu)
					 : pmcf_profile_xu_get(c->in[j], x, &xu)))
			break;
		xu.type = c->ftype[f] % (c->nftypes ? c->nftypes : 1);
		if (olab) {
			xu.label = xu.parent_label = "";
		} else if (roff[f] != SIZE_MAX) {
			xu.label = names + roff[f];
		} else if (c->lab[f] && c->lablen[f] != strlen(xu.label)) {
			/* a first common ancestor; the parent label stays the base
			 * XU's (a label of that input, which joins with it) */
			size_t l = c->lablen[f];
			if (pmcfi_grow((void **)&buf, &bufcap, l + 1, 1)) {
				err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
				break;
			}
			memcpy(buf, c->lab[f], l);
			buf[l] = '\0';
			xu.label = buf;
		}
		/* values and provenance: fill_values writes each once */
		size_t i;
		err = c->ranks ? pmcf_profile_xu_add(c->out, &xu, &i)
			       : pmcfi_profile_xu_add_bare(c->out, &xu, &i);
		if (!err && olab)
			err = pmcfi_profile_xu_set_label_nodes(c->out, i, olab[f],
							       c->lomap[c->lt->xpar[j][x]]);
		if (!err && c->ranks)
			err = pmcf_profile_rank_set(c->out, i, (int32_t)(c->ftype[f] / c->nftypes));
	}
	free(buf);
	free(names);
	free(roff);
	free(olab);
	free(base);
	return err;
}

/* Base labels: each fused XU's source that provided it, and its label
 * there (fill_values has listed the sources, in input order). */
static int set_base_labels(struct pmcfi_cmb *c)
{
	int err = 0;
	for (size_t f = 0; f < c->nf && !err; f++) {
		int j = first_source(c, f);
		int32_t x = c->src[f * c->n + (size_t)j];
		pmcf_xu xu = PMCF_XU_INIT;
		if (c->lt)
			err = pmcfi_profile_base_label_set_node(c->out, f, j, x, c->lomap[c->lt->xlab[j][x]]);
		else if (!(err = pmcf_profile_xu_get(c->in[j], (size_t)x, &xu)))
			err = pmcf_profile_base_label_set(c->out, f, j, x, xu.label);
	}
	return err;
}

/* Runs fn(arg, t, nt) for t = 0 .. nt-1, each on its own thread (t = 0 on
 * this one; a part whose thread cannot be started runs here too). The parts
 * write disjoint memory, so the result never depends on nt. */
struct part_job {
	void (*fn)(void *arg, size_t t, size_t nt);
	void *arg;
	size_t t, nt;
};

static void *part_thread(void *arg)
{
	struct part_job *P = arg;
	P->fn(P->arg, P->t, P->nt);
	return NULL;
}

static int on_threads(size_t nt, void (*fn)(void *arg, size_t t, size_t nt), void *arg)
{
	if (nt <= 1) {
		fn(arg, 0, 1);
		return 0;
	}
	struct part_job *P = malloc(nt * sizeof(*P));
	pthread_t *tid = malloc(nt * sizeof(*tid));
	if (!P || !tid) {
		free(P);
		free(tid);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	}
	size_t started = 1;
	for (size_t t = 0; t < nt; t++)
		P[t] = (struct part_job){fn, arg, t, nt};
	for (; started < nt; started++)
		if (pthread_create(&tid[started], NULL, part_thread, &P[started]) != 0)
			break;
	for (size_t t = started; t < nt; t++) /* no thread for these: here */
		fn(arg, t, nt);
	fn(arg, 0, nt);
	for (size_t t = 1; t < started; t++)
		pthread_join(tid[t], NULL);
	free(P);
	free(tid);
	return 0;
}

size_t pmcfi_cmb_fill_thread_min = 65536;

/* Threads for a pass over the fused profile of about `work` values: up to
 * pmcfi_cmb_cpus() from pmcfi_cmb_fill_thread_min values on, at most `most`. */
static size_t pass_threads(const struct pmcfi_cmb *c, size_t work, size_t most)
{
	size_t nt = pmcfi_cmb_cpus(c);
	nt = nt < most ? nt : most;
	return work >= pmcfi_cmb_fill_thread_min && nt ? nt : 1;
}

/* Fused event e: each fused XU's value and provenance from its first
 * source that monitored e, else a missing value and source -1 (add_xus and
 * the provenance layer left them unwritten: this is the one write of each).
 * Writes only column e of c->out (threads may fill different events at
 * once). */
static void fill_event(struct pmcfi_cmb *c, size_t e)
{
	double *col = pmcf_profile_column(c->out, e);
	int32_t *psrc;
	int64_t *pxu;
	pmcfi_profile_provenance_columns(c->out, e, &psrc, &pxu);
	const uint32_t *own = c->owners[e], no = c->nowners[e];
	const double *const *icol = c->icol + e * c->n;
	for (size_t f = 0; f < c->nf; f++) {
		const int32_t *row = c->src + f * c->n;
		double v = PMCF_MISSING;
		int32_t s = -1, x = -1;
		for (uint32_t k = 0; k < no; k++) {
			uint32_t j = own[k];
			if (row[j] >= 0) {
				v = icol[j][row[j]];
				s = (int32_t)j;
				x = row[j];
				break;
			}
		}
		col[f] = v;
		psrc[f] = s;
		pxu[f] = x;
	}
}

/* Events t, t + nt, ... (each column written by one thread). */
static void fill_part(void *arg, size_t t, size_t nt)
{
	struct pmcfi_cmb *c = arg;
	for (size_t e = t; e < c->nev; e += nt)
		fill_event(c, e);
}

/* The inputs' identities (content digests: linear in their labels' text)
 * t, t + nt, ... into ids. */
struct ident_job {
	const struct pmcfi_cmb *c;
	char **ids;
};

static void ident_part(void *arg, size_t t, size_t nt)
{
	struct ident_job *J = arg;
	for (size_t j = t; j < J->c->n; j += nt)
		J->ids[j] = pmcfi_profile_ident(J->c->in[j]);
}

static int fill_values(struct pmcfi_cmb *c)
{
	int err = pmcfi_profile_provenance_enable_bare(c->out);
	struct ident_job J = {c, calloc(c->n, sizeof(char *))};
	if (!err && !J.ids)
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
	if (!err)
		err = on_threads(pass_threads(c, c->nf * c->n, c->n), ident_part, &J);
	for (size_t j = 0; j < c->n && !err; j++) {
		char b[32];
		const char *path = in_name(c->opts, j, b, sizeof(b));
		/* stored absolute: the fused profile is read from anywhere */
		char *abs = c->opts && c->opts->names && c->opts->names[j] ? realpath(path, NULL) : NULL;
		err = J.ids[j] ? pmcf_profile_source_add(c->out, abs ? abs : path, J.ids[j],
							 NULL) /* checked when reopened */
			       : pmcfi_fail(PMCF_ENOMEM, "out of memory");
		free(abs);
	}
	for (size_t j = 0; J.ids && j < c->n; j++)
		free(J.ids[j]);
	free(J.ids);
	return err ? err : on_threads(pass_threads(c, c->nf * c->nev, c->nev), fill_part, c);
}

/* Match distance (see combine.h): for each event monitored by several
 * sources of a fused XU, the differences to the first source's value,
 * each over the event's range within the XU type. In three passes on
 * threads: the type of every input XU (inputs interleaved), each event's
 * range per type (events interleaved), then the distances (fused XUs in
 * ranges: each sums its events in event order, as on one thread). */
struct md_job {
	struct pmcfi_cmb *c;
	size_t nt;       /* types (groups) */
	size_t nme, *me; /* the events with several sources */
	uint32_t **ty;   /* per input, the type of each XU */
	double *lo, *hi; /* per event of me and type */
	double *md;      /* per fused XU: the sum of squares, then the distance */
	uint32_t *cnt;   /* per fused XU: the terms summed */
};

static void md_types(void *arg, size_t t, size_t nt)
{
	struct md_job *M = arg;
	for (size_t j = t; j < M->c->n; j += nt) {
		size_t nx = pmcf_profile_nxus(M->c->in[j]);
		for (size_t x = 0; x < nx; x++)
			M->ty[j][x] = pmcfi_cmb_type(M->c, j, x);
	}
}

static void md_ranges(void *arg, size_t t, size_t nt)
{
	struct md_job *M = arg;
	const struct pmcfi_cmb *c = M->c;
	for (size_t q = t; q < M->nme; q += nt) {
		size_t e = M->me[q];
		double *lo = M->lo + q * M->nt, *hi = M->hi + q * M->nt;
		for (size_t y = 0; y < M->nt; y++) {
			lo[y] = INFINITY;
			hi[y] = -INFINITY;
		}
		for (uint32_t k = 0; k < c->nowners[e]; k++) {
			size_t j = c->owners[e][k];
			const double *col = c->icol[e * c->n + j];
			const uint32_t *ty = M->ty[j];
			size_t nx = pmcf_profile_nxus(c->in[j]);
			for (size_t x = 0; x < nx; x++) {
				double v = col[x];
				if (pmcf_is_missing(v))
					continue;
				uint32_t y = ty[x];
				if (v < lo[y])
					lo[y] = v;
				if (v > hi[y])
					hi[y] = v;
			}
		}
	}
}

static void md_xus(void *arg, size_t t, size_t nt)
{
	struct md_job *M = arg;
	const struct pmcfi_cmb *c = M->c;
	size_t f0 = c->nf * t / nt, f1 = c->nf * (t + 1) / nt;
	double *sum = M->md;
	uint32_t *cnt = M->cnt;
	for (size_t f = f0; f < f1; f++) {
		sum[f] = 0;
		cnt[f] = 0;
	}
	for (size_t q = 0; q < M->nme; q++) { /* an event at a time: fewer columns read at once */
		size_t e = M->me[q];
		const double *const *icol = c->icol + e * c->n;
		const double *lo = M->lo + q * M->nt, *hi = M->hi + q * M->nt;
		for (size_t f = f0; f < f1; f++) {
			const int32_t *row = c->src + f * c->n;
			double first = NAN, range = hi[c->ftype[f]] - lo[c->ftype[f]];
			for (uint32_t k = 0; k < c->nowners[e]; k++) {
				size_t j = c->owners[e][k];
				if (row[j] < 0)
					continue;
				double v = icol[j][row[j]];
				if (pmcf_is_missing(v))
					continue;
				if (pmcf_is_missing(first)) {
					first = v;
					continue;
				}
				double dd = range > 0 ? (v - first) / range : 0.0;
				sum[f] += dd * dd;
				cnt[f]++;
			}
		}
	}
	for (size_t f = f0; f < f1; f++)
		sum[f] = cnt[f] ? sqrt(sum[f] / cnt[f]) : PMCF_MISSING;
}

static int match_distances(struct pmcfi_cmb *c)
{
	struct md_job M = {.c = c, .nt = c->ntypes ? c->ntypes : 1};
	size_t nx = 0;
	for (size_t j = 0; j < c->n; j++)
		nx += pmcf_profile_nxus(c->in[j]);
	M.me = malloc((c->nev ? c->nev : 1) * sizeof(*M.me));
	M.ty = calloc(c->n, sizeof(*M.ty));
	uint32_t *tyall = malloc((nx ? nx : 1) * sizeof(*tyall));
	M.md = malloc((c->nf ? c->nf : 1) * sizeof(*M.md));
	M.cnt = malloc((c->nf ? c->nf : 1) * sizeof(*M.cnt));
	int err = 0;
	if (!M.me || !M.ty || !tyall || !M.md || !M.cnt) {
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t e = 0; e < c->nev; e++)
		if (c->nowners[e] >= 2)
			M.me[M.nme++] = e;
	M.lo = malloc((M.nme ? M.nme : 1) * M.nt * sizeof(double));
	M.hi = malloc((M.nme ? M.nme : 1) * M.nt * sizeof(double));
	if (!M.lo || !M.hi) {
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t j = 0, o = 0; j < c->n; o += pmcf_profile_nxus(c->in[j]), j++)
		M.ty[j] = tyall + o;
	size_t work = c->nf * c->n * (M.nme ? M.nme : 1);
	if (M.nme && !(err = on_threads(pass_threads(c, work, c->n), md_types, &M)))
		err = on_threads(pass_threads(c, work, M.nme), md_ranges, &M);
	if (!err)
		err = on_threads(M.nme ? pass_threads(c, work, c->nf) : 1, md_xus, &M);
	for (size_t f = 0; f < c->nf && !err; f++)
		err = pmcf_profile_match_distance_set(c->out, f, M.md[f]);
out:
	free(M.me);
	free(M.ty);
	free(tyall);
	free(M.md);
	free(M.cnt);
	free(M.lo);
	free(M.hi);
	return err;
}

/* Ground truth of each fused XU: that of its first source XU. */
static int copy_truth(struct pmcfi_cmb *c)
{
	size_t nt = pmcf_profile_ntruth(c->in[0]);
	for (size_t j = 1; j < c->n; j++)
		if (!pmcf_profile_ntruth(c->in[j]))
			return 0;
	long *map = malloc(c->n * sizeof(long));
	if (!map)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	int err = 0;
	for (size_t t = 0; t < nt && !err; t++) {
		const char *name = pmcf_profile_truth_name(c->in[0], t);
		size_t ti;
		if ((err = pmcf_profile_truth_event_add(c->out, name, &ti)))
			break;
		for (size_t j = 0; j < c->n; j++)
			map[j] = pmcf_profile_truth_find(c->in[j], name);
		double *col = pmcf_profile_truth_column(c->out, ti);
		for (size_t f = 0; f < c->nf; f++) {
			int j = first_source(c, f);
			col[f] = map[j] >= 0 ? pmcf_profile_truth_column_const(c->in[j], (size_t)map[j])
						       [c->src[f * c->n + (size_t)j]]
					     : PMCF_MISSING;
		}
	}
	free(map);
	return err;
}

/* Inputs of different runs (fused with force): for each run key (and the
 * simulated workload) whose values differ, KEY_inputs holds every input's
 * value in input order, a JSON array (JSON values as they are, other text
 * as strings, null when absent); KEY itself keeps the first input's. */
static int differing_run_keys(struct pmcfi_cmb *c)
{
	const char *keys[PMCF_ARRAY_SIZE(run_keys) + 1];
	memcpy(keys, run_keys, sizeof(run_keys));
	keys[PMCF_ARRAY_SIZE(run_keys)] = PMCF_META_SIM_SPEC;
	int err = 0;
	for (size_t k = 0; k < PMCF_ARRAY_SIZE(keys) && !err; k++) {
		int differ = 0;
		for (size_t j = 1; j < c->n; j++)
			differ |= strcmp(run_value(c->in[0], keys[k]), run_value(c->in[j], keys[k])) != 0;
		if (!differ)
			continue;
		json_t *arr = json_array();
		for (size_t j = 0; arr && j < c->n; j++) {
			const char *v = pmcf_profile_meta_get(c->in[j], keys[k]);
			json_t *x = !v ? json_null() : json_loads(v, JSON_DECODE_ANY, NULL);
			if (v && !x)
				x = pmcfi_json_bytes(v);
			if (!x || json_array_append_new(arr, x)) {
				json_decref(arr);
				arr = NULL;
			}
		}
		char *txt = arr ? json_dumps(arr, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
		json_decref(arr);
		char key[64];
		snprintf(key, sizeof(key), "%s_inputs", keys[k]);
		err = txt ? pmcf_profile_meta_set(c->out, key, txt)
			  : pmcfi_fail(PMCF_ENOMEM, "out of memory");
		free(txt);
	}
	return err;
}

/* PMCF_META_USER_SPACE_ONLY of the fused profile: the events any input
 * counted in user space only, in the fused profile's event order (each
 * execution lists its own set's). */
static int union_user_only(struct pmcfi_cmb *c)
{
	json_t *all = json_array();
	if (!all)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	int any = 0;
	for (size_t j = 0; j < c->n; j++) {
		const char *v = pmcf_profile_meta_get(c->in[j], PMCF_META_USER_SPACE_ONLY);
		json_t *a = v ? json_loads(v, 0, NULL) : NULL;
		any |= a != NULL;
		for (size_t k = 0; json_is_array(a) && k < json_array_size(a); k++)
			json_array_append(all, json_array_get(a, k));
		json_decref(a);
	}
	json_t *out = json_array();
	for (size_t e = 0; out && e < c->nev; e++) {
		const char *name = pmcf_profile_event_name(c->out, e);
		for (size_t k = 0; k < json_array_size(all); k++) {
			const char *s = json_string_value(json_array_get(all, k));
			if (s && strcmp(s, name) == 0) {
				json_array_append_new(out, json_string(name));
				break;
			}
		}
	}
	json_decref(all);
	int err = 0;
	if (!out)
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
	else if (any) {
		char *txt = json_dumps(out, JSON_COMPACT);
		err = txt ? pmcf_profile_meta_set(c->out, PMCF_META_USER_SPACE_ONLY, txt)
			  : pmcfi_fail(PMCF_ENOMEM, "out of memory");
		free(txt);
	}
	json_decref(out);
	return err;
}

static int set_meta(struct pmcfi_cmb *c)
{
	static const char *const drop[] = {PMCF_META_SOURCE,         PMCF_META_SEED,
					   PMCF_META_START_TIME,     PMCF_META_EXIT_STATUS,
					   PMCF_META_COMPLETE,       PMCF_META_STRATEGY,
					   PMCF_META_CPU_TIME_NS,    "inputs",
					   "combine_seed",           "combine_impute",
					   "combine_impute_mode",    PMCF_META_PLAN_SET,
					   PMCF_META_PLAN_SETS_FUSED};
	const pmcf_profile *p0 = c->in[0];
	int err = 0;
	for (size_t i = 0; i < pmcf_profile_meta_count(p0) && !err; i++) {
		const char *k, *v;
		pmcf_profile_meta_at(p0, i, &k, &v);
		int skip = 0;
		for (size_t d = 0; d < PMCF_ARRAY_SIZE(drop); d++)
			skip |= strcmp(k, drop[d]) == 0;
		if (!skip)
			err = pmcf_profile_meta_set(c->out, k, v);
	}
	if (!err)
		err = differing_run_keys(c);
	if (!err)
		err = union_user_only(c);
	int complete = 1;
	for (size_t j = 0; j < c->n; j++)
		complete &= pmcf_profile_complete(c->in[j]);
	/* inputs: a JSON array of the input names */
	size_t len = 3;
	char b[32];
	for (size_t j = 0; j < c->n; j++)
		len += 2 * strlen(in_name(c->opts, j, b, sizeof(b))) + 4;
	char *js = malloc(len);
	if (!js)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	size_t o = 0;
	js[o++] = '[';
	for (size_t j = 0; j < c->n; j++) {
		if (j)
			js[o++] = ',';
		js[o++] = '"';
		for (const char *s = in_name(c->opts, j, b, sizeof(b)); *s; s++) {
			if (*s == '"' || *s == '\\')
				js[o++] = '\\';
			js[o++] = (unsigned char)*s < 0x20 ? '?' : *s;
		}
		js[o++] = '"';
	}
	js[o++] = ']';
	js[o] = '\0';
	char seed[32];
	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)c->opts->seed);
	if (!err)
		err = pmcf_profile_meta_set(c->out, PMCF_META_SOURCE, "fused");
	if (!err)
		err = pmcf_profile_meta_set(c->out, PMCF_META_STRATEGY,
					    pmcf_strategy_name(c->opts->strategy));
	if (!err)
		err = pmcf_profile_meta_set(c->out, "inputs", js);
	if (!err && (strategy_of(c->opts->strategy)->needs & PMCF_STRATEGY_SEEDED))
		err = pmcf_profile_meta_set(c->out, "combine_seed", seed);
	if (!err && c->opts->impute) {
		snprintf(seed, sizeof(seed), "%u", c->opts->impute);
		err = pmcf_profile_meta_set(c->out, "combine_impute", seed);
		if (!err)
			err = pmcf_profile_meta_set(c->out, "combine_impute_mode",
						    pmcf_impute_mode_name(c->opts->impute_mode));
	}
	if (!err)
		err = pmcf_profile_meta_set(c->out, PMCF_META_COMPLETE, complete ? "1" : "0");
	if (!err)
		err = pmcf_profile_meta_set(c->out, PMCF_META_PMCFUSE_VERSION, pmcf_version());
	/* sets of a plan: which ones this profile fuses (not input 0's plan_set) */
	unsigned long ns;
	int all_sets = 1;
	for (size_t j = 0; j < c->n; j++)
		all_sets &= plan_set(c->in[j], &ns) >= 0;
	free(js);
	if (!err && all_sets) {
		size_t cap = c->n * 12 + 3; /* sets < 10^6 (plan_set) */
		char *sets = malloc(cap);
		if (!sets)
			return pmcfi_fail(PMCF_ENOMEM, "out of memory");
		o = 0;
		sets[o++] = '[';
		for (size_t j = 0; j < c->n; j++)
			o += (size_t)snprintf(sets + o, cap - o, "%s%ld", j ? "," : "",
					      plan_set(c->in[j], &ns));
		snprintf(sets + o, cap - o, "]");
		err = pmcf_profile_meta_set(c->out, PMCF_META_PLAN_SETS_FUSED, sets);
		free(sets);
	}
	return err;
}

/* Inputs with XUs that give no fused XU (lgl on two programs: no label in
 * common) are no fusion: refused, with what the pairing found. */
static int check_not_empty(const struct pmcfi_cmb *c)
{
	size_t withxus = 0;
	for (size_t j = 0; j < c->n; j++)
		withxus += pmcf_profile_nxus(c->in[j]) > 0;
	if (c->nf || !withxus)
		return 0;
	char b1[32], b2[32];
	int labels = (strategy_of(c->opts->strategy)->needs & PMCF_STRATEGY_LABELS) != 0;
	return pmcfi_fail(PMCF_ECONFLICT,
			  "%s pairs no XU of %s with one of %s%s: the fused profile would have no XU "
			  "(are they runs of one program?)",
			  pmcf_strategy_name(c->opts->strategy), in_name(c->opts, 0, b1, sizeof(b1)),
			  in_name(c->opts, c->n > 1 ? 1 : 0, b2, sizeof(b2)),
			  labels ? " (no label in common)" : "");
}

/* pmcf_combine_stats before the label agreement counts */
#define STATS_FIRST_ABI offsetof(pmcf_combine_stats, bc_label_pairs)

int pmcf_combine(const pmcf_profile *const *in, size_t n, const pmcf_combine_opts *opts, pmcf_profile **out,
		 pmcf_combine_stats *stats)
{
	if (!out)
		return pmcfi_fail(PMCF_EINVAL, "pmcf_combine: NULL output");
	*out = NULL;
	pmcfi_clear_error();
	pmcfi_test_pause("fuse");
	int err = stats ? pmcfi_check_struct("pmcf_combine_stats", stats, stats->size, STATS_FIRST_ABI,
					     sizeof(*stats))
			: 0;
	if (!err)
		err = pmcf_combine_check(in, n, opts);
	pmcf_combine_opts given;
	if (!err)
		err = opts_in(opts, &given);
	if (err)
		return err;
	opts = &given;
	if (opts->impute &&
	    (!(strategy_of(opts->strategy)->needs & PMCF_STRATEGY_ORDERED) || opts->impute > 64))
		return pmcfi_fail(PMCF_EINVAL,
				  "impute %u: needs 1..64 and a strategy of the bc family "
				  "or match (not %s)",
				  opts->impute, pmcf_strategy_name(opts->strategy));
	if (opts->impute_mode != PMCF_IMPUTE_MEDIAN && opts->impute_mode != PMCF_IMPUTE_RANK)
		return pmcfi_fail(PMCF_EINVAL, "impute mode %d: unknown (median, rank)", opts->impute_mode);
	pmcf_combine_stats local;
	memset(&local, 0, sizeof(local));
	struct pmcfi_cmb c = {.in = in, .n = n, .opts = opts, .stats = &local};
	for (size_t j = 0; j < n; j++)
		if (pmcf_profile_nxus(in[j]) > INT32_MAX) {
			err = pmcfi_fail(PMCF_EINVAL, "profile %zu has too many XUs", j + 1);
			return err;
		}
	err = setup(&c);
	if (!err)
		err = strategy_of(opts->strategy)->pair(&c);
	if (!err)
		err = check_not_empty(&c);
	if (!err && strategy_of(opts->strategy)->pair == pmcfi_cmb_bc)
		err = pmcfi_cmb_label_agreement(&c);
	if (!err)
		err = add_xus(&c);
	if (!err)
		err = fill_values(&c);
	if (!err)
		err = pmcfi_cmb_impute(&c);
	if (!err)
		err = set_base_labels(&c);
	if (!err)
		err = match_distances(&c);
	if (!err)
		err = copy_truth(&c);
	if (!err)
		err = set_meta(&c);
	if (!err) {
		local.xus = c.nf;
		local.events = c.nev;
		for (size_t f = 0; f < c.nf; f++) {
			int all = 1;
			for (size_t j = 0; j < n; j++)
				all &= c.src[f * n + j] >= 0;
			local.complete_xus += (size_t)all;
		}
		local.partial_xus = c.nf - local.complete_xus;
		local.imputed = c.imputed;
		local.imputed_changed = c.imputed_changed;
		if (stats) /* checked above: cannot fail */
			pmcfi_struct_out("pmcf_combine_stats", stats, &local, STATS_FIRST_ABI, sizeof(local));
		*out = c.out;
		c.out = NULL;
	}
	teardown(&c);
	return err;
}

/* ---- match distance summary ---------------------------------------------------------- */

const double pmcf_match_hist_edges[7] = {0.01, 0.02, 0.05, 0.1, 0.2, 0.5, INFINITY};

int pmcf_combine_match_summary(const pmcf_profile *p, pmcf_match_summary *s)
{
	pmcfi_clear_error();
	if (!p || !s)
		return pmcfi_fail(PMCF_EINVAL, "NULL argument");
	int rc = pmcfi_check_struct("pmcf_match_summary", s, s->size, sizeof(*s), sizeof(*s));
	if (rc)
		return rc;
	memset(s, 0, sizeof(*s));
	s->size = sizeof(*s);
	s->xus = pmcf_profile_nxus(p);
	s->min = s->p50 = s->p90 = s->p99 = s->max = s->mean = NAN;
	double *v = malloc((s->xus ? s->xus : 1) * sizeof(double));
	if (!v)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	double sum = 0;
	for (size_t i = 0; i < s->xus; i++) {
		double d = pmcf_profile_match_distance(p, i);
		if (pmcf_is_missing(d))
			continue;
		v[s->measured++] = d;
		sum += d;
		s->min = fmin(s->min, d); /* fmin(NaN, d) is d */
		s->max = fmax(s->max, d);
		size_t b = 0;
		while (b < 6 && !(d < pmcf_match_hist_edges[b]))
			b++;
		s->hist[b]++;
	}
	if (s->measured) {
		s->p50 = pmcfi_quantile(v, s->measured, 0.5);
		s->p90 = pmcfi_quantile(v, s->measured, 0.9);
		s->p99 = pmcfi_quantile(v, s->measured, 0.99);
		s->mean = sum / (double)s->measured;
	}
	free(v);
	return 0;
}
