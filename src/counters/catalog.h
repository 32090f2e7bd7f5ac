/* Internal construction of event catalogues: each source (perf, sim) fills a
 * generic catalogue and supplies its own compatibility check. */
#ifndef PMCF_COUNTERS_CATALOG_H
#define PMCF_COUNTERS_CATALOG_H
#include "pmcfuse/events.h"

struct pmcfi_catalog_ops {
	/* Can the events at indices idx[0..n) be counted at once? 1 yes, 0 no
	 * (why filled with one line), negative error. duration is never passed. */
	int (*check_set)(void *impl, const pmcf_catalog *c, const size_t *idx, size_t n, unsigned pmcs,
			 char *why, size_t whylen);
	void (*free_impl)(void *impl);
	/* Optional: name is not in c (yet); load what may hold it (e.g. the
	 * tracepoints, mounting tracefs) and return its index, PMCF_EEVENT when
	 * it is unknown, or another negative error (with a detail) when the
	 * part that would know it cannot be loaded. */
	long (*resolve)(void *impl, pmcf_catalog *c, const char *name);
	/* Optional: the counters of the machine the catalogue counts on when
	 * its events name none (*n, general and fixed together, from: where the
	 * number came from, one phrase): 0, or -1 when unknown. */
	int (*counters)(void *impl, const pmcf_catalog *c, unsigned *n, char *from, size_t fromlen);
};

/* Where every catalogue holds duration (pmcfi_catalog_new adds it first). */
#define PMCFI_EVENT_DURATION_INDEX 0
/* A new catalogue that already holds the duration pseudo-event (at
 * PMCFI_EVENT_DURATION_INDEX). impl is
 * owned by the catalogue from then on (freed with ops->free_impl), even
 * when this call fails. */
int pmcfi_catalog_new(const char *name, const struct pmcfi_catalog_ops *ops, void *impl, pmcf_catalog **out);
/* Appends a copy of *info (all strings copied). A name already present is
 * refused with PMCF_ECONFLICT. */
int pmcfi_catalog_add(pmcf_catalog *c, const pmcf_event_info *info);
/* The source's counters hook (see pmcfi_catalog_ops.counters): 0, or -1
 * when the catalogue has none or the number is unknown. */
int pmcfi_catalog_counters(const pmcf_catalog *c, unsigned *n, char *from, size_t fromlen);
/* Mutable access, e.g. to set .available after probing. */
pmcf_event_info *pmcfi_catalog_at_mut(pmcf_catalog *c, size_t i);
void *pmcfi_catalog_impl(const pmcf_catalog *c);
/* pmcf_catalog_find, then the source's resolve hook: catalogues may grow as
 * names are looked up (the perf catalogue loads tracepoints and native
 * events on demand). Returns an index, PMCF_EEVENT (no detail set) or
 * another negative error with a detail. */
long pmcfi_catalog_resolve(pmcf_catalog *c, const char *name);
/* Can catalogue events idx[0..n) be counted at once? As
 * pmcf_catalog_check_events, for events already resolved (duration and
 * repeats are skipped). */
int pmcfi_catalog_check_idx(const pmcf_catalog *c, const size_t *idx, size_t n, unsigned pmcs, char *why,
			    size_t whylen);
/* The catalogue index of every name of l (pmcf_evlist_size(l) of them,
 * owned by l), in pmcf_evlist_catalog(l). */
const size_t *pmcfi_evlist_indices(const pmcf_evlist *l);
/* Name lookups made on this thread (pmcf_catalog_find, the simulator's
 * machine lookup): tests check that a resolved list is not looked up again. */
extern _Thread_local unsigned long pmcfi_name_lookups;
#endif
