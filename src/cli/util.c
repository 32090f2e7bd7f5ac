/* Helpers shared by the verbs: one-line errors with the right exit status,
 * option values, and opening profiles. Help texts are in help.c, JSON
 * output in json.c, output files in outfile.c. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli/cli.h"
#include "cli/output.h"
#include "pmcfuse/combine.h"
#include "x/x.h"

int cli_error(const char *verb, int status, const char *fmt, ...)
{
	char *msg = NULL, line[2048];
	va_list ap;
	va_start(ap, fmt);
	/* formatted whole: a path of any length, the reason after it kept */
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	/* one line, whatever the message holds */
	for (char *p = msg; p && *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	/* a long path is cut in its middle, the reason after it kept */
	pmcfi_shorten(line, sizeof(line), msg ? msg : "out of memory");
	free(msg);
	fprintf(stderr, "pmcfuse: %s: %s\n", verb, line);
	return status;
}

int cli_status_for(int err)
{
	switch (err) {
	case PMCF_EPARANOID:
	case PMCF_ENOTSUP:
	case PMCF_ENOMEM:
	case -EACCES:
	case -EPERM:
	case -EMFILE:
	case -ENFILE:
	case -ENOSPC:
	case -EDQUOT:
	case -EFBIG:
	case -ENOMEM:
	case -EROFS:
	case -EIO: return CLI_EENV;
	default: return CLI_EUSAGE;
	}
}

int cli_lib_error(const char *verb, int err, const char *what)
{
	const char *d = pmcf_errdetail();
	if (d && d[0])
		return cli_error(verb, cli_status_for(err), "%s", d);
	return cli_error(verb, cli_status_for(err), "%s: %s", what, pmcf_strerror(err));
}

int cli_usage_error(const char *verb, const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	int st = cli_error(verb, CLI_EUSAGE, "%s (see pmcfuse %s --help)", msg ? msg : "out of memory", verb);
	free(msg);
	return st;
}

int cli_keyword(const char *verb, const char *opt, const char *arg, const struct cli_keyword *kw, size_t n,
		int *out)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(arg, kw[i].name)) {
			*out = kw[i].value;
			return CLI_OK;
		}
	char list[256];
	size_t o = 0;
	list[0] = '\0';
	for (size_t i = 0; i < n && o < sizeof(list); i++)
		o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s",
				      i == 0       ? ""
				      : i + 1 == n ? " or "
						   : ", ",
				      kw[i].name);
	return cli_usage_error(verb, "%s: expected %s", opt, list);
}

int cli_parse_uint(const char *verb, const char *opt, const char *s, unsigned long min, unsigned long max,
		   unsigned long *out)
{
	char *end;
	errno = 0;
	if (!s || !*s || *s == '-' || *s == '+')
		return cli_usage_error(verb, "%s needs a whole number from %lu to %lu, not '%s'", opt, min,
				       max, s ? s : "");
	unsigned long v = strtoul(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return cli_usage_error(verb, "%s needs a whole number from %lu to %lu, not '%s'", opt, min,
				       max, s);
	*out = v;
	return CLI_OK;
}
int cli_events_option(const char *verb, const char **events, const char *arg)
{
	if (*events)
		return cli_usage_error(verb,
				       "-e given twice ('%s', then '%s'): give one list, the events joined "
				       "with commas (-e a,b,c) or an @FILE",
				       *events, arg);
	*events = arg;
	return CLI_OK;
}

int cli_open_profile(const char *verb, const char *path, pmcf_profile **out)
{
	struct stat sb;
	if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		char idx[4096];
		snprintf(idx, sizeof(idx), "%s/campaign.json", path);
		if (access(idx, F_OK) == 0)
			return cli_error(verb, CLI_EUSAGE,
					 "'%s' is a campaign folder (run --keep), not a profile: fuse it "
					 "(pmcfuse combine -o fused.pmcf %s) or name one of its "
					 "executions (%s/exec-0.pmcf)",
					 path, path, path);
	}
	int err = pmcf_profile_open(path, out);
	if (err)
		return cli_lib_error(verb, err, path);
	return CLI_OK;
}

size_t *cli_rank_counts(const pmcf_profile *p, uint32_t *nranks)
{
	return pmcf_profile_rank_counts(p, nranks);
}

int cli_user_only_note(const pmcf_evlist *l, char *buf, size_t len)
{
	/* software events the kernel counts only in kernel mode */
	static const char *const kernel_only[] = {"context-switches", "cpu-migrations"};
	buf[0] = '\0';
	size_t off = 0, hits = 0;
	for (size_t i = 0; i < pmcf_evlist_size(l); i++)
		for (size_t k = 0; k < sizeof(kernel_only) / sizeof(kernel_only[0]); k++)
			if (strcmp(pmcf_evlist_name(l, i), kernel_only[k]) == 0 &&
			    pmcf_evlist_user_only(l, i) && off < len)
				off += (size_t)snprintf(buf + off, len - off, "%s%s", hits++ ? ", " : "",
							kernel_only[k]);
	if (!hits || off >= len) {
		buf[0] = '\0';
		return 0;
	}
	pmcf_host_info h = {.size = sizeof(h)};
	int par = pmcf_host_describe(&h) == 0 ? h.paranoid : INT_MIN;
	char what[64];
	if (par == INT_MIN)
		snprintf(what, sizeof(what), "kernel.perf_event_paranoid unreadable");
	else
		snprintf(what, sizeof(what), "kernel.perf_event_paranoid=%d", par);
	char names[256];
	snprintf(names, sizeof(names), "%s", buf);
	snprintf(buf, len,
		 "%s: counting in user space only: %s count%s only kernel activity and will read 0; "
		 "lower it with sysctl -w kernel.perf_event_paranoid=1 or run with CAP_PERFMON",
		 what, names, hits == 1 ? "s" : "");
	return 1;
}
