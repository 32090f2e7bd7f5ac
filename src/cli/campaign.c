/* Campaigns of `run` and `reference`: the folder and its manifest
 * (campaign.json, docs/campaigns.md), the signals that interrupt a verb that
 * runs programs, and the checks of outputs made before the first execution. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>
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

int cli_check_dir(const char *verb, const char *dir)
{
	if (!dir || !*dir)
		return cli_usage_error(verb, "a folder name is needed");
	if (mkdir(dir, 0777) != 0 && errno != EEXIST)
		return cli_error(verb, cli_status_for(-errno), "cannot create '%s': %s", dir,
				 strerror(errno));
	struct stat sb;
	if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
		return cli_error(verb, CLI_EUSAGE, "'%s' is not a folder", dir);
	return probe_dir(verb, dir, dir, "probe");
}

/* ---- the campaign folder -------------------------------------------------- */
/* ---- executions of a plan ------------------------------------------------ */
int cli_plan_digest(const char *verb, const struct pmcf_plan *plan, char hex[65])
{
	char *text = NULL;
	int err = pmcf_plan_to_json(plan, &text);
	if (err)
		return cli_lib_error(verb, err, "plan");
	campaign_digest(text, hex);
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

void campaign_digest(const char *text, char hex[65]) { pmcfi_sha256_buf(text, strlen(text), hex); }

void campaign_iso_time(time_t t, char out[32])
{
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static char *join(const char *dir, const char *name)
{
	char *p;
	return asprintf(&p, "%s/%s", dir, name) < 0 ? NULL : p;
}

/* Whether dir holds a manifest or a profile (1), nothing of ours (0). */
static int holds_campaign(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	struct dirent *de;
	int found = 0;
	while (!found && (de = readdir(d))) {
		size_t l = strlen(de->d_name);
		found = strcmp(de->d_name, CAMPAIGN_MANIFEST) == 0 ||
			(l > 5 && strcmp(de->d_name + l - 5, ".pmcf") == 0);
	}
	closedir(d);
	return found;
}

static int refuse_held(const char *verb, const char *dir)
{
	return cli_error(verb, CLI_EUSAGE,
			 "'%s' already holds a campaign or profiles: resume it with `pmcfuse %s --resume "
			 "%s`, or choose another folder",
			 dir, verb, dir);
}

static int write_manifest(struct campaign *c)
{
	json_t *m = c->manifest;
	char now[32];
	campaign_iso_time(time(NULL), now);
	json_object_set_new(m, "updated", json_string(now));
	char *text = json_dumps(m, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	char *path = join(c->dir, CAMPAIGN_MANIFEST);
	if (!text || !path) {
		free(text);
		free(path);
		return cli_error(c->verb, CLI_EENV, "out of memory");
	}
	struct cli_out o;
	int st = cli_out_open(c->verb, path, &o);
	if (st == CLI_OK) {
		fputs(text, o.f);
		fputc('\n', o.f);
		st = cli_out_commit(c->verb, &o);
	}
	free(text);
	free(path);
	return st;
}

/* The manifest of dir, checked: its format, verb, digest and size. */
static int load_manifest(const char *verb, const char *dir, const char *digest, size_t n, json_t **out)
{
	char *path = join(dir, CAMPAIGN_MANIFEST);
	if (!path)
		return cli_error(verb, CLI_EENV, "out of memory");
	json_error_t je;
	json_t *m = json_load_file(path, 0, &je);
	int st = CLI_OK;
	struct stat sb;
	if (!m && stat(path, &sb) != 0)
		st = cli_error(verb, CLI_EUSAGE, "'%s' holds no campaign to resume (no %s)", dir,
			       CAMPAIGN_MANIFEST);
	else if (!m)
		st = cli_error(verb, CLI_EUSAGE, "%s: not JSON (line %d: %s)", path, je.line, je.text);
	free(path);
	if (st)
		return st;
	const char *fmt = json_string_value(json_object_get(m, "format"));
	const char *v = json_string_value(json_object_get(m, "verb"));
	const char *d = json_string_value(json_object_get(m, "plan_digest"));
	json_t *items = json_object_get(m, "executions");
	if (!fmt || strcmp(fmt, "pmcfuse-campaign") != 0 || !v || !d || !json_is_array(items))
		st = cli_error(verb, CLI_EUSAGE, "'%s/%s' is not a pmcfuse campaign manifest", dir,
			       CAMPAIGN_MANIFEST);
	else if (json_integer_value(json_object_get(m, "version")) > 1)
		st = cli_error(verb, CLI_EUSAGE,
			       "'%s/%s': campaign version %lld is newer than this pmcfuse reads (1)", dir,
			       CAMPAIGN_MANIFEST,
			       (long long)json_integer_value(json_object_get(m, "version")));
	else if (strcmp(v, verb) != 0)
		st = cli_error(verb, CLI_EUSAGE, "'%s' is a campaign of `pmcfuse %s`, not of %s", dir, v,
			       verb);
	else if (digest && (strcmp(d, digest) != 0 || json_array_size(items) != n))
		st = cli_error(verb, CLI_EUSAGE,
			       "'%s' is a campaign of another plan (digest %.12s…, this command's "
			       "%.12s…); resume it with `pmcfuse %s --resume %s` alone",
			       dir, d, digest, verb, dir);
	if (st)
		json_decref(m);
	else
		*out = m;
	return st;
}

/* Changes the manifest under the campaign's lock (flock on DIR/.campaign.lock,
 * which NFS maps to a POSIX lock): the manifest is read again from the
 * folder, entry k (when k >= 0) is updated with the members of entry (stolen)
 * and the top-level key with value (stolen), then it is written. Array tasks
 * of the slurm launcher update one manifest at the same time: none loses
 * another's execution. */
static int commit(struct campaign *c, long k, json_t *entry, const char *key, json_t *value)
{
	char *lock = join(c->dir, CAMPAIGN_LOCK);
	int fd = lock ? open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0666) : -1;
	int st = CLI_OK;
	if (fd < 0 || flock(fd, LOCK_EX) != 0) {
		st = cli_error(c->verb, lock ? cli_status_for(-errno) : CLI_EENV,
			       "%s: cannot lock the campaign: %s", lock ? lock : c->dir,
			       lock ? strerror(errno) : "out of memory");
		goto out;
	}
	/* what other processes wrote since: their executions are kept */
	char *path = join(c->dir, CAMPAIGN_MANIFEST);
	json_t *disk = path ? json_load_file(path, 0, NULL) : NULL;
	free(path);
	const char *d = json_string_value(json_object_get(disk, "plan_digest"));
	const char *mine = json_string_value(json_object_get(c->manifest, "plan_digest"));
	if (d && mine && !strcmp(d, mine) &&
	    json_array_size(json_object_get(disk, "executions")) ==
		    json_array_size(json_object_get(c->manifest, "executions"))) {
		json_decref(c->manifest);
		c->manifest = disk;
		disk = NULL;
	}
	json_decref(disk);
	if (k >= 0)
		json_object_update(json_array_get(json_object_get(c->manifest, "executions"), (size_t)k),
				   entry);
	if (key)
		json_object_set(c->manifest, key, value);
	st = write_manifest(c);
out:
	if (fd >= 0)
		close(fd); /* releases the lock */
	free(lock);
	json_decref(entry);
	json_decref(value);
	return st;
}

/* The pid that CAMPAIGN_OWNER of a locked folder names, when that process
 * is alive (0: none known, e.g. array tasks hold it). */
static long owner_pid(int fd)
{
	char buf[32];
	ssize_t got = pread(fd, buf, sizeof(buf) - 1, 0);
	if (got <= 0)
		return 0;
	buf[got] = '\0';
	long pid = strtol(buf, NULL, 10);
	return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM) ? pid : 0;
}

/* Locks dir for this session (see campaign_open); CLI_OK or the exit
 * status of the error printed. */
static int lock_owner(struct campaign *c, int resume, int task)
{
	char *path = join(c->dir, CAMPAIGN_OWNER);
	int fd = path ? open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666) : -1;
	if (fd < 0) {
		int st = cli_error(c->verb, path ? cli_status_for(-errno) : CLI_EENV,
				   "%s: cannot lock the campaign: %s", path ? path : c->dir,
				   path ? strerror(errno) : "out of memory");
		free(path);
		return st;
	}
	free(path);
	if (flock(fd, (task ? LOCK_SH : LOCK_EX) | LOCK_NB) != 0) {
		int e = errno;
		long pid = e == EWOULDBLOCK ? owner_pid(fd) : 0;
		close(fd);
		if (e != EWOULDBLOCK)
			return cli_error(c->verb, cli_status_for(-e), "%s/%s: cannot lock the campaign: %s",
					 c->dir, CAMPAIGN_OWNER, strerror(e));
		char who[64] = "array tasks of its slurm job";
		if (pid)
			snprintf(who, sizeof(who), "pid %ld", pid);
		return cli_error(c->verb, CLI_EUSAGE,
				 "'%s' is in use by another pmcfuse (%s): a campaign folder serves one "
				 "session at a time; wait for it to end (or stop it), then %s",
				 c->dir, who,
				 resume ? "resume again"
					: "resume it with --resume, or choose another folder");
	}
	if (!task) {
		char buf[32];
		int len = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
		if (ftruncate(fd, 0) != 0 || pwrite(fd, buf, (size_t)len, 0) != len) {
			/* the lock holds without the pid: a refusal will not name it */
		}
	}
	c->owner = fd;
	return CLI_OK;
}

