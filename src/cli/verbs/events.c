/* `pmcfuse events`: list what the real source (or a simulated machine) can
 * count, and check whether a set of events can be counted at once. */
#include <getopt.h>
#include <limits.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/output.h"

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

static void print_json(const pmcf_catalog *c, const char *source, int only_avail)
{
	printf("[");
	int first = 1;
	for (size_t i = 0; i < pmcf_catalog_size(c); i++) {
		const pmcf_event_info *e = pmcf_catalog_at(c, i);
		if ((source && strcmp(e->source, source) != 0) || (only_avail && e->available != 1))
			continue;
		printf("%s\n  {\"name\": ", first ? "" : ",");
		first = 0;
		cli_json_string(stdout, e->name);
		printf(", \"source\": ");
		cli_json_string(stdout, e->source);
		if (e->pmu) {
			printf(", \"pmu\": ");
			cli_json_string(stdout, e->pmu);
		}
		printf(", \"available\": %s", e->available == 1   ? "true"
					      : e->available == 0 ? "false"
								  : "null");
		printf(", \"cost\": %u, \"description\": ", e->cost);
		cli_json_string(stdout, e->description);
		if (e->constraints) {
			json_t *j = json_loads(e->constraints, 0, NULL);
			char *txt = j ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
			if (txt)
				printf(", \"constraints\": %s", txt);
			free(txt);
			json_decref(j);
		}
		printf("}");
	}
	printf("%s]\n", first ? "" : "\n");
}

/* The machine first, as papi_avail does: what can count here, and why not. */
static void print_header(void)
{
	pmcf_host_info h = {.size = sizeof(h)};
	if (pmcf_host_describe(&h) != 0)
		return;
	printf("CPU            %s (%u CPUs)\n", h.cpu[0] ? h.cpu : "unknown", h.ncpus);
	printf("Virtual        %s%s%s%s\n",
	       h.virtual_machine == 1   ? "yes"
	       : h.virtual_machine == 0 ? "no"
					: "unknown",
	       h.hypervisor[0] ? " (" : "", h.hypervisor, h.hypervisor[0] ? ")" : "");
	if (h.npmus == 0)
		printf("Core PMU       none detected by libpfm4\n");
	for (size_t i = 0; i < h.npmus; i++)
		printf("Core PMU       %s (%s): %d general counters, %d fixed\n", h.pmus[i].name,
		       h.pmus[i].desc, h.pmus[i].general, h.pmus[i].fixed);
	if (h.hw_counting)
		printf("Hardware       generic hardware events open\n");
	else
		printf("Hardware       not countable: %s\n", h.hw_why);
	printf("Kernel PMUs    %s\n", h.kernel_pmus[0] ? h.kernel_pmus : "none");
	char par[32];
	if (h.paranoid == INT_MIN)
		snprintf(par, sizeof(par), "unreadable");
	else
		snprintf(par, sizeof(par), "%d", h.paranoid);
	printf("Paranoid       kernel.perf_event_paranoid = %s; %s%s\n", par,
	       h.root ? "running as root, " : "",
	       h.kernel_allowed ? "kernel-mode counting allowed"
				: "user space only (kernel events need <= 1 or CAP_PERFMON)");
	printf("tracefs        %s\n", h.tracefs);
	printf("rdpmc          %s: %s\n", h.rdpmc ? "yes" : "no", h.rdpmc_why);
	printf("\n");
}

/* A JSON array of numbers or strings as "a, b, c" (numbers as integers). */
/* "SEP TITLE a, b, c" for the non-empty array j[key]; *sep becomes "; " */
static void print_list(const json_t *j, const char *key, const char *title, const char **sep)
{
	const json_t *a = json_object_get(j, key);
	if (!json_is_array(a) || !json_array_size(a))
		return;
	printf("%s%s", *sep, title);
	size_t k;
	json_t *v;
	json_array_foreach(a, k, v)
	{
		if (json_is_string(v))
			printf("%s%s", k ? ", " : "", json_string_value(v));
		else
			printf("%s%lld", k ? ", " : "", (long long)json_number_value(v));
	}
	*sep = "; ";
}

