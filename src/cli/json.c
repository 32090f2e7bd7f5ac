/* Helpers shared by the verbs: JSON values through jansson, written whole or
 * as members (the numbers and strings themselves: x/textout.c). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli/cli.h"
#include "cli/output.h"
#include "pmcfuse/combine.h"
#include "x/x.h"

int cli_json_dump(FILE *f, json_t *j, int indent)
{
	if (!j)
		return -1;
	/* reals with 17 significant digits: every double reads back the same */
	int rc = json_dumpf(j, f, (indent ? JSON_INDENT(2) : 0) | JSON_REAL_PRECISION(17));
	json_decref(j);
	return rc == 0 && fputc('\n', f) != EOF ? 0 : -1;
}

int cli_json_put(FILE *f, json_t *j)
{
	if (!j)
		return -1;
	int rc = json_dumpf(j, f, JSON_REAL_PRECISION(17));
	json_decref(j);
	return rc == 0 ? 0 : -1;
}

void cli_json_member(FILE *f, const char *key, double v)
{
	fprintf(f, ", \"%s\": ", key);
	cli_json_number(f, v);
}
