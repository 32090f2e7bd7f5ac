/* A campaign's folder: its manifest (campaign.json, docs/campaigns.md)
 * rewritten atomically under a lock after each execution, the lock a
 * session holds for its whole life, and a resume's checks. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "campaign/campaign_impl.h"
#include "pmcfuse/profile.h"
#include "util/abi.h"
#include "util/atomic.h"
#include "util/internal.h"
#include "x/x.h"

char *pmcfi_camp_join(const char *dir, const char *name)
{
	char *p;
	return asprintf(&p, "%s/%s", dir, name) < 0 ? NULL : p;
}

void pmcfi_camp_iso_time(long t, char out[32])
{
	struct tm tm;
	time_t tt = (time_t)t;
	gmtime_r(&tt, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int no_memory(void) { return pmcfi_fail(PMCF_ENOMEM, "out of memory"); }

/* Creates and removes a temporary file named after base in dir. */
static int probe_dir(const char *dir)
{
	char *tmp = pmcfi_camp_join(dir, ".probe.tmp.XXXXXX");
	if (!tmp)
		return no_memory();
	int fd = mkstemp(tmp);
	if (fd < 0) {
		int e = errno;
		free(tmp);
		return pmcfi_fail(-e, "%s: cannot create a temporary file in %s: %s", dir, dir, strerror(e));
	}
	close(fd);
	unlink(tmp);
	free(tmp);
	return 0;
}

int pmcfi_camp_check_dir(const char *dir)
{
	if (!dir || !*dir)
		return pmcfi_fail(PMCF_EINVAL, "a folder name is needed");
	if (mkdir(dir, 0777) != 0 && errno != EEXIST)
		return pmcfi_fail(-errno, "cannot create '%s': %s", dir, strerror(errno));
	struct stat sb;
	if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
		return pmcfi_fail(PMCF_EINVAL, "'%s' is not a folder", dir);
	return probe_dir(dir);
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
		found = strcmp(de->d_name, PMCF_CAMPAIGN_MANIFEST) == 0 ||
			(l > 5 && strcmp(de->d_name + l - 5, ".pmcf") == 0);
	}
	closedir(d);
	return found;
}

static int put_text(FILE *f, void *text) { return fputs(text, f) == EOF || fputc('\n', f) == EOF ? -EIO : 0; }

/* The manifest written atomically: a temporary beside it, synced, renamed
 * (util/atomic.h). */
