/* Shared by combine and run (fuse.h): the summary of a combination, as
 * text or JSON, with the warning on pairings that disagree with labels. */
#include <getopt.h>
#include <glob.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cli/cli.h"
#include "cli/fuse.h"
#include "cli/output.h"
#include "x/x.h"

/* A bc-family pairing that disagrees with labels the runs share: the
 * library's advice (pmcf_combine_label_advice) as one warning on stderr. */
static void label_warning(const pmcf_profile *fused, const pmcf_combine_stats *st, int strategy)
{
	char text[512];
	if (pmcf_combine_label_advice(fused, st, strategy, text, sizeof(text)) == 1)
		fprintf(stderr, "pmcfuse: combine: warning: %s\n", text);
}

void fuse_print_summary(FILE *f, const pmcf_profile *fused, const pmcf_combine_stats *st, int strategy,
			size_t ninputs)
{
	label_warning(fused, st, strategy);
	fprintf(f, "fused %zu profile%s with %s: %zu XU%s, %zu event%s\n", ninputs, ninputs == 1 ? "" : "s",
		pmcf_strategy_name(strategy), st->xus, st->xus == 1 ? "" : "s", st->events,
		st->events == 1 ? "" : "s");
	if (st->partial_xus)
		fprintf(f,
			"%zu XU%s a partner in some profile (XU counts differ): their "
			"other events are missing\n",
			st->partial_xus, st->partial_xus == 1 ? " lacks" : "s lack");
	if (st->imputed)
		fprintf(f,
			"imputed %zu values from the nearest XUs; %zu differ from the copies they "
			"replace%s\n",
			st->imputed, st->imputed_changed,
			st->imputed_changed ? "" : " (imputing changed nothing here)");
	if (strategy == PMCF_COMBINE_LGL)
		fprintf(f,
			"labels: %zu matched, %zu missing from some profile, %zu extra, %zu "
			"duplicated\n",
			st->labels_matched, st->labels_missing, st->labels_extra, st->labels_duplicate);
	/* the BC grid is how the pairing was searched, not a result: -v */
	if (pmcf_strategy_ordered(strategy) && cli_verbose)
		fprintf(f, "grid: %zu iterations, largest dmax %u\n", st->bc_iterations, st->bc_dmax);
	pmcf_match_summary ms = {.size = sizeof(ms)};
	if (pmcf_combine_match_summary(fused, &ms) == 0 && ms.measured)
		fprintf(f, "match distance over %zu XU%s: median %.4g, p90 %.4g, p99 %.4g, max %.4g\n",
			ms.measured, ms.measured == 1 ? "" : "s", ms.p50, ms.p90, ms.p99, ms.max);
}

void fuse_json_summary(FILE *f, const pmcf_profile *fused, const pmcf_combine_stats *st, int strategy,
		       size_t ninputs)
{
	label_warning(fused, st, strategy);
	fprintf(f,
		"\"strategy\": \"%s\", \"inputs\": %zu, \"xus\": %zu, \"events\": %zu, "
		"\"partial_xus\": %zu",
		pmcf_strategy_name(strategy), ninputs, st->xus, st->events, st->partial_xus);
	if (strategy == PMCF_COMBINE_LGL)
		fprintf(f,
			", \"labels\": {\"matched\": %zu, \"missing\": %zu, \"extra\": %zu, "
			"\"duplicated\": %zu}",
			st->labels_matched, st->labels_missing, st->labels_extra, st->labels_duplicate);
	if (pmcf_strategy_ordered(strategy))
		fprintf(f, ", \"grid\": {\"iterations\": %zu, \"dmax\": %u}", st->bc_iterations, st->bc_dmax);
	if (st->imputed)
		fprintf(f, ", \"imputed\": {\"values\": %zu, \"changed\": %zu}", st->imputed,
			st->imputed_changed);
	pmcf_match_summary ms = {.size = sizeof(ms)};
	if (pmcf_combine_match_summary(fused, &ms) == 0 && ms.measured) {
		fprintf(f, ", \"match\": {\"measured\": %zu, \"median\": ", ms.measured);
		cli_json_number(f, ms.p50);
		cli_json_member(f, "p90", ms.p90);
		cli_json_member(f, "p99", ms.p99);
		cli_json_member(f, "max", ms.max);
		fputc('}', f);
	}
}
