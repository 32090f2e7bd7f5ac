/* `pmcfuse truth`: error of a profile with simulated sources against the
 * ground truth: its own truth layer, or for a fused profile the truth of the
 * source XU each fused XU represents. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/output.h"
#include "pmcfuse/evaluate.h"

static const char usage[] =
	"usage: pmcfuse truth [--pooled] [--json] [-q] PROFILE\n\n"
	"Compares every value of PROFILE (duration excluded) with the ground truth that\n"
	"simulated sources record: a plain or multiplexed profile against its own truth,\n"
	"a fused profile against the truth of the XU each fused XU represents (the first\n"
	"source XU of its provenance). Relative error = |value - truth| / max(|truth|, 1).\n"
	"Per event: the median and 90th percentile over the values that came from another\n"
	"execution (values copied from the compared XU are exact and left out, counted as\n"
	"'from base'); a missing value counts as error 1 and is counted; and the mean of\n"
	"the same. Headline: the mean over the events of their means (an event that\n"
	"misses values is penalised, not hidden); beside it the median and 90th\n"
	"percentile over the events of their medians. See docs/accuracy.md.\n\n"
	"  --pooled  print the first summary instead: quantiles over every present value\n"
	"            pooled (copies from the base included, missing values left out)\n"
	"  -q        print nothing (errors only)\n"
	"  --json    {\"mean_rel_error\", \"median_rel_error\", \"p90_rel_error\",\n"
	"            \"share_missing\", \"missing\",\n"
	"            \"pooled\": {...}, \"events\": [...]} (both summaries)\n";

/* v with 4 significant digits, "-" when there is none (every value missing) */
static const char *fmt(char *buf, size_t n, double v)
{
	if (isfinite(v))
		snprintf(buf, n, "%.4g", v);
	else
		snprintf(buf, n, "-");
	return buf;
}

int cmd_truth(int argc, char **argv)
{
	if (cli_wants_help(argc, argv, usage))
		return CLI_OK;
	int json = 0, pooled = 0;
	const char *path = NULL;
	for (int i = 1, opts = 1; i < argc; i++) {
		if (opts && strcmp(argv[i], "--") == 0)
			opts = 0; /* what follows is a file, whatever its name */
		else if (opts && cli_output_arg(argv[i], &json))
			continue;
		else if (opts && strcmp(argv[i], "--pooled") == 0)
			pooled = 1;
		else if (opts && argv[i][0] == '-' && argv[i][1])
			return cli_usage_error("truth", "unknown option '%s'", argv[i]);
		else if (!path)
			path = argv[i];
		else
			return cli_usage_error("truth", "unexpected argument '%s'", argv[i]);
	}
	if (!path)
		return cli_usage_error("truth", "needs a PROFILE");
	pmcf_profile *p = NULL;
	int st = cli_open_profile("truth", path, &p);
	pmcf_truth_result *r = NULL;
	if (st == CLI_OK) {
		int err = pmcf_truth_compare(p, path, &r);
		if (err)
			st = cli_lib_error("truth", err, "cannot compare with the ground truth");
	}
	if (st == CLI_OK) {
		double med, p90, miss, pmed, pp90, pmiss;
		pmcf_truth_summary(r, &med, &p90, &miss);
		pmcf_truth_summary_pooled(r, &pmed, &pp90, &pmiss);
		size_t n = pmcf_truth_nevents(r), nmiss = 0, nbase = 0;
		for (size_t k = 0; k < n; k++) {
			nmiss += pmcf_truth_event_at(r, k)->missing;
			nbase += pmcf_truth_event_at(r, k)->from_base;
		}
		const char *against = strcmp(pmcf_truth_mode(r), "own") == 0 ? "the profile's own truth"
									     : "truth of the source XUs";
		if (json) {
			json_t *evs = json_array();
			for (size_t k = 0; k < n; k++) {
				const pmcf_truth_event *e = pmcf_truth_event_at(r, k);
				json_array_append_new(evs,
						      json_pack("{s:o, s:I, s:I, s:I, s:o, s:o, s:o}",
								"event", cli_jstr(e->name), "values",
								(json_int_t)e->values, "missing",
								(json_int_t)e->missing, "from_base",
								(json_int_t)e->from_base, "median_rel_error",
								cli_jnum(e->median_rel), "p90_rel_error",
								cli_jnum(e->p90_rel), "mean_rel_error",
								cli_jnum(pmcf_truth_event_mean(r, k))));
			}
			json_t *j =
				json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:I, s:I, s:{s:o, s:o, s:o}, s:o}",
					  "mode", pmcf_truth_mode(r), "summary", "median over events",
					  "mean_rel_error", cli_jnum(pmcf_truth_mean(r)), "median_rel_error",
					  cli_jnum(med), "p90_rel_error", cli_jnum(p90), "share_missing",
					  cli_jnum(miss), "missing", (json_int_t)nmiss, "from_base",
					  (json_int_t)nbase, "pooled", "median_rel_error", cli_jnum(pmed),
					  "p90_rel_error", cli_jnum(pp90), "share_missing", cli_jnum(pmiss),
					  "events", evs);
			if (cli_json_dump(stdout, j, 0) != 0 && !ferror(stdout))
				st = cli_error("truth", CLI_EENV, "out of memory writing JSON");
		} else if (!cli_quiet) {
			char m[32], q[32];
			if (pooled)
				printf("against the ground truth (%s), pooled over every present value: median "
				       "relative error %s, 90th percentile %s, %.2f%% of values missing%s\n",
				       against, fmt(m, sizeof(m), pmed), fmt(q, sizeof(q), pp90), 100 * pmiss,
				       pmiss > 0 ? " (left out of the error quantiles)" : "");
			else
				printf("against the ground truth (%s): mean over events of the mean relative "
				       "error (missing = 1) %s\n",
				       against, fmt(m, sizeof(m), pmcf_truth_mean(r)));
			if (!pooled)
				printf("over the events' medians: median relative "
				       "error %s, 90th percentile %s; %zu values missing (%.2f%%, counted as error "
				       "1), %zu copied from the base (exact, left out)\n",
				       fmt(m, sizeof(m), med), fmt(q, sizeof(q), p90), nmiss, 100 * miss,
				       nbase);
			printf("%-40s %10s %10s %10s %8s %9s\n", "EVENT", "MEAN", "MEDIAN", "P90", "MISSING",
			       "FROM BASE");
			for (size_t k = 0; k < n; k++) {
				const pmcf_truth_event *e = pmcf_truth_event_at(r, k);
				char a[32];
				printf("%-40s %10s %10s %10s %8zu %9zu\n", e->name,
				       fmt(a, sizeof(a), pmcf_truth_event_mean(r, k)),
				       fmt(m, sizeof(m), e->median_rel), fmt(q, sizeof(q), e->p90_rel),
				       e->missing, e->from_base);
			}
		}
	}
	pmcf_truth_result_free(r);
	pmcf_profile_free(p);
	return st;
}
