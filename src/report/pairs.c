/* `pmcfuse report`: scatter plots of event pairs. Which pairs: with
 * references the highest TMD; without, the pairs whose plot shows the most
 * (many distinct points, events not predictable from each other). Points
 * are jittered on axes with few discrete values, drawn translucent, and a
 * thinned plot says how many XUs it shows. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report/report_impl.h"

/* Axes with at most this many distinct integer values are jittered. */
#define DISCRETE_MAX 40

static int cmp_pair_desc(const void *x, const void *y)
{
	const struct pmcfi_report_pair *a = x, *b = y;
	if (a->score != b->score)
		return a->score > b->score ? -1 : 1;
	return a->a != b->a ? (a->a < b->a ? -1 : 1) : (a->b > b->b) - (a->b < b->b);
}

struct xy {
	double x, y;
};

static int cmp_xy(const void *p, const void *q)
{
	const struct xy *a = p, *b = q;
	if (a->x != b->x)
		return a->x < b->x ? -1 : 1;
	return (a->y > b->y) - (a->y < b->y);
}

/* Distinct (x, y) points among the n present ones of the sample; tmp holds n. */
static size_t distinct_points(const double *x, const double *y, size_t n, struct xy *tmp)
{
	size_t m = 0;
	for (size_t k = 0; k < n; k++)
		if (!pmcf_is_missing(x[k]) && !pmcf_is_missing(y[k]))
			tmp[m++] = (struct xy){x[k], y[k]};
	qsort(tmp, m, sizeof(*tmp), cmp_xy);
	size_t d = 0;
	for (size_t k = 0; k < m; k++)
		d += !k || tmp[k].x != tmp[k - 1].x || tmp[k].y != tmp[k - 1].y;
	return d;
}

/* Whether column c (n XUs) is near-constant: at most two distinct values
 * (a 0/1 event: its scatter plot is two lines) or one value held by 95 % of
 * the XUs that have one. tmp holds n doubles. */
static int near_constant(const double *c, size_t n, double *tmp)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (!pmcf_is_missing(c[i]))
			tmp[m++] = c[i];
	if (m < 2)
		return 1;
	qsort(tmp, m, sizeof(double), pmcfi_report_cmp_dbl);
	size_t distinct = 0, run = 0, longest = 0;
	for (size_t k = 0; k < m; k++) {
		if (!k || tmp[k] != tmp[k - 1])
			distinct++, run = 0;
		run++;
		longest = run > longest ? run : longest;
	}
	return distinct <= 2 || (double)longest >= 0.95 * (double)m;
}

/* Candidate events: all but duration and near-constant events (at most two
 * distinct values, or one value at 95 % of the XUs), unless fewer than two
 * remain; of identical columns (aliases counted in one execution) the first
 * only. Returns the count written to evs. */
static size_t candidate_events(const struct pmcfi_report *r, size_t *evs)
{
	const pmcf_profile *p = r->p;
	size_t ne = 0;
	double *tmp = malloc((r->nxus ? r->nxus : 1) * sizeof(double));
	for (size_t e = 0; e < r->nev; e++) {
		const double *c = pmcf_profile_column_const(p, e);
		int varies;
		if (tmp)
			varies = !near_constant(c, r->nxus, tmp);
		else { /* out of memory: only constant events are left out */
			double first = PMCF_MISSING;
			varies = 0;
			for (size_t i = 0; i < r->nxus && !varies; i++) {
				if (pmcf_is_missing(c[i]))
					continue;
				if (pmcf_is_missing(first))
					first = c[i];
				else
					varies = c[i] != first;
			}
		}
		if (varies && strcmp(pmcf_profile_event_name(p, e), "duration") != 0)
			evs[ne++] = e;
	}
	free(tmp);
	if (ne < 2) {
		ne = 0;
		for (size_t e = 0; e < r->nev; e++)
			evs[ne++] = e;
	}
	size_t ne2 = 0;
	for (size_t i = 0; i < ne; i++) {
		const double *ci = pmcf_profile_column_const(p, evs[i]);
		int same = 0;
		for (size_t j = 0; j < ne2 && !same; j++) {
			const double *cj = pmcf_profile_column_const(p, evs[j]);
			same = 1;
			for (size_t k = 0; k < r->nxus && same; k++)
				same = ci[k] == cj[k] || (pmcf_is_missing(ci[k]) && pmcf_is_missing(cj[k]));
		}
		if (!same)
			evs[ne2++] = evs[i];
	}
	return ne2;
}

