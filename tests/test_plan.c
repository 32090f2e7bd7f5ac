/* Unit tests of the planner on a made-up catalogue (4 general counters,
 * fixed-counter events, two events that exclude each other) and of the
 * plan.json round trip. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "counters/catalog.h"
#include "pmcfuse/combine.h"
#include "pmcfuse/plan.h"
#include "row_check.h"

static int toy_check(void *impl, const pmcf_catalog *c, const size_t *idx, size_t n, unsigned pmcs, char *why,
		     size_t whylen)
{
	(void)impl;
	unsigned cost = 0, cap = pmcs ? pmcs : 4;
	int cx = 0, cy = 0;
	for (size_t i = 0; i < n; i++) {
		const pmcf_event_info *e = pmcf_catalog_at(c, idx[i]);
		cost += e->cost;
		cx |= strcmp(e->name, "cx") == 0;
		cy |= strcmp(e->name, "cy") == 0;
	}
	if (cx && cy) {
		snprintf(why, whylen, "cx and cy exclude each other");
		return 0;
	}
	if (cost > cap) {
		snprintf(why, whylen, "%u counters needed, %u available", cost, cap);
		return 0;
	}
	return 1;
}

static const struct pmcfi_catalog_ops toy_ops = {.check_set = toy_check};

static pmcf_catalog *toy(void)
{
	pmcf_catalog *c;
	assert_int_equal(pmcfi_catalog_new("toy", &toy_ops, NULL, &c), 0);
	static const struct {
		const char *name;
		unsigned cost;
	} ev[] = {{"a", 1},  {"b", 1},    {"c", 1},    {"d", 1},    {"e", 1},    {"f", 1},
		  {"g", 1},  {"h", 1},    {"big1", 2}, {"big2", 2}, {"big3", 2}, {"cx", 1},
		  {"cy", 1}, {"fix1", 0}, {"fix2", 0}, {"huge", 5}};
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++) {
		pmcf_event_info e = {.name = ev[i].name,
				     .source = PMCF_SRC_SIM,
				     .description = "",
				     .available = 1,
				     .cost = ev[i].cost,
				     .constraints =
					     ev[i].cost ? "{\"counters\":[0,1,2,3]}" : "{\"fixed\":true}"};
		assert_int_equal(pmcfi_catalog_add(c, &e), 0);
	}
	return c;
}

static pmcf_plan *mkplan(pmcf_catalog *c, const char *const *ev, size_t n, int strategy, int packing,
			 unsigned pmcs)
{
	pmcf_plan_opts o = PMCF_PLAN_OPTS_INIT;
	o.strategy = strategy;
	o.packing = packing;
	o.pmcs = pmcs;
	pmcf_plan *p = NULL;
	int err = pmcf_plan_make(c, ev, n, &o, &p);
	if (err)
		fail_msg("plan failed: %s (%s)", pmcf_strerror(err), pmcf_errdetail());
	return p;
}

/* Every requested event is in some set, every set fits, duration is in
 * every set; disjoint: no other event twice. */
static void check_valid(pmcf_catalog *c, const pmcf_plan *p, const char *const *ev, size_t n, int disjoint)
{
	for (size_t i = 0; i < n; i++) {
		size_t seen = 0;
		for (size_t k = 0; k < pmcf_plan_nsets(p); k++) {
			const char *const *names;
			size_t m;
			assert_int_equal(pmcf_plan_events_at(p, k, &names, &m), 0);
			for (size_t q = 0; q < m; q++)
				seen += strcmp(names[q], ev[i]) == 0;
		}
		if (!seen || (disjoint && seen != 1))
			fail_msg("event %s in %zu sets", ev[i], seen);
	}
	const char *const *first = NULL;
	size_t nfirst = 0;
	for (size_t k = 0; k < pmcf_plan_nsets(p); k++) {
		const char *const *names;
		size_t m;
		pmcf_plan_events_at(p, k, &names, &m);
		assert_string_equal(names[0], "duration");
		assert_int_equal(pmcf_catalog_check_events(c, names, m, pmcf_plan_pmcs(p), NULL, 0), 1);
		if (!k) {
			first = names;
			nfirst = m;
		}
	}
	(void)first;
	(void)nfirst;
}

