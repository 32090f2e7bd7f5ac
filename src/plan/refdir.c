/* Reading a reference folder (the executions `pmcfuse reference` planned
 * with the pair covering of cover.c): its profiles in name order, checked
 * to be distinct executions of the target's program run. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pmcfuse/combine.h"
#include "pmcfuse/refdir.h"
#include "profile/ident.h"
#include "util/abi.h"
#include "util/internal.h"

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
		const char *d = pmcf_errdetail(), *cut = strstr(d, "; use --force");
		return pmcfi_fail(PMCF_ECONFLICT,
				  "%.*s: references of another run; use --force to compare them "
				  "anyway",
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
					  "pmcfuse reference); use --force to compare anyway",
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
