/* The extension tables (issue 37 item 4): strategies, export formats and
 * simulated workloads are one descriptor each in one table. Every row has
 * what it needs (a name, a help line, its callback), names are unique, the
 * public listings give the table, and the name <-> row lookups agree. A row
 * added without its builder or help fails here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "export/export_impl.h"
#include "pmcfuse/combine.h"
#include "pmcfuse/export.h"
#include "pmcfuse/sim.h"
#include "sim/sim_impl.h"

/* A help text: not empty, no line longer than 84 columns. */
static void check_help(const char *what, const char *help, int one_line)
{
	if (!help || !*help)
		fail_msg("%s has no help", what);
	if (one_line && strchr(help, '\n'))
		fail_msg("%s: its help is more than one line", what);
	for (const char *l = help; *l;) {
		const char *e = strchr(l, '\n');
		size_t n = e ? (size_t)(e - l) : strlen(l);
		if (!one_line && n > 84)
			fail_msg("%s: a help line of %zu columns", what, n);
		l += n + (e ? 1 : 0);
	}
}

static void test_workloads(void **state)
{
	(void)state;
	assert_true(pmcfi_sim_nworkloads >= 5);
	for (size_t i = 0; i < pmcfi_sim_nworkloads; i++) {
		const struct pmcfi_sim_workload_def *d = pmcfi_sim_workloads[i];
		assert_non_null(d);
		if (!d->name || !*d->name)
			fail_msg("workload %zu has no name", i);
		check_help(d->name, d->help, 1);
		if (!d->build)
			fail_msg("workload %s has no builder", d->name);
		if (!(d->scale > 0) || !(d->scale_shared > 0))
			fail_msg("workload %s has no time scale", d->name);
		for (size_t j = 0; j < i; j++)
			if (strcmp(pmcfi_sim_workloads[j]->name, d->name) == 0)
				fail_msg("workload %s is in the table twice", d->name);
		for (size_t k = 0; k < SIM_MAX_KEYS && d->keys[k].name; k++) {
			const struct pmcfi_sim_key_def *kd = &d->keys[k];
			if (kd->def < kd->min || kd->def > kd->max)
				fail_msg("%s: key %s's default %ld is outside [%ld, %ld]", d->name, kd->name,
					 kd->def, kd->min, kd->max);
			long nc = 0;
			while (kd->choices && kd->choices[nc])
				nc++;
			if (kd->choices && kd->max != nc - 1)
				fail_msg("%s: key %s has %ld choices, max %ld", d->name, kd->name, nc,
					 kd->max);
		}
		/* the public listing is the table */
		pmcf_sim_workload_info wi = PMCF_SIM_WORKLOAD_INFO_INIT;
		assert_int_equal(pmcf_sim_workload_info_get(i, &wi), 0);
		assert_string_equal(wi.name, d->name);
		assert_ptr_equal(wi.help, d->help);
		/* the name alone is a spec with every default, and its canonical
		 * text reads back the same */
		pmcf_sim_spec *s, *s2;
		assert_int_equal(pmcf_sim_spec_parse(d->name, &s), 0);
		assert_string_equal(pmcf_sim_spec_workload(s), d->name);
		assert_int_equal(pmcf_sim_spec_parse(pmcf_sim_spec_canonical(s), &s2), 0);
		assert_string_equal(pmcf_sim_spec_canonical(s2), pmcf_sim_spec_canonical(s));
		/* its builder makes XUs on the default machine */
		struct pmcfi_sim_machine *m;
		struct pmcfi_sim_workload *w;
		assert_int_equal(pmcfi_sim_machine_load(pmcf_sim_spec_machine(s), &m), 0);
		assert_int_equal(pmcfi_sim_workload_build(s, m, &w), 0);
		assert_true(w->nxu > 0);
		pmcfi_sim_workload_free(w);
		pmcfi_sim_machine_free(m);
		pmcf_sim_spec_free(s2);
		pmcf_sim_spec_free(s);
	}
	pmcf_sim_workload_info wi = PMCF_SIM_WORKLOAD_INFO_INIT;
	assert_int_equal(pmcf_sim_workload_info_get(pmcfi_sim_nworkloads, &wi), PMCF_ENOENT);
	assert_int_equal(pmcf_sim_workload_info_get(0, NULL), PMCF_EINVAL);
}

