/* The planning shared by plan and run (fuse.h): the planning options, and
 * --link auto's pilot executions (a folder of profiles, or a simulated
 * pilot). */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cli/cli.h"
#include "cli/fuse.h"
#include "cli/output.h"
#include "pmcfuse/sim.h"
#include "pmcfuse/source.h"
#include "x/x.h"

int fuse_plan_option(const char *verb, int opt, const char *arg, pmcf_plan_opts *po, unsigned long *seed,
		     int *seed_given, int *status)
{
	unsigned long ul;
	*status = CLI_OK;
	switch (opt) {
	case FUSE_OPT_STRATEGY:
		if ((po->strategy = pmcf_strategy_parse(arg)) < 0)
			*status = cli_usage_error(verb, "%s", pmcf_errdetail());
		return 1;
	case FUSE_OPT_PACKING:
		if ((po->packing = pmcf_packing_parse(arg)) < 0)
			*status = cli_usage_error(verb, "%s", pmcf_errdetail());
		return 1;
	case FUSE_OPT_PMCS:
		if ((*status = cli_parse_uint(verb, "--pmcs", arg, 1, PMCF_PLAN_MAX_PMCS, &ul)) == CLI_OK)
			po->pmcs = (unsigned)ul;
		return 1;
	case FUSE_OPT_SEED:
		if ((*status = cli_parse_uint(verb, "--seed", arg, 0, ~0ul, seed)) == CLI_OK)
			*seed_given = 1;
		return 1;
	default: return 0;
	}
}

int fuse_load_dir(const char *verb, const char *dir, pmcf_profile ***out, size_t *n)
{
	DIR *d = opendir(dir);
	if (!d)
		return cli_error(verb, CLI_EUSAGE, "cannot read directory '%s'", dir);
	struct dirent *de;
	pmcf_profile **v = NULL;
	size_t k = 0, cap = 0;
	int st = CLI_OK;
	while ((de = readdir(d)) && !st) {
		if (de->d_name[0] == '.')
			continue;
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		struct stat sb;
		if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
			continue;
		pmcf_profile *p;
		if (pmcf_profile_open(path, &p) != 0)
			continue;
		if (pmcfi_grow((void **)&v, &cap, k + 1, sizeof(*v))) {
			pmcf_profile_free(p);
			st = cli_error(verb, CLI_EENV, "out of memory");
			break;
		}
		v[k++] = p;
	}
	closedir(d);
	if (!st && !k)
		st = cli_error(verb, CLI_EUSAGE, "no profile in '%s' (it needs pilot or reference profiles)",
			       dir);
	*out = v;
	*n = k;
	return st;
}

/* --link auto without --refs on a simulated source: one execution per set of
 * a pair covering of the events (every pair measured together once), each
 * set taken from ev and recorded through src (no name looked up again). */
static int pilot_sim(const char *verb, pmcf_source *src, const pmcf_evlist *ev, unsigned pmcs, uint64_t seed,
		     pmcf_profile ***out, size_t *n)
{
	pmcf_cover *cv = NULL;
	uint64_t base = pmcf_source_seed(src);
	double t0 = cli_now();
	int err = pmcf_cover_pairs_evlist(ev, pmcs, 1, &cv);
	size_t ns = cv ? pmcf_cover_nsets(cv) : 0;
	pmcf_profile **v = err ? NULL : calloc(ns ? ns : 1, sizeof(*v));
	if (!err && !v)
		err = PMCF_ENOMEM;
	/* drawn apart from the seeds of run and reference: execution k runs
	 * with pmcf_sim_exec_seed(pmcf_sim_role_seed(seed, PILOT), k) */
	pmcf_source_seed_set(src, pmcf_sim_role_seed(seed, PMCF_SEED_PILOT));
	for (size_t k = 0; !err && k < ns; k++)
		if (!(err = pmcf_source_record(src, pmcf_cover_evlist_at(cv, k), (long)k, &v[k], NULL)))
			*n = k + 1;
	pmcf_source_seed_set(src, base);
	*out = v;
	pmcf_cover_free(cv);
	if (err)
		return cli_lib_error(verb, err, "--link auto pilot");
	if (!cli_quiet)
		fprintf(stderr,
			"%s: --link auto: pilot of %zu simulated executions (a pair covering "
			"of %zu events), %.1f s\n",
			verb, ns, pmcf_evlist_size(ev), cli_now() - t0);
	return CLI_OK;
}

int fuse_link_auto_plan(const char *verb, const pmcf_evlist *ev, const char *refs, pmcf_source *sim,
			uint64_t seed, pmcf_plan_opts *po, pmcf_plan **plan)
{
	pmcf_profile **pil = NULL;
	size_t npil = 0;
	int st = refs  ? fuse_load_dir(verb, refs, &pil, &npil)
		 : sim ? pilot_sim(verb, sim, ev, po->pmcs, seed, &pil, &npil)
		       : cli_usage_error(verb, "--link auto needs reference profiles for a program: "
					       "pmcfuse reference, then pmcfuse plan --link auto "
					       "--refs DIR");
	po->link_auto = 1;
	po->pilots = (const pmcf_profile *const *)pil;
	po->npilots = npil;
	pmcf_plan_opts o = *po; /* the groups come with ev, resolved; --link auto has no --link list */
	o.groups = NULL;
	o.link = NULL;
	o.nlink = 0;
	int err = st ? 0 : pmcf_plan_make_evlist(ev, NULL, &o, plan);
	if (err)
		st = cli_lib_error(verb, err, "planning");
	for (size_t i = 0; i < npil; i++)
		pmcf_profile_free(pil[i]);
	free(pil);
	po->pilots = NULL;
	po->npilots = 0;
	return st;
}
