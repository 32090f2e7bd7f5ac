/* Helpers shared by the verbs: output files written atomically (a temporary
 * beside the target, renamed on commit), standard streams named as paths,
 * and the checks that an output neither is an input nor replaces a profile. */
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
#include "x/x.h"

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

int cli_profile_option(const char *verb, int c, const char *arg, const char **events, const char **out,
		       int *st)
{
	*st = CLI_OK;
	if (c == 'e' && cli_events_option(verb, events, arg))
		*st = CLI_EUSAGE;
	else if (c == 'o' && !cli_out_arg(verb, arg, "a profile"))
		*out = arg;
	else if (c == 'o')
		*st = CLI_EUSAGE;
	return c == 'e' || c == 'o';
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