size_t pmcfi_report_choose_pairs(struct pmcfi_report *r, const struct pmcfi_report_pair *user, size_t nuser,
				 unsigned want, struct pmcfi_report_pair *out, size_t cap)
{
	const pmcf_profile *p = r->p;
	size_t n = 0;
	for (size_t k = 0; k < nuser && n < cap; k++)
		out[n++] = user[k];
	if (!want)
		return n;
	size_t *evs = malloc((r->nev ? r->nev : 1) * sizeof(size_t));
	if (!evs)
		return n;
	size_t ne = candidate_events(r, evs);
	size_t npairs = ne * (ne - (ne ? 1 : 0)) / 2;
	struct pmcfi_report_pair *cand = calloc(npairs ? npairs : 1, sizeof(*cand));
	/* a strided sample of XUs for the rank correlations and distinct points */
	size_t step = r->nxus > REPORT_SELECT_SAMPLE
			      ? (r->nxus + REPORT_SELECT_SAMPLE - 1) / REPORT_SELECT_SAMPLE
			      : 1;
	size_t ns = r->nxus ? (r->nxus + step - 1) / step : 0;
	double *sx = malloc((ns ? ns : 1) * sizeof(double)), *sy = malloc((ns ? ns : 1) * sizeof(double));
	struct xy *tmp = malloc((ns ? ns : 1) * sizeof(*tmp));
	size_t nc = 0;
	if (cand && sx && sy && tmp) {
		for (size_t i = 0; i < ne; i++)
			for (size_t j = i + 1; j < ne; j++) {
				struct pmcfi_report_pair c = {evs[i], evs[j], 0, NAN, NAN, NAN, 0};
				const char *na = pmcf_profile_event_name(p, c.a),
					   *nb = pmcf_profile_event_name(p, c.b);
				if (r->epd) {
					const pmcf_epd_pair *e = pmcfi_report_epd_find(r, na, nb);
					if (!e)
						continue;
					c.score = c.tmd = e->tmd;
					c.spread = e->spread;
				} else {
					const double *ca = pmcf_profile_column_const(p, c.a);
					const double *cb = pmcf_profile_column_const(p, c.b);
					for (size_t k = 0, s = 0; k < r->nxus; k += step, s++) {
						sx[s] = ca[k];
						sy[s] = cb[k];
					}
					size_t d = distinct_points(sx, sy, ns, tmp);
					if (d < 3)
						continue;
					/* many distinct points and events that do not predict
					 * each other: a plot with structure, not a line or a
					 * handful of dots */
					c.rho = pmcf_spearman(sx, sy, ns);
					c.score = log2(1.0 + (double)d) * (1.2 - fabs(c.rho));
				}
				cand[nc++] = c;
			}
		qsort(cand, nc, sizeof(*cand), cmp_pair_desc);
		unsigned *uses = calloc(r->nev ? r->nev : 1, sizeof(unsigned));
		size_t chosen = 0;
		for (size_t pass = 0; pass < 2 && uses; pass++)
			for (size_t k = 0; k < nc && chosen < want && n < cap; k++) {
				struct pmcfi_report_pair *c = &cand[k];
				if (c->user < 0)
					continue; /* taken in the first pass */
				int dup = 0;
				for (size_t u = 0; u < n; u++)
					dup |= (out[u].a == c->a && out[u].b == c->b) ||
					       (out[u].a == c->b && out[u].b == c->a);
				if (dup || (pass == 0 && (uses[c->a] >= 2 || uses[c->b] >= 2)))
					continue;
				uses[c->a]++;
				uses[c->b]++;
				out[n++] = *c;
				c->user = -1;
				chosen++;
			}
		free(uses);
	}
	free(cand);
	free(sx);
	free(sy);
	free(tmp);
	free(evs);
	return n;
}

/* ---- one scatter plot ----------------------------------------------------------------- */

/* The XUs of one profile with both events: every step-th XU. */
struct cloud {
	const pmcf_profile *prof;
	const double *ca, *cb;
	size_t n, step, points, with_both, infinite;
	double xmin, xmax, ymin, ymax;
	double jx, jy; /* jitter half-width in plot units (0: none) */
};

