/* pmcfuse — simulated PMU machines and workloads with ground truth: parse a
 * simulation SPEC ("cholesky,blocks=12,seed=3"), run one simulated execution
 * and get its profile, with the true value of every catalogue event per XU.
 * The model is described in docs/simulation.md. */
#ifndef PMCFUSE_SIM_H
#define PMCFUSE_SIM_H

#include "pmcfuse/base.h"
#include "pmcfuse/multiplex.h"
#include "pmcfuse/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- specs --------------------------------------------------------------
 * "WORKLOAD[,key=value…]". Workloads: pmcf_sim_workload_info_get lists
 * them (cholesky, seidel, …). Keys every workload accepts: seed= (execution seed, default 1),
 * machine= (a bundled machine name such as xeon32 or xeon192, or a JSON
 * file path; default xeon32), threads= (default: every hardware thread of
 * the machine). Other keys depend on the workload (docs/simulation.md).
 * Unknown workloads or keys fail with PMCF_ENOENT, bad values with
 * PMCF_EINVAL, malformed text with PMCF_ESYNTAX; pmcf_errdetail() lists
 * the valid choices. */
typedef struct pmcf_sim_spec pmcf_sim_spec;

PMCF_API int pmcf_sim_spec_parse(const char *spec, pmcf_sim_spec **out);
PMCF_API void pmcf_sim_spec_free(pmcf_sim_spec *s);
/* The workload name, e.g. "cholesky". Owned by the spec. */
PMCF_API const char *pmcf_sim_spec_workload(const pmcf_sim_spec *s);
/* The machine name or file as given (default "xeon32"). Owned by the spec. */
PMCF_API const char *pmcf_sim_spec_machine(const pmcf_sim_spec *s);
PMCF_API uint64_t pmcf_sim_spec_seed(const pmcf_sim_spec *s);
/* Replaces the execution seed (run/reference derive one per execution). */
PMCF_API void pmcf_sim_spec_seed_set(pmcf_sim_spec *s, uint64_t seed);
/* The canonical spec with every key and its value, defaults included, in a
 * fixed order ("cholesky,blocks=12,bsize=64,threads=32,machine=xeon32,seed=1").
 * Owned by the spec, valid until the spec changes. */
PMCF_API const char *pmcf_sim_spec_canonical(const pmcf_sim_spec *s);

/* One simulated workload of the table (src/sim/workload_table.c), the one
 * list of them. Strings static. */
typedef struct pmcf_sim_workload_info {
	size_t size;      /* sizeof(pmcf_sim_workload_info), set by the caller */
	const char *name; /* "cholesky": the first word of a spec */
	const char *help; /* one line: what it models and its XUs */
} pmcf_sim_workload_info;
#define PMCF_SIM_WORKLOAD_INFO_INIT PMCF_SIZED_INIT(pmcf_sim_workload_info)
/* The i-th workload (0, 1, … until PMCF_ENOENT) into *info. Errors:
 * PMCF_ENOENT past the last, PMCF_EINVAL (NULL, size). */
PMCF_API int pmcf_sim_workload_info_get(size_t i, pmcf_sim_workload_info *info);

/* The i-th execution seed derived from a command's base seed (splitmix64),
 * so that successive executions of run/reference vary like real runs. */
PMCF_API uint64_t pmcf_sim_exec_seed(uint64_t base, unsigned i);

/* Whose executions a base seed is for. The executions that are scored
 * against the fused ones must not reuse their seeds: `reference` and the
 * pilots of `plan --link auto` derive their base from the same base seed
 * with a fixed salt of their own, so that every kind is an independent
 * draw and the command's results can be reproduced from the library. */
enum pmcf_seed_role {
	PMCF_SEED_FUSED = 0,     /* run, record --plan: the base itself */
	PMCF_SEED_REFERENCE = 1, /* reference executions (EPD, CorrErr) */
	PMCF_SEED_PILOT = 2      /* --link auto's simulated pilot executions */
};
/* The base seed of role's executions derived from base (base XOR the
 * role's salt; PMCF_SEED_FUSED and unknown roles: base). Give it to
 * pmcf_source_seed_set; execution K then runs with
 * pmcf_sim_exec_seed(that base, K). */
PMCF_API uint64_t pmcf_sim_role_seed(uint64_t base, int role);

/* A thin wrapper kept for callers holding names: pmcf_source_record of a
 * simulated source (pmcf_source_new_sim) records a resolved list with the
 * same simulator, no name looked up again; new code uses that.
 * Runs one simulated execution of spec monitoring events[0..nevents)
 * (catalogue names of the spec's machine; "duration" may be listed or not:
 * it is always the first event of the profile). The new profile (free with
 * pmcf_profile_free) holds every XU, exactly the monitored events, the
 * ground truth of every catalogue event, metadata (source=sim, sim_spec,
 * seed, pmcs, multiplex, period_ms, estimate, complete=1, program=workload,
 * and no wall-clock time or host, so that the same spec gives a
 * byte-identical profile) and, when multiplexing, the coverage layer.
 * Errors: PMCF_EEVENT (unknown event), PMCF_ETOOMANY (the set does not fit
 * the counters and opts->multiplex is PMCF_MUX_NONE; the detail names the
 * reason), PMCF_EINVAL, PMCF_ENOMEM. */
PMCF_API int pmcf_sim_record(const pmcf_sim_spec *spec, const char *const *events, size_t nevents,
			     const pmcf_count_opts *opts, pmcf_profile **out);

#ifdef __cplusplus
}
#endif
#endif
