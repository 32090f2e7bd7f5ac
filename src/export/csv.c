/* CSV export: one row per XU with the columns of DESIGN.md, one column per
 * event in profile order; a missing value is an empty field. The row writer
 * is shared by the delimited formats (tsv.c). */
#include <stdlib.h>
#include <string.h>
#include "export/export_impl.h"
#include "x/textout.h"

/* RFC 4180: quoted when it holds a comma, a quote or a line break. */
static void csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* A header column: the separator, prefix (a plain name) and the field name
 * (NULL: none). */
static void col(FILE *f, const struct pmcfi_exp_delim *d, const char *prefix, const char *name)
{
	fputc(d->sep, f);
	fputs(prefix, f);
	if (name)
		d->field(f, name);
}

/* --provenance: the header columns and one XU's fields. */
static void prov_header(FILE *f, const struct pmcfi_exp_delim *d, const pmcf_profile *p)
{
	static const char *const base[] = {"base_source", "base_path", "base_xu", "base_label",
					   "match_distance"};
	for (size_t k = 0; k < sizeof(base) / sizeof(base[0]); k++)
		col(f, d, base[k], NULL);
	for (size_t e = 0; e < pmcf_profile_nevents(p); e++)
		for (int k = 0; k < 3; k++)
			col(f, d,
			    k == 0   ? "source:"
			    : k == 1 ? "source_path:"
				     : "source_xu:",
			    pmcf_profile_event_name(p, e));
}

/* A source's index, path and XU as fields ("" for none). */
static void prov_source(FILE *f, const struct pmcfi_exp_delim *d, const pmcf_profile *p, int32_t s, int64_t x)
{
	const char *path = NULL, *id;
	if (s < 0 || pmcf_profile_source_get(p, (uint32_t)s, &path, &id) != 0) {
		fputc(d->sep, f);
		fputc(d->sep, f);
		return;
	}
	fprintf(f, "%c%d%c", d->sep, (int)s, d->sep);
	d->field(f, path);
	fprintf(f, "%c%lld", d->sep, (long long)x);
}

static void prov_row(FILE *f, const struct pmcfi_exp_delim *d, const pmcf_profile *p, size_t i)
{
	int32_t s = -1;
	int64_t x = -1;
	const char *lab = "";
	pmcf_profile_base_label_get(p, i, &s, &x, &lab);
	prov_source(f, d, p, s, x);
	fputc(d->sep, f);
	d->field(f, s >= 0 ? lab : "");
	fputc(d->sep, f);
	double md = pmcf_profile_match_distance(p, i);
	if (!pmcf_is_missing(md))
		pmcfi_put_number(f, md);
	for (size_t e = 0; e < pmcf_profile_nevents(p); e++) {
		s = -1;
		pmcf_profile_provenance_get(p, i, e, &s, &x);
		prov_source(f, d, p, s, x);
	}
}

void pmcfi_exp_xu_read(const pmcf_profile *p, size_t i, pmcf_xu *xu, struct pmcfi_exp_labs *L)
{
	pmcf_profile_xu_fields_get(p, i, xu);
	xu->label = pmcf_profile_xu_label(p, i, 0, &L->b[0], &L->cap[0]);
	xu->parent_label = pmcf_profile_xu_label(p, i, 1, &L->b[1], &L->cap[1]);
	if (!xu->label || !xu->parent_label)
		pmcf_profile_xu_get(p, i, xu);
}

static void value(FILE *f, char sep, double v)
{
	fputc(sep, f);
	if (!pmcf_is_missing(v))
		pmcfi_put_number(f, v);
}

int pmcfi_exp_delimited(FILE *f, const pmcf_profile *p, const struct pmcfi_exp_delim *d, int truth, int prov)
{
	static const char *const fixed[] = {"xu",     "type", "type_name", "label", "parent_label",
					    "thread", "cpu",  "start_ns",  "end_ns"};
	struct pmcfi_exp_labs L = {{NULL, NULL}, {0, 0}};
	size_t ne = pmcf_profile_nevents(p), nt = truth ? pmcf_profile_ntruth(p) : 0;
	int ranks = pmcf_profile_has_ranks(p);
	fputs(fixed[0], f);
	for (size_t k = 1; k < sizeof(fixed) / sizeof(fixed[0]); k++)
		col(f, d, fixed[k], NULL);
	if (ranks)
		col(f, d, "rank", NULL);
	for (size_t e = 0; e < ne; e++)
		col(f, d, "", pmcf_profile_event_name(p, e));
	for (size_t t = 0; t < nt; t++)
		col(f, d, "truth:", pmcf_profile_truth_name(p, t));
	if (prov)
		prov_header(f, d, p);
	fputc('\n', f);
	for (size_t i = 0; i < pmcf_profile_nxus(p); i++) {
		pmcf_xu xu = PMCF_XU_INIT;
		pmcf_xu_type ty = PMCF_XU_TYPE_INIT;
		pmcfi_exp_xu_read(p, i, &xu, &L);
		pmcf_profile_type_get(p, xu.type, &ty);
		fprintf(f, "%zu%c%u%c", i, d->sep, xu.type, d->sep);
		d->field(f, ty.name);
		fputc(d->sep, f);
		d->field(f, xu.label);
		fputc(d->sep, f);
		d->field(f, xu.parent_label);
		fprintf(f, "%c%d%c%d%c%llu%c%llu", d->sep, xu.thread, d->sep, xu.cpu, d->sep,
			(unsigned long long)xu.start_ns, d->sep, (unsigned long long)xu.end_ns);
		if (ranks)
			fprintf(f, "%c%d", d->sep, (int)pmcf_profile_rank(p, i));
		for (size_t e = 0; e < ne; e++)
			value(f, d->sep, pmcf_profile_value(p, i, e));
		for (size_t t = 0; t < nt; t++)
			value(f, d->sep, pmcf_profile_truth_column_const(p, t)[i]);
		if (prov)
			prov_row(f, d, p, i);
		fputc('\n', f);
	}
	free(L.b[0]);
	free(L.b[1]);
	return 0;
}

static int write_csv(const pmcf_profile *p, const pmcf_export_opts *o, FILE *f)
{
	static const struct pmcfi_exp_delim csv = {',', csv_field};
	return pmcfi_exp_delimited(f, p, &csv, o->truth, o->provenance);
}

const struct pmcfi_exp_format pmcfi_exp_format_csv = {
	{sizeof(pmcf_export_info), "csv",
	 "CSV: one row per XU with the columns\n"
	 "  xu,type,type_name,label,parent_label,thread,cpu,start_ns,end_ns,<event>...\n"
	 "(plus rank, the MPI rank, after end_ns for a profile of an MPI program) and\n"
	 "one column per event in profile order (duration included), named exactly as the\n"
	 "event (quoted when it holds a comma or a quote); a missing value is an empty field.\n",
	 "CSV", PMCF_EXPORT_TRUTH | PMCF_EXPORT_PROVENANCE},
	write_csv,
	NULL,
	NULL,
};
