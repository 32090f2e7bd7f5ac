/* `pmcfuse imix`: shared by its sub-command files (imix.c, imix_common.c,
 * imix_report.c, imix_compare.c). */
#ifndef PMCF_CLI_IMIX_H
#define PMCF_CLI_IMIX_H
#include <stdio.h>
#include <jansson.h>
#include "pmcfuse/hbbp.h"

/* ---- loading mixes ------------------------------------------------------------ */

/* A mix, or a table from a CSV (allow_csv), with its rows by mnemonic. */
struct cli_imix_src {
	pmcf_imix_input *in;
	const pmcf_imix *mix;      /* NULL for a CSV */
	const pmcf_imix_row *rows; /* by mnemonic, or pivot */
	size_t nrows;
	pmcf_imix_row *pivot; /* by another key (report --by) */
	const char *kind;     /* "perf", "callgrind", "csv" */
};

int cli_imix_load(const char *path, const pmcf_imix_opts *o, int allow_csv, struct cli_imix_src *s);
void cli_imix_src_free(struct cli_imix_src *s);
/* v as JSON: null when NaN, "inf"/"-inf" when infinite, else a real */
json_t *cli_imix_jnum(double v);
/* One line naming the option getopt did not take; the usage status. */
int cli_imix_bad_option(const char *sub, char **argv);
const char *cli_imix_method_name(int m);
const char *cli_imix_correction_name(int c);
void cli_imix_print_correction(FILE *f, const pmcf_imix_stats *st, const pmcf_imix_opts *o);
/* Options of report, compare and train into *o, and --top N (report,
 * compare) into *top (NULL: train, which has no --top); -1 for one that is
 * none of them. */
int cli_imix_common_opt(int opt, const char *arg, pmcf_imix_opts *o, unsigned long *top);

int cli_imix_report(int argc, char **argv);
int cli_imix_compare(int argc, char **argv);
int cli_imix_train(int argc, char **argv);
#endif
