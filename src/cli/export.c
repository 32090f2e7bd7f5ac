/* `pmcfuse export`: a profile as CSV (one row per XU, DESIGN.md's columns),
 * JSON, a copy with the SQL layer (sqlite) or an OTF2 trace (otf2), written
 * atomically to a file or to standard output. */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/export_otf2.h"

static const char usage[] =
	"usage: pmcfuse export --format csv|json [--truth] [--provenance] [-o FILE] PROFILE\n"
	"       pmcfuse export --format sqlite -o FILE PROFILE\n"
	"       pmcfuse export --format otf2 -o DIR PROFILE\n\n"
	"Writes every XU of PROFILE with its values.\n"
	"CSV: one row per XU with the columns\n"
	"  xu,type,type_name,label,parent_label,thread,cpu,start_ns,end_ns,<event>...\n"
	"(plus rank, the MPI rank, after end_ns for a profile of an MPI program) and\n"
	"one column per event in profile order (duration included), named exactly as the\n"
	"event (quoted when it holds a comma or a quote); a missing value is an empty field.\n"
	"JSON: {\"meta\", \"types\", \"events\", \"xus\": [{..., \"values\": [...]}]} with typed\n"
	"metadata (\"args\" an array, \"complete\" a boolean, numbers as numbers), each XU\n"
	"with \"rank\" in a profile of an MPI program, null for a\n"
	"missing value and \"inf\" or \"-inf\" for an infinite one; a name that is not UTF-8\n"
	"is {\"base64\": \"...\"} of its bytes.\n"
	"sqlite: a copy of the profile with the SQL views xu_values and xu_values_long\n"
	"(for profiles written without them; past 1987 events, SQLite's columns, only\n"
	"xu_values_long; docs/profile-format.md, \"SQL access\").\n"
	"otf2: an OTF2 trace archive DIR/traces.otf2 for Vampir and the Score-P tools: a\n"
	"location group per MPI rank, a location per thread, an enter/leave per XU with its\n"
	"type as the region, every event a metric (accumulated), written at the XUs that\n"
	"have a value for it.\n\n"
	"  --format F   csv, json, sqlite or otf2 (required)\n"
	"  --truth      add the ground truth of a simulated profile (truth:<event> columns)\n"
	"  --provenance for a fused profile, where each XU and value came from: CSV columns\n"
	"               base_source,base_path,base_xu,base_label (the execution that provided\n"
	"               the XU, its XU index and label there: join on them), match_distance,\n"
	"               and per event source:<event>,source_path:<event>,source_xu:<event>;\n"
	"               JSON: \"sources\" [{index, path, ident}] and per XU \"base\",\n"
	"               \"match_distance\", \"provenance\" [{source, xu} per event]\n"
	"  -o FILE      write to FILE (atomically) instead of standard output; sqlite and\n"
	"               otf2 need it (otf2: a folder that does not exist yet, or is empty)\n";

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

/* --provenance, CSV: the header columns and one XU's fields. */
static void prov_csv_header(FILE *f, const pmcf_profile *p)
{
	fputs(",base_source,base_path,base_xu,base_label,match_distance", f);
	for (size_t e = 0; e < pmcf_profile_nevents(p); e++)
		for (int k = 0; k < 3; k++) {
			fputs(k == 0 ? ",source:" : k == 1 ? ",source_path:" : ",source_xu:", f);
			csv_field(f, pmcf_profile_event_name(p, e));
		}
}

/* A source's index, path and XU as CSV fields ("" for none). */
static void prov_csv_source(FILE *f, const pmcf_profile *p, int32_t s, int64_t x)
{
	const char *path = NULL, *id;
	if (s < 0 || pmcf_profile_source_get(p, (uint32_t)s, &path, &id) != 0) {
		fputs(",,", f);
		return;
	}
	fprintf(f, ",%d,", (int)s);
	csv_field(f, path);
	fprintf(f, ",%lld", (long long)x);
}

