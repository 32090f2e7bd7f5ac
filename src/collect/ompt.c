/* The OMPT side of libpmcfuse-ompt.so: turns OpenMP events into the XUs of
 * fuse-openmp §2 (explicit task instances, loop chunks, static iteration
 * ranges) and the creation-tree records the reader labels per §4.1. */
#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp-tools.h>
#include "collect/rt.h"

/* task_data: explicit task = node << 1 | 1; implicit task = struct pmcfi_rt_itask *. */
static inline uint64_t tag_explicit(uint64_t node) { return node << 1 | 1; }

static struct pmcfi_rt_itask *as_itask(ompt_data_t *d)
{
	return d && d->value && !(d->value & 1) ? (struct pmcfi_rt_itask *)d->ptr : NULL;
}

/* fuse-openmp §4.1 ranks a construct met directly inside a parallel region
 * by the TID of the thread that met it. Inside `single` that TID is whichever
 * thread won the construct, so the labels of the (very common) parallel +
 * single + tasks pattern change from run to run and LGL cannot match them.
 * Our improvement ranks such constructs as if TID 0 had met them: one thread
 * executes a single region, in program order, so the ranks are stable.
 * PMCFUSE_LABELS=paper keeps the paper's rule (docs/collector.md). */
static int paper_labels;

/* The creating context of a construct encountered in task d (fuse-openmp
 * §4.1's par): the running explicit task, the running loop chunk/range, the
 * parallel region (forced TID rank), or the root. */
static uint64_t context(struct pmcfi_rt_thread *t, ompt_data_t *d, uint32_t *flags, uint64_t *a, uint64_t *b)
{
	*flags = 0;
	*a = *b = 0;
	/* a task-API task begun in this implicit task (and not inside an XU
	 * that began after it) encloses the construct: a region is an XU whose
	 * children are the OpenMP XUs met inside it */
	uint64_t api = rt_api_enclosing(t);
	if (!d || !d->value)
		return api;
	if (d->value & 1) {
		uint64_t x = d->value >> 1;
		return api != PMCFI_ROOT && t->open_node == api ? api : x;
	}
	struct pmcfi_rt_itask *it = d->ptr;
	if (api != PMCFI_ROOT && (!it->active_xu || t->open_node == api))
		return api;
	if (it->active_xu)
		return it->active_xu;
	if (it->initial)
		return PMCFI_ROOT;
	*flags = PMCFI_F_FORCED;
	*a = it->in_single && !paper_labels ? 0 : it->tid;
	*b = it->team;
	return it->par_node;
}

static void on_thread_begin(ompt_thread_t type, ompt_data_t *thread_data)
{
	(void)type;
	(void)thread_data;
	rt_self();
}

static void on_parallel_begin(ompt_data_t *encountering, const ompt_frame_t *frame, ompt_data_t *parallel,
			      unsigned int requested, int flags, const void *ra)
{
	(void)frame;
	(void)requested;
	(void)flags;
	struct pmcfi_rt_thread *t = rt_self();
	if (!t)
		return;
	uint32_t f;
	uint64_t a, b, parent = context(t, encountering, &f, &a, &b);
	parallel->value = rt_node(t, PMCFI_K_PARALLEL, parent, (uint64_t)(uintptr_t)ra, a, b, f);
}

static void on_implicit_task(ompt_scope_endpoint_t ep, ompt_data_t *parallel, ompt_data_t *task,
			     unsigned int team, unsigned int index, int flags)
{
	struct pmcfi_rt_thread *t = rt_self();
	if (!t)
		return;
	if (ep == ompt_scope_begin) {
		if (t->nitasks == RT_MAX_NEST) {
			task->value = 0;
			return;
		}
		struct pmcfi_rt_itask *it = &t->itasks[t->nitasks++];
		memset(it, 0, sizeof(*it));
		it->initial = (flags & ompt_task_initial) != 0;
		it->par_node = it->initial || !parallel ? PMCFI_ROOT : parallel->value;
		it->tid = index;
		it->team = team;
		task->ptr = it;
		return;
	}
	struct pmcfi_rt_itask *it = as_itask(task);
	if (!it)
		return;
	uint64_t x = it->active_xu;
	if (t->nitasks > 0 && &t->itasks[t->nitasks - 1] == it)
		t->nitasks--;
	task->value = 0;
	rt_seg_switch(t, x, 1, rt_after(t, x)); /* one reading */
}

