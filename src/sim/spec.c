/* Simulation specs: "WORKLOAD[,key=value…]" parsed against the table of
 * workloads and their keys (with defaults and ranges; workload_table.c),
 * and the canonical text stored in profiles (metadata sim_spec). */
#include "util/rng.h"
#include "sim/sim_impl.h"
#include "util/internal.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t nkeys(const struct pmcfi_sim_workload_def *w)
{
	size_t n = 0;
	while (n < SIM_MAX_KEYS && w->keys[n].name)
		n++;
	return n;
}

static void list_workloads(char *buf, size_t len)
{
	size_t off = 0;
	for (size_t i = 0; i < pmcfi_sim_nworkloads && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
					pmcfi_sim_workloads[i]->name);
}

static void list_keys(const struct pmcfi_sim_workload_def *w, char *buf, size_t len)
{
	size_t off = 0;
	for (size_t i = 0; i < nkeys(w) && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s, ", w->keys[i].name);
	if (off < len)
		snprintf(buf + off, len - off, "threads, machine, seed, model");
}

static int parse_long(const char *v, long *out)
{
	if (!*v)
		return -1;
	char *end;
	errno = 0;
	long x = strtol(v, &end, 10);
	if (*end || errno)
		return -1;
	*out = x;
	return 0;
}

static int set_key(pmcf_sim_spec *s, const struct pmcfi_sim_workload_def *w, const char *key, const char *val)
{
	if (strcmp(key, "seed") == 0) {
		char *end;
		errno = 0;
		unsigned long long x = strtoull(val, &end, 0);
		if (!*val || *end || errno || val[0] == '-')
			return pmcfi_fail(PMCF_EINVAL, "seed='%s' is not an unsigned integer", val);
		s->seed = x;
		return 0;
	}
	if (strcmp(key, "machine") == 0) {
		if (!*val)
			return pmcfi_fail(PMCF_EINVAL, "machine= needs a name or a file");
		char *m = strdup(val);
		if (!m)
			return pmcfi_fail(PMCF_ENOMEM, "out of memory");
		free(s->machine);
		s->machine = m;
		return 0;
	}
	if (strcmp(key, "model") == 0) {
		if (strcmp(val, "v1") && strcmp(val, "v2") && strcmp(val, "v3"))
			return pmcfi_fail(PMCF_EINVAL, "model='%s' is not valid (valid: v1, v2, v3)", val);
		s->model = val[1] - '0';
		return 0;
	}
	if (strcmp(key, "threads") == 0) {
		long x;
		if (parse_long(val, &x) || x < 1 || x > 4096)
			return pmcfi_fail(PMCF_EINVAL, "threads='%s' must be an integer in [1, 4096]", val);
		s->threads = x;
		return 0;
	}
	for (size_t i = 0; i < nkeys(w); i++) {
		const struct pmcfi_sim_key_def *k = &w->keys[i];
		if (strcmp(k->name, key) != 0)
			continue;
		if (k->choices) {
			for (long c = 0; k->choices[c]; c++)
				if (strcmp(k->choices[c], val) == 0) {
					s->val[i] = c;
					return 0;
				}
			char buf[256];
			size_t off = 0;
			for (long c = 0; k->choices[c] && off < sizeof(buf); c++)
				off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s", c ? ", " : "",
							k->choices[c]);
			return pmcfi_fail(PMCF_EINVAL, "%s='%s' is not valid for %s (valid: %s)", key, val,
					  w->name, buf);
		}
		long x;
		if (parse_long(val, &x) || x < k->min || x > k->max)
			return pmcfi_fail(PMCF_EINVAL, "%s='%s' must be an integer in [%ld, %ld] for %s", key,
					  val, k->min, k->max, w->name);
		s->val[i] = x;
		return 0;
	}
	char buf[256];
	list_keys(w, buf, sizeof(buf));
	return pmcfi_fail(PMCF_ENOENT, "unknown key '%s' for workload %s (valid keys: %s)", key, w->name,
			  buf);
}

