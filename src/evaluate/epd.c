/* Execution Profile Dissimilarity (fuse-task-parallel §4.1, §4.3): for every
 * event pair, the target's median uncalibrated TMD against the reference
 * repeats that monitored the pair, divided by the calibration (median TMD
 * between every two repeats); EPD is the geometric mean over the pairs.
 * Optional: per XU type, a seeded sample of pairs with a bootstrap interval,
 * worker threads over the pairs. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "evaluate/tmd.h"
#include "util/abi.h"
#include "util/internal.h"

#define CAL_FLOOR 1e-6

struct pmcf_epd_result {
	double epd, ci_lo, ci_hi;
	size_t npairs, uncovered, total, nexcluded;
	size_t evaluated;                /* covered pairs, or the sample of them */
	pmcf_epd_pair *pairs, *excluded; /* scored pairs; pairs left out (no spread) */
	char **names;                    /* event names the pairs point into */
	size_t nnames;
};

/* Several targets may share one set of matched references (their events
 * and XU types in the same order, the same references): the reference side
 * of each pair (grid, histograms, the distances between repeats, the
 * calibration) is then computed once and every target is scored on it. */
struct job {
	const struct pmcfi_match *m; /* [nt], compatible: m[0]'s references serve all */
	size_t nt;
	const pmcf_epd_opts *o;
	size_t (*pairs)[2];  /* event indices of each evaluated pair */
	pmcf_epd_pair **out; /* [nt] */
	size_t npairs;
	size_t first, step; /* this worker's pairs: first, first+step, ... */
	int err;
};

/* Per-worker buffers: index lists per type, histograms of the repeats. */
struct scratch {
	pmcf_emd_ws *ws;
	double *acc, *w, *pts; /* (nrefs+1) histograms of side^2 cells */
	size_t *np;
	size_t **idx; /* per profile (target last): XU indices of the current type */
	size_t *nidx;
	double *dcal, *dtar, *dmat; /* dmat: nprof x nprof distances between repeats */
};

static void scratch_free(struct scratch *s, size_t nprof)
{
	pmcf_emd_ws_free(s->ws);
	free(s->acc);
	free(s->w);
	free(s->pts);
	free(s->np);
	if (s->idx)
		for (size_t k = 0; k < nprof; k++)
			free(s->idx[k]);
	free(s->idx);
	free(s->nidx);
	free(s->dcal);
	free(s->dtar);
	free(s->dmat);
}

/* tnxu: the most XUs of one target */
static int scratch_new(struct scratch *s, const struct pmcfi_match *m, size_t tnxu, unsigned bins)
{
	memset(s, 0, sizeof(*s));
	size_t cells = (size_t)(bins + 2) * (bins + 2), nprof = m->nrefs + 1;
	int err = pmcf_emd_ws_new(&s->ws);
	if (err)
		return err;
	s->acc = malloc(3 * cells * sizeof(double));
	s->w = malloc(nprof * cells * sizeof(double));
	s->pts = malloc(2 * nprof * cells * sizeof(double));
	s->np = calloc(nprof, sizeof(size_t));
	s->idx = calloc(nprof, sizeof(size_t *));
	s->nidx = calloc(nprof, sizeof(size_t));
	s->dcal = malloc((nprof * nprof / 2 + 1) * sizeof(double));
	s->dtar = malloc(nprof * sizeof(double));
	s->dmat = malloc(nprof * nprof * sizeof(double));
	int ok = s->acc && s->w && s->pts && s->np && s->idx && s->nidx && s->dcal && s->dtar && s->dmat;
	for (size_t k = 0; ok && k < nprof; k++) {
		size_t n = k < m->nrefs ? m->refs[k].nxu : tnxu;
		ok = (s->idx[k] = malloc((n ? n : 1) * sizeof(size_t))) != NULL;
	}
	if (!ok) {
		scratch_free(s, nprof);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	}
	return 0;
}

struct tmd_out {
	double tmd, unc, cal, spread, res, floor;
	int worst, ok, excluded;
};

