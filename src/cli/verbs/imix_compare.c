/* `pmcfuse imix compare` (the per-mnemonic errors of §VI) and `imix train`
 * (the block-length cut-off learnt from reference data). */
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

/* Functions with instructions (at least 0.1 % of a side) on one side
 * only: the reference and the measurement ran different code (issue 36,
 * item 6: glibc's string routines differ under valgrind). */
struct one_sided {
	size_t n;
	double ref_share, meas_share;
	char top[256];
};

static double share_of(const pmcf_imix_row *r, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(r[i].key, key))
			return r[i].share;
	return 0;
}

static int one_sided(const pmcf_imix *ref, const pmcf_imix *meas, struct one_sided *os)
{
	pmcf_imix_row *a = NULL, *b = NULL;
	size_t na = 0, nb = 0;
	int rc = pmcf_imix_pivot(ref, PMCF_IMIX_BY_FUNCTION, &a, &na);
	if (!rc)
		rc = pmcf_imix_pivot(meas, PMCF_IMIX_BY_FUNCTION, &b, &nb);
	double top = 0;
	for (int side = 0; !rc && side < 2; side++) {
		const pmcf_imix_row *x = side ? b : a, *y = side ? a : b;
		size_t nx = side ? nb : na, ny = side ? na : nb;
		for (size_t i = 0; i < nx; i++) {
			if (x[i].share < 0.001 || share_of(y, ny, x[i].key) > 0)
				continue;
			os->n++;
			*(side ? &os->meas_share : &os->ref_share) += x[i].share;
			if (x[i].share > top)
				top = x[i].share,
				snprintf(os->top, sizeof(os->top), "%s, %.1f %% of the %s", x[i].key,
					 100 * x[i].share, side ? "measurement" : "reference");
		}
	}
	pmcf_imix_rows_free(a, na);
	pmcf_imix_rows_free(b, nb);
	return rc;
}

