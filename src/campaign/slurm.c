/* The slurm launcher (docs/slurm.md): writes and submits an sbatch job
 * array over a campaign's executions not done (task K runs `pmcfuse VERB
 * --resume DIR --only K`) plus a finishing job (afterok) that runs `pmcfuse
 * VERB --resume DIR`, then, when asked, follows them. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <wordexp.h>
#include "campaign/campaign_impl.h"
#include "util/abi.h"
#include "util/atomic.h"
#include "util/internal.h"
#include "x/x.h"

extern char **environ;

/* Whether name is an executable file in a folder of PATH. */
static int in_path(const char *name)
{
	const char *path = getenv("PATH");
	char file[PATH_MAX];
	for (const char *p = path ? path : ""; *p;) {
		size_t n = strcspn(p, ":");
		snprintf(file, sizeof(file), "%.*s/%s", (int)n, n ? p : ".", name);
		if (access(file, X_OK) == 0)
			return 1;
		p += n + (p[n] == ':');
	}
	return 0;
}

int pmcfi_camp_slurm_check(const pmcf_launch_opts *o)
{
	pmcfi_clear_error();
	if (!in_path("sbatch"))
		return pmcfi_fail(PMCF_ENOTSUP,
				  "sbatch not found in PATH (Slurm's commands are not installed "
				  "here; Debian: apt-get install slurm-client)");
	if (o && o->args) {
		wordexp_t we;
		int err = wordexp(o->args, &we, WRDE_NOCMD | WRDE_UNDEF);
		if (err)
			return pmcfi_fail(PMCF_EINVAL, "'%s': cannot split it into words (%s)", o->args,
					  err == WRDE_CMDSUB    ? "no $(...) or `...`"
					  : err == WRDE_BADCHAR ? "quote |, &, ;, <, >, (, ), {, }"
								: "unbalanced quotes or an unset variable");
		wordfree(&we);
	}
	return 0;
}

/* ---- running Slurm's commands --------------------------------------------- */
/* Runs argv[0] (searched in PATH) and collects its standard output in *out
 * and its standard error in *err (malloc'ed, NUL-terminated, each cut at
 * 1 MiB). Returns its exit status, or -errno when it could not start. */
static int capture(char *const *argv, char **out, char **err)
{
	int po[2], pe[2];
	*out = *err = NULL;
	if (pipe2(po, O_CLOEXEC) != 0)
		return -errno;
	if (pipe2(pe, O_CLOEXEC) != 0) {
		int e = errno;
		close(po[0]);
		close(po[1]);
		return -e;
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, po[1], STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&fa, pe[1], STDERR_FILENO);
	pid_t pid;
	int e = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(po[1]);
	close(pe[1]);
	size_t len[2] = {0, 0}, cap[2] = {0, 0};
	char *buf[2] = {NULL, NULL};
	struct pollfd pf[2] = {{.fd = po[0], .events = POLLIN}, {.fd = pe[0], .events = POLLIN}};
	int open_fds = e ? 0 : 2;
	while (open_fds) {
		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < 2; i++) {
			if (pf[i].fd < 0 || !pf[i].revents)
				continue;
			if (cap[i] - len[i] < 4096 && cap[i] < (1u << 20)) {
				char *nb = realloc(buf[i], cap[i] + 8192);
				if (nb) {
					buf[i] = nb;
					cap[i] += 8192;
				}
			}
			char sink[4096];
			int room = cap[i] - len[i] > 1;
			ssize_t r = room ? read(pf[i].fd, buf[i] + len[i], cap[i] - len[i] - 1)
					 : read(pf[i].fd, sink, sizeof(sink));
			if (r > 0 && room)
				len[i] += (size_t)r;
			else if (r == 0 || (r < 0 && errno != EINTR)) {
				close(pf[i].fd);
				pf[i].fd = -1;
				open_fds--;
			}
		}
	}
	for (int i = 0; i < 2; i++) {
		if (pf[i].fd >= 0)
			close(pf[i].fd);
		if (!buf[i])
			buf[i] = calloc(1, 1);
		else
			buf[i][len[i]] = '\0';
	}
	*out = buf[0];
	*err = buf[1];
	if (e)
		return -e;
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The first line of s (in place), for a one-line message. */
static const char *first_line(char *s)
{
	if (!s)
		return "";
	s[strcspn(s, "\n")] = '\0';
	return s;
}

