/* Campaigns (include/pmcfuse/campaign.h): opening one, the local launcher
 * that records its executions here through a pmcf_source, the launcher
 * table, and the executions compared with the first. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "campaign/campaign_impl.h"
#include "counters/catalog.h"
#include "pmcfuse/events.h"
#include "pmcfuse/plan.h"
#include "pmcfuse/profile.h"
#include "pmcfuse/source.h"
#include "util/abi.h"
#include "util/internal.h"
#include "x/x.h"

/* Whether fmt holds one %zu (with flags and a width) and no other '%'. */
static int one_zu(const char *fmt)
{
	const char *p = strchr(fmt, '%');
	if (!p || strchr(fmt, '/'))
		return 0;
	p += 1 + strspn(p + 1, "0123456789-");
	return !strncmp(p, "zu", 2) && !strchr(p, '%');
}

/* The digest of the sets' names when the caller gives none. */
static void sets_digest(const pmcf_campaign_opts *o, char hex[65])
{
	char *t = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&t, &len);
	for (size_t s = 0; f && s < o->nsets; s++) {
		for (size_t i = 0; i < pmcf_evlist_size(o->sets[s]); i++)
			fprintf(f, "%s%s", i ? "," : "--\n", pmcf_evlist_name(o->sets[s], i));
	}
	if (f)
		fprintf(f, "\nrepeat %u\n", o->repeat);
	if (f && fclose(f) == 0 && t)
		pmcfi_sha256_buf(t, len, hex);
	else
		pmcfi_sha256_buf("", 0, hex);
	free(t);
}

/* The sets of o->plan, owned by c: copies of the lists the plan resolved
 * when it was made (pmcf_plan_evlist_at), or, for a plan not resolved
 * (loaded), resolved here once from o->events; the plan's digest. */
static int plan_sets(pmcf_campaign *c, pmcf_campaign_opts *o)
{
	size_t n = pmcf_plan_nsets(o->plan);
	char *text = NULL;
	if (!(c->own = calloc(n ? n : 1, sizeof(*c->own))))
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	c->nsets = n; /* what pmcf_campaign_free frees */
	for (size_t k = 0; k < n; k++) {
		const pmcf_evlist *l = pmcf_plan_evlist_at(o->plan, k);
		const char *const *names;
		size_t m;
		int err = l ? pmcfi_evlist_pick(l, pmcfi_evlist_indices(l), pmcf_evlist_size(l), &c->own[k])
			  : !o->events ? pmcfi_fail(PMCF_EINVAL, "pmcf_campaign_open: a plan not resolved, "
								 "without its events")
				       : pmcf_plan_events_at(o->plan, k, &names, &m);
		if (!l && !err)
			err = pmcf_evlist_subset(o->events, names, m, &c->own[k]);
		if (err)
			return err;
	}
	int err = o->digest ? 0 : pmcf_plan_to_json(o->plan, &text);
	if (!err && !o->digest) {
		pmcfi_sha256_buf(text, strlen(text), c->digest);
		o->digest = c->digest;
	}
	free(text);
	o->sets = (const pmcf_evlist *const *)c->own;
	o->nsets = n;
	return err;
}

static int check_opts(const pmcf_campaign_opts *o)
{
	if (!o->dir || !*o->dir)
		return pmcfi_fail(PMCF_EINVAL, "a folder name is needed");
	if (!o->sets || !o->nsets)
		return pmcfi_fail(PMCF_EINVAL, "pmcf_campaign_open: no sets to record");
	for (size_t s = 0; s < o->nsets; s++)
		if (!o->sets[s])
			return pmcfi_fail(PMCF_EINVAL, "pmcf_campaign_open: set %zu is NULL", s);
	if (o->file_format && !one_zu(o->file_format))
		return pmcfi_fail(PMCF_EINVAL,
				  "pmcf_campaign_open: file_format '%s' needs one %%zu and no '/'",
				  o->file_format);
	if (o->digest && (strlen(o->digest) != 64 || strspn(o->digest, "0123456789abcdef") != 64))
		return pmcfi_fail(PMCF_EINVAL, "pmcf_campaign_open: the digest is not 64 hex digits");
	if (o->argc < 0 || (o->argc && !o->argv))
		return pmcfi_fail(PMCF_EINVAL, "pmcf_campaign_open: argc without argv");
	size_t n = o->repeat ? o->nsets * o->repeat : o->nsets;
	if (o->only >= 0 && (size_t)o->only >= n)
		return pmcfi_fail(
			PMCF_EINVAL,
			"execution %ld (pmcf_campaign_opts.only; the command's --only): the campaign "
			"has executions 0 to %zu",
			o->only, n - 1);
	if (o->only >= 0 && !o->resume)
		return pmcfi_fail(PMCF_EINVAL,
				  "pmcf_campaign_opts.only %ld (the command's --only) records one execution: "
				  "it needs resume (--resume DIR); PMCF_CAMPAIGN_OPTS_INIT sets -1, all "
				  "executions",
				  o->only);
	return 0;
}

