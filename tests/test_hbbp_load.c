/* Unit tests of loading mixes and training examples (src/hbbp/load.c,
 * train.c): the CSV of `imix report --format csv` (known values; truncated,
 * foreign, empty and bad rows refused with PMCF_ESYNTAX and the line),
 * pmcf_imix_load on folders and files of each kind, and the examples a
 * trainer pairs from a reference and a measurement. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>
#include "hbbp/hbbp_impl.h"

static char dirbuf[512], pathbuf[1024];

static const char *tmp(const char *name)
{
	const char *t = getenv("PMCF_TEST_TMP");
	snprintf(dirbuf, sizeof(dirbuf), "%s/hbbp_load_%s", t ? t : "/tmp", name);
	mkdir(dirbuf, 0755);
	return dirbuf;
}

static const char *write_file(const char *name, const char *text, size_t len)
{
	snprintf(pathbuf, sizeof(pathbuf), "%s/%s", tmp("files"), name);
	FILE *f = fopen(pathbuf, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	fclose(f);
	return pathbuf;
}

/* A known CSV loads its rows in file order; header and comments are skipped,
 * extra columns ignored, lines of any length read whole. */
static void test_csv_known(void **state)
{
	(void)state;
	static char text[12000];
	char longkey[9000];
	memset(longkey, 'K', sizeof(longkey) - 1);
	longkey[sizeof(longkey) - 1] = 0;
	int len =
		snprintf(text, sizeof(text),
			 "key,count,share\n# a comment\nADD,30,0.5\r\n\nMOV,1.5e3\n%s,7\nDEC,0,0\n", longkey);
	const char *p = write_file("known.csv", text, (size_t)len);
	pmcf_imix_row *rows = NULL;
	size_t n = 0;
	int rc = pmcf_imix_csv_read(p, &rows, &n);
	if (rc)
		fail_msg("csv: %s", pmcf_errdetail());
	static const struct {
		int line;
		const char *key;
		double count;
	} want[] = {{__LINE__, "ADD", 30},
		    {__LINE__, "MOV", 1500},
		    {__LINE__, NULL, 7},
		    {__LINE__, "DEC", 0}};
	assert_int_equal(n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < n; i++) {
		const char *k = want[i].key ? want[i].key : longkey;
		if (strcmp(rows[i].key, k) || rows[i].count != want[i].count || rows[i].share != 0)
			fail_msg("row at line %d: got '%.20s' %g %g", want[i].line, rows[i].key,
				 rows[i].count, rows[i].share);
	}
	pmcf_imix_rows_free(rows, n);
}

/* Bad CSVs: the error code and the detail (file and line). */
static void test_csv_bad(void **state)
{
	(void)state;
	static const struct {
		int line;
		const char *name, *text;
		size_t len; /* 0: strlen */
		int err;
		const char *detail; /* after the path */
	} cases[] = {
		{__LINE__, "trunc.csv", "key,count,share\nADD,1,0.5\nDEC", 0, PMCF_ESYNTAX,
		 ":3: expected KEY,COUNT"},
		{__LINE__, "cut.csv", "ADD,1\nDEC,", 0, PMCF_ESYNTAX, ":2: expected KEY,COUNT"},
		{__LINE__, "empty.csv", "", 0, PMCF_ESYNTAX, ": no rows"},
		{__LINE__, "header.csv", "key,count,share\n# nothing\n", 0, PMCF_ESYNTAX, ": no rows"},
		{__LINE__, "elf.csv",
		 "\x7f"
		 "ELF\x02\x01\x01\0\0\0\0\n",
		 12, PMCF_ESYNTAX, ":1: expected KEY,COUNT"},
		{__LINE__, "neg.csv", "ADD,-1\n", 0, PMCF_ESYNTAX, ":1: expected KEY,COUNT"},
		{__LINE__, "nan.csv", "ADD,1\nSUB,nan\n", 0, PMCF_ESYNTAX, ":2: expected KEY,COUNT"},
		{__LINE__, "inf.csv", "ADD,inf\n", 0, PMCF_ESYNTAX, ":1: expected KEY,COUNT"},
		{__LINE__, "word.csv", "ADD,many\n", 0, PMCF_ESYNTAX, ":1: expected KEY,COUNT"},
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const char *p = write_file(cases[c].name, cases[c].text,
					   cases[c].len ? cases[c].len : strlen(cases[c].text));
		char want[1200];
		snprintf(want, sizeof(want), "%s%s", p, cases[c].detail);
		pmcf_imix_row *rows = (pmcf_imix_row *)1;
		size_t n = 99;
		int rc = pmcf_imix_csv_read(p, &rows, &n);
		if (rc != cases[c].err || strcmp(pmcf_errdetail(), want) || rows || n)
			fail_msg("case at line %d: rc %d, detail '%s', want %d '%s'", cases[c].line, rc,
				 pmcf_errdetail(), cases[c].err, want);
	}
	pmcf_imix_row *rows;
	size_t n;
	assert_int_equal(pmcf_imix_csv_read("/nonexistent/x.csv", &rows, &n), -ENOENT);
	assert_non_null(strstr(pmcf_errdetail(), "cannot open /nonexistent/x.csv"));
}

