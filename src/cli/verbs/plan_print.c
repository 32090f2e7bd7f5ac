/* A plan printed: its sets for people (`plan`, `run`) and the summary of
 * `plan --json` (docs/schema/plan.schema.json). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/fuse.h"
#include "cli/output.h"
#include "cli/verbs/plan.h"
#include "x/x.h"

/* --link auto: how the links were chosen, and per set what they tell */
static void print_auto(FILE *f, const pmcf_plan *p, size_t k)
{
	const char *const *lk;
	size_t n;
	double bits, base;
	if (pmcf_plan_link_info(p, k, &lk, &n, &bits, &base))
		return;
	if (!k) {
		fprintf(f, "           first: linked to nothing\n");
		return;
	}
	fprintf(f, "           links");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? "," : " +", lk[i]);
	fprintf(f, "%s: %.2f bits about its new events (the plan's linking events alone: %.2f)\n",
		n ? "" : " (none)", bits, base);
}

void fuse_print_plan(FILE *f, const pmcf_plan *p)
{
	const char *const *ev;
	size_t nev, nl;
	pmcf_plan_events(p, &ev, &nev);
	const char *const *link;
	pmcf_plan_link(p, &link, &nl);
	fprintf(f, "%zu execution%s for %zu event%s, strategy %s, packing %s", pmcf_plan_nsets(p),
		pmcf_plan_nsets(p) == 1 ? "" : "s", nev, nev == 1 ? "" : "s",
		pmcf_strategy_name(pmcf_plan_strategy(p)), pmcf_packing_name(pmcf_plan_packing(p)));
	if (pmcf_plan_pmcs(p))
		fprintf(f, ", %u counter%s", pmcf_plan_pmcs(p), pmcf_plan_pmcs(p) == 1 ? "" : "s");
	fprintf(f, "\nlower bound %u execution%s%s\n", pmcf_plan_lower_bound(p),
		pmcf_plan_lower_bound(p) == 1 ? "" : "s",
		!pmcf_plan_optimal(p) ? ""
		: pmcf_plan_nsets(p) <= pmcf_plan_lower_bound(p)
			? " (this plan is minimal)"
			: " (this plan is minimal: an exact search found "
			  "none with fewer executions)");
	/* which counters the bound divided by, unless --pmcs said it above */
	unsigned bc;
	const char *from = pmcf_plan_bound_counters(p, &bc);
	if (from[0] && !pmcf_plan_pmcs(p)) {
		if (bc)
			fprintf(f, "the bound counts %u counter%s: %s\n", bc, bc == 1 ? "" : "s", from);
		else
			fprintf(f, "the bound's counters: %s\n", from);
	}
	if (nl) {
		fprintf(f, "linking events:");
		for (size_t i = 0; i < nl; i++)
			fprintf(f, " %s", link[i]);
		fprintf(f, "\n");
	}
	int exact;
	size_t npil;
	const char *how = pmcf_plan_link_method(p, &exact, &npil);
	if (how)
		fprintf(f,
			"--link auto: sets ordered and linked by %s (%s), mutual information "
			"from %zu profiles\n",
			how, exact ? "proven best" : "not proven best", npil);
	for (size_t k = 0; k < pmcf_plan_nsets(p); k++) {
		const char *const *names;
		size_t m;
		pmcf_plan_events_at(p, k, &names, &m);
		fprintf(f, "  set %zu:", k);
		for (size_t i = 0; i < m; i++)
			fprintf(f, "%s%s", i ? "," : " ", names[i]);
		fprintf(f, "\n");
		if (how)
			print_auto(f, p, k);
	}
}

/* fuse_print_plan as one JSON object */
void fuse_json_plan(FILE *f, const pmcf_plan *p, const char *out)
{
	const char *const *ev, *const *link;
	size_t nev, nl;
	pmcf_plan_events(p, &ev, &nev);
	pmcf_plan_link(p, &link, &nl);
	fprintf(f, "{\"output\": ");
	cli_json_string(f, out);
	fprintf(f,
		", \"executions\": %zu, \"events\": %zu, \"lower_bound\": %u, \"optimal\": %s, "
		"\"strategy\": \"%s\", \"packing\": \"%s\", \"pmcs\": %u, ",
		pmcf_plan_nsets(p), nev, pmcf_plan_lower_bound(p), pmcf_plan_optimal(p) ? "true" : "false",
		pmcf_strategy_name(pmcf_plan_strategy(p)), pmcf_packing_name(pmcf_plan_packing(p)),
		pmcf_plan_pmcs(p));
	unsigned bc;
	const char *from = pmcf_plan_bound_counters(p, &bc);
	fprintf(f, "\"lower_bound_counters\": %u, \"lower_bound_counters_from\": ", bc);
	cli_json_string(f, from);
	fprintf(f, ", \"link\": [");
	for (size_t i = 0; i < nl; i++) {
		fprintf(f, "%s", i ? ", " : "");
		cli_json_string(f, link[i]);
	}
	fprintf(f, "], \"sets\": [");
	for (size_t k = 0; k < pmcf_plan_nsets(p); k++) {
		const char *const *names;
		size_t m;
		pmcf_plan_events_at(p, k, &names, &m);
		fprintf(f, "%s[", k ? ", " : "");
		for (size_t i = 0; i < m; i++) {
			fprintf(f, "%s", i ? ", " : "");
			cli_json_string(f, names[i]);
		}
		fprintf(f, "]");
	}
	fprintf(f, "]");
	int exact;
	size_t npil;
	const char *how = pmcf_plan_link_method(p, &exact, &npil);
	if (how) {
		fprintf(f,
			", \"link_auto\": {\"method\": \"%s\", \"exact\": %s, \"pilots\": %zu, "
			"\"sets\": [",
			how, exact ? "true" : "false", npil);
		for (size_t k = 0; k < pmcf_plan_nsets(p); k++) {
			const char *const *lk;
			size_t n;
			double bits, base;
			pmcf_plan_link_info(p, k, &lk, &n, &bits, &base);
			fprintf(f, "%s{\"link\": [", k ? ", " : "");
			for (size_t i = 0; i < n; i++) {
				fprintf(f, "%s", i ? ", " : "");
				cli_json_string(f, lk[i]);
			}
			fprintf(f, "], \"bits\": %.6g, \"base_bits\": %.6g}", bits, base);
		}
		fprintf(f, "]}");
	}
	fprintf(f, "}\n");
}
