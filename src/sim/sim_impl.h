/* Private types of the simulator: the machine (from data/machines/NAME.json),
 * its counter constraints, workloads as XU graphs with latent work features,
 * the discrete-event engine's results and the value model's natives. */
#ifndef PMCF_SIM_IMPL_H
#define PMCF_SIM_IMPL_H
#include <math.h>
#include "pmcfuse/events.h"
#include "pmcfuse/sim.h"
#include "util/rng.h"
#include <stddef.h>
#include <stdint.h>

/* ---- native events the value model computes (model.c) ------------------- */
enum pmcfi_sim_nat {
	NAT_INS,
	NAT_CYC,
	NAT_REF,
	NAT_L1D_REPL,
	NAT_ICACHE_MISS,
	NAT_L1_LDM,
	NAT_L1_STM,
	NAT_L2_DRD,
	NAT_L2_RFO,
	NAT_L2_RFO_MISS,
	NAT_L2_WB,
	NAT_L2_DRD_MISS,
	NAT_L2_CODE_MISS,
	NAT_L2_CODE_HIT,
	NAT_L2_CODE_ALL,
	NAT_OFF_CODE,
	NAT_OFF_DATA_RD,
	NAT_OFF_RFO,
	NAT_OFF_WB,
	NAT_LLC_REF,
	NAT_LLC_MISS,
	NAT_ITLB_MISS,
	NAT_BR_ALL,
	NAT_BR_COND,
	NAT_BR_TAKEN_COND,
	NAT_BR_MISP,
	NAT_LOADS,
	NAT_STORES,
	NAT_FPU_DIV,
	NAT_STALL_CYC,
	NAT_COUNT
};
/* Hardware names of the natives, indexed by enum pmcfi_sim_nat. */
extern const char *const pmcfi_sim_nat_names[NAT_COUNT];

/* ---- machine --------------------------------------------------------------- */
#define SIM_MAX_EVENTS 64
#define SIM_MAX_SHARED 16
#define SIM_MAX_GENERAL 64 /* counter masks are uint64_t */

struct pmcfi_sim_native {
	int model;     /* enum pmcfi_sim_nat */
	int fixed;     /* fixed counter index, or -1 */
	uint64_t mask; /* general counters it may use (bit i: counter i) */
	int shared;    /* index of a shared configuration register, or -1 */
};

enum { SIM_OP_ONE = 0, SIM_OP_ADD = 1, SIM_OP_SUB = 2 };

struct pmcfi_sim_event {
	char *name, *description;
	int nnat, nat[2]; /* model natives (enum pmcfi_sim_nat) */
	int op;           /* SIM_OP_* */
	int alias_of;     /* machine event index, or -1 */
};

struct pmcfi_sim_machine {
	char *name, *description;
	int sockets, numa_nodes, numa_group, cores_per_socket, threads_per_core;
	int ncpus, ncores;
	double freq_ghz, turbo_spread;
	double l1d, l1i, l2, l3; /* bytes; l3 per socket */
	double lat_l2, lat_l3, lat_mem, lat_hop;
	double bw_lines_per_ns; /* per socket */
	double noise, variability;
	int pin_random;
	double rot_kernel_ns, rot_user_ns;
	int ngeneral, nfixed;
	struct pmcfi_sim_native nat[NAT_COUNT]; /* by enum pmcfi_sim_nat */
	int nshared;
	char *shared_name[SIM_MAX_SHARED];
	int nev;
	struct pmcfi_sim_event ev[SIM_MAX_EVENTS];
};

/* Loads machine NAME (bundled) or FILE (contains '/' or ends in .json). */
int pmcfi_sim_machine_load(const char *name_or_file, struct pmcfi_sim_machine **out);
void pmcfi_sim_machine_free(struct pmcfi_sim_machine *m);
/* Index of the event called name (exact, then case-insensitive), or -1. */
int pmcfi_sim_machine_find(const struct pmcfi_sim_machine *m, const char *name);
/* NUMA hops between nodes a and b (0 on the same node). */
int pmcfi_sim_machine_hops(const struct pmcfi_sim_machine *m, int a, int b);
/* Model 2 only (kept to reproduce its results): spread (log-scale sigma) of
 * the per-execution placement factor of an XU, the machine's variability
 * times log2 of its NUMA nodes times 0.1 (xeon32 0.10, xeon192 1.15). The
 * 0.1 was chosen so that a target was met (issue 32); model 3 has no such
 * factor: its placement is the schedule's. */