static double count_of(const pmcf_imix_row *rows, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(rows[i].key, key))
			return rows[i].count;
	return -1;
}

/* Each kind of input: the folder's perf.data gives the same table as the
 * mix built by hand; ref/ is callgrind; a CSV only with the flag. */
static void test_load_kinds(void **state)
{
	(void)state;
	struct pmcfi_hbbp_synth s = {.ebs_period = 11,
				     .lbr_period = 7,
				     .lbr_depth = 16,
				     .periods = 308,
				     .write_ref = 1};
	const char *dir = tmp("kinds");
	assert_int_equal(pmcfi_hbbp_synth_write(dir, &s), 0);
	char d[600], p[700];
	snprintf(d, sizeof(d), "%s", dir);

	pmcf_imix_opts o = {.size = sizeof(o), .method = PMCF_IMIX_LBR};
	pmcf_imix_input *in = NULL;
	int rc = pmcf_imix_load(d, &o, 0, &in);
	if (rc)
		fail_msg("load: %s", pmcf_errdetail());
	assert_int_equal(pmcf_imix_input_kind(in), PMCF_IMIX_INPUT_PERF);
	size_t n;
	const pmcf_imix_row *rows = pmcf_imix_input_rows(in, &n);
	pmcf_perfdata *pd = NULL;
	assert_int_equal(pmcf_perfdata_open(s.data_path, &pd), 0);
	pmcf_imix *m = NULL;
	assert_int_equal(pmcf_imix_from_perfdata(pd, &o, &m), 0);
	pmcf_perfdata_free(pd);
	pmcf_imix_row *want;
	size_t nwant;
	assert_int_equal(pmcf_imix_pivot(m, PMCF_IMIX_BY_MNEMONIC, &want, &nwant), 0);
	assert_int_equal(n, nwant);
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(rows[i].key, want[i].key);
		assert_true(rows[i].count == want[i].count);
	}
	/* the exact mix: 20 ADD per long block + 1 per block 1 */
	assert_true(fabs(count_of(rows, n, "ADD") - (20 * s.block_count[2] + s.block_count[1])) < 1e-6);
	assert_int_equal(pmcf_imix_nblocks(pmcf_imix_input_mix(in)), pmcf_imix_nblocks(m));
	pmcf_imix_rows_free(want, nwant);
	pmcf_imix_free(m);
	pmcf_imix_input_free(in);

	/* a perf.data named directly; the reference folder; its file */
	static const struct {
		int line;
		const char *sub;
		int kind;
	} files[] = {{__LINE__, "/perf.data", PMCF_IMIX_INPUT_PERF},
		     {__LINE__, "/ref", PMCF_IMIX_INPUT_CALLGRIND},
		     {__LINE__, "/ref/callgrind.out", PMCF_IMIX_INPUT_CALLGRIND}};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(p, sizeof(p), "%s%s", d, files[i].sub);
		rc = pmcf_imix_load(p, NULL, PMCF_IMIX_LOAD_CSV, &in);
		if (rc || pmcf_imix_input_kind(in) != files[i].kind || !pmcf_imix_input_mix(in))
			fail_msg("file at line %d: rc %d (%s)", files[i].line, rc, pmcf_errdetail());
		rows = pmcf_imix_input_rows(in, &n);
		if (files[i].kind == PMCF_IMIX_INPUT_CALLGRIND)
			assert_true(count_of(rows, n, "ADD") == 20 * s.block_count[2] + s.block_count[1]);
		pmcf_imix_input_free(in);
	}

	/* a CSV: accepted with the flag, else the perf.data reader refuses it */
	const char *csv = write_file("mix.csv", "key,count,share\nADD,5,1\n", 24);
	assert_int_equal(pmcf_imix_load(csv, NULL, PMCF_IMIX_LOAD_CSV, &in), 0);
	assert_int_equal(pmcf_imix_input_kind(in), PMCF_IMIX_INPUT_CSV);
	assert_null(pmcf_imix_input_mix(in));
	rows = pmcf_imix_input_rows(in, &n);
	assert_int_equal(n, 1);
	assert_true(rows[0].count == 5);
	pmcf_imix_input_free(in);
	in = (pmcf_imix_input *)1;
	assert_int_equal(pmcf_imix_load(csv, NULL, 0, &in), PMCF_ENOTOURS);
	assert_null(in);
	assert_non_null(strstr(pmcf_errdetail(), "not a perf.data file"));
	/* a truncated CSV through load keeps the CSV reader's detail */
	csv = write_file("cut.csv", "ADD,5\nSUB", 9);
	assert_int_equal(pmcf_imix_load(csv, NULL, PMCF_IMIX_LOAD_CSV, &in), PMCF_ESYNTAX);
	assert_non_null(strstr(pmcf_errdetail(), "cut.csv:2: expected KEY,COUNT"));
}