/* An event's constraints (the catalogue's JSON) for people, after its
 * description: "(not available: why)", or "(fixed counter 1; native X)",
 * "(counters 0, 1, 2, 3; cost 1; native X; conflicts with Y)"; other keys
 * as "key value". --json keeps the JSON. */
static void print_constraints(const char *text)
{
	json_t *j = json_loads(text, 0, NULL);
	if (!json_is_object(j)) {
		printf(" %s", text);
		json_decref(j);
		return;
	}
	const char *sep = " (";
	json_t *why = json_object_get(j, "unavailable");
	if (json_is_string(why))
		printf("%snot available: %s", sep, json_string_value(why)), sep = "; ";
	if (json_is_true(json_object_get(j, "fixed"))) {
		json_t *fc = json_object_get(j, "fixed_counter");
		if (json_is_integer(fc))
			printf("%sfixed counter %lld", sep, (long long)json_integer_value(fc));
		else
			printf("%sa fixed counter", sep);
		sep = "; ";
	}
	print_list(j, "counters", "counters ", &sep);
	json_t *cost = json_object_get(j, "cost");
	if (json_is_number(cost) && json_number_value(cost) != 0)
		printf("%scost %g", sep, json_number_value(cost)), sep = "; ";
	print_list(j, "native", "native ", &sep);
	print_list(j, "conflicts", "conflicts with ", &sep);
	/* anything else, as it is */
	const char *key;
	json_t *v;
	json_object_foreach(j, key, v)
	{
		static const char *const known[] = {"unavailable", "fixed",  "fixed_counter", "counters",
						    "cost",        "native", "conflicts"};
		int skip = 0;
		for (size_t k = 0; k < sizeof(known) / sizeof(known[0]) && !skip; k++)
			skip = strcmp(key, known[k]) == 0;
		if (skip)
			continue;
		char *txt = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		printf("%s%s %s", sep, key,
		       txt && json_is_string(v) ? json_string_value(v)
		       : txt                    ? txt
						: "?");
		free(txt);
		sep = "; ";
	}
	if (strcmp(sep, " (") != 0)
		printf(")");
	json_decref(j);
}

static void print_text(const pmcf_catalog *c, const char *source, int only_avail)
{
	size_t w = 4, shown = 0, avail = 0;
	for (size_t i = 0; i < pmcf_catalog_size(c); i++) {
		size_t l = strlen(pmcf_catalog_at(c, i)->name);
		if (l > w && l < 48)
			w = l;
	}
	printf("%-*s  %-10s  %-9s  %s\n", (int)w, "NAME", "SOURCE", "AVAILABLE", "DESCRIPTION");
	for (size_t i = 0; i < pmcf_catalog_size(c); i++) {
		const pmcf_event_info *e = pmcf_catalog_at(c, i);
		if ((source && strcmp(e->source, source) != 0) || (only_avail && e->available != 1))
			continue;
		shown++;
		avail += e->available == 1;
		printf("%-*s  %-10s  %-9s  %s", (int)w, e->name, e->source,
		       e->available == 1   ? "yes"
		       : e->available == 0 ? "no"
					   : "unknown",
		       e->description);
		if (e->constraints)
			print_constraints(e->constraints);
		printf("\n");
	}
	printf("%zu events (%zu available) in catalogue '%s'\n", shown, avail, pmcf_catalog_name(c));
}

/* "fits: …", naming the events counted in user space only when this
 * process may not count kernel mode. */
static void print_fits(const pmcf_evlist *l)
{
	size_t n = pmcf_evlist_size(l), nu = 0;
	printf("fits: %zu event%s can be counted in one execution", n, n == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++)
		if (pmcf_evlist_user_only(l, i))
			printf("%s%s", nu++ ? ", " : "; in user space only (kernel mode not allowed): ",
			       pmcf_evlist_name(l, i));
	printf("\n");
}

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
			print_fits(l);
		char note[768];
		if (err > 0 && cli_user_only_note(l, note, sizeof(note)))
			cli_error("events", 0, "%s", note);
		pmcf_evlist_free(l);
	} else if (json) {
		print_json(c, source, only_avail);
	} else if (!cli_quiet) {
		if (!sim && !no_header)
			print_header();
		print_text(c, source, only_avail);
	}
	pmcf_catalog_free(c);
	return st;
}
