/* Files replaced whole or not at all (util/atomic.h). */
#include "util/atomic.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "pmcfuse/base.h"
#include "util/internal.h"

mode_t pmcfi_atomic_mode(const char *path)
{
	struct stat sb;
	if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode))
		return sb.st_mode & 07777;
	unsigned mask = 022;
	FILE *f = fopen("/proc/self/status", "re");
	if (f) {
		char line[128];
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "Umask: %o", &mask) == 1)
				break;
		fclose(f);
	}
	return 0666 & ~(mode_t)mask;
}

int pmcfi_atomic_sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int err = fsync(fd) < 0 && errno != EINVAL && errno != EROFS ? -errno : 0;
	close(fd);
	return err;
}

int pmcfi_atomic_refusal(const char *path)
{
	char link[64];
	ssize_t ll = readlink(path, link, sizeof(link) - 1);
	if (ll > 0)
		link[ll] = '\0';
	if (ll > 0 && (strncmp(path, "/dev/", 5) == 0 || strncmp(path, "/proc/", 6) == 0 ||
		       strncmp(link, "/proc/", 6) == 0))
		return PMCFI_ATOMIC_LINK;
	struct stat sb;
	if (stat(path, &sb) != 0 || S_ISREG(sb.st_mode))
		return 0;
	return S_ISDIR(sb.st_mode) ? PMCFI_ATOMIC_DIR : PMCFI_ATOMIC_SPECIAL;
}

int pmcfi_atomic_check(const char *path)
{
	static const char *const what[] = {"", "a descriptor's link (/dev/stdout, /dev/fd/N)",
					   "a device, FIFO or socket", "a folder"};
	int why = pmcfi_atomic_refusal(path);
	return why ? pmcfi_fail(PMCF_EINVAL, "cannot write '%s': it is %s, not a file", path, what[why]) : 0;
}

int pmcfi_atomic_temp(const char *path, char **dir, char **tmp)
{
	*dir = *tmp = NULL;
	const char *slash = path ? strrchr(path, '/') : NULL;
	const char *base = slash ? slash + 1 : path;
	if (!base || !*base)
		return pmcfi_fail(PMCF_EINVAL, "cannot write '%s': not a file name", path ? path : "");
	size_t dlen = slash ? (size_t)(slash - path) : 0, n = strlen(path) + 24;
	*tmp = malloc(n);
	*dir = malloc(dlen + 2);
	if (!*tmp || !*dir) {
		free(*tmp);
		free(*dir);
		*dir = *tmp = NULL;
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	}
	if (!slash)
		strcpy(*dir, ".");
	else if (!dlen)
		strcpy(*dir, "/");
	else {
		memcpy(*dir, path, dlen);
		(*dir)[dlen] = '\0';
	}
	snprintf(*tmp, n, "%.*s.%s.tmp.XXXXXX", (int)(slash ? dlen + 1 : 0), path, base);
	return 0;
}

int pmcfi_atomic_write(const char *path, mode_t mode, int (*fill)(FILE *f, void *ctx), void *ctx)
{
	char *dir, *tmp;
	int err = pmcfi_atomic_check(path ? path : "");
	if (err || (err = pmcfi_atomic_temp(path, &dir, &tmp)))
		return err;
	FILE *f = NULL;
	int fd = mkostemp(tmp, O_CLOEXEC), made = fd >= 0;
	if (fd < 0 || fchmod(fd, mode ? mode : pmcfi_atomic_mode(path)) < 0 || !(f = fdopen(fd, "w")))
		err = pmcfi_fail(-errno, "cannot write '%s': %s", path, strerror(errno));
	else {
		fd = -1; /* f owns it */
		err = fill(f, ctx);
		if (!err && (fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0))
			err = pmcfi_fail(-(errno ? errno : EIO), "cannot write '%s': %s", path,
					 strerror(errno ? errno : EIO));
	}
	if (f && fclose(f) != 0 && !err)
		err = pmcfi_fail(-errno, "cannot write '%s': %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	if (!err && rename(tmp, path) != 0)
		err = pmcfi_fail(-errno, "cannot write '%s': %s", path, strerror(errno));
	if (err && made)
		unlink(tmp);
	else if (!err && (err = pmcfi_atomic_sync_dir(dir)) != 0)
		err = pmcfi_fail(err, "'%s' written, but syncing its folder %s failed: %s", path, dir,
				 strerror(-err));
	free(tmp);
	free(dir);
	return err;
}
