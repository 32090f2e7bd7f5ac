/* A pthread task runtime instrumented with the pmcfuse task API: a root
 * creates FAN "split" tasks; each split creates FAN "leaf" tasks, pauses
 * while they run on the workers, then resumes. Leaves first-touch PAGES*k
 * pages. Usage: taskapi [THREADS [FAN [PAGES]]] (default 4 4 8). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include "pmcfuse/task.h"

struct job {
	pmcf_task_id id;
	int kind, k; /* 0 split, 1 leaf */
	struct job *parent;
	int pending; /* split: leaves not yet done */
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static struct job *queue[4096];
static int qn, fan, pages, remaining;
static uint32_t t_split, t_leaf;

static void push(struct job *j)
{
	pthread_mutex_lock(&mu);
	queue[qn++] = j;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
}

static void touch(int n)
{
	size_t len = (size_t)n * 4096;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return;
	for (int i = 0; i < n; i++)
		p[(size_t)i * 4096] = 1;
	munmap(p, len);
}

static void run(struct job *j)
{
	pmcf_task_begin(j->id);
	if (j->kind == 1) {
		touch(pages * (1 + j->k));
		pmcf_task_end(j->id);
		pthread_mutex_lock(&mu);
		j->parent->pending--;
		remaining--;
		pthread_cond_broadcast(&cv);
		pthread_mutex_unlock(&mu);
		return;
	}
	touch(1);
	struct job *leaves = calloc((size_t)fan, sizeof(*leaves));
	j->pending = fan;
	for (int i = 0; i < fan; i++) {
		leaves[i] = (struct job){pmcf_task_create(j->id, t_leaf), 1, i, j, 0};
		push(&leaves[i]);
	}
	pmcf_task_pause(j->id); /* waiting for the children: not our counts */
	pthread_mutex_lock(&mu);
	while (j->pending)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	pmcf_task_begin(j->id);
	touch(2);
	pmcf_task_end(j->id);
	free(leaves);
	pthread_mutex_lock(&mu);
	remaining--;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
}

static void *worker(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_mutex_lock(&mu);
		while (qn == 0 && remaining > 0)
			pthread_cond_wait(&cv, &mu);
		if (qn == 0) {
			pthread_mutex_unlock(&mu);
			return NULL;
		}
		struct job *j = queue[--qn];
		pthread_mutex_unlock(&mu);
		run(j);
	}
}

int main(int argc, char **argv)
{
	int nt = argc > 1 ? atoi(argv[1]) : 4;
	fan = argc > 2 ? atoi(argv[2]) : 4;
	pages = argc > 3 ? atoi(argv[3]) : 8;
	if (nt < 1 || nt > 64 || fan < 1 || fan > 60)
		return 2;
	pmcf_task_type("split", &t_split);
	pmcf_task_type("leaf", &t_leaf);
	remaining = fan + fan * fan;
	struct job *splits = calloc((size_t)fan, sizeof(*splits));
	for (int i = 0; i < fan; i++) {
		splits[i] = (struct job){pmcf_task_create(PMCF_TASK_ROOT, t_split), 0, i, NULL, 0};
		push(&splits[i]);
	}
	pthread_t th[64];
	for (int i = 0; i < nt; i++)
		pthread_create(&th[i], NULL, worker, NULL);
	for (int i = 0; i < nt; i++)
		pthread_join(th[i], NULL);
	printf("taskapi: %d tasks on %d threads (recording: %d)\n", fan + fan * fan, nt,
	       pmcf_task_recording());
	free(splits);
	return 0;
}
