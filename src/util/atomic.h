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
/* 0 when path may be replaced: it does not exist, or is a regular file or
 * a link to one; PMCF_EINVAL (detail: "cannot write 'PATH': it is a
 * device, FIFO or socket, not a file") for what a rename must never
 * replace (a file where /dev/null was). */
int pmcfi_atomic_check(const char *path);
/* Writes path through fill(f, ctx) (0, or an error it has raised with
 * pmcfi_fail): checked as pmcfi_atomic_check, a temporary
 * ".NAME.tmp.XXXXXX" beside it (mode pmcfi_atomic_mode), flushed, synced,
 * renamed over path, and its folder synced; on any error the temporary is
 * removed and path is as it was. mode 0: pmcfi_atomic_mode(path).
 * Returns 0, fill's error, or -errno (detail "cannot write 'PATH': ..."). */
int pmcfi_atomic_write(const char *path, mode_t mode, int (*fill)(FILE *f, void *ctx), void *ctx);
#endif
