/* Lossless byte strings in JSON: UTF-8 text as a string, anything else as
 * {"base64": "…"} (RFC 4648, with padding). */
#include <stdlib.h>
#include <string.h>
#include "util/internal.h"
#include "util/json_bytes.h"

json_t *pmcfi_json_bytes(const char *s)
{
	json_t *v = json_string(s);
	if (v)
		return v; /* NULL for invalid UTF-8 (or no memory: the same again below) */
	char *e = malloc(PMCFI_BASE64_LEN(strlen(s)) + 1);
	if (!e)
		return NULL;
	pmcfi_base64(s, e);
	v = json_pack("{s:s}", "base64", e);
	free(e);
	return v;
}

static int b64_digit(int c)
{
	const char *p = c ? strchr(pmcfi_base64_digits, c) : NULL;
	return p ? (int)(p - pmcfi_base64_digits) : -1;
}

int pmcfi_json_bytes_get(const json_t *v, char **out)
{
	*out = NULL;
	if (json_is_string(v)) {
		/* a JSON string may hold \u0000: not a C string */
		if (strlen(json_string_value(v)) != json_string_length(v))
			return PMCF_ESYNTAX;
		return (*out = strdup(json_string_value(v))) ? 0 : PMCF_ENOMEM;
	}
	const char *e = json_string_value(json_object_get(v, "base64"));
	if (!json_is_object(v) || json_object_size(v) != 1 || !e)
		return PMCF_ESYNTAX;
	size_t n = strlen(e);
	if (n % 4)
		return PMCF_ESYNTAX;
	char *d = malloc(n / 4 * 3 + 1), *q = d;
	if (!d)
		return PMCF_ENOMEM;
	for (size_t i = 0; i < n; i += 4) {
		int c[4];
		for (int k = 0; k < 4; k++)
			c[k] = e[i + k] == '=' && i + 4 == n && k >= 2 ? 0 : b64_digit(e[i + k]);
		int pad = (e[i + 2] == '=') + (e[i + 3] == '=');
		if (c[0] < 0 || c[1] < 0 || c[2] < 0 || c[3] < 0 || (i + 4 < n && pad) ||
		    (e[i + 2] == '=' && e[i + 3] != '=')) {
			free(d);
			return PMCF_ESYNTAX;
		}
		unsigned x =
			(unsigned)c[0] << 18 | (unsigned)c[1] << 12 | (unsigned)c[2] << 6 | (unsigned)c[3];
		char bytes[3] = {(char)(x >> 16), (char)(x >> 8 & 255), (char)(x & 255)};
		for (int k = 0; k < 3 - pad; k++) {
			if (!bytes[k]) {
				free(d);
				return PMCF_ESYNTAX; /* a NUL byte cannot be an argument */
			}
			*q++ = bytes[k];
		}
	}
	*q = '\0';
	*out = d;
	return 0;
}
