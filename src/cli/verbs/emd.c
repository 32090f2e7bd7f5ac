/* `pmcfuse emd`: the exact earth mover's distance between two weighted 2-D
 * point sets read from CSV files of weight,x,y rows (fuse-task-parallel §4.2,
 * read by pmcf_emd_read_csv); the weights of each file are normalised to sum
 * 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/output.h"
#include "pmcfuse/evaluate.h"

static const char usage[] =
	"usage: pmcfuse emd [--json] [-q] A.csv B.csv\n\n"
	"Exact earth mover's distance between two weighted point sets in the plane with\n"
	"Euclidean ground distance. Each file holds rows 'weight,x,y' (a first row with\n"
	"no number in it is a header; blank lines and lines starting with # are skipped;\n"
	"lines may be of any length, a file at most 256 MiB); the weights of each file\n"
	"are normalised to sum 1, so the distance is the least work to move one unit of\n"
	"mass.\n\n"
	"  --json   print {\"emd\": value}\n"
	"  -q       print nothing (errors only)\n";

/* One file's points (pmcf_emd_read_csv); errors reported. */
static int read_points(const char *path, double **w, double **x, size_t *n)
{
	int err = pmcf_emd_read_csv(path, w, x, n);
	return err ? cli_lib_error("emd", err, path) : CLI_OK;
}

int cmd_emd(int argc, char **argv)
{
	if (cli_wants_help(argc, argv, usage))
		return CLI_OK;
	int json = 0;
	const char *files[2];
	int nf = 0;
	for (int i = 1, opts = 1; i < argc; i++) {
		if (opts && strcmp(argv[i], "--") == 0)
			opts = 0; /* what follows is a file, whatever its name */
		else if (opts && cli_output_arg(argv[i], &json))
			continue;
		else if (opts && argv[i][0] == '-' && argv[i][1])
			return cli_usage_error("emd", "unknown option '%s'", argv[i]);
		else if (nf < 2)
			files[nf++] = argv[i];
		else
			return cli_usage_error("emd", "unexpected argument '%s'", argv[i]);
	}
	if (nf != 2)
		return cli_usage_error("emd", "needs two CSV files A.csv B.csv");
	double *wa = NULL, *xa = NULL, *wb = NULL, *xb = NULL;
	size_t na = 0, nb = 0;
	int st = read_points(files[0], &wa, &xa, &na);
	if (st == CLI_OK)
		st = read_points(files[1], &wb, &xb, &nb);
	double v = 0;
	if (st == CLI_OK) {
		int err = pmcf_emd(NULL, 2, wa, xa, na, wb, xb, nb, &v);
		if (err)
			st = cli_lib_error("emd", err, "cannot compute the EMD");
	}
	if (st == CLI_OK) {
		if (json) {
			if (cli_json_dump(stdout, json_pack("{s:o}", "emd", cli_jnum(v)), 0) != 0 &&
			    !ferror(stdout))
				st = cli_error("emd", CLI_EENV, "out of memory writing JSON");
		} else if (!cli_quiet) {
			printf("%.17g\n", v);
		}
	}
	free(wa);
	free(xa);
	free(wb);
	free(xb);
	return st;
}
