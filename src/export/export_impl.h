/* The export formats' descriptors and what the writers share. A new format
 * is one file defining `const struct pmcfi_exp_format pmcfi_exp_format_NAME` and one
 * row in PMCFI_EXPORT_FORMATS below (the table, in --format order). */
#ifndef PMCF_EXPORT_IMPL_H
#define PMCF_EXPORT_IMPL_H
#include <stdio.h>
#include "pmcfuse/export.h"

struct pmcfi_exp_format {
	pmcf_export_info info; /* name, help, kind, flags */
	/* streamed formats: writes p to f; 0 or an error (detail set) */
	int (*write)(const pmcf_profile *p, const pmcf_export_opts *o, FILE *f);
	/* PMCF_EXPORT_TO_PATH formats: writes p at path, whole or not at all */
	int (*write_path)(const pmcf_profile *p, const pmcf_export_opts *o, const char *path);
	/* NULL, or after a write: 1 and a one-line note in buf, else 0 */
	int (*note)(const pmcf_profile *p, const char *path, char *buf, size_t len);
};

/* The table: X(name) per format, in the order --format lists them. */
#define PMCFI_EXPORT_FORMATS(X) X(csv) X(tsv) X(json) X(sqlite) X(otf2)

#define PMCFI_EXPORT_DECLARE(name) extern const struct pmcfi_exp_format pmcfi_exp_format_##name;
PMCFI_EXPORT_FORMATS(PMCFI_EXPORT_DECLARE)
#undef PMCFI_EXPORT_DECLARE

/* Delimited text, one row per XU (csv.c): the separator and how one field
 * is written (quoted or escaped as the format says). */
struct pmcfi_exp_delim {
	char sep;
	void (*field)(FILE *f, const char *s);
};
/* The columns DESIGN.md gives CSV (xu,type,type_name,label,parent_label,
 * thread,cpu,start_ns,end_ns[,rank],<event>...[,truth:<event>...]
 * [provenance columns]) with d's separator and fields; truth and prov as
 * pmcf_export_opts. 0. */
int pmcfi_exp_delimited(FILE *f, const pmcf_profile *p, const struct pmcfi_exp_delim *d, int truth, int prov);

/* XU i with its labels streamed through two buffers: a profile whose labels
 * are a tree (recorded programs) never has the texts of all its labels made
 * at once (issue 33); out of memory there, pmcf_profile_xu_get. Free b[]. */
struct pmcfi_exp_labs {
	char *b[2];
	size_t cap[2];
};
void pmcfi_exp_xu_read(const pmcf_profile *p, size_t i, pmcf_xu *xu, struct pmcfi_exp_labs *L);
#endif
