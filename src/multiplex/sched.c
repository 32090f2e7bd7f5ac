/* The multiplexing schedulers: perf's round-robin rotation (fuse-task-parallel
 * §5.1), a user-space round-robin that fills every counter, and the
 * rate-of-change scheduler driven by the triangle cost of each unit's last
 * three observations (rate-of-change-multiplexing §3). */
#include "multiplex/sched.h"
#include "pmcfuse/multiplex.h"
#include <math.h>
#include <stdlib.h>

struct obs {
	double t[3], c[3]; /* oldest first */
	int n;
};

struct pmcfi_mux {
	int policy;
	size_t n, ptr;
	struct obs *obs;
	uint64_t *last_run; /* end of the last period the unit counted in */
	uint8_t *was;       /* ran in the previous period */
	uint32_t *wait;     /* periods since the unit last counted */
	size_t last_taken;  /* units that counted in the previous period */
	size_t *order;
	double *cost;
};

struct pmcfi_mux *pmcfi_mux_new(int policy, size_t nunits)
{
	struct pmcfi_mux *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->policy = policy;
	m->n = nunits;
	size_t n = nunits ? nunits : 1;
	m->obs = calloc(n, sizeof(*m->obs));
	m->last_run = calloc(n, sizeof(*m->last_run));
	m->was = calloc(n, 1);
	m->wait = calloc(n, sizeof(*m->wait));
	m->order = calloc(n, sizeof(*m->order));
	m->cost = calloc(n, sizeof(*m->cost));
	if (!m->obs || !m->last_run || !m->was || !m->wait || !m->order || !m->cost) {
		pmcfi_mux_free(m);
		return NULL;
	}
	return m;
}

void pmcfi_mux_free(struct pmcfi_mux *m)
{
	if (!m)
		return;
	free(m->obs);
	free(m->last_run);
	free(m->was);
	free(m->wait);
	free(m->order);
	free(m->cost);
	free(m);
}

void pmcfi_mux_observe(struct pmcfi_mux *m, size_t u, uint64_t t_ns, double count)
{
	if (u >= m->n)
		return;
	struct obs *o = &m->obs[u];
	if (o->n == 3) {
		o->t[0] = o->t[1];
		o->c[0] = o->c[1];
		o->t[1] = o->t[2];
		o->c[1] = o->c[2];
		o->n = 2;
	}
	o->t[o->n] = (double)t_ns;
	o->c[o->n] = count;
	o->n++;
}

double pmcfi_mux_roc_cost(double ax, double ay, double bx, double by, double cx, double cy, double dt)
{
	/* eq. 5/7: dy is the linear interpolator's rise from A to B; when
	 * Cx == Ax nothing changed and dy = 0 */
	double dy = cx != ax ? (cy - ay) / (cx - ax) * (bx - ax) : 0;
	return fabs((by - ay - dy) / 2) * dt;
}

double pmcfi_mux_roc_cost_samples(double ax, double ay, double bx, double by, double cx, double cy, double dt)
{
	if (cy <= 0 || cx <= 0)
		return 0;
	double period = cy / cx * 1e6; /* counts per ms: one sample per ms */
	return pmcfi_mux_roc_cost(ax, ay, bx, by, cx, cy, dt) / period;
}

int pmcfi_mux_policy(int mode)
{
	switch (mode) {
	case PMCF_MUX_KERNEL: return PMCFI_MUX_KERNEL;
	case PMCF_MUX_ROC: return PMCFI_MUX_ROC_SAMPLES;
	case PMCF_MUX_ROC_COUNTS: return PMCFI_MUX_ROC;
	default: return PMCFI_MUX_RR;
	}
}

size_t pmcfi_mux_starve_limit(size_t nunits, size_t taken)
{
	size_t k = taken ? taken : 1;
	return 2 * ((nunits + k - 1) / k) + 1;
}

size_t pmcfi_mux_rotate(struct pmcfi_mux *m, uint64_t now, const struct pmcfi_mux_ops *ops, void *ctx,
			uint8_t *run)
{
	size_t n = m->n, taken = 0;
	for (size_t u = 0; u < n; u++) {
		if (m->was[u])
			m->last_run[u] = now;
		m->wait[u] = m->was[u] ? 0 : m->wait[u] + 1;
		run[u] = 0;
	}
	if (!n)
		return 0;
	ops->reset(ctx);
	switch (m->policy) {
	case PMCFI_MUX_KERNEL:
		/* perf_rotate_context: schedule groups from the list head until one
		 * fails, then move the head by one */
		for (size_t i = 0; i < n; i++) {
			size_t u = (m->ptr + i) % n;
			if (!ops->try_add(ctx, u))
				break;
			run[u] = 1;
			taken++;
		}
		m->ptr = (m->ptr + 1) % n;
		break;
	case PMCFI_MUX_RR: {
		/* the next period starts at the first unit left out, so that every
		 * unit gets its turn whatever the fixed counters take */
		size_t next = n;
		for (size_t i = 0; i < n; i++) {
			size_t u = (m->ptr + i) % n;
			if (ops->try_add(ctx, u)) {
				run[u] = 1;
				taken++;
			} else if (next == n) {
				next = u;
			}
		}
		m->ptr = next < n ? next : (m->ptr + 1) % n;
		break;
	}
	default: {
		/* rate-of-change (§3.3), either cost: units lacking three observations first
		 * (longest unscheduled first), then by decreasing triangle cost
		 * (eq. 5); fill the counters greedily in that order. The cost of a
		 * perfectly linear unit is 0 whatever dt, so eq. 5 alone can starve
		 * it: a unit left out for pmcfi_mux_starve_limit periods goes
		 * before every costed one (longest waiting first). */
		size_t limit = pmcfi_mux_starve_limit(n, m->last_taken);
		for (size_t u = 0; u < n; u++) {
			const struct obs *o = &m->obs[u];
			double dt = (double)(now - m->last_run[u]);
			if (o->n < 3)
				m->cost[u] = m->was[u] ? 1e300 : INFINITY; /* just ran: behind
				                                             never-observed units */
			else if (m->wait[u] >= limit)
				m->cost[u] = 1e299 + (double)m->wait[u];
			else
				m->cost[u] = (m->policy == PMCFI_MUX_ROC_SAMPLES
						      ? pmcfi_mux_roc_cost_samples
						      : pmcfi_mux_roc_cost)(o->t[0], o->c[0], o->t[1],
									    o->c[1], o->t[2], o->c[2], dt);
			/* insertion sort by cost desc, then age (older first), then index */
			size_t i = u;
			while (i > 0) {
				size_t v = m->order[i - 1];
				int before = m->cost[u] > m->cost[v] ||
					     (m->cost[u] == m->cost[v] && m->last_run[u] < m->last_run[v]);
				if (!before)
					break;
				m->order[i] = v;
				i--;
			}
			m->order[i] = u;
		}
		for (size_t i = 0; i < n; i++) {
			size_t u = m->order[i];
			if (ops->try_add(ctx, u)) {
				run[u] = 1;
				taken++;
			}
		}
		break;
	}
	}
	for (size_t u = 0; u < n; u++)
		m->was[u] = run[u];
	m->last_taken = taken;
	return taken;
}
