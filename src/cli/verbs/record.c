/* `pmcfuse record`: record one execution profile of a simulated workload
 * (--sim SPEC) or a real program (-- PROG ARGS), with its own event list or
 * one set of a plan (--plan plan.json --set K). */
#include "cli/campaign.h"
#include "cli/cli.h"
#include "cli/output.h"
#include "cli/verbs/record.h"
#include "cli/verbs/record_program.h"
#include "pmcfuse/plan.h"
#include "pmcfuse/sim.h"
#include "pmcfuse/source.h"
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char usage[] =
	"usage: pmcfuse record -e EVENTS [--pmcs N] [--multiplex none|kernel|rr|roc|roc-counts]\n"
	"                      [--period-ms P] [--estimate cumulative|local]\n"
	"                      [--program-output FILE|-] [-q] [-v] [--json]\n"
	"                      [-o OUT] (--sim SPEC | [--] PROG ARGS | --plan plan.json --set K)\n\n"
	"Records one execution profile: every XU with its type, label, thread, cpu, times\n"
	"and one value per monitored event (duration always first). A simulated source\n"
	"also stores the true value of every event of its machine (`export --truth`).\n\n"
	"With --multiplex, a value whose event never counted (perf's <not counted>) is\n"
	"missing, not 0, and record ends with one line on stderr: the events that never\n"
	"counted during any XU, the share of values missing, the XUs not always counted,\n"
	"and a warning when the run was shorter than one rotation period\n"
	"(docs/multiplexing.md).\n\n"
	"SIGINT, SIGTERM and SIGHUP are forwarded to the program: what was recorded is\n"
	"saved, marked incomplete, and record exits 128+N (docs/campaigns.md).\n\n"
	"  -e, --events EVENTS   comma list, all, or @FILE (`pmcfuse events --sim SPEC`)\n"
	"  -o, --output OUT      the profile file to write (atomically); default pmcfuse.pmcf,\n"
	"                        an existing one kept as pmcfuse.pmcf.old (as perf record's\n"
	"                        perf.data and perf.data.old)\n"
	"  --sim SPEC            simulated workload: WORKLOAD[,key=value...], e.g.\n"
	"                        cholesky,blocks=12,seed=3 (docs/simulation.md)\n"
	"  --pmcs N              general-purpose counters (default: the machine's own)\n"
	"  --multiplex MODE      time-share the counters when the events do not fit:\n"
	"                        kernel (perf rotation), rr (round-robin), roc (rate of change,\n"
	"                        cost in samples; roc-counts: cost in raw counts);\n"
	"                        none (default) refuses a set that does not fit\n"
	"  --period-ms P         multiplexing period in ms (default 4)\n"
	"  --estimate E          per-XU estimate under multiplexing: cumulative (default) or local;\n"
	"                        missing where it is undefined (cumulative: the event had not yet\n"
	"                        counted at the XU end; local: it did not count during the XU)\n"
	"  --plan FILE --set K   record execution K (0-based, as `pmcfuse plan` numbers them) of\n"
	"                        a plan: its events, counter budget, source and seed come from\n"
	"                        the plan; the profile stores the plan's digest and K,\n"
	"                        which combine checks (docs/slurm.md: a job array)\n"
	"  [--] PROG ARGS        a real program, counted with perf_event (docs/collector.md);\n"
	"                        the options end at the program, or at --\n"
	"  --program-output F    append the program's stdout and stderr to file F instead of\n"
	"                        pmcfuse's own (- : pmcfuse's own, the default; with --json\n"
	"                        the program's stdout goes to stderr)\n"
	"  -q, --quiet           no summary line: errors (and warnings) only\n"
	"  -v, --verbose         the library's notes on stderr too (info messages; -v -v: debug)\n"
	"  --json                the summary as one JSON object on stdout: output, source,\n"
	"                        xus, events, complete, observed (a program), multiplex\n";

/* Saves what was recorded (a stopped program's profile marked incomplete)
 * and says how it went. */
