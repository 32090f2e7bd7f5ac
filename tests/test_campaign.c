/* Unit tests of campaigns (pmcf_campaign, src/campaign) through the public
 * API alone: a small simulated campaign run by the local launcher with
 * progress callbacks, interrupted by the stop callback and resumed (the
 * executions done are reused, the others recorded, the same profiles as an
 * uninterrupted campaign), the folder's lock and refusals, the launcher
 * table and the executions compared. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "pmcfuse/campaign.h"
#include "pmcfuse/events.h"
#include "pmcfuse/plan.h"
#include "pmcfuse/profile.h"
#include "pmcfuse/source.h"
#include "x/x.h"

#define SPEC "cholesky,blocks=4,seed=3"
#define EVENTS "PAPI_TOT_INS,PAPI_L1_DCM,PAPI_BR_MSP,PAPI_L2_TCM,PAPI_L1_ICM,PAPI_L3_TCM"

static int ok(int err, int line)
{
	if (err)
		fail_msg("line %d: %s (%s)", line, pmcf_strerror(err), pmcf_errdetail());
	return err;
}
#define OK(x) ok((x), __LINE__)

/* A source, its events, a plan over 2 counters and one list per set. */
struct fixture {
	pmcf_source *src;
	pmcf_evlist *ev, **sets;
	pmcf_plan *plan;
	size_t n;
	char dir[512];
};

static void fixture_make(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	pmcf_count_opts so = PMCF_COUNT_OPTS_INIT;
	so.pmcs = 2;
	OK(pmcf_source_new_sim(SPEC, &so, &f->src));
	OK(pmcf_source_events(f->src, EVENTS, &f->ev));
	pmcf_plan_opts po = PMCF_PLAN_OPTS_INIT;
	po.pmcs = 2;
	OK(pmcf_plan_make_evlist(f->ev, NULL, &po, &f->plan));
	f->n = pmcf_plan_nsets(f->plan);
	assert_true(f->n >= 3);
	f->sets = calloc(f->n, sizeof(*f->sets));
	for (size_t k = 0; k < f->n; k++) /* copies of the plan's own lists */
		OK(pmcf_evlist_subset(pmcf_plan_evlist_at(f->plan, k),
				      pmcf_evlist_names(pmcf_plan_evlist_at(f->plan, k)),
				      pmcf_evlist_size(pmcf_plan_evlist_at(f->plan, k)), &f->sets[k]));
	const char *tmp = getenv("PMCF_TEST_TMP");
	snprintf(f->dir, sizeof(f->dir), "%s/campaignXXXXXX", tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(f->dir));
}

static void fixture_free(struct fixture *f)
{
	for (size_t k = 0; k < f->n; k++)
		pmcf_evlist_free(f->sets[k]);
	free(f->sets);
	pmcf_plan_free(f->plan);
	pmcf_evlist_free(f->ev);
	pmcf_source_free(f->src);
	pmcfi_rm_tree(f->dir);
}

/* What the callbacks saw. */
struct seen {
	size_t started, done, stop_after;
	char last_what[160];
};

static void on_start(void *ctx, size_t k, const char *what)
{
	struct seen *s = ctx;
	(void)k;
	s->started++;
	snprintf(s->last_what, sizeof(s->last_what), "%s", what);
}

static int on_done(void *ctx, size_t k, const char *label, double secs)
{
	struct seen *s = ctx;
	char want[32];
	snprintf(want, sizeof(want), "set %zu", k);
	assert_string_equal(label, want);
	assert_true(secs >= 0);
	s->done++;
	return 0;
}

/* "SIGINT" once stop_after executions are done (0: never). */
static int on_stop(void *ctx)
{
	struct seen *s = ctx;
	return s->stop_after && s->done >= s->stop_after ? SIGINT : 0;
}

