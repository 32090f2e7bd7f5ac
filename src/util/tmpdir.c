/* Temporary folders of the library (report's gnuplot folder, llvm-mca's
 * scratch, the collector's record folder) and the tree removal of all of
 * them and of the command's staging folders. */
#include "util/tmpdir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/internal.h"

int pmcfi_tmpdir_new(const char *base, const char *prefix, char **out)
{
	*out = NULL;
	if (!base || !*base)
		base = getenv("TMPDIR");
	if (!base || !*base)
		base = "/tmp";
	size_t n = strlen(base) + strlen(prefix) + 8;
	char *dir = malloc(n);
	if (!dir)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	snprintf(dir, n, "%s/%sXXXXXX", base, prefix);
	if (!mkdtemp(dir)) {
		int e = errno;
		free(dir);
		return pmcfi_fail(-e, "cannot create a temporary folder in '%s': %s", base, strerror(e));
	}
	*out = dir;
	return 0;
}
