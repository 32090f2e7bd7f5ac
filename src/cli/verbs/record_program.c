/* What a recording ends with (record, run): the summary line or JSON, the
 * multiplexing line, and how a program was observed. */
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/output.h"
#include "cli/verbs/record_program.h"
#include "pmcfuse/collect.h"
#include "pmcfuse/multiplex.h"

void cli_record_summary(const char *verb, const pmcf_profile *p, const char *out, const char *source,
			const char *how, long rotations, int json)
{
	pmcf_mux_summary s = {.size = sizeof(s)};
	int mux = pmcf_profile_mux_summary(p, &s) == 0;
	const char *mode = pmcf_profile_meta_get(p, PMCF_META_MULTIPLEX);
	int multiplexed = mode && strcmp(mode, "none") != 0;
	if (!json) {
		if (cli_quiet)
			return;
		if (how)
			fprintf(stderr, "pmcfuse: %s: %zu XU%s of %s (%s) -> %s\n", verb,
				pmcf_profile_nxus(p), pmcf_profile_nxus(p) == 1 ? "" : "s", source, how, out);
		if (multiplexed)
			cli_mux_summary(verb, p, rotations);
		return;
	}
	printf("{\"output\": ");
	cli_json_string(stdout, out);
	printf(", \"source\": ");
	cli_json_string(stdout, source);
	printf(", \"xus\": %zu, \"events\": %zu, \"complete\": %s", pmcf_profile_nxus(p),
	       pmcf_profile_nevents(p), pmcf_profile_complete(p) ? "true" : "false");
	if (how) {
		printf(", \"observed\": ");
		cli_json_string(stdout, how);
	}
	if (multiplexed) {
		printf(", \"multiplex\": {\"mode\": ");
		cli_json_string(stdout, mode);
		if (mux)
			printf(", \"never_counted\": %zu, \"values\": %zu, \"missing\": %zu, "
			       "\"negative\": %zu, \"partial_xus\": %zu",
			       s.never_counted, s.values, s.missing, s.negative, s.partial_xus);
		if (rotations >= 0)
			printf(", \"rotations\": %ld", rotations);
		printf("}");
	}
	printf("}\n");
}

const char *cli_collect_how(const pmcf_exit_info *ei)
{
	return ei->ompt ? "OpenMP" : ei->fallback ? "no OMPT runtime: one XU per thread" : "task API";
}

void cli_mux_summary(const char *verb, const pmcf_profile *p, long rotations)
{
	const char *mode = pmcf_profile_meta_get(p, PMCF_META_MULTIPLEX);
	const char *est = pmcf_profile_meta_get(p, PMCF_META_ESTIMATE);
	const char *per = pmcf_profile_meta_get(p, PMCF_META_PERIOD_MS);
	fprintf(stderr, "pmcfuse: %s: multiplexed (%s, %s estimate, period %s ms): ", verb, mode ? mode : "?",
		est ? est : "?", per ? per : "?");
	pmcf_mux_summary s = {.size = sizeof(s)};
	if (pmcf_profile_mux_summary(p, &s) != 0) {
		fprintf(stderr, "not needed, the events fit the counters together: every value "
				"counted all the time\n");
		return;
	}
	if (s.never_counted) {
		/* perf's word for an event that never got a counter */
		fprintf(stderr, "%zu of %zu event%s never counted during any XU (perf: <not counted>): ",
			s.never_counted, s.events, s.events == 1 ? "" : "s");
		size_t shown = 0, show = s.never_counted <= 4 ? s.never_counted : 3;
		for (size_t e = 0; e < pmcf_profile_nevents(p) && shown < show; e++)
			if (pmcf_profile_coverage_never_counted(p, e) == 1)
				fprintf(stderr, "%s%s", shown++ ? ", " : "", pmcf_profile_event_name(p, e));
		if (s.never_counted > show)
			fprintf(stderr, " and %zu more", s.never_counted - show);
	} else {
		fprintf(stderr, "each of the %zu events counted during some XU", s.events);
	}
	fprintf(stderr, "; %zu of %zu values missing (%.1f%%)", s.missing, s.values,
		s.values ? 100.0 * (double)s.missing / (double)s.values : 0.0);
	if (s.partial_xus)
		fprintf(stderr, "; %zu of %zu XU%s not always counted", s.partial_xus, s.xus,
			s.xus == 1 ? "" : "s");
	else
		fprintf(stderr, "; every XU counted all the time");
	if (s.negative)
		fprintf(stderr, "; %zu negative value%s", s.negative, s.negative == 1 ? "" : "s");
	if (rotations >= 0)
		fprintf(stderr, "; %ld user-space rotations", rotations);
	/* only where the counters really rotated: software events under
	 * `kernel` need no counter, and a short run then loses nothing */
	if ((s.partial_xus || s.never_counted) && s.period_ns > 0 && s.run_ns < s.period_ns)
		fprintf(stderr,
			"; warning: the run lasted %.3g ms, less than one rotation period (%s ms): "
			"the counters hardly rotated, use a shorter --period-ms",
			s.run_ns / 1e6, per);
	fputc('\n', stderr);
}