static void cloud_init(struct cloud *c, const pmcf_profile *prof, const char *a, const char *b, unsigned max)
{
	memset(c, 0, sizeof(*c));
	long ia = pmcf_profile_event_find(prof, a), ib = pmcf_profile_event_find(prof, b);
	c->xmin = c->ymin = INFINITY;
	c->xmax = c->ymax = -INFINITY;
	if (ia < 0 || ib < 0)
		return;
	c->prof = prof;
	c->ca = pmcf_profile_column_const(prof, (size_t)ia);
	c->cb = pmcf_profile_column_const(prof, (size_t)ib);
	c->n = pmcf_profile_nxus(prof);
	for (size_t i = 0; i < c->n; i++)
		c->with_both += !pmcf_is_missing(c->ca[i]) && !pmcf_is_missing(c->cb[i]);
	c->step = c->with_both > max ? (c->with_both + max - 1) / max : 1;
	for (size_t i = 0, k = 0; i < c->n; i++) {
		if (pmcf_is_missing(c->ca[i]) || pmcf_is_missing(c->cb[i]) || k++ % c->step)
			continue;
		if (!isfinite(c->ca[i]) || !isfinite(c->cb[i])) {
			c->infinite++;
			continue;
		}
		c->points++;
		c->xmin = fmin(c->xmin, c->ca[i]);
		c->xmax = fmax(c->xmax, c->ca[i]);
		c->ymin = fmin(c->ymin, c->cb[i]);
		c->ymax = fmax(c->ymax, c->cb[i]);
	}
}

static int plotted(const struct cloud *c, size_t i, size_t *k)
{
	if (pmcf_is_missing(c->ca[i]) || pmcf_is_missing(c->cb[i]) || (*k)++ % c->step)
		return 0;
	return isfinite(c->ca[i]) && isfinite(c->cb[i]);
}

/* Jitter half-width in plot units: 0.3 of the smallest gap between the
 * distinct values of an axis (at most 6 % of the axis) when the plotted
 * values are integers with at most DISCRETE_MAX distinct values (counts
 * that pile up on a few points); else 0. */
static double jitter_width(const struct cloud *c, int y, const struct pmcfi_report_svg_plot *s, double *tmp)
{
	size_t m = 0;
	for (size_t i = 0, k = 0; i < c->n; i++) {
		if (!plotted(c, i, &k))
			continue;
		double v = y ? c->cb[i] : c->ca[i];
		if (v != floor(v))
			return 0;
		tmp[m++] = y ? pmcfi_report_svg_y(s, v) : pmcfi_report_svg_x(s, v);
	}
	qsort(tmp, m, sizeof(double), pmcfi_report_cmp_dbl);
	size_t d = 0;
	double gap = INFINITY;
	for (size_t k = 0; k < m; k++)
		if (!k || tmp[k] != tmp[k - 1]) {
			if (k)
				gap = fmin(gap, tmp[k] - tmp[k - 1]);
			if (++d > DISCRETE_MAX)
				return 0;
		}
	if (d < 2 || !isfinite(gap))
		return d == 1 ? 8 : 0; /* one value: a small spread shows the pile */
	return fmin(gap * 0.3, 60);
}

/* Deterministic jitter in [-1, 1] for XU i (splitmix64). */
static double jit(size_t i, unsigned salt)
{
	uint64_t z = (uint64_t)i * 0x9e3779b97f4a7c15ULL + salt;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return (double)(z >> 11) / (double)(1ULL << 52) - 1.0;
}

static const char *ordinal(size_t k, char *buf, size_t n)
{
	const char *suf = (k % 100 >= 11 && k % 100 <= 13) ? "th"
			  : k % 10 == 1                    ? "st"
			  : k % 10 == 2                    ? "nd"
			  : k % 10 == 3                    ? "rd"
							   : "th";
	snprintf(buf, n, "%zu%s", k, suf);
	return buf;
}

static void axis_label(char *buf, size_t n, const char *event)
{
	snprintf(buf, n, "%s (%s)", event, pmcfi_report_event_unit(event));
}

