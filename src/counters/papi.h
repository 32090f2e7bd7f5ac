/* PAPI presets (PAPI_TOT_INS, PAPI_L1_DCM, …) on the real machine: PAPI's
 * own preset tables, read through libpapi, give each preset the native
 * events of this CPU it is counted with and how they combine (derive.h).
 * libpapi is started only when a table is asked for. */
#ifndef PMCF_COUNTERS_PAPI_H
#define PMCF_COUNTERS_PAPI_H
#include <stddef.h>
#include "counters/derive.h"

struct pmcfi_papi_preset {
	char *name;                     /* "PAPI_TOT_INS" */
	char *description;              /* PAPI's long description */
	unsigned n;                     /* natives (0 when PAPI maps it to none here) */
	char *native[PMCFI_DERIVE_MAX]; /* libpfm4 names, as PAPI's perf_event component has them */
	char derived[64];               /* PAPI's derived type, e.g. "DERIVED_SUB" */
	char expr[PMCFI_DERIVE_EXPR];   /* postfix over the natives (pmcfi_derive_postfix) */
	char why[512];                  /* "" when countable here, else why not (one line) */
};

struct pmcfi_papi {
	struct pmcfi_papi_preset *p;
	size_t n;
	double hz; /* '#' in postfix expressions: the CPU's maximum clock */
};

/* Every PAPI preset with its natives on this machine, or with the reason it
 * cannot be counted here (in why: the perf_event component is disabled and
 * PAPI's reason, no native event on this CPU, a rate rather than a count, …).
 * Starts libpapi the first time (once per process; anything libpapi prints
 * meanwhile is discarded). With the environment variable
 * PMCF_TEST_PAPI_PRESETS set, reads the table from that file instead, for
 * tests: one preset per line, tab-separated NAME, DERIVED type, postfix (or
 * "-"), natives separated by commas (or "-": none), description; a line
 * "disabled<TAB>REASON" plays a disabled perf_event component; '#' starts a
 * comment line.
 * Returns 0 and a table to free with pmcfi_papi_free; PMCF_ENOTSUP when
 * libpapi cannot start (detail says why); PMCF_ENOMEM. */
int pmcfi_papi_load(struct pmcfi_papi **out);
void pmcfi_papi_free(struct pmcfi_papi *t);

/* 1 when name is spelt like a PAPI preset ("PAPI_" in any case), else 0. */
int pmcfi_papi_name(const char *name);

/* The message for a preset that cannot be counted here, written to out:
 * "PAPI preset 'NAME' cannot be counted on this machine: WHY". */
void pmcfi_papi_unavailable(const struct pmcfi_papi_preset *p, char *out, size_t outlen);

#endif