int cli_imix_compare(int argc, char **argv)
{
	static const struct option lo[] = {{"normalize", no_argument, NULL, 'n'},
					   {"json", no_argument, NULL, 'j'},
					   {"top", required_argument, NULL, 't'},
					   {"method", required_argument, NULL, 'm'},
					   {"cutoff", required_argument, NULL, 'c'},
					   {"mcpu", required_argument, NULL, 'M'},
					   {"skid", required_argument, NULL, 'S'},
					   {"costing", required_argument, NULL, 'C'},
					   {"vmlinux", required_argument, NULL, 'K'},
					   {"rate", required_argument, NULL, 'R'},
					   {"arms", required_argument, NULL, 'A'},
					   {"unmeasured", required_argument, NULL, 'U'},
					   {NULL, 0, NULL, 0}};
	pmcf_imix_opts o = {.size = sizeof(o),
			    .skid = PMCF_IMIX_SKID_NONE}; /* docs/imix.md: no skid model by default */
	int normalize = 0, json = 0, opt, rc;
	unsigned long top = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (opt) {
		case 'n': normalize = 1; break;
		case 'j': json = 1; break;
		default:
			if ((rc = cli_imix_common_opt(opt, optarg, &o, &top)))
				return rc < 0 ? cli_imix_bad_option(argv[0], argv) : rc;
		}
	}
	if (optind + 2 != argc)
		return cli_usage_error(verb, "compare: expected REFERENCE MEASURED");
	struct cli_imix_src ref, meas;
	if ((rc = cli_imix_load(argv[optind], &o, 1, &ref))) {
		cli_imix_src_free(&ref);
		return rc;
	}
	if ((rc = cli_imix_load(argv[optind + 1], &o, 1, &meas))) {
		cli_imix_src_free(&ref);
		cli_imix_src_free(&meas);
		return rc;
	}
	/* a measurement without an absolute scale (timer samples) is compared
	 * by shares: without --normalize the error said nothing (issue 36) */
	int auto_norm = !normalize && meas.mix && pmcf_imix_stats_get(meas.mix)->relative;
	normalize |= auto_norm;
	struct one_sided os = {0};
	if (ref.mix && meas.mix && (rc = one_sided(ref.mix, meas.mix, &os))) {
		cli_imix_src_free(&ref);
		cli_imix_src_free(&meas);
		return cli_lib_error(verb, rc, "compare");
	}
	pmcf_imix_cmp *c = NULL;
	rc = pmcf_imix_compare(ref.rows, ref.nrows, meas.rows, meas.nrows, normalize, &c);
	if (rc) {
		cli_imix_src_free(&ref);
		cli_imix_src_free(&meas);
		return cli_lib_error(verb, rc, "compare");
	}
	int relative = meas.mix && pmcf_imix_stats_get(meas.mix)->relative;
	size_t lim = top ? top : c->n;
	if (json) {
		json_t *j = json_object(), *rows = json_array();
		json_object_set_new(j, "avg_weighted_error", cli_imix_jnum(c->avg_weighted_error));
		json_object_set_new(j, "normalized", json_boolean(normalize));
		json_object_set_new(j, "measured_relative", json_boolean(relative));
		if (meas.mix) {
			const pmcf_imix_stats *ms = pmcf_imix_stats_get(meas.mix);
			json_object_set_new(j, "measured_method",
					    json_string(cli_imix_method_name(o.method)));
			json_object_set_new(j, "correction",
					    json_string(cli_imix_correction_name(ms->correction)));
			if (ms->correction != PMCF_IMIX_CORR_NONE)
				json_object_set_new(j, "cost_model", json_string(ms->cost_model));
		}
		json_object_set_new(j, "ref_total", cli_imix_jnum(c->ref_total));
		json_object_set_new(j, "measured_total", cli_imix_jnum(c->measured_total));
		json_object_set_new(j, "scale", cli_imix_jnum(c->scale));
		json_object_set_new(j, "extra", cli_imix_jnum(c->extra));
		json_object_set_new(j, "one_sided_functions", json_integer((json_int_t)os.n));
		json_object_set_new(j, "one_sided_ref_share", cli_imix_jnum(os.ref_share));
		json_object_set_new(j, "one_sided_measured_share", cli_imix_jnum(os.meas_share));
		for (size_t i = 0; i < c->n && i < lim; i++) {
			json_t *r = json_object();
			json_object_set_new(r, "mnemonic", cli_jstr(c->rows[i].mnemonic));
			json_object_set_new(r, "ref", cli_imix_jnum(c->rows[i].ref));
			json_object_set_new(r, "measured", cli_imix_jnum(c->rows[i].measured));
			json_object_set_new(r, "error", cli_imix_jnum(c->rows[i].error));
			json_array_append_new(rows, r);
		}
		json_object_set_new(j, "mnemonics", rows);
		json_dumpf(j, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(j);
	} else {
		printf("# reference %s (%.6g instructions) vs measured %s (%.6g%s)", argv[optind],
		       c->ref_total, argv[optind + 1], c->measured_total, relative ? ", relative scale" : "");
		if (normalize)
			printf("; measured counts x %.6g (reference total / measured total, so that they sum to "
			       "the reference total: shares of it%s)",
			       c->scale,
			       auto_norm ? "; --normalize implied: the measurement has no absolute scale"
					 : "");
		printf("\n# error: |measured - reference| / reference; average weighted by the reference "
		       "count (sum of |measured - reference| over the reference total)\n");
		if (meas.mix && !strcmp(meas.kind, "perf"))
			cli_imix_print_correction(stdout, pmcf_imix_stats_get(meas.mix), &o);
		printf("%-24s %16s %16s %9s\n", "mnemonic", "reference", "measured", "error");
		for (size_t i = 0; i < c->n && i < lim; i++)
			printf("%-24s %16.0f %16.0f %8.2f%%\n", c->rows[i].mnemonic, c->rows[i].ref,
			       c->rows[i].measured, 100 * c->rows[i].error);
		if (c->extra > 0)
			printf("# measured only (not in the reference): %.0f instructions\n", c->extra);
		printf("average weighted error: %.2f%%\n", 100 * c->avg_weighted_error);
	}
	fflush(stdout);
	if (os.n)
		fprintf(stderr,
			"pmcfuse: imix: warning: %zu functions have instructions on one side only (%.1f %% of "
			"the reference, %.1f %% of the measurement; largest: %s): the two runs did not run the "
			"same code (glibc picks other string routines under valgrind: imix record "
			"--valgrind-hwcaps)\n",
			os.n, 100 * os.ref_share, 100 * os.meas_share, os.top);
	pmcf_imix_cmp_free(c);
	cli_imix_src_free(&ref);
	cli_imix_src_free(&meas);
	return CLI_OK;
}