/* A temporary file that an atomic write of the campaign's (a profile, the
 * manifest) leaves when it is killed: ".NAME.tmp.XXXXXX". */
static int stale_temp(const char *name)
{
	const char *t = strstr(name, ".tmp.");
	if (name[0] != '.' || !t || strlen(t) != 11)
		return 0;
	size_t l = (size_t)(t - name);
	return (l > 5 && !strncmp(t - 5, ".pmcf", 5)) ||
	       (l == strlen(CAMPAIGN_MANIFEST) + 1 && !strncmp(name + 1, CAMPAIGN_MANIFEST, l - 1));
}

/* Removes what a killed session left half-written (the folder is ours). */
static void remove_stale_temps(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d)))
		if (stale_temp(de->d_name))
			unlinkat(dirfd(d), de->d_name, 0);
	closedir(d);
}

void campaign_release(struct campaign *c)
{
	if (c->owner < 0)
		return;
	if (!c->task && ftruncate(c->owner, 0) != 0) {
		/* a stale pid is checked for life before it is named */
	}
	close(c->owner); /* releases the lock */
	c->owner = -1;
}

int campaign_open(const char *verb, const char *dir, int resume, int task, const char *digest, size_t n,
		  int ncmd, char *const *command, struct campaign *c)
{
	memset(c, 0, sizeof(*c));
	c->verb = verb;
	c->owner = -1;
	c->task = task;
	int st = CLI_OK;
	if ((st = cli_check_dir(verb, dir)))
		return st;
	if (!(c->dir = strdup(dir)))
		return cli_error(verb, CLI_EENV, "out of memory");
	if ((st = lock_owner(c, resume, task)))
		goto fail;
	/* checked under the lock: a session started at the same time is
	 * refused as such, not for the manifest it wrote */
	if (!resume && holds_campaign(dir)) {
		st = refuse_held(verb, dir);
		char *own = join(dir, CAMPAIGN_OWNER); /* not ours to leave there */
		if (own && !task)
			unlink(own);
		free(own);
		goto fail;
	}
	json_t *m = NULL;
	if (resume) {
		if ((st = load_manifest(verb, dir, digest, n, &m)))
			goto fail;
		if (!task)
			remove_stale_temps(dir);
		c->manifest = m;
		return commit(c, -1, NULL, "state", json_string("running"));
	}
	char now[32], cwd[4096];
	campaign_iso_time(time(NULL), now);
	if (!getcwd(cwd, sizeof(cwd)))
		cwd[0] = '\0';
	json_t *cmd = json_array(), *items = json_array();
	m = json_object();
	for (int i = 0; i < ncmd; i++)
		json_array_append_new(cmd, json_string(command[i]));
	for (size_t k = 0; k < n; k++) {
		json_t *e = json_object();
		json_object_set_new(e, "index", json_integer((json_int_t)k));
		json_object_set_new(e, "status", json_string("missing"));
		json_array_append_new(items, e);
	}
	json_object_set_new(m, "format", json_string("pmcfuse-campaign"));
	json_object_set_new(m, "version", json_integer(1));
	json_object_set_new(m, "verb", json_string(verb));
	json_object_set_new(m, "plan_digest", json_string(digest));
	json_object_set_new(m, "command", cmd);
	json_object_set_new(m, "cwd", json_string(cwd));
	json_object_set_new(m, "created", json_string(now));
	json_object_set_new(m, "state", json_string("running"));
	json_object_set_new(m, "executions", items);
	if (json_array_size(items) != n || json_array_size(cmd) != (size_t)ncmd) {
		json_decref(m);
		st = cli_error(verb, CLI_EENV, "out of memory");
		goto fail;
	}
	c->manifest = m;
	return write_manifest(c);
fail:
	campaign_release(c);
	free(c->dir);
	c->dir = NULL;
	return st;
}