/* The floored formula (docs/accuracy.md): distances below the resolution
 * res are equal to it; the calibrated TMD is at least the best score a
 * reference repeat gets against the others (min over k of the median of
 * its distances to the other repeats, over cal). d: nr x nr distances,
 * NaN for repeats without XUs; buf: nr doubles. */
static double loo_floor(const double *d, size_t nr, double res, double cal, double *buf)
{
	double best = INFINITY;
	for (size_t k = 0; k < nr; k++) {
		size_t n = 0;
		for (size_t j = 0; j < nr; j++)
			if (j != k && d[k * nr + j] == d[k * nr + j])
				buf[n++] = fmax(d[k * nr + j], res);
		if (n)
			best = fmin(best, pmcfi_median(buf, n));
	}
	return isfinite(best) ? best / cal : 0;
}

/* The reference side of the pair (a, b) over the XUs of global type `type`
 * (-1: all): the repeats, the grid, their histograms (slots 0..nr of the
 * scratch), the distances between every two repeats and the calibration. */
struct refside {
	int ok;      /* 0: not covered (fewer than two repeats, or no distance) */
	size_t nr;   /* repeats */
	size_t nmin; /* fewest XUs in one repeat's histogram */
	size_t nc;   /* distances between repeats */
	double cal;  /* their median */
	struct pmcfi_grid g;
	size_t rep[4096];
};

static int ref_side(const struct pmcfi_match *m, const pmcf_epd_opts *o, struct scratch *s, size_t a,
		    size_t b, long type, struct refside *rs)
{
	rs->ok = 0;
	unsigned bins = o->bins;
	size_t cells = (size_t)(bins + 2) * (bins + 2);
	size_t nr = 0;
	/* the repeats: references with both events (and XUs of the type) */
	size_t *rep = rs->rep;
	double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
	for (size_t k = 0; k < m->nrefs && nr < 4096; k++) {
		const struct pmcfi_view *v = &m->refs[k];
		if (!v->col[a] || !v->col[b])
			continue;
		if (type < 0) {
			s->nidx[k] = v->nxu;
			lo[0] = fmin(lo[0], v->mn[a]);
			hi[0] = fmax(hi[0], v->mx[a]);
			lo[1] = fmin(lo[1], v->mn[b]);
			hi[1] = fmax(hi[1], v->mx[b]);
		} else {
			size_t n = 0;
			for (size_t i = 0; i < v->nxu; i++) {
				if (v->gtype[i] != (uint32_t)type)
					continue;
				s->idx[k][n++] = i;
				double x = v->col[a][i], y = v->col[b][i];
				if (x == x) {
					lo[0] = fmin(lo[0], x);
					hi[0] = fmax(hi[0], x);
				}
				if (y == y) {
					lo[1] = fmin(lo[1], y);
					hi[1] = fmax(hi[1], y);
				}
			}
			s->nidx[k] = n;
			if (!n)
				continue;
		}
		rep[nr++] = k;
	}
	rs->nr = nr;
	if (nr < 2 || !(lo[0] <= hi[0]) || !(lo[1] <= hi[1]))
		return 0; /* not covered */
	pmcfi_tmd_grid(bins, lo, hi, &rs->g);
	/* histograms: repeats first, the target in slot nprof-1 (target_side) */
	size_t nmin = SIZE_MAX; /* fewest XUs in one histogram: the resolution */
	for (size_t t = 0; t < nr; t++) {
		size_t k = rep[t], used;
		const struct pmcfi_view *v = &m->refs[k];
		s->np[t] =
			pmcfi_tmd_hist(&rs->g, v->col[a], v->col[b], type < 0 ? NULL : s->idx[k], s->nidx[k],
				       s->acc, s->w + t * cells, s->pts + 2 * t * cells, &used);
		if (used && used < nmin)
			nmin = used;
	}
	rs->nmin = nmin;
	/* calibration: every two repeats (a repeat whose XUs all lack a value is skipped) */
	size_t nc = 0;
	for (size_t x = 0; x < nr; x++) {
		s->dmat[x * nr + x] = NAN;
		for (size_t y = x + 1; y < nr; y++) {
			s->dmat[x * nr + y] = s->dmat[y * nr + x] = NAN;
			if (!s->np[x] || !s->np[y])
				continue;
			int err = pmcf_emd(s->ws, 2, s->w + x * cells, s->pts + 2 * x * cells, s->np[x],
					   s->w + y * cells, s->pts + 2 * y * cells, s->np[y], &s->dcal[nc]);
			if (err)
				return err;
			s->dmat[x * nr + y] = s->dmat[y * nr + x] = s->dcal[nc];
			nc++;
		}
	}
	rs->nc = nc;
	if (!nc)
		return 0;
	rs->cal = pmcfi_median(s->dcal, nc);
	rs->ok = 1;
	return 0;
}

