/* `pmcfuse export --format otf2`: a profile as an OTF2 trace archive for
 * Vampir and the Score-P tools. One location per thread, an enter/leave pair
 * per XU with its type as the region, every event as a metric sampled at each
 * enter and leave (accumulated since the start, as Score-P records counters),
 * clock in ns from the XU timestamps. Built only with libotf2. */
#include "cli/export_otf2.h"
#include "cli/cli.h"
#include "pmcfuse/util.h"

#ifndef PMCF_HAVE_OTF2
int export_otf2(const pmcf_profile *p, const char *dir)
{
	(void)p;
	(void)dir;
	return cli_error("export", CLI_EENV,
			 "--format otf2: this pmcfuse was not built with OTF2 (install libotf2-trace-dev"
			 " and rebuild; see scripts/install-deps.sh)");
}
#else
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <otf2/otf2.h>

#define ARCHIVE_NAME "traces"
#define MAX_CLASS 255 /* members of one OTF2 metric class (uint8_t) */

/* The last message libotf2 reported (it would print it otherwise). */
static char otf2_msg[512];

static OTF2_ErrorCode keep_error(void *ud, const char *file, uint64_t line, const char *fn,
				 OTF2_ErrorCode code, const char *fmt, va_list va)
{
	(void)ud, (void)file, (void)line, (void)fn;
	int n = snprintf(otf2_msg, sizeof(otf2_msg), "%s", OTF2_Error_GetDescription(code));
	if (fmt && n >= 0 && (size_t)n + 2 < sizeof(otf2_msg)) {
		strcpy(otf2_msg + n, ": ");
		vsnprintf(otf2_msg + n + 2, sizeof(otf2_msg) - (size_t)n - 2, fmt, va);
	}
	return code;
}

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void *cd, bool final)
{
	(void)ud, (void)ft, (void)loc, (void)cd, (void) final;
	return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc)
{
	(void)ud, (void)ft, (void)loc;
	return 0;
}

/* One location: a thread's XUs that nest properly (lane 0), or, when XUs of
 * a thread overlap without nesting, the ones that did not fit (lane 1, ...). */
struct lane {
	int32_t thread;
	int lane;
	OTF2_EvtWriter *w;
	size_t *stack, depth, cap;
	double *acc; /* per exported event: sum over the XUs left so far */
	uint64_t nevents;
};

struct ox {
	const pmcf_profile *p;
	OTF2_Archive *a;
	size_t *ev; /* the exported events (those without a missing value) */
	size_t nev;
	OTF2_Type *types;
	OTF2_MetricValue *vals;
	struct lane *lanes;
	size_t nlanes, lanes_cap;
	int err; /* an OTF2 call failed, or out of memory */
};

static const pmcf_profile *sort_p;

/* By thread, then start, then longest first (an enclosing XU before the XUs
 * it encloses), then index. */
static int by_thread_time(const void *a, const void *b)
{
	pmcf_xu x, y;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	pmcf_profile_xu_get_fields(sort_p, i, &x);
	pmcf_profile_xu_get_fields(sort_p, j, &y);
	if (x.thread != y.thread)
		return x.thread < y.thread ? -1 : 1;
	if (x.start_ns != y.start_ns)
		return x.start_ns < y.start_ns ? -1 : 1;
	if (x.end_ns != y.end_ns)
		return x.end_ns > y.end_ns ? -1 : 1;
	return i < j ? -1 : i > j;
}

static void check(struct ox *o, OTF2_ErrorCode rc)
{
	if (rc != OTF2_SUCCESS && !o->err) {
		o->err = 1;
		if (!otf2_msg[0])
			snprintf(otf2_msg, sizeof(otf2_msg), "%s", OTF2_Error_GetDescription(rc));
	}
}

/* The metric records of lane l at time t: every exported event's
 * accumulated value, in classes of up to MAX_CLASS members. */
static void metrics(struct ox *o, struct lane *l, uint64_t t)
{
	for (size_t c = 0; c * MAX_CLASS < o->nev; c++) {
		size_t first = c * MAX_CLASS, n = o->nev - first < MAX_CLASS ? o->nev - first : MAX_CLASS;
		for (size_t k = 0; k < n; k++)
			o->vals[k].floating_point = l->acc[first + k];
		check(o,
		      OTF2_EvtWriter_Metric(l->w, NULL, t, (OTF2_MetricRef)c, (uint8_t)n, o->types, o->vals));
		l->nevents++;
	}
}

static void enter(struct ox *o, struct lane *l, size_t i)
{
	pmcf_xu x;
	pmcf_profile_xu_get_fields(o->p, i, &x);
	metrics(o, l, x.start_ns);
	check(o, OTF2_EvtWriter_Enter(l->w, NULL, x.start_ns, x.type));
	l->nevents++;
	if (pmcf_grow((void **)&l->stack, &l->cap, l->depth + 1, sizeof(*l->stack))) {
		o->err = 2;
		return;
	}
	l->stack[l->depth++] = i;
}