int campaign_is_done(const struct campaign *c, size_t k, char *path, size_t len)
{
	json_t *e = json_array_get(json_object_get(c->manifest, "executions"), k);
	const char *status = json_string_value(json_object_get(e, "status"));
	const char *file = json_string_value(json_object_get(e, "file"));
	if (!status || strcmp(status, "ok") != 0 || !file || strchr(file, '/'))
		return 0;
	snprintf(path, len, "%s/%s", c->dir, file);
	return access(path, R_OK) == 0;
}

int campaign_update(struct campaign *c, size_t k, const struct campaign_exec *x)
{
	if (!json_array_get(json_object_get(c->manifest, "executions"), k))
		return cli_error(c->verb, CLI_EUSAGE, "execution %zu is not in the campaign", k);
	char t0[32], t1[32];
	campaign_iso_time(x->started, t0);
	campaign_iso_time(x->finished, t1);
	json_t *e = json_object();
	json_object_set_new(e, "file", json_string(x->file));
	json_object_set_new(e, "set", json_integer((json_int_t)x->set));
	if (x->repeat >= 0)
		json_object_set_new(e, "repeat", json_integer(x->repeat));
	/* seeds are 64-bit: kept as decimal text, JSON numbers are not that wide */
	char seed[24];
	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)x->seed);
	json_object_set_new(e, "seed", x->has_seed ? json_string(seed) : json_null());
	json_object_set_new(e, "status", json_string(x->status));
	json_object_set_new(e, "exit", json_string(x->exit ? x->exit : ""));
	json_object_set_new(e, "started", json_string(t0));
	json_object_set_new(e, "finished", json_string(t1));
	if (json_object_size(e) < 7)
		return json_decref(e), cli_error(c->verb, CLI_EENV, "out of memory");
	return commit(c, (long)k, e, NULL, NULL);
}