int pmcf_campaign_open(const pmcf_campaign_opts *opts, pmcf_campaign **out)
{
	pmcfi_clear_error();
	if (!out)
		return pmcfi_fail(PMCF_EINVAL, "pmcf_campaign_open: no output");
	*out = NULL;
	pmcf_campaign_opts o = PMCF_CAMPAIGN_OPTS_INIT;
	int err = pmcfi_struct_in("pmcf_campaign_opts", &o, opts, sizeof(o), sizeof(o));
	pmcf_campaign *c = err ? NULL : calloc(1, sizeof(*c));
	if (!err && !c)
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
	if (c)
		c->owner = -1;
	if (!err && !o.sets && o.plan)
		err = plan_sets(c, &o);
	if (err || (err = check_opts(&o))) {
		pmcf_campaign_free(c);
		return err;
	}
	c->cb = (pmcf_campaign_callbacks){.size = sizeof(c->cb)};
	if (o.cb &&
	    (err = pmcfi_struct_in("pmcf_campaign_callbacks", &c->cb, o.cb, sizeof(c->cb), sizeof(c->cb)))) {
		pmcf_campaign_free(c);
		return err;
	}
	c->task = o.only >= 0;
	c->only = o.only;
	c->resume = o.resume != 0;
	c->nsets = o.nsets;
	c->repeat = o.repeat;
	c->n = o.repeat ? o.nsets * o.repeat : o.nsets;
	c->sets = o.sets;
	c->plan_meta = o.plan_meta;
	c->keep_failed = o.keep_failed;
	c->hold = o.hold;
	if (o.digest && o.digest != c->digest)
		snprintf(c->digest, sizeof(c->digest), "%s", o.digest);
	else if (!o.digest)
		sets_digest(&o, c->digest);
	c->verb = strdup(o.verb ? o.verb : "run");
	c->dir = strdup(o.dir);
	c->paths = calloc(c->n, sizeof(*c->paths));
	c->prof = calloc(c->n, sizeof(*c->prof));
	c->seeds = calloc(c->n, sizeof(*c->seeds));
	const char *fmt = o.file_format ? o.file_format : "exec-%zu.pmcf";
	err = c->verb && c->dir && c->paths && c->prof && c->seeds ? 0 : PMCF_ENOMEM;
	for (size_t k = 0; !err && k < c->n; k++) {
		char file[64];
		snprintf(file, sizeof(file), fmt, k);
		if (!(c->paths[k] = pmcfi_camp_join(c->dir, file)))
			err = PMCF_ENOMEM;
	}
	if (err)
		err = pmcfi_fail(err, "out of memory");
	else
		err = pmcfi_camp_open_folder(c, o.argc, o.argv);
	if (err) {
		pmcf_campaign_free(c);
		return err;
	}
	*out = c;
	return 0;
}

void pmcf_campaign_free(pmcf_campaign *c)
{
	if (!c)
		return;
	pmcfi_camp_release(c);
	json_decref(c->manifest);
	for (size_t k = 0; k < c->n; k++) {
		if (c->paths)
			free(c->paths[k]);
		if (c->prof)
			pmcf_profile_free(c->prof[k]);
	}
	for (size_t k = 0; c->own && k < c->nsets; k++)
		pmcf_evlist_free(c->own[k]);
	free(c->own);
	free(c->paths);
	free(c->prof);
	free(c->seeds);
	free(c->tasks);
	free(c->verb);
	free(c->dir);
	free(c);
}

