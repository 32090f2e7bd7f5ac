/* pmcfuse — where executions come from: a pmcf_source is a simulated
 * workload (a SPEC) or a real program (its argv), with what every
 * recording counts and how (pmcf_count_opts: counter budget, multiplexing,
 * period, estimator) held once. A verb builds one source, parses its event list against the
 * source's catalogue once, and records event sets (pmcf_evlist) through
 * it: the resolved list goes to the collector or the simulator as it is,
 * no name is looked up again. */
#ifndef PMCFUSE_SOURCE_H
#define PMCFUSE_SOURCE_H

#include "pmcfuse/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* pmcf_catalog, pmcf_evlist, pmcf_profile, pmcf_plan, pmcf_source and
 * pmcf_exit_info are declared in pmcfuse/base.h. */

/* What a source's recordings count (pmcf_count_opts) and how its program
 * runs (pmcf_program_opts) are declared in pmcfuse/base.h. */

/* A simulated source: spec as pmcf_sim_spec_parse reads it (errors as
 * there). o may be NULL (defaults); o->pmcs above 64, the counters the
 * simulator models, is PMCF_EINVAL here. Free with pmcf_source_free. */
PMCF_API int pmcf_source_new_sim(const char *spec, const pmcf_count_opts *o, pmcf_source **out);
/* A real program: argv[0..argc) (argv[0] looked up in PATH when it runs;
 * the program inherits the caller's working folder and environment), copied.
 * o and po may be NULL. PMCF_EINVAL when argc is 0. */
PMCF_API int pmcf_source_new_program(int argc, char *const argv[], const pmcf_count_opts *o,
				     const pmcf_program_opts *po, pmcf_source **out);
/* The source a plan names (pmcf_plan_sim / pmcf_plan_program), its base
 * seed the plan's; PMCF_ENOENT when the plan names none. */
PMCF_API int pmcf_source_new_from_plan(const pmcf_plan *p, const pmcf_count_opts *o,
				       const pmcf_program_opts *po, pmcf_source **out);
PMCF_API void pmcf_source_free(pmcf_source *s);

/* 1 for a simulated source, 0 for a program. */
PMCF_API int pmcf_source_is_sim(const pmcf_source *s);
/* For messages: the canonical SPEC with the seed of the last recording
 * (before any, the base seed), or the program (argv[0]). Owned by s. */
PMCF_API const char *pmcf_source_name(const pmcf_source *s);
/* The program's argv (NULL-terminated; *argc set), or NULL for a simulation. */
PMCF_API char *const *pmcf_source_argv(const pmcf_source *s, size_t *argc);
/* What the source's recordings count, as it was made with (a copy into *o,
 * o->size set by the caller: the rule for results). */
PMCF_API int pmcf_source_count_get(const pmcf_source *s, pmcf_count_opts *o);

/* The base seed (default: the SPEC's seed=, 1 for a program) and the seed
 * of an execution: exec_index >= 0 gets pmcf_sim_exec_seed(base,
 * exec_index), as `run` and `record --plan` number them; a negative index
 * the base seed itself. Programs ignore seeds. */
PMCF_API uint64_t pmcf_source_seed(const pmcf_source *s);
PMCF_API void pmcf_source_seed_set(pmcf_source *s, uint64_t base);
PMCF_API uint64_t pmcf_source_exec_seed(const pmcf_source *s, long exec_index);

/* Where the next recordings' program output goes (file descriptors the
 * caller keeps open; 0: its own). PMCF_EINVAL for a simulation. */
PMCF_API int pmcf_source_output_set(pmcf_source *s, int stdout_fd, int stderr_fd);

/* The source's event catalogue, made on first use and owned by s: the
 * simulated machine's, or the perf catalogue (the small one, growing as
 * names are resolved, unless pmcf_source_events chose the full one first). */
PMCF_API int pmcf_source_catalog(pmcf_source *s, const pmcf_catalog **out);
/* Parses an -e EVENTS value (pmcf_evlist_parse) against the source's
 * catalogue; for a program the catalogue, when not made yet, suits spec
 * ("all": the full probed one; @FILE: the full one; else the small one).
 * spec NULL: the default events, every event of a simulated machine, or
 * duration and the perf software events this machine can count. The list
 * refers to the catalogue: free it before the source. */
PMCF_API int pmcf_source_events(pmcf_source *s, const char *spec, pmcf_evlist **out);

/* Sets the plan's source (pmcf_plan_sim_set with the base seed's SPEC, or
 * pmcf_plan_program_set) and seed (pmcf_plan_seed_set). */
PMCF_API int pmcf_source_to_plan(const pmcf_source *s, pmcf_plan *p);

/* Records one execution monitoring set (a list from pmcf_source_events, a
 * plan's or covering's set, pmcf_plan_evlist_at, pmcf_cover_evlist_at, or
 * pmcf_evlist_subset of one; a list of another catalogue is resolved in
 * the source's first). A simulation runs with pmcf_source_exec_seed(s,
 * exec_index) (pmcf_sim_record); a program is run and counted
 * (pmcf_collect_program). *out as there (free with pmcf_profile_free;
 * PMCF_EPROGRAM leaves the incomplete profile of a failed program in it).
 * exit_info (may be NULL) is filled for programs as there, for simulations
 * as a clean exit (exited 1, status 0, complete 1, xus). */
PMCF_API int pmcf_source_record(pmcf_source *s, const pmcf_evlist *set, long exec_index, pmcf_profile **out,
				pmcf_exit_info *exit_info);

#ifdef __cplusplus
}
#endif
#endif