/* The TMD of target view tv on the pair (a, b) over the XUs of global type
 * `type` (-1: all), against the reference side rs (ref_side, same pair and
 * type, its histograms still in the scratch). */
static int target_side(const struct pmcfi_view *tv, size_t nrefs, const pmcf_epd_opts *o, struct scratch *s,
		       size_t a, size_t b, long type, const struct refside *rs, struct tmd_out *r)
{
	memset(r, 0, sizeof(*r));
	if (!rs->ok)
		return 0;
	unsigned bins = o->bins;
	size_t cells = (size_t)(bins + 2) * (bins + 2);
	size_t nprof = nrefs + 1, nr = rs->nr, nmin = rs->nmin;
	size_t tn = 0, tused = 0, ts = nprof - 1;
	if (type >= 0)
		for (size_t i = 0; i < tv->nxu; i++)
			if (tv->gtype[i] == (uint32_t)type)
				s->idx[ts][tn++] = i;
	size_t tnp = 0;
	if (tv->col[a] && tv->col[b])
		tnp = pmcfi_tmd_hist(&rs->g, tv->col[a], tv->col[b], type < 0 ? NULL : s->idx[ts],
				     type < 0 ? tv->nxu : tn, s->acc, s->w + ts * cells,
				     s->pts + 2 * ts * cells, &tused);
	int paper = o->formula == PMCF_EPD_PAPER;
	/* the resolution comes from the references alone (issue 32): a target
	 * with missing values must not widen it and so have more of its pairs
	 * left out; the paper's formula has none */
	(void)tused;
	r->cal = rs->cal;
	r->ok = 1;
	/* one XU of the smallest histogram moved by one bin: the finest
	 * difference the histograms resolve */
	r->res = paper ? CAL_FLOOR : 1.0 / (double)nmin;
	if (!paper && r->cal < r->res) {
		/* no spread in the references: nothing to calibrate against */
		r->excluded = PMCF_EPD_NO_SPREAD;
		r->tmd = NAN;
		return 0;
	}
	double cal = r->cal > r->res ? r->cal : r->res;
	if (!tnp) {
		r->worst = 1;
		r->unc = (double)(bins + 2) * sqrt(2.0);
		r->tmd = r->unc / cal;
		return 0;
	}
	size_t nt = 0;
	for (size_t x = 0; x < nr; x++) {
		if (!s->np[x])
			continue;
		int err = pmcf_emd(s->ws, 2, s->w + ts * cells, s->pts + 2 * ts * cells, tnp,
				   s->w + x * cells, s->pts + 2 * x * cells, s->np[x], &s->dtar[nt]);
		if (err)
			return err;
		nt++;
	}
	double lo_d = INFINITY, hi_d = -INFINITY;
	for (size_t x = 0; x < nt; x++) {
		lo_d = fmin(lo_d, s->dtar[x]);
		hi_d = fmax(hi_d, s->dtar[x]);
	}
	r->unc = pmcfi_median(s->dtar, nt);
	if (!paper) {
		/* missing values count: the share f of the target's XUs (of the
		 * type) without both values scores as a target with no value at
		 * all on the pair, the rest as measured */
		size_t want = type < 0 ? tv->nxu : tn;
		double f = want > 0 && tused < want ? (double)(want - tused) / (double)want : 0;
		if (f > 0)
			r->unc = (1 - f) * r->unc + f * (double)(bins + 2) * sqrt(2.0);
	}
	/* paper: the same floor 1e-6 above and below the line, so that a pair
	 * on which the target and every repeat agree exactly (an event that is
	 * always 0) scores 1 instead of 0/0; floored: distances below the
	 * resolution are equal to it, and no target scores better than the
	 * best reference repeat scores against the others */
	r->tmd = fmax(r->unc, r->res) / cal;
	if (!paper) {
		r->floor = loo_floor(s->dmat, nr, r->res, cal, s->dcal);
		r->tmd = fmax(r->tmd, r->floor);
	}
	r->spread = fmax(hi_d / cal - r->tmd, r->tmd - lo_d / cal);
	return 0;
}

