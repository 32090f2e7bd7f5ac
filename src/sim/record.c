/* One simulated recording: resolve and check the event set, build the
 * workload, run the discrete-event execution, simulate multiplexing when
 * asked, and fill a profile with the monitored values, the ground truth of
 * every catalogue event, metadata and coverage. */
#include "counters/catalog.h"
#include "multiplex/count_opts.h"
#include "sim/sim_impl.h"
#include "sim/sim_record.h"
#include "util/abi.h"
#include "util/internal.h"
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int unknown_event(const char *machine, const char *name)
{
	struct pmcfi_sim_machine *m;
	pmcf_catalog *c;
	if (pmcfi_sim_machine_load(machine, &m) || pmcfi_sim_catalog_new(m, &c))
		return pmcfi_fail(PMCF_EEVENT, "unknown event '%s'", name);
	const char *sug[3];
	size_t ns = pmcf_catalog_suggest(c, name, sug, 3);
	char buf[256] = "";
	size_t off = 0;
	for (size_t i = 0; i < ns && off < sizeof(buf); i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s",
					i ? (i + 1 == ns ? " or " : ", ") : "", sug[i]);
	int err =
		ns ? pmcfi_fail(PMCF_EEVENT, "unknown event '%s' for simulated machine %s (did you mean %s?)",
				name, machine, buf)
		   : pmcfi_fail(PMCF_EEVENT,
				"unknown event '%s' for simulated machine %s (pmcf_catalog_sim lists "
				"them; `pmcfuse events --sim SPEC`)",
				name, machine);
	pmcf_catalog_free(c);
	return err;
}

static int record(const pmcf_sim_spec *s, const char *const *events, const size_t *idx, size_t nevents,
		  const pmcf_count_opts *opts, pmcf_profile **out);

static double preset(const struct pmcfi_sim_event *e, const double *v)
{
	switch (e->op) {
	case SIM_OP_ADD: return v[e->nat[0]] + v[e->nat[1]];
	case SIM_OP_SUB: return v[e->nat[0]] - v[e->nat[1]];
	default: return v[e->nat[0]];
	}
}

static int set_meta(pmcf_profile *p, const char *k, const char *v) { return pmcf_profile_meta_set(p, k, v); }

static int fill_meta(pmcf_profile *p, const pmcf_sim_spec *s, const struct pmcfi_sim_machine *m,
		     const pmcf_count_opts *o, int hem, const struct pmcfi_sim_run *r)
{
	char buf[64];
	int err = set_meta(p, PMCF_META_SOURCE, "sim");
	if (!err)
		err = set_meta(p, PMCF_META_PROGRAM, pmcf_sim_spec_workload(s));
	if (!err)
		err = set_meta(p, PMCF_META_SIM_SPEC, pmcf_sim_spec_canonical(s));
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)s->seed);
	if (!err)
		err = set_meta(p, PMCF_META_SEED, buf);
	snprintf(buf, sizeof(buf), "%u", o->pmcs ? o->pmcs : (unsigned)m->ngeneral);
	if (!err)
		err = set_meta(p, PMCF_META_PMCS, buf);
	if (!err)
		err = set_meta(p, PMCF_META_MULTIPLEX, pmcf_mux_mode_name(o->multiplex));
	if (!err && o->multiplex != PMCF_MUX_NONE) {
		snprintf(buf, sizeof(buf), "%g", o->period_ms);
		err = set_meta(p, PMCF_META_PERIOD_MS, buf);
		if (!err)
			err = set_meta(p, PMCF_META_ESTIMATE, pmcf_estimate_name(o->estimate));
		if (!err)
			err = set_meta(p, "multiplexed", hem ? "1" : "0");
	}
	char pmu[160];
	snprintf(pmu, sizeof(pmu), "sim:%s", m->name);
	if (!err)
		err = set_meta(p, PMCF_META_PMU, pmu);
	if (!err)
		err = set_meta(p, PMCF_META_CPU_MODEL, m->description);
	if (!err)
		err = set_meta(p, PMCF_META_EXIT_STATUS, "0");
	if (!err)
		err = set_meta(p, PMCF_META_COMPLETE, "1");
	snprintf(buf, sizeof(buf), "%d", r->threads);
	if (!err)
		err = set_meta(p, "threads", buf);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)r->makespan);
	if (!err)
		err = set_meta(p, "makespan_ns", buf);
	if (!err)
		err = set_meta(p, PMCF_META_PMCFUSE_VERSION, pmcf_version());
	return err;
}

