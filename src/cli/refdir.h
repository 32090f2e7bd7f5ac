/* Shared by the accuracy verbs (epd, correrr): the reference profiles of a
 * folder written by `pmcfuse reference` (every *.pmcf in it, by name). */
#ifndef PMCF_CLI_REFDIR_H
#define PMCF_CLI_REFDIR_H
#include "pmcfuse/profile.h"

/* Opens every *.pmcf of dir in name order; reports errors (returns an exit
 * status). Free with refdir_free. */
int refdir_open(const char *verb, const char *dir, pmcf_profile ***refs, size_t *n);
void refdir_free(pmcf_profile **refs, size_t n);
#endif
