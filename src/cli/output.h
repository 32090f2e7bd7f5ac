/* What the verbs print and how loud: -v/--quiet/--json options, numbers
 * with units for people, progress of run and reference (an updating line on
 * a terminal, a timestamped line per execution otherwise), and the
 * profiled program's output kept apart from pmcfuse's own lines. */
#ifndef PMCF_CLI_OUTPUT_H
#define PMCF_CLI_OUTPUT_H
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

/* --quiet (or `pmcfuse -q VERB`): only errors (and --json's object). */
extern int cli_quiet;

/* getopt_long entries of --verbose/-v and --quiet/-q for a verb's table
 * (put "vq" in its optstring), and --json where the verb has it. */
enum { CLI_OPT_JSON = 0x7000 };
#define CLI_OUTPUT_LONGOPTS \
	{"verbose", no_argument, NULL, 'v'}, { "quiet", no_argument, NULL, 'q' }
#define CLI_JSON_LONGOPT                                \
	{                                               \
		"json", no_argument, NULL, CLI_OPT_JSON \
	}
/* Handles -v, -q (and CLI_OPT_JSON when json is not NULL): 1 when opt was
 * one of them, 0 otherwise. */
int cli_output_option(int opt, int *json);
/* The same for verbs that read their arguments by hand: 1 when arg is -v,
 * --verbose, -q, --quiet (or --json, json not NULL). */
int cli_output_arg(const char *arg, int *json);

/* v for people, 3 significant digits: "812", "0.5", "1.21 k", "1.21 M",
 * "3.4 G"; with ns set, v is nanoseconds: "812 ns", "3.4 ms", "812 µs",
 * "1.2 s". "-" when v is missing. Returns buf. */
const char *cli_human(char *buf, size_t len, double v, int ns);
/* printf width for s to fill w columns: w plus the bytes beyond the first of
 * each UTF-8 character ("µs" is 3 bytes, 2 columns). */
int cli_width(const char *s, int w);
/* Whether an event's values are nanoseconds (duration, task-clock,
 * cpu-clock and their :modifier forms). */
int cli_event_is_ns(const char *event);

/* The n items at(res, k) sorted by cmp (qsort on the item pointers), for a
 * list of the ones that matter most: *shown is how many to print (all with
 * -v, else at most top), after a line "the SHOWN pairs WHAT (of N; --top N
 * for more, -v for all):" when that is not all. Returns the malloc'ed array,
 * or NULL (out of memory: the error printed, *st set to CLI_EENV). */
const void **cli_top(const char *verb, const void *res, const void *(*at)(const void *, size_t), size_t n,
		     int (*cmp)(const void *, const void *), unsigned long top, const char *what,
		     size_t *shown, int *st);

/* ---- progress of executions (run, reference) ------------------------------ */
struct cli_progress {
	const char *verb;
	size_t n;          /* executions in all */
	size_t todo, done; /* to do in this session, finished in it */
	double t0, busy;   /* start (monotonic s); seconds spent in finished executions */
	int mode;          /* 0: off (--quiet); 1: an updating line (terminal); 2: lines */
	int shown;         /* terminal: the line is on the screen */
	char line[200];    /* terminal: the line last drawn */
	pthread_mutex_t lock;
};
/* n executions, todo of them to run now; progress on stderr unless quiet. */
void cli_progress_begin(struct cli_progress *p, const char *verb, size_t n, size_t todo);
/* Execution k (0-based) starts; what: "set 2: a,b,c". Terminal: draws
 * "run 3/7  elapsed 3.4 s, ~6 s left  (set 2: a,b,c)" (no estimate before
 * one execution has finished). */
void cli_progress_start(struct cli_progress *p, size_t k, const char *what);
/* Execution k finished in secs: lines mode prints (and flushes)
 * "2026-11-24T10:00:03 pmcfuse run: exec 3/7 done in 1.2 s (set 2), ~6 s left". */
void cli_progress_done(struct cli_progress *p, size_t k, const char *what, double secs);
/* Erases the terminal line, so that what pmcfuse prints next starts on a
 * line of its own. */
void cli_progress_clear(struct cli_progress *p);
/* No progress from here on (a Slurm array task prints one line at its end). */
void cli_progress_silence(struct cli_progress *p);
double cli_now(void);
/* Local time as 2026-11-24T10:00:03 (the progress lines' stamp). */
void cli_stamp(char out[32]);

/* ---- the profiled program's output ---------------------------------------- */
/* --program-output: "-" (default) the program's stdout and stderr go to
 * pmcfuse's (its stdout to pmcfuse's stderr with --json), relayed line by
 * line so that they never run into pmcfuse's progress; FILE: both appended
 * to FILE, each execution after a header line. */
struct cli_progout {
	int file;       /* FILE mode: its descriptor; -1: relay */
	int dest[2];    /* relay: where the program's stdout, stderr go */
	int pipe[2][2]; /* relay: [stream][read, write] */
	int partial[2]; /* relay: per stream, its last byte relayed was not a newline */
	int last, same; /* relay: the stream relayed last; both go to one file */
	int stop;       /* relay (atomic): the execution is over: drain and end */
	pthread_t thread;
	int running;
	struct cli_progress *pr;
};
/* The relay to pmcfuse's own output, nothing started: what cli_progout_open
 * gives for "-", and a state cli_progout_close accepts. */
void cli_progout_init(struct cli_progout *o, int json, struct cli_progress *pr);
/* spec: NULL or "-", or a file name. Prints errors; returns an exit status. */
int cli_progout_open(const char *verb, const char *spec, int json, struct cli_progress *pr,
		     struct cli_progout *o);
/* Before an execution: the descriptors to give the program (for
 * pmcf_program_opts.stdout_fd / stderr_fd); header is written to a FILE. */
int cli_progout_begin(const char *verb, struct cli_progout *o, const char *header, int *out_fd, int *err_fd);
/* After it: everything the program wrote has been relayed. */
void cli_progout_end(struct cli_progout *o);
void cli_progout_close(struct cli_progout *o);
#endif
