/* `record -- PROG ARGS` on a real program: event list against the perf
 * catalogue, pmcf_collect_program (optionally multiplexed: kernel, rr, roc),
 * atomic save, and a clear message when the program crashed or was killed
 * (the profile is kept, marked incomplete). */
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/record_program.h"
#include "counters/perf.h"
#include "pmcfuse/collect.h"
#include "pmcfuse/sim.h"

int cli_record_program(const char *verb, const char *events_spec, unsigned pmcs, const char *out,
		       int prog_argc, char **prog_argv)
{
	return cli_record_program_mux(verb, events_spec, pmcs, PMCF_MUX_NONE, 0, PMCF_EST_CUMULATIVE,
				      out, prog_argc, prog_argv);
}

int cli_record_program_mux(const char *verb, const char *events_spec, unsigned pmcs, int multiplex,
			   double period_ms, int estimate, const char *out, int prog_argc,
			   char **prog_argv)
{
	if (prog_argc < 1 || !prog_argv || !prog_argv[0])
		return cli_usage_error(verb, "no program after --");
	if (!out)
		return cli_usage_error(verb, "-o OUT is required");
	pmcf_catalog *cat = NULL;
	pmcf_evlist *evl = NULL;
	int err = pmcfi_catalog_perf_for_spec(events_spec, &cat);
	if (err)
		return cli_lib_error(verb, err, "event catalogue");
	err = pmcf_evlist_parse(cat, events_spec ? events_spec : PMCF_EVENT_DURATION, &evl);
	if (err) {
		pmcf_catalog_free(cat);
		return cli_lib_error(verb, err, "events");
	}
	char **argv = calloc((size_t)prog_argc + 1, sizeof(*argv));
	if (!argv) {
		pmcf_evlist_free(evl);
		pmcf_catalog_free(cat);
		return cli_lib_error(verb, PMCF_ENOMEM, "arguments");
	}
	memcpy(argv, prog_argv, (size_t)prog_argc * sizeof(*argv));
	pmcf_collect_opts opts = {.size = sizeof(opts),
				  .pmcs = pmcs,
				  .multiplex = multiplex,
				  .period_ms = period_ms,
				  .estimate = estimate};
	pmcf_profile *p = NULL;
	pmcf_exit_info ei;
	err = pmcf_collect_program(argv, pmcf_evlist_names(evl), pmcf_evlist_size(evl), &opts, &p,
				   &ei);
	int status = CLI_OK;
	if (err && err != PMCF_EPROGRAM) {
		status = cli_lib_error(verb, err, prog_argv[0]);
		goto done;
	}
	int serr = pmcf_profile_save(p, out);
	if (serr) {
		status = cli_lib_error(verb, serr, out);
		goto done;
	}
	if (err == PMCF_EPROGRAM) {
		status = cli_error(verb, CLI_EENV, "%s (saved to %s)", ei.message, out);
		goto done;
	}
	fprintf(stderr, "pmcfuse: %s: %zu XUs of %s (%s) -> %s\n", verb, ei.xus, prog_argv[0],
		ei.ompt ? "OpenMP" : ei.fallback ? "no OMPT runtime: one XU per thread" : "task API",
		out);
	if (multiplex != PMCF_MUX_NONE)
		fprintf(stderr,
			"pmcfuse: %s: multiplexed (%s, %s estimate): %zu XUs not always counted, "
			"%zu negative and %zu missing values, %zu user-space rotations\n",
			verb, pmcf_mux_mode_name(multiplex), pmcf_estimate_name(estimate),
			ei.multiplexed_xus, ei.negative_values, ei.missing_values, ei.rotations);
done:
	pmcf_profile_free(p);
	free(argv);
	pmcf_evlist_free(evl);
	pmcf_catalog_free(cat);
	return status;
}