/* The entry routine of an explicit task (what libomp calls to run it:
 * clang's .omp_task_entry. function of the construct). OMPT does not give
 * it, but the task_data libomp hands to task_create lies in the task's
 * kmp_taskdata_t, which the kmp_task_t {shareds, routine, part_id, ...}
 * follows. Its offset is libomp's build: the first task created finds it,
 * looking for a slot that holds an address in executable code of the
 * program (not libomp's, not this tool's) right after one that holds NULL
 * or an address just beyond it (shareds, allocated behind the task). Every
 * task after reads that slot and keeps the value only when it is such
 * code. Tasks of two constructs that the compiler merged into one creating
 * call (if/else at -O2) are told apart by it (docs/collector.md, "Types"). */
struct xrange {
	uint64_t lo, hi;
};
static struct xrange xtext[32];
static int nxtext;
static const char *rt_lib, *tool_lib;
static _Atomic long entry_slot = -1; /* -1 not found yet, -2 none */

static int phdr_text(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	(void)data;
	const char *nm = info->dlpi_name ? info->dlpi_name : "";
	if ((rt_lib && strcmp(nm, rt_lib) == 0) || (tool_lib && strcmp(nm, tool_lib) == 0) ||
	    strstr(nm, "linux-vdso"))
		return 0;
	for (int i = 0; i < info->dlpi_phnum && nxtext < (int)(sizeof(xtext) / sizeof(xtext[0])); i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X))
			xtext[nxtext++] = (struct xrange){info->dlpi_addr + ph->p_vaddr,
							  info->dlpi_addr + ph->p_vaddr + ph->p_memsz};
	}
	return 0;
}

static int in_text(uint64_t a)
{
	for (int i = 0; i < nxtext; i++)
		if (a >= xtext[i].lo && a < xtext[i].hi)
			return 1;
	return 0;
}

static uint64_t task_entry(const ompt_data_t *task)
{
	const uint64_t *p = (const uint64_t *)task;
	long s = atomic_load_explicit(&entry_slot, memory_order_relaxed);
	if (s == -1) {
		s = -2;
		for (long i = 1; i < 48 && s == -2; i++) {
			uint64_t sh = p[i - 1], here = (uint64_t)(uintptr_t)&p[i - 1];
			if (in_text(p[i]) && (sh == 0 || (sh > here && sh - here < 65536)))
				s = i;
		}
		atomic_store_explicit(&entry_slot, s, memory_order_relaxed);
	}
	return s >= 0 && in_text(p[s]) ? p[s] : 0;
}

static void on_task_create(ompt_data_t *encountering, const ompt_frame_t *frame, ompt_data_t *task, int flags,
			   int has_dependences, const void *ra)
{
	(void)frame;
	(void)has_dependences;
	if (!(flags & ompt_task_explicit)) {
		task->value = 0;
		return;
	}
	struct pmcfi_rt_thread *t = rt_self();
	if (!t) {
		task->value = 0;
		return;
	}
	uint32_t f;
	uint64_t a, b, parent = context(t, encountering, &f, &a, &b);
	uint64_t addr = (uint64_t)(uintptr_t)ra;
	if (t->ntl > 0 && t->ntl <= RT_MAX_NEST && addr == t->tl_lib[t->ntl - 1])
		addr = t->tl_user[t->ntl - 1]; /* a task of the taskloop being met */
	uint64_t node = rt_node_entry(t, PMCF_XU_TASK, parent, addr, a, b, f, task_entry(task));
	task->value = tag_explicit(node);
}

/* The XU a task runs when it is scheduled: itself, or its loop chunk. */
static uint64_t running_xu(ompt_data_t *d)
{
	if (!d || !d->value)
		return 0;
	if (d->value & 1)
		return d->value >> 1;
	return ((struct pmcfi_rt_itask *)d->ptr)->active_xu;
}

static void on_task_schedule(ompt_data_t *prior, ompt_task_status_t status, ompt_data_t *next)
{
	if (status == ompt_task_early_fulfill || status == ompt_task_late_fulfill)
		return;
	struct pmcfi_rt_thread *t = rt_self();
	if (!t)
		return;
	uint64_t p = running_xu(prior);
	int final =
		p && (prior->value & 1) &&
		(status == ompt_task_complete || status == ompt_task_cancel || status == ompt_task_detach);
	/* one counter reading ends prior's segment and starts next's (or the
	 * enclosing task-API task's when the thread returns to it) */
	uint64_t n = running_xu(next);
	n = n ? n : rt_after(t, p);
	/* an untied task meets each task scheduling point by queueing itself
	 * again and returning to libomp, which soon runs it again: libomp
	 * reports a switch to the parent, then one back (on one thread, a
	 * switch of the task to itself); and at a taskwait with nothing to run
	 * a task switches to itself. None of these is a boundary: one reading
	 * per actual boundary, whatever the tying (docs/collector.md) */
	if (!final && status == ompt_task_switch && rt_seg_maybe(t, p, n))
		return;
	rt_seg_switch(t, p, final, n);
}

/* A thread begins to wait at a barrier, taskwait or taskgroup: a held
 * untied task (rt_seg_maybe) did not resume here, so its segment ends now
 * and not after the wait. */
