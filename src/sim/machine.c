/* Simulated machines: loading their JSON description (bundled
 * data/machines/<name>.json or a file), topology helpers. The format is
 * documented in docs/simulation.md. */
#include "sim/sim_impl.h"
#include "util/embedded.h"
#include "util/internal.h"
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *const pmcfi_sim_nat_names[NAT_COUNT] = {
	[NAT_INS] = "INST_RETIRED:ANY",
	[NAT_CYC] = "CPU_CLK_UNHALTED:THREAD",
	[NAT_REF] = "CPU_CLK_UNHALTED:REF",
	[NAT_L1D_REPL] = "L1D:REPLACEMENT",
	[NAT_ICACHE_MISS] = "ICACHE:MISSES",
	[NAT_L1_LDM] = "MEM_LOAD_UOPS_RETIRED:L1_MISS",
	[NAT_L1_STM] = "L2_STORE_LOCK_RQSTS:ALL",
	[NAT_L2_DRD] = "L2_RQSTS:ALL_DEMAND_DATA_RD",
	[NAT_L2_RFO] = "L2_RQSTS:ALL_RFO",
	[NAT_L2_RFO_MISS] = "L2_RQSTS:RFO_MISS",
	[NAT_L2_WB] = "L2_L1D_WB_RQSTS:ALL",
	[NAT_L2_DRD_MISS] = "L2_RQSTS:DEMAND_DATA_RD_MISS",
	[NAT_L2_CODE_MISS] = "L2_RQSTS:CODE_RD_MISS",
	[NAT_L2_CODE_HIT] = "L2_RQSTS:CODE_RD_HIT",
	[NAT_L2_CODE_ALL] = "L2_RQSTS:ALL_CODE_RD",
	[NAT_OFF_CODE] = "OFFCORE_RESPONSE_1:DMND_CODE_RD",
	[NAT_OFF_DATA_RD] = "OFFCORE_RESPONSE_0:DMND_DATA_RD",
	[NAT_OFF_RFO] = "OFFCORE_RESPONSE_0:DMND_RFO",
	[NAT_OFF_WB] = "OFFCORE_RESPONSE_1:WB",
	[NAT_LLC_REF] = "LONGEST_LAT_CACHE:REFERENCE",
	[NAT_LLC_MISS] = "LONGEST_LAT_CACHE:MISS",
	[NAT_ITLB_MISS] = "ITLB_MISSES:MISS_CAUSES_A_WALK",
	[NAT_BR_ALL] = "BR_INST_RETIRED:ALL_BRANCHES",
	[NAT_BR_COND] = "BR_INST_RETIRED:CONDITIONAL",
	[NAT_BR_TAKEN_COND] = "BR_INST_EXEC:TAKEN_CONDITIONAL",
	[NAT_BR_MISP] = "BR_MISP_RETIRED:ALL_BRANCHES",
	[NAT_LOADS] = "MEM_UOPS_RETIRED:ALL_LOADS",
	[NAT_STORES] = "MEM_UOPS_RETIRED:ALL_STORES",
	[NAT_FPU_DIV] = "ARITH:FPU_DIV",
	[NAT_STALL_CYC] = "UOPS_ISSUED:STALL_CYCLES",
};

static int nat_by_name(const char *name)
{
	for (int i = 0; i < NAT_COUNT; i++)
		if (strcmp(pmcfi_sim_nat_names[i], name) == 0)
			return i;
	return -1;
}

void pmcfi_sim_machine_free(struct pmcfi_sim_machine *m)
{
	if (!m)
		return;
	free(m->name);
	free(m->description);
	for (int i = 0; i < m->nshared; i++)
		free(m->shared_name[i]);
	for (int i = 0; i < m->nev; i++) {
		free(m->ev[i].name);
		free(m->ev[i].description);
	}
	free(m);
}