static void test_lgl_packs_tight(void **state)
{
	(void)state;
	pmcf_catalog *c = toy();
	static const char *const ev[] = {"a", "b", "c", "d", "e", "f", "g", "h"};
	pmcf_plan *p = mkplan(c, ev, 8, PMCF_COMBINE_LGL, PMCF_PACK_BEST, 0);
	assert_int_equal(pmcf_plan_nsets(p), 2);
	assert_int_equal(pmcf_plan_lower_bound(p), 2);
	assert_true(pmcf_plan_optimal(p));
	check_valid(c, p, ev, 8, 1);
	pmcf_plan_free(p);
	/* a budget of 3 counters: ceil(8 / 3) = 3 */
	p = mkplan(c, ev, 8, PMCF_COMBINE_CTC, PMCF_PACK_BEST, 3);
	assert_int_equal(pmcf_plan_nsets(p), 3);
	assert_int_equal(pmcf_plan_lower_bound(p), 3);
	check_valid(c, p, ev, 8, 1);
	pmcf_plan_free(p);
	pmcf_catalog_free(c);
}

/* The papers' greedy packing opens a set at every misfit; first-fit
 * decreasing does better on this order. */
static void test_greedy_vs_best(void **state)
{
	(void)state;
	pmcf_catalog *c = toy();
	static const char *const ev[] = {"a", "big1", "big2", "b", "big3"};
	pmcf_plan *g = mkplan(c, ev, 5, PMCF_COMBINE_LGL, PMCF_PACK_GREEDY, 0);
	pmcf_plan *b = mkplan(c, ev, 5, PMCF_COMBINE_LGL, PMCF_PACK_BEST, 0);
	assert_int_equal(pmcf_plan_nsets(g), 3);
	assert_int_equal(pmcf_plan_nsets(b), 2);
	assert_int_equal(pmcf_plan_lower_bound(b), 2);
	check_valid(c, g, ev, 5, 1);
	check_valid(c, b, ev, 5, 1);
	assert_int_equal(pmcf_plan_packing(g), PMCF_PACK_GREEDY);
	pmcf_plan_free(g);
	pmcf_plan_free(b);
	pmcf_catalog_free(c);
}

/* Incompatible events give a clique bound above the cost bound. */
static void test_conflicts(void **state)
{
	(void)state;
	pmcf_catalog *c = toy();
	static const char *const ev[] = {"cx", "cy"};
	pmcf_plan *p = mkplan(c, ev, 2, PMCF_COMBINE_LGL, PMCF_PACK_BEST, 0);
	assert_int_equal(pmcf_plan_nsets(p), 2);
	assert_int_equal(pmcf_plan_lower_bound(p), 2);
	check_valid(c, p, ev, 2, 1);
	pmcf_plan_free(p);
	/* an event that never fits */
	static const char *const ev2[] = {"a", "huge"};
	pmcf_plan_opts o = PMCF_PLAN_OPTS_INIT;
	assert_int_equal(pmcf_plan_make(c, ev2, 2, &o, &p), PMCF_ETOOMANY);
	assert_non_null(strstr(pmcf_errdetail(), "huge"));
	static const char *const ev3[] = {"a", "nosuch"};
	assert_int_equal(pmcf_plan_make(c, ev3, 2, &o, &p), PMCF_EEVENT);
	pmcf_catalog_free(c);
}

/* BC: the free events (duration, fixed counters) link every set, so BC
 * needs no more executions than LGL; --link adds a paid linking event. */
static void test_bc_links(void **state)
{
	(void)state;
	pmcf_catalog *c = toy();
	static const char *const ev[] = {"a", "b", "c", "d", "e", "f", "g", "h", "fix1", "fix2"};
	pmcf_plan *l = mkplan(c, ev, 10, PMCF_COMBINE_LGL, PMCF_PACK_BEST, 0);
	pmcf_plan *b = mkplan(c, ev, 10, PMCF_COMBINE_BC, PMCF_PACK_BEST, 0);
	assert_true(pmcf_plan_nsets(b) <= pmcf_plan_nsets(l));
	check_valid(c, l, ev, 10, 1);
	check_valid(c, b, ev, 10, 0);
	const char *const *link;
	size_t nl;
	pmcf_plan_link(b, &link, &nl);
	assert_int_equal(nl, 3); /* duration, fix1, fix2 */
	for (size_t k = 0; k < pmcf_plan_nsets(b); k++) {
		const char *const *names;
		size_t m;
		pmcf_plan_events_at(b, k, &names, &m);
		assert_string_equal(names[1], "fix1");
		assert_string_equal(names[2], "fix2");
	}
	pmcf_plan_free(b);
	pmcf_plan_free(l);

	pmcf_plan_opts o = PMCF_PLAN_OPTS_INIT;
	static const char *const lk[] = {"a"};
	o.link = lk;
	o.nlink = 1;
	assert_int_equal(pmcf_plan_make(c, ev, 10, &o, &b), 0);
	/* 7 paid events over 3 free counters per set */
	assert_int_equal(pmcf_plan_nsets(b), 3);
	assert_int_equal(pmcf_plan_lower_bound(b), 3);
	for (size_t k = 0; k < pmcf_plan_nsets(b); k++) {
		const char *const *names;
		size_t m, has = 0;
		pmcf_plan_events_at(b, k, &names, &m);
		for (size_t q = 0; q < m; q++)
			has += strcmp(names[q], "a") == 0;
		assert_int_equal(has, 1);
	}
	check_valid(c, b, ev, 10, 0);
	pmcf_plan_free(b);
	pmcf_catalog_free(c);
}

