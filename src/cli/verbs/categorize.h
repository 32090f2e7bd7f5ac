/* `pmcfuse categorize`: its report writers (categorize_out.c). */
#ifndef PMCF_CLI_CATEGORIZE_H
#define PMCF_CLI_CATEGORIZE_H
#include <stdio.h>
#include "pmcfuse/categorize.h"

void cli_categorize_write_csv(FILE *f, const pmcf_categorize_report *r);
void cli_categorize_write_json(FILE *f, const pmcf_categorize_report *r);
/* Writes plots.gp and its data into dir and runs gnuplot; an exit status. */
int cli_categorize_plot(const char *dir, const pmcf_categorize_report *r);
#endif
