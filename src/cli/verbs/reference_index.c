/* The reference folder's index (DIR/reference.json), the digest that names
 * a reference campaign and the summary `pmcfuse reference` prints
 * (cli/reference.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/output.h"
#include "cli/verbs/reference.h"
#include "pmcfuse/refdir.h"
#include "x/x.h"

/* DIR/reference.json, rewritten (atomically) after every execution: the
 * profiles done so far, and "complete" once every one is. */
int ref_write_index(const struct refrun *r)
{
	pmcf_refdir_index ix = {.size = sizeof(ix),
				.events = pmcf_evlist_names(r->list),
				.nevents = pmcf_evlist_size(r->list),
				.cover = r->cv,
				.repeat = r->repeat,
				.source = r->source,
				.done = r->done,
				.seeds = r->seeds};
	int err = pmcf_refdir_write_index(r->dir, &ix);
	return err ? cli_lib_error("reference", err, r->dir) : CLI_OK;
}

/* After each execution saved: the index says so. */
int ref_index_saved(void *ctx, size_t k)
{
	struct refrun *r = ctx;
	r->done[k] = 1;
	return pmcf_campaign_is_task(r->s.camp) ? CLI_OK : ref_write_index(r);
}

size_t ref_count_done(const struct refrun *r)
{
	size_t n = 0;
	for (size_t k = 0; k < r->total; k++)
		n += r->done[k];
	return n;
}

/* The digest that names a reference campaign: its source, seed, repeats,
 * budget and covering sets. */
int ref_digest(const struct refrun *r, char hex[65])
{
	char *t = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&t, &len);
	if (!f)
		return cli_error("reference", CLI_EENV, "out of memory");
	fprintf(f, "reference\n%s\nseed %llu repeat %lu pmcs %lu\n", r->source, (unsigned long long)r->seed,
		r->repeat, r->pmcs);
	for (size_t i = 0; r->prog && r->prog[i]; i++)
		fprintf(f, "%s\n", r->prog[i]);
	for (size_t s = 0; s < r->nsets; s++) {
		size_t n;
		const char *const *set = pmcf_cover_events_at(r->cv, s, &n);
		for (size_t i = 0; i < n; i++)
			fprintf(f, "%s%s", i ? "," : "--\n", set[i]);
	}
	if (fclose(f) != 0 || !t) {
		free(t);
		return cli_error("reference", CLI_EENV, "out of memory");
	}
	pmcfi_sha256_buf(t, strlen(t), hex);
	free(t);
	return CLI_OK;
}

void ref_print_summary(const struct refrun *r)
{
	size_t E = 0, nimp = pmcf_cover_nimpossible(r->cv), lb = pmcf_cover_lower_bound(r->cv);
	for (size_t i = 0; i < pmcf_evlist_size(r->list); i++)
		E += strcmp(pmcf_evlist_name(r->list, i), "duration") != 0;
	size_t pairs = E * (E - 1) / 2;
	if (r->args.json) {
		printf("{\"folder\": ");
		cli_json_string(stdout, r->dir);
		printf(", \"index\": \"reference.json\", \"source\": ");
		cli_json_string(stdout, r->source);
		if (r->sim)
			printf(", \"seed\": %llu", (unsigned long long)r->seed);
		printf(", \"executions\": %zu, \"sets\": %zu, \"repeat\": %lu, \"events\": %zu, "
		       "\"pairs\": %zu, \"impossible_pairs\": %zu, \"lower_bound\": %zu, "
		       "\"lower_bound_per_repeat\": %zu, \"lower_bound_derivation\": ",
		       r->total, r->nsets, r->repeat, E, pairs - nimp, nimp, lb * r->repeat, lb);
		cli_json_string(stdout, pmcf_cover_bound_text(r->cv));
		printf(", \"without_packing\": %zu, \"resumed\": %zu}\n", pairs * r->repeat, r->reused);
		return;
	}
	if (cli_quiet)
		return;
	campaign_print_resumed(r->dir, r->reused, r->total);
	printf("%zu reference executions (%zu event set%s x %lu repeats) cover the %zu pair%s of %zu "
	       "event%s; lower bound %zu (%zu x %lu); without packing: %zu\n",
	       r->total, r->nsets, r->nsets == 1 ? "" : "s", r->repeat, pairs - nimp,
	       pairs - nimp == 1 ? "" : "s", E, E == 1 ? "" : "s", lb * r->repeat, lb, r->repeat,
	       pairs * r->repeat);
	/* how the bound is derived is the covering's internals: -v */
	if (cli_verbose)
		printf("lower bound: %s\n", pmcf_cover_bound_text(r->cv));
	if (cli_verbose && r->sim)
		printf("seed %lu: each execution's seed is derived from it (listed in %s/reference.json)\n",
		       r->seed, r->dir);
	if (nimp)
		printf("%zu pairs can never be counted together and are left out (listed in "
		       "%s/reference.json)\n",
		       nimp, r->dir);
	printf("wrote %s/ref-000.pmcf .. ref-%03zu.pmcf and %s/reference.json\n", r->dir,
	       r->total ? r->total - 1 : 0, r->dir);
}
