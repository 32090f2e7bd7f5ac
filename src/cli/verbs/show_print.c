/* `pmcfuse show`: printing a profile's summary as text (show_json.c: as
 * JSON). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/output.h"
#include "pmcfuse/combine.h"
#include "pmcfuse/evaluate.h"
#include "pmcfuse/multiplex.h"
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
