/* Advice on a bc-family pairing that disagrees with shared labels
 * (pmcf_combine_label_advice, pmcfuse/combine.h). */
#include <stdio.h>
#include "pmcfuse/combine.h"
#include "pmcfuse/profile.h"
#include "util/abi.h"
#include "util/internal.h"

int pmcf_combine_label_advice(const pmcf_profile *fused, const pmcf_combine_stats *st, int strategy,
			      char *buf, size_t len)
{
	pmcfi_clear_error();
	if (!fused || !st || !buf || !len)
		return pmcfi_fail(PMCF_EINVAL, "pmcf_combine_label_advice: NULL argument");
	int err = pmcfi_check_struct("pmcf_combine_stats", st, st->size, sizeof(*st), sizeof(*st));
	if (err)
		return err;
	buf[0] = '\0';
	if (!pmcf_strategy_ordered(strategy) || pmcf_profile_meta_get(fused, PMCF_META_SIM_SPEC) ||
	    st->bc_label_pairs < 20 || st->bc_label_differ * 10 < st->bc_label_pairs ||
	    st->bc_label_common * 10 < st->bc_labelled * 9)
		return 0;
	snprintf(buf, len,
		 "%s paired XUs of different labels in %zu of %zu pairs (%.0f %%), although %.0f %% of the "
		 "labels are in every input: if the runs repeat the same tasks, lgl (--strategy lgl) "
		 "pairs them by label",
		 pmcf_strategy_name(strategy), st->bc_label_differ, st->bc_label_pairs,
		 100.0 * (double)st->bc_label_differ / (double)st->bc_label_pairs,
		 100.0 * (double)st->bc_label_common / (double)st->bc_labelled);
	return 1;
}
