/* pmcfuse — events: the catalogue of what a source can count (perf on this
 * machine, or a simulated machine), event-list parsing with suggestions, and
 * the compatibility check (can this set be counted at once?). */
#ifndef PMCFUSE_EVENTS_H
#define PMCFUSE_EVENTS_H

#include "pmcfuse/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The pseudo-event in every catalogue and every profile: XU wall time from
 * timestamps, in ns. It never uses a counter. */
#define PMCF_EVENT_DURATION "duration"

/* Event sources (pmcf_event_info.source). */
#define PMCF_SRC_PSEUDO "pseudo"
#define PMCF_SRC_SOFTWARE "software"
#define PMCF_SRC_TRACEPOINT "tracepoint"
#define PMCF_SRC_HARDWARE "hardware" /* generic PERF_TYPE_HARDWARE */
#define PMCF_SRC_HWCACHE "hw-cache"  /* generic PERF_TYPE_HW_CACHE */
#define PMCF_SRC_PMU "pmu"           /* native event of a PMU, through libpfm4 */
#define PMCF_SRC_SIM "sim"           /* event of a simulated machine */
#define PMCF_SRC_PAPI "papi"         /* PAPI preset, counted as this CPU's natives (libpapi) */

typedef struct pmcf_event_info {
	size_t size;             /* sizeof(pmcf_event_info) (the ABI rule, pmcfuse/base.h) */
	const char *name;        /* unique in its catalogue, e.g. "task-clock", "sched:sched_switch" */
	const char *source;      /* one of PMCF_SRC_* */
	const char *pmu;         /* PMU name for native events, else NULL */
	const char *description; /* never NULL, may be "" */
	/* Counting constraints as a JSON object text, or NULL when none, e.g.
	 * {"counters":[0,1],"fixed":false,"cost":2,"conflicts":["X"],"alias_of":"Y"} */
	const char *constraints;
	int available; /* 1: this machine can count it; 0: it cannot; -1: not probed */
	unsigned cost; /* general-purpose counters it takes (0 for duration and fixed-counter events) */
} pmcf_event_info;
#define PMCF_EVENT_INFO_INIT PMCF_SIZED_INIT(pmcf_event_info)

/* pmcf_catalog_perf flags */
#define PMCF_CATALOG_PROBE 1u          /* try perf_event_open on each event to fill .available */
#define PMCF_CATALOG_NO_TRACEPOINTS 2u /* skip tracefs */
#define PMCF_CATALOG_NO_PMU 4u         /* skip libpfm4's native events (and PAPI presets) */
#define PMCF_CATALOG_NO_PAPI 8u        /* skip PAPI presets (libpapi is not started) */
/* tracepoints are wanted: tracefs is mounted when none is and the process
 * may, and the call fails when they cannot be read (PMCF_ENOENT: no tracefs;
 * PMCF_EPARANOID: this user cannot read it; the detail begins "needs
 * tracefs, …" and says what to do) instead of leaving them out with a
 * warning. Ignored with PMCF_CATALOG_NO_TRACEPOINTS. */
#define PMCF_CATALOG_TRACEPOINTS 16u

/* The catalogue of the real source on this machine: duration, perf software
 * events, generic hardware and hw-cache events, tracepoints (from tracefs;
 * silently absent when tracefs is missing or unreadable, with a warning
 * through the log callback), the native events of the detected PMUs
 * with their umasks (libpfm4), and PAPI's presets (source "papi", from
 * libpapi's tables for this CPU: cost is the number of natives a preset is
 * counted with; one PAPI cannot map here has available 0 and its reason in
 * constraints {"unavailable": …}). Free with pmcf_catalog_free. */
PMCF_API int pmcf_catalog_perf(unsigned flags, pmcf_catalog **out);

/* The perf catalogue suited to an -e EVENTS value spec (as
 * pmcf_evlist_parse reads it): for "all" (alone or among names) every event
 * this machine lists, probed, without PAPI presets (they would count their
 * natives twice); for @FILE the same, unprobed; for NULL or a list of
 * names the small catalogue (duration, software, generic hardware and
 * hw-cache events; well under a ms) whose other parts (tracepoints, mounting
 * tracefs if need be; native PMU events; PAPI presets) are loaded as
 * pmcf_evlist_parse, pmcf_evlist_from_names and pmcf_catalog_check_events
 * resolve names that need them. Free with pmcf_catalog_free. */
