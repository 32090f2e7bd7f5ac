/* `pmcfuse imix`: what its sub-commands share: JSON values, loading a mix
 * (folder, perf.data, callgrind file or CSV), the names of methods and the
 * correction header, and the options of report, compare and train. */
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

/* v as JSON by cli_json_number's rule: a number, null when missing (NaN),
 * "inf"/"-inf" when infinite (json_real refuses both: the member was lost);
 * unlike cli_jnum, whole numbers stay reals (1.0), as imix has printed them. */
json_t *cli_imix_jnum(double v)
{
	if (isnan(v))
		return json_null();
	if (isinf(v))
		return json_string(v > 0 ? "inf" : "-inf");
	return json_real(v);
}

/* An option getopt did not take (unknown, or its value missing): argv is the
 * subverb's. One line naming it. */
int cli_imix_bad_option(const char *sub, char **argv)
{
	return cli_usage_error(verb, "%s: unknown option or missing value '%s'", sub, argv[optind - 1]);
}

int cli_imix_load(const char *path, const pmcf_imix_opts *o, int allow_csv, struct cli_imix_src *s)
{
	memset(s, 0, sizeof(*s));
	int rc = pmcf_imix_load(path, o, allow_csv ? PMCF_IMIX_LOAD_CSV : 0, &s->in);
	if (rc)
		return cli_lib_error(verb, rc, path);
	int kind = pmcf_imix_input_kind(s->in);
	s->kind = kind == PMCF_IMIX_INPUT_CSV         ? "csv"
		  : kind == PMCF_IMIX_INPUT_CALLGRIND ? "callgrind"
						      : "perf";
	s->mix = pmcf_imix_input_mix(s->in);
	s->rows = pmcf_imix_input_rows(s->in, &s->nrows);
	return CLI_OK;
}

void cli_imix_src_free(struct cli_imix_src *s)
{
	if (s->pivot)
		pmcf_imix_rows_free(s->pivot, s->nrows);
	pmcf_imix_input_free(s->in);
	memset(s, 0, sizeof(*s));
}

const char *cli_imix_method_name(int m)
{
	return m == PMCF_IMIX_EBS       ? "ebs"
	       : m == PMCF_IMIX_LBR     ? "lbr"
	       : m == PMCF_IMIX_EBS_RAW ? "ebs-raw"
					: "hbbp";
}

const char *cli_imix_correction_name(int c)
{
	return c == PMCF_IMIX_CORR_APPLIED       ? "applied"
	       : c == PMCF_IMIX_CORR_UNAVAILABLE ? "unavailable"
						 : "none";
}

/* The header line on the time-to-count correction of timer samples; none
 * when the EBS event is not a time event. */
void cli_imix_print_correction(FILE *f, const pmcf_imix_stats *st, const pmcf_imix_opts *o)
{
	if (!st->time_event)
		return;
	if (st->correction == PMCF_IMIX_CORR_APPLIED)
		fprintf(f,
			"# time-to-count correction: samples / cycles per execution by %s; %llu "
			"blocks (%llu without a cost); skid: %s\n",
			st->cost_model, (unsigned long long)st->cost_blocks,
			(unsigned long long)st->cost_unknown,
			o->skid == PMCF_IMIX_SKID_NONE ? "none" : "previous instruction");
	if (st->correction == PMCF_IMIX_CORR_APPLIED && st->arms_prior)
		fprintf(f,
			"# two-way branches: %llu with their arms held to the branch's count; %llu of them "
			"with an arm no timer sample can show (too short), NOT measured: split 1/2 by "
			"prior (--arms samples: by the arms' own samples)\n",
			(unsigned long long)st->arms_flow, (unsigned long long)st->arms_prior);
	else if (st->correction == PMCF_IMIX_CORR_APPLIED && st->arms_flow)
		fprintf(f, "# two-way branches: %llu with their arms held to the branch's count\n",
			(unsigned long long)st->arms_flow);
	if (st->correction == PMCF_IMIX_CORR_APPLIED && strstr(st->cost_model, "no measured count") &&
	    o->unmeasured == PMCF_IMIX_UNMEASURED_SAMPLES)
		/* the errors measured in docs/imix.md (Programs we did not write) */
		fprintf(f,
			"# error to expect: %.0f %% of the samples are in code with no measured count, whose "
			"mix is the raw estimate (on 13 programs outside the tests, mostly unmeasured: "
			"14-131 %% off, median 48 %%; memory-stalled code 59-131 %%); where every hot loop "
			"was measured (issue 23's 4 programs) 0.04-11 %%\n",
			100 * st->unmeasured_share);
	if (st->correction == PMCF_IMIX_CORR_APPLIED && st->unmeasured_loops[0])
		fprintf(f,
			"# loops with no measured count (share of the samples, nested loops included): %s\n",
			st->unmeasured_loops);
	if (st->correction == PMCF_IMIX_CORR_UNAVAILABLE)
		fprintf(f,
			"# time-to-count correction NOT made: %s; this is the raw estimate (blocks "
			"weighted by time, long-latency code over-counted)\n",
			st->cost_model);
	else if (o->method == PMCF_IMIX_EBS_RAW)
		fprintf(f, "# time-to-count correction off (--method ebs-raw): blocks weighted by time\n");
}