static void prov_csv_row(FILE *f, const pmcf_profile *p, size_t i)
{
	int32_t s = -1;
	int64_t x = -1;
	const char *lab = "";
	pmcf_profile_base_label_get(p, i, &s, &x, &lab);
	prov_csv_source(f, p, s, x);
	fputc(',', f);
	csv_field(f, s >= 0 ? lab : "");
	fputc(',', f);
	double md = pmcf_profile_match_distance(p, i);
	if (!pmcf_is_missing(md))
		cli_put_number(f, md);
	for (size_t e = 0; e < pmcf_profile_nevents(p); e++) {
		s = -1;
		pmcf_profile_provenance_get(p, i, e, &s, &x);
		prov_csv_source(f, p, s, x);
	}
}

/* XU i with its labels streamed through two buffers: a profile whose
 * labels are a tree (recorded programs) never has the texts of all its
 * labels made at once (issue 33); out of memory there, pmcf_profile_xu_get. */
struct labs {
	char *b[2];
	size_t cap[2];
};

static void xu_read(const pmcf_profile *p, size_t i, pmcf_xu *xu, struct labs *L)
{
	pmcf_profile_xu_fields_get(p, i, xu);
	xu->label = pmcf_profile_xu_label(p, i, 0, &L->b[0], &L->cap[0]);
	xu->parent_label = pmcf_profile_xu_label(p, i, 1, &L->b[1], &L->cap[1]);
	if (!xu->label || !xu->parent_label)
		pmcf_profile_xu_get(p, i, xu);
}

static void export_csv(FILE *f, const pmcf_profile *p, int truth, int prov)
{
	struct labs L = {{NULL, NULL}, {0, 0}};
	size_t ne = pmcf_profile_nevents(p), nt = truth ? pmcf_profile_ntruth(p) : 0;
	fputs("xu,type,type_name,label,parent_label,thread,cpu,start_ns,end_ns", f);
	int ranks = pmcf_profile_has_ranks(p);
	if (ranks)
		fputs(",rank", f);
	for (size_t e = 0; e < ne; e++) {
		fputc(',', f);
		csv_field(f, pmcf_profile_event_name(p, e));
	}
	for (size_t t = 0; t < nt; t++) {
		fputs(",truth:", f);
		csv_field(f, pmcf_profile_truth_name(p, t));
	}
	if (prov)
		prov_csv_header(f, p);
	fputc('\n', f);
	for (size_t i = 0; i < pmcf_profile_nxus(p); i++) {
		pmcf_xu xu = PMCF_XU_INIT;
		pmcf_xu_type ty = PMCF_XU_TYPE_INIT;
		xu_read(p, i, &xu, &L);
		pmcf_profile_type_get(p, xu.type, &ty);
		fprintf(f, "%zu,%u,", i, xu.type);
		csv_field(f, ty.name);
		fputc(',', f);
		csv_field(f, xu.label);
		fputc(',', f);
		csv_field(f, xu.parent_label);
		fprintf(f, ",%d,%d,%llu,%llu", xu.thread, xu.cpu, (unsigned long long)xu.start_ns,
			(unsigned long long)xu.end_ns);
		if (ranks)
			fprintf(f, ",%d", (int)pmcf_profile_rank(p, i));
		for (size_t e = 0; e < ne; e++) {
			double v = pmcf_profile_value(p, i, e);
			fputc(',', f);
			if (!pmcf_is_missing(v))
				cli_put_number(f, v);
		}
		for (size_t t = 0; t < nt; t++) {
			double v = pmcf_profile_truth_column_const(p, t)[i];
			fputc(',', f);
			if (!pmcf_is_missing(v))
				cli_put_number(f, v);
		}
		if (prov)
			prov_csv_row(f, p, i);
		fputc('\n', f);
	}
	free(L.b[0]);
	free(L.b[1]);
}

