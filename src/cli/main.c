/* The pmcfuse command: global options and dispatch to one file per verb. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/output.h"

int cli_verbose;

static const struct cli_verb verbs[] = {
	{"events", "list the events this machine (or a simulated one) can count", cmd_events},
	{"plan", "split events into the event sets of the executions", cmd_plan},
	{"record", "record one execution profile", cmd_record},
	{"run", "plan, record every execution and fuse them into one profile", cmd_run},
	{"combine", "fuse execution profiles (ctc, lgl, bc, bc-unlabeled, random, ...)", cmd_combine},
	{"reference", "record the reference executions that epd and correrr need", cmd_reference},
	{"epd", "execution profile dissimilarity of a profile against references", cmd_epd},
	{"correrr", "correlation error of a profile against references", cmd_correrr},
	{"truth", "error of a simulated profile against its ground truth", cmd_truth},
	{"emd", "earth mover's distance between two weighted 2-D point sets", cmd_emd},
	{"show", "summarise a profile: metadata, XU types, event statistics", cmd_show},
	{"export", "export a profile as CSV or JSON", cmd_export},
	{"report", "an HTML report with plots", cmd_report},
	{"categorize", "categorise counters with micro-benchmarks", cmd_categorize},
	{"imix", "instruction mixes from PMU samples (HBBP)", cmd_imix},
};

static void usage(FILE *f)
{
	fprintf(f, "usage: pmcfuse [-v] [-q] [--version] [--help] VERB [OPTIONS] [ARGS]\n\n"
		   "Complete per-task hardware-event profiles by fusing several executions.\n\n"
		   "  -v, --verbose  also print internals (as VERB -v); -vv adds debug messages\n"
		   "  -q, --quiet    print nothing but errors (as VERB --quiet)\n\n"
		   "Verbs:\n");
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (verbs[i].run)
			fprintf(f, "  %-11s %s\n", verbs[i].name, verbs[i].summary);
	fprintf(f, "\n`pmcfuse VERB --help` describes a verb. Documentation: README.md, docs/.\n");
}

/* SIGXFSZ (a file size limit, ulimit -f) would kill the tool mid-save and
 * leave its temporaries: with a handler that does nothing, the write fails
 * with EFBIG instead, which every save reports (exit 2) and cleans up. A
 * handler, not SIG_IGN, so that programs the tool runs get the default. */
static void on_xfsz(int sig) { (void)sig; }

/* After a verb: what it wrote to standard output must have reached it
 * (`>/dev/full`, a closed pipe), else exit 2. */
static int stdout_status(const char *verb, int st)
{
	errno = 0;
	if ((fflush(stdout) != 0 || ferror(stdout)) && st == CLI_OK)
		return cli_error(verb, CLI_EENV, "cannot write to standard output: %s",
				 errno ? strerror(errno) : "write error");
	return st;
}

static void log_to_stderr(int level, const char *msg, void *ctx)
{
	(void)ctx;
	static const char *names[] = {"error", "warning", "info", "debug"};
	fprintf(stderr, "pmcfuse: %s: %s\n", names[level < 0 ? 0 : level > 3 ? 3 : level], msg);
}

int main(int argc, char **argv)
{
	int i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--version") == 0) {
			printf("pmcfuse %s\n", pmcf_version());
			return CLI_OK;
		} else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			usage(stdout);
			return CLI_OK;
		} else if (strcmp(argv[i], "-v") == 0 || strcmp(argv[i], "--verbose") == 0) {
			cli_verbose++;
		} else if (strcmp(argv[i], "-vv") == 0) {
			cli_verbose += 2;
		} else if (strcmp(argv[i], "-q") == 0 || strcmp(argv[i], "--quiet") == 0) {
			cli_quiet = 1;
		} else {
			fprintf(stderr, "pmcfuse: unknown option '%s' (see pmcfuse --help)\n", argv[i]);
			return CLI_EUSAGE;
		}
	}
	/* Warnings always; info with -v, debug with -vv (or PMCF_DEBUG). */
	pmcf_set_log(log_to_stderr, NULL, 1 + cli_verbose);
	if (i == argc) {
		usage(stderr);
		return CLI_EUSAGE;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_xfsz;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGXFSZ, &sa, NULL);
	for (size_t k = 0; k < sizeof(verbs) / sizeof(verbs[0]); k++)
		if (verbs[k].run && strcmp(argv[i], verbs[k].name) == 0)
			return stdout_status(verbs[k].name, verbs[k].run(argc - i, argv + i));
	fprintf(stderr, "pmcfuse: unknown verb '%s' (see pmcfuse --help)\n", argv[i]);
	return CLI_EUSAGE;
}
