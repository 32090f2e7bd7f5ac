/* `pmcfuse report`: the sections on accuracy and origin — TMD heat map
 * against references, error against the ground truth of simulated sources,
 * which execution each event's values came from, match distances,
 * consistency relations and multiplexing coverage. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report/report_impl.h"
#include "pmcfuse/combine.h"

/* Scored pairs by TMD, highest first (index order among equals). */
struct worst {
	size_t k;
	double tmd;
};

static int cmp_worst(const void *x, const void *y)
{
	const struct worst *a = x, *b = y;
	if (a->tmd != b->tmd)
		return a->tmd > b->tmd ? -1 : 1;
	return (a->k > b->k) - (a->k < b->k);
}

/* ---- TMD heat map --------------------------------------------------------------------- */

void pmcfi_report_section_tmd(struct pmcfi_report *r)
{
	FILE *h = r->html;
	const pmcf_profile *p = r->p;
	char b1[32], b2[32], b3[32], b4[32];
	fputs("<h2 id=\"accuracy\">Accuracy against the references</h2>\n", h);
	if (!r->epd) {
		fprintf(h, "<p>No EPD: %s.</p>\n",
			r->epd_err == PMCF_ENOENT
				? "no event pair of this profile was counted by two references"
				: "it could not be computed");
		return;
	}
	size_t np = pmcf_epd_npairs(r->epd);
	fprintf(h,
		"<p><b>EPD %s</b> over %zu event pairs (%u bins, %zu reference profiles; 1 = as close as a "
		"fresh reference execution)",
		pmcfi_report_num(pmcf_epd_value(r->epd), b1, sizeof(b1)), np, r->bins, r->nrefs);
	if (pmcf_epd_uncovered(r->epd))
		fprintf(h, "; %zu pairs not scored (fewer than two references counted them)",
			pmcf_epd_uncovered(r->epd));
	if (!isnan(r->correrr))
		fprintf(h,
			". <b>Correlation Error %.4f</b> (0 = the references&rsquo; rank correlations, at most 2)",
			r->correrr);
	fputs(". See docs/accuracy.md.</p>\n", h);

	/* matrix over the events that appear in a scored pair, profile order */
	size_t *idx = malloc((r->nev ? r->nev : 1) * sizeof(size_t)), m = 0;
	if (!idx)
		return;
	for (size_t e = 0; e < r->nev; e++) {
		const char *n = pmcf_profile_event_name(p, e);
		for (size_t k = 0; k < np; k++) {
			const pmcf_epd_pair *q = pmcf_epd_pair_at(r->epd, k);
			if (!strcmp(q->a, n) || !strcmp(q->b, n)) {
				idx[m++] = e;
				break;
			}
		}
	}
	FILE *f = pmcfi_report_data_open(r, "tmd.dat");
	double lo = INFINITY, hi = -INFINITY;
	if (f) {
		for (size_t y = 0; y < m; y++)
			for (size_t x = 0; x < m; x++) {
				const pmcf_epd_pair *q =
					x == y ? NULL
					       : pmcfi_report_epd_find(r, pmcf_profile_event_name(p, idx[x]),
								       pmcf_profile_event_name(p, idx[y]));
				if (q && isfinite(q->tmd) && q->tmd > 0) {
					fprintf(f, "%zu %zu %.10g\n", x, y, q->tmd);
					lo = fmin(lo, q->tmd);
					hi = fmax(hi, q->tmd);
				}
			}
		fclose(f);
	}
	if (f && m >= 2 && isfinite(lo)) {
		unsigned side = (unsigned)(m * 22 + 260);
		if (side < 520)
			side = 520;
		if (side > 1400)
			side = 1400;
		unsigned im = pmcfi_report_img_begin(r, side + 60, side);
		FILE *s = r->gp;
		if (hi <= lo * 1.01)
			hi = lo * 1.01 + 1e-9;
		fprintf(s,
			"set title 'calibrated TMD per event pair (log colour scale; 1 = run-to-run noise)'\n"
			"set size ratio -1\nset xrange [-0.5:%zu.5]\nset yrange [%zu.5:-0.5]\n"
			"set logscale cb\nset cbrange [%.6g:%.6g]\nset cblabel 'TMD'\n"
			"set palette defined (0 '#ffffe5', 0.3 '#fec44f', 0.6 '#ec7014', 1 '#662506')\n"
			"set cbtics ('0.5' 0.5, '1' 1, '2' 2, '5' 5, '10' 10, '20' 20, '50' 50, '100' 100, "
			"'200' 200, '500' 500, '1000' 1000)\n"
			"set xtics rotate by 90 right font ',8'\nset ytics font ',8'\nunset key\n",
			m - 1, m - 1, fmin(lo, 1.0), fmax(hi, 2.0));
		fputs("set xtics (", s);
		for (size_t k = 0; k < m; k++) {
			fputs(k ? ", " : "", s);
			pmcfi_report_gp_str(s, pmcf_profile_event_name(p, idx[k]));
			fprintf(s, " %zu", k);
		}
		fputs(")\nset ytics (", s);
		for (size_t k = 0; k < m; k++) {
			fputs(k ? ", " : "", s);
			pmcfi_report_gp_str(s, pmcf_profile_event_name(p, idx[k]));
			fprintf(s, " %zu", k);
		}
		fputs(")\nplot 'tmd.dat' using 1:2:(0.5):(0.5):3 with boxxyerror fs solid 1.0 noborder "
		      "lc palette\n",
		      s);
		fputs("<figure>", h);
		pmcfi_report_img_tag(r, im, "heat map of the calibrated TMD of every event pair");
		fputs("<figcaption>Calibrated TMD of every scored pair: how far the joint distribution of the XUs "
		      "over the two events is from the references, in units of their run-to-run noise. Blank: "
		      "pair not scored.</figcaption></figure>\n",
		      h);
	}
	free(idx);
	/* the worst pairs */
	struct worst *w = malloc((np ? np : 1) * sizeof(*w));
	if (!w)
		return;
	for (size_t k = 0; k < np; k++) {
		w[k].k = k;
		w[k].tmd = pmcf_epd_pair_at(r->epd, k)->tmd;
		if (isnan(w[k].tmd))
			w[k].tmd = -1;
	}
	qsort(w, np, sizeof(*w), cmp_worst);
	fputs("<table class=\"num\">\n<tr><th>event A</th><th>event B</th><th>TMD</th><th>&plusmn;</th>"
	      "<th>uncalibrated</th><th>calibration</th><th>left out</th></tr>\n",
	      h);
	for (size_t k = 0; k < np && k < 10; k++) {
		const pmcf_epd_pair *q = pmcf_epd_pair_at(r->epd, w[k].k);
		fputs("<tr><td class=\"l\">", h);
		pmcfi_report_esc(h, q->a);
		fputs("</td><td class=\"l\">", h);
		pmcfi_report_esc(h, q->b);
		fprintf(h, "</td><td>%s%s</td><td>%s</td><td>%s</td><td>%s</td><td>%.1f%%</td></tr>\n",
			pmcfi_report_num(q->tmd, b1, sizeof(b1)), q->worst ? " (worst)" : "",
			pmcfi_report_num(q->spread, b2, sizeof(b2)),
			pmcfi_report_num(q->uncalibrated, b3, sizeof(b3)),
			pmcfi_report_num(q->calibration, b4, sizeof(b4)), 100 * q->left_out);
	}
	fputs("</table>\n<p class=\"note\">The ten pairs with the highest TMD.</p>\n", h);
	free(w);
}

