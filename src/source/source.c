/* The recording interface: a pmcf_source (a simulated workload or a real
 * program) with the options every recording shares, its catalogue, and
 * pmcf_source_record dispatching a resolved event list to the simulator or
 * the collector without looking its names up again. */
#include <stdlib.h>
#include <string.h>
#include "collect/collect_run.h"
#include "counters/catalog.h"
#include "counters/perf.h"
#include "pmcfuse/events.h"
#include "pmcfuse/plan.h"
#include "pmcfuse/sim.h"
#include "pmcfuse/source.h"
#include "sim/sim_record.h"
#include "multiplex/count_opts.h"
#include "util/abi.h"
#include "util/internal.h"

struct pmcf_source {
	pmcf_count_opts o;
	pmcf_program_opts po;
	pmcf_sim_spec *spec; /* a simulation, or NULL */
	char **argv;         /* a program: NULL-terminated copy */
	size_t argc;
	uint64_t base;     /* base seed */
	pmcf_catalog *cat; /* made on first use */
};

static int new_source(const pmcf_count_opts *o, const pmcf_program_opts *po, pmcf_source **out)
{
	*out = NULL;
	pmcf_source *s = calloc(1, sizeof(*s));
	if (!s)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	pmcf_count_opts od;
	pmcf_program_opts pd = PMCF_PROGRAM_OPTS_INIT;
	int err = pmcfi_count_opts_in(o, &od);
	if (!err)
		err = pmcfi_struct_in("pmcf_program_opts", &pd, po, sizeof(pd), sizeof(pd));
	if (err) {
		free(s);
		return err;
	}
	s->o = od;
	s->po = pd;
	s->base = 1;
	*out = s;
	return 0;
}

int pmcf_source_new_sim(const char *spec, const pmcf_count_opts *o, pmcf_source **out)
{
	pmcfi_clear_error();
	if (!spec || !out)
		return pmcfi_fail(PMCF_EINVAL, "pmcf_source_new_sim: NULL argument");
	*out = NULL;
	pmcf_source *s;
	int err = new_source(o, NULL, &s);
	if (err)
		return err;
	if ((err = pmcfi_sim_count_opts_check(&s->o)) || (err = pmcf_sim_spec_parse(spec, &s->spec))) {
		pmcf_source_free(s);
		return err;
	}
	s->base = pmcf_sim_spec_seed(s->spec);
	*out = s;
	return 0;
}

int pmcf_source_new_program(int argc, char *const argv[], const pmcf_count_opts *o,
			    const pmcf_program_opts *po, pmcf_source **out)
{
	pmcfi_clear_error();
	if (!out || argc < 1 || !argv || !argv[0])
		return pmcfi_fail(PMCF_EINVAL, "no program to run");
	pmcf_source *s;
	int err = new_source(o, po, &s);
	if (err)
		return err;
	if (!(s->argv = calloc((size_t)argc + 1, sizeof(*s->argv))))
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
	for (int i = 0; i < argc && !err; i++)
		if (!(s->argv[s->argc++] = strdup(argv[i])))
			err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
	if (err) {
		pmcf_source_free(s);
		return err;
	}
	*out = s;
	return 0;
}

int pmcf_source_new_from_plan(const pmcf_plan *p, const pmcf_count_opts *o, const pmcf_program_opts *po,
			      pmcf_source **out)
{
	pmcfi_clear_error();
	if (!p || !out)
		return pmcfi_fail(PMCF_EINVAL, "pmcf_source_new_from_plan: NULL argument");
	size_t argc = 0;
	const char *const *argv = pmcf_plan_program(p, &argc);
	int err = pmcf_plan_sim(p) ? pmcf_source_new_sim(pmcf_plan_sim(p), o, out)
		  : argv           ? pmcf_source_new_program((int)argc, (char *const *)argv, o, po, out)
				   : pmcfi_fail(PMCF_ENOENT, "the plan names no source");
	if (!err)
		pmcf_source_seed_set(*out, pmcf_plan_seed(p));
	return err;
}

void pmcf_source_free(pmcf_source *s)
{
	if (!s)
		return;
	pmcf_sim_spec_free(s->spec);
	for (size_t i = 0; i < s->argc; i++)
		free(s->argv[i]);
	free(s->argv);
	pmcf_catalog_free(s->cat);
	free(s);
}

int pmcf_source_is_sim(const pmcf_source *s) { return s->spec != NULL; }

const char *pmcf_source_name(const pmcf_source *s)
{
	return s->spec ? pmcf_sim_spec_canonical(s->spec) : s->argv[0];
}

char *const *pmcf_source_argv(const pmcf_source *s, size_t *argc)
{
	if (argc)
		*argc = s->argc;
	return s->argv;
}

int pmcf_source_count_get(const pmcf_source *s, pmcf_count_opts *o)
{
	pmcfi_clear_error();
	return pmcfi_struct_out("pmcf_count_opts", o, &s->o, sizeof(*o), sizeof(*o));
}

uint64_t pmcf_source_seed(const pmcf_source *s) { return s->base; }

void pmcf_source_seed_set(pmcf_source *s, uint64_t base)
{
	s->base = base;
	if (s->spec) /* the name shows the base seed until a recording */
		pmcf_sim_spec_seed_set(s->spec, base);
}

