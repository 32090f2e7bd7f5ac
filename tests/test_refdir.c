/* Unit tests of reference folders (src/plan/refdir.c): the index
 * reference.json written by pmcf_refdir_write_index, read back with jansson
 * and against the profiles pmcf_refdir_open finds beside it; bad arguments
 * and a folder where the index cannot be written. */
#include <dirent.h>
#include <errno.h>
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
#include <jansson.h>
#include "pmcfuse/collect.h"
#include "pmcfuse/plan.h"
#include "pmcfuse/refdir.h"
#include "pmcfuse/source.h"
#include "row_check.h"

#define SPEC "cholesky,blocks=4,seed=7"
#define REPEAT 2

static int ok(int err, int line)
{
	if (err)
		fail_msg("line %d: %s (%s)", line, pmcf_strerror(err), pmcf_errdetail());
	return err;
}
#define OK(x) ok((x), __LINE__)

/* A covering of three events on two counters (three sets of two), its
 * executions' seeds, and a fresh folder. */
struct fixture {
	char dir[4096];
	pmcf_source *src;
	pmcf_evlist *ev;
	pmcf_cover *cv;
	size_t nsets, total;
	uint64_t seeds[16];
};

static void make_fixture(struct fixture *fx)
{
	const char *tmp = getenv("PMCF_TEST_TMP");
	snprintf(fx->dir, sizeof(fx->dir), "%s/refdir.XXXXXX", tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(fx->dir));
	pmcf_count_opts o = PMCF_COUNT_OPTS_INIT;
	o.pmcs = 2;
	OK(pmcf_source_new_sim(SPEC, &o, &fx->src));
	OK(pmcf_source_events(fx->src, "PAPI_L1_DCM,PAPI_L1_ICM,PAPI_L1_LDM", &fx->ev));
	OK(pmcf_cover_pairs_evlist(fx->ev, 2, 1, &fx->cv));
	fx->nsets = pmcf_cover_nsets(fx->cv);
	fx->total = fx->nsets * REPEAT;
	assert_true(fx->nsets >= 2 && fx->total <= 16);
	for (size_t k = 0; k < fx->total; k++)
		fx->seeds[k] = pmcf_source_exec_seed(fx->src, (long)k);
}

static void free_fixture(struct fixture *fx)
{
	DIR *d = opendir(fx->dir);
	struct dirent *de;
	char path[8192];
	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			snprintf(path, sizeof(path), "%s/%s", fx->dir, de->d_name);
			if (unlink(path) != 0)
				rmdir(path);
		}
	if (d)
		closedir(d);
	rmdir(fx->dir);
	pmcf_cover_free(fx->cv);
	pmcf_evlist_free(fx->ev);
	pmcf_source_free(fx->src);
}

/* Records execution k (its covering set) into dir/ref-NNN.pmcf. */
static void record_ref(struct fixture *fx, size_t k)
{
	pmcf_profile *p;
	pmcf_exit_info ei = PMCF_EXIT_INFO_INIT;
	/* the covering's own list of the set: no name looked up again */
	OK(pmcf_source_record(fx->src, pmcf_cover_evlist_at(fx->cv, k % fx->nsets), (long)k, &p, &ei));
	char path[4200], file[32];
	snprintf(file, sizeof(file), PMCF_REFDIR_FILE, k);
	snprintf(path, sizeof(path), "%s/%s", fx->dir, file);
	OK(pmcf_profile_save(p, path));
	pmcf_profile_free(p);
}

static pmcf_refdir_index index_of(const struct fixture *fx, const unsigned char *done)
{
	return (pmcf_refdir_index){.size = sizeof(pmcf_refdir_index),
				   .events = pmcf_evlist_names(fx->ev),
				   .nevents = pmcf_evlist_size(fx->ev),
				   .cover = fx->cv,
				   .repeat = REPEAT,
				   .source = pmcf_source_name(fx->src),
				   .done = done,
				   .seeds = fx->seeds};
}

/* The index's text. */
static void read_index(const struct fixture *fx, char *text, size_t len)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/" PMCF_REFDIR_INDEX, fx->dir);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t n = fread(text, 1, len - 1, f);
	fclose(f);
	text[n] = '\0';
}

static json_t *load_index(const struct fixture *fx)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/" PMCF_REFDIR_INDEX, fx->dir);
	json_error_t je;
	/* execution seeds are 64-bit: numbers as doubles (as jq reads them) */
	json_t *j = json_load_file(path, JSON_DECODE_INT_AS_REAL, &je);
	if (!j)
		fail_msg("%s: %s (line %d)", path, je.text, je.line);
	return j;
}

/* Whether the names of array a are those of set[0..n) (duration left out of
 * set when skip_duration). */
