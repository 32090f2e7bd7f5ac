/* `pmcfuse export --format otf2`: a profile as an OTF2 trace archive
 * (src/cli/export_otf2.c; docs/guide.md, docs/man/pmcfuse-export.1). */
#ifndef PMCF_CLI_EXPORT_OTF2_H
#define PMCF_CLI_EXPORT_OTF2_H
#include "pmcfuse/profile.h"

/* Writes p as the OTF2 archive DIR/traces.otf2 (+ traces.def, traces/),
 * built in a temporary folder beside dir and renamed to dir when complete;
 * dir must not exist or be an empty folder. Prints errors (and a note on
 * events left out) and returns an exit status; CLI_EENV when pmcfuse was
 * built without OTF2. */
int export_otf2(const pmcf_profile *p, const char *dir);

#endif
