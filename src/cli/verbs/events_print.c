/* `pmcfuse events`'s printing: the catalogue as a table (after the
 * machine's header) or as JSON, and the line of a set that fits. */
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/output.h"
#include "cli/verbs/events.h"

void events_print_json(const pmcf_catalog *c, const char *source, int only_avail)
{
	printf("[");
	int first = 1;
	for (size_t i = 0; i < pmcf_catalog_size(c); i++) {
		const pmcf_event_info *e = pmcf_catalog_at(c, i);
		if ((source && strcmp(e->source, source) != 0) || (only_avail && e->available != 1))
			continue;
		printf("%s\n  {\"name\": ", first ? "" : ",");
		first = 0;
		cli_json_string(stdout, e->name);
		printf(", \"source\": ");
		cli_json_string(stdout, e->source);
		if (e->pmu) {
			printf(", \"pmu\": ");
			cli_json_string(stdout, e->pmu);
		}
		printf(", \"available\": %s", e->available == 1   ? "true"
					      : e->available == 0 ? "false"
								  : "null");
		printf(", \"cost\": %u, \"description\": ", e->cost);
		cli_json_string(stdout, e->description);
		if (e->constraints) {
			json_t *j = json_loads(e->constraints, 0, NULL);
			char *txt = j ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
			if (txt)
				printf(", \"constraints\": %s", txt);
			free(txt);
			json_decref(j);
		}
		printf("}");
	}
	printf("%s]\n", first ? "" : "\n");
}

void events_print_header(void)
{
	pmcf_host_info h = {.size = sizeof(h)};
	if (pmcf_host_describe(&h) != 0)
		return;
	printf("CPU            %s (%u CPUs)\n", h.cpu[0] ? h.cpu : "unknown", h.ncpus);
	printf("Virtual        %s%s%s%s\n",
	       h.virtual_machine == 1   ? "yes"
	       : h.virtual_machine == 0 ? "no"
					: "unknown",
	       h.hypervisor[0] ? " (" : "", h.hypervisor, h.hypervisor[0] ? ")" : "");
	if (h.npmus == 0)
		printf("Core PMU       none detected by libpfm4\n");
	for (size_t i = 0; i < h.npmus; i++)
		printf("Core PMU       %s (%s): %d general counters, %d fixed\n", h.pmus[i].name,
		       h.pmus[i].desc, h.pmus[i].general, h.pmus[i].fixed);
	if (h.hw_counting)
		printf("Hardware       generic hardware events open\n");
	else
		printf("Hardware       not countable: %s\n", h.hw_why);
	printf("Kernel PMUs    %s\n", h.kernel_pmus[0] ? h.kernel_pmus : "none");
	char par[32];
	if (h.paranoid == INT_MIN)
		snprintf(par, sizeof(par), "unreadable");
	else
		snprintf(par, sizeof(par), "%d", h.paranoid);
	printf("Paranoid       kernel.perf_event_paranoid = %s; %s%s\n", par,
	       h.root ? "running as root, " : "",
	       h.kernel_allowed ? "kernel-mode counting allowed"
				: "user space only (kernel events need <= 1 or CAP_PERFMON)");
	printf("tracefs        %s\n", h.tracefs);
	printf("rdpmc          %s: %s\n", h.rdpmc ? "yes" : "no", h.rdpmc_why);
	printf("\n");
}

/* A JSON array of numbers or strings as "a, b, c" (numbers as integers). */
/* "SEP TITLE a, b, c" for the non-empty array j[key]; *sep becomes "; " */
static void print_list(const json_t *j, const char *key, const char *title, const char **sep)
{
	const json_t *a = json_object_get(j, key);
	if (!json_is_array(a) || !json_array_size(a))
		return;
	printf("%s%s", *sep, title);
	size_t k;
	json_t *v;
	json_array_foreach(a, k, v)
	{
		if (json_is_string(v))
			printf("%s%s", k ? ", " : "", json_string_value(v));
		else
			printf("%s%lld", k ? ", " : "", (long long)json_number_value(v));
	}
	*sep = "; ";
}

