/* Unit tests of the perf.data reader (src/hbbp/perfdata.c): synthetic files
 * with and without hw_idx, EVENT_DESC names, every truncation, random byte
 * flips, hand-made hostile headers, and a file recorded here with
 * `perf record -e cpu-clock` (skipped when perf cannot record). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "hbbp/hbbp_impl.h"

static char tmpdir[512];

static void mkdir_p(const char *d) { mkdir(d, 0755); }

static const char *tmp(const char *name)
{
	const char *t = getenv("PMCF_TEST_TMP");
	snprintf(tmpdir, sizeof(tmpdir), "%s/hbbp_pd_%s", t ? t : "/tmp", name);
	mkdir_p(tmpdir);
	return tmpdir;
}

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long sz = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *b = malloc((size_t)sz + 1);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, (size_t)sz, f), (size_t)sz);
	fclose(f);
	*n = (size_t)sz;
	return b;
}

static void synth(const char *name, struct pmcfi_hbbp_synth *s)
{
	assert_int_equal(pmcfi_hbbp_synth_write(tmp(name), s), 0);
}

static void check_synthetic(int hw_idx)
{
	struct pmcfi_hbbp_synth s = {.ebs_period = 11,
				     .lbr_period = 7,
				     .lbr_depth = 16,
				     .periods = 77,
				     .hw_idx = hw_idx};
	synth(hw_idx ? "hw" : "nohw", &s);
	pmcf_perfdata *pd = NULL;
	assert_int_equal(pmcf_perfdata_open(s.data_path, &pd), 0);
	assert_int_equal(pmcf_perfdata_nattrs(pd), 2);
	const pmcf_pd_attr *a0 = pmcf_perfdata_attr(pd, 0), *a1 = pmcf_perfdata_attr(pd, 1);
	assert_string_equal(a0->name, "inst_retired.prec_dist");
	assert_string_equal(a1->name, "br_inst_retired.near_taken");
	assert_int_equal(a0->nids, 1);
	assert_int_equal(a0->ids[0], 100);
	assert_int_equal(a1->ids[0], 200);
	assert_int_equal(a0->sample_period, 11);
	assert_int_equal(a0->precise_ip, 3);
	assert_int_equal(!!(a1->branch_sample_type & (1ull << 17)), hw_idx);
	/* 58 instructions and 4 taken branches per period */
	size_t ebs = 0, lbr = 0;
	for (size_t i = 0; i < pmcf_perfdata_nsamples(pd); i++) {
		const pmcf_pd_sample *x = pmcf_perfdata_sample(pd, i);
		assert_int_equal(x->pid, 4242);
		assert_int_equal(x->misc & 7, 2);
		assert_int_equal(x->has_hw_idx, hw_idx);
		if (x->attr == 0) {
			ebs++;
			assert_int_equal(x->id, 100);
			assert_int_equal(x->nbranches, 0);
		} else {
			lbr++;
			assert_int_equal(x->attr, 1);
			assert_int_equal(x->nbranches, 16);
			assert_non_null(x->branches);
			/* entry 0 is the branch that triggered the sample */
			assert_int_equal(x->branches[0].from, x->ip);
		}
	}
	assert_int_equal(ebs, 58 * 77 / 11);
	assert_int_equal(lbr, 4 * 77 / 7);
	assert_int_equal(pmcf_perfdata_nmmaps(pd), 1);
	const pmcf_pd_mmap *m = pmcf_perfdata_mmap(pd, 0);
	assert_true(m->is_mmap2);
	assert_string_equal(m->filename, s.elf_path);
	assert_int_equal(m->pgoff, 0x1000);
	assert_int_equal(pmcf_perfdata_ncomms(pd), 1);
	assert_string_equal(pmcf_perfdata_comm(pd, 0)->comm, "synth");
	assert_int_equal(pmcf_perfdata_ntasks(pd), 2);
	assert_false(pmcf_perfdata_task(pd, 0)->exit);
	assert_true(pmcf_perfdata_task(pd, 1)->exit);
	assert_int_equal(pmcf_perfdata_stats(pd)->samples, ebs + lbr);
	pmcf_perfdata_free(pd);
}

static void test_synthetic(void **state)
{
	(void)state;
	check_synthetic(0);
}

static void test_synthetic_hw_idx(void **state)
{
	(void)state;
	check_synthetic(1);
}