static double safe_log(double v) { return log(v > 1e-12 ? v : 1e-12); }

/* per target and pair, per type: XU-count-weighted sums of log values */
struct acc {
	double wsum, lt, lu, lc, lr, lf;
	int worst, any_excluded;
};

static void *worker(void *arg)
{
	struct job *j = arg;
	const struct pmcfi_match *m = j->m; /* m[0]: the references of every target */
	size_t nt = j->nt, ntypes = m->ntypes, tnxu = 0;
	for (size_t t = 0; t < nt; t++)
		tnxu = m[t].target.nxu > tnxu ? m[t].target.nxu : tnxu;
	struct scratch s;
	if ((j->err = scratch_new(&s, m, tnxu, j->o->bins)))
		return NULL;
	size_t *tcount = calloc((ntypes ? ntypes : 1) * nt, sizeof(size_t)); /* [t * ntypes + ty] */
	struct acc *ac = calloc(nt, sizeof(*ac));
	struct refside *rs = malloc(sizeof(*rs));
	if (!tcount || !ac || !rs) {
		j->err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t t = 0; t < nt; t++)
		for (size_t i = 0; i < m[t].target.nxu; i++)
			tcount[t * ntypes + m[t].target.gtype[i]]++;
	for (size_t k = j->first; k < j->npairs && !j->err; k += j->step) {
		size_t a = j->pairs[k][0], b = j->pairs[k][1];
		unsigned repeats = 0;
		for (size_t r = 0; r < m->nrefs; r++)
			repeats += m->refs[r].col[a] && m->refs[r].col[b];
		for (size_t t = 0; t < nt; t++) {
			pmcf_epd_pair *p = &j->out[t][k];
			p->size = sizeof(*p);
			const struct pmcfi_view *tv = &m[t].target;
			size_t kept = 0;
			if (tv->col[a] && tv->col[b])
				for (size_t i = 0; i < tv->nxu; i++)
					kept += tv->col[a][i] == tv->col[a][i] &&
						tv->col[b][i] == tv->col[b][i];
			p->left_out = tv->nxu ? 1.0 - (double)kept / (double)tv->nxu : 0;
			p->repeats = repeats;
		}
		struct tmd_out to;
		if (!j->o->per_type) {
			j->err = ref_side(m, j->o, &s, a, b, -1, rs);
			for (size_t t = 0; t < nt && !j->err; t++) {
				pmcf_epd_pair *p = &j->out[t][k];
				j->err = target_side(&m[t].target, m->nrefs, j->o, &s, a, b, -1, rs, &to);
				p->tmd = to.ok ? to.tmd : NAN;
				p->uncalibrated = to.unc;
				p->calibration = to.cal;
				p->spread = to.spread;
				p->worst = to.worst;
				p->resolution = to.res;
				p->floor = to.floor;
				p->excluded = to.excluded;
			}
			continue;
		}
		/* per type: XU-count-weighted geometric means */
		memset(ac, 0, nt * sizeof(*ac));
		for (size_t ty = 0; ty < ntypes && !j->err; ty++) {
			size_t any = 0;
			for (size_t t = 0; t < nt; t++)
				any += tcount[t * ntypes + ty];
			if (!any)
				continue;
			j->err = ref_side(m, j->o, &s, a, b, (long)ty, rs);
			for (size_t t = 0; t < nt && !j->err; t++) {
				if (!tcount[t * ntypes + ty])
					continue;
				j->err = target_side(&m[t].target, m->nrefs, j->o, &s, a, b, (long)ty, rs,
						     &to);
				struct acc *c = &ac[t];
				c->any_excluded |= to.ok && to.excluded;
				if (!to.ok || to.excluded)
					continue;
				double wt = (double)tcount[t * ntypes + ty];
				c->wsum += wt;
				c->lt += wt * safe_log(to.tmd);
				c->lu += wt * safe_log(to.unc);
				c->lc += wt * safe_log(to.cal);
				c->lr += wt * safe_log(to.res);
				c->lf += wt * safe_log(to.floor);
				c->worst |= to.worst;
			}
		}
		for (size_t t = 0; t < nt; t++) {
			pmcf_epd_pair *p = &j->out[t][k];
			const struct acc *c = &ac[t];
			double wsum = c->wsum;
			p->tmd = wsum > 0 ? exp(c->lt / wsum) : NAN;
			p->uncalibrated = wsum > 0 ? exp(c->lu / wsum) : NAN;
			p->calibration = wsum > 0 ? exp(c->lc / wsum) : NAN;
			p->resolution = wsum > 0 ? exp(c->lr / wsum) : NAN;
			p->floor = j->o->formula == PMCF_EPD_PAPER ? 0 : wsum > 0 ? exp(c->lf / wsum) : NAN;
			p->worst = c->worst;
			/* every type without spread: the pair is left out */
			p->excluded = wsum > 0 || !c->any_excluded ? 0 : PMCF_EPD_NO_SPREAD;
		}
	}
out:
	free(rs);
	free(ac);
	free(tcount);
	scratch_free(&s, m->nrefs + 1);
	return NULL;
}

