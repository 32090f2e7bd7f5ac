/* The real-machine event catalogue ("perf"): perf software, generic hardware
 * and hw-cache events, tracefs tracepoints, libpfm4 native PMU events and
 * PAPI presets (counted as their natives, counters/papi.h), their probing
 * and encoding, and the group-open compatibility check. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h> /* before libpfm4's copy, which then steps aside */
#include <perfmon/pfmlib_perf_event.h>
#include <jansson.h>
#include "counters/papi.h"
#include "counters/perf.h"
#include "counters/perf_group.h"
#include "counters/perf_syntax.h"
#include "counters/tracefs.h"
#include "util/abi.h"
#include "util/internal.h"

enum kind {
	K_PSEUDO,
	K_TYPED,
	K_TRACEPOINT,
	K_NATIVE,
	K_PAPI, /* config: index in papi */
	K_RAW,  /* perf's rNNN and pmu/terms/: type, config, config1, config2 */
	K_MOD   /* another event with perf's modifiers (name:mods): config is its index */
};

/* How to encode the catalogue event of the same index. */
struct enc {
	enum kind kind;
	uint32_t type;
	uint64_t config, config1, config2;
	struct pmcfi_perf_mods mods; /* K_RAW, K_MOD */
	unsigned char counterless;   /* K_RAW of a PMU without counters (msr/tsc/) */
	unsigned char noexclude;     /* K_RAW of a PMU that refuses exclude_* (msr) */
	signed char opens;           /* check_set's cache: -1 not tried, 0 refused, 1 opens alone */
	int open_errno;              /* when refused */
};

struct perf_impl {
	struct enc *enc; /* parallel to the catalogue's events */
	size_t n, cap;
	int kernel_ok; /* pmcfi_perf_kernel_allowed() when the catalogue was built */
	/* Parts loaded on demand (pmcfi_catalog_resolve): tracepoints when one is
	 * named, native PMU events when a name is not found otherwise. */
	int have_tracepoints, have_natives, have_papi;
	char *tracefs;           /* tracefs root for tests (pmcfi_catalog_perf_at), or NULL */
	char *sysfs;             /* PMU folders for tests (pmcfi_perf_set_sysfs), or NULL */
	struct pmcfi_papi *papi; /* PAPI presets, NULL when not loaded */
	/* check_set's answer for every ordinary tracepoint (see each_opens):
	 * 0 not tried, 1 opens, 2 refused (with tp_errno) */
	int tp_opens, tp_errno;
};

/* ---- building ------------------------------------------------------------- */

static void free_impl(void *p)
{
	struct perf_impl *impl = p;
	if (impl) {
		free(impl->enc);
		free(impl->tracefs);
		free(impl->sysfs);
		pmcfi_papi_free(impl->papi);
	}
	free(impl);
}

static int enc_reserve(struct perf_impl *impl)
{
	if (pmcfi_grow((void **)&impl->enc, &impl->cap, impl->n + 1, sizeof(*impl->enc)))
		return pmcfi_fail(PMCF_ENOMEM, "out of memory building the event catalogue");
	return 0;
}

/* Adds *info with its encoding *e. A name already present is skipped when
 * skip_dup (libpfm4 tables may repeat one), else an error. */
static int add_enc(pmcf_catalog *c, struct perf_impl *impl, const pmcf_event_info *info, const struct enc *e,
		   int skip_dup)
{
	int err = enc_reserve(impl);
	if (err)
		return err;
	err = pmcfi_catalog_add(c, info);
	if (err == PMCF_ECONFLICT && skip_dup) {
		pmcfi_clear_error();
		return 0;
	}
	if (err)
		return err;
	impl->enc[impl->n] = *e;
	impl->enc[impl->n++].opens = -1;
	return 0;
}

static int add(pmcf_catalog *c, struct perf_impl *impl, const pmcf_event_info *info, enum kind kind,
	       uint32_t type, uint64_t config, int skip_dup)
{
	struct enc e = {.kind = kind, .type = type, .config = config};
	return add_enc(c, impl, info, &e, skip_dup);
}

struct typed_event {
	const char *name;
	uint64_t config;
	const char *description;
};

/* perf's own spellings (`perf list sw`). dummy and bpf-output count nothing
 * and are left out. perf's aliases (faults, cs, migrations, cpu-cycles,
 * branches, …) are not entries of their own: "all" would then count the
 * same thing twice; the descriptions name them. */
