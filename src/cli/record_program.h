/* `record -- PROG ARGS`: runs a real program under the collector and saves
 * its profile. Shared by the record verb (and usable by others). */
#ifndef PMCF_CLI_RECORD_PROGRAM_H
#define PMCF_CLI_RECORD_PROGRAM_H
#include "pmcfuse/collect.h"
#include "pmcfuse/profile.h"

struct cli_plan_meta;
/* Records prog_argv[0..prog_argc) counting events_spec (an -e EVENTS value:
 * list, "all" or @FILE, against the perf catalogue; NULL: duration only)
 * within a budget of pmcs counters (0: the machine's), with hardware event
 * multiplexing multiplex (enum pmcf_mux_mode; PMCF_MUX_NONE: none), its
 * period in ms and per-XU estimator (enum pmcf_estimate; see
 * pmcf_collect_opts), and writes the profile to out atomically, with the
 * plan metadata pm (NULL: none). Prints errors as `pmcfuse: VERB: …` and a
 * summary line on stderr. Returns the exit status: CLI_OK; CLI_EUSAGE for
 * bad events or a set that does not fit; CLI_EENV for environment errors
 * and when the program failed (crash, signal, non-zero status: the profile
 * is still written, marked incomplete); 128 + the signal when a signal
 * caught by cli_signals_catch stopped the program (the profile is written,
 * marked incomplete). json: the summary is cli_record_summary's JSON. */
int cli_record_program(const char *verb, const char *events_spec, unsigned pmcs, int multiplex,
		       double period_ms, int estimate, const struct cli_plan_meta *pm,
		       const char *out, int prog_argc, char **prog_argv, int json);

/* What a recording ends with. Text (unless --quiet), on stderr: for a
 * program (how not NULL) "pmcfuse: VERB: N XUs of SOURCE (how) -> out", and
 * for a multiplexed profile the line of cli_mux_summary (rotations as
 * there). JSON, on stdout: {"output", "source", "xus", "events",
 * "complete", "observed" (a program), "multiplex": {...} (multiplexed)}. */
void cli_record_summary(const char *verb, const pmcf_profile *p, const char *out,
			const char *source, const char *how, long rotations, int json);

/* Prints the one line `record --multiplex` ends with, on stderr: per
 * recording, the events that never counted during any XU (perf's <not
 * counted>: names, or the first ones and a count), the share of values
 * missing, the XUs not always counted, negative values, the user-space
 * rotations (rotations >= 0; -1 for the kernel's) and a warning when the run
 * was shorter than one rotation period. p: the recorded profile. */
void cli_mux_summary(const char *verb, const pmcf_profile *p, long rotations);

/* How a program was observed, for messages: "OpenMP", "task API", or "no
 * OMPT runtime: one XU per thread" (a program without OMPT, e.g. libgomp). */
const char *cli_collect_how(const pmcf_exit_info *ei);
#endif
