/* Numbers, JSON strings and typed metadata as pmcfuse writes them
 * (docs/profile-format.md, "JSON output"), for the library's export writers
 * and the command's --json summaries: compiled into both (src/x/, curl's
 * curlx model). In the library the names are pmcfi_* (local); in the
 * command the same code is compiled as cli_*, the names its verbs use. */
#ifndef PMCF_X_TEXTOUT_H
#define PMCF_X_TEXTOUT_H
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
