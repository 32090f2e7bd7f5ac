/* Shared by the accuracy verbs (epd, correrr, report; cli/refdir.c): the reference
 * profiles of a folder written by `pmcfuse reference` (every *.pmcf in it,
 * by name), read by the library's pmcf_refdir_open (pmcfuse/refdir.h). */
#ifndef PMCF_CLI_REFDIR_H
#define PMCF_CLI_REFDIR_H
#include "pmcfuse/profile.h"

/* Opens every *.pmcf of dir in name order, the references of target (read
 * from tpath; NULL: any); reports errors (returns an exit status). Unless
 * force, refuses references of another program run (program, arguments,
 * binary or simulated workload differ: the check of combine) and two
 * references that are the same execution (identical copies calibrate to 0).
 * Free with refdir_free. */
int refdir_open_for(const char *verb, const char *dir, const pmcf_profile *target, const char *tpath,
		    int force, pmcf_profile ***refs, size_t *n);
void refdir_free(pmcf_profile **refs, size_t n);
#endif
