/* libFuzzer harness: callgrind output (pmcf_imix_from_callgrind). Object
 * names are paths the reader opens as ELF images; inputs that name any path
 * outside /nonexistent/ are skipped so that the fuzzer reads no real files. */
#include "fuzz_common.h"
#include "pmcfuse/hbbp.h"

static int names_real_file(const char *s)
{
	for (const char *line = s; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		const char *slash = strchr(line, '/'), *end = strchr(line, '\n');
		if (slash && (!end || slash < end) && strncmp(slash, "/nonexistent/", 13) != 0)
			return 1;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);
	if (!names_real_file(s)) {
		const char *path = fuzz_file((const uint8_t *)s, strlen(s), ".callgrind");
		pmcf_imix *m = NULL;
		if (pmcf_imix_from_callgrind(path, NULL, &m) == 0) {
			volatile double sink = 0;
			for (size_t i = 0; i < pmcf_imix_size(m); i++)
				sink += (double)(size_t)pmcf_imix_at(m, i);
			(void)pmcf_imix_stats_get(m);
			(void)sink;
			pmcf_imix_free(m);
		}
		unlink(path);
	}
	free(s);
	return 0;
}
