/* `pmcfuse show`: a profile at a glance — metadata, XU types with their
 * counts, and per event min/median/max and the share of missing values. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/output.h"
#include "pmcfuse/combine.h"
#include "pmcfuse/evaluate.h"
#include "pmcfuse/multiplex.h"
#include "pmcfuse/util.h"

/* The widest type-name column of the type table. */
#define TYPE_COL_MAX 64

/* Characters of UTF-8 text s (bytes that do not continue a sequence). */
static size_t utf8_chars(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static const char usage[] =
	"usage: pmcfuse show [-v] [-q] [--json] PROFILE\n\n"
	"Summarises a profile: its metadata, the number of XUs, the XU types with their\n"
	"counts, and for every event the min, median and max over the XUs that have a\n"
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

struct evstat {
	size_t present, negative;
	double min, median, max, mean;
	int covered;                    /* a coverage layer exists for this event */
	double measured, time_measured; /* multiplexing: share of XUs / of time measured */
};

static void stats(const double *col, size_t n, double *scratch, struct evstat *s)
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
	s->median = pmcf_median(scratch, s->present);
}

/* The relations between events that XUs break (pmcf_consistency_check):
 * JSON, a member "consistency" with every relation checked; text, one line
 * per relation broken. */
static void print_consistency(const pmcf_profile *p, int json)
{
	pmcf_consistency c[32];
	size_t n = 0;
	if (pmcf_consistency_check(p, c, sizeof(c) / sizeof(c[0]), &n) != 0)
		n = 0;
	if (json)
		printf(",\n  \"consistency\": [");
	for (size_t k = 0; k < n; k++) {
		if (json) {
			printf("%s{\"lhs\": \"%s\", \"rhs\": \"%s\", \"checked\": %zu, \"violated\": %zu, "
			       "\"cross\": %zu}",
			       k ? ", " : "", c[k].lhs, c[k].rhs, c[k].checked, c[k].violated, c[k].cross);
		} else if (c[k].violated) {
			printf("consistency: %s > %s on %zu of %zu XUs", c[k].lhs, c[k].rhs, c[k].violated,
			       c[k].checked);
			if (pmcf_profile_has_provenance(p))
				printf(" (%zu with values from different executions)\n", c[k].cross);
			else
				printf(" (values of one execution)\n");
		}
	}
	if (json)
		printf("]");
}

/* An MPI program's profile: the XUs of each rank. JSON, a member "ranks"
 * [{rank, xus}]; text, one line. Nothing for other profiles. */
