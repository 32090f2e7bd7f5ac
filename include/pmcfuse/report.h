/* pmcfuse — the report: one self-contained HTML page about a profile
 * (metadata, per-type statistics, timelines, distributions, event-pair
 * scatter plots, ground truth, provenance, coverage, and with references the
 * EPD and the calibrated TMD heat map), as `pmcfuse report` writes it. */
#ifndef PMCFUSE_REPORT_H
#define PMCFUSE_REPORT_H

#include <stdio.h>
#include "pmcfuse/base.h"
#include "pmcfuse/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PMCF_REPORT_MAX_PLOTS 40
#define PMCF_REPORT_MAX_BINS 30
#define PMCF_REPORT_MIN_POINTS 100
#define PMCF_REPORT_MAX_POINTS 100000
#define PMCF_REPORT_MAX_PAIRS 16

/* Options (a sized struct, base.h): start from PMCF_REPORT_OPTS_INIT. */
typedef struct pmcf_report_opts {
	size_t size;
	unsigned plots;              /* scatter plots of chosen pairs, 0 .. 40 (PMCF_REPORT_OPTS_INIT: 6) */
	unsigned bins;               /* TMD bins per event, 1 .. 30 (PMCF_REPORT_OPTS_INIT: 10) */
	unsigned points;             /* XUs per scatter plot at most, 100 .. 100000 (PMCF_REPORT_OPTS_INIT:
			  * 5000); a larger profile is thinned to every k-th XU */
	const size_t *pairs;         /* npairs event pairs (2·npairs event indices of the
			      * profile: a0, b0, a1, b1, …) plotted first */
	size_t npairs;               /* at most 16 */
	const char *name;            /* the profile's file name shown on the page
			      * (NULL: "profile") */
	const char *const *refnames; /* names of the nrefs references (NULL: "repeat") */
	const char *gnuplot;         /* gnuplot binary (NULL: $PMCF_GNUPLOT, else "gnuplot") */
	const char *tmpdir;          /* where the temporary folder goes (NULL: $TMPDIR, else /tmp) */
	/* Added in 0.1 after tmpdir (older callers' smaller size reads as -1): */
	long colour_by; /* the timeline's colour: -1 the XU type, else this event's value
			 * per XU (a colour scale, log when the values spread over 100x) */
} pmcf_report_opts;
#define PMCF_REPORT_OPTS_INIT                                                              \
	{                                                                                  \
		sizeof(pmcf_report_opts), 6, 10, 5000, NULL, 0, NULL, NULL, NULL, NULL, -1 \
	}

typedef struct pmcf_report pmcf_report;

/* Builds the report of p, with nrefs reference profiles of the same program
 * (refs may be NULL when nrefs is 0; with references it computes the EPD
 * and the Correlation Error and plots each pair beside a reference). The
 * TMD heat map and the coverage chart are drawn by running gnuplot in a
 * temporary folder (removed by pmcf_report_free). p, refs and the strings
 * of opts must live until pmcf_report_free. *out is freed with
 * pmcf_report_free. Errors: PMCF_EINVAL (an option out of range, a pair
 * index not an event of p), PMCF_ENOMEM, -errno (temporary folder, fork),
 * PMCF_ENOTSUP (gnuplot cannot be run), PMCF_EPROGRAM (gnuplot failed);
 * pmcf_errdetail() says what. */
PMCF_API int pmcf_report_new(const pmcf_profile *p, const pmcf_profile *const *refs, size_t nrefs,
			     const pmcf_report_opts *opts, pmcf_report **out);
/* Writes the page (HTML, images embedded as data: URIs) to f. The caller
 * owns f (and makes the write atomic if it wants). 0 or a negative error. */
PMCF_API int pmcf_report_write(const pmcf_report *r, FILE *f);
PMCF_API void pmcf_report_free(pmcf_report *r);

/* v for people, 3 significant digits: "812", "0.5", "1.21 k", "1.21 M",
 * "3.4 G"; with ns set, v is nanoseconds: "812 ns", "3.4 ms", "812 µs",
 * "1.2 s". "-" when v is missing. Returns buf. */
PMCF_API const char *pmcf_report_human(char *buf, size_t len, double v, int ns);
/* Whether an event's values are nanoseconds (duration, task-clock,
 * cpu-clock and their :modifier forms). */
PMCF_API int pmcf_report_event_is_ns(const char *event);

#ifdef __cplusplus
}
#endif
#endif