int campaign_set_state(struct campaign *c, const char *state)
{
	if (c->task) /* an array task: the state is the finishing step's */
		return CLI_OK;
	return commit(c, -1, NULL, "state", json_string(state));
}

int campaign_note(struct campaign *c, const char *key, const char *value)
{
	return commit(c, -1, NULL, key, json_string(value));
}

int campaign_reload(struct campaign *c)
{
	char *path = join(c->dir, CAMPAIGN_MANIFEST);
	json_t *m = path ? json_load_file(path, 0, NULL) : NULL;
	free(path);
	if (!m || json_array_size(json_object_get(m, "executions")) !=
			  json_array_size(json_object_get(c->manifest, "executions"))) {
		json_decref(m);
		return -1;
	}
	json_decref(c->manifest);
	c->manifest = m;
	return 0;
}

const char *campaign_status(const struct campaign *c, size_t k)
{
	json_t *e = json_array_get(json_object_get(c->manifest, "executions"), k);
	const char *s = json_string_value(json_object_get(e, "status"));
	return s ? s : "missing";
}

const char *campaign_get(const struct campaign *c, const char *key)
{
	return json_string_value(json_object_get(c->manifest, key));
}

void campaign_remove(struct campaign *c)
{
	if (c->task)
		return;
	json_t *items = json_object_get(c->manifest, "executions");
	for (size_t k = 0; k < json_array_size(items); k++) {
		const char *file = json_string_value(json_object_get(json_array_get(items, k), "file"));
		char *p = file && !strchr(file, '/') ? join(c->dir, file) : NULL;
		if (p)
			unlink(p);
		free(p);
	}
	static const char *const own[] = {CAMPAIGN_MANIFEST, CAMPAIGN_LOCK, CAMPAIGN_OWNER};
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
		char *p = join(c->dir, own[i]);
		if (p)
			unlink(p);
		free(p);
	}
	rmdir(c->dir); /* kept when it holds more (the slurm launcher's logs) */
}

