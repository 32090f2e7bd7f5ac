/* The report (include/pmcfuse/report.h): one self-contained HTML page about
 * a profile — the page's assembly, metadata and per-type statistics. Plots are
 * interactive SVG (svg.c) and, for the TMD heat map and the coverage chart,
 * PNGs drawn by gnuplot in a temporary folder and embedded as data: URIs.
 * The sections live in pairs.c, views.c and eval.c, the page's helpers in
 * page.c; the command (option handling, printing) is src/cli/report.c. */
#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "pmcfuse/combine.h"
#include "pmcfuse/evaluate.h"
#include "report/report_impl.h"
#include "util/abi.h"
#include "util/internal.h"
#include "x/x.h"
#include "util/tmpdir.h"

/* ---- metadata and types ------------------------------------------------------------ */

/* The page opens on a few numbers: XUs, types, events, ranks, complete or
 * not, the share of CPU time in XUs, how it was made; the full metadata
 * table is the last section. */
static void summary(struct pmcfi_report *r)
{
	FILE *h = r->html;
	const pmcf_profile *p = r->p;
	char b[32];
	fputs("<div class=\"summary\">", h);
	fprintf(h, "<div><b>%s</b>XUs</div>", pmcfi_report_count(r->nxus, b, sizeof(b)));
	fprintf(h, "<div><b>%zu</b>XU types</div><div><b>%zu</b>events</div>", r->ntypes, r->nev);
	uint32_t nr;
	size_t *rc = pmcf_profile_rank_counts(p, &nr);
	if (rc) {
		fprintf(h, "<div><b>%u</b>MPI ranks</div>", nr);
		free(rc);
	}
	const char *strategy = pmcf_profile_meta_get(p, PMCF_META_STRATEGY);
	const char *inputs = pmcf_profile_meta_get(p, "inputs");
	if (strategy) {
		json_t *in = inputs ? json_loads(inputs, 0, NULL) : NULL; /* a JSON array of the inputs */
		fputs("<div><b>", h);
		pmcfi_report_esc(h, strategy);
		if (json_is_array(in))
			fprintf(h, "</b>fused from %zu executions</div>", json_array_size(in));
		else
			fputs("</b>fused</div>", h);
		json_decref(in);
	}
	double in_xus, run;
	const char *clk = pmcf_profile_cpu_in_xus(p, &in_xus, &run);
	if (clk)
		fprintf(h, "<div><b>%.0f %%</b>of the CPU time in XUs</div>", 100.0 * in_xus / run);
	fprintf(h, "<div><b>%s</b>run</div>", pmcf_profile_complete(p) ? "complete" : "INCOMPLETE");
	fputs("</div>\n", h);
}

