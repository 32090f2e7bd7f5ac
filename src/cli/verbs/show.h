/* `pmcfuse show`: what it knows of one profile (show.c computes it,
 * show_print.c prints it). */
#ifndef PMCF_CLI_SHOW_H
#define PMCF_CLI_SHOW_H
#include <stddef.h>
#include "pmcfuse/combine.h"
#include "pmcfuse/profile.h"

struct cli_show_evstat {
	size_t present, negative;
	double min, median, max, mean;
	int covered;                    /* a coverage layer exists for this event */
	double measured, time_measured; /* multiplexing: share of XUs / of time measured */
};

/* What show prints about one profile. */
struct cli_show_summary {
	const pmcf_profile *p;
	const char *path;
	size_t nx, ne, nt;
	size_t *type_count;         /* XUs per type */
	struct cli_show_evstat *es; /* per event */
	pmcf_match_summary ms;
};

/* show --json: one object on standard output; -1 when it cannot be built. */
int cli_show_json(const struct cli_show_summary *s);
/* The text form: head, types, ranks, events, layers, matching, consistency. */
void cli_show_text(const struct cli_show_summary *s);
#endif