void campaign_close(struct campaign *c)
{
	if (c->dir)
		campaign_release(c);
	json_decref(c->manifest);
	free(c->dir);
	memset(c, 0, sizeof(*c));
}

int campaign_command(const char *verb, const char *dir, int *argc, char ***argv)
{
	json_t *m = NULL;
	int st = load_manifest(verb, dir, NULL, 0, &m);
	if (st)
		return st;
	json_t *cmd = json_object_get(m, "command");
	size_t n = json_array_size(cmd);
	char **v = calloc(n + 1, sizeof(*v));
	for (size_t i = 0; v && i < n; i++) {
		const char *s = json_string_value(json_array_get(cmd, i));
		if (!s || !(v[i] = strdup(s))) {
			campaign_free_command((int)n, v);
			v = NULL;
		}
	}
	json_decref(m);
	if (!v || !n) {
		free(v);
		return cli_error(verb, !v ? CLI_EENV : CLI_EUSAGE, "'%s/%s' holds no command", dir,
				 CAMPAIGN_MANIFEST);
	}
	*argc = (int)n;
	*argv = v;
	return CLI_OK;
}

void campaign_free_command(int argc, char **argv)
{
	if (!argv)
		return;
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
}

/* The campaign's folder in the stored command (the value of an option of
 * diropts, before "--") becomes dir: a campaign copied or moved elsewhere
 * resumes in its new place. 0, or -ENOMEM. */
static int stored_folder_set(int n, char **v, const char *const *diropts, const char *dir)
{
	for (int i = 0; diropts && i < n && strcmp(v[i], "--") != 0; i++)
		for (const char *const *o = diropts; *o; o++) {
			size_t len = strlen(*o);
			if (strncmp(v[i], *o, len) != 0)
				continue;
			char *w = NULL;
			int k = i, bad;
			if (!v[i][len] && i + 1 < n) /* "--keep DIR", "-o DIR" */
				k = i + 1, bad = !(w = strdup(dir));
			else if (v[i][len] == '=' || (v[i][len] && (*o)[1] != '-')) /* --keep=DIR, -oDIR */
				bad = asprintf(&w, "%s%s%s", *o, v[i][len] == '=' ? "=" : "", dir) < 0;
			else
				continue;
			if (bad)
				return -ENOMEM;
			free(v[k]);
			v[k] = w;
			i = k;
			break;
		}
	return 0;
}