static void print_ranks(const pmcf_profile *p, int json)
{
	uint32_t nr;
	size_t *cnt = cli_rank_counts(p, &nr);
	if (!cnt)
		return;
	printf(json ? ",\n  \"ranks\": [" : "ranks     %u (MPI)", nr);
	for (uint32_t r = 0; r < nr; r++)
		printf(json ? "%s{\"rank\": %u, \"xus\": %zu}" : "%s rank %u: %zu XUs", r ? "," : "", r,
		       cnt[r]);
	printf(json ? "]" : "\n");
	free(cnt);
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
	if (optind + 1 != argc)
		return cli_usage_error("show", optind == argc ? "missing PROFILE" : "expected one PROFILE");
	pmcf_profile *p;
	int st = cli_open_profile("show", argv[optind], &p);
	if (st)
		return st;

	size_t nx = pmcf_profile_nxus(p), ne = pmcf_profile_nevents(p), nt = pmcf_profile_ntypes(p);
	size_t *type_count = calloc(nt ? nt : 1, sizeof(*type_count));
	double *scratch = malloc((nx ? nx : 1) * sizeof(*scratch));
	struct evstat *es = calloc(ne ? ne : 1, sizeof(*es));
	if (!type_count || !scratch || !es) {
		free(type_count);
		free(scratch);
		free(es);
		pmcf_profile_free(p);
		return cli_error("show", CLI_EENV, "out of memory summarising '%s'", argv[optind]);
	}
	for (size_t i = 0; i < nx; i++) {
		pmcf_xu xu;
		if (pmcf_profile_xu_get_fields(p, i, &xu) == 0 && xu.type < nt)
			type_count[xu.type]++;
	}
	for (size_t e = 0; e < ne; e++)
		stats(pmcf_profile_column_const(p, e), nx, scratch, &es[e]);
	for (size_t e = 0; e < ne; e++)
		es[e].covered =
			strcmp(pmcf_profile_event_name(p, e), PMCF_EVENT_DURATION) != 0 &&
			pmcf_profile_coverage_summary(p, e, &es[e].measured, &es[e].time_measured) == 0;
	pmcf_match_summary ms = {.size = sizeof(ms)};
	if (pmcf_combine_match_summary(p, &ms) != 0)
		ms.measured = 0;

	if (json) {
		printf("{\n  \"path\": ");
		cli_json_string(stdout, argv[optind]);
		printf(",\n  \"meta\": {");
		for (size_t i = 0; i < pmcf_profile_meta_count(p); i++) {
			const char *k, *v;
			pmcf_profile_meta_at(p, i, &k, &v);
			printf("%s", i ? ", " : "");
			cli_json_string(stdout, k);
			printf(": ");
			cli_json_string(stdout, v);
		}
		printf("},\n  \"complete\": %s,\n  \"xus\": %zu,\n  \"types\": [",
		       pmcf_profile_complete(p) ? "true" : "false", nx);
		for (uint32_t t = 0; t < nt; t++) {
			pmcf_xu_type ty;
			pmcf_profile_type_get(p, t, &ty);
			printf("%s\n    {\"id\": %u, \"kind\": \"%s\", \"name\": ", t ? "," : "", t,
			       pmcf_xu_kind_name(ty.kind));
			cli_json_string(stdout, ty.name);
			printf(", \"location\": ");
			cli_json_string(stdout, ty.location);
			printf(", \"callee\": ");
			cli_json_string(stdout, pmcf_profile_type_callee(p, t));
			printf(", \"xus\": %zu}", type_count[t]);
		}
		printf("%s],\n  \"events\": [", nt ? "\n  " : "");
		for (size_t e = 0; e < ne; e++) {
			printf("%s\n    {\"name\": ", e ? "," : "");
			cli_json_string(stdout, pmcf_profile_event_name(p, e));
			printf(", \"present\": %zu, \"missing\": ", es[e].present);
			cli_json_number(stdout, nx ? (double)(nx - es[e].present) / (double)nx : 0.0);
			printf(", \"negative\": %zu, \"min\": ", es[e].negative);
			cli_json_number(stdout, es[e].present ? es[e].min : NAN);
			cli_json_member(stdout, "median", es[e].present ? es[e].median : NAN);
			cli_json_member(stdout, "max", es[e].present ? es[e].max : NAN);
			cli_json_member(stdout, "mean", es[e].present ? es[e].mean : NAN);
			if (es[e].covered) {
				cli_json_member(stdout, "measured", es[e].measured);
				cli_json_member(stdout, "time_measured", es[e].time_measured);
			}
			printf("}");
		}
		printf("%s],\n  \"truth_events\": [", ne ? "\n  " : "");
		for (size_t t = 0; t < pmcf_profile_ntruth(p); t++) {
			printf("%s", t ? ", " : "");
			cli_json_string(stdout, pmcf_profile_truth_name(p, t));
		}
		printf("],\n  \"layers\": {\"truth\": %s, \"coverage\": %s, \"provenance\": %s, "
		       "\"base_labels\": %s}",
		       pmcf_profile_ntruth(p) ? "true" : "false",
		       pmcf_profile_has_coverage(p) ? "true" : "false",
		       pmcf_profile_has_provenance(p) ? "true" : "false",
		       pmcf_profile_has_base_labels(p) ? "true" : "false");
		if (ms.measured) {
			printf(",\n  \"match\": {\"measured\": %zu, \"min\": ", ms.measured);
			cli_json_number(stdout, ms.min);
			cli_json_member(stdout, "median", ms.p50);
			cli_json_member(stdout, "p90", ms.p90);
			cli_json_member(stdout, "p99", ms.p99);
			cli_json_member(stdout, "max", ms.max);
			cli_json_member(stdout, "mean", ms.mean);
			printf(", \"histogram\": [");
			for (int b = 0; b < 7; b++) {
				printf("%s{\"below\": ", b ? ", " : "");
				cli_json_number(stdout, pmcf_match_hist_edges[b]);
				printf(", \"xus\": %zu}", ms.hist[b]);
			}
			printf("]}");
		}
		double in_xus, run;
		const char *clk = pmcf_profile_cpu_in_xus(p, &in_xus, &run);
		if (clk) {
			printf(",\n  \"cpu_time\": {\"event\": \"%s\", \"in_xus\": ", clk);
			cli_json_number(stdout, in_xus);
			cli_json_member(stdout, "run", run);
			cli_json_member(stdout, "share", in_xus / run);
			printf("}");
		}
		print_ranks(p, 1);
		print_consistency(p, 1);
		printf("\n}\n");
	} else if (!cli_quiet) {
		printf("profile   %s\n", argv[optind]);
		for (size_t i = 0; i < pmcf_profile_meta_count(p); i++) {
			const char *k, *v;
			pmcf_profile_meta_at(p, i, &k, &v);
			char h[32];
			size_t kl = strlen(k);
			/* a time in ns: also for people */
			if (kl > 3 && strcmp(k + kl - 3, "_ns") == 0 && v[0] >= '0' && v[0] <= '9')
				printf("  %-16s %s (%s)\n", k, v,
				       cli_human(h, sizeof(h), strtod(v, NULL), 1));
			else
				printf("  %-16s %s\n", k, v);
		}
		printf("complete  %s\n", pmcf_profile_complete(p) ? "yes" : "NO (the run did not finish)");
		printf("XUs       %zu\n", nx);
		printf("types     %zu\n", nt);
		/* the name column as wide as the widest name (in characters), at
		 * least 24 and at most TYPE_COL_MAX; a longer name stands on a line
		 * of its own, the row below it */
		size_t w = 24;
		for (uint32_t t = 0; t < nt; t++) {
			pmcf_xu_type ty;
			pmcf_profile_type_get(p, t, &ty);
			size_t c = utf8_chars(ty.name);
			if (c > w && c <= TYPE_COL_MAX)
				w = c;
		}
		for (uint32_t t = 0; t < nt; t++) {
			pmcf_xu_type ty;
			pmcf_profile_type_get(p, t, &ty);
			size_t c = utf8_chars(ty.name);
			if (c > w)
				printf("  %s\n  %*s", ty.name, (int)w, "");
			else
				printf("  %s%*s", ty.name, (int)(w - c), "");
			/* what the block calls, where the name does not say it */
			const char *callee = pmcf_profile_type_callee(p, t);
			size_t cl = strlen(callee);
			int said = cl && strncmp(ty.name, callee, cl) == 0 &&
				   (!ty.name[cl] || ty.name[cl] == '@');
			printf(" %-10s %10zu XUs%s%s%s%s\n", pmcf_xu_kind_name(ty.kind), type_count[t],
			       ty.location[0] ? "  at " : "", ty.location, cl && !said ? "  calls " : "",
			       cl && !said ? callee : "");
		}
		print_ranks(p, 0);
		printf("events    %zu\n", ne);
		printf("  %-28s %14s %14s %14s %8s %9s\n", "EVENT", "MIN", "MEDIAN", "MAX", "MISSING",
		       "NEGATIVE");
		for (size_t e = 0; e < ne; e++) {
			const struct evstat *s = &es[e];
			const char *name = pmcf_profile_event_name(p, e);
			int ns = cli_event_is_ns(name);
			char a[32], b[32], c[32];
			printf("  %-28s ", name);
			if (s->present && cli_verbose)
				printf("%14.15g %14.15g %14.15g", s->min, s->median, s->max);
			else if (s->present)
				printf("%*s %*s %*s", cli_width(cli_human(a, sizeof(a), s->min, ns), 14), a,
				       cli_width(cli_human(b, sizeof(b), s->median, ns), 14), b,
				       cli_width(cli_human(c, sizeof(c), s->max, ns), 14), c);
			else
				printf("%14s %14s %14s", "-", "-", "-");
			printf(" %7.2f%% %9zu\n", nx ? 100.0 * (double)(nx - s->present) / (double)nx : 0.0,
			       s->negative);
		}
		double in_xus, run;
		const char *clk = pmcf_profile_cpu_in_xus(p, &in_xus, &run);
		if (clk) {
			char a[32], b[32];
			printf("cpu time  %s in XUs: %s of %s, the CPU time of the run under the collector "
			       "(%.1f %%); the rest ran outside every XU: serial code, the runtime "
			       "between XUs, the collector (docs/collector.md)\n",
			       clk, cli_human(a, sizeof(a), in_xus, 1), cli_human(b, sizeof(b), run, 1),
			       100.0 * in_xus / run);
		}
		if (pmcf_profile_ntruth(p))
			printf("truth     ground truth of %zu events (export --truth)\n",
			       pmcf_profile_ntruth(p));
		if (pmcf_profile_has_coverage(p)) {
			printf("coverage  multiplexed: how much of each event was really counted\n");
			printf("  %-28s %14s %14s\n", "EVENT", "XUS MEASURED", "TIME MEASURED");
			for (size_t e = 0; e < ne; e++)
				if (es[e].covered)
					printf("  %-28s %13.1f%% %13.1f%%\n", pmcf_profile_event_name(p, e),
					       100.0 * es[e].measured, 100.0 * es[e].time_measured);
		}
		if (pmcf_profile_has_provenance(p))
			printf("sources   %zu fused profile%s\n", pmcf_profile_nsources(p),
			       pmcf_profile_nsources(p) == 1 ? "" : "s");
		if (pmcf_profile_has_base_labels(p))
			printf("labels    base labels: each XU's label in the execution that provided it, "
			       "for joining (export --provenance)\n");
		if (ms.measured) {
			printf("match     distance over %zu XUs: median %.3g, p90 %.3g, p99 %.3g, max %.3g\n",
			       ms.measured, ms.p50, ms.p90, ms.p99, ms.max);
			double lo = 0;
			for (int b = 0; b < 7; b++) {
				double hi = pmcf_match_hist_edges[b];
				int bar = (int)(40.0 * (double)ms.hist[b] / (double)ms.measured + 0.5);
				char range[48];
				if (isinf(hi))
					snprintf(range, sizeof(range), ">= %.2g", lo);
				else
					snprintf(range, sizeof(range), "[%.2g, %.2g)", lo, hi);
				printf("  %-14s %8zu %.*s\n", range, ms.hist[b], bar,
				       "########################################");
				lo = hi;
			}
		}
		print_consistency(p, 0);
	}
	free(type_count);
	free(scratch);
	free(es);
	pmcf_profile_free(p);
	if (fflush(stdout) != 0)
		return cli_error("show", CLI_EENV, "cannot write to standard output: %s", strerror(errno));
	return CLI_OK;
}
