/* The table of simulated workloads: one descriptor each (sim_impl.h,
 * SIM_WORKLOADS), defined beside its builder. Spec parsing, the builders
 * and the public listing all read this one table. */
#include "sim/sim_impl.h"
#include "pmcfuse/sim.h"
#include "util/abi.h"
#include "util/internal.h"

const struct pmcfi_sim_workload_def *const pmcfi_sim_workloads[] = {
#define SIM_WORKLOAD_ROW(name) &pmcfi_sim_wl_##name,
	SIM_WORKLOADS(SIM_WORKLOAD_ROW)
#undef SIM_WORKLOAD_ROW
};
const size_t pmcfi_sim_nworkloads = PMCF_ARRAY_SIZE(pmcfi_sim_workloads);

int pmcf_sim_workload_info_get(size_t i, pmcf_sim_workload_info *info)
{
	pmcfi_clear_error();
	if (!info)
		return pmcfi_fail(PMCF_EINVAL, "pmcf_sim_workload_info_get: NULL info");
	if (i >= pmcfi_sim_nworkloads)
		return PMCF_ENOENT;
	pmcf_sim_workload_info wi = {sizeof(wi), pmcfi_sim_workloads[i]->name, pmcfi_sim_workloads[i]->help};
	return pmcfi_struct_out("pmcf_sim_workload_info", info, &wi, sizeof(wi), sizeof(wi));
}