int campaign_resume_alone(const char *verb, const char *dir, int nextra, char *const *extra,
			  const char *const *diropts, int (*cmd)(int, char **))
{
	int n = 0;
	char **stored = NULL;
	int st = campaign_command(verb, dir, &n, &stored);
	if (st)
		return st;
	/* the stored command's paths (program, -o, @FILE, the program's own
	 * arguments) are relative to the folder it was run in: go there, with
	 * the campaign's own path made absolute first */
	char *abs = realpath(dir, NULL);
	json_t *m = NULL;
	if (!abs)
		st = cli_error(verb, cli_status_for(-errno), "%s: %s", dir, strerror(errno));
	else if (stored_folder_set(n, stored, diropts, abs) != 0)
		st = cli_error(verb, CLI_EENV, "out of memory");
	else if ((st = load_manifest(verb, dir, NULL, 0, &m)) == CLI_OK) {
		const char *w = json_string_value(json_object_get(m, "cwd"));
		if (!w || !*w || cli_same_folder(w, ".")) {
			free(abs); /* already there: DIR as the user spelled it */
			abs = strdup(dir);
		} else if (chdir(w) != 0)
			st = cli_error(verb, CLI_EUSAGE,
				       "the campaign %s was started in %s, which is gone (%s): give "
				       "the whole command again after --resume %s",
				       dir, w, strerror(errno), dir);
		json_decref(m);
	}
	char **v = st ? NULL : calloc((size_t)(n + nextra) + 4, sizeof(*v));
	if (!st && (!v || !abs))
		st = cli_error(verb, CLI_EENV, "out of memory");
	if (!st) {
		v[0] = (char *)verb;
		v[1] = "--resume";
		v[2] = abs;
		memcpy(v + 3, extra, (size_t)nextra * sizeof(*v));
		memcpy(v + 3 + nextra, stored, (size_t)n * sizeof(*v));
		st = cmd(n + nextra + 3, v);
	}
	free(v);
	free(abs);
	campaign_free_command(n, stored);
	return st;
}