/* Every prefix of a small file either parses or fails cleanly. */
static void test_truncations(void **state)
{
	(void)state;
	struct pmcfi_hbbp_synth s = {.ebs_period = 13,
				     .lbr_period = 5,
				     .lbr_depth = 4,
				     .periods = 6,
				     .hw_idx = 1};
	synth("trunc", &s);
	size_t n;
	uint8_t *b = slurp(s.data_path, &n);
	size_t ok = 0;
	for (size_t len = 0; len < n; len++) {
		uint8_t *c = malloc(len + 1); /* exact size: ASan sees any overread */
		memcpy(c, b, len);
		pmcf_perfdata *pd = NULL;
		int rc = pmcf_perfdata_open_buffer(c, len, &pd);
		if (rc == 0) {
			ok++;
			pmcf_perfdata_free(pd);
		} else {
			assert_null(pd);
			assert_true(rc < 0);
		}
		free(c);
	}
	/* the full file parses */
	pmcf_perfdata *pd = NULL;
	assert_int_equal(pmcf_perfdata_open_buffer(b, n, &pd), 0);
	pmcf_perfdata_free(pd);
	free(b);
	(void)ok;
}

static uint64_t rng = 88172645463325252ull;
static uint64_t xs(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Random byte flips (seeded): never a crash or an out-of-bounds read. */
static void test_fuzz(void **state)
{
	(void)state;
	struct pmcfi_hbbp_synth s = {.ebs_period = 13, .lbr_period = 5, .lbr_depth = 8, .periods = 10};
	synth("fuzz", &s);
	size_t n;
	uint8_t *b = slurp(s.data_path, &n);
	uint8_t *c = malloc(n);
	const char *env = getenv("PMCF_FUZZ_ITERS"); /* longer campaigns by hand */
	int iters = env ? atoi(env) : 3000;
	for (int it = 0; it < iters; it++) {
		memcpy(c, b, n);
		int flips = 1 + (int)(xs() % 8);
		for (int k = 0; k < flips; k++) {
			size_t at = (it % 3 == 0) ? xs() % (n < 200 ? n : 200) : xs() % n; /* header often */
			c[at] = (uint8_t)xs();
		}
		pmcf_perfdata *pd = NULL;
		if (pmcf_perfdata_open_buffer(c, n, &pd) == 0) {
			/* and the analysis copes with whatever came out */
			pmcf_imix *m = NULL;
			if (pmcf_imix_from_perfdata(pd, NULL, &m) == 0)
				pmcf_imix_free(m);
			pmcf_perfdata_free(pd);
		}
	}
	free(c);
	free(b);
}

static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* A minimal valid file: header + one attribute + given data bytes. */
static size_t mini(uint8_t *b, const uint8_t *data, size_t nd)
{
	memset(b, 0, 104 + 144 + nd);
	memcpy(b, "PERFILE2", 8);
	put64(b + 8, 104);
	put64(b + 16, 144);
	put64(b + 24, 104);
	put64(b + 32, 144);
	put64(b + 40, 104 + 144);
	put64(b + 48, nd);
	uint8_t *a = b + 104;
	uint32_t sz = 128;
	memcpy(a + 4, &sz, 4);
	put64(a + 24, (1u << 0) | (1u << 1) | (1u << 11)); /* IP TID BRANCH_STACK */
	memcpy(b + 104 + 144, data, nd);
	return 104 + 144 + nd;
}

struct hostile {
	int line;
	size_t at; /* patch offset in the file, or SIZE_MAX for none */
	uint64_t value;
	int want; /* expected error code (0: opens) */
};

static void test_hostile(void **state)
{
	(void)state;
	/* one sample: header(8) ip(8) pid/tid(8) nr(8) + 1 entry (24) */
	uint8_t rec[56] = {0};
	uint32_t type = 9;
	uint16_t size = 56;
	memcpy(rec, &type, 4);
	memcpy(rec + 6, &size, 2);
	put64(rec + 8, 0x1234);
	put64(rec + 24, 1);
	const struct hostile rows[] = {
		{__LINE__, SIZE_MAX, 0, 0},
		{__LINE__, 0, 0x4141414141414141ull, PMCF_ENOTOURS},   /* magic */
		{__LINE__, 16, 1u << 30, PMCF_ECORRUPT},               /* attr_size */
		{__LINE__, 16, 8, PMCF_ECORRUPT},                      /* attr_size too small */
		{__LINE__, 24, ~0ull - 10, PMCF_ECORRUPT},             /* attrs offset wraps */
		{__LINE__, 32, 145, PMCF_ECORRUPT},                    /* attrs size not a multiple */
		{__LINE__, 48, 1ull << 40, PMCF_ECORRUPT},             /* data size */
		{__LINE__, 104 + 144 + 6, 0, PMCF_ECORRUPT},           /* record size 0 (patches 8 bytes) */
		{__LINE__, 104 + 144 + 24, 1ull << 60, PMCF_ECORRUPT}, /* branch nr */
		{__LINE__, 104 + 144 + 24, 2, PMCF_ECORRUPT},          /* branch nr past the record */
		{__LINE__, 104 + 128, 1ull << 62, PMCF_ECORRUPT},      /* ids offset */
		{__LINE__, 72, 1ull << 12, PMCF_ECORRUPT},             /* EVENT_DESC bit, no section table */
	};
	uint8_t b[104 + 144 + 56 + 16];
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		size_t n = mini(b, rec, sizeof(rec));
		if (rows[i].at != SIZE_MAX) {
			if (rows[i].at == 104 + 144 + 6) {
				uint16_t z = 0;
				memcpy(b + rows[i].at, &z, 2);
			} else {
				put64(b + rows[i].at, rows[i].value);
			}
		}
		pmcf_perfdata *pd = NULL;
		int rc = pmcf_perfdata_open_buffer(b, n, &pd);
		if (rc != rows[i].want)
			fail_msg("row at line %d: got %d, want %d (%s)", rows[i].line, rc, rows[i].want,
				 pmcf_errdetail());
		if (!rc) {
			assert_int_equal(pmcf_perfdata_nsamples(pd), 1);
			assert_int_equal(pmcf_perfdata_sample(pd, 0)->ip, 0x1234);
		}
		pmcf_perfdata_free(pd);
	}
	pmcf_perfdata *pd = NULL;
	assert_int_equal(pmcf_perfdata_open_buffer("", 0, &pd), PMCF_ENOTOURS);
	assert_int_equal(pmcf_perfdata_open_buffer("PERFILE2", 8, &pd), PMCF_ECORRUPT);
	assert_int_equal(pmcf_perfdata_open("/nonexistent/perf.data", &pd), -2);
}

