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
	s->median = pmcfi_median(scratch, s->present);
}

/* JSON: a member "consistency" of j with every relation checked. */
static void json_consistency(const pmcf_profile *p, json_t *j)
{
	pmcf_consistency c[32] = {PMCF_CONSISTENCY_INIT};
	size_t n = 0;
	if (pmcf_consistency_check(p, c, sizeof(c) / sizeof(c[0]), &n) != 0)
		n = 0;
	json_t *a = json_array();
	for (size_t k = 0; k < n; k++)
		json_array_append_new(a,
				      json_pack("{s:o, s:o, s:I, s:I, s:I}", "lhs", cli_jstr(c[k].lhs), "rhs",
						cli_jstr(c[k].rhs), "checked", (json_int_t)c[k].checked,
						"violated", (json_int_t)c[k].violated, "cross",
						(json_int_t)c[k].cross));
	json_object_set_new(j, "consistency", a);
}

/* JSON: a member "ranks" [{rank, xus}] of j for an MPI program's profile. */
static void json_ranks(const pmcf_profile *p, json_t *j)
{
	uint32_t nr;
	size_t *cnt = cli_rank_counts(p, &nr);
	if (!cnt)
		return;
	json_t *a = json_array();
	for (uint32_t r = 0; r < nr; r++)
		json_array_append_new(a, json_pack("{s:I, s:I}", "rank", (json_int_t)r, "xus",
						   (json_int_t)cnt[r]));
	json_object_set_new(j, "ranks", a);
	free(cnt);
}

/* Text: one line per relation between events that XUs break
 * (pmcf_consistency_check). */
static void print_consistency(const pmcf_profile *p)
{
	pmcf_consistency c[32] = {PMCF_CONSISTENCY_INIT};
	size_t n = 0;
	if (pmcf_consistency_check(p, c, sizeof(c) / sizeof(c[0]), &n) != 0)
		n = 0;
	for (size_t k = 0; k < n; k++) {
		if (c[k].violated) {
			printf("consistency: %s > %s on %zu of %zu XU%s", c[k].lhs, c[k].rhs, c[k].violated,
			       c[k].checked, c[k].checked == 1 ? "" : "s");
			if (pmcf_profile_has_provenance(p))
				printf(" (%zu with values from different executions)\n", c[k].cross);
			else
				printf(" (values of one execution)\n");
		}
	}
}

/* Text: the XUs of each rank of an MPI program's profile, one line. */
static void print_ranks(const pmcf_profile *p)
{
	uint32_t nr;
	size_t *cnt = cli_rank_counts(p, &nr);
	if (!cnt)
		return;
	printf("ranks     %u (MPI)", nr);
	for (uint32_t r = 0; r < nr; r++)
		printf("%s rank %u: %zu XU%s", r ? "," : "", r, cnt[r], cnt[r] == 1 ? "" : "s");
	printf("\n");
	free(cnt);
}

/* What show prints about one profile. */
struct summary {
	const pmcf_profile *p;
	const char *path;
	size_t nx, ne, nt;
	size_t *type_count; /* XUs per type */
	struct evstat *es;  /* per event */
	pmcf_match_summary ms;
};

static void summary_free(struct summary *s)
{
	free(s->type_count);
	free(s->es);
}

/* XUs per type, each event's statistics and coverage, the match
 * distances; 0, or a CLI status (an error printed). */
