/* The discrete-event schedule of a simulated execution: worker threads pinned
 * to hardware threads take ready XUs (work stealing for task graphs, owner
 * queues for static loops, a shared queue for dynamic loops), every choice
 * drawn from the execution seed; at each XU start the value model gets the
 * dynamic context (siblings, socket load, warmth, NUMA, frequency). */
#include "sim/sim_impl.h"
#include "util/abi.h"
#include "util/internal.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { EV_END, EV_READY, EV_AVAIL, EV_PHASE };

struct hev {
	uint64_t t, seq;
	uint32_t kind, id;
};

struct heap {
	struct hev *a;
	size_t n, cap;
	uint64_t seq;
};

static int hev_less(const struct hev *x, const struct hev *y)
{
	return x->t < y->t || (x->t == y->t && x->seq < y->seq);
}

static int heap_push(struct heap *h, uint64_t t, uint32_t kind, uint32_t id)
{
	if (pmcfi_grow((void **)&h->a, &h->cap, h->n < 1024 ? 1024 : h->n + 1, sizeof(*h->a)))
		return pmcfi_fail(PMCF_ENOMEM, "out of memory in the simulator");
	size_t i = h->n++;
	struct hev e = {t, h->seq++, kind, id};
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!hev_less(&e, &h->a[p]))
			break;
		h->a[i] = h->a[p];
		i = p;
	}
	h->a[i] = e;
	return 0;
}

static struct hev heap_pop(struct heap *h)
{
	struct hev top = h->a[0], last = h->a[--h->n];
	size_t i = 0;
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		const struct hev *best = &last;
		if (l < h->n && hev_less(&h->a[l], best)) {
			m = l;
			best = &h->a[l];
		}
		if (r < h->n && hev_less(&h->a[r], best))
			m = r;
		if (m == i)
			break;
		h->a[i] = h->a[m];
		i = m;
	}
	if (h->n)
		h->a[i] = last;
	return top;
}

/* A growable double-ended queue of XU indices. */
struct dq {
	uint32_t *a;
	size_t head, len, cap;
};

static int dq_push(struct dq *q, uint32_t x)
{
	if (q->len == q->cap) {
		if (q->head > 0 && q->head >= q->len / 2) {
			memmove(q->a, q->a + q->head, (q->len - q->head) * sizeof(*q->a));
			q->len -= q->head;
			q->head = 0;
		} else if (pmcfi_grow((void **)&q->a, &q->cap, q->len < 64 ? 64 : q->len + 1,
				      sizeof(*q->a))) {
			return pmcfi_fail(PMCF_ENOMEM, "out of memory in the simulator");
		}
	}
	q->a[q->len++] = x;
	return 0;
}

static inline int dq_empty(const struct dq *q) { return q->head == q->len; }
static inline uint32_t dq_pop_back(struct dq *q)
{
	uint32_t x = q->a[--q->len];
	if (q->len == q->head)
		q->head = q->len = 0;
	return x;
}
static inline uint32_t dq_pop_front(struct dq *q)
{
	uint32_t x = q->a[q->head++];
	if (q->len == q->head)
		q->head = q->len = 0;
	return x;
}

/* What a core's caches remember: the last XU of each of its hardware
 * threads (they share L1 and L2). */
struct core_slot {
	int32_t data[4];
	uint32_t type;
	double bytes; /* the core's traffic when this XU ended */
	int used;
};

struct core_state {
	struct core_slot slot[8];
	double bytes; /* footprint of every XU that ran on the core so far */
	int busy;
};