static int make_canonical(pmcf_sim_spec *s)
{
	const struct pmcfi_sim_workload_def *w = s->def;
	char buf[1024];
	size_t off = (size_t)snprintf(buf, sizeof(buf), "%s", w->name);
	for (size_t i = 0; i < nkeys(w) && off < sizeof(buf); i++) {
		if (w->keys[i].choices)
			off += (size_t)snprintf(buf + off, sizeof(buf) - off, ",%s=%s", w->keys[i].name,
						w->keys[i].choices[s->val[i]]);
		else
			off += (size_t)snprintf(buf + off, sizeof(buf) - off, ",%s=%ld", w->keys[i].name,
						s->val[i]);
	}
	if (off < sizeof(buf) && s->threads)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, ",threads=%ld", s->threads);
	if (off < sizeof(buf))
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, ",machine=%s,seed=%llu,model=v%d",
					s->machine, (unsigned long long)s->seed, s->model);
	if (off >= sizeof(buf))
		return pmcfi_fail(PMCF_EINVAL, "simulation spec too long");
	char *c = strdup(buf);
	if (!c)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	free(s->canonical);
	s->canonical = c;
	return 0;
}

int pmcf_sim_spec_parse(const char *text, pmcf_sim_spec **out)
{
	pmcfi_clear_error();
	*out = NULL;
	if (!text)
		return pmcfi_fail(PMCF_EINVAL, "no simulation spec");
	char *copy = strdup(text);
	pmcf_sim_spec *s = calloc(1, sizeof(*s));
	if (!copy || !s || !(s->machine = strdup("xeon32"))) {
		free(copy);
		pmcf_sim_spec_free(s);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	}
	s->seed = 1;
	s->model = 3;
	int err = 0;
	char *save = NULL;
	char *tok = strtok_r(copy, ",", &save);
	char wl[256];
	list_workloads(wl, sizeof(wl));
	if (!tok || !*tok) {
		err = pmcfi_fail(PMCF_ESYNTAX,
				 "empty simulation spec (expected WORKLOAD[,key=value…]; workloads: %s)", wl);
	} else {
		s->workload = -1;
		for (size_t i = 0; i < pmcfi_sim_nworkloads; i++)
			if (strcmp(pmcfi_sim_workloads[i]->name, tok) == 0) {
				s->workload = (int)i;
				s->def = pmcfi_sim_workloads[i];
			}
		if (s->workload < 0)
			err = strchr(tok, '=')
				      ? pmcfi_fail(PMCF_ESYNTAX,
						   "simulation spec '%s' must start with a workload (%s)",
						   text, wl)
				      : pmcfi_fail(PMCF_ENOENT, "unknown workload '%s' (workloads: %s)", tok,
						   wl);
	}
	if (!err) {
		const struct pmcfi_sim_workload_def *w = s->def;
		for (size_t i = 0; i < nkeys(w); i++)
			s->val[i] = w->keys[i].def;
		while (!err && (tok = strtok_r(NULL, ",", &save))) {
			char *eq = strchr(tok, '=');
			if (!eq || eq == tok) {
				err = pmcfi_fail(PMCF_ESYNTAX, "'%s' in simulation spec is not key=value",
						 tok);
				break;
			}
			*eq = '\0';
			err = set_key(s, w, tok, eq + 1);
		}
	}
	if (!err)
		err = make_canonical(s);
	free(copy);
	if (err) {
		pmcf_sim_spec_free(s);
		return err;
	}
	*out = s;
	return 0;
}

void pmcf_sim_spec_free(pmcf_sim_spec *s)
{
	if (!s)
		return;
	free(s->machine);
	free(s->canonical);
	free(s);
}

const char *pmcf_sim_spec_workload(const pmcf_sim_spec *s) { return s->def->name; }
const char *pmcf_sim_spec_machine(const pmcf_sim_spec *s) { return s->machine; }
uint64_t pmcf_sim_spec_seed(const pmcf_sim_spec *s) { return s->seed; }
const char *pmcf_sim_spec_canonical(const pmcf_sim_spec *s) { return s->canonical; }

void pmcf_sim_spec_seed_set(pmcf_sim_spec *s, uint64_t seed)
{
	s->seed = seed;
	make_canonical(s); /* on ENOMEM the previous canonical text stays */
}

uint64_t pmcf_sim_exec_seed(uint64_t base, unsigned i)
{
	uint64_t x = base ^ (0x5851f42d4c957f2dull * (uint64_t)(i + 1));
	return pmcfi_splitmix64(&x);
}

/* The salts of `reference` and of --link auto's pilots (their values are
 * those the command used before they became public: the same seeds). */
#define REFERENCE_SEED_SALT 0x9e6c63d0676a9a99ull
#define PILOT_SEED_SALT 0x5be0cd19137e2179ull

uint64_t pmcf_sim_role_seed(uint64_t base, int role)
{
	return role == PMCF_SEED_REFERENCE ? base ^ REFERENCE_SEED_SALT
	       : role == PMCF_SEED_PILOT   ? base ^ PILOT_SEED_SALT
					   : base;
}
