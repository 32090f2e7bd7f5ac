/* What a recording ends with: the summary of record and the line of how a
 * program was observed (record, run). The recording itself goes through
 * pmcf_source (pmcfuse/source.h). */
#ifndef PMCF_CLI_RECORD_PROGRAM_H
#define PMCF_CLI_RECORD_PROGRAM_H
#include "pmcfuse/collect.h"
#include "pmcfuse/profile.h"

/* What a recording ends with. Text (unless --quiet), on stderr: for a
 * program (how not NULL) "pmcfuse: VERB: N XUs of SOURCE (how) -> out", and
 * for a multiplexed profile the line of cli_mux_summary (rotations as
 * there). JSON, on stdout: {"output", "source", "xus", "events",
 * "complete", "observed" (a program), "multiplex": {...} (multiplexed)}. */
void cli_record_summary(const char *verb, const pmcf_profile *p, const char *out, const char *source,
			const char *how, long rotations, int json);

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
