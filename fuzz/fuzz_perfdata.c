/* libFuzzer harness: the perf.data reader (pmcf_perfdata_open_buffer) and
 * every record it hands out. */
#include "fuzz_common.h"
#include "pmcfuse/hbbp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pmcf_perfdata *pd = NULL;
	if (pmcf_perfdata_open_buffer(data, size, &pd) == 0) {
		volatile size_t sink = 0;
		for (size_t i = 0; i < pmcf_perfdata_nattrs(pd); i++) {
			const pmcf_pd_attr *a = pmcf_perfdata_attr(pd, i);
			sink += strlen(a->name);
			for (size_t k = 0; k < a->nids; k++)
				sink += a->ids[k];
		}
		for (size_t i = 0; i < pmcf_perfdata_nsamples(pd); i++) {
			const pmcf_pd_sample *sm = pmcf_perfdata_sample(pd, i);
			for (uint64_t k = 0; k < sm->nbranches; k++)
				sink += sm->branches[k].from ^ sm->branches[k].to;
		}
		for (size_t i = 0; i < pmcf_perfdata_nmmaps(pd); i++)
			sink += strlen(pmcf_perfdata_mmap(pd, i)->filename);
		for (size_t i = 0; i < pmcf_perfdata_ncomms(pd); i++)
			sink += strlen(pmcf_perfdata_comm(pd, i)->comm);
		for (size_t i = 0; i < pmcf_perfdata_ntasks(pd); i++)
			sink += (size_t)pmcf_perfdata_task(pd, i);
		sink += (size_t)pmcf_perfdata_stats(pd);
		(void)sink;
		pmcf_perfdata_free(pd);
	}
	return 0;
}