static int write_manifest(pmcf_campaign *c)
{
	char now[32];
	pmcfi_camp_iso_time((long)time(NULL), now);
	json_object_set_new(c->manifest, "updated", json_string(now));
	char *text = json_dumps(c->manifest, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	char *path = pmcfi_camp_join(c->dir, PMCF_CAMPAIGN_MANIFEST);
	int err = !text || !path ? no_memory() : pmcfi_atomic_write(path, 0, put_text, text);
	free(text);
	free(path);
	return err;
}

/* The manifest of dir, checked: its format, verb, digest and size. */
static int load_manifest(const char *verb, const char *dir, const char *digest, size_t n, json_t **out)
{
	char *path = pmcfi_camp_join(dir, PMCF_CAMPAIGN_MANIFEST);
	if (!path)
		return no_memory();
	json_error_t je;
	json_t *m = json_load_file(path, 0, &je);
	int err = 0;
	struct stat sb;
	if (!m && stat(path, &sb) != 0)
		err = pmcfi_fail(PMCF_EINVAL, "'%s' holds no campaign to resume (no %s)", dir,
				 PMCF_CAMPAIGN_MANIFEST);
	else if (!m)
		err = pmcfi_fail(PMCF_ESYNTAX, "%s: not JSON (line %d: %s)", path, je.line, je.text);
	free(path);
	if (err)
		return err;
	const char *fmt = json_string_value(json_object_get(m, "format"));
	const char *v = json_string_value(json_object_get(m, "verb"));
	const char *d = json_string_value(json_object_get(m, "plan_digest"));
	json_t *items = json_object_get(m, "executions");
	long long version = json_integer_value(json_object_get(m, "version"));
	if (!fmt || strcmp(fmt, "pmcfuse-campaign") != 0 || !v || !d || !json_is_array(items))
		err = pmcfi_fail(PMCF_ENOTOURS, "'%s/%s' is not a pmcfuse campaign manifest", dir,
				 PMCF_CAMPAIGN_MANIFEST);
	else if (version > 1)
		err = pmcfi_fail(PMCF_EVERSION,
				 "'%s/%s': campaign version %lld is newer than this pmcfuse reads (1)", dir,
				 PMCF_CAMPAIGN_MANIFEST, version);
	else if (strcmp(v, verb) != 0)
		err = pmcfi_fail(PMCF_ECONFLICT, "'%s' is a campaign of `pmcfuse %s`, not of %s", dir, v,
				 verb);
	else if (digest && (strcmp(d, digest) != 0 || json_array_size(items) != n))
		err = pmcfi_fail(
			PMCF_ECONFLICT,
			"'%s' is a campaign of another plan (digest %.12s…, this command's "
			"%.12s…); resume it with its own plan (resume; `pmcfuse %s --resume %s` alone)",
			dir, d, digest, verb, dir);
	if (err)
		json_decref(m);
	else
		*out = m;
	return err;
}

int pmcfi_camp_commit(pmcf_campaign *c, long k, json_t *entry, const char *key, json_t *value)
{
	char *lock = pmcfi_camp_join(c->dir, PMCF_CAMPAIGN_LOCK);
	int fd = lock ? open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0666) : -1;
	int err = 0;
	if (fd < 0 || flock(fd, LOCK_EX) != 0) {
		err = lock ? pmcfi_fail(-errno, "%s: cannot lock the campaign: %s", lock, strerror(errno))
			   : no_memory();
		goto out;
	}
	/* what other processes wrote since: their executions are kept */
	char *path = pmcfi_camp_join(c->dir, PMCF_CAMPAIGN_MANIFEST);
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
	err = write_manifest(c);
out:
	if (fd >= 0)
		close(fd); /* releases the lock */
	free(lock);
	json_decref(entry);
	json_decref(value);
	return err;
}

/* The pid that PMCF_CAMPAIGN_OWNER of a locked folder names, when that
 * process is alive (0: none known, e.g. array tasks hold it). */
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

/* Locks the folder for this session (see pmcf_campaign_open). */
static int lock_owner(pmcf_campaign *c)
{
	char *path = pmcfi_camp_join(c->dir, PMCF_CAMPAIGN_OWNER);
	int fd = path ? open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666) : -1;
	if (fd < 0) {
		int err = path ? pmcfi_fail(-errno, "%s: cannot lock the campaign: %s", path, strerror(errno))
			       : no_memory();
		free(path);
		return err;
	}
	free(path);
	if (flock(fd, (c->task ? LOCK_SH : LOCK_EX) | LOCK_NB) != 0) {
		int e = errno;
		long pid = e == EWOULDBLOCK ? owner_pid(fd) : 0;
		close(fd);
		if (e != EWOULDBLOCK)
			return pmcfi_fail(-e, "%s/%s: cannot lock the campaign: %s", c->dir,
					  PMCF_CAMPAIGN_OWNER, strerror(e));
		char who[64] = "array tasks of its slurm job";
		if (pid)
			snprintf(who, sizeof(who), "pid %ld", pid);
		return pmcfi_fail(
			PMCF_ECONFLICT,
			"'%s' is in use by another pmcfuse (%s): a campaign folder serves one "
			"session at a time; wait for it to end (or stop it), then %s",
			c->dir, who,
			c->resume ? "resume again"
				  : "resume it (resume; the command's --resume), or choose another folder");
	}
	if (!c->task) {
		char buf[32];
		int len = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
		if (ftruncate(fd, 0) != 0 || pwrite(fd, buf, (size_t)len, 0) != len) {
			/* the lock holds without the pid: a refusal will not name it */
		}
	}
	c->owner = fd;
	return 0;
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
	       (l == strlen(PMCF_CAMPAIGN_MANIFEST) + 1 && !strncmp(name + 1, PMCF_CAMPAIGN_MANIFEST, l - 1));
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

