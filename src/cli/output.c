/* How loud the verbs are and what they print for people: -v/-q/--json,
 * numbers with units, the progress of run and reference, and the relay
 * that keeps the profiled program's output apart from pmcfuse's lines. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "cli/cli.h"
#include "cli/output.h"
#include "pmcfuse/report.h"

int cli_verbose;
int cli_quiet;

static void log_to_stderr(int level, const char *msg, void *ctx);

/* The library's messages on stderr at the level -v asks for (a verb's own
 * -v, after `pmcfuse -v`, raises it again). */
void cli_log_level(void) { pmcf_log_set(log_to_stderr, NULL, 1 + cli_verbose); }

static void log_to_stderr(int level, const char *msg, void *ctx)
{
	(void)ctx;
	static const char *names[] = {"error", "warning", "info", "debug"};
	fprintf(stderr, "pmcfuse: %s: %s\n", names[level < 0 ? 0 : level > 3 ? 3 : level], msg);
}

int cli_output_option(int opt, int *json)
{
	if (opt == 'v') {
		cli_verbose++;
		cli_log_level();
	} else if (opt == 'q')
		cli_quiet = 1;
	else if (opt == CLI_OPT_JSON && json)
		*json = 1;
	else
		return 0;
	return 1;
}

int cli_output_arg(const char *arg, int *json)
{
	static const struct {
		const char *name;
		int opt;
	} args[] = {{"-v", 'v'}, {"--verbose", 'v'}, {"-q", 'q'}, {"--quiet", 'q'}, {"--json", CLI_OPT_JSON}};
	for (size_t i = 0; i < sizeof(args) / sizeof(args[0]); i++)
		if (strcmp(arg, args[i].name) == 0)
			return cli_output_option(args[i].opt, json);
	return 0;
}

const char *cli_human(char *buf, size_t len, double v, int ns) { return pmcf_report_human(buf, len, v, ns); }

int cli_width(const char *s, int w)
{
	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) == 0x80;
	return w;
}

const void **cli_top(const char *verb, const void *res, const void *(*at)(const void *, size_t), size_t n,
		     int (*cmp)(const void *, const void *), unsigned long top, const char *what,
		     size_t *shown, int *st)
{
	const void **by = malloc((n ? n : 1) * sizeof(*by));
	*shown = 0;
	if (!by) {
		*st = cli_error(verb, CLI_EENV, "out of memory");
		return NULL;
	}
	for (size_t k = 0; k < n; k++)
		by[k] = at(res, k);
	qsort(by, n, sizeof(*by), cmp);
	*shown = cli_verbose || top > n ? n : top;
	if (*shown < n)
		printf("the %zu pairs %s (of %zu; --top N for more, -v for all):\n", *shown, what, n);
	return by;
}

int cli_event_is_ns(const char *event) { return pmcf_report_event_is_ns(event); }

/* ---- progress -------------------------------------------------------------- */
double cli_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

void cli_stamp(char out[32])
{
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%S", &tm);
}

/* "0.4 s", "12 s", "3 min 20 s", "2 h 05 min" */
static const char *secs_text(char *buf, size_t len, double s)
{
	if (s < 9.95)
		snprintf(buf, len, "%.1f s", s);
	else if (s < 59.5)
		snprintf(buf, len, "%.0f s", s);
	else if (s < 3599.5)
		snprintf(buf, len, "%d min %02d s", (int)(s + 0.5) / 60, (int)(s + 0.5) % 60);
	else
		snprintf(buf, len, "%d h %02d min", (int)(s + 30) / 3600, (int)(s + 30) % 3600 / 60);
	return buf;
}