#define KW(t) t, sizeof(t) / sizeof((t)[0])
static const struct cli_keyword methods[] = {{"hbbp", PMCF_IMIX_HBBP},
					     {"ebs", PMCF_IMIX_EBS},
					     {"ebs-raw", PMCF_IMIX_EBS_RAW},
					     {"lbr", PMCF_IMIX_LBR}};
static const struct cli_keyword skids[] = {{"prev", PMCF_IMIX_SKID_PREV}, {"none", PMCF_IMIX_SKID_NONE}};
static const struct cli_keyword costings[] = {{"regions", PMCF_IMIX_COST_REGIONS},
					      {"blocks", PMCF_IMIX_COST_BLOCKS},
					      {"regions-chase", PMCF_IMIX_COST_REGIONS_CHASE}};
static const struct cli_keyword rates[] = {{"iv", PMCF_IMIX_RATE_IV}, {"none", PMCF_IMIX_RATE_NONE}};
static const struct cli_keyword armss[] = {{"flow", PMCF_IMIX_ARMS_FLOW},
					   {"samples", PMCF_IMIX_ARMS_SAMPLES}};
static const struct cli_keyword unmeasureds[] = {{"samples", PMCF_IMIX_UNMEASURED_SAMPLES},
						 {"model", PMCF_IMIX_UNMEASURED_MODEL},
						 {"bound", PMCF_IMIX_UNMEASURED_BOUND}};

/* Options of report, compare and train; -1 for one that is none of them. */
int cli_imix_common_opt(int opt, const char *arg, pmcf_imix_opts *o, unsigned long *top)
{
	unsigned long v;
	int k, st;
	switch (opt) {
	case 'm':
		if (!(st = cli_keyword(verb, "--method", arg, KW(methods), &k)))
			o->method = k;
		return st;
	case 'M': o->mcpu = arg; return CLI_OK;
	case 'S':
		if (!(st = cli_keyword(verb, "--skid", arg, KW(skids), &k)))
			o->skid = k;
		return st;
	case 'C':
		if (!(st = cli_keyword(verb, "--costing", arg, KW(costings), &k)))
			o->costing = k;
		return st;
	case 'c':
		if (cli_parse_uint(verb, "--cutoff", arg, 1, 100000, &v))
			return CLI_EUSAGE;
		o->cutoff = (unsigned)v;
		return CLI_OK;
	case 'K': o->vmlinux = arg; return CLI_OK;
	case 't':
		if (!top) /* train lists no rows */
			return -1;
		return cli_parse_uint(verb, "--top", arg, 1, 1ul << 30, top) ? CLI_EUSAGE : CLI_OK;
	case 'R':
		if (!(st = cli_keyword(verb, "--rate", arg, KW(rates), &k)))
			o->rate = k;
		return st;
	case 'A':
		if (!(st = cli_keyword(verb, "--arms", arg, KW(armss), &k)))
			o->arms = k;
		return st;
	case 'U':
		if (!(st = cli_keyword(verb, "--unmeasured", arg, KW(unmeasureds), &k)))
			o->unmeasured = k;
		return st;
	default: return -1;
	}
}
