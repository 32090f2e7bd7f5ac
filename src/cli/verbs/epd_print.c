/* `pmcfuse epd`'s printing: one target's result, as text (the pairs with
 * the largest TMD first, --top) or as JSON (every pair, in event order). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/output.h"
#include "cli/verbs/epd.h"

/* EPD over the pairs but p: the geometric mean without p's log TMD (the
 * library's floor on logs, 1e-12, alike). */
static double epd_without(double epd, size_t n, const pmcf_epd_pair *p)
{
	if (n < 2)
		return NAN;
	double lt = log(p->tmd > 1e-12 ? p->tmd : 1e-12);
	return exp(((double)n * log(epd) - lt) / (double)(n - 1));
}

static const void *pair_at(const void *r, size_t k) { return pmcf_epd_pair_at(r, k); }

static int by_tmd_desc(const void *a, const void *b)
{
	const pmcf_epd_pair *x = *(const pmcf_epd_pair *const *)a, *y = *(const pmcf_epd_pair *const *)b;
	if (x->tmd != y->tmd)
		return x->tmd < y->tmd ? 1 : -1;
	int c = strcmp(x->a, y->a);
	return c ? c : strcmp(x->b, y->b);
}

/* --pairs N: why fewer than N pairs were scored, on one line (nothing when
 * N were). A pair asked for is dropped when the target's events have fewer
 * pairs, when fewer than two references monitored it (or had values of
 * both events), or when the references show no spread on it. Returns
 * whether it named pairs that fewer than two references monitored. */
static int print_dropped(const pmcf_epd_result *r, size_t asked)
{
	size_t scored = pmcf_epd_npairs(r), nx = pmcf_epd_nexcluded(r), total = pmcf_epd_total_pairs(r);
	if (scored >= asked)
		return 0;
	size_t notmd = pmcf_epd_evaluated(r) - scored - nx; /* sampled, but no TMD */
	size_t covered = total - (pmcf_epd_uncovered(r) - notmd);
	size_t beyond = asked > total ? asked - total : 0;
	size_t unmon = (asked > covered ? (asked < total ? asked : total) - covered : 0) + notmd;
	printf("note: %zu of the %zu pairs asked were scored, %zu dropped:", scored, asked, asked - scored);
	const char *sep = "";
	if (beyond) {
		printf(" %zu beyond the %zu pairs of the target's events", beyond, total);
		sep = ";";
	}
	if (unmon) {
		printf("%s %zu monitored by fewer than two references", sep, unmon);
		sep = ";";
	}
	if (nx)
		printf("%s %zu without spread in the references (left out, -v lists them)", sep, nx);
	printf("\n");
	return unmon > 0;
}