/* Everything of one recording that must be freed. */
struct rec {
	struct pmcfi_sim_machine *m;
	struct pmcfi_sim_workload *w;
	struct pmcfi_sim_run *r;
	struct pmcfi_sim_hem_out h;
	int *ev;
	pmcf_profile *p;
};

static int fill_profile(struct rec *c, const pmcf_sim_spec *s, const pmcf_count_opts *o, size_t nev,
			const int *units, size_t nu, int hem)
{
	const struct pmcfi_sim_machine *m = c->m;
	const struct pmcfi_sim_workload *w = c->w;
	const struct pmcfi_sim_run *r = c->r;
	pmcf_profile *p = c->p;
	int err = fill_meta(p, s, m, o, hem, r);
	uint32_t tid[16];
	for (int t = 0; t < w->ntypes && !err; t++)
		err = pmcf_profile_type_add(p, w->types[t].kind, w->types[t].name, w->types[t].location,
					    &tid[t]);
	if (!err)
		err = pmcf_profile_event_add(p, PMCF_EVENT_DURATION, NULL);
	for (size_t i = 0; i < nev && !err; i++)
		err = pmcf_profile_event_add(p, m->ev[c->ev[i]].name, NULL);
	if (!err)
		err = pmcf_profile_truth_event_add(p, PMCF_EVENT_DURATION, NULL);
	for (int e = 0; e < m->nev && !err; e++)
		err = pmcf_profile_truth_event_add(p, m->ev[e].name, NULL);
	if (!err)
		err = pmcf_profile_reserve(p, w->nxu);
	for (size_t x = 0; x < w->nxu && !err; x++) {
		const struct pmcfi_sim_wxu *u = &w->xu[x];
		pmcf_xu xu = {
			.type = tid[u->type],
			.thread = r->thread[x],
			.cpu = r->cpu[x],
			.start_ns = r->start[x],
			.end_ns = r->end[x],
			.label = pmcfi_sim_label(w, u->label),
			.parent_label = pmcfi_sim_label(w, u->parent),
		};
		err = pmcf_profile_xu_add(p, &xu, NULL);
	}
	if (!err && hem)
		err = pmcf_profile_coverage_enable(p);
	if (err)
		return err;
	double *dur = pmcf_profile_column(p, 0), *tdur = pmcf_profile_truth_column(p, 0);
	for (size_t x = 0; x < w->nxu; x++)
		dur[x] = tdur[x] = (double)(r->end[x] - r->start[x]);
	for (int e = 0; e < m->nev; e++) {
		double *col = pmcf_profile_truth_column(p, (size_t)e + 1);
		for (size_t x = 0; x < w->nxu; x++)
			col[x] = preset(&m->ev[e], &r->nat[x * NAT_COUNT]);
	}
	double est[NAT_COUNT];
	uint64_t runn[NAT_COUNT];
	for (size_t i = 0; i < nev; i++) {
		const struct pmcfi_sim_event *e = &m->ev[c->ev[i]];
		double *col = pmcf_profile_column(p, i + 1);
		for (size_t x = 0; x < w->nxu; x++) {
			if (!hem) {
				col[x] = preset(e, &r->nat[x * NAT_COUNT]);
				continue;
			}
			uint64_t run = UINT64_MAX;
			for (size_t u = 0; u < nu; u++) {
				est[units[u]] = c->h.est[x * nu + u];
				runn[units[u]] = c->h.running[x * nu + u];
			}
			for (int k = 0; k < e->nnat; k++)
				if (runn[e->nat[k]] < run)
					run = runn[e->nat[k]];
			col[x] = preset(e, est);
			err = pmcf_profile_coverage_set(p, x, i + 1, r->end[x] - r->start[x], run);
			if (err)
				return err;
		}
	}
	return 0;
}

int pmcf_sim_record(const pmcf_sim_spec *s, const char *const *events, size_t nevents,
		    const pmcf_count_opts *opts, pmcf_profile **out)
{
	return record(s, events, NULL, nevents, opts, out);
}

int pmcfi_sim_record_idx(const pmcf_sim_spec *s, const size_t *idx, size_t n, const pmcf_count_opts *opts,
			 pmcf_profile **out)
{
	return record(s, NULL, idx, n, opts, out);
}

