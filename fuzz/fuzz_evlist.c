/* libFuzzer harness: event lists (pmcf_evlist_parse) against the simulated
 * Xeon's catalogue and the perf catalogue. '@FILE' lists are left out (they
 * would read arbitrary files). */
#include "fuzz_common.h"
#include "pmcfuse/events.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static pmcf_catalog *cats[2];
	static int ncats = -1;
	if (ncats < 0) {
		ncats = 0;
		if (pmcf_catalog_sim("cholesky", &cats[ncats]) == 0)
			ncats++;
		if (pmcf_catalog_perf(0, &cats[ncats]) == 0)
			ncats++;
		if (!ncats)
			abort();
	}
	if (size < 1)
		return 0;
	char *s = fuzz_cstr(data + 1, size - 1);
	if (s[0] != '@') {
		pmcf_evlist *l = NULL;
		if (pmcf_evlist_parse(cats[data[0] % ncats], s, &l) == 0) {
			for (size_t i = 0; i < pmcf_evlist_size(l); i++)
				if (!pmcf_evlist_name(l, i) ||
				    pmcf_evlist_group(l, i) != pmcf_evlist_groups(l)[i])
					abort();
			pmcf_evlist_free(l);
		}
	}
	free(s);
	return 0;
}