static void put(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

/* ", ~6 s left" once an execution of this session has finished; "" before */
static void left_text(const struct cli_progress *p, char *buf, size_t len)
{
	char t[32];
	buf[0] = '\0';
	if (p->done && p->done < p->todo)
		snprintf(buf, len, ", ~%s left",
			 secs_text(t, sizeof(t),
				   (cli_now() - p->t0) / (double)p->done * (double)(p->todo - p->done)));
}

void cli_progress_silence(struct cli_progress *p) { p->mode = 0; }

void cli_progress_begin(struct cli_progress *p, const char *verb, size_t n, size_t todo)
{
	memset(p, 0, sizeof(*p));
	p->verb = verb;
	p->n = n;
	p->todo = todo;
	p->t0 = cli_now();
	p->mode = cli_quiet ? 0 : isatty(STDERR_FILENO) ? 1 : 2;
	pthread_mutex_init(&p->lock, NULL);
}

/* Draws p->line on the terminal, cut to its width (a wrapped line could
 * not be erased). Called with the lock held. */
static void draw(struct cli_progress *p)
{
	struct winsize ws;
	size_t n = strlen(p->line), cols = 80;
	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1)
		cols = ws.ws_col;
	put(STDERR_FILENO, "\r\033[K", 4);
	put(STDERR_FILENO, p->line, n < cols - 1 ? n : cols - 1);
	p->shown = 1;
}

static void erase(struct cli_progress *p)
{
	if (p->shown)
		put(STDERR_FILENO, "\r\033[K", 4);
	p->shown = 0;
}

void cli_progress_start(struct cli_progress *p, size_t k, const char *what)
{
	if (p->mode != 1)
		return;
	char el[32], left[48];
	pthread_mutex_lock(&p->lock);
	left_text(p, left, sizeof(left));
	/* what matters first: a line wider than the terminal is cut */
	snprintf(p->line, sizeof(p->line), "%s %zu/%zu  elapsed %s%s  (%s)", p->verb, k + 1, p->n,
		 secs_text(el, sizeof(el), cli_now() - p->t0), left, what);
	draw(p);
	pthread_mutex_unlock(&p->lock);
}