/* The pairs of m's events that two references or more monitored, in pair
 * order, into pairs[]; returns how many; *uncovered counts the others. */
static size_t covered_pairs(const struct pmcfi_match *m, size_t (*pairs)[2], size_t *uncovered)
{
	size_t nc = 0;
	for (size_t a = 0; a < m->nev; a++)
		for (size_t b = a + 1; b < m->nev; b++) {
			size_t rep = 0;
			for (size_t k = 0; k < m->nrefs; k++)
				rep += m->refs[k].col[a] && m->refs[k].col[b];
			if (rep < 2) {
				++*uncovered;
				continue;
			}
			pairs[nc][0] = a;
			pairs[nc][1] = b;
			nc++;
		}
	return nc;
}

/* A seeded sample of `sample` of the nc pairs to the front: partial
 * Fisher-Yates, then back in pair order. */
static void sample_pairs(size_t (*pairs)[2], size_t nc, size_t sample, uint64_t *rng)
{
	for (size_t k = 0; k < sample; k++) {
		size_t x = k + (size_t)(pmcfi_splitmix64(rng) % (nc - k));
		size_t t0 = pairs[k][0], t1 = pairs[k][1];
		pairs[k][0] = pairs[x][0];
		pairs[k][1] = pairs[x][1];
		pairs[x][0] = t0;
		pairs[x][1] = t1;
	}
	for (size_t k = 1; k < sample; k++)
		for (size_t x = k;
		     x > 0 && (pairs[x][0] < pairs[x - 1][0] ||
			       (pairs[x][0] == pairs[x - 1][0] && pairs[x][1] < pairs[x - 1][1]));
		     x--) {
			size_t t0 = pairs[x][0], t1 = pairs[x][1];
			pairs[x][0] = pairs[x - 1][0];
			pairs[x][1] = pairs[x - 1][1];
			pairs[x - 1][0] = t0;
			pairs[x - 1][1] = t1;
		}
}