static void section_meta(struct pmcfi_report *r)
{
	FILE *h = r->html;
	const pmcf_profile *p = r->p;
	fputs("<h2 id=\"meta\">Run</h2>\n<table class=\"kv\">\n", h);
	fprintf(h, "<tr><th>file</th><td>");
	pmcfi_report_esc(h, r->path);
	fprintf(h,
		"</td></tr>\n<tr><th>XUs</th><td>%zu</td></tr>\n<tr><th>XU types</th><td>%zu</td></tr>\n"
		"<tr><th>events</th><td>%zu</td></tr>\n",
		r->nxus, r->ntypes, r->nev);
	uint32_t nr;
	size_t *rc = pmcf_profile_rank_counts(p, &nr);
	if (rc) { /* an MPI program: XUs per rank (docs/collector.md) */
		fprintf(h, "<tr><th>MPI ranks</th><td>%u:", nr);
		for (uint32_t k = 0; k < nr; k++)
			fprintf(h, "%s rank %u %zu XU%s", k ? "," : "", k, rc[k], rc[k] == 1 ? "" : "s");
		fputs("</td></tr>\n", h);
		free(rc);
	}
	fprintf(h, "<tr><th>layers</th><td>%s%s%s%s</td></tr>\n", pmcf_profile_ntruth(p) ? "truth " : "",
		pmcf_profile_has_provenance(p) ? "provenance " : "",
		pmcf_profile_has_coverage(p) ? "coverage " : "",
		!pmcf_profile_ntruth(p) && !pmcf_profile_has_provenance(p) && !pmcf_profile_has_coverage(p)
			? "none"
			: "");
	double in_xus, run;
	const char *clk = pmcf_profile_cpu_in_xus(p, &in_xus, &run);
	if (clk) { /* why the XUs' sum is below perf stat's task-clock (docs/collector.md) */
		char a[32], b[32];
		pmcf_report_human(a, sizeof(a), in_xus, 1);
		pmcf_report_human(b, sizeof(b), run, 1);
		fprintf(h,
			"<tr><th>CPU time in XUs</th><td>%s: %s of %s, the CPU time of the run under the "
			"collector (%.1f %%); the rest ran outside every XU: serial code, the runtime "
			"between XUs, the collector</td></tr>\n",
			clk, a, b, 100.0 * in_xus / run);
	}
	for (size_t i = 0; i < pmcf_profile_meta_count(p); i++) {
		const char *k, *v;
		if (pmcf_profile_meta_at(p, i, &k, &v))
			continue;
		fputs("<tr><th>", h);
		pmcfi_report_esc(h, k);
		fputs("</th><td>", h);
		pmcfi_report_esc(h, v);
		fputs("</td></tr>\n", h);
	}
	if (r->nrefs) {
		fprintf(h, "<tr><th>references</th><td>%zu profiles</td></tr>\n", r->nrefs);
	}
	fputs("</table>\n", h);
	if (pmcf_profile_nsources(p)) {
		fputs("<details><summary>source profiles</summary><ol start=\"0\">\n", h);
		for (uint32_t s = 0; s < pmcf_profile_nsources(p); s++) {
			const char *path, *id;
			if (pmcf_profile_source_get(p, s, &path, &id))
				continue;
			fputs("<li>", h);
			pmcfi_report_esc(h, path);
			fputs("</li>\n", h);
		}
		fputs("</ol></details>\n", h);
	}
}

/* Derived metrics: name = num / den * scale, the first alternative whose
 * two events are present. */
static const struct derived {
	const char *name, *num, *den;
	double scale;
} derived_metrics[] = {
	{"IPC", "PAPI_TOT_INS", "PAPI_TOT_CYC", 1},
	{"IPC", "instructions", "cycles", 1},
	{"IPC", "instructions", "cpu-cycles", 1},
	{"L1D misses / 1000 ins.", "PAPI_L1_DCM", "PAPI_TOT_INS", 1000},
	{"L1D load miss rate", "PAPI_L1_LDM", "PAPI_LD_INS", 1},
	{"L1D load miss rate", "L1-dcache-load-misses", "L1-dcache-loads", 1},
	{"L2 miss rate", "PAPI_L2_TCM", "PAPI_L2_TCA", 1},
	{"L2 data read miss rate", "PAPI_L2_DCM", "PAPI_L2_DCA", 1},
	{"L2 store miss rate", "PAPI_L2_STM", "PAPI_L2_DCW", 1},
	{"L2 instruction miss rate", "PAPI_L2_ICM", "PAPI_L2_ICA", 1},
	{"L3 miss rate", "PAPI_L3_TCM", "PAPI_L3_TCA", 1},
	{"LLC load miss rate", "LLC-load-misses", "LLC-loads", 1},
	{"cache miss rate", "cache-misses", "cache-references", 1},
	{"branch misprediction rate", "PAPI_BR_MSP", "PAPI_BR_CN", 1},
	{"branch misprediction rate", "PAPI_BR_MSP", "PAPI_BR_INS", 1},
	{"branch misprediction rate", "branch-misses", "branch-instructions", 1},
	{"branch misprediction rate", "branch-misses", "branches", 1},
	{"stall cycle share", "PAPI_STL_ICY", "PAPI_TOT_CYC", 1},
};

/* Q1, median, Q3 of col over the XUs of type t (all types when t < 0);
 * scratch holds nxus doubles. Returns the number of values. */
