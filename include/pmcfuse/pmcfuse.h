/* pmcfuse — the umbrella header: the whole public API. Each module header
 * stands on its own (it includes pmcfuse/base.h and the module headers
 * whose types it uses); include one of them for one module, or this one
 * for everything. The ABI rule and the lifecycle vocabulary are in
 * pmcfuse/base.h (docs/abi.md). */
#ifndef PMCFUSE_PMCFUSE_H
#define PMCFUSE_PMCFUSE_H

#include "pmcfuse/base.h"
#include "pmcfuse/campaign.h"
#include "pmcfuse/categorize.h"
#include "pmcfuse/collect.h"
#include "pmcfuse/combine.h"
#include "pmcfuse/evaluate.h"
#include "pmcfuse/events.h"
#include "pmcfuse/export.h"
#include "pmcfuse/hbbp.h"
#include "pmcfuse/multiplex.h"
#include "pmcfuse/plan.h"
#include "pmcfuse/profile.h"
#include "pmcfuse/refdir.h"
#include "pmcfuse/report.h"
#include "pmcfuse/sim.h"
#include "pmcfuse/source.h"
#include "pmcfuse/task.h"
#endif
