/* The identity of a source profile as a fused profile records it (the
 * `ident` of its source table): what the execution was, plus a content
 * digest, so that a different file later found at the source path is told
 * apart (truth, and anything else that reopens sources). */
#ifndef PMCF_PROFILE_IDENT_H
#define PMCF_PROFILE_IDENT_H
#include "pmcfuse/profile.h"

/* "<sim_spec or start_time> digest:<32 hex digits>" for p, in a new string
 * (free it); NULL when out of memory. The digest (128 bits, not
 * cryptographic) covers metadata, types, events, XUs, values and truth. */
char *pmcfi_profile_ident(const pmcf_profile *p);
/* 0 when src is the profile ident names; PMCF_ECONFLICT otherwise, with the
 * detail saying what differs. An ident without a digest (profiles fused
 * before digests) is checked on its sim_spec or start_time alone. */
int pmcfi_profile_ident_check(const pmcf_profile *src, const char *ident);
#endif
