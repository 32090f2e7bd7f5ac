/* `pmcfuse epd`: Execution Profile Dissimilarity of a profile against the
 * reference profiles of a folder (fuse-task-parallel §4.1-4.3), with the
 * calibrated TMD of every event pair. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/output.h"
#include "cli/refdir.h"
#include "cli/verbs/epd.h"
#include "pmcfuse/evaluate.h"

static const char usage[] =
	"usage: pmcfuse epd [--bins B] [--per-type] [--pairs N [--seed S]] [--formula F] [--json]\n"
	"                   [--top N] [-v] [-q] TARGET... REFDIR\n\n"
	"Execution Profile Dissimilarity of the profile TARGET against the reference\n"
	"profiles in REFDIR (from pmcfuse reference): for every pair of TARGET's events,\n"
	"the median TMD against the reference repeats that monitored the pair, divided\n"
	"by the calibration (the median TMD between two repeats); EPD is the geometric\n"
	"mean over the pairs. 1 means as close as a fresh reference execution; higher\n"
	"is worse. Pairs on which the references show no spread (calibration below the\n"
	"resolution, one XU moved by one bin) are left out. See docs/accuracy.md.\n\n"
	"The summary is followed by the pairs that raise EPD most: sorted by TMD, the\n"
	"highest first (EPD is the geometric mean, so a pair's share of log EPD is\n"
	"log(TMD) / pairs), each with the EPD of the other pairs (EPD WITHOUT).\n\n"
	"Several TARGETs (e.g. one campaign fused by several strategies) are scored\n"
	"against REFDIR read and calibrated once, each as alone; the report of each\n"
	"follows a line naming it, and --json prints a list of the objects, each\n"
	"with its \"target\". Every TARGET must be of the run of the first (--force).\n\n"
	"  --bins B     bins per event over the reference range (default 10, at most 30)\n"
	"  --per-type   TMD per XU type, combined by an XU-count-weighted geometric mean\n"
	"  --pairs N    a random sample of N pairs, with a bootstrap 95% interval; a note\n"
	"               says why, where fewer than N pairs were scored\n"
	"  --seed S     seed of the sample and the bootstrap (default 1)\n"
	"  --threads T  worker threads (default: one per CPU)\n"
	"  --force      use references of another program run, or identical copies\n"
	"  --formula F  floored (default): distances below the resolution are equal, pairs\n"
	"               without spread left out, no pair scores better than the best\n"
	"               reference repeat; paper: fuse-task-parallel §4.3 as published\n"
	"               (only a 1e-6 floor; degenerate pairs can score near 0)\n"
	"  --top N      list the N pairs that raise EPD most (default 10)\n"
	"  -v           list every pair, with the uncalibrated TMD, the calibration and\n"
	"               the share of XUs left out, and every pair left out\n"
	"  -q           print nothing (errors only)\n"
	"  --json       {\"epd\", \"pairs\": [{\"events\", \"tmd\", \"calibration\",\n"
	"               \"epd_without\", ...}], ...}: every pair, in the order of the events\n";

int cmd_epd(int argc, char **argv)
{
	static const struct option opts[] = {{"bins", required_argument, NULL, 'b'},
					     {"per-type", no_argument, NULL, 't'},
					     {"pairs", required_argument, NULL, 'p'},
					     {"seed", required_argument, NULL, 's'},
					     {"threads", required_argument, NULL, 'T'},
					     {"json", no_argument, NULL, 'j'},
					     {"force", no_argument, NULL, 'f'},
					     {"formula", required_argument, NULL, 'F'},
					     {"help", no_argument, NULL, 'h'},
					     {"top", required_argument, NULL, 'N'},
					     CLI_OUTPUT_LONGOPTS,
					     {NULL, 0, NULL, 0}};
	if (cli_wants_help(argc, argv, usage))
		return CLI_OK;
	pmcf_epd_opts o = PMCF_EPD_OPTS_INIT;
	int json = 0, force = 0, opt;
	unsigned long v, top = 10;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "vq", opts, NULL)) != -1) {
		if (cli_output_option(opt, NULL))
			continue;
		switch (opt) {
		case 'N':
			if (cli_parse_uint("epd", "--top", optarg, 1, 100000000, &top))
				return CLI_EUSAGE;
			break;
		case 'b':
			if (cli_parse_uint("epd", "--bins", optarg, 1, 30, &v))
				return CLI_EUSAGE;
			o.bins = (unsigned)v;
			break;
		case 't': o.per_type = 1; break;
		case 'p':
			if (cli_parse_uint("epd", "--pairs", optarg, 1, 100000000, &v))
				return CLI_EUSAGE;
			o.sample = v;
			break;
		case 's':
			if (cli_parse_uint("epd", "--seed", optarg, 0, (unsigned long)-1, &v))
				return CLI_EUSAGE;
			o.seed = v;
			break;
		case 'T':
			if (cli_parse_uint("epd", "--threads", optarg, 1, 8, &v))
				return CLI_EUSAGE;
			o.threads = (unsigned)v;
			break;
		case 'j': json = 1; break;
		case 'f': force = 1; break;
		case 'F':
			if (strcmp(optarg, "floored") == 0)
				o.formula = PMCF_EPD_FLOORED;
			else if (strcmp(optarg, "paper") == 0)
				o.formula = PMCF_EPD_PAPER;
			else
				return cli_usage_error("epd", "--formula '%s': floored or paper", optarg);
			break;
		default:
			return cli_usage_error("epd", "unknown option or missing value '%s'",
					       argv[optind - 1]);
		}
	}
	if (argc - optind < 2)
		return cli_usage_error("epd", "needs TARGET and REFDIR");
	size_t nt = (size_t)(argc - optind - 1);
	pmcf_profile **targets = NULL, **refs = NULL;
	size_t nrefs = 0;
	int st =
		refdir_open_targets("epd", argv + optind, nt, argv[argc - 1], force, &targets, &refs, &nrefs);
	pmcf_epd_result **res = st == CLI_OK ? calloc(nt, sizeof(*res)) : NULL;
	if (st == CLI_OK && !res)
		st = cli_error("epd", CLI_EENV, "out of memory");
	if (st == CLI_OK) {
		int err = pmcf_epd_compute_many((const pmcf_profile *const *)targets, nt,
						(const pmcf_profile *const *)refs, nrefs, &o, res);
		if (err)
			st = cli_lib_error("epd", err, "cannot compute the EPD");
	}
	/* several targets: a JSON list of the objects, each with its "target";
	 * text: each target's report under a line naming it */
	if (st == CLI_OK && json && nt > 1)
		printf("[");
	for (size_t t = 0; t < nt && st == CLI_OK; t++) {
		const char *name = nt > 1 ? argv[optind + (int)t] : NULL;
		if (name && json)
			printf("%s", t ? ",\n" : "");
		else if (name && !cli_quiet)
			printf("%s%s:\n", t ? "\n" : "", name);
		st = epd_print_result(res[t], &o, nrefs, json, top, name);
	}
	if (st == CLI_OK && json && nt > 1)
		printf("]\n");
	for (size_t t = 0; res && t < nt; t++)
		pmcf_epd_result_free(res[t]);
	free(res);
	refdir_free(refs, nrefs);
	refdir_targets_free(targets, nt);
	return st;
}