/* Costs 2,2,2,1,1,1,1,1,1 into 4 counters: 12 counters in 3 full sets,
 * which meets the cost bound (so the plan is proven optimal). */
static void test_exact_small(void **state)
{
	(void)state;
	pmcf_catalog *c = toy();
	static const char *const ev[] = {"big1", "big2", "big3", "a", "b", "c", "d", "e", "f"};
	pmcf_plan *p = mkplan(c, ev, 9, PMCF_COMBINE_LGL, PMCF_PACK_BEST, 0);
	assert_int_equal(pmcf_plan_nsets(p), 3);
	assert_int_equal(pmcf_plan_lower_bound(p), 3);
	check_valid(c, p, ev, 9, 1);
	pmcf_plan_free(p);
	pmcf_catalog_free(c);
}

static void test_json_roundtrip(void **state)
{
	(void)state;
	pmcf_catalog *c = toy();
	static const char *const ev[] = {"a", "b", "c", "d", "e", "fix1"};
	pmcf_plan *p = mkplan(c, ev, 6, PMCF_COMBINE_BC, PMCF_PACK_BEST, 2);
	assert_int_equal(pmcf_plan_sim_set(p, "cholesky,blocks=8"), 0);
	pmcf_plan_seed_set(p, 7);
	char *js;
	assert_int_equal(pmcf_plan_to_json(p, &js), 0);
	assert_non_null(strstr(js, "\"format\": \"pmcfuse-plan\""));
	pmcf_plan *q;
	assert_int_equal(pmcf_plan_from_json(js, &q), 0);
	assert_int_equal(pmcf_plan_nsets(q), pmcf_plan_nsets(p));
	assert_int_equal(pmcf_plan_pmcs(q), 2);
	assert_int_equal(pmcf_plan_seed(q), 7);
	assert_int_equal(pmcf_plan_strategy(q), PMCF_COMBINE_BC);
	assert_string_equal(pmcf_plan_sim(q), "cholesky,blocks=8");
	for (size_t k = 0; k < pmcf_plan_nsets(p); k++) {
		const char *const *a, *const *b;
		size_t na, nb;
		pmcf_plan_events_at(p, k, &a, &na);
		pmcf_plan_events_at(q, k, &b, &nb);
		assert_int_equal(na, nb);
		for (size_t i = 0; i < na; i++)
			assert_string_equal(a[i], b[i]);
	}
	char *js2;
	assert_int_equal(pmcf_plan_to_json(q, &js2), 0);
	assert_string_equal(js, js2);
	/* a program source */
	static const char *const argv[] = {"./prog", "--n", "10"};
	assert_int_equal(pmcf_plan_program_set(q, argv, 3), 0);
	free(js2);
	assert_int_equal(pmcf_plan_to_json(q, &js2), 0);
	pmcf_plan_free(q);
	assert_int_equal(pmcf_plan_from_json(js2, &q), 0);
	size_t argc;
	const char *const *av = pmcf_plan_program(q, &argc);
	assert_int_equal(argc, 3);
	assert_string_equal(av[2], "10");
	assert_null(pmcf_plan_sim(q));
	/* arguments and program that are not UTF-8 survive, byte for byte */
	static const char *const raw[] = {"./pr\xfe", "a", "\xff", "b\xc3", "\xe2\x82"};
	assert_int_equal(pmcf_plan_program_set(q, raw, 5), 0);
	free(js2);
	assert_int_equal(pmcf_plan_to_json(q, &js2), 0);
	assert_non_null(strstr(js2, "\"base64\": \"/w==\""));
	pmcf_plan_free(q);
	assert_int_equal(pmcf_plan_from_json(js2, &q), 0);
	av = pmcf_plan_program(q, &argc);
	assert_int_equal(argc, 5);
	for (size_t i = 0; i < 5; i++)
		assert_string_equal(av[i], raw[i]);
	pmcf_plan_free(q);
	/* base64 that is not, or that holds a NUL byte */
	static const char *const badb64[] = {"\"x\"",    "\"/w=\"", "\"/=w=\"",
					     "\"AA==\"", "1",       "\"/w==\", \"x\": 1"};
	for (size_t i = 0; i < sizeof(badb64) / sizeof(badb64[0]); i++) {
		char bad[256];
		snprintf(bad, sizeof(bad),
			 "{\"format\":\"pmcfuse-plan\",\"version\":1,\"source\":{\"program\":\"p\","
			 "\"args\":[{\"base64\":%s}]},\"sets\":[[\"a\"]]}",
			 badb64[i]);
		assert_int_equal(pmcf_plan_from_json(bad, &q), PMCF_ESYNTAX);
	}
	free(js);
	free(js2);
	/* bad input */
	assert_int_equal(pmcf_plan_from_json("{\"format\":\"pmcfuse-plan\",\"version\":2,\"sets\":[[\"a\"]]}",
					     &q),
			 PMCF_EVERSION);
	assert_int_equal(pmcf_plan_from_json("{\"format\":\"other\"}", &q), PMCF_ENOTOURS);
	assert_int_equal(pmcf_plan_from_json("{\"format\":\"pmcfuse-plan\",\"version\":1,\"sets\":[]}", &q),
			 PMCF_ESYNTAX);
	assert_int_equal(pmcf_plan_from_json("{\"format\":\"pmcfuse-plan\",\"version\":1,\"sets\":[[1]]}",
					     &q),
			 PMCF_ESYNTAX);
	assert_int_equal(pmcf_plan_from_json("{\"form", &q), PMCF_ESYNTAX);
	assert_int_equal(pmcf_plan_load("/nonexistent/plan.json", &q), -2 /* -ENOENT */);
	pmcf_plan_free(p);
	pmcf_catalog_free(c);
}

