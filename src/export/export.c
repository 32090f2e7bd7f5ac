/* pmcf_export: the table of export formats (libpfm4's pfmlib_pmu_t style:
 * one descriptor per format, export_impl.h) and the calls that look a
 * format up and run its writer. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "export/export_impl.h"
#include "util/abi.h"
#include "util/atomic.h"
#include "util/internal.h"

static const struct pmcfi_exp_format *const formats[] = {
#define PMCFI_EXPORT_ROW(name) &pmcfi_exp_format_##name,
	PMCFI_EXPORT_FORMATS(PMCFI_EXPORT_ROW)
#undef PMCFI_EXPORT_ROW
};
#define NFORMATS PMCF_ARRAY_SIZE(formats)

int pmcf_export_format_info_get(size_t i, pmcf_export_info *info)
{
	pmcfi_clear_error();
	if (!info)
		return pmcfi_fail(PMCF_EINVAL, "pmcf_export_format_info_get: NULL info");
	if (i >= NFORMATS)
		return PMCF_ENOENT;
	return pmcfi_struct_out("pmcf_export_info", info, &formats[i]->info, sizeof(pmcf_export_info),
				sizeof(pmcf_export_info));
}

int pmcf_export_format_find(const char *name)
{
	pmcfi_clear_error();
	for (size_t i = 0; name && i < NFORMATS; i++)
		if (strcmp(name, formats[i]->info.name) == 0)
			return (int)i;
	char list[256];
	size_t off = 0;
	for (size_t i = 0; i < NFORMATS && off < sizeof(list); i++)
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s",
					i == 0              ? ""
					: i + 1 == NFORMATS ? " or "
							    : ", ",
					formats[i]->info.name);
	return pmcfi_fail(PMCF_ENOENT, "unknown format '%s' (%s)", name ? name : "", list);
}

/* The format and checked options: 0 and *fmt, *o, or an error. */
static int prepare(const pmcf_profile *p, const char *format, const pmcf_export_opts *opts,
		   const struct pmcfi_exp_format **fmt, pmcf_export_opts *o)
{
	pmcfi_clear_error();
	*o = (pmcf_export_opts)PMCF_EXPORT_OPTS_INIT;
	if (!p)
		return pmcfi_fail(PMCF_EINVAL, "export: no profile");
	int k = pmcf_export_format_find(format);
	if (k < 0)
		return k;
	*fmt = formats[k];
	int err = pmcfi_struct_in("pmcf_export_opts", o, opts, sizeof(pmcf_export_opts),
				  sizeof(pmcf_export_opts));
	if (err)
		return err;
	unsigned fl = (*fmt)->info.flags;
	if ((o->truth && !(fl & PMCF_EXPORT_TRUTH)) || (o->provenance && !(fl & PMCF_EXPORT_PROVENANCE)))
		return pmcfi_fail(PMCF_EINVAL, "export: format %s takes no %s", format,
				  o->truth && !(fl & PMCF_EXPORT_TRUTH) ? "truth" : "provenance");
	if (o->truth && !pmcf_profile_ntruth(p))
		return pmcfi_fail(PMCF_EINVAL,
				  "export: the profile has no ground truth (only simulated profiles do)");
	if (o->provenance && !pmcf_profile_has_provenance(p))
		return pmcfi_fail(PMCF_EINVAL,
				  "export: the profile has no provenance (only fused profiles do)");
	return 0;
}

int pmcf_export(const pmcf_profile *p, const char *format, const pmcf_export_opts *opts, FILE *f)
{
	const struct pmcfi_exp_format *fmt;
	pmcf_export_opts o;
	int err = prepare(p, format, opts, &fmt, &o);
	if (err)
		return err;
	if (!fmt->write)
		return pmcfi_fail(PMCF_EINVAL,
				  "export: format %s writes a file of its own (pmcf_export_path)", format);
	if (!f)
		return pmcfi_fail(PMCF_EINVAL, "export: no stream");
	return fmt->write(p, &o, f);
}

/* A streamed format written to a temporary beside path, synced and renamed
 * into place (util/atomic.h: never over a device). */
struct stream_job {
	const pmcf_profile *p;
	const struct pmcfi_exp_format *fmt;
	const pmcf_export_opts *o;
};

static int stream_fill(FILE *f, void *ctx)
{
	const struct stream_job *j = ctx;
	return j->fmt->write(j->p, j->o, f);
}

static int stream_to_path(const pmcf_profile *p, const struct pmcfi_exp_format *fmt,
			  const pmcf_export_opts *o, const char *path)
{
	struct stream_job j = {p, fmt, o};
	return pmcfi_atomic_write(path, 0, stream_fill, &j);
}

int pmcf_export_path(const pmcf_profile *p, const char *format, const pmcf_export_opts *opts,
		     const char *path)
{
	const struct pmcfi_exp_format *fmt;
	pmcf_export_opts o;
	int err = prepare(p, format, opts, &fmt, &o);
	if (err)
		return err;
	if (!path || !*path)
		return pmcfi_fail(PMCF_EINVAL, "export: no output path");
	return fmt->write_path ? fmt->write_path(p, &o, path) : stream_to_path(p, fmt, &o, path);
}

int pmcf_export_note(const pmcf_profile *p, const char *format, const char *path, char *buf, size_t len)
{
	int k = pmcf_export_format_find(format);
	if (k < 0 || !p || !buf || !len || !formats[k]->note)
		return 0;
	return formats[k]->note(p, path ? path : "", buf, len);
}
