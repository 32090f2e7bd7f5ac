/* `pmcfuse categorize`'s events: -e, else the perf catalogue's generic
 * hardware events or cachegrind's all, without the duration. */
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "pmcfuse/categorize.h"
#include "cli/verbs/categorize.h"

static const char verb[] = "categorize";

/* perf's default: the generic events (the native ones of a PMU are many;
 * ask for them with -e all or a list). */
static char *perf_default_events(const pmcf_catalog *c)
{
	size_t len = 1;
	for (size_t i = 0; i < pmcf_catalog_size(c); i++) {
		const pmcf_event_info *e = pmcf_catalog_at(c, i);
		if (strcmp(e->source, PMCF_SRC_HARDWARE) == 0 || strcmp(e->source, PMCF_SRC_HWCACHE) == 0)
			len += strlen(e->name) + 1;
	}
	char *s = calloc(len, 1);
	if (!s)
		return NULL;
	for (size_t i = 0; i < pmcf_catalog_size(c); i++) {
		const pmcf_event_info *e = pmcf_catalog_at(c, i);
		if (strcmp(e->source, PMCF_SRC_HARDWARE) == 0 || strcmp(e->source, PMCF_SRC_HWCACHE) == 0) {
			if (*s)
				strcat(s, ",");
			strcat(s, e->name);
		}
	}
	return s;
}

int cli_categorize_event_names(const char *backend, const char *events, pmcf_catalog **catp,
			       pmcf_evlist **elp, const char ***namesp, size_t *np)
{
	pmcf_catalog *cat;
	int err = pmcf_categorize_catalog(backend, &cat);
	if (err)
		return cli_lib_error(verb, err, "event catalogue");
	char *defaults = NULL;
	if (!events) {
		if (strcmp(backend, PMCF_CATEGORIZE_PERF) == 0) {
			defaults = perf_default_events(cat);
			if (!defaults || !*defaults) {
				free(defaults);
				pmcf_catalog_free(cat);
				return cli_error(verb, CLI_EENV,
						 "no hardware events in the perf "
						 "catalogue: use --backend cachegrind");
			}
			events = defaults;
		} else {
			events = "all";
		}
	}
	pmcf_evlist *el;
	err = pmcf_evlist_parse(cat, events, &el);
	free(defaults);
	if (err) {
		pmcf_catalog_free(cat);
		return cli_lib_error(verb, err, "events");
	}
	/* duration is a pseudo-event of every catalogue, not something to count */
	size_t n = 0;
	const char **names = calloc(pmcf_evlist_size(el) + 1, sizeof(*names));
	if (!names) {
		pmcf_evlist_free(el);
		pmcf_catalog_free(cat);
		return cli_error(verb, CLI_EENV, "out of memory");
	}
	for (size_t i = 0; i < pmcf_evlist_size(el); i++)
		if (strcmp(pmcf_evlist_name(el, i), PMCF_EVENT_DURATION) != 0)
			names[n++] = pmcf_evlist_name(el, i);
	if (!n) {
		free(names);
		pmcf_evlist_free(el);
		pmcf_catalog_free(cat);
		return cli_usage_error(verb, "no countable event in '%s'", events);
	}
	*catp = cat, *elp = el, *namesp = names, *np = n;
	return CLI_OK;
}
