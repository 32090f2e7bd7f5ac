/* Help texts of the verbs (-h, --help): their strategy markers expanded
 * from the library's table and wrapped at 80 columns. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli/cli.h"
#include "cli/output.h"
#include "pmcfuse/combine.h"
#include "x/x.h"

/* Writes the n bytes of text at s to f, broken at spaces into lines of at
 * most 80 columns, the lines after the first indented by indent spaces. */
static void put_wrapped(FILE *f, const char *s, size_t n, size_t col, size_t indent)
{
	for (int cont = 0; n; cont = 1) {
		while (cont && n && *s == ' ')
			s++, n--;
		size_t take = n, room = col < 80 ? 80 - col : 1;
		if (n > room) {
			take = room;
			while (take > 1 && s[take] != ' ')
				take--;
			if (take <= 1)
				take = room;
		}
		fwrite(s, 1, take, f);
		s += take;
		n -= take;
		if (n)
			fprintf(f, "\n%*s", (int)indent, "");
		col = indent;
	}
}

/* Markers of help texts: {STRATEGIES} (every strategy's name),
 * {STRATEGIES_ORDERED} (the bc family's), {STRATEGY_TABLE} (a row per
 * strategy: name and help). */
enum { M_ALL, M_ORDERED, M_TABLE, NMARKERS };
static const char *const markers[NMARKERS] = {"{STRATEGIES}", "{STRATEGIES_ORDERED}", "{STRATEGY_TABLE}"};

/* The marker starting at p, or -1. */
static int marker_at(const char *p)
{
	for (int k = 0; k < NMARKERS; k++)
		if (strncmp(p, markers[k], strlen(markers[k])) == 0)
			return k;
	return -1;
}

/* One strategy per row: the name, then its help wrapped at column
 * col + 9; the first row follows what is already on the line (col
 * columns), the others are indented to col. */
static void strategy_table(FILE *f, size_t col)
{
	pmcf_strategy_info si = PMCF_STRATEGY_INFO_INIT;
	for (size_t i = 0; pmcf_strategy_info_get(i, &si) == 0; i++) {
		if (i)
			fprintf(f, "%*s", (int)col, "");
		int w = fprintf(f, strlen(si.name) < 8 ? "%-9s" : "%s  ", si.name);
		put_wrapped(f, si.help, strlen(si.help), col + (size_t)w, col + 9);
		fputc('\n', f);
	}
}

/* The line at line (len bytes, without its newline) with its list markers
 * expanded, wrapped at 80 columns and continued at the column where its
 * description starts (after the last run of spaces before the first marker
 * at pre). */
static void list_line(FILE *f, const char *line, size_t len, size_t pre)
{
	size_t indent = 0;
	for (size_t i = 1; i < pre; i++)
		if (line[i - 1] == ' ' && line[i] == ' ' && line[i + 1] != ' ')
			indent = i + 1;
	char names[1024], *text = NULL;
	size_t tlen = 0;
	FILE *t = open_memstream(&text, &tlen);
	if (!t) {
		fwrite(line, 1, len, f);
		return;
	}
	for (const char *p = line; p < line + len;) {
		int k = marker_at(p);
		if (k == M_ALL || k == M_ORDERED) {
			pmcf_strategy_list(k == M_ORDERED ? PMCF_STRATEGY_ORDERED : 0, names, sizeof(names));
			fputs(names, t);
			p += strlen(markers[k]);
		} else {
			fputc(*p++, t);
		}
	}
	fclose(t);
	put_wrapped(f, text, tlen, 0, indent);
	free(text);
}

/* Writes a help text, its strategy markers expanded from the library's
 * table (the one list of strategies). */
static void print_help(FILE *f, const char *usage)
{
	for (const char *line = usage; *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line), pre = 0;
		int k = -1;
		while (pre < len && (k = marker_at(line + pre)) < 0)
			pre++;
		if (k == M_TABLE) {
			fwrite(line, 1, pre, f);
			strategy_table(f, pre);
		} else {
			if (k < 0)
				fwrite(line, 1, len, f);
			else
				list_line(f, line, len, pre);
			if (end)
				fputc('\n', f);
		}
		line += len + (end ? 1 : 0);
	}
}

int cli_wants_help(int argc, char **argv, const char *usage)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			print_help(stdout, usage);
			return 1;
		}
	}
	return 0;
}