static int summarise(const pmcf_profile *p, const char *path, struct summary *s)
{
	*s = (struct summary){.p = p, .path = path, .ms = {.size = sizeof(s->ms)}};
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

/* show --json: one object on standard output; -1 when it cannot be built. */
static int show_json(const struct summary *s)
{
	const pmcf_profile *p = s->p;
	json_t *j = json_object(), *types = json_array(), *events = json_array(), *truth = json_array();
	json_object_set_new(j, "path", cli_jstr(s->path));
	json_object_set_new(j, "meta", cli_meta_json(p));
	json_object_set_new(j, "complete", json_boolean(pmcf_profile_complete(p)));
	json_object_set_new(j, "xus", json_integer((json_int_t)s->nx));
	for (uint32_t t = 0; t < s->nt; t++) {
		pmcf_xu_type ty = PMCF_XU_TYPE_INIT;
		pmcf_profile_type_get(p, t, &ty);
		json_array_append_new(types, json_pack("{s:I, s:s, s:o, s:o, s:o, s:I}", "id", (json_int_t)t,
						       "kind", pmcf_xu_kind_name(ty.kind), "name",
						       cli_jstr(ty.name), "location", cli_jstr(ty.location),
						       "callee", cli_jstr(pmcf_profile_type_callee(p, t)),
						       "xus", (json_int_t)s->type_count[t]));
	}
	json_object_set_new(j, "types", types);
	for (size_t e = 0; e < s->ne; e++) {
		int has = s->es[e].present > 0;
		json_t *ev =
			json_pack("{s:o, s:I, s:o, s:I, s:o, s:o, s:o, s:o}", "name",
				  cli_jstr(pmcf_profile_event_name(p, e)), "present",
				  (json_int_t)s->es[e].present, "missing",
				  cli_jnum(s->nx ? (double)(s->nx - s->es[e].present) / (double)s->nx : 0.0),
				  "negative", (json_int_t)s->es[e].negative, "min",
				  cli_jnum(has ? s->es[e].min : NAN), "median",
				  cli_jnum(has ? s->es[e].median : NAN), "max",
				  cli_jnum(has ? s->es[e].max : NAN), "mean",
				  cli_jnum(has ? s->es[e].mean : NAN));
		if (ev && s->es[e].covered) {
			json_object_set_new(ev, "measured", cli_jnum(s->es[e].measured));
			json_object_set_new(ev, "time_measured", cli_jnum(s->es[e].time_measured));
		}
		json_array_append_new(events, ev);
	}
	json_object_set_new(j, "events", events);
	for (size_t t = 0; t < pmcf_profile_ntruth(p); t++)
		json_array_append_new(truth, cli_jstr(pmcf_profile_truth_name(p, t)));
	json_object_set_new(j, "truth_events", truth);
	json_object_set_new(j, "layers",
			    json_pack("{s:b, s:b, s:b, s:b}", "truth", pmcf_profile_ntruth(p) > 0, "coverage",
				      pmcf_profile_has_coverage(p), "provenance",
				      pmcf_profile_has_provenance(p), "base_labels",
				      pmcf_profile_has_base_labels(p)));
	if (s->ms.measured) {
		json_t *hist = json_array();
		for (int b = 0; b < 7; b++)
			json_array_append_new(hist, json_pack("{s:o, s:I}", "below",
							      cli_jnum(pmcf_match_hist_edges[b]), "xus",
							      (json_int_t)s->ms.hist[b]));
		json_object_set_new(j, "match",
				    json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "measured",
					      (json_int_t)s->ms.measured, "min", cli_jnum(s->ms.min),
					      "median", cli_jnum(s->ms.p50), "p90", cli_jnum(s->ms.p90),
					      "p99", cli_jnum(s->ms.p99), "max", cli_jnum(s->ms.max), "mean",
					      cli_jnum(s->ms.mean), "histogram", hist));
	}
	double in_xus, run;
	const char *clk = pmcf_profile_cpu_in_xus(p, &in_xus, &run);
	if (clk)
		json_object_set_new(j, "cpu_time",
				    json_pack("{s:o, s:o, s:o, s:o}", "event", cli_jstr(clk), "in_xus",
					      cli_jnum(in_xus), "run", cli_jnum(run), "share",
					      cli_jnum(in_xus / run)));
	json_ranks(p, j);
	json_consistency(p, j);
	return cli_json_dump(stdout, j, 1) != 0 && !ferror(stdout) ? -1 : 0;
}

/* The metadata (times in ns also for people) and the totals. */
static void print_head(const struct summary *s)
{
	const pmcf_profile *p = s->p;
	printf("profile   %s\n", s->path);
	for (size_t i = 0; i < pmcf_profile_meta_count(p); i++) {
		const char *k, *v;
		pmcf_profile_meta_at(p, i, &k, &v);
		char h[32];
		size_t kl = strlen(k);
		/* a time in ns: also for people */
		if (kl > 3 && strcmp(k + kl - 3, "_ns") == 0 && v[0] >= '0' && v[0] <= '9')
			printf("  %-16s %s (%s)\n", k, v, cli_human(h, sizeof(h), strtod(v, NULL), 1));
		else
			printf("  %-16s %s\n", k, v);
	}
	printf("complete  %s\n", pmcf_profile_complete(p) ? "yes" : "NO (the run did not finish)");
	printf("XUs       %zu\n", s->nx);
	printf("types     %zu\n", s->nt);
}

/* The types: the name column as wide as the widest name (in characters),
 * at least 24 and at most TYPE_COL_MAX; a longer name stands on a line of
 * its own, the row below it. */
