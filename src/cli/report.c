/* `pmcfuse report`: one self-contained HTML page about a profile — metadata,
 * per-type statistics and derived metrics, scatter plots of the most
 * informative event pairs, TMD heat map, match distances and HEM coverage.
 * Plots are drawn by gnuplot (pngcairo) in a temporary folder and embedded
 * as data: URIs. */
#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <getopt.h>
#include <glob.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cli/campaign.h"
#include "cli/cli.h"
#include "cli/refdir.h"
#include "pmcfuse/combine.h"
#include "pmcfuse/evaluate.h"

static const char usage[] =
	"usage: pmcfuse report -o report.html [--plots N] [--pair A,B]... [--bins B] PROFILE [REFDIR]\n\n"
	"Writes one self-contained HTML page (plots embedded, no other files) about\n"
	"PROFILE: its metadata; per XU type the count, duration and the quartiles of\n"
	"every event, with derived metrics when their events are present (IPC, miss\n"
	"rates, branch misprediction rate); scatter plots of XUs for the most\n"
	"informative event pairs; the match distances of a fused profile; the\n"
	"multiplexing coverage of a HEM profile. With REFDIR (from pmcfuse reference)\n"
	"it adds the EPD, the calibrated TMD of every event pair as a heat map, and\n"
	"shows each scatter plot beside the same pair in a reference execution.\n\n"
	"Pairs are chosen, without REFDIR, by the lowest |Spearman| over the XUs (the\n"
	"events least predictable from each other; constant events are skipped); with\n"
	"REFDIR by the highest TMD (where the profile departs most from the\n"
	"references); at most two plots per event. Plots are drawn with gnuplot (set\n"
	"PMCF_GNUPLOT to use another binary).\n\n"
	"  -o FILE      the HTML file to write (required; '-' for standard output)\n"
	"  --plots N    scatter plots of chosen pairs (default 6, 0 to 40)\n"
	"  --pair A,B   also plot this pair (repeatable, shown first)\n"
	"  --bins B     TMD bins per event (default 10)\n"
	"  --force      use references of another program run, or identical copies\n";

#define VERB "report"
#define MAX_USER_PAIRS 16
#define SCATTER_MAX_POINTS 20000
#define SELECT_SAMPLE 4000

/* ---- small helpers ----------------------------------------------------------- */

static void html_esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

/* A gnuplot single-quoted string: quotes doubled. */
static void gp_str(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; s && *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		if (*s != '\n')
			fputc(*s, f);
	}
	fputc('\'', f);
}

/* Numbers for tables: 4 significant digits, exponent without '+0'. */
static const char *fmt_num(double v, char *buf, size_t n)
{
	if (pmcf_is_missing(v) || !isfinite(v)) {
		snprintf(buf, n, pmcf_is_missing(v) ? "&ndash;" : v > 0 ? "&infin;" : "&minus;&infin;");
		return buf;
	}
	if (v == floor(v) && fabs(v) < 1e5)
		snprintf(buf, n, "%.0f", v);
	else
		snprintf(buf, n, "%.4g", v);
	char *e = strchr(buf, 'e');
	if (e) {
		char *d = e + 1;
		int neg = *d == '-';
		if (*d == '+' || *d == '-')
			d++;
		while (*d == '0' && d[1])
			d++;
		char tail[16];
		snprintf(tail, sizeof(tail), "%s%s", neg ? "-" : "", d);
		snprintf(e, n - (size_t)(e - buf), "e%s", tail);
	}
	return buf;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Linear-interpolated quantile of sorted v[0..n). */
static double quantile(const double *v, size_t n, double q)
{
	if (!n)
		return PMCF_MISSING;
	double pos = q * (double)(n - 1);
	size_t i = (size_t)pos;
	if (i + 1 >= n)
		return v[n - 1];
	return v[i] + (pos - (double)i) * (v[i + 1] - v[i]);
}

/* ---- the report state ----------------------------------------------------------- */

struct report {
	const pmcf_profile *p;
	pmcf_profile **refs;
	size_t nrefs;
	char **refnames; /* base names of the references, or NULL */
	const char *path;
	char *tmpdir;
	FILE *html, *gp; /* memory streams */
	char *html_buf, *gp_buf;
	size_t html_len, gp_len;
	unsigned nimg;
	size_t ntypes, nxus, nev;
	uint32_t *type_of; /* type of every XU */
	pmcf_epd_result *epd;
	int epd_err;
	double correrr;
	unsigned bins;
};

/* A new image name "imgN.png", its gnuplot output line, and the HTML tag. */
static unsigned img_begin(struct report *r, unsigned w, unsigned h)
{
	unsigned k = r->nimg++;
	fprintf(r->gp, "set terminal pngcairo noenhanced size %u,%u font 'sans,10'\n"
		       "set output 'img%u.png'\nreset\n",
		w, h, k);
	return k;
}

static void img_tag(struct report *r, unsigned k, const char *alt)
{
	fprintf(r->html, "<img src=\"@@IMG:img%u.png@@\" alt=\"", k);
	html_esc(r->html, alt);
	fputs("\">", r->html);
}

static FILE *data_open(struct report *r, const char *name)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", r->tmpdir, name);
	return fopen(path, "w");
}

/* ---- metadata and types ------------------------------------------------------------ */