PMCF_API int pmcf_catalog_perf_for_events(const char *spec, pmcf_catalog **out);

/* The catalogue of a simulated machine for SPEC ("WORKLOAD[,key=value…]";
 * only machine= matters here). */
PMCF_API int pmcf_catalog_sim(const char *spec, pmcf_catalog **out);

PMCF_API void pmcf_catalog_free(pmcf_catalog *c);
/* "perf" or "sim:<machine>". */
PMCF_API const char *pmcf_catalog_name(const pmcf_catalog *c);
PMCF_API size_t pmcf_catalog_size(const pmcf_catalog *c);
/* The i-th event (catalogue order), or NULL. Owned by the catalogue. */
PMCF_API const pmcf_event_info *pmcf_catalog_at(const pmcf_catalog *c, size_t i);
/* Index of the event called name (exact match, then a unique
 * case-insensitive match), or PMCF_EEVENT. */
PMCF_API long pmcf_catalog_find(const pmcf_catalog *c, const char *name);
/* Writes up to max names closest to name (edit distance, then substring
 * match) into names[] (pointers owned by the catalogue); returns how many. */
PMCF_API size_t pmcf_catalog_suggest(const pmcf_catalog *c, const char *name, const char **names, size_t max);

/* Can these events be counted together in one execution? pmcs is a counter
 * budget (0: the machine's own counters). Returns 1 (yes), 0 (no: why holds
 * one line saying which events and why) or a negative error. */
PMCF_API int pmcf_catalog_check_events(const pmcf_catalog *c, const char *const *names, size_t n,
				       unsigned pmcs, char *why, size_t whylen);

/* ---- the machine ------------------------------------------------------------ */
/* What this machine offers for counting, as `papi_avail`'s header tells it. */
typedef struct pmcf_host_pmu {
	size_t size;    /* sizeof(pmcf_host_pmu), set by PMCF_HOST_PMU_INIT (the ABI rule, pmcfuse/base.h) */
	char name[64];  /* libpfm4's name, e.g. "skx" */
	char desc[128]; /* e.g. "Intel Skylake X" */
	int general;    /* general-purpose counters */
	int fixed;      /* fixed counters */
} pmcf_host_pmu;
#define PMCF_HOST_PMU_INIT PMCF_SIZED_INIT(pmcf_host_pmu)

typedef struct pmcf_host_info {
	size_t size;         /* set to sizeof(pmcf_host_info) before the call */
	char cpu[128];       /* model name */
	unsigned ncpus;      /* online CPUs */
	int virtual_machine; /* 1 under a hypervisor, 0 not, -1 unknown */
	char hypervisor[32]; /* vendor (KVM, VMware, Microsoft Hv, Xen, …) or "" */
	int hw_counting;     /* 1: a generic hardware event opens; 0: it does not */
	char hw_why[160];    /* when hw_counting is 0: the kernel's answer */
	size_t npmus;        /* core PMUs libpfm4 detected (the first 4) */
	pmcf_host_pmu pmus[4];
	char kernel_pmus[256]; /* /sys/bus/event_source/devices, comma-separated */
	int paranoid;          /* kernel.perf_event_paranoid, or INT_MIN if unreadable */
	int kernel_allowed;    /* 1: this process may count kernel-mode events */
	int root;              /* effective uid 0 */
	char tracefs[256];     /* where tracefs is and whether it can be read */
	int rdpmc;             /* 1: user-space counter reads (rdpmc) allowed */
	char rdpmc_why[128];   /* the setting behind rdpmc */
} pmcf_host_info;
#define PMCF_HOST_INFO_INIT PMCF_SIZED_INIT(pmcf_host_info)

/* Fills *h (h->size must be set). Opens and closes one perf event to learn
 * whether hardware events can be counted; mounts nothing. Returns 0 or
 * PMCF_EINVAL (size too small). */
PMCF_API int pmcf_host_describe(pmcf_host_info *h);

/* ---- event lists (-e EVENTS) ------------------------------------------------ */

