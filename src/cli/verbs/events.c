/* `pmcfuse events`: list what the real source (or a simulated machine) can
 * count, and check whether a set of events can be counted at once. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/output.h"
#include "cli/verbs/events.h"

static const char usage[] =
	"usage: pmcfuse events [--sim SPEC] [--json] [--source S] [--available] [--no-probe]\n"
	"                     [--no-header]\n"
	"       pmcfuse events [--sim SPEC] --check EVENTS [--pmcs N] [-q] [--json]\n\n"
	"Lists the events of this machine, after a header that says what can count here\n"
	"(PMUs and their counters, VM, perf_event_paranoid, tracefs, rdpmc): perf\n"
	"software events, generic hardware and hw-cache events, tracepoints, the native\n"
	"events of the detected PMUs (libpfm4) and PAPI's presets (libpapi: their natives\n"
	"here, or why they cannot be counted);\n"
	"with --sim, the events of a simulated machine with their counting constraints.\n\n"
	"  --sim SPEC       list the simulated machine of SPEC (e.g. cholesky,machine=xeon192)\n"
	"  --json           print a JSON array of {name, source, available, description, ...}\n"
	"  --source S       only events of source S (pseudo, software, hardware, hw-cache,\n"
	"                   tracepoint, pmu, papi, sim)\n"
	"  --available      only events this machine can count\n"
	"  --no-probe       do not test each event with perf_event_open (available: unknown)\n"
	"  --no-header      leave out the machine header (CPU, PMU and counters, VM,\n"
	"                   perf_event_paranoid, tracefs, rdpmc)\n"
	"  --check EVENTS   can EVENTS (comma list, all, @FILE) be counted in one execution?\n"
	"                   exit 0 and print 'fits' if so, else exit 1 and say why\n"
	"  --pmcs N         counter budget for --check (machines without a PMU)\n"
	"  -q, --quiet      print nothing but errors (--check: the exit status says)\n"
	"  --json           with --check: {\"fits\": true, \"events\": N} when they fit, with\n"
	"                   \"user_space_only\": [names] when kernel mode is not allowed;\n"
	"                   {\"fits\": false, \"events\": N, \"why\": TEXT} when they do not\n\n"
	"EVENTS take perf's syntax: aliases (cs, faults), modifiers (task-clock:u,\n"
	"cycles:k, instructions:pp), raw (r01c2) and PMU events (cpu/event=0x3c,umask=0/,\n"
	"msr/tsc/), globs ('sched:*') and {a,b} groups that share one execution.\n";

int cmd_events(int argc, char **argv)
{
	static const struct option opts[] = {{"sim", required_argument, NULL, 's'},
					     {"json", no_argument, NULL, 'j'},
					     {"source", required_argument, NULL, 'S'},
					     {"available", no_argument, NULL, 'a'},
					     {"no-probe", no_argument, NULL, 'n'},
					     {"check", required_argument, NULL, 'c'},
					     {"pmcs", required_argument, NULL, 'p'},
					     {"help", no_argument, NULL, 'h'},
					     {"no-header", no_argument, NULL, 'H'},
					     CLI_OUTPUT_LONGOPTS,
					     {NULL, 0, NULL, 0}};
	const char *sim = NULL, *source = NULL, *check = NULL;
	int json = 0, only_avail = 0, probe = 1, no_header = 0, opt;
	unsigned long pmcs = 0;
	if (cli_wants_help(argc, argv, usage))
		return CLI_OK;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "vq", opts, NULL)) != -1) {
		if (cli_output_option(opt, NULL))
			continue;
		switch (opt) {
		case 's': sim = optarg; break;
		case 'j': json = 1; break;
		case 'S': source = optarg; break;
		case 'a': only_avail = 1; break;
		case 'n': probe = 0; break;
		case 'H': no_header = 1; break;
		case 'c': check = optarg; break;
		case 'p':
			if (cli_parse_uint("events", "--pmcs", optarg, 1, 1024, &pmcs))
				return CLI_EUSAGE;
			break;
		default:
			return cli_usage_error("events", "unknown option or missing value '%s'",
					       argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error("events", "unexpected argument '%s'", argv[optind]);
	if (pmcs && !check)
		return cli_usage_error("events", "--pmcs is only meaningful with --check");

	if (source && check)
		return cli_usage_error("events", "--source is for listing, not --check");

	/* tracepoints asked for by name: mount tracefs, or say why not */
	int tracepoints = !sim && source && strcmp(source, PMCF_SRC_TRACEPOINT) == 0;
	pmcf_catalog *c = NULL;
	int err = sim     ? pmcf_catalog_sim(sim, &c)
		  : check ? pmcf_catalog_perf_for_events(check, &c) /* grows as names resolve */
			  : pmcf_catalog_perf((probe ? PMCF_CATALOG_PROBE : 0) |
						      (tracepoints ? PMCF_CATALOG_TRACEPOINTS : 0),
					      &c);
	if (err && tracepoints)
		return cli_error("events", cli_status_for(err), "listing tracepoints %s", pmcf_errdetail());
	if (err)
		return cli_lib_error("events", err, "cannot list events");
	int st = CLI_OK;
	if (check) {
		pmcf_evlist *l = NULL;
		char why[512];
		err = pmcf_evlist_parse(c, check, &l);
		if (!err)
			err = pmcf_evlist_check(l, (unsigned)pmcs, why, sizeof(why));
		if (err < 0)
			st = cli_lib_error("events", err, "cannot check the event set");
		else if (err == 0) {
			if (json) { /* the answer for scripts, beside the error line */
				printf("{\"fits\": false, \"events\": %zu, \"why\": ", pmcf_evlist_size(l));
				cli_json_string(stdout, why);
				printf("}\n");
			}
			st = cli_error("events", CLI_EUSAGE, "the events do not fit in one execution: %s",
				       why);
		} else if (json) {
			printf("{\"fits\": true, \"events\": %zu", pmcf_evlist_size(l));
			for (size_t i = 0, nu = 0; i < pmcf_evlist_size(l); i++)
				if (pmcf_evlist_user_only(l, i)) {
					printf("%s", nu++ ? ", " : ", \"user_space_only\": [");
					cli_json_string(stdout, pmcf_evlist_name(l, i));
				}
			for (size_t i = 0; i < pmcf_evlist_size(l); i++)
				if (pmcf_evlist_user_only(l, i)) {
					printf("]");
					break;
				}
			printf("}\n");
		} else if (!cli_quiet)
			events_print_fits(l);
		char note[768];
		if (err > 0 && cli_user_only_note(l, note, sizeof(note)))
			cli_error("events", 0, "%s", note);
		pmcf_evlist_free(l);
	} else if (json) {
		events_print_json(c, source, only_avail);
	} else if (!cli_quiet) {
		if (!sim && !no_header)
			events_print_header();
		events_print_text(c, source, only_avail);
	}
	pmcf_catalog_free(c);
	return st;
}
