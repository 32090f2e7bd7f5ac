/* `pmcfuse correrr`: Correlation Error of a profile against the reference
 * profiles of a folder (fuse-task-parallel §4.4): Spearman coefficients of
 * every event pair, area between the CDF of their differences and the ideal. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include "cli/cli.h"
#include "cli/output.h"
#include "cli/refdir.h"
#include "pmcfuse/evaluate.h"

static const char usage[] =
	"usage: pmcfuse correrr [--json] [--force] [--top N] [-v] [-q] TARGET... REFDIR\n\n"
	"Correlation Error (Mytkowicz et al.) of the profile TARGET against the reference\n"
	"profiles in REFDIR: the Spearman coefficient of every pair of events in TARGET\n"
	"against the median over the references that monitored the pair; the value is\n"
	"the area between the CDF of the differences and the ideal CDF, from 0 (same\n"
	"correlations) to 2. See docs/accuracy.md. The summary is followed by the pairs\n"
	"whose correlation is furthest from the references' (largest |TARGET - REF|).\n"
	"Several TARGETs share the references' coefficients, computed once; the\n"
	"report of each follows a line naming it, --json prints a list of the objects,\n"
	"each with its \"target\". Every TARGET must be of the run of the first.\n\n"
	"  --force  use references of another program run, or identical copies\n"
	"  --top N  list the N pairs furthest from the references (default 10)\n"
	"  -v       list every pair\n"
	"  -q       print nothing (errors only)\n"
	"  --json   {\"correrr\": x, \"pairs\": [{\"events\", \"target\", \"reference\"}, ...]}\n";

static const void *pair_at(const void *r, size_t k) { return pmcf_correrr_pair_at(r, k); }

static int by_diff_desc(const void *a, const void *b)
{
	const pmcf_correrr_pair *x = *(const pmcf_correrr_pair *const *)a,
				*y = *(const pmcf_correrr_pair *const *)b;
	double dx = fabs(x->target - x->reference), dy = fabs(y->target - y->reference);
	if (dx != dy)
		return dx < dy ? 1 : -1;
	int c = strcmp(x->a, y->a);
	return c ? c : strcmp(x->b, y->b);
}

/* Prints one target's result (name: its path when there are several, NULL
 * otherwise: the JSON object then ends the line); returns the status. */
static int print_result(const pmcf_correrr_result *r, size_t nrefs, int json, unsigned long top,
			const char *name)
{
	int st = CLI_OK;
	{
		size_t n = pmcf_correrr_npairs(r);
		if (json) {
			json_t *j = json_object(), *pairs = json_array();
			if (name)
				json_object_set_new(j, "target", cli_jstr(name));
			json_object_set_new(j, "correrr", cli_jnum(pmcf_correrr_value(r)));
			json_object_set_new(j, "references", json_integer((json_int_t)nrefs));
			for (size_t k = 0; k < n; k++) {
				const pmcf_correrr_pair *p = pmcf_correrr_pair_at(r, k);
				json_array_append_new(pairs, json_pack("{s:[o, o], s:o, s:o, s:I}", "events",
								       cli_jstr(p->a), cli_jstr(p->b),
								       "target", cli_jnum(p->target),
								       "reference", cli_jnum(p->reference),
								       "repeats", (json_int_t)p->repeats));
			}
			json_object_set_new(j, "pairs", pairs);
			/* one target: its own line; several: items of the list cmd_correrr opens */
			if ((name ? cli_json_put(stdout, j) : cli_json_dump(stdout, j, 0)) != 0 &&
			    !ferror(stdout))
				st = cli_error("correrr", CLI_EENV, "out of memory writing JSON");
		} else if (!cli_quiet) {
			printf("correlation error %.4g over %zu event pair%s (0 best, 2 worst; %zu reference "
			       "profiles)\n",
			       pmcf_correrr_value(r), n, n == 1 ? "" : "s", nrefs);
			size_t shown;
			const pmcf_correrr_pair **by =
				(const pmcf_correrr_pair **)cli_top("correrr", r, pair_at, n, by_diff_desc,
								    top, "furthest from the references",
								    &shown, &st);
			printf("%-32s %-32s %8s %8s\n", "EVENT A", "EVENT B", "TARGET", "REF");
			for (size_t k = 0; k < shown; k++)
				printf("%-32s %-32s %8.4f %8.4f\n", by[k]->a, by[k]->b, by[k]->target,
				       by[k]->reference);
			free(by);
		}
	}
	return st;
}

int cmd_correrr(int argc, char **argv)
{
	if (cli_wants_help(argc, argv, usage))
		return CLI_OK;
	int json = 0, force = 0;
	char **args = calloc((size_t)argc, sizeof(*args));
	int na = 0;
	if (!args)
		return cli_error("correrr", CLI_EENV, "out of memory");
	unsigned long top = 10;
	for (int i = 1, opts = 1; i < argc; i++) {
		if (opts && strcmp(argv[i], "--") == 0)
			opts = 0; /* what follows is a file, whatever its name */
		else if (opts && cli_output_arg(argv[i], &json))
			continue;
		else if (opts && strcmp(argv[i], "--top") == 0) {
			if (cli_parse_uint("correrr", "--top", i + 1 < argc ? argv[++i] : NULL, 1, 100000000,
					   &top))
				return CLI_EUSAGE;
		} else if (opts && strcmp(argv[i], "--json") == 0)
			json = 1;
		else if (opts && strcmp(argv[i], "--force") == 0)
			force = 1;
		else if (opts && argv[i][0] == '-' && argv[i][1]) {
			free(args);
			return cli_usage_error("correrr", "unknown option '%s'", argv[i]);
		} else
			args[na++] = argv[i];
	}
	if (na < 2) {
		free(args);
		return cli_usage_error("correrr", "needs TARGET and REFDIR");
	}
	size_t nt = (size_t)na - 1;
	pmcf_profile **targets = NULL, **refs = NULL;
	size_t nrefs = 0;
	int st = refdir_open_targets("correrr", args, nt, args[na - 1], force, &targets, &refs, &nrefs);
	pmcf_correrr_result **res = st == CLI_OK ? calloc(nt, sizeof(*res)) : NULL;
	if (st == CLI_OK && !res)
		st = cli_error("correrr", CLI_EENV, "out of memory");
	if (st == CLI_OK) {
		int err = pmcf_correrr_compute_many((const pmcf_profile *const *)targets, nt,
						    (const pmcf_profile *const *)refs, nrefs, res);
		if (err)
			st = cli_lib_error("correrr", err, "cannot compute the correlation error");
	}
	/* several targets: a JSON list of the objects, each with its "target";
	 * text: each target's report under a line naming it */
	if (st == CLI_OK && json && nt > 1)
		printf("[");
	for (size_t t = 0; t < nt && st == CLI_OK; t++) {
		const char *name = nt > 1 ? args[t] : NULL;
		if (name && json)
			printf("%s", t ? ",\n" : "");
		else if (name && !cli_quiet)
			printf("%s%s:\n", t ? "\n" : "", name);
		st = print_result(res[t], nrefs, json, top, name);
	}
	if (st == CLI_OK && json && nt > 1)
		printf("]\n");
	for (size_t t = 0; res && t < nt; t++)
		pmcf_correrr_result_free(res[t]);
	free(res);
	refdir_free(refs, nrefs);
	refdir_targets_free(targets, nt);
	free(args);
	return st;
}
