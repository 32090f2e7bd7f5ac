/* libFuzzer harness: the profile store (pmcf_profile_open) on arbitrary
 * files, then every accessor on what it accepted. */
#include <math.h>
#include "fuzz_common.h"
#include "pmcfuse/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size, ".pmcf");
	pmcf_profile *p = NULL;
	if (pmcf_profile_open(path, &p) == 0) {
		volatile double sink = 0;
		for (size_t i = 0; i < pmcf_profile_meta_count(p); i++) {
			const char *k, *v;
			if (pmcf_profile_meta_at(p, i, &k, &v) == 0)
				sink += strlen(k) + strlen(v);
		}
		for (uint32_t t = 0; t < pmcf_profile_ntypes(p); t++) {
			pmcf_xu_type ty = PMCF_XU_TYPE_INIT;
			(void)pmcf_profile_type_get(p, t, &ty);
		}
		size_t ne = pmcf_profile_nevents(p), nx = pmcf_profile_nxus(p);
		for (size_t e = 0; e < ne; e++)
			sink += strlen(pmcf_profile_event_name(p, e));
		for (size_t i = 0; i < nx; i++) {
			pmcf_xu xu = PMCF_XU_INIT;
			(void)pmcf_profile_xu_get(p, i, &xu);
			for (size_t e = 0; e < ne; e++) {
				double v = pmcf_profile_value(p, i, e);
				if (!isnan(v))
					sink += v;
			}
		}
		for (size_t t = 0; t < pmcf_profile_ntruth(p); t++)
			(void)pmcf_profile_truth_column_const(p, t);
		(void)pmcf_profile_complete(p);
		(void)sink;
		pmcf_profile_free(p);
	}
	unlink(path);
	return 0;
}