/* Plan fields are checked as the options they mirror (issue 22): each row
 * is a field put into a valid plan, the error (0: accepted) and the message. */
static void test_json_fields(void **state)
{
	(void)state;
	static const struct {
		int line;
		const char *field;
		int err;
		const char *msg;
	} rows[] = {
		{__LINE__, "\"pmcs\": 4", 0, NULL},
		{__LINE__, "\"pmcs\": 0", 0, NULL},
		{__LINE__, "\"pmcs\": 64", 0, NULL},
		{__LINE__, "\"pmcs\": 65", PMCF_ESYNTAX, "\"pmcs\": 65 is out of range (1..64"},
		{__LINE__, "\"pmcs\": 4294967297", PMCF_ESYNTAX, "\"pmcs\": 4294967297 is out of range"},
		{__LINE__, "\"pmcs\": 100000", PMCF_ESYNTAX, "\"pmcs\": 100000 is out of range"},
		{__LINE__, "\"pmcs\": -1", PMCF_ESYNTAX, "\"pmcs\": -1 is out of range"},
		{__LINE__, "\"pmcs\": 99999999999999999999", PMCF_ESYNTAX,
		 "\"pmcs\": 99999999999999999999 is out of range"},
		{__LINE__, "\"pmcs\": \"4\"", PMCF_ESYNTAX, "\"pmcs\": \"4\" is not a whole number"},
		{__LINE__, "\"pmcs\": 1e308", PMCF_ESYNTAX, "is not a whole number"},
		{__LINE__, "\"pmcs\": 2.5", PMCF_ESYNTAX, "\"pmcs\": 2.5 is not a whole number"},
		{__LINE__, "\"pmcs\": null", PMCF_ESYNTAX, "\"pmcs\": null is not a whole number"},
		{__LINE__, "\"seed\": 18446744073709551615", 0, NULL},
		{__LINE__, "\"seed\": 9223372036854775808", 0, NULL},
		{__LINE__, "\"seed\": 0", 0, NULL},
		{__LINE__, "\"seed\": 18446744073709551616", PMCF_ESYNTAX,
		 "\"seed\": 18446744073709551616 is out of range (0..18446744073709551615)"},
		{__LINE__, "\"seed\": -1", PMCF_ESYNTAX, "\"seed\": -1 is out of range"},
		{__LINE__, "\"seed\": -99999999999999999999", PMCF_ESYNTAX, "is out of range"},
		{__LINE__, "\"seed\": \"7\"", PMCF_ESYNTAX, "\"seed\": \"7\" is not a whole number"},
		{__LINE__, "\"executions\": 2", 0, NULL},
		{__LINE__, "\"executions\": 100", PMCF_ESYNTAX,
		 "\"executions\": 100, but the plan has 2 sets"},
		{__LINE__, "\"lower_bound\": 3", PMCF_ESYNTAX, "\"lower_bound\": 3 is more than the 2"},
		{__LINE__, "\"packing\": \"greedy\"", 0, NULL},
		{__LINE__, "\"packing\": \"tight\"", PMCF_ESYNTAX, "unknown packing 'tight'"},
		{__LINE__, "\"strategy\": 3", PMCF_ESYNTAX, "\"strategy\": 3 is not a string"},
		{__LINE__, "\"optimal\": 1", PMCF_ESYNTAX, "\"optimal\" must be true or false"},
		{__LINE__, "\"source\": {\"sim\": \"cholesky\", \"program\": \"p\"}", PMCF_ESYNTAX,
		 "\"source\" names both \"sim\" and \"program\""},
		{__LINE__, "\"source\": {\"args\": [\"a\"]}", PMCF_ESYNTAX, "\"args\" but no \"program\""},
		{__LINE__, "\"source\": \"cholesky\"", PMCF_ESYNTAX, "\"source\" must be an object"},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char js[512];
		snprintf(js, sizeof(js),
			 "{\"format\": \"pmcfuse-plan\", \"version\": 1, %s, \"sets\": [[\"a\"], [\"b\"]]}",
			 rows[i].field);
		pmcf_plan *p = NULL;
		int err = pmcf_plan_from_json(js, &p);
		ROW_CHECK(rows[i].line, err == rows[i].err, "%s: error %d, expected %d (%s)", rows[i].field,
			  err, rows[i].err, pmcf_errdetail());
		ROW_CHECK(rows[i].line, !rows[i].msg || strstr(pmcf_errdetail(), rows[i].msg),
			  "%s: message '%s' lacks '%s'", rows[i].field, pmcf_errdetail(), rows[i].msg);
		pmcf_plan_free(p);
	}
	/* a seed beyond INT64_MAX is written as its digits and reads back */
	pmcf_plan *p;
	assert_int_equal(pmcf_plan_from_json("{\"format\": \"pmcfuse-plan\", \"version\": 1, \"seed\": "
					     "18446744073709551615, \"sets\": [[\"a\"]]}",
					     &p),
			 0);
	assert_true(pmcf_plan_seed(p) == UINT64_MAX);
	char *js;
	assert_int_equal(pmcf_plan_to_json(p, &js), 0);
	assert_non_null(strstr(js, "\n  \"seed\": 18446744073709551615,\n"));
	pmcf_plan *q;
	assert_int_equal(pmcf_plan_from_json(js, &q), 0);
	assert_true(pmcf_plan_seed(q) == UINT64_MAX);
	free(js);
	pmcf_plan_free(p);
	pmcf_plan_free(q);
}

