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
int pmcfi_perf_expand(const pmcf_catalog *c, const char *name, struct perf_event_attr *attrs,
		      size_t max, size_t *n, struct pmcfi_derive *d);

/* 1 when this process may count kernel-mode events (CAP_PERFMON or
 * CAP_SYS_ADMIN, or kernel.perf_event_paranoid <= 1), else 0. */
int pmcfi_perf_kernel_allowed(void);

/* kernel.perf_event_paranoid, or INT_MIN when it cannot be read. */
int pmcfi_perf_paranoid(void);

/* pmcf_catalog_perf reading tracepoints from tracefs root `tracefs` (a
 * folder holding events/<sys>/<name>/id) instead of the usual places
 * (NULL: /sys/kernel/tracing, then /sys/kernel/debug/tracing). For tests. */
int pmcfi_catalog_perf_at(unsigned flags, const char *tracefs, pmcf_catalog **out);

/* The cheapest perf catalogue that knows every one of names[0..n) by its
 * exact name: without tracepoints and native PMU events (well under a ms)
 * when that suffices, else the full one (tens of ms: tracefs and libpfm4).
 * NULL names (n == 0) or a name that is not a plain event name ("all",
 * "@FILE") ask for the full one. */
int pmcfi_catalog_perf_for(const char *const *names, size_t n, pmcf_catalog **out);
/* The same for an -e EVENTS list: a comma-separated list, "all" or @FILE. */
int pmcfi_catalog_perf_for_spec(const char *spec, pmcf_catalog **out);

/* pmcf_catalog_perf flags for an -e EVENTS list: 0 when it may name a PAPI
 * preset ("PAPI_" in it, or @FILE), else PMCF_CATALOG_NO_PAPI (also for
 * NULL), so that libpapi starts only when a preset is asked for. */
unsigned pmcfi_perf_papi_flags(const char *spec);

#endif
