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
/* The targets paths[0..nt) and the references of dir (refdir_open_for with
 * the first target); unless force, every further target must be of the
 * same program run as the first. Reports errors (returns an exit status;
 * nothing is left open then). Free with refdir_targets_free and
 * refdir_free. */
int refdir_open_targets(const char *verb, char *const *paths, size_t nt, const char *dir, int force,
			pmcf_profile ***targets, pmcf_profile ***refs, size_t *nrefs);
void refdir_targets_free(pmcf_profile **targets, size_t nt);
#endif