/* An event's constraints (the catalogue's JSON) for people, after its
 * description: "(not available: why)", or "(fixed counter 1; native X)",
 * "(counters 0, 1, 2, 3; cost 1; native X; conflicts with Y)"; other keys
 * as "key value". --json keeps the JSON. */
static void print_constraints(const char *text)
{
	json_t *j = json_loads(text, 0, NULL);
	if (!json_is_object(j)) {
		printf(" %s", text);
		json_decref(j);
		return;
	}
	const char *sep = " (";
	json_t *why = json_object_get(j, "unavailable");
	if (json_is_string(why))
		printf("%snot available: %s", sep, json_string_value(why)), sep = "; ";
	if (json_is_true(json_object_get(j, "fixed"))) {
		json_t *fc = json_object_get(j, "fixed_counter");
		if (json_is_integer(fc))
			printf("%sfixed counter %lld", sep, (long long)json_integer_value(fc));
		else
			printf("%sa fixed counter", sep);
		sep = "; ";
	}
	print_list(j, "counters", "counters ", &sep);
	json_t *cost = json_object_get(j, "cost");
	if (json_is_number(cost) && json_number_value(cost) != 0)
		printf("%scost %g", sep, json_number_value(cost)), sep = "; ";
	print_list(j, "native", "native ", &sep);
	print_list(j, "conflicts", "conflicts with ", &sep);
	/* anything else, as it is */
	const char *key;
	json_t *v;
	json_object_foreach(j, key, v)
	{
		static const char *const known[] = {"unavailable", "fixed",  "fixed_counter", "counters",
						    "cost",        "native", "conflicts"};
		int skip = 0;
		for (size_t k = 0; k < sizeof(known) / sizeof(known[0]) && !skip; k++)
			skip = strcmp(key, known[k]) == 0;
		if (skip)
			continue;
		char *txt = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		printf("%s%s %s", sep, key,
		       txt && json_is_string(v) ? json_string_value(v)
		       : txt                    ? txt
						: "?");
		free(txt);
		sep = "; ";
	}
	if (strcmp(sep, " (") != 0)
		printf(")");
	json_decref(j);
}

void events_print_text(const pmcf_catalog *c, const char *source, int only_avail)
{
	size_t w = 4, shown = 0, avail = 0;
	for (size_t i = 0; i < pmcf_catalog_size(c); i++) {
		size_t l = strlen(pmcf_catalog_at(c, i)->name);
		if (l > w && l < 48)
			w = l;
	}
	printf("%-*s  %-10s  %-9s  %s\n", (int)w, "NAME", "SOURCE", "AVAILABLE", "DESCRIPTION");
	for (size_t i = 0; i < pmcf_catalog_size(c); i++) {
		const pmcf_event_info *e = pmcf_catalog_at(c, i);
		if ((source && strcmp(e->source, source) != 0) || (only_avail && e->available != 1))
			continue;
		shown++;
		avail += e->available == 1;
		printf("%-*s  %-10s  %-9s  %s", (int)w, e->name, e->source,
		       e->available == 1   ? "yes"
		       : e->available == 0 ? "no"
					   : "unknown",
		       e->description);
		if (e->constraints)
			print_constraints(e->constraints);
		printf("\n");
	}
	printf("%zu events (%zu available) in catalogue '%s'\n", shown, avail, pmcf_catalog_name(c));
}

void events_print_fits(const pmcf_evlist *l)
{
	size_t n = pmcf_evlist_size(l), nu = 0;
	printf("fits: %zu event%s can be counted in one execution", n, n == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++)
		if (pmcf_evlist_user_only(l, i))
			printf("%s%s", nu++ ? ", " : "; in user space only (kernel mode not allowed): ",
			       pmcf_evlist_name(l, i));
	printf("\n");
}
