/* pmcf_collect_program: checks and encodes the event set, runs the program
 * under libpmcfuse-ompt.so (OMP_TOOL_LIBRARIES + LD_PRELOAD), waits, reads
 * the per-thread record files into a profile and adds the metadata; under
 * kernel multiplexing also sets (and restores) perf_event_mux_interval_ms. */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>
#include "collect/collect_run.h"
#include "collect/reader.h"
#include "collect/rec.h"
#include "collect/sha256.h"
#include "counters/catalog.h"
#include "counters/derive.h"
#include "counters/perf.h"
#include "counters/perf_group.h"
#include "counters/perf_syntax.h"
#include "pmcfuse/collect.h"
#include "pmcfuse/events.h"
#include "util/testhook.h"
#include "pmcfuse/multiplex.h"
#include "multiplex/count_opts.h"
#include "util/abi.h"
#include "util/internal.h"
#include "util/json_bytes.h"
#include "util/tmpdir.h"

#ifndef PMCF_OMPT_TOOL_INSTALLED
#define PMCF_OMPT_TOOL_INSTALLED "/usr/local/lib/pmcfuse/libpmcfuse-ompt.so"
#endif
#ifndef PMCF_INSTALL_LIBDIR /* CMAKE_INSTALL_LIBDIR, relative to the prefix */
#define PMCF_INSTALL_LIBDIR "lib"
#endif
#define TOOL_NAME "libpmcfuse-ompt.so"

extern char **environ;

/* The folder of path (its last '/' cut) into out; 0, or -1 when none. */
static int dir_of(const char *path, char *out, size_t len)
{
	const char *slash = strrchr(path, '/');
	if (!slash || (size_t)(slash - path) >= len)
		return -1;
	memcpy(out, path, (size_t)(slash - path));
	out[slash - path] = '\0';
	return 0;
}

/* The collector, first found of: the option, $PMCF_OMPT_TOOL, beside the
 * running program (the build tree), PREFIX/LIBDIR/pmcfuse/ of the running
 * program's PREFIX/bin (an installed tree at any prefix), pmcfuse/ beside
 * libpmcfuse.so itself (a program linked with the installed library), the
 * path of the configured install prefix. */
static int find_tool(const pmcf_program_opts *o, char *out, size_t len)
{
	enum { NCAND = 6 };
	char exe[PATH_MAX], dir[PATH_MAX], beside[PATH_MAX + 64], up[PATH_MAX + 96], lib[PATH_MAX + 64];
	const char *cand[NCAND] = {o && o->tool_path ? o->tool_path : NULL,
				   getenv("PMCF_OMPT_TOOL"),
				   NULL,
				   NULL,
				   NULL,
				   PMCF_OMPT_TOOL_INSTALLED};
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		if (dir_of(exe, dir, sizeof(dir)) == 0) {
			snprintf(beside, sizeof(beside), "%s/%s", dir, TOOL_NAME);
			cand[2] = beside;
			snprintf(up, sizeof(up), "%s/../%s/pmcfuse/%s", dir, PMCF_INSTALL_LIBDIR, TOOL_NAME);
			cand[3] = up;
		}
	}
	Dl_info di;
	char real[PATH_MAX];
	if (dladdr((void *)find_tool, &di) && di.dli_fname && realpath(di.dli_fname, real) &&
	    dir_of(real, dir, sizeof(dir)) == 0) {
		snprintf(lib, sizeof(lib), "%s/pmcfuse/%s", dir, TOOL_NAME);
		cand[4] = lib;
	}
	for (int i = 0; i < NCAND; i++)
		if (cand[i] && *cand[i] && access(cand[i], R_OK) == 0) {
			if (!realpath(cand[i], out))
				snprintf(out, len, "%s", cand[i]);
			return 0;
		}
	return pmcfi_fail(PMCF_ENOENT,
			  "cannot find the collector %s (looked beside the program, in ../%s/pmcfuse/ and in "
			  "%s; set PMCF_OMPT_TOOL to its path)",
			  TOOL_NAME, PMCF_INSTALL_LIBDIR, PMCF_OMPT_TOOL_INSTALLED);
}

/* argv[0] as execvp would find it; 0 or PMCF_ENOENT. */
static int find_program(const char *name, char *out, size_t len)
{
	if (strchr(name, '/')) {
		if (access(name, X_OK) != 0)
			return pmcfi_fail(PMCF_ENOENT, "cannot run '%s': %s", name, strerror(errno));
		if (!realpath(name, out))
			snprintf(out, len, "%s", name);
		return 0;
	}
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t l = strcspn(path, ":");
		char cand[PATH_MAX];
		snprintf(cand, sizeof(cand), "%.*s/%s", (int)l, l ? path : ".", name);
		if (access(cand, X_OK) == 0) {
			if (!realpath(cand, out))
				snprintf(out, len, "%s", cand);
			return 0;
		}
		path += l + (path[l] == ':');
	}
	return pmcfi_fail(PMCF_ENOENT, "cannot run '%s': not found in PATH", name);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#define REC_DIR_PREFIX "pmcfuse-rec-"

/* A record folder name with its owner's pid: pmcfuse-rec-PID-XXXXXX. */
static long rec_dir_owner(const char *name)
{
	if (strncmp(name, REC_DIR_PREFIX, strlen(REC_DIR_PREFIX)) != 0)
		return -1;
	char *end;
	errno = 0;
	long pid = strtol(name + strlen(REC_DIR_PREFIX), &end, 10);
	return errno || pid <= 0 || *end != '-' || strlen(end) != 7 ? -1 : pid;
}

static int is_rec_dir(const struct dirent *de) { return rec_dir_owner(de->d_name) > 0; }

/* Removes the record folders in tmp of this user whose pmcfuse (the PID in
 * the name) is gone: left by a pmcfuse that was killed (SIGKILL) while its
 * program ran. A folder whose owner may live is left alone. */
static void remove_orphan_dirs(const char *tmp)
{
	struct dirent **list = NULL;
	int n = scandir(tmp, &list, is_rec_dir, NULL);
	for (int i = 0; i < n; i++) {
		char p[PATH_MAX + 300];
		struct stat sb;
		long pid = rec_dir_owner(list[i]->d_name);
		snprintf(p, sizeof(p), "%s/%s", tmp, list[i]->d_name);
		if (lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode) && sb.st_uid == getuid() &&
		    kill((pid_t)pid, 0) != 0 && errno == ESRCH)
			pmcfi_rm_tree(p);
		free(list[i]);
	}
	free(list);
}

/* "name=value" in a fresh string; NULL on allocation failure. */
static char *env_pair(const char *name, const char *value)
{
	size_t l = strlen(name) + strlen(value) + 2;
	char *s = malloc(l);
	if (s)
		snprintf(s, l, "%s=%s", name, value);
	return s;
}