/* Reads a number field; *ok cleared when missing or not a number. */
static double num(json_t *o, const char *key, double min, double max, const char **bad)
{
	json_t *v = json_object_get(o, key);
	if (!v || !json_is_number(v)) {
		if (!*bad)
			*bad = key;
		return min;
	}
	double x = json_number_value(v);
	if (!(x >= min && x <= max) && !*bad)
		*bad = key;
	return x;
}

static int parse_natives(struct pmcfi_sim_machine *m, json_t *nats, const char *src)
{
	for (int i = 0; i < NAT_COUNT; i++) {
		m->nat[i].model = i;
		m->nat[i].fixed = -1;
		m->nat[i].mask = 0;
		m->nat[i].shared = -1;
	}
	const char *key;
	json_t *v;
	json_object_foreach(nats, key, v)
	{
		int n = nat_by_name(key);
		if (n < 0)
			return pmcfi_fail(PMCF_ECORRUPT,
					  "machine '%s': native event '%s' is unknown to the simulator", src,
					  key);
		json_t *fx = json_object_get(v, "fixed");
		if (fx) {
			if (!json_is_integer(fx) || json_integer_value(fx) < 0 ||
			    json_integer_value(fx) >= m->nfixed)
				return pmcfi_fail(PMCF_ECORRUPT,
						  "machine '%s': native '%s' names a bad fixed counter", src,
						  key);
			m->nat[n].fixed = (int)json_integer_value(fx);
		}
		json_t *cs = json_object_get(v, "counters");
		size_t k;
		json_t *c;
		json_array_foreach(cs, k, c)
		{
			if (!json_is_integer(c) || json_integer_value(c) < 0 ||
			    json_integer_value(c) >= m->ngeneral)
				return pmcfi_fail(PMCF_ECORRUPT,
						  "machine '%s': native '%s' names a bad counter", src, key);
			m->nat[n].mask |= 1ull << json_integer_value(c);
		}
		if (m->nat[n].fixed < 0 && !m->nat[n].mask)
			return pmcfi_fail(PMCF_ECORRUPT, "machine '%s': native '%s' has no counter", src,
					  key);
		json_t *sh = json_object_get(v, "shared");
		if (json_is_string(sh)) {
			int s = -1;
			for (int j = 0; j < m->nshared; j++)
				if (strcmp(m->shared_name[j], json_string_value(sh)) == 0)
					s = j;
			if (s < 0) {
				if (m->nshared == SIM_MAX_SHARED)
					return pmcfi_fail(PMCF_ECORRUPT,
							  "machine '%s': too many shared registers", src);
				if (!(m->shared_name[m->nshared] = strdup(json_string_value(sh))))
					return pmcfi_fail(PMCF_ENOMEM, "out of memory");
				s = m->nshared++;
			}
			m->nat[n].shared = s;
		}
	}
	return 0;
}