static void test_strategies(void **state)
{
	(void)state;
	pmcf_strategy_info si = PMCF_STRATEGY_INFO_INIT;
	char list[1024], names[1024] = "";
	size_t n = 0;
	for (size_t i = 0; pmcf_strategy_info_get(i, &si) == 0; i++, n++) {
		if (!si.name || !*si.name)
			fail_msg("strategy %zu has no name", i);
		check_help(si.name, si.help, 1);
		assert_int_equal(pmcf_strategy_parse(si.name), si.id);
		assert_string_equal(pmcf_strategy_name(si.id), si.name);
		assert_int_equal(pmcf_strategy_ordered(si.id), (si.needs & PMCF_STRATEGY_ORDERED) != 0);
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", i ? ", " : "",
			 si.name);
		pmcf_strategy_info sj = PMCF_STRATEGY_INFO_INIT;
		for (size_t j = 0; j < i; j++) {
			assert_int_equal(pmcf_strategy_info_get(j, &sj), 0);
			if (strcmp(sj.name, si.name) == 0 || sj.id == si.id)
				fail_msg("strategy %s is in the table twice", si.name);
		}
	}
	assert_true(n >= 9);
	/* the list is the table, and so is the error text */
	assert_int_equal(pmcf_strategy_list(0, list, sizeof(list)), strlen(names));
	assert_string_equal(list, names);
	assert_int_equal(pmcf_strategy_parse("no-such"), PMCF_EINVAL);
	char want[1200];
	snprintf(want, sizeof(want), "unknown strategy 'no-such' (%s)", names);
	assert_string_equal(pmcf_errdetail(), want);
	/* the bc family: ordered ones only, and a short buffer is cut */
	pmcf_strategy_list(PMCF_STRATEGY_ORDERED, list, sizeof(list));
	assert_non_null(strstr(list, "bc"));
	assert_null(strstr(list, "ctc"));
	assert_int_equal(pmcf_strategy_list(0, list, 4), strlen(names));
	assert_string_equal(list, "ctc");
	/* pmcf_strategy_name and parse for ids and names outside the table */
	assert_string_equal(pmcf_strategy_name(0), "unknown");
	assert_string_equal(pmcf_strategy_name(1000), "unknown");
	assert_int_equal(pmcf_strategy_parse(NULL), PMCF_EINVAL);
}

/* The descriptor of the i-th format, by the macro list (export_impl.h). */
static const struct pmcfi_exp_format *const formats[] = {
#define ROW(name) &pmcfi_exp_format_##name,
	PMCFI_EXPORT_FORMATS(ROW)
#undef ROW
};

static void test_export_formats(void **state)
{
	(void)state;
	size_t n = sizeof(formats) / sizeof(formats[0]);
	assert_true(n >= 4);
	for (size_t i = 0; i < n; i++) {
		const struct pmcfi_exp_format *f = formats[i];
		const pmcf_export_info *fi = &f->info;
		if (!fi->name || !*fi->name)
			fail_msg("format %zu has no name", i);
		assert_int_equal(fi->size, sizeof(pmcf_export_info));
		check_help(fi->name, fi->help, 0);
		assert_int_equal(fi->help[strlen(fi->help) - 1], '\n');
		if (fi->flags & PMCF_EXPORT_TO_PATH) {
			if (!f->write_path || f->write)
				fail_msg("format %s writes to a path: write_path and no stream writer",
					 fi->name);
		} else {
			if (!f->write || f->write_path || !fi->kind)
				fail_msg("format %s streams: a writer and a kind", fi->name);
			if (fi->flags & PMCF_EXPORT_FOLDER)
				fail_msg("format %s: a folder needs PMCF_EXPORT_TO_PATH", fi->name);
		}
		assert_int_equal(pmcf_export_format_find(fi->name), (int)i);
		pmcf_export_info got = PMCF_EXPORT_INFO_INIT;
		assert_int_equal(pmcf_export_format_info_get(i, &got), 0);
		assert_string_equal(got.name, fi->name);
		assert_int_equal(got.flags, fi->flags);
		for (size_t j = 0; j < i; j++)
			if (strcmp(formats[j]->info.name, fi->name) == 0)
				fail_msg("format %s is in the table twice", fi->name);
	}
	pmcf_export_info got = PMCF_EXPORT_INFO_INIT;
	assert_int_equal(pmcf_export_format_info_get(n, &got), PMCF_ENOENT);
	assert_int_equal(pmcf_export_format_find("no-such"), PMCF_ENOENT);
	char want[512];
	int off = snprintf(want, sizeof(want), "unknown format 'no-such' (");
	for (size_t i = 0; i < n; i++)
		off += snprintf(want + off, sizeof(want) - (size_t)off, "%s%s",
				i == 0       ? ""
				: i + 1 == n ? " or "
					     : ", ",
				formats[i]->info.name);
	snprintf(want + off, sizeof(want) - (size_t)off, ")");
	assert_string_equal(pmcf_errdetail(), want);
}

