/* `pmcfuse report`: one self-contained HTML page about a profile. This file
 * is the command (options, references, the atomic output file); the page is
 * made by the library's report (include/pmcfuse/report.h, src/report/). */
#include <getopt.h>
#include <glob.h>
#include <signal.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/campaign.h"
#include "cli/cli.h"
#include "cli/refdir.h"
#include "pmcfuse/report.h"

static const char usage[] =
	"usage: pmcfuse report -o report.html [--plots N] [--pair A,B]... [--bins B] [--points N]\n"
	"                      [--colour-by EVENT] PROFILE [REFDIR]\n\n"
	"Writes one self-contained HTML page (plots embedded, no other files) about\n"
	"PROFILE: its metadata (with the share of the run's CPU time in XUs, as show\n"
	"prints it); per XU type the count, duration and the quartiles of every event,\n"
	"with derived metrics when their events are present (IPC, miss rates, branch\n"
	"misprediction rate); a per-thread timeline of the XUs (for a\n"
	"fused profile one per base execution, in its times); per event, box plots of\n"
	"its values per XU type; scatter plots of XUs for the most informative event\n"
	"pairs; the error against the ground truth of a simulated profile; which\n"
	"execution each event's values came from and the match distances of a fused\n"
	"profile; the multiplexing coverage of a HEM profile. With REFDIR (from\n"
	"pmcfuse reference) it adds the EPD, the calibrated TMD of every event pair as\n"
	"a heat map, and shows each scatter plot beside the same pair in a reference\n"
	"execution.\n\n"
	"Plots are SVG: hover shows values, the wheel zooms, drag pans, a double click\n"
	"resets (axis numbers and zoom need JavaScript in the browser). Pairs are\n"
	"chosen, without REFDIR, by log2(1 + distinct points) x (1.2 - |Spearman|)\n"
	"(plots with structure, neither a few piled-up dots nor a line; constant\n"
	"events skipped); with REFDIR by the highest TMD (where the profile departs\n"
	"most from the references); at most two plots per event. The TMD heat map and\n"
	"the coverage chart are drawn with gnuplot (set PMCF_GNUPLOT to use another\n"
	"binary).\n\n"
	"  -o FILE      the HTML file to write (required; '-' for standard output)\n"
	"  --plots N    scatter plots of chosen pairs (default 6, 0 to 40)\n"
	"  --pair A,B   also plot this pair (repeatable, shown first)\n"
	"  --bins B     TMD bins per event (default 10)\n"
	"  --points N   XUs per scatter plot at most (default 5000, 100 to 100000); a\n"
	"               larger profile is thinned to every k-th XU, and the plot says so\n"
	"  --colour-by EVENT  colour the timeline's XUs by their value of EVENT (a colour\n"
	"               scale, log when the values spread over 100x; grey: missing)\n"
	"               instead of by XU type (the default, also --colour-by type);\n"
	"               --color-by is the same\n"
	"  --force      use references of another program run, or identical copies\n";

#define VERB "report"
#define MAX_USER_PAIRS PMCF_REPORT_MAX_PAIRS

static char **ref_names(const char *dir, size_t n)
{
	char pat[4096];
	glob_t g;
	snprintf(pat, sizeof(pat), "%s/*.pmcf", dir);
	if (glob(pat, 0, NULL, &g))
		return NULL;
	char **names = NULL;
	if (g.gl_pathc == n && (names = calloc(n, sizeof(char *))))
		for (size_t k = 0; k < n; k++) {
			const char *b = strrchr(g.gl_pathv[k], '/');
			names[k] = strdup(b ? b + 1 : g.gl_pathv[k]);
		}
	globfree(&g);
	return names;
}

/* The command line of report. */
struct report_args {
	const char *out, *colour;
	int force;
	const char *user_names[MAX_USER_PAIRS];
	size_t nuser;
	unsigned long nplots, bins, points;
};