static inline double pmcfi_sim_place_sigma(const struct pmcfi_sim_machine *m)
{
	return 0.1 * m->variability * log2(m->numa_nodes > 1 ? m->numa_nodes : 1);
}

/* ---- counter assignment (catalog_sim.c) -------------------------------------
 * Incremental exact assignment of natives to counters: bipartite matching of
 * natives to the general counters their masks allow (augmenting paths),
 * fixed counters, and shared registers that two natives cannot hold with
 * different configurations. */
struct pmcfi_sim_fit {
	const struct pmcfi_sim_machine *m;
	int ngen;
	uint64_t in;                   /* natives in the set (bit per enum pmcfi_sim_nat) */
	int owner[SIM_MAX_GENERAL];    /* counter -> native, or -1 */
	int counter[NAT_COUNT];        /* native -> counter, -1 none (fixed: -2) */
	int shared_by[SIM_MAX_SHARED]; /* shared register -> native, or -1 */
};
/* pmcs > 0 overrides the number of general counters (masks that allow every
 * counter of the machine then allow every one of the pmcs counters). */
void pmcfi_sim_fit_reset(struct pmcfi_sim_fit *f, const struct pmcfi_sim_machine *m, unsigned pmcs);
/* Adds native nat: 1 when it fits with the natives already in (or is
 * already in), 0 when not (the set is unchanged). */
int pmcfi_sim_fit_add(struct pmcfi_sim_fit *f, int nat);
/* Checks the machine events ev[0..n) (duplicates allowed). 1 fits, 0 not
 * (why holds one line). */
int pmcfi_sim_check_events(const struct pmcfi_sim_machine *m, const int *ev, size_t n, unsigned pmcs,
			   char *why, size_t whylen);

/* ---- specs (spec.c) ----------------------------------------------------------- */
#define SIM_MAX_KEYS 8
struct pmcf_sim_spec {
	int workload;                             /* index in the workload table */
	const struct pmcfi_sim_workload_def *def; /* its row (builders read it, never the table) */
	long val[SIM_MAX_KEYS];                   /* workload keys, table order */
	long threads;                             /* 0: every hardware thread */
	uint64_t seed;
	int model; /* value model: 1, 2 (kept to reproduce old results) or 3 */
	char *machine;
	char *canonical;
};
/* Workload key values by name (for the builders; workloads.c); -1 when absent. */
long pmcfi_sim_spec_get(const pmcf_sim_spec *s, const char *key);

/* ---- the workload table (workload_table.c) -----------------------------------------
 * One descriptor per simulated workload (libpfm4's pfmlib_pmu_t style): its
 * name, one-line help, keys with defaults and ranges, and builder, in one
 * table that spec parsing, the builders and the public listing
 * (pmcf_sim_workload_info_get) all use. A new workload is one file defining
 * `const struct pmcfi_sim_workload_def sim_wl_NAME` and one row in SIM_WORKLOADS. */
struct pmcfi_sim_key_def {
	const char *name;
	long def, min, max;
	const char *const *choices; /* enumerated values (stored as their index), or NULL */
};
struct pmcfi_sim_workload;
struct pmcfi_sim_machine;
struct pmcfi_sim_workload_def {
	const char *name;
	const char *help; /* one line: what it models and its XUs */
	struct pmcfi_sim_key_def keys[SIM_MAX_KEYS];
	/* fills w (types, XUs, labels, dependencies, work) from the spec's keys */
	int (*build)(struct pmcfi_sim_workload *w, const pmcf_sim_spec *s, const struct pmcfi_sim_machine *m);
	/* model 2: each XU repeats its kernel this many times (scale_shared
	 * for a SIM_POL_SHARED schedule), so that a run at the default size
	 * lasts about 0.5 s or more, as the papers' runs do */
	double scale, scale_shared;
};
/* The table, in the order workloads are listed. */
#define SIM_WORKLOADS(X) X(cholesky) X(seidel) X(kmeans) X(loops) X(knapsack) X(fib)
#define SIM_WORKLOAD_DECLARE(name) extern const struct pmcfi_sim_workload_def pmcfi_sim_wl_##name;
SIM_WORKLOADS(SIM_WORKLOAD_DECLARE)
#undef SIM_WORKLOAD_DECLARE
extern const struct pmcfi_sim_workload_def *const pmcfi_sim_workloads[];
extern const size_t pmcfi_sim_nworkloads;