/* --provenance, JSON: the source table, and one XU's members. */
static void prov_json_sources(FILE *f, const pmcf_profile *p)
{
	fputs(" \"sources\": [", f);
	for (uint32_t s = 0; s < pmcf_profile_nsources(p); s++) {
		const char *path, *id;
		pmcf_profile_source_get(p, s, &path, &id);
		fprintf(f, "%s{\"index\": %u, \"path\": ", s ? ", " : "", s);
		cli_json_string(f, path);
		fputs(", \"ident\": ", f);
		cli_json_string(f, id);
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
		cli_json_string(f, lab);
		fputc('}', f);
	} else {
		fputs(", \"base\": null", f);
	}
	fputs(", \"match_distance\": ", f);
	cli_json_number(f, pmcf_profile_match_distance(p, i));
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

/* 0, or -1 when out of memory */
static int export_json(FILE *f, const pmcf_profile *p, int truth, int prov)
{
	size_t ne = pmcf_profile_nevents(p), nt = truth ? pmcf_profile_ntruth(p) : 0;
	/* the header through jansson; the XUs, which may be millions, streamed
	 * below with the same escaping (cli_json_string) and numbers */
	fputs("{\"format\": \"pmcfuse-export\", \"version\": 1,\n \"meta\": ", f);
	json_t *meta = cli_meta_json(p);
	int bad = !meta || json_dumpf(meta, f, JSON_REAL_PRECISION(17)) != 0;
	json_decref(meta);
	if (bad)
		return -1;
	fputs(",\n \"types\": [", f);
	for (uint32_t t = 0; t < pmcf_profile_ntypes(p); t++) {
		pmcf_xu_type ty = PMCF_XU_TYPE_INIT;
		pmcf_profile_type_get(p, t, &ty);
		fprintf(f, "%s{\"id\": %u, \"kind\": \"%s\", \"name\": ", t ? ", " : "", t,
			pmcf_xu_kind_name(ty.kind));
		cli_json_string(f, ty.name);
		fputs(", \"location\": ", f);
		cli_json_string(f, ty.location);
		fputc('}', f);
	}
	fputs("],\n \"events\": [", f);
	for (size_t e = 0; e < ne; e++) {
		fputs(e ? ", " : "", f);
		cli_json_string(f, pmcf_profile_event_name(p, e));
	}
	fputs("],\n", f);
	if (nt) {
		fputs(" \"truth_events\": [", f);
		for (size_t t = 0; t < nt; t++) {
			fputs(t ? ", " : "", f);
			cli_json_string(f, pmcf_profile_truth_name(p, t));
		}
		fputs("],\n", f);
	}
	if (prov)
		prov_json_sources(f, p);
	fputs(" \"xus\": [", f);
	struct labs L = {{NULL, NULL}, {0, 0}};
	for (size_t i = 0; i < pmcf_profile_nxus(p); i++) {
		pmcf_xu xu = PMCF_XU_INIT;
		xu_read(p, i, &xu, &L);
		fprintf(f, "%s\n  {\"xu\": %zu, \"type\": %u, \"label\": ", i ? "," : "", i, xu.type);
		cli_json_string(f, xu.label);
		fputs(", \"parent_label\": ", f);
		cli_json_string(f, xu.parent_label);
		fprintf(f,
			", \"thread\": %d, \"cpu\": %d, \"start_ns\": %llu, \"end_ns\": %llu, \"values\": [",
			xu.thread, xu.cpu, (unsigned long long)xu.start_ns, (unsigned long long)xu.end_ns);
		for (size_t e = 0; e < ne; e++) {
			fputs(e ? ", " : "", f);
			cli_json_number(f, pmcf_profile_value(p, i, e));
		}
		fputc(']', f);
		if (nt) {
			fputs(", \"truth\": [", f);
			for (size_t t = 0; t < nt; t++) {
				fputs(t ? ", " : "", f);
				cli_json_number(f, pmcf_profile_truth_column_const(p, t)[i]);
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

int cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {{"format", required_argument, NULL, 'f'},
					     {"truth", no_argument, NULL, 't'},
					     {"provenance", no_argument, NULL, 'p'},
					     {"output", required_argument, NULL, 'o'},
					     {"help", no_argument, NULL, 'h'},
					     {NULL, 0, NULL, 0}};
	const char *format = NULL, *out = NULL;
	int truth = 0, prov = 0, opt;
	if (cli_wants_help(argc, argv, usage))
		return CLI_OK;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		switch (opt) {
		case 'f': format = optarg; break;
		case 't': truth = 1; break;
		case 'p': prov = 1; break;
		case 'o':
			if (cli_out_arg("export", optarg, NULL))
				return CLI_EUSAGE;
			out = optarg;
			break;
		default:
			return cli_usage_error("export", "unknown option or missing value '%s'",
					       argv[optind - 1]);
		}
	}
	if (!format)
		return cli_usage_error("export", "--format csv|json|sqlite|otf2 is required");
	int csv = strcmp(format, "csv") == 0, sql = strcmp(format, "sqlite") == 0;
	int otf2 = strcmp(format, "otf2") == 0;
	if (!csv && !sql && !otf2 && strcmp(format, "json") != 0)
		return cli_usage_error("export", "unknown format '%s' (csv, json, sqlite or otf2)", format);
	if ((sql || otf2) && (truth || prov))
		return cli_usage_error("export", "--%s: only with --format csv or json",
				       truth ? "truth" : "provenance");
	if ((sql || otf2) && (!out || strcmp(out, "-") == 0))
		return cli_usage_error("export", "--format %s needs -o %s", format, sql ? "FILE" : "DIR");
	if (optind + 1 != argc)
		return cli_usage_error("export", optind == argc ? "missing PROFILE" : "expected one PROFILE");
	if (cli_out_not_input("export", out, (const char *const *)argv + optind, 1) ||
	    (!otf2 && cli_out_replaceable("export", out,
					  sql   ? NULL
					  : csv ? "CSV"
						: "JSON")))
		return CLI_EUSAGE;
	pmcf_profile *p;
	int st = cli_open_profile("export", argv[optind], &p);
	if (st)
		return st;
	if (sql || otf2) {
		int err = sql ? pmcf_profile_save_sql(p, out) : 0;
		st = sql ? (err ? cli_lib_error("export", err, out) : CLI_OK) : export_otf2(p, out);
		if (sql && !st && pmcf_profile_nevents(p) > PMCF_SQL_MAX_EVENTS)
			fprintf(stderr,
				"pmcfuse: export: note: %zu events are more than SQLite's %d columns: "
				"'%s' has the view xu_values_long (xu, event, value), not xu_values\n",
				pmcf_profile_nevents(p), PMCF_SQL_MAX_EVENTS, out);
		pmcf_profile_free(p);
		return st;
	}
	if (truth && !pmcf_profile_ntruth(p)) {
		pmcf_profile_free(p);
		return cli_error("export", CLI_EUSAGE,
				 "--truth: '%s' has no ground truth (only simulated profiles do)",
				 argv[optind]);
	}
	if (prov && !pmcf_profile_has_provenance(p)) {
		pmcf_profile_free(p);
		return cli_error("export", CLI_EUSAGE,
				 "--provenance: '%s' has no provenance (only fused profiles do)",
				 argv[optind]);
	}
	struct cli_out o;
	st = cli_out_open("export", out, &o);
	if (st) {
		pmcf_profile_free(p);
		return st;
	}
	if (csv)
		export_csv(o.f, p, truth, prov);
	else if (export_json(o.f, p, truth, prov) != 0) {
		pmcf_profile_free(p);
		cli_out_abort(&o);
		return cli_error("export", CLI_EENV, "out of memory writing JSON");
	}
	pmcf_profile_free(p);
	return cli_out_commit("export", &o);
}