static int parse_events(struct pmcfi_sim_machine *m, json_t *evs, const char *src)
{
	size_t i;
	json_t *e;
	if (!json_is_array(evs) || json_array_size(evs) == 0 || json_array_size(evs) > SIM_MAX_EVENTS)
		return pmcfi_fail(PMCF_ECORRUPT, "machine '%s': 'events' must be an array of 1 to %d events",
				  src, SIM_MAX_EVENTS);
	json_array_foreach(evs, i, e)
	{
		struct pmcfi_sim_event *ev = &m->ev[m->nev];
		const char *name = json_string_value(json_object_get(e, "name"));
		const char *desc = json_string_value(json_object_get(e, "description"));
		json_t *nat = json_object_get(e, "native");
		if (!name || !json_is_array(nat) || json_array_size(nat) < 1 || json_array_size(nat) > 2)
			return pmcfi_fail(PMCF_ECORRUPT,
					  "machine '%s': event %zu needs a name and 1 or 2 natives", src, i);
		ev->name = strdup(name);
		ev->description = strdup(desc ? desc : "");
		ev->alias_of = -1;
		m->nev++;
		if (!ev->name || !ev->description)
			return pmcfi_fail(PMCF_ENOMEM, "out of memory");
		ev->nnat = (int)json_array_size(nat);
		for (int k = 0; k < ev->nnat; k++) {
			const char *nn = json_string_value(json_array_get(nat, (size_t)k));
			int n = nn ? nat_by_name(nn) : -1;
			if (n < 0 || (m->nat[n].fixed < 0 && !m->nat[n].mask))
				return pmcfi_fail(PMCF_ECORRUPT,
						  "machine '%s': event '%s' uses an undefined native '%s'",
						  src, name, nn ? nn : "?");
			ev->nat[k] = n;
		}
		const char *op = json_string_value(json_object_get(e, "op"));
		ev->op = ev->nnat == 1                    ? SIM_OP_ONE
			 : (op && strcmp(op, "sub") == 0) ? SIM_OP_SUB
							  : SIM_OP_ADD;
		const char *alias = json_string_value(json_object_get(e, "alias_of"));
		if (alias) {
			ev->alias_of = pmcfi_sim_machine_find(m, alias);
			if (ev->alias_of < 0)
				return pmcfi_fail(PMCF_ECORRUPT,
						  "machine '%s': '%s' is an alias of an unknown or "
						  "later event '%s'",
						  src, name, alias);
		}
		for (int j = 0; j + 1 < m->nev; j++)
			if (strcmp(m->ev[j].name, name) == 0)
				return pmcfi_fail(PMCF_ECORRUPT, "machine '%s': event '%s' listed twice", src,
						  name);
	}
	return 0;
}

static int parse_machine(json_t *root, const char *src, struct pmcfi_sim_machine *m)
{
	const char *bad = NULL;
	const char *name = json_string_value(json_object_get(root, "name"));
	const char *desc = json_string_value(json_object_get(root, "description"));
	if (!name)
		return pmcfi_fail(PMCF_ECORRUPT, "machine '%s': missing 'name'", src);
	if (!(m->name = strdup(name)) || !(m->description = strdup(desc ? desc : "")))
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	m->sockets = (int)num(root, "sockets", 1, 256, &bad);
	m->numa_nodes = (int)num(root, "numa_nodes", 1, 256, &bad);
	m->numa_group = (int)num(root, "numa_group", 1, 256, &bad);
	m->cores_per_socket = (int)num(root, "cores_per_socket", 1, 256, &bad);
	m->threads_per_core = (int)num(root, "threads_per_core", 1, 8, &bad);
	m->freq_ghz = num(root, "freq_ghz", 0.1, 10, &bad);
	m->turbo_spread = num(root, "turbo_spread", 0, 0.5, &bad);
	m->l1d = num(root, "l1d_kb", 1, 1e6, &bad) * 1024;
	m->l1i = num(root, "l1i_kb", 1, 1e6, &bad) * 1024;
	m->l2 = num(root, "l2_kb", 1, 1e6, &bad) * 1024;
	m->l3 = num(root, "l3_kb_per_socket", 1, 1e8, &bad) * 1024;
	m->lat_l2 = num(root, "lat_l2", 1, 1e4, &bad);
	m->lat_l3 = num(root, "lat_l3", 1, 1e4, &bad);
	m->lat_mem = num(root, "lat_mem_local", 1, 1e5, &bad);
	m->lat_hop = num(root, "lat_mem_hop", 0, 1e5, &bad);
	m->bw_lines_per_ns = num(root, "bandwidth_lines_per_us_per_socket", 1, 1e7, &bad) / 1000.0;
	m->noise = num(root, "noise", 0, 100, &bad);
	m->variability = num(root, "variability", 0, 100, &bad);
	json_t *rot = json_object_get(root, "rotation_cost_ns");
	m->rot_kernel_ns = num(rot, "kernel", 0, 1e9, &bad);
	m->rot_user_ns = num(rot, "user", 0, 1e9, &bad);
	json_t *cnt = json_object_get(root, "counters");
	m->ngeneral = (int)num(cnt, "general", 1, SIM_MAX_GENERAL, &bad);
	m->nfixed = (int)num(cnt, "fixed", 0, 16, &bad);
	if (bad)
		return pmcfi_fail(PMCF_ECORRUPT, "machine '%s': field '%s' is missing or out of range", src,
				  bad);
	const char *pin = json_string_value(json_object_get(root, "pinning"));
	m->pin_random = pin && strcmp(pin, "random") == 0;
	if (m->numa_nodes > m->sockets * m->cores_per_socket)
		return pmcfi_fail(PMCF_ECORRUPT, "machine '%s': more NUMA nodes than cores", src);
	m->ncores = m->sockets * m->cores_per_socket;
	m->ncpus = m->ncores * m->threads_per_core;
	json_t *nats = json_object_get(root, "natives");
	if (!json_is_object(nats))
		return pmcfi_fail(PMCF_ECORRUPT, "machine '%s': missing 'natives'", src);
	int err = parse_natives(m, nats, src);
	if (!err)
		err = parse_events(m, json_object_get(root, "events"), src);
	return err;
}

