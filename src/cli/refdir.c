/* The reference folders of the accuracy verbs (epd, correrr, report):
 * pmcf_refdir_open with the command's error reporting (cli/refdir.h). */
#include "cli/refdir.h"
#include "cli/cli.h"
#include "pmcfuse/refdir.h"

int refdir_open_for(const char *verb, const char *dir, const pmcf_profile *target, const char *tpath,
		    int force, pmcf_profile ***refs, size_t *n)
{
	int err = pmcf_refdir_open(dir, target, tpath, force, refs, n);
	return err ? cli_lib_error(verb, err, dir) : CLI_OK;
}

void refdir_free(pmcf_profile **refs, size_t n) { pmcf_refdir_free(refs, n); }
