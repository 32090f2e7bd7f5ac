/* util/: the one quantile (pmcfi_quantile) against a sort-based reference,
 * with its table of small cases; the one temporary folder maker and tree
 * remover (pmcfi_tmpdir_new, pmcfi_rm_tree). */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "pmcfuse/pmcfuse.h"
#include "x/x.h"
#include "util/atomic.h"
#include "util/internal.h"
#include "util/tmpdir.h"

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The definition: sorted s, position q·(n-1), linear between neighbours. */
static double reference(const double *v, size_t n, double q)
{
	double *s = malloc(n * sizeof(*s));
	assert_non_null(s);
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp);
	double pos = q * (double)(n - 1);
	size_t i = (size_t)pos;
	double r = i + 1 >= n ? s[n - 1] : s[i] + (pos - (double)i) * (s[i + 1] - s[i]);
	free(s);
	return r;
}

static void test_table(void **state)
{
	(void)state;
	static const struct {
		int line;
		size_t n;
		double v[6], q, want;
	} rows[] = {
		{__LINE__, 1, {7}, 0.5, 7},
		{__LINE__, 2, {3, 1}, 0.5, 2},
		{__LINE__, 4, {4, 1, 3, 2}, 0.5, 2.5},
		{__LINE__, 5, {5, 4, 3, 2, 1}, 0.5, 3},
		{__LINE__, 5, {5, 4, 3, 2, 1}, 0, 1},
		{__LINE__, 5, {5, 4, 3, 2, 1}, 1, 5},
		{__LINE__, 5, {5, 4, 3, 2, 1}, 0.9, 4.6},
		{__LINE__, 6, {2, 2, 2, 9, 2, 2}, 0.5, 2},
		{__LINE__, 6, {0, 10, 20, 30, 40, 50}, 0.25, 12.5},
	};
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		double v[6];
		memcpy(v, rows[r].v, sizeof(v));
		double got = pmcfi_quantile(v, rows[r].n, rows[r].q);
		if (fabs(got - rows[r].want) > 1e-12)
			fail_msg("row %d: got %.17g, want %.17g", rows[r].line, got, rows[r].want);
	}
	assert_true(isnan(pmcfi_quantile(NULL, 0, 0.5)));
	double two[] = {1, 4};
	assert_true(pmcfi_median(two, 2) == 2.5);
}

/* Random arrays with ties: bit-identical to the sort-based definition, and
 * a sorted array stays sorted (the report takes several quantiles of one). */
static void test_random(void **state)
{
	(void)state;
	uint64_t x = 0x9e3779b97f4a7c15ull;
	static const double qs[] = {0, 0.05, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 1};
	for (size_t trial = 0; trial < 200; trial++) {
		size_t n = 1 + trial % 37;
		double v[37], w[37];
		for (size_t i = 0; i < n; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			v[i] = (double)(x % 11) / 4; /* few distinct values: ties */
		}
		for (size_t k = 0; k < sizeof(qs) / sizeof(qs[0]); k++) {
			memcpy(w, v, n * sizeof(*w));
			double got = pmcfi_quantile(w, n, qs[k]), want = reference(v, n, qs[k]);
			if (got != want)
				fail_msg("trial %zu, n %zu, q %g: got %.17g, want %.17g", trial, n, qs[k],
					 got, want);
		}
		qsort(v, n, sizeof(*v), cmp);
		for (size_t k = 0; k < sizeof(qs) / sizeof(qs[0]); k++)
			pmcfi_quantile(v, n, qs[k]);
		for (size_t i = 1; i < n; i++)
			if (v[i - 1] > v[i])
				fail_msg("trial %zu: a sorted array is no longer sorted at %zu", trial, i);
	}
}

static void touch(const char *dir, const char *name)
{
	char p[4400];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs("x\n", f);
	fclose(f);
}

/* A folder made under base (its own name, mode 0700) and removed with all
 * it holds; a symbolic link in it is removed, what it points to is not. */
