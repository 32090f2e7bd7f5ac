/* `pmcfuse categorize`: its events (categorize_events.c) and its report
 * writers (categorize_out.c). */
#ifndef PMCF_CLI_CATEGORIZE_H
#define PMCF_CLI_CATEGORIZE_H
#include <stdio.h>
#include "pmcfuse/categorize.h"

/* The events to categorise (events: -e; NULL: the perf catalogue's
 * hardware events or cachegrind's all), without duration: *namesp (*np of
 * them, malloc'ed) point into *elp, of the catalogue *catp; the caller frees
 * all three. CLI_OK, or an error (printed; nothing to free). */
int cli_categorize_event_names(const char *backend, const char *events, pmcf_catalog **catp,
			       pmcf_evlist **elp, const char ***namesp, size_t *np);
void cli_categorize_write_csv(FILE *f, const pmcf_categorize_report *r);
void cli_categorize_write_json(FILE *f, const pmcf_categorize_report *r);
/* Writes plots.gp and its data into dir and runs gnuplot; an exit status. */
int cli_categorize_plot(const char *dir, const pmcf_categorize_report *r);
#endif