static int is_file_name(const char *s)
{
	size_t n = strlen(s);
	return strchr(s, '/') || (n > 5 && strcmp(s + n - 5, ".json") == 0);
}

static void list_bundled(char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = '\0';
	for (const struct pmcf_embedded *e = pmcf_embedded_files; e->name; e++)
		if (strncmp(e->name, "machines/", 9) == 0 && off < len)
			off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ", " : "", e->name + 9);
}

int pmcfi_sim_machine_load(const char *name_or_file, struct pmcfi_sim_machine **out)
{
	*out = NULL;
	json_error_t jerr;
	json_t *root;
	if (is_file_name(name_or_file)) {
		root = json_load_file(name_or_file, 0, &jerr);
		if (!root)
			return pmcfi_fail(PMCF_ESYNTAX, "machine file '%s': %s (line %d)", name_or_file,
					  jerr.text, jerr.line);
	} else {
		char key[128];
		snprintf(key, sizeof(key), "machines/%s", name_or_file);
		const struct pmcf_embedded *e = pmcfi_embedded_find(key);
		if (!e) {
			char names[256];
			list_bundled(names, sizeof(names));
			return pmcfi_fail(PMCF_ENOENT, "unknown machine '%s' (bundled: %s; or a .json file)",
					  name_or_file, names);
		}
		root = json_loadb(e->data, e->size, 0, &jerr);
		if (!root)
			return pmcfi_fail(PMCF_ECORRUPT, "bundled machine '%s': %s", name_or_file, jerr.text);
	}
	struct pmcfi_sim_machine *m = calloc(1, sizeof(*m));
	if (!m) {
		json_decref(root);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	}
	int err = json_is_object(root)
			  ? parse_machine(root, name_or_file, m)
			  : pmcfi_fail(PMCF_ECORRUPT, "machine '%s' is not a JSON object", name_or_file);
	json_decref(root);
	if (err) {
		pmcfi_sim_machine_free(m);
		return err;
	}
	*out = m;
	return 0;
}

int pmcfi_sim_machine_find(const struct pmcfi_sim_machine *m, const char *name)
{
	for (int i = 0; i < m->nev; i++)
		if (strcmp(m->ev[i].name, name) == 0)
			return i;
	for (int i = 0; i < m->nev; i++)
		if (strcasecmp(m->ev[i].name, name) == 0)
			return i;
	return -1;
}

/* Nodes come in groups (two per blade) joined by a ring: one hop inside a
 * group, one more per ring step between groups. */
int pmcfi_sim_machine_hops(const struct pmcfi_sim_machine *m, int a, int b)
{
	if (a == b)
		return 0;
	int ga = a / m->numa_group, gb = b / m->numa_group;
	int ng = (m->numa_nodes + m->numa_group - 1) / m->numa_group;
	int d = ga > gb ? ga - gb : gb - ga;
	if (ng - d < d)
		d = ng - d;
	return 1 + d;
}