static void test_tmpdir(void **state)
{
	(void)state;
	const char *base = getenv("PMCF_TEST_TMP");
	if (!base)
		base = "/tmp";
	char *a, *b;
	assert_int_equal(pmcfi_tmpdir_new(base, "util-test.", &a), 0);
	assert_int_equal(pmcfi_tmpdir_new(base, "util-test.", &b), 0);
	assert_string_not_equal(a, b);
	assert_int_equal(strncmp(a, base, strlen(base)), 0);
	assert_non_null(strstr(a, "/util-test."));
	struct stat sb;
	assert_int_equal(stat(a, &sb), 0);
	assert_true(S_ISDIR(sb.st_mode) && (sb.st_mode & 0777) == 0700);
	/* b holds a file outside a's tree that a links to */
	touch(b, "keep");
	char sub[4200], link[4300], keep[4300];
	snprintf(sub, sizeof(sub), "%s/sub", a);
	assert_int_equal(mkdir(sub, 0755), 0);
	touch(a, "one");
	touch(sub, "two");
	snprintf(link, sizeof(link), "%s/link", sub);
	snprintf(keep, sizeof(keep), "%s/keep", b);
	assert_int_equal(symlink(b, link), 0);
	pmcfi_rm_tree(a);
	assert_int_not_equal(lstat(a, &sb), 0);
	assert_int_equal(stat(keep, &sb), 0);
	pmcfi_rm_tree(b);
	assert_int_not_equal(lstat(b, &sb), 0);
	free(a);
	free(b);
	/* a base that does not exist: -ENOENT, the detail names it */
	char *c = (char *)1;
	assert_int_equal(pmcfi_tmpdir_new("/nonexistent-pmcfuse", "x.", &c), -ENOENT);
	assert_null(c);
	assert_non_null(
		strstr(pmcf_errdetail(), "cannot create a temporary folder in '/nonexistent-pmcfuse'"));
}

static int fill_text(FILE *f, void *text) { return fputs(text, f) == EOF ? -EIO : 0; }
static int fill_fail(FILE *f, void *text)
{
	fputs(text, f);
	return pmcfi_fail(PMCF_EINVAL, "refused half-way");
}

/* How many entries of dir start with prefix (temporaries left behind). */
static int count_prefix(const char *dir, const char *prefix)
{
	DIR *dd = opendir(dir);
	int n = 0;
	for (struct dirent *e; dd && (e = readdir(dd));)
		n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
	if (dd)
		closedir(dd);
	return dd ? n : -1;
}

/* Files replaced whole or not at all (util/atomic.h, used by profile save,
 * export, plan.json, the reference index, manifests and Slurm scripts): the
 * old content stays when the writer fails, no temporary is left, a FIFO
 * (as /dev/null would be) is never replaced, the mode is not mkstemp's
 * 0600, and the public writers that use it refuse a FIFO too. */
static void test_atomic(void **state)
{
	(void)state;
	const char *base = getenv("PMCF_TEST_TMP");
	char *d;
	assert_int_equal(pmcfi_tmpdir_new(base ? base : "/tmp", "atomic-test.", &d), 0);
	char path[4200], fifo[4200];
	snprintf(path, sizeof(path), "%s/out.txt", d);
	snprintf(fifo, sizeof(fifo), "%s/fifo", d);
	mode_t um = umask(022);
	assert_int_equal(pmcfi_atomic_write(path, 0, fill_text, "first\n"), 0);
	struct stat sb;
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0644);
	assert_int_equal(chmod(path, 0640), 0);
	assert_int_equal(pmcfi_atomic_write(path, 0, fill_text, "second\n"), 0);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0640); /* the replaced file's mode kept */
	assert_int_equal(pmcfi_atomic_write(path, 0, fill_fail, "third\n"), PMCF_EINVAL);
	FILE *f = fopen(path, "r");
	char line[64] = "";
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
	assert_string_equal(line, "second\n");
	assert_int_equal(count_prefix(d, ".out.txt.tmp"), 0);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(pmcfi_atomic_write(fifo, 0, fill_text, "x"), PMCF_EINVAL);
	assert_non_null(strstr(pmcf_errdetail(), "device, FIFO or socket"));
	/* the public writers: plan.json and an export onto the FIFO */
	pmcf_profile *p;
	assert_int_equal(pmcf_profile_new(&p), 0);
	assert_int_equal(pmcf_export_path(p, "csv", NULL, fifo), PMCF_EINVAL);
	pmcf_profile_free(p);
	assert_int_equal(lstat(fifo, &sb), 0);
	assert_true(S_ISFIFO(sb.st_mode));
	assert_int_equal(count_prefix(d, ".fifo.tmp"), 0);
	/* a link to a descriptor (as /dev/stdout is) is not replaced by a file,
	 * whatever the descriptor is */
	char fdlink[4200];
	snprintf(fdlink, sizeof(fdlink), "%s/stdout", d);
	assert_int_equal(symlink("/proc/self/fd/1", fdlink), 0);
	assert_int_equal(pmcfi_atomic_write(fdlink, 0, fill_text, "x"), PMCF_EINVAL);
	assert_non_null(strstr(pmcf_errdetail(), "descriptor's link"));
	assert_int_equal(lstat(fdlink, &sb), 0);
	assert_true(S_ISLNK(sb.st_mode));
	assert_int_equal(count_prefix(d, ".stdout.tmp"), 0);
	char missing[4300];
	snprintf(missing, sizeof(missing), "%s/no/such/out.txt", d);
	assert_int_equal(pmcfi_atomic_write(missing, 0, fill_text, "x"), -ENOENT);
	umask(um);
	pmcfi_rm_tree(d);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_tmpdir),
		cmocka_unit_test(test_atomic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