static size_t type_quartiles(const struct pmcfi_report *r, const double *col, long t, double *scratch,
			     double q[3])
{
	size_t m = 0;
	for (size_t i = 0; i < r->nxus; i++)
		if ((t < 0 || r->type_of[i] == (uint32_t)t) && !pmcf_is_missing(col[i]))
			scratch[m++] = col[i];
	q[0] = pmcfi_quantile(scratch, m, 0.25);
	q[1] = pmcfi_quantile(scratch, m, 0.5);
	q[2] = pmcfi_quantile(scratch, m, 0.75);
	return m;
}

static void section_types(struct pmcfi_report *r, double *scratch, double *ratio)
{
	FILE *h = r->html;
	const pmcf_profile *p = r->p;
	size_t *count = calloc(r->ntypes ? r->ntypes : 1, sizeof(size_t));
	double *dur = calloc(r->ntypes ? r->ntypes : 1, sizeof(double));
	if (!count || !dur)
		goto out;
	/* each XU's own time (duration: a task's time excludes the tasks it
	 * waited for), not end - start, which counts nested XUs again in their
	 * parents; end - start only in a profile without duration */
	long dcol = pmcf_profile_event_find(p, "duration");
	const double *own = dcol >= 0 ? pmcf_profile_column_const(p, (size_t)dcol) : NULL;
	double total = 0;
	for (size_t i = 0; i < r->nxus; i++) {
		pmcf_xu x = PMCF_XU_INIT;
		if (pmcf_profile_xu_fields_get(p, i, &x))
			continue;
		count[x.type]++;
		double d = own ? own[i] : (double)(x.end_ns - x.start_ns);
		if (pmcf_is_missing(d))
			continue;
		dur[x.type] += d;
		total += d;
	}
	char b1[64], b2[64];
	fprintf(h,
		"<h2 id=\"types\">XU types</h2>\n<table class=\"num\">\n"
		"<tr><th>type</th><th>kind</th><th>location</th><th>XUs</th><th>%s</th>"
		"<th>share of %s</th></tr>\n",
		own ? "own time (ms): sum of duration" : "time (ms): sum of end &minus; start",
		own ? "own time" : "time");
	for (uint32_t t = 0; t < r->ntypes; t++) {
		pmcf_xu_type ty = PMCF_XU_TYPE_INIT;
		if (pmcf_profile_type_get(p, t, &ty))
			continue;
		fputs("<tr><td class=\"l\"><a href=\"#type", h);
		fprintf(h, "%u\">", t);
		pmcfi_report_esc(h, ty.name);
		fprintf(h, "</a></td><td class=\"l\">%s</td><td class=\"l\">", pmcf_xu_kind_name(ty.kind));
		pmcfi_report_esc(h, ty.location);
		fprintf(h, "</td><td>%zu</td><td>%s</td><td>%.1f%%</td></tr>\n", count[t],
			pmcfi_report_num(dur[t] / 1e6, b1, sizeof(b1)),
			total > 0 ? 100 * dur[t] / total : 0.0);
	}
	fputs("</table>\n<div class=\"cards\">\n", h);

	for (uint32_t t = 0; t < r->ntypes; t++) {
		pmcf_xu_type ty = PMCF_XU_TYPE_INIT;
		if (pmcf_profile_type_get(p, t, &ty) || !count[t])
			continue;
		fprintf(h, "<div class=\"card\"><h3 id=\"type%u\">", t);
		pmcfi_report_esc(h, ty.name);
		fprintf(h, " <small>(%s, %zu XU%s)</small></h3>\n", pmcf_xu_kind_name(ty.kind), count[t],
			count[t] == 1 ? "" : "s");
		fputs("<table class=\"num\">\n<tr><th>event</th><th>values</th><th>Q1</th><th>median</th>"
		      "<th>Q3</th></tr>\n",
		      h);
		for (size_t ev = 0; ev < r->nev; ev++) {
			double q[3];
			size_t m = type_quartiles(r, pmcf_profile_column_const(p, ev), t, scratch, q);
			fputs("<tr><td class=\"l\">", h);
			pmcfi_report_esc(h, pmcf_profile_event_name(p, ev));
			const char *unit = pmcfi_report_event_unit(pmcf_profile_event_name(p, ev));
			if (unit && strcmp(unit, "count") != 0)
				fprintf(h, " (%s)", unit); /* times; counts need no unit */
			fprintf(h, "</td><td>%zu</td>", m);
			for (int k = 0; k < 3; k++)
				fprintf(h, "<td>%s</td>", pmcfi_report_num(q[k], b1, sizeof(b1)));
			fputs("</tr>\n", h);
		}
		fputs("</table>\n", h);
		/* derived metrics */
		int any = 0;
		const char *done[sizeof(derived_metrics) / sizeof(derived_metrics[0])];
		size_t ndone = 0;
		for (size_t d = 0; d < sizeof(derived_metrics) / sizeof(derived_metrics[0]); d++) {
			const struct derived *dm = &derived_metrics[d];
			int seen = 0;
			for (size_t k = 0; k < ndone; k++)
				seen |= strcmp(done[k], dm->name) == 0;
			long a = pmcf_profile_event_find(p, dm->num), b = pmcf_profile_event_find(p, dm->den);
			if (seen || a < 0 || b < 0)
				continue;
			const double *ca = pmcf_profile_column_const(p, (size_t)a);
			const double *cb = pmcf_profile_column_const(p, (size_t)b);
			double sa = 0, sb = 0;
			for (size_t i = 0; i < r->nxus; i++) {
				ratio[i] = PMCF_MISSING;
				if (r->type_of[i] != t || pmcf_is_missing(ca[i]) || pmcf_is_missing(cb[i]))
					continue;
				sa += ca[i];
				sb += cb[i];
				if (cb[i] != 0)
					ratio[i] = ca[i] / cb[i] * dm->scale;
			}
			if (sb == 0)
				continue;
			done[ndone++] = dm->name;
			if (!any) {
				fputs("<table class=\"num\">\n<tr><th>derived metric</th><th>type</th><th>Q1</th>"
				      "<th>median</th><th>Q3</th></tr>\n",
				      h);
				any = 1;
			}
			double q[3];
			type_quartiles(r, ratio, t, scratch, q);
			fputs("<tr><td class=\"l\" title=\"", h);
			pmcfi_report_esc(h, dm->num);
			fputs(" / ", h);
			pmcfi_report_esc(h, dm->den);
			if (dm->scale != 1)
				fprintf(h, " &times; %g", dm->scale);
			fprintf(h, "\">%s</td><td>%s</td>", dm->name,
				pmcfi_report_num(sa / sb * dm->scale, b2, sizeof(b2)));
			for (int k = 0; k < 3; k++)
				fprintf(h, "<td>%s</td>", pmcfi_report_num(q[k], b1, sizeof(b1)));
			fputs("</tr>\n", h);
		}
		if (any)
			fputs("</table>\n", h);
		fputs("</div>\n", h);
	}
	fputs("</div>\n<p class=\"note\">Derived metrics: &ldquo;type&rdquo; is &Sigma;numerator / "
	      "&Sigma;denominator over the XUs of the type; the quartiles are those of the per-XU ratio; hover "
	      "over a metric for its definition.</p>\n",
	      h);
out:
	free(count);
	free(dur);
}