/* Parses spec against catalogue c: a comma-separated list of names, "all"
 * (every available event of the catalogue, duration included), or "@FILE"
 * (names separated by commas, blanks or newlines; '#' starts a comment).
 * Names are resolved with the catalogue (pmcf_catalog_find, then what the
 * source loads on demand) and stored by their catalogue spelling;
 * duplicates are dropped (first kept). The perf catalogue reads perf's
 * syntax: aliases (cs, faults, migrations, cpu-cycles, branches, …) stored
 * under the name they stand for; modifiers (task-clock:u, cycles:k,
 * instructions:pp, …: u k h G H I p P D) as events of their own; raw events
 * (r01c2) and PMU events (cpu/event=0x3c,umask=0x0/, msr/tsc/, with
 * modifiers after the slash) by their spelling. In any catalogue a name
 * with * ? or [ is a glob (sched:*) that adds every available event it
 * matches, and {a,b,…}[:mods] is a group: events that must be counted in one
 * execution (pmcf_evlist_group; the planner keeps them together), the
 * modifiers applying to each. An unknown name fails with PMCF_EEVENT and a
 * detail suggesting the closest known names; an empty list, a malformed
 * group or modifier with PMCF_ESYNTAX. Free with pmcf_evlist_free. */
PMCF_API int pmcf_evlist_parse(const pmcf_catalog *c, const char *spec, pmcf_evlist **out);
PMCF_API void pmcf_evlist_free(pmcf_evlist *l);
PMCF_API size_t pmcf_evlist_size(const pmcf_evlist *l);
PMCF_API const char *pmcf_evlist_name(const pmcf_evlist *l, size_t i);
/* The names as an array of pmcf_evlist_size(l) pointers owned by l. */
PMCF_API const char *const *pmcf_evlist_names(const pmcf_evlist *l);
/* The {…} group of the i-th name: 0 when it is in none, else the group's
 * number (1, 2, … in the order the groups were written). */
PMCF_API unsigned pmcf_evlist_group(const pmcf_evlist *l, size_t i);
/* The groups as an array parallel to pmcf_evlist_names, owned by l (for
 * pmcf_plan_opts.groups). */
PMCF_API const unsigned *pmcf_evlist_groups(const pmcf_evlist *l);
/* The catalogue the list was resolved in: a list refers to it (by index,
 * so that recording never looks a name up again) and must be freed before
 * it. */
PMCF_API const pmcf_catalog *pmcf_evlist_catalog(const pmcf_evlist *l);
/* A list of names[0..n) resolved in c (as pmcf_evlist_parse resolves one
 * name: no syntax, no globs), e.g. the set of a plan read from plan.json.
 * Errors: PMCF_EEVENT with suggestions, PMCF_ESYNTAX when n is 0. */
PMCF_API int pmcf_evlist_from_names(const pmcf_catalog *c, const char *const *names, size_t n,
				    pmcf_evlist **out);
/* The events names[0..n) (catalogue spellings, e.g. a set of a plan or a
 * pair covering made from l) taken from l, resolved as they are there (no
 * catalogue lookup beyond the exact spelling); "duration" may be named
 * even when l does not hold it. PMCF_EEVENT for a name l does not hold. */
PMCF_API int pmcf_evlist_subset(const pmcf_evlist *l, const char *const *names, size_t n, pmcf_evlist **out);
/* Appends the events of src that dst does not hold (both resolved in one
 * catalogue, else PMCF_ECONFLICT); src's groups get new numbers. */
PMCF_API int pmcf_evlist_append(pmcf_evlist *dst, const pmcf_evlist *src);
/* Can the events of l be counted together in one execution? As
 * pmcf_catalog_check_events, by the list's catalogue indices: no name is looked
 * up again. PMCF_EINVAL for a NULL list. */
PMCF_API int pmcf_evlist_check(const pmcf_evlist *l, unsigned pmcs, char *why, size_t whylen);
/* 1 when event i of l (of the perf catalogue) is counted in user space only
 * because this process may not count kernel mode (kernel.perf_event_paranoid
 * 2 and neither root nor CAP_PERFMON, as perf stat's ":u" events then):
 * software, hardware, raw and native events without u/k/h modifiers; 0 for
 * tracepoints, msr events, duration, PAPI presets, events whose modifiers
 * name the levels, other catalogues, an index out of range, and whenever
 * kernel mode is allowed. Recordings list them in the profile's
 * PMCF_META_USER_SPACE_ONLY. */
PMCF_API int pmcf_evlist_user_only(const pmcf_evlist *l, size_t i);

#ifdef __cplusplus
}
#endif
#endif