/* --from: overlaps chosen by correlation in a pilot profile's truth. */
/* A pilot profile of n task XUs of one type, no events yet */
static pmcf_profile *pilot_xus(size_t n)
{
	pmcf_profile *pilot;
	assert_int_equal(pmcf_profile_new(&pilot), 0);
	uint32_t t;
	pmcf_profile_type_add(pilot, PMCF_XU_TASK, "t", "", &t);
	for (size_t i = 0; i < n; i++) {
		pmcf_xu xu = {.type = t, .start_ns = i, .end_ns = i + 1, .label = "", .parent_label = ""};
		assert_int_equal(pmcf_profile_xu_add(pilot, &xu, NULL), 0);
	}
	return pilot;
}

static void test_correlated(void **state)
{
	(void)state;
	pmcf_catalog *c = toy();
	static const char *const ev[] = {"a", "b", "c", "d", "e", "f", "g", "h"};
	pmcf_profile *pilot = pilot_xus(50);
	for (size_t e = 0; e < 8; e++) {
		size_t k;
		assert_int_equal(pmcf_profile_truth_event_add(pilot, ev[e], &k), 0);
		double *col = pmcf_profile_truth_column(pilot, k);
		for (size_t i = 0; i < 50; i++) /* a..d follow i, e..h follow i*i%17 */
			col[i] = e < 4 ? (double)i * (double)(e + 1) + (double)(e * i % 3)
				       : (double)((i * i) % 17) * (double)e + (double)(i % 2);
	}
	pmcf_plan_opts o = PMCF_PLAN_OPTS_INIT;
	const pmcf_profile *pilots[1] = {pilot};
	o.pilots = pilots;
	o.npilots = 1;
	pmcf_plan *p;
	assert_int_equal(pmcf_plan_make(c, ev, 8, &o, &p), 0);
	check_valid(c, p, ev, 8, 0);
	/* every set after the first shares an event besides duration with the ones before */
	for (size_t k = 1; k < pmcf_plan_nsets(p); k++) {
		const char *const *names;
		size_t m, shared = 0;
		pmcf_plan_events_at(p, k, &names, &m);
		for (size_t q = 1; q < m; q++)
			for (size_t j = 0; j < k; j++) {
				const char *const *prev;
				size_t mp;
				pmcf_plan_events_at(p, j, &prev, &mp);
				for (size_t r = 1; r < mp; r++)
					shared += strcmp(prev[r], names[q]) == 0;
			}
		assert_true(shared > 0);
	}
	pmcf_plan_free(p);
	pmcf_profile_free(pilot);
	pmcf_catalog_free(c);
}

