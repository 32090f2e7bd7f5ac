/* Byte strings in JSON without loss: a string that is valid UTF-8 is a JSON
 * string; any other one (a program argument such as $'\xff') is an object
 * {"base64": "..."} of its bytes. Plans and profile metadata use it. */
#ifndef PMCF_UTIL_JSON_BYTES_H
#define PMCF_UTIL_JSON_BYTES_H
#include <jansson.h>
#include <stddef.h>
#include "x/x.h"

/* pmcfi_utf8_valid and pmcfi_base64 are in x/x.h. */
/* A new JSON value for the NUL-terminated bytes s; NULL when out of memory. */
json_t *pmcfi_json_bytes(const char *s);
/* The bytes of v (a string, or {"base64": …} holding no NUL byte) as a new
 * NUL-terminated string in *out (free it); 0, PMCF_ESYNTAX when v is neither
 * (*out NULL), or PMCF_ENOMEM. */
int pmcfi_json_bytes_get(const json_t *v, char **out);
#endif