/* ---- workloads (workloads.c) ----------------------------------------------------- */
/* Latent work features of one XU: properties of the program and its input,
 * identical in every execution (drawn from the label, never the seed). */
struct pmcfi_sim_work {
	double ins;      /* instructions */
	double ld, st;   /* loads, stores per instruction */
	double br, cond; /* branches per instruction; conditional share of branches */
	double taken;    /* taken share of conditional branches */
	double misp;     /* misprediction rate of conditional branches */
	double fdv;      /* divide instructions */
	double foot;     /* data footprint, bytes */
	double passes;   /* sweeps over the footprint */
	double code;     /* code footprint, bytes */
	double cpi0;     /* cycles per instruction without memory stalls */
	double split;    /* where the XU's first phase ends (fraction of time) */
	double front;    /* share of the memory misses in the first phase */
};

enum { SIM_POL_STEAL = 0, SIM_POL_OWNER = 1, SIM_POL_SHARED = 2 };

struct pmcfi_sim_wxu {
	uint32_t type;
	uint32_t label, parent;  /* offsets in the label arena */
	int32_t owner;           /* thread for SIM_POL_OWNER, else -1 */
	int32_t phase;           /* barrier phase (loops), or -1 */
	uint32_t dep_off, ndeps; /* predecessors in deps[] */
	uint64_t create_ns;      /* earliest start (root creation order) */
	int32_t data[4];         /* data ids read/written, -1 none */
	struct pmcfi_sim_work w;
};

struct pmcfi_sim_wtype {
	int kind; /* enum pmcf_xu_kind */
	char name[48], location[48];
};

struct pmcfi_sim_workload {
	const char *name;
	int policy; /* SIM_POL_* */
	size_t nxu, xu_cap;
	struct pmcfi_sim_wxu *xu;
	uint32_t *deps;
	size_t ndeps, deps_cap;
	char *arena;
	size_t arena_len, arena_cap;
	int ntypes;
	struct pmcfi_sim_wtype types[16];
	int nphases;
	int32_t *data_home;  /* NUMA node of each data id (models 1 and 2) */
	uint8_t *data_inter; /* model 3: data read by every XU, pages interleaved
			      * over the nodes (else first touch in the run) */
	size_t ndata;
	uint64_t root_busy_ns; /* thread 0 creates tasks until then */
	int threads;
	double time_scale; /* model 2: each XU repeats its kernel this many times */
};
int pmcfi_sim_workload_build(const pmcf_sim_spec *s, const struct pmcfi_sim_machine *m,
			     struct pmcfi_sim_workload **out);
/* Building blocks for a workload's builder (workloads.c): a new XU type
 * (its index), a new XU (NULL when out of memory; *idx its index), a
 * dependency of XU x on XU dep (none when dep < 0), a label text into the
 * arena (*off its offset), the phase split and front share every XU's work
 * gets from its key, and ndata data ids with their NUMA homes. */
int pmcfi_sim_wl_type(struct pmcfi_sim_workload *w, int kind, const char *name, const char *loc);
struct pmcfi_sim_wxu *pmcfi_sim_wl_xu(struct pmcfi_sim_workload *w, int type, size_t *idx);
int pmcfi_sim_wl_dep(struct pmcfi_sim_workload *w, size_t x, long dep);
int pmcfi_sim_wl_label(struct pmcfi_sim_workload *w, uint32_t *off, const char *text);
void pmcfi_sim_wl_work_common(struct pmcfi_sim_work *k, uint64_t key);
int pmcfi_sim_wl_homes(struct pmcfi_sim_workload *w, size_t ndata);
void pmcfi_sim_workload_free(struct pmcfi_sim_workload *w);
static inline const char *pmcfi_sim_label(const struct pmcfi_sim_workload *w, uint32_t off)
{
	return w->arena + off;
}

