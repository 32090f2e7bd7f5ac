/* `pmcfuse imix report`: a mix as a pivot table (text, CSV, JSON or SDE). */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli/cli.h"
#include "pmcfuse/hbbp.h"
#include "x/x.h"
#include "cli/verbs/imix.h"

static const char verb[] = "imix";

/* ---- report -------------------------------------------------------------------- */

/* The recording's GLIBC_TUNABLES (imix record --valgrind-hwcaps sets them). */
static void print_glibc(FILE *f, const pmcf_imix_stats *st)
{
	if (st->glibc_tunables[0])
		fprintf(f, "# recorded with GLIBC_TUNABLES=%s%s\n", st->glibc_tunables,
			strstr(st->glibc_tunables, "-AVX512F")
				? " (glibc's string routines as under valgrind)"
				: "");
}

static void print_text(FILE *f, const struct cli_imix_src *s, const char *by, const pmcf_imix_opts *o,
		       size_t top)
{
	const pmcf_imix_stats *st = pmcf_imix_stats_get(s->mix);
	fprintf(f, "# instruction mix by %s: %s, %.6g instructions%s\n", by,
		!strcmp(s->kind, "callgrind") ? "reference (callgrind)" : cli_imix_method_name(o->method),
		st->total, st->relative ? " (relative scale: EBS on a non-instruction event)" : "");
	cli_imix_print_correction(f, st, o);
	print_glibc(f, st);
	if (st->ebs_samples || st->lbr_samples)
		fprintf(f, "# samples: %llu EBS, %llu LBR (%llu streams, %llu discarded)\n",
			(unsigned long long)st->ebs_samples, (unsigned long long)st->lbr_samples,
			(unsigned long long)st->lbr_streams, (unsigned long long)st->lbr_streams_discarded);
	if (st->ebs_weight > 0 && (st->unattr_kernel_samples || st->unattr_user_samples))
		fprintf(f, "# unattributed EBS samples: kernel %llu (%.2f%%), user %llu (%.2f%%)\n",
			(unsigned long long)st->unattr_kernel_samples,
			100 * st->unattr_kernel / st->ebs_weight, (unsigned long long)st->unattr_user_samples,
			100 * st->unattr_user / st->ebs_weight);
	fprintf(f, "%-5s %-40s %16s %8s\n", "rank", by, "count", "share");
	for (size_t i = 0; i < s->nrows && i < top; i++)
		fprintf(f, "%-5zu %-40s %16.0f %7.2f%%\n", i + 1, s->rows[i].key, s->rows[i].count,
			100 * s->rows[i].share);
}

static void print_sde(FILE *f, const struct cli_imix_src *s)
{
	const pmcf_imix_stats *st = pmcf_imix_stats_get(s->mix);
	fprintf(f, "# EMIT_GLOBAL_DYNAMIC_STATS\n#\n# $global-dynamic-counts\n#\n");
	fprintf(f, "# %-24s %18s\n#\n", "opcode", "count");
	pmcf_imix_row *rows = NULL;
	size_t n = 0;
	if (pmcf_imix_pivot(s->mix, PMCF_IMIX_BY_ISA, &rows, &n) == 0) {
		for (size_t i = 0; i < n; i++)
			fprintf(f, "*isa-ext-%-17s %18.0f\n", rows[i].key, rows[i].count);
		pmcf_imix_rows_free(rows, n);
	}
	if (pmcf_imix_pivot(s->mix, PMCF_IMIX_BY_CATEGORY, &rows, &n) == 0) {
		for (size_t i = 0; i < n; i++)
			fprintf(f, "*category-%-16s %18.0f\n", rows[i].key, rows[i].count);
		pmcf_imix_rows_free(rows, n);
	}
	for (size_t i = 0; i < s->nrows; i++)
		fprintf(f, "%-26s %18.0f\n", s->rows[i].key, s->rows[i].count);
	fprintf(f, "*total %38.0f\n# END_GLOBAL_DYNAMIC_STATS\n", st->total);
}

