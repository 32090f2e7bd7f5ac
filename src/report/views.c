/* `pmcfuse report`: what the XUs did over time and how their values are
 * distributed — a per-thread timeline (Gantt chart) per execution and, per
 * event, box plots of its values per XU type. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pmcfuse/report.h"
#include "report/report_impl.h"
#include "x/x.h"

/* A timeline draws at most about this many bars; beyond, neighbouring XUs
 * of one type on one thread are drawn as one bar (the caption says so). */
#define TIMELINE_MAX_BARS 12000

struct span {
	uint64_t start, end;
	int32_t rank, thread; /* a row per (rank, thread): rank 0 without MPI ranks */
	uint32_t type;
	size_t i;
};

static int cmp_span(const void *p, const void *q)
{
	const struct span *a = p, *b = q;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

/* 1 when v[k] starts a new row (another rank or thread than v[k - 1]). */
static int new_row(const struct span *v, size_t k)
{
	return !k || v[k].thread != v[k - 1].thread || v[k].rank != v[k - 1].rank;
}

/* Bars when XUs of one type on one thread less than gap ns apart merge. */
static size_t count_bars(const struct span *v, size_t n, uint64_t gap)
{
	size_t bars = 0;
	uint64_t end = 0;
	for (size_t k = 0; k < n; k++) {
		if (new_row(v, k) || v[k].type != v[k - 1].type || v[k].start > end + gap)
			bars++, end = v[k].end;
		else if (v[k].end > end)
			end = v[k].end;
	}
	return bars;
}

static void fmt_time(char *buf, size_t n, double ns)
{
	if (ns >= 1e9)
		snprintf(buf, n, "%.4g s", ns / 1e9);
	else if (ns >= 1e6)
		snprintf(buf, n, "%.4g ms", ns / 1e6);
	else if (ns >= 1e3)
		snprintf(buf, n, "%.4g \xc2\xb5s", ns / 1e3);
	else
		snprintf(buf, n, "%.0f ns", ns);
}

/* Events shown in a bar's hover text (duration is the bar itself). */
#define TIMELINE_HOVER_EVENTS 8

/* "; page-faults 3, task-clock 812 µs" for the XUs v[k..m): the value of
 * each event (up to TIMELINE_HOVER_EVENTS), summed over a merged bar's XUs
 * ("in all"), so that the timeline answers what a thread did when. */
static void hover_values(FILE *h, const pmcf_profile *p, const struct span *v, size_t k, size_t m)
{
	size_t shown = 0, nev = pmcf_profile_nevents(p);
	for (size_t e = 0; e < nev && shown < TIMELINE_HOVER_EVENTS; e++) {
		const char *name = pmcf_profile_event_name(p, e);
		if (strcmp(name, "duration") == 0)
			continue;
		double sum = 0;
		size_t have = 0;
		for (size_t j = k; j < m; j++) {
			double x = pmcf_profile_value(p, v[j].i, e);
			if (!isnan(x))
				sum += x, have++;
		}
		char b[32];
		fputs(shown ? ", " : "; ", h);
		pmcfi_report_esc(h, name);
		fprintf(h, " %s",
			have ? pmcf_report_human(b, sizeof(b), sum, pmcf_report_event_is_ns(name))
			     : "missing");
		shown++;
	}
	if (shown && m > k + 1)
		fputs(" in all", h);
}

/* Colouring by an event's value: a scale over [lo, hi] (log when lg). */
struct vscale {
	long ev; /* -1: by XU type */
	double lo, hi;
	int lg, any;
};

static void vscale_fit(struct vscale *c, const pmcf_profile *p, const struct span *v, size_t n)
{
	c->lo = INFINITY;
	c->hi = -INFINITY;
	c->any = 0;
	for (size_t k = 0; k < n; k++) {
		double x = pmcf_profile_value(p, v[k].i, (size_t)c->ev);
		if (!isfinite(x))
			continue;
		c->lo = x < c->lo ? x : c->lo;
		c->hi = x > c->hi ? x : c->hi;
		c->any = 1;
	}
	c->lg = c->any && c->lo > 0 && c->hi / c->lo >= 100;
}

/* The colour of value x (viridis, five stops interpolated); grey when
 * missing or not finite. */
static void vscale_colour(const struct vscale *c, double x, char out[8])
{
	static const unsigned char stops[5][3] = {{0x44, 0x01, 0x54},
						  {0x3b, 0x52, 0x8b},
						  {0x21, 0x91, 0x8c},
						  {0x5e, 0xc9, 0x62},
						  {0xfd, 0xe7, 0x25}};
	if (!isfinite(x) || !c->any) {
		snprintf(out, 8, "#bbbbbb");
		return;
	}
	double u;
	if (c->hi <= c->lo)
		u = 0.5;
	else if (c->lg)
		u = (log10(x) - log10(c->lo)) / (log10(c->hi) - log10(c->lo));
	else
		u = (x - c->lo) / (c->hi - c->lo);
	u = u < 0 ? 0 : u > 1 ? 1 : u;
	double f = u * 4;
	int k = f >= 4 ? 3 : (int)f;
	double t = f - k;
	unsigned rgb[3];
	for (int j = 0; j < 3; j++)
		rgb[j] = (unsigned)lround(stops[k][j] + t * (stops[k + 1][j] - stops[k][j]));
	snprintf(out, 8, "#%02x%02x%02x", rgb[0] & 0xff, rgb[1] & 0xff, rgb[2] & 0xff);
}

/* The value of event c->ev for the bar of XUs v[k..m): their mean. */
static double bar_value(const struct vscale *c, const pmcf_profile *p, const struct span *v, size_t k,
			size_t m)
{
	double sum = 0;
	size_t have = 0;
	for (size_t j = k; j < m; j++) {
		double x = pmcf_profile_value(p, v[j].i, (size_t)c->ev);
		if (isfinite(x))
			sum += x, have++;
	}
	return have ? sum / (double)have : NAN;
}

/* One timeline over the n XUs in v (one execution). */
static void timeline(struct pmcfi_report *r, struct span *v, size_t n, const char *title, const char *what)
{
	FILE *h = r->html;
	qsort(v, n, sizeof(*v), cmp_span);
	uint64_t t0 = UINT64_MAX, t1 = 0;
	size_t rows = 0, nranks = 0;
	int ranks = pmcf_profile_has_ranks(r->p);
	for (size_t k = 0; k < n; k++) {
		nranks += !k || v[k].rank != v[k - 1].rank;
		t0 = v[k].start < t0 ? v[k].start : t0;
		t1 = v[k].end > t1 ? v[k].end : t1;
		rows += new_row(v, k);
	}
	uint64_t span = t1 > t0 ? t1 - t0 : 1, gap = 0;
	size_t bars = n;
	if (n > TIMELINE_MAX_BARS)
		for (uint64_t div = 8000; div >= 25 && bars > TIMELINE_MAX_BARS; div /= 2) {
			gap = span / div;
			bars = count_bars(v, n, gap);
		}
	unsigned rowh = rows * 16 <= 560 ? 16 : rows * 4 <= 560 ? (unsigned)(560 / rows) : 4;
	unsigned left = ranks ? 120 : 80; /* room for "rank R thread T" */
	struct vscale cs = {.ev = r->colour_by};
	if (cs.ev >= 0)
		vscale_fit(&cs, r->p, v, n);
	unsigned legend = cs.ev >= 0 ? 30 : (unsigned)((r->ntypes + 3) / 4) * 15;
	struct pmcfi_report_svg_axis x = {(double)t0, (double)t0 + (double)span,
					  0,          "time since the execution began",
					  "ns",       0};
	struct pmcfi_report_svg_axis y = {0, 1, 0, NULL, NULL, 1};
	struct pmcfi_report_svg_plot s;
	fputs("<figure>", h);
	pmcfi_report_svg_begin(r, &s, 1180, (unsigned)(rows * rowh) + 92 + legend, left, 62 + legend, title,
			       &x, &y, "x");
	double du = 1000.0 / (double)(rows ? rows : 1);
	char b1[32], b2[32];
	/* one group per type: fill once */
	for (uint32_t t = 0; t < r->ntypes; t++) {
		int open = 0;
		size_t row = 0;
		for (size_t k = 0; k < n; k++) {
			if (k && new_row(v, k))
				row++;
			if (v[k].type != t)
				continue;
			/* the XUs merged into this bar: same thread and type, close */
			size_t m = k + 1;
			uint64_t end = v[k].end;
			if (gap)
				while (m < n && v[m].thread == v[k].thread && v[m].rank == v[k].rank &&
				       v[m].type == t && v[m].start <= end + gap) {
					end = v[m].end > end ? v[m].end : end;
					m++;
				}
			if (!open) {
				const char *c = pmcfi_report_type_color(r, r->p, t);
				fprintf(h, "<g fill=\"%s\" stroke=\"%s\" stroke-width=\"0.5\">\n", c, c);
				open = 1;
			}
			double x0 = pmcfi_report_svg_x(&s, (double)v[k].start),
			       x1 = pmcfi_report_svg_x(&s, (double)end);
			fprintf(h, "<rect x=\"%.3f\" y=\"%.2f\" width=\"%.3f\" height=\"%.2f\"", x0,
				(double)row * du + du * 0.12, x1 - x0, du * 0.76);
			if (cs.ev >= 0) {
				char col[8];
				vscale_colour(&cs, bar_value(&cs, r->p, v, k, m), col);
				fprintf(h, " fill=\"%s\" stroke=\"%s\"", col, col);
			}
			fputs("><title>", h);
			pmcfi_report_esc(h, pmcfi_report_type_name(r->p, t));
			fmt_time(b1, sizeof(b1), (double)v[k].start);
			fmt_time(b2, sizeof(b2), (double)(end - v[k].start));
			char where[48];
			if (ranks)
				snprintf(where, sizeof(where), "rank %d thread %d", v[k].rank, v[k].thread);
			else
				snprintf(where, sizeof(where), "thread %d", v[k].thread);
			if (m > k + 1)
				fprintf(h, ": %zu XUs on %s from %s, %s", m - k, where, b1, b2);
			else
				fprintf(h, " XU %zu, %s: from %s, %s", v[k].i, where, b1, b2);
			hover_values(h, r->p, v, k, m);
			fputs("</title></rect>\n", h);
			/* skip the merged ones (they are on this row) */
			k = m - 1;
		}
		if (open)
			fputs("</g>\n", h);
	}
	pmcfi_report_svg_data_end(&s);
	size_t every = rowh >= 11 ? 1 : (11 + rowh - 1) / rowh, row = 0;
	for (size_t k = 0; k < n; k++)
		if (new_row(v, k)) {
			if (row % every == 0) {
				char lab[48];
				if (ranks)
					snprintf(lab, sizeof(lab), "rank %d thread %d", v[k].rank,
						 v[k].thread);
				else
					snprintf(lab, sizeof(lab), "thread %d", v[k].thread);
				pmcfi_report_svg_cat_label(&s, 'y', ((double)row + 0.5) * du, lab);
			}
			row++;
		}
	const char *cname = cs.ev >= 0 ? pmcf_profile_event_name(r->p, (size_t)cs.ev) : NULL;
	if (cs.ev >= 0) {
		/* five swatches along the scale, then missing */
		for (unsigned k = 0; k < 5 && cs.any; k++) {
			double u = k / 4.0;
			double xv = cs.lg ? pow(10, log10(cs.lo) + u * (log10(cs.hi) - log10(cs.lo)))
					  : cs.lo + u * (cs.hi - cs.lo);
			char col[8], num[32], lab[96];
			vscale_colour(&cs, xv, col);
			snprintf(lab, sizeof(lab), "%s %s", k == 0 ? cname : "",
				 pmcf_report_human(num, sizeof(num), xv, pmcf_report_event_is_ns(cname)));
			pmcfi_report_svg_legend(&s, k, col, lab);
		}
		pmcfi_report_svg_legend(&s, cs.any ? 5 : 0, "#bbbbbb", "missing");
	} else
		for (uint32_t t = 0; t < r->ntypes; t++)
			pmcfi_report_svg_legend(&s, t, pmcfi_report_type_color(r, r->p, t),
						pmcfi_report_type_name(r->p, t));
	pmcfi_report_svg_end(&s);
	char c1[32], c2[32];
	if (ranks)
		fprintf(h,
			"<figcaption>%s XU%s on %zu thread%s of %zu MPI ranks, one row per (rank, thread), ",
			pmcfi_report_count(n, c1, sizeof(c1)), n == 1 ? "" : "s", rows, rows == 1 ? "" : "s",
			nranks);
	else
		fprintf(h, "<figcaption>%s XU%s on %zu thread%s, one row per thread, ",
			pmcfi_report_count(n, c1, sizeof(c1)), n == 1 ? "" : "s", rows, rows == 1 ? "" : "s");
	if (cs.ev >= 0) {
		fputs("colour = ", h);
		pmcfi_report_esc(h, cname);
		fprintf(h, " per XU (the mean of a merged bar; %s scale, grey: missing); %s",
			cs.lg ? "log" : "linear", what);
	} else
		fprintf(h, "colour = XU type; %s", what);
	if (gap) {
		fmt_time(b1, sizeof(b1), (double)gap);
		fprintf(h,
			" Drawn as %s bars: XUs of one type on one thread less than %s apart are one bar "
			"(hover says how many).",
			pmcfi_report_count(bars, c2, sizeof(c2)), b1);
	}
	fputs(" Wheel zooms the time axis, drag pans, double click resets.</figcaption></figure>\n", h);
}

void pmcfi_report_section_timeline(struct pmcfi_report *r)
{
	const pmcf_profile *p = r->p;
	FILE *h = r->html;
	size_t n = r->nxus;
	if (!n)
		return;
	struct span *v = malloc(n * sizeof(*v)), *g = malloc(n * sizeof(*g));
	int32_t *base = malloc(n * sizeof(int32_t));
	if (!v || !g || !base)
		goto out;
	int fused = pmcf_profile_has_base_labels(p);
	int32_t maxb = -1;
	for (size_t i = 0; i < n; i++) {
		pmcf_xu x = PMCF_XU_INIT;
		if (pmcf_profile_xu_get(p, i, &x))
			memset(&x, 0, sizeof(x));
		v[i] = (struct span){x.start_ns, x.end_ns, pmcf_profile_rank(p, i), x.thread, x.type, i};
		int64_t bx;
		base[i] = -1;
		if (fused)
			pmcf_profile_base_label_get(p, i, &base[i], &bx, NULL);
		maxb = base[i] > maxb ? base[i] : maxb;
	}
	fputs("<h2 id=\"timeline\">Timeline</h2>\n", h);
	if (!fused) {
		timeline(r, v, n, "XUs per thread over time", "the times of this execution.");
		goto out;
	}
	fputs("<p class=\"note\">A fused profile has no timing of its own: each fused XU keeps the type, thread and "
	      "times of its <i>base</i> XU, the XU of one execution it was built on. There is one timeline per "
	      "base execution, each with the XUs based on it, in that execution&rsquo;s times.</p>\n",
	      h);
	/* one timeline per base execution (-1: XUs without a base) */
	for (int32_t b = -1; b <= maxb; b++) {
		size_t m = 0;
		for (size_t i = 0; i < n; i++)
			if (base[i] == b)
				g[m++] = v[i];
		if (!m)
			continue;
		char title[256], what[600];
		const char *path = "?", *id;
		if (b >= 0)
			pmcf_profile_source_get(p, (uint32_t)b, &path, &id);
		const char *bn = strrchr(path, '/');
		if (b >= 0) {
			char plain[32];
			snprintf(plain, sizeof(plain), "execution %d", b);
			snprintf(title, sizeof(title), "XUs per thread over time in execution %d%s%s%s", b,
				 strcmp(path, plain) ? " (" : "",
				 strcmp(path, plain) ? (bn ? bn + 1 : path) : "",
				 strcmp(path, plain) ? ")" : "");
			snprintf(what, sizeof(what),
				 "fused XUs based on execution %d, in its times (the values of the other "
				 "events come from the executions the provenance section names).",
				 b);
		} else {
			snprintf(title, sizeof(title),
				 "XUs per thread over time (XUs without a base execution)");
			snprintf(what, sizeof(what),
				 "XUs without a recorded base execution; their times may mix executions.");
		}
		timeline(r, g, m, title, what);
	}
out:
	free(v);
	free(g);
	free(base);
}

/* ---- per-type distributions ------------------------------------------------------------- */

void pmcfi_report_section_distributions(struct pmcfi_report *r, double *scratch)
{
	const pmcf_profile *p = r->p;
	FILE *h = r->html;
	size_t nt = r->ntypes, n = r->nxus;
	size_t *off = calloc(nt + 1, sizeof(size_t)), *order = malloc((n ? n : 1) * sizeof(size_t));
	size_t *fill = calloc(nt + 1, sizeof(size_t));
	double(*q)[7] = malloc((nt ? nt : 1) * sizeof(*q));
	size_t *cnt = malloc((nt ? nt : 1) * sizeof(size_t));
	if (!off || !order || !fill || !q || !cnt)
		goto out;
	/* XU indices grouped by type (counting sort) */
	for (size_t i = 0; i < n; i++)
		off[r->type_of[i] + 1]++;
	for (size_t t = 0; t < nt; t++)
		off[t + 1] += off[t];
	for (size_t i = 0; i < n; i++)
		order[off[r->type_of[i]] + fill[r->type_of[i]]++] = i;
	fputs("<h2 id=\"distributions\">Distributions per XU type</h2>\n<p class=\"note\">Per event, the values of "
	      "the XUs of each type: box from the first to the third quartile, white line at the median, "
	      "whiskers from the 5th to the 95th percentile, dots at the minimum and maximum. Log scale where "
	      "the values span two decades or more, or the largest is 20 times a type&rsquo;s median (outliers "
	      "would flatten the boxes). Hover a box for its numbers; wheel zooms the value "
	      "axis.</p>\n<div class=\"grid\">\n",
	      h);
	static const double qs[7] = {0, 0.05, 0.25, 0.5, 0.75, 0.95, 1};
	for (size_t e = 0; e < r->nev; e++) {
		const double *col = pmcf_profile_column_const(p, e);
		const char *name = pmcf_profile_event_name(p, e);
		double lo = INFINITY, hi = -INFINITY, pos = INFINITY, typical = INFINITY;
		size_t zeros = 0, any = 0;
		for (uint32_t t = 0; t < nt; t++) {
			size_t m = 0;
			for (size_t k = off[t]; k < off[t + 1]; k++) {
				double v = col[order[k]];
				if (!pmcf_is_missing(v) && isfinite(v))
					scratch[m++] = v;
			}
			cnt[t] = m;
			any += m;
			qsort(scratch, m, sizeof(double), pmcfi_report_cmp_dbl); /* stays sorted */
			for (int j = 0; j < 7; j++)
				q[t][j] = pmcfi_quantile(scratch, m, qs[j]);
			if (m) {
				lo = fmin(lo, scratch[0]);
				hi = fmax(hi, scratch[m - 1]);
				if (q[t][3] > 0)
					typical = fmin(typical, q[t][3]); /* the smallest median of a type */
			}
			for (size_t k = 0; k < m; k++)
				if (scratch[k] > 0) {
					pos = fmin(pos, scratch[k]);
					break;
				}
			for (size_t k = 0; k < m && scratch[k] <= 0; k++)
				zeros++;
		}
		if (!any)
			continue;
		char lab[300];
		const char *unit = pmcfi_report_event_unit(name);
		snprintf(lab, sizeof(lab), "%s (%s)", name, unit);
		struct pmcfi_report_svg_axis x = {0, 1, 0, NULL, NULL, 1}, y = {0};
		y.label = lab;
		y.unit = unit;
		/* zeros on a log axis: drawn at its bottom, said below */
		int logz = lo <= 0 && lo == 0 && isfinite(pos) && hi / pos >= 1000;
		pmcfi_report_svg_axis_fit_spread(&y, logz ? pos : lo, isfinite(typical) ? typical : NAN, hi,
						 1);
		unsigned w = (unsigned)(nt * 46 + 90);
		w = w < 300 ? 300 : w;
		struct pmcfi_report_svg_plot s;
		fputs("<figure>", h);
		pmcfi_report_svg_begin(r, &s, w, 270, 70, 50, name, &x, &y, "y");
		char b[7][32];
		for (uint32_t t = 0; t < nt; t++) {
			if (!cnt[t])
				continue;
			double c = ((double)t + 0.5) / (double)nt * 1000, hw = fmin(300.0 / (double)nt, 40);
			double yv[7];
			for (int j = 0; j < 7; j++)
				yv[j] = pmcfi_report_svg_y(&s, q[t][j]);
			const char *fill_col = pmcfi_report_type_color(r, p, t);
			fprintf(h, "<g><title>");
			pmcfi_report_esc(h, pmcfi_report_type_name(p, t));
			fprintf(h,
				": %zu XU%s; min %s, p5 %s, Q1 %s, median %s, Q3 %s, p95 %s, max %s</title>",
				cnt[t], cnt[t] == 1 ? "" : "s", pmcfi_report_num(q[t][0], b[0], 32),
				pmcfi_report_num(q[t][1], b[1], 32), pmcfi_report_num(q[t][2], b[2], 32),
				pmcfi_report_num(q[t][3], b[3], 32), pmcfi_report_num(q[t][4], b[4], 32),
				pmcfi_report_num(q[t][5], b[5], 32), pmcfi_report_num(q[t][6], b[6], 32));
			fprintf(h, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.2f\" y2=\"%.2f\" stroke=\"#555\"/>",
				c, c, yv[1], yv[5]);
			fprintf(h,
				"<rect x=\"%.1f\" y=\"%.2f\" width=\"%.1f\" height=\"%.2f\" fill=\"%s\" stroke=\"#333\"/>",
				c - hw, yv[4], 2 * hw, fmax(yv[2] - yv[4], 0.5), fill_col);
			fprintf(h,
				"<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.2f\" y2=\"%.2f\" stroke=\"#fff\" stroke-width=\"2\"/>",
				c - hw, c + hw, yv[3], yv[3]);
			fprintf(h,
				"<path class=\"pt\" d=\"M%.1f %.2fh0M%.1f %.2fh0\" stroke=\"#333\" stroke-width=\"4\"/></g>\n",
				c, yv[0], c, yv[6]);
		}
		pmcfi_report_svg_data_end(&s);
		for (uint32_t t = 0; t < nt; t++)
			pmcfi_report_svg_cat_label(&s, 'x', ((double)t + 0.5) / (double)nt * 1000,
						   pmcfi_report_type_name(p, t));
		pmcfi_report_svg_end(&s);
		if (logz)
			fprintf(h,
				"<figcaption>%zu zero values drawn at the bottom of the log axis.</figcaption>",
				zeros);
		fputs("</figure>\n", h);
	}
	fputs("</div>\n", h);
out:
	free(off);
	free(order);
	free(fill);
	free(q);
	free(cnt);
}