static void leave_top(struct ox *o, struct lane *l)
{
	size_t i = l->stack[--l->depth];
	pmcf_xu x;
	pmcf_profile_xu_get_fields(o->p, i, &x);
	for (size_t k = 0; k < o->nev; k++)
		l->acc[k] += pmcf_profile_value(o->p, i, o->ev[k]);
	metrics(o, l, x.end_ns);
	check(o, OTF2_EvtWriter_Leave(l->w, NULL, x.end_ns, x.type));
	l->nevents++;
}

/* Leaves the XUs of lane l that ended by time t. */
static void leave_until(struct ox *o, struct lane *l, uint64_t t)
{
	while (!o->err && l->depth) {
		pmcf_xu x;
		pmcf_profile_xu_get_fields(o->p, l->stack[l->depth - 1], &x);
		if (x.end_ns > t)
			break;
		leave_top(o, l);
	}
}

static struct lane *new_lane(struct ox *o, int32_t thread, int lane)
{
	if (pmcf_grow((void **)&o->lanes, &o->lanes_cap, o->nlanes + 1, sizeof(*o->lanes)))
		return NULL;
	struct lane *l = &o->lanes[o->nlanes];
	memset(l, 0, sizeof(*l));
	l->thread = thread;
	l->lane = lane;
	l->acc = calloc(o->nev + 1, sizeof(double));
	if (!l->acc)
		return NULL;
	l->w = OTF2_Archive_GetEvtWriter(o->a, (OTF2_LocationRef)o->nlanes);
	o->nlanes++;
	if (!l->w)
		check(o, OTF2_ERROR_INVALID);
	return l;
}

/* The events of every XU, thread by thread (xs: XU indexes sorted by
 * by_thread_time). */
static void write_events(struct ox *o, const size_t *xs, size_t n)
{
	size_t first_lane = 0;
	for (size_t k = 0; k < n && !o->err; k++) {
		pmcf_xu x;
		pmcf_profile_xu_get_fields(o->p, xs[k], &x);
		if (k == 0 || o->lanes[first_lane].thread != x.thread) {
			for (size_t l = first_lane; l < o->nlanes; l++)
				leave_until(o, &o->lanes[l], UINT64_MAX);
			first_lane = o->nlanes;
			if (!new_lane(o, x.thread, 0)) {
				o->err = 2;
				break;
			}
		}
		size_t l = first_lane;
		for (; l < o->nlanes && !o->err; l++) {
			struct lane *ln = &o->lanes[l];
			leave_until(o, ln, x.start_ns);
			if (!ln->depth) {
				enter(o, ln, xs[k]);
				break;
			}
			pmcf_xu top;
			pmcf_profile_xu_get_fields(o->p, ln->stack[ln->depth - 1], &top);
			if (top.end_ns >= x.end_ns) {
				enter(o, ln, xs[k]);
				break;
			}
		}
		if (l == o->nlanes && !o->err) {
			struct lane *ln = new_lane(o, x.thread, (int)(l - first_lane));
			if (!ln)
				o->err = 2;
			else
				enter(o, ln, xs[k]);
		}
	}
	for (size_t l = first_lane; l < o->nlanes && !o->err; l++)
		leave_until(o, &o->lanes[l], UINT64_MAX);
}

/* Global definitions: clock, strings, regions (one per XU type), the
 * system tree, one location group, the locations, the metrics. */
