/* Shared by the fusion verbs (plan, combine, run): the planning options and
 * --link auto's pilots (fuse_plan.c), and the summary of a combination
 * (fuse_summary.c). */
#ifndef PMCF_CLI_FUSE_H
#define PMCF_CLI_FUSE_H
#include <stdio.h>
#include "pmcfuse/combine.h"
#include "pmcfuse/plan.h"
#include "pmcfuse/source.h"

/* Options shared by plan and run (getopt_long values). */
enum {
	FUSE_OPT_STRATEGY = 256,
	FUSE_OPT_LINK,
	FUSE_OPT_PMCS,
	FUSE_OPT_PACKING,
	FUSE_OPT_SEED,
	FUSE_OPT_SIM,
	FUSE_OPT_OWN /* first value free for a verb's own options */
};
#define FUSE_PLAN_LONGOPTS                                                                  \
	{"events", required_argument, NULL, 'e'}, {"output", required_argument, NULL, 'o'}, \
		{"strategy", required_argument, NULL, FUSE_OPT_STRATEGY},                   \
		{"link", required_argument, NULL, FUSE_OPT_LINK},                           \
		{"pmcs", required_argument, NULL, FUSE_OPT_PMCS},                           \
		{"packing", required_argument, NULL, FUSE_OPT_PACKING},                     \
		{"seed", required_argument, NULL, FUSE_OPT_SEED},                           \
	{                                                                                   \
		"sim", required_argument, NULL, FUSE_OPT_SIM                                \
	}

/* The planning options of plan and run: --strategy, --packing, --pmcs and
 * --seed go into *po / *seed (*seed_given set). Returns 1 when opt was one of
 * them (*status: 0, or the exit status of a bad value, already reported),
 * 0 when it is not. */
int fuse_plan_option(const char *verb, int opt, const char *arg, pmcf_plan_opts *po, unsigned long *seed,
		     int *seed_given, int *status);

/* Every profile in dir into *out (*n of them; files that are not profiles
 * are skipped): plan --from and --refs. Returns the CLI status (errors
 * reported). */
int fuse_load_dir(const char *verb, const char *dir, pmcf_profile ***out, size_t *n);

/* --link auto (plan, run): plans ev with po into *plan, the information
 * measured in the profiles of refs, else for a simulated source sim (ev
 * resolved in its catalogue; NULL for a program) in a pilot of one
 * execution per set of a pair covering (noted on stderr; sim's seed is
 * back as it was after); a program without refs is a usage error. Returns
 * the CLI status (errors reported). */
int fuse_link_auto_plan(const char *verb, const pmcf_evlist *ev, const char *refs, pmcf_source *sim,
			uint64_t seed, pmcf_plan_opts *po, pmcf_plan **plan);

/* XUs, events, partial XUs, label statistics (lgl) and match distances;
 * with -v the BC grid's iterations and dmax. */
void fuse_print_summary(FILE *f, const pmcf_profile *fused, const pmcf_combine_stats *st, int strategy,
			size_t ninputs);
/* The same as JSON members, without braces: "strategy", "inputs", "xus",
 * "events", "partial_xus", "labels" (lgl), "grid" (bc family), "match". */
void fuse_json_summary(FILE *f, const pmcf_profile *fused, const pmcf_combine_stats *st, int strategy,
		       size_t ninputs);
#endif