/* Runs an sbatch/squeue command; on failure prints one line and returns
 * the exit status (its stdout in *out on success, malloc'ed). */
static int slurm_cmd(char *const *argv, char **out)
{
	char *err = NULL;
	int rc = capture(argv, out, &err);
	int st = 0;
	if (rc == -ENOENT)
		st = pmcfi_fail(PMCF_ENOTSUP,
				"%s not found: Slurm's commands are not installed here (Debian: "
				"apt-get install slurm-client), or not in PATH",
				argv[0]);
	else if (rc < 0)
		st = pmcfi_fail(PMCF_ENOTSUP, "cannot run %s: %s", argv[0], strerror(-rc));
	else if (rc)
		st = pmcfi_fail(PMCF_ENOTSUP, "%s failed (exit %d): %s", argv[0], rc,
				first_line(*err ? err : *out));
	free(err);
	if (st) {
		free(*out);
		*out = NULL;
	}
	return st;
}

/* ---- scripts -------------------------------------------------------------- */
/* Writes s to f as one sh word ('...' with each ' spelled '\''). */
static void sh_quote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	fputc('\'', f);
}

struct script {
	const char *verb, *exe, *dir;
	int task;
};

static int put_script(FILE *f, void *ctx)
{
	const struct script *sc = ctx;
	fprintf(f, "#!/bin/sh\n");
	if (sc->task)
		fprintf(f,
			"# Array task K records execution K of the pmcfuse %s campaign in\n"
			"# %s (docs/slurm.md). Submitted by `pmcfuse %s --launcher slurm`;\n"
			"# `pmcfuse %s --resume DIR --launcher slurm` submits what is missing.\n",
			sc->verb, sc->dir, sc->verb, sc->verb);
	else
		fprintf(f,
			"# Finishes the pmcfuse %s campaign in %s (docs/slurm.md):\n"
			"# runs once every array task succeeded (--dependency=afterok).\n",
			sc->verb, sc->dir);
	fprintf(f, "exec ");
	sh_quote(f, sc->exe);
	fprintf(f, " %s --resume ", sc->verb);
	sh_quote(f, sc->dir);
	fprintf(f, "%s\n", sc->task ? " --only \"$SLURM_ARRAY_TASK_ID\"" : "");
	return 0;
}

/* DIR/slurm/NAME: an sbatch script that runs `pmcfuse VERB --resume DIR`
 * with the array task's --only K when task is set (util/atomic.h). */
static int write_script(const char *verb, const char *sdir, const char *name, const char *exe,
			const char *dir, int task)
{
	char path[PATH_MAX + 64];
	snprintf(path, sizeof(path), "%s/%s", sdir, name);
	struct script sc = {verb, exe, dir, task};
	return pmcfi_atomic_write(path, 0, put_script, &sc);
}

/* ---- submitting ------------------------------------------------------------ */
/* Appends "K" or "A-B" ranges of the executions to do to list. */
static size_t array_list(const pmcf_campaign *c, size_t n, char *list, size_t len)
{
	size_t count = 0, o = 0;
	list[0] = '\0';
	for (size_t k = 0; k < n; k++) {
		if (pmcf_campaign_is_done(c, k))
			continue;
		size_t e = k;
		while (e + 1 < n && !pmcf_campaign_is_done(c, e + 1))
			e++;
		if (o + 48 < len)
			o += (size_t)(e > k ? snprintf(list + o, len - o, "%s%zu-%zu", o ? "," : "", k, e)
					    : snprintf(list + o, len - o, "%s%zu", o ? "," : "", k));
		count += e - k + 1;
		k = e;
	}
	return count;
}