struct engine {
	const struct pmcfi_sim_workload *w;
	const struct pmcfi_sim_machine *m;
	struct pmcfi_sim_run *r;
	uint64_t seed;
	int model;
	double run_cyc, run_mem; /* model 2: run-level factors */
	struct pmcfi_rng rng;    /* scheduling choices */
	double period_ns, rot_cost_ns;
	int T;
	int *cpu_of, *thread_of_cpu, *running, *idle, *idle_pos, nidle, *scratch;
	int *claimed, nclaimed;
	uint8_t *stolen;
	struct dq *q; /* per thread, or q[T] shared */
	size_t nqueued;
	uint32_t *pending, *succ, *succ_off;
	uint32_t *phase_first, *phase_n, *phase_done;
	struct core_state *core;
	int *socket_busy;
	int32_t *data_sock;
	uint64_t *data_time;
	int32_t *home;      /* model 3: NUMA node of each data id's pages, -1 untouched */
	double *inter_hops; /* model 3: mean hops from a node to interleaved pages */
	uint32_t *order;    /* XUs in dispatch order */
	size_t norder;
	struct heap h;
};

static int node_of_socket(const struct pmcfi_sim_machine *m, int s) { return s * m->numa_nodes / m->sockets; }

static double freq_at(const struct engine *e, int socket, uint64_t t)
{
	/* turbo and power management: a level per socket and millisecond */
	uint64_t win = t / 1000000;
	double u = pmcfi_rng_hash_unif(e->seed ^ 0xf1e9ull, (uint64_t)socket * 1000003ull + win);
	return 1.0 + e->m->turbo_spread * (2 * u - 1);
}

static void idle_add(struct engine *e, int th)
{
	e->idle_pos[th] = e->nidle;
	e->idle[e->nidle++] = th;
}

static void idle_del(struct engine *e, int th)
{
	int p = e->idle_pos[th], last = e->idle[--e->nidle];
	e->idle[p] = last;
	e->idle_pos[last] = p;
	e->idle_pos[th] = -1;
}

static int enqueue(struct engine *e, uint32_t x, int hint)
{
	const struct pmcfi_sim_wxu *u = &e->w->xu[x];
	int qi = e->w->policy == SIM_POL_SHARED  ? e->T
		 : e->w->policy == SIM_POL_OWNER ? u->owner % e->T
						 : hint;
	e->nqueued++;
	return dq_push(&e->q[qi], x);
}

/* XU x becomes ready at t (its creation time may be later). */
static int make_ready(struct engine *e, uint32_t x, uint64_t t, int hint)
{
	uint64_t c = e->w->xu[x].create_ns;
	if (c > t)
		return heap_push(&e->h, c, EV_READY, x);
	return enqueue(e, x, hint);
}

/* Model 2: the work of the XU labelled x, fixed by the workload (never the
 * seed): data-dependent trip counts, sparse or boundary blocks, uneven
 * cluster sizes and branch behaviour differ between XUs of one type. */
static void label_work(struct pmcfi_sim_work *w, uint32_t x)
{
	struct pmcfi_rng lr;
	pmcfi_rng_seed(&lr, pmcfi_rng_hash2(0x1abe1f00dull, x));
	/* work classes (sparse or boundary blocks, cluster sizes, trip counts):
	 * one of four levels a factor e^0.3 apart, scaling the instructions,
	 * the data touched and the data-dependent branches together */
	double trip = 0.30 * ((double)(int)(4 * pmcfi_rng_unif(&lr)) - 1.5);
	w->ins *= exp(trip);
	w->foot *= exp(0.8 * trip);
	w->misp *= exp(0.5 * trip);
	if (w->misp > 0.5)
		w->misp = 0.5;
}