/* pmcf_export to a stream and pmcf_export_path to a file write the same
 * bytes; options a format does not take, and truth a profile lacks, are
 * refused. */
static void test_export_calls(void **state)
{
	(void)state;
	pmcf_sim_spec *s;
	pmcf_profile *p;
	assert_int_equal(pmcf_sim_spec_parse("cholesky,blocks=4", &s), 0);
	const char *ev[] = {"duration", "PAPI_TOT_INS"};
	pmcf_count_opts so = PMCF_COUNT_OPTS_INIT;
	assert_int_equal(pmcf_sim_record(s, ev, 2, &so, &p), 0);
	pmcf_export_opts o = PMCF_EXPORT_OPTS_INIT;
	o.truth = 1;
	const char *tmpdir = getenv("PMCF_TEST_TMP");
	char path[4096];
	snprintf(path, sizeof(path), "%s/test_extensions.out", tmpdir ? tmpdir : "/tmp");
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		const pmcf_export_info *fi = &formats[i]->info;
		if (fi->flags & PMCF_EXPORT_TO_PATH) {
			assert_int_equal(pmcf_export(p, fi->name, NULL, stdout), PMCF_EINVAL);
			continue;
		}
		pmcf_export_opts oi = o;
		oi.truth = (fi->flags & PMCF_EXPORT_TRUTH) != 0;
		char *buf = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);
		assert_non_null(m);
		assert_int_equal(pmcf_export(p, fi->name, &oi, m), 0);
		fclose(m);
		assert_true(len > 100);
		assert_int_equal(pmcf_export_path(p, fi->name, &oi, path), 0);
		FILE *r = fopen(path, "rb");
		assert_non_null(r);
		char *back = malloc(len + 1);
		assert_int_equal(fread(back, 1, len + 1, r), len);
		fclose(r);
		assert_memory_equal(back, buf, len);
		free(back);
		free(buf);
		unlink(path);
		/* provenance of a profile that is not fused */
		oi.provenance = (fi->flags & PMCF_EXPORT_PROVENANCE) != 0;
		if (oi.provenance)
			assert_int_equal(pmcf_export(p, fi->name, &oi, stdout), PMCF_EINVAL);
	}
	assert_int_equal(pmcf_export(p, "sqlite", &o, stdout), PMCF_EINVAL);
	assert_int_equal(pmcf_export(p, "no-such", NULL, stdout), PMCF_ENOENT);
	pmcf_profile_free(p);
	pmcf_sim_spec_free(s);
}

/* Delimited text: a name with the separator, a quote, a tab, a line break
 * or a backslash is quoted (CSV) or escaped (TSV), so that every row splits
 * into the header's fields; a missing value is an empty field. */
static char *export_text(const pmcf_profile *p, const char *format)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	assert_non_null(m);
	assert_int_equal(pmcf_export(p, format, NULL, m), 0);
	fclose(m);
	return buf;
}

static void test_delimited(void **state)
{
	(void)state;
	pmcf_profile *p;
	uint32_t t;
	size_t e0, e1, x;
	assert_int_equal(pmcf_profile_new(&p), 0);
	assert_int_equal(pmcf_profile_type_add(p, PMCF_XU_TASK, "a\tb,c\"d\\e\nf", "x.c:1", &t), 0);
	assert_int_equal(pmcf_profile_event_add(p, "ev,1", &e0), 0);
	assert_int_equal(pmcf_profile_event_add(p, "ev\t2", &e1), 0);
	pmcf_xu xu = PMCF_XU_INIT;
	xu.type = t;
	xu.cpu = 1;
	xu.start_ns = 10;
	xu.end_ns = 20;
	xu.label = "0.1";
	xu.parent_label = "0";
	assert_int_equal(pmcf_profile_xu_add(p, &xu, &x), 0);
	assert_int_equal(pmcf_profile_value_set(p, x, e0, 1.5), 0);
	char *csv = export_text(p, "csv"), *tsv = export_text(p, "tsv");
	assert_string_equal(csv, "xu,type,type_name,label,parent_label,thread,cpu,start_ns,end_ns,"
				 "\"ev,1\",ev\t2\n"
				 "0,0,\"a\tb,c\"\"d\\e\nf\",0.1,0,0,1,10,20,1.5,\n");
	assert_string_equal(tsv, "xu\ttype\ttype_name\tlabel\tparent_label\tthread\tcpu\tstart_ns\tend_ns\t"
				 "ev,1\tev\\t2\n"
				 "0\t0\ta\\tb,c\"d\\\\e\\nf\t0.1\t0\t0\t1\t10\t20\t1.5\t\n");
	free(csv);
	free(tsv);
	pmcf_profile_free(p);
}

