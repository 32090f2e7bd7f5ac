/* Temporary folders: made once (mkdtemp under $TMPDIR) and removed once
 * (the whole tree), for every module that needs scratch files. Not
 * exported. */
#ifndef PMCF_UTIL_TMPDIR_H
#define PMCF_UTIL_TMPDIR_H
#include "x/x.h"

/* Makes a new folder base/prefixXXXXXX (mode 0700, mkdtemp) and sets *out
 * to its path (free it). base NULL or "": $TMPDIR, else /tmp. Returns 0,
 * PMCF_ENOMEM, or -errno with the detail "cannot create a temporary folder
 * in 'BASE': reason". */
int pmcfi_tmpdir_new(const char *base, const char *prefix, char **out);
/* pmcfi_rm_tree is in x/x.h. */
#endif