void pmcfi_camp_release(pmcf_campaign *c)
{
	if (c->owner < 0)
		return;
	if (!c->task && ftruncate(c->owner, 0) != 0) {
		/* a stale pid is checked for life before it is named */
	}
	close(c->owner); /* releases the lock */
	c->owner = -1;
}

/* A new manifest: every execution missing. */
static int new_manifest(pmcf_campaign *c, int argc, char *const *argv)
{
	char now[32], cwd[4096];
	pmcfi_camp_iso_time((long)time(NULL), now);
	if (!getcwd(cwd, sizeof(cwd)))
		cwd[0] = '\0';
	json_t *cmd = json_array(), *items = json_array(), *m = json_object();
	for (int i = 0; i < argc; i++)
		json_array_append_new(cmd, json_string(argv[i]));
	for (size_t k = 0; k < c->n; k++) {
		json_t *e = json_object();
		json_object_set_new(e, "index", json_integer((json_int_t)k));
		json_object_set_new(e, "status", json_string("missing"));
		json_array_append_new(items, e);
	}
	json_object_set_new(m, "format", json_string("pmcfuse-campaign"));
	json_object_set_new(m, "version", json_integer(1));
	json_object_set_new(m, "verb", json_string(c->verb));
	json_object_set_new(m, "plan_digest", json_string(c->digest));
	json_object_set_new(m, "command", cmd);
	json_object_set_new(m, "cwd", json_string(cwd));
	json_object_set_new(m, "created", json_string(now));
	json_object_set_new(m, "state", json_string("running"));
	json_object_set_new(m, "executions", items);
	if (json_array_size(items) != c->n || json_array_size(cmd) != (size_t)argc ||
	    json_object_size(m) != 9) {
		json_decref(m);
		return no_memory();
	}
	c->manifest = m;
	return write_manifest(c);
}

int pmcfi_camp_open_folder(pmcf_campaign *c, int argc, char *const *argv)
{
	int err = pmcfi_camp_check_dir(c->dir);
	if (err || (err = lock_owner(c)))
		return err;
	/* checked under the lock: a session started at the same time is
	 * refused as such, not for the manifest it wrote */
	if (!c->resume && holds_campaign(c->dir)) {
		char *own = pmcfi_camp_join(c->dir, PMCF_CAMPAIGN_OWNER); /* not ours to leave there */
		if (own && !c->task)
			unlink(own);
		free(own);
		pmcfi_camp_release(c);
		return pmcfi_fail(PMCF_ECONFLICT,
				  "'%s' already holds a campaign or profiles: resume it (resume; `pmcfuse %s "
				  "--resume %s`), or choose another folder",
				  c->dir, c->verb, c->dir);
	}
	if (!c->resume)
		err = new_manifest(c, argc, argv);
	else if (!(err = load_manifest(c->verb, c->dir, c->digest, c->n, &c->manifest))) {
		if (!c->task)
			remove_stale_temps(c->dir);
		err = pmcfi_camp_commit(c, -1, NULL, "state", json_string("running"));
	}
	if (err)
		pmcfi_camp_release(c);
	return err;
}

int pmcfi_camp_update(pmcf_campaign *c, size_t k, const struct pmcfi_camp_exec *x)
{
	if (!json_array_get(json_object_get(c->manifest, "executions"), k))
		return pmcfi_fail(PMCF_EINVAL, "execution %zu is not in the campaign", k);
	char t0[32], t1[32];
	pmcfi_camp_iso_time(x->started, t0);
	pmcfi_camp_iso_time(x->finished, t1);
	const char *file = strrchr(c->paths[k], '/') + 1;
	json_t *e = json_object();
	json_object_set_new(e, "file", json_string(file));
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
		return json_decref(e), no_memory();
	return pmcfi_camp_commit(c, (long)k, e, NULL, NULL);
}

