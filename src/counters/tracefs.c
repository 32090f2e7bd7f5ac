/* tracefs: finding (and, like perf, mounting) the file system that describes
 * the kernel's tracepoints, with one-line answers that say what to do when it
 * cannot be used. */
#include <errno.h>
#include <limits.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include "counters/tracefs.h"
#include "util/internal.h"

#define TRACEFS_DIR "/sys/kernel/tracing"
#define DEBUGFS_DIR "/sys/kernel/debug"

/* The first mount of type fstype in /proc/self/mounts, or 0. */
static int mounted_at(const char *fstype, char *dir, size_t len)
{
	FILE *f = setmntent("/proc/self/mounts", "r");
	if (!f)
		return 0;
	struct mntent *m;
	int found = 0;
	while (!found && (m = getmntent(f)))
		if (strcmp(m->mnt_type, fstype) == 0 && strlen(m->mnt_dir) < len) {
			snprintf(dir, len, "%s", m->mnt_dir);
			found = 1;
		}
	endmntent(f);
	return found;
}

/* Where tracefs events/ should be: a mounted tracefs, else debugfs's
 * tracing/ (which mounts tracefs on first access), else "". */
static void locate(char *events, size_t len)
{
	char mnt[PATH_MAX];
	events[0] = '\0';
	if (mounted_at("tracefs", mnt, sizeof(mnt)))
		snprintf(events, len, "%s/events", mnt);
	else if (mounted_at("debugfs", mnt, sizeof(mnt)))
		snprintf(events, len, "%s/tracing/events", mnt);
}

/* 0 readable, else the errno of the first refusal. */
static int readable(const char *events)
{
	struct stat st;
	if (stat(events, &st) != 0)
		return errno;
	if (!S_ISDIR(st.st_mode))
		return ENOTDIR;
	if (access(events, R_OK | X_OK) != 0)
		return errno;
	return 0;
}

static int try_mount(void)
{
	if (mount("nodev", TRACEFS_DIR, "tracefs", 0, NULL) == 0) {
		pmcfi_log(PMCF_LOG_DEBUG, "mounted tracefs on %s", TRACEFS_DIR);
		return 0;
	}
	int e = errno;
	if (mount("nodev", DEBUGFS_DIR, "debugfs", 0, NULL) == 0) {
		pmcfi_log(PMCF_LOG_DEBUG, "mounted debugfs on %s", DEBUGFS_DIR);
		return 0;
	}
	return e;
}

static int denied(const char *events, int why)
{
	char root[PATH_MAX];
	snprintf(root, sizeof(root), "%s", events);
	char *slash = strrchr(root, '/');
	if (slash && slash != root)
		*slash = '\0';
	return pmcfi_fail(PMCF_EPARANOID,
			  "needs tracefs, which this user cannot read (%s: %s): run as "
			  "root, or let this user's group read it (sudo mount -o "
			  "remount,mode=755,gid=%u %s) and count kernel events "
			  "(sudo sysctl -w kernel.perf_event_paranoid=1)",
			  root, strerror(why), (unsigned)getgid(), root);
}

int pmcfi_tracefs_events(char *dir, size_t len, int mount)
{
	const char *env = getenv(PMCF_TRACEFS_ENV);
	if (env && env[0]) {
		snprintf(dir, len, "%s/events", env);
		int e = readable(dir);
		if (e == 0)
			return 0;
		if (e == EACCES || e == EPERM)
			return denied(dir, e);
		return pmcfi_fail(PMCF_ENOTSUP,
				  "needs tracefs, but %s=%s holds no readable events/ folder (%s)",
				  PMCF_TRACEFS_ENV, env, strerror(e));
	}
	locate(dir, len);
	int e = dir[0] ? readable(dir) : ENOENT, mount_err = 0;
	if (e == ENOENT && mount && (mount_err = try_mount()) == 0) {
		locate(dir, len);
		e = dir[0] ? readable(dir) : ENOENT;
	}
	if (e == 0)
		return 0;
	if (e == EACCES || e == EPERM)
		return denied(dir, e);
	if (mount_err)
		return pmcfi_fail(PMCF_ENOTSUP,
				  "needs tracefs, which is not mounted, and mounting it failed (%s): "
				  "mount it as root (sudo mount -t tracefs nodev %s; in a container, "
				  "on the host or with CAP_SYS_ADMIN)",
				  strerror(mount_err), TRACEFS_DIR);
	return pmcfi_fail(PMCF_ENOTSUP,
			  "needs tracefs, which is not mounted: mount it as root "
			  "(sudo mount -t tracefs nodev %s)",
			  TRACEFS_DIR);
}

void pmcfi_tracefs_status(char *buf, size_t len)
{
	char dir[PATH_MAX];
	const char *env = getenv(PMCF_TRACEFS_ENV);
	if (env && env[0])
		snprintf(dir, sizeof(dir), "%s/events", env);
	else
		locate(dir, sizeof(dir));
	if (!dir[0]) {
		snprintf(buf, len,
			 "not mounted (tracepoints are mounted on first use as root; else: sudo "
			 "mount -t tracefs nodev %s)",
			 TRACEFS_DIR);
		return;
	}
	int e = readable(dir);
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir)
		*slash = '\0';
	if (e == 0)
		snprintf(buf, len, "%s (readable)", dir);
	else
		snprintf(buf, len, "%s (%s: tracepoints need root or a tracefs group grant)", dir,
			 strerror(e));
}
