/* No bundled data files: an empty table. */
#include <stddef.h>
#include "util/embedded.h"
const struct pmcf_embedded pmcf_embedded_files[] = {{NULL, NULL, 0}};