/* Scores the nc pairs for the nt targets into outs[t][k]: o->threads
 * workers (0: one per online CPU), at most 8 and at most one per pair. */
static int run_workers(const struct pmcfi_match *m, size_t nt, const pmcf_epd_opts *o, size_t (*pairs)[2],
		       pmcf_epd_pair **outs, size_t nc)
{
	unsigned nth = o->threads;
	if (nth == 0) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);
		nth = c > 0 ? (unsigned)c : 1;
	}
	if (nth > 8)
		nth = 8;
	if (nth > nc)
		nth = nc ? (unsigned)nc : 1;
	struct job jobs[8];
	pthread_t tid[8];
	int started[8] = {0}, err = 0;
	for (unsigned t = 0; t < nth; t++) {
		jobs[t] = (struct job){m, nt, o, pairs, outs, nc, t, nth, 0};
		if (t > 0)
			started[t] = pthread_create(&tid[t], NULL, worker, &jobs[t]) == 0;
		if (t > 0 && !started[t])
			worker(&jobs[t]);
	}
	worker(&jobs[0]);
	for (unsigned t = 0; t < nth; t++) {
		if (started[t])
			pthread_join(tid[t], NULL);
	}
	for (unsigned t = 0; t < nth && !err; t++)
		err = jobs[t].err;
	return err;
}

/* One target's result from its scored pairs: the names (taken from mt),
 * the scored and the excluded pairs, the geometric mean, and with a sample
 * the bootstrap interval from rng (the state after the sample). logs:
 * scratch of nc entries. */
static int target_result(pmcf_epd_result *r, struct pmcfi_match *mt, size_t (*pairs)[2], size_t nc,
			 double *logs, const pmcf_epd_opts *o, uint64_t rng)
{
	size_t scored = 0;
	double lsum = 0;
	r->names = mt->ev; /* the result keeps the names */
	r->nnames = mt->nev;
	mt->ev = NULL;
	mt->nev = 0;
	for (size_t k = 0; k < nc; k++) {
		pmcf_epd_pair *p = &r->pairs[scored];
		*p = r->pairs[k];
		p->a = r->names[pairs[k][0]];
		p->b = r->names[pairs[k][1]];
		if (p->excluded) {
			r->excluded[r->nexcluded++] = *p;
			continue;
		}
		if (p->tmd != p->tmd) {
			r->uncovered++;
			continue;
		}
		logs[scored] = safe_log(p->tmd);
		lsum += logs[scored];
		scored++;
	}
	r->npairs = scored;
	if (!scored && r->nexcluded)
		return pmcfi_fail(PMCF_ENOENT,
				  "EPD: every pair monitored by two references was left out: the "
				  "references show no spread on it (%zu pair%s; PMCF_EPD_PAPER, the "
				  "command's --formula paper, scores them)",
				  r->nexcluded, r->nexcluded == 1 ? "" : "s");
	if (!scored)
		return pmcfi_fail(PMCF_ENOENT,
				  "EPD: no pair of the target's events was monitored by two references");
	r->epd = exp(lsum / (double)scored);
	if (o->sample && o->bootstrap && scored > 1) {
		double *g = malloc(o->bootstrap * sizeof(double));
		if (g) {
			for (unsigned bt = 0; bt < o->bootstrap; bt++) {
				double sum = 0;
				for (size_t k = 0; k < scored; k++)
					sum += logs[pmcfi_splitmix64(&rng) % scored];
				g[bt] = exp(sum / (double)scored);
			}
			r->ci_lo = pmcfi_quantile(g, o->bootstrap, 0.025);
			r->ci_hi = pmcfi_quantile(g, o->bootstrap, 0.975);
			free(g);
		}
	}
	return 0;
}

/* EPD of the nt targets of the compatible matches m[0..nt) into out[0..nt)
 * (all or none); the matches give up their event names to the results. */
