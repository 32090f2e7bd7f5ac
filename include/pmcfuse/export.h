/* pmcfuse — export: a profile as text for other tools (CSV, TSV, JSON), an
 * SQLite copy with the SQL views, or an OTF2 trace for Vampir. One
 * descriptor per format in one table (src/export/export.c), which also gives
 * `pmcfuse export` its --format choices, help text and error lists;
 * docs/profile-format.md and docs/man/pmcfuse-export.1 describe the outputs. */
#ifndef PMCFUSE_EXPORT_H
#define PMCFUSE_EXPORT_H

#include <stdio.h>
#include "pmcfuse/base.h"
#include "pmcfuse/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a format takes or needs (pmcf_export_info.flags). */
enum {
	PMCF_EXPORT_TRUTH = 1,      /* takes opts->truth: the ground truth of a simulated profile */
	PMCF_EXPORT_PROVENANCE = 2, /* takes opts->provenance: where a fused value came from */
	PMCF_EXPORT_TO_PATH = 4,    /* writes a file of its own at a path, never a stream */
	PMCF_EXPORT_FOLDER = 8      /* with TO_PATH: the path is a folder (it must not exist or be empty) */
};

/* Options of one export. Initialise with PMCF_EXPORT_OPTS_INIT. */
typedef struct pmcf_export_opts {
	size_t size;    /* sizeof(pmcf_export_opts) */
	int truth;      /* 1: add the ground truth (truth:<event> columns); the profile must have it */
	int provenance; /* 1: add each value's source (fused profiles only) */
} pmcf_export_opts;
#define PMCF_EXPORT_OPTS_INIT PMCF_SIZED_INIT(pmcf_export_opts)

/* One format, as the table describes it. Strings are static. */
typedef struct pmcf_export_info {
	size_t size;      /* sizeof(pmcf_export_info), set by the caller */
	const char *name; /* "csv": what --format takes */
	const char *help; /* its description: lines each ending in '\n' */
	const char *kind; /* what a streamed output is called in messages ("CSV"); NULL for TO_PATH */
	unsigned flags;   /* PMCF_EXPORT_* */
} pmcf_export_info;
#define PMCF_EXPORT_INFO_INIT PMCF_SIZED_INIT(pmcf_export_info)

/* The i-th format of the table (0, 1, … until PMCF_ENOENT) into *info.
 * Errors: PMCF_ENOENT past the last, PMCF_EINVAL (NULL, or size; base.h). */
PMCF_API int pmcf_export_format_info_get(size_t i, pmcf_export_info *info);
/* The index of the format called name, or PMCF_ENOENT with a detail
 * listing the formats ("unknown format 'x' (csv, json, sqlite or otf2)"). */
PMCF_API int pmcf_export_format_find(const char *name);

/* Writes p in format to the stream f (formats without PMCF_EXPORT_TO_PATH).
 * opts may be NULL (no truth, no provenance). The caller checks f's errors
 * (ferror) and closes it. Errors: PMCF_ENOENT (unknown format), PMCF_EINVAL
 * (a TO_PATH format, an option the format does not take, truth asked of a
 * profile without it, provenance of one that is not fused), PMCF_ENOMEM. */
PMCF_API int pmcf_export(const pmcf_profile *p, const char *format, const pmcf_export_opts *opts, FILE *f);
/* Writes p in format at path, any format: built beside path and renamed
 * into place when complete, so nothing half-written is left (a folder for
 * PMCF_EXPORT_FOLDER formats: path must not exist or be an empty folder).
 * Errors: those of pmcf_export, -errno of the file system, PMCF_ENOTSUP (a
 * format this library was built without, e.g. otf2 without libotf2), -EIO
 * (the format's library failed; the detail says why). otf2 writes one
 * archive at a time in a process (libotf2's error handler is global). */
PMCF_API int pmcf_export_path(const pmcf_profile *p, const char *format, const pmcf_export_opts *opts,
			      const char *path);
/* After a successful export of p in format to path: 1 and a one-line note
 * for the user in buf (what the output leaves out or where to look, e.g.
 * sqlite past SQLite's column limit), or 0 when there is none. */
PMCF_API int pmcf_export_note(const pmcf_profile *p, const char *format, const char *path, char *buf,
			      size_t len);

#ifdef __cplusplus
}
#endif
#endif