static int start_xu(struct engine *e, int th, uint32_t x, uint64_t t, int stolen)
{
	const struct pmcfi_sim_machine *m = e->m;
	const struct pmcfi_sim_workload *w = e->w;
	const struct pmcfi_sim_wxu *u0 = &w->xu[x];
	struct pmcfi_sim_wxu ul;
	const struct pmcfi_sim_wxu *u = u0;
	double scale = 1;
	if (e->model >= 2) {
		ul = *u0;
		label_work(&ul.w, x);
		u = &ul;
		scale = w->time_scale;
	}
	struct pmcfi_sim_run *r = e->r;
	double var = m->variability;
	double lat = stolen ? 600 + 1400 * var * pmcfi_rng_unif(&e->rng)
			    : 80 + 120 * var * pmcfi_rng_unif(&e->rng);
	uint64_t s = t + (uint64_t)lat;
	int cpu = e->cpu_of[th];
	int core = cpu % m->ncores, socket = core / m->cores_per_socket;
	struct core_state *cs = &e->core[core];
	struct pmcfi_sim_ctx c = {0};
	c.cpu = cpu;
	c.core = core;
	c.socket = socket;
	c.node = node_of_socket(m, socket);
	/* XUs starting at the same instant see each other (dispatch claims
	 * them all first), so the service order within an instant does not
	 * decide the context */
	int nslot = m->threads_per_core < 8 ? m->threads_per_core : 8;
	c.sibling_busy = cs->busy > 1;
	c.socket_busy = e->socket_busy[socket];
	int nd = 0, l3 = 0;
	double hops = 0, l3w = 0, hit = 0;
	for (int i = 0; i < 4; i++) {
		int32_t d = u->data[i];
		if (d < 0)
			continue;
		nd++;
		double best = 0;
		for (int k = 0; k < nslot; k++) {
			const struct core_slot *sl = &cs->slot[k];
			if (!sl->used)
				continue;
			for (int j = 0; j < 4; j++)
				if (sl->data[j] == d) {
					/* evicted by what the core touched since (LRU-ish) */
					double keep = exp(-(cs->bytes - sl->bytes) / m->l2);
					if (keep > best)
						best = keep;
				}
		}
		hit += best;
		if (e->data_sock[d] == socket) {
			l3++;
			l3w += exp(-(double)(s - e->data_time[d]) / (3e6 * scale));
		}
		if (e->model == 3) {
			/* pages: interleaved over the nodes for data every XU
			 * reads, else placed by the first XU of this run that
			 * touches them (first touch by the producer) */
			if (w->data_inter[d])
				hops += e->inter_hops[c.node];
			else {
				if (e->home[d] < 0)
					e->home[d] = c.node;
				hops += pmcfi_sim_machine_hops(m, e->home[d], c.node);
			}
		} else {
			hops += pmcfi_sim_machine_hops(m, w->data_home[d], c.node);
		}
	}
	if (nd) {
		double fit = u->w.foot > m->l2 ? m->l2 / u->w.foot : 1;
		c.warm = hit / nd * fit;
		c.warm_l3 = l3 ? l3w / nd : 0;
		c.remote_hops = hops / nd;
	}
	for (int k = 0; k < nslot; k++)
		if (cs->slot[k].used && cs->slot[k].type == u->type)
			c.code_warm = 1.0;
	c.freq = freq_at(e, socket, s);
	c.rot_cost_ns = e->rot_cost_ns;
	if (e->period_ns > 0)
		c.rotations = u->w.ins * u->w.cpi0 * 1.4 / (m->freq_ghz * c.freq) / e->period_ns;
	if (e->model == 2) {
		/* placement in this execution: NUMA node of the data's pages, the
		 * co-runners on the L2/L3 and memory controller, the core's
		 * frequency; one latent factor per execution and XU that moves
		 * cycles, stalls and misses together */
		struct pmcfi_rng pr;
		pmcfi_rng_seed(&pr, pmcfi_rng_hash2(e->seed ^ 0x91ace0ull, x));
		c.v2 = 1;
		c.scale = scale;
		double ps = pmcfi_sim_place_sigma(m);
		c.place = ps * (pmcfi_rng_unif(&pr) < 0.5 ? -1 : 1) + 0.15 * ps * pmcfi_rng_normal(&pr);
		c.run_cyc = e->run_cyc;
		c.run_mem = e->run_mem;
	}
	if (e->model == 3) {
		/* the placement is the schedule's: remote_hops (thread's node
		 * against the pages' home), siblings, socket load, warmth and
		 * frequency above; the run-level drift as in model 2 */
		c.v3 = 1;
		c.scale = scale;
		c.run_cyc = e->run_cyc;
		c.run_mem = e->run_mem;
	}
	struct pmcfi_rng xr;
	pmcfi_rng_seed(&xr, pmcfi_rng_hash2(e->seed, x));
	double *nat = &r->nat[(size_t)x * NAT_COUNT];
	double fsh = 0;
	double d = pmcfi_sim_model_xu(m, &u->w, &c, &xr, nat,
				      r->first ? &r->first[(size_t)x * NAT_COUNT] : NULL, &fsh);
	/* operating-system noise: an interrupt or tick lands in long XUs */
	if (pmcfi_rng_unif(&xr) < 1 - exp(-d * var / 2e6))
		d += 2000 + 6000 * var * pmcfi_rng_unif(&xr);
	if (d < 50)
		d = 50;
	r->thread[x] = th;
	r->cpu[x] = cpu;
	r->start[x] = s;
	r->end[x] = s + (uint64_t)d;
	r->hops[x] = c.remote_hops;
	r->split[x] = e->model == 3 ? fsh : u->w.split;
	r->front[x] = u->w.front;
	e->order[e->norder++] = x;
	return heap_push(&e->h, r->end[x], EV_END, (uint32_t)th);
}

