/* `pmcfuse events`'s printing (events_print.c), for events.c. */
#ifndef PMCF_CLI_EVENTS_H
#define PMCF_CLI_EVENTS_H
#include "pmcfuse/events.h"

/* The events of catalogue c (of one source when source is not NULL, only
 * the available ones with only_avail) as a JSON array on stdout: name,
 * source, pmu, available, cost, description, constraints. */
void events_print_json(const pmcf_catalog *c, const char *source, int only_avail);
/* The machine first, as papi_avail does: what can count here, and why not. */
void events_print_header(void);
/* The same as text: one event a line, then the counts. */
void events_print_text(const pmcf_catalog *c, const char *source, int only_avail);
/* "fits: ...", naming the events counted in user space only when this
 * process may not count kernel mode. */
void events_print_fits(const pmcf_evlist *l);
#endif