int cli_same_folder(const char *a, const char *b)
{
	struct stat sa, sb;
	if (strcmp(a, b) == 0)
		return 1;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* ---- one session of a campaign (run, reference) --------------------------- */
int campaign_option(const char *verb, int c, const char *arg, char **argv, int optind,
		    struct campaign_args *a, int *st)
{
	if (launch_option(verb, c, arg, argv, optind, &a->launch, st))
		return 1;
	if (cli_output_option(c, &a->json)) {
		/* its word (one; "-qv" counted once) */
		char *w = argv[optind - 1];
		if (!(a->nout && a->words[a->nout - 1] == w) && a->nout < 8) {
			a->words[a->nout++] = w;
			a->nwords++;
		}
		return 1;
	}
	if (c == CAMPAIGN_OPT_RESUME) {
		a->resume = arg;
		a->nwords += arg == argv[optind - 1] ? 2 : 1;
	} else if (c == CAMPAIGN_OPT_PROGOUT)
		a->progout = arg;
	return c == CAMPAIGN_OPT_RESUME || c == CAMPAIGN_OPT_PROGOUT;
}

int campaign_args_done(const char *verb, const struct campaign_args *a, int argc, int optind,
		       const char *const *diropts, int (*cmd)(int, char **), int *st)
{
	if ((*st = launch_check(verb, &a->launch, a->resume)))
		return 1;
	if (!a->resume || optind < argc || argc - 1 != a->launch.nwords + a->nwords)
		return 0;
	/* --resume DIR alone (with launcher and -q/-v/--json options) */
	char *extra[LAUNCH_MAX_WORDS + 8];
	int nextra = 0;
	for (int i = 0; i < a->launch.nwords; i++)
		extra[nextra++] = a->launch.words[i];
	for (int i = 0; i < a->nout; i++)
		extra[nextra++] = a->words[i];
	*st = campaign_resume_alone(verb, a->resume, nextra, extra, diropts, cmd);
	return 1;
}

void campaign_session_init(struct campaign_session *s, const char *verb, const struct campaign_args *a,
			   const char *planning)
{
	memset(s, 0, sizeof(*s));
	s->verb = verb;
	s->args = a;
	s->planning = planning;
	cli_progress_begin(&s->pr, verb, 0, 0);
	cli_progout_init(&s->pout, a->json, &s->pr);
}

int campaign_session_open(struct campaign_session *s, pmcf_source *src, const char *dir, const char *digest,
			  size_t n, int argc, char **argv)
{
	const struct launch *l = &s->args->launch;
	int ncommand = 0, st;
	s->src = src;
	if (l->only >= (long)n)
		return cli_usage_error(s->verb, "--only %ld: the campaign has executions 0 to %zu", l->only,
				       n - 1);
	if (!(s->command = launch_command(l, argc, argv, 1, &ncommand)))
		return cli_error(s->verb, CLI_EENV, "out of memory");
	if ((st = cli_progout_open(s->verb, s->args->progout, s->args->json, &s->pr, &s->pout)))
		return st;
	cli_signals_catch(s->verb);
	return campaign_open(s->verb, dir, s->args->resume != NULL, l->only >= 0, digest, n, ncommand,
			     s->command, &s->camp);
}

void campaign_session_progress(struct campaign_session *s, size_t n, size_t todo)
{
	cli_progress_begin(&s->pr, s->verb, n, todo);
	if (s->camp.task) /* an array task prints its one line at the end */
		cli_progress_silence(&s->pr);
}

int campaign_session_record(struct campaign_session *s, size_t k, size_t n, const char *label,
			    const pmcf_evlist *list, const char *const *names, size_t m, pmcf_profile **p,
			    pmcf_exit_info *ei, struct campaign_exec *ce, char exitst[32], int *err)
{
	int sim = pmcf_source_is_sim(s->src), st = CLI_OK;
	pmcf_evlist *set = NULL;
	ei->message[0] = exitst[0] = '\0';
	*p = NULL;
	if ((*err = pmcf_evlist_subset(list, names, m, &set)))
		return cli_lib_error(s->verb, *err, s->planning);
	if (sim) {
		ce->has_seed = 1;
		ce->seed = pmcf_source_exec_seed(s->src, (long)k);
		*err = pmcf_source_record(s->src, set, (long)k, p, ei);
	} else {
		char head[256], stamp[32];
		int ofd, efd;
		cli_stamp(stamp);
		snprintf(head, sizeof(head), "==> pmcfuse %s: exec %zu/%zu (%s), %s <==\n", s->verb, k + 1, n,
			 label, stamp);
		if (!(st = cli_progout_begin(s->verb, &s->pout, head, &ofd, &efd))) {
			pmcf_source_output_set(s->src, ofd, efd);
			/* once the program has ended, a signal stops the reading of
			 * its records at once (nothing of it is saved) */
			cli_signals_stop_at_once(CLI_STOP_READ,
						 "the program of execution %zu had ended; its records "
						 "were not read; the executions done before are kept in "
						 "%s: resume with `pmcfuse %s --resume %s`",
						 k, s->camp.dir, s->verb, s->camp.dir);
			*err = pmcf_source_record(s->src, set, (long)k, p, ei);
			cli_signals_disarm();
			cli_progout_end(&s->pout);
			if (!*err || *err == PMCF_EPROGRAM)
				snprintf(exitst, 32, ei->exited ? "%d" : "signal %d",
					 ei->exited ? ei->status : ei->signal);
		}
	}
	pmcf_evlist_free(set);
	ce->finished = time(NULL);
	ce->exit = exitst;
	return st;
}

void campaign_print_resumed(const char *dir, size_t reused, size_t n)
{
	if (reused)
		printf("resumed %s: %zu of %zu executions were already done\n", dir, reused, n);
}

void campaign_session_close(struct campaign_session *s)
{
	cli_progress_clear(&s->pr);
	cli_progout_close(&s->pout);
	campaign_close(&s->camp);
	free(s->command);
	s->command = NULL;
}