static const struct typed_event software_events[] = {
	{"cpu-clock", PERF_COUNT_SW_CPU_CLOCK, "per-CPU high-resolution timer, in ns"},
	{"task-clock", PERF_COUNT_SW_TASK_CLOCK, "time the task runs on a CPU, in ns"},
	{"page-faults", PERF_COUNT_SW_PAGE_FAULTS, "page faults (perf alias: faults)"},
	{"context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES, "context switches (perf alias: cs)"},
	{"cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS,
	 "moves of the task to another CPU (perf alias: migrations)"},
	{"minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN, "page faults served without I/O"},
	{"major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ, "page faults that needed I/O"},
	{"alignment-faults", PERF_COUNT_SW_ALIGNMENT_FAULTS, "alignment faults fixed up by the kernel"},
	{"emulation-faults", PERF_COUNT_SW_EMULATION_FAULTS, "instructions emulated by the kernel"},
	{"cgroup-switches", PERF_COUNT_SW_CGROUP_SWITCHES, "context switches to a task of another cgroup"},
};

static const struct typed_event hardware_events[] = {
	{"cycles", PERF_COUNT_HW_CPU_CYCLES, "core clock cycles (perf alias: cpu-cycles)"},
	{"instructions", PERF_COUNT_HW_INSTRUCTIONS, "retired instructions"},
	{"cache-references", PERF_COUNT_HW_CACHE_REFERENCES, "cache accesses (usually the last-level cache)"},
	{"cache-misses", PERF_COUNT_HW_CACHE_MISSES, "cache misses (usually the last-level cache)"},
	{"branch-instructions", PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
	 "retired branch instructions (perf alias: branches)"},
	{"branch-misses", PERF_COUNT_HW_BRANCH_MISSES, "mispredicted branch instructions"},
	{"bus-cycles", PERF_COUNT_HW_BUS_CYCLES, "bus cycles"},
	{"stalled-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND,
	 "cycles the front end issued nothing (perf alias: idle-cycles-frontend)"},
	{"stalled-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND,
	 "cycles the back end retired nothing (perf alias: idle-cycles-backend)"},
	{"ref-cycles", PERF_COUNT_HW_REF_CPU_CYCLES, "reference cycles at a constant rate"},
};

static int add_typed(pmcf_catalog *c, struct perf_impl *impl, const struct typed_event *t, size_t n,
		     uint32_t type, const char *source, int intel_fixed)
{
	for (size_t i = 0; i < n; i++) {
		/* On Intel core PMUs the kernel puts these on fixed counters. */
		int fixed = intel_fixed && type == PERF_TYPE_HARDWARE &&
			    (t[i].config == PERF_COUNT_HW_INSTRUCTIONS ||
			     t[i].config == PERF_COUNT_HW_CPU_CYCLES ||
			     t[i].config == PERF_COUNT_HW_REF_CPU_CYCLES);
		pmcf_event_info info = {
			.size = sizeof(pmcf_event_info),
			.name = t[i].name,
			.source = source,
			.description = t[i].description,
			.constraints = fixed ? "{\"fixed\":true}" : NULL,
			.available = -1,
			.cost = fixed ? 0 : 1,
		};
		int err = add(c, impl, &info, K_TYPED, type, t[i].config, 0);
		if (err)
			return err;
	}
	return 0;
}

/* perf's hw-cache names: which operations each cache has, as perf lists them
 * (tools/perf/util/evsel.c, evsel__hw_cache_stat). */
static int add_hwcache(pmcf_catalog *c, struct perf_impl *impl)
{
	static const struct {
		const char *name, *what;
		uint64_t id;
		unsigned ops; /* bit per PERF_COUNT_HW_CACHE_OP_* */
	} caches[] = {
		{"L1-dcache", "level-1 data cache", PERF_COUNT_HW_CACHE_L1D, 7},
		{"L1-icache", "level-1 instruction cache", PERF_COUNT_HW_CACHE_L1I, 5},
		{"LLC", "last-level cache", PERF_COUNT_HW_CACHE_LL, 7},
		{"dTLB", "data TLB", PERF_COUNT_HW_CACHE_DTLB, 7},
		{"iTLB", "instruction TLB", PERF_COUNT_HW_CACHE_ITLB, 1},
		{"branch", "branch prediction unit", PERF_COUNT_HW_CACHE_BPU, 1},
		{"node", "local memory node", PERF_COUNT_HW_CACHE_NODE, 7},
	};
	static const struct {
		const char *one, *many, *what;
	} ops[] = {
		[PERF_COUNT_HW_CACHE_OP_READ] = {"load", "loads", "loads"},
		[PERF_COUNT_HW_CACHE_OP_WRITE] = {"store", "stores", "stores"},
		[PERF_COUNT_HW_CACHE_OP_PREFETCH] = {"prefetch", "prefetches", "prefetches"},
	};
	for (size_t ci = 0; ci < PMCF_ARRAY_SIZE(caches); ci++) {
		for (unsigned op = 0; op < PMCF_ARRAY_SIZE(ops); op++) {
			if (!(caches[ci].ops & (1u << op)))
				continue;
			for (unsigned miss = 0; miss < 2; miss++) {
				char name[64], desc[128];
				if (miss) {
					snprintf(name, sizeof(name), "%s-%s-misses", caches[ci].name,
						 ops[op].one);
					snprintf(desc, sizeof(desc), "%s %s that miss", caches[ci].what,
						 ops[op].what);
				} else {
					snprintf(name, sizeof(name), "%s-%s", caches[ci].name, ops[op].many);
					snprintf(desc, sizeof(desc), "%s %s", caches[ci].what, ops[op].what);
				}
				pmcf_event_info info = {
					.size = sizeof(pmcf_event_info),
					.name = name,
					.source = PMCF_SRC_HWCACHE,
					.description = desc,
					.available = -1,
					.cost = 1,
				};
				uint64_t config = caches[ci].id | (uint64_t)op << 8 |
						  (uint64_t)(miss ? PERF_COUNT_HW_CACHE_RESULT_MISS
								  : PERF_COUNT_HW_CACHE_RESULT_ACCESS)
							  << 16;
				int err = add(c, impl, &info, K_TYPED, PERF_TYPE_HW_CACHE, config, 0);
				if (err)
					return err;
			}
		}
	}
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int is_subdir(const struct dirent *d)
{
	return d->d_name[0] != '.' && (d->d_type == DT_DIR || d->d_type == DT_UNKNOWN);
}

static void free_dirents(struct dirent **d, int n)
{
	for (int i = 0; i < n; i++)
		free(d[i]);
	free(d);
}

/* A tracepoint's id, or -1 when path/events/sys/name/id is not readable. */
static long long tracepoint_id(const char *events, const char *sys, const char *name)
{
	char path[PATH_MAX];
	if ((size_t)snprintf(path, sizeof(path), "%s/%s/%s/id", events, sys, name) >= sizeof(path))
		return -1;
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	long long id = -1;
	if (fscanf(f, "%lld", &id) != 1)
		id = -1;
	fclose(f);
	return id;
}

/* Every events/<sys>/<name> with an id, as "sys:name", sorted, read from
 * tracefs (the test root impl->tracefs, else the system's, mounted when
 * `mount` and the process may). required: an unusable tracefs is an error
 * whose detail says what to do; otherwise it leaves the tracepoints out
 * without a word (`events` prints tracefs' state in its header). */
static int add_tracepoints(pmcf_catalog *c, struct perf_impl *impl, int mount, int required)
{
	if (impl->have_tracepoints)
		return 0;
	char events[PATH_MAX];
	struct dirent **sys = NULL;
	int err;
	if (impl->tracefs) {
		snprintf(events, sizeof(events), "%s/events", impl->tracefs);
		err = access(events, R_OK | X_OK) == 0
			      ? 0
			      : pmcfi_fail(PMCF_ENOTSUP, "needs tracefs: cannot read %s (%s)", events,
					   strerror(errno));
	} else {
		err = pmcfi_tracefs_events(events, sizeof(events), mount);
	}
	int nsys = err ? -1 : scandir(events, &sys, is_subdir, by_name);
	if (!err && nsys < 0)
		err = pmcfi_fail(-errno, "needs tracefs: cannot list %s (%s)", events, strerror(errno));
	if (err) {
		if (required)
			return err;
		pmcfi_clear_error();
		return 0;
	}
	size_t added = 0, refused = 0;
	for (int s = 0; s < nsys && !err; s++) {
		char sysdir[PATH_MAX];
		struct dirent **ev = NULL;
		if ((size_t)snprintf(sysdir, sizeof(sysdir), "%s/%s", events, sys[s]->d_name) >=
		    sizeof(sysdir))
			continue;
		int nev = scandir(sysdir, &ev, is_subdir, by_name);
		for (int e = 0; e < nev && !err; e++) {
			long long id = tracepoint_id(events, sys[s]->d_name, ev[e]->d_name);
			if (id < 0) {
				refused += errno == EACCES || errno == EPERM;
				continue; /* not a perf event (e.g. ftrace:bprint) */
			}
			added++;
			char name[512];
			snprintf(name, sizeof(name), "%s:%s", sys[s]->d_name, ev[e]->d_name);
			pmcf_event_info info = {
				.size = sizeof(pmcf_event_info),
				.name = name,
				.source = PMCF_SRC_TRACEPOINT,
				.description = "kernel tracepoint",
				.available = -1,
				.cost = 1,
			};
			err = add(c, impl, &info, K_TRACEPOINT, PERF_TYPE_TRACEPOINT, (uint64_t)id, 1);
		}
		if (nev > 0)
			free_dirents(ev, nev);
	}
	free_dirents(sys, nsys);
	if (!err && added == 0 && refused > 0) {
		/* the folders are listed but every id is for root (mode 0440) */
		err = pmcfi_fail(PMCF_EPARANOID,
				 "needs tracefs, whose event ids this user cannot read "
				 "(%s/*/*/id: %s): run as root, or let this user's group read them "
				 "(sudo mount -o remount,mode=755,gid=%u <tracefs>)",
				 events, strerror(EACCES), (unsigned)getgid());
		if (!required) {
			pmcfi_clear_error();
			err = 0;
		}
		return err;
	}
	if (!err)
		impl->have_tracepoints = 1;
	return err;
}

/* Initialises libpfm4 (once per process; later calls are cheap). */
static int pfm_ready(void)
{
	int r = pfm_initialize();
	if (r != PFM_SUCCESS)
		pmcfi_log(PMCF_LOG_WARN, "libpfm4 cannot start (%s): no native PMU events", pfm_strerror(r));
	return r == PFM_SUCCESS;
}

/* Calls fn for every detected PMU except libpfm4's generic perf tables
 * (we list the generic events ourselves). */
static int for_each_pmu(int (*fn)(const pfm_pmu_info_t *pi, void *arg), void *arg)
{
	if (!pfm_ready())
		return 0;
	for (int p = PFM_PMU_NONE + 1; p < PFM_PMU_MAX; p++) {
		pfm_pmu_info_t pi;
		memset(&pi, 0, sizeof(pi));
		pi.size = sizeof(pi);
		if (pfm_get_pmu_info((pfm_pmu_t)p, &pi) != PFM_SUCCESS || !pi.is_present)
			continue;
		if (strcmp(pi.name, "perf") == 0 || strcmp(pi.name, "perf_raw") == 0)
			continue;
		int err = fn(&pi, arg);
		if (err)
			return err;
	}
	return 0;
}

static int note_intel_fixed(const pfm_pmu_info_t *pi, void *arg)
{
	if (pi->type == PFM_PMU_TYPE_CORE && pi->num_fixed_cntrs > 0 && pi->desc &&
	    strncmp(pi->desc, "Intel", 5) == 0)
		*(int *)arg = 1;
	return 0;
}

struct native_ctx {
	pmcf_catalog *c;
	struct perf_impl *impl;
};

static int add_pmu_events(const pfm_pmu_info_t *pi, void *arg)
{
	struct native_ctx *x = arg;
	for (int i = pi->first_event; i != -1; i = pfm_get_event_next(i)) {
		pfm_event_info_t ei;
		memset(&ei, 0, sizeof(ei));
		ei.size = sizeof(ei);
		if (pfm_get_event_info(i, PFM_OS_NONE, &ei) != PFM_SUCCESS)
			continue;
		char name[512];
		snprintf(name, sizeof(name), "%s::%s", pi->name, ei.name);
		pmcf_event_info info = {
			.size = sizeof(pmcf_event_info),
			.name = name,
			.source = PMCF_SRC_PMU,
			.pmu = pi->name,
			.description = ei.desc ? ei.desc : "",
			.available = -1,
			.cost = 1,
		};
		int err = add(x->c, x->impl, &info, K_NATIVE, 0, 0, 1);
		if (err)
			return err;
		for (int j = 0; j < ei.nattrs; j++) {
			pfm_event_attr_info_t ai;
			memset(&ai, 0, sizeof(ai));
			ai.size = sizeof(ai);
			if (pfm_get_event_attr_info(i, j, PFM_OS_NONE, &ai) != PFM_SUCCESS ||
			    ai.type != PFM_ATTR_UMASK)
				continue;
			char uname[768];
			snprintf(uname, sizeof(uname), "%s:%s", name, ai.name);
			info.name = uname;
			info.description = ai.desc ? ai.desc : "";
			err = add(x->c, x->impl, &info, K_NATIVE, 0, 0, 1);
			if (err)
				return err;
		}
	}
	return 0;
}

static int add_natives(pmcf_catalog *c, struct perf_impl *impl)
{
	if (impl->have_natives)
		return 0;
	struct native_ctx x = {c, impl};
	int err = for_each_pmu(add_pmu_events, &x);
	if (!err)
		impl->have_natives = 1;
	return err;
}

static const struct perf_impl *perf_impl_of(const pmcf_catalog *c);
static int add_papi(pmcf_catalog *c, struct perf_impl *impl, int required);

/* A name perf would read as a tracepoint: "sys:name" with one colon, no
 * PMU separator ("::") and no slash. */
static int tracepoint_like(const char *name)
{
	const char *colon = strchr(name, ':');
	return colon && colon != name && colon[1] && colon[1] != ':' && !strchr(colon + 1, ':') &&
	       !strchr(name, '/');
}

/* perf's modifiers on a catalogue event: "base:mods" becomes an entry of its
 * own that encodes as base, then the modifiers (name: the catalogue's
 * spelling of base, ':', mods as written). */
static long add_modified(pmcf_catalog *c, struct perf_impl *impl, long base, const char *mods,
			 const char *asked)
{
	const pmcf_event_info *b = pmcf_catalog_at(c, (size_t)base);
	struct enc e = {.kind = K_MOD, .config = (uint64_t)base};
	if (impl->enc[base].kind == K_PSEUDO)
		return pmcfi_fail(PMCF_ESYNTAX, "'%s': %s is no counter and takes no modifiers", asked,
				  b->name);
	if (impl->enc[base].kind == K_PAPI)
		return pmcfi_fail(PMCF_ESYNTAX,
				  "'%s': modifiers do not apply to PAPI presets (PAPI counts user "
				  "mode; name the natives with modifiers instead)",
				  asked);
	int err = pmcfi_perf_mods_parse(mods, &e.mods);
	if (err)
		return err;
	size_t len = strlen(b->name) + strlen(mods) + 2;
	char *name = malloc(len), *desc = malloc(strlen(b->description) + len + 32);
	if (!name || !desc) {
		free(name);
		free(desc);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	}
	snprintf(name, len, "%s:%s", b->name, mods);
	long i = pmcf_catalog_find(c, name);
	if (i < 0) {
		sprintf(desc, "%s (perf modifiers :%s)", b->description, mods);
		pmcf_event_info info = *b;
		info.name = name;
		info.description = desc;
		err = add_enc(c, impl, &info, &e, 0);
		i = err ? err : (long)impl->n - 1;
	}
	free(name);
	free(desc);
	return i;
}

/* perf's raw rNNN and pmu/terms/[mods] events, as entries of their own
 * (name as written); a bare sysfs event name encoded as spelt (PMU/name/). */
static long add_raw(pmcf_catalog *c, struct perf_impl *impl, const char *name, const char *spelt)
{
	struct perf_event_attr a;
	struct enc e = {.kind = K_RAW};
	char pmu[64] = "cpu", desc[400];
	if (pmcfi_perf_raw_parse(name, &e.config)) {
		e.type = PERF_TYPE_RAW;
		snprintf(desc, sizeof(desc), "raw event %#llx of the core PMU", (unsigned long long)e.config);
	} else {
		int err = pmcfi_perf_pmu_encode(impl->sysfs, spelt, &a, &e.mods, pmu, sizeof(pmu));
		if (err)
			return err;
		e.type = a.type;
		e.config = a.config;
		e.config1 = a.config1;
		e.config2 = a.config2;
		e.counterless = (unsigned char)pmcfi_perf_pmu_counterless(pmu);
		e.noexclude = strcmp(pmu, "msr") == 0;
		snprintf(desc, sizeof(desc),
			 "%s%sPMU %s, type %u: config %#llx, config1 %#llx, "
			 "config2 %#llx",
			 spelt != name ? spelt : "", spelt != name ? " (from sysfs): " : "", pmu, e.type,
			 (unsigned long long)e.config, (unsigned long long)e.config1,
			 (unsigned long long)e.config2);
	}
	pmcf_event_info info = {
		.size = sizeof(pmcf_event_info),
		.name = name,
		.source = e.counterless ? PMCF_SRC_SOFTWARE : PMCF_SRC_PMU,
		.pmu = pmu,
		.description = desc,
		.available = -1,
		.cost = e.counterless ? 0 : 1,
	};
	int err = add_enc(c, impl, &info, &e, 0);
	return err ? err : (long)impl->n - 1;
}

/* The catalogue's resolve hook, for a name not found as it is: perf's
 * aliases, modifiers, raw and PMU events first (they load nothing), then the
 * part that may hold name (tracepoints, mounting tracefs when needed; PAPI
 * presets; native PMU events), looked up again. */
static long resolve(void *vimpl, pmcf_catalog *c, const char *name)
{
	struct perf_impl *impl = vimpl;
	int err;
	const char *canon = pmcfi_perf_alias(name);
	if (canon)
		return pmcf_catalog_find(c, canon);
	char cache[64];
	if ((canon = pmcfi_perf_cache_alias(name, cache, sizeof(cache)))) {
		long k = pmcf_catalog_find(c, canon);
		if (k >= 0 || k != PMCF_EEVENT)
			return k;
	}
	if (pmcfi_perf_pmu_like(name) || pmcfi_perf_raw_parse(name, &(uint64_t){0}))
		return add_raw(c, impl, name, name);
	const char *colon = strrchr(name, ':');
	if (colon && colon > name && colon[-1] != ':' && !colon[1]) {
		/* "task-clock:": no modifiers, as perf reads it */
		char *prefix = strndup(name, (size_t)(colon - name));
		if (!prefix)
			return pmcfi_fail(PMCF_ENOMEM, "out of memory");
		long base = pmcfi_catalog_resolve(c, prefix);
		free(prefix);
		return base;
	}
	if (colon && colon > name && colon[-1] != ':' && pmcfi_perf_mods_like(colon + 1)) {
		size_t plen = (size_t)(colon - name);
		char *prefix = malloc(plen + 1);
		if (!prefix)
			return pmcfi_fail(PMCF_ENOMEM, "out of memory");
		memcpy(prefix, name, plen);
		prefix[plen] = '\0';
		long base = pmcfi_catalog_resolve(c, prefix);
		free(prefix);
		if (base >= 0 && impl->enc[base].kind == K_MOD)
			return pmcfi_fail(PMCF_ESYNTAX,
					  "'%s': two lists of modifiers (perf refuses it too: give them "
					  "after one ':')",
					  name);
		if (base >= 0)
			return add_modified(c, impl, base, colon + 1, name);
		if (base != PMCF_EEVENT)
			return base;
		pmcfi_clear_error();
		/* an unknown event with modifiers, no tracepoint */
		if (!memchr(name, ':', plen))
			return PMCF_EEVENT;
		/* else not modifiers after all: a tracepoint or native name */
	} else if (colon && colon > name && colon[-1] != ':' && colon[1]) {
		/* a known event with a modifier perf does not have
		 * ('task-clock:x'): say which, not "unknown event" nor, for an
		 * unprivileged user, why tracefs cannot be read */
		size_t plen = (size_t)(colon - name);
		char *prefix = strndup(name, plen);
		if (!prefix)
			return pmcfi_fail(PMCF_ENOMEM, "out of memory");
		const char *pc = pmcfi_perf_alias(prefix); /* cs:x as context-switches:x */
		long base = pmcf_catalog_find(c, pc ? pc : prefix);
		free(prefix);
		struct pmcfi_perf_mods m;
		if (base >= 0 && (err = pmcfi_perf_mods_parse(colon + 1, &m)) != 0)
			return err;
		pmcfi_clear_error();
	}
	if (tracepoint_like(name) && !impl->have_tracepoints) {
		if ((err = add_tracepoints(c, impl, 1, 1))) {
			char why[512];
			snprintf(why, sizeof(why), "%s", pmcf_errdetail());
			return pmcfi_fail(err, "tracepoint '%s' %s", name, why);
		}
		long i = pmcf_catalog_find(c, name);
		if (i >= 0)
			return i;
	}
	if (pmcfi_papi_name(name) && !impl->have_papi) {
		if ((err = add_papi(c, impl, 1)))
			return err;
		long i = pmcf_catalog_find(c, name);
		if (i >= 0)
			return i;
	}
	/* perf's bare sysfs names (inst_retired): PMU/events/NAME of a PMU here */
	char pmu[64], file[160], spelt[256];
	if (pmcfi_perf_sysfs_event_pmu(impl->sysfs, name, pmu, sizeof(pmu), file, sizeof(file))) {
		snprintf(spelt, sizeof(spelt), "%s/%s/", pmu, file);
		return add_raw(c, impl, name, spelt);
	}
	if (!impl->have_natives) {
		if ((err = add_natives(c, impl)))
			return err;
		long i = pmcf_catalog_find(c, name);
		if (i >= 0)
			return i;
	}
	return PMCF_EEVENT;
}

int pmcfi_perf_set_kernel_ok(pmcf_catalog *c, int ok)
{
	struct perf_impl *impl = (struct perf_impl *)perf_impl_of(c);
	if (!impl)
		return pmcfi_fail(PMCF_EINVAL, "not a perf event catalogue");
	impl->kernel_ok = !!ok;
	return 0;
}

int pmcfi_perf_set_sysfs(pmcf_catalog *c, const char *root)
{
	struct perf_impl *impl = (struct perf_impl *)perf_impl_of(c);
	if (!impl)
		return pmcfi_fail(PMCF_EINVAL, "not a perf event catalogue");
	char *r = root ? strdup(root) : NULL;
	if (root && !r)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	free(impl->sysfs);
	impl->sysfs = r;
	return 0;
}

int pmcfi_perf_add_tracepoints(pmcf_catalog *c)
{
	struct perf_impl *impl = (struct perf_impl *)perf_impl_of(c);
	if (!impl)
		return pmcfi_fail(PMCF_EINVAL, "not a perf event catalogue");
	return add_tracepoints(c, impl, 1, 1);
}

/* ---- encoding ------------------------------------------------------------- */

/* libpfm4's encoding of native event name into *attr (zeroed first). */
static int encode_pfm(const struct perf_impl *impl, const char *name, struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	if (!pfm_ready())
		return pmcfi_fail(PMCF_ENOTSUP, "libpfm4 cannot start: '%s' cannot be encoded", name);
	pfm_perf_encode_arg_t arg;
	memset(&arg, 0, sizeof(arg));
	arg.attr = attr;
	arg.size = sizeof(arg);
	int plm = PFM_PLM3 | (impl->kernel_ok ? PFM_PLM0 : 0);
	int r = pfm_get_os_event_encoding(name, plm, PFM_OS_PERF_EVENT_EXT, &arg);
	attr->size = sizeof(*attr);
	if (r != PFM_SUCCESS)
		return pmcfi_fail(PMCF_ENOTSUP, "libpfm4 cannot encode '%s': %s", name, pfm_strerror(r));
	return 0;
}

static int encode_at(const pmcf_catalog *c, const struct perf_impl *impl, size_t i,
		     struct perf_event_attr *attr)
{
	const pmcf_event_info *ev = pmcf_catalog_at(c, i);
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	if (!ev || i >= impl->n)
		return pmcfi_fail(PMCF_EEVENT, "no event at index %zu", i);
	const struct enc *e = &impl->enc[i];
	int err;
	switch (e->kind) {
	case K_PSEUDO: return pmcfi_fail(PMCF_EINVAL, "'%s' is a pseudo-event: it has no counter", ev->name);
	case K_TYPED:
	case K_TRACEPOINT:
	case K_RAW:
		attr->type = e->type;
		attr->config = e->config;
		attr->config1 = e->config1;
		attr->config2 = e->config2;
		if (!impl->kernel_ok && e->kind != K_TRACEPOINT && !e->noexclude) {
			attr->exclude_kernel = 1;
			attr->exclude_hv = 1;
		}
		pmcfi_perf_mods_apply(&e->mods, attr);
		return 0;
	case K_MOD:
		if ((err = encode_at(c, impl, (size_t)e->config, attr)) != 0)
			return err;
		pmcfi_perf_mods_apply(&e->mods, attr);
		return 0;
	case K_NATIVE: break;
	case K_PAPI:
		return pmcfi_fail(PMCF_EINVAL, "'%s' is a PAPI preset: it is counted as its natives",
				  ev->name);
	}
	return encode_pfm(impl, ev->name, attr);
}

static const struct perf_impl *perf_impl_of(const pmcf_catalog *c)
{
	if (!c || strcmp(pmcf_catalog_name(c), "perf") != 0)
		return NULL;
	return pmcfi_catalog_impl(c);
}

/* ---- PAPI presets: each counts as its natives (counters/papi.h) ------------- */

/* The preset of catalogue event i, or NULL when i is not one. */
static const struct pmcfi_papi_preset *preset_at(const struct perf_impl *impl, size_t i)
{
	if (i >= impl->n || impl->enc[i].kind != K_PAPI || !impl->papi)
		return NULL;
	return &impl->papi->p[impl->enc[i].config];
}

/* {"natives":[…],"derived":…,"postfix":…} or {"unavailable":why}, as text. */
static char *preset_constraints(const struct pmcfi_papi_preset *p)
{
	json_t *o = json_object(), *nat = json_array();
	if (!o || !nat) {
		json_decref(o);
		json_decref(nat);
		return NULL;
	}
	if (p->why[0]) {
		json_object_set_new(o, "unavailable", json_string(p->why));
		json_decref(nat);
	} else {
		for (unsigned j = 0; j < p->n; j++)
			json_array_append_new(nat, json_string(p->native[j]));
		json_object_set_new(o, "natives", nat);
		json_object_set_new(o, "derived", json_string(p->derived));
		json_object_set_new(o, "postfix", json_string(p->expr));
	}
	char *txt = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	return txt;
}

/* Every PAPI preset, source "papi", costing one counter per native. A preset
 * PAPI maps here but whose natives libpfm4 cannot encode is unavailable too.
 * libpapi that cannot start leaves them out with a warning. */
/* Adds libpapi's presets (once). required: libpapi failing to start is an
 * error (a preset was named); otherwise they are left out without a word. */
static int add_papi(pmcf_catalog *c, struct perf_impl *impl, int required)
{
	if (impl->have_papi)
		return 0;
	int err = pmcfi_papi_load(&impl->papi);
	if (err == PMCF_ENOMEM || (err && required))
		return err;
	if (err) {
		pmcfi_clear_error();
		return 0;
	}
	impl->have_papi = 1;
	for (size_t k = 0; k < impl->papi->n && !err; k++) {
		struct pmcfi_papi_preset *p = &impl->papi->p[k];
		struct perf_event_attr attr;
		for (unsigned j = 0; j < p->n && !p->why[0]; j++) {
			if (encode_pfm(impl, p->native[j], &attr) != 0) {
				snprintf(p->why, sizeof(p->why), "%s", pmcf_errdetail());
				pmcfi_clear_error();
			}
		}
		char *cons = preset_constraints(p);
		if (!cons)
			return pmcfi_fail(PMCF_ENOMEM, "out of memory building the event catalogue");
		pmcf_event_info info = {
			.size = sizeof(pmcf_event_info),
			.name = p->name,
			.source = PMCF_SRC_PAPI,
			.description = p->description,
			.constraints = cons,
			.available = p->why[0] ? 0 : -1,
			.cost = p->why[0] ? 1 : p->n,
		};
		err = add(c, impl, &info, K_PAPI, 0, k, 1);
		free(cons);
	}
	return err;
}

/* The natives catalogue event i is counted with: 1 (the event itself) for
 * all but PAPI presets; PMCF_ENOTSUP for a preset unavailable here. */
static int encode_natives(const pmcf_catalog *c, const struct perf_impl *impl, size_t i,
			  struct perf_event_attr *attrs, size_t max, size_t *n)
{
	const struct pmcfi_papi_preset *p = preset_at(impl, i);
	*n = 0;
	if (!p) {
		if (max < 1)
			return pmcfi_fail(PMCF_ETOOMANY, "no room for one more event");
		*n = 1;
		return encode_at(c, impl, i, attrs);
	}
	if (p->why[0]) {
		char msg[1024];
		pmcfi_papi_unavailable(p, msg, sizeof(msg));
		return pmcfi_fail(PMCF_ENOTSUP, "%s", msg);
	}
	if (p->n > max)
		return pmcfi_fail(PMCF_ETOOMANY, "'%s' needs %u counters: too many events", p->name, p->n);
	for (unsigned j = 0; j < p->n; j++) {
		int err = encode_pfm(impl, p->native[j], &attrs[j]);
		if (err)
			return err;
	}
	*n = p->n;
	return 0;
}

/* Natives of catalogue event i (see encode_natives), at least 1. */
static size_t natives_of(const struct perf_impl *impl, size_t i)
{
	const struct pmcfi_papi_preset *p = preset_at(impl, i);
	return p && p->n ? p->n : 1;
}

int pmcfi_perf_expand(const pmcf_catalog *c, const char *name, struct perf_event_attr *attrs, size_t max,
		      size_t *n, struct pmcfi_derive *d)
{
	const struct perf_impl *impl = perf_impl_of(c);
	long i = impl ? pmcfi_catalog_resolve((pmcf_catalog *)c, name) : -1;
	if (i == PMCF_EEVENT)
		return pmcfi_fail(PMCF_EEVENT, "unknown event '%s'", name);
	if (i < 0)
		return impl ? (int)i : pmcfi_fail(PMCF_EINVAL, "not a perf event catalogue");
	return pmcfi_perf_expand_at(c, (size_t)i, attrs, max, n, d);
}

int pmcfi_perf_expand_at(const pmcf_catalog *c, size_t i, struct perf_event_attr *attrs, size_t max,
			 size_t *n, struct pmcfi_derive *d)
{
	const struct perf_impl *impl = perf_impl_of(c);
	if (!impl)
		return pmcfi_fail(PMCF_EINVAL, "not a perf event catalogue");
	if (i >= pmcf_catalog_size(c) || i == 0)
		return pmcfi_fail(i ? PMCF_EEVENT : PMCF_EINVAL, "no perf event at index %zu", i);
	const struct pmcfi_papi_preset *p = preset_at(impl, i);
	int err;
	*n = 0;
	if (!p) { /* every other event is itself */
		if (max < 1)
			return pmcfi_fail(PMCF_ETOOMANY, "no room for one more event");
		if ((err = encode_at(c, impl, i, attrs)) != 0)
			return err;
		*n = 1;
	} else if ((err = encode_natives(c, impl, i, attrs, max, n)) != 0) {
		return err;
	}
	if (d) {
		d->name = pmcf_catalog_at(c, i)->name;
		d->n = (unsigned)*n;
		snprintf(d->expr, sizeof(d->expr), "%s", p ? p->expr : "");
		d->hz = impl->papi ? impl->papi->hz : 0;
	}
	return 0;
}

int pmcfi_perf_encode(const pmcf_catalog *c, const char *name, struct perf_event_attr *attr)
{
	const struct perf_impl *impl = perf_impl_of(c);
	if (!impl)
		return pmcfi_fail(PMCF_EINVAL, "not a perf event catalogue");
	long i = pmcfi_catalog_resolve((pmcf_catalog *)c, name);
	if (i == PMCF_EEVENT)
		return pmcfi_fail(PMCF_EEVENT, "unknown event '%s'", name);
	if (i < 0)
		return (int)i;
	return encode_at(c, impl, (size_t)i, attr);
}

/* ---- probing ---------------------------------------------------------------- */

static int probe_one(const pmcf_catalog *c, const struct perf_impl *impl, size_t i)
{
	struct perf_event_attr attr[PMCFI_DERIVE_MAX];
	size_t n;
	if (encode_natives(c, impl, i, attr, PMCFI_DERIVE_MAX, &n) != 0) {
		pmcfi_clear_error();
		return 0;
	}
	for (size_t j = 0; j < n; j++) { /* a PAPI preset: every native alone */
		attr[j].disabled = 1;
		int fd = pmcfi_perf_event_open(&attr[j], 0, -1);
		if (fd < 0)
			return 0;
		close(fd);
	}
	return 1;
}

/* Opening a tracepoint is cheap but closing the last user of one waits for
 * an RCU grace period (~40 ms here: 2300 tracepoints took 86 s), so one
 * ordinary tracepoint stands for all of them (they share the kernel's
 * permission rules); the few of the ftrace system, which have rules of their
 * own (ftrace:function), are probed one by one. */
static void probe_all(pmcf_catalog *c, const struct perf_impl *impl)
{
	int tracepoints = -1;
	for (size_t i = 0; i < impl->n; i++) {
		pmcf_event_info *ev = pmcfi_catalog_at_mut(c, i);
		if (impl->enc[i].kind == K_PSEUDO || ev->available == 0)
			continue;
		if (impl->enc[i].kind == K_TRACEPOINT && strncmp(ev->name, "ftrace:", 7) != 0) {
			if (tracepoints < 0)
				tracepoints = probe_one(c, impl, i);
			ev->available = tracepoints;
			continue;
		}
		ev->available = probe_one(c, impl, i);
	}
}

/* ---- compatibility check -------------------------------------------------- */

/* About ms of this thread's CPU time. */
static void spin_cpu(long ms)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	volatile unsigned long x = 1;
	do {
		for (int k = 0; k < 10000; k++)
			x = x * 6364136223846793005ul + 1442695040888963407ul;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000l + (t.tv_nsec - t0.tv_nsec) < ms * 1000000l);
}

/* Turns a refused perf_event_open of event `name` (k-th of the group) into
 * the check's answer: 0 with why, or an error the caller must see. */
static int refused(const char *name, size_t k, const char *leader, int errnum, char *why, size_t whylen)
{
	if (errnum == EMFILE || errnum == ENFILE)
		return pmcfi_fail(-errnum,
				  "too many open files opening event '%s' (raise the limit, e.g. "
				  "`ulimit -n 65536`)",
				  name);
	if (errnum == ENOMEM)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory opening event '%s'", name);
	if ((errnum == EACCES || errnum == EPERM) && !pmcfi_perf_capable()) {
		int p = pmcfi_perf_paranoid();
		char val[32];
		if (p == INT_MIN)
			snprintf(val, sizeof(val), "unreadable");
		else
			snprintf(val, sizeof(val), "%d", p);
		return pmcfi_fail(PMCF_EPARANOID,
				  "perf_event_open refused '%s' (%s): kernel.perf_event_paranoid is %s; "
				  "set it to 1 or lower (sysctl -w kernel.perf_event_paranoid=1) or run with "
				  "CAP_PERFMON",
				  name, strerror(errnum), val);
	}
	const char *hint = "";
	char counters[192];
	int gen, fix;
	char pmu[64];
	if (errnum == ENOENT || errnum == EOPNOTSUPP || errnum == ENODEV)
		hint = " (not supported on this machine)";
	else if (errnum == EINVAL && k > 0 && pmcfi_host_counters(&gen, &fix, pmu, sizeof(pmu)) == 0) {
		snprintf(counters, sizeof(counters),
			 " (the PMU %s has %d general counter%s%s: %zu hardware events before it "
			 "take them)",
			 pmu, gen, gen == 1 ? "" : "s", fix ? " and a cycle counter" : "", k);
		hint = counters;
	} else if (errnum == EINVAL && k > 0)
		hint = " (it may not fit the counters together with the events before it)";
	if (whylen) {
		if (k > 0)
			snprintf(why, whylen, "event '%s' cannot be opened in a group led by '%s': %s%s",
				 name, leader, strerror(errnum), hint);
		else
			snprintf(why, whylen, "event '%s' cannot be opened: %s%s", name, strerror(errnum),
				 hint);
	}
	return 0;
}

/* The encoding event i's modifiers apply to (i's own but for K_MOD). */
static const struct enc *base_enc(const struct perf_impl *impl, size_t i)
{
	while (impl->enc[i].kind == K_MOD)
		i = (size_t)impl->enc[i].config;
	return &impl->enc[i];
}

/* The one line for an event that does not open alone on this machine. */
static int unavailable(const char *name, const struct perf_impl *impl, size_t i)
{
	int en = impl->enc[i].open_errno;
	const struct enc *e = base_enc(impl, i);
	const char *why;
	if ((e->kind == K_TYPED && e->type != PERF_TYPE_SOFTWARE) || e->kind == K_NATIVE ||
	    (e->kind == K_RAW && !e->counterless)) {
		if (en == ENOENT || en == EOPNOTSUPP || en == ENODEV) {
			why = access("/sys/bus/event_source/devices/cpu", F_OK) == 0 ||
					      access("/sys/bus/event_source/devices/cpu_core", F_OK) == 0
				      ? "the CPU's PMU has no such event"
				      : "this machine exposes no hardware PMU (a VM without vPMU, or "
					"a kernel without the CPU's PMU driver); use software events "
					"and tracepoints with a counter budget (pmcs; --pmcs), or the "
					"simulator (pmcf_source_new_sim; --sim)";
			return pmcfi_fail(PMCF_ENOTSUP,
					  "'%s' cannot be counted on this machine: %s (perf_event_open: %s)",
					  name, why, strerror(en));
		}
	}
	return pmcfi_fail(PMCF_ENOTSUP, "'%s' cannot be counted on this machine: perf_event_open: %s", name,
			  strerror(en));
}

/* Every event of the set must open on its own, or the set is not a
 * question of fitting: an event this machine cannot count is an error that
 * says why (PMCF_ENOTSUP), a refusal for lack of privilege one that names
 * the sysctl (PMCF_EPARANOID). The answer per event is cached: planning asks
 * about many sets, and closing a tracepoint waits for an RCU grace period
 * (~40 ms). */
static int each_opens(struct perf_impl *impl, const pmcf_catalog *c, const size_t *idx, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		struct enc *e = &impl->enc[idx[k]];
		const char *name = pmcf_catalog_at(c, idx[k])->name;
		if (e->kind == K_PAPI)
			continue; /* its natives are opened in the group test */
		/* an ordinary tracepoint (no modifiers, not of the ftrace system,
		 * whose rules differ) answers as the first one tried: they share
		 * the kernel's rules, and each probe costs an RCU grace period
		 * (~40 ms: `events --check all`, 2300 tracepoints, took 93-119 s) */
		int ordinary_tp = e->kind == K_TRACEPOINT && strncmp(name, "ftrace:", 7) != 0;
		if (e->opens < 0 && ordinary_tp && impl->tp_opens) {
			e->opens = impl->tp_opens == 1;
			e->open_errno = impl->tp_errno;
		}
		if (e->opens < 0) {
			struct perf_event_attr attr;
			int err = encode_at(c, impl, idx[k], &attr);
			if (err == PMCF_ENOTSUP) {
				char why[512];
				snprintf(why, sizeof(why), "%s", pmcf_errdetail());
				return pmcfi_fail(PMCF_ENOTSUP, "'%s' cannot be counted on this machine: %s",
						  name, why);
			}
			if (err)
				return err;
			attr.disabled = 1;
			int fd = pmcfi_perf_event_open(&attr, 0, -1);
			if (fd >= 0) {
				close(fd);
				e->opens = 1;
			} else {
				e->open_errno = errno;
				if ((err = refused(name, 0, name, errno, NULL, 0)))
					return err;
				e->opens = 0;
			}
			if (ordinary_tp) {
				impl->tp_opens = e->opens ? 1 : 2;
				impl->tp_errno = e->open_errno;
			}
		}
		if (e->opens == 0)
			return unavailable(name, impl, idx[k]);
	}
	return 0;
}

/* Software events and tracepoints take no PMU counter: the kernel counts any
 * number of them at once (the collector gives the software clocks groups of
 * their own), so such a set fits when each event opens on its own. */
static int software_only(const struct perf_impl *impl, const size_t *idx, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		const struct enc *e = base_enc(impl, idx[k]);
		if (!(e->kind == K_TRACEPOINT || (e->kind == K_TYPED && e->type == PERF_TYPE_SOFTWARE) ||
		      (e->kind == K_RAW && e->counterless)))
			return 0;
	}
	return 1;
}

/* Budget first (pmcs > 0: the sum of costs must fit), then the kernel's
 * word: the events opened as one group on this thread, enabled for ~2 ms of
 * CPU work, must all have been counted all the time (sets of software events
 * and tracepoints only need each event to open, see above). */
static int check_set(void *vimpl, const pmcf_catalog *c, const size_t *idx, size_t n, unsigned pmcs,
		     char *why, size_t whylen)
{
	struct perf_impl *impl = vimpl;
	if (n == 0)
		return 1;
	/* a PAPI preset PAPI cannot map here is an error, not a set that does not fit */
	for (size_t k = 0; k < n; k++) {
		const struct pmcfi_papi_preset *p = preset_at(impl, idx[k]);
		if (p && p->why[0]) {
			char msg[1024];
			pmcfi_papi_unavailable(p, msg, sizeof(msg));
			return pmcfi_fail(PMCF_ENOTSUP, "%s", msg);
		}
	}
	int err = each_opens(impl, c, idx, n);
	if (err)
		return err;
	size_t nat = 0; /* natives: a PAPI preset opens all of its own */
	for (size_t k = 0; k < n; k++)
		nat += natives_of(impl, idx[k]);
	if (pmcs > 0) {
		unsigned long need = 0;
		for (size_t k = 0; k < n; k++)
			need += pmcf_catalog_at(c, idx[k])->cost;
		if (need > pmcs) {
			if (whylen)
				snprintf(why, whylen,
					 "the %zu events need %lu counters but the budget is %u "
					 "(pmcs; the command's --pmcs): %lu too many",
					 n, need, pmcs, need - pmcs);
			return 0;
		}
	}
	if (nat > PMCFI_PGROUP_MAX) {
		if (whylen)
			snprintf(why, whylen,
				 "%zu events (%zu counted), but the collector counts at most %d per "
				 "execution",
				 n, nat, PMCFI_PGROUP_MAX);
		return 0;
	}
	if (software_only(impl, idx, n))
		return 1; /* each_opens said yes to every one */
	int *fd = malloc(nat * sizeof(*fd));
	uint64_t *buf = malloc((3 + nat) * sizeof(*buf));
	if (!fd || !buf) {
		free(fd);
		free(buf);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	}
	for (size_t k = 0; k < nat; k++)
		fd[k] = -1;
	const char *leader = pmcf_catalog_at(c, idx[0])->name;
	int ret = 1;
	size_t m = 0; /* natives opened */
	for (size_t k = 0; k < n && ret == 1; k++) {
		const char *name = pmcf_catalog_at(c, idx[k])->name;
		struct perf_event_attr attr[PMCFI_DERIVE_MAX];
		size_t na = 0;
		err = encode_natives(c, impl, idx[k], attr, PMCFI_DERIVE_MAX, &na);
		if (err == PMCF_ENOTSUP) {
			if (whylen)
				snprintf(why, whylen, "%s", pmcf_errdetail());
			pmcfi_clear_error();
			ret = 0;
			break;
		}
		if (err) {
			ret = err;
			break;
		}
		for (size_t j = 0; j < na && ret == 1; j++, m++) {
			attr[j].read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
					      PERF_FORMAT_TOTAL_TIME_RUNNING;
			attr[j].disabled = m == 0;
			attr[j].inherit = 0;
			fd[m] = pmcfi_perf_event_open(&attr[j], 0, m ? fd[0] : -1);
			if (fd[m] < 0)
				ret = refused(name, m, leader, errno, why, whylen);
		}
	}
	if (ret == 1) {
		ssize_t want = (ssize_t)((3 + m) * sizeof(*buf));
		if (ioctl(fd[0], PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP) < 0 ||
		    ioctl(fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) < 0) {
			ret = pmcfi_fail(-errno, "cannot enable the event group: %s", strerror(errno));
		} else {
			spin_cpu(2);
			ioctl(fd[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
			ssize_t got = read(fd[0], buf, (size_t)want);
			if (got != want)
				ret = pmcfi_fail(got < 0 ? -errno : -EIO, "cannot read the event group: %s",
						 got < 0 ? strerror(errno) : "short read");
			else if (buf[1] == 0 || buf[2] != buf[1]) {
				char cn[160] = "";
				int gen, fix;
				char pmu[64];
				if (pmcfi_host_counters(&gen, &fix, pmu, sizeof(pmu)) == 0)
					snprintf(cn, sizeof(cn), " (the PMU %s has %d general counters%s)",
						 pmu, gen, fix ? " and a cycle counter" : "");
				if (whylen)
					snprintf(why, whylen,
						 "the group of %zu events led by '%s' was counted "
						 "%llu of %llu ns: "
						 "the events do not fit the counters together%s",
						 n, leader, (unsigned long long)buf[2],
						 (unsigned long long)buf[1], cn);
				ret = 0;
			}
		}
	}
	for (size_t k = 0; k < nat; k++)
		if (fd[k] >= 0)
			close(fd[k]);
	free(fd);
	free(buf);
	return ret;
}

/* 1 when catalogue event i is counted in user space only because this
 * process may not count kernel mode (its encoding excludes the kernel by
 * default; tracepoints, msr events and events whose modifiers name the
 * levels are not). */
int pmcfi_perf_user_only_at(const pmcf_catalog *c, size_t i)
{
	const struct perf_impl *impl = perf_impl_of(c);
	if (!impl || impl->kernel_ok || i >= impl->n)
		return 0;
	const struct enc *e = &impl->enc[i], *b = base_enc(impl, i);
	return !(e->mods.user || e->mods.kernel || e->mods.hv) && b->kind != K_PSEUDO &&
	       b->kind != K_TRACEPOINT && b->kind != K_PAPI && !b->noexclude;
}

int pmcf_evlist_user_only(const pmcf_evlist *l, size_t i)
{
	if (!l || i >= pmcf_evlist_size(l))
		return 0;
	return pmcfi_perf_user_only_at(pmcf_evlist_catalog(l), pmcfi_evlist_indices(l)[i]);
}

/* The machine's counters for the planner's bound: the core PMU probed. */
static int perf_counters(void *impl, const pmcf_catalog *c, unsigned *n, char *from, size_t fromlen)
{
	(void)impl;
	(void)c;
	return pmcfi_host_counters_probed(NULL, n, from, fromlen);
}

static const struct pmcfi_catalog_ops perf_ops = {
	.check_set = check_set,
	.free_impl = free_impl,
	.resolve = resolve,
	.counters = perf_counters,
};

int pmcfi_catalog_perf_at(unsigned flags, const char *tracefs, pmcf_catalog **out)
{
	pmcfi_clear_error();
	*out = NULL;
	struct perf_impl *impl = calloc(1, sizeof(*impl));
	if (!impl)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory building the event catalogue");
	impl->kernel_ok = pmcfi_perf_kernel_allowed();
	if (tracefs && !(impl->tracefs = strdup(tracefs))) {
		free(impl);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory building the event catalogue");
	}
	pmcf_catalog *c;
	int err = pmcfi_catalog_new("perf", &perf_ops, impl, &c); /* owns impl from here */
	if (err)
		return err;
	err = enc_reserve(impl);
	if (err) {
		pmcf_catalog_free(c);
		return err;
	}
	impl->enc[impl->n++] = (struct enc){.kind = K_PSEUDO}; /* duration */

	int intel_fixed = 0;
	err = for_each_pmu(note_intel_fixed, &intel_fixed);
	if (!err)
		err = add_typed(c, impl, software_events, PMCF_ARRAY_SIZE(software_events),
				PERF_TYPE_SOFTWARE, PMCF_SRC_SOFTWARE, 0);
	if (!err)
		err = add_typed(c, impl, hardware_events, PMCF_ARRAY_SIZE(hardware_events),
				PERF_TYPE_HARDWARE, PMCF_SRC_HARDWARE, intel_fixed);
	if (!err)
		err = add_hwcache(c, impl);
	if (!err && !(flags & PMCF_CATALOG_NO_TRACEPOINTS)) {
		int want = (flags & PMCF_CATALOG_TRACEPOINTS) != 0;
		err = add_tracepoints(c, impl, want, want);
	}
	if (!err && !(flags & PMCF_CATALOG_NO_PMU))
		err = add_natives(c, impl);
	if (!err && !(flags & (PMCF_CATALOG_NO_PMU | PMCF_CATALOG_NO_PAPI)))
		err = add_papi(c, impl, 0);
	if (err) {
		pmcf_catalog_free(c);
		return err;
	}
	if (flags & PMCF_CATALOG_PROBE)
		probe_all(c, impl);
	*out = c;
	return 0;
}

int pmcf_catalog_perf(unsigned flags, pmcf_catalog **out) { return pmcfi_catalog_perf_at(flags, NULL, out); }

int pmcfi_catalog_perf_for(const char *const *names, size_t n, pmcf_catalog **out)
{
	pmcf_catalog *c = NULL;
	int err = pmcf_catalog_perf(PMCF_CATALOG_NO_TRACEPOINTS | PMCF_CATALOG_NO_PMU, &c);
	for (size_t i = 0; i < n && !err; i++) {
		long k = pmcfi_catalog_resolve(c, names[i]);
		if (k == PMCF_EEVENT)
			pmcfi_clear_error(); /* the caller's lookup says so, with suggestions */
		else if (k < 0)
			err = (int)k;
	}
	if (err) {
		pmcf_catalog_free(c);
		return err;
	}
	*out = c;
	return 0;
}

/* "all" alone or among other names. */
static int names_all(const char *spec)
{
	size_t n = strlen("all");
	for (const char *p = spec; (p = strstr(p, "all")); p += n) {
		int start = p == spec || strchr(", \t", p[-1]);
		int end = !p[n] || strchr(", \t", p[n]);
		if (start && end)
			return 1;
	}
	return 0;
}

int pmcf_catalog_perf_for_events(const char *spec, pmcf_catalog **out)
{
	/* "all" means every event this machine lists (PAPI presets left out:
	 * they would count their natives twice); anything else starts small and
	 * grows as names are resolved (tracepoints, natives, PAPI presets) */
	if (spec && spec[0] == '@')
		return pmcf_catalog_perf(PMCF_CATALOG_NO_PAPI, out);
	if (spec && names_all(spec)) /* only what can be counted here */
		return pmcf_catalog_perf(PMCF_CATALOG_PROBE | PMCF_CATALOG_NO_PAPI, out);
	return pmcfi_catalog_perf_for(NULL, 0, out);
}
