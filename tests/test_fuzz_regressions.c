/* Replays the inputs the fuzzers found (fuzz/regressions/HARNESS/FILE)
 * through the same parsers in the gcc build, so that a fixed bug stays fixed
 * in `make check` and under ASan/UBSan in `make asan`. Each input must give
 * an error code or a sane result; never a crash or a sanitizer report. */
#include <dirent.h>
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
#include "pmcfuse/hbbp.h"
#include "pmcfuse/plan.h"
#include "pmcfuse/profile.h"
#include "pmcfuse/sim.h"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = 0;
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* The EMD CSV as the harness reads it (pmcf_emd_read_csv, the reader of
 * `pmcfuse emd`), against a fixed set of three points. */
static void replay_emd_csv(const char *path)
{
	double *w = NULL, *x = NULL;
	size_t n = 0;
	int err = pmcf_emd_read_csv(path, &w, &x, &n);
	assert_true(err == 0 || err == PMCF_ESYNTAX);
	static const double wb[3] = {1.0 / 3, 1.0 / 3, 1.0 / 3}, xb[6] = {0, 0, 1, 1, -3, 2.5};
	double d = 0;
	if (!err && pmcf_emd(NULL, 2, w, x, n, wb, xb, 3, &d) == 0)
		assert_true(isfinite(d) && d >= 0);
	free(w);
	free(x);
}

/* The combine harness's input: a 4-byte little-endian length n, a profile
 * of n bytes, then a second profile; fused by every strategy (--partial,
 * --force, one thread): an error code or a fused profile. */
static pmcf_profile *open_bytes(const char *data, size_t size)
{
	const char *dir = getenv("TMPDIR");
	char path[1100];
	snprintf(path, sizeof(path), "%s/pmcf-replay-XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, size), (ssize_t)size);
	close(fd);
	pmcf_profile *p = NULL;
	if (pmcf_profile_open(path, &p) != 0)
		p = NULL;
	unlink(path);
	return p;
}

static void replay_combine(const char *text, size_t len)
{
	if (len < 4)
		return;
	const unsigned char *u = (const unsigned char *)text;
	size_t n = (size_t)u[0] | (size_t)u[1] << 8 | (size_t)u[2] << 16 | (size_t)u[3] << 24;
	if (n > len - 4)
		return;
	pmcf_profile *in[2] = {open_bytes(text + 4, n), open_bytes(text + 4 + n, len - 4 - n)};
	for (int s = PMCF_COMBINE_CTC; in[0] && in[1] && s <= PMCF_COMBINE_BC_LGL; s++) {
		pmcf_combine_opts o = PMCF_COMBINE_OPTS_INIT;
		o.strategy = s;
		o.force = o.partial = 1;
		o.threads = 1;
		pmcf_profile *out = NULL;
		int err = pmcf_combine((const pmcf_profile *const *)in, 2, &o, &out, NULL);
		assert_true(err != 0 || out != NULL);
		pmcf_profile_free(out);
	}
	pmcf_profile_free(in[0]);
	pmcf_profile_free(in[1]);
}

static void replay(const char *harness, const char *path)
{
	size_t len;
	char *text = slurp(path, &len);
	if (!strcmp(harness, "emd_csv")) {
		replay_emd_csv(path);
	} else if (!strcmp(harness, "profile")) {
		pmcf_profile *p = NULL;
		if (pmcf_profile_open(path, &p) == 0)
			pmcf_profile_free(p);
	} else if (!strcmp(harness, "plan")) {
		pmcf_plan *p = NULL;
		if (pmcf_plan_from_json(text, &p) == 0)
			pmcf_plan_free(p);
	} else if (!strcmp(harness, "perfdata")) {
		pmcf_perfdata *pd = NULL;
		if (pmcf_perfdata_open_buffer(text, len, &pd) == 0)
			pmcf_perfdata_free(pd);
	} else if (!strcmp(harness, "callgrind")) {
		pmcf_imix *m = NULL;
		if (pmcf_imix_from_callgrind(path, NULL, &m) == 0)
			pmcf_imix_free(m);
	} else if (!strcmp(harness, "spec")) {
		pmcf_sim_spec *s = NULL;
		if (pmcf_sim_spec_parse(text, &s) == 0)
			pmcf_sim_spec_free(s);
	} else if (!strcmp(harness, "evlist")) {
		pmcf_catalog *c = NULL;
		assert_int_equal(pmcf_catalog_sim("cholesky", &c), 0);
		pmcf_evlist *l = NULL;
		if (len > 0 && text[1] != '@' && pmcf_evlist_parse(c, text + 1, &l) == 0)
			pmcf_evlist_free(l);
		pmcf_catalog_free(c);
	} else if (!strcmp(harness, "combine")) {
		replay_combine(text, len);
	} else {
		fail_msg("fuzz/regressions/%s: no harness of that name", harness);
	}
	free(text);
}

static void test_regressions(void **state)
{
	(void)state;
	const char *src = getenv("PMCF_SOURCE_DIR");
	char dir[1024];
	snprintf(dir, sizeof(dir), "%s/fuzz/regressions", src && *src ? src : "..");
	DIR *top = opendir(dir);
	assert_non_null(top);
	size_t replayed = 0;
	for (struct dirent *h; (h = readdir(top));) {
		if (h->d_name[0] == '.')
			continue;
		char sub[1300];
		snprintf(sub, sizeof(sub), "%s/%s", dir, h->d_name);
		DIR *d = opendir(sub);
		if (!d)
			continue;
		for (struct dirent *e; (e = readdir(d));) {
			if (e->d_name[0] == '.')
				continue;
			char path[1600];
			snprintf(path, sizeof(path), "%s/%s", sub, e->d_name);
			print_message("replay %s/%s\n", h->d_name, e->d_name);
			replay(h->d_name, path);
			replayed++;
		}
		closedir(d);
	}
	closedir(top);
	assert_true(replayed > 0);
}

/* The first finding, spelled out: a coordinate so large that distances
 * overflow must be refused, not turned into NaN costs. */
static void test_emd_huge_coordinates(void **state)
{
	(void)state;
	const double wa[2] = {1, 1}, xa[4] = {0, 0, 0, 1e200};
	const double wb[2] = {1, 1}, xb[4] = {0, 0, 1, 1};
	double d = 0;
	assert_int_equal(pmcf_emd(NULL, 2, wa, xa, 2, wb, xb, 2, &d), PMCF_EINVAL);
	const double ok[4] = {0, 0, 0, 1e100};
	assert_int_equal(pmcf_emd(NULL, 2, wa, ok, 2, wb, xb, 2, &d), 0);
	assert_true(isfinite(d));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regressions),
		cmocka_unit_test(test_emd_huge_coordinates),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