/* Marks thread th as running x from now on (before any context is computed). */
static void claim(struct engine *e, int th, uint32_t x)
{
	int core = e->cpu_of[th] % e->m->ncores;
	e->core[core].busy++;
	e->socket_busy[core / e->m->cores_per_socket]++;
	e->running[th] = (int)x;
}

/* Idle threads take queued work, in an order drawn from the seed. */
static int dispatch(struct engine *e, uint64_t t)
{
	if (!e->nqueued || !e->nidle)
		return 0;
	int n = e->nidle;
	memcpy(e->scratch, e->idle, (size_t)n * sizeof(int));
	int off = (int)pmcfi_rng_below(&e->rng, (uint32_t)n);
	for (int k = 0; k < n && e->nqueued; k++) {
		int th = e->scratch[(off + k) % n];
		long x = -1;
		int stolen = 0;
		switch (e->w->policy) {
		case SIM_POL_SHARED:
			if (!dq_empty(&e->q[e->T]))
				x = dq_pop_front(&e->q[e->T]);
			break;
		case SIM_POL_OWNER:
			if (!dq_empty(&e->q[th]))
				x = dq_pop_front(&e->q[th]);
			break;
		default:
			if (!dq_empty(&e->q[th])) {
				x = dq_pop_back(&e->q[th]);
			} else {
				int v0 = (int)pmcfi_rng_below(&e->rng, (uint32_t)e->T);
				for (int i = 0; i < e->T; i++) {
					int v = (v0 + i) % e->T;
					if (!dq_empty(&e->q[v])) {
						x = dq_pop_front(&e->q[v]);
						stolen = 1;
						break;
					}
				}
			}
		}
		if (x < 0)
			continue;
		e->nqueued--;
		idle_del(e, th);
		claim(e, th, (uint32_t)x);
		e->claimed[e->nclaimed++] = th;
		e->stolen[th] = (uint8_t)stolen;
	}
	for (int k = 0; k < e->nclaimed; k++) {
		int th = e->claimed[k];
		int err = start_xu(e, th, (uint32_t)e->running[th], t, e->stolen[th]);
		if (err)
			return err;
	}
	/* then the caches take in what started at this instant: the core's
	 * traffic first, the slots after, so that the order within the instant
	 * does not matter */
	for (int k = 0; k < e->nclaimed; k++) {
		int th = e->claimed[k];
		e->core[e->cpu_of[th] % e->m->ncores].bytes += e->w->xu[e->running[th]].w.foot;
	}
	for (int k = 0; k < e->nclaimed; k++) {
		int th = e->claimed[k];
		const struct pmcfi_sim_wxu *u = &e->w->xu[e->running[th]];
		struct core_state *cs = &e->core[e->cpu_of[th] % e->m->ncores];
		int ht = e->cpu_of[th] / e->m->ncores;
		struct core_slot *sl = &cs->slot[ht < 8 ? ht : 7];
		memcpy(sl->data, u->data, sizeof(sl->data));
		sl->type = u->type;
		sl->bytes = cs->bytes;
		sl->used = 1;
	}
	e->nclaimed = 0;
	return 0;
}