static void print_types(const struct summary *s)
{
	const pmcf_profile *p = s->p;
	size_t w = 24;
	for (uint32_t t = 0; t < s->nt; t++) {
		pmcf_xu_type ty = PMCF_XU_TYPE_INIT;
		pmcf_profile_type_get(p, t, &ty);
		size_t c = utf8_chars(ty.name);
		if (c > w && c <= TYPE_COL_MAX)
			w = c;
	}
	for (uint32_t t = 0; t < s->nt; t++) {
		pmcf_xu_type ty = PMCF_XU_TYPE_INIT;
		pmcf_profile_type_get(p, t, &ty);
		size_t c = utf8_chars(ty.name);
		if (c > w)
			printf("  %s\n  %*s", ty.name, (int)w, "");
		else
			printf("  %s%*s", ty.name, (int)(w - c), "");
		/* what the block calls, where the name does not say it */
		const char *callee = pmcf_profile_type_callee(p, t);
		size_t cl = strlen(callee);
		int said = cl && strncmp(ty.name, callee, cl) == 0 && (!ty.name[cl] || ty.name[cl] == '@');
		printf(" %-10s %10zu XU%s%s%s%s%s\n", pmcf_xu_kind_name(ty.kind), s->type_count[t],
		       s->type_count[t] == 1 ? "" : "s", ty.location[0] ? "  at " : "", ty.location,
		       cl && !said ? "  calls " : "", cl && !said ? callee : "");
	}
}

static void print_events(const struct summary *sum)
{
	const pmcf_profile *p = sum->p;
	size_t nx = sum->nx;
	printf("events    %zu\n", sum->ne);
	printf("  %-28s %14s %14s %14s %8s %9s\n", "EVENT", "MIN", "MEDIAN", "MAX", "MISSING", "NEGATIVE");
	for (size_t e = 0; e < sum->ne; e++) {
		const struct evstat *s = &sum->es[e];
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
}

/* The CPU time in XUs and the profile's layers (truth, coverage,
 * provenance, base labels). */
static void print_layers(const struct summary *s)
{
	const pmcf_profile *p = s->p;
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
		printf("truth     ground truth of %zu event%s (export --truth)\n", pmcf_profile_ntruth(p),
		       pmcf_profile_ntruth(p) == 1 ? "" : "s");
	if (pmcf_profile_has_coverage(p)) {
		printf("coverage  multiplexed: how much of each event was really counted\n");
		printf("  %-28s %14s %14s\n", "EVENT", "XUS MEASURED", "TIME MEASURED");
		for (size_t e = 0; e < s->ne; e++)
			if (s->es[e].covered)
				printf("  %-28s %13.1f%% %13.1f%%\n", pmcf_profile_event_name(p, e),
				       100.0 * s->es[e].measured, 100.0 * s->es[e].time_measured);
	}
	if (pmcf_profile_has_provenance(p))
		printf("sources   %zu fused profile%s\n", pmcf_profile_nsources(p),
		       pmcf_profile_nsources(p) == 1 ? "" : "s");
	if (pmcf_profile_has_base_labels(p))
		printf("labels    base labels: each XU's label in the execution that provided it, "
		       "for joining (export --provenance)\n");
}

/* The match distances of a fused profile, with a histogram. */
static void print_match(const pmcf_match_summary *ms)
{
	printf("match     distance over %zu XU%s: median %.3g, p90 %.3g, p99 %.3g, max %.3g\n", ms->measured,
	       ms->measured == 1 ? "" : "s", ms->p50, ms->p90, ms->p99, ms->max);
	double lo = 0;
	for (int b = 0; b < 7; b++) {
		double hi = pmcf_match_hist_edges[b];
		int bar = (int)(40.0 * (double)ms->hist[b] / (double)ms->measured + 0.5);
		char range[48];
		if (isinf(hi))
			snprintf(range, sizeof(range), ">= %.2g", lo);
		else
			snprintf(range, sizeof(range), "[%.2g, %.2g)", lo, hi);
		printf("  %-14s %8zu %.*s\n", range, ms->hist[b], bar,
		       "########################################");
		lo = hi;
	}
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

	struct summary sum;
	if ((st = summarise(p, path, &sum))) {
		pmcf_profile_free(p);
		return st;
	}
	if (json && show_json(&sum) != 0) {
		summary_free(&sum);
		pmcf_profile_free(p);
		return cli_error("show", CLI_EENV, "out of memory writing JSON");
	} else if (!json && !cli_quiet) {
		print_head(&sum);
		print_types(&sum);
		print_ranks(p);
		print_events(&sum);
		print_layers(&sum);
		if (sum.ms.measured)
			print_match(&sum.ms);
		print_consistency(p);
	}
	summary_free(&sum);
	pmcf_profile_free(p);
	if (fflush(stdout) != 0)
		return cli_error("show", CLI_EENV, "cannot write to standard output: %s", strerror(errno));
	return CLI_OK;
}
