/* Temporary folders: made once (mkdtemp under $TMPDIR) and removed once
 * (the whole tree), for every module that needs scratch files. Not
 * exported; pmcf_rm_tree (pmcfuse/util.h) is the command's door. */
#ifndef PMCF_UTIL_TMPDIR_H
#define PMCF_UTIL_TMPDIR_H

/* Makes a new folder base/prefixXXXXXX (mode 0700, mkdtemp) and sets *out
 * to its path (free it). base NULL or "": $TMPDIR, else /tmp. Returns 0,
 * PMCF_ENOMEM, or -errno with the detail "cannot create a temporary folder
 * in 'BASE': reason". */
int pmcfi_tmpdir_new(const char *base, const char *prefix, char **out);
/* Removes dir and everything under it (files, folders; symbolic links are
 * removed, not followed). Best effort: what cannot be removed stays. */
void pmcfi_rm_tree(const char *dir);
#endif