static char **child_env(const char *tool, const char *dir, const char *events, const char *names,
			unsigned chunk_kb, const char *mux)
{
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = calloc(n + 9, sizeof(*env));
	if (!env)
		return NULL;
	size_t k = 0;
	const char *preload = getenv("LD_PRELOAD");
	for (size_t i = 0; i < n; i++) {
		const char *e = environ[i];
		if (!strncmp(e, "LD_PRELOAD=", 11) || !strncmp(e, "OMP_TOOL_LIBRARIES=", 19) ||
		    !strncmp(e, "OMP_TOOL=", 9) || !strncmp(e, "PMCF_COLLECT_", 13))
			continue;
		env[k++] = (char *)e;
	}
	char pre[PATH_MAX * 2 + 8], chunk[32];
	snprintf(pre, sizeof(pre), "%s%s%s", tool, preload && *preload ? " " : "", preload ? preload : "");
	snprintf(chunk, sizeof(chunk), "%u", chunk_kb ? chunk_kb : 8192);
	size_t first = k;
	env[k++] = env_pair("LD_PRELOAD", pre);
	env[k++] = env_pair("OMP_TOOL_LIBRARIES", tool);
	env[k++] = env_pair("OMP_TOOL", "enabled");
	env[k++] = env_pair(PMCFI_ENV_DIR, dir);
	env[k++] = env_pair(PMCFI_ENV_EVENTS, events);
	env[k++] = env_pair(PMCFI_ENV_NAMES, names);
	env[k++] = env_pair(PMCFI_ENV_CHUNK, chunk);
	env[k++] = env_pair(PMCFI_ENV_MUX, mux ? mux : ""); /* "": not multiplexed */
	for (size_t i = first; i < k; i++)
		if (!env[i]) {
			for (size_t j = first; j < k; j++)
				free(env[j]);
			free(env);
			return NULL;
		}
	return env;
}

static void free_env(char **env)
{
	if (!env)
		return;
	/* the last 8 entries are ours */
	size_t k = 0;
	while (env[k])
		k++;
	for (size_t i = k >= 8 ? k - 8 : 0; i < k; i++)
		free(env[i]);
	free(env);
}

/* ---- metadata ---------------------------------------------------------------- */
static void read_line(const char *path, const char *key, char *out, size_t len)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	out[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (key && strncmp(line, key, strlen(key)) != 0)
			continue;
		char *v = key ? strchr(line, ':') : line;
		if (!v)
			continue;
		v += key ? 1 : 0;
		while (*v == ' ' || *v == '\t')
			v++;
		v[strcspn(v, "\n")] = '\0';
		snprintf(out, len, "%s", v);
		break;
	}
	fclose(f);
}

static void pmu_name(char *out, size_t len)
{
	char caps[128];
	out[0] = '\0';
	if (access("/sys/bus/event_source/devices/cpu", F_OK) == 0 ||
	    access("/sys/bus/event_source/devices/cpu_core", F_OK) == 0) {
		read_line("/sys/bus/event_source/devices/cpu/caps/pmu_name", NULL, caps, sizeof(caps));
		snprintf(out, len, "cpu%s%s%s", caps[0] ? " (" : "", caps, caps[0] ? ")" : "");
		return;
	}
	/* arm64: the kernel's armv8_pmuv3 (or armv8_pmuv3_0, armv8_cortex_a57, ...) */
	DIR *d = opendir("/sys/bus/event_source/devices");
	struct dirent *e;
	while (d && !out[0] && (e = readdir(d)))
		if (strncmp(e->d_name, "armv8_", 6) == 0 || strncmp(e->d_name, "armv7_", 6) == 0)
			snprintf(out, len, "%.63s", e->d_name);
	if (d)
		closedir(d);
	if (!out[0])
		snprintf(out, len, "none");
}

/* The binary's SHA-256 and GNU build-id, computed in a thread while the
 * program runs. */
struct hash_job {
	const char *path;
	char hex[65], build_id[129];
	int ok, started;
	pthread_t th;
};

static void *hash_main(void *arg)
{
	struct hash_job *h = arg;
	h->ok = pmcfi_sha256_file(h->path, h->hex) == 0;
	if (pmcfi_build_id_file(h->path, h->build_id, sizeof(h->build_id)) != 0)
		h->build_id[0] = '\0';
	return NULL;
}

static void hash_start(struct hash_job *h, const char *path)
{
	memset(h, 0, sizeof(*h));
	h->path = path;
	h->started = pthread_create(&h->th, NULL, hash_main, h) == 0;
	if (!h->started)
		hash_main(h);
}

static const char *hash_wait(struct hash_job *h)
{
	if (h->started) {
		pthread_join(h->th, NULL);
		h->started = 0;
	}
	return h->ok ? h->hex : "";
}