static pmcf_campaign *open_campaign(struct fixture *f, const char *dir, int resume, struct seen *seen,
				    pmcf_campaign_callbacks *cb, int *err)
{
	*cb = (pmcf_campaign_callbacks){.size = sizeof(*cb),
					.ctx = seen,
					.exec_start = on_start,
					.exec_done = on_done,
					.stop = on_stop};
	pmcf_campaign_opts o = PMCF_CAMPAIGN_OPTS_INIT;
	o.dir = dir;
	o.resume = resume;
	o.sets = (const pmcf_evlist *const *)f->sets;
	o.nsets = f->n;
	o.plan_meta = o.keep_failed = o.hold = 1;
	o.cb = cb;
	pmcf_campaign *c = NULL;
	*err = pmcf_campaign_open(&o, &c);
	return c;
}

/* A campaign stopped after its first execution, then resumed: the first is
 * reused, the others recorded, and every profile is the one an
 * uninterrupted campaign records. */
static void test_run_interrupt_resume(void **state)
{
	(void)state;
	struct fixture f;
	fixture_make(&f);
	char a[600], b[600];
	snprintf(a, sizeof(a), "%s/a", f.dir);
	snprintf(b, sizeof(b), "%s/b", f.dir);
	int err;
	pmcf_campaign_callbacks cb;

	/* the whole campaign at once, for reference */
	struct seen whole = {0};
	pmcf_campaign *w = open_campaign(&f, b, 0, &whole, &cb, &err);
	OK(err);
	pmcf_campaign_result rw = PMCF_CAMPAIGN_RESULT_INIT;
	OK(pmcf_campaign_run(w, f.src, &rw));
	assert_int_equal(rw.recorded, f.n);
	assert_int_equal(rw.signal, 0);
	assert_int_equal(whole.done, f.n);
	assert_int_equal(whole.started, f.n);
	assert_non_null(strstr(whole.last_what, "set "));

	/* stopped once one execution is done */
	struct seen first = {.stop_after = 1};
	pmcf_campaign *c = open_campaign(&f, a, 0, &first, &cb, &err);
	OK(err);
	pmcf_campaign_result r = PMCF_CAMPAIGN_RESULT_INIT;
	OK(pmcf_campaign_run(c, f.src, &r));
	assert_int_equal(r.signal, SIGINT);
	assert_int_equal(r.recorded, 1);
	assert_int_equal(r.at, 1);
	assert_int_equal(r.started, 0); /* the stop came before execution 1 */
	assert_string_equal(pmcf_campaign_status(c, 0), "ok");
	assert_string_equal(pmcf_campaign_status(c, 1), "missing");
	assert_true(pmcf_campaign_is_done(c, 0));
	assert_false(pmcf_campaign_is_done(c, 1));
	/* the folder is this session's: another is refused */
	struct seen other = {0};
	pmcf_campaign_callbacks cb2;
	assert_null(open_campaign(&f, a, 1, &other, &cb2, &err));
	assert_int_equal(err, PMCF_ECONFLICT);
	assert_non_null(strstr(pmcf_errdetail(), "in use by another pmcfuse"));
	OK(pmcf_campaign_state_set(c, "interrupted"));
	pmcf_campaign_free(c);

	/* a new campaign in a folder that holds one is refused */
	assert_null(open_campaign(&f, a, 0, &other, &cb2, &err));
	assert_int_equal(err, PMCF_ECONFLICT);
	assert_non_null(strstr(pmcf_errdetail(), "already holds a campaign"));

	/* resumed: execution 0 reused, the rest recorded */
	struct seen second = {0};
	c = open_campaign(&f, a, 1, &second, &cb, &err);
	OK(err);
	r = (pmcf_campaign_result)PMCF_CAMPAIGN_RESULT_INIT;
	OK(pmcf_campaign_run(c, f.src, &r));
	assert_int_equal(r.signal, 0);
	assert_int_equal(r.reused, 1);
	assert_int_equal(r.recorded, f.n - 1);
	assert_int_equal(second.done, f.n - 1);
	for (size_t k = 0; k < f.n; k++) {
		const pmcf_profile *p = pmcf_campaign_profile(c, k), *q = pmcf_campaign_profile(w, k);
		assert_non_null(p);
		assert_string_equal(pmcf_campaign_status(c, k), "ok");
		char set[24];
		snprintf(set, sizeof(set), "%zu", k);
		assert_string_equal(pmcf_profile_meta_get(p, PMCF_META_PLAN_SET), set);
		/* the same execution as the uninterrupted campaign's */
		assert_int_equal(pmcf_profile_nxus(p), pmcf_profile_nxus(q));
		assert_int_equal(pmcf_profile_nevents(p), pmcf_profile_nevents(q));
		for (size_t i = 0; i < pmcf_profile_nxus(p); i += 7)
			for (size_t e = 0; e < pmcf_profile_nevents(p); e++) {
				double x = pmcf_profile_value(p, i, e), y = pmcf_profile_value(q, i, e);
				assert_memory_equal(&x, &y, sizeof(x));
			}
		/* seeds: recorded in this session, else 0 */
		assert_true(pmcf_campaign_seed(c, k) == (k ? pmcf_source_exec_seed(f.src, (long)k) : 0));
		assert_true(access(pmcf_campaign_path(c, k), R_OK) == 0);
	}
	/* a simulation's executions agree with the first */
	char why[512];
	const pmcf_profile *pair[2] = {pmcf_campaign_profile(c, 0), NULL};
	for (size_t k = 1; k < f.n; k++) {
		pair[1] = pmcf_campaign_profile(c, k);
		assert_int_equal(pmcf_campaign_differs(pair, 1, why, sizeof(why)), 0);
	}
	OK(pmcf_campaign_state_set(c, "complete"));
	pmcf_campaign_free(c);

	/* the command kept: none here, so it is refused as such */
	int argc;
	char **argv, *cwd;
	assert_int_equal(pmcf_campaign_command("run", a, &argc, &argv, &cwd), PMCF_EINVAL);
	pmcf_campaign_remove(w);
	assert_int_equal(access(b, F_OK), -1); /* emptied and removed */
	pmcf_campaign_free(w);
	fixture_free(&f);
}