/* ---- match distances ---------------------------------------------------------------------- */

void pmcfi_report_section_match(struct pmcfi_report *r)
{
	pmcf_match_summary s = {.size = sizeof(s)};
	if (pmcf_combine_match_summary(r->p, &s) || !s.measured)
		return;
	FILE *h = r->html;
	char b[6][32];
	fputs("<h2 id=\"match\">Match distances</h2>\n", h);
	fprintf(h,
		"<p>How well the source XUs of each fused XU agreed on the events they share (root mean "
		"square of the differences, each divided by the event&rsquo;s range within the XU type; 0 = "
		"identical). %zu of %zu XU%s measured: median %s, p90 %s, p99 %s, max %s, mean %s.</p>\n",
		s.measured, s.xus, s.xus == 1 ? "" : "s", pmcfi_report_num(s.p50, b[0], 32),
		pmcfi_report_num(s.p90, b[1], 32), pmcfi_report_num(s.p99, b[2], 32),
		pmcfi_report_num(s.max, b[3], 32), pmcfi_report_num(s.mean, b[4], 32));
	/* the buckets at their real widths; height = XUs per 0.01 of distance,
	 * so that a bar's area is its number of XUs */
	double lo[7], hi[7], dens[7], top = 0, right = 0;
	size_t nb = 0;
	for (int k = 0; k < 7; k++) {
		lo[k] = k ? pmcf_match_hist_edges[k - 1] : 0;
		hi[k] = isfinite(pmcf_match_hist_edges[k]) ? pmcf_match_hist_edges[k]
							   : fmax(s.max, lo[k] + 0.05);
		dens[k] = (double)s.hist[k] / ((hi[k] - lo[k]) / 0.01);
		top = fmax(top, dens[k]);
		if (s.hist[k]) {
			right = hi[k];
			nb = (size_t)k + 1;
		}
	}
	struct pmcfi_report_svg_axis x = {0, right, 0, "match distance", "count", 0};
	struct pmcfi_report_svg_axis y = {0, top * 1.08, 0, "XUs per 0.01 of distance", "count", 0};
	struct pmcfi_report_svg_plot p;
	fputs("<figure>", h);
	pmcfi_report_svg_begin(r, &p, 620, 330, 64, 44, "fused XUs per match distance", &x, &y, "x");
	for (size_t k = 0; k < nb; k++) {
		double x0 = pmcfi_report_svg_x(&p, lo[k]), x1 = pmcfi_report_svg_x(&p, hi[k]),
		       y0 = pmcfi_report_svg_y(&p, dens[k]);
		fprintf(h,
			"<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"#1f77b4\" "
			"stroke=\"#fff\"><title>%s to %s: %zu XU%s (%.1f%%)</title></rect>\n",
			x0, y0, x1 - x0, 1000 - y0, pmcfi_report_num(lo[k], b[0], 32),
			pmcfi_report_num(hi[k], b[1], 32), s.hist[k], s.hist[k] == 1 ? "" : "s",
			100.0 * (double)s.hist[k] / (double)s.measured);
	}
	pmcfi_report_svg_data_end(&p);
	pmcfi_report_svg_end(&p);
	fputs("<figcaption>Bins [0, .01), [.01, .02), [.02, .05), [.05, .1), [.1, .2), [.2, .5), [.5, max] drawn "
	      "at their real widths; the height is XUs per 0.01 of distance, so each bar&rsquo;s area is its "
	      "number of XUs (hover for it).</figcaption></figure>\n",
	      h);
}

