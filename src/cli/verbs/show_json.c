/* `pmcfuse show --json`: a profile's summary as one JSON object. */
#include <stdlib.h>
#include "cli/cli.h"
#include "cli/output.h"
#include "pmcfuse/combine.h"
#include "pmcfuse/evaluate.h"
#include "pmcfuse/multiplex.h"
#include "cli/verbs/show.h"

static void json_consistency(const pmcf_profile *p, json_t *j)
{
	pmcf_consistency c[32] = {PMCF_CONSISTENCY_INIT};
	size_t n = 0;
	if (pmcf_consistency_check(p, c, sizeof(c) / sizeof(c[0]), &n) != 0)
		n = 0;
	json_t *a = json_array();
	for (size_t k = 0; k < n; k++)
		json_array_append_new(a,
				      json_pack("{s:o, s:o, s:I, s:I, s:I}", "lhs", cli_jstr(c[k].lhs), "rhs",
						cli_jstr(c[k].rhs), "checked", (json_int_t)c[k].checked,
						"violated", (json_int_t)c[k].violated, "cross",
						(json_int_t)c[k].cross));
	json_object_set_new(j, "consistency", a);
}

/* JSON: a member "ranks" [{rank, xus}] of j for an MPI program's profile. */
static void json_ranks(const pmcf_profile *p, json_t *j)
{
	uint32_t nr;
	size_t *cnt = cli_rank_counts(p, &nr);
	if (!cnt)
		return;
	json_t *a = json_array();
	for (uint32_t r = 0; r < nr; r++)
		json_array_append_new(a, json_pack("{s:I, s:I}", "rank", (json_int_t)r, "xus",
						   (json_int_t)cnt[r]));
	json_object_set_new(j, "ranks", a);
	free(cnt);
}

/* show --json: one object on standard output; -1 when it cannot be built. */
int cli_show_json(const struct cli_show_summary *s)
{
	const pmcf_profile *p = s->p;
	json_t *j = json_object(), *types = json_array(), *events = json_array(), *truth = json_array();
	json_object_set_new(j, "path", cli_jstr(s->path));
	json_object_set_new(j, "meta", cli_meta_json(p));
	json_object_set_new(j, "complete", json_boolean(pmcf_profile_complete(p)));
	json_object_set_new(j, "xus", json_integer((json_int_t)s->nx));
	for (uint32_t t = 0; t < s->nt; t++) {
		pmcf_xu_type ty = PMCF_XU_TYPE_INIT;
		pmcf_profile_type_get(p, t, &ty);
		json_array_append_new(types, json_pack("{s:I, s:s, s:o, s:o, s:o, s:I}", "id", (json_int_t)t,
						       "kind", pmcf_xu_kind_name(ty.kind), "name",
						       cli_jstr(ty.name), "location", cli_jstr(ty.location),
						       "callee", cli_jstr(pmcf_profile_type_callee(p, t)),
						       "xus", (json_int_t)s->type_count[t]));
	}
	json_object_set_new(j, "types", types);
	for (size_t e = 0; e < s->ne; e++) {
		int has = s->es[e].present > 0;
		json_t *ev =
			json_pack("{s:o, s:I, s:o, s:I, s:o, s:o, s:o, s:o}", "name",
				  cli_jstr(pmcf_profile_event_name(p, e)), "present",
				  (json_int_t)s->es[e].present, "missing",
				  cli_jnum(s->nx ? (double)(s->nx - s->es[e].present) / (double)s->nx : 0.0),
				  "negative", (json_int_t)s->es[e].negative, "min",
				  cli_jnum(has ? s->es[e].min : NAN), "median",
				  cli_jnum(has ? s->es[e].median : NAN), "max",
				  cli_jnum(has ? s->es[e].max : NAN), "mean",
				  cli_jnum(has ? s->es[e].mean : NAN));
		if (ev && s->es[e].covered) {
			json_object_set_new(ev, "measured", cli_jnum(s->es[e].measured));
			json_object_set_new(ev, "time_measured", cli_jnum(s->es[e].time_measured));
		}
		json_array_append_new(events, ev);
	}
	json_object_set_new(j, "events", events);
	for (size_t t = 0; t < pmcf_profile_ntruth(p); t++)
		json_array_append_new(truth, cli_jstr(pmcf_profile_truth_name(p, t)));
	json_object_set_new(j, "truth_events", truth);
	json_object_set_new(j, "layers",
			    json_pack("{s:b, s:b, s:b, s:b}", "truth", pmcf_profile_ntruth(p) > 0, "coverage",
				      pmcf_profile_has_coverage(p), "provenance",
				      pmcf_profile_has_provenance(p), "base_labels",
				      pmcf_profile_has_base_labels(p)));
	if (s->ms.measured) {
		json_t *hist = json_array();
		for (int b = 0; b < 7; b++)
			json_array_append_new(hist, json_pack("{s:o, s:I}", "below",
							      cli_jnum(pmcf_match_hist_edges[b]), "xus",
							      (json_int_t)s->ms.hist[b]));
		json_object_set_new(j, "match",
				    json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "measured",
					      (json_int_t)s->ms.measured, "min", cli_jnum(s->ms.min),
					      "median", cli_jnum(s->ms.p50), "p90", cli_jnum(s->ms.p90),
					      "p99", cli_jnum(s->ms.p99), "max", cli_jnum(s->ms.max), "mean",
					      cli_jnum(s->ms.mean), "histogram", hist));
	}
	double in_xus, run;
	const char *clk = pmcf_profile_cpu_in_xus(p, &in_xus, &run);
	if (clk)
		json_object_set_new(j, "cpu_time",
				    json_pack("{s:o, s:o, s:o, s:o}", "event", cli_jstr(clk), "in_xus",
					      cli_jnum(in_xus), "run", cli_jnum(run), "share",
					      cli_jnum(in_xus / run)));
	json_ranks(p, j);
	json_consistency(p, j);
	return cli_json_dump(stdout, j, 1) != 0 && !ferror(stdout) ? -1 : 0;
}
