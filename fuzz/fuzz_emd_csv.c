/* libFuzzer harness: the EMD CSV reader of `pmcfuse emd` (src/cli/emd.c),
 * driven through the verb itself against a fixed three-point file. */
#include "fuzz_common.h"
#include "cli/cli.h"

int cli_verbose; /* defined by src/cli/main.c in the command */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char fixed[256];
	if (!fixed[0]) {
		const char *dir = getenv("TMPDIR");
		snprintf(fixed, sizeof(fixed), "%s/pmcf-fuzz-%d-b.csv", dir && *dir ? dir : "/tmp",
			 (int)getpid());
		FILE *f = fopen(fixed, "w");
		if (!f)
			abort();
		fputs("weight,x,y\n1,0,0\n2,1,1\n0.5,-3,2.5\n", f);
		fclose(f);
		/* the verb prints its result (errors go to stderr: run with -close_fd_mask=2) */
		if (!freopen("/dev/null", "w", stdout))
			abort();
	}
	const char *path = fuzz_file(data, size, ".csv");
	char *argv[] = {"emd", "--json", (char *)path, fixed, NULL};
	int st = cmd_emd(4, argv);
	if (st != CLI_OK && st != CLI_EUSAGE && st != CLI_EENV)
		abort();
	unlink(path);
	return 0;
}
