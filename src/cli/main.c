/* The pmcfuse command: global options and dispatch to one file per verb. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli/cli.h"
#include "cli/output.h"

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
	{"export", "export a profile as CSV, TSV, JSON, SQLite or OTF2", cmd_export},
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
	fprintf(f, "\n`pmcfuse VERB --help` describes a verb; `pmcfuse help VERB` shows its manual page"
		   " (pmcfuse-VERB(1)).\nDocumentation: README.md, docs/.\n");
}

static const struct cli_verb *find_verb(const char *name)
{
	for (size_t k = 0; k < sizeof(verbs) / sizeof(verbs[0]); k++)
		if (verbs[k].run && strcmp(name, verbs[k].name) == 0)
			return &verbs[k];
	return NULL;
}

/* The manual page PAGE.1 into out: PREFIX/share/man/man1 of an installed
 * command (PREFIX/bin/pmcfuse), else docs/man of the source tree it was
 * built from; 0, or -1 when neither has it. */
static int find_page(const char *page, char *out, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			snprintf(out, len, "%s/../%s/man1/%s.1", exe, PMCF_INSTALL_MANDIR, page);
			if (access(out, R_OK) == 0)
				return 0;
		}
	}
	snprintf(out, len, "%s/docs/man/%s.1", PMCF_SOURCE_DIR, page);
	return access(out, R_OK) == 0 ? 0 : -1;
}

/* `pmcfuse help [VERB]`: the manual page pmcfuse-VERB(1) (pmcfuse(1)
 * without VERB) through man(1), which pages it on a terminal and prints it
 * otherwise; without man(1) or the page, the verb's --help. */
static int cmd_help(int argc, char **argv)
{
	if (argc > 2)
		return cli_usage_error("help", "one verb at most (pmcfuse help VERB)");
	const struct cli_verb *v = NULL;
	if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
		printf("usage: pmcfuse help [VERB]\n\nShows the manual page of VERB (pmcfuse-VERB(1)), or"
		       " pmcfuse(1) without VERB.\n");
		return CLI_OK;
	}
	if (argc == 2 && !(v = find_verb(argv[1])))
		return cli_error("help", CLI_EUSAGE, "unknown verb '%s' (see pmcfuse --help)", argv[1]);
	char page[64], path[PATH_MAX + 128];
	snprintf(page, sizeof(page), v ? "pmcfuse-%s" : "pmcfuse", v ? v->name : "");
	if (find_page(page, path, sizeof(path)) == 0) {
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			execlp("man", "man", "-l", path, (char *)NULL);
			_exit(127);
		}
		int ws = 0;
		if (pid > 0 && waitpid(pid, &ws, 0) == pid && WIFEXITED(ws) && WEXITSTATUS(ws) == 0)
			return CLI_OK;
		if (pid > 0 && WIFEXITED(ws) && WEXITSTATUS(ws) != 127)
			return cli_error("help", CLI_EENV, "man -l %s failed", path);
	}
	/* no man(1), or no page: the --help text */
	if (!v) {
		usage(stdout);
		return CLI_OK;
	}
	char *hv[] = {argv[1], "--help", NULL};
	return v->run(2, hv);
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
	cli_log_level();
	if (i == argc) {
		usage(stderr);
		return CLI_EUSAGE;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_xfsz;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGXFSZ, &sa, NULL);
	if (strcmp(argv[i], "help") == 0)
		return stdout_status("help", cmd_help(argc - i, argv + i));
	const struct cli_verb *v = find_verb(argv[i]);
	if (v)
		return stdout_status(v->name, v->run(argc - i, argv + i));
	fprintf(stderr, "pmcfuse: unknown verb '%s' (see pmcfuse --help)\n", argv[i]);
	return CLI_EUSAGE;
}
