/* `pmcfuse truth`: error of a profile with simulated sources against the
 * ground truth: its own truth layer, or for a fused profile the truth of the
 * source XU each fused XU represents. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "cli/cli.h"
#include "pmcfuse/evaluate.h"

static const char usage[] =
	"usage: pmcfuse truth [--json] PROFILE\n\n"
	"Compares every value of PROFILE (duration excluded) with the ground truth that\n"
	"simulated sources record: a plain or multiplexed profile against its own truth,\n"
	"a fused profile against the truth of the XU each fused XU represents (the first\n"
	"source XU of its provenance; the source profiles must be readable). Relative\n"
	"error = |value - truth| / max(|truth|, 1). A missing value (e.g. an event that\n"
	"multiplexing never counted) has no error: it is left out of the quantiles and\n"
	"counted in the share missing printed beside them. See docs/accuracy.md.\n\n"
	"  --json   {\"median_rel_error\", \"p90_rel_error\", \"share_missing\", \"events\": [...]}\n";

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
	int json = 0;
	const char *path = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0)
			json = 1;
		else if (argv[i][0] == '-' && argv[i][1])
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
		double med, p90, miss;
		pmcf_truth_summary(r, &med, &p90, &miss);
		size_t n = pmcf_truth_nevents(r);
		if (json) {
			printf("{\"mode\": \"%s\", \"median_rel_error\": ", pmcf_truth_mode(r));
			cli_json_number(stdout, med);
			printf(", \"p90_rel_error\": ");
			cli_json_number(stdout, p90);
			printf(", \"share_missing\": ");
			cli_json_number(stdout, miss);
			printf(", \"events\": [");
			for (size_t k = 0; k < n; k++) {
				const pmcf_truth_event *e = pmcf_truth_event_at(r, k);
				printf("%s\n  {\"event\": ", k ? "," : "");
				cli_json_string(stdout, e->name);
				printf(", \"values\": %zu, \"missing\": %zu, \"median_rel_error\": ", e->values,
				       e->missing);
				cli_json_number(stdout, e->median_rel);
				printf(", \"p90_rel_error\": ");
				cli_json_number(stdout, e->p90_rel);
				printf("}");
			}
			printf("%s]}\n", n ? "\n" : "");
		} else {
			/* a missing value (never counted) has no error: it is left
			 * out of the quantiles and counted beside them */
			char m[32], q[32];
			printf("against the ground truth (%s): median relative error %s, 90th percentile "
			       "%s, %.2f%% of values missing%s\n",
			       strcmp(pmcf_truth_mode(r), "own") == 0 ? "the profile's own truth"
								      : "truth of the source XUs",
			       fmt(m, sizeof(m), med), fmt(q, sizeof(q), p90), 100 * miss,
			       miss > 0 ? " (left out of the error quantiles)" : "");
			printf("%-40s %10s %10s %8s\n", "EVENT", "MEDIAN", "P90", "MISSING");
			for (size_t k = 0; k < n; k++) {
				const pmcf_truth_event *e = pmcf_truth_event_at(r, k);
				printf("%-40s %10s %10s %8zu\n", e->name, fmt(m, sizeof(m), e->median_rel),
				       fmt(q, sizeof(q), e->p90_rel), e->missing);
			}
		}
	}
	pmcf_truth_result_free(r);
	pmcf_profile_free(p);
	return st;
}