/* ---- running gnuplot, assembling the page --------------------------------------------------- */

static int run_gnuplot(struct pmcfi_report *r)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/plots.gp", r->tmpdir);
	FILE *f = fopen(path, "w");
	if (!f)
		return pmcfi_fail(-errno, "cannot write in '%s': %s", r->tmpdir, strerror(errno));
	fwrite(r->gp_buf, 1, r->gp_len, f);
	if (fclose(f))
		return pmcfi_fail(-errno, "cannot write in '%s': %s", r->tmpdir, strerror(errno));
	const char *bin = r->gnuplot;
	if (!bin || !*bin)
		bin = getenv("PMCF_GNUPLOT");
	if (!bin || !*bin)
		bin = "gnuplot";
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return pmcfi_fail(-errno, "cannot start gnuplot: %s", strerror(errno));
	if (pid == 0) {
		if (chdir(r->tmpdir) == 0 && freopen("gnuplot.log", "w", stderr) &&
		    freopen("/dev/null", "w", stdout)) {
			execlp(bin, bin, "plots.gp", (char *)NULL);
			fprintf(stderr, "@@EXEC %s\n", strerror(errno));
			fflush(stderr);
		}
		pmcfi_child_exit(127);
	}
	int ws;
	while (waitpid(pid, &ws, 0) < 0)
		if (errno != EINTR)
			return pmcfi_fail(-errno, "waiting for gnuplot: %s", strerror(errno));
	if (WIFEXITED(ws) && WEXITSTATUS(ws) == 0)
		return 0;
	/* the first line gnuplot (or exec) wrote */
	char line[512] = "";
	snprintf(path, sizeof(path), "%s/gnuplot.log", r->tmpdir);
	f = fopen(path, "r");
	if (f) {
		while (fgets(line, sizeof(line), f))
			if (strspn(line, " \t\n^") != strlen(line))
				break;
		fclose(f);
	}
	line[strcspn(line, "\n")] = 0;
	if (!strncmp(line, "@@EXEC ", 7))
		return pmcfi_fail(PMCF_ENOTSUP,
				  "cannot run %s: %s (install gnuplot, e.g. apt-get install gnuplot-nox)",
				  bin, line + 7);
	if (WIFSIGNALED(ws))
		return pmcfi_fail(PMCF_EPROGRAM, "gnuplot was killed by signal %d", WTERMSIG(ws));
	return pmcfi_fail(PMCF_EPROGRAM, "gnuplot failed (status %d): %s", WEXITSTATUS(ws),
			  line[0] ? line : "no message");
}

