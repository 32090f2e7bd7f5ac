/* Loading an instruction mix from what `imix record` / `imix reference`
 * wrote (a folder, a perf.data or a callgrind output), or a mnemonic table
 * from a CSV of `imix report --format csv`: the inputs of report, compare
 * and train. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <jansson.h>
#include "hbbp/hbbp_impl.h"
#include "util/abi.h"
#include "util/internal.h"

struct pmcf_imix_input {
	int kind;            /* enum pmcf_imix_input_kind */
	pmcf_imix *mix;      /* NULL for a CSV */
	pmcf_imix_row *rows; /* by mnemonic (or the CSV's rows) */
	size_t nrows;
};

int pmcf_imix_csv_read(const char *path, pmcf_imix_row **rows, size_t *n)
{
	pmcfi_clear_error();
	*rows = NULL;
	*n = 0;
	FILE *f = fopen(path, "re");
	if (!f)
		return pmcfi_fail(-errno, "cannot open %s: %s", path, strerror(errno));
	char *line = NULL;
	size_t lcap = 0, cap = 0, nr = 0;
	pmcf_imix_row *r = NULL;
	unsigned long ln = 0;
	int rc = 0;
	errno = 0;
	while (!rc && getline(&line, &lcap, f) >= 0) {
		ln++;
		line[strcspn(line, "\r\n")] = 0;
		if (!line[0] || line[0] == '#' || (ln == 1 && !strncmp(line, "key,", 4)))
			continue;
		char *c1 = strchr(line, ',');
		char *end = NULL;
		double v = c1 ? strtod(c1 + 1, &end) : 0;
		if (!c1 || end == c1 + 1 || !(v >= 0) || !isfinite(v)) {
			rc = pmcfi_fail(PMCF_ESYNTAX, "%s:%lu: expected KEY,COUNT", path, ln);
			break;
		}
		*c1 = 0;
		char *key = strdup(line);
		if (!key || pmcfi_grow((void **)&r, &cap, nr + 1, sizeof(*r))) {
			free(key);
			rc = pmcfi_fail(PMCF_ENOMEM, "out of memory");
			break;
		}
		r[nr++] = (pmcf_imix_row){sizeof(pmcf_imix_row), key, v, 0};
	}
	if (!rc && ferror(f)) {
		int e = errno ? errno : EIO;
		rc = pmcfi_fail(-e, "cannot read %s: %s", path, strerror(e));
	}
	free(line);
	fclose(f);
	if (!rc && !nr)
		rc = pmcfi_fail(PMCF_ESYNTAX, "%s: no rows", path);
	if (rc) {
		pmcf_imix_rows_free(r, nr);
		return rc;
	}
	*rows = r;
	*n = nr;
	return 0;
}

