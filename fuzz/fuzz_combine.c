/* libFuzzer harness: combine (every strategy) on two profiles. The input is
 * a 4-byte little-endian length n, the first profile's n bytes, then the
 * second profile; both are opened with pmcf_profile_open and, where that
 * accepts them, fused with --partial and --force (so that the checks of a
 * plan and of the program run do not stop the pairing), one thread. */
#include "fuzz_common.h"
#include "pmcfuse/combine.h"
#include "pmcfuse/profile.h"

static pmcf_profile *open_part(const uint8_t *data, size_t size, const char *suffix)
{
	const char *path = fuzz_file(data, size, suffix);
	pmcf_profile *p = NULL;
	if (pmcf_profile_open(path, &p) != 0)
		p = NULL;
	unlink(path);
	return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 4)
		return 0;
	size_t n = (size_t)data[0] | (size_t)data[1] << 8 | (size_t)data[2] << 16 | (size_t)data[3] << 24;
	if (n > size - 4)
		return 0;
	pmcf_profile *in[2] = {open_part(data + 4, n, "-a.pmcf"),
			       open_part(data + 4 + n, size - 4 - n, "-b.pmcf")};
	if (in[0] && in[1]) {
		for (int s = PMCF_COMBINE_CTC; s <= PMCF_COMBINE_BC_LGL; s++) {
			pmcf_combine_opts o = PMCF_COMBINE_OPTS_INIT;
			o.strategy = s;
			o.force = 1;
			o.partial = 1;
			o.threads = 1;
			pmcf_profile *out = NULL;
			if (pmcf_combine((const pmcf_profile *const *)in, 2, &o, &out, NULL) == 0)
				pmcf_profile_free(out);
		}
	}
	pmcf_profile_free(in[0]);
	pmcf_profile_free(in[1]);
	return 0;
}