static int release_phase(struct engine *e, uint32_t p)
{
	for (uint32_t i = 0; i < e->phase_n[p]; i++) {
		uint32_t x = e->phase_first[p] + i;
		if (e->pending[x] == 0) {
			int err = enqueue(e, x, 0);
			if (err)
				return err;
		}
	}
	return 0;
}

static int end_xu(struct engine *e, int th, uint64_t t)
{
	uint32_t x = (uint32_t)e->running[th];
	const struct pmcfi_sim_wxu *u = &e->w->xu[x];
	const struct pmcfi_sim_machine *m = e->m;
	int core = e->cpu_of[th] % m->ncores, socket = core / m->cores_per_socket;
	struct core_state *cs = &e->core[core];
	cs->busy--;
	e->socket_busy[socket]--;
	for (int i = 0; i < 4; i++)
		if (u->data[i] >= 0) {
			e->data_sock[u->data[i]] = socket;
			e->data_time[u->data[i]] = t;
		}
	e->running[th] = -1;
	idle_add(e, th);
	for (uint32_t k = e->succ_off[x]; k < e->succ_off[x + 1]; k++) {
		uint32_t y = e->succ[k];
		if (--e->pending[y] == 0 && e->w->xu[y].phase < 0) {
			int err = make_ready(e, y, t, th);
			if (err)
				return err;
		}
	}
	if (u->phase >= 0) {
		uint32_t p = (uint32_t)u->phase;
		if (++e->phase_done[p] == e->phase_n[p] && (int)p + 1 < e->w->nphases) {
			double bar = 500 + 1500 * m->variability * pmcfi_rng_unif(&e->rng);
			return heap_push(&e->h, t + (uint64_t)bar, EV_PHASE, p + 1);
		}
	}
	return 0;
}

void pmcfi_sim_run_free(struct pmcfi_sim_run *r)
{
	if (!r)
		return;
	free(r->thread);
	free(r->cpu);
	free(r->start);
	free(r->end);
	free(r->nat);
	free(r->split);
	free(r->front);
	free(r->first);
	free(r->hops);
	free(r);
}

static void engine_free(struct engine *e)
{
	free(e->cpu_of);
	free(e->thread_of_cpu);
	free(e->claimed);
	free(e->stolen);
	free(e->running);
	free(e->idle);
	free(e->idle_pos);
	free(e->scratch);
	if (e->q)
		for (int i = 0; i <= e->T; i++)
			free(e->q[i].a);
	free(e->q);
	free(e->pending);
	free(e->succ);
	free(e->succ_off);
	free(e->phase_first);
	free(e->phase_n);
	free(e->phase_done);
	free(e->core);
	free(e->socket_busy);
	free(e->data_sock);
	free(e->data_time);
	free(e->home);
	free(e->inter_hops);
	free(e->order);
	free(e->h.a);
}