static int is_dir(const char *p)
{
	struct stat sb;
	return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static int file_exists(const char *p)
{
	struct stat sb;
	return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* Which reader takes path: a folder's perf.data (else callgrind.out), or a
 * file by its first bytes. Sets *file (p when inside a folder). */
static int sniff(const char *path, unsigned flags, char *p, size_t np, const char **file, int *kind)
{
	*file = path;
	if (is_dir(path)) {
		snprintf(p, np, "%s/perf.data", path);
		*kind = PMCF_IMIX_INPUT_PERF;
		if (file_exists(p)) {
			*file = p;
			return 0;
		}
		snprintf(p, np, "%s/callgrind.out", path);
		*kind = PMCF_IMIX_INPUT_CALLGRIND;
		if (file_exists(p)) {
			*file = p;
			return 0;
		}
		return pmcfi_fail(-ENOENT, "%s: no perf.data or callgrind.out in it", path);
	}
	FILE *f = fopen(path, "re");
	if (!f)
		return pmcfi_fail(-errno, "cannot open %s: %s", path, strerror(errno));
	char head[256] = "";
	size_t n = fread(head, 1, sizeof(head) - 1, f);
	head[n] = 0;
	fclose(f);
	if (n >= 8 && !memcmp(head, "PERFILE2", 8))
		*kind = PMCF_IMIX_INPUT_PERF;
	else if (strstr(head, "events:") || strstr(head, "version:") || strstr(head, "creator:"))
		*kind = PMCF_IMIX_INPUT_CALLGRIND;
	else if (flags & PMCF_IMIX_LOAD_CSV)
		*kind = PMCF_IMIX_INPUT_CSV;
	else
		*kind = PMCF_IMIX_INPUT_PERF; /* the reader says what is wrong */
	return 0;
}

/* A reference folder made before imix reference passed --skip-plt=no:
 * callgrind charged each PLT stub to its call site, so the stub's JMP
 * counts as a second CALL and the stubs count nothing. */
static void warn_old_reference(const char *path)
{
	if (!is_dir(path))
		return;
	char p[4200];
	snprintf(p, sizeof(p), "%s/imix.json", path);
	json_t *j = json_load_file(p, 0, NULL);
	const char *tool = j ? json_string_value(json_object_get(j, "tool")) : NULL;
	if (tool && !strstr(tool, "--skip-plt=no"))
		pmcfi_log(PMCF_LOG_WARN,
			  "imix: %s was made with callgrind's default --skip-plt=yes: every call "
			  "through the PLT counts twice (CALL) and the PLT stubs not at all; make "
			  "it again with imix reference",
			  path);
	json_decref(j);
}

/* GLIBC_TUNABLES of a record folder's run (imix.json), into the stats. */
static void read_tunables(const char *path, pmcf_imix *m)
{
	if (!is_dir(path))
		return;
	char p[4200];
	snprintf(p, sizeof(p), "%s/imix.json", path);
	json_t *j = json_load_file(p, 0, NULL);
	const char *t = j ? json_string_value(json_object_get(j, "glibc_tunables")) : NULL;
	if (t)
		snprintf(m->st.glibc_tunables, sizeof(m->st.glibc_tunables), "%s", t);
	json_decref(j);
}

/* A failure of a public call: its detail, else "what: reason". */
static int fail_with(int rc, const char *what)
{
	if (!pmcf_errdetail()[0])
		pmcfi_fail(rc, "%s: %s", what, pmcf_strerror(rc));
	return rc;
}

static int load(const char *path, const pmcf_imix_opts *o, unsigned flags, pmcf_imix_input *in)
{
	char p[4200];
	const char *file;
	int rc = sniff(path, flags, p, sizeof(p), &file, &in->kind);
	if (rc)
		return rc;
	if (in->kind == PMCF_IMIX_INPUT_CSV)
		return pmcf_imix_csv_read(file, &in->rows, &in->nrows);
	if (in->kind == PMCF_IMIX_INPUT_PERF) {
		pmcf_perfdata *pd = NULL;
		rc = pmcf_perfdata_open(file, &pd);
		if (rc)
			return fail_with(rc, file);
		rc = pmcf_imix_from_perfdata(pd, o, &in->mix);
		pmcf_perfdata_free(pd);
		if (!rc)
			read_tunables(path, in->mix);
	} else {
		warn_old_reference(path);
		rc = pmcf_imix_from_callgrind(file, o, &in->mix);
	}
	if (rc)
		return fail_with(rc, file);
	rc = pmcf_imix_pivot(in->mix, PMCF_IMIX_BY_MNEMONIC, &in->rows, &in->nrows);
	return rc ? fail_with(rc, "pivot") : 0;
}

int pmcf_imix_load(const char *path, const pmcf_imix_opts *opts, unsigned flags, pmcf_imix_input **out)
{
	pmcfi_clear_error();
	*out = NULL;
	pmcf_imix_opts o = {0};
	int rc = pmcfi_struct_in("pmcf_imix_opts", &o, opts, offsetof(pmcf_imix_opts, llvm_mca), sizeof(o));
	if (rc)
		return rc;
	if (flags & ~(unsigned)PMCF_IMIX_LOAD_CSV)
		return pmcfi_fail(PMCF_EINVAL, "pmcf_imix_load: unknown flags 0x%x", flags);
	pmcf_imix_input *in = calloc(1, sizeof(*in));
	if (!in)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	rc = load(path, &o, flags, in);
	if (rc) {
		pmcf_imix_input_free(in);
		return rc;
	}
	*out = in;
	return 0;
}

void pmcf_imix_input_free(pmcf_imix_input *in)
{
	if (!in)
		return;
	pmcf_imix_rows_free(in->rows, in->nrows);
	pmcf_imix_free(in->mix);
	free(in);
}

int pmcf_imix_input_kind(const pmcf_imix_input *in) { return in->kind; }

const pmcf_imix *pmcf_imix_input_mix(const pmcf_imix_input *in) { return in->mix; }

const pmcf_imix_row *pmcf_imix_input_rows(const pmcf_imix_input *in, size_t *n)
{
	*n = in->nrows;
	return in->rows;
}