/* ---- multiplexing coverage ----------------------------------------------------------------- */

/* Relations every XU obeys (pmcf_consistency_check), with how many XUs
 * break each: in a fused profile, values from executions that differed. */
void pmcfi_report_section_consistency(struct pmcfi_report *r)
{
	pmcf_consistency c[32] = {PMCF_CONSISTENCY_INIT};
	size_t n = 0;
	if (pmcf_consistency_check(r->p, c, sizeof(c) / sizeof(c[0]), &n) || !n)
		return;
	FILE *h = r->html;
	fputs("<h2 id=\"consistency\">Consistency</h2>\n<p>Relations every XU&rsquo;s true counts obey "
	      "(an XU runs on one thread: its CPU time is at most its duration, with 2&nbsp;% + "
	      "2&nbsp;&micro;s of slack; a minor or major fault is a page fault; &hellip;). In a fused "
	      "profile the two values may come from different executions; an XU that breaks a "
	      "relation ran differently in them.</p>\n<table>\n<tr><th>relation</th><th>XUs "
	      "checked</th><th>XUs breaking it</th><th>of those, values from different "
	      "executions</th></tr>\n",
	      h);
	for (size_t k = 0; k < n; k++)
		fprintf(h, "<tr><td>%s &le; %s</td><td>%zu</td><td>%zu</td><td>%zu</td></tr>\n", c[k].lhs,
			c[k].rhs, c[k].checked, c[k].violated, c[k].cross);
	fputs("</table>\n", h);
}

