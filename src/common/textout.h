/* Numbers, JSON strings and typed metadata as pmcfuse writes them
 * (docs/profile-format.md, "JSON output"). One source compiled into both the
 * library (the export writers) and the command (every --json summary), as
 * curl's curlx files are: it uses only the public API. In the library the
 * names are pmcfi_* (hidden); in the command, which links only the public
 * library, the same code is compiled as cli_* (no use of a library-internal
 * symbol: tests/cli_public_symbols.sh). */
#ifndef PMCF_COMMON_TEXTOUT_H
#define PMCF_COMMON_TEXTOUT_H
#include <jansson.h>
#include <stdio.h>
#include "pmcfuse/profile.h"

#ifdef PMCF_BUILDING
#define PMCFI_TEXTOUT(name) pmcfi_##name
#else
#define PMCFI_TEXTOUT(name) cli_##name
#endif

/* Writes s to f as JSON, always valid UTF-8: a string literal (with quotes)
 * when s is UTF-8, else {"base64": "..."} of its bytes, the rule of plans and
 * metadata (util/json_bytes.h, docs/profile-format.md). */
void PMCFI_TEXTOUT(json_string)(FILE *f, const char *s);
/* Writes v to f as the shortest decimal that reads back as the same double. */
void PMCFI_TEXTOUT(put_number)(FILE *f, double v);
/* Writes v to f as JSON: a number; null when missing (NaN); the string "inf"
 * or "-inf" when infinite, which JSON numbers cannot say
 * (docs/profile-format.md). */
void PMCFI_TEXTOUT(json_number)(FILE *f, double v);
/* JSON through jansson (docs/schema/): a new value for the bytes s (a
 * string when UTF-8, else {"base64": ...}); for v (null when missing, the
 * string "inf"/"-inf" when infinite, an integer when integral and exact, else
 * a real); the profile's metadata with their types ("args" and "inputs"
 * arrays, "complete"/"multiplexed" booleans, numeric keys numbers, seeds
 * strings). NULL when out of memory. */
json_t *PMCFI_TEXTOUT(jstr)(const char *s);
json_t *PMCFI_TEXTOUT(jnum)(double v);
json_t *PMCFI_TEXTOUT(meta_json)(const pmcf_profile *p);
#endif
