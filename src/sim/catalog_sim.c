/* The event catalogue of a simulated machine and its compatibility check:
 * events map to native events, natives to counters (masks, fixed counters,
 * shared configuration registers); a set fits when an exact assignment of
 * its distinct natives to counters exists (bipartite matching). Aliased
 * presets (PAPI_L1_DCM and PAPI_L2_DCA, fuse-task-parallel §3.3) name the
 * same native, so counting both takes one counter, as in PAPI. */
#include "counters/catalog.h"
#include "sim/sim_impl.h"
#include "util/internal.h"
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The general counters native n may use with ngen counters. */
static uint64_t nat_mask(const struct pmcfi_sim_fit *f, int n)
{
	uint64_t all_machine = f->m->ngeneral >= 64 ? ~0ull : (1ull << f->m->ngeneral) - 1;
	uint64_t all = f->ngen >= 64 ? ~0ull : (1ull << f->ngen) - 1;
	uint64_t mask = f->m->nat[n].mask;
	if (mask == all_machine)
		return all;
	return mask & all;
}

void pmcfi_sim_fit_reset(struct pmcfi_sim_fit *f, const struct pmcfi_sim_machine *m, unsigned pmcs)
{
	f->m = m;
	f->ngen = pmcs > 0 ? (pmcs > SIM_MAX_GENERAL ? SIM_MAX_GENERAL : (int)pmcs) : m->ngeneral;
	f->in = 0;
	for (int i = 0; i < SIM_MAX_GENERAL; i++)
		f->owner[i] = -1;
	for (int i = 0; i < NAT_COUNT; i++)
		f->counter[i] = -1;
	for (int i = 0; i < SIM_MAX_SHARED; i++)
		f->shared_by[i] = -1;
}

/* Kuhn's augmenting path from native n; seen marks visited counters. */
static int augment(struct pmcfi_sim_fit *f, int n, uint64_t *seen)
{
	uint64_t cand = nat_mask(f, n) & ~*seen;
	while (cand) {
		int c = __builtin_ctzll(cand);
		cand &= cand - 1;
		*seen |= 1ull << c;
		int o = f->owner[c];
		if (o < 0 || augment(f, o, seen)) {
			f->owner[c] = n;
			f->counter[n] = c;
			return 1;
		}
	}
	return 0;
}

int pmcfi_sim_fit_add(struct pmcfi_sim_fit *f, int n)
{
	if (f->in & (1ull << n))
		return 1;
	const struct pmcfi_sim_native *nat = &f->m->nat[n];
	if (nat->shared >= 0 && f->shared_by[nat->shared] >= 0)
		return 0;
	if (nat->fixed >= 0) {
		f->counter[n] = -2;
	} else {
		/* a failed augmenting search changes nothing (assignments are
		 * only made on the way back from a success) */
		uint64_t seen = 0;
		if (!augment(f, n, &seen))
			return 0;
	}
	if (nat->shared >= 0)
		f->shared_by[nat->shared] = n;
	f->in |= 1ull << n;
	return 1;
}

static void counters_text(uint64_t mask, char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = '\0';
	while (mask && off < len) {
		int c = __builtin_ctzll(mask);
		mask &= mask - 1;
		off += (size_t)snprintf(buf + off, len - off, "%s%d", off ? "," : "", c);
	}
}

/* The first event of ev[0..n) that uses native nat. */
static const char *event_of(const struct pmcfi_sim_machine *m, const int *ev, size_t n, int nat)
{
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < m->ev[ev[i]].nnat; k++)
			if (m->ev[ev[i]].nat[k] == nat)
				return m->ev[ev[i]].name;
	return "?";
}