/* ---- execution (engine.c, model.c) ------------------------------------------------ */
struct pmcfi_sim_ctx {
	int cpu, core, socket, node;
	int sibling_busy;   /* the other hardware thread of the core runs an XU */
	int socket_busy;    /* busy hardware threads on the socket, this one included */
	double warm;        /* share of the footprint still in L1/L2 from the core's last XU */
	double warm_l3;     /* share of data recently touched on this socket */
	double code_warm;   /* the core's last XU ran the same code */
	double remote_hops; /* mean NUMA hops to the data */
	double freq;        /* frequency factor (turbo) */
	double rotations;   /* HEM rotations during the XU (per kernel repetition in model 2) */
	double rot_cost_ns; /* time one rotation takes */
	/* model 2 only (all 0 in model 1; docs/simulation.md, "model v2") */
	int v2;
	double scale;   /* kernel repetitions: counts and duration times scale */
	double place;   /* log-factor of this execution's placement of the XU */
	double run_cyc; /* run-level factor on cycles (frequency drift, OS noise) */
	double run_mem; /* run-level factor on memory latency */
	/* model 3 (docs/simulation.md, "model v3"): scale passes over the data,
	 * compulsory misses once; no placement factor (remote_hops, siblings
	 * and socket load come from the schedule) */
	int v3;
};

struct pmcfi_sim_run {
	size_t nxu;
	int32_t *thread, *cpu;
	uint64_t *start, *end;
	double *nat;   /* nxu x NAT_COUNT true native counts */
	double *split; /* phase split per XU (fraction of duration) */
	double *front; /* first-phase share of memory natives */
	double *hops;  /* mean NUMA hops from the XU's node to its data's pages */
	double *first; /* model 3: nxu x NAT_COUNT counts of the first phase (the
			* load pass; split is its share of the time), else NULL */
	uint64_t makespan;
	int threads;
};

/* Runs the discrete-event schedule of w on m with seed. period_ns > 0
 * with rot_cost_ns adds the HEM perturbation. */
int pmcfi_sim_engine_run(const struct pmcfi_sim_workload *w, const struct pmcfi_sim_machine *m, uint64_t seed,
			 int model, double period_ns, double rot_cost_ns, struct pmcfi_sim_run **out);
void pmcfi_sim_run_free(struct pmcfi_sim_run *r);

/* Value model: true natives and duration (ns) of one XU in its context;
 * noise from r. */
double pmcfi_sim_model_xu(const struct pmcfi_sim_machine *m, const struct pmcfi_sim_work *w,
			  const struct pmcfi_sim_ctx *c, struct pmcfi_rng *r, double *nat, double *first,
			  double *first_share);
/* Counts per ns of the runtime's idle loop between XUs (what per-thread
 * counters see while a worker spins or steals). */
void pmcfi_sim_model_idle_rates(const struct pmcfi_sim_machine *m, double *rate);
/* Whether native n is a memory event (front-loaded in an XU). */
int pmcfi_sim_nat_is_memory(int n);

/* ---- HEM (hem.c) ---------------------------------------------------------------------
 * Replays each thread's timeline with the scheduler's rotations and writes,
 * per XU and monitored native unit, the estimate and the enabled/running
 * ns during the XU. */
struct pmcfi_sim_hem_out {
	double *est;       /* nxu x nunits */
	uint64_t *running; /* nxu x nunits */
};
int pmcfi_sim_hem_run(const struct pmcfi_sim_machine *m, const struct pmcfi_sim_run *r, const int *units,
		      size_t nunits, unsigned pmcs, int mode, double period_ns, int estimate, uint64_t seed,
		      struct pmcfi_sim_hem_out *out);

/* The catalogue of machine m (catalog_sim.c); takes ownership of m. */
int pmcfi_sim_catalog_new(struct pmcfi_sim_machine *m, pmcf_catalog **out);
#endif