static int epd_group(struct pmcfi_match *m, size_t nt, const pmcf_epd_opts *opts, pmcf_epd_result **out)
{
	pmcf_epd_opts o = *opts;
	int err = 0;
	size_t np = m->nev * (m->nev ? m->nev - 1 : 0) / 2;
	size_t(*pairs)[2] = malloc((np ? np : 1) * sizeof(*pairs));
	pmcf_epd_pair **outs = calloc(nt, sizeof(*outs));
	double *logs = NULL;
	for (size_t t = 0; t < nt; t++)
		out[t] = NULL;
	if (!pairs || !outs) {
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
		goto done;
	}
	size_t uncovered = 0, nc = covered_pairs(m, pairs, &uncovered);
	uint64_t rng = o.seed;
	if (o.sample && o.sample < nc) {
		sample_pairs(pairs, nc, o.sample, &rng);
		nc = o.sample;
	}
	for (size_t t = 0; t < nt && !err; t++) {
		pmcf_epd_result *r = out[t] = calloc(1, sizeof(*r));
		if (r) {
			r->ci_lo = r->ci_hi = NAN;
			r->total = np;
			r->uncovered = uncovered;
			r->evaluated = nc;
			r->pairs = calloc(nc ? nc : 1, sizeof(*r->pairs));
			r->excluded = calloc(nc ? nc : 1, sizeof(*r->excluded));
		}
		if (!r || !r->pairs || !r->excluded)
			err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
		else
			outs[t] = r->pairs;
	}
	if (!err)
		err = run_workers(m, nt, &o, pairs, outs, nc);
	/* names and the geometric mean over the scored pairs, per target */
	logs = err ? NULL : malloc((nc ? nc : 1) * sizeof(double));
	if (!err && !logs)
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
	for (size_t t = 0; t < nt && !err; t++)
		err = target_result(out[t], &m[t], pairs, nc, logs, &o, rng);
done:
	free(logs);
	free(outs);
	free(pairs);
	if (err)
		for (size_t t = 0; t < nt; t++) {
			pmcf_epd_result_free(out[t]);
			out[t] = NULL;
		}
	return err;
}

struct epd_cb_ctx {
	const pmcf_epd_opts *o;
	pmcf_epd_result **out, **gout;
};

/* The values EPD bins are finite: an infinite one spreads its pair's grid
 * to infinity (every coordinate NaN). The first infinite value of view v,
 * said with who ("the target", "reference 2 of 3"). */
static int finite_view(const struct pmcfi_match *m, const struct pmcfi_view *v, const char *who)
{
	for (size_t e = 0; e < m->nev; e++) {
		if (!v->col[e] || !(isinf(v->mn[e]) || isinf(v->mx[e])))
			continue;
		size_t x = 0;
		while (x < v->nxu && !isinf(v->col[e][x]))
			x++;
		return pmcfi_fail(PMCF_EINVAL,
				  "EPD: %s has an infinite value of '%s' (XU %zu: %s): EPD bins the "
				  "values of each event pair, which must be finite (record it again)",
				  who, m->ev[e], x, x < v->nxu && v->col[e][x] < 0 ? "-inf" : "inf");
	}
	return 0;
}

/* One group of compatible targets: its results to their targets' places. */
static int epd_cb(void *ctx, struct pmcfi_match *gm, size_t n, const size_t *pos)
{
	struct epd_cb_ctx *c = ctx;
	char who[64];
	for (size_t k = 0; n && k < gm[0].nrefs; k++) {
		snprintf(who, sizeof(who), "reference %zu of %zu", k + 1, gm[0].nrefs);
		int err = finite_view(&gm[0], &gm[0].refs[k], who);
		if (err)
			return err;
	}
	for (size_t g = 0; g < n; g++) {
		snprintf(who, sizeof(who), "target %zu", pos[g] + 1);
		int err = finite_view(&gm[g], &gm[g].target, who);
		if (err)
			return err;
	}
	int err = epd_group(gm, n, c->o, c->gout);
	for (size_t g = 0; g < n; g++)
		c->out[pos[g]] = c->gout[g];
	return err;
}