/* A real recording: perf record -e cpu-clock on a shell loop. */
static void test_recorded(void **state)
{
	(void)state;
	const char *d = tmp("rec");
	char cmd[1200], data[700];
	snprintf(data, sizeof(data), "%s/perf.data", d);
	unlink(data);
	snprintf(cmd, sizeof(cmd),
		 "perf record -q -e cpu-clock -c 20000 -o %s -- /bin/sh -c "
		 "'i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done' >/dev/null 2>&1",
		 data);
	if (system(cmd) != 0) {
		printf("skipped: perf record -e cpu-clock failed here\n");
		skip();
		return;
	}
	pmcf_perfdata *pd = NULL;
	assert_int_equal(pmcf_perfdata_open(data, &pd), 0);
	assert_true(pmcf_perfdata_nattrs(pd) >= 1);
	/* perf adds :u where kernel.perf_event_paranoid keeps it to user space */
	const char *name = pmcf_perfdata_attr(pd, 0)->name;
	if (strcmp(name, "cpu-clock") != 0 && strcmp(name, "cpu-clock:u") != 0)
		fail_msg("event '%s', want cpu-clock or cpu-clock:u", name);
	assert_true(pmcf_perfdata_nsamples(pd) > 10);
	int have_sh = 0, have_comm = 0;
	for (size_t i = 0; i < pmcf_perfdata_nmmaps(pd); i++)
		if (strstr(pmcf_perfdata_mmap(pd, i)->filename, "sh") ||
		    strstr(pmcf_perfdata_mmap(pd, i)->filename, "dash"))
			have_sh = 1;
	for (size_t i = 0; i < pmcf_perfdata_ncomms(pd); i++)
		if (strstr(pmcf_perfdata_comm(pd, i)->comm, "sh"))
			have_comm = 1;
	assert_true(have_sh);
	assert_true(have_comm);
	pmcf_imix_opts o = {.size = sizeof(o), .method = PMCF_IMIX_EBS};
	pmcf_imix *m = NULL;
	assert_int_equal(pmcf_imix_from_perfdata(pd, &o, &m), 0);
	const pmcf_imix_stats *st = pmcf_imix_stats_get(m);
	assert_true(st->relative);
	assert_true(st->total > 0);
	assert_true(st->ebs_samples > 10);
	pmcf_imix_free(m);
	pmcf_perfdata_free(pd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_synthetic),   cmocka_unit_test(test_synthetic_hw_idx),
		cmocka_unit_test(test_truncations), cmocka_unit_test(test_fuzz),
		cmocka_unit_test(test_hostile),     cmocka_unit_test(test_recorded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
