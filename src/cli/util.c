/* Helpers shared by the verbs: one-line errors with the right exit status,
 * option values, JSON strings, and atomically written output files. */
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

int cli_error(const char *verb, int status, const char *fmt, ...)
{
	char *msg = NULL, line[2048];
	va_list ap;
	va_start(ap, fmt);
	/* formatted whole: a path of any length, the reason after it kept */
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	/* one line, whatever the message holds */
	for (char *p = msg; p && *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	/* a long path is cut in its middle, the reason after it kept */
	pmcfi_shorten(line, sizeof(line), msg ? msg : "out of memory");
	free(msg);
	fprintf(stderr, "pmcfuse: %s: %s\n", verb, line);
	return status;
}

int cli_status_for(int err)
{
	switch (err) {
	case PMCF_EPARANOID:
	case PMCF_ENOTSUP:
	case PMCF_ENOMEM:
	case -EACCES:
	case -EPERM:
	case -EMFILE:
	case -ENFILE:
	case -ENOSPC:
	case -EDQUOT:
	case -EFBIG:
	case -ENOMEM:
	case -EROFS:
	case -EIO: return CLI_EENV;
	default: return CLI_EUSAGE;
	}
}

int cli_lib_error(const char *verb, int err, const char *what)
{
	const char *d = pmcf_errdetail();
	if (d && d[0])
		return cli_error(verb, cli_status_for(err), "%s", d);
	return cli_error(verb, cli_status_for(err), "%s: %s", what, pmcf_strerror(err));
}

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

int cli_usage_error(const char *verb, const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	int st = cli_error(verb, CLI_EUSAGE, "%s (see pmcfuse %s --help)", msg ? msg : "out of memory", verb);
	free(msg);
	return st;
}

int cli_parse_uint(const char *verb, const char *opt, const char *s, unsigned long min, unsigned long max,
		   unsigned long *out)
{
	char *end;
	errno = 0;
	if (!s || !*s || *s == '-' || *s == '+')
		return cli_usage_error(verb, "%s needs a whole number from %lu to %lu, not '%s'", opt, min,
				       max, s ? s : "");
	unsigned long v = strtoul(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return cli_usage_error(verb, "%s needs a whole number from %lu to %lu, not '%s'", opt, min,
				       max, s);
	*out = v;
	return CLI_OK;
}

int cli_json_dump(FILE *f, json_t *j, int indent)
{
	if (!j)
		return -1;
	/* reals with 17 significant digits: every double reads back the same */
	int rc = json_dumpf(j, f, (indent ? JSON_INDENT(2) : 0) | JSON_REAL_PRECISION(17));
	json_decref(j);
	return rc == 0 && fputc('\n', f) != EOF ? 0 : -1;
}

int cli_json_put(FILE *f, json_t *j)
{
	if (!j)
		return -1;
	int rc = json_dumpf(j, f, JSON_REAL_PRECISION(17));
	json_decref(j);
	return rc == 0 ? 0 : -1;
}

void cli_json_member(FILE *f, const char *key, double v)
{
	fprintf(f, ", \"%s\": ", key);
	cli_json_number(f, v);
}

/* The descriptor N that path names (/dev/stdout 1, /dev/stderr 2,
 * /dev/fd/N, /proc/self/fd/N), directly or through one symbolic link; -1
 * for any other path. */
static int std_fd_name(const char *p)
{
	if (strcmp(p, "/dev/stdout") == 0)
		return 1;
	if (strcmp(p, "/dev/stderr") == 0)
		return 2;
	const char *n = strncmp(p, "/dev/fd/", 8) == 0          ? p + 8
			: strncmp(p, "/proc/self/fd/", 14) == 0 ? p + 14
								: NULL;
	if (!n || !*n || strspn(n, "0123456789") != strlen(n) || strlen(n) > 6)
		return -1;
	return atoi(n);
}

static int std_fd_of(const char *path)
{
	int fd = std_fd_name(path);
	if (fd >= 0)
		return fd;
	char link[PATH_MAX];
	ssize_t n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return -1;
	link[n] = '\0';
	return std_fd_name(link);
}

/* o writes to descriptor fd (owned from here on), in place of path */
static int out_in_place(const char *verb, const char *path, int fd, struct cli_out *o)
{
	o->f = fdopen(fd, "w");
	o->path = strdup(path);
	if (!o->f || !o->path) {
		if (!o->f)
			close(fd);
		cli_out_abort(o);
		return cli_error(verb, CLI_EENV, "out of memory");
	}
	return CLI_OK;
}

int cli_out_open(const char *verb, const char *path, struct cli_out *o)
{
	memset(o, 0, sizeof(*o));
	if (!path || strcmp(path, "-") == 0) {
		o->f = stdout;
		return CLI_OK;
	}
	/* /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N (or a link to
	 * one): the descriptor itself, as the shell gave it (its offset, its
	 * O_APPEND: `-o /dev/stdout >>log` appends, and a file there is never
	 * replaced nor truncated) */
	int dfd = std_fd_of(path);
	if (dfd >= 0) {
		int fd = fcntl(dfd, F_DUPFD_CLOEXEC, 3);
		if (fd >= 0)
			return out_in_place(verb, path, fd, o);
	}
	/* a device, a FIFO, a socket (/dev/null, the /dev/fd/N of `-o >(cmd)`):
	 * written in place, never renamed over, which would put a regular file
	 * where the node was */
	struct stat sb;
	if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode)) {
		int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		if (fd < 0) {
			int e = errno;
			return cli_error(verb, cli_status_for(-e), "cannot write '%s': %s", path,
					 strerror(e));
		}
		return out_in_place(verb, path, fd, o);
	}
	/* a symbolic link to a file: that file is replaced, the link kept */
	char *real = NULL;
	struct stat lb;
	if (lstat(path, &lb) == 0 && S_ISLNK(lb.st_mode) && stat(path, &sb) == 0)
		real = realpath(path, NULL);
	const char *dest = real ? real : path; /* what the rename replaces */
	size_t n = strlen(dest);
	o->path = strdup(dest);
	free(real);
	o->tmp = malloc(n + 32);
	if (!o->path || !o->tmp) {
		cli_out_abort(o);
		return cli_error(verb, CLI_EENV, "out of memory");
	}
	/* temporary in the same directory: .<name>.tmp.XXXXXX */
	dest = o->path;
	const char *slash = strrchr(dest, '/');
	size_t dirlen = slash ? (size_t)(slash - dest + 1) : 0;
	snprintf(o->tmp, n + 32, "%.*s.%s.tmp.XXXXXX", (int)dirlen, dest, dest + dirlen);
	int fd = mkstemp(o->tmp);
	if (fd < 0) {
		int e = errno;
		free(o->tmp);
		o->tmp = NULL;
		cli_out_abort(o);
		return cli_error(verb, cli_status_for(-e), "cannot write '%s': %s", path, strerror(e));
	}
	mode_t um = umask(0);
	umask(um);
	(void)fchmod(fd, 0666 & ~um); /* mkstemp made it 0600 */
	o->f = fdopen(fd, "w");
	if (!o->f) {
		close(fd);
		cli_out_abort(o);
		return cli_error(verb, CLI_EENV, "cannot write '%s': %s", path, strerror(errno));
	}
	return CLI_OK;
}