int pmcf_epd_compute_many(const pmcf_profile *const *targets, size_t ntargets,
			  const pmcf_profile *const *refs, size_t nrefs, const pmcf_epd_opts *opts,
			  pmcf_epd_result **out)
{
	pmcfi_clear_error();
	if (!targets || !out || !ntargets)
		return pmcfi_fail(PMCF_EINVAL, "EPD: no target");
	for (size_t t = 0; t < ntargets; t++)
		out[t] = NULL;
	pmcf_epd_opts o = PMCF_EPD_OPTS_INIT;
	int rc = pmcfi_struct_in("pmcf_epd_opts", &o, opts, offsetof(pmcf_epd_opts, formula), sizeof(o));
	if (rc)
		return rc;
	if (o.formula != PMCF_EPD_FLOORED && o.formula != PMCF_EPD_PAPER)
		return pmcfi_fail(PMCF_EINVAL, "EPD: pmcf_epd_opts.formula %d is no formula", o.formula);
	char init_bins[48];
	snprintf(init_bins, sizeof(init_bins), " (start from PMCF_EPD_OPTS_INIT: %u)",
		 ((pmcf_epd_opts)PMCF_EPD_OPTS_INIT).bins);
	if (o.bins < 1 || o.bins > PMCFI_TMD_MAX_BINS)
		return pmcfi_fail(PMCF_EINVAL, "EPD: pmcf_epd_opts.bins %u is not 1 to %d%s", o.bins,
				  PMCFI_TMD_MAX_BINS, o.bins ? "" : init_bins);
	if (nrefs < 2)
		return pmcfi_fail(PMCF_ENOENT, "EPD needs at least two reference profiles, got %zu", nrefs);
	pmcf_epd_result **gout = malloc(ntargets * sizeof(*gout));
	int err = gout ? 0 : pmcfi_fail(PMCF_ENOMEM, "out of memory");
	struct epd_cb_ctx c = {&o, out, gout};
	if (!err)
		err = pmcfi_match_groups(targets, ntargets, refs, nrefs, epd_cb, &c);
	if (err)
		for (size_t t = 0; t < ntargets; t++) {
			pmcf_epd_result_free(out[t]);
			out[t] = NULL;
		}
	free(gout);
	return err;
}

int pmcf_epd_compute(const pmcf_profile *target, const pmcf_profile *const *refs, size_t nrefs,
		     const pmcf_epd_opts *opts, pmcf_epd_result **out)
{
	if (out)
		*out = NULL;
	return pmcf_epd_compute_many(&target, 1, refs, nrefs, opts, out);
}

void pmcf_epd_result_free(pmcf_epd_result *r)
{
	if (!r)
		return;
	for (size_t k = 0; k < r->nnames; k++)
		free(r->names[k]);
	free(r->names);
	free(r->pairs);
	free(r->excluded);
	free(r);
}

double pmcf_epd_value(const pmcf_epd_result *r) { return r->epd; }
void pmcf_epd_ci(const pmcf_epd_result *r, double *lo, double *hi)
{
	*lo = r->ci_lo;
	*hi = r->ci_hi;
}
size_t pmcf_epd_npairs(const pmcf_epd_result *r) { return r->npairs; }
const pmcf_epd_pair *pmcf_epd_pair_at(const pmcf_epd_result *r, size_t i)
{
	return i < r->npairs ? &r->pairs[i] : NULL;
}
size_t pmcf_epd_uncovered(const pmcf_epd_result *r) { return r->uncovered; }
size_t pmcf_epd_total_pairs(const pmcf_epd_result *r) { return r->total; }
size_t pmcf_epd_nexcluded(const pmcf_epd_result *r) { return r->nexcluded; }
size_t pmcf_epd_evaluated(const pmcf_epd_result *r) { return r->evaluated; }
const pmcf_epd_pair *pmcf_epd_excluded_at(const pmcf_epd_result *r, size_t i)
{
	return i < r->nexcluded ? &r->excluded[i] : NULL;
}