/* Errors of pmcf_imix_load: empty folder, missing file, options, flags. */
static void test_load_errors(void **state)
{
	(void)state;
	pmcf_imix_input *in = NULL;
	const char *d = tmp("emptydir");
	char want[700];
	snprintf(want, sizeof(want), "%s: no perf.data or callgrind.out in it", d);
	assert_int_equal(pmcf_imix_load(d, NULL, 0, &in), -ENOENT);
	assert_string_equal(pmcf_errdetail(), want);
	assert_int_equal(pmcf_imix_load("/nonexistent/x", NULL, 0, &in), -ENOENT);
	assert_string_equal(pmcf_errdetail(), "cannot open /nonexistent/x: No such file or directory");
	pmcf_imix_opts o = {.size = 8};
	assert_int_equal(pmcf_imix_load(d, &o, 0, &in), PMCF_EINVAL);
	assert_non_null(strstr(pmcf_errdetail(), "pmcf_imix_opts"));
	assert_int_equal(pmcf_imix_load(d, NULL, 2, &in), PMCF_EINVAL);
	assert_null(in);
}

/* The trainer pairs measured blocks with the reference by module and
 * address: one example per block where EBS and LBR disagree, labelled with
 * the closer one, weighted by exact executions x length. */
static void test_trainer(void **state)
{
	(void)state;
	/* 50 outer iterations: not whole sampling cycles, so EBS and LBR err */
	struct pmcfi_hbbp_synth s = {.ebs_period = 11,
				     .lbr_period = 7,
				     .lbr_depth = 4,
				     .periods = 50,
				     .write_ref = 1};
	const char *dir = tmp("train");
	assert_int_equal(pmcfi_hbbp_synth_write(dir, &s), 0);
	char p[700];
	snprintf(p, sizeof(p), "%s/ref", dir);
	pmcf_imix_input *ref = NULL, *meas = NULL;
	assert_int_equal(pmcf_imix_load(p, NULL, 0, &ref), 0);
	snprintf(p, sizeof(p), "%s", dir);
	assert_int_equal(pmcf_imix_load(p, NULL, 0, &meas), 0);
	pmcf_imix_trainer *t = NULL;
	assert_int_equal(pmcf_imix_trainer_new(pmcf_imix_input_mix(ref), &t), 0);
	pmcf_imix_stump sp = PMCF_IMIX_STUMP_INIT;
	assert_int_equal(pmcf_imix_trainer_fit(t, &sp), PMCF_EINVAL); /* no examples yet */
	assert_non_null(strstr(pmcf_errdetail(), "nothing to learn from"));
	/* a reference has no samples: refused, nothing added */
	assert_int_equal(pmcf_imix_trainer_add(t, pmcf_imix_input_mix(ref)), PMCF_EINVAL);
	assert_non_null(strstr(pmcf_errdetail(), "both EBS and LBR samples"));
	assert_int_equal(pmcf_imix_trainer_add(t, pmcf_imix_input_mix(meas)), 0);
	size_t n;
	const pmcf_imix_example *ex = pmcf_imix_trainer_examples(t, &n);
	const pmcf_imix *m = pmcf_imix_input_mix(meas);
	size_t expected = 0;
	for (unsigned b = 0; b < s.nblocks; b++) {
		const pmcf_imix_block *bl = NULL;
		for (size_t i = 0; i < pmcf_imix_nblocks(m); i++)
			if (pmcf_imix_block_at(m, i)->start == s.block_start[b])
				bl = pmcf_imix_block_at(m, i);
		assert_non_null(bl);
		double truth = s.block_count[b];
		if (fabs(bl->lbr - bl->ebs) <= 1e-9 * truth)
			continue;
		const pmcf_imix_example *e = &ex[expected++];
		assert_true(expected <= n);
		if (e->len != s.block_len[b] || fabs(e->weight - truth * s.block_len[b]) > 1e-9 * truth ||
		    e->bias != bl->bias || e->lbr != (fabs(bl->lbr - truth) < fabs(bl->ebs - truth)))
			fail_msg("block %u: example len %u weight %g lbr %d, want len %u weight %g", b,
				 e->len, e->weight, e->lbr, s.block_len[b], truth * s.block_len[b]);
	}
	assert_int_equal(n, expected);
	assert_true(n > 0); /* the case must exercise the pairing */
	assert_int_equal(pmcf_imix_trainer_fit(t, &sp), 0);
	pmcf_imix_stump direct = PMCF_IMIX_STUMP_INIT;
	assert_int_equal(pmcf_imix_train(ex, n, &direct), 0);
	assert_memory_equal(&sp, &direct, sizeof(sp));
	/* the same measurement twice: every example twice */
	assert_int_equal(pmcf_imix_trainer_add(t, m), 0);
	pmcf_imix_trainer_examples(t, &n);
	assert_int_equal(n, 2 * expected);
	pmcf_imix_trainer_free(t);
	pmcf_imix_input_free(meas);
	pmcf_imix_input_free(ref);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csv_known),  cmocka_unit_test(test_csv_bad),
		cmocka_unit_test(test_load_kinds), cmocka_unit_test(test_load_errors),
		cmocka_unit_test(test_trainer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
