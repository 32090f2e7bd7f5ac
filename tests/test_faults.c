/* Allocation-failure injection: every scenario below runs once to count its
 * allocations, then once for every N with the Nth allocation failing. Each
 * run must end in an error code or in the same result as the clean run; the
 * ASan build (LeakSanitizer) checks that nothing leaks on any of the paths.
 * Linked with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=strdup
 * (tests/CMakeLists.txt), so only the library's own calls are counted, not
 * SQLite's, jansson's or libc's internal ones. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "pmcfuse/combine.h"
#include "pmcfuse/evaluate.h"
#include "pmcfuse/events.h"
#include "pmcfuse/plan.h"
#include "pmcfuse/profile.h"
#include "pmcfuse/sim.h"

/* ---- the wrappers ------------------------------------------------------- */

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);

static int armed;             /* counting only inside a scenario */
static unsigned long count;   /* allocations so far in this run */
static unsigned long fail_at; /* 0: never fail */
static int injected;          /* this run saw its failure */

static int should_fail(void)
{
	if (!armed)
		return 0;
	count++;
	if (fail_at && count == fail_at) {
		injected = 1;
		return 1;
	}
	return 0;
}

void *__wrap_malloc(size_t n)
{
	if (should_fail()) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
	if (should_fail()) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n)
{
	if (should_fail()) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
	if (should_fail()) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_strdup(s);
}

/* ---- the driver ---------------------------------------------------------- */

/* A scenario returns 0 and fills *digest with a summary of its result, or
 * returns a negative error code. */
typedef int (*scenario_fn)(void *ctx, double *digest);

static void run_all_failures(const char *name, scenario_fn fn, void *ctx)
{
	double want = 0;
	armed = 1;
	count = 0;
	fail_at = 0;
	injected = 0;
	int rc = fn(ctx, &want);
	armed = 0;
	unsigned long total = count;
	if (rc != 0)
		fail_msg("%s: the clean run failed: %s (%s)", name, pmcf_strerror(rc), pmcf_errdetail());
	assert_true(total > 0);
	unsigned long errors = 0, recovered = 0;
	for (unsigned long n = 1; n <= total; n++) {
		double got = 0;
		armed = 1;
		count = 0;
		fail_at = n;
		injected = 0;
		rc = fn(ctx, &got);
		armed = 0;
		if (!injected)
			fail_msg("%s: allocation %lu of %lu was never made (non-deterministic run)", name, n,
				 total);
		if (rc > 0)
			fail_msg("%s: failing allocation %lu returned %d", name, n, rc);
		if (rc < 0) {
			errors++;
			if (rc <= PMCF_EBASE && rc != PMCF_ENOMEM && rc != PMCF_EDB)
				print_message("%s: allocation %lu: %s (%s)\n", name, n, pmcf_strerror(rc),
					      pmcf_errdetail());
		} else {
			/* a failure the library worked around must not change the result */
			recovered++;
			if (!(got == want || (isnan(got) && isnan(want))))
				fail_msg("%s: failing allocation %lu gave %.17g instead of %.17g", name, n,
					 got, want);
		}
	}
	fail_at = 0;
	print_message("%s: %lu allocations, %lu failures became errors, %lu were worked around\n", name,
		      total, errors, recovered);
}

static char tmpdir[512];

static void path_in_tmp(char *buf, size_t n, const char *name) { snprintf(buf, n, "%s/%s", tmpdir, name); }

static double profile_digest(const pmcf_profile *p)
{
	double d = (double)pmcf_profile_nxus(p) * 1000 + (double)pmcf_profile_nevents(p) +
		   (double)pmcf_profile_meta_count(p) * 1e-3;
	for (size_t e = 0; e < pmcf_profile_nevents(p); e++) {
		const double *col = pmcf_profile_column_const(p, e);
		for (size_t i = 0; i < pmcf_profile_nxus(p); i++)
			if (!isnan(col[i]))
				d += col[i] * 1e-9;
	}
	return d;
}

static int sim_profile(const char *spec, const char *events, pmcf_profile **out)
{
	pmcf_sim_spec *s = NULL;
	int rc = pmcf_sim_spec_parse(spec, &s);
	if (rc)
		return rc;
	const char *names[8];
	size_t n = 0;
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", events);
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t && n < 8; t = strtok_r(NULL, ",", &save))
		names[n++] = t;
	pmcf_count_opts o = PMCF_COUNT_OPTS_INIT;
	rc = pmcf_sim_record(s, names, n, &o, out);
	pmcf_sim_spec_free(s);
	return rc;
}

