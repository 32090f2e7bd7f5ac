/* Numbers for people, shared by the report and the command
 * (include/pmcfuse/report.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "pmcfuse/report.h"

const char *pmcf_report_human(char *buf, size_t len, double v, int ns)
{
	static const char *const si[] = {"", " k", " M", " G", " T", " P", " E"};
	static const char *const tu[] = {" ns", " µs", " ms", " s"};
	if (pmcf_is_missing(v) || isnan(v)) {
		snprintf(buf, len, "-");
		return buf;
	}
	size_t i = 0, top = ns ? 3 : 6;
	double s = v;
	/* 999.5 and up would print as 1e+03 at 3 digits: the next unit */
	while (fabs(s) >= 999.5 && i < top) {
		s /= 1000;
		i++;
	}
	if (ns && i == top && fabs(s) >= 999.5)
		snprintf(buf, len, "%.0f s", s);
	else if (!ns && i == 0 && s == floor(s))
		snprintf(buf, len, "%.0f", s);
	else
		snprintf(buf, len, "%.3g%s", s, ns ? tu[i] : si[i]);
	return buf;
}

int pmcf_report_event_is_ns(const char *event)
{
	static const char *const ns[] = {"duration", "task-clock", "cpu-clock"};
	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		size_t n = strlen(ns[i]);
		if (strncmp(event, ns[i], n) == 0 && (event[n] == '\0' || event[n] == ':'))
			return 1;
	}
	return 0;
}