int pmcfi_sim_count_opts_check(const pmcf_count_opts *o)
{
	if (o->pmcs > SIM_MAX_GENERAL)
		return pmcfi_fail(PMCF_EINVAL,
				  "the counter budget (pmcf_count_opts.pmcs; the command's --pmcs) %u: the "
				  "simulator models at most %d counters",
				  o->pmcs, SIM_MAX_GENERAL);
	return 0;
}

/* One recording of the events named events[0..nevents), or, when events is
 * NULL, of the sim catalogue's events idx[0..nevents) (index 0 duration,
 * index i machine event i - 1: no name looked up). */
static int record(const pmcf_sim_spec *s, const char *const *events, const size_t *idx, size_t nevents,
		  const pmcf_count_opts *opts, pmcf_profile **out)
{
	pmcfi_clear_error();
	*out = NULL;
	if (!s || (nevents && !events && !idx))
		return pmcfi_fail(PMCF_EINVAL, "pmcf_sim_record: missing argument");
	pmcf_count_opts o;
	int rc = pmcfi_count_opts_in(opts, &o);
	if (rc)
		return rc;
	if ((rc = pmcfi_sim_count_opts_check(&o)))
		return rc;
	struct rec c = {0};
	int err = pmcfi_sim_machine_load(s->machine, &c.m);
	size_t nev = 0;
	if (!err && !(c.ev = malloc((nevents ? nevents : 1) * sizeof(int))))
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
	for (size_t i = 0; i < nevents && !err; i++) {
		if (events ? strcmp(events[i], PMCF_EVENT_DURATION) == 0 : idx[i] == 0)
			continue;
		if (events)
			pmcfi_name_lookups++; /* a name of the caller's, looked up */
		int e = events                       ? pmcfi_sim_machine_find(c.m, events[i])
			: idx[i] <= (size_t)c.m->nev ? (int)idx[i] - 1
						     : -1;
		if (e < 0 && !events) {
			err = pmcfi_fail(PMCF_EEVENT, "no event %zu on simulated machine %s", idx[i],
					 s->machine);
			break;
		}
		if (e < 0) {
			err = unknown_event(s->machine, events[i]);
			break;
		}
		int dup = 0;
		for (size_t j = 0; j < nev; j++)
			dup |= c.ev[j] == e;
		if (!dup)
			c.ev[nev++] = e;
	}
	int hem = 0;
	if (!err) {
		char why[512];
		int fits = pmcfi_sim_check_events(c.m, c.ev, nev, o.pmcs, why, sizeof(why));
		if (!fits && o.multiplex == PMCF_MUX_NONE)
			err = pmcfi_fail(PMCF_ETOOMANY,
					 "%s (time-share the counters: multiplex; the command's --multiplex)",
					 why);
		hem = !fits;
	}
	/* the units the counters rotate: the distinct natives of the set */
	int units[NAT_COUNT];
	size_t nu = 0;
	for (size_t i = 0; i < nev && !err; i++)
		for (int k = 0; k < c.m->ev[c.ev[i]].nnat; k++) {
			int nat = c.m->ev[c.ev[i]].nat[k], dup = 0;
			for (size_t j = 0; j < nu; j++)
				dup |= units[j] == nat;
			if (!dup)
				units[nu++] = nat;
		}
	if (!err)
		err = pmcfi_sim_workload_build(s, c.m, &c.w);
	double period_ns = o.period_ms * 1e6;
	double rot = !c.m ? 0 : o.multiplex == PMCF_MUX_KERNEL ? c.m->rot_kernel_ns : c.m->rot_user_ns;
	if (!err)
		err = pmcfi_sim_engine_run(c.w, c.m, s->seed, s->model, hem ? period_ns : 0, hem ? rot : 0,
					   &c.r);
	if (!err && hem)
		err = pmcfi_sim_hem_run(c.m, c.r, units, nu, o.pmcs, o.multiplex, period_ns, o.estimate,
					s->seed, &c.h);
	if (!err)
		err = pmcf_profile_new(&c.p);
	if (!err)
		err = fill_profile(&c, s, &o, nev, units, nu, hem);
	if (err == PMCF_ENOMEM && !pmcf_errdetail()[0])
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory recording the simulation");
	free(c.h.est);
	free(c.h.running);
	free(c.ev);
	pmcfi_sim_run_free(c.r);
	pmcfi_sim_workload_free(c.w);
	pmcfi_sim_machine_free(c.m);
	if (err) {
		pmcf_profile_free(c.p);
		return err;
	}
	*out = c.p;
	return 0;
}
