/* pmcfuse — reference folders: the profiles `pmcfuse reference` writes
 * (DIR/ref-NNN.pmcf, DIR/reference.json), read back for the accuracy
 * measures (EPD, Correlation Error, the report). */
#ifndef PMCFUSE_REFDIR_H
#define PMCFUSE_REFDIR_H

#include <stdint.h>
#include "pmcfuse/base.h"
#include "pmcfuse/plan.h"
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

/* The name of reference execution K in its folder (printf format of a
 * size_t): ref-000.pmcf, ref-001.pmcf, ... */
#define PMCF_REFDIR_FILE "ref-%03zu.pmcf"
/* The index DIR/reference.json of a reference folder. */
#define PMCF_REFDIR_INDEX "reference.json"

/* What the index of a reference folder says: executions K = r * nsets + s
 * (repeat r, covering set s of cover, K < nsets * repeat). Sized struct
 * (base.h): set size to sizeof(pmcf_refdir_index). */
typedef struct pmcf_refdir_index {
	size_t size;
	const char *const *events; /* the events covered (duration left out) */
	size_t nevents;
	const pmcf_cover *cover;   /* the pair covering of the events */
	size_t repeat;             /* how often every set is recorded, >= 1 */
	const char *source;        /* the workload spec, or the program */
	const unsigned char *done; /* [nsets * repeat]: execution K is in dir */
	const uint64_t *seeds;     /* [nsets * repeat] execution seeds, or NULL (0) */
} pmcf_refdir_index;
#define PMCF_REFDIR_INDEX_INIT PMCF_SIZED_INIT(pmcf_refdir_index)

/* Writes dir/reference.json (PMCF_REFDIR_INDEX) atomically (a temporary in
 * dir, synced, renamed over the old index): the events, repeat, sets,
 * executions, lower_bound (per repeat and in all, with its derivation),
 * source, impossible pairs, "complete" (every execution done),
 * executions_done, and one entry per done execution (file, repeat, set,
 * seed, events, pairs) in execution order. docs/accuracy.md describes the
 * fields. Errors: PMCF_EINVAL (dir, ix, cover or done missing, repeat 0,
 * a bad size), -errno (the file cannot be written; detail names it),
 * PMCF_ENOMEM; the old index, if any, is then left as it was. */
PMCF_API int pmcf_refdir_write_index(const char *dir, const pmcf_refdir_index *ix);

#ifdef __cplusplus
}
#endif
#endif
