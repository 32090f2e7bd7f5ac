/* libFuzzer harness: the EMD point-file reader (pmcf_emd_read_csv, the one
 * `pmcfuse emd` uses), then the EMD of what it read against a fixed
 * three-point set. */
#include <math.h>
#include "fuzz_common.h"
#include "pmcfuse/evaluate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size, ".csv");
	double *w = NULL, *x = NULL;
	size_t n = 0;
	int err = pmcf_emd_read_csv(path, &w, &x, &n);
	if (err != 0 && err != PMCF_ESYNTAX && err != PMCF_ENOMEM)
		abort();
	if (!err) {
		static const double wb[3] = {1.0 / 3, 1.0 / 3, 1.0 / 3}, xb[6] = {0, 0, 1, 1, -3, 2.5};
		double d = 0;
		int e = pmcf_emd(NULL, 2, w, x, n, wb, xb, 3, &d);
		if (e == 0 && !(isfinite(d) && d >= 0))
			abort();
		if (e != 0 && e != PMCF_EINVAL && e != PMCF_ENOMEM)
			abort();
	}
	free(w);
	free(x);
	unlink(path);
	return 0;
}