/* Run again in the same session after a stop: it goes on with what is not
 * done (the execution done is kept, not recorded twice). */
static void test_run_again(void **state)
{
	(void)state;
	struct fixture f;
	fixture_make(&f);
	char d[600];
	snprintf(d, sizeof(d), "%s/again", f.dir);
	struct seen s = {.stop_after = 1};
	pmcf_campaign_callbacks cb;
	int err;
	pmcf_campaign *c = open_campaign(&f, d, 0, &s, &cb, &err);
	OK(err);
	pmcf_campaign_result r = PMCF_CAMPAIGN_RESULT_INIT;
	OK(pmcf_campaign_run(c, f.src, &r));
	assert_int_equal(r.signal, SIGINT);
	const pmcf_profile *first = pmcf_campaign_profile(c, 0);
	s.stop_after = 0;
	r = (pmcf_campaign_result)PMCF_CAMPAIGN_RESULT_INIT;
	OK(pmcf_campaign_run(c, f.src, &r));
	assert_int_equal(r.signal, 0);
	assert_int_equal(r.recorded, f.n - 1);
	assert_int_equal(s.done, f.n);
	assert_ptr_equal(pmcf_campaign_profile(c, 0), first);
	for (size_t k = 0; k < f.n; k++)
		assert_string_equal(pmcf_campaign_status(c, k), "ok");
	pmcf_campaign_free(c);
	fixture_free(&f);
}