static int engine_init(struct engine *e)
{
	const struct pmcfi_sim_workload *w = e->w;
	const struct pmcfi_sim_machine *m = e->m;
	size_t n = w->nxu, T = (size_t)e->T;
	size_t np = w->nphases > 0 ? (size_t)w->nphases : 1;
	struct pmcfi_sim_run *r = e->r;
	r->thread = malloc(n * sizeof(*r->thread));
	r->cpu = malloc(n * sizeof(*r->cpu));
	r->start = malloc(n * sizeof(*r->start));
	r->end = malloc(n * sizeof(*r->end));
	r->nat = malloc(n * NAT_COUNT * sizeof(*r->nat));
	r->split = malloc(n * sizeof(*r->split));
	r->front = malloc(n * sizeof(*r->front));
	r->hops = malloc(n * sizeof(*r->hops));
	e->cpu_of = malloc(T * sizeof(int));
	e->thread_of_cpu = malloc((size_t)m->ncpus * sizeof(int));
	e->claimed = malloc(T * sizeof(int));
	e->stolen = calloc(T, 1);
	e->running = malloc(T * sizeof(int));
	e->idle = malloc(T * sizeof(int));
	e->idle_pos = malloc(T * sizeof(int));
	e->scratch = malloc(T * sizeof(int));
	e->q = calloc(T + 1, sizeof(*e->q));
	e->pending = calloc(n, sizeof(uint32_t));
	e->succ = malloc((w->ndeps ? w->ndeps : 1) * sizeof(uint32_t));
	e->succ_off = calloc(n + 1, sizeof(uint32_t));
	e->phase_first = calloc(np, sizeof(uint32_t));
	e->phase_n = calloc(np, sizeof(uint32_t));
	e->phase_done = calloc(np, sizeof(uint32_t));
	e->core = calloc((size_t)m->ncores, sizeof(*e->core));
	e->socket_busy = calloc((size_t)m->sockets, sizeof(int));
	e->data_sock = malloc((w->ndata ? w->ndata : 1) * sizeof(int32_t));
	e->data_time = calloc(w->ndata ? w->ndata : 1, sizeof(uint64_t));
	e->order = malloc(n * sizeof(uint32_t));
	if (e->model == 3) {
		r->first = malloc(n * NAT_COUNT * sizeof(*r->first));
		e->home = malloc((w->ndata ? w->ndata : 1) * sizeof(int32_t));
		e->inter_hops = calloc((size_t)m->numa_nodes, sizeof(double));
		if (!r->first || !e->home || !e->inter_hops)
			return pmcfi_fail(PMCF_ENOMEM, "out of memory in the simulator");
		for (size_t d = 0; d < w->ndata; d++)
			e->home[d] = -1;
		for (int a = 0; a < m->numa_nodes; a++) {
			for (int b = 0; b < m->numa_nodes; b++)
				e->inter_hops[a] += pmcfi_sim_machine_hops(m, a, b);
			e->inter_hops[a] /= m->numa_nodes;
		}
	}
	if (!r->thread || !r->cpu || !r->start || !r->end || !r->nat || !r->split || !r->front || !r->hops ||
	    !e->cpu_of || !e->thread_of_cpu || !e->claimed || !e->stolen || !e->running || !e->idle ||
	    !e->idle_pos || !e->scratch || !e->q || !e->pending || !e->succ || !e->succ_off ||
	    !e->phase_first || !e->phase_n || !e->phase_done || !e->core || !e->socket_busy ||
	    !e->data_sock || !e->data_time || !e->order)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory in the simulator");
	for (size_t d = 0; d < w->ndata; d++)
		e->data_sock[d] = -1;
	/* pinning: worker i on cpu i (Linux numbering: all cores first, then
	 * their second hardware threads), or a permutation drawn from the seed */
	for (int t = 0; t < e->T; t++)
		e->cpu_of[t] = t % m->ncpus;
	if (m->pin_random && e->T <= m->ncpus) {
		int *perm = e->scratch;
		for (int t = 0; t < e->T; t++)
			perm[t] = t;
		/* a random subset/order of all cpus: partial Fisher-Yates on ncpus */
		int *all = malloc((size_t)m->ncpus * sizeof(int));
		if (!all)
			return pmcfi_fail(PMCF_ENOMEM, "out of memory in the simulator");
		for (int c = 0; c < m->ncpus; c++)
			all[c] = c;
		for (int t = 0; t < e->T; t++) {
			int j = t + (int)pmcfi_rng_below(&e->rng, (uint32_t)(m->ncpus - t));
			int tmp = all[t];
			all[t] = all[j];
			all[j] = tmp;
			e->cpu_of[t] = all[t];
		}
		free(all);
	}
	for (int c = 0; c < m->ncpus; c++)
		e->thread_of_cpu[c] = -1;
	for (int t = 0; t < e->T; t++)
		if (e->thread_of_cpu[e->cpu_of[t]] < 0)
			e->thread_of_cpu[e->cpu_of[t]] = t;
	/* successors (CSR) and pending counts */
	for (size_t x = 0; x < n; x++) {
		const struct pmcfi_sim_wxu *u = &w->xu[x];
		e->pending[x] = u->ndeps;
		for (uint32_t k = 0; k < u->ndeps; k++)
			e->succ_off[w->deps[u->dep_off + k] + 1]++;
	}
	for (size_t x = 0; x < n; x++)
		e->succ_off[x + 1] += e->succ_off[x];
	uint32_t *cur = malloc((n + 1) * sizeof(uint32_t));
	if (!cur)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory in the simulator");
	memcpy(cur, e->succ_off, (n + 1) * sizeof(uint32_t));
	for (size_t x = 0; x < n; x++) {
		const struct pmcfi_sim_wxu *u = &w->xu[x];
		for (uint32_t k = 0; k < u->ndeps; k++)
			e->succ[cur[w->deps[u->dep_off + k]]++] = (uint32_t)x;
	}
	free(cur);
	for (size_t x = 0; x < n; x++) {
		int32_t p = w->xu[x].phase;
		if (p < 0)
			continue;
		if (e->phase_n[p]++ == 0)
			e->phase_first[p] = (uint32_t)x;
	}
	for (int t = 0; t < e->T; t++) {
		e->running[t] = -1;
		e->idle_pos[t] = -1;
	}
	return 0;
}

