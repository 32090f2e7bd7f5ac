/* Unit tests of the simulator: specs, the machine catalogue and its
 * compatibility check, workloads (exact XU counts, labels), determinism and
 * variability, ground truth, and multiplexing with its estimators. */
/* cmocka needs these first */
/* clang-format off */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pmcfuse/events.h"
#include "pmcfuse/multiplex.h"
#include "pmcfuse/profile.h"
#include "pmcfuse/sim.h"
#include "sim/sim_impl.h"

static pmcf_profile *record(const char *spec, const char *events, const pmcf_count_opts *o)
{
	pmcf_sim_spec *s;
	assert_int_equal(pmcf_sim_spec_parse(spec, &s), 0);
	char buf[2048];
	snprintf(buf, sizeof(buf), "%s", events);
	const char *names[64];
	size_t n = 0;
	for (char *t = strtok(buf, ","); t && n < 64; t = strtok(NULL, ","))
		names[n++] = t;
	pmcf_count_opts def = PMCF_COUNT_OPTS_INIT;
	pmcf_profile *p = NULL;
	int err = pmcf_sim_record(s, names, n, o ? o : &def, &p);
	if (err)
		fprintf(stderr, "record %s: %s\n", spec, pmcf_errdetail());
	assert_int_equal(err, 0);
	pmcf_sim_spec_free(s);
	return p;
}

/* record() with every event of the simulated machine (-e all) */
static pmcf_profile *record_all(const char *spec, const pmcf_count_opts *o)
{
	pmcf_catalog *cat;
	pmcf_evlist *list;
	assert_int_equal(pmcf_catalog_sim(spec, &cat), 0);
	assert_int_equal(pmcf_evlist_parse(cat, "all", &list), 0);
	char buf[2048] = "";
	for (size_t i = 0; i < pmcf_evlist_size(list); i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", i ? "," : "",
			 pmcf_evlist_names(list)[i]);
	pmcf_evlist_free(list);
	pmcf_catalog_free(cat);
	return record(spec, buf, o);
}

static size_t count_type(const pmcf_profile *p, const char *name)
{
	size_t n = 0;
	for (size_t i = 0; i < pmcf_profile_nxus(p); i++) {
		pmcf_xu xu = PMCF_XU_INIT;
		pmcf_xu_type t = PMCF_XU_TYPE_INIT;
		pmcf_profile_xu_get(p, i, &xu);
		pmcf_profile_type_get(p, xu.type, &t);
		n += strcmp(t.name, name) == 0;
	}
	return n;
}

