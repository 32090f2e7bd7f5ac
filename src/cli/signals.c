/* The signals that interrupt a verb that runs programs (run, reference,
 * record, report), the checks of outputs made before the first execution,
 * and what an execution of a plan stores. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli/campaign.h"
#include "cli/cli.h"
#include "pmcfuse/collect.h"
#include "pmcfuse/plan.h"
#include "pmcfuse/profile.h"
#include "x/x.h"

/* ---- signals -------------------------------------------------------------- */
static volatile sig_atomic_t caught;
static int tty; /* standard error is a terminal: say what a first signal did */
/* A step armed by cli_signals_stop_at_once: its line (two buffers, so that
 * arming again never changes the one a handler may be reading) */
static char stop_line[2][1600];
static volatile sig_atomic_t stop_armed = -1, stop_kind;
static const char *stop_verb = "";

/* Appends s to buf at *o (async-signal-safe). */
static void put(char *buf, size_t len, size_t *o, const char *s)
{
	while (*s && *o + 1 < len)
		buf[(*o)++] = *s++;
}

/* "pmcfuse: VERB: interrupted by SIGNAME: what\n" on stderr, then exit
 * 128 + sig, from a signal handler. */
static void stop_now(int sig, const char *what)
{
	char line[1800];
	size_t o = 0;
	const char *abbrev = sigabbrev_np(sig);
	put(line, sizeof(line), &o, "pmcfuse: ");
	put(line, sizeof(line), &o, stop_verb);
	put(line, sizeof(line), &o, stop_verb[0] ? ": interrupted by SIG" : "interrupted by SIG");
	put(line, sizeof(line), &o, abbrev ? abbrev : "?");
	put(line, sizeof(line), &o, ": ");
	put(line, sizeof(line), &o, what);
	line[o++] = '\n';
	ssize_t w = write(2, line, o);
	(void)w;
	_exit(128 + sig);
}

static void on_signal(int sig)
{
	int first = !caught;
	if (first)
		caught = sig;
	/* 1: the program got it; 2: the program had ended, its records are
	 * being read; 0: no program */
	int sent = pmcf_collect_signal(first ? sig : SIGKILL);
	if (first && sent == 1 && tty) {
		/* a program that ignores the signal would leave the user with
		 * nothing on screen; write(2) is async-signal-safe */
		static const char msg[] = "\npmcfuse: the signal was passed on to the program; a second "
					  "one kills it\n";
		ssize_t w = write(2, msg, sizeof(msg) - 1);
		(void)w;
	}
	int armed = stop_armed;
	if (sent != 1 && armed >= 0 && (stop_kind == CLI_STOP_STEP || sent == 2))
		stop_now(caught, stop_line[armed]); /* a step that keeps nothing half-written */
	if (!first && sent != 1)
		/* a second signal with nothing to wait for: end now */
		stop_now(sig, "a second signal: stopped at once; what was complete is kept");
}

void cli_signals_stop_at_once(int kind, const char *fmt, ...)
{
	int next = stop_armed == 0 ? 1 : 0;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(stop_line[next], sizeof(stop_line[next]), fmt, ap);
	va_end(ap);
	stop_kind = kind;
	stop_armed = next;
}

void cli_signals_disarm(void) { stop_armed = -1; }

void cli_signals_catch(const char *verb)
{
	tty = isatty(2);
	stop_verb = verb;
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction sa, old;
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue; /* nohup, or a background job: stay deaf to it */
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sa.sa_flags = SA_RESTART;
		sigemptyset(&sa.sa_mask);
		sigaction(sigs[i], &sa, NULL);
	}
}

int cli_signal_caught(void) { return caught; }

int cli_interrupted(const char *verb, const char *fmt, ...)
{
	int sig = caught ? caught : SIGINT;
	const char *abbrev = sigabbrev_np(sig);
	char msg[1500];
	int o = snprintf(msg, sizeof(msg), "interrupted by SIG%s: ", abbrev ? abbrev : "?");
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg + o, sizeof(msg) - (size_t)o, fmt, ap);
	va_end(ap);
	cli_error(verb, 128 + sig, "%s", msg);
	return 128 + sig;
}

/* ---- outputs checked before the work ------------------------------------- */
/* Creates and removes a temporary file named after base in dir. */
static int probe_dir(const char *verb, const char *shown, const char *dir, const char *base)
{
	size_t len = strlen(dir) + strlen(base) + 32;
	char *tmp = malloc(len);
	if (!tmp)
		return cli_error(verb, CLI_EENV, "out of memory");
	snprintf(tmp, len, "%s/.%s.tmp.XXXXXX", dir, base);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		int e = errno;
		free(tmp);
		return cli_error(verb, cli_status_for(-e), "%s: cannot create a temporary file in %s: %s",
				 shown, dir, strerror(e));
	}
	close(fd);
	unlink(tmp);
	free(tmp);
	return CLI_OK;
}

int cli_check_output(const char *verb, const char *path)
{
	if (!path || !*path)
		return cli_usage_error(verb, "-o needs a file name");
	struct stat sb;
	if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
		return cli_error(verb, CLI_EUSAGE, "%s: cannot write a file over it: Is a directory", path);
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	if (!*base)
		return cli_error(verb, CLI_EUSAGE, "%s: not a file name", path);
	char *dir = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
	if (!dir)
		return cli_error(verb, CLI_EENV, "out of memory");
	/* what is there first: a device or /dev/stdout is refused before a
	 * temporary is tried beside it (in /dev) */
	int st = cli_out_replaceable(verb, path, NULL);
	if (!st)
		st = probe_dir(verb, path, *dir ? dir : "/", base);
	free(dir);
	return st;
}

/* ---- executions of a plan ------------------------------------------------ */
int cli_plan_digest(const char *verb, const struct pmcf_plan *plan, char hex[65])
{
	char *text = NULL;
	int err = pmcf_plan_to_json(plan, &text);
	if (err)
		return cli_lib_error(verb, err, "plan");
	pmcfi_sha256_buf(text, strlen(text), hex);
	free(text);
	return CLI_OK;
}

int cli_plan_meta_apply(struct pmcf_profile *p, const struct cli_plan_meta *pm)
{
	if (!pm)
		return 0;
	char set[24], sets[24];
	snprintf(set, sizeof(set), "%zu", pm->set);
	snprintf(sets, sizeof(sets), "%zu", pm->nsets);
	int err = pmcf_profile_meta_set(p, PMCF_META_PLAN_DIGEST, pm->digest);
	if (!err)
		err = pmcf_profile_meta_set(p, PMCF_META_PLAN_SET, set);
	if (!err)
		err = pmcf_profile_meta_set(p, PMCF_META_PLAN_SETS, sets);
	return err;
}

int cli_same_folder(const char *a, const char *b)
{
	struct stat sa, sb;
	if (strcmp(a, b) == 0)
		return 1;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}
