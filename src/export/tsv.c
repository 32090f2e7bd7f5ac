/* TSV export (text/tab-separated-values): the columns and rows of CSV with
 * a tab between fields, for tools that split lines on tabs (cut, awk -F'\t',
 * sort -t, spreadsheets' paste). A field never holds a tab or a line break:
 * tab, newline, carriage return and backslash are written \t, \n, \r and
 * \\ (the escapes of PostgreSQL's text COPY and of "linear TSV"). */
#include "export/export_impl.h"

static void tsv_field(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '\t': fputs("\\t", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\\': fputs("\\\\", f); break;
		default: fputc(*s, f);
		}
	}
}

static int write_tsv(const pmcf_profile *p, const pmcf_export_opts *o, FILE *f)
{
	static const struct pmcfi_exp_delim tsv = {'\t', tsv_field};
	return pmcfi_exp_delimited(f, p, &tsv, o->truth, o->provenance);
}

const struct pmcfi_exp_format pmcfi_exp_format_tsv = {
	{sizeof(pmcf_export_info), "tsv",
	 "TSV: the columns and rows of CSV separated by tabs; a tab, line break or\n"
	 "backslash in a name is written \\t, \\n, \\r or \\\\, never quoted.\n",
	 "TSV", PMCF_EXPORT_TRUTH | PMCF_EXPORT_PROVENANCE},
	write_tsv,
	NULL,
	NULL,
};