/* sbatch ARGS... SCRIPT: the job id in id[32]. */
static int submit(const pmcf_launch_opts *l, const char *const *opts, size_t nopts, const char *script,
		  char id[32])
{
	wordexp_t we = {0};
	int have = l->args && wordexp(l->args, &we, WRDE_NOCMD | WRDE_UNDEF) == 0;
	size_t nargs = have ? we.we_wordc : 0;
	char **argv = calloc(nopts + nargs + 4, sizeof(*argv));
	if (!argv) {
		if (have)
			wordfree(&we);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	}
	size_t a = 0;
	argv[a++] = "sbatch";
	argv[a++] = "--parsable";
	for (size_t i = 0; i < nopts; i++)
		argv[a++] = (char *)opts[i];
	for (size_t i = 0; i < nargs; i++) /* the user's come last: they win */
		argv[a++] = we.we_wordv[i];
	argv[a++] = (char *)script;
	char *out = NULL;
	int st = slurm_cmd(argv, &out);
	if (!st) {
		/* --parsable: "ID" or "ID;CLUSTER" */
		size_t n = strspn(out, "0123456789");
		if (!n || n >= 32)
			st = pmcfi_fail(PMCF_ENOTSUP, "sbatch answered '%s', not a job id", first_line(out));
		else
			snprintf(id, 32, "%.*s", (int)n, out);
	}
	free(out);
	free(argv);
	if (have)
		wordfree(&we);
	return st;
}

/* Whether jobs (a comma list) are still queued or running (1). */
static int jobs_active(const char *jobs)
{
	char *argv[] = {"squeue", "-h", "-j", (char *)jobs, "-o", "%i %T", NULL};
	char *out = NULL, *err = NULL;
	int rc = capture(argv, &out, &err);
	int active =
		rc == 0 && (strstr(out, "PENDING") || strstr(out, "RUNNING") || strstr(out, "CONFIGURING") ||
			    strstr(out, "COMPLETING") || strstr(out, "SUSPENDED") || strstr(out, "REQUEUE"));
	free(out);
	free(err);
	return active;
}

/* ---- following ------------------------------------------------------------ */
static int terminal(const char *state)
{
	static const char *const ends[] = {"COMPLETED", "FAILED",        "CANCELLED",   "TIMEOUT",
					   "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL",   "DEADLINE",
					   "PREEMPTED", "REVOKED",       "SPECIAL_EXIT"};
	for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++)
		if (strncmp(state, ends[i], strlen(ends[i])) == 0)
			return 1;
	return 0;
}

/* The state of the finishing job in sacct (accounting), when squeue no
 * longer lists it: state[32], empty when unknown. */
static void sacct_state(const char *id, char state[32])
{
	char *argv[] = {"sacct", "-n", "-X", "-P", "-j", (char *)id, "-o", "State", NULL};
	char *out = NULL, *err = NULL;
	state[0] = '\0';
	if (capture(argv, &out, &err) == 0)
		snprintf(state, 32, "%.*s", (int)strcspn(out, " \n"), out);
	free(out);
	free(err);
}

/* The last non-empty line of the file at path, in line[len]. */
static void last_line(const char *path, char *line, size_t len)
{
	FILE *in = fopen(path, "r");
	char buf[1024];
	line[0] = '\0';
	while (in && fgets(buf, sizeof(buf), in))
		if (buf[0] != '\n') {
			buf[strcspn(buf, "\n")] = '\0';
			snprintf(line, len, "%s", buf);
		}
	if (in)
		fclose(in);
}

