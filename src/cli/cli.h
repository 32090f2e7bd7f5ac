/* Shared by the verbs of the pmcfuse command: the verb table, error
 * reporting with the right exit status, and small output helpers. */
#ifndef PMCF_CLI_CLI_H
#define PMCF_CLI_CLI_H
#include <stdio.h>
#include <jansson.h>
#include "pmcfuse/events.h"
#include "pmcfuse/pmcfuse.h"
#include "pmcfuse/profile.h"
#include "x/textout.h"

/* Exit statuses */
#define CLI_OK 0
#define CLI_EUSAGE 1 /* usage or input error */
#define CLI_EENV 2   /* environment error (permissions, missing PMU, resources) */

struct cli_verb {
	const char *name;
	const char *summary;               /* one line for `pmcfuse --help` */
	int (*run)(int argc, char **argv); /* argv[0] is the verb */
};

extern int cli_verbose;
/* Sets the library's log level from cli_verbose (warnings; info with -v). */
void cli_log_level(void);

/* Prints "pmcfuse: <verb>: <message>" on stderr and returns status. */
int cli_error(const char *verb, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Reports a library error: the detail from pmcf_errdetail() when set, else
 * "<what>: <pmcf_strerror(err)>"; returns the exit status for err
 * (CLI_EENV for environment errors, CLI_EUSAGE otherwise). */
int cli_lib_error(const char *verb, int err, const char *what);
int cli_status_for(int err);

/* Standard --help handling: prints usage to stdout when argv has -h/--help
 * and returns 1 (the caller returns CLI_OK). */
int cli_wants_help(int argc, char **argv, const char *usage);
/* "unknown option"/missing argument from getopt: prints one error line that
 * points at `pmcfuse VERB --help`, returns CLI_EUSAGE. */
int cli_usage_error(const char *verb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A keyword option's words and their values, in the order the error lists them. */
struct cli_keyword {
	const char *name;
	int value;
};
/* *out = the value of arg among kw[0..n) (CLI_OK), else a usage error
 * "OPT: expected a, b or c" naming the words in table order. */
int cli_keyword(const char *verb, const char *opt, const char *arg, const struct cli_keyword *kw, size_t n,
		int *out);

/* Parses an unsigned decimal option value within [min, max]. */
int cli_parse_uint(const char *verb, const char *opt, const char *s, unsigned long min, unsigned long max,
		   unsigned long *out);

/* cli_json_string, cli_put_number, cli_json_number, cli_jstr, cli_jnum,
 * cli_meta_json: x/textout.h (the library's export writers use the same). */
/* `, "key": v` (v as cli_json_number writes it), a member after the first. */
void cli_json_member(FILE *f, const char *key, double v);

/* Writes j to f (indented when indent), then a newline; steals j. Returns
 * 0, or -1 when it could not be written. */
int cli_json_dump(FILE *f, json_t *j, int indent);
/* Writes j to f on one line (", " and ": " separators), no newline; steals
 * j. 0, or -1 when j is NULL (out of memory) or could not be written. */
int cli_json_put(FILE *f, json_t *j);

/* Output files written atomically: cli_out_open gives a FILE* on a temporary
 * beside path ("-" or NULL: stdout); cli_out_commit flushes, syncs and
 * renames it over path (returns an exit status; prints the error);
 * cli_out_abort removes the temporary. A path that is (after symbolic links)
 * a device, a FIFO or a socket (/dev/null, /dev/stdout, the /dev/fd/N of
 * `-o >(cmd)`) is written in place, never renamed over (tmp NULL); a
 * symbolic link to a file keeps the link, the file it names is replaced. */
struct cli_out {
	FILE *f;
	char *path, *tmp;
};
int cli_out_open(const char *verb, const char *path, struct cli_out *o);
/* "a character device", "a FIFO (a pipe)", "a socket", … for st_mode. */
const char *cli_node_kind(unsigned mode);
int cli_out_commit(const char *verb, struct cli_out *o);
void cli_out_abort(struct cli_out *o);

/* The value of -o, checked where the option is read, before any work: not
 * empty; "-" is standard output where the verb writes text (binary NULL),
 * else refused, binary saying what it writes ("a profile", "a folder").
 * Returns CLI_OK, or CLI_EUSAGE after one error line. */
int cli_out_arg(const char *verb, const char *arg, const char *binary);

/* Before any work: CLI_OK when the output path out (NULL or "-": standard
 * output) is none of the n input files (same device and inode: a hard link
 * or another spelling counts); else one error line and CLI_EUSAGE, since
 * writing it would destroy the input. */
int cli_out_not_input(const char *verb, const char *out, const char *const *in, size_t n);
/* The profile record and combine write without -o, as perf record writes
 * perf.data; an existing one is kept as CLI_DEFAULT_OUT.old. */
#define CLI_DEFAULT_OUT "pmcfuse.pmcf"
/* Before the default output out is replaced: an existing file of that name
 * is renamed OUT.old, with a note on stderr (as perf keeps perf.data.old).
 * CLI_OK, or CLI_EENV when it cannot be renamed. */
int cli_keep_old(const char *verb, const char *out);
/* Before any work: CLI_OK when the existing file out (if any) may be
 * replaced by what the verb writes: a profile (kind NULL) only over a
 * profile (an SQLite file) or an empty file, other output (kind names it:
 * "CSV") never over a profile; a profile never into a device, FIFO or socket
 * (it is an SQLite database); else one error line and CLI_EUSAGE. */
int cli_out_replaceable(const char *verb, const char *out, const char *kind);
/* -e LIST: *events = arg the first time; a second -e is refused with one
 * error line (the lists are not joined: a list may be an @FILE), returning
 * CLI_EUSAGE; else CLI_OK. */
int cli_events_option(const char *verb, const char **events, const char *arg);
/* -e EVENTS (cli_events_option) and -o OUT, a profile (cli_out_arg), of the
 * verbs that record (record, run): 1 when c is one of them (*st: CLI_OK, or
 * CLI_EUSAGE after the error line), else 0. */
int cli_profile_option(const char *verb, int c, const char *arg, const char **events, const char **out,
		       int *st);

/* When event list l (of the perf catalogue) holds events that count only
 * kernel activity (context-switches, cpu-migrations) and this process may
 * count user space only (they read 0 then), the one line that says so and
 * how to change it into buf, and 1; else 0 (buf ""). */
int cli_user_only_note(const pmcf_evlist *l, char *buf, size_t len);

/* Opens a profile, reporting errors; returns an exit status. */
int cli_open_profile(const char *verb, const char *path, pmcf_profile **out);

/* A profile of an MPI program: the XUs of each rank, counts[0 .. *nranks)
 * (malloc'd, the caller frees); NULL when p has no ranks or memory ran out. */
size_t *cli_rank_counts(const pmcf_profile *p, uint32_t *nranks);

/* Verbs, one file each (src/cli/<verb>.c). Declared weak so that the table
 * in main.c lists only the verbs linked into this build. */
#define CLI_VERB(fn) int fn(int argc, char **argv) __attribute__((weak))
CLI_VERB(cmd_events);
CLI_VERB(cmd_plan);
CLI_VERB(cmd_record);
CLI_VERB(cmd_run);
CLI_VERB(cmd_combine);
CLI_VERB(cmd_reference);
CLI_VERB(cmd_epd);
CLI_VERB(cmd_correrr);
CLI_VERB(cmd_truth);
CLI_VERB(cmd_emd);
CLI_VERB(cmd_show);
CLI_VERB(cmd_export);
CLI_VERB(cmd_report);
CLI_VERB(cmd_categorize);
CLI_VERB(cmd_imix);
#endif
