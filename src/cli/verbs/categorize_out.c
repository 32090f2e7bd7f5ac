/* `pmcfuse categorize`: writing the report: CSV, JSON, and the gnuplot
 * script and plots of the branch slopes and cache transitions. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli/cli.h"
#include "pmcfuse/categorize.h"
#include "cli/verbs/categorize.h"

static const char verb[] = "categorize";

static void num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.6g", v);
}

void cli_categorize_write_csv(FILE *f, const pmcf_categorize_report *r)
{
	const double *bytes;
	size_t ns = pmcf_categorize_report_sizes(r, &bytes);
	const pmcf_categorize_levels *lv = pmcf_categorize_report_levels(r);
	fprintf(f, "event,category,confidence,branch_category,branch_confidence,cache_category,"
		   "cache_confidence,cache_signature");
	for (int k = 0; k < PMCF_CATEGORIZE_NKERNELS; k++)
		fprintf(f, ",slope_%c", 'a' + k);
	for (int k = 0; k < PMCF_CATEGORIZE_NKERNELS; k++)
		fprintf(f, ",r2_%c", 'a' + k);
	for (int c = 0; c < PMCF_CATEGORIZE_NCATS; c++)
		fprintf(f, ",score_%s", pmcf_categorize_branch_name(c));
	for (unsigned p = 0; ns && p <= lv->n; p++)
		fprintf(f, ",plateau_%u", p);
	for (size_t s = 0; s < ns; s++)
		fprintf(f, ",per_access_%.0f", bytes[s]);
	fputc('\n', f);
	for (size_t i = 0; i < pmcf_categorize_report_size(r); i++) {
		const pmcf_categorize_event *e = pmcf_categorize_report_at(r, i);
		fprintf(f, "%s,%s,%.4f,%s,%.4f,%s,%.4f,%s", e->name, e->category, e->confidence,
			pmcf_categorize_branch_name(e->branch.category), e->branch.confidence,
			e->cache.category, e->cache.confidence, e->cache.signature);
		for (int k = 0; k < PMCF_CATEGORIZE_NKERNELS; k++)
			fputc(',', f), num(f, e->fit[k].slope);
		for (int k = 0; k < PMCF_CATEGORIZE_NKERNELS; k++)
			fputc(',', f), num(f, e->fit[k].r2);
		for (int c = 0; c < PMCF_CATEGORIZE_NCATS; c++)
			fputc(',', f), num(f, e->branch.score[c]);
		for (unsigned p = 0; ns && p <= lv->n; p++)
			fputc(',', f), num(f, e->cache.plateau[p]);
		for (size_t s = 0; s < ns; s++)
			fputc(',', f), num(f, e->per_access[s]);
		fputc('\n', f);
	}
}

static void jnum(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.6g", v);
	else
		fputs("null", f);
}

void cli_categorize_write_json(FILE *f, const pmcf_categorize_report *r)
{
	const double *bytes, *iters;
	size_t ns = pmcf_categorize_report_sizes(r, &bytes);
	size_t np = pmcf_categorize_report_iterations(r, &iters);
	const pmcf_categorize_levels *lv = pmcf_categorize_report_levels(r);
	fprintf(f, "{\"backend\": ");
	cli_json_string(f, pmcf_categorize_report_backend(r));
	fprintf(f, ",\n \"levels\": [");
	for (unsigned l = 0; l < lv->n; l++) {
		fprintf(f, "%s{\"name\": ", l ? ", " : "");
		cli_json_string(f, lv->name[l]);
		fprintf(f, ", \"bytes\": %llu}", (unsigned long long)lv->bytes[l]);
	}
	fprintf(f, "],\n \"iterations\": [");
	for (size_t p = 0; p < np; p++)
		fprintf(f, "%s%.0f", p ? ", " : "", iters[p]);
	fprintf(f, "],\n \"sizes\": [");
	for (size_t s = 0; s < ns; s++)
		fprintf(f, "%s%.0f", s ? ", " : "", bytes[s]);
	fprintf(f, "],\n \"events\": [");
	for (size_t i = 0; i < pmcf_categorize_report_size(r); i++) {
		const pmcf_categorize_event *e = pmcf_categorize_report_at(r, i);
		fprintf(f, "%s\n  {\"event\": ", i ? "," : "");
		cli_json_string(f, e->name);
		fprintf(f, ", \"category\": ");
		cli_json_string(f, e->category);
		fprintf(f, ", \"confidence\": ");
		jnum(f, e->confidence);
		fprintf(f, ",\n   \"branch\": {\"category\": ");
		cli_json_string(f, pmcf_categorize_branch_name(e->branch.category));
		fprintf(f, ", \"confidence\": ");
		jnum(f, e->branch.confidence);
		fprintf(f, ", \"scores\": {");
		for (int c = 0; c < PMCF_CATEGORIZE_NCATS; c++) {
			fprintf(f, "%s\"%s\": ", c ? ", " : "", pmcf_categorize_branch_name(c));
			jnum(f, e->branch.score[c]);
		}
		fprintf(f, "}, \"kernels\": [");
		for (int k = 0; k < PMCF_CATEGORIZE_NKERNELS; k++) {
			fprintf(f, "%s{\"kernel\": \"%c\", \"slope\": ", k ? ", " : "", 'a' + k);
			jnum(f, e->fit[k].slope);
			fprintf(f, ", \"r2\": ");
			jnum(f, e->fit[k].r2);
			fprintf(f, "}");
		}
		fprintf(f, "]},\n   \"cache\": {\"category\": ");
		cli_json_string(f, e->cache.category);
		fprintf(f, ", \"confidence\": ");
		jnum(f, e->cache.confidence);
		fprintf(f, ", \"signature\": ");
		cli_json_string(f, e->cache.signature);
		fprintf(f, ", \"plateaus\": [");
		for (unsigned p = 0; ns && p <= lv->n; p++) {
			fprintf(f, "%s", p ? ", " : "");
			jnum(f, e->cache.plateau[p]);
		}
		fprintf(f, "], \"per_access\": [");
		for (size_t s = 0; s < ns; s++) {
			fprintf(f, "%s", s ? ", " : "");
			jnum(f, e->per_access[s]);
		}
		fprintf(f, "]}}");
	}
	fprintf(f, "\n ]\n}\n");
}

/* ---- plots (gnuplot, pngcairo) ------------------------------------------------ */