static void draw_cloud(struct pmcfi_report *r, struct cloud *c, const char *title,
		       const struct pmcfi_report_svg_axis *ax, const struct pmcfi_report_svg_axis *ay,
		       double *tmp)
{
	FILE *h = r->html;
	struct pmcfi_report_svg_plot s;
	size_t nt = pmcf_profile_ntypes(c->prof);
	pmcfi_report_svg_begin(r, &s, 540, 436 + (unsigned)((nt + 3) / 4) * 15, 70,
			       62 + (unsigned)((nt + 3) / 4) * 15, title, ax, ay, "xy");
	c->jx = jitter_width(c, 0, &s, tmp);
	c->jy = jitter_width(c, 1, &s, tmp);
	double alpha = 24.0 / sqrt((double)(c->points ? c->points : 1));
	alpha = fmin(0.85, fmax(0.12, alpha));
	char b1[32], b2[32];
	for (uint32_t t = 0; t < nt; t++) {
		int open = 0;
		for (size_t i = 0, k = 0; i < c->n; i++) {
			pmcf_xu x = PMCF_XU_INIT;
			if (!plotted(c, i, &k) || pmcf_profile_xu_fields_get(c->prof, i, &x) || x.type != t)
				continue;
			if (!open) {
				fprintf(h,
					"<g class=\"pt\" stroke=\"%s\" stroke-opacity=\"%.2f\" stroke-width=\"6\">\n",
					pmcfi_report_type_color(r, c->prof, t), alpha);
				open = 1;
			}
			double px = pmcfi_report_svg_x(&s, c->ca[i]) + c->jx * jit(i, 1);
			double py = pmcfi_report_svg_y(&s, c->cb[i]) + c->jy * jit(i, 2);
			fprintf(h, "<path d=\"M%.1f %.1fh0\"><title>", px, py);
			pmcfi_report_esc(h, pmcfi_report_type_name(c->prof, t));
			fprintf(h, " XU %zu: %s, %s</title></path>\n", i,
				pmcfi_report_num(c->ca[i], b1, sizeof(b1)),
				pmcfi_report_num(c->cb[i], b2, sizeof(b2)));
		}
		if (open)
			fputs("</g>\n", h);
	}
	pmcfi_report_svg_data_end(&s);
	for (uint32_t t = 0; t < nt; t++)
		pmcfi_report_svg_legend(&s, t, pmcfi_report_type_color(r, c->prof, t),
					pmcfi_report_type_name(c->prof, t));
	pmcfi_report_svg_end(&s);
}

static void caption_cloud(FILE *h, const char *who, const struct cloud *c)
{
	char b1[32], b2[32], b3[32];
	if (c->step > 1)
		fprintf(h, " &mdash; %s: plotted %s of %s XUs, every %s", who,
			pmcfi_report_count(c->points, b1, sizeof(b1)),
			pmcfi_report_count(c->with_both, b2, sizeof(b2)), ordinal(c->step, b3, sizeof(b3)));
	if (c->jx > 0 || c->jy > 0)
		fprintf(h, " &mdash; %s: %s%s%s jittered (discrete counts; hover for the exact values)", who,
			c->jx > 0 ? "x" : "", c->jx > 0 && c->jy > 0 ? " and " : "", c->jy > 0 ? "y" : "");
	if (c->infinite)
		fprintf(h, " &mdash; left out: %zu XU%s with an infinite value (%s)", c->infinite,
			c->infinite == 1 ? "" : "s", who);
}