char *pmcf_collect_omp_env(void)
{
	char buf[1024];
	json_t *omp = json_object();
	for (size_t i = 0; omp && environ[i]; i++)
		if (!strncmp(environ[i], "OMP_", 4) && strncmp(environ[i], "OMP_TOOL", 8)) {
			const char *eq = strchr(environ[i], '=');
			if (eq) {
				snprintf(buf, sizeof(buf), "%.*s", (int)(eq - environ[i]), environ[i]);
				json_object_set_new(omp, buf, json_string(eq + 1));
			}
		}
	char *o = omp ? json_dumps(omp, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	json_decref(omp);
	return o;
}

static int add_meta(pmcf_profile *p, char *const argv[], const char *program, const char *tool, unsigned pmcs,
		    const pmcf_exit_info *ei, time_t start, const char *sha, const char *build_id,
		    uint64_t cpu_ns)
{
	json_t *args = json_array();
	int err = 0;
	if (!args)
		return PMCF_ENOMEM;
	for (size_t i = 1; argv[i]; i++)
		json_array_append_new(args, pmcfi_json_bytes(argv[i])); /* lossless: util/json_bytes.h */
	char *a = json_dumps(args, JSON_COMPACT), *o = pmcf_collect_omp_env();
	json_decref(args);
	struct utsname u;
	uname(&u);
	struct tm tm;
	gmtime_r(&start, &tm);
	char iso[64];
	strftime(iso, sizeof(iso), "%Y-%m-%dT%H:%M:%SZ", &tm);
	char cpu[256], pmu[160], status[64], pm[32], cwd[PATH_MAX], cpu_t[32];
	snprintf(cpu_t, sizeof(cpu_t), "%llu", (unsigned long long)cpu_ns);
	read_line("/proc/cpuinfo", "model name", cpu, sizeof(cpu));
	if (!cpu[0]) { /* arm64: no model name, the implementer and part numbers */
		char impl[32], part[32];
		read_line("/proc/cpuinfo", "CPU implementer", impl, sizeof(impl));
		read_line("/proc/cpuinfo", "CPU part", part, sizeof(part));
		if (impl[0])
			snprintf(cpu, sizeof(cpu), "CPU implementer %s, part %s", impl, part);
	}
	pmu_name(pmu, sizeof(pmu));
	if (ei->exited)
		snprintf(status, sizeof(status), "%d", ei->status);
	else
		snprintf(status, sizeof(status), "signal %d", ei->signal);
	/* no budget given: the general counters probed, and from where */
	char pmcs_from[160] = "";
	unsigned probed;
	if (!pmcs && pmcfi_host_counters_probed(&probed, NULL, pmcs_from, sizeof(pmcs_from)) == 0)
		pmcs = probed;
	snprintf(pm, sizeof(pm), "%u", pmcs);
	if (!getcwd(cwd, sizeof(cwd)))
		cwd[0] = '\0';
	const char *mode = ei->ompt ? "ompt" : ei->fallback ? "threads" : "task-api";
	struct {
		const char *k, *v;
	} kv[] = {
		{PMCF_META_PROGRAM, program},
		{PMCF_META_ARGS, a ? a : "[]"},
		{PMCF_META_BINARY_SHA256, sha},
		{PMCF_META_CWD, cwd},
		{PMCF_META_HOST, u.nodename},
		{PMCF_META_KERNEL, u.release},
		{PMCF_META_CPU_MODEL, cpu},
		{PMCF_META_PMU, pmu},
		{PMCF_META_START_TIME, iso},
		{PMCF_META_SOURCE, "perf"},
		{PMCF_META_PMCS, pm},
		{PMCF_META_MULTIPLEX, "none"},
		{PMCF_META_EXIT_STATUS, status},
		{PMCF_META_COMPLETE, ei->complete ? "1" : "0"},
		{PMCF_META_PMCFUSE_VERSION, pmcf_version()},
		{PMCF_META_CPU_TIME_NS, cpu_t},
		{"omp_env", o ? o : "{}"},
		{"collector", mode},
		{"collector_tool", tool},
	};
	for (size_t i = 0; i < PMCF_ARRAY_SIZE(kv) && !err; i++)
		err = pmcf_profile_meta_set(p, kv[i].k, kv[i].v);
	if (!err && pmcs_from[0])
		err = pmcf_profile_meta_set(p, "pmcs_from", pmcs_from);
	/* the identity perf gives binaries, when the linker wrote one */
	if (!err && build_id && *build_id)
		err = pmcf_profile_meta_set(p, "binary_build_id", build_id);
	free(a);
	free(o);
	return err;
}

/* PMCF_META_USER_SPACE_ONLY: the events (catalogue indices idx, names
 * events) counted in user space only because kernel mode is not allowed
 * here; nothing when there is none. */
static int add_user_only_meta(pmcf_profile *p, const pmcf_catalog *cat, const size_t *idx,
			      const char *const *events, size_t n)
{
	json_t *arr = json_array();
	if (!arr)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		if (pmcfi_perf_user_only_at(cat, idx[i]) &&
		    json_array_append_new(arr, pmcfi_json_bytes(events[i]))) {
			json_decref(arr);
			return pmcfi_fail(PMCF_ENOMEM, "out of memory");
		}
	int err = 0;
	if (json_array_size(arr)) {
		char *txt = json_dumps(arr, JSON_COMPACT);
		err = txt ? pmcf_profile_meta_set(p, PMCF_META_USER_SPACE_ONLY, txt)
			  : pmcfi_fail(PMCF_ENOMEM, "out of memory");
		free(txt);
	}
	json_decref(arr);
	return err;
}

/* ---- the run ------------------------------------------------------------------- */
/* The natives to count for catalogue events idx[0..n) of c (names[i] their
 * spelling, owned by the caller; duration left out): attrs and
 * nat[0..*nout) (a PAPI preset's natives all carry its name). No name is
 * looked up: the list was resolved once. When a PAPI preset is among the
 * events, dv[0..*ndv) says how the reader makes each event's column from
 * the natives (counters/derive.h), else *ndv is 0 and the natives are the
 * events. */
static int encode_events(const pmcf_catalog *c, const size_t *idx, const char *const *events, size_t n,
			 unsigned pmcs, int mux, struct perf_event_attr *attrs, const char **names,
			 size_t *nout, struct pmcfi_derive *dv, size_t *ndv)
{
	size_t k = 0, m = 0; /* natives, events */
	int derived = 0, err = 0;
	size_t evidx[PMCFI_PGROUP_MAX];
	for (size_t i = 0; i < n && !err; i++) {
		if (idx[i] == 0) /* duration: no counter */
			continue;
		if (k == PMCFI_PGROUP_MAX) {
			err = pmcfi_fail(PMCF_ETOOMANY, "at most %d events per execution", PMCFI_PGROUP_MAX);
			break;
		}
		size_t na = 0;
		err = pmcfi_perf_expand_at(c, idx[i], &attrs[k], PMCFI_PGROUP_MAX - k, &na, &dv[m]);
		if (err == PMCF_ETOOMANY)
			err = pmcfi_fail(PMCF_ETOOMANY,
					 "at most %d events per execution (a PAPI preset counts one "
					 "per native)",
					 PMCFI_PGROUP_MAX);
		if (err)
			break;
		dv[m].first = (unsigned)k;
		dv[m].name = events[i]; /* outlives the catalogue */
		derived |= strcmp(pmcf_catalog_at(c, idx[i])->source, PMCF_SRC_PAPI) == 0;
		for (size_t j = 0; j < na; j++)
			names[k++] = events[i];
		evidx[m++] = idx[i];
	}
	*ndv = derived ? m : 0;
	if (!err && k && mux != PMCF_MUX_NONE) {
		/* multiplexed: each event alone must be countable */
		for (size_t i = 0; i < m && !err; i++) {
			char why[512] = "";
			int ok = pmcfi_catalog_check_idx(c, &evidx[i], 1, 0, why, sizeof(why));
			if (ok < 0)
				err = ok;
			else if (ok == 0)
				err = pmcfi_fail(PMCF_EEVENT, "%s", why[0] ? why : "cannot count the event");
		}
	} else if (!err && k) {
		char why[512] = "";
		int ok = pmcfi_catalog_check_idx(c, evidx, m, pmcs, why, sizeof(why));
		if (ok < 0)
			err = ok;
		else if (ok == 0)
			err = pmcfi_fail(PMCF_ETOOMANY, "%s",
					 why[0] ? why : "the events do not fit together");
	}
	*nout = k;
	return err;
}

/* "EMFILE" for EMFILE ("" when unknown). */
static const char *errno_name(uint32_t e)
{
	const char *n = e && e < 4096 ? strerrorname_np((int)e) : NULL;
	return n ? n : "";
}

/* The program pmcf_collect_program is running (0: none), whether its
 * records are being read (it has ended), and a signal that arrived while
 * none was running (the next program is then not started). */
static volatile sig_atomic_t running_child, reading, pending_signal;
/* the program leads a process group of its own (the signal goes to the
 * group: a wrapper's children too), and a signal was passed on */
static volatile sig_atomic_t running_group, forwarded;

int pmcf_collect_signal(int sig)
{
	if (sig == 0) {
		pending_signal = 0;
		return 0;
	}
	pid_t pid = (pid_t)running_child;
	if (pid > 0 && kill(running_group ? -pid : pid, sig) == 0) {
		forwarded = 1;
		return 1;
	}
	pending_signal = sig;
	return reading ? 2 : 0;
}

/* A guard for the program's process group: a small process that waits on
 * a pipe; when pmcfuse ends without saying the program is done (it was
 * killed: SIGKILL leaves the program's own children running, which
 * PR_SET_PDEATHSIG cannot reach), it kills the group. *fd: the write end
 * (-1 when no guard could be started: only the program itself then dies
 * with pmcfuse). */
static pid_t guard_start(int *fd, const int keep[2])
{
	int gp[2];
	*fd = -1;
	if (pipe2(gp, O_CLOEXEC) != 0)
		return -1;
	pid_t g = fork();
	if (g == 0) {
		/* async-signal-safe calls only: the parent has threads; the
		 * caller's pipe keep[] must not stay open here */
		close(gp[1]);
		close(keep[0]);
		close(keep[1]);
		struct sigaction ign = {.sa_handler = SIG_IGN};
		sigaction(SIGINT, &ign, NULL);
		sigaction(SIGTERM, &ign, NULL);
		sigaction(SIGHUP, &ign, NULL);
		pid_t pg = 0;
		char done = 0;
		ssize_t n;
		while ((n = read(gp[0], &pg, sizeof(pg))) < 0 && errno == EINTR)
			;
		if (n != (ssize_t)sizeof(pg))
			pmcfi_child_exit(0);
		while ((n = read(gp[0], &done, 1)) < 0 && errno == EINTR)
			;
		if (n != 1 && pg > 0)
			kill(-pg, SIGKILL);
		pmcfi_child_exit(0);
	}
	close(gp[0]);
	if (g < 0) {
		close(gp[1]);
		return -1;
	}
	*fd = gp[1];
	return g;
}

/* Tells the guard the program is done (it exits without killing) and reaps it. */
static void guard_stop(pid_t g, int fd)
{
	if (g <= 0)
		return;
	char done = 1;
	if (write(fd, &done, 1) != 1) {
		/* the guard is gone: nothing to tell */
	}
	close(fd);
	while (waitpid(g, NULL, 0) < 0 && errno == EINTR)
		;
}

/* *cpu_ns: the child's user + system time with that of the children it
 * waited for (wait4's rusage), the whole run's task-clock. */
static int run_child(char *const argv[], const char *program, char **env, const int outfd[2],
		     pmcf_exit_info *ei, uint64_t *cpu_ns)
{
	int pfd[2];
	reading = 0;
	if (pipe2(pfd, O_CLOEXEC) != 0)
		return pmcfi_fail(-errno, "pipe: %s", strerror(errno));
	fflush(NULL);
	/* the signals a caller forwards with pmcf_collect_signal are held until
	 * the child's pid is known, so none is lost between fork and the store */
	sigset_t stop, old;
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop, &old);
	if (pending_signal) {
		int sig = pending_signal;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		close(pfd[0]);
		close(pfd[1]);
		return pmcfi_fail(-EINTR, "interrupted by signal %d (%s) before '%s' started", sig,
				  strsignal(sig), argv[0]);
	}
	pid_t parent = getpid();
	/* the program in a process group of its own, so that a stop reaches
	 * what a wrapper (sh -c "prog ...") started; not when pmcfuse is the
	 * terminal's foreground job, where the program may read the terminal
	 * (a background group would be stopped by SIGTTIN) and the terminal's
	 * ^C reaches the whole group anyway */
	int group = !(isatty(0) && tcgetpgrp(0) == getpgrp()), gfd = -1;
	forwarded = 0;
	pid_t guard = group ? guard_start(&gfd, pfd) : -1;
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		guard_stop(guard, gfd);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		close(pfd[0]);
		close(pfd[1]);
		return pmcfi_fail(-e, "cannot start '%s': %s", argv[0], strerror(e));
	}
	if (pid == 0) {
		close(pfd[0]);
		if (gfd >= 0)
			close(gfd);
		/* the program dies with pmcfuse, even when pmcfuse is killed */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			pmcfi_child_exit(127);
		if (group)
			setpgid(0, 0);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		for (int k = 0; k < 2; k++)
			if (outfd[k] > 0 && outfd[k] != k + 1 && dup2(outfd[k], k + 1) < 0)
				pmcfi_child_exit(127);
		execve(program, argv, env);
		int e = errno;
		if (write(pfd[1], &e, sizeof(e)) < 0)
			pmcfi_child_exit(127);
		pmcfi_child_exit(127);
	}
	if (group && setpgid(pid, pid) != 0 && errno != EACCES)
		group = 0; /* EACCES: the child has exec()ed, after its own setpgid */
	if (group && guard > 0 && write(gfd, &pid, sizeof(pid)) != (ssize_t)sizeof(pid)) {
		/* no guard: the program alone dies with pmcfuse */
	}
	running_group = group;
	running_child = pid;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close(pfd[1]);
	int child_errno = 0;
	ssize_t got;
	while ((got = read(pfd[0], &child_errno, sizeof(child_errno))) < 0 && errno == EINTR)
		;
	close(pfd[0]);
	/* wait without reaping first: until running_child is cleared, the pid
	 * cannot be reused by another process that a forwarded signal would hit */
	siginfo_t si;
	while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) < 0)
		if (errno != EINTR) {
			int e = errno;
			running_child = 0;
			guard_stop(guard, gfd);
			return pmcfi_fail(-e, "waitid: %s", strerror(e));
		}
	guard_stop(guard, gfd); /* its program has ended */
	/* stopped: what is left of its group (processes that ignore the
	 * signal, or are slower to die) goes with it, before the leader is
	 * reaped (until then its pid, the group's id, cannot be reused) */
	if (forwarded && running_group)
		kill(-pid, SIGKILL);
	reading = 1; /* before running_child is cleared: a signal sees one of them */
	running_child = 0;
	running_group = 0;
	int st;
	struct rusage ru;
	while (wait4(pid, &st, 0, &ru) < 0)
		if (errno != EINTR)
			return pmcfi_fail(-errno, "wait4: %s", strerror(errno));
	*cpu_ns = ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000u +
		  ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000u;
	if (got == (ssize_t)sizeof(child_errno))
		return pmcfi_fail(PMCF_ENOENT, "cannot run '%s': %s", argv[0], strerror(child_errno));
	ei->exited = WIFEXITED(st);
	ei->status = WIFEXITED(st) ? WEXITSTATUS(st) : 0;
	ei->signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
	ei->complete = ei->exited && ei->status == 0;
	return 0;
}

