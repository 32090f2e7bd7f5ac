/* The in-process recorder of the collector tool: per-thread counter groups,
 * per-thread MAP_SHARED record files, node creation and XU segments. The
 * begin/end calls allocate nothing and take no lock. */
#ifndef PMCF_COLLECT_RT_H
#define PMCF_COLLECT_RT_H
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
#include "collect/rec.h"
#include "counters/perf_group.h"
#include "pmcfuse/profile.h"

#define RT_MAX_NEST 64

/* A running implicit task (OpenMP) on this thread. */
struct pmcfi_rt_itask {
	uint64_t par_node;  /* its parallel region (PMCFI_ROOT for the initial task) */
	uint32_t tid, team; /* thread number in the team, team size */
	uint64_t ws;        /* worksharing loops encountered so far */
	uint64_t loop_node; /* current loop instance, 0 outside loops */
	uint64_t loop_addr;
	uint32_t loop_static;
	uint64_t active_xu; /* current loop chunk/range XU, 0 when none */
	int initial;
	int in_single; /* inside a single construct this thread executes */
};

struct pmcfi_rt_thread {
	struct pmcfi_pgroup group;
	uint32_t index; /* registration order in the process */
	uint64_t seq;   /* node sequence */
	struct pmcfi_rec_header *hdr;
	unsigned char *recs; /* first record of the mapped chunk */
	uint32_t chunk;
	size_t map_bytes;          /* size of the mapped chunk (they grow: first_chunk_bytes()) */
	size_t ready;              /* bytes of it ready from its start (rt.c: grow) */
	uint64_t ready_recs;       /* records that fit in them */
	unsigned char *prefetched; /* record bytes before it are prefetched (commit) */
	int stopped;               /* no next chunk could be made: records beyond are dropped */
	/* the open segment */
	uint64_t open_node;
	uint64_t t0;
	int32_t cpu;
	/* an untied task that gave the thread back to libomp to be queued again
	 * (a switch to no XU, not its end): its segment is held open without a
	 * reading until the thread's next boundary, which either resumes that
	 * same task (no reading at all) or ends the segment (the one reading
	 * that also starts what comes next); 0 when none (rt_seg_hold) */
	uint64_t held;
	uint64_t before; /* the XU that gave way to the open one (rt_seg_switch's prev) */
	/* samp[cur]: the counters at the open segment's start; the other is
	 * where the next reading goes (rt_seg_switch) */
	struct pmcfi_pgroup_sample samp[2];
	int cur;
	/* the thread XU (fallback when nothing else is recorded) */
	uint64_t thread_node, thread_t0;
	int32_t thread_cpu;
	struct pmcfi_pgroup_sample thread_start;
	/* OpenMP implicit tasks, innermost last */
	struct pmcfi_rt_itask itasks[RT_MAX_NEST];
	int nitasks;
	/* task API: tasks running on this thread, innermost last; for each, the
	 * segment open when it began (resumed when it ends or pauses: an outer
	 * API task or an OpenMP XU) and the implicit-task depth it began at */
	uint64_t api_stack[RT_MAX_NEST];
	uint64_t api_resume[RT_MAX_NEST];
	int api_level[RT_MAX_NEST];
	int napi;
	/* taskloops being met on this thread, innermost last: the address
	 * libomp gives their tasks (inside __kmpc_taskloop, the same for every
	 * taskloop) and the program's call site that stands for it */
	uint64_t tl_lib[RT_MAX_NEST], tl_user[RT_MAX_NEST];
	int ntl;
	/* set once, by whoever ends the thread XU: the thread itself
	 * (rt_thread_fini) or the exiting thread (process_fini) */
	_Atomic int dead;
	/* user-space multiplexing (rr, roc): the scheduler, the counters on now,
	 * the per-thread cpu-time timer whose signal rotates them, and the guard
	 * that defers a rotation arriving while the thread reads its counters */
	struct pmcfi_mux *mux;
	uint8_t mux_on[PMCFI_PGROUP_MAX];
	timer_t timer;
	int has_timer;
	volatile sig_atomic_t busy, pending;
	uint32_t rotations;
};

