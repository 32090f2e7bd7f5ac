/* Naive pairing, the baseline fuse-task-parallel §3 argues against: it
 * "assumes that executions of the same program with identical inputs
 * execute the same tasks, on the same cores, and in the same order". Within
 * each XU type (and MPI rank), the k-th XU a thread ran in one execution is
 * paired with the k-th XU that thread ran in every other; a thread that
 * ran fewer leaves missing values. Exact for statically scheduled loops
 * (the same ranges on the same threads every time), wrong wherever a
 * dynamic schedule moves work between threads: what labels (lgl) and
 * behaviour clustering (bc) are for. */
#include <stdlib.h>
#include "combine/combine_impl.h"
#include "util/internal.h"

struct by_thread {
	int32_t thread;
	uint64_t start;
	uint32_t x;
};

/* By thread, then start time, then XU index. */
static int cmp_thread(const void *a, const void *b)
{
	const struct by_thread *p = a, *q = b;
	if (p->thread != q->thread)
		return p->thread < q->thread ? -1 : 1;
	if (p->start != q->start)
		return p->start < q->start ? -1 : 1;
	return (p->x > q->x) - (p->x < q->x);
}

/* How many XUs of thread th start at key[pos], before end. */
static size_t run_of(const struct by_thread *key, size_t pos, size_t end, int32_t th)
{
	size_t k = pos;
	while (k < end && key[k].thread == th)
		k++;
	return k - pos;
}

/* Pairs group t: threads in increasing order, position by position. */
static int pair_group(struct pmcfi_cmb *c, uint32_t t, struct by_thread *const *key, size_t *const *start,
		      size_t *pos)
{
	for (size_t j = 0; j < c->n; j++)
		pos[j] = start[j][t];
	for (;;) {
		int any = 0;
		int32_t th = 0;
		for (size_t j = 0; j < c->n; j++)
			if (pos[j] < start[j][t + 1] && (!any || key[j][pos[j]].thread < th)) {
				th = key[j][pos[j]].thread;
				any = 1;
			}
		if (!any)
			return 0;
		size_t most = 0;
		for (size_t j = 0; j < c->n; j++) {
			size_t r = run_of(key[j], pos[j], start[j][t + 1], th);
			most = r > most ? r : most;
		}
		for (size_t k = 0; k < most; k++) {
			long f = pmcfi_cmb_add(c, t);
			if (f < 0)
				return pmcfi_fail(PMCF_ENOMEM, "out of memory pairing XUs");
			for (size_t j = 0; j < c->n; j++)
				if (k < run_of(key[j], pos[j], start[j][t + 1], th))
					c->src[(size_t)f * c->n + j] = (int32_t)key[j][pos[j] + k].x;
		}
		for (size_t j = 0; j < c->n; j++)
			pos[j] += run_of(key[j], pos[j], start[j][t + 1], th);
	}
}

int pmcfi_cmb_naive(struct pmcfi_cmb *c)
{
	uint32_t **idx = calloc(c->n, sizeof(*idx));
	size_t **start = calloc(c->n, sizeof(*start)), *pos = calloc(c->n, sizeof(*pos));
	struct by_thread **key = calloc(c->n, sizeof(*key));
	int err = idx && start && pos && key ? 0 : pmcfi_fail(PMCF_ENOMEM, "out of memory");
	for (size_t j = 0; j < c->n && !err; j++) {
		if ((err = pmcfi_cmb_by_type(c, j, &idx[j], &start[j])))
			break;
		size_t nx = pmcf_profile_nxus(c->in[j]);
		key[j] = malloc((nx ? nx : 1) * sizeof(**key));
		if (!key[j]) {
			err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
			break;
		}
		for (size_t k = 0; k < nx; k++) {
			pmcf_xu xu = PMCF_XU_INIT;
			pmcf_profile_xu_fields_get(c->in[j], idx[j][k], &xu);
			key[j][k] = (struct by_thread){xu.thread, xu.start_ns, idx[j][k]};
		}
		for (uint32_t t = 0; t < c->ntypes; t++)
			qsort(key[j] + start[j][t], start[j][t + 1] - start[j][t], sizeof(**key), cmp_thread);
	}
	for (uint32_t t = 0; t < c->ntypes && !err; t++)
		err = pair_group(c, t, key, start, pos);
	for (size_t j = 0; j < c->n; j++) {
		if (idx)
			free(idx[j]);
		if (start)
			free(start[j]);
		if (key)
			free(key[j]);
	}
	free(idx);
	free(start);
	free(key);
	free(pos);
	return err;
}