/* ---- specs ------------------------------------------------------------------- */
static void test_spec(void **state)
{
	(void)state;
	pmcf_sim_spec *s;
	assert_int_equal(pmcf_sim_spec_parse("cholesky,blocks=12,seed=7", &s), 0);
	assert_string_equal(pmcf_sim_spec_workload(s), "cholesky");
	assert_string_equal(pmcf_sim_spec_machine(s), "xeon32");
	assert_int_equal(pmcf_sim_spec_seed(s), 7);
	assert_string_equal(pmcf_sim_spec_canonical(s),
			    "cholesky,blocks=12,bsize=64,machine=xeon32,seed=7,model=v3");
	pmcf_sim_spec_seed_set(s, 9);
	assert_non_null(strstr(pmcf_sim_spec_canonical(s), "seed=9"));
	pmcf_sim_spec_free(s);
	assert_true(pmcf_sim_exec_seed(1, 0) != pmcf_sim_exec_seed(1, 1));
	assert_true(pmcf_sim_exec_seed(1, 0) == pmcf_sim_exec_seed(1, 0));

	static const struct {
		int line;
		const char *spec;
		int err;
		const char *detail;
	} bad[] = {
		{__LINE__, "cholesky,blocks=12", 0, NULL},
		{__LINE__, "loops,schedule=dynamic,chunk=100,machine=xeon192,threads=8", 0, NULL},
		{__LINE__, "cholsky", PMCF_ENOENT, "cholesky, seidel, kmeans, loops, knapsack"},
		{__LINE__, "cholesky,blokcs=3", PMCF_ENOENT, "valid keys: blocks, bsize"},
		{__LINE__, "cholesky,blocks=0", PMCF_EINVAL, "blocks"},
		{__LINE__, "cholesky,blocks=x", PMCF_EINVAL, "blocks"},
		{__LINE__, "loops,schedule=guided", PMCF_EINVAL, "static, dynamic"},
		{__LINE__, "cholesky,blocks", PMCF_ESYNTAX, "key=value"},
		{__LINE__, "", PMCF_ESYNTAX, "workloads"},
		{__LINE__, "cholesky,seed=-1", PMCF_EINVAL, "seed"},
		{__LINE__, "cholesky,threads=0", PMCF_EINVAL, "threads"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int err = pmcf_sim_spec_parse(bad[i].spec, &s);
		if (err != bad[i].err || (bad[i].detail && !strstr(pmcf_errdetail(), bad[i].detail)))
			fail_msg("line %d: '%s' gave %d (%s)", bad[i].line, bad[i].spec, err,
				 pmcf_errdetail());
		if (!err)
			pmcf_sim_spec_free(s);
	}
	/* unknown machine: at record/catalogue time */
	pmcf_catalog *c;
	assert_int_equal(pmcf_catalog_sim("cholesky,machine=xeon999", &c), PMCF_ENOENT);
	assert_non_null(strstr(pmcf_errdetail(), "xeon192"));
	assert_int_equal(pmcf_catalog_sim("cholesky,machine=/nonexistent/m.json", &c), PMCF_ESYNTAX);
}

/* ---- catalogue and compatibility ------------------------------------------------ */
static const char *const table1[] = {
	"PAPI_BR_CN",  "PAPI_BR_INS",  "PAPI_BR_MSP",  "PAPI_BR_NTK",  "PAPI_FDV_INS", "PAPI_L1_DCM",
	"PAPI_L1_ICM", "PAPI_L1_LDM",  "PAPI_L1_STM",  "PAPI_L2_DCA",  "PAPI_L2_DCR",  "PAPI_L2_DCW",
	"PAPI_L2_ICA", "PAPI_L2_ICH",  "PAPI_L2_ICM",  "PAPI_L2_ICR",  "PAPI_L2_STM",  "PAPI_L2_TCM",
	"PAPI_L2_TCW", "PAPI_L3_DCR",  "PAPI_L3_DCW",  "PAPI_L3_ICA",  "PAPI_L3_ICR",  "PAPI_L3_TCA",
	"PAPI_L3_TCM", "PAPI_L3_TCW",  "PAPI_LD_INS",  "PAPI_REF_CYC", "PAPI_SR_INS",  "PAPI_STL_ICY",
	"PAPI_TLB_IM", "PAPI_TOT_CYC", "PAPI_TOT_INS",
};

static void test_catalog(void **state)
{
	(void)state;
	const char *machines[] = {"cholesky", "cholesky,machine=xeon192", "machine=xeon192"};
	for (size_t k = 0; k < 3; k++) {
		pmcf_catalog *c;
		assert_int_equal(pmcf_catalog_sim(machines[k], &c), 0);
		assert_int_equal(pmcf_catalog_size(c), 34);
		assert_string_equal(pmcf_catalog_at(c, 0)->name, "duration");
		for (size_t i = 0; i < 33; i++) {
			long e = pmcf_catalog_find(c, table1[i]);
			assert_true(e > 0);
			const pmcf_event_info *info = pmcf_catalog_at(c, (size_t)e);
			assert_string_equal(info->source, PMCF_SRC_SIM);
			assert_int_equal(info->available, 1);
			assert_non_null(info->constraints);
			assert_non_null(strstr(info->constraints, "\"native\""));
		}
		const pmcf_event_info *dca = pmcf_catalog_at(c, (size_t)pmcf_catalog_find(c, "PAPI_L2_DCA"));
		assert_non_null(strstr(dca->constraints, "\"alias_of\":\"PAPI_L1_DCM\""));
		const pmcf_event_info *tcm = pmcf_catalog_at(c, (size_t)pmcf_catalog_find(c, "PAPI_L2_TCM"));
		assert_int_equal(tcm->cost, 2);
		const pmcf_event_info *ins = pmcf_catalog_at(c, (size_t)pmcf_catalog_find(c, "PAPI_TOT_INS"));
		assert_int_equal(ins->cost, 0);
		assert_non_null(strstr(ins->constraints, "\"fixed\":true"));
		const pmcf_event_info *dcr = pmcf_catalog_at(c, (size_t)pmcf_catalog_find(c, "PAPI_L3_DCR"));
		assert_non_null(strstr(dcr->constraints, "PAPI_L3_DCW"));
		pmcf_catalog_free(c);
	}
}

static void test_check_set(void **state)
{
	(void)state;
	static const struct {
		int line;
		const char *events;
		unsigned pmcs;
		int fits;
		const char *why;
	} cases[] = {
		{__LINE__, "PAPI_TOT_INS,PAPI_TOT_CYC,PAPI_REF_CYC", 0, 1, NULL},
		{__LINE__,
		 "PAPI_TOT_INS,PAPI_TOT_CYC,PAPI_REF_CYC,PAPI_L1_DCM,PAPI_L1_ICM,PAPI_BR_INS,PAPI_LD_"
		 "INS",
		 0, 1, NULL},
		{__LINE__, "PAPI_L1_DCM,PAPI_L1_ICM,PAPI_BR_INS,PAPI_LD_INS,PAPI_SR_INS", 0, 0,
		 "need 5 general-purpose counters but xeon32 has 4"},
		/* aliases share their native event: one counter for both */
		{__LINE__, "PAPI_L1_DCM,PAPI_L2_DCA,PAPI_L1_ICM,PAPI_BR_INS,PAPI_LD_INS", 0, 1, NULL},
		{__LINE__, "PAPI_L2_ICA,PAPI_L2_ICR,PAPI_L2_ICM,PAPI_L3_ICA", 0, 1, NULL},
		/* derived presets take two counters, shared natives are counted once */
		{__LINE__, "PAPI_L2_TCM,PAPI_L1_DCM,PAPI_L1_ICM,PAPI_BR_INS", 0, 0, "PAPI_L2_TCM (2)"},
		{__LINE__, "PAPI_L2_TCM,PAPI_L2_ICM,PAPI_L1_DCM,PAPI_BR_INS", 0, 1, NULL},
		{__LINE__, "PAPI_BR_CN,PAPI_BR_NTK,PAPI_BR_INS,PAPI_BR_MSP", 0, 1, NULL},
		/* a shared configuration register */
		{__LINE__, "PAPI_L3_DCR,PAPI_L3_DCW", 0, 0,
		 "PAPI_L3_DCR and PAPI_L3_DCW cannot be counted together"},
		{__LINE__, "PAPI_L3_TCW,PAPI_L3_ICR", 0, 0, "OFFCORE_RSP_1"},
		{__LINE__, "PAPI_L3_DCR,PAPI_L3_TCW", 0, 1, NULL},
		/* counter masks, with a budget that cuts them */
		{__LINE__, "PAPI_FDV_INS,PAPI_TLB_IM,PAPI_STL_ICY,PAPI_L1_DCM", 0, 1, NULL},
		{__LINE__, "PAPI_FDV_INS,PAPI_STL_ICY", 2, 0, "PAPI_STL_ICY cannot be counted with 2"},
		{__LINE__, "PAPI_FDV_INS,PAPI_TLB_IM", 1, 0, "but xeon32 has 1 (pmcs; the command's --pmcs)"},
		{__LINE__, "PAPI_L1_DCM,PAPI_L1_ICM,PAPI_BR_INS,PAPI_LD_INS,PAPI_SR_INS,PAPI_L1_LDM", 8, 1,
		 NULL},
		{__LINE__, "duration,PAPI_TOT_INS", 0, 1, NULL},
	};
	pmcf_catalog *c;
	assert_int_equal(pmcf_catalog_sim("cholesky", &c), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		pmcf_evlist *l;
		assert_int_equal(pmcf_evlist_parse(c, cases[i].events, &l), 0);
		char why[512];
		int r = pmcf_catalog_check_events(c, pmcf_evlist_names(l), pmcf_evlist_size(l), cases[i].pmcs,
						  why, sizeof(why));
		if (r != cases[i].fits || (cases[i].why && !strstr(why, cases[i].why)))
			fail_msg("line %d: got %d, why '%s'", cases[i].line, r, why);
		if (!r && strchr(why, '\n'))
			fail_msg("line %d: why has more than one line", cases[i].line);
		pmcf_evlist_free(l);
	}
	pmcf_catalog_free(c);
}

/* ---- workloads ---------------------------------------------------------------------- */
static void test_counts(void **state)
{
	(void)state;
	static const struct {
		int line;
		const char *spec;
		size_t nxu;
	} cases[] = {
		{__LINE__, "cholesky,blocks=1", 1},
		{__LINE__, "cholesky,blocks=2", 2 + 2 * 1 + 0},
		{__LINE__, "cholesky,blocks=5", 5 + 2 * 10 + 10},
		{__LINE__, "cholesky,blocks=12", 364},
		{__LINE__, "cholesky,blocks=20", 20 + 2 * 190 + 1140},
		{__LINE__, "seidel,blocks=5,iters=3", 75},
		{__LINE__, "kmeans,parts=16,iters=4", 4 * 17},
		{__LINE__, "loops,n=1000,loops=3,reps=2,threads=8", 3 * 2 * 8},
		{__LINE__, "loops,n=1000,loops=3,reps=2,schedule=dynamic,chunk=64", 3 * 2 * 16},
		{__LINE__, "loops,n=1000,loops=2,reps=1,schedule=static,chunk=100", 2 * 10},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		pmcf_profile *p = record(cases[i].spec, "PAPI_TOT_INS", NULL);
		if (pmcf_profile_nxus(p) != cases[i].nxu)
			fail_msg("line %d: %zu XUs, want %zu", cases[i].line, pmcf_profile_nxus(p),
				 cases[i].nxu);
		pmcf_profile_free(p);
	}
	pmcf_profile *p = record("cholesky,blocks=12", "PAPI_TOT_INS", NULL);
	assert_int_equal(count_type(p, "potrf"), 12);
	assert_int_equal(count_type(p, "trsm"), 66);
	assert_int_equal(count_type(p, "syrk"), 66);
	assert_int_equal(count_type(p, "gemm"), 220);
	/* labels: creation ranks under the root task (fuse-task-parallel §3.1) */
	for (size_t i = 0; i < pmcf_profile_nxus(p); i++) {
		pmcf_xu xu = PMCF_XU_INIT;
		pmcf_profile_xu_get(p, i, &xu);
		char want[32];
		snprintf(want, sizeof(want), "0.%zu", i);
		assert_string_equal(xu.label, want);
		assert_string_equal(xu.parent_label, "0");
		assert_true(xu.end_ns > xu.start_ns);
		assert_true(xu.thread >= 0 && xu.thread < 32);
		assert_true(xu.cpu >= 0 && xu.cpu < 32);
	}
	pmcf_profile_free(p);
	/* knapsack: the same tree in every run; children extend their parent's label */
	pmcf_profile *a = record("knapsack,seed=1", "PAPI_TOT_INS", NULL);
	pmcf_profile *b = record("knapsack,seed=2", "PAPI_TOT_INS", NULL);
	assert_int_equal(pmcf_profile_nxus(a), pmcf_profile_nxus(b));
	assert_true(pmcf_profile_nxus(a) > 1000);
	for (size_t i = 0; i < pmcf_profile_nxus(a); i++) {
		pmcf_xu x = PMCF_XU_INIT, y = PMCF_XU_INIT;
		pmcf_profile_xu_get(a, i, &x);
		pmcf_profile_xu_get(b, i, &y);
		assert_string_equal(x.label, y.label);
		size_t pl = strlen(x.parent_label);
		assert_memory_equal(x.label, x.parent_label, pl);
		assert_int_equal(x.label[pl], '.');
	}
	pmcf_profile_free(a);
	pmcf_profile_free(b);
	/* loop chunks are labelled by their start iteration (fuse-openmp §4.1) */
	p = record("loops,n=1000,loops=1,reps=1,schedule=dynamic,chunk=100", "PAPI_TOT_INS", NULL);
	for (size_t i = 0; i < pmcf_profile_nxus(p); i++) {
		pmcf_xu xu = PMCF_XU_INIT;
		pmcf_profile_xu_get(p, i, &xu);
		const char *dot = strrchr(xu.label, '.');
		assert_int_equal(atol(dot + 1), (long)(i * 100));
		assert_memory_equal(xu.label, xu.parent_label, strlen(xu.parent_label));
	}
	pmcf_profile_free(p);
}

/* ---- determinism, variability, truth -------------------------------------------------- */
static int same_profile(const pmcf_profile *a, const pmcf_profile *b)
{
	if (pmcf_profile_nxus(a) != pmcf_profile_nxus(b))
		return 0;
	for (size_t i = 0; i < pmcf_profile_nxus(a); i++) {
		pmcf_xu x = PMCF_XU_INIT, y = PMCF_XU_INIT;
		pmcf_profile_xu_get(a, i, &x);
		pmcf_profile_xu_get(b, i, &y);
		if (x.start_ns != y.start_ns || x.end_ns != y.end_ns || x.thread != y.thread ||
		    strcmp(x.label, y.label) != 0)
			return 0;
		for (size_t e = 0; e < pmcf_profile_nevents(a); e++)
			if (memcmp(&(double){pmcf_profile_value(a, i, e)},
				   &(double){pmcf_profile_value(b, i, e)}, sizeof(double)) != 0)
				return 0;
	}
	return 1;
}

static int file_equal(const char *a, const char *b)
{
	FILE *f = fopen(a, "rb"), *g = fopen(b, "rb");
	int eq = f && g;
	while (eq) {
		int x = fgetc(f), y = fgetc(g);
		if (x != y)
			eq = 0;
		if (x == EOF || y == EOF)
			break;
	}
	if (f)
		fclose(f);
	if (g)
		fclose(g);
	return eq;
}

static void test_determinism(void **state)
{
	(void)state;
	const char *specs[] = {"cholesky,blocks=10,seed=5", "knapsack,cutoff=8,seed=3",
			       "loops,schedule=dynamic,seed=4", "kmeans,seed=2,machine=xeon192",
			       "seidel,blocks=6"};
	pmcf_count_opts mux = PMCF_COUNT_OPTS_INIT;
	mux.multiplex = PMCF_MUX_ROC;
	mux.period_ms = 0.05;
	for (size_t k = 0; k < sizeof(specs) / sizeof(specs[0]); k++) {
		pmcf_profile *a = record(specs[k], "PAPI_TOT_INS,PAPI_L1_DCM,PAPI_BR_MSP", NULL);
		pmcf_profile *b = record(specs[k], "PAPI_TOT_INS,PAPI_L1_DCM,PAPI_BR_MSP", NULL);
		assert_true(same_profile(a, b));
		pmcf_profile_free(a);
		pmcf_profile_free(b);
		a = record(specs[k],
			   "PAPI_L1_DCM,PAPI_L1_ICM,PAPI_BR_INS,PAPI_LD_INS,PAPI_SR_INS,PAPI_L2_DCR", &mux);
		b = record(specs[k],
			   "PAPI_L1_DCM,PAPI_L1_ICM,PAPI_BR_INS,PAPI_LD_INS,PAPI_SR_INS,PAPI_L2_DCR", &mux);
		assert_true(same_profile(a, b));
		pmcf_profile_free(a);
		pmcf_profile_free(b);
	}
	/* byte-identical files */
	const char *tmp = getenv("PMCF_TEST_TMP");
	char pa[512], pb[512];
	snprintf(pa, sizeof(pa), "%s/sim_det_a.pmcf", tmp ? tmp : "/tmp");
	snprintf(pb, sizeof(pb), "%s/sim_det_b.pmcf", tmp ? tmp : "/tmp");
	pmcf_profile *a = record("cholesky,blocks=8,seed=11", "PAPI_TOT_INS,PAPI_L1_DCM", NULL);
	pmcf_profile *b = record("cholesky,blocks=8,seed=11", "PAPI_TOT_INS,PAPI_L1_DCM", NULL);
	assert_int_equal(pmcf_profile_save(a, pa), 0);
	assert_int_equal(pmcf_profile_save(b, pb), 0);
	assert_true(file_equal(pa, pb));
	pmcf_profile_free(b);
	/* a different seed differs */
	b = record("cholesky,blocks=8,seed=12", "PAPI_TOT_INS,PAPI_L1_DCM", NULL);
	assert_false(same_profile(a, b));
	assert_string_equal(pmcf_profile_meta_get(b, PMCF_META_SEED), "12");
	assert_null(pmcf_profile_meta_get(b, PMCF_META_START_TIME));
	assert_null(pmcf_profile_meta_get(b, PMCF_META_HOST));
	pmcf_profile_free(a);
	pmcf_profile_free(b);
	remove(pa);
	remove(pb);
}

/* Relative variability of ev across seeds for XUs matched by label (as LGL
 * matches them): the sum over labels of the standard deviation over the sum
 * of the means, so that tiny counts do not dominate. */
static double label_cv(const char *spec, const char *ev, int nseeds)
{
	pmcf_profile *p[8];
	char buf[256];
	for (int s = 0; s < nseeds; s++) {
		snprintf(buf, sizeof(buf), "%s,seed=%d", spec, 100 + s);
		p[s] = record(buf, ev, NULL);
	}
	size_t n = pmcf_profile_nxus(p[0]);
	double sum = 0, msum = 0;
	for (size_t i = 0; i < n; i++) {
		double m = 0, v = 0;
		/* XUs are stored in creation order, so index i has the same label */
		for (int s = 0; s < nseeds; s++)
			m += pmcf_profile_value(p[s], i, 1);
		m /= nseeds;
		for (int s = 0; s < nseeds; s++) {
			double d = pmcf_profile_value(p[s], i, 1) - m;
			v += d * d;
		}
		sum += sqrt(v / (nseeds - 1));
		msum += m;
	}
	for (int s = 0; s < nseeds; s++)
		pmcf_profile_free(p[s]);
	return sum / (msum > 0 ? msum : 1);
}

static void test_variability(void **state)
{
	(void)state;
	/* the first model's properties (model 2 adds per-execution placement) */
	double loops = label_cv("loops,n=200000,schedule=static,model=v1", "PAPI_TOT_CYC", 5);
	double chol = label_cv("cholesky,blocks=14,model=v1", "PAPI_TOT_CYC", 5);
	double chol192 = label_cv("cholesky,blocks=14,machine=xeon192,model=v1", "PAPI_TOT_CYC", 5);
	double l1_loops = label_cv("loops,n=200000,schedule=static,model=v1", "PAPI_L2_TCM", 5);
	double l1_chol = label_cv("cholesky,blocks=14,model=v1", "PAPI_L2_TCM", 5);
	print_message("label variability of cycles: static loops %.4f, cholesky %.4f, "
		      "cholesky/xeon192 %.4f; L2_TCM %.4f %.4f\n",
		      loops, chol, chol192, l1_loops, l1_chol);
	assert_true(chol > 2 * loops);
	assert_true(l1_chol > 2 * l1_loops);
	assert_true(chol192 > chol);
	/* instructions are nearly deterministic per label */
	double ins = label_cv("cholesky,blocks=14", "PAPI_TOT_INS", 3);
	assert_true(ins < 0.01);
}

/* Model 2's placement (kept selectable; docs/simulation.md): for gemm XUs matched by label
 * across two executions, the log-ratios of L3 misses and of cycles between
 * the executions; returns their correlation and stores the spread of the
 * L3 log-ratio. One per-execution cause moves both, strongly on xeon192. */
static double placement_corr(const char *machine, double *spread)
{
	char spec[128];
	pmcf_profile *p[2];
	for (int s = 0; s < 2; s++) {
		snprintf(spec, sizeof(spec), "cholesky,blocks=14,machine=%s,seed=%d,model=v2", machine,
			 41 + s);
		p[s] = record(spec, "PAPI_TOT_CYC,PAPI_L3_TCM", NULL);
	}
	double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
	size_t n = 0;
	for (size_t i = 0; i < pmcf_profile_nxus(p[0]); i++) {
		pmcf_xu xu = PMCF_XU_INIT;
		pmcf_xu_type t = PMCF_XU_TYPE_INIT;
		pmcf_profile_xu_get(p[0], i, &xu);
		pmcf_profile_type_get(p[0], xu.type, &t);
		double l0 = pmcf_profile_value(p[0], i, 2), l1 = pmcf_profile_value(p[1], i, 2);
		if (strcmp(t.name, "gemm") || !(l0 > 0) || !(l1 > 0))
			continue;
		double x = log(l0 / l1);
		double y = log(pmcf_profile_value(p[0], i, 1) / pmcf_profile_value(p[1], i, 1));
		sx += x, sy += y, sxx += x * x, syy += y * y, sxy += x * y;
		n++;
	}
	pmcf_profile_free(p[0]);
	pmcf_profile_free(p[1]);
	assert_true(n > 100);
	double vx = sxx / n - sx / n * sx / n, vy = syy / n - sy / n * sy / n;
	*spread = sqrt(vx);
	return (sxy / n - sx / n * sy / n) / sqrt(vx * vy);
}

static void test_placement(void **state)
{
	(void)state;
	double s32, s192;
	double c32 = placement_corr("xeon32", &s32), c192 = placement_corr("xeon192", &s192);
	print_message("placement: corr(L3_TCM, cycles) between executions per label: xeon32 %.2f "
		      "xeon192 %.2f; spread of L3_TCM %.3f %.3f\n",
		      c32, c192, s32, s192);
	assert_true(c192 > 0.8);
	assert_true(c192 > c32 + 0.1);
}

static void test_truth(void **state)
{
	(void)state;
	pmcf_profile *p = record("cholesky,blocks=12", "PAPI_TOT_INS,PAPI_L1_DCM,PAPI_L2_TCM", NULL);
	assert_int_equal(pmcf_profile_nevents(p), 4);
	assert_string_equal(pmcf_profile_event_name(p, 0), "duration");
	assert_string_equal(pmcf_profile_event_name(p, 1), "PAPI_TOT_INS");
	assert_int_equal(pmcf_profile_ntruth(p), 34);
	assert_false(pmcf_profile_has_coverage(p));
	assert_string_equal(pmcf_profile_meta_get(p, PMCF_META_SOURCE), "sim");
	assert_string_equal(pmcf_profile_meta_get(p, PMCF_META_COMPLETE), "1");
	assert_string_equal(pmcf_profile_meta_get(p, PMCF_META_PROGRAM), "cholesky");
	assert_string_equal(pmcf_profile_meta_get(p, PMCF_META_MULTIPLEX), "none");
	const double *dca =
		pmcf_profile_truth_column_const(p, (size_t)pmcf_profile_truth_find(p, "PAPI_L2_DCA"));
	const double *dcm =
		pmcf_profile_truth_column_const(p, (size_t)pmcf_profile_truth_find(p, "PAPI_L1_DCM"));
	const double *ica =
		pmcf_profile_truth_column_const(p, (size_t)pmcf_profile_truth_find(p, "PAPI_L2_ICA"));
	const double *icm =
		pmcf_profile_truth_column_const(p, (size_t)pmcf_profile_truth_find(p, "PAPI_L2_ICM"));
	const double *ich =
		pmcf_profile_truth_column_const(p, (size_t)pmcf_profile_truth_find(p, "PAPI_L2_ICH"));
	const double *ntk =
		pmcf_profile_truth_column_const(p, (size_t)pmcf_profile_truth_find(p, "PAPI_BR_NTK"));
	const double *cn =
		pmcf_profile_truth_column_const(p, (size_t)pmcf_profile_truth_find(p, "PAPI_BR_CN"));
	const double *tcyc =
		pmcf_profile_truth_column_const(p, (size_t)pmcf_profile_truth_find(p, "PAPI_TOT_CYC"));
	const double *stl =
		pmcf_profile_truth_column_const(p, (size_t)pmcf_profile_truth_find(p, "PAPI_STL_ICY"));
	for (size_t i = 0; i < pmcf_profile_nxus(p); i++) {
		assert_true(dca[i] == dcm[i]);
		assert_true(ich[i] == ica[i] - icm[i]);
		assert_true(ntk[i] >= 0 && ntk[i] <= cn[i]);
		assert_true(stl[i] < tcyc[i]);
		/* without multiplexing the monitored values are the truth */
		for (size_t e = 0; e < pmcf_profile_nevents(p); e++) {
			long t = pmcf_profile_truth_find(p, pmcf_profile_event_name(p, e));
			assert_true(t >= 0);
			assert_true(pmcf_profile_value(p, i, e) ==
				    pmcf_profile_truth_column_const(p, (size_t)t)[i]);
		}
	}
	/* multimodal per type: gemm cycles split by warmth/placement, not one spike */
	pmcf_profile_free(p);
}

static void test_errors(void **state)
{
	(void)state;
	pmcf_sim_spec *s;
	assert_int_equal(pmcf_sim_spec_parse("cholesky,blocks=4", &s), 0);
	pmcf_count_opts o = PMCF_COUNT_OPTS_INIT;
	pmcf_profile *p = NULL;
	const char *all[33];
	for (int i = 0; i < 33; i++)
		all[i] = table1[i];
	assert_int_equal(pmcf_sim_record(s, all, 33, &o, &p), PMCF_ETOOMANY);
	assert_null(p);
	assert_non_null(strstr(pmcf_errdetail(), "--multiplex"));
	const char *bad[] = {"PAPI_TOT_INZ"};
	assert_int_equal(pmcf_sim_record(s, bad, 1, &o, &p), PMCF_EEVENT);
	assert_non_null(strstr(pmcf_errdetail(), "PAPI_TOT_INS"));
	o.multiplex = PMCF_MUX_RR;
	o.period_ms = -1; /* 0 is the default, 4 ms */
	assert_int_equal(pmcf_sim_record(s, all, 33, &o, &p), PMCF_EINVAL);
	assert_non_null(strstr(pmcf_errdetail(), "0.001 to 1e6 ms"));
	o.period_ms = 0;
	o.size = 3;
	assert_int_equal(pmcf_sim_record(s, all, 33, &o, &p), PMCF_EINVAL);
	o.size = sizeof(o);
	assert_int_equal(pmcf_sim_record(s, all, 33, &o, &p), 0);
	assert_true(pmcf_profile_has_coverage(p));
	assert_int_equal(pmcf_profile_nevents(p), 34);
	pmcf_profile_free(p);
	pmcf_sim_spec_free(s);
	assert_int_equal(pmcf_mux_mode_parse("roc"), PMCF_MUX_ROC);
	assert_int_equal(pmcf_mux_mode_parse("fast"), PMCF_EINVAL);
	assert_int_equal(pmcf_estimate_parse("local"), PMCF_EST_LOCAL);
	assert_int_equal(pmcf_estimate_parse("x"), PMCF_EINVAL);
}

/* ---- multiplexing ------------------------------------------------------------------------ */
static const char *hem_events = "PAPI_TOT_INS,PAPI_L1_DCM,PAPI_BR_INS,PAPI_LD_INS,PAPI_SR_INS,PAPI_"
				"L2_DCR,PAPI_BR_MSP,PAPI_L1_ICM";

/* Mean relative error of the monitored counter events against the truth,
 * over the values present; with count_missing, a missing value counts as
 * relative error 1 (what reading it as 0 would cost). */
static double hem_error_of(const pmcf_profile *p, size_t *missing, int count_missing)
{
	double sum = 0;
	size_t n = 0;
	*missing = 0;
	for (size_t e = 1; e < pmcf_profile_nevents(p); e++) {
		const double *t = pmcf_profile_truth_column_const(
			p, (size_t)pmcf_profile_truth_find(p, pmcf_profile_event_name(p, e)));
		const double *v = pmcf_profile_column_const(p, e);
		for (size_t i = 0; i < pmcf_profile_nxus(p); i++) {
			if (pmcf_is_missing(v[i])) {
				(*missing)++;
				sum += count_missing;
				n += count_missing;
				continue;
			}
			sum += fabs(v[i] - t[i]) / (t[i] > 1 ? t[i] : 1);
			n++;
		}
	}
	return n ? sum / (double)n : 0;
}

static double hem_error(const pmcf_profile *p, size_t *missing) { return hem_error_of(p, missing, 0); }

/* A value the counters never saw is missing, never 0 (issue 14): every
 * event of the profile that counted during no XU has no value at all when
 * no rotation happened before the run ended (period far above the run),
 * and every missing value is one whose event did not count during the XU. */
static void check_never_counted(const pmcf_profile *p, size_t *never)
{
	*never = 0;
	for (size_t e = 1; e < pmcf_profile_nevents(p); e++) {
		int nc = pmcf_profile_coverage_never_counted(p, e);
		assert_true(nc == 0 || nc == 1);
		*never += (size_t)nc;
		for (size_t i = 0; i < pmcf_profile_nxus(p); i++) {
			uint64_t en, run;
			double v = pmcf_profile_value(p, i, e);
			assert_int_equal(pmcf_profile_coverage_get(p, i, e, &en, &run), 0);
			if (nc && !pmcf_is_missing(v))
				fail_msg("%s, XU %zu: never counted, but stored as %g",
					 pmcf_profile_event_name(p, e), i, v);
			if (pmcf_is_missing(v) && run > 0)
				fail_msg("%s, XU %zu: counted %llu ns, but missing",
					 pmcf_profile_event_name(p, e), i, (unsigned long long)run);
		}
	}
}

static void test_hem(void **state)
{
	(void)state;
	const int modes[] = {PMCF_MUX_KERNEL, PMCF_MUX_RR, PMCF_MUX_ROC};
	for (size_t k = 0; k < 3; k++) {
		pmcf_count_opts o = PMCF_COUNT_OPTS_INIT;
		o.multiplex = modes[k];
		o.period_ms = 0.01;
		size_t miss;
		pmcf_profile *fast = record("cholesky,blocks=12,model=v1", hem_events, &o);
		double efast = hem_error(fast, &miss);
		size_t never;
		assert_int_equal(miss, 0); /* every unit counted early on every thread */
		check_never_counted(fast, &never);
		assert_int_equal(never, 0);
		/* 4 ms: with the first model the run lasts about 1.5 ms, so most
		 * events never get a counter: their values are missing, not 0 */
		o.period_ms = 4;
		pmcf_profile *slow = record("cholesky,blocks=12,model=v1", hem_events, &o);
		double eslow = hem_error_of(slow, &miss, 1);
		print_message("%s: mean relative error %.3f at 0.01 ms, %.3f at 4 ms (%zu missing "
			      "values counted as error 1)\n",
			      pmcf_mux_mode_name(modes[k]), efast, eslow, miss);
		check_never_counted(slow, &never);
		assert_true(miss > 0);
		assert_true(miss >= never * pmcf_profile_nxus(slow));
		assert_true(efast < 0.15);
		assert_true(eslow > 0.3);
		assert_true(efast < eslow / 2);
		/* very short periods slow the run down (fuse-task-parallel Fig. 10) */
		assert_true(atof(pmcf_profile_meta_get(fast, "makespan_ns")) >
			    1.5 * atof(pmcf_profile_meta_get(slow, "makespan_ns")));
		assert_string_equal(pmcf_profile_meta_get(fast, PMCF_META_ESTIMATE), "cumulative");
		pmcf_profile_free(fast);
		pmcf_profile_free(slow);
	}
	/* local: missing for XUs during which an event never held a counter,
	 * exactly where coverage says running = 0 */
	pmcf_count_opts o = PMCF_COUNT_OPTS_INIT;
	o.multiplex = PMCF_MUX_RR;
	o.period_ms = 0.2;
	o.estimate = PMCF_EST_LOCAL;
	pmcf_profile *p = record("cholesky,blocks=12,model=v1", hem_events, &o);
	size_t miss, miss_short = 0, miss_long = 0;
	hem_error(p, &miss);
	assert_true(miss > 0);
	for (size_t e = 1; e < pmcf_profile_nevents(p); e++)
		for (size_t i = 0; i < pmcf_profile_nxus(p); i++) {
			uint64_t en, run;
			assert_int_equal(pmcf_profile_coverage_get(p, i, e, &en, &run), 0);
			double v = pmcf_profile_value(p, i, e);
			assert_int_equal(pmcf_is_missing(v), run == 0);
			assert_true(run <= en);
			assert_true(en == (uint64_t)pmcf_profile_value(p, i, 0));
			if (pmcf_is_missing(v) && pmcf_profile_value(p, i, 0) < 100000)
				miss_short++;
			else if (pmcf_is_missing(v))
				miss_long++;
		}
	assert_true(miss_short > miss_long);
	pmcf_profile_free(p);
	/* cumulative and local at 4 ms: the same events never counted, and
	 * local misses at least what cumulative misses (a value cumulative
	 * misses never counted during its XU) */
	o.period_ms = 4;
	size_t never_c, never_l, miss_c, miss_l;
	o.estimate = PMCF_EST_CUMULATIVE;
	pmcf_profile *pc = record_all("cholesky,blocks=12,model=v1", &o);
	o.estimate = PMCF_EST_LOCAL;
	pmcf_profile *pl = record_all("cholesky,blocks=12,model=v1", &o);
	check_never_counted(pc, &never_c);
	check_never_counted(pl, &never_l);
	hem_error(pc, &miss_c);
	hem_error(pl, &miss_l);
	assert_int_equal(never_c, never_l);
	assert_true(never_c >= 16); /* of 33: one assignment of 4 counters + fixed ones */
	assert_true(miss_l >= miss_c && miss_c >= never_c * pmcf_profile_nxus(pc));
	pmcf_mux_summary ms = {.size = sizeof(ms)};
	assert_int_equal(pmcf_profile_mux_summary(pc, &ms), 0);
	assert_int_equal(ms.events, 33);
	assert_int_equal(ms.never_counted, never_c);
	assert_int_equal(ms.missing, miss_c);
	assert_int_equal(ms.values, 33 * pmcf_profile_nxus(pc));
	assert_true(ms.run_ns > 0 && ms.run_ns < ms.period_ns && ms.period_ns == 4e6);
	pmcf_profile_free(pc);
	pmcf_profile_free(pl);
	/* a set that fits is counted exactly even when multiplexing is asked for */
	o.estimate = PMCF_EST_CUMULATIVE;
	p = record("cholesky,blocks=6", "PAPI_TOT_INS,PAPI_L1_DCM", &o);
	assert_true(hem_error(p, &miss) == 0);
	assert_string_equal(pmcf_profile_meta_get(p, "multiplexed"), "0");
	pmcf_profile_free(p);
}

/* The roles' base seeds: the fused executions keep the base, references
 * and pilots get streams of their own (no seed of one is a seed of
 * another over the first executions), the same ones every time. */
static void test_role_seeds(void **state)
{
	(void)state;
	for (uint64_t base = 0; base < 64; base += 7) {
		uint64_t f = pmcf_sim_role_seed(base, PMCF_SEED_FUSED),
			 r = pmcf_sim_role_seed(base, PMCF_SEED_REFERENCE),
			 p = pmcf_sim_role_seed(base, PMCF_SEED_PILOT);
		assert_true(f == base);
		assert_true(r != base && p != base && r != p);
		assert_true(pmcf_sim_role_seed(base, 99) == base);
		assert_true(pmcf_sim_role_seed(base, PMCF_SEED_REFERENCE) == r);
		for (unsigned i = 0; i < 16; i++)
			for (unsigned j = 0; j < 16; j++) {
				assert_true(pmcf_sim_exec_seed(f, i) != pmcf_sim_exec_seed(r, j));
				assert_true(pmcf_sim_exec_seed(f, i) != pmcf_sim_exec_seed(p, j));
				assert_true(pmcf_sim_exec_seed(r, i) != pmcf_sim_exec_seed(p, j));
			}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spec),        cmocka_unit_test(test_catalog),
		cmocka_unit_test(test_check_set),   cmocka_unit_test(test_counts),
		cmocka_unit_test(test_determinism), cmocka_unit_test(test_variability),
		cmocka_unit_test(test_truth),       cmocka_unit_test(test_errors),
		cmocka_unit_test(test_hem),         cmocka_unit_test(test_placement),
		cmocka_unit_test(test_role_seeds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
