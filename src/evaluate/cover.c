/* Planning reference executions (fuse-task-parallel §4.1 needs every event
 * pair monitored together): a greedy pair covering with event sets that the
 * catalogue's compatibility check accepts, and the Schönheim lower bound. */
#include <stdlib.h>
#include <string.h>
#include "evaluate/evaluate_impl.h"
#include "pmcfuse/events.h"
#include "util/internal.h"

struct pmcf_cover {
	char **ev;
	size_t n;
	size_t **sets; /* event indices */
	size_t *size;
	size_t nsets, cap;
	const char ***names; /* per set, pointers into ev */
	size_t (*imp)[2];
	size_t nimp;
	size_t lower;
};

static int fits(const pmcf_catalog *c, const pmcf_cover *cv, const size_t *set, size_t k,
		unsigned pmcs, const char **buf)
{
	char why[256];
	for (size_t i = 0; i < k; i++)
		buf[i] = cv->ev[set[i]];
	return pmcf_catalog_check_set(c, buf, k, pmcs, why, sizeof(why));
}

static size_t schoenheim(size_t e, size_t k)
{
	size_t per_event = (e - 1 + k - 2) / (k - 1);
	return (e * per_event + k - 1) / k;
}

static int costly(const pmcf_catalog *c, const char *name)
{
	long k = pmcf_catalog_find(c, name);
	return k >= 0 && pmcf_catalog_at(c, (size_t)k)->cost > 0;
}

