/* `pmcfuse epd`'s printing (epd_print.c), for epd.c. */
#ifndef PMCF_CLI_EPD_H
#define PMCF_CLI_EPD_H
#include <stddef.h>
#include "pmcfuse/evaluate.h"

/* Prints one target's result (name: its path when there are several, NULL
 * otherwise: the JSON object then ends the line); returns the status. */
int epd_print_result(const pmcf_epd_result *r, const pmcf_epd_opts *o, size_t nrefs, int json,
		     unsigned long top, const char *name);
#endif
