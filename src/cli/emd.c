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
#include "cli/cli.h"
#include "cli/refdir.h"
#include "pmcfuse/evaluate.h"

static const char usage[] =
	"usage: pmcfuse emd [--json] A.csv B.csv\n\n"
	"Exact earth mover's distance between two weighted point sets in the plane with\n"
	"Euclidean ground distance. Each file holds rows 'weight,x,y' (a header row is\n"
	"allowed; blank lines and lines starting with # are skipped); the weights of each\n"
	"file are normalised to sum 1, so the distance is the least work to move one\n"
	"unit of mass.\n\n"
	"  --json   print {\"emd\": value}\n";

struct pts {
	double *w, *x;
	size_t n, cap;
};

static int parse_num(const char *s, double *v)
{
	char *end;
	while (*s == ' ' || *s == '\t')
		s++;
	errno = 0;
	*v = strtod(s, &end);
	if (end == s || errno == ERANGE)
		return -1;
	while (*end == ' ' || *end == '\t' || *end == '\r')
		end++;
	return *end ? -1 : 0;
}

static int read_points(const char *path, struct pts *p)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return cli_error("emd", cli_status_for(-errno), "cannot read '%s': %s", path,
				 strerror(errno));
	char line[4096];
	size_t lineno = 0;
	int st = CLI_OK;
	double total = 0;
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		line[strcspn(line, "\n")] = '\0';
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
		double v[3];
		int bad = !f2 || !f3 || strchr(f3, ',') || parse_num(f1, &v[0]) || parse_num(f2, &v[1]) ||
			  parse_num(f3, &v[2]);
		if (bad && p->n == 0 && lineno == 1 && !strchr(f3 ? f3 : "", ','))
			continue; /* a header row */
		if (bad) {
			st = cli_error("emd", CLI_EUSAGE, "%s:%zu: expected 'weight,x,y' with three numbers",
				       path, lineno);
			break;
		}
		if (!isfinite(v[0]) || !isfinite(v[1]) || !isfinite(v[2]) || v[0] < 0) {
			st = cli_error("emd", CLI_EUSAGE, "%s:%zu: %s", path, lineno,
				       v[0] < 0 ? "negative weight" : "weight and coordinates must be finite");
			break;
		}
		if (p->n == p->cap) {
			size_t cap = p->cap ? 2 * p->cap : 64;
			double *w = realloc(p->w, cap * sizeof(*w)), *x = w ? realloc(p->x, 2 * cap * sizeof(*x)) : NULL;
			if (w)
				p->w = w;
			if (!w || !x) {
				st = cli_error("emd", CLI_EENV, "out of memory");
				break;
			}
			p->x = x;
			p->cap = cap;
		}
		p->w[p->n] = v[0];
		p->x[2 * p->n] = v[1];
		p->x[2 * p->n + 1] = v[2];
		p->n++;
		total += v[0];
	}
	fclose(f);
	if (st == CLI_OK && p->n == 0)
		st = cli_error("emd", CLI_EUSAGE, "%s: no 'weight,x,y' rows", path);
	else if (st == CLI_OK && !(total > 0))
		st = cli_error("emd", CLI_EUSAGE, "%s: the weights sum to 0", path);
	if (st == CLI_OK)
		for (size_t i = 0; i < p->n; i++)
			p->w[i] /= total;
	return st;
}

int cmd_emd(int argc, char **argv)
{
	if (cli_wants_help(argc, argv, usage))
		return CLI_OK;
	int json = 0;
	const char *files[2];
	int nf = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0)
			json = 1;
		else if (argv[i][0] == '-' && argv[i][1])
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
		if (json)
			printf("{\"emd\": %.17g}\n", v);
		else
			printf("%.17g\n", v);
	}
	free(a.w);
	free(a.x);
	free(b.w);
	free(b.x);
	return st;
}

/* ---- REFDIR, shared with epd and correrr ---------------------------------- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int refdir_open(const char *verb, const char *dir, pmcf_profile ***refs, size_t *n)
{
	*refs = NULL;
	*n = 0;
	DIR *d = opendir(dir);
	if (!d)
		return cli_error(verb, cli_status_for(-errno), "cannot open reference folder '%s': %s",
				 dir, strerror(errno));
	char **names = NULL;
	size_t nn = 0, cap = 0;
	struct dirent *de;
	int st = CLI_OK;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (l < 6 || strcmp(de->d_name + l - 5, ".pmcf") != 0 || de->d_name[0] == '.')
			continue;
		if (nn == cap) {
			cap = cap ? 2 * cap : 64;
			char **nb = realloc(names, cap * sizeof(*nb));
			if (!nb) {
				st = cli_error(verb, CLI_EENV, "out of memory");
				break;
			}
			names = nb;
		}
		if (!(names[nn] = malloc(strlen(dir) + l + 2))) {
			st = cli_error(verb, CLI_EENV, "out of memory");
			break;
		}
		sprintf(names[nn++], "%s/%s", dir, de->d_name);
	}
	closedir(d);
	if (st == CLI_OK && nn == 0)
		st = cli_error(verb, CLI_EUSAGE,
			       "no reference profiles (*.pmcf) in '%s' (record them with pmcfuse reference)",
			       dir);
	if (st == CLI_OK) {
		qsort(names, nn, sizeof(*names), cmp_str);
		*refs = calloc(nn, sizeof(**refs));
		if (!*refs)
			st = cli_error(verb, CLI_EENV, "out of memory");
	}
	for (size_t i = 0; i < nn && st == CLI_OK; i++, (*n)++)
		st = cli_open_profile(verb, names[i], &(*refs)[i]);
	for (size_t i = 0; i < nn; i++)
		free(names[i]);
	free(names);
	if (st != CLI_OK) {
		refdir_free(*refs, *n);
		*refs = NULL;
		*n = 0;
	}
	return st;
}

void refdir_free(pmcf_profile **refs, size_t n)
{
	for (size_t i = 0; refs && i < n; i++)
		pmcf_profile_free(refs[i]);
	free(refs);
}
