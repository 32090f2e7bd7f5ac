/* Files replaced whole or not at all (profile save, export, plan.json, the
 * reference index, a campaign's manifest, Slurm scripts): written to a
 * temporary beside the path, synced, renamed over it, the folder synced.
 * Not exported. */
#ifndef PMCF_UTIL_ATOMIC_H
#define PMCF_UTIL_ATOMIC_H
#include <stdio.h>
#include <sys/types.h>

/* The mode a new file at path gets: the mode of the regular file it
 * replaces, else 0666 less this process's umask (read without changing it). */
mode_t pmcfi_atomic_mode(const char *path);
/* fsync of a folder (0 where the file system cannot: EINVAL, EROFS). */
int pmcfi_atomic_sync_dir(const char *dir);
/* Why a rename must not replace path: 0 (it may: it does not exist, or is
 * a regular file or a link to one), PMCFI_ATOMIC_LINK (a descriptor's
 * link: /dev/stdout, /dev/fd/N, /proc/self/fd/N, or a link into /proc;
 * the rename would replace the link, a file where /dev/stdout was),
 * PMCFI_ATOMIC_SPECIAL (a device, FIFO or socket: a file where /dev/null
 * was) or PMCFI_ATOMIC_DIR (a folder). Raises no error. */
enum { PMCFI_ATOMIC_LINK = 1, PMCFI_ATOMIC_SPECIAL = 2, PMCFI_ATOMIC_DIR = 3 };
int pmcfi_atomic_refusal(const char *path);
/* 0 when path may be replaced; else PMCF_EINVAL with the detail "cannot
 * write 'PATH': it is a device, FIFO or socket, not a file" (a
 * descriptor's link, a folder: likewise). */
int pmcfi_atomic_check(const char *path);
/* The folder of path (".", "/" or its leading part) and the mkstemp
 * template of a temporary beside it, ".NAME.tmp.XXXXXX", both malloc'd;
 * PMCF_EINVAL when path names no file (empty, or ends in '/'), PMCF_ENOMEM. */
int pmcfi_atomic_temp(const char *path, char **dir, char **tmp);
/* Writes path through fill(f, ctx) (0, or an error it has raised with
 * pmcfi_fail): checked as pmcfi_atomic_check, a temporary
 * ".NAME.tmp.XXXXXX" beside it (mode pmcfi_atomic_mode), flushed, synced,
 * renamed over path, and its folder synced; on any error the temporary is
 * removed and path is as it was. mode 0: pmcfi_atomic_mode(path).
 * Returns 0, fill's error, or -errno (detail "cannot write 'PATH': ..."). */
int pmcfi_atomic_write(const char *path, mode_t mode, int (*fill)(FILE *f, void *ctx), void *ctx);
#endif