/* 1 when the process records (PMCF_COLLECT_DIR set and setup succeeded). */
int rt_active(void);
/* Sets the process up from the environment; idempotent. 0, or -1 after
 * writing the reason to <dir>/error and one `pmcfuse:` line on stderr. */
int rt_process_init(void);
/* This thread's recorder, set up on first use; NULL when inactive or when
 * the thread could not be set up. */
struct pmcfi_rt_thread *rt_self(void);
/* Ends the thread XU and retires the thread (thread exit, process exit). */
void rt_thread_fini(struct pmcfi_rt_thread *t);
/* Writes a node record and returns its id. */
uint64_t rt_node(struct pmcfi_rt_thread *t, uint32_t kind, uint64_t parent, uint64_t addr, uint64_t a,
		 uint64_t b, uint32_t flags);
/* rt_node of a task whose entry routine (the function the runtime calls to
 * run it) is at entry (0 unknown). */
uint64_t rt_node_entry(struct pmcfi_rt_thread *t, uint32_t kind, uint64_t parent, uint64_t addr, uint64_t a,
		       uint64_t b, uint32_t flags, uint64_t entry);
/* Implicit tasks this thread is in, the initial task not counted (it may
 * start after the program's first task-API call). */
static inline int rt_omp_depth(const struct pmcfi_rt_thread *t)
{
	return t->nitasks - (t->nitasks > 0 && t->itasks[0].initial);
}
/* The task-API task running innermost on this thread when it began at the
 * current OpenMP implicit-task depth (it then encloses what the thread
 * meets now), else PMCFI_ROOT. */
static inline uint64_t rt_api_enclosing(const struct pmcfi_rt_thread *t)
{
	return t && t->napi > 0 && t->api_level[t->napi - 1] == rt_omp_depth(t) ? t->api_stack[t->napi - 1]
										: PMCFI_ROOT;
}
/* What runs on this thread when the OpenMP XU ending (0: none) ends and no
 * other begins: the enclosing task-API task, if any (its counts exclude the
 * XUs inside it), else 0. */
static inline uint64_t rt_after(const struct pmcfi_rt_thread *t, uint64_t ending)
{
	if (!t || t->napi == 0 || (t->open_node && t->open_node != ending))
		return 0;
	return t->api_stack[t->napi - 1];
}
/* Opens a segment of XU node on this thread (closing any open one). */
void rt_seg_begin(struct pmcfi_rt_thread *t, uint64_t node);
/* Closes the open segment when it belongs to node; final marks the XU done. */
void rt_seg_end(struct pmcfi_rt_thread *t, uint64_t node, int final);
/* One XU boundary with one counter reading: closes the open segment when it
 * is prev's (final: prev is done) or when next is not 0 (then any open
 * segment ends, not final), and opens a segment of next (0: none) whose
 * start is the same reading and timestamp. */
void rt_seg_switch(struct pmcfi_rt_thread *t, uint64_t prev, int final, uint64_t next);
/* An XU boundary that may not be one: prev (the open segment's XU) switches
 * to next without ending. A switch to itself, or back to a held XU, costs
 * nothing; a switch from prev back to what ran before it (next is no XU, or
 * the XU whose segment prev's began with: an untied task queued again)
 * holds prev's segment (t->held) instead of reading; otherwise it returns 0
 * and the caller makes the boundary (rt_seg_switch). Returns 1 when it took
 * no reading. */
int rt_seg_maybe(struct pmcfi_rt_thread *t, uint64_t prev, uint64_t next);
/* Writes a small marker file <dir>/<name>-<pid> holding text. */
void rt_mark(const char *name, const char *text);
/* Snapshot of /proc/self/maps into <dir>/maps-<pid>. */
void rt_write_maps(void);
uint64_t rt_now(void);

/* The task API entry points the library's pmcf_task_* calls reach through
 * the exported table (task.h semantics). */
struct pmcfi_task_rt {
	uint32_t version;
	int (*type)(const char *name, uint32_t *id);
	uint64_t (*create)(uint64_t parent, uint32_t type);
	void (*begin)(uint64_t task);
	void (*pause)(uint64_t task);
	void (*end)(uint64_t task);
	uint64_t (*current)(void);
};
#endif
