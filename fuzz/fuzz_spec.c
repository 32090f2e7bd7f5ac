/* libFuzzer harness: SPEC strings of simulated workloads (pmcf_sim_spec_parse);
 * an accepted spec's canonical form must parse to itself. */
#include "fuzz_common.h"
#include "pmcfuse/sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);
	pmcf_sim_spec *sp = NULL;
	if (pmcf_sim_spec_parse(s, &sp) == 0) {
		const char *c = pmcf_sim_spec_canonical(sp);
		pmcf_sim_spec *again = NULL;
		if (!c || pmcf_sim_spec_parse(c, &again) != 0 ||
		    strcmp(c, pmcf_sim_spec_canonical(again)) != 0)
			abort();
		pmcf_sim_spec_free(again);
		pmcf_sim_spec_free(sp);
	}
	free(s);
	return 0;
}