const char *pmcf_campaign_dir(const pmcf_campaign *c) { return c ? c->dir : NULL; }
size_t pmcf_campaign_size(const pmcf_campaign *c) { return c ? c->n : 0; }
int pmcf_campaign_is_task(const pmcf_campaign *c) { return c && c->task; }
const char *pmcf_campaign_path(const pmcf_campaign *c, size_t k)
{
	return c && k < c->n ? c->paths[k] : NULL;
}
pmcf_profile *pmcf_campaign_profile(const pmcf_campaign *c, size_t k)
{
	return c && k < c->n ? c->prof[k] : NULL;
}
uint64_t pmcf_campaign_seed(const pmcf_campaign *c, size_t k) { return c && k < c->n ? c->seeds[k] : 0; }

/* ---- the local launcher --------------------------------------------------- */
static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int stop_asked(const pmcf_campaign *c) { return c->cb.stop ? c->cb.stop(c->cb.ctx) : 0; }

/* Sets the PMCF_META_PLAN_* keys of p for execution k. */
static int plan_meta_apply(const pmcf_campaign *c, pmcf_profile *p, size_t k)
{
	char set[24], sets[24];
	snprintf(set, sizeof(set), "%zu", k % c->nsets);
	snprintf(sets, sizeof(sets), "%zu", c->nsets);
	int err = pmcf_profile_meta_set(p, PMCF_META_PLAN_DIGEST, c->digest);
	if (!err)
		err = pmcf_profile_meta_set(p, PMCF_META_PLAN_SET, set);
	if (!err)
		err = pmcf_profile_meta_set(p, PMCF_META_PLAN_SETS, sets);
	return err;
}

/* Execution k of an earlier session, when the manifest says it finished,
 * its file is there and (plan_meta) it is that execution of this plan (1). */
static int reuse(pmcf_campaign *c, size_t k)
{
	pmcf_profile *p = NULL;
	if (!pmcf_campaign_is_done(c, k))
		return 0;
	if ((!c->plan_meta && !c->hold) || c->prof[k])
		return 1;
	if (pmcf_profile_open(c->paths[k], &p) != 0)
		return 0;
	if (c->plan_meta) {
		const char *d = pmcf_profile_meta_get(p, PMCF_META_PLAN_DIGEST);
		const char *s = pmcf_profile_meta_get(p, PMCF_META_PLAN_SET);
		const char *done = pmcf_profile_meta_get(p, PMCF_META_COMPLETE);
		char set[24];
		snprintf(set, sizeof(set), "%zu", k % c->nsets);
		if (!d || !s || strcmp(d, c->digest) || strcmp(s, set) || (done && !strcmp(done, "0"))) {
			pmcf_profile_free(p);
			return 0;
		}
	}
	if (c->hold)
		c->prof[k] = p;
	else
		pmcf_profile_free(p);
	return 1;
}

/* Before recording anything on resume: the executions done ran with this
 * OMP_* environment (else combine would refuse them at the end, with the
 * new executions already recorded and the campaign stuck). */
static int same_env(const pmcf_campaign *c)
{
	pmcf_profile *p = NULL;
	for (size_t k = 0; k < c->n && !p; k++)
		if (pmcf_campaign_is_done(c, k) && pmcf_profile_open(c->paths[k], &p) != 0)
			p = NULL;
	const char *was = p ? pmcf_profile_meta_get(p, "omp_env") : NULL;
	char *now = was ? pmcf_collect_omp_env() : NULL;
	int err = 0;
	if (was && now && strcmp(was, now) != 0)
		err = pmcfi_fail(PMCF_ECONFLICT,
				 "the campaign's executions ran with the OpenMP environment %s, this one is "
				 "%s: resume with the same OMP_* variables (combine would refuse to fuse "
				 "them)",
				 was, now);
	free(now);
	pmcf_profile_free(p);
	return err;
}

