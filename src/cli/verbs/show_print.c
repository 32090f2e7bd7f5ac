/* `pmcfuse show`: printing a profile's summary, as text or as JSON. */
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

/* show --json: one object on standard output; -1 when it cannot be built. */
int cli_show_json(const struct cli_show_summary *s)
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
static void print_head(const struct cli_show_summary *s)
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
static void print_types(const struct cli_show_summary *s)
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

static void print_events(const struct cli_show_summary *sum)
{
	const pmcf_profile *p = sum->p;
	size_t nx = sum->nx;
	printf("events    %zu\n", sum->ne);
	printf("  %-28s %14s %14s %14s %8s %9s\n", "EVENT", "MIN", "MEDIAN", "MAX", "MISSING", "NEGATIVE");
	for (size_t e = 0; e < sum->ne; e++) {
		const struct cli_show_evstat *s = &sum->es[e];
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
static void print_layers(const struct cli_show_summary *s)
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

void cli_show_text(const struct cli_show_summary *s)
{
	print_head(s);
	print_types(s);
	print_ranks(s->p);
	print_events(s);
	print_layers(s);
	if (s->ms.measured)
		print_match(&s->ms);
	print_consistency(s->p);
}