static int finish(const char *verb, pmcf_source *src, int err, pmcf_profile *p, const pmcf_exit_info *ei,
		  const struct cli_plan_meta *pm, const char *out, const char *name, int json, int dflt)
{
	int sim = pmcf_source_is_sim(src), sig = cli_signal_caught();
	const char *prog = sim ? NULL : pmcf_source_argv(src, NULL)[0];
	if (err == -EINTR && sig && !sim)
		return cli_interrupted(verb, "'%s' was not started; nothing recorded", prog);
	if (err && err != PMCF_EPROGRAM)
		return cli_lib_error(verb, err, sim ? "record" : prog);
	int serr = cli_plan_meta_apply(p, pm);
	if (!serr && sig && !sim)
		serr = pmcf_profile_meta_set(p, PMCF_META_COMPLETE, "0");
	if (!serr && dflt && cli_keep_old(verb, out))
		return CLI_EENV;
	if (!serr)
		serr = pmcf_profile_save(p, out);
	if (serr)
		return cli_lib_error(verb, serr, out);
	if (sig && sim)
		return cli_interrupted(verb, "the simulated execution had finished (saved to %s)", out);
	if (sig)
		return cli_interrupted(verb,
				       "'%s' was stopped, with the processes it started (its process "
				       "group); the profile keeps the %zu XU%s recorded and is marked "
				       "incomplete (saved to %s)",
				       prog, ei->xus, ei->xus == 1 ? "" : "s", out);
	if (err == PMCF_EPROGRAM)
		return cli_error(verb, CLI_EENV, "%s (saved to %s)", ei->message, out);
	pmcf_count_opts o = {.size = sizeof(o)};
	pmcf_source_count_get(src, &o);
	if (sim)
		cli_record_summary(verb, p, out, name, NULL, -1, json);
	else
		cli_record_summary(verb, p, out, prog, cli_collect_how(ei),
				   o.multiplex == PMCF_MUX_KERNEL ? -1 : (long)ei->rotations, json);
	return CLI_OK;
}

enum { OPT_SIM = 256, OPT_PMCS, OPT_MUX, OPT_PERIOD, OPT_EST, OPT_PLAN, OPT_SET, OPT_PROGOUT };

/* The source's options (--pmcs, --multiplex, --period-ms, --estimate) into
 * *o, with which ones were given: 1 when c was one of them (*st set to an
 * exit status when it is wrong), else 0. */
static int source_option(const char *verb, int c, pmcf_count_opts *o, int *pmcs_given, int *period_given,
			 int *est_given, int *st)
{
	unsigned long ul;
	*st = CLI_EUSAGE;
	switch (c) {
	case OPT_PMCS:
		if (cli_parse_uint(verb, "--pmcs", optarg, 1, 64, &ul))
			return 1;
		o->pmcs = (unsigned)ul;
		*pmcs_given = 1;
		*st = CLI_OK;
		return 1;
	case OPT_MUX:
		o->multiplex = pmcf_mux_mode_parse(optarg);
		if (o->multiplex < 0)
			return *st = cli_usage_error(verb,
						     "--multiplex must be none, kernel, rr, roc or "
						     "roc-counts, not '%s'",
						     optarg);
		*st = CLI_OK;
		return 1;
	case OPT_PERIOD: {
		char *end;
		o->period_ms = strtod(optarg, &end);
		if (!*optarg || *end || !(o->period_ms >= 0.001 && o->period_ms <= 1e6))
			return *st = cli_usage_error(
				       verb, "--period-ms needs a number of ms from 0.001 to 1e6, not '%s'",
				       optarg);
		*period_given = 1;
		*st = CLI_OK;
		return 1;
	}
	case OPT_EST:
		o->estimate = pmcf_estimate_parse(optarg);
		if (o->estimate < 0)
			return *st = cli_usage_error(verb, "--estimate must be cumulative or local, not '%s'",
						     optarg);
		*est_given = 1;
		*st = CLI_OK;
		return 1;
	default: *st = CLI_OK; return 0;
	}
}

/* The command line. */
struct rec {
	const char *events, *out, *sim, *plan, *setarg, *progout;
	pmcf_count_opts o;
	int pmcs_given, period_given, est_given, json;
	int prog_argc; /* the program after --, if any */
	char **prog_argv;
	int default_out; /* no -o: pmcfuse.pmcf */
};

/* What the options say together, once getopt is done (argv[optind..]: the
 * program and its arguments, after -- or after the options as with run). */
static int check_args(const char *verb, struct rec *r, int argc, char **argv, int optind)
{
	if (optind < argc) {
		if ((r->sim || r->plan) && strcmp(argv[optind - 1], "--") != 0)
			return cli_usage_error(verb, "unexpected argument '%s' (%s records no program)",
					       argv[optind], r->sim ? "--sim" : "--plan");
		r->prog_argc = argc - optind;
		r->prog_argv = argv + optind;
	}
	if (r->setarg && !r->plan)
		return cli_usage_error(verb, "--set needs --plan plan.json");
	if (r->sim && r->progout)
		return cli_usage_error(verb, "--program-output is for a program (-- PROG ARGS), not --sim");
	if (r->plan && r->events)
		return cli_usage_error(verb, "give -e EVENTS or --plan, not both");
	if (!r->out) {
		r->out = CLI_DEFAULT_OUT;
		r->default_out = 1;
	}
	if (r->plan && cli_out_not_input(verb, r->out, &r->plan, 1))
		return CLI_EUSAGE;
	if ((r->period_given || r->est_given) && r->o.multiplex == PMCF_MUX_NONE)
		return cli_usage_error(verb, "--period-ms and --estimate only apply with --multiplex");
	return CLI_OK;
}