/* fwrite that keeps the reason of the first failure in *werr. */
static void put(FILE *f, const void *s, size_t n, int *werr)
{
	if (n && fwrite(s, 1, n, f) != n && !*werr)
		*werr = errno ? errno : EIO;
}

static int embed_file(const struct pmcfi_report *r, FILE *out, const char *name, int *werr)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", r->tmpdir, name);
	FILE *f = fopen(path, "rb");
	if (!f)
		return pmcfi_fail(-ENOENT, "gnuplot wrote no %s", name);
	put(out, "data:image/png;base64,", 22, werr);
	unsigned char in[3 * 1024];
	char enc[4 * 1024];
	size_t n;
	while ((n = fread(in, 1, sizeof(in), f)) > 0) {
		size_t o = 0;
		for (size_t i = 0; i < n; i += 3) {
			unsigned v = (unsigned)in[i] << 16 | (i + 1 < n ? (unsigned)in[i + 1] << 8 : 0) |
				     (i + 2 < n ? in[i + 2] : 0);
			enc[o++] = tab[v >> 18 & 63];
			enc[o++] = tab[v >> 12 & 63];
			enc[o++] = i + 1 < n ? tab[v >> 6 & 63] : '=';
			enc[o++] = i + 2 < n ? tab[v & 63] : '=';
		}
		put(out, enc, o, werr);
		if (*werr)
			break;
		if (n < sizeof(in))
			break;
	}
	fclose(f);
	return 0;
}

static const char css[] =
	"p.warn{background:#fff4e5;border-left:4px solid #e67700;padding:6px 10px}\n"
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:0 auto;"
	"max-width:1320px;padding:0 24px 48px;color:#1d1d1f}\n"
	"h1{font-size:24px;margin:24px 0 4px}h2{font-size:19px;margin-top:34px;border-bottom:1px solid #ddd;"
	"padding-bottom:4px}h3{font-size:15px;margin:22px 0 6px}h3 small{font-weight:normal;color:#666}\n"
	"table{border-collapse:collapse;margin:6px 0 10px}th,td{padding:3px 10px;border-bottom:1px solid #eee}\n"
	"th{background:#f6f6f8;text-align:left;font-weight:600}table.num td{text-align:right;"
	"font-variant-numeric:tabular-nums}table.num td.l{text-align:left}table.kv th{width:160px}\n"
	"table.kv td{word-break:break-all}\n"
	"figure{display:inline-block;margin:8px 16px 16px 0;vertical-align:top}figure img{display:inline-block;"
	"border:1px solid #eee;margin-right:6px}\nfigcaption{color:#444;max-width:1130px;margin-top:4px}\n"
	".note{color:#555;font-size:13px}nav a{margin-right:14px}\n"
	".cards{display:flex;flex-wrap:wrap;gap:8px 28px;align-items:flex-start}.card table{font-size:13px}\n"
	".card td,.card th{padding:2px 7px}\n"
	".grid{display:flex;flex-wrap:wrap;gap:0 4px}.grid figure{margin:4px 4px 8px 0}\n"
	".grid figure figcaption{max-width:540px}\n"
	".summary{display:flex;flex-wrap:wrap;gap:6px 28px;margin:8px 0 14px;font-size:15px}"
	".summary b{font-size:20px;display:block}\n";