/* The loss record the tool maps (rec.h), created empty in dir. */
static int status_create(const char *dir)
{
	char path[PATH_MAX + 16];
	snprintf(path, sizeof(path), "%s/%s", dir, PMCFI_REC_STATUS);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return pmcfi_fail(-errno, "cannot create %s: %s (%s)", path, strerror(errno),
				  errno_name((uint32_t)errno));
	struct pmcfi_rec_status h = {.magic = PMCFI_REC_STATUS_MAGIC};
	int e = posix_fallocate(fd, 0, PMCFI_REC_STATUS_SIZE);
	if (!e && pwrite(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
		e = errno ? errno : EIO;
	close(fd);
	if (e)
		return pmcfi_fail(-e, "cannot create %s: %s", path, strerror(e));
	return 0;
}

/* The loss record after the run (zero when there is none). */
static void status_read(const char *dir, struct pmcfi_rec_status *out)
{
	char path[PATH_MAX + 16];
	memset(out, 0, sizeof(*out));
	snprintf(path, sizeof(path), "%s/%s", dir, PMCFI_REC_STATUS);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (pread(fd, out, sizeof(*out), 0) != (ssize_t)sizeof(*out) ||
	    out->magic != PMCFI_REC_STATUS_MAGIC || !out->written)
		memset(out->why, 0, sizeof(out->why));
	if (out->magic != PMCFI_REC_STATUS_MAGIC)
		memset(out, 0, sizeof(*out));
	out->why[sizeof(out->why) - 1] = '\0';
	close(fd);
}

static void events_env(const struct perf_event_attr *a, size_t n, const char **names, char *ev, size_t evlen,
		       char *nm, size_t nmlen)
{
	size_t o = 0, q = 0;
	ev[0] = nm[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		/* the privilege and modifier bits (rt.c reads them back) */
		unsigned xk = (a[i].exclude_kernel ? 1u : 0u) | (a[i].exclude_hv ? 2u : 0u) |
			      (a[i].exclude_user ? 4u : 0u) | (a[i].exclude_guest ? 8u : 0u) |
			      (a[i].exclude_host ? 16u : 0u) | (a[i].exclude_idle ? 32u : 0u) |
			      (a[i].pinned ? 64u : 0u) | (unsigned)a[i].precise_ip << 7;
		o += (size_t)snprintf(ev + o, o < evlen ? evlen - o : 0, "%s%u:%llx:%llx:%llx:%u",
				      i ? "," : "", a[i].type, (unsigned long long)a[i].config,
				      (unsigned long long)a[i].config1, (unsigned long long)a[i].config2, xk);
		/* names may hold commas (cpu/event=0x3c,umask=0/): one per line */
		q += (size_t)snprintf(nm + q, q < nmlen ? nmlen - q : 0, "%s%s", i ? "\n" : "", names[i]);
	}
}

/* The shortest user-space rotation period: a rotation is 2 + 2n system calls
 * (~10 us on a VM); at 0.01 ms a program makes no progress, at 0.02 ms it
 * runs ~25x slower (docs/results/hem-real.md). */
#define MIN_USER_PERIOD_MS 0.02

/* The least free space a recording starts with: two threads' first record
 * chunks (rt.c FIRST_CHUNK_BYTES). */
#define MIN_RECORD_SPACE (512u * 1024u)

/* ---- kernel multiplexing: the rotation interval of every PMU ---------------- */
#define MUX_SYSFS PMCFI_SYSFS_PMUS
#define MAX_PMUS 64

struct mux_saved {
	char name[MAX_PMUS][64];
	int old[MAX_PMUS];
	int n;
};

/* Whether the kernel rotates the events of PMU `name` (type number `type`)
 * when they are recorded with attrs: the PMU must be one of theirs, and not
 * a PMU whose events never compete for counters (software, tracepoint,
 * probes), which the kernel never rotates. Generic hardware, cache and raw
 * events belong to the core PMU(s): "cpu", or any PMU listing its "cpus"
 * (hybrid x86, Arm). */
static int mux_pmu_used(const char *name, long type, const struct perf_event_attr *attrs, size_t n)
{
	if (type == PERF_TYPE_SOFTWARE || type == PERF_TYPE_TRACEPOINT)
		return 0;
	int core = -1;
	for (size_t i = 0; i < n; i++) {
		if (attrs[i].type == PERF_TYPE_SOFTWARE || attrs[i].type == PERF_TYPE_TRACEPOINT ||
		    attrs[i].type == PERF_TYPE_BREAKPOINT)
			continue;
		if ((long)attrs[i].type == type)
			return 1;
		if (attrs[i].type == PERF_TYPE_HARDWARE || attrs[i].type == PERF_TYPE_HW_CACHE ||
		    attrs[i].type == PERF_TYPE_RAW) {
			if (core < 0) {
				char path[512];
				snprintf(path, sizeof(path), MUX_SYSFS "/%s/cpus", name);
				core = !strcmp(name, "cpu") || access(path, F_OK) == 0;
			}
			if (core)
				return 1;
		}
	}
	return 0;
}

/* Sets perf_event_mux_interval_ms to ms for every PMU the kernel will rotate
 * for these events, remembering the old values; 0 when all could be set (or
 * none needed it: software events and tracepoints never rotate), else the
 * number refused (errno in *why). */
static int mux_interval_set(int ms, const struct perf_event_attr *attrs, size_t n, struct mux_saved *sv,
			    int *why)
{
	sv->n = 0;
	int refused = 0;
	DIR *d = opendir(MUX_SYSFS);
	if (!d) {
		*why = errno;
		return 1;
	}
	struct dirent *de;
	while ((de = readdir(d)) != NULL && sv->n < MAX_PMUS) {
		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(sv->name[0]))
			continue;
		if (!mux_pmu_used(de->d_name, pmcfi_perf_pmu_type(MUX_SYSFS, de->d_name), attrs, n))
			continue;
		char path[512];
		snprintf(path, sizeof(path), MUX_SYSFS "/%s/perf_event_mux_interval_ms", de->d_name);
		FILE *f = fopen(path, "r");
		int old;
		if (!f)
			continue;
		int got = fscanf(f, "%d", &old);
		fclose(f);
		if (got != 1)
			continue;
		if (old == ms)
			continue;
		errno = 0;
		f = fopen(path, "w");
		int ok = f && fprintf(f, "%d\n", ms) > 0;
		if (f && fclose(f) != 0)
			ok = 0;
		if (!ok) {
			*why = errno ? errno : EACCES;
			refused++;
			continue;
		}
		snprintf(sv->name[sv->n], sizeof(sv->name[0]), "%s", de->d_name);
		sv->old[sv->n++] = old;
	}
	closedir(d);
	return refused;
}

static void mux_interval_restore(const struct mux_saved *sv)
{
	for (int i = 0; i < sv->n; i++) {
		char path[512];
		snprintf(path, sizeof(path), MUX_SYSFS "/%s/perf_event_mux_interval_ms", sv->name[i]);
		FILE *f = fopen(path, "w");
		if (f) {
			fprintf(f, "%d\n", sv->old[i]);
			fclose(f);
		}
	}
}

static int add_mux_meta(pmcf_profile *p, int mux, double period_ms, int estimate)
{
	char buf[64];
	int err = pmcf_profile_meta_set(p, PMCF_META_MULTIPLEX, pmcf_mux_mode_name(mux));
	if (!err && mux != PMCF_MUX_NONE) {
		snprintf(buf, sizeof(buf), "%g", period_ms);
		err = pmcf_profile_meta_set(p, PMCF_META_PERIOD_MS, buf);
		if (!err)
			err = pmcf_profile_meta_set(p, PMCF_META_ESTIMATE, pmcf_estimate_name(estimate));
	}
	return err;
}

_Thread_local struct pmcfi_collect_timing pmcfi_collect_last_timing;

int pmcf_collect_program(char *const argv[], const char *const *events, size_t nevents,
			 const pmcf_count_opts *opts, const pmcf_program_opts *po, pmcf_profile **out,
			 pmcf_exit_info *exit_info)
{
	pmcfi_clear_error();
	*out = NULL;
	if (exit_info) {
		int rc = pmcfi_struct_reset("pmcf_exit_info", exit_info, sizeof(*exit_info));
		if (rc)
			return rc;
	}
	if (!argv || !argv[0] || (nevents && !events))
		return pmcfi_fail(PMCF_EINVAL, "no program to run");
	/* the small catalogue when it names every event (duration is no perf event) */
	const char **want = malloc((nevents ? nevents : 1) * sizeof(*want));
	if (!want)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	size_t nwant = 0;
	for (size_t i = 0; i < nevents; i++)
		if (strcmp(events[i], PMCF_EVENT_DURATION) != 0)
			want[nwant++] = events[i];
	pmcf_catalog *c = NULL;
	pmcf_evlist *l = NULL;
	int err = pmcfi_catalog_perf_for(want, nwant, &c);
	free(want);
	if (!err)
		err = nevents ? pmcf_evlist_from_names(c, events, nevents, &l)
			      : pmcf_evlist_from_names(c, (const char *const[]){PMCF_EVENT_DURATION}, 1, &l);
	if (!err)
		err = pmcfi_collect_run(argv, c, pmcfi_evlist_indices(l), pmcf_evlist_names(l),
					pmcf_evlist_size(l), opts, po, out, exit_info);
	pmcf_evlist_free(l);
	pmcf_catalog_free(c);
	return err;
}

/* The collector's own part of the multiplexing options (pmcfi_count_opts_in
 * checked the rest): rr and roc count 4 counters unless told (*pmcs) and
 * rotate no faster than MIN_USER_PERIOD_MS (*period_ms). */
static void user_mux(int mux, unsigned *pmcs, double *period_ms)
{
	if (mux >= PMCF_MUX_RR && !*pmcs)
		*pmcs = 4;
	if (mux >= PMCF_MUX_RR && *period_ms < MIN_USER_PERIOD_MS) {
		pmcfi_log(PMCF_LOG_WARN,
			  "user-space rotation every %g ms would outrun the program (each rotation "
			  "costs a few system calls): using %g ms",
			  *period_ms, MIN_USER_PERIOD_MS);
		*period_ms = MIN_USER_PERIOD_MS;
	}
}

/* The record folder into dir[PATH_MAX]: opts->record_dir, or (*temp) a new
 * one in TMPDIR named after this process, whose orphans it removes. */
static int make_record_dir(const pmcf_program_opts *opts, char *dir, int *temp)
{
	int rc;
	*temp = !(opts && opts->record_dir);
	if (*temp) {
		const char *env = getenv("TMPDIR");
		const char *tmp = env && *env ? env : "/tmp";
		remove_orphan_dirs(tmp);
		/* the owner's pid in the name: a later run removes it if that one died */
		char prefix[64], *made;
		snprintf(prefix, sizeof(prefix), REC_DIR_PREFIX "%ld-", (long)getpid());
		rc = pmcfi_tmpdir_new(tmp, prefix, &made);
		if (rc)
			return rc == PMCF_ENOMEM
				       ? rc
				       : pmcfi_fail(rc, "cannot create a record folder in %s '%s': %s",
						    tmp == env ? "TMPDIR" : "the default TMPDIR", tmp,
						    strerror(-rc));
		snprintf(dir, PATH_MAX, "%s", made);
		free(made);
	} else {
		snprintf(dir, PATH_MAX, "%s", opts->record_dir);
		if (mkdir(dir, 0755) != 0 && errno != EEXIST)
			return pmcfi_fail(-errno, "cannot create %s: %s", dir, strerror(errno));
	}
	return 0;
}

/* Room for records: each thread's first chunk is reserved before it
 * records (rt.c); with less than two, the program would run for nothing.
 * place[PATH_MAX]: the folder named in messages. */
static int check_space(const char *dir, int temp, const char *where, char *place)
{
	snprintf(place, PATH_MAX, "%s", dir);
	if (temp && strrchr(place, '/'))
		*strrchr(place, '/') = '\0';
	struct statvfs vfs;
	if (statvfs(dir, &vfs) == 0 && (uint64_t)vfs.f_bavail * vfs.f_frsize < MIN_RECORD_SPACE) {
		unsigned long long kb = (unsigned long long)vfs.f_bavail * vfs.f_frsize / 1024;
		return pmcfi_fail(-ENOSPC,
				  "no space left in %s (%s: %llu KiB free; recording needs at least "
				  "%u KiB)",
				  where, place, kb, MIN_RECORD_SPACE / 1024);
	}
	return 0;
}

/* perf_event_mux_interval_ms of the PMUs of attrs at period_ms (whole ms),
 * the old values into *saved. */
static void kernel_interval(double period_ms, const struct perf_event_attr *attrs, size_t n,
			    struct mux_saved *saved)
{
	int ms = (int)(period_ms + 0.5), why = 0;
	if (ms < 1)
		ms = 1;
	int refused = mux_interval_set(ms, attrs, n, saved, &why);
	if (refused)
		pmcfi_log(PMCF_LOG_WARN,
			  "cannot set perf_event_mux_interval_ms to %d for %d PMU(s) (%s): the "
			  "kernel rotates at its own interval%s",
			  ms, refused, strerror(why),
			  why == EACCES || why == EPERM ? " (setting it needs root)" : "");
	else if (ms != period_ms)
		pmcfi_log(PMCF_LOG_INFO, "the kernel rotates every whole ms: perf_event_mux_interval_ms=%d",
			  ms);
}

/* The reader's counts into *ei, with a line for each thing worth saying
 * about them. */
static void take_stats(pmcf_exit_info *ei, const struct pmcfi_collect_stats *st, int count_mux,
		       const char *prog)
{
	ei->ompt = st->ompt;
	ei->fallback = st->fallback;
	ei->xus = st->xus;
	ei->incomplete_xus = st->incomplete;
	ei->multiplexed_xus = st->multiplexed;
	ei->negative_values = st->negative;
	ei->missing_values = st->missing;
	ei->rotations = st->rotations;
	if (st->multiplexed && count_mux == PMCF_MUX_NONE)
		pmcfi_log(PMCF_LOG_WARN,
			  "%zu XU%s values from counters that were not always running "
			  "(time_running < time_enabled); see their coverage",
			  st->multiplexed, st->multiplexed == 1 ? " has" : "s have");
	if (st->dropped && !st->stop_errno) /* else the message below says why */
		pmcfi_log(PMCF_LOG_WARN, "%zu records were lost (record files could not grow)", st->dropped);
	if (!st->ompt && !st->api)
		pmcfi_log(PMCF_LOG_INFO, "no OMPT runtime in %s (not clang/libomp?): one XU per thread",
			  prog);
	else if (st->ompt_missing[0])
		pmcfi_log(PMCF_LOG_WARN, "the OpenMP runtime did not grant OMPT callbacks: %s",
			  st->ompt_missing);
}

/* Why the profile is incomplete, into ei->message (and ei->complete 0),
 * when it is. */
static void incomplete_message(pmcf_exit_info *ei, const struct pmcfi_collect_stats *st,
			       const struct pmcfi_rec_status *loss, const char *lossmsg, const char *where,
			       const char *place, const char *prog)
{
	int nospace = st->stop_errno == ENOSPC || st->stop_errno == EDQUOT || st->stop_errno == EFBIG;
	if (!ei->complete || st->dropped || st->stop_errno || loss->lost || st->incomplete) {
		if (ei->complete)
			ei->complete = 0;
		if (loss->lost && !nospace) /* a full TMPDIR is said below */
			snprintf(ei->message, sizeof(ei->message),
				 "the collector lost %u thread%s of the program: %.280s%s; the profile "
				 "keeps the %zu XU%s recorded and is marked incomplete",
				 loss->lost, loss->lost == 1 ? "" : "s", lossmsg,
				 (loss->err == EMFILE || loss->err == ENFILE) && !strstr(lossmsg, "ulimit")
					 ? " (raise the limit with `ulimit -n`)"
					 : "",
				 st->xus, st->xus == 1 ? "" : "s");
		else if (st->stop_errno && !nospace)
			snprintf(ei->message, sizeof(ei->message),
				 "the collector could not continue a record file in %s (%.200s: %s "
				 "(%s)): %zu records lost; the profile keeps the %zu XU%s recorded "
				 "and is marked incomplete",
				 where, place, strerror(st->stop_errno), errno_name((uint32_t)st->stop_errno),
				 st->dropped, st->xus, st->xus == 1 ? "" : "s");
		else if (st->stop_errno)
			snprintf(ei->message, sizeof(ei->message),
				 "no space left in %s (%.200s: %s): the collector stopped recording "
				 "(%zu records lost); the profile keeps the %zu XU%s recorded and "
				 "is marked incomplete",
				 where, place, strerror(st->stop_errno), st->dropped, st->xus,
				 st->xus == 1 ? "" : "s");
		else if (ei->exited && !ei->status && st->incomplete)
			snprintf(ei->message, sizeof(ei->message),
				 "%zu XU%s of '%s' had not finished when their process image ended "
				 "(an exec() or exit() while they ran or waited): they are lost; the "
				 "profile keeps the %zu XU%s recorded and is marked incomplete",
				 st->incomplete, st->incomplete == 1 ? "" : "s", prog, st->xus,
				 st->xus == 1 ? "" : "s");
		else if (!ei->exited)
			snprintf(ei->message, sizeof(ei->message),
				 "'%s' was killed by signal %d (%s); the profile keeps the %zu XU%s "
				 "recorded and is marked incomplete",
				 prog, ei->signal, strsignal(ei->signal), st->xus, st->xus == 1 ? "" : "s");
		else if (ei->status)
			snprintf(ei->message, sizeof(ei->message),
				 "'%s' exited with status %d; the profile keeps the %zu XU%s "
				 "recorded and is marked incomplete",
				 prog, ei->status, st->xus, st->xus == 1 ? "" : "s");
		else
			snprintf(ei->message, sizeof(ei->message),
				 "%zu records were lost; the profile is marked incomplete", st->dropped);
	}
}

int pmcfi_collect_run(char *const argv[], const pmcf_catalog *cat, const size_t *idx,
		      const char *const *events, size_t nevents, const pmcf_count_opts *opts,
		      const pmcf_program_opts *po, pmcf_profile **out, pmcf_exit_info *exit_info)
{
	struct pmcfi_collect_timing *tm = &pmcfi_collect_last_timing;
	uint64_t t_setup = now_ns();
	memset(tm, 0, sizeof(*tm));
	pmcf_exit_info local = PMCF_EXIT_INFO_INIT;
	pmcf_exit_info *ei = exit_info ? exit_info : &local;
	pmcfi_clear_error();
	*out = NULL;
	int rc = pmcfi_struct_reset("pmcf_exit_info", ei, sizeof(*ei));
	if (rc)
		return rc;
	if (!argv || !argv[0] || (nevents && !events))
		return pmcfi_fail(PMCF_EINVAL, "no program to run");
	pmcf_count_opts count;
	pmcf_program_opts prog = PMCF_PROGRAM_OPTS_INIT;
	if ((rc = pmcfi_count_opts_in(opts, &count)) ||
	    (rc = pmcfi_struct_in("pmcf_program_opts", &prog, po, sizeof(prog), sizeof(prog))))
		return rc;
	unsigned pmcs = count.pmcs;
	int mux = count.multiplex, estimate = count.estimate;
	double period_ms = count.period_ms;
	user_mux(mux, &pmcs, &period_ms);
	struct perf_event_attr attrs[PMCFI_PGROUP_MAX];
	const char *names[PMCFI_PGROUP_MAX];
	struct pmcfi_derive dv[PMCFI_PGROUP_MAX]; /* PAPI presets: natives -> columns */
	size_t n = 0, ndv = 0;
	char tool[PATH_MAX], program[PATH_MAX];
	int err = encode_events(cat, idx, events, nevents, pmcs, mux, attrs, names, &n, dv, &ndv);
	/* rr/roc with a set that fits the counters: counted all the time, as in
	 * the simulator; rotating it would only add estimation error */
	int count_mux = mux >= PMCF_MUX_RR && n <= pmcs ? PMCF_MUX_NONE : mux;
	if (!err)
		err = find_tool(&prog, tool, sizeof(tool));
	if (!err)
		err = find_program(argv[0], program, sizeof(program));
	if (err)
		return err;
	/* The same group in this process first: clear errors before the run. */
	struct pmcfi_pgroup g;
	if (count_mux == PMCF_MUX_NONE)
		err = pmcfi_pgroup_open(&g, attrs, names, (int)n, PMCFI_PGROUP_NO_RDPMC);
	else
		err = pmcfi_pgroup_open_mux(&g, attrs, names, (int)n,
					    mux == PMCF_MUX_KERNEL ? PMCFI_PGROUP_MUX_KERNEL
								   : PMCFI_PGROUP_MUX_USER);
	if (err)
		return err;
	pmcfi_pgroup_close(&g);
	char muxenv[96];
	if (count_mux != PMCF_MUX_NONE)
		snprintf(muxenv, sizeof(muxenv), "%d:%u:%llu", mux, pmcs,
			 (unsigned long long)(period_ms * 1e6 + 0.5));

	char dir[PATH_MAX];
	int temp;
	if ((rc = make_record_dir(&prog, dir, &temp)))
		return rc;
	const char *where = temp ? "TMPDIR" : "the record folder";
	char place[PATH_MAX];
	if ((rc = check_space(dir, temp, where, place))) {
		if (temp)
			pmcfi_rm_tree(dir);
		return rc;
	}
	if ((rc = status_create(dir)) != 0) {
		if (temp)
			pmcfi_rm_tree(dir);
		return rc;
	}
	char evs[PMCFI_PGROUP_MAX * 80], nms[4096];
	events_env(attrs, n, names, evs, sizeof(evs), nms, sizeof(nms));
	char **env =
		child_env(tool, dir, evs, nms, prog.chunk_kb, count_mux != PMCF_MUX_NONE ? muxenv : NULL);
	if (!env) {
		if (temp)
			pmcfi_rm_tree(dir);
		return PMCF_ENOMEM;
	}
	struct mux_saved saved = {.n = 0};
	if (mux == PMCF_MUX_KERNEL)
		kernel_interval(period_ms, attrs, n, &saved);
	time_t start = time(NULL);
	struct hash_job hash;
	hash_start(&hash, program);
	uint64_t t0 = now_ns();
	tm->setup_ns = t0 - t_setup;
	int outfd[2] = {0, 0};
	outfd[0] = prog.stdout_fd;
	outfd[1] = prog.stderr_fd;
	uint64_t cpu_ns = 0;
	err = run_child(argv, program, env, outfd, ei, &cpu_ns);
	uint64_t t_end = now_ns();
	tm->program_ns = t_end - t0;
	mux_interval_restore(&saved);
	free_env(env);
	pmcf_profile *p = NULL;
	struct pmcfi_collect_stats st;
	if (!err)
		pmcfi_test_pause("read");
	if (!err)
		err = pmcf_profile_new(&p);
	if (!err)
		err = ndv ? pmcfi_collect_read_derived(dir, names, n, dv, ndv, t0, estimate, p, &st)
			  : pmcfi_collect_read_est(dir, names, n, t0, estimate, p, &st);
	struct pmcfi_rec_status loss;
	status_read(dir, &loss);
	char lossmsg[1200] = "";
	if (loss.lost)
		snprintf(lossmsg, sizeof(lossmsg), "%.1000s%s%s%s", loss.why[0] ? loss.why : "no reason left",
			 errno_name(loss.err)[0] ? " (" : "", errno_name(loss.err),
			 errno_name(loss.err)[0] ? ")" : "");
	if (!err && loss.lost && st.xus == 0)
		err = pmcfi_fail(loss.err && errno_name(loss.err)[0] ? -(int)loss.err : PMCF_ENOTSUP,
				 "the collector could not record in the program, nothing was recorded: %s",
				 lossmsg);
	if (!err && st.tool_error[0] && st.xus == 0)
		err = pmcfi_fail(PMCF_ENOTSUP, "the collector could not count in the program: %s",
				 st.tool_error);
	if (!err) {
		take_stats(ei, &st, count_mux, argv[0]);
		incomplete_message(ei, &st, &loss, lossmsg, where, place, argv[0]);
		err = add_meta(p, argv, program, tool, pmcs, ei, start, hash_wait(&hash), hash.build_id,
			       cpu_ns);
		if (!err)
			err = add_mux_meta(p, mux, period_ms, estimate);
		if (!err)
			err = add_user_only_meta(p, cat, idx, events, nevents);
	}
	hash_wait(&hash);
	if (temp)
		pmcfi_rm_tree(dir);
	reading = 0;
	tm->read_ns = now_ns() - t_end;
	if (err) {
		pmcf_profile_free(p);
		return err;
	}
	*out = p;
	if (!ei->complete)
		return pmcfi_fail(PMCF_EPROGRAM, "%s", ei->message);
	return 0;
}

int pmcf_collect_read_dir(const char *dir, const char *const *events, size_t nevents, pmcf_profile **out)
{
	const char *names[PMCFI_PGROUP_MAX];
	size_t n = 0;
	pmcfi_clear_error();
	*out = NULL;
	for (size_t i = 0; i < nevents; i++)
		if (strcmp(events[i], PMCF_EVENT_DURATION)) {
			if (n == PMCFI_PGROUP_MAX)
				return pmcfi_fail(PMCF_ETOOMANY, "too many events");
			names[n++] = events[i];
		}
	pmcf_profile *p;
	struct pmcfi_collect_stats st;
	int err = pmcf_profile_new(&p);
	if (err)
		return err;
	if ((err = pmcfi_collect_read(dir, names, n, 0, p, &st)) == 0)
		err = pmcf_profile_meta_set(p, PMCF_META_SOURCE, "perf");
	if (err) {
		pmcf_profile_free(p);
		return err;
	}
	*out = p;
	return 0;
}