int pmcfi_sim_check_events(const struct pmcfi_sim_machine *m, const int *ev, size_t n, unsigned pmcs,
			   char *why, size_t whylen)
{
	struct pmcfi_sim_fit f;
	pmcfi_sim_fit_reset(&f, m, pmcs);
	if (whylen)
		why[0] = '\0';
	/* shared registers first: two natives wanting one register */
	int sh[SIM_MAX_SHARED];
	for (int i = 0; i < SIM_MAX_SHARED; i++)
		sh[i] = -1;
	uint64_t need = 0;
	for (size_t i = 0; i < n; i++) {
		const struct pmcfi_sim_event *e = &m->ev[ev[i]];
		for (int k = 0; k < e->nnat; k++) {
			int nat = e->nat[k];
			int s = m->nat[nat].shared;
			if (s >= 0 && sh[s] >= 0 && sh[s] != nat) {
				snprintf(why, whylen,
					 "%s and %s cannot be counted together (both need the %s "
					 "register)",
					 event_of(m, ev, n, sh[s]), e->name, m->shared_name[s]);
				return 0;
			}
			if (s >= 0)
				sh[s] = nat;
			need |= 1ull << nat;
		}
	}
	/* counting argument, for a clear message */
	int ngen_needed = 0;
	for (int nat = 0; nat < NAT_COUNT; nat++)
		if ((need >> nat & 1) && m->nat[nat].fixed < 0)
			ngen_needed++;
	if (ngen_needed > f.ngen) {
		char list[512];
		size_t off = 0;
		list[0] = '\0';
		/* each event with the new general counters it takes; aliases and
		 * shared natives take none */
		uint64_t seen = 0;
		for (size_t i = 0; i < n && off < sizeof(list); i++) {
			const struct pmcfi_sim_event *e = &m->ev[ev[i]];
			int k = 0;
			for (int j = 0; j < e->nnat; j++) {
				int nat = e->nat[j];
				if (m->nat[nat].fixed < 0 && !(seen >> nat & 1))
					k++;
				seen |= 1ull << nat;
			}
			if (k)
				off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s%s",
							off ? ", " : "", e->name, k == 2 ? " (2)" : "");
		}
		if (off >= sizeof(list) && sizeof(list) > 4)
			strcpy(list + sizeof(list) - 4, "...");
		snprintf(why, whylen, "the events need %d general-purpose counters but %s has %d%s: %s",
			 ngen_needed, m->name, f.ngen, pmcs ? " (pmcs; the command's --pmcs)" : "", list);
		return 0;
	}
	for (int nat = 0; nat < NAT_COUNT; nat++) {
		if (!(need >> nat & 1))
			continue;
		uint64_t before = f.in;
		if (pmcfi_sim_fit_add(&f, nat))
			continue;
		(void)before;
		/* Hall violator: natives that can only use the counters reachable
		 * from nat; name two of them. */
		uint64_t mask = nat_mask(&f, nat);
		if (!mask) {
			snprintf(why, whylen,
				 "%s cannot be counted with %d general-purpose counters (it needs "
				 "counter %d)",
				 event_of(m, ev, n, nat), f.ngen, __builtin_ctzll(m->nat[nat].mask));
			return 0;
		}
		char cs[128];
		counters_text(mask, cs, sizeof(cs));
		const char *other = "other events";
		for (int c = 0; c < f.ngen; c++)
			if ((mask >> c & 1) && f.owner[c] >= 0) {
				other = event_of(m, ev, n, f.owner[c]);
				break;
			}
		snprintf(why, whylen, "%s and %s cannot be counted together (both only fit counter%s %s)",
			 other, event_of(m, ev, n, nat), strchr(cs, ',') ? "s" : "", cs);
		return 0;
	}
	return 1;
}

/* ---- catalogue --------------------------------------------------------------- */

static int cat_check(void *impl, const pmcf_catalog *c, const size_t *idx, size_t n, unsigned pmcs, char *why,
		     size_t whylen)
{
	const struct pmcfi_sim_machine *m = impl;
	int *ev = malloc((n ? n : 1) * sizeof(*ev));
	if (!ev)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		const pmcf_event_info *info = pmcf_catalog_at(c, idx[i]);
		ev[i] = info ? pmcfi_sim_machine_find(m, info->name) : -1;
		if (ev[i] < 0) {
			free(ev);
			return pmcfi_fail(PMCF_EEVENT, "event not in the simulated machine");
		}
	}
	int r = pmcfi_sim_check_events(m, ev, n, pmcs, why, whylen);
	free(ev);
	return r;
}

static void cat_free(void *impl) { pmcfi_sim_machine_free(impl); }

