/* The whole pmcfuse pipeline through the public library, as `pmcfuse run`
 * and `pmcfuse reference` do it (docs/design.md, "The pipeline"):
 *
 *   source -> plan -> campaign -> combine -> evaluate -> export
 *
 * Usage: pipeline OUTDIR EVENTS PMCS --sim SPEC
 *        pipeline OUTDIR EVENTS PMCS -- PROG ARGS...
 * Writes OUTDIR/plan.json, the executions in OUTDIR/execs, the fused profile
 * OUTDIR/fused.pmcf and OUTDIR/fused.csv, the references in OUTDIR/refs
 * (3 repeats of a pair covering, seeded as `reference` seeds them), and
 * prints the fused profile's EPD against them (and, simulated, its error
 * against the ground truth). Build: cc pipeline.c $(pkg-config --cflags
 * --libs pmcfuse). tests/e2e/lib_pipeline.sh checks that it gives the
 * command's results. */
#include <pmcfuse/pmcfuse.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int failed(const char *what, int err)
{
	/* the detail says what and why; the code's text when there is none */
	const char *d = pmcf_errdetail();
	fprintf(stderr, "pipeline: %s: %s\n", what, *d ? d : pmcf_strerror(err));
	return 1;
}

/* Progress comes through callbacks: the library prints nothing. */
static int exec_done(void *ctx, size_t k, const char *label, double secs)
{
	(void)ctx;
	fprintf(stderr, "execution %zu (%s) in %.2f s\n", k, label, secs);
	return 0; /* go on; a signal number would stop the campaign */
}

/* Records a campaign in dir: the sets of plan, or sets[0..nsets) repeated
 * repeat times; the profiles stay loaded. */
static int record(const char *dir, const char *verb, pmcf_source *src, const pmcf_plan *plan,
		  const pmcf_evlist *const *sets, size_t nsets, unsigned repeat, const char *file_format,
		  pmcf_campaign **out)
{
	pmcf_campaign_callbacks cb = PMCF_CAMPAIGN_CALLBACKS_INIT;
	cb.exec_done = exec_done;
	pmcf_campaign_opts co = PMCF_CAMPAIGN_OPTS_INIT; /* only = -1: every execution */
	co.dir = dir;
	co.verb = verb;
	co.plan = plan;
	co.sets = sets;
	co.nsets = nsets;
	co.repeat = repeat;
	co.file_format = file_format;
	co.plan_meta = plan != NULL;
	co.hold = 1;
	co.cb = &cb;
	int err = pmcf_campaign_open(&co, out);
	if (err)
		return failed(dir, err);
	pmcf_campaign_result r = PMCF_CAMPAIGN_RESULT_INIT;
	if ((err = pmcf_campaign_run(*out, src, &r)) != 0 || r.signal)
		return failed(r.message && *r.message ? r.message : dir, err);
	return (err = pmcf_campaign_state_set(*out, "complete")) ? failed(dir, err) : 0;
}

/* Everything the job holds, freed by main whatever step failed. */
struct job {
	pmcf_source *src;
	pmcf_evlist *ev;
	pmcf_plan *plan;
	pmcf_campaign *execs, *refs;
	const pmcf_profile **in, **rp;
	pmcf_profile *fused;
	pmcf_cover *cv;
	const pmcf_evlist **sets;
	unsigned char *done;
	uint64_t *seeds;
	pmcf_epd_result *epd;
};