/* The fib workload (src/sim/wl_fib.c): T(k) = 1 task for k <= cutoff, else
 * 1 + T(k-1) + T(k-2); every task but the first is created by a fib task,
 * depends on it, and is labelled under its label. */
static size_t fib_tasks(int k, int cutoff)
{
	return k <= cutoff ? 1 : 1 + fib_tasks(k - 1, cutoff) + fib_tasks(k - 2, cutoff);
}

static void test_fib(void **state)
{
	(void)state;
	static const struct {
		int n, cutoff, line;
	} rows[] = {{24, 10, __LINE__}, {12, 12, __LINE__}, {15, 3, __LINE__}, {2, 1, __LINE__}};
	struct pmcfi_sim_machine *m;
	assert_int_equal(pmcfi_sim_machine_load("xeon32", &m), 0);
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		char spec[64];
		snprintf(spec, sizeof(spec), "fib,n=%d,cutoff=%d", rows[r].n, rows[r].cutoff);
		pmcf_sim_spec *s;
		struct pmcfi_sim_workload *w;
		assert_int_equal(pmcf_sim_spec_parse(spec, &s), 0);
		assert_int_equal(pmcfi_sim_workload_build(s, m, &w), 0);
		if (w->nxu != fib_tasks(rows[r].n, rows[r].cutoff))
			fail_msg("line %d: %zu tasks, not %zu", rows[r].line, w->nxu,
				 fib_tasks(rows[r].n, rows[r].cutoff));
		for (size_t i = 1; i < w->nxu; i++) {
			const struct pmcfi_sim_wxu *u = &w->xu[i];
			assert_int_equal(u->ndeps, 1);
			const struct pmcfi_sim_wxu *p = &w->xu[w->deps[u->dep_off]];
			assert_string_equal(w->types[p->type].name, "fib");
			assert_int_equal(u->parent, p->label);
			const char *lab = pmcfi_sim_label(w, u->label), *pl = pmcfi_sim_label(w, p->label);
			assert_memory_equal(lab, pl, strlen(pl));
			assert_int_equal(lab[strlen(pl)], '.');
		}
		pmcfi_sim_workload_free(w);
		pmcf_sim_spec_free(s);
	}
	pmcfi_sim_machine_free(m);
}

/* The naive strategy (src/combine/naive.c): on statically scheduled loops
 * every thread runs the same ranges in every execution, so the k-th XU of
 * a thread is the same loop range: naive pairs exactly the XUs of equal
 * labels. On a task graph scheduled dynamically it pairs other tasks. */