void cli_progress_done(struct cli_progress *p, size_t k, const char *what, double secs)
{
	p->done++;
	p->busy += secs;
	if (p->mode != 2)
		return;
	char stamp[32], took[32], left[48], line[400];
	cli_stamp(stamp);
	left_text(p, left, sizeof(left));
	int n = snprintf(line, sizeof(line), "%s pmcfuse %s: exec %zu/%zu done in %s (%s)%s\n", stamp,
			 p->verb, k + 1, p->n, secs_text(took, sizeof(took), secs), what, left);
	/* one write, so that a line never mixes with another writer's */
	put(STDERR_FILENO, line, n < (int)sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

void cli_progress_clear(struct cli_progress *p)
{
	pthread_mutex_lock(&p->lock);
	erase(p);
	p->line[0] = '\0';
	pthread_mutex_unlock(&p->lock);
}

/* ---- the program's output -------------------------------------------------- */
void cli_progout_init(struct cli_progout *o, int json, struct cli_progress *pr)
{
	memset(o, 0, sizeof(*o));
	o->pr = pr;
	o->file = -1;
	o->dest[0] = json ? STDERR_FILENO : STDOUT_FILENO; /* stdout is the JSON's */
	o->dest[1] = STDERR_FILENO;
	for (int s = 0; s < 2; s++)
		o->pipe[s][0] = o->pipe[s][1] = -1;
	struct stat a, b; /* 2>&1: one file, whose last line is what counts */
	o->same = fstat(o->dest[0], &a) == 0 && fstat(o->dest[1], &b) == 0 && a.st_dev == b.st_dev &&
		  a.st_ino == b.st_ino;
}

int cli_progout_open(const char *verb, const char *spec, int json, struct cli_progress *pr,
		     struct cli_progout *o)
{
	cli_progout_init(o, json, pr);
	if (!spec || strcmp(spec, "-") == 0)
		return CLI_OK;
	if (!*spec)
		return cli_usage_error(verb, "--program-output needs a file name or -");
	/* read too, to see whether the program ended its last line */
	o->file = open(spec, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
	if (o->file < 0 && errno == EACCES)
		o->file = open(spec, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
	if (o->file < 0)
		return cli_error(verb, cli_status_for(-errno), "--program-output %s: %s", spec,
				 strerror(errno));
	return CLI_OK;
}

static void *relay(void *arg)
{
	struct cli_progout *o = arg;
	struct cli_progress *p = o->pr;
	struct pollfd pf[2] = {{.fd = o->pipe[0][0], .events = POLLIN},
			       {.fd = o->pipe[1][0], .events = POLLIN}};
	char buf[8192];
	for (int open = 2; open;) {
		int r = poll(pf, 2, 50);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || (r == 0 && __atomic_load_n(&o->stop, __ATOMIC_ACQUIRE)))
			break; /* over, and nothing more comes (a child left holding it) */
		for (int s = 0; s < 2 && r > 0; s++) {
			if (pf[s].fd < 0 || !pf[s].revents)
				continue;
			ssize_t got = read(pf[s].fd, buf, sizeof(buf));
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0) {
				pf[s].fd = -1;
				open--;
				continue;
			}
			pthread_mutex_lock(&p->lock);
			erase(p);
			put(o->dest[s], buf, (size_t)got);
			o->partial[s] = buf[got - 1] != '\n';
			o->last = s;
			if (!o->partial[s] && p->mode == 1 && p->line[0])
				draw(p);
			pthread_mutex_unlock(&p->lock);
		}
	}
	return NULL;
}

int cli_progout_begin(const char *verb, struct cli_progout *o, const char *header, int *out_fd, int *err_fd)
{
	if (o->file >= 0) {
		put(o->file, header, strlen(header));
		*out_fd = *err_fd = o->file;
		return CLI_OK;
	}
	for (int s = 0; s < 2; s++)
		if (pipe2(o->pipe[s], O_CLOEXEC) != 0) {
			int e = errno;
			cli_progout_end(o);
			return cli_error(verb, CLI_EENV, "cannot relay the program's output: %s",
					 strerror(e));
		}
	__atomic_store_n(&o->stop, 0, __ATOMIC_RELEASE);
	o->partial[0] = o->partial[1] = 0;
	if (pthread_create(&o->thread, NULL, relay, o) != 0) {
		cli_progout_end(o);
		return cli_error(verb, CLI_EENV, "cannot relay the program's output: no thread");
	}
	o->running = 1;
	*out_fd = o->pipe[0][1];
	*err_fd = o->pipe[1][1];
	return CLI_OK;
}

void cli_progout_end(struct cli_progout *o)
{
	if (o->file >= 0) {
		/* the program's last line, unfinished: the next header starts anew */
		char last;
		off_t end = lseek(o->file, 0, SEEK_END);
		if (end > 0 && pread(o->file, &last, 1, end - 1) == 1 && last != '\n')
			put(o->file, "\n", 1);
		return;
	}
	for (int s = 0; s < 2; s++) {
		if (o->pipe[s][1] >= 0)
			close(o->pipe[s][1]);
		o->pipe[s][1] = -1;
	}
	if (o->running) {
		__atomic_store_n(&o->stop, 1, __ATOMIC_RELEASE);
		pthread_join(o->thread, NULL);
		o->running = 0;
	}
	for (int s = 0; s < 2; s++) {
		if (o->pipe[s][0] >= 0)
			close(o->pipe[s][0]);
		o->pipe[s][0] = -1;
	}
	/* the program's last line, unfinished: pmcfuse's next one starts anew */
	for (int s = 0; s < 2; s++)
		if (o->partial[s] && (!o->same || s == o->last))
			put(o->dest[s], "\n", 1);
	o->partial[0] = o->partial[1] = 0;
}

void cli_progout_close(struct cli_progout *o)
{
	cli_progout_end(o);
	if (o->file >= 0)
		close(o->file);
	o->file = -1;
}