/* Reads the options into *a; CLI_OK, or a usage error (printed). */
static int parse_args(int argc, char **argv, struct report_args *a)
{
	static const struct option opts[] =
		{{"output", required_argument, NULL, 'o'},   {"plots", required_argument, NULL, 'n'},
		 {"pair", required_argument, NULL, 'p'},     {"bins", required_argument, NULL, 'b'},
		 {"force", no_argument, NULL, 'f'},          {"help", no_argument, NULL, 'h'},
		 {"points", required_argument, NULL, 'P'},   {"colour-by", required_argument, NULL, 'c'},
		 {"color-by", required_argument, NULL, 'c'}, {NULL, 0, NULL, 0}};
	int opt;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			if (cli_out_arg(VERB, optarg, NULL))
				return CLI_EUSAGE;
			a->out = optarg;
			break;
		case 'f': a->force = 1; break;
		case 'c': a->colour = optarg; break;
		case 'n':
			if (cli_parse_uint(VERB, "--plots", optarg, 0, 40, &a->nplots))
				return CLI_EUSAGE;
			break;
		case 'b':
			if (cli_parse_uint(VERB, "--bins", optarg, 1, 30, &a->bins))
				return CLI_EUSAGE;
			break;
		case 'P':
			if (cli_parse_uint(VERB, "--points", optarg, 100, 100000, &a->points))
				return CLI_EUSAGE;
			break;
		case 'p':
			if (a->nuser == MAX_USER_PAIRS)
				return cli_usage_error(VERB, "at most %d --pair options", MAX_USER_PAIRS);
			if (!strchr(optarg, ','))
				return cli_usage_error(VERB, "--pair needs two events A,B, not '%s'", optarg);
			a->user_names[a->nuser++] = optarg;
			break;
		default:
			return cli_usage_error(VERB, "unknown option or missing value '%s'",
					       argv[optind - 1]);
		}
	}
	if (!a->out)
		return cli_usage_error(VERB, "needs -o FILE");
	if (argc - optind < 1 || argc - optind > 2)
		return cli_usage_error(VERB, "needs PROFILE and optionally REFDIR");
	return CLI_OK;
}

/* The --pair options as event indices of prof into user[2 k], [2 k + 1]. */
static int user_pairs(const struct report_args *args, const pmcf_profile *prof, const char *path,
		      size_t *user)
{
	int st = CLI_OK;
	for (size_t k = 0; k < args->nuser && st == CLI_OK; k++) {
		char buf[512];
		snprintf(buf, sizeof(buf), "%s", args->user_names[k]);
		char *comma = strchr(buf, ',');
		*comma = 0;
		long a = pmcf_profile_event_find(prof, buf), b = pmcf_profile_event_find(prof, comma + 1);
		if (a < 0 || b < 0)
			st = cli_error(VERB, CLI_EUSAGE, "--pair %s: '%s' is not an event of '%s'",
				       args->user_names[k], a < 0 ? buf : comma + 1, path);
		user[2 * k] = (size_t)a;
		user[2 * k + 1] = (size_t)b;
	}
	return st;
}

/* Writes the page to out; *epipe when the reader went away (SIGPIPE is
 * ignored meanwhile: *oldpipe its disposition before). */
static int write_page(const pmcf_report *rep, const char *out, int *epipe, struct sigaction *oldpipe)
{
	struct sigaction ign = {.sa_handler = SIG_IGN};
	sigemptyset(&ign.sa_mask);
	struct cli_out o;
	sigaction(SIGPIPE, &ign, oldpipe);
	int st = cli_out_open(VERB, out, &o);
	if (st == CLI_OK) {
		int err = pmcf_report_write(rep, o.f);
		if (err == -EPIPE) {
			cli_out_abort(&o);
			*epipe = 1;
			st = CLI_EENV;
		} else if (err) {
			cli_out_abort(&o);
			st = cli_error(VERB, cli_status_for(err), "%s",
				       pmcf_errdetail()[0] ? pmcf_errdetail() : pmcf_strerror(err));
		} else if (fflush(o.f) != 0 && errno == EPIPE) {
			cli_out_abort(&o);
			*epipe = 1;
			st = CLI_EENV;
		} else {
			st = cli_out_commit(VERB, &o);
		}
	}
	sigaction(SIGPIPE, oldpipe, NULL);
	return st;
}

