/* `pmcfuse export`: a profile as CSV (one row per XU, DESIGN.md's columns) or
 * JSON, written atomically to a file or to standard output. */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"

static const char usage[] =
	"usage: pmcfuse export --format csv|json [--truth] [-o FILE] PROFILE\n\n"
	"Writes every XU of PROFILE with its values.\n"
	"CSV: one row per XU with the columns\n"
	"  xu,type,type_name,label,parent_label,thread,cpu,start_ns,end_ns,<event>...\n"
	"one column per event in profile order (duration included); a missing value is an\n"
	"empty field. JSON: {\"meta\", \"types\", \"events\", \"xus\": [{..., \"values\": [...]}]}\n"
	"with null for a missing value and \"inf\" or \"-inf\" for an infinite one; a\n"
	"name that is not UTF-8 is {\"base64\": \"...\"} of its bytes.\n\n"
	"  --format F   csv or json (required)\n"
	"  --truth      add the ground truth of a simulated profile (truth:<event> columns)\n"
	"  -o FILE      write to FILE (atomically) instead of standard output\n";

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

static void export_csv(FILE *f, const pmcf_profile *p, int truth)
{
	size_t ne = pmcf_profile_nevents(p), nt = truth ? pmcf_profile_ntruth(p) : 0;
	fputs("xu,type,type_name,label,parent_label,thread,cpu,start_ns,end_ns", f);
	for (size_t e = 0; e < ne; e++) {
		fputc(',', f);
		csv_field(f, pmcf_profile_event_name(p, e));
	}
	for (size_t t = 0; t < nt; t++) {
		fputs(",truth:", f);
		csv_field(f, pmcf_profile_truth_name(p, t));
	}
	fputc('\n', f);
	for (size_t i = 0; i < pmcf_profile_nxus(p); i++) {
		pmcf_xu xu;
		pmcf_xu_type ty;
		pmcf_profile_xu_get(p, i, &xu);
		pmcf_profile_type_get(p, xu.type, &ty);
		fprintf(f, "%zu,%u,", i, xu.type);
		csv_field(f, ty.name);
		fputc(',', f);
		csv_field(f, xu.label);
		fputc(',', f);
		csv_field(f, xu.parent_label);
		fprintf(f, ",%d,%d,%llu,%llu", xu.thread, xu.cpu, (unsigned long long)xu.start_ns,
			(unsigned long long)xu.end_ns);
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
		fputc('\n', f);
	}
}

static void export_json(FILE *f, const pmcf_profile *p, int truth)
{
	size_t ne = pmcf_profile_nevents(p), nt = truth ? pmcf_profile_ntruth(p) : 0;
	fputs("{\"format\": \"pmcfuse-export\", \"version\": 1,\n \"meta\": {", f);
	for (size_t i = 0; i < pmcf_profile_meta_count(p); i++) {
		const char *k, *v;
		pmcf_profile_meta_at(p, i, &k, &v);
		fputs(i ? ", " : "", f);
		cli_json_string(f, k);
		fputs(": ", f);
		cli_json_string(f, v);
	}
	fputs("},\n \"types\": [", f);
	for (uint32_t t = 0; t < pmcf_profile_ntypes(p); t++) {
		pmcf_xu_type ty;
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
	fputs(" \"xus\": [", f);
	for (size_t i = 0; i < pmcf_profile_nxus(p); i++) {
		pmcf_xu xu;
		pmcf_profile_xu_get(p, i, &xu);
		fprintf(f, "%s\n  {\"xu\": %zu, \"type\": %u, \"label\": ", i ? "," : "", i, xu.type);
		cli_json_string(f, xu.label);
		fputs(", \"parent_label\": ", f);
		cli_json_string(f, xu.parent_label);
		fprintf(f, ", \"thread\": %d, \"cpu\": %d, \"start_ns\": %llu, \"end_ns\": %llu, \"values\": [",
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
		fputc('}', f);
	}
	fputs("\n ]\n}\n", f);
}

int cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {{"format", required_argument, NULL, 'f'},
					     {"truth", no_argument, NULL, 't'},
					     {"output", required_argument, NULL, 'o'},
					     {"help", no_argument, NULL, 'h'},
					     {NULL, 0, NULL, 0}};
	const char *format = NULL, *out = NULL;
	int truth = 0, opt;
	if (cli_wants_help(argc, argv, usage))
		return CLI_OK;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+o:", opts, NULL)) != -1) {
		switch (opt) {
		case 'f': format = optarg; break;
		case 't': truth = 1; break;
		case 'o': out = optarg; break;
		default:
			return cli_usage_error("export", "unknown option or missing value '%s'",
					       argv[optind - 1]);
		}
	}
	if (!format)
		return cli_usage_error("export", "--format csv|json is required");
	int csv = strcmp(format, "csv") == 0;
	if (!csv && strcmp(format, "json") != 0)
		return cli_usage_error("export", "unknown format '%s' (csv or json)", format);
	if (optind + 1 != argc)
		return cli_usage_error("export", optind == argc ? "missing PROFILE"
							       : "expected one PROFILE");
	if (cli_out_not_input("export", out, (const char *const *)argv + optind, 1))
		return CLI_EUSAGE;
	pmcf_profile *p;
	int st = cli_open_profile("export", argv[optind], &p);
	if (st)
		return st;
	if (truth && !pmcf_profile_ntruth(p)) {
		pmcf_profile_free(p);
		return cli_error("export", CLI_EUSAGE,
				 "--truth: '%s' has no ground truth (only simulated profiles do)",
				 argv[optind]);
	}
	struct cli_out o;
	st = cli_out_open("export", out, &o);
	if (st) {
		pmcf_profile_free(p);
		return st;
	}
	if (csv)
		export_csv(o.f, p, truth);
	else
		export_json(o.f, p, truth);
	pmcf_profile_free(p);
	return cli_out_commit("export", &o);
}