int epd_print_result(const pmcf_epd_result *r, const pmcf_epd_opts *o, size_t nrefs, int json,
		     unsigned long top, const char *name)
{
	int st = CLI_OK;
	{
		size_t n = pmcf_epd_npairs(r);
		double lo, hi, left = 0;
		pmcf_epd_ci(r, &lo, &hi);
		for (size_t k = 0; k < n; k++)
			left += pmcf_epd_pair_at(r, k)->left_out;
		if (json) {
			json_t *j = json_object(), *pairs = json_array(), *excl = json_array();
			if (name)
				json_object_set_new(j, "target", cli_jstr(name));
			json_object_set_new(j, "epd", cli_jnum(pmcf_epd_value(r)));
			json_object_set_new(j, "formula",
					    json_string(o->formula == PMCF_EPD_PAPER ? "paper" : "floored"));
			json_object_set_new(j, "bins", json_integer(o->bins));
			json_object_set_new(j, "per_type", json_boolean(o->per_type));
			json_object_set_new(j, "references", json_integer((json_int_t)nrefs));
			json_object_set_new(j, "pairs_total",
					    json_integer((json_int_t)pmcf_epd_total_pairs(r)));
			json_object_set_new(j, "pairs_scored", json_integer((json_int_t)n));
			json_object_set_new(j, "pairs_uncovered",
					    json_integer((json_int_t)pmcf_epd_uncovered(r)));
			json_object_set_new(j, "pairs_excluded",
					    json_integer((json_int_t)pmcf_epd_nexcluded(r)));
			json_object_set_new(j, "pairs_evaluated",
					    json_integer((json_int_t)pmcf_epd_evaluated(r)));
			json_object_set_new(j, "left_out_mean", cli_jnum(n ? left / (double)n : 0));
			if (o->sample) {
				json_object_set_new(j, "sample", json_integer((json_int_t)o->sample));
				/* a number, as before; past 2^63 (not a seed anyone types) its digits */
				char seed[32];
				snprintf(seed, sizeof(seed), "%llu", (unsigned long long)o->seed);
				json_object_set_new(j, "seed",
						    o->seed <= (uint64_t)INT64_MAX
							    ? json_integer((json_int_t)o->seed)
							    : json_string(seed));
				json_object_set_new(j, "ci95",
						    json_pack("[o, o]", cli_jnum(lo), cli_jnum(hi)));
			}
			for (size_t k = 0; k < n; k++) {
				const pmcf_epd_pair *p = pmcf_epd_pair_at(r, k);
				json_array_append_new(
					pairs,
					json_pack(
						"{s:[o, o], s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:b}",
						"events", cli_jstr(p->a), cli_jstr(p->b), "tmd",
						cli_jnum(p->tmd), "uncalibrated", cli_jnum(p->uncalibrated),
						"calibration", cli_jnum(p->calibration), "spread",
						cli_jnum(p->spread), "left_out", cli_jnum(p->left_out),
						"resolution", cli_jnum(p->resolution), "floor",
						cli_jnum(p->floor), "epd_without",
						cli_jnum(epd_without(pmcf_epd_value(r), n, p)), "repeats",
						(json_int_t)p->repeats, "worst", p->worst));
			}
			json_object_set_new(j, "pairs", pairs);
			size_t nx = pmcf_epd_nexcluded(r);
			for (size_t k = 0; k < nx; k++) {
				const pmcf_epd_pair *p = pmcf_epd_excluded_at(r, k);
				json_array_append_new(excl,
						      json_pack("{s:[o, o], s:s, s:o, s:o, s:I}", "events",
								cli_jstr(p->a), cli_jstr(p->b), "reason",
								"no spread in the references", "calibration",
								cli_jnum(p->calibration), "resolution",
								cli_jnum(p->resolution), "repeats",
								(json_int_t)p->repeats));
			}
			json_object_set_new(j, "excluded", excl);
			/* one target: its own line; several: items of the list cmd_epd opens */
			if ((name ? cli_json_put(stdout, j) : cli_json_dump(stdout, j, 0)) != 0 &&
			    !ferror(stdout))
				st = cli_error("epd", CLI_EENV, "out of memory writing JSON");
		} else if (!cli_quiet) {
			printf("EPD %.4g over %zu event pair%s (%u bins%s, %zu reference profiles%s)\n",
			       pmcf_epd_value(r), n, n == 1 ? "" : "s", o->bins,
			       o->per_type ? ", per XU type" : "", nrefs,
			       o->formula == PMCF_EPD_PAPER ? ", the paper's formula" : "");
			if (o->sample && pmcf_epd_evaluated(r) < o->sample)
				printf("every pair monitored by two references (%zu, fewer than the %zu asked; "
				       "seed %llu): 95%% bootstrap interval [%.4g, %.4g]\n",
				       pmcf_epd_evaluated(r), o->sample, (unsigned long long)o->seed, lo, hi);
			else if (o->sample)
				printf("sample of %zu pairs (seed %llu): 95%% bootstrap interval [%.4g, %.4g]\n",
				       o->sample, (unsigned long long)o->seed, lo, hi);
			int said = o->sample && print_dropped(r, o->sample);
			if (pmcf_epd_uncovered(r) && !said)
				printf("%zu of %zu pairs not scored: fewer than two references monitored %s\n",
				       pmcf_epd_uncovered(r), pmcf_epd_total_pairs(r),
				       pmcf_epd_uncovered(r) == 1 ? "it" : "them");
			/* the pairs that raise EPD most first */
			size_t shown;
			const pmcf_epd_pair **by =
				(const pmcf_epd_pair **)cli_top("epd", r, pair_at, n, by_tmd_desc, top,
								"that raise EPD most", &shown, &st);
			printf("%-32s %-32s %9s", "EVENT A", "EVENT B", "TMD");
			if (cli_verbose)
				printf(" %9s %9s %8s", "UNCAL", "CALIB", "LEFTOUT");
			printf(" %11s\n", "EPD WITHOUT");
			for (size_t k = 0; k < shown; k++) {
				const pmcf_epd_pair *p = by[k];
				printf("%-32s %-32s %9.4g", p->a, p->b, p->tmd);
				if (cli_verbose)
					printf(" %9.4g %9.4g %7.1f%%", p->uncalibrated, p->calibration,
					       100 * p->left_out);
				printf(" %11.4g%s\n", epd_without(pmcf_epd_value(r), n, p),
				       p->worst ? "  (no XU with both values: worst score)" : "");
			}
			free(by);
			size_t nx = pmcf_epd_nexcluded(r);
			if (nx)
				printf("%zu pair%s left out: the references show no spread on %s (calibration "
				       "below the resolution, one XU moved by one bin)%s\n",
				       nx, nx == 1 ? "" : "s", nx == 1 ? "it" : "them",
				       cli_verbose ? ":"
				       : nx == 1   ? "; -v lists it"
						   : "; -v lists them");
			for (size_t k = 0; k < nx && cli_verbose; k++) {
				const pmcf_epd_pair *p = pmcf_epd_excluded_at(r, k);
				printf("%-32s %-32s calibration %.3g < resolution %.3g\n", p->a, p->b,
				       p->calibration, p->resolution);
			}
		}
	}
	return st;
}