/* --link auto: g = 3a + 1, every other event noise; packed as
 * {a,b,c,d} (full) and {e,f,g} (one counter free), the information is in
 * putting {a,b,c,d} first and a into the second set. */
static void test_link_auto(void **state)
{
	(void)state;
	pmcf_catalog *c = toy();
	static const char *const ev[] = {"a", "b", "c", "d", "e", "f", "g"};
	pmcf_profile *pilot = pilot_xus(400);
	uint64_t x = 12345;
	for (size_t e = 0; e < 7; e++) {
		size_t k;
		assert_int_equal(pmcf_profile_event_add(pilot, ev[e], &k), 0);
		double *col = pmcf_profile_column(pilot, k);
		for (size_t i = 0; i < 400; i++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			col[i] =
				e == 6 ? pmcf_profile_column(pilot,
							     (size_t)pmcf_profile_event_find(pilot, "a"))[i] *
							 3 +
						 1
				       : (double)(x >> 40);
		}
	}
	pmcf_plan_opts o = PMCF_PLAN_OPTS_INIT;
	o.link_auto = 1;
	pmcf_plan *p = NULL;
	assert_int_equal(pmcf_plan_make(c, ev, 7, &o, &p), PMCF_EINVAL); /* no pilots */
	const pmcf_profile *pilots[1] = {pilot};
	o.pilots = pilots;
	o.npilots = 1;
	assert_int_equal(pmcf_plan_make(c, ev, 7, &o, &p), 0);
	check_valid(c, p, ev, 7, 0);
	assert_int_equal(pmcf_plan_nsets(p), 2);
	int exact;
	size_t npil;
	assert_string_equal(pmcf_plan_link_method(p, &exact, &npil), "branch and bound");
	assert_int_equal(exact, 1);
	assert_int_equal(npil, 1);
	const char *const *names, *const *lk;
	size_t m, nl;
	double bits, base;
	pmcf_plan_events_at(p, 1, &names, &m);
	assert_int_equal(m, 5); /* duration, a, e, f, g */
	assert_string_equal(names[1], "a");
	assert_int_equal(pmcf_plan_link_info(p, 1, &lk, &nl, &bits, &base), 0);
	assert_int_equal(nl, 1);
	assert_string_equal(lk[0], "a");
	if (!(bits > 2.5 && base < 0.2))
		fail_msg("set 1: %g bits with a, %g with duration alone", bits, base);
	/* kept by plan.json */
	char *text;
	assert_int_equal(pmcf_plan_to_json(p, &text), 0);
	pmcf_plan *q;
	assert_int_equal(pmcf_plan_from_json(text, &q), 0);
	assert_non_null(pmcf_plan_link_method(q, NULL, NULL));
	assert_int_equal(pmcf_plan_link_info(q, 1, &lk, &nl, &bits, &base), 0);
	assert_int_equal(nl, 1);
	assert_string_equal(lk[0], "a");
	assert_true(bits > 2.5);
	/* a broken link_auto is refused */
	char *bad = strstr(text, "\"base_bits\"");
	assert_non_null(bad);
	memcpy(bad, "\"base_bitz\"", 11);
	pmcf_plan *r = NULL;
	assert_int_equal(pmcf_plan_from_json(text, &r), PMCF_ESYNTAX);
	free(text);
	pmcf_plan_free(q);
	/* without --link auto nothing is said */
	pmcf_plan_free(p);
	o.link_auto = 0;
	o.pilots = NULL;
	o.npilots = 0;
	assert_int_equal(pmcf_plan_make(c, ev, 7, &o, &p), 0);
	assert_null(pmcf_plan_link_method(p, NULL, NULL));
	assert_int_equal(pmcf_plan_link_info(p, 0, &lk, &nl, &bits, &base), PMCF_ENOENT);
	pmcf_plan_free(p);
	pmcf_profile_free(pilot);
	pmcf_catalog_free(c);
}