int pmcf_campaign_state_set(pmcf_campaign *c, const char *state)
{
	pmcfi_clear_error();
	if (!c || !state)
		return pmcfi_fail(PMCF_EINVAL, "pmcf_campaign_state_set: no campaign or state");
	if (c->task) /* an array task: the state is the finishing step's */
		return 0;
	return pmcfi_camp_commit(c, -1, NULL, "state", json_string(state));
}

int pmcfi_camp_reload(pmcf_campaign *c)
{
	char *path = pmcfi_camp_join(c->dir, PMCF_CAMPAIGN_MANIFEST);
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

const char *pmcfi_camp_get(const pmcf_campaign *c, const char *key)
{
	return json_string_value(json_object_get(c->manifest, key));
}

const char *pmcf_campaign_status(const pmcf_campaign *c, size_t k)
{
	json_t *e = c ? json_array_get(json_object_get(c->manifest, "executions"), k) : NULL;
	const char *s = json_string_value(json_object_get(e, "status"));
	return s ? s : "missing";
}

int pmcf_campaign_is_done(const pmcf_campaign *c, size_t k)
{
	if (!c || k >= c->n || strcmp(pmcf_campaign_status(c, k), "ok") != 0)
		return 0;
	json_t *e = json_array_get(json_object_get(c->manifest, "executions"), k);
	const char *file = json_string_value(json_object_get(e, "file"));
	if (!file || strchr(file, '/'))
		return 0;
	char *path = pmcfi_camp_join(c->dir, file);
	int ok = path && access(path, R_OK) == 0;
	free(path);
	return ok;
}

void pmcf_campaign_remove(pmcf_campaign *c)
{
	if (!c || c->task)
		return;
	json_t *items = json_object_get(c->manifest, "executions");
	for (size_t k = 0; k < json_array_size(items); k++) {
		const char *file = json_string_value(json_object_get(json_array_get(items, k), "file"));
		char *p = file && !strchr(file, '/') ? pmcfi_camp_join(c->dir, file) : NULL;
		if (p)
			unlink(p);
		free(p);
	}
	static const char *const own[] = {PMCF_CAMPAIGN_MANIFEST, PMCF_CAMPAIGN_LOCK, PMCF_CAMPAIGN_OWNER};
	for (size_t i = 0; i < PMCF_ARRAY_SIZE(own); i++) {
		char *p = pmcfi_camp_join(c->dir, own[i]);
		if (p)
			unlink(p);
		free(p);
	}
	rmdir(c->dir); /* kept when it holds more (the slurm launcher's logs) */
}

int pmcf_campaign_command(const char *verb, const char *dir, int *argc, char ***argv, char **cwd)
{
	pmcfi_clear_error();
	if (!verb || !dir || !argc || !argv || !cwd)
		return pmcfi_fail(PMCF_EINVAL, "pmcf_campaign_command: missing argument");
	json_t *m = NULL;
	int err = load_manifest(verb, dir, NULL, 0, &m);
	if (err)
		return err;
	json_t *cmd = json_object_get(m, "command");
	size_t n = json_array_size(cmd);
	const char *w = json_string_value(json_object_get(m, "cwd"));
	char **v = calloc(n + 1, sizeof(*v));
	*cwd = strdup(w ? w : "");
	for (size_t i = 0; v && i < n; i++) {
		const char *s = json_string_value(json_array_get(cmd, i));
		if (!s || !(v[i] = strdup(s))) {
			pmcf_campaign_command_free((int)n, v, NULL);
			v = NULL;
		}
	}
	json_decref(m);
	if (!v || !n || !*cwd) {
		free(v);
		free(*cwd);
		*cwd = NULL;
		return !v || n ? no_memory()
			       : pmcfi_fail(PMCF_EINVAL, "'%s/%s' holds no command", dir,
					    PMCF_CAMPAIGN_MANIFEST);
	}
	*argc = (int)n;
	*argv = v;
	return 0;
}

void pmcf_campaign_command_free(int argc, char **argv, char *cwd)
{
	for (int i = 0; argv && i < argc; i++)
		free(argv[i]);
	free(argv);
	free(cwd);
}