static void section_meta(struct report *r)
{
	FILE *h = r->html;
	const pmcf_profile *p = r->p;
	fputs("<h2 id=\"meta\">Run</h2>\n<table class=\"kv\">\n", h);
	fprintf(h, "<tr><th>file</th><td>");
	html_esc(h, r->path);
	fprintf(h, "</td></tr>\n<tr><th>XUs</th><td>%zu</td></tr>\n<tr><th>XU types</th><td>%zu</td></tr>\n"
		   "<tr><th>events</th><td>%zu</td></tr>\n",
		r->nxus, r->ntypes, r->nev);
	uint32_t nr;
	size_t *rc = cli_rank_counts(p, &nr);
	if (rc) { /* an MPI program: XUs per rank (docs/collector.md) */
		fprintf(h, "<tr><th>MPI ranks</th><td>%u:", nr);
		for (uint32_t k = 0; k < nr; k++)
			fprintf(h, "%s rank %u %zu XUs", k ? "," : "", k, rc[k]);
		fputs("</td></tr>\n", h);
		free(rc);
	}
	fprintf(h, "<tr><th>layers</th><td>%s%s%s%s</td></tr>\n",
		pmcf_profile_ntruth(p) ? "truth " : "", pmcf_profile_has_provenance(p) ? "provenance " : "",
		pmcf_profile_has_coverage(p) ? "coverage " : "",
		!pmcf_profile_ntruth(p) && !pmcf_profile_has_provenance(p) && !pmcf_profile_has_coverage(p)
			? "none"
			: "");
	for (size_t i = 0; i < pmcf_profile_meta_count(p); i++) {
		const char *k, *v;
		if (pmcf_profile_meta_at(p, i, &k, &v))
			continue;
		fputs("<tr><th>", h);
		html_esc(h, k);
		fputs("</th><td>", h);
		html_esc(h, v);
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
			html_esc(h, path);
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
static size_t type_quartiles(const struct report *r, const double *col, long t, double *scratch,
			     double q[3])
{
	size_t m = 0;
	for (size_t i = 0; i < r->nxus; i++)
		if ((t < 0 || r->type_of[i] == (uint32_t)t) && !pmcf_is_missing(col[i]))
			scratch[m++] = col[i];
	qsort(scratch, m, sizeof(double), cmp_dbl);
	q[0] = quantile(scratch, m, 0.25);
	q[1] = quantile(scratch, m, 0.5);
	q[2] = quantile(scratch, m, 0.75);
	return m;
}

static void section_types(struct report *r, double *scratch, double *ratio)
{
	FILE *h = r->html;
	const pmcf_profile *p = r->p;
	size_t *count = calloc(r->ntypes ? r->ntypes : 1, sizeof(size_t));
	double *dur = calloc(r->ntypes ? r->ntypes : 1, sizeof(double));
	if (!count || !dur)
		goto out;
	double total = 0;
	for (size_t i = 0; i < r->nxus; i++) {
		pmcf_xu x;
		if (pmcf_profile_xu_get(p, i, &x))
			continue;
		count[x.type]++;
		dur[x.type] += (double)(x.end_ns - x.start_ns);
		total += (double)(x.end_ns - x.start_ns);
	}
	char b1[64], b2[64];
	fputs("<h2 id=\"types\">XU types</h2>\n<table class=\"num\">\n"
	      "<tr><th>type</th><th>kind</th><th>location</th><th>XUs</th><th>total time (ms)</th>"
	      "<th>share of time</th></tr>\n",
	      h);
	for (uint32_t t = 0; t < r->ntypes; t++) {
		pmcf_xu_type ty;
		if (pmcf_profile_type_get(p, t, &ty))
			continue;
		fputs("<tr><td class=\"l\"><a href=\"#type", h);
		fprintf(h, "%u\">", t);
		html_esc(h, ty.name);
		fprintf(h, "</a></td><td class=\"l\">%s</td><td class=\"l\">", pmcf_xu_kind_name(ty.kind));
		html_esc(h, ty.location);
		fprintf(h, "</td><td>%zu</td><td>%s</td><td>%.1f%%</td></tr>\n", count[t],
			fmt_num(dur[t] / 1e6, b1, sizeof(b1)), total > 0 ? 100 * dur[t] / total : 0.0);
	}
	fputs("</table>\n<div class=\"cards\">\n", h);

	for (uint32_t t = 0; t < r->ntypes; t++) {
		pmcf_xu_type ty;
		if (pmcf_profile_type_get(p, t, &ty) || !count[t])
			continue;
		fprintf(h, "<div class=\"card\"><h3 id=\"type%u\">", t);
		html_esc(h, ty.name);
		fprintf(h, " <small>(%s, %zu XUs)</small></h3>\n", pmcf_xu_kind_name(ty.kind), count[t]);
		fputs("<table class=\"num\">\n<tr><th>event</th><th>values</th><th>Q1</th><th>median</th>"
		      "<th>Q3</th></tr>\n",
		      h);
		for (size_t ev = 0; ev < r->nev; ev++) {
			double q[3];
			size_t m = type_quartiles(r, pmcf_profile_column_const(p, ev), t, scratch, q);
			fputs("<tr><td class=\"l\">", h);
			html_esc(h, pmcf_profile_event_name(p, ev));
			fprintf(h, "</td><td>%zu</td>", m);
			for (int k = 0; k < 3; k++)
				fprintf(h, "<td>%s</td>", fmt_num(q[k], b1, sizeof(b1)));
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
			html_esc(h, dm->num);
			fputs(" / ", h);
			html_esc(h, dm->den);
			if (dm->scale != 1)
				fprintf(h, " &times; %g", dm->scale);
			fprintf(h, "\">%s</td><td>%s</td>", dm->name, fmt_num(sa / sb * dm->scale, b2, sizeof(b2)));
			for (int k = 0; k < 3; k++)
				fprintf(h, "<td>%s</td>", fmt_num(q[k], b1, sizeof(b1)));
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

/* ---- scatter plots ---------------------------------------------------------------- */

struct pair {
	size_t a, b;  /* event indices in the profile */
	double score; /* |rho| (lower first) or TMD (higher first) */
	double tmd, spread;
	int user;
};

static int cmp_pair_asc(const void *x, const void *y)
{
	const struct pair *a = x, *b = y;
	if (a->score != b->score)
		return a->score < b->score ? -1 : 1;
	return a->a != b->a ? (a->a < b->a ? -1 : 1) : (a->b > b->b) - (a->b < b->b);
}

static int cmp_pair_desc(const void *x, const void *y)
{
	const struct pair *a = x, *b = y;
	if (a->score != b->score)
		return a->score > b->score ? -1 : 1;
	return a->a != b->a ? (a->a < b->a ? -1 : 1) : (a->b > b->b) - (a->b < b->b);
}

static const pmcf_epd_pair *epd_find(const struct report *r, const char *a, const char *b)
{
	if (!r->epd)
		return NULL;
	for (size_t k = 0; k < pmcf_epd_npairs(r->epd); k++) {
		const pmcf_epd_pair *e = pmcf_epd_pair_at(r->epd, k);
		if ((!strcmp(e->a, a) && !strcmp(e->b, b)) || (!strcmp(e->a, b) && !strcmp(e->b, a)))
			return e;
	}
	return NULL;
}

/* Chooses the pairs to plot: user pairs first, then by score, each event
 * in at most two chosen pairs. Returns the count written to out. */
static size_t choose_pairs(struct report *r, const struct pair *user, size_t nuser, unsigned want,
			   struct pair *out, size_t cap)
{
	const pmcf_profile *p = r->p;
	size_t n = 0;
	for (size_t k = 0; k < nuser && n < cap; k++)
		out[n++] = user[k];
	if (!want)
		return n;
	/* candidate events: all but duration and events constant over the XUs
	 * (they show nothing), unless fewer than two remain */
	size_t *evs = malloc((r->nev ? r->nev : 1) * sizeof(size_t)), ne = 0;
	if (!evs)
		return n;
	for (size_t e = 0; e < r->nev; e++) {
		const double *c = pmcf_profile_column_const(p, e);
		double first = PMCF_MISSING;
		int varies = 0;
		for (size_t i = 0; i < r->nxus && !varies; i++) {
			if (pmcf_is_missing(c[i]))
				continue;
			if (pmcf_is_missing(first))
				first = c[i];
			else
				varies = c[i] != first;
		}
		if (varies && strcmp(pmcf_profile_event_name(p, e), "duration") != 0)
			evs[ne++] = e;
	}
	if (ne < 2) {
		ne = 0;
		for (size_t e = 0; e < r->nev; e++)
			evs[ne++] = e;
	}
	/* events whose column is identical to an earlier one's (aliases counted
	 * in one execution) are plotted through the earlier one only */
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
	ne = ne2;
	size_t npairs = ne * (ne - (ne ? 1 : 0)) / 2;
	struct pair *cand = calloc(npairs ? npairs : 1, sizeof(*cand));
	/* a strided sample of XUs for the rank correlations */
	size_t step = r->nxus > SELECT_SAMPLE ? (r->nxus + SELECT_SAMPLE - 1) / SELECT_SAMPLE : 1;
	size_t ns = r->nxus ? (r->nxus + step - 1) / step : 0;
	double *sx = malloc((ns ? ns : 1) * sizeof(double)), *sy = malloc((ns ? ns : 1) * sizeof(double));
	size_t nc = 0;
	if (cand && sx && sy) {
		for (size_t i = 0; i < ne; i++)
			for (size_t j = i + 1; j < ne; j++) {
				struct pair c = {evs[i], evs[j], 0, NAN, NAN, 0};
				const char *na = pmcf_profile_event_name(p, c.a), *nb = pmcf_profile_event_name(p, c.b);
				if (r->epd) {
					const pmcf_epd_pair *e = epd_find(r, na, nb);
					if (!e)
						continue;
					c.score = c.tmd = e->tmd;
					c.spread = e->spread;
				} else {
					const double *ca = pmcf_profile_column_const(p, c.a);
					const double *cb = pmcf_profile_column_const(p, c.b);
					size_t both = 0;
					for (size_t k = 0, s = 0; k < r->nxus; k += step, s++) {
						sx[s] = ca[k];
						sy[s] = cb[k];
						both += !pmcf_is_missing(ca[k]) && !pmcf_is_missing(cb[k]);
					}
					if (both < 3)
						continue;
					c.score = fabs(pmcf_spearman(sx, sy, ns));
				}
				cand[nc++] = c;
			}
		qsort(cand, nc, sizeof(*cand), r->epd ? cmp_pair_desc : cmp_pair_asc);
		unsigned *uses = calloc(r->nev ? r->nev : 1, sizeof(unsigned));
		size_t chosen = 0;
		for (size_t pass = 0; pass < 2 && uses; pass++)
			for (size_t k = 0; k < nc && chosen < want && n < cap; k++) {
				struct pair *c = &cand[k];
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
	free(evs);
	return n;
}

/* Writes the XUs of prof with both events a and b (by name) as one gnuplot
 * data block per type into f; fills range and per-type block presence. */
struct range {
	double xmin, xmax, ymin, ymax;
	size_t points, infinite; /* plotted; left out for an infinite value */
};

static void range_init(struct range *g)
{
	g->xmin = g->ymin = INFINITY;
	g->xmax = g->ymax = -INFINITY;
	g->points = g->infinite = 0;
}

/* Returns the number of blocks written; block k's type index in types[k]. */
static size_t write_scatter(FILE *f, const pmcf_profile *prof, const char *a, const char *b,
			    struct range *g, uint32_t *types, size_t maxtypes)
{
	long ia = pmcf_profile_event_find(prof, a), ib = pmcf_profile_event_find(prof, b);
	if (ia < 0 || ib < 0)
		return 0;
	const double *ca = pmcf_profile_column_const(prof, (size_t)ia);
	const double *cb = pmcf_profile_column_const(prof, (size_t)ib);
	size_t n = pmcf_profile_nxus(prof), nt = pmcf_profile_ntypes(prof), blocks = 0;
	size_t step = n > SCATTER_MAX_POINTS ? (n + SCATTER_MAX_POINTS - 1) / SCATTER_MAX_POINTS : 1;
	for (uint32_t t = 0; t < nt && blocks < maxtypes; t++) {
		size_t wrote = 0;
		for (size_t i = 0; i < n; i += step) {
			pmcf_xu x;
			if (pmcf_profile_xu_get(prof, i, &x) || x.type != t)
				continue;
			if (pmcf_is_missing(ca[i]) || pmcf_is_missing(cb[i]))
				continue;
			if (!isfinite(ca[i]) || !isfinite(cb[i])) {
				g->infinite++; /* gnuplot cannot place it: said in the caption */
				continue;
			}
			if (!wrote && blocks)
				fputs("\n\n", f);
			fprintf(f, "%.17g %.17g\n", ca[i], cb[i]);
			wrote++;
			g->xmin = fmin(g->xmin, ca[i]);
			g->xmax = fmax(g->xmax, ca[i]);
			g->ymin = fmin(g->ymin, cb[i]);
			g->ymax = fmax(g->ymax, cb[i]);
		}
		if (wrote) {
			types[blocks++] = t;
			g->points += wrote;
		}
	}
	return blocks;
}

/* Index of the XU type of prof named like type t of the report's profile. */
static const char *type_name(const pmcf_profile *prof, uint32_t t)
{
	pmcf_xu_type ty;
	return pmcf_profile_type_get(prof, t, &ty) ? "?" : ty.name;
}

static unsigned type_color(const struct report *r, const pmcf_profile *prof, uint32_t t)
{
	/* same colour for the same type name in the profile and a reference */
	const char *name = type_name(prof, t);
	for (uint32_t k = 0; k < r->ntypes; k++)
		if (!strcmp(type_name(r->p, k), name))
			return k % 8 + 1;
	return t % 8 + 1;
}

static const char *palette[8] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
				 "#9467bd", "#8c564b", "#e377c2", "#17becf"};

/* "set Xrange [lo:hi]" around the finite values [min, max], padded (a log
 * scale beyond a ratio of 100); no bound overflows to inf, which gnuplot
 * does not read, even for values near DBL_MAX. */
static void gp_range(FILE *s, char axis, double min, double max)
{
	double lo, hi;
	if (min > 0 && max / min >= 100) {
		fprintf(s, "set logscale %c\n", axis);
		lo = min / 1.3;
		hi = max * 1.3;
	} else {
		double pad = (max / 2 - min / 2) * 0.08; /* halves: max - min may overflow */
		lo = min - pad - (pad == 0);
		hi = max + pad + (pad == 0);
	}
	fprintf(s, "set %crange [%.17g:%.17g]\n", axis, fmax(lo, -DBL_MAX), fmin(hi, DBL_MAX));
}

static void gp_scatter(struct report *r, const char *file, const pmcf_profile *prof, const uint32_t *types,
		       size_t blocks, const char *title, const char *a, const char *b,
		       const struct range *g)
{
	FILE *s = r->gp;
	fputs("set title ", s);
	gp_str(s, title);
	fputs("\nset xlabel ", s);
	gp_str(s, a);
	fputs("\nset ylabel ", s);
	gp_str(s, b);
	fputs("\nset grid lc rgb '#dddddd'\nset key below horizontal\n"
	      "set format x '%.3g'\nset format y '%.3g'\n", s);
	gp_range(s, 'x', g->xmin, g->xmax);
	gp_range(s, 'y', g->ymin, g->ymax);
	fputs("plot ", s);
	if (!blocks)
		fputs("NaN notitle", s);
	for (size_t k = 0; k < blocks; k++) {
		fprintf(s, "%s'%s' index %zu using 1:2 with points pt 7 ps 0.45 lc rgb '%s' title ", k ? ", " : "",
			file, k, palette[type_color(r, prof, types[k]) - 1]);
		gp_str(s, type_name(prof, types[k]));
	}
	fputs("\n", s);
}

static void section_scatter(struct report *r, const struct pair *pairs, size_t npairs)
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
		      "axes. Colours are XU types.</p>\n",
		      h);
	else
		fputs("<p class=\"note\">Pairs with the lowest |Spearman rank correlation| over the XUs "
		      "(the events least predictable from each other, so the plot shows structure a single "
		      "event does not), at most two per event. Colours are XU types.</p>\n",
		      h);
	uint32_t *types = malloc((r->ntypes ? r->ntypes : 1) * sizeof(uint32_t));
	uint32_t *rtypes = NULL;
	if (!types)
		return;
	for (size_t k = 0; k < npairs; k++) {
		const char *a = pmcf_profile_event_name(p, pairs[k].a), *b = pmcf_profile_event_name(p, pairs[k].b);
		char file[64], rfile[64];
		snprintf(file, sizeof(file), "scatter%zu.dat", k);
		FILE *f = data_open(r, file);
		if (!f)
			continue;
		struct range g;
		range_init(&g);
		size_t blocks = write_scatter(f, p, a, b, &g, types, r->ntypes);
		fclose(f);
		/* the first reference repeat that counted both */
		const pmcf_profile *ref = NULL;
		size_t refk = 0, rblocks = 0;
		struct range rg;
		range_init(&rg);
		for (size_t q = 0; q < r->nrefs && !ref; q++) {
			if (pmcf_profile_event_find(r->refs[q], a) < 0 || pmcf_profile_event_find(r->refs[q], b) < 0)
				continue;
			snprintf(rfile, sizeof(rfile), "scatter%zu_ref.dat", k);
			FILE *rf = data_open(r, rfile);
			if (!rf)
				break;
			free(rtypes);
			size_t rnt = pmcf_profile_ntypes(r->refs[q]);
			rtypes = malloc((rnt ? rnt : 1) * sizeof(uint32_t));
			if (rtypes)
				rblocks = write_scatter(rf, r->refs[q], a, b, &rg, rtypes, rnt);
			fclose(rf);
			if (rblocks) {
				ref = r->refs[q];
				refk = q;
			}
		}
		struct range all = g;
		if (ref) {
			all.xmin = fmin(all.xmin, rg.xmin);
			all.xmax = fmax(all.xmax, rg.xmax);
			all.ymin = fmin(all.ymin, rg.ymin);
			all.ymax = fmax(all.ymax, rg.ymax);
		}
		if (!g.points && !rg.points)
			continue;
		if (!isfinite(all.xmin)) {
			all.xmin = all.ymin = 0;
			all.xmax = all.ymax = 1;
		}
		fputs("<figure>\n", h);
		char title[512], alt[512];
		const char *what = pmcf_profile_meta_get(p, PMCF_META_STRATEGY);
		snprintf(title, sizeof(title), "this profile%s%s (%zu XUs)", what ? ": " : "", what ? what : "",
			 g.points);
		unsigned im = img_begin(r, 560, 420);
		gp_scatter(r, file, p, types, blocks, title, a, b, &all);
		snprintf(alt, sizeof(alt), "scatter plot of %s against %s", b, a);
		img_tag(r, im, alt);
		if (ref) {
			snprintf(title, sizeof(title), "reference %s (%zu XUs)",
				 r->refnames ? r->refnames[refk] : "repeat", rg.points);
			im = img_begin(r, 560, 420);
			gp_scatter(r, rfile, ref, rtypes, rblocks, title, a, b, &all);
			snprintf(alt, sizeof(alt), "reference scatter plot of %s against %s", b, a);
			img_tag(r, im, alt);
		}
		fputs("\n<figcaption>", h);
		html_esc(h, b);
		fputs(" against ", h);
		html_esc(h, a);
		char b1[32], b2[32];
		if (!isnan(pairs[k].tmd))
			fprintf(h, " &mdash; TMD %s &plusmn; %s", fmt_num(pairs[k].tmd, b1, sizeof(b1)),
				fmt_num(pairs[k].spread, b2, sizeof(b2)));
		else if (r->epd) {
			const pmcf_epd_pair *e = epd_find(r, a, b);
			if (e)
				fprintf(h, " &mdash; TMD %s &plusmn; %s", fmt_num(e->tmd, b1, sizeof(b1)),
					fmt_num(e->spread, b2, sizeof(b2)));
		}
		if (!r->epd) {
			double rho = pairs[k].user ? NAN : pairs[k].score;
			if (!isnan(rho))
				fprintf(h, " &mdash; |Spearman| %.3f (on up to %d XUs)", rho, SELECT_SAMPLE);
		}
		if (pairs[k].user)
			fputs(" (requested with --pair)", h);
		if (g.infinite || rg.infinite)
			fprintf(h, " &mdash; left out: %zu XUs%s with an infinite value", g.infinite + rg.infinite,
				rg.infinite ? " (here and in the reference)" : "");
		fputs("</figcaption>\n</figure>\n", h);
	}
	free(types);
	free(rtypes);
}

/* ---- TMD heat map --------------------------------------------------------------------- */

static void section_tmd(struct report *r)
{
	FILE *h = r->html;
	const pmcf_profile *p = r->p;
	char b1[32], b2[32], b3[32], b4[32];
	fputs("<h2 id=\"accuracy\">Accuracy against the references</h2>\n", h);
	if (!r->epd) {
		fprintf(h, "<p>No EPD: %s.</p>\n",
			r->epd_err == PMCF_ENOENT ? "no event pair of this profile was counted by two references"
						  : "it could not be computed");
		return;
	}
	size_t np = pmcf_epd_npairs(r->epd);
	fprintf(h, "<p><b>EPD %s</b> over %zu event pairs (%u bins, %zu reference profiles; 1 = as close as a "
		   "fresh reference execution)",
		fmt_num(pmcf_epd_value(r->epd), b1, sizeof(b1)), np, r->bins, r->nrefs);
	if (pmcf_epd_uncovered(r->epd))
		fprintf(h, "; %zu pairs not scored (fewer than two references counted them)",
			pmcf_epd_uncovered(r->epd));
	if (!isnan(r->correrr))
		fprintf(h, ". <b>Correlation Error %.4f</b> (0 = the references&rsquo; rank correlations, at most 2)",
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
	FILE *f = data_open(r, "tmd.dat");
	double lo = INFINITY, hi = -INFINITY;
	if (f) {
		for (size_t y = 0; y < m; y++)
			for (size_t x = 0; x < m; x++) {
				const pmcf_epd_pair *q =
					x == y ? NULL
					       : epd_find(r, pmcf_profile_event_name(p, idx[x]),
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
		unsigned im = img_begin(r, side + 60, side);
		FILE *s = r->gp;
		if (hi <= lo * 1.01)
			hi = lo * 1.01 + 1e-9;
		fprintf(s, "set title 'calibrated TMD per event pair (log colour scale; 1 = run-to-run noise)'\n"
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
			gp_str(s, pmcf_profile_event_name(p, idx[k]));
			fprintf(s, " %zu", k);
		}
		fputs(")\nset ytics (", s);
		for (size_t k = 0; k < m; k++) {
			fputs(k ? ", " : "", s);
			gp_str(s, pmcf_profile_event_name(p, idx[k]));
			fprintf(s, " %zu", k);
		}
		fputs(")\nplot 'tmd.dat' using 1:2:(0.5):(0.5):3 with boxxyerror fs solid 1.0 noborder "
		      "lc palette\n",
		      s);
		fputs("<figure>", h);
		img_tag(r, im, "heat map of the calibrated TMD of every event pair");
		fputs("<figcaption>Calibrated TMD of every scored pair: how far the joint distribution of the XUs "
		      "over the two events is from the references, in units of their run-to-run noise. Blank: "
		      "pair not scored.</figcaption></figure>\n",
		      h);
	}
	free(idx);
	/* the worst pairs */
	struct pair *w = malloc((np ? np : 1) * sizeof(*w));
	if (!w)
		return;
	for (size_t k = 0; k < np; k++) {
		w[k].a = w[k].b = k;
		w[k].score = pmcf_epd_pair_at(r->epd, k)->tmd;
		if (isnan(w[k].score))
			w[k].score = -1;
	}
	qsort(w, np, sizeof(*w), cmp_pair_desc);
	fputs("<table class=\"num\">\n<tr><th>event A</th><th>event B</th><th>TMD</th><th>&plusmn;</th>"
	      "<th>uncalibrated</th><th>calibration</th><th>left out</th></tr>\n",
	      h);
	for (size_t k = 0; k < np && k < 10; k++) {
		const pmcf_epd_pair *q = pmcf_epd_pair_at(r->epd, w[k].a);
		fputs("<tr><td class=\"l\">", h);
		html_esc(h, q->a);
		fputs("</td><td class=\"l\">", h);
		html_esc(h, q->b);
		fprintf(h, "</td><td>%s%s</td><td>%s</td><td>%s</td><td>%s</td><td>%.1f%%</td></tr>\n",
			fmt_num(q->tmd, b1, sizeof(b1)), q->worst ? " (worst)" : "",
			fmt_num(q->spread, b2, sizeof(b2)), fmt_num(q->uncalibrated, b3, sizeof(b3)),
			fmt_num(q->calibration, b4, sizeof(b4)), 100 * q->left_out);
	}
	fputs("</table>\n<p class=\"note\">The ten pairs with the highest TMD.</p>\n", h);
	free(w);
}

/* ---- match distances ---------------------------------------------------------------------- */

static void section_match(struct report *r)
{
	pmcf_match_summary s;
	if (pmcf_combine_match_summary(r->p, &s) || !s.measured)
		return;
	FILE *h = r->html;
	char b[6][32];
	fputs("<h2 id=\"match\">Match distances</h2>\n", h);
	fprintf(h, "<p>How well the source XUs of each fused XU agreed on the events they share (root mean "
		   "square of the differences, each divided by the event&rsquo;s range within the XU type; 0 = "
		   "identical). %zu of %zu XUs measured: median %s, p90 %s, p99 %s, max %s, mean %s.</p>\n",
		s.measured, s.xus, fmt_num(s.p50, b[0], 32), fmt_num(s.p90, b[1], 32), fmt_num(s.p99, b[2], 32),
		fmt_num(s.max, b[3], 32), fmt_num(s.mean, b[4], 32));
	FILE *f = data_open(r, "match.dat");
	if (!f)
		return;
	static const char *lab[7] = {"0-.01", ".01-.02", ".02-.05", ".05-.1", ".1-.2", ".2-.5", ">.5"};
	for (int k = 0; k < 7; k++)
		fprintf(f, "%d %s %zu\n", k, lab[k], s.hist[k]);
	fclose(f);
	unsigned im = img_begin(r, 560, 320);
	fputs("set title 'fused XUs per match distance'\nset style fill solid 0.8 noborder\n"
	      "set boxwidth 0.7\nset grid ytics lc rgb '#dddddd'\nunset key\nset ylabel 'XUs'\n"
	      "set xlabel 'match distance'\nset yrange [0:*]\nset xrange [-0.6:6.6]\n"
	      "plot 'match.dat' using 1:3:xtic(2) with boxes lc rgb '#1f77b4'\n",
	      r->gp);
	fputs("<figure>", h);
	img_tag(r, im, "histogram of the match distances");
	fputs("</figure>\n", h);
}

/* ---- multiplexing coverage ----------------------------------------------------------------- */

/* Relations every XU obeys (pmcf_consistency_check), with how many XUs
 * break each: in a fused profile, values from executions that differed. */
static void section_consistency(struct report *r)
{
	pmcf_consistency c[32];
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

static void section_coverage(struct report *r)
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
	FILE *f = data_open(r, "cov.dat");
	if (!f)
		return;
	fputs("<table class=\"num\">\n<tr><th>event</th><th>XUs counted</th><th>running / enabled</th></tr>\n", h);
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
		html_esc(h, name);
		fprintf(h, "</td><td>%.1f%%</td><td>%.1f%%</td></tr>\n", 100 * sc, 100 * sr);
	}
	fclose(f);
	fputs("</table>\n", h);
	if (!rows)
		return;
	unsigned im = img_begin(r, (unsigned)(rows * 24 + 200 < 560 ? 560 : rows * 24 + 200), 380);
	fputs("set title 'multiplexing coverage per event'\nset style data histograms\n"
	      "set style histogram clustered gap 1\nset style fill solid 0.85 noborder\n"
	      "set grid ytics lc rgb '#dddddd'\nset yrange [0:105]\nset ylabel '%'\n"
	      "set xtics rotate by 60 right font ',8'\nset key top right\n"
	      "plot 'cov.dat' using 3:xtic(2) title 'XUs counted' lc rgb '#1f77b4', "
	      "'' using 4 title 'running / enabled time' lc rgb '#ff7f0e'\n",
	      r->gp);
	fputs("<figure>", h);
	img_tag(r, im, "bar chart of the multiplexing coverage per event");
	fputs("</figure>\n", h);
}

/* ---- running gnuplot, assembling the page --------------------------------------------------- */

static void rm_tree(const char *dir)
{
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *de;
		char path[4096];
		while ((de = readdir(d)))
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
				snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
				unlink(path);
			}
		closedir(d);
	}
	rmdir(dir);
}

static int run_gnuplot(struct report *r)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/plots.gp", r->tmpdir);
	FILE *f = fopen(path, "w");
	if (!f)
		return cli_error(VERB, CLI_EENV, "cannot write in '%s': %s", r->tmpdir, strerror(errno));
	fwrite(r->gp_buf, 1, r->gp_len, f);
	if (fclose(f))
		return cli_error(VERB, CLI_EENV, "cannot write in '%s': %s", r->tmpdir, strerror(errno));
	const char *bin = getenv("PMCF_GNUPLOT");
	if (!bin || !*bin)
		bin = "gnuplot";
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return cli_error(VERB, CLI_EENV, "cannot start gnuplot: %s", strerror(errno));
	if (pid == 0) {
		if (chdir(r->tmpdir) == 0 && freopen("gnuplot.log", "w", stderr) && freopen("/dev/null", "w", stdout)) {
			execlp(bin, bin, "plots.gp", (char *)NULL);
			fprintf(stderr, "@@EXEC %s\n", strerror(errno));
			fflush(stderr);
		}
		_exit(127);
	}
	int ws;
	while (waitpid(pid, &ws, 0) < 0)
		if (errno != EINTR)
			return cli_error(VERB, CLI_EENV, "waiting for gnuplot: %s", strerror(errno));
	if (WIFEXITED(ws) && WEXITSTATUS(ws) == 0)
		return CLI_OK;
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
		return cli_error(VERB, CLI_EENV, "cannot run %s: %s (install gnuplot, e.g. apt-get install gnuplot-nox)",
				 bin, line + 7);
	if (WIFSIGNALED(ws))
		return cli_error(VERB, CLI_EENV, "gnuplot was killed by signal %d", WTERMSIG(ws));
	return cli_error(VERB, CLI_EENV, "gnuplot failed (status %d): %s", WEXITSTATUS(ws),
			 line[0] ? line : "no message");
}

static int embed_file(struct report *r, FILE *out, const char *name)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", r->tmpdir, name);
	FILE *f = fopen(path, "rb");
	if (!f)
		return cli_error(VERB, CLI_EENV, "gnuplot wrote no %s", name);
	fputs("data:image/png;base64,", out);
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
		fwrite(enc, 1, o, out);
		if (n < sizeof(in))
			break;
	}
	fclose(f);
	return CLI_OK;
}

static const char css[] =
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
	".card td,.card th{padding:2px 7px}\n";

/* The page's own check that every image decoded: sets data-images-ok on
 * <html> (tests/e2e/report.sh reads it from Chromium's DOM). */
static const char img_check[] =
	"<script>window.addEventListener('load',function(){var im=document.images,ok=0;"
	"for(var i=0;i<im.length;i++)if(im[i].complete&&im[i].naturalWidth>0)ok++;"
	"document.documentElement.setAttribute('data-images',im.length);"
	"document.documentElement.setAttribute('data-images-ok',ok);});</script>\n";

static int write_page(struct report *r, const char *out_path)
{
	struct cli_out o;
	int st = cli_out_open(VERB, out_path, &o);
	if (st)
		return st;
	const char *s = r->html_buf, *end = r->html_buf + r->html_len;
	while (s < end) {
		const char *m = strstr(s, "@@IMG:");
		if (!m) {
			fwrite(s, 1, (size_t)(end - s), o.f);
			break;
		}
		fwrite(s, 1, (size_t)(m - s), o.f);
		const char *e = strstr(m + 6, "@@");
		if (!e)
			break;
		char name[64];
		snprintf(name, sizeof(name), "%.*s", (int)(e - m - 6), m + 6);
		if ((st = embed_file(r, o.f, name))) {
			cli_out_abort(&o);
			return st;
		}
		s = e + 2;
	}
	return cli_out_commit(VERB, &o);
}

static int make_tmpdir(struct report *r)
{
	const char *base = getenv("TMPDIR");
	if (!base || !*base)
		base = "/tmp";
	size_t n = strlen(base) + 32;
	if (!(r->tmpdir = malloc(n)))
		return cli_error(VERB, CLI_EENV, "out of memory");
	snprintf(r->tmpdir, n, "%s/pmcfuse-report.XXXXXX", base);
	if (!mkdtemp(r->tmpdir)) {
		int e = errno;
		free(r->tmpdir);
		r->tmpdir = NULL;
		return cli_error(VERB, CLI_EENV, "cannot create a temporary folder in '%s': %s", base, strerror(e));
	}
	return CLI_OK;
}

static char **ref_names(const char *dir, size_t n)
{
	char pat[4096];
	glob_t g;
	snprintf(pat, sizeof(pat), "%s/*.pmcf", dir);
	if (glob(pat, 0, NULL, &g))
		return NULL;
	char **names = NULL;
	if (g.gl_pathc == n && (names = calloc(n, sizeof(char *))))
		for (size_t k = 0; k < n; k++) {
			const char *b = strrchr(g.gl_pathv[k], '/');
			names[k] = strdup(b ? b + 1 : g.gl_pathv[k]);
		}
	globfree(&g);
	return names;
}

static int build(struct report *r, const struct pair *user, size_t nuser, unsigned nplots)
{
	const pmcf_profile *p = r->p;
	FILE *h = r->html;
	double *scratch = malloc((r->nxus ? r->nxus : 1) * sizeof(double));
	double *ratio = malloc((r->nxus ? r->nxus : 1) * sizeof(double));
	struct pair *pairs = calloc(nuser + nplots + 1, sizeof(*pairs));
	if (!scratch || !ratio || !pairs || (r->nxus && !r->type_of)) {
		free(scratch);
		free(ratio);
		free(pairs);
		return cli_error(VERB, CLI_EENV, "out of memory");
	}
	const char *prog = pmcf_profile_meta_get(p, PMCF_META_PROGRAM);
	const char *src = pmcf_profile_meta_get(p, PMCF_META_SOURCE);
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>pmcfuse report: ", h);
	html_esc(h, prog ? prog : r->path);
	fprintf(h, "</title>\n<style>\n%s</style>\n%s</head>\n<body>\n<h1>pmcfuse report: ", css, img_check);
	html_esc(h, prog ? prog : r->path);
	fputs("</h1>\n<p class=\"note\">", h);
	html_esc(h, src ? src : "unknown");
	fprintf(h, " profile, %zu XUs, %zu events. Generated by pmcfuse %s.</p>\n", r->nxus, r->nev,
		pmcf_version());
	fputs("<nav><a href=\"#meta\">run</a><a href=\"#types\">XU types</a><a href=\"#scatter\">event pairs</a>", h);
	if (r->nrefs)
		fputs("<a href=\"#accuracy\">accuracy</a>", h);
	if (pmcf_profile_has_provenance(p))
		fputs("<a href=\"#match\">match distances</a>", h);
	if (pmcf_profile_has_coverage(p))
		fputs("<a href=\"#coverage\">coverage</a>", h);
	fputs("</nav>\n", h);
	section_meta(r);
	section_types(r, scratch, ratio);
	size_t np = choose_pairs(r, user, nuser, nplots, pairs, nuser + nplots);
	section_scatter(r, pairs, np);
	if (r->nrefs)
		section_tmd(r);
	section_match(r);
	section_consistency(r);
	section_coverage(r);
	fputs("</body>\n</html>\n", h);
	free(scratch);
	free(ratio);
	free(pairs);
	return CLI_OK;
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'}, {"plots", required_argument, NULL, 'n'},
		{"pair", required_argument, NULL, 'p'},   {"bins", required_argument, NULL, 'b'},
		{"force", no_argument, NULL, 'f'},        {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}};
	if (cli_wants_help(argc, argv, usage))
		return CLI_OK;
	const char *out = NULL;
	int force = 0;
	const char *user_names[MAX_USER_PAIRS];
	size_t nuser = 0;
	unsigned long nplots = 6, bins = 10;
	int opt;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+o:", opts, NULL)) != -1) {
		switch (opt) {
		case 'o': out = optarg; break;
		case 'f': force = 1; break;
		case 'n':
			if (cli_parse_uint(VERB, "--plots", optarg, 0, 40, &nplots))
				return CLI_EUSAGE;
			break;
		case 'b':
			if (cli_parse_uint(VERB, "--bins", optarg, 1, 30, &bins))
				return CLI_EUSAGE;
			break;
		case 'p':
			if (nuser == MAX_USER_PAIRS)
				return cli_usage_error(VERB, "at most %d --pair options", MAX_USER_PAIRS);
			if (!strchr(optarg, ','))
				return cli_usage_error(VERB, "--pair needs two events A,B, not '%s'", optarg);
			user_names[nuser++] = optarg;
			break;
		default:
			return cli_usage_error(VERB, "unknown option or missing value '%s'", argv[optind - 1]);
		}
	}
	if (!out)
		return cli_usage_error(VERB, "needs -o FILE");
	if (argc - optind < 1 || argc - optind > 2)
		return cli_usage_error(VERB, "needs PROFILE and optionally REFDIR");

	if (cli_out_not_input(VERB, out, (const char *const *)argv + optind, 1))
		return CLI_EUSAGE;
	struct report r;
	memset(&r, 0, sizeof(r));
	r.path = argv[optind];
	r.bins = (unsigned)bins;
	r.correrr = NAN;
	pmcf_profile *prof = NULL;
	int st = cli_open_profile(VERB, r.path, &prof);
	if (st)
		return st;
	r.p = prof;
	r.nxus = pmcf_profile_nxus(prof);
	r.nev = pmcf_profile_nevents(prof);
	r.ntypes = pmcf_profile_ntypes(prof);
	struct pair user[MAX_USER_PAIRS];
	for (size_t k = 0; k < nuser && st == CLI_OK; k++) {
		char buf[512];
		snprintf(buf, sizeof(buf), "%s", user_names[k]);
		char *comma = strchr(buf, ',');
		*comma = 0;
		long a = pmcf_profile_event_find(prof, buf), b = pmcf_profile_event_find(prof, comma + 1);
		if (a < 0 || b < 0)
			st = cli_error(VERB, CLI_EUSAGE, "--pair %s: '%s' is not an event of '%s'", user_names[k],
				       a < 0 ? buf : comma + 1, r.path);
		user[k] = (struct pair){(size_t)a, (size_t)b, 0, NAN, NAN, 1};
	}
	if (st == CLI_OK && argc - optind == 2) {
		st = refdir_open_for(VERB, argv[optind + 1], prof, r.path, force, &r.refs, &r.nrefs);
		if (st == CLI_OK) {
			r.refnames = ref_names(argv[optind + 1], r.nrefs);
			pmcf_epd_opts eo = PMCF_EPD_OPTS_INIT;
			eo.bins = r.bins;
			r.epd_err = pmcf_epd_compute(prof, (const pmcf_profile *const *)r.refs, r.nrefs, &eo, &r.epd);
			if (r.epd_err == PMCF_ENOMEM)
				st = cli_lib_error(VERB, r.epd_err, "cannot compute the EPD");
			pmcf_correrr_result *ce = NULL;
			if (st == CLI_OK && pmcf_correrr_compute(prof, (const pmcf_profile *const *)r.refs, r.nrefs,
								 &ce) == 0)
				r.correrr = pmcf_correrr_value(ce);
			pmcf_correrr_result_free(ce);
		}
	}
	if (st == CLI_OK) {
		r.type_of = malloc((r.nxus ? r.nxus : 1) * sizeof(uint32_t));
		for (size_t i = 0; r.type_of && i < r.nxus; i++) {
			pmcf_xu x;
			r.type_of[i] = pmcf_profile_xu_get(prof, i, &x) ? 0 : x.type;
		}
		r.html = open_memstream(&r.html_buf, &r.html_len);
		r.gp = open_memstream(&r.gp_buf, &r.gp_len);
		if (!r.html || !r.gp || !r.type_of)
			st = cli_error(VERB, CLI_EENV, "out of memory");
	}
	if (st == CLI_OK)
		st = make_tmpdir(&r);
	if (st == CLI_OK)
		cli_signals_catch();
	if (st == CLI_OK)
		st = build(&r, user, nuser, (unsigned)nplots);
	if (r.html && fflush(r.html) && st == CLI_OK)
		st = cli_error(VERB, CLI_EENV, "out of memory");
	if (r.gp && fflush(r.gp) && st == CLI_OK)
		st = cli_error(VERB, CLI_EENV, "out of memory");
	if (st == CLI_OK && r.nimg)
		st = run_gnuplot(&r);
	/* SIGINT/SIGTERM/SIGHUP: the temporary folder is removed, no page
	 * written, exit 128+N (a second signal ends at once) */
	if (st == CLI_OK && cli_signal_caught())
		st = cli_interrupted(VERB, "no report written");
	if (st == CLI_OK)
		st = write_page(&r, out);
	if (r.tmpdir)
		rm_tree(r.tmpdir);
	free(r.tmpdir);
	if (r.html)
		fclose(r.html);
	if (r.gp)
		fclose(r.gp);
	free(r.html_buf);
	free(r.gp_buf);
	free(r.type_of);
	if (r.refnames) {
		for (size_t k = 0; k < r.nrefs; k++)
			free(r.refnames[k]);
		free(r.refnames);
	}
	pmcf_epd_result_free(r.epd);
	refdir_free(r.refs, r.nrefs);
	pmcf_profile_free(prof);
	return st;
}