/* A machine whose events name no counters (perf's generic events on a PMU
 * libpfm4 has no table for): 3 counters, known only from the catalogue's
 * counters hook (perf: the PMU probed with event groups). */
static int probed_check(void *impl, const pmcf_catalog *c, const size_t *idx, size_t n, unsigned pmcs,
			char *why, size_t whylen)
{
	(void)impl;
	unsigned cost = 0, cap = pmcs ? pmcs : 3;
	for (size_t i = 0; i < n; i++) /* software events take no counter but under --pmcs */
		if (pmcs || strcmp(pmcf_catalog_at(c, idx[i])->source, PMCF_SRC_SOFTWARE) != 0)
			cost += pmcf_catalog_at(c, idx[i])->cost;
	if (cost > cap)
		snprintf(why, whylen, "%u counters needed, %u available", cost, cap);
	return cost <= cap;
}

static int probed_counters(void *impl, const pmcf_catalog *c, unsigned *n, char *from, size_t fromlen)
{
	(void)c;
	if (impl) /* the machine without a PMU */
		return -1;
	*n = 3;
	snprintf(from, fromlen, "toy's 2 general counters and a cycle counter, probed with event groups");
	return 0;
}

static const struct pmcfi_catalog_ops probed_ops = {.check_set = probed_check, .counters = probed_counters};

static pmcf_catalog *probed(int no_pmu)
{
	pmcf_catalog *c;
	assert_int_equal(pmcfi_catalog_new("probed", &probed_ops, no_pmu ? (void *)1 : NULL, &c), 0);
	static const char *const names[] = {"h1", "h2", "h3", "h4", "h5", "h6", "h7"};
	for (size_t i = 0; i < 7; i++) {
		pmcf_event_info e = {.name = names[i],
				     .source = PMCF_SRC_HARDWARE,
				     .description = "",
				     .available = 1,
				     .cost = 1};
		assert_int_equal(pmcfi_catalog_add(c, &e), 0);
	}
	pmcf_event_info sw = {.name = "sw",
			      .source = PMCF_SRC_SOFTWARE,
			      .description = "",
			      .available = 1,
			      .cost = 1};
	assert_int_equal(pmcfi_catalog_add(c, &sw), 0);
	return c;
}

/* An lgl plan of ev[0..n) with pmcs: its bound lb from `counters` counters,
 * the phrase for where they came from containing `from`. */
static void check_bound(pmcf_catalog *c, const char *const *ev, size_t n, unsigned pmcs, unsigned lb,
			unsigned counters, const char *from)
{
	unsigned got;
	pmcf_plan *p = mkplan(c, ev, n, PMCF_COMBINE_LGL, PMCF_PACK_BEST, pmcs);
	assert_int_equal(pmcf_plan_lower_bound(p), lb);
	const char *said = pmcf_plan_bound_counters(p, &got);
	if (*from ? !strstr(said, from) : *said != '\0')
		fail_msg("the bound's counters are '%s', not '%s'", said, from);
	assert_int_equal(got, counters);
	if (pmcf_plan_nsets(p) <= lb)
		assert_int_equal(pmcf_plan_optimal(p), 1);
	pmcf_plan_free(p);
}

/* The lower bound divides by the probed counters when the events name none
 * (it said 1 before: no counter count at all), and says where each count
 * came from: --pmcs, the events' constraints, the probe, or why unknown. */
