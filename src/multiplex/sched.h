/* Hardware event multiplexing schedulers, shared by the simulator and the
 * user-space multiplexer: which event units get the counters for the next
 * period. Pure logic: the caller says what fits (try_add) and reports what
 * it observed; nothing here knows about perf or the simulator. */
#ifndef PMCF_MULTIPLEX_SCHED_H
#define PMCF_MULTIPLEX_SCHED_H
#include <stddef.h>
#include <stdint.h>

enum pmcfi_mux_policy {
	PMCFI_MUX_KERNEL = 1,     /* perf: from the list pointer, stop at the first unit that does not
	                         fit; pointer += 1 */
	PMCFI_MUX_RR = 2,         /* round-robin: skip units that do not fit; next period starts at the
	                         first one left out */
	PMCFI_MUX_ROC = 3,        /* rate-of-change: highest triangle cost first
	                      (rate-of-change-multiplexing §3), eq. 5 on the counts */
	PMCFI_MUX_ROC_SAMPLES = 4 /* the same, eq. 5 on samples: each unit's counts divided by
	                             its sample period, the count it makes per ms on average
	                             (§4.1, eq. 8: periods giving 1 sample per ms) */
};

/* The scheduler policy of a public multiplexing mode (pmcfuse/multiplex.h);
 * PMCF_MUX_NONE gives PMCFI_MUX_RR (only the collector's fit check runs). */
int pmcfi_mux_policy(int mode);

struct pmcfi_mux_ops {
	/* Starts an empty counter assignment for a new period. */
	void (*reset)(void *ctx);
	/* Tries to add unit u to the current assignment: 1 added, 0 it does not fit. */
	int (*try_add)(void *ctx, size_t u);
};

struct pmcfi_mux;

/* A scheduler for nunits units (all allocation happens here). NULL on ENOMEM. */
struct pmcfi_mux *pmcfi_mux_new(int policy, size_t nunits);
void pmcfi_mux_free(struct pmcfi_mux *m);

/* Chooses the units that count during the period starting at now_ns:
 * run[u] = 1 for them, 0 for the others; returns how many. Allocates nothing. */
size_t pmcfi_mux_rotate(struct pmcfi_mux *m, uint64_t now_ns, const struct pmcfi_mux_ops *ops, void *ctx,
			uint8_t *run);

/* Reports an observation of unit u at time t_ns: its (scaled) cumulative
 * count, both counted from when the unit was enabled (time 0, count 0), so
 * that count / t_ns is its mean rate. The rate-of-change policies keep the
 * last three; others ignore it. */
void pmcfi_mux_observe(struct pmcfi_mux *m, size_t u, uint64_t t_ns, double count);

/* The rate-of-change scheduling cost of observations A, B, C (time, count)
 * after dt ns unscheduled, exactly eq. 5 (= eq. 7) of
 * rate-of-change-multiplexing §3.2: |(By - Ay - dy)/2| * dt, with
 * dy = (Cy - Ay)/(Cx - Ax) * (Bx - Ax), and dy = 0 when Cx == Ax. */
double pmcfi_mux_roc_cost(double ax, double ay, double bx, double by, double cx, double cy, double dt);

/* The cost in samples (PMCFI_MUX_ROC_SAMPLES): eq. 5 on counts divided by
 * the unit's sample period, its mean count per ms cy / cx * 1e6 (cx in ns),
 * so that every unit makes about one sample per ms whatever its magnitude
 * (rate-of-change-multiplexing §4.1, eq. 8, Table 1). 0 when the unit has
 * counted nothing (cy <= 0 or cx <= 0). */
double pmcfi_mux_roc_cost_samples(double ax, double ay, double bx, double by, double cx, double cy,
				  double dt);

/* Starvation guard of the rate-of-change policy: a unit that has not counted
 * for this many periods goes before every unit ranked by cost (eq. 5 gives
 * a linear unit cost 0 forever). nunits units, taken filled the counters
 * last period. */
size_t pmcfi_mux_starve_limit(size_t nunits, size_t taken);
#endif