int pmcf_cover_pairs(const pmcf_catalog *c, const char *const *events, size_t n, unsigned pmcs,
		     pmcf_cover **out)
{
	pmcfi_clear_error();
	*out = NULL;
	pmcf_cover *cv = calloc(1, sizeof(*cv));
	if (!cv || !(cv->ev = calloc(n ? n : 1, sizeof(char *))))
		goto nomem;
	for (size_t i = 0; i < n; i++) {
		long k = pmcf_catalog_find(c, events[i]);
		if (k < 0) {
			pmcf_cover_free(cv);
			return pmcfi_fail(PMCF_EEVENT, "unknown event '%s'", events[i]);
		}
		const char *name = pmcf_catalog_at(c, (size_t)k)->name;
		int dup = strcmp(name, "duration") == 0;
		for (size_t j = 0; j < cv->n && !dup; j++)
			dup = strcmp(cv->ev[j], name) == 0;
		if (!dup && !(cv->ev[cv->n++] = strdup(name)))
			goto nomem;
	}
	size_t E = cv->n;
	if (E < 2) {
		pmcf_cover_free(cv);
		return pmcfi_fail(PMCF_ESYNTAX, "a pair covering needs at least two events besides duration");
	}
	unsigned char *cov = calloc(E * E, 1);
	size_t *set = malloc(E * sizeof(size_t)), *gain = malloc(E * sizeof(size_t));
	const char **buf = malloc(E * sizeof(char *));
	cv->imp = malloc(E * E / 2 * sizeof(*cv->imp) + sizeof(*cv->imp));
	if (!cov || !set || !gain || !buf || !cv->imp) {
		free(cov);
		free(set);
		free(gain);
		free(buf);
		goto nomem;
	}
	int err = 0;
	size_t kmax = 2, left = E * (E - 1) / 2;
	size_t a = 0, b = 1;
	while (left && !err) {
		/* start from the uncovered pair of the events with most uncovered pairs */
		long bestdeg = -1;
		for (size_t x = 0; x < E; x++)
			for (size_t y = x + 1; y < E; y++) {
				if (cov[x * E + y])
					continue;
				size_t d = 0;
				for (size_t z = 0; z < E; z++)
					d += (z != x && !cov[x * E + z]) + (z != y && !cov[y * E + z]);
				if ((long)d > bestdeg) {
					bestdeg = (long)d;
					a = x;
					b = y;
				}
			}
		set[0] = a;
		set[1] = b;
		size_t k = 2;
		int r = fits(c, cv, set, 2, pmcs, buf);
		if (r < 0) {
			err = r;
			break;
		}
		if (r == 0) { /* never countable together */
			cov[a * E + b] = cov[b * E + a] = 1;
			cv->imp[cv->nimp][0] = a;
			cv->imp[cv->nimp][1] = b;
			cv->nimp++;
			left--;
			continue;
		}
		for (;;) {
			/* candidates by the uncovered pairs they would add */
			size_t best = 0;
			for (size_t e = 0; e < E; e++) {
				gain[e] = 0;
				int in = 0;
				for (size_t i = 0; i < k; i++)
					in |= set[i] == e;
				if (in)
					continue;
				for (size_t i = 0; i < k; i++)
					gain[e] += !cov[e * E + set[i]];
				if (gain[e] > best)
					best = gain[e];
			}
			int added = 0;
			for (size_t g = best; g > 0 && !added && !err; g--)
				for (size_t e = 0; e < E && !added; e++) {
					if (gain[e] != g)
						continue;
					set[k] = e;
					r = fits(c, cv, set, k + 1, pmcs, buf);
					if (r < 0)
						err = r;
					else if (r == 1)
						added = 1;
				}
			if (!added || err)
				break;
			k++;
		}
		if (err)
			break;
		for (size_t i = 0; i < k; i++)
			for (size_t j = i + 1; j < k; j++)
				if (!cov[set[i] * E + set[j]]) {
					cov[set[i] * E + set[j]] = cov[set[j] * E + set[i]] = 1;
					left--;
				}
		if (k > kmax)
			kmax = k;
		if (cv->nsets == cv->cap) {
			size_t cap = cv->cap ? 2 * cv->cap : 32;
			size_t **ns = realloc(cv->sets, cap * sizeof(*ns));
			if (ns)
				cv->sets = ns;
			size_t *nz = ns ? realloc(cv->size, cap * sizeof(*nz)) : NULL;
			if (nz)
				cv->size = nz;
			if (!ns || !nz) {
				err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
				break;
			}
			cv->cap = cap;
		}
		if (!(cv->sets[cv->nsets] = malloc(k * sizeof(size_t)))) {
			err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
			break;
		}
		memcpy(cv->sets[cv->nsets], set, k * sizeof(size_t));
		cv->size[cv->nsets++] = k;
	}
	free(cov);
	free(set);
	free(gain);
	free(buf);
	if (!err && !(cv->names = calloc(cv->nsets ? cv->nsets : 1, sizeof(*cv->names))))
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
	for (size_t s = 0; s < cv->nsets && !err; s++) {
		if (!(cv->names[s] = malloc(cv->size[s] * sizeof(char *)))) {
			err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
			break;
		}
		for (size_t i = 0; i < cv->size[s]; i++)
			cv->names[s][i] = cv->ev[cv->sets[s][i]];
	}
	if (err) {
		pmcf_cover_free(cv);
		return err;
	}
	/* Schönheim: every event meets E-1 others, at most kmax-1 per set; the
	 * same over the events that need a general-purpose counter, with the
	 * most such events any set held (the counters are the real limit) */
	cv->lower = schoenheim(E, kmax);
	size_t ec = 0, kc = 0;
	for (size_t i = 0; i < E; i++)
		ec += costly(c, cv->ev[i]);
	for (size_t s = 0; s < cv->nsets; s++) {
		size_t k = 0;
		for (size_t i = 0; i < cv->size[s]; i++)
			k += costly(c, cv->names[s][i]);
		kc = k > kc ? k : kc;
	}
	if (ec >= 2 && kc >= 2 && schoenheim(ec, kc) > cv->lower)
		cv->lower = schoenheim(ec, kc);
	*out = cv;
	return 0;
nomem:
	pmcf_cover_free(cv);
	return pmcfi_fail(PMCF_ENOMEM, "out of memory");
}

void pmcf_cover_free(pmcf_cover *cv)
{
	if (!cv)
		return;
	for (size_t s = 0; s < cv->nsets; s++) {
		free(cv->sets[s]);
		if (cv->names)
			free(cv->names[s]);
	}
	free(cv->sets);
	free(cv->size);
	free(cv->names);
	for (size_t i = 0; cv->ev && i < cv->n; i++)
		free(cv->ev[i]);
	free(cv->ev);
	free(cv->imp);
	free(cv);
}

size_t pmcf_cover_nsets(const pmcf_cover *cv) { return cv->nsets; }
const char *const *pmcf_cover_set(const pmcf_cover *cv, size_t k, size_t *n)
{
	if (k >= cv->nsets) {
		*n = 0;
		return NULL;
	}
	*n = cv->size[k];
	return cv->names[k];
}
size_t pmcf_cover_lower_bound(const pmcf_cover *cv) { return cv->lower; }
size_t pmcf_cover_nimpossible(const pmcf_cover *cv) { return cv->nimp; }
void pmcf_cover_impossible(const pmcf_cover *cv, size_t k, const char **a, const char **b)
{
	*a = k < cv->nimp ? cv->ev[cv->imp[k][0]] : NULL;
	*b = k < cv->nimp ? cv->ev[cv->imp[k][1]] : NULL;
}
