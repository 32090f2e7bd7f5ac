/* Reference folders (the executions `pmcfuse reference` planned with the
 * pair covering of cover.c): writing their index reference.json, and
 * reading their profiles in name order, checked to be distinct executions
 * of the target's program run. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pmcfuse/combine.h"
#include "pmcfuse/refdir.h"
#include "profile/ident.h"
#include "util/abi.h"
#include "util/atomic.h"
#include "util/internal.h"
#include "util/json_bytes.h"

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* err with a detail that names what failed, when the callee left none */
static int failed(int err, const char *what)
{
	if (pmcf_errdetail()[0])
		return err;
	return pmcfi_fail(err, "%s: %s", what, pmcf_strerror(err));
}

/* The dir/NAME.pmcf paths of dir, sorted. */
static int list_profiles(const char *dir, char ***names, size_t *nn)
{
	DIR *d = opendir(dir);
	if (!d)
		return pmcfi_fail(-errno, "cannot open reference folder '%s': %s", dir, strerror(errno));
	size_t cap = 0;
	struct dirent *de;
	int err = 0;
	while (!err && (de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (l < 6 || strcmp(de->d_name + l - 5, ".pmcf") != 0 || de->d_name[0] == '.')
			continue;
		if (pmcfi_grow((void **)names, &cap, *nn + 1, sizeof(**names)) ||
		    !((*names)[*nn] = malloc(strlen(dir) + l + 2))) {
			err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
			break;
		}
		sprintf((*names)[(*nn)++], "%s/%s", dir, de->d_name);
	}
	closedir(d);
	if (!err && *nn == 0)
		err = pmcfi_fail(PMCF_ENOENT,
				 "no reference profiles (*.pmcf) in '%s' (record them with pmcfuse "
				 "reference)",
				 dir);
	if (!err)
		qsort(*names, *nn, sizeof(**names), cmp_str);
	return err;
}

/* Reference i against the target and the references before it (their
 * content digests in ids[0..i)). */
static int check_ref(const pmcf_profile *target, const char *tname, pmcf_profile *const *refs,
		     char *const *names, char **ids, size_t i)
{
	const pmcf_profile *two[2] = {target, refs[i]};
	const char *nm[2] = {tname, names[i]};
	pmcf_combine_opts o = PMCF_COMBINE_OPTS_INIT;
	o.strategy = PMCF_COMBINE_CTC;
	o.names = nm;
	int err = pmcf_combine_check_run(two, 2, &o);
	if (err == PMCF_ECONFLICT) {
		const char *d = pmcf_errdetail(), *cut = strstr(d, "; set force");
		return pmcfi_fail(PMCF_ECONFLICT,
				  "%.*s: references of another run; pass force (--force) to compare "
				  "them anyway",
				  (int)(cut ? cut - d : (long)strlen(d)), d);
	}
	if (err)
		return failed(err, names[i]);
	if (!(ids[i] = pmcfi_profile_ident(refs[i])))
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	for (size_t j = 0; j < i; j++)
		if (strcmp(ids[j], ids[i]) == 0)
			return pmcfi_fail(PMCF_ECONFLICT,
					  "%s and %s are the same execution (identical copies): "
					  "repeats must be distinct executions (record them with "
					  "pmcfuse reference); pass force (--force) to compare anyway",
					  names[j], names[i]);
	return 0;
}

int pmcf_refdir_open(const char *dir, const pmcf_profile *target, const char *target_name, int force,
		     pmcf_profile ***refs, size_t *n)
{
	pmcfi_clear_error();
	*refs = NULL;
	*n = 0;
	char **names = NULL, **ids = NULL;
	size_t nn = 0;
	int err = list_profiles(dir, &names, &nn);
	if (!err && !(*refs = calloc(nn, sizeof(**refs))))
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
	for (size_t i = 0; i < nn && !err; i++, (*n)++)
		if ((err = pmcf_profile_open(names[i], &(*refs)[i])))
			err = failed(err, names[i]);
	int check = !err && !force && target;
	if (check && !(ids = calloc(nn, sizeof(*ids))))
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
	/* pairwise digests: the folders of `reference` hold a handful of repeats */
	for (size_t i = 0; ids && i < nn && !err; i++)
		err = check_ref(target, target_name, *refs, names, ids, i);
	for (size_t i = 0; i < nn; i++) {
		free(names[i]);
		if (ids)
			free(ids[i]);
	}
	free(ids);
	free(names);
	if (err) {
		pmcf_refdir_free(*refs, *n);
		*refs = NULL;
		*n = 0;
	}
	return err;
}

void pmcf_refdir_free(pmcf_profile **refs, size_t n)
{
	for (size_t i = 0; refs && i < n; i++)
		pmcf_profile_free(refs[i]);
	free(refs);
}

/* ---- the index ------------------------------------------------------------ */
/* s as a JSON string, or {"base64": ...} when it is not UTF-8 (the rule of
 * plans and metadata, util/json_bytes.h); 0 or PMCF_ENOMEM. */
static int put_str(FILE *f, const char *s)
{
	json_t *v = pmcfi_json_bytes(s ? s : "");
	char *d = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
	json_decref(v);
	if (d)
		fputs(d, f);
	free(d);
	return d ? 0 : PMCF_ENOMEM;
}

/* "[a, b]" */
static int put_pair(FILE *f, const char *sep, const char *a, const char *b)
{
	fprintf(f, "%s[", sep);
	int err = put_str(f, a);
	fprintf(f, ", ");
	err |= put_str(f, b);
	fprintf(f, "]");
	return err;
}

/* The index's text into f; 0 or PMCF_ENOMEM. */
static int put_index(FILE *f, const pmcf_refdir_index *ix)
{
	size_t nsets = pmcf_cover_nsets(ix->cover), total = nsets * ix->repeat, ndone = 0, ne = 0;
	size_t lb = pmcf_cover_lower_bound(ix->cover);
	int err = 0;
	for (size_t k = 0; k < total; k++)
		ndone += ix->done[k] != 0;
	fprintf(f, "{\n  \"events\": [");
	for (size_t i = 0; i < ix->nevents; i++)
		if (strcmp(ix->events[i], "duration") != 0) {
			fprintf(f, "%s", ne++ ? ", " : "");
			err |= put_str(f, ix->events[i]);
		}
	fprintf(f, "],\n  \"repeat\": %zu, \"sets\": %zu, \"executions\": %zu, \"lower_bound\": %zu,\n",
		ix->repeat, nsets, total, lb * ix->repeat);
	fprintf(f, "  \"complete\": %s, \"executions_done\": %zu,\n", ndone == total ? "true" : "false",
		ndone);
	fprintf(f, "  \"lower_bound_per_repeat\": %zu, \"lower_bound_derivation\": ", lb);
	err |= put_str(f, pmcf_cover_bound_text(ix->cover));
	fprintf(f, ",\n  \"source\": ");
	err |= put_str(f, ix->source);
	fprintf(f, ",\n  \"impossible_pairs\": [");
	for (size_t k = 0; k < pmcf_cover_nimpossible(ix->cover); k++) {
		const char *a, *b;
		pmcf_cover_impossible(ix->cover, k, &a, &b);
		err |= put_pair(f, k ? ", " : "", a, b);
	}
	fprintf(f, "],\n  \"profiles\": [");
	for (size_t k = 0, q = 0; k < total; k++) {
		if (!ix->done[k])
			continue;
		size_t s = k % nsets, n;
		const char *const *set = pmcf_cover_events_at(ix->cover, s, &n);
		fprintf(f, "%s\n    {\"file\": \"" PMCF_REFDIR_FILE "\", \"repeat\": %zu, \"set\": %zu, ",
			q++ ? "," : "", k, k / nsets, s);
		fprintf(f, "\"seed\": %llu, \"events\": [",
			(unsigned long long)(ix->seeds ? ix->seeds[k] : 0));
		for (size_t i = 0; i < n; i++) {
			fprintf(f, "%s", i ? ", " : "");
			err |= put_str(f, set[i]);
		}
		fprintf(f, "], \"pairs\": [");
		for (size_t i = 0, p = 0; i < n; i++)
			for (size_t j = i + 1; j < n; j++)
				err |= put_pair(f, p++ ? ", " : "", set[i], set[j]);
		fprintf(f, "]}");
	}
	fprintf(f, "\n  ]\n}\n");
	return err ? PMCF_ENOMEM : 0;
}

static int index_fill(FILE *f, void *ix)
{
	int err = put_index(f, ix);
	return err ? pmcfi_fail(err, "out of memory") : 0;
}

int pmcf_refdir_write_index(const char *dir, const pmcf_refdir_index *ix)
{
	pmcfi_clear_error();
	pmcf_refdir_index o = {.size = sizeof(o)};
	int err = pmcfi_struct_in("pmcf_refdir_index", &o, ix, sizeof(o), sizeof(o));
	if (err)
		return err;
	if (!dir || !ix || !o.cover || !o.done || !o.repeat || (o.nevents && !o.events))
		return pmcfi_fail(PMCF_EINVAL, "pmcf_refdir_write_index: no folder, covering or done "
					       "flags, or repeat 0");
	size_t len = strlen(dir) + sizeof(PMCF_REFDIR_INDEX) + 2;
	char *path = malloc(len);
	if (!path)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	snprintf(path, len, "%s/%s", dir, PMCF_REFDIR_INDEX);
	err = pmcfi_atomic_write(path, 0, index_fill, &o);
	free(path);
	return err;
}