void pmcfi_report_section_coverage(struct pmcfi_report *r)
{
	const pmcf_profile *p = r->p;
	if (!pmcf_profile_has_coverage(p))
		return;
	FILE *h = r->html;
	fputs("<h2 id=\"coverage\">Multiplexing coverage</h2>\n", h);
	fputs("<p>For each event: the share of XUs during which it was counted at all (any running time), and "
	      "the share of the XUs&rsquo; enabled time it was running. Values of the other XUs are "
	      "extrapolated estimates, or missing (not 0) where the event had never been counted "
	      "(docs/multiplexing.md); an event at 0.0% was never counted during any XU.</p>\n",
	      h);
	FILE *f = pmcfi_report_data_open(r, "cov.dat");
	if (!f)
		return;
	fputs("<table class=\"num\">\n<tr><th>event</th><th>XUs counted</th><th>running / enabled</th></tr>\n",
	      h);
	size_t rows = 0;
	for (size_t ev = 0; ev < r->nev; ev++) {
		const char *name = pmcf_profile_event_name(p, ev);
		if (!strcmp(name, "duration"))
			continue;
		size_t counted = 0;
		double en = 0, run = 0;
		for (size_t i = 0; i < r->nxus; i++) {
			uint64_t e, ru;
			if (pmcf_profile_coverage_get(p, i, ev, &e, &ru))
				continue;
			counted += ru > 0;
			en += (double)e;
			run += (double)ru;
		}
		double sc = r->nxus ? (double)counted / (double)r->nxus : 0, sr = en > 0 ? run / en : 0;
		fprintf(f, "%zu \"%s\" %.6g %.6g\n", rows++, name, 100 * sc, 100 * sr);
		fputs("<tr><td class=\"l\">", h);
		pmcfi_report_esc(h, name);
		fprintf(h, "</td><td>%.1f%%</td><td>%.1f%%</td></tr>\n", 100 * sc, 100 * sr);
	}
	fclose(f);
	fputs("</table>\n", h);
	if (!rows)
		return;
	unsigned im =
		pmcfi_report_img_begin(r, (unsigned)(rows * 24 + 200 < 560 ? 560 : rows * 24 + 200), 380);
	fputs("set title 'multiplexing coverage per event'\nset style data histograms\n"
	      "set style histogram clustered gap 1\nset style fill solid 0.85 noborder\n"
	      "set grid ytics lc rgb '#dddddd'\nset yrange [0:105]\nset ylabel '%'\n"
	      "set xtics rotate by 60 right font ',8'\nset key top right\n"
	      "plot 'cov.dat' using 3:xtic(2) title 'XUs counted' lc rgb '#1f77b4', "
	      "'' using 4 title 'running / enabled time' lc rgb '#ff7f0e'\n",
	      r->gp);
	fputs("<figure>", h);
	pmcfi_report_img_tag(r, im, "bar chart of the multiplexing coverage per event");
	fputs("</figure>\n", h);
}

