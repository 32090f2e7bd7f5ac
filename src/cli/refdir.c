/* The reference folders of the accuracy verbs (epd, correrr, report):
 * pmcf_refdir_open with the command's error reporting (cli/refdir.h). */
#include "cli/refdir.h"
#include "cli/cli.h"
#include <stdlib.h>
#include <string.h>
#include "pmcfuse/combine.h"
#include "pmcfuse/refdir.h"

int refdir_open_for(const char *verb, const char *dir, const pmcf_profile *target, const char *tpath,
		    int force, pmcf_profile ***refs, size_t *n)
{
	int err = pmcf_refdir_open(dir, target, tpath, force, refs, n);
	return err ? cli_lib_error(verb, err, dir) : CLI_OK;
}

void refdir_free(pmcf_profile **refs, size_t n) { pmcf_refdir_free(refs, n); }

int refdir_open_targets(const char *verb, char *const *paths, size_t nt, const char *dir, int force,
			pmcf_profile ***targets, pmcf_profile ***refs, size_t *nrefs)
{
	*targets = calloc(nt, sizeof(**targets));
	*refs = NULL;
	*nrefs = 0;
	if (!*targets)
		return cli_error(verb, CLI_EENV, "out of memory");
	int st = CLI_OK;
	for (size_t t = 0; t < nt && st == CLI_OK; t++)
		st = cli_open_profile(verb, paths[t], &(*targets)[t]);
	if (st == CLI_OK)
		st = refdir_open_for(verb, dir, (*targets)[0], paths[0], force, refs, nrefs);
	/* every further target of the same program run as the first (and so
	 * as the references), the check the references had */
	for (size_t t = 1; t < nt && st == CLI_OK && !force; t++) {
		const pmcf_profile *two[2] = {(*targets)[0], (*targets)[t]};
		const char *nm[2] = {paths[0], paths[t]};
		pmcf_combine_opts o = PMCF_COMBINE_OPTS_INIT;
		o.strategy = PMCF_COMBINE_CTC;
		o.names = nm;
		int err = pmcf_combine_check_run(two, 2, &o);
		if (err == PMCF_ECONFLICT) {
			const char *d = pmcf_errdetail(),
				   *cut = strstr(d, "; set force"); /* combine.c's detail */
			st = cli_error(verb, cli_status_for(err),
				       "%.*s: targets of another run; use --force to compare them anyway",
				       (int)(cut ? cut - d : (long)strlen(d)), d);
		} else if (err)
			st = cli_lib_error(verb, err, paths[t]);
	}
	if (st != CLI_OK) {
		refdir_free(*refs, *nrefs);
		*refs = NULL;
		*nrefs = 0;
		refdir_targets_free(*targets, nt);
		*targets = NULL;
	}
	return st;
}

void refdir_targets_free(pmcf_profile **targets, size_t nt)
{
	for (size_t t = 0; targets && t < nt; t++)
		pmcf_profile_free(targets[t]);
	free(targets);
}
