/* libFuzzer harness: plan.json (pmcf_plan_from_json); an accepted plan is
 * written back and read again. */
#include "fuzz_common.h"
#include "pmcfuse/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);
	pmcf_plan *p = NULL;
	if (pmcf_plan_from_json(s, &p) == 0) {
		for (size_t k = 0; k < pmcf_plan_nsets(p); k++) {
			const char *const *names;
			size_t n;
			(void)pmcf_plan_events_at(p, k, &names, &n);
		}
		char *text = NULL;
		if (pmcf_plan_to_json(p, &text) == 0) {
			pmcf_plan *q = NULL;
			if (pmcf_plan_from_json(text, &q) != 0)
				abort(); /* what we write we must read */
			pmcf_plan_free(q);
			free(text);
		}
		pmcf_plan_free(p);
	}
	free(s);
	return 0;
}