/* "set K: a,b,c" (duration left out, cut with "...") for progress */
static void set_text(char *buf, size_t len, size_t k, const pmcf_evlist *set)
{
	size_t o = (size_t)snprintf(buf, len, "set %zu:", k), nev = pmcf_evlist_size(set);
	for (size_t i = 1; i < nev && o + 4 < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i > 1 ? "," : " ", pmcf_evlist_name(set, i));
	if (o >= len - 4)
		strcpy(buf + len - 4, "...");
}

/* Runs execution k through src: *p its profile (NULL when none), ce its
 * seed, end and exit; >0 or an error from output_begin as it is. */
static int execute(pmcf_campaign *c, pmcf_source *src, size_t k, const char *label, pmcf_profile **p,
		   struct pmcfi_camp_exec *ce, char exitst[32], int *err)
{
	const pmcf_evlist *set = c->sets[k % c->nsets];
	pmcf_exit_info *ei = &c->ei;
	*ei = (pmcf_exit_info)PMCF_EXIT_INFO_INIT;
	exitst[0] = '\0';
	*p = NULL;
	if (pmcf_source_is_sim(src)) {
		ce->has_seed = 1;
		ce->seed = c->seeds[k] = pmcf_source_exec_seed(src, (long)k);
		*err = pmcf_source_record(src, set, (long)k, p, ei);
	} else {
		int ofd = 0, efd = 0, st = 0;
		if (c->cb.output_begin && (st = c->cb.output_begin(c->cb.ctx, k, label, &ofd, &efd)))
			return st;
		pmcf_source_output_set(src, ofd, efd);
		*err = pmcf_source_record(src, set, (long)k, p, ei);
		if (c->cb.output_end)
			c->cb.output_end(c->cb.ctx, k);
		if (!*err || *err == PMCF_EPROGRAM)
			snprintf(exitst, 32, ei->exited ? "%d" : "signal %d",
				 ei->exited ? ei->status : ei->signal);
		snprintf(c->how, sizeof(c->how), "%s",
			 ei->ompt       ? "OpenMP"
			 : ei->fallback ? "no OMPT runtime: one XU per thread"
					: "task API");
	}
	ce->finished = (long)time(NULL);
	ce->exit = exitst;
	return 0;
}

/* Keeps what execution k left (keep_failed: a failed program's profile, or
 * a stopped one marked incomplete) and records it in the manifest. */
static int keep(pmcf_campaign *c, size_t k, pmcf_profile *p, int err, int sig, struct pmcfi_camp_exec *ce,
		pmcf_campaign_result *r)
{
	int stopped = sig && p && !ce->has_seed, serr = 0;
	int program_failed = err == PMCF_EPROGRAM;
	if (!c->keep_failed && (stopped || program_failed || (sig && !ce->has_seed))) {
		pmcf_profile_free(p);
		p = NULL;
		ce->status = sig ? "interrupted" : "failed";
		return pmcfi_camp_update(c, k, ce);
	}
	if (!c->keep_failed && err)
		return pmcf_profile_free(p), 0;
	ce->status = stopped ? "interrupted" : err ? "failed" : "ok";
	r->kept = stopped || (p && program_failed);
	if (!p)
		return 0;
	if (c->plan_meta)
		serr = plan_meta_apply(c, p, k);
	if (!serr && stopped)
		serr = pmcf_profile_meta_set(p, PMCF_META_COMPLETE, "0");
	if (!serr)
		serr = pmcf_profile_save(p, c->paths[k]);
	pmcf_profile_free(c->prof[k]);
	c->prof[k] = c->hold ? p : NULL;
	if (!c->hold)
		pmcf_profile_free(p);
	if (serr) {
		r->saving = 1;
		r->kept = 0;
		return serr;
	}
	return pmcfi_camp_update(c, k, ce);
}