/* The page's own check that every image decoded: sets data-images-ok on
 * <html> (tests/e2e/report.sh reads it from Chromium's DOM). */
static const char img_check[] =
	"<script>window.addEventListener('load',function(){var im=document.images,ok=0;"
	"for(var i=0;i<im.length;i++)if(im[i].complete&&im[i].naturalWidth>0)ok++;"
	"document.documentElement.setAttribute('data-images',im.length);"
	"document.documentElement.setAttribute('data-images-ok',ok);});</script>\n";

static int build(struct pmcfi_report *r, const struct pmcfi_report_pair *user, size_t nuser, unsigned nplots)
{
	const pmcf_profile *p = r->p;
	FILE *h = r->html;
	double *scratch = malloc((r->nxus ? r->nxus : 1) * sizeof(double));
	double *ratio = malloc((r->nxus ? r->nxus : 1) * sizeof(double));
	struct pmcfi_report_pair *pairs = calloc(nuser + nplots + 1, sizeof(*pairs));
	if (!scratch || !ratio || !pairs || (r->nxus && !r->type_of)) {
		free(scratch);
		free(ratio);
		free(pairs);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	}
	const char *prog = pmcf_profile_meta_get(p, PMCF_META_PROGRAM);
	const char *src = pmcf_profile_meta_get(p, PMCF_META_SOURCE);
	int truth = pmcf_profile_ntruth(p) || pmcf_profile_meta_get(p, PMCF_META_SIM_SPEC);
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>pmcfuse report: ",
	      h);
	pmcfi_report_esc(h, prog ? prog : r->path);
	fprintf(h, "</title>\n<style>\n%s%s</style>\n%s%s</head>\n<body>\n<h1>pmcfuse report: ", css,
		pmcfi_report_svg_css, img_check, pmcfi_report_svg_script);
	pmcfi_report_esc(h, prog ? prog : r->path);
	fputs("</h1>\n<p class=\"note\">", h);
	pmcfi_report_esc(h, src ? src : "unknown");
	fprintf(h, " profile, %zu XU%s, %zu event%s. Generated by pmcfuse %s.</p>\n", r->nxus,
		r->nxus == 1 ? "" : "s", r->nev, r->nev == 1 ? "" : "s", pmcf_version());
	if (!pmcf_profile_complete(p))
		fputs("<p class=\"warn\"><strong>Incomplete profile:</strong> the run did not finish (its "
		      "program was stopped or failed, or an input of this fusion was incomplete); the "
		      "XUs it recorded are shown, later ones are missing.</p>\n",
		      h);
	fputs("<noscript><p class=\"note\">The plots&rsquo; axis numbers, zoom and pan need JavaScript; hover "
	      "values work without it.</p></noscript>\n",
	      h);
	summary(r);
	fputs("<nav><a href=\"#types\">XU types</a><a href=\"#timeline\">timeline</a>"
	      "<a href=\"#distributions\">distributions</a><a href=\"#scatter\">event pairs</a>",
	      h);
	if (truth)
		fputs("<a href=\"#truth\">ground truth</a>", h);
	if (r->nrefs)
		fputs("<a href=\"#accuracy\">accuracy</a>", h);
	if (pmcf_profile_has_provenance(p) && pmcf_profile_nsources(p))
		fputs("<a href=\"#provenance\">provenance</a>", h);
	if (pmcf_profile_has_provenance(p))
		fputs("<a href=\"#match\">match distances</a>", h);
	if (pmcf_profile_has_coverage(p))
		fputs("<a href=\"#coverage\">coverage</a>", h);
	fputs("<a href=\"#meta\">run</a></nav>\n", h);
	section_types(r, scratch, ratio);
	pmcfi_report_section_timeline(r);
	pmcfi_report_section_distributions(r, scratch);
	size_t np = pmcfi_report_choose_pairs(r, user, nuser, nplots, pairs, nuser + nplots);
	pmcfi_report_section_scatter(r, pairs, np);
	if (truth)
		pmcfi_report_section_truth(r);
	if (r->nrefs)
		pmcfi_report_section_tmd(r);
	pmcfi_report_section_provenance(r);
	pmcfi_report_section_match(r);
	pmcfi_report_section_consistency(r);
	pmcfi_report_section_coverage(r);
	section_meta(r); /* the run's full metadata last: the summary above says what matters */
	fputs("</body>\n</html>\n", h);
	free(scratch);
	free(ratio);
	free(pairs);
	return 0;
}