int cli_out_commit(const char *verb, struct cli_out *o)
{
	if (o->f == stdout) {
		if (fflush(stdout) != 0 || ferror(stdout))
			return cli_error(verb, CLI_EENV, "cannot write to standard output: %s",
					 strerror(errno));
		return CLI_OK;
	}
	/* in place (no temporary): a device or a FIFO has nothing to sync */
	int bad = fflush(o->f) != 0 || ferror(o->f) || (o->tmp && fsync(fileno(o->f)) != 0);
	int e = errno;
	if (bad && !e)
		e = EIO;
	if (fclose(o->f) != 0 && !bad) {
		bad = 1;
		e = errno;
	}
	o->f = NULL;
	if (bad || (o->tmp && rename(o->tmp, o->path) != 0)) {
		if (!bad)
			e = errno;
		int st = cli_error(verb, cli_status_for(-e), "cannot write '%s': %s", o->path, strerror(e));
		cli_out_abort(o);
		return st;
	}
	free(o->tmp);
	o->tmp = NULL;
	free(o->path);
	o->path = NULL;
	return CLI_OK;
}

void cli_out_abort(struct cli_out *o)
{
	if (o->f && o->f != stdout)
		fclose(o->f);
	o->f = NULL;
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	o->tmp = o->path = NULL;
}

int cli_out_arg(const char *verb, const char *arg, const char *binary)
{
	if (!arg || !*arg)
		return cli_usage_error(verb, "-o needs a name, not an empty string");
	if (binary && strcmp(arg, "-") == 0)
		return cli_usage_error(verb,
				       "-o -: %s cannot be written to standard output (give a name; "
				       "./- for one named '-')",
				       binary);
	return CLI_OK;
}

