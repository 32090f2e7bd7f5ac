/* Bench baseline: a null OMPT tool. It registers the callbacks the collector
 * registers (src/collect/ompt.c) and does nothing in them, so a program run
 * under it pays libomp's own cost of having a tool attached (callback
 * dispatch, frame and return-address bookkeeping) and nothing of ours.
 * bench_collect loads it with OMP_TOOL_LIBRARIES and reports the collector's
 * per-XU cost beyond it. */
#include <omp-tools.h>

static void on_thread_begin(ompt_thread_t type, ompt_data_t *thread_data)
{
	(void)type;
	(void)thread_data;
}

static void on_parallel_begin(ompt_data_t *encountering, const ompt_frame_t *frame, ompt_data_t *parallel,
			      unsigned int requested, int flags, const void *ra)
{
	(void)encountering, (void)frame, (void)parallel, (void)requested, (void)flags, (void)ra;
}

static void on_implicit_task(ompt_scope_endpoint_t ep, ompt_data_t *parallel, ompt_data_t *task,
			     unsigned int team, unsigned int index, int flags)
{
	(void)ep, (void)parallel, (void)task, (void)team, (void)index, (void)flags;
}

static void on_task_create(ompt_data_t *encountering, const ompt_frame_t *frame, ompt_data_t *task, int flags,
			   int has_dependences, const void *ra)
{
	(void)encountering, (void)frame, (void)task, (void)flags, (void)has_dependences, (void)ra;
}

static void on_task_schedule(ompt_data_t *prior, ompt_task_status_t status, ompt_data_t *next)
{
	(void)prior, (void)status, (void)next;
}

static void on_work(ompt_work_t kind, ompt_scope_endpoint_t ep, ompt_data_t *parallel, ompt_data_t *task,
		    uint64_t count, const void *ra)
{
	(void)kind, (void)ep, (void)parallel, (void)task, (void)count, (void)ra;
}

static void on_dispatch(ompt_data_t *parallel, ompt_data_t *task, ompt_dispatch_t kind, ompt_data_t instance)
{
	(void)parallel, (void)task, (void)kind, (void)instance;
}

static int null_init(ompt_function_lookup_t lookup, int initial_device, ompt_data_t *tool_data)
{
	(void)initial_device;
	(void)tool_data;
	ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
	if (!set)
		return 0;
	set(ompt_callback_thread_begin, (ompt_callback_t)on_thread_begin);
	set(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin);
	set(ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task);
	set(ompt_callback_task_create, (ompt_callback_t)on_task_create);
	set(ompt_callback_task_schedule, (ompt_callback_t)on_task_schedule);
	set(ompt_callback_work, (ompt_callback_t)on_work);
	set(ompt_callback_dispatch, (ompt_callback_t)on_dispatch);
	return 1;
}

static void null_fini(ompt_data_t *tool_data) { (void)tool_data; }

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version);
ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version)
{
	(void)omp_version;
	(void)runtime_version;
	static ompt_start_tool_result_t result = {null_init, null_fini, {0}};
	return &result;
}
