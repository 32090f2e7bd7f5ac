/* The report (include/pmcfuse/report.h), shared between its files: the
 * report state, HTML and number helpers (page.c), hand-written interactive
 * SVG plots (svg.c), event-pair scatter plots (pairs.c), timelines and
 * distributions (views.c), accuracy, truth, provenance and coverage
 * sections (eval.c). Not exported. */
#ifndef PMCF_REPORT_REPORT_IMPL_H
#define PMCF_REPORT_REPORT_IMPL_H

#include <stdint.h>
#include <stdio.h>
#include "pmcfuse/evaluate.h"
#include "pmcfuse/profile.h"
#include "pmcfuse/report.h"

#define REPORT_SELECT_SAMPLE 4000

struct pmcfi_report {
	const pmcf_profile *p;
	const pmcf_profile *const *refs;
	size_t nrefs;
	const char *const *refnames; /* base names of the references, or NULL */
	const char *path;            /* the profile's name on the page */
	const char *gnuplot;         /* NULL: $PMCF_GNUPLOT or gnuplot */
	const char *tmpbase;         /* NULL: $TMPDIR or /tmp */
	char *tmpdir;
	FILE *html, *gp; /* memory streams */
	char *html_buf, *gp_buf;
	size_t html_len, gp_len;
	unsigned nimg; /* PNG images drawn by gnuplot */
	unsigned nsvg; /* SVG plots */
	size_t ntypes, nxus, nev;
	uint32_t *type_of; /* type of every XU */
	pmcf_epd_result *epd;
	int epd_err;
	double correrr;
	unsigned bins;
	unsigned scatter_max; /* points per scatter plot */
	long colour_by;       /* timeline colour: -1 XU type, else an event */
};

/* The public handle: the state of a built report. */
struct pmcf_report {
	struct pmcfi_report r;
};

/* A pair of events to plot. */
struct pmcfi_report_pair {
	size_t a, b;  /* event indices in the profile */
	double score; /* informativeness (higher first) or TMD (higher first) */
	double tmd, spread, rho;
	int user;
};

/* ---- page.c: helpers (page.c calls nothing else here) ---- */
void pmcfi_report_esc(FILE *f, const char *s);
/* 4 significant digits, exponent without '+0'; "–" for a missing value */
const char *pmcfi_report_num(double v, char *buf, size_t n);
/* 37820 -> "37,820" */
const char *pmcfi_report_count(size_t v, char *buf, size_t n);
int pmcfi_report_cmp_dbl(const void *a, const void *b);
FILE *pmcfi_report_data_open(struct pmcfi_report *r, const char *name);
/* A gnuplot PNG: its output line in the script, then its <img> tag. */
unsigned pmcfi_report_img_begin(struct pmcfi_report *r, unsigned w, unsigned h);
void pmcfi_report_img_tag(struct pmcfi_report *r, unsigned k, const char *alt);
void pmcfi_report_gp_str(FILE *f, const char *s);
const char *pmcfi_report_type_name(const pmcf_profile *prof, uint32_t t);
/* Colour of type t of prof: the same for the same type name in a reference. */
const char *pmcfi_report_type_color(const struct pmcfi_report *r, const pmcf_profile *prof, uint32_t t);
const pmcf_epd_pair *pmcfi_report_epd_find(const struct pmcfi_report *r, const char *a, const char *b);
/* "ns" for events that are times (duration, task-clock, cpu-clock), else "count" */
const char *pmcfi_report_event_unit(const char *event);

/* ---- svg.c: interactive SVG plots ----
 * Data are written in plot units [0, 1000] on both axes (y up); the page's
 * script draws the ticks of numeric axes and zooms (wheel), pans (drag) and
 * resets (double click) along the axes named in zoom. Elements carry
 * <title> children: the browser shows them on hover. */
struct pmcfi_report_svg_axis {
	double lo, hi;     /* data range (lo > 0 when log) */
	int log;           /* logarithmic */
	const char *label; /* axis title */
	const char *unit;  /* "ns": ticks as times; else counts with k/M/G */
	int categorical;   /* no numeric ticks: the caller writes labels */
};
struct pmcfi_report_svg_plot {
	FILE *h;
	unsigned w, ht, l, t, pw, ph; /* size, plot area */
	struct pmcfi_report_svg_axis x, y;
};
/* Range of the finite values [min, max] padded, log when min > 0 and
 * max / min >= 100 (and allow_log). */
void pmcfi_report_svg_axis_fit(struct pmcfi_report_svg_axis *a, double min, double max, int allow_log);
/* The same, also log (allow_log, min > 0) when max is 20 times typical (a
 * median): outliers would flatten the rest on a linear axis. */
void pmcfi_report_svg_axis_fit_spread(struct pmcfi_report_svg_axis *a, double min, double typical, double max,
				      int allow_log);
void pmcfi_report_svg_begin(struct pmcfi_report *r, struct pmcfi_report_svg_plot *s, unsigned w, unsigned h,
			    unsigned left, unsigned bottom, const char *title,
			    const struct pmcfi_report_svg_axis *x, const struct pmcfi_report_svg_axis *y,
			    const char *zoom);
/* Data value -> plot unit (x: 0 left .. 1000 right; y: 0 top .. 1000 bottom). */
double pmcfi_report_svg_x(const struct pmcfi_report_svg_plot *s, double v);
double pmcfi_report_svg_y(const struct pmcfi_report_svg_plot *s, double v);
/* A label of a categorical axis at plot unit u (x: along the bottom, y: at the left). */
void pmcfi_report_svg_cat_label(struct pmcfi_report_svg_plot *s, char axis, double u, const char *text);
/* Closes the data area; then legend entries; then end. */
void pmcfi_report_svg_data_end(struct pmcfi_report_svg_plot *s);
void pmcfi_report_svg_legend(struct pmcfi_report_svg_plot *s, unsigned k, const char *color,
			     const char *text);
void pmcfi_report_svg_end(struct pmcfi_report_svg_plot *s);
extern const char pmcfi_report_svg_css[];
extern const char pmcfi_report_svg_script[];

/* ---- sections ---- */
size_t pmcfi_report_choose_pairs(struct pmcfi_report *r, const struct pmcfi_report_pair *user, size_t nuser,
				 unsigned want, struct pmcfi_report_pair *out, size_t cap);
void pmcfi_report_section_scatter(struct pmcfi_report *r, const struct pmcfi_report_pair *pairs,
				  size_t npairs);
void pmcfi_report_section_timeline(struct pmcfi_report *r);
void pmcfi_report_section_distributions(struct pmcfi_report *r, double *scratch);
void pmcfi_report_section_truth(struct pmcfi_report *r);
void pmcfi_report_section_provenance(struct pmcfi_report *r);
void pmcfi_report_section_tmd(struct pmcfi_report *r);
void pmcfi_report_section_match(struct pmcfi_report *r);
void pmcfi_report_section_consistency(struct pmcfi_report *r);
void pmcfi_report_section_coverage(struct pmcfi_report *r);

#endif