/* A resume with another plan (digest) is refused; bad options too. */
static void test_refusals(void **state)
{
	(void)state;
	struct fixture f;
	fixture_make(&f);
	struct seen s = {0};
	pmcf_campaign_callbacks cb;
	int err;
	char d[600];
	snprintf(d, sizeof(d), "%s/c", f.dir);
	pmcf_campaign *c = open_campaign(&f, d, 0, &s, &cb, &err);
	OK(err);
	pmcf_campaign_free(c);
	pmcf_campaign_opts o = PMCF_CAMPAIGN_OPTS_INIT;
	o.dir = d;
	o.resume = 1;
	o.sets = (const pmcf_evlist *const *)f.sets;
	o.nsets = f.n - 1; /* another plan */
	assert_int_equal(pmcf_campaign_open(&o, &c), PMCF_ECONFLICT);
	assert_non_null(strstr(pmcf_errdetail(), "campaign of another plan"));
	o.nsets = f.n;
	o.file_format = "../x%zu"; /* outside the folder */
	assert_int_equal(pmcf_campaign_open(&o, &c), PMCF_EINVAL);
	o.file_format = NULL;
	o.size = sizeof(o) + 8; /* a newer header's field this library does not know */
	struct {
		pmcf_campaign_opts o;
		long extra;
	} big = {o, 1};
	assert_int_equal(pmcf_campaign_open(&big.o, &c), PMCF_EINVAL);
	snprintf(d, sizeof(d), "%s/none", f.dir);
	o.size = sizeof(o);
	o.dir = d;
	assert_int_equal(pmcf_campaign_open(&o, &c), PMCF_EINVAL); /* nothing to resume */
	assert_non_null(strstr(pmcf_errdetail(), "holds no campaign to resume"));
	/* options zeroed, not started from PMCF_CAMPAIGN_OPTS_INIT: only 0 is
	 * array task 0; the detail names the field and the macro (it named
	 * only the command's --only and --resume) */
	pmcf_campaign_opts z;
	memset(&z, 0, sizeof(z));
	z.size = sizeof(z);
	z.dir = d;
	z.sets = (const pmcf_evlist *const *)f.sets;
	z.nsets = f.n;
	assert_int_equal(pmcf_campaign_open(&z, &c), PMCF_EINVAL);
	assert_non_null(strstr(pmcf_errdetail(), "pmcf_campaign_opts.only 0"));
	assert_non_null(strstr(pmcf_errdetail(), "PMCF_CAMPAIGN_OPTS_INIT sets -1, all executions"));
	fixture_free(&f);
}

static char tool[2400];

/* A failing program kept (keep_failed): pmcf_campaign_run returns
 * PMCF_EPROGRAM with its detail set, as without keep_failed (saving the
 * kept profile cleared it). */
static void test_failed_detail(void **state)
{
	(void)state;
	char *argv[] = {"/bin/sh", "-c", "exit 3", NULL};
	pmcf_program_opts po = {.size = sizeof(po), .tool_path = tool};
	for (int kf = 0; kf < 2; kf++) {
		pmcf_source *src;
		OK(pmcf_source_new_program(3, argv, NULL, &po, &src));
		pmcf_evlist *ev;
		OK(pmcf_source_events(src, "task-clock", &ev));
		const pmcf_evlist *sets[1] = {ev};
		const char *tmp = getenv("PMCF_TEST_TMP");
		char dir[512], d[600];
		snprintf(dir, sizeof(dir), "%s/failedXXXXXX", tmp ? tmp : "/tmp");
		assert_non_null(mkdtemp(dir));
		snprintf(d, sizeof(d), "%s/c", dir);
		pmcf_campaign_opts o = PMCF_CAMPAIGN_OPTS_INIT;
		o.dir = d;
		o.sets = sets;
		o.nsets = 1;
		o.keep_failed = kf;
		pmcf_campaign *c;
		OK(pmcf_campaign_open(&o, &c));
		pmcf_campaign_result r = PMCF_CAMPAIGN_RESULT_INIT;
		int err = pmcf_campaign_run(c, src, &r);
		pmcf_campaign_free(c);
		pmcf_evlist_free(ev);
		pmcf_source_free(src);
		pmcfi_rm_tree(dir);
		if (err == PMCF_EPARANOID || err == PMCF_ENOTSUP)
			skip(); /* perf_event_open refused here: nothing to count */
		assert_int_equal(err, PMCF_EPROGRAM);
		assert_non_null(r.message);
		assert_string_not_equal(pmcf_errdetail(), "");
		assert_non_null(strstr(pmcf_errdetail(), "3"));
	}
}