/* ---- scenarios ----------------------------------------------------------- */

struct two {
	pmcf_profile *a, *b;
};

/* profile save + load of a small simulated profile */
static int sc_roundtrip(void *ctx, double *digest)
{
	const pmcf_profile *p = ((struct two *)ctx)->a;
	char path[600];
	path_in_tmp(path, sizeof(path), "faults-roundtrip.pmcf");
	unlink(path);
	int rc = pmcf_profile_save(p, path);
	if (rc)
		return rc;
	pmcf_profile *q = NULL;
	rc = pmcf_profile_open(path, &q);
	if (rc)
		return rc;
	*digest = profile_digest(q);
	pmcf_profile_free(q);
	return 0;
}

/* event lists: a good one and one with a misspelt name (the suggestion path) */
static int sc_evlist(void *ctx, double *digest)
{
	const pmcf_catalog *c = ctx;
	pmcf_evlist *l = NULL;
	int rc = pmcf_evlist_parse(c, "duration,PAPI_L1_DCM,PAPI_L2_TCM,PAPI_TOT_INS", &l);
	if (rc)
		return rc;
	*digest = (double)pmcf_evlist_size(l);
	pmcf_evlist_free(l);
	rc = pmcf_evlist_parse(c, "PAPI_L1_DCN", &l);
	if (rc != PMCF_EEVENT)
		return rc ? rc : PMCF_EINVAL;
	*digest += strlen(pmcf_errdetail()) > 0;
	return 0;
}

/* catalogue of a simulated machine */
static int sc_catalog(void *ctx, double *digest)
{
	(void)ctx;
	pmcf_catalog *c = NULL;
	int rc = pmcf_catalog_sim("cholesky", &c);
	if (rc)
		return rc;
	*digest = (double)pmcf_catalog_size(c);
	pmcf_catalog_free(c);
	return 0;
}

/* plan make, to JSON and back */
static int sc_plan(void *ctx, double *digest)
{
	const pmcf_catalog *c = ctx;
	static const char *const ev[] = {"PAPI_L1_DCM", "PAPI_L2_TCM", "PAPI_L3_TCM",
					 "PAPI_BR_MSP", "PAPI_L1_ICM", "PAPI_BR_INS"};
	pmcf_plan_opts o = PMCF_PLAN_OPTS_INIT;
	o.pmcs = 2;
	pmcf_plan *p = NULL;
	int rc = pmcf_plan_make(c, ev, 6, &o, &p);
	if (rc)
		return rc;
	rc = pmcf_plan_sim_set(p, "cholesky,blocks=2");
	char *text = NULL;
	if (!rc)
		rc = pmcf_plan_to_json(p, &text);
	pmcf_plan *q = NULL;
	if (!rc)
		rc = pmcf_plan_from_json(text, &q);
	if (!rc)
		*digest = (double)pmcf_plan_nsets(q) * 1000 + (double)strlen(text);
	free(text);
	pmcf_plan_free(q);
	pmcf_plan_free(p);
	return rc;
}

/* simulated recording of a small workload, plain and multiplexed */
static int sc_sim_record(void *ctx, double *digest)
{
	(void)ctx;
	pmcf_profile *p = NULL;
	int rc = sim_profile("cholesky,blocks=3", "duration,PAPI_L1_DCM,PAPI_L2_TCM", &p);
	if (rc)
		return rc;
	*digest = profile_digest(p);
	pmcf_profile_free(p);
	pmcf_sim_spec *s = NULL;
	rc = pmcf_sim_spec_parse("seidel,blocks=2,iters=2", &s);
	if (rc)
		return rc;
	static const char *const ev[] = {"PAPI_L1_DCM", "PAPI_L2_TCM", "PAPI_L3_TCM", "PAPI_BR_MSP",
					 "PAPI_L1_ICM"};
	pmcf_count_opts o = PMCF_COUNT_OPTS_INIT;
	o.pmcs = 2;
	o.multiplex = PMCF_MUX_RR;
	o.period_ms = 0.01;
	rc = pmcf_sim_record(s, ev, 5, &o, &p);
	pmcf_sim_spec_free(s);
	if (rc)
		return rc;
	*digest += profile_digest(p);
	pmcf_profile_free(p);
	return 0;
}