static const struct pmcfi_catalog_ops sim_ops = {.check_set = cat_check, .free_impl = cat_free};

/* {"counters":[…],"fixed":false,"cost":n,"native":[…],"conflicts":[…],"alias_of":"…"} */
static char *constraints_json(const struct pmcfi_sim_machine *m, int e, unsigned *cost)
{
	const struct pmcfi_sim_event *ev = &m->ev[e];
	json_t *o = json_object(), *cs = json_array(), *nat = json_array(), *conf = json_array();
	uint64_t mask = 0;
	int fixed = -1;
	*cost = 0;
	for (int k = 0; k < ev->nnat; k++) {
		const struct pmcfi_sim_native *n = &m->nat[ev->nat[k]];
		json_array_append_new(nat, json_string(pmcfi_sim_nat_names[ev->nat[k]]));
		if (n->fixed >= 0)
			fixed = n->fixed;
		else {
			mask |= n->mask;
			(*cost)++;
		}
	}
	for (int c = 0; c < 64; c++)
		if (mask >> c & 1)
			json_array_append_new(cs, json_integer(c));
	for (int j = 0; j < m->nev; j++) {
		if (j == e)
			continue;
		int clash = 0;
		for (int a = 0; a < ev->nnat; a++)
			for (int b = 0; b < m->ev[j].nnat; b++) {
				int na = ev->nat[a], nb = m->ev[j].nat[b];
				clash |= na != nb && m->nat[na].shared >= 0 &&
					 m->nat[na].shared == m->nat[nb].shared;
			}
		if (clash)
			json_array_append_new(conf, json_string(m->ev[j].name));
	}
	json_object_set_new(o, "counters", cs);
	json_object_set_new(o, "fixed", json_boolean(fixed >= 0));
	if (fixed >= 0)
		json_object_set_new(o, "fixed_counter", json_integer(fixed));
	json_object_set_new(o, "cost", json_integer(*cost));
	json_object_set_new(o, "native", nat);
	if (ev->nnat == 2)
		json_object_set_new(o, "derived", json_string(ev->op == SIM_OP_SUB ? "sub" : "add"));
	json_object_set_new(o, "conflicts", conf);
	if (ev->alias_of >= 0)
		json_object_set_new(o, "alias_of", json_string(m->ev[ev->alias_of].name));
	char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	return s;
}

int pmcfi_sim_catalog_new(struct pmcfi_sim_machine *m, pmcf_catalog **out)
{
	char name[160];
	snprintf(name, sizeof(name), "sim:%s", m->name);
	pmcf_catalog *c;
	int err = pmcfi_catalog_new(name, &sim_ops, m, &c);
	if (err)
		return err;
	for (int e = 0; e < m->nev && !err; e++) {
		unsigned cost;
		char *cj = constraints_json(m, e, &cost);
		if (!cj) {
			err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
			break;
		}
		pmcf_event_info info = {
			.size = sizeof(pmcf_event_info),
			.name = m->ev[e].name,
			.source = PMCF_SRC_SIM,
			.pmu = NULL,
			.description = m->ev[e].description,
			.constraints = cj,
			.available = 1,
			.cost = cost,
		};
		err = pmcfi_catalog_add(c, &info);
		free(cj);
	}
	if (err) {
		pmcf_catalog_free(c);
		return err;
	}
	*out = c;
	return 0;
}

int pmcf_catalog_sim(const char *spec, pmcf_catalog **out)
{
	pmcfi_clear_error();
	*out = NULL;
	if (spec && strncmp(spec, "machine=", 8) == 0 && !strchr(spec, ',')) {
		/* only a machine: `events --sim machine=xeon192` */
		struct pmcfi_sim_machine *m;
		int err = pmcfi_sim_machine_load(spec + 8, &m);
		return err ? err : pmcfi_sim_catalog_new(m, out);
	}
	pmcf_sim_spec *s;
	int err = pmcf_sim_spec_parse(spec, &s);
	if (err)
		return err;
	struct pmcfi_sim_machine *m;
	err = pmcfi_sim_machine_load(s->machine, &m);
	pmcf_sim_spec_free(s);
	if (err)
		return err;
	return pmcfi_sim_catalog_new(m, out);
}