/* ---- the public API ------------------------------------------------------------ */

/* The first published pmcf_report_opts ends after tmpdir. */
#define OPTS_ABI0 (offsetof(pmcf_report_opts, tmpdir) + sizeof(const char *))

static int compare_refs(struct pmcfi_report *r)
{
	pmcf_epd_opts eo = PMCF_EPD_OPTS_INIT;
	eo.bins = r->bins;
	r->epd_err = pmcf_epd_compute(r->p, r->refs, r->nrefs, &eo, &r->epd);
	if (r->epd_err == PMCF_ENOMEM) {
		const char *d = pmcf_errdetail();
		if (d && d[0])
			return r->epd_err;
		return pmcfi_fail(r->epd_err, "cannot compute the EPD: %s", pmcf_strerror(r->epd_err));
	}
	pmcf_correrr_result *ce = NULL;
	if (pmcf_correrr_compute(r->p, r->refs, r->nrefs, &ce) == 0)
		r->correrr = pmcf_correrr_value(ce);
	pmcf_correrr_result_free(ce);
	return 0;
}

int pmcf_report_new(const pmcf_profile *p, const pmcf_profile *const *refs, size_t nrefs,
		    const pmcf_report_opts *opts, pmcf_report **out)
{
	pmcfi_clear_error();
	if (!out)
		return pmcfi_fail(PMCF_EINVAL, "pmcf_report_new: out is NULL");
	*out = NULL;
	if (!p || (nrefs && !refs))
		return pmcfi_fail(PMCF_EINVAL, "pmcf_report_new: no profile or no references");
	pmcf_report_opts o = PMCF_REPORT_OPTS_INIT;
	int st = pmcfi_struct_in("pmcf_report_opts", &o, opts, OPTS_ABI0, sizeof(o));
	if (st)
		return st;
	const char *bad = o.plots > PMCF_REPORT_MAX_PLOTS                                          ? "plots"
			  : o.bins < 1 || o.bins > PMCF_REPORT_MAX_BINS                            ? "bins"
			  : o.points < PMCF_REPORT_MIN_POINTS || o.points > PMCF_REPORT_MAX_POINTS ? "points"
			  : o.npairs > PMCF_REPORT_MAX_PAIRS || (o.npairs && !o.pairs)             ? "npairs"
			  : o.colour_by < -1 || o.colour_by >= (long)pmcf_profile_nevents(p) ? "colour_by"
											     : NULL;
	if (bad)
		return pmcfi_fail(PMCF_EINVAL,
				  "pmcf_report_opts.%s out of range (the header's ranges; start from "
				  "PMCF_REPORT_OPTS_INIT)",
				  bad);
	size_t nev = pmcf_profile_nevents(p);
	for (size_t k = 0; k < 2 * o.npairs; k++)
		if (o.pairs[k] >= nev)
			return pmcfi_fail(PMCF_EINVAL, "pmcf_report_opts: pair event %zu of %zu events",
					  o.pairs[k], nev);
	pmcf_report *rep = calloc(1, sizeof(*rep));
	if (!rep)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	struct pmcfi_report *r = &rep->r;
	r->p = p;
	r->refs = refs;
	r->nrefs = nrefs;
	r->refnames = nrefs ? o.refnames : NULL;
	r->path = o.name ? o.name : "profile";
	r->gnuplot = o.gnuplot;
	r->tmpbase = o.tmpdir;
	r->bins = o.bins;
	r->scatter_max = o.points;
	r->colour_by = o.colour_by;
	r->correrr = NAN;
	r->nxus = pmcf_profile_nxus(p);
	r->nev = nev;
	r->ntypes = pmcf_profile_ntypes(p);
	struct pmcfi_report_pair user[PMCF_REPORT_MAX_PAIRS];
	for (size_t k = 0; k < o.npairs; k++)
		user[k] = (struct pmcfi_report_pair){o.pairs[2 * k], o.pairs[2 * k + 1], 0, NAN, NAN, NAN, 1};
	if (nrefs)
		st = compare_refs(r);
	if (st == 0) {
		r->type_of = malloc((r->nxus ? r->nxus : 1) * sizeof(uint32_t));
		for (size_t i = 0; r->type_of && i < r->nxus; i++) {
			pmcf_xu x = PMCF_XU_INIT;
			r->type_of[i] = pmcf_profile_xu_fields_get(p, i, &x) ? 0 : x.type;
		}
		r->html = open_memstream(&r->html_buf, &r->html_len);
		r->gp = open_memstream(&r->gp_buf, &r->gp_len);
		if (!r->html || !r->gp || !r->type_of)
			st = pmcfi_fail(PMCF_ENOMEM, "out of memory");
	}
	if (st == 0)
		st = pmcfi_tmpdir_new(r->tmpbase, "pmcfuse-report.", &r->tmpdir);
	if (st == 0)
		st = build(r, user, o.npairs, o.plots);
	if (r->html && fflush(r->html) && st == 0)
		st = pmcfi_fail(PMCF_ENOMEM, "out of memory");
	if (r->gp && fflush(r->gp) && st == 0)
		st = pmcfi_fail(PMCF_ENOMEM, "out of memory");
	if (st == 0 && r->nimg)
		st = run_gnuplot(r);
	if (st) {
		pmcf_report_free(rep);
		return st;
	}
	*out = rep;
	return 0;
}

