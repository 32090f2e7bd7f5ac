/* `pmcfuse emd`: the exact earth mover's distance between two weighted 2-D
 * point sets read from CSV files of weight,x,y rows (fuse-task-parallel §4.2);
 * the weights of each file are normalised to sum 1. Also holds the REFDIR
 * loader shared by the accuracy verbs. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cli/cli.h"
#include "cli/output.h"
#include "cli/refdir.h"
#include "pmcfuse/util.h"
#include "pmcfuse/combine.h"
#include "pmcfuse/evaluate.h"
#include "pmcfuse/refdir.h"

static const char usage[] =
	"usage: pmcfuse emd [--json] [-q] A.csv B.csv\n\n"
	"Exact earth mover's distance between two weighted point sets in the plane with\n"
	"Euclidean ground distance. Each file holds rows 'weight,x,y' (a first row with\n"
	"no number in it is a header; blank lines and lines starting with # are skipped;\n"
	"lines may be of any length, a file at most 256 MiB); the weights of each file\n"
	"are normalised to sum 1, so the distance is the least work to move one unit of\n"
	"mass.\n\n"
	"  --json   print {\"emd\": value}\n"
	"  -q       print nothing (errors only)\n";

struct pts {
	double *w, *x;
	size_t n, cap;
};

/* Limits on an input file: EMD is exact and needs memory quadratic in the
 * points, so no useful input comes near them; they stop /dev/zero or an
 * endless pipe before it fills memory. */
#define EMD_MAX_BYTES (256UL << 20)
#define EMD_MAX_POINTS 1000000UL

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
		if (++*total > EMD_MAX_BYTES)
			return -3;
		if (pmcf_grow((void **)buf, cap, n + 2, 1))
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

static int read_points(const char *path, struct pts *p)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return cli_error("emd", cli_status_for(-errno), "cannot read '%s': %s", path,
				 strerror(errno));
	struct stat sb;
	if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
		fclose(f);
		return cli_error("emd", CLI_EUSAGE, "%s: is a directory, not a CSV file", path);
	}
	char *line = NULL;
	size_t cap = 0, total_bytes = 0, lineno = 0;
	int st = CLI_OK, seen_row = 0;
	long len;
	while ((len = read_line(f, &line, &cap, &total_bytes)) >= 0) {
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
		if (bad) {
			st = cli_error("emd", CLI_EUSAGE, "%s:%zu: expected 'weight,x,y' with three numbers",
				       path, lineno);
			break;
		}
		if (!isfinite(v[0]) || !isfinite(v[1]) || !isfinite(v[2]) || v[0] < 0) {
			st = cli_error("emd", CLI_EUSAGE, "%s:%zu: %s", path, lineno,
				       v[0] < 0 ? "negative weight"
						: "weight and coordinates must be finite");
			break;
		}
		if (p->n == EMD_MAX_POINTS) {
			st = cli_error("emd", CLI_EUSAGE, "%s:%zu: more than %lu points", path, lineno,
				       EMD_MAX_POINTS);
			break;
		}
		size_t cw = p->cap, cx = p->cap; /* w: a weight per point, x: two coordinates */
		if (pmcf_grow((void **)&p->w, &cw, p->n + 1, sizeof(*p->w)) ||
		    pmcf_grow((void **)&p->x, &cx, p->n + 1, 2 * sizeof(*p->x))) {
			st = cli_error("emd", CLI_EENV, "out of memory");
			break;
		}
		p->cap = cw;
		p->w[p->n] = v[0];
		p->x[2 * p->n] = v[1];
		p->x[2 * p->n + 1] = v[2];
		p->n++;
	}
	if (st == CLI_OK && len < -1) {
		size_t at = lineno + 1;
		if (len == -2)
			st = cli_error("emd", CLI_EUSAGE, "%s:%zu: a NUL byte: not a text file", path, at);
		else if (len == -3)
			st = cli_error("emd", CLI_EUSAGE, "%s: larger than %lu MiB", path,
				       EMD_MAX_BYTES >> 20);
		else if (len == -4)
			st = cli_error("emd", CLI_EENV, "out of memory");
		else
			st = cli_error("emd", cli_status_for(-errno), "cannot read '%s': %s", path,
				       strerror(errno));
	}
	free(line);
	fclose(f);
	/* normalise to sum 1; dividing by the largest weight first keeps the sum
	 * finite when the weights themselves are near DBL_MAX */
	double max = 0, total = 0;
	for (size_t i = 0; i < p->n; i++)
		max = p->w[i] > max ? p->w[i] : max;
	for (size_t i = 0; max > 0 && i < p->n; i++)
		total += p->w[i] / max;
	if (st == CLI_OK && p->n == 0)
		st = cli_error("emd", CLI_EUSAGE, "%s: no 'weight,x,y' rows", path);
	else if (st == CLI_OK && !(total > 0))
		st = cli_error("emd", CLI_EUSAGE, "%s: the weights sum to 0", path);
	if (st == CLI_OK)
		for (size_t i = 0; i < p->n; i++)
			p->w[i] = p->w[i] / max / total;
	return st;
}

int cmd_emd(int argc, char **argv)
{
	if (cli_wants_help(argc, argv, usage))
		return CLI_OK;
	int json = 0;
	const char *files[2];
	int nf = 0;
	for (int i = 1, opts = 1; i < argc; i++) {
		if (opts && strcmp(argv[i], "--") == 0)
			opts = 0; /* what follows is a file, whatever its name */
		else if (opts && cli_output_arg(argv[i], &json))
			continue;
		else if (opts && argv[i][0] == '-' && argv[i][1])
			return cli_usage_error("emd", "unknown option '%s'", argv[i]);
		else if (nf < 2)
			files[nf++] = argv[i];
		else
			return cli_usage_error("emd", "unexpected argument '%s'", argv[i]);
	}
	if (nf != 2)
		return cli_usage_error("emd", "needs two CSV files A.csv B.csv");
	struct pts a = {0}, b = {0};
	int st = read_points(files[0], &a);
	if (st == CLI_OK)
		st = read_points(files[1], &b);
	double v = 0;
	if (st == CLI_OK) {
		int err = pmcf_emd(NULL, 2, a.w, a.x, a.n, b.w, b.x, b.n, &v);
		if (err)
			st = cli_lib_error("emd", err, "cannot compute the EMD");
	}
	if (st == CLI_OK) {
		if (json) {
			printf("{\"emd\": ");
			cli_json_number(stdout, v);
			printf("}\n");
		} else if (!cli_quiet) {
			printf("%.17g\n", v);
		}
	}
	free(a.w);
	free(a.x);
	free(b.w);
	free(b.x);
	return st;
}

/* ---- REFDIR, shared with epd, correrr and report: pmcf_refdir_open ------- */

int refdir_open_for(const char *verb, const char *dir, const pmcf_profile *target, const char *tpath,
		    int force, pmcf_profile ***refs, size_t *n)
{
	int err = pmcf_refdir_open(dir, target, tpath, force, refs, n);
	return err ? cli_lib_error(verb, err, dir) : CLI_OK;
}

void refdir_free(pmcf_profile **refs, size_t n) { pmcf_refdir_free(refs, n); }
