/* `pmcfuse export`: a profile in one of the library's export formats
 * (pmcfuse/export.h: CSV, JSON, an SQLite copy, an OTF2 trace, ...),
 * written atomically to a file or folder, or to standard output. The verb
 * parses options, looks the format up and calls it; its usage text and
 * format lists come from the library's table. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "pmcfuse/export.h"

/* The names of the formats whose flags include all of want and none of
 * avoid, joined by sep (the last one by last when not NULL), into buf. */
static void format_names(unsigned want, unsigned avoid, const char *sep, const char *last, char *buf,
			 size_t len)
{
	pmcf_export_info fi = PMCF_EXPORT_INFO_INIT;
	size_t n = 0, off = 0;
	for (size_t i = 0; pmcf_export_format_info_get(i, &fi) == 0; i++)
		n += (fi.flags & want) == want && !(fi.flags & avoid);
	buf[0] = '\0';
	for (size_t i = 0, k = 0; off < len && pmcf_export_format_info_get(i, &fi) == 0; i++) {
		if ((fi.flags & want) != want || (fi.flags & avoid))
			continue;
		k++;
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
					k == 1           ? ""
					: k == n && last ? last
							 : sep,
					fi.name);
	}
}

/* The usage text, made from the table of formats (free it). */
static char *usage_text(void)
{
	char *text = NULL, buf[512];
	size_t len = 0;
	FILE *u = open_memstream(&text, &len);
	if (!u)
		return NULL;
	pmcf_export_info fi = PMCF_EXPORT_INFO_INIT;
	format_names(0, PMCF_EXPORT_TO_PATH, "|", NULL, buf, sizeof(buf));
	fprintf(u, "usage: pmcfuse export --format %s [--truth] [--provenance] [-o FILE] PROFILE\n", buf);
	for (size_t i = 0; pmcf_export_format_info_get(i, &fi) == 0; i++)
		if (fi.flags & PMCF_EXPORT_TO_PATH)
			fprintf(u, "       pmcfuse export --format %s -o %s PROFILE\n", fi.name,
				fi.flags & PMCF_EXPORT_FOLDER ? "DIR" : "FILE");
	fputs("\nWrites every XU of PROFILE with its values.\n", u);
	for (size_t i = 0; pmcf_export_format_info_get(i, &fi) == 0; i++)
		fputs(fi.help, u);
	format_names(0, 0, ", ", " or ", buf, sizeof(buf));
	fprintf(u, "\n  --format F   %s (required)\n", buf);
	format_names(PMCF_EXPORT_TRUTH, 0, ", ", " or ", buf, sizeof(buf));
	fprintf(u,
		"  --truth      add the ground truth of a simulated profile (truth:<event> columns;\n"
		"               %s)\n",
		buf);
	format_names(PMCF_EXPORT_PROVENANCE, 0, ", ", " or ", buf, sizeof(buf));
	fprintf(u,
		"  --provenance for a fused profile (%s), where each XU and value came\n"
		"               from: CSV columns base_source,base_path,base_xu,base_label (the\n"
		"               execution that provided the XU, its XU index and label there: join\n"
		"               on them), match_distance, and per event source:<event>,\n"
		"               source_path:<event>,source_xu:<event>; JSON: \"sources\" [{index,\n"
		"               path, ident}] and per XU \"base\", \"match_distance\", \"provenance\"\n"
		"               [{source, xu} per event]\n",
		buf);
	format_names(PMCF_EXPORT_TO_PATH, 0, ", ", " and ", buf, sizeof(buf));
	fprintf(u,
		"  -o FILE      write to FILE (atomically) instead of standard output;\n"
		"               %s need it",
		buf);
	format_names(PMCF_EXPORT_FOLDER, 0, ", ", " and ", buf, sizeof(buf));
	fprintf(u,
		" (%s: a folder that does not\n"
		"               exist yet, or is empty)\n",
		buf);
	fclose(u);
	return text;
}

/* An option the format does not take: its --option name, else NULL. */
static const char *unsupported(const pmcf_export_info *fi, int truth, int prov)
{
	if (truth && !(fi->flags & PMCF_EXPORT_TRUTH))
		return "truth";
	if (prov && !(fi->flags & PMCF_EXPORT_PROVENANCE))
		return "provenance";
	return NULL;
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
	char *usage = usage_text();
	int help = cli_wants_help(argc, argv, usage ? usage : "usage: pmcfuse export --format F PROFILE\n");
	free(usage);
	if (help)
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
	char names[512];
	if (!format) {
		format_names(0, 0, "|", NULL, names, sizeof(names));
		return cli_usage_error("export", "--format %s is required", names);
	}
	pmcf_export_info fi = PMCF_EXPORT_INFO_INIT;
	int k = pmcf_export_format_find(format);
	if (k < 0 || pmcf_export_format_info_get((size_t)k, &fi) != 0)
		return cli_usage_error("export", "%s", pmcf_errdetail());
	const char *no = unsupported(&fi, truth, prov);
	if (no) {
		format_names(*no == 't' ? PMCF_EXPORT_TRUTH : PMCF_EXPORT_PROVENANCE, 0, ", ", " or ", names,
			     sizeof(names));
		return cli_usage_error("export", "--%s: only with --format %s", no, names);
	}
	int to_path = (fi.flags & PMCF_EXPORT_TO_PATH) != 0;
	if (to_path && (!out || strcmp(out, "-") == 0))
		return cli_usage_error("export", "--format %s needs -o %s", format,
				       fi.flags & PMCF_EXPORT_FOLDER ? "DIR" : "FILE");
	if (optind + 1 != argc)
		return cli_usage_error("export", optind == argc ? "missing PROFILE" : "expected one PROFILE");
	if (cli_out_not_input("export", out, (const char *const *)argv + optind, 1) ||
	    (!(fi.flags & PMCF_EXPORT_FOLDER) && cli_out_replaceable("export", out, fi.kind)))
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
	if (prov && !pmcf_profile_has_provenance(p)) {
		pmcf_profile_free(p);
		return cli_error("export", CLI_EUSAGE,
				 "--provenance: '%s' has no provenance (only fused profiles do)",
				 argv[optind]);
	}
	pmcf_export_opts eo = PMCF_EXPORT_OPTS_INIT;
	eo.truth = truth;
	eo.provenance = prov;
	if (to_path) {
		int err = pmcf_export_path(p, format, &eo, out);
		char note[1024];
		st = err ? cli_lib_error("export", err, out) : CLI_OK;
		if (!err && pmcf_export_note(p, format, out, note, sizeof(note)))
			fprintf(stderr, "pmcfuse: export: note: %s\n", note);
		pmcf_profile_free(p);
		return st;
	}
	struct cli_out o;
	st = cli_out_open("export", out, &o);
	if (st) {
		pmcf_profile_free(p);
		return st;
	}
	int err = pmcf_export(p, format, &eo, o.f);
	pmcf_profile_free(p);
	if (err) {
		cli_out_abort(&o);
		return cli_lib_error("export", err, format);
	}
	return cli_out_commit("export", &o);
}