/* ---- error against the ground truth --------------------------------------------------------- */

/* Errors below this are drawn at it on the log axis (an exact value has 0). */
#define TRUTH_FLOOR 1e-6

void pmcfi_report_section_truth(struct pmcfi_report *r)
{
	const pmcf_profile *p = r->p;
	FILE *h = r->html;
	pmcf_truth_result *tr = NULL;
	int err = pmcf_truth_compare(p, r->path, &tr);
	if (err) {
		/* a real program has no truth: no section; a simulated one says why */
		if (pmcf_profile_meta_get(p, PMCF_META_SIM_SPEC)) {
			const char *d = pmcf_errdetail();
			fputs("<h2 id=\"truth\">Ground truth</h2>\n<p>No error against the ground truth: ",
			      h);
			pmcfi_report_esc(h, d && d[0] ? d : pmcf_strerror(err));
			fputs(".</p>\n", h);
		}
		return;
	}
	double med, p90, miss;
	pmcf_truth_summary(tr, &med, &p90, &miss);
	size_t n = pmcf_truth_nevents(tr), nmiss = 0, nbase = 0, shown = 0;
	double top = TRUTH_FLOOR * 10;
	for (size_t k = 0; k < n; k++) {
		const pmcf_truth_event *e = pmcf_truth_event_at(tr, k);
		nmiss += e->missing;
		nbase += e->from_base;
		if (isfinite(e->p90_rel))
			top = fmax(top, e->p90_rel);
		shown += isfinite(e->median_rel);
	}
	char b1[32], b2[32], b3[32];
	fprintf(h,
		"<h2 id=\"truth\">Ground truth</h2>\n<p>The simulator records the true count of every event. "
		"Against %s: <b>mean relative error %s</b> (mean over the events of their means, a missing "
		"value counting as 1); <b>median relative error %s</b> (median over the events of their "
		"medians), 90th percentile %s; %zu values missing (%.2f%%, each counted as error 1)",
		strcmp(pmcf_truth_mode(tr), "own") ? "the truth of the source XUs"
						   : "the profile&rsquo;s own truth layer",
		pmcfi_report_num(pmcf_truth_mean(tr), b3, sizeof(b3)), pmcfi_report_num(med, b1, sizeof(b1)),
		pmcfi_report_num(p90, b2, sizeof(b2)), nmiss, 100 * miss);
	if (nbase)
		fprintf(h, "; %zu values copied from the XU they are compared with are exact and left out",
			nbase);
	fputs(". Relative error = |value &minus; truth| / max(|truth|, 1); the same numbers as <code>pmcfuse truth</code> "
	      "(docs/accuracy.md).</p>\n",
	      h);
	if (shown) {
		unsigned rowh = 24, ht = (unsigned)(shown * rowh + 90);
		struct pmcfi_report_svg_axis x = {TRUTH_FLOOR, top * 1.5, 1, "relative error (log)",
						  "count",     0};
		struct pmcfi_report_svg_axis y = {0, 1, 0, NULL, NULL, 1};
		struct pmcfi_report_svg_plot s;
		fputs("<figure>", h);
		pmcfi_report_svg_begin(r, &s, 760, ht, 190, 62,
				       "relative error per event: median (dark), 90th percentile (light)", &x,
				       &y, "x");
		size_t row = 0;
		for (size_t k = 0; k < n; k++) {
			const pmcf_truth_event *e = pmcf_truth_event_at(tr, k);
			if (!isfinite(e->median_rel))
				continue;
			double u0 = (double)row / (double)shown * 1000,
			       u1 = (double)(row + 1) / (double)shown * 1000;
			double du = u1 - u0;
			const double v[2] = {fmax(e->p90_rel, TRUTH_FLOOR), fmax(e->median_rel, TRUTH_FLOOR)};
			const char *col[2] = {"#9ecae1", "#08519c"};
			for (int q = 0; q < 2; q++) {
				double x1 = pmcfi_report_svg_x(&s, v[q]);
				fprintf(h,
					"<rect x=\"0\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"><title>",
					u0 + du * (q ? 0.3 : 0.12), x1, du * (q ? 0.4 : 0.76), col[q]);
				pmcfi_report_esc(h, e->name);
				fprintf(h,
					": median %s, p90 %s over %zu values, %zu missing, %zu from the base</title></rect>\n",
					pmcfi_report_num(e->median_rel, b1, sizeof(b1)),
					pmcfi_report_num(e->p90_rel, b2, sizeof(b2)), e->values, e->missing,
					e->from_base);
			}
			row++;
		}
		pmcfi_report_svg_data_end(&s);
		row = 0;
		for (size_t k = 0; k < n; k++) {
			const pmcf_truth_event *e = pmcf_truth_event_at(tr, k);
			if (isfinite(e->median_rel))
				pmcfi_report_svg_cat_label(&s, 'y',
							   ((double)row++ + 0.5) / (double)shown * 1000,
							   e->name);
		}
		pmcfi_report_svg_end(&s);
		fprintf(h,
			"<figcaption>Per event, over the values that came from another execution; an error of 0 "
			"is drawn at %g.%s</figcaption></figure>\n",
			TRUTH_FLOOR,
			shown < n
				? " Events whose every value is the base XU&rsquo;s own are exact and not drawn."
				: "");
	}
	fputs("<details><summary>per event</summary><table class=\"num\">\n<tr><th>event</th><th>median</th>"
	      "<th>p90</th><th>values</th><th>missing</th><th>from base</th></tr>\n",
	      h);
	for (size_t k = 0; k < n; k++) {
		const pmcf_truth_event *e = pmcf_truth_event_at(tr, k);
		fputs("<tr><td class=\"l\">", h);
		pmcfi_report_esc(h, e->name);
		fprintf(h, "</td><td>%s</td><td>%s</td><td>%zu</td><td>%zu</td><td>%zu</td></tr>\n",
			pmcfi_report_num(e->median_rel, b1, sizeof(b1)),
			pmcfi_report_num(e->p90_rel, b2, sizeof(b2)), e->values, e->missing, e->from_base);
	}
	fputs("</table></details>\n", h);
	pmcf_truth_result_free(tr);
}

