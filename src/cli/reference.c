/* `pmcfuse reference`: records the reference executions EPD and the
 * Correlation Error need (fuse-task-parallel §4.1): every event pair
 * monitored together R times, with event sets packed by a pair covering so
 * that one execution serves many pairs; writes DIR/ref-NNN.pmcf and the
 * index DIR/reference.json. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cli/cli.h"
#include "counters/perf.h"
#include "pmcfuse/collect.h"
#include "pmcfuse/evaluate.h"
#include "pmcfuse/sim.h"

static const char usage[] =
	"usage: pmcfuse reference -e EVENTS [--repeat R] [--pmcs N] [--seed S] -o DIR\n"
	"                         (--sim SPEC | -- PROGRAM ARGS...)\n\n"
	"Records reference executions in which every pair of EVENTS is monitored\n"
	"together, R times each (different execution seeds). The pairs are packed into\n"
	"event sets that fit the counters (a pair covering), so one execution serves many\n"
	"pairs; the number of executions is printed against the lower bound. Writes\n"
	"DIR/ref-NNN.pmcf and DIR/reference.json (which pairs each file covers, its\n"
	"repeat). Pairs that can never be counted together are listed and left out.\n\n"
	"  -e EVENTS    comma-separated list, all, or @FILE (duration is always recorded)\n"
	"  --repeat R   repeats of every pair (default 5, at least 2 for calibration)\n"
	"  --pmcs N     counter budget (default: the machine's counters)\n"
	"  --seed S     base seed of the simulated executions (default: the spec's seed)\n"
	"  -o DIR       output folder (created; must not hold reference profiles yet)\n"
	"  --sim SPEC   simulated workload, e.g. cholesky,blocks=12\n";

static int dir_has_profiles(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	struct dirent *de;
	int found = 0;
	while ((de = readdir(d)) && !found) {
		size_t l = strlen(de->d_name);
		found = l > 5 && strcmp(de->d_name + l - 5, ".pmcf") == 0;
	}
	closedir(d);
	return found;
}

int cmd_reference(int argc, char **argv)
{
	static const struct option opts[] = {
		{"events", required_argument, NULL, 'e'}, {"repeat", required_argument, NULL, 'r'},
		{"pmcs", required_argument, NULL, 'p'},   {"seed", required_argument, NULL, 'S'},
		{"output", required_argument, NULL, 'o'}, {"sim", required_argument, NULL, 's'},
		{"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0}};
	if (cli_wants_help(argc, argv, usage))
		return CLI_OK;
	const char *events = NULL, *dir = NULL, *sim = NULL;
	unsigned long repeat = 5, pmcs = 0, seed = 0, v;
	int have_seed = 0, opt;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+e:o:", opts, NULL)) != -1) {
		switch (opt) {
		case 'e': events = optarg; break;
		case 'o': dir = optarg; break;
		case 's': sim = optarg; break;
		case 'r':
			if (cli_parse_uint("reference", "--repeat", optarg, 2, 1000, &repeat))
				return CLI_EUSAGE;
			break;
		case 'p':
			if (cli_parse_uint("reference", "--pmcs", optarg, 1, 1024, &pmcs))
				return CLI_EUSAGE;
			break;
		case 'S':
			if (cli_parse_uint("reference", "--seed", optarg, 0, (unsigned long)-1, &v))
				return CLI_EUSAGE;
			seed = v;
			have_seed = 1;
			break;
		default:
			return cli_usage_error("reference", "unknown option or missing value '%s'",
					       argv[optind - 1]);
		}
	}
	char **prog = optind < argc ? argv + optind : NULL;
	if (!events)
		return cli_usage_error("reference", "needs -e EVENTS");
	if (!dir)
		return cli_usage_error("reference", "needs -o DIR");
	if (!sim && !prog)
		return cli_usage_error("reference", "needs --sim SPEC or -- PROGRAM ARGS");
	if (sim && prog)
		return cli_usage_error("reference", "--sim and a program cannot be used together");
	if (prog && strcmp(argv[optind - 1], "--") != 0)
		return cli_usage_error("reference", "put the program after '--' ('%s')", prog[0]);

	pmcf_catalog *c = NULL;
	pmcf_sim_spec *spec = NULL;
	int err = sim ? pmcf_sim_spec_parse(sim, &spec) : 0;
	if (!err)
		err = sim ? pmcf_catalog_sim(sim, &c)
			  : pmcf_catalog_perf(pmcfi_perf_papi_flags(events), &c);
	if (err) {
		pmcf_sim_spec_free(spec);
		return cli_lib_error("reference", err, sim ? sim : "cannot list events");
	}
	pmcf_evlist *list = NULL;
	pmcf_cover *cv = NULL;
	int st = CLI_OK;
	err = pmcf_evlist_parse(c, events, &list);
	if (!err)
		err = pmcf_cover_pairs(c, pmcf_evlist_names(list), pmcf_evlist_size(list), (unsigned)pmcs, &cv);
	if (err)
		st = cli_lib_error("reference", err, "cannot plan the reference executions");
	if (st == CLI_OK && dir_has_profiles(dir))
		st = cli_error("reference", CLI_EUSAGE, "'%s' already holds profiles; choose an empty folder",
			       dir);
	if (st == CLI_OK && mkdir(dir, 0777) != 0 && errno != EEXIST)
		st = cli_error("reference", cli_status_for(-errno), "cannot create '%s': %s", dir,
			       strerror(errno));
	size_t nsets = cv ? pmcf_cover_nsets(cv) : 0, total = nsets * repeat;
	if (!have_seed && spec)
		seed = pmcf_sim_spec_seed(spec);
	struct cli_out idx = {0};
	char path[4096];
	if (st == CLI_OK) {
		snprintf(path, sizeof(path), "%s/reference.json", dir);
		st = cli_out_open("reference", path, &idx);
	}
	if (st == CLI_OK) {
		FILE *f = idx.f;
		fprintf(f, "{\n  \"events\": [");
		size_t ne = 0;
		/* the covered events: those of the list besides duration */
		for (size_t i = 0; i < pmcf_evlist_size(list); i++) {
			if (strcmp(pmcf_evlist_name(list, i), "duration") == 0)
				continue;
			fprintf(f, "%s", ne++ ? ", " : "");
			cli_json_string(f, pmcf_evlist_name(list, i));
		}
		fprintf(f, "],\n  \"repeat\": %lu, \"sets\": %zu, \"executions\": %zu, \"lower_bound\": %zu,\n",
			repeat, nsets, total, pmcf_cover_lower_bound(cv) * repeat);
		fprintf(f, "  \"lower_bound_per_repeat\": %zu, \"lower_bound_derivation\": ",
			pmcf_cover_lower_bound(cv));
		cli_json_string(f, pmcf_cover_bound_text(cv));
		fprintf(f, ",\n  \"source\": ");
		cli_json_string(f, sim ? pmcf_sim_spec_canonical(spec) : prog[0]);
		fprintf(f, ",\n  \"impossible_pairs\": [");
		for (size_t k = 0; k < pmcf_cover_nimpossible(cv); k++) {
			const char *a, *b;
			pmcf_cover_impossible(cv, k, &a, &b);
			fprintf(f, "%s[", k ? ", " : "");
			cli_json_string(f, a);
			fprintf(f, ", ");
			cli_json_string(f, b);
			fprintf(f, "]");
		}
		fprintf(f, "],\n  \"profiles\": [");
	}
	pmcf_sim_opts so = PMCF_SIM_OPTS_INIT;
	so.pmcs = (unsigned)pmcs;
	for (size_t r = 0; r < repeat && st == CLI_OK; r++)
		for (size_t s = 0; s < nsets && st == CLI_OK; s++) {
			size_t k = r * nsets + s, n;
			const char *const *set = pmcf_cover_set(cv, s, &n);
			pmcf_profile *p = NULL;
			uint64_t es = 0;
			if (spec) {
				es = pmcf_sim_exec_seed(seed, (unsigned)k);
				pmcf_sim_spec_set_seed(spec, es);
				err = pmcf_sim_record(spec, set, n, &so, &p);
			} else {
				pmcf_collect_opts co;
				memset(&co, 0, sizeof(co));
				co.size = sizeof(co);
				co.pmcs = (unsigned)pmcs;
				pmcf_exit_info ei;
				err = pmcf_collect_program(prog, set, n, &co, &p, &ei);
				if (err == PMCF_EPROGRAM) {
					st = cli_error("reference", CLI_EENV, "execution %zu of '%s' failed: %s", k + 1,
						       prog[0], ei.message[0] ? ei.message : "non-zero exit");
					pmcf_profile_free(p);
					break;
				}
			}
			snprintf(path, sizeof(path), "%s/ref-%03zu.pmcf", dir, k);
			if (!err)
				err = pmcf_profile_save(p, path);
			pmcf_profile_free(p);
			if (err) {
				st = cli_lib_error("reference", err, path);
				break;
			}
			FILE *f = idx.f;
			fprintf(f, "%s\n    {\"file\": \"ref-%03zu.pmcf\", \"repeat\": %zu, \"set\": %zu, \"seed\": %llu, "
				   "\"events\": [",
				k ? "," : "", k, r, s, (unsigned long long)es);
			for (size_t i = 0; i < n; i++) {
				fprintf(f, "%s", i ? ", " : "");
				cli_json_string(f, set[i]);
			}
			fprintf(f, "], \"pairs\": [");
			for (size_t i = 0, q = 0; i < n; i++)
				for (size_t j = i + 1; j < n; j++) {
					fprintf(f, "%s[", q++ ? ", " : "");
					cli_json_string(f, set[i]);
					fprintf(f, ", ");
					cli_json_string(f, set[j]);
					fprintf(f, "]");
				}
			fprintf(f, "]}");
			if (cli_verbose)
				fprintf(stderr, "pmcfuse: reference: %s (%zu events)\n", path, n);
		}
	if (st == CLI_OK) {
		fprintf(idx.f, "\n  ]\n}\n");
		st = cli_out_commit("reference", &idx);
	} else if (idx.f) {
		cli_out_abort(&idx);
	}
	if (st == CLI_OK) {
		size_t E = 0;
		for (size_t i = 0; i < pmcf_evlist_size(list); i++)
			E += strcmp(pmcf_evlist_name(list, i), "duration") != 0;
		printf("%zu reference executions (%zu event sets x %lu repeats) cover the %zu pairs of %zu "
		       "events; lower bound %zu (%zu x %lu); without packing: %zu\n",
		       total, nsets, repeat, E * (E - 1) / 2 - pmcf_cover_nimpossible(cv), E,
		       pmcf_cover_lower_bound(cv) * repeat, pmcf_cover_lower_bound(cv), repeat,
		       (E * (E - 1) / 2) * repeat);
		printf("lower bound: %s\n", pmcf_cover_bound_text(cv));
		if (pmcf_cover_nimpossible(cv))
			printf("%zu pairs can never be counted together and are left out (listed in "
			       "%s/reference.json)\n",
			       pmcf_cover_nimpossible(cv), dir);
		printf("wrote %s/ref-000.pmcf .. ref-%03zu.pmcf and %s/reference.json\n", dir,
		       total ? total - 1 : 0, dir);
	}
	pmcf_cover_free(cv);
	pmcf_evlist_free(list);
	pmcf_catalog_free(c);
	pmcf_sim_spec_free(spec);
	return st;
}