static void on_sync_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t ep, ompt_data_t *parallel,
			 ompt_data_t *task, const void *ra)
{
	(void)kind;
	(void)parallel;
	(void)task;
	(void)ra;
	struct pmcfi_rt_thread *t = ep == ompt_scope_begin ? rt_self() : NULL;
	if (t && t->held)
		rt_seg_switch(t, t->held, 0, rt_after(t, t->held));
}

/* Static or dynamic schedule? libomp reports both as ompt_work_loop; the
 * call at the construct's return address tells: __kmpc_for_static_init_*
 * or __kmpc_dispatch_init_*. The call is direct (e8) or through the GOT
 * (ff 15); a PLT stub (ff 25, possibly after endbr64/bnd) is followed. */
static const void *static_inits[8];
static int nstatic_inits;

static const void *follow_plt(const unsigned char *p)
{
	int32_t d;
	if (p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa)
		p += 4;
	if (p[0] == 0xf2)
		p++;
	if (p[0] == 0xff && p[1] == 0x25) {
		memcpy(&d, p + 2, 4);
		const void *const *slot = (const void *const *)(p + 6 + d);
		return *slot;
	}
	return p;
}

static int is_static_loop(const void *ra)
{
	const unsigned char *r = ra;
	const void *target = NULL;
	int32_t d;
	if (!r)
		return 0;
	if (r[-5] == 0xe8) {
		memcpy(&d, r - 4, 4);
		target = follow_plt(r + d);
	} else if (r[-6] == 0xff && r[-5] == 0x15) {
		memcpy(&d, r - 4, 4);
		target = *(const void *const *)(r + d);
	}
	for (int i = 0; i < nstatic_inits; i++)
		if (target == static_inits[i])
			return 1;
	return 0;
}

/* The program's call site of the OpenMP runtime call that ra (an address
 * inside the runtime) belongs to: the first return address on this stack
 * in neither the runtime's object nor this tool's; ra when there is none.
 * libomp gives a taskloop's tasks and its work callback an address inside
 * __kmpc_taskloop, the same for every taskloop of the program, so that
 * without this all taskloops would be one type named after libomp. Called
 * once per taskloop. */
static uint64_t program_call_site(const void *ra)
{
	Dl_info lib, self;
	if (!dladdr(ra, &lib) || !dladdr((void *)program_call_site, &self))
		return (uint64_t)(uintptr_t)ra;
	void *frames[24];
	int n = backtrace(frames, 24);
	for (int i = 1; i < n; i++) {
		Dl_info d;
		if (dladdr(frames[i], &d) && d.dli_fbase != lib.dli_fbase && d.dli_fbase != self.dli_fbase)
			return (uint64_t)(uintptr_t)frames[i];
	}
	return (uint64_t)(uintptr_t)ra;
}

/* A taskloop begins or ends on this thread (its tasks are created in
 * between, on this thread). */
static void on_taskloop(ompt_scope_endpoint_t ep, const void *ra)
{
	struct pmcfi_rt_thread *t = rt_self();
	if (!t)
		return;
	if (ep == ompt_scope_begin) {
		if (t->ntl < RT_MAX_NEST) {
			t->tl_lib[t->ntl] = (uint64_t)(uintptr_t)ra;
			t->tl_user[t->ntl] = program_call_site(ra);
		}
		t->ntl++;
	} else if (t->ntl > 0)
		t->ntl--;
}

static void on_work(ompt_work_t kind, ompt_scope_endpoint_t ep, ompt_data_t *parallel, ompt_data_t *task,
		    uint64_t count, const void *ra)
{
	(void)parallel;
	if (kind == ompt_work_taskloop) {
		on_taskloop(ep, ra);
		return;
	}
	if (kind == ompt_work_single_executor) {
		struct pmcfi_rt_itask *st = as_itask(task);
		if (st)
			st->in_single += ep == ompt_scope_begin ? 1 : st->in_single > 0 ? -1 : 0;
		return;
	}
	if (kind != ompt_work_loop && !(kind >= ompt_work_loop_static && kind <= ompt_work_loop_other))
		return;
	struct pmcfi_rt_thread *t = rt_self();
	struct pmcfi_rt_itask *it = as_itask(task);
	if (!t || !it)
		return;
	if (ep == ompt_scope_begin) {
		it->ws++;
		it->loop_static =
			kind == ompt_work_loop_static || (kind == ompt_work_loop && is_static_loop(ra));
		it->loop_addr = (uint64_t)(uintptr_t)ra;
		uint32_t f = it->loop_static ? PMCFI_F_STATIC : 0;
		uint64_t api = rt_api_enclosing(t);
		uint64_t parent = api != PMCFI_ROOT ? api : it->initial ? PMCFI_ROOT : it->par_node;
		it->loop_node = rt_node(t, PMCFI_K_LOOP, parent, it->loop_addr, it->ws, 0, f);
		/* A team of one (OMP_NUM_THREADS=1, a serialized or orphaned
		 * loop): libomp runs the whole iteration space without a dispatch
		 * callback. It is that thread's range: logical iterations from 0
		 * (clang passes the normalised space to __kmpc_for_static_init),
		 * count of them. */
		if (it->loop_static && it->team <= 1) {
			it->active_xu =
				rt_node(t, PMCF_XU_LOOP_RANGE, it->loop_node, it->loop_addr, 0, count, 0);
			rt_seg_begin(t, it->active_xu);
		}
		return;
	}
	uint64_t x = it->active_xu;
	it->active_xu = 0;
	it->loop_node = 0;
	rt_seg_switch(t, x, 1, rt_after(t, x)); /* one reading */
}