static int pipeline(struct job *j, int argc, char **argv)
{
	if (argc < 6 || (strcmp(argv[4], "--sim") != 0 && strcmp(argv[4], "--") != 0)) {
		fprintf(stderr, "usage: pipeline OUTDIR EVENTS PMCS (--sim SPEC | -- PROG ARGS...)\n");
		return 2;
	}
	const char *outdir = argv[1], *events = argv[2];
	char path[4096];
	if (mkdir(outdir, 0777) != 0) {
		perror(outdir);
		return 1;
	}
	/* 1. the source: what every recording counts (the budget) and where
	 * executions come from; the event list resolved once in its catalogue */
	pmcf_count_opts count = PMCF_COUNT_OPTS_INIT;
	count.pmcs = (unsigned)atoi(argv[3]);
	int err = strcmp(argv[4], "--sim") == 0
			  ? pmcf_source_new_sim(argv[5], &count, &j->src)
			  : pmcf_source_new_program(argc - 5, argv + 5, &count, NULL, &j->src);
	if (err)
		return failed("source", err);
	if ((err = pmcf_source_events(j->src, events, &j->ev)))
		return failed("events", err);

	/* 2. the plan: event sets for bc, each with the linking events */
	pmcf_plan_opts po = PMCF_PLAN_OPTS_INIT; /* bc, 3 linking events at most */
	po.pmcs = count.pmcs;
	if ((err = pmcf_plan_make_evlist(j->ev, NULL, &po, &j->plan)) || (err = pmcf_source_to_plan(j->src, j->plan)))
		return failed("plan", err);
	snprintf(path, sizeof(path), "%s/plan.json", outdir);
	if ((err = pmcf_plan_save(j->plan, path)))
		return failed(path, err);
	printf("plan: %zu executions (lower bound %u)\n", pmcf_plan_nsets(j->plan), pmcf_plan_lower_bound(j->plan));

	/* 3. the campaign: one execution per set, saved as it finishes */
	snprintf(path, sizeof(path), "%s/execs", outdir);
	if (record(path, "run", j->src, j->plan, NULL, 0, 0, NULL, &j->execs))
		return 1;

	/* 4. combine them into one profile where every XU has every event */
	size_t n = pmcf_campaign_size(j->execs);
	const pmcf_profile **in = j->in = calloc(n, sizeof(*in));
	if (!in)
		return failed("combine", PMCF_ENOMEM);
	for (size_t k = 0; k < n; k++)
		in[k] = pmcf_campaign_profile(j->execs, k);
	pmcf_combine_opts co = PMCF_COMBINE_OPTS_INIT;
	co.strategy = pmcf_plan_strategy(j->plan);
	pmcf_combine_stats st = PMCF_COMBINE_STATS_INIT;
	if ((err = pmcf_combine(in, n, &co, &j->fused, &st)))
		return failed("combine", err);
	char advice[512];
	if (pmcf_combine_label_advice(j->fused, &st, co.strategy, advice, sizeof(advice)) == 1)
		fprintf(stderr, "pipeline: warning: %s\n", advice);
	printf("fused %zu executions with %s: %zu XUs, %zu events\n", n, pmcf_strategy_name(co.strategy), st.xus,
	       st.events);
	snprintf(path, sizeof(path), "%s/fused.pmcf", outdir);
	if ((err = pmcf_profile_save(j->fused, path)))
		return failed(path, err);

	/* 5. export: one row per XU, one column per event */
	snprintf(path, sizeof(path), "%s/fused.csv", outdir);
	if ((err = pmcf_export_path(j->fused, "csv", NULL, path)))
		return failed(path, err);

	/* 6. evaluate: references (every pair of events measured together,
	 * 3 times) with the seeds `pmcfuse reference` gives them, then EPD */
	if ((err = pmcf_cover_pairs_evlist(j->ev, count.pmcs, 1, &j->cv)))
		return failed("references", err);
	size_t nsets = pmcf_cover_nsets(j->cv);
	const pmcf_evlist **sets = j->sets = calloc(nsets, sizeof(*sets));
	if (!sets)
		return failed("references", PMCF_ENOMEM);
	for (size_t k = 0; k < nsets; k++)
		sets[k] = pmcf_cover_evlist_at(j->cv, k);
	uint64_t base = pmcf_source_seed(j->src);
	pmcf_source_seed_set(j->src, pmcf_sim_role_seed(base, PMCF_SEED_REFERENCE));
	snprintf(path, sizeof(path), "%s/refs", outdir);
	if (record(path, "reference", j->src, NULL, sets, nsets, 3, PMCF_REFDIR_FILE, &j->refs))
		return 1;
	pmcf_source_seed_set(j->src, base);
	size_t nref = pmcf_campaign_size(j->refs);
	/* the folder's index, as `reference` writes it: `pmcfuse epd` reads it */
	unsigned char *done = j->done = calloc(nref, 1);
	uint64_t *seeds = j->seeds = calloc(nref, sizeof(*seeds));
	if (!done || !seeds)
		return failed("references", PMCF_ENOMEM);
	for (size_t k = 0; k < nref; k++) {
		done[k] = (unsigned char)pmcf_campaign_is_done(j->refs, k);
		seeds[k] = pmcf_campaign_seed(j->refs, k);
	}
	const char *const *names = pmcf_evlist_names(j->ev);
	size_t first = names[0] && strcmp(names[0], "duration") == 0; /* the index leaves it out */
	pmcf_refdir_index ix = PMCF_REFDIR_INDEX_INIT;
	ix.events = names + first;
	ix.nevents = pmcf_evlist_size(j->ev) - first;
	ix.cover = j->cv;
	ix.repeat = 3;
	ix.source = pmcf_source_name(j->src);
	ix.done = done;
	ix.seeds = seeds;
	if ((err = pmcf_refdir_write_index(path, &ix)))
		return failed(path, err);
	const pmcf_profile **rp = j->rp = calloc(nref, sizeof(*rp));
	if (!rp)
		return failed("references", PMCF_ENOMEM);
	for (size_t k = 0; k < nref; k++)
		rp[k] = pmcf_campaign_profile(j->refs, k);
	if ((err = pmcf_epd_compute(j->fused, rp, nref, NULL, &j->epd)))
		return failed("EPD", err);
	printf("EPD %.4f over %zu pairs of events (1: as good as a real run)\n", pmcf_epd_value(j->epd),
	       pmcf_epd_npairs(j->epd));
	if (pmcf_source_is_sim(j->src)) {
		pmcf_truth_result *tr = NULL;
		snprintf(path, sizeof(path), "%s/fused.pmcf", outdir);
		if ((err = pmcf_truth_compare(j->fused, path, &tr)))
			return failed("truth", err);
		double median, p90, missing;
		pmcf_truth_summary(tr, &median, &p90, &missing);
		printf("truth: median relative error %.4f, p90 %.4f\n", median, p90);
		pmcf_truth_result_free(tr);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct job j = {0};
	int st = pipeline(&j, argc, argv);
	pmcf_epd_result_free(j.epd);
	free(j.done);
	free(j.seeds);
	free(j.rp);
	free(j.sets);
	free(j.in);
	pmcf_campaign_free(j.refs);
	pmcf_campaign_free(j.execs);
	pmcf_cover_free(j.cv);
	pmcf_profile_free(j.fused);
	pmcf_plan_free(j.plan);
	pmcf_evlist_free(j.ev); /* before the source: it uses its catalogue */
	pmcf_source_free(j.src);
	return st;
}