/* Records one execution (set K of the plan, or the command line's events)
 * and saves it. */
static int record_profile(const char *verb, struct rec *r)
{
	struct plan_choice pc = {0};
	/* with --json stdout is the summary's: the program writes to stderr */
	pmcf_program_opts po = {.size = sizeof(po), .stdout_fd = r->json ? 2 : 0};
	pmcf_source *src = NULL;
	pmcf_evlist *set = NULL;
	pmcf_profile *p = NULL;
	pmcf_exit_info ei = PMCF_EXIT_INFO_INIT;
	long exec = -1;
	int rc = cli_check_output(verb, r->out);
	if (rc)
		return rc;
	/* --program-output F: the program writes to F (opened by the relay's
	 * own rules; record shows no progress, so nothing is relayed) */
	struct cli_progout pout;
	if ((rc = cli_progout_open(verb, r->progout, r->json, NULL, &pout)))
		return rc;
	if (pout.file >= 0)
		po.stdout_fd = po.stderr_fd = pout.file;
	cli_signals_catch(verb);
	if (r->plan)
		rc = record_plan_set(verb, r->plan, r->setarg, &pc, &r->o, r->pmcs_given);
	if (!rc)
		rc = record_source(verb, &pc, r->sim, r->prog_argc, r->prog_argv, r->events, &r->o, &po, &src,
				   &set, &exec);
	if (!rc) {
		if (!r->sim && !pc.plan)
			cli_signals_stop_at_once(CLI_STOP_READ,
						 "'%s' had ended; its records were not read: nothing "
						 "saved (record it again)",
						 r->prog_argv[0]);
		else if (!pmcf_source_is_sim(src))
			cli_signals_stop_at_once(CLI_STOP_READ,
						 "the program had ended; its records were not read: "
						 "nothing saved (record it again)");
		int err = pmcf_source_record(src, set, exec, &p, &ei);
		cli_signals_disarm();
		/* a simulation is named as given, or as the plan's execution K */
		const char *name = r->sim ? r->sim : pmcf_source_name(src);
		rc = finish(verb, src, err, p, &ei, pc.plan ? &pc.meta : NULL, r->out, name, r->json,
			    r->default_out);
	}
	pmcf_profile_free(p);
	pmcf_evlist_free(set);
	pmcf_source_free(src);
	pmcf_plan_free(pc.plan);
	cli_progout_close(&pout);
	return rc;
}

int cmd_record(int argc, char **argv)
{
	static const char *verb = "record";
	if (cli_wants_help(argc, argv, usage))
		return CLI_OK;
	static const struct option longopts[] = {
		{"events", required_argument, NULL, 'e'},
		{"output", required_argument, NULL, 'o'},
		{"sim", required_argument, NULL, OPT_SIM},
		{"pmcs", required_argument, NULL, OPT_PMCS},
		{"multiplex", required_argument, NULL, OPT_MUX},
		{"period-ms", required_argument, NULL, OPT_PERIOD},
		{"estimate", required_argument, NULL, OPT_EST},
		{"plan", required_argument, NULL, OPT_PLAN},
		{"set", required_argument, NULL, OPT_SET},
		{"program-output", required_argument, NULL, OPT_PROGOUT},
		CLI_OUTPUT_LONGOPTS,
		CLI_JSON_LONGOPT,
		{NULL, 0, NULL, 0},
	};
	struct rec r = {.o = PMCF_COUNT_OPTS_INIT};
	int rc, c;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:e:o:vq", longopts, NULL)) != -1) {
		if (cli_output_option(c, &r.json))
			continue;
		if (source_option(verb, c, &r.o, &r.pmcs_given, &r.period_given, &r.est_given, &rc) ||
		    cli_profile_option(verb, c, optarg, &r.events, &r.out, &rc)) {
			if (rc)
				return rc;
			continue;
		}
		switch (c) {
		case OPT_SIM: r.sim = optarg; break;
		case OPT_PLAN: r.plan = optarg; break;
		case OPT_SET: r.setarg = optarg; break;
		case OPT_PROGOUT: r.progout = optarg; break;
		case ':': return cli_usage_error(verb, "option '%s' needs a value", argv[optind - 1]);
		default: return cli_usage_error(verb, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if ((rc = check_args(verb, &r, argc, argv, optind)))
		return rc;
	return record_profile(verb, &r);
}
