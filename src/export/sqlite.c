/* SQLite export: a copy of the profile with the SQL views xu_values and
 * xu_values_long (docs/profile-format.md, "SQL access"), for profiles
 * written without them. */
#include <stdio.h>
#include "export/export_impl.h"

static int write_sqlite(const pmcf_profile *p, const pmcf_export_opts *o, const char *path)
{
	(void)o;
	return pmcf_profile_save_sql(p, path);
}

/* Past SQLite's columns the wide view cannot be made. */
static int note_sqlite(const pmcf_profile *p, const char *path, char *buf, size_t len)
{
	if (pmcf_profile_nevents(p) <= PMCF_SQL_MAX_EVENTS)
		return 0;
	snprintf(buf, len,
		 "%zu events are more than SQLite's %d columns: '%s' has the view xu_values_long"
		 " (xu, event, value), not xu_values",
		 pmcf_profile_nevents(p), PMCF_SQL_MAX_EVENTS, path);
	return 1;
}

const struct pmcfi_exp_format pmcfi_exp_format_sqlite = {
	{sizeof(pmcf_export_info), "sqlite",
	 "sqlite: a copy of the profile with the SQL views xu_values and xu_values_long\n"
	 "(for profiles written without them; past 1987 events, SQLite's columns, only\n"
	 "xu_values_long; docs/profile-format.md, \"SQL access\").\n",
	 NULL, PMCF_EXPORT_TO_PATH},
	NULL,
	write_sqlite,
	note_sqlite,
};
