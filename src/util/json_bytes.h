/* Byte strings in JSON without loss: a string that is valid UTF-8 is a JSON
 * string; any other one (a program argument such as $'\xff') is an object
 * {"base64": "..."} of its bytes. Plans and profile metadata use it. */
#ifndef PMCF_UTIL_JSON_BYTES_H
#define PMCF_UTIL_JSON_BYTES_H
#include <jansson.h>
#include <stddef.h>

/* 1 when the NUL-terminated s is valid UTF-8 (as JSON and jansson require:
 * no overlong form, no surrogate, nothing beyond U+10FFFF), else 0. */
int pmcfi_utf8_valid(const char *s);
/* The base64 text (RFC 4648, padded) of the bytes of s into out, which holds
 * PMCFI_BASE64_LEN(strlen(s)) + 1 bytes; returns the text's length. */
#define PMCFI_BASE64_LEN(n) (4 * (((n) + 2) / 3))
size_t pmcfi_base64(const char *s, char *out);
/* A new JSON value for the NUL-terminated bytes s; NULL when out of memory. */
json_t *pmcfi_json_bytes(const char *s);
/* The bytes of v (a string, or {"base64": …} holding no NUL byte) as a new
 * NUL-terminated string in *out (free it); 0, PMCF_ESYNTAX when v is neither
 * (*out NULL), or PMCF_ENOMEM. */
int pmcfi_json_bytes_get(const json_t *v, char **out);
#endif