int cli_out_not_input(const char *verb, const char *out, const char *const *in, size_t n)
{
	struct stat so, si;
	if (!out || strcmp(out, "-") == 0 || stat(out, &so) != 0)
		return CLI_OK; /* a new file is no input */
	for (size_t i = 0; i < n; i++)
		if (stat(in[i], &si) == 0 && si.st_dev == so.st_dev && si.st_ino == so.st_ino)
			return cli_error(verb, CLI_EUSAGE,
					 "the output '%s' is the input '%s': writing it would destroy "
					 "the input (choose another -o)",
					 out, in[i]);
	return CLI_OK;
}

int cli_keep_old(const char *verb, const char *out)
{
	struct stat sb;
	if (lstat(out, &sb) != 0 || !S_ISREG(sb.st_mode))
		return CLI_OK;
	char old[PATH_MAX];
	snprintf(old, sizeof(old), "%s.old", out);
	if (rename(out, old) != 0)
		return cli_error(verb, CLI_EENV, "cannot keep the previous %s as %s: %s", out, old,
				 strerror(errno));
	if (!cli_quiet)
		fprintf(stderr,
			"pmcfuse: %s: note: the previous %s is now %s (as perf keeps perf.data.old)\n", verb,
			out, old);
	return CLI_OK;
}

const char *cli_node_kind(unsigned mode)
{
	switch (mode & S_IFMT) {
	case S_IFCHR: return "a character device";
	case S_IFBLK: return "a block device";
	case S_IFIFO: return "a FIFO (a pipe)";
	case S_IFSOCK: return "a socket";
	case S_IFDIR: return "a folder";
	case S_IFREG: return "a file";
	default: return "not a file";
	}
}

int cli_out_replaceable(const char *verb, const char *out, const char *kind)
{
	struct stat sb;
	if (!out || strcmp(out, "-") == 0 || stat(out, &sb) != 0)
		return CLI_OK;
	if (!kind && std_fd_of(out) >= 0)
		return cli_error(verb, CLI_EUSAGE,
				 "'%s' is a descriptor: a profile is an SQLite database, written to a "
				 "file, not to standard output or a pipe (choose a file name)",
				 out);
	if (!kind && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode))
		return cli_error(verb, CLI_EUSAGE,
				 "'%s' is %s: a profile is an SQLite database, which cannot be written "
				 "into it (choose a file name)",
				 out, cli_node_kind(sb.st_mode));
	if (!S_ISREG(sb.st_mode) || sb.st_size == 0)
		return CLI_OK;
	static const char magic[16] = "SQLite format 3"; /* with its NUL: every profile's start */
	char head[sizeof(magic)];
	FILE *f = fopen(out, "rb");
	if (!f)
		return CLI_OK; /* unreadable: writing it will say why */
	int db = fread(head, 1, sizeof(head), f) == sizeof(head) && memcmp(head, magic, sizeof(magic)) == 0;
	fclose(f);
	if (!kind && !db)
		return cli_error(verb, CLI_EUSAGE,
				 "'%s' exists and is not a profile: not replacing it (remove it first, "
				 "or choose another -o)",
				 out);
	if (kind && db)
		return cli_error(verb, CLI_EUSAGE,
				 "'%s' is a profile: not replacing it with %s (remove it first, or "
				 "choose another -o)",
				 out, kind);
	return CLI_OK;
}

int cli_events_option(const char *verb, const char **events, const char *arg)
{
	if (*events)
		return cli_usage_error(verb,
				       "-e given twice ('%s', then '%s'): give one list, the events joined "
				       "with commas (-e a,b,c) or an @FILE",
				       *events, arg);
	*events = arg;
	return CLI_OK;
}

int cli_open_profile(const char *verb, const char *path, pmcf_profile **out)
{
	struct stat sb;
	if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		char idx[4096];
		snprintf(idx, sizeof(idx), "%s/campaign.json", path);
		if (access(idx, F_OK) == 0)
			return cli_error(verb, CLI_EUSAGE,
					 "'%s' is a campaign folder (run --keep), not a profile: fuse it "
					 "(pmcfuse combine -o fused.pmcf %s) or name one of its "
					 "executions (%s/exec-0.pmcf)",
					 path, path, path);
	}
	int err = pmcf_profile_open(path, out);
	if (err)
		return cli_lib_error(verb, err, path);
	return CLI_OK;
}

size_t *cli_rank_counts(const pmcf_profile *p, uint32_t *nranks)
{
	return pmcf_profile_rank_counts(p, nranks);
}