static void write_defs(struct ox *o, uint64_t length)
{
	OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(o->a);
	if (!g) {
		check(o, OTF2_ERROR_INVALID);
		return;
	}
	uint32_t str = 0;
#define STR(s) (check(o, OTF2_GlobalDefWriter_WriteString(g, str, (s))), str++)
	check(o,
	      OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, 0, length, OTF2_UNDEFINED_TIMESTAMP));
	uint32_t empty = STR("");
	for (uint32_t t = 0; t < pmcf_profile_ntypes(o->p); t++) {
		pmcf_xu_type ty;
		pmcf_profile_type_get(o->p, t, &ty);
		int role = ty.kind == PMCF_XU_TASK ? OTF2_REGION_ROLE_TASK
			   : ty.kind == PMCF_XU_LOOP_CHUNK || ty.kind == PMCF_XU_LOOP_RANGE
				   ? OTF2_REGION_ROLE_LOOP
			   : ty.kind == PMCF_XU_THREAD ? OTF2_REGION_ROLE_ARTIFICIAL
						       : OTF2_REGION_ROLE_CODE;
		uint32_t name = STR(ty.name), kind = STR(pmcf_xu_kind_name(ty.kind));
		/* location "file:line" */
		const char *colon = strrchr(ty.location, ':');
		char *file =
			strndup(ty.location, colon ? (size_t)(colon - ty.location) : strlen(ty.location));
		uint32_t line = colon ? (uint32_t)strtoul(colon + 1, NULL, 10) : 0;
		uint32_t fs = file && *file ? STR(file) : empty;
		free(file);
		check(o, OTF2_GlobalDefWriter_WriteRegion(g, t, name, name, kind, (OTF2_RegionRole)role,
							  OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, fs, line,
							  line));
	}
	const char *host = pmcf_profile_meta_get(o->p, PMCF_META_HOST);
	const char *prog = pmcf_profile_meta_get(o->p, PMCF_META_PROGRAM);
	uint32_t machine = STR(host ? host : "host"), node = STR("machine");
	check(o,
	      OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, machine, node, OTF2_UNDEFINED_SYSTEM_TREE_NODE));
	uint32_t pname = STR(prog ? prog : "profile");
	check(o, OTF2_GlobalDefWriter_WriteLocationGroup(g, 0, pname, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
							 OTF2_UNDEFINED_LOCATION_GROUP));
	for (size_t l = 0; l < o->nlanes; l++) {
		char name[96];
		if (o->lanes[l].lane)
			snprintf(name, sizeof(name), "thread %d (overlapping XUs %d)",
				 (int)o->lanes[l].thread, o->lanes[l].lane);
		else
			snprintf(name, sizeof(name), "thread %d", (int)o->lanes[l].thread);
		check(o, OTF2_GlobalDefWriter_WriteLocation(g, l, STR(name), OTF2_LOCATION_TYPE_CPU_THREAD,
							    o->lanes[l].nevents, 0));
	}
	uint32_t count = STR("#"), ns = STR("ns");
	for (size_t k = 0; k < o->nev; k++) {
		const char *n = pmcf_profile_event_name(o->p, o->ev[k]);
		int dur = strcmp(n, "duration") == 0;
		int in_ns = dur || strcmp(n, "task-clock") == 0 || strcmp(n, "cpu-clock") == 0;
		uint32_t s = STR(n);
		check(o,
		      OTF2_GlobalDefWriter_WriteMetricMember(g, (OTF2_MetricMemberRef)k, s,
							     dur ? STR("XU wall time") : s,
							     strncmp(n, "PAPI_", 5) == 0
								     ? OTF2_METRIC_TYPE_PAPI
								     : OTF2_METRIC_TYPE_OTHER,
							     OTF2_METRIC_ACCUMULATED_START, OTF2_TYPE_DOUBLE,
							     OTF2_BASE_DECIMAL, 0, in_ns ? ns : count));
	}
	OTF2_MetricMemberRef members[MAX_CLASS];
	for (size_t c = 0; c * MAX_CLASS < o->nev; c++) {
		size_t first = c * MAX_CLASS, n = o->nev - first < MAX_CLASS ? o->nev - first : MAX_CLASS;
		for (size_t k = 0; k < n; k++)
			members[k] = (OTF2_MetricMemberRef)(first + k);
		check(o, OTF2_GlobalDefWriter_WriteMetricClass(g, (OTF2_MetricRef)c, (uint8_t)n, members,
							       OTF2_METRIC_SYNCHRONOUS_STRICT,
							       OTF2_RECORDER_KIND_CPU));
	}
#undef STR
}

/* The events with a value for every XU; prints a note naming the others. */
static int pick_events(struct ox *o)
{
	const pmcf_profile *p = o->p;
	size_t ne = pmcf_profile_nevents(p), nx = pmcf_profile_nxus(p), left = 0;
	char names[256] = "";
	o->ev = malloc((ne + 1) * sizeof(*o->ev));
	if (!o->ev)
		return -1;
	for (size_t e = 0; e < ne; e++) {
		const double *c = pmcf_profile_column_const(p, e);
		size_t i = 0;
		while (i < nx && !pmcf_is_missing(c[i]))
			i++;
		if (i == nx) {
			o->ev[o->nev++] = e;
			continue;
		}
		size_t len = strlen(names);
		if (len + 8 < sizeof(names))
			snprintf(names + len, sizeof(names) - len, "%s%s", left ? ", " : "",
				 pmcf_profile_event_name(p, e));
		left++;
	}
	if (left)
		fprintf(stderr,
			"pmcfuse: export: note: otf2: left out %zu event%s with missing values (OTF2"
			" counters have a value at every enter and leave; fuse the profile first): %s\n",
			left, left == 1 ? "" : "s", names);
	return 0;
}

/* Writes the archive into tmp (an empty folder); returns 0, 1 for an OTF2
 * failure (otf2_msg), 2 when out of memory. */
