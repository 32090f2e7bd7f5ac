/* JSON export: {"format", "version", "meta", "types", "events", "xus"}
 * with typed metadata (jansson) and the XUs streamed, which may be millions
 * (docs/profile-format.md, "JSON output"; docs/schema/export.json). */
#include <jansson.h>
#include <stdlib.h>
#include "export/export_impl.h"
#include "util/internal.h"
#include "x/textout.h"

/* --provenance, JSON: the source table, and one XU's members. */
static void prov_json_sources(FILE *f, const pmcf_profile *p)
{
	fputs(" \"sources\": [", f);
	for (uint32_t s = 0; s < pmcf_profile_nsources(p); s++) {
		const char *path, *id;
		pmcf_profile_source_get(p, s, &path, &id);
		fprintf(f, "%s{\"index\": %u, \"path\": ", s ? ", " : "", s);
		pmcfi_json_string(f, path);
		fputs(", \"ident\": ", f);
		pmcfi_json_string(f, id);
		fputc('}', f);
	}
	fputs("],\n", f);
}

static void prov_json_xu(FILE *f, const pmcf_profile *p, size_t i)
{
	int32_t s = -1;
	int64_t x = -1;
	const char *lab = "";
	pmcf_profile_base_label_get(p, i, &s, &x, &lab);
	if (s >= 0) {
		fprintf(f, ", \"base\": {\"source\": %d, \"xu\": %lld, \"label\": ", (int)s, (long long)x);
		pmcfi_json_string(f, lab);
		fputc('}', f);
	} else {
		fputs(", \"base\": null", f);
	}
	fputs(", \"match_distance\": ", f);
	pmcfi_json_number(f, pmcf_profile_match_distance(p, i));
	fputs(", \"provenance\": [", f);
	for (size_t e = 0; e < pmcf_profile_nevents(p); e++) {
		s = -1;
		pmcf_profile_provenance_get(p, i, e, &s, &x);
		fputs(e ? ", " : "", f);
		if (s >= 0)
			fprintf(f, "{\"source\": %d, \"xu\": %lld}", (int)s, (long long)x);
		else
			fputs("null", f);
	}
	fputc(']', f);
}

/* 0, or PMCF_ENOMEM */
static int write_json(const pmcf_profile *p, const pmcf_export_opts *o, FILE *f)
{
	int truth = o->truth, prov = o->provenance;
	size_t ne = pmcf_profile_nevents(p), nt = truth ? pmcf_profile_ntruth(p) : 0;
	/* the header through jansson; the XUs, which may be millions, streamed
	 * below with the same escaping (pmcfi_json_string) and numbers */
	fputs("{\"format\": \"pmcfuse-export\", \"version\": 1,\n \"meta\": ", f);
	json_t *meta = pmcfi_meta_json(p);
	int bad = !meta || json_dumpf(meta, f, JSON_REAL_PRECISION(17)) != 0;
	json_decref(meta);
	if (bad)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory writing JSON");
	fputs(",\n \"types\": [", f);
	for (uint32_t t = 0; t < pmcf_profile_ntypes(p); t++) {
		pmcf_xu_type ty = PMCF_XU_TYPE_INIT;
		pmcf_profile_type_get(p, t, &ty);
		fprintf(f, "%s{\"id\": %u, \"kind\": \"%s\", \"name\": ", t ? ", " : "", t,
			pmcf_xu_kind_name(ty.kind));
		pmcfi_json_string(f, ty.name);
		fputs(", \"location\": ", f);
		pmcfi_json_string(f, ty.location);
		fputc('}', f);
	}
	fputs("],\n \"events\": [", f);
	for (size_t e = 0; e < ne; e++) {
		fputs(e ? ", " : "", f);
		pmcfi_json_string(f, pmcf_profile_event_name(p, e));
	}
	fputs("],\n", f);
	if (nt) {
		fputs(" \"truth_events\": [", f);
		for (size_t t = 0; t < nt; t++) {
			fputs(t ? ", " : "", f);
			pmcfi_json_string(f, pmcf_profile_truth_name(p, t));
		}
		fputs("],\n", f);
	}
	if (prov)
		prov_json_sources(f, p);
	fputs(" \"xus\": [", f);
	struct pmcfi_exp_labs L = {{NULL, NULL}, {0, 0}};
	for (size_t i = 0; i < pmcf_profile_nxus(p); i++) {
		pmcf_xu xu = PMCF_XU_INIT;
		pmcfi_exp_xu_read(p, i, &xu, &L);
		fprintf(f, "%s\n  {\"xu\": %zu, \"type\": %u, \"label\": ", i ? "," : "", i, xu.type);
		pmcfi_json_string(f, xu.label);
		fputs(", \"parent_label\": ", f);
		pmcfi_json_string(f, xu.parent_label);
		fprintf(f,
			", \"thread\": %d, \"cpu\": %d, \"start_ns\": %llu, \"end_ns\": %llu, \"values\": [",
			xu.thread, xu.cpu, (unsigned long long)xu.start_ns, (unsigned long long)xu.end_ns);
		for (size_t e = 0; e < ne; e++) {
			fputs(e ? ", " : "", f);
			pmcfi_json_number(f, pmcf_profile_value(p, i, e));
		}
		fputc(']', f);
		if (nt) {
			fputs(", \"truth\": [", f);
			for (size_t t = 0; t < nt; t++) {
				fputs(t ? ", " : "", f);
				pmcfi_json_number(f, pmcf_profile_truth_column_const(p, t)[i]);
			}
			fputc(']', f);
		}
		if (prov)
			prov_json_xu(f, p, i);
		if (pmcf_profile_has_ranks(p))
			fprintf(f, ", \"rank\": %d", (int)pmcf_profile_rank(p, i));
		fputc('}', f);
	}
	free(L.b[0]);
	free(L.b[1]);
	fputs("\n ]\n}\n", f);
	return 0;
}

const struct pmcfi_exp_format pmcfi_exp_format_json = {
	{sizeof(pmcf_export_info), "json",
	 "JSON: {\"meta\", \"types\", \"events\", \"xus\": [{..., \"values\": [...]}]} with typed\n"
	 "metadata (\"args\" an array, \"complete\" a boolean, numbers as numbers), each XU\n"
	 "with \"rank\" in a profile of an MPI program, null for a\n"
	 "missing value and \"inf\" or \"-inf\" for an infinite one; a name that is not UTF-8\n"
	 "is {\"base64\": \"...\"} of its bytes.\n",
	 "JSON", PMCF_EXPORT_TRUTH | PMCF_EXPORT_PROVENANCE},
	write_json,
	NULL,
	NULL,
};