static int same_names(const json_t *a, const char *const *set, size_t n, int skip_duration)
{
	size_t j = 0;
	for (size_t i = 0; i < n; i++) {
		if (skip_duration && strcmp(set[i], "duration") == 0)
			continue;
		const char *s = json_string_value(json_array_get(a, j++));
		if (!s || strcmp(s, set[i]) != 0)
			return 0;
	}
	return j == json_array_size(a);
}

/* Some executions done: the index lists them, as pmcf_refdir_open finds
 * them, with every field; then all done: complete. */
static void test_write_read_back(void **state)
{
	(void)state;
	struct fixture fx;
	make_fixture(&fx);
	unsigned char done[16] = {0};
	for (size_t k = 0; k < fx.total; k++)
		if ((done[k] = k % 3 != 1))
			record_ref(&fx, k);
	size_t ndone = 0;
	for (size_t k = 0; k < fx.total; k++)
		ndone += done[k];
	pmcf_refdir_index ix = index_of(&fx, done);
	OK(pmcf_refdir_write_index(fx.dir, &ix));

	static char text[65536];
	read_index(&fx, text, sizeof(text));
	json_t *j = load_index(&fx);
	size_t lb = pmcf_cover_lower_bound(fx.cv);
	static const char *const top[] = {"events",
					  "repeat",
					  "sets",
					  "executions",
					  "lower_bound",
					  "complete",
					  "executions_done",
					  "lower_bound_per_repeat",
					  "lower_bound_derivation",
					  "source",
					  "impossible_pairs",
					  "profiles"};
	assert_int_equal(json_object_size(j), sizeof(top) / sizeof(top[0]));
	const struct {
		int line;
		const char *key;
		json_int_t want;
	} ints[] = {
		{__LINE__, "repeat", REPEAT},
		{__LINE__, "sets", (json_int_t)fx.nsets},
		{__LINE__, "executions", (json_int_t)fx.total},
		{__LINE__, "lower_bound", (json_int_t)(lb * REPEAT)},
		{__LINE__, "lower_bound_per_repeat", (json_int_t)lb},
		{__LINE__, "executions_done", (json_int_t)ndone},
	};
	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
		json_t *v = json_object_get(j, ints[i].key);
		ROW_CHECK(ints[i].line, json_is_number(v) && json_number_value(v) == (double)ints[i].want,
			  "%s: want %lld", ints[i].key, (long long)ints[i].want);
	}
	const struct {
		int line;
		const char *key, *want;
	} strs[] = {
		{__LINE__, "source", pmcf_source_name(fx.src)},
		{__LINE__, "lower_bound_derivation", pmcf_cover_bound_text(fx.cv)},
	};
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		const char *s = json_string_value(json_object_get(j, strs[i].key));
		ROW_CHECK(strs[i].line, s && strcmp(s, strs[i].want) == 0, "%s: want '%s', got '%s'",
			  strs[i].key, strs[i].want, s ? s : "(none)");
	}
	assert_true(json_is_false(json_object_get(j, "complete")));
	assert_true(same_names(json_object_get(j, "events"), pmcf_evlist_names(fx.ev),
			       pmcf_evlist_size(fx.ev), 1));
	assert_int_equal(json_array_size(json_object_get(j, "events")), 3);
	assert_int_equal(json_array_size(json_object_get(j, "impossible_pairs")), 0);

	/* the profiles: the index's entries are the files the reader opens */
	pmcf_profile **refs;
	size_t nrefs;
	OK(pmcf_refdir_open(fx.dir, NULL, NULL, 0, &refs, &nrefs));
	json_t *prof = json_object_get(j, "profiles");
	assert_int_equal(nrefs, ndone);
	assert_int_equal(json_array_size(prof), ndone);
	for (size_t k = 0, q = 0; k < fx.total; k++) {
		if (!done[k])
			continue;
		json_t *e = json_array_get(prof, q);
		size_t n;
		const char *const *set = pmcf_cover_events_at(fx.cv, k % fx.nsets, &n);
		char file[32];
		snprintf(file, sizeof(file), PMCF_REFDIR_FILE, k);
		const char *f = json_string_value(json_object_get(e, "file"));
		assert_non_null(f);
		assert_string_equal(f, file);
		assert_true(json_number_value(json_object_get(e, "repeat")) == (double)(k / fx.nsets));
		assert_true(json_number_value(json_object_get(e, "set")) == (double)(k % fx.nsets));
		/* the seed's digits, beyond what a double holds */
		char want[200];
		snprintf(want, sizeof(want),
			 "\"file\": \"%s\", \"repeat\": %zu, \"set\": %zu, \"seed\": %llu,", file,
			 k / fx.nsets, k % fx.nsets, (unsigned long long)fx.seeds[k]);
		if (!strstr(text, want))
			fail_msg("no '%s' in the index", want);
		assert_true(same_names(json_object_get(e, "events"), set, n, 0));
		json_t *pairs = json_object_get(e, "pairs");
		assert_int_equal(json_array_size(pairs), n * (n - 1) / 2);
		json_t *p0 = json_array_get(pairs, 0);
		assert_string_equal(json_string_value(json_array_get(p0, 0)), set[0]);
		assert_string_equal(json_string_value(json_array_get(p0, 1)), set[1]);
		/* the profile the reader opened in this place holds the set's
		 * events (after duration) */
		pmcf_profile *r = refs[q++];
		assert_int_equal(pmcf_profile_nevents(r), n + 1);
		for (size_t i = 0; i < n; i++)
			assert_string_equal(pmcf_profile_event_name(r, i + 1), set[i]);
	}
	pmcf_refdir_free(refs, nrefs);
	json_decref(j);

	/* every execution done: rewritten over the old index, complete */
	memset(done, 1, fx.total);
	OK(pmcf_refdir_write_index(fx.dir, &ix));
	j = load_index(&fx);
	assert_true(json_is_true(json_object_get(j, "complete")));
	assert_true(json_number_value(json_object_get(j, "executions_done")) == (double)fx.total);
	assert_int_equal(json_array_size(json_object_get(j, "profiles")), fx.total);
	json_decref(j);
	free_fixture(&fx);
}