/* combine two small profiles with every strategy that does not draw at random */
static int sc_combine(void *ctx, double *digest)
{
	struct two *t = ctx;
	const pmcf_profile *in[2] = {t->a, t->b};
	static const int strategies[] = {PMCF_COMBINE_CTC, PMCF_COMBINE_LGL, PMCF_COMBINE_BC};
	*digest = 0;
	for (size_t k = 0; k < sizeof(strategies) / sizeof(strategies[0]); k++) {
		pmcf_combine_opts o = PMCF_COMBINE_OPTS_INIT;
		o.strategy = strategies[k];
		pmcf_profile *out = NULL;
		int rc = pmcf_combine(in, 2, &o, &out, NULL);
		if (rc)
			return rc;
		*digest += profile_digest(out) * (double)(k + 1);
		pmcf_profile_free(out);
	}
	return 0;
}

struct epd_ctx {
	pmcf_profile *target, *refs[3];
};

/* EPD of a tiny profile against three tiny references */
static int sc_epd(void *ctx, double *digest)
{
	struct epd_ctx *e = ctx;
	pmcf_epd_result *r = NULL;
	/* one thread: the count and order of allocations must repeat run to run */
	pmcf_epd_opts o = PMCF_EPD_OPTS_INIT;
	o.threads = 1;
	int rc = pmcf_epd_compute(e->target, (const pmcf_profile *const *)e->refs, 3, &o, &r);
	if (rc)
		return rc;
	*digest = pmcf_epd_value(r) + (double)pmcf_epd_npairs(r) * 1000;
	pmcf_epd_result_free(r);
	return 0;
}

/* ---- tests --------------------------------------------------------------- */

static void test_profile_roundtrip(void **state)
{
	(void)state;
	struct two t = {0};
	assert_int_equal(sim_profile("cholesky,blocks=3", "duration,PAPI_L1_DCM,PAPI_L2_TCM", &t.a), 0);
	run_all_failures("profile save/open", sc_roundtrip, &t);
	pmcf_profile_free(t.a);
}

static void test_catalog_evlist(void **state)
{
	(void)state;
	run_all_failures("sim catalogue", sc_catalog, NULL);
	pmcf_catalog *c = NULL;
	assert_int_equal(pmcf_catalog_sim("cholesky", &c), 0);
	run_all_failures("evlist parse", sc_evlist, c);
	run_all_failures("plan make/json", sc_plan, c);
	pmcf_catalog_free(c);
}

static void test_sim_record(void **state)
{
	(void)state;
	run_all_failures("sim record", sc_sim_record, NULL);
}

static void test_combine(void **state)
{
	(void)state;
	struct two t = {0};
	assert_int_equal(sim_profile("cholesky,blocks=3,seed=1", "duration,PAPI_L1_DCM,PAPI_L2_TCM", &t.a),
			 0);
	assert_int_equal(sim_profile("cholesky,blocks=3,seed=2", "duration,PAPI_L1_DCM,PAPI_L3_TCM", &t.b),
			 0);
	run_all_failures("combine", sc_combine, &t);
	pmcf_profile_free(t.a);
	pmcf_profile_free(t.b);
}

static void test_epd(void **state)
{
	(void)state;
	struct epd_ctx e = {0};
	const char *ev = "duration,PAPI_L1_DCM,PAPI_L2_TCM,PAPI_L3_TCM";
	assert_int_equal(sim_profile("cholesky,blocks=3,seed=9", ev, &e.target), 0);
	for (int k = 0; k < 3; k++) {
		char spec[64];
		snprintf(spec, sizeof(spec), "cholesky,blocks=3,seed=%d", k + 1);
		assert_int_equal(sim_profile(spec, ev, &e.refs[k]), 0);
	}
	run_all_failures("epd", sc_epd, &e);
	pmcf_profile_free(e.target);
	for (int k = 0; k < 3; k++)
		pmcf_profile_free(e.refs[k]);
}

int main(void)
{
	const char *t = getenv("PMCF_TEST_TMP");
	snprintf(tmpdir, sizeof(tmpdir), "%s", t && *t ? t : "/tmp");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_profile_roundtrip),
		cmocka_unit_test(test_catalog_evlist),
		cmocka_unit_test(test_sim_record),
		cmocka_unit_test(test_combine),
		cmocka_unit_test(test_epd),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