/* Records execution k; *end: the campaign ends here (r says why). */
static int record_one(pmcf_campaign *c, pmcf_source *src, size_t k, pmcf_campaign_result *r, int *end)
{
	char what[160], label[64], exitst[32];
	size_t s = k % c->nsets;
	if (c->repeat) {
		snprintf(what, sizeof(what), "set %zu, repeat %zu", s, k / c->nsets);
		snprintf(label, sizeof(label), "set %zu, repeat %zu", s, k / c->nsets);
	} else {
		set_text(what, sizeof(what), k, c->sets[s]);
		snprintf(label, sizeof(label), "set %zu", k);
	}
	if (c->cb.exec_start)
		c->cb.exec_start(c->cb.ctx, k, what);
	double t0 = now_s();
	struct pmcfi_camp_exec ce = {.set = s,
				     .repeat = c->repeat ? (long)(k / c->nsets) : -1,
				     .started = (long)time(NULL)};
	pmcf_profile *p = NULL;
	int err = 0, st = execute(c, src, k, label, &p, &ce, exitst, &err);
	*end = 1;
	r->at = (long)k;
	if (st)
		return st;
	r->started = 1;
	r->recorded++;
	r->how = ce.has_seed ? NULL : c->how;
	r->message = c->ei.message;
	r->err = err;
	int sig = stop_asked(c);
	char detail[1024]; /* the recording's: keep() saves the profile, which clears it */
	snprintf(detail, sizeof(detail), "%s", pmcf_errdetail());
	if ((st = keep(c, k, p, err, sig, &ce, r)))
		return st;
	if (sig && (c->keep_failed || !ce.has_seed)) {
		r->signal = sig;
		return 0;
	}
	if (err)
		return pmcfi_fail(err, "%s", detail[0] || !r->message ? detail : r->message);
	if (c->cb.exec_done && (st = c->cb.exec_done(c->cb.ctx, k, label, now_s() - t0)))
		return st;
	r->at = -1;
	r->started = 0;
	*end = 0;
	return 0;
}

int pmcf_campaign_run(pmcf_campaign *c, pmcf_source *src, pmcf_campaign_result *out)
{
	pmcfi_clear_error();
	if (!c || !src || !out)
		return pmcfi_fail(PMCF_EINVAL, "pmcf_campaign_run: no campaign, source or result");
	pmcf_campaign_result r = PMCF_CAMPAIGN_RESULT_INIT;
	int err = pmcfi_check_struct("pmcf_campaign_result", out, out->size, sizeof(r), sizeof(r));
	if (err)
		return err;
	if (c->resume && c->plan_meta && !pmcf_source_is_sim(src) && (err = same_env(c)))
		return err;
	int end = 0;
	for (size_t k = 0; k < c->n && !end && !err; k++) {
		if (c->task && k != (size_t)c->only)
			continue; /* an array task records its own execution */
		if ((c->resume || c->runs) && reuse(c, k)) {
			r.reused++;
			continue;
		}
		if ((r.signal = stop_asked(c))) {
			r.at = (long)k;
			break;
		}
		err = record_one(c, src, k, &r, &end);
	}
	c->runs++;
	pmcfi_struct_out("pmcf_campaign_result", out, &r, sizeof(r), sizeof(r));
	return err;
}

/* ---- launchers ------------------------------------------------------------ */
static int local_check(const pmcf_launch_opts *o)
{
	(void)o;
	return 0;
}

static int local_launch(pmcf_campaign *c, pmcf_source *src, const pmcf_launch_opts *o,
			pmcf_campaign_result *r)
{
	(void)o;
	return pmcf_campaign_run(c, src, r);
}

static const pmcf_launcher launchers[] = {
	{sizeof(pmcf_launcher), "local", "the executions run here, one after the other", local_check,
	 local_launch},
	{sizeof(pmcf_launcher), "slurm",
	 "an sbatch job array over the executions not done and a finishing job (docs/slurm.md)",
	 pmcfi_camp_slurm_check, pmcfi_camp_slurm_launch},
};

const pmcf_launcher *pmcf_launchers(size_t *n)
{
	if (n)
		*n = PMCF_ARRAY_SIZE(launchers);
	return launchers;
}

const pmcf_launcher *pmcf_launcher_find(const char *name)
{
	for (size_t i = 0; name && i < PMCF_ARRAY_SIZE(launchers); i++)
		if (!strcmp(launchers[i].name, name))
			return &launchers[i];
	return NULL;
}