int pmcf_report_write(const pmcf_report *rep, FILE *f)
{
	pmcfi_clear_error();
	if (!rep || !f)
		return pmcfi_fail(PMCF_EINVAL, "pmcf_report_write: no report or no stream");
	const struct pmcfi_report *r = &rep->r;
	const char *s = r->html_buf, *end = r->html_buf + r->html_len;
	int werr = 0;
	errno = 0;
	while (s < end && !werr) {
		const char *m = strstr(s, "@@IMG:");
		if (!m) {
			put(f, s, (size_t)(end - s), &werr);
			break;
		}
		put(f, s, (size_t)(m - s), &werr);
		const char *e = strstr(m + 6, "@@");
		if (!e)
			break;
		char name[64];
		snprintf(name, sizeof(name), "%.*s", (int)(e - m - 6), m + 6);
		int st = werr ? 0 : embed_file(r, f, name, &werr);
		if (st)
			return st;
		s = e + 2;
	}
	if (!werr && ferror(f))
		werr = EIO;
	if (werr) /* the reason: a file size limit, a full disk, a closed pipe */
		return pmcfi_fail(-werr, "cannot write the report: %s", strerror(werr));
	return 0;
}

void pmcf_report_free(pmcf_report *rep)
{
	if (!rep)
		return;
	struct pmcfi_report *r = &rep->r;
	if (r->tmpdir)
		pmcfi_rm_tree(r->tmpdir);
	free(r->tmpdir);
	if (r->html)
		fclose(r->html);
	if (r->gp)
		fclose(r->gp);
	free(r->html_buf);
	free(r->gp_buf);
	free(r->type_of);
	pmcf_epd_result_free(r->epd);
	free(rep);
}