/* A plan and its events given as they are: the campaign makes the sets,
 * and the plan's digest (SHA-256 of its JSON) names it and its profiles. */
static void test_plan(void **state)
{
	(void)state;
	struct fixture f;
	fixture_make(&f);
	char d[600], *json = NULL, hex[65];
	snprintf(d, sizeof(d), "%s/p", f.dir);
	OK(pmcf_plan_to_json(f.plan, &json));
	pmcfi_sha256_buf(json, strlen(json), hex);
	free(json);
	pmcf_campaign_opts o = PMCF_CAMPAIGN_OPTS_INIT;
	o.dir = d;
	o.plan = f.plan;
	o.events = f.ev;
	o.plan_meta = 1;
	pmcf_campaign *c;
	OK(pmcf_campaign_open(&o, &c));
	assert_int_equal(pmcf_campaign_size(c), f.n);
	pmcf_campaign_result r = PMCF_CAMPAIGN_RESULT_INIT;
	OK(pmcf_campaign_run(c, f.src, &r));
	assert_int_equal(r.recorded, f.n);
	assert_null(pmcf_campaign_profile(c, 0)); /* not held */
	pmcf_campaign_free(c);
	pmcf_profile *p;
	char path[700];
	snprintf(path, sizeof(path), "%s/exec-%zu.pmcf", d, f.n - 1);
	OK(pmcf_profile_open(path, &p));
	assert_string_equal(pmcf_profile_meta_get(p, PMCF_META_PLAN_DIGEST), hex);
	pmcf_profile_free(p);

	/* the plan owns its resolved sets: no events needed; a loaded plan
	 * (not resolved) needs them, or pmcf_plan_resolve first */
	snprintf(d, sizeof(d), "%s/q", f.dir);
	o.events = NULL;
	OK(pmcf_campaign_open(&o, &c));
	assert_int_equal(pmcf_campaign_size(c), f.n);
	pmcf_campaign_free(c);
	pmcf_plan *loaded;
	OK(pmcf_plan_to_json(f.plan, &json));
	OK(pmcf_plan_from_json(json, &loaded));
	free(json);
	o.plan = loaded;
	c = NULL;
	assert_int_equal(pmcf_campaign_open(&o, &c), PMCF_EINVAL);
	assert_null(c);
	OK(pmcf_plan_resolve(loaded, f.ev));
	snprintf(d, sizeof(d), "%s/r", f.dir);
	OK(pmcf_campaign_open(&o, &c));
	assert_int_equal(pmcf_campaign_size(c), f.n);
	pmcf_campaign_free(c);
	pmcf_plan_free(loaded);
	fixture_free(&f);
}

/* One descriptor per launcher, found by name. */
static void test_launchers(void **state)
{
	(void)state;
	size_t n;
	const pmcf_launcher *t = pmcf_launchers(&n);
	assert_int_equal(n, 2);
	assert_ptr_equal(pmcf_launcher_find("local"), &t[0]);
	assert_ptr_equal(pmcf_launcher_find("slurm"), &t[1]);
	assert_null(pmcf_launcher_find("pbs"));
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(t[i].size, sizeof(pmcf_launcher));
		assert_non_null(t[i].help);
		assert_non_null(t[i].check);
		assert_non_null(t[i].launch);
	}
	pmcf_launch_opts lo = PMCF_LAUNCH_OPTS_INIT;
	OK(t[0].check(&lo));
}

int main(void)
{
	const char *tmp = getenv("PMCF_TEST_TMP"); /* <build>/tests/tmp; the collector is in <build> */
	snprintf(tool, sizeof(tool), "%s%s/libpmcfuse-ompt.so", tmp ? tmp : ".", tmp ? "/../.." : "");
	setenv("ASAN_OPTIONS", "verify_asan_link_order=0", 0);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_interrupt_resume),
		cmocka_unit_test(test_run_again),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_launchers),
		cmocka_unit_test(test_failed_detail),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