/* ---- provenance ------------------------------------------------------------------------------ */

static const char *source_color(uint32_t s)
{
	static const char *pal[10] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
				      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
	return pal[s % 10];
}

/* Per event (and the XUs' base: their type, thread and times), how many XUs
 * took the value from each source execution, as 100 % stacked bars. */
void pmcfi_report_section_provenance(struct pmcfi_report *r)
{
	const pmcf_profile *p = r->p;
	size_t ns = pmcf_profile_nsources(p);
	if (!pmcf_profile_has_provenance(p) || !ns)
		return;
	FILE *h = r->html;
	size_t rows = r->nev + 1, cols = ns + 1; /* last column: no source */
	size_t *cnt = calloc(rows * cols, sizeof(size_t)), *same = calloc(rows, sizeof(size_t));
	int32_t *base = malloc((r->nxus ? r->nxus : 1) * sizeof(int32_t));
	int64_t *bxu = malloc((r->nxus ? r->nxus : 1) * sizeof(int64_t));
	if (!cnt || !same || !base || !bxu)
		goto out;
	int have_base = pmcf_profile_has_base_labels(p);
	for (size_t i = 0; i < r->nxus; i++) {
		base[i] = -1;
		bxu[i] = -1;
		if (have_base)
			pmcf_profile_base_label_get(p, i, &base[i], &bxu[i], NULL);
		cnt[(base[i] >= 0 && (size_t)base[i] < ns ? (size_t)base[i] : ns)]++;
	}
	for (size_t e = 0; e < r->nev; e++)
		for (size_t i = 0; i < r->nxus; i++) {
			int32_t s = -1;
			int64_t x = -1;
			pmcf_profile_provenance_get(p, i, e, &s, &x);
			size_t c = s >= 0 && (size_t)s < ns ? (size_t)s : ns;
			cnt[(e + 1) * cols + c]++;
			same[e + 1] += s >= 0 && s == base[i] && x == bxu[i];
		}
	fputs("<h2 id=\"provenance\">Provenance</h2>\n<p>Which execution each event&rsquo;s values came from. "
	      "The first bar is the XUs themselves (type, thread, start and end times: the <i>base</i> "
	      "execution of each fused XU, whose timing the timeline shows); each other bar one event. "
	      "Hover for the counts; <code>pmcfuse export --provenance</code> gives them per value.</p>\n",
	      h);
	struct pmcfi_report_svg_axis x = {0, 100, 0, "share of the XUs (%)", "count", 0};
	struct pmcfi_report_svg_axis y = {0, 1, 0, NULL, NULL, 1};
	struct pmcfi_report_svg_plot s;
	unsigned ht = (unsigned)(rows * 17 + 84 + ((cols + 3) / 4) * 15);
	fputs("<figure>", h);
	pmcfi_report_svg_begin(r, &s, 760, ht + 12, 190, 62 + (unsigned)((cols + 3) / 4) * 15,
			       "source execution of the values", &x, &y, "x");
	double n = r->nxus ? (double)r->nxus : 1;
	for (size_t row = 0; row < rows; row++) {
		double u0 = (double)row / (double)rows * 1000, du = 1000.0 / (double)rows, acc = 0;
		const char *what = row ? pmcf_profile_event_name(p, row - 1) : "XUs (base)";
		for (size_t c = 0; c < cols; c++) {
			size_t k = cnt[row * cols + c];
			if (!k)
				continue;
			const char *path = "none", *id;
			if (c < ns)
				pmcf_profile_source_get(p, (uint32_t)c, &path, &id);
			fprintf(h,
				"<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"><title>",
				acc / n * 1000, u0 + du * 0.1, (double)k / n * 1000, du * 0.8,
				c < ns ? source_color((uint32_t)c) : "#dddddd");
			pmcfi_report_esc(h, what);
			fprintf(h, ": %zu XU%s (%.1f%%) from ", k, k == 1 ? "" : "s", 100.0 * (double)k / n);
			if (c < ns)
				fprintf(h, "execution %zu, ", c);
			pmcfi_report_esc(h, c < ns ? path : "no execution (missing)");
			if (row && c < ns)
				fprintf(h, "; %zu of all values are the base XU&#39;s own", same[row]);
			fputs("</title></rect>\n", h);
			acc += (double)k;
		}
	}
	pmcfi_report_svg_data_end(&s);
	for (size_t row = 0; row < rows; row++)
		pmcfi_report_svg_cat_label(&s, 'y', ((double)row + 0.5) / (double)rows * 1000,
					   row ? pmcf_profile_event_name(p, row - 1) : "XUs (base)");
	for (size_t c = 0; c < ns; c++) {
		const char *path, *id;
		char lab[128];
		pmcf_profile_source_get(p, (uint32_t)c, &path, &id);
		const char *b = strrchr(path, '/');
		snprintf(lab, sizeof(lab), "%zu: %s", c, b ? b + 1 : path);
		pmcfi_report_svg_legend(&s, (unsigned)c, source_color((uint32_t)c), lab);
	}
	pmcfi_report_svg_end(&s);
	fputs("<figcaption>A value taken from another execution than the XU&rsquo;s base comes from the XU "
	      "matched to it there (docs/fusion.md).</figcaption></figure>\n",
	      h);
out:
	free(cnt);
	free(same);
	free(base);
	free(bxu);
}
