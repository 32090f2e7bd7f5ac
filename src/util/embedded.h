/* Data files bundled into the library at build time (data/<dir>/<name>.json),
 * so that the binary needs no installed data directory. */
#ifndef PMCF_UTIL_EMBEDDED_H
#define PMCF_UTIL_EMBEDDED_H
#include <stddef.h>

struct pmcf_embedded {
	const char *name; /* "<dir>/<name>" without .json, e.g. "machines/xeon32" */
	const char *data; /* NUL-terminated */
	size_t size;      /* bytes, without the NUL */
};
extern const struct pmcf_embedded pmcf_embedded_files[]; /* ends with name == NULL */

/* The bundled file called name, or NULL. */
const struct pmcf_embedded *pmcfi_embedded_find(const char *name);
#endif
