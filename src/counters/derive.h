/* Events counted as several native events (PAPI's derived presets): the
 * table that tells the collector's reader how to turn the natives' values of
 * one XU into the event's one value, in PAPI's postfix language. Pure
 * arithmetic: no libpapi, no allocation. */
#ifndef PMCF_COUNTERS_DERIVE_H
#define PMCF_COUNTERS_DERIVE_H
#include <stddef.h>

#define PMCFI_DERIVE_MAX 12   /* natives of one event (PAPI_MAX_INFO_TERMS) */
#define PMCFI_DERIVE_EXPR 256 /* postfix text (PAPI_2MAX_STR_LEN) */

/* One event column of a collection whose events were expanded to natives. */
struct pmcfi_derive {
	const char *name;             /* the event (profile column); not owned */
	unsigned first, n;            /* its natives: [first, first + n) of the collected list */
	char expr[PMCFI_DERIVE_EXPR]; /* postfix over N0..N(n-1); "" is N0 itself */
	double hz;                    /* the value of '#' (PAPI: the CPU's maximum clock, Hz) */
};

/* Writes to out (outlen bytes) the postfix program of a PAPI derived preset
 * of n natives, from PAPI_event_info_t's derived and postfix fields:
 * NOT_DERIVED and DERIVED_CMPD -> "N0|", DERIVED_ADD -> "N0|N1|+|…",
 * DERIVED_SUB -> "N0|N1|-|N2|-|…" (the first minus the others, as PAPI),
 * DERIVED_POSTFIX -> postfix as given (checked).
 * Returns 0; PMCF_ENOTSUP for a type that is not a count (DERIVED_PS,
 * DERIVED_ADD_PS: rates per second; DERIVED_INFIX; anything unknown), with a
 * detail; PMCF_ESYNTAX for a malformed postfix; PMCF_EINVAL for n outside
 * 1..PMCFI_DERIVE_MAX or a too small out. */
int pmcfi_derive_postfix(const char *derived, const char *postfix, unsigned n, char *out, size_t outlen);

/* Evaluates postfix expr over the natives' values vals[0..n), the way PAPI
 * does (papi_internal.c, _papi_hwi_postfix_calc): tokens separated by '|'
 * (optional), "N<i>" the i-th native, decimal integer constants, '#' hz,
 * and the operators + - * / on the two topmost values; exactly one value
 * must remain. "" is N0. A division by zero gives PMCF_MISSING (NaN), as does
 * any missing (NaN) operand. Returns 0 with *out set, or PMCF_ESYNTAX with a
 * detail naming the offending position (unknown token, N<i> with i >= n,
 * too few operands, more than one value left, stack deeper than 32). */
int pmcfi_postfix_eval(const char *expr, const double *vals, unsigned n, double hz, double *out);

/* pmcfi_postfix_eval on values 1, 2, 3, … for a syntax check only. */
int pmcfi_postfix_check(const char *expr, unsigned n);

/* The value of event d given the natives' values of one XU, v[d->first ..
 * d->first + d->n): PMCF_MISSING when any of them is missing or the
 * expression cannot be computed. */
double pmcfi_derive_value(const struct pmcfi_derive *d, const double *v);

#endif