static int write_file_in(const char *dir, const char *name, FILE **f)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	*f = fopen(path, "w");
	if (!*f)
		return cli_error(verb, cli_status_for(-errno), "cannot write '%s': %s", path,
				 strerror(errno));
	return CLI_OK;
}

/* The first line of a gnuplot data file: the column of x (first), then one
 * column per event, named (columnhead). */
static void write_header(FILE *f, const char *first, const pmcf_categorize_report *r)
{
	fprintf(f, "%s", first);
	for (size_t i = 0; i < pmcf_categorize_report_size(r); i++)
		fprintf(f, " %s", pmcf_categorize_report_at(r, i)->name);
	fputc('\n', f);
}

/* Branch slopes per kernel for every event (like Fig. 10/Table 1), and the
 * per-access cache curves against buffer size (Fig. 12–13). */
int cli_categorize_plot(const char *dir, const pmcf_categorize_report *r)
{
	if (mkdir(dir, 0777) != 0 && errno != EEXIST)
		return cli_error(verb, cli_status_for(-errno), "cannot create '%s': %s", dir,
				 strerror(errno));
	const double *bytes;
	size_t ns = pmcf_categorize_report_sizes(r, &bytes);
	size_t n = pmcf_categorize_report_size(r);
	FILE *f;
	int st;
	if ((st = write_file_in(dir, "branch.dat", &f)))
		return st;
	write_header(f, "kernel", r);
	for (int k = 0; k < PMCF_CATEGORIZE_NKERNELS; k++) {
		fprintf(f, "%c", 'a' + k);
		for (size_t i = 0; i < n; i++) {
			double v = pmcf_categorize_report_at(r, i)->fit[k].slope;
			fprintf(f, " ");
			if (isfinite(v))
				fprintf(f, "%.6g", v);
			else
				fprintf(f, "NaN");
		}
		fputc('\n', f);
	}
	fclose(f);
	if ((st = write_file_in(dir, "cache.dat", &f)))
		return st;
	write_header(f, "bytes", r);
	for (size_t s = 0; s < ns; s++) {
		fprintf(f, "%.0f", bytes[s]);
		for (size_t i = 0; i < n; i++)
			fprintf(f, " %.6g", pmcf_categorize_report_at(r, i)->per_access[s]);
		fputc('\n', f);
	}
	fclose(f);
	if ((st = write_file_in(dir, "plots.gp", &f)))
		return st;
	fprintf(f,
		"# gnuplot script written by pmcfuse categorize\n"
		"set terminal pngcairo size 1000,600\nset key outside right\nset grid\n"
		"set output 'branch.png'\nset title 'Branch events: slope per kernel "
		"(events per iteration)'\nset xlabel 'kernel (Fig. 11)'\n"
		"set ylabel 'slope'\nset yrange [-0.2:3]\n"
		"plot for [i=2:%zu] 'branch.dat' using 0:i:xtic(1) with linespoints "
		"title columnhead(i)\n",
		n + 1);
	const pmcf_categorize_levels *lv = pmcf_categorize_report_levels(r);
	fprintf(f, "set output 'cache.png'\nset title 'Cache events: count per access against "
		   "buffer size'\nset xlabel 'buffer size (bytes)'\nset ylabel 'per access'\n"
		   "set logscale x 2\nset yrange [*:*]\n");
	for (unsigned l = 0; l < lv->n; l++)
		fprintf(f, "set arrow from %llu, graph 0 to %llu, graph 1 nohead dt 2\n",
			(unsigned long long)lv->bytes[l], (unsigned long long)lv->bytes[l]);
	fprintf(f,
		"plot for [i=2:%zu] 'cache.dat' using 1:i with linespoints title "
		"columnhead(i)\n",
		n + 1);
	fclose(f);
	pid_t pid = fork();
	if (pid < 0)
		return cli_error(verb, CLI_EENV, "cannot run gnuplot: %s", strerror(errno));
	if (pid == 0) {
		if (chdir(dir) != 0)
			_exit(126);
		execlp("gnuplot", "gnuplot", "plots.gp", (char *)NULL);
		_exit(127);
	}
	int ws;
	while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(ws) || WEXITSTATUS(ws) == 127)
		return cli_error(verb, CLI_EENV,
				 "gnuplot not found: install gnuplot-nox for --plot (data and "
				 "script are in %s)",
				 dir);
	if (WEXITSTATUS(ws) != 0)
		return cli_error(verb, CLI_EENV, "gnuplot failed on %s/plots.gp", dir);
	return CLI_OK;
}