static void on_dispatch(ompt_data_t *parallel, ompt_data_t *task, ompt_dispatch_t kind, ompt_data_t instance)
{
	(void)parallel;
	if (kind != ompt_dispatch_ws_loop_chunk)
		return;
	struct pmcfi_rt_thread *t = rt_self();
	struct pmcfi_rt_itask *it = as_itask(task);
	if (!t || !it || !it->loop_node)
		return;
	const ompt_dispatch_chunk_t *c = instance.ptr;
	uint64_t prev = it->active_xu;
	uint32_t xk = it->loop_static ? PMCF_XU_LOOP_RANGE : PMCF_XU_LOOP_CHUNK;
	it->active_xu = rt_node(t, xk, it->loop_node, it->loop_addr, c->start, c->iterations, 0);
	rt_seg_switch(t, prev, 1, it->active_xu); /* one reading: prev's end, the chunk's start */
}

static int ompt_init(ompt_function_lookup_t lookup, int initial_device, ompt_data_t *tool_data)
{
	(void)initial_device;
	(void)tool_data;
	ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
	if (!set)
		return 0;
	Dl_info di;
	if (dladdr((void *)(uintptr_t)set, &di) && di.dli_fname)
		rt_lib = di.dli_fname;
	if (dladdr((void *)(uintptr_t)ompt_init, &di) && di.dli_fname)
		tool_lib = di.dli_fname;
	dl_iterate_phdr(phdr_text, NULL);
	const char *lab = getenv("PMCFUSE_LABELS");
	paper_labels = lab && strcmp(lab, "paper") == 0;
	static const char *const inits[] = {"__kmpc_for_static_init_4", "__kmpc_for_static_init_4u",
					    "__kmpc_for_static_init_8", "__kmpc_for_static_init_8u"};
	for (size_t i = 0; i < sizeof(inits) / sizeof(inits[0]); i++) {
		void *f = dlsym(RTLD_DEFAULT, inits[i]);
		if (f)
			static_inits[nstatic_inits++] = f;
	}
	struct {
		ompt_callbacks_t which;
		ompt_callback_t fn;
		const char *name;
	} cbs[] = {
		{ompt_callback_thread_begin, (ompt_callback_t)on_thread_begin, "thread_begin"},
		{ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin, "parallel_begin"},
		{ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task, "implicit_task"},
		{ompt_callback_task_create, (ompt_callback_t)on_task_create, "task_create"},
		{ompt_callback_task_schedule, (ompt_callback_t)on_task_schedule, "task_schedule"},
		{ompt_callback_work, (ompt_callback_t)on_work, "work"},
		{ompt_callback_dispatch, (ompt_callback_t)on_dispatch, "dispatch"},
		{ompt_callback_sync_region_wait, (ompt_callback_t)on_sync_wait, "sync_region_wait"},
	};
	char missing[256] = "";
	for (size_t i = 0; i < sizeof(cbs) / sizeof(cbs[0]); i++) {
		int r = set(cbs[i].which, cbs[i].fn);
		if (r != ompt_set_always) {
			size_t l = strlen(missing);
			snprintf(missing + l, sizeof(missing) - l, "%s%s", l ? "," : "", cbs[i].name);
		}
	}
	rt_mark("ompt-callbacks", missing[0] ? missing : "all");
	return 1;
}

static void ompt_fini(ompt_data_t *tool_data)
{
	(void)tool_data;
	rt_write_maps();
}

__attribute__((visibility("default"))) ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
										 const char *runtime_version);
ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version)
{
	static ompt_start_tool_result_t result = {ompt_init, ompt_fini, {0}};
	if (rt_process_init() != 0)
		return NULL;
	char text[256];
	snprintf(text, sizeof(text), "%u %s\n", omp_version, runtime_version ? runtime_version : "");
	rt_mark("ompt", text);
	return &result;
}