void pmcfi_report_section_scatter(struct pmcfi_report *r, const struct pmcfi_report_pair *pairs,
				  size_t npairs)
{
	FILE *h = r->html;
	const pmcf_profile *p = r->p;
	fputs("<h2 id=\"scatter\">Event pairs</h2>\n", h);
	if (!npairs) {
		fputs("<p>No pair of events with values to plot.</p>\n", h);
		return;
	}
	if (r->epd)
		fputs("<p class=\"note\">Pairs with the highest calibrated TMD against the references (where "
		      "this profile departs most from executions that counted the pair together), at most "
		      "two per event; each beside the same pair in one reference execution, on the same "
		      "axes. Colours are XU types; wheel zooms, drag pans, double click resets; hover a point "
		      "for its XU and values.</p>\n",
		      h);
	else
		fprintf(h,
			"<p class=\"note\">Pairs whose plot shows the most: scored by log<sub>2</sub>(1 + distinct "
			"points) &times; (1.2 &minus; |Spearman&nbsp;&rho;|) on up to %d XUs, so that neither a "
			"handful of piled-up dots nor a straight line is chosen; at most two per event. Colours "
			"are XU types; wheel zooms, drag pans, double click resets; hover a point for its XU and "
			"values.</p>\n",
			REPORT_SELECT_SAMPLE);
	double *tmp = malloc((r->nxus ? r->nxus : 1) * sizeof(double));
	if (!tmp)
		return;
	fputs("<div class=\"grid\">\n", h);
	for (size_t k = 0; k < npairs; k++) {
		const char *a = pmcf_profile_event_name(p, pairs[k].a),
			   *b = pmcf_profile_event_name(p, pairs[k].b);
		struct cloud c, rc;
		cloud_init(&c, p, a, b, r->scatter_max);
		/* the first reference repeat that counted both */
		size_t refk = 0;
		memset(&rc, 0, sizeof(rc));
		for (size_t q = 0; q < r->nrefs && !rc.points; q++) {
			cloud_init(&rc, r->refs[q], a, b, r->scatter_max);
			refk = q;
		}
		if (!c.points && !rc.points)
			continue;
		struct pmcfi_report_svg_axis ax = {0}, ay = {0};
		char la[300], lb[300];
		axis_label(la, sizeof(la), a);
		axis_label(lb, sizeof(lb), b);
		ax.label = la;
		ay.label = lb;
		ax.unit = pmcfi_report_event_unit(a);
		ay.unit = pmcfi_report_event_unit(b);
		double xmin = c.xmin, xmax = c.xmax, ymin = c.ymin, ymax = c.ymax;
		if (rc.points) {
			xmin = fmin(xmin, rc.xmin);
			xmax = fmax(xmax, rc.xmax);
			ymin = fmin(ymin, rc.ymin);
			ymax = fmax(ymax, rc.ymax);
		}
		pmcfi_report_svg_axis_fit(&ax, xmin, xmax, 1);
		pmcfi_report_svg_axis_fit(&ay, ymin, ymax, 1);
		fputs("<figure>\n", h);
		char title[512];
		const char *what = pmcf_profile_meta_get(p, PMCF_META_STRATEGY);
		snprintf(title, sizeof(title), "this profile%s%s", what ? ": " : "", what ? what : "");
		if (c.points)
			draw_cloud(r, &c, title, &ax, &ay, tmp);
		if (rc.points) {
			snprintf(title, sizeof(title), "reference %s",
				 r->refnames ? r->refnames[refk] : "repeat");
			draw_cloud(r, &rc, title, &ax, &ay, tmp);
		}
		fputs("\n<figcaption>", h);
		pmcfi_report_esc(h, b);
		fputs(" against ", h);
		pmcfi_report_esc(h, a);
		char b1[32], b2[32];
		const pmcf_epd_pair *e = isnan(pairs[k].tmd) ? pmcfi_report_epd_find(r, a, b) : NULL;
		if (!isnan(pairs[k].tmd))
			fprintf(h, " &mdash; TMD %s &plusmn; %s",
				pmcfi_report_num(pairs[k].tmd, b1, sizeof(b1)),
				pmcfi_report_num(pairs[k].spread, b2, sizeof(b2)));
		else if (e)
			fprintf(h, " &mdash; TMD %s &plusmn; %s", pmcfi_report_num(e->tmd, b1, sizeof(b1)),
				pmcfi_report_num(e->spread, b2, sizeof(b2)));
		if (!isnan(pairs[k].rho))
			fprintf(h, " &mdash; Spearman &rho; %.3f", pairs[k].rho);
		if (pairs[k].user)
			fputs(" (requested with --pair)", h);
		fprintf(h, " &mdash; %s XU%s", pmcfi_report_count(c.points, b1, sizeof(b1)),
			c.points == 1 ? "" : "s");
		caption_cloud(h, "this profile", &c);
		if (rc.points)
			caption_cloud(h, "reference", &rc);
		if (ax.log || ay.log)
			fprintf(h, " &mdash; log scale on %s%s%s", ax.log ? "x" : "",
				ax.log && ay.log ? " and " : "", ay.log ? "y" : "");
		fputs("</figcaption>\n</figure>\n", h);
	}
	fputs("</div>\n", h);
	free(tmp);
}