int pmcfi_sim_engine_run(const struct pmcfi_sim_workload *w, const struct pmcfi_sim_machine *m, uint64_t seed,
			 int model, double period_ns, double rot_cost_ns, struct pmcfi_sim_run **out)
{
	*out = NULL;
	struct engine e = {0};
	e.w = w;
	e.m = m;
	e.seed = seed;
	e.model = model;
	if (model >= 2) {
		/* run-level: frequency drift and OS noise on the whole run,
		 * memory latency of the run (page placement, other jobs) */
		struct pmcfi_rng rr;
		pmcfi_rng_seed(&rr, pmcfi_rng_hash2(seed, 0x4a11ull));
		e.run_cyc = exp(0.02 * m->variability * pmcfi_rng_normal(&rr));
		e.run_mem = exp(0.03 * m->variability * pmcfi_rng_normal(&rr));
	}
	e.T = w->threads;
	e.period_ns = period_ns;
	e.rot_cost_ns = rot_cost_ns;
	pmcfi_rng_seed(&e.rng, pmcfi_rng_hash2(seed, 0x5c4edull));
	e.r = calloc(1, sizeof(*e.r));
	int err = e.r ? engine_init(&e) : pmcfi_fail(PMCF_ENOMEM, "out of memory in the simulator");
	if (!err) {
		e.r->nxu = w->nxu;
		e.r->threads = e.T;
		/* worker 0 runs the root task that creates the graph */
		for (int t = 0; t < e.T; t++)
			if (t != 0 || w->root_busy_ns == 0)
				idle_add(&e, t);
		if (w->root_busy_ns)
			err = heap_push(&e.h, w->root_busy_ns, EV_AVAIL, 0);
		for (size_t x = 0; x < w->nxu && !err; x++)
			if (w->xu[x].ndeps == 0 && w->xu[x].phase < 0)
				err = make_ready(&e, (uint32_t)x, 0, 0);
		if (!err && w->nphases > 0)
			err = release_phase(&e, 0);
		if (!err)
			err = dispatch(&e, 0);
	}
	uint64_t t = 0;
	while (!err && e.h.n) {
		struct hev ev = heap_pop(&e.h);
		t = ev.t;
		switch (ev.kind) {
		case EV_END: err = end_xu(&e, (int)ev.id, t); break;
		case EV_READY: err = enqueue(&e, ev.id, 0); break;
		case EV_AVAIL: idle_add(&e, (int)ev.id); break;
		case EV_PHASE: err = release_phase(&e, ev.id); break;
		}
		/* handle every event of the same instant before dispatching */
		if (!err && (!e.h.n || e.h.a[0].t != t))
			err = dispatch(&e, t);
	}
	if (!err && e.norder != w->nxu)
		err = pmcfi_fail(PMCF_EINVAL, "simulated execution deadlocked (%zu of %zu XU%s ran)",
				 e.norder, w->nxu, w->nxu == 1 ? "" : "s");
	if (!err)
		e.r->makespan = t;
	engine_free(&e);
	if (err) {
		pmcfi_sim_run_free(e.r);
		return err;
	}
	*out = e.r;
	return 0;
}
