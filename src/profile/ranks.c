/* XUs per MPI rank (include/pmcfuse/profile.h). */
#include <stdlib.h>
#include "pmcfuse/profile.h"

size_t *pmcf_profile_rank_counts(const pmcf_profile *p, uint32_t *nranks)
{
	if (!pmcf_profile_has_ranks(p))
		return NULL;
	*nranks = pmcf_profile_nranks(p);
	size_t *cnt = calloc(*nranks, sizeof(*cnt));
	for (size_t i = 0; cnt && i < pmcf_profile_nxus(p); i++)
		cnt[pmcf_profile_rank(p, i)]++;
	return cnt;
}