static int write_archive(struct ox *o, const char *tmp)
{
	size_t nx = pmcf_profile_nxus(o->p);
	size_t *xs = malloc((nx + 1) * sizeof(*xs));
	o->types = malloc(MAX_CLASS * sizeof(*o->types));
	o->vals = malloc(MAX_CLASS * sizeof(*o->vals));
	if (!xs || !o->types || !o->vals) {
		free(xs);
		return 2;
	}
	uint64_t length = 0;
	for (size_t i = 0; i < nx; i++) {
		pmcf_xu x;
		pmcf_profile_xu_get_fields(o->p, i, &x);
		xs[i] = i;
		length = x.end_ns > length ? x.end_ns : length;
	}
	for (size_t k = 0; k < MAX_CLASS; k++)
		o->types[k] = OTF2_TYPE_DOUBLE;
	sort_p = o->p;
	qsort(xs, nx, sizeof(*xs), by_thread_time);

	o->a = OTF2_Archive_Open(tmp, ARCHIVE_NAME, OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
				 OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
	if (!o->a) {
		free(xs);
		return 1;
	}
	static const OTF2_FlushCallbacks flush = {pre_flush, post_flush};
	check(o, OTF2_Archive_SetFlushCallbacks(o->a, &flush, NULL));
	check(o, OTF2_Archive_SetSerialCollectiveCallbacks(o->a));
	check(o, OTF2_Archive_SetCreator(o->a, "pmcfuse export"));
	if (!o->err)
		check(o, OTF2_Archive_OpenEvtFiles(o->a));
	if (!o->err)
		write_events(o, xs, nx);
	free(xs);
	for (size_t l = 0; l < o->nlanes; l++)
		if (o->lanes[l].w)
			check(o, OTF2_Archive_CloseEvtWriter(o->a, o->lanes[l].w));
	if (o->err != 2) {
		check(o, OTF2_Archive_CloseEvtFiles(o->a));
		/* every location has (empty) local definitions */
		check(o, OTF2_Archive_OpenDefFiles(o->a));
		for (size_t l = 0; l < o->nlanes && !o->err; l++) {
			OTF2_DefWriter *d = OTF2_Archive_GetDefWriter(o->a, l);
			if (d)
				check(o, OTF2_Archive_CloseDefWriter(o->a, d));
		}
		check(o, OTF2_Archive_CloseDefFiles(o->a));
		if (!o->err)
			write_defs(o, length);
	}
	check(o, OTF2_Archive_Close(o->a));
	return o->err;
}

/* 1 when path is a folder with nothing in it. */
static int empty_folder(const char *path)
{
	DIR *d = opendir(path);
	if (!d)
		return 0;
	struct dirent *e;
	int empty = 1;
	while (empty && (e = readdir(d)))
		empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
	closedir(d);
	return empty;
}

int export_otf2(const pmcf_profile *p, const char *dir)
{
	struct stat sb;
	if (stat(dir, &sb) == 0 && !empty_folder(dir))
		return cli_error("export", CLI_EUSAGE,
				 "-o %s: %s; the OTF2 archive is written into a new folder (remove it or"
				 " name another)",
				 dir,
				 S_ISDIR(sb.st_mode) ? "folder exists and is not empty"
						     : "exists and is not a folder");
	size_t n = strlen(dir);
	char *tmp = malloc(n + 32);
	if (!tmp)
		return cli_error("export", CLI_EENV, "out of memory");
	while (n > 1 && dir[n - 1] == '/')
		n--;
	const char *slash = memrchr(dir, '/', n);
	size_t dl = slash ? (size_t)(slash - dir + 1) : 0;
	snprintf(tmp, n + 32, "%.*s.%.*s.tmp.XXXXXX", (int)dl, dir, (int)(n - dl), dir + dl);
	if (!mkdtemp(tmp)) {
		int e = errno;
		free(tmp);
		return cli_error("export", cli_status_for(-e), "cannot write '%s': %s", dir, strerror(e));
	}
	struct ox o = {.p = p};
	OTF2_Error_RegisterCallback(keep_error, NULL);
	int st = pick_events(&o) ? 2 : write_archive(&o, tmp);
	for (size_t l = 0; l < o.nlanes; l++) {
		free(o.lanes[l].stack);
		free(o.lanes[l].acc);
	}
	free(o.lanes);
	free(o.ev);
	free(o.types);
	free(o.vals);
	if (!st && rename(tmp, dir) != 0) {
		int e = errno;
		pmcf_rm_tree(tmp);
		free(tmp);
		return cli_error("export", cli_status_for(-e), "cannot write '%s': %s", dir, strerror(e));
	}
	if (st)
		pmcf_rm_tree(tmp);
	free(tmp);
	if (st == 2)
		return cli_error("export", CLI_EENV, "out of memory");
	if (st)
		return cli_error("export", CLI_EENV, "cannot write the OTF2 archive '%s': %s", dir, otf2_msg);
	return CLI_OK;
}
#endif
