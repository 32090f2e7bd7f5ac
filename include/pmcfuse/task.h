/* pmcfuse — the task API: instrumentation calls for task runtimes that are
 * not OpenMP (the OpenStream case of fuse-task-parallel). Each task is an XU
 * labelled by its creation tree: label(root) = "0", label(t) =
 * label(parent(t)) "." childrank(t), ranks from 0 in creation order (§3.1).
 * The calls are thread-safe, allocate nothing and take no lock; outside
 * `pmcfuse record` they do nothing. */
#ifndef PMCFUSE_TASK_H
#define PMCFUSE_TASK_H

#include "pmcfuse/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A task; 0 is the root (the program's main flow). */
typedef uint64_t pmcf_task_id;
#define PMCF_TASK_ROOT ((pmcf_task_id)0)

/* 1 when the program runs under `pmcfuse record` (calls record), else 0. */
PMCF_API int pmcf_task_recording(void);

/* Declares a task type (e.g. "potrf") once; *type is its id. Returns 0, or
 * PMCF_ENOTSUP when not recording (then *type is 0 and every call below
 * still works and does nothing). */
PMCF_API int pmcf_task_type(const char *name, uint32_t *type);

/* Creates a task of type created by parent (PMCF_TASK_ROOT or a task that is
 * running on this thread): its rank is the number of tasks parent created
 * before. Children of one parent must be created by one thread at a time.
 * Returns the task's id (0 when not recording). */
PMCF_API pmcf_task_id pmcf_task_create(pmcf_task_id parent, uint32_t type);

/* Runs task on this thread from now: counting starts. A task already running
 * on this thread is suspended (its counts exclude task's) until task ends or
 * pauses. */
PMCF_API void pmcf_task_begin(pmcf_task_id task);
/* Suspends task (e.g. while it waits for its children); pmcf_task_begin
 * resumes it, on any thread. Its counts are the sum of its segments. */
PMCF_API void pmcf_task_pause(pmcf_task_id task);
/* Task is done. */
PMCF_API void pmcf_task_end(pmcf_task_id task);
/* The task running on this thread, or PMCF_TASK_ROOT. */
PMCF_API pmcf_task_id pmcf_task_current(void);

#ifdef __cplusplus
}
#endif
#endif
