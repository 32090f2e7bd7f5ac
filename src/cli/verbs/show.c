/* `pmcfuse show`: a profile at a glance — metadata, XU types with their
 * counts, and per event min/median/max and the share of missing values. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/cli.h"
#include "cli/output.h"
#include "pmcfuse/combine.h"
#include "pmcfuse/evaluate.h"
#include "pmcfuse/multiplex.h"
#include "x/x.h"
#include "cli/verbs/show.h"

static const char usage[] =
	"usage: pmcfuse show [-v] [-q] [--json] [PROFILE]\n\n"
	"Summarises a profile (without PROFILE: pmcfuse.pmcf, what record writes\n"
	"without -o, as perf report reads perf.data): its metadata, the number of\n"
	"XUs, the XU types with their counts, and for every event the min, median and max over the XUs that have a\n"
	"value, the share of XUs whose value is missing, and how many values are negative\n"
	"(multiplexing estimates can be). Numbers are for people: counts with an SI\n"
	"prefix (1.21 M = 1.21 million), times in ns, µs, ms or s (duration, task-clock,\n"
	"cpu-clock are nanoseconds in the profile); -v or --json give them exactly.\n\n"
	"For a multiplexed profile (record --multiplex) it shows per event the share of XUs\n"
	"with a measured value and the mean share of their time the event was counted.\n"
	"For a fused profile it also shows how well the XUs of the executions matched:\n"
	"the distribution of the match distances (0 = identical on the linking events),\n"
	"and that every XU carries its base label (its label in the execution that\n"
	"provided it: export --provenance).\n\n"
	"It also checks relations every XU obeys (task-clock and cpu-clock <= duration,\n"
	"minor-faults and major-faults <= page-faults, some simulated PAPI presets) and\n"
	"prints a line per relation broken, e.g. 'consistency: task-clock > duration on\n"
	"4703 of 21411 XUs (4703 with values from different executions)'.\n\n"
	"For a recorded profile with task-clock (or cpu-clock) it shows how much of the\n"
	"run's CPU time (metadata cpu_time_ns, what perf stat -e task-clock counts) the\n"
	"XUs hold: 'cpu time  task-clock in XUs: X of Y (Z %)'; the rest ran outside\n"
	"every XU (docs/collector.md).\n\n"
	"  -v       exact numbers in the event table\n"
	"  -q       print nothing (errors only): checks that PROFILE opens\n"
	"  --json   print one JSON object with keys meta, complete, xus, types, events,\n"
	"           truth_events, layers, match (fused profiles), cpu_time (recorded\n"
	"           profiles: event, in_xus, run, share), consistency; exact\n"
	"           numbers, events in their profile units (times in ns)\n";

static void stats(const double *col, size_t n, double *scratch, struct cli_show_evstat *s)
{
	memset(s, 0, sizeof(*s));
	double sum = 0;
	for (size_t i = 0; i < n; i++) {
		double v = col[i];
		if (pmcf_is_missing(v))
			continue;
		if (!s->present || v < s->min)
			s->min = v;
		if (!s->present || v > s->max)
			s->max = v;
		s->negative += v < 0;
		sum += v;
		scratch[s->present++] = v;
	}
	if (!s->present)
		return;
	s->mean = sum / (double)s->present;
	s->median = pmcfi_median(scratch, s->present);
}

/* JSON: a member "consistency" of j with every relation checked. */

static void summary_free(struct cli_show_summary *s)
{
	free(s->type_count);
	free(s->es);
}

/* XUs per type, each event's statistics and coverage, the match
 * distances; 0, or a CLI status (an error printed). */
static int summarise(const pmcf_profile *p, const char *path, struct cli_show_summary *s)
{
	*s = (struct cli_show_summary){.p = p, .path = path, .ms = {.size = sizeof(s->ms)}};
	s->nx = pmcf_profile_nxus(p), s->ne = pmcf_profile_nevents(p), s->nt = pmcf_profile_ntypes(p);
	s->type_count = calloc(s->nt ? s->nt : 1, sizeof(*s->type_count));
	double *scratch = malloc((s->nx ? s->nx : 1) * sizeof(*scratch));
	s->es = calloc(s->ne ? s->ne : 1, sizeof(*s->es));
	if (!s->type_count || !scratch || !s->es) {
		free(scratch);
		summary_free(s);
		return cli_error("show", CLI_EENV, "out of memory summarising '%s'", path);
	}
	for (size_t i = 0; i < s->nx; i++) {
		pmcf_xu xu = PMCF_XU_INIT;
		if (pmcf_profile_xu_fields_get(p, i, &xu) == 0 && xu.type < s->nt)
			s->type_count[xu.type]++;
	}
	for (size_t e = 0; e < s->ne; e++)
		stats(pmcf_profile_column_const(p, e), s->nx, scratch, &s->es[e]);
	for (size_t e = 0; e < s->ne; e++)
		s->es[e].covered =
			strcmp(pmcf_profile_event_name(p, e), PMCF_EVENT_DURATION) != 0 &&
			pmcf_profile_coverage_summary(p, e, &s->es[e].measured, &s->es[e].time_measured) == 0;
	if (pmcf_combine_match_summary(p, &s->ms) != 0)
		s->ms.measured = 0;
	free(scratch);
	return 0;
}

int cmd_show(int argc, char **argv)
{
	static const struct option opts[] = {{"json", no_argument, NULL, 'j'},
					     {"help", no_argument, NULL, 'h'},
					     CLI_OUTPUT_LONGOPTS,
					     {NULL, 0, NULL, 0}};
	int json = 0, opt;
	if (cli_wants_help(argc, argv, usage))
		return CLI_OK;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "vq", opts, NULL)) != -1) {
		if (cli_output_option(opt, NULL))
			continue;
		if (opt == 'j')
			json = 1;
		else
			return cli_usage_error("show", "unknown option '%s'", argv[optind - 1]);
	}
	/* no PROFILE: record's default output, as perf report reads perf.data */
	const char *path = optind == argc && access("pmcfuse.pmcf", F_OK) == 0 ? "pmcfuse.pmcf"
			   : optind + 1 == argc                                ? argv[optind]
									       : NULL;
	if (!path)
		return cli_usage_error("show", optind == argc ? "missing PROFILE (and no pmcfuse.pmcf here)"
							      : "expected one PROFILE");
	pmcf_profile *p;
	int st = cli_open_profile("show", path, &p);
	if (st)
		return st;

	struct cli_show_summary sum;
	if ((st = summarise(p, path, &sum))) {
		pmcf_profile_free(p);
		return st;
	}
	if (json && cli_show_json(&sum) != 0) {
		summary_free(&sum);
		pmcf_profile_free(p);
		return cli_error("show", CLI_EENV, "out of memory writing JSON");
	} else if (!json && !cli_quiet) {
		cli_show_text(&sum);
	}
	summary_free(&sum);
	pmcf_profile_free(p);
	if (fflush(stdout) != 0)
		return cli_error("show", CLI_EENV, "cannot write to standard output: %s", strerror(errno));
	return CLI_OK;
}