static size_t naive_mismatches(const char *spec)
{
	pmcf_sim_spec *s;
	pmcf_profile *in[2], *out;
	const char *ev[2][2] = {{"duration", "PAPI_TOT_INS"}, {"duration", "PAPI_L1_DCM"}};
	assert_int_equal(pmcf_sim_spec_parse(spec, &s), 0);
	pmcf_count_opts so = PMCF_COUNT_OPTS_INIT;
	for (int j = 0; j < 2; j++) {
		pmcf_sim_spec_seed_set(s, pmcf_sim_exec_seed(1, (unsigned)j));
		assert_int_equal(pmcf_sim_record(s, ev[j], 2, &so, &in[j]), 0);
	}
	pmcf_combine_opts o = PMCF_COMBINE_OPTS_INIT;
	o.strategy = pmcf_strategy_parse("naive");
	assert_int_equal(o.strategy, PMCF_COMBINE_NAIVE);
	assert_int_equal(pmcf_combine((const pmcf_profile *const *)in, 2, &o, &out, NULL), 0);
	size_t bad = pmcf_profile_nxus(out) != pmcf_profile_nxus(in[0]);
	long e = pmcf_profile_event_find(out, "PAPI_L1_DCM");
	assert_true(e >= 0);
	for (size_t i = 0; i < pmcf_profile_nxus(out); i++) {
		int32_t s0 = -1, s1 = -1;
		int64_t x0 = -1, x1 = -1;
		const char *lab;
		assert_int_equal(pmcf_profile_base_label_get(out, i, &s0, &x0, &lab), 0);
		assert_int_equal(pmcf_profile_provenance_get(out, i, (size_t)e, &s1, &x1), 0);
		if (s0 != 0 || s1 != 1) { /* a thread ran more XUs of a type in one execution */
			bad++;
			continue;
		}
		pmcf_xu a = PMCF_XU_INIT, b = PMCF_XU_INIT;
		assert_int_equal(pmcf_profile_xu_get(in[0], (size_t)x0, &a), 0);
		char *la = strdup(a.label);
		assert_int_equal(pmcf_profile_xu_get(in[1], (size_t)x1, &b), 0);
		bad += strcmp(la, b.label) != 0;
		assert_int_equal(a.thread, b.thread); /* always the same thread */
		free(la);
	}
	pmcf_profile_free(out);
	pmcf_profile_free(in[0]);
	pmcf_profile_free(in[1]);
	pmcf_sim_spec_free(s);
	return bad;
}

static void test_naive(void **state)
{
	(void)state;
	assert_int_equal(naive_mismatches("loops,n=4000,reps=2,threads=8"), 0);
	assert_true(naive_mismatches("cholesky,blocks=6,threads=8") > 0);
}

/* The sized structs of the three tables follow the one rule (pmcfuse.h,
 * "Sized structs"): smaller than the first version, or a newer caller's
 * struct whose bytes beyond ours are set, is refused naming the struct. */
static union {
	size_t size;
	unsigned char b[256];
} abi;

static int call_export(void) { return pmcf_export_format_info_get(0, (void *)abi.b); }
static int call_strategy(void) { return pmcf_strategy_info_get(0, (void *)abi.b); }
static int call_workload(void) { return pmcf_sim_workload_info_get(0, (void *)abi.b); }
static pmcf_profile *abi_prof;
static int call_export_opts(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int rc = pmcf_export(abi_prof, "csv", (void *)abi.b, m);
	fclose(m);
	free(buf);
	return rc;
}

static void test_sizes(void **state)
{
	(void)state;
	static const struct {
		int line;
		const char *name;
		size_t known;
		int (*call)(void);
	} rows[] = {
		{__LINE__, "pmcf_export_info", sizeof(pmcf_export_info), call_export},
		{__LINE__, "pmcf_strategy_info", sizeof(pmcf_strategy_info), call_strategy},
		{__LINE__, "pmcf_sim_workload_info", sizeof(pmcf_sim_workload_info), call_workload},
		{__LINE__, "pmcf_export_opts", sizeof(pmcf_export_opts), call_export_opts},
	};
	assert_int_equal(pmcf_profile_new(&abi_prof), 0);
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		const char *name = rows[r].name;
		memset(abi.b, 0, sizeof(abi.b));
		abi.size = rows[r].known - 1;
		if (rows[r].call() != PMCF_EINVAL || strncmp(pmcf_errdetail(), name, strlen(name)) != 0)
			fail_msg("line %d: %s smaller than its first version: %s", rows[r].line, name,
				 pmcf_errdetail());
		abi.size = rows[r].known + 16;
		abi.b[rows[r].known + 8] = 1;
		if (rows[r].call() != PMCF_EINVAL || !strstr(pmcf_errdetail(), "is not zero"))
			fail_msg("line %d: %s with a set byte past it: %s", rows[r].line, name,
				 pmcf_errdetail());
		abi.b[rows[r].known + 8] = 0;
		if (rows[r].call() != 0)
			fail_msg("line %d: %s with a zero tail refused: %s", rows[r].line, name,
				 pmcf_errdetail());
	}
	pmcf_profile_free(abi_prof);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_workloads),      cmocka_unit_test(test_strategies),
		cmocka_unit_test(test_export_formats), cmocka_unit_test(test_export_calls),
		cmocka_unit_test(test_delimited),      cmocka_unit_test(test_fib),
		cmocka_unit_test(test_naive),          cmocka_unit_test(test_sizes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