static void test_bound_probed_counters(void **state)
{
	(void)state;
	static const char *const ev[] = {"h1", "h2", "h3", "h4", "h5", "h6", "h7"};
	static const char *const sw[] = {"sw"};
	static const char *const tv[] = {"a", "b", "c", "d", "e"};
	pmcf_catalog *c = probed(0);
	check_bound(c, ev, 7, 0, 3, 3, "probed with event groups");
	check_bound(c, ev, 7, 2, 4, 2, "--pmcs"); /* --pmcs wins, and is named */
	check_bound(c, sw, 1, 0, 1, 0, "");       /* software events alone: no counter to speak of */
	/* a software linking event takes no counter: the bound stays 3 (it
	 * said 4, above the 3 executions) */
	pmcf_plan_opts lo = PMCF_PLAN_OPTS_INIT;
	pmcf_plan *p;
	lo.strategy = PMCF_COMBINE_BC;
	lo.link = sw;
	lo.nlink = 1;
	assert_int_equal(pmcf_plan_make(c, ev, 7, &lo, &p), 0);
	assert_int_equal(pmcf_plan_nsets(p), 3);
	assert_int_equal(pmcf_plan_lower_bound(p), 3);
	pmcf_plan_free(p);
	pmcf_catalog_free(c);
	c = probed(1); /* no PMU to probe: the bound says it has no count */
	check_bound(c, ev, 3, 0, 1, 0, "unknown");
	pmcf_catalog_free(c);
	c = toy(); /* a table's constraints ("counters":[0..3]) */
	check_bound(c, tv, 5, 0, 2, 4, "constraints");
	pmcf_catalog_free(c);
}

/* Planning refuses what plan.json refuses (one check): a budget beyond
 * PMCF_PLAN_MAX_PMCS and an options struct not started from
 * PMCF_PLAN_OPTS_INIT (strategy 0) made plans whose JSON pmcf_plan_from_json
 * refused ("pmcs": 100 is out of range; "strategy": "unknown"). The largest
 * budget planned is read back. */
static void test_opts_checked(void **state)
{
	(void)state;
	pmcf_catalog *c = toy();
	static const char *const ev[] = {"a", "b", "c"};
	pmcf_plan *p = NULL;
	pmcf_plan_opts o = PMCF_PLAN_OPTS_INIT;
	o.pmcs = 100;
	assert_int_equal(pmcf_plan_make(c, ev, 3, &o, &p), PMCF_EINVAL);
	assert_null(p);
	assert_string_equal(
		pmcf_errdetail(),
		"pmcf_plan_opts.pmcs: 100 is out of range (1..64, or 0 for the machine's counters)");
	pmcf_plan_opts zero;
	memset(&zero, 0, sizeof(zero));
	zero.size = sizeof(zero);
	assert_int_equal(pmcf_plan_make(c, ev, 3, &zero, &p), PMCF_EINVAL);
	assert_string_equal(pmcf_errdetail(),
			    "pmcf_plan_opts.strategy 0 is no strategy (start from PMCF_PLAN_OPTS_INIT: bc)");
	o.pmcs = 2;
	o.packing = 2;
	assert_int_equal(pmcf_plan_make(c, ev, 3, &o, &p), PMCF_EINVAL);
	assert_non_null(strstr(pmcf_errdetail(), "pmcf_plan_opts.packing 2 is no packing"));
	/* the limits are plan.json's: the largest budget goes and comes back */
	o.packing = PMCF_PACK_BEST;
	o.pmcs = PMCF_PLAN_MAX_PMCS;
	assert_int_equal(pmcf_plan_make(c, ev, 3, &o, &p), 0);
	char *js;
	assert_int_equal(pmcf_plan_to_json(p, &js), 0);
	pmcf_plan *q = NULL;
	assert_int_equal(pmcf_plan_from_json(js, &q), 0);
	assert_int_equal(pmcf_plan_pmcs(q), PMCF_PLAN_MAX_PMCS);
	free(js);
	pmcf_plan_free(q);
	pmcf_plan_free(p);
	pmcf_catalog_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lgl_packs_tight), cmocka_unit_test(test_greedy_vs_best),
		cmocka_unit_test(test_conflicts),       cmocka_unit_test(test_bc_links),
		cmocka_unit_test(test_exact_small),     cmocka_unit_test(test_json_roundtrip),
		cmocka_unit_test(test_json_fields),     cmocka_unit_test(test_correlated),
		cmocka_unit_test(test_link_auto),       cmocka_unit_test(test_bound_probed_counters),
		cmocka_unit_test(test_opts_checked),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
