/* perf's event syntax, as `perf stat -e` reads it (tools/perf/util/
 * parse-events.l): aliases (cs, faults, …), modifiers (:u, :k, :pp, …), raw
 * events (r01c2) and PMU terms (cpu/event=0x3c,umask=0/, msr/tsc/), encoded
 * through the PMU's sysfs format files. Pure functions of their inputs and
 * of the sysfs folder they are given, so tests can hand them a fake one. */
#ifndef PMCF_COUNTERS_PERF_SYNTAX_H
#define PMCF_COUNTERS_PERF_SYNTAX_H
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#define PMCFI_SYSFS_PMUS "/sys/bus/event_source/devices"

/* The catalogue name perf's alias `name` stands for (cs -> context-switches,
 * faults -> page-faults, branches -> branch-instructions, …; any case), or
 * NULL when name is no alias. */
const char *pmcfi_perf_alias(const char *name);
/* perf's other spellings of a hardware cache event (l1d-loads, L1-data-read,
 * LLC-misses, d-tlb-load-miss, branches-misses, …: TYPE[-OP][-RESULT] with
 * perf's words for each) as the catalogue names it (L1-dcache-loads,
 * LLC-load-misses, …), written into buf; NULL when name is no such spelling
 * or is already the catalogue's. */
const char *pmcfi_perf_cache_alias(const char *name, char *buf, size_t len);

/* perf's event modifiers, parsed. */
struct pmcfi_perf_mods {
	unsigned user : 1, kernel : 1, hv : 1; /* u k h: count only the levels named */
	unsigned guest : 1, host : 1;          /* G H */
	unsigned idle : 1;                     /* I: exclude_idle */
	unsigned pinned : 1;                   /* D */
	unsigned precise : 2;                  /* p, pp, ppp (P: the most, 3) */
	unsigned max_precise : 1;              /* P */
};

/* Parses a modifier string ("u", "k", "pp", "uk", "G", …: perf's letters u k
 * h G H I p P D; S, W, e and b are refused, they mean nothing when counting).
 * Returns 0, or PMCF_ESYNTAX with a detail naming the letter. */
int pmcfi_perf_mods_parse(const char *s, struct pmcfi_perf_mods *m);
/* 1 when s could be a modifier string at all (every character a modifier
 * letter perf knows), 0 otherwise. */
int pmcfi_perf_mods_like(const char *s);
/* Applies m to *attr, over the privilege defaults it already has: u/k/h
 * name the levels counted (the others are excluded), G/H likewise for guest
 * and host, I sets exclude_idle, D pinned, p/P precise_ip. */
void pmcfi_perf_mods_apply(const struct pmcfi_perf_mods *m, struct perf_event_attr *attr);

/* A raw event "rNNN" (hex, perf's rNNN): 1 and *config set, else 0. */
int pmcfi_perf_raw_parse(const char *name, uint64_t *config);

/* A PMU event "pmu/terms/" with optional modifiers after the closing slash
 * ("cpu/event=0x3c,umask=0x0/u", "msr/tsc/", "cpu/cycles/:k"): 1 when name
 * has that shape (the caller then encodes it), 0 otherwise. */
int pmcfi_perf_pmu_like(const char *name);

/* The encoding of PMU event `name` (see pmcfi_perf_pmu_like) through the PMU
 * folders under `sysfs` (NULL: PMCFI_SYSFS_PMUS): attr->type from
 * PMU/type, config/config1/config2 from the terms, each written into the
 * bits PMU/format/TERM names ("config:0-7,21"); a term that is an event of
 * the PMU (PMU/events/NAME, e.g. msr/tsc/) stands for that event's terms;
 * config, config1 and config2 are set directly; a term without a value is 1.
 * On x86 the core PMU "cpu" of a machine that exposes none is encoded with
 * the architectural format (event, umask, edge, pc, any, inv, cmask) as a
 * raw event, so that it can be planned and is refused only when opened.
 * *attr is zeroed first (attr->size set); *mods gets the modifiers; pmu
 * (pmulen bytes) the PMU's name. Returns 0; PMCF_ESYNTAX (malformed, an
 * unknown term, a value too wide for its bits, a modifier) or PMCF_ENOENT
 * (no such PMU here) with a one-line detail. */
int pmcfi_perf_pmu_encode(const char *sysfs, const char *name, struct perf_event_attr *attr,
			  struct pmcfi_perf_mods *mods, char *pmu, size_t pmulen);

/* The type number of PMU `pmu` (sysfs/pmu/type; sysfs NULL: PMCFI_SYSFS_PMUS),
 * or -1 when there is no such PMU or its type cannot be read. */
long pmcfi_perf_pmu_type(const char *sysfs, const char *pmu);

/* perf's bare sysfs event names (`perf stat -e inst_retired`): the PMU
 * under `sysfs` (NULL: PMCFI_SYSFS_PMUS) whose events/ folder has an event
 * `name` (letters, digits, '_', '-', '.'; not a .scale, .unit, .per-pkg or
 * .snapshot file; in any case, as perf matches them): 1 with the PMU's name
 * in pmu (pmulen bytes) and the event's file name in event (eventlen
 * bytes), 0 when no PMU has it. A core PMU (cpu, cpu_core, armv8_*, armv7_*)
 * first, else the first PMU in name order; encode it as "PMU/event/". */
int pmcfi_perf_sysfs_event_pmu(const char *sysfs, const char *name, char *pmu, size_t pmulen, char *event,
			       size_t eventlen);

/* 1 when the events of PMU `pmu` take no hardware counter (software,
 * tracepoint, msr, probes: the kernel counts any number of them), else 0. */
int pmcfi_perf_pmu_counterless(const char *pmu);

#endif
