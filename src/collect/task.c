/* The task API of libpmcfuse (include/pmcfuse/task.h): forwards to the
 * recorder of libpmcfuse-ompt.so when `pmcfuse record` preloaded it, and
 * does nothing otherwise. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include "collect/rt.h"
#include "pmcfuse/task.h"

static const struct pmcfi_task_rt *rt;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void find_rt(void)
{
	const struct pmcfi_task_rt *t = dlsym(RTLD_DEFAULT, "pmcfi_task_rt_v1");
	if (t && t->version >= 1)
		rt = t;
}

static inline const struct pmcfi_task_rt *get(void)
{
	pthread_once(&once, find_rt);
	return rt;
}

int pmcf_task_recording(void)
{
	const char *dir = getenv(PMCFI_ENV_DIR);
	return get() && dir && *dir;
}

int pmcf_task_type(const char *name, uint32_t *type)
{
	*type = 0;
	if (!get())
		return PMCF_ENOTSUP;
	return rt->type(name, type);
}

pmcf_task_id pmcf_task_create(pmcf_task_id parent, uint32_t type)
{
	return get() ? rt->create(parent, type) : 0;
}

void pmcf_task_begin(pmcf_task_id task)
{
	if (get())
		rt->begin(task);
}

void pmcf_task_pause(pmcf_task_id task)
{
	if (get())
		rt->pause(task);
}

void pmcf_task_end(pmcf_task_id task)
{
	if (get())
		rt->end(task);
}

pmcf_task_id pmcf_task_current(void) { return get() ? rt->current() : PMCF_TASK_ROOT; }