int cli_imix_report(int argc, char **argv)
{
	static const struct option lo[] =
		{{"by", required_argument, NULL, 'b'},     {"format", required_argument, NULL, 'f'},
		 {"top", required_argument, NULL, 't'},    {"method", required_argument, NULL, 'm'},
		 {"cutoff", required_argument, NULL, 'c'}, {"mcpu", required_argument, NULL, 'M'},
		 {"skid", required_argument, NULL, 'S'},   {"costing", required_argument, NULL, 'C'},
		 {"rate", required_argument, NULL, 'R'},   {"vmlinux", required_argument, NULL, 'K'},
		 {"arms", required_argument, NULL, 'A'},   {"unmeasured", required_argument, NULL, 'U'},
		 {"output", required_argument, NULL, 'o'}, {NULL, 0, NULL, 0}};
	pmcf_imix_opts o = {.size = sizeof(o),
			    .skid = PMCF_IMIX_SKID_NONE}; /* docs/imix.md: no skid model by default */
	const char *by = "mnemonic", *fmt = "text", *out = "-";
	unsigned long top = 0;
	int opt, rc;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:", lo, NULL)) != -1) {
		switch (opt) {
		case 'b': by = optarg; break;
		case 'f': fmt = optarg; break;
		case 'o':
			if (cli_out_arg(verb, optarg, NULL))
				return CLI_EUSAGE;
			out = optarg;
			break;
		default:
			if ((rc = cli_imix_common_opt(opt, optarg, &o, &top)))
				return rc < 0 ? cli_imix_bad_option(argv[0], argv) : rc;
		}
	}
	int key = pmcf_imix_key_parse(by);
	if (key < 0)
		return cli_usage_error(verb,
				       "--by: unknown key '%s' (mnemonic, isa, isa-set, category, "
				       "packing, module, function, block, line, or two different ones "
				       "joined by a comma: function,mnemonic)",
				       by);
	if (strcmp(fmt, "text") && strcmp(fmt, "csv") && strcmp(fmt, "json") && strcmp(fmt, "sde"))
		return cli_usage_error(verb, "--format: expected text, csv, json or sde");
	if (optind + 1 != argc)
		return cli_usage_error(verb, "report: expected one DIR");
	o.lines = key == PMCF_IMIX_BY_LINE;
	struct cli_imix_src s;
	if ((rc = cli_imix_load(argv[optind], &o, 0, &s))) {
		cli_imix_src_free(&s);
		return rc;
	}
	if (key != PMCF_IMIX_BY_MNEMONIC) {
		if ((rc = pmcf_imix_pivot(s.mix, key, &s.pivot, &s.nrows))) {
			cli_imix_src_free(&s);
			return cli_lib_error(verb, rc, "pivot");
		}
		s.rows = s.pivot;
	}
	struct cli_out co;
	if ((rc = cli_out_open(verb, out, &co))) {
		cli_imix_src_free(&s);
		return rc;
	}
	size_t lim = top ? top : s.nrows;
	const pmcf_imix_stats *st = pmcf_imix_stats_get(s.mix);
	if (!strcmp(fmt, "text")) {
		print_text(co.f, &s, by, &o, lim);
	} else if (!strcmp(fmt, "sde")) {
		print_sde(co.f, &s);
	} else if (!strcmp(fmt, "csv")) {
		fprintf(co.f, "key,count,share\n");
		for (size_t i = 0; i < s.nrows && i < lim; i++) {
			const char *k = s.rows[i].key;
			if (strpbrk(k, ",\"\n")) {
				fputc('"', co.f);
				for (; *k; k++)
					fprintf(co.f, *k == '"' ? "\"\"" : "%c", *k);
				fputc('"', co.f);
			} else {
				fputs(k, co.f);
			}
			fprintf(co.f, ",%.17g,%.17g\n", s.rows[i].count, s.rows[i].share);
		}
	} else {
		json_t *j = json_object(), *rows = json_array();
		json_object_set_new(j, "by", json_string(by));
		json_object_set_new(j, "source", json_string(s.kind));
		json_object_set_new(j, "method",
				    json_string(!strcmp(s.kind, "callgrind")
							? "reference"
							: cli_imix_method_name(o.method)));
		json_object_set_new(j, "total", cli_imix_jnum(st->total));
		json_object_set_new(j, "relative", json_boolean(st->relative));
		json_object_set_new(j, "time_event", json_boolean(st->time_event));
		json_object_set_new(j, "correction", json_string(cli_imix_correction_name(st->correction)));
		if (st->correction != PMCF_IMIX_CORR_NONE)
			json_object_set_new(j, "cost_model", json_string(st->cost_model));
		if (st->correction == PMCF_IMIX_CORR_APPLIED) {
			json_object_set_new(j, "arms_flow", json_integer((json_int_t)st->arms_flow));
			json_object_set_new(j, "arms_prior", json_integer((json_int_t)st->arms_prior));
			json_object_set_new(j, "unmeasured_share", cli_imix_jnum(st->unmeasured_share));
			json_object_set_new(j, "unmeasured_loops", json_string(st->unmeasured_loops));
		}
		json_t *u = json_object();
		json_object_set_new(u, "kernel_samples", json_integer((json_int_t)st->unattr_kernel_samples));
		json_object_set_new(u, "user_samples", json_integer((json_int_t)st->unattr_user_samples));
		json_object_set_new(u, "kernel_share",
				    cli_imix_jnum(st->ebs_weight > 0 ? st->unattr_kernel / st->ebs_weight
								     : 0));
		json_object_set_new(u, "user_share",
				    cli_imix_jnum(st->ebs_weight > 0 ? st->unattr_user / st->ebs_weight : 0));
		json_object_set_new(j, "unattributed", u);
		json_object_set_new(j, "ebs_samples", json_integer((json_int_t)st->ebs_samples));
		json_object_set_new(j, "lbr_samples", json_integer((json_int_t)st->lbr_samples));
		for (size_t i = 0; i < s.nrows && i < lim; i++) {
			json_t *r = json_object();
			json_object_set_new(r, "key", cli_jstr(s.rows[i].key));
			json_object_set_new(r, "count", cli_imix_jnum(s.rows[i].count));
			json_object_set_new(r, "share", cli_imix_jnum(s.rows[i].share));
			json_array_append_new(rows, r);
		}
		json_object_set_new(j, "rows", rows);
		json_dumpf(j, co.f, JSON_INDENT(2));
		fputc('\n', co.f);
		json_decref(j);
	}
	cli_imix_src_free(&s);
	return cli_out_commit(verb, &co);
}
