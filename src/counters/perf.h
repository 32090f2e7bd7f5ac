/* The perf_event_open source, inside the library: encoding of any event of
 * the "perf" catalogue into a perf_event_attr, the privilege policy shared by
 * probing, the compatibility check and recording, and a test hook. */
#ifndef PMCF_COUNTERS_PERF_H
#define PMCF_COUNTERS_PERF_H
#include <linux/perf_event.h>
#include "counters/catalog.h"

/* Fills *attr (zeroed first, attr->size set) for the event called name in
 * catalogue c (built by pmcf_catalog_perf; name resolved like
 * pmcf_catalog_find): type and config for software, hardware and hw-cache
 * events, the tracefs id for tracepoints, libpfm4's PFM_OS_PERF_EVENT_EXT
 * encoding (config, config1, …) for native PMU events. Privilege bits follow
 * pmcfi_perf_kernel_allowed(): when kernel counting is not allowed,
 * exclude_kernel and exclude_hv are set (never for tracepoints, which are
 * kernel events and would then count nothing). Nothing else is set: the
 * caller chooses disabled, read_format, inherit, sampling.
 * Returns 0; PMCF_EEVENT for an unknown name; PMCF_EINVAL for duration or a
 * catalogue that is not "perf"; PMCF_ENOTSUP when libpfm4 cannot encode a
 * native event. */
int pmcfi_perf_encode(const pmcf_catalog *c, const char *name, struct perf_event_attr *attr);

/* Like pmcfi_perf_encode, for any event including PAPI presets: fills
 * attrs[0..*n) with the natives the event is counted with (1 for every
 * event but a PAPI preset, 1..PMCFI_DERIVE_MAX for those) and, when d is not
 * NULL, d->name (the catalogue's spelling, valid while c lives), d->n, d->expr and d->hz (the
 * caller sets d->first). Returns 0; PMCF_ENOTSUP with a one-line detail for
 * a preset that cannot be counted here (pmcfi_papi_unavailable);
 * PMCF_ETOOMANY when the natives need more than max; else as
 * pmcfi_perf_encode. */
struct pmcfi_derive;
int pmcfi_perf_expand(const pmcf_catalog *c, const char *name, struct perf_event_attr *attrs, size_t max,
		      size_t *n, struct pmcfi_derive *d);

/* pmcfi_perf_expand for catalogue event i (an index from a resolved event
 * list): no name lookup. PMCF_EINVAL for duration (index 0). */
int pmcfi_perf_expand_at(const pmcf_catalog *c, size_t i, struct perf_event_attr *attrs, size_t max,
			 size_t *n, struct pmcfi_derive *d);

/* 1 when this process may count kernel-mode events (CAP_PERFMON or
 * CAP_SYS_ADMIN, or kernel.perf_event_paranoid <= 1), else 0. */
int pmcfi_perf_kernel_allowed(void);
/* CAP_PERFMON or CAP_SYS_ADMIN in the effective set. These three are
 * host.c's (the privileges of the machine), perf.c asks them. */
int pmcfi_perf_capable(void);

/* kernel.perf_event_paranoid, or INT_MIN when it cannot be read. */
int pmcfi_perf_paranoid(void);

/* The core PMU's counters as the kernel takes them: general = the largest
 * group of user-mode instructions events that opens, fixed = 1 when such a
 * group still takes a cycles event (arm64's cycle counter, x86's fixed
 * counter); pmu: the kernel PMU's name (cpu, armv8_pmuv3_0, ...). Probed
 * once per process. 0, or -1 when no hardware event opens. */
int pmcfi_host_counters(int *general, int *fixed, char *pmu, size_t pmulen);
/* The same as one phrase for people ("armv8_pmuv3_0's 6 general counters
 * and a cycle counter, probed with event groups"), with the general ones in
 * *general and all of them in *total: 0, or -1 when no hardware event opens. */
int pmcfi_host_counters_probed(unsigned *general, unsigned *total, char *from, size_t fromlen);

/* Adds every tracepoint to perf catalogue c (once), as
 * PMCF_CATALOG_TRACEPOINTS does (mounting tracefs; failing with the
 * detail "needs tracefs, …"). For tests. */
int pmcfi_perf_add_tracepoints(pmcf_catalog *c);

/* 1 when event i of perf catalogue c is counted in user space only because
 * kernel-mode counting is not allowed (pmcfi_perf_kernel_allowed() 0 when c
 * was built, or pmcfi_perf_set_kernel_ok): software, hardware, raw and native
 * events without u/k/h modifiers, which the encoding gives exclude_kernel;
 * 0 for tracepoints, msr events, pseudo events, PAPI presets, events whose
 * modifiers name the levels, and whenever kernel mode is allowed. */
int pmcfi_perf_user_only_at(const pmcf_catalog *c, size_t i);

/* Catalogue c counts as if kernel-mode counting were allowed (ok 1) or not
 * (0) from now on, whatever pmcfi_perf_kernel_allowed() said when it was
 * built (the encoding's exclude_kernel follows). For tests. */
int pmcfi_perf_set_kernel_ok(pmcf_catalog *c, int ok);

/* PMU events in perf's syntax (pmu/terms/) of catalogue c are read from
 * the PMU folders under root (NULL: /sys/bus/event_source/devices) from
 * now on. For tests. */
int pmcfi_perf_set_sysfs(pmcf_catalog *c, const char *root);

/* pmcf_catalog_perf reading tracepoints from tracefs root `tracefs` (a
 * folder holding events/<sys>/<name>/id) instead of the usual places
 * (NULL: /sys/kernel/tracing, then /sys/kernel/debug/tracing). For tests. */
int pmcfi_catalog_perf_at(unsigned flags, const char *tracefs, pmcf_catalog **out);

/* The small perf catalogue (software, generic hardware and hw-cache events;
 * well under a ms) with names[0..n) resolved in it: the parts that hold them
 * (tracepoints, mounting tracefs if need be; native PMU events; PAPI
 * presets) are loaded on demand, and later lookups through
 * pmcfi_catalog_resolve (event lists do) grow it the same way. Fails when a
 * part a name needs cannot be loaded (e.g. tracefs); unknown names are left
 * to the caller's lookup, which suggests the closest ones. */
int pmcfi_catalog_perf_for(const char *const *names, size_t n, pmcf_catalog **out);

#endif
