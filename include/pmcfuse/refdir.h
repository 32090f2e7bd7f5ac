/* pmcfuse — reference folders: the profiles `pmcfuse reference` writes
 * (DIR/ref-NNN.pmcf, DIR/reference.json), read back for the accuracy
 * measures (EPD, Correlation Error, the report). */
#ifndef PMCFUSE_REFDIR_H
#define PMCFUSE_REFDIR_H

#include "pmcfuse/pmcfuse.h"
#include "pmcfuse/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opens every *.pmcf of dir (hidden files left out) in name order into
 * *refs[0..*n) (free with pmcf_refdir_free). With a target and force 0 it
 * refuses, with PMCF_ECONFLICT, references of another program run
 * (program, arguments, binary or simulated workload differ: combine's
 * check; target_name names the target in the detail) and two references
 * that are the same execution (identical copies would calibrate to 0).
 * Errors: -errno (the folder cannot be read), PMCF_ENOENT (no *.pmcf in
 * it), pmcf_profile_open's (the detail names the file), PMCF_ENOMEM;
 * *refs NULL and *n 0 then. */
PMCF_API int pmcf_refdir_open(const char *dir, const pmcf_profile *target, const char *target_name, int force,
			      pmcf_profile ***refs, size_t *n);
PMCF_API void pmcf_refdir_free(pmcf_profile **refs, size_t n);

#ifdef __cplusplus
}
#endif
#endif
