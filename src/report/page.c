/* The report page's building blocks, shared by report.c and the sections
 * (svg.c, pairs.c, views.c, eval.c): HTML escaping, numbers for tables, type
 * names and colours, gnuplot strings, data files and PNG images. Calls
 * nothing else in src/report/. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "pmcfuse/evaluate.h"
#include "report/report_impl.h"
#include "util/internal.h"

/* ---- small helpers ----------------------------------------------------------- */

void pmcfi_report_esc(FILE *f, const char *s)
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
void pmcfi_report_gp_str(FILE *f, const char *s)
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
const char *pmcfi_report_num(double v, char *buf, size_t n)
{
	if (pmcf_is_missing(v) || !isfinite(v)) {
		snprintf(buf, n, pmcf_is_missing(v) ? "&ndash;" : v > 0 ? "&infin;" : "&minus;&infin;");
		return buf;
	}
	if ((v == floor(v) && fabs(v) < 1e5) || (fabs(v) >= 1000 && fabs(v) < 1e6))
		snprintf(buf, n, "%.0f", v); /* one style in a row: 27794, not 2.779e4 beside 28986 */
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

int pmcfi_report_cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

const char *pmcfi_report_count(size_t v, char *buf, size_t n)
{
	char d[32];
	int len = snprintf(d, sizeof(d), "%zu", v), o = 0;
	for (int k = 0; k < len && (size_t)o + 2 < n; k++) {
		if (k && (len - k) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = d[k];
	}
	buf[o] = 0;
	return buf;
}

const char *pmcfi_report_type_name(const pmcf_profile *prof, uint32_t t)
{
	pmcf_xu_type ty = PMCF_XU_TYPE_INIT;
	return pmcf_profile_type_get(prof, t, &ty) ? "?" : ty.name;
}

static const char *palette[10] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
				  "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"};

const char *pmcfi_report_type_color(const struct pmcfi_report *r, const pmcf_profile *prof, uint32_t t)
{
	/* same colour for the same type name in the profile and a reference */
	if (prof != r->p) {
		const char *name = pmcfi_report_type_name(prof, t);
		for (uint32_t k = 0; k < r->ntypes; k++)
			if (!strcmp(pmcfi_report_type_name(r->p, k), name))
				return palette[k % 10];
	}
	return palette[t % 10];
}

const pmcf_epd_pair *pmcfi_report_epd_find(const struct pmcfi_report *r, const char *a, const char *b)
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

const char *pmcfi_report_event_unit(const char *event)
{
	static const char *const times[] = {"duration", "task-clock", "cpu-clock"};
	for (size_t k = 0; k < sizeof(times) / sizeof(times[0]); k++)
		if (!strcmp(event, times[k]))
			return "ns";
	return "count";
}

/* ---- gnuplot images ------------------------------------------------------------ */

/* A new image name "imgN.png", its gnuplot output line, and the HTML tag. */
unsigned pmcfi_report_img_begin(struct pmcfi_report *r, unsigned w, unsigned h)
{
	unsigned k = r->nimg++;
	fprintf(r->gp,
		"set terminal pngcairo noenhanced size %u,%u font 'sans,10'\n"
		"set output 'img%u.png'\nreset\n",
		w, h, k);
	return k;
}

void pmcfi_report_img_tag(struct pmcfi_report *r, unsigned k, const char *alt)
{
	fprintf(r->html, "<img src=\"@@IMG:img%u.png@@\" alt=\"", k);
	pmcfi_report_esc(r->html, alt);
	fputs("\">", r->html);
}

FILE *pmcfi_report_data_open(struct pmcfi_report *r, const char *name)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", r->tmpdir, name);
	return fopen(path, "w");
}
