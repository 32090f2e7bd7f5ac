/* The point files of `pmcfuse emd`: rows 'weight,x,y' read into weights
 * normalised to sum 1 and interleaved coordinates (pmcf_emd_read_csv), so
 * that the command and the fuzzer drive the same reader. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "pmcfuse/evaluate.h"
#include "util/abi.h"
#include "util/internal.h"

static int parse_num(const char *s, double *v)
{
	char *end;
	while (*s == ' ' || *s == '\t')
		s++;
	errno = 0;
	*v = strtod(s, &end);
	/* ERANGE on underflow gives a subnormal or 0: a real number, kept */
	if (end == s || (errno == ERANGE && fabs(*v) == HUGE_VAL))
		return -1;
	while (*end == ' ' || *end == '\t' || *end == '\r')
		end++;
	return *end ? -1 : 0;
}

/* Reads one line of any length into *buf (without its '\n'); returns its
 * length, -1 at end of file, -2 on a NUL byte (not text), -3 past the size
 * limit, -4 out of memory, -5 on a read error. */
static long read_line(FILE *f, char **buf, size_t *cap, size_t *total)
{
	size_t n = 0;
	int c;
	while ((c = getc_unlocked(f)) != EOF && c != '\n') {
		if (c == '\0')
			return -2;
		if (++*total > PMCF_EMD_CSV_MAX_BYTES)
			return -3;
		if (pmcfi_grow((void **)buf, cap, n + 2, 1))
			return -4;
		(*buf)[n++] = (char)c;
	}
	if (ferror(f))
		return -5;
	if (c == EOF && n == 0)
		return -1;
	++*total;
	if (!*buf && !(*buf = malloc(*cap = 256)))
		return -4;
	(*buf)[n] = '\0';
	return (long)n;
}

/* A header row: three fields, none of them a number ("weight,x,y"). */
static int is_header(char *f1, char *f2, char *f3)
{
	double v;
	return f2 && f3 && !strchr(f3, ',') && parse_num(f1, &v) && parse_num(f2, &v) && parse_num(f3, &v);
}

struct pts {
	double *w, *x;
	size_t n, cap;
};

/* The row v (weight, x, y) of line lineno, appended to p. */
static int add_row(const char *path, size_t lineno, struct pts *p, const double v[3])
{
	if (!isfinite(v[0]) || !isfinite(v[1]) || !isfinite(v[2]) || v[0] < 0)
		return pmcfi_fail(PMCF_ESYNTAX, "%s:%zu: %s", path, lineno,
				  v[0] < 0 ? "negative weight" : "weight and coordinates must be finite");
	if (p->n == PMCF_EMD_CSV_MAX_POINTS)
		return pmcfi_fail(PMCF_ESYNTAX, "%s:%zu: more than %lu points", path, lineno,
				  PMCF_EMD_CSV_MAX_POINTS);
	size_t cw = p->cap, cx = p->cap; /* w: a weight per point, x: two coordinates */
	if (pmcfi_grow((void **)&p->w, &cw, p->n + 1, sizeof(*p->w)) ||
	    pmcfi_grow((void **)&p->x, &cx, p->n + 1, 2 * sizeof(*p->x)))
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	p->cap = cw;
	p->w[p->n] = v[0];
	p->x[2 * p->n] = v[1];
	p->x[2 * p->n + 1] = v[2];
	p->n++;
	return 0;
}

static int read_rows(const char *path, FILE *f, struct pts *p)
{
	char *line = NULL;
	size_t cap = 0, total_bytes = 0, lineno = 0;
	int err = 0, seen_row = 0;
	long len = -1;
	while (!err && (len = read_line(f, &line, &cap, &total_bytes)) >= 0) {
		lineno++;
		char *s = line;
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s || *s == '#' || (*s == '\r' && !s[1]))
			continue;
		char *f1 = s, *f2 = strchr(f1, ','), *f3 = f2 ? strchr(f2 + 1, ',') : NULL;
		if (f2)
			*f2++ = '\0';
		if (f3)
			*f3++ = '\0';
		int first = !seen_row;
		seen_row = 1;
		double v[3];
		int bad = !f2 || !f3 || strchr(f3, ',') || parse_num(f1, &v[0]) || parse_num(f2, &v[1]) ||
			  parse_num(f3, &v[2]);
		if (bad && first && is_header(f1, f2, f3))
			continue; /* a header row: the first row, no field a number */
		err = bad ? pmcfi_fail(PMCF_ESYNTAX, "%s:%zu: expected 'weight,x,y' with three numbers", path,
				       lineno)
			  : add_row(path, lineno, p, v);
	}
	if (!err && len < -1) {
		size_t at = lineno + 1;
		if (len == -2)
			err = pmcfi_fail(PMCF_ESYNTAX, "%s:%zu: a NUL byte: not a text file", path, at);
		else if (len == -3)
			err = pmcfi_fail(PMCF_ESYNTAX, "%s: larger than %lu MiB", path,
					 PMCF_EMD_CSV_MAX_BYTES >> 20);
		else if (len == -4)
			err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
		else
			err = pmcfi_fail(-errno, "cannot read '%s': %s", path, strerror(errno));
	}
	free(line);
	return err;
}

int pmcf_emd_read_csv(const char *path, double **w, double **x, size_t *n)
{
	pmcfi_clear_error();
	if (!path || !w || !x || !n)
		return pmcfi_fail(PMCF_EINVAL, "pmcf_emd_read_csv: NULL argument");
	*w = *x = NULL;
	*n = 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return pmcfi_fail(-errno, "cannot read '%s': %s", path, strerror(errno));
	struct stat sb;
	if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
		fclose(f);
		return pmcfi_fail(-EISDIR, "%s: is a directory, not a CSV file", path);
	}
	struct pts p = {0};
	int err = read_rows(path, f, &p);
	fclose(f);
	/* normalise to sum 1; dividing by the largest weight first keeps the sum
	 * finite when the weights themselves are near DBL_MAX */
	double max = 0, total = 0;
	for (size_t i = 0; i < p.n; i++)
		max = p.w[i] > max ? p.w[i] : max;
	for (size_t i = 0; max > 0 && i < p.n; i++)
		total += p.w[i] / max;
	if (!err && p.n == 0)
		err = pmcfi_fail(PMCF_ESYNTAX, "%s: no 'weight,x,y' rows", path);
	else if (!err && !(total > 0))
		err = pmcfi_fail(PMCF_ESYNTAX, "%s: the weights sum to 0", path);
	if (err) {
		free(p.w);
		free(p.x);
		return err;
	}
	for (size_t i = 0; i < p.n; i++)
		p.w[i] = p.w[i] / max / total;
	*w = p.w;
	*x = p.x;
	*n = p.n;
	return 0;
}