/* The file at path, read whole (NULL: none). */
static char *read_file(const char *path)
{
	FILE *in = fopen(path, "r");
	char *t = NULL;
	size_t len = 0;
	FILE *out = in ? open_memstream(&t, &len) : NULL;
	char buf[4096];
	size_t r;
	while (out && (r = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, r, out);
	if (out)
		fclose(out);
	if (in)
		fclose(in);
	return t;
}

struct follow {
	const char *verb, *dir, *array, *finish;
	size_t n;
};

static void status_line(const pmcf_campaign *c, const char *line)
{
	if (c->cb.status)
		c->cb.status(c->cb.ctx, line);
}

/* Follows the array job and the finishing job until the finishing job ends
 * or an array task fails: a status line whenever it changes; then the
 * finishing job's output (text). r->signal: stopped by the caller. */
static int follow(pmcf_campaign *c, const struct follow *w, pmcf_campaign_result *r)
{
	char jobs[80], prev[256] = "", finish_log[PATH_MAX + 64];
	snprintf(jobs, sizeof(jobs), "%s%s%s", w->array, *w->array ? "," : "", w->finish);
	snprintf(finish_log, sizeof(finish_log), "%s/slurm/finish-%s.out", w->dir, w->finish);
	char *argv[] = {"squeue", "-h", "-r", "-t", "all", "-j", jobs, "-o", "%i %T", NULL};
	unsigned delay = 1, squeue_fails = 0;
	for (;;) {
		if (c->cb.stop && (r->signal = c->cb.stop(c->cb.ctx)))
			return 0;
		char *out = NULL, *err = NULL;
		int rc = capture(argv, &out, &err);
		if (rc != 0 && ++squeue_fails >= 5) {
			int st = pmcfi_fail(PMCF_ENOTSUP,
					    "squeue failed 5 times (exit %d): %s; the jobs %s may go on", rc,
					    rc < 0 ? strerror(-rc) : first_line(err), jobs);
			free(out);
			free(err);
			return st;
		}
		char fstate[32] = "", bad[3 * (PATH_MAX + 200)] = "";
		size_t running = 0, pending = 0, task_failed = 0, blen = 0;
		for (char *line = rc == 0 ? out : NULL, *next; line && *line; line = next) {
			next = line + strcspn(line, "\n");
			if (*next)
				*next++ = '\0';
			char id[64], state[32];
			if (sscanf(line, "%63s %31s", id, state) != 2)
				continue;
			if (strcmp(id, w->finish) == 0)
				snprintf(fstate, sizeof(fstate), "%s", state);
			else if (!strcmp(state, "RUNNING") || !strcmp(state, "COMPLETING"))
				running++;
			else if (!terminal(state))
				pending++;
			else if (strcmp(state, "COMPLETED") != 0) {
				/* the first few by name, with their state and log
				 * (%A_%a.out: the id squeue prints) */
				if (task_failed++ < 3 && blen < sizeof(bad))
					blen += (size_t)snprintf(bad + blen, sizeof(bad) - blen,
								 "%s%s %s (%s/slurm/%s.out)",
								 blen ? ", " : "", id,
								 !strncmp(state, "CANCELLED", 9)
									 ? "was cancelled"
								 : !strcmp(state, "TIMEOUT")
									 ? "ran out of time"
									 : "failed",
								 w->dir, id);
			}
		}
		free(out);
		free(err);
		if (rc == 0)
			squeue_fails = 0;
		size_t ok = 0, failed = 0, stopped = 0;
		pmcfi_camp_reload(c);
		for (size_t k = 0; k < w->n; k++) {
			const char *s = pmcf_campaign_status(c, k);
			ok += !strcmp(s, "ok");
			failed += !strcmp(s, "failed");
			stopped += !strcmp(s, "interrupted"); /* a signal: scancel, a time limit */
		}
		char stop_s[48] = "";
		if (stopped)
			snprintf(stop_s, sizeof(stop_s), ", %zu stopped", stopped);
		if (rc == 0 && !fstate[0])
			sacct_state(w->finish, fstate);
		char line[256];
		snprintf(line, sizeof(line),
			 "slurm: %zu of %zu execution%s done, %zu failed%s, %zu running, "
			 "%zu pending; finishing job %s: %s",
			 ok, w->n, w->n == 1 ? "" : "s", failed, stop_s, running, pending, w->finish,
			 fstate[0] ? fstate : "?");
		if (strcmp(line, prev) != 0) {
			status_line(c, line);
			snprintf(prev, sizeof(prev), "%s", line);
			delay = 1;
		}
		if (!strncmp(fstate, "COMPLETED", 9)) {
			char *text = read_file(finish_log);
			if (text && c->cb.text)
				c->cb.text(c->cb.ctx, text);
			free(text);
			/* success: the scripts and logs go (shown above); the campaign
			 * folder too when it was not kept (the finishing job emptied it) */
			char sdir[PATH_MAX + 16];
			snprintf(sdir, sizeof(sdir), "%s/slurm", w->dir);
			pmcfi_rm_tree(sdir);
			if (rmdir(w->dir) != 0 && errno != ENOTEMPTY && errno != EEXIST && errno != ENOENT &&
			    c->cb.warning) {
				char warn[PATH_MAX + 200];
				snprintf(warn, sizeof(warn), "warning: cannot remove %s: %s", w->dir,
					 strerror(errno));
				c->cb.warning(c->cb.ctx, warn);
			}
			return 0;
		}
		if (rc == 0 && ((task_failed && !running && !pending) || terminal(fstate) ||
				(!fstate[0] && !running && !pending))) {
			char tail[1024];
			last_line(finish_log, tail, sizeof(tail));
			if (task_failed || failed || stopped) {
				/* the finishing job will never run: do not leave it queued */
				char *sc[] = {"scancel", (char *)w->finish, NULL}, *o1, *o2;
				capture(sc, &o1, &o2);
				free(o1);
				free(o2);
				if (task_failed) /* named, with what happened to them */
					return pmcfi_fail(PMCF_ENOTSUP,
							  "%zu array task%s of job %s did not complete: "
							  "%s%s; submit what is missing again with "
							  "`pmcfuse %s --resume %s --launcher slurm`",
							  task_failed, task_failed == 1 ? "" : "s", w->array,
							  bad, task_failed > 3 ? ", …" : "", w->verb, w->dir);
				return pmcfi_fail(
					PMCF_ENOTSUP,
					"%zu array task%s of job %s %s (logs: %s/slurm/%s_K.out); "
					"submit what is missing again with `pmcfuse %s --resume %s "
					"--launcher slurm`",
					failed + stopped, failed + stopped == 1 ? "" : "s", w->array,
					!failed   ? (stopped == 1 ? "was stopped (cancelled or out of time)"
								  : "were stopped (cancelled or out of time)")
					: stopped ? "failed or were stopped"
						  : "failed",
					w->dir, w->array, w->verb, w->dir);
			}
			return pmcfi_fail(PMCF_ENOTSUP, "the finishing job %s ended %s (%s): %s", w->finish,
					  fstate[0] ? fstate : "unknown to Slurm", finish_log,
					  tail[0] ? tail : "no output");
		}
		struct timespec ts = {.tv_sec = delay};
		nanosleep(&ts, NULL);
		delay = delay < 4 ? delay * 2 : 5;
	}
}

int pmcfi_camp_slurm_launch(pmcf_campaign *c, pmcf_source *src, const pmcf_launch_opts *lo,
			    pmcf_campaign_result *r)
{
	(void)src; /* the jobs make their own */
	pmcfi_clear_error();
	pmcf_launch_opts l = PMCF_LAUNCH_OPTS_INIT;
	int st = pmcfi_struct_in("pmcf_launch_opts", &l, lo, sizeof(l), sizeof(l));
	if (!st && (!c || !r))
		st = pmcfi_fail(PMCF_EINVAL, "the slurm launcher: no campaign or result");
	if (!st)
		st = pmcfi_check_struct("pmcf_campaign_result", r, r->size, sizeof(*r), sizeof(*r));
	if (st)
		return st;
	const char *verb = c->verb;
	size_t n = c->n;
	char exe[PATH_MAX], sdir[PATH_MAX + 16], list[4096], script[PATH_MAX + 64], fscript[PATH_MAX + 64];
	if (l.exe)
		snprintf(exe, sizeof(exe), "%s", l.exe);
	else {
		ssize_t el = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (el <= 0)
			return pmcfi_fail(PMCF_ENOTSUP, "cannot find the pmcfuse binary: %s",
					  strerror(errno));
		exe[el] = '\0';
	}
	char *dir = realpath(c->dir, NULL);
	if (!dir)
		return pmcfi_fail(PMCF_ENOTSUP, "%s: %s", c->dir, strerror(errno));
	const char *prev = pmcfi_camp_get(c, "slurm_jobs");
	if (prev && *prev && jobs_active(prev)) {
		st = pmcfi_fail(PMCF_ECONFLICT,
				"jobs %s of the campaign %s are still queued or running: wait for them "
				"(squeue -j %s) or cancel them (scancel %s) first",
				prev, dir, prev, prev);
		goto out;
	}
	snprintf(sdir, sizeof(sdir), "%s/slurm", dir);
	snprintf(script, sizeof(script), "%s/exec.sbatch", sdir);
	snprintf(fscript, sizeof(fscript), "%s/finish.sbatch", sdir);
	if ((st = pmcfi_camp_check_dir(sdir)) ||
	    (st = write_script(verb, sdir, "exec.sbatch", exe, dir, 1)) ||
	    (st = write_script(verb, sdir, "finish.sbatch", exe, dir, 0)))
		goto out;
	size_t todo = array_list(c, n, list, sizeof(list));
	/* the jobs lock the folder themselves (tasks shared, the finishing job
	 * exclusively): from here the submitter holds it no longer */
	pmcfi_camp_release(c);
	char name[64], fname[64], aopt[4200], out_opt[PATH_MAX + 64], fout_opt[PATH_MAX + 64], dep[64];
	snprintf(name, sizeof(name), "--job-name=pmcfuse-%s", verb);
	snprintf(fname, sizeof(fname), "--job-name=pmcfuse-%s-finish", verb);
	snprintf(aopt, sizeof(aopt), "--array=%s", list);
	snprintf(out_opt, sizeof(out_opt), "--output=%s/%%A_%%a.out", sdir);
	snprintf(fout_opt, sizeof(fout_opt), "--output=%s/finish-%%j.out", sdir);
	free(c->tasks);
	c->tasks = strdup(list);
	r->tasks = c->tasks;
	r->todo = todo;
	r->array_job[0] = r->finish_job[0] = '\0';
	if (todo) {
		const char *opts[] = {aopt, name, out_opt};
		if ((st = submit(&l, opts, 3, script, r->array_job)))
			goto out;
	}
	snprintf(dep, sizeof(dep), "--dependency=afterok:%s", r->array_job);
	const char *fopts[] = {fname, fout_opt, dep, "--kill-on-invalid-dep=yes"};
	if ((st = submit(&l, fopts, todo ? 4 : 2, fscript, r->finish_job)))
		goto out;
	char jobs[80];
	snprintf(jobs, sizeof(jobs), "%s%s%s", r->array_job, todo ? "," : "", r->finish_job);
	pmcfi_camp_commit(c, -1, NULL, "slurm_jobs", json_string(jobs));
	if (c->cb.launched)
		c->cb.launched(c->cb.ctx, r);
	if (l.wait) {
		struct follow w = {.verb = verb,
				   .dir = dir,
				   .array = r->array_job,
				   .finish = r->finish_job,
				   .n = n};
		st = follow(c, &w, r);
	}
out:
	free(dir);
	return st;
}