/* A seed beyond INT64_MAX keeps its digits; a source that is not UTF-8 is
 * written as its bytes ({"base64": ...}). */
static void test_big_seed_and_bytes(void **state)
{
	(void)state;
	struct fixture fx;
	make_fixture(&fx);
	unsigned char done[16] = {1};
	fx.seeds[0] = UINT64_MAX;
	pmcf_refdir_index ix = index_of(&fx, done);
	ix.source = "prog\xff";
	OK(pmcf_refdir_write_index(fx.dir, &ix));
	static char text[65536];
	read_index(&fx, text, sizeof(text));
	assert_non_null(strstr(text, "\"seed\": 18446744073709551615,"));
	json_t *j = load_index(&fx);
	const char *b64 = json_string_value(json_object_get(json_object_get(j, "source"), "base64"));
	assert_non_null(b64);
	assert_string_equal(b64, "cHJvZ/8=");
	json_decref(j);
	free_fixture(&fx);
}

/* Nothing half-written: where the index cannot be written, an error naming
 * it, the old index kept, no temporary left; bad arguments refused. */
static void test_failures(void **state)
{
	(void)state;
	struct fixture fx;
	make_fixture(&fx);
	unsigned char done[16] = {0};
	pmcf_refdir_index ix = index_of(&fx, done);
	char missing[4200];
	snprintf(missing, sizeof(missing), "%s/no-such-folder", fx.dir);
	assert_int_equal(pmcf_refdir_write_index(missing, &ix), -ENOENT);
	assert_non_null(strstr(pmcf_errdetail(), "no-such-folder/reference.json"));

	/* reference.json is a folder: refused before a temporary is made */
	char idx[4200];
	snprintf(idx, sizeof(idx), "%s/" PMCF_REFDIR_INDEX, fx.dir);
	assert_int_equal(mkdir(idx, 0755), 0);
	int err = pmcf_refdir_write_index(fx.dir, &ix);
	assert_int_equal(err, PMCF_EINVAL);
	assert_non_null(strstr(pmcf_errdetail(), "reference.json': it is a folder"));
	DIR *d = opendir(fx.dir);
	struct dirent *de;
	size_t entries = 0;
	while ((de = readdir(d)))
		entries += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	assert_int_equal(entries, 1); /* the folder reference.json alone */
	assert_int_equal(rmdir(idx), 0);

	const struct {
		int line;
		size_t size, repeat;
		int no_cover, no_done, no_dir;
	} bad[] = {
		{__LINE__, 4, REPEAT, 0, 0, 0},                         /* below the first size */
		{__LINE__, sizeof(pmcf_refdir_index), 0, 0, 0, 0},      /* repeat 0 */
		{__LINE__, sizeof(pmcf_refdir_index), REPEAT, 1, 0, 0}, /* no covering */
		{__LINE__, sizeof(pmcf_refdir_index), REPEAT, 0, 1, 0}, /* no done flags */
		{__LINE__, sizeof(pmcf_refdir_index), REPEAT, 0, 0, 1}, /* no folder */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		pmcf_refdir_index b = ix;
		b.size = bad[i].size;
		b.repeat = bad[i].repeat;
		b.cover = bad[i].no_cover ? NULL : fx.cv;
		b.done = bad[i].no_done ? NULL : done;
		err = pmcf_refdir_write_index(bad[i].no_dir ? NULL : fx.dir, &b);
		ROW_CHECK(bad[i].line, err == PMCF_EINVAL, "want PMCF_EINVAL, got %d", err);
		ROW_CHECK(bad[i].line, access(idx, F_OK) != 0, "an index was written");
	}
	free_fixture(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_read_back),
		cmocka_unit_test(test_big_seed_and_bytes),
		cmocka_unit_test(test_failures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