/* ---- train --------------------------------------------------------------------- */

int cli_imix_train(int argc, char **argv)
{
	static const struct option lo[] = {{"json", no_argument, NULL, 'j'},
					   {"vmlinux", required_argument, NULL, 'K'},
					   {NULL, 0, NULL, 0}};
	pmcf_imix_opts o = {.size = sizeof(o),
			    .skid = PMCF_IMIX_SKID_NONE}; /* docs/imix.md: no skid model by default */
	int json = 0, opt, rc;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		if (opt == 'j')
			json = 1;
		else if ((rc = cli_imix_common_opt(opt, optarg, &o, NULL)))
			return rc < 0 ? cli_imix_bad_option(argv[0], argv) : rc;
	}
	if (optind + 2 > argc)
		return cli_usage_error(verb, "train: expected REFERENCE MEASURED...");
	struct cli_imix_src ref;
	if ((rc = cli_imix_load(argv[optind], &o, 0, &ref))) {
		cli_imix_src_free(&ref);
		return rc;
	}
	pmcf_imix_trainer *tr = NULL;
	pmcf_imix_stump sp = PMCF_IMIX_STUMP_INIT;
	size_t nex = 0;
	int lrc = pmcf_imix_trainer_new(ref.mix, &tr);
	rc = lrc ? cli_lib_error(verb, lrc, "train") : CLI_OK;
	for (int a = optind + 1; !rc && a < argc; a++) {
		struct cli_imix_src m;
		if ((rc = cli_imix_load(argv[a], &o, 0, &m))) {
			cli_imix_src_free(&m);
			break;
		}
		lrc = pmcf_imix_trainer_add(tr, m.mix);
		if (lrc == PMCF_EINVAL)
			rc = cli_error(verb, CLI_EUSAGE, "%s: %s", argv[a], pmcf_errdetail());
		else if (lrc)
			rc = cli_lib_error(verb, lrc, "train");
		cli_imix_src_free(&m);
	}
	if (!rc) {
		pmcf_imix_trainer_examples(tr, &nex);
		if ((lrc = pmcf_imix_trainer_fit(tr, &sp)))
			rc = cli_lib_error(verb, lrc, "train");
	}
	if (!rc) {
		if (json) {
			json_t *j = json_object();
			json_object_set_new(j, "feature", json_string(sp.feature ? "bias" : "length"));
			json_object_set_new(j, "cutoff", json_integer(sp.cutoff));
			json_object_set_new(j, "gini_before", cli_imix_jnum(sp.gini_before));
			json_object_set_new(j, "gini_after", cli_imix_jnum(sp.gini_after));
			json_object_set_new(j, "accuracy", cli_imix_jnum(sp.accuracy));
			json_object_set_new(j, "length_importance", cli_imix_jnum(sp.length_importance));
			json_object_set_new(j, "examples", json_integer((json_int_t)nex));
			json_dumpf(j, stdout, JSON_INDENT(2));
			putchar('\n');
			json_decref(j);
		} else {
			printf("examples: %zu blocks\n", nex);
			if (sp.feature == 0 && sp.cutoff == 0)
				printf("rule: EBS for every block\n");
			else if (sp.feature == 0)
				printf("rule: LBR for blocks of at most %u instructions, EBS above\n",
				       sp.cutoff);
			else
				printf("rule: LBR for blocks without the bias flag, EBS with it\n");
			printf("gini: %.4f -> %.4f, weighted accuracy %.2f%%, length importance %.2f\n",
			       sp.gini_before, sp.gini_after, 100 * sp.accuracy, sp.length_importance);
			if (sp.feature == 0 && sp.cutoff)
				printf("use: pmcfuse imix report --cutoff %u DIR\n", sp.cutoff);
			else if (sp.feature == 0)
				printf("use: pmcfuse imix report --method ebs DIR\n");
		}
	}
	pmcf_imix_trainer_free(tr);
	cli_imix_src_free(&ref);
	return rc;
}