int cmd_report(int argc, char **argv)
{
	if (cli_wants_help(argc, argv, usage))
		return CLI_OK;
	struct report_args a = {.nplots = 6, .bins = 10, .points = 5000};
	int st = parse_args(argc, argv, &a);
	if (st != CLI_OK)
		return st;
	const char *out = a.out;
	if (cli_out_not_input(VERB, out, (const char *const *)argv + optind, 1) ||
	    cli_out_replaceable(VERB, out, "a report"))
		return CLI_EUSAGE;
	const char *path = argv[optind];
	pmcf_profile *prof = NULL;
	pmcf_profile **refs = NULL;
	size_t nrefs = 0;
	char **refnames = NULL;
	st = cli_open_profile(VERB, path, &prof);
	if (st)
		return st;
	size_t user[2 * MAX_USER_PAIRS];
	st = user_pairs(&a, prof, path, user);
	long colour_by = -1;
	if (st == CLI_OK && a.colour && strcmp(a.colour, "type") != 0 &&
	    (colour_by = pmcf_profile_event_find(prof, a.colour)) < 0)
		st = cli_error(VERB, CLI_EUSAGE,
			       "--colour-by %s: not an event of '%s' (pmcfuse show %s lists them)", a.colour,
			       path, path);
	if (st == CLI_OK && argc - optind == 2) {
		st = refdir_open_for(VERB, argv[optind + 1], prof, path, a.force, &refs, &nrefs);
		if (st == CLI_OK)
			refnames = ref_names(argv[optind + 1], nrefs);
	}
	pmcf_report *rep = NULL;
	if (st == CLI_OK) {
		pmcf_report_opts ro = PMCF_REPORT_OPTS_INIT;
		ro.plots = (unsigned)a.nplots;
		ro.bins = (unsigned)a.bins;
		ro.points = (unsigned)a.points;
		ro.pairs = user;
		ro.npairs = a.nuser;
		ro.name = path;
		ro.refnames = (const char *const *)refnames;
		ro.colour_by = colour_by;
		/* SIGINT/SIGTERM/SIGHUP while the page is made (gnuplot may be
		 * slow): the library removes its temporary folder, no page is
		 * written, exit 128+N (a second signal ends at once) */
		cli_signals_catch(VERB);
		int err = pmcf_report_new(prof, (const pmcf_profile *const *)refs, nrefs, &ro, &rep);
		if (err)
			st = cli_error(VERB, CLI_EENV, "%s",
				       pmcf_errdetail()[0] ? pmcf_errdetail() : pmcf_strerror(err));
	}
	if (st == CLI_OK && cli_signal_caught())
		st = cli_interrupted(VERB, "no report written");
	/* a reader that goes away (`-o - | head`, a FIFO): SIGPIPE would end
	 * the process before the temporary folder is removed; ignored while the
	 * page is written, and raised again once everything is cleaned up */
	int epipe = 0;
	struct sigaction oldpipe = {.sa_handler = SIG_IGN};
	if (st == CLI_OK)
		st = write_page(rep, out, &epipe, &oldpipe);
	pmcf_report_free(rep);
	if (refnames) {
		for (size_t k = 0; k < nrefs; k++)
			free(refnames[k]);
		free(refnames);
	}
	refdir_free(refs, nrefs);
	pmcf_profile_free(prof);
	if (epipe && oldpipe.sa_handler == SIG_DFL) {
		fflush(stderr);
		raise(SIGPIPE); /* ends here, as any writer into a closed pipe */
	}
	return st;
}