uint64_t pmcf_source_exec_seed(const pmcf_source *s, long exec_index)
{
	return exec_index < 0 ? s->base : pmcf_sim_exec_seed(s->base, (unsigned)exec_index);
}

int pmcf_source_output_set(pmcf_source *s, int stdout_fd, int stderr_fd)
{
	pmcfi_clear_error();
	if (s->spec)
		return pmcfi_fail(PMCF_EINVAL, "a simulation has no program output");
	s->po.stdout_fd = stdout_fd;
	s->po.stderr_fd = stderr_fd;
	return 0;
}

/* Makes the catalogue, suited to an -e value spec for the perf source. */
static int make_catalog(pmcf_source *s, const char *spec)
{
	if (s->cat)
		return 0;
	if (s->spec)
		return pmcf_catalog_sim(pmcf_sim_spec_canonical(s->spec), &s->cat);
	return pmcf_catalog_perf_for_events(spec, &s->cat);
}

int pmcf_source_catalog(pmcf_source *s, const pmcf_catalog **out)
{
	pmcfi_clear_error();
	*out = NULL;
	int err = make_catalog(s, NULL);
	if (!err)
		*out = s->cat;
	return err;
}

/* duration and every perf software event this machine can count, in the
 * source's catalogue */
static int software_events(pmcf_source *s, pmcf_evlist **out)
{
	pmcf_catalog *sw = NULL;
	int err = pmcf_catalog_perf(PMCF_CATALOG_PROBE | PMCF_CATALOG_NO_TRACEPOINTS | PMCF_CATALOG_NO_PMU,
				    &sw);
	if (err)
		return err;
	size_t n = 0;
	const char **names = malloc((pmcf_catalog_size(sw) + 1) * sizeof(*names));
	if (!names) {
		pmcf_catalog_free(sw);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	}
	names[n++] = PMCF_EVENT_DURATION;
	for (size_t i = 0; i < pmcf_catalog_size(sw); i++) {
		const pmcf_event_info *e = pmcf_catalog_at(sw, i);
		if (strcmp(e->source, PMCF_SRC_SOFTWARE) == 0 && e->available == 1)
			names[n++] = e->name;
	}
	err = pmcf_evlist_from_names(s->cat, names, n, out);
	free(names);
	pmcf_catalog_free(sw);
	return err;
}

int pmcf_source_events(pmcf_source *s, const char *spec, pmcf_evlist **out)
{
	pmcfi_clear_error();
	*out = NULL;
	int err = make_catalog(s, spec);
	if (err)
		return err;
	if (!spec && !s->spec)
		return software_events(s, out);
	return pmcf_evlist_parse(s->cat, spec ? spec : "all", out);
}

int pmcf_source_to_plan(const pmcf_source *s, pmcf_plan *p)
{
	pmcfi_clear_error();
	pmcf_plan_seed_set(p, s->base);
	if (s->spec) {
		/* the SPEC with the base seed, not an execution's */
		pmcf_sim_spec_seed_set(s->spec, s->base);
		return pmcf_plan_sim_set(p, pmcf_sim_spec_canonical(s->spec));
	}
	return pmcf_plan_program_set(p, (const char *const *)s->argv, s->argc);
}

int pmcf_source_record(pmcf_source *s, const pmcf_evlist *set, long exec_index, pmcf_profile **out,
		       pmcf_exit_info *exit_info)
{
	pmcfi_clear_error();
	*out = NULL;
	if (exit_info) {
		int rc = pmcfi_struct_reset("pmcf_exit_info", exit_info, sizeof(*exit_info));
		if (rc)
			return rc;
	}
	if (!s || !set)
		return pmcfi_fail(PMCF_EINVAL, "pmcf_source_record: NULL argument");
	int err = make_catalog(s, NULL);
	pmcf_evlist *own = NULL; /* a list of another catalogue, resolved in ours */
	if (!err && pmcf_evlist_catalog(set) != s->cat) {
		err = pmcf_evlist_from_names(s->cat, pmcf_evlist_names(set), pmcf_evlist_size(set), &own);
		set = own;
	}
	if (err)
		return err;
	const size_t *idx = pmcfi_evlist_indices(set);
	size_t n = pmcf_evlist_size(set);
	if (s->spec) {
		pmcf_sim_spec_seed_set(s->spec, pmcf_source_exec_seed(s, exec_index));
		err = pmcfi_sim_record_idx(s->spec, idx, n, &s->o, out);
		if (!err && exit_info) {
			exit_info->exited = exit_info->complete = 1;
			exit_info->xus = pmcf_profile_nxus(*out);
		}
	} else {
		err = pmcfi_collect_run(s->argv, s->cat, idx, pmcf_evlist_names(set), n, &s->o, &s->po, out,
					exit_info);
	}
	pmcf_evlist_free(own);
	/* for the end-to-end check that no name is looked up twice (tests/e2e/lookups.sh) */
	pmcfi_log(PMCF_LOG_DEBUG,
		  "source: %zu events recorded; %lu event names looked up on this thread so far", n,
		  pmcfi_name_lookups);
	return err;
}
