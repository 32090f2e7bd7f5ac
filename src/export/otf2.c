/* OTF2 export (`pmcfuse export --format otf2`): a profile as an OTF2 trace archive for
 * Vampir and the Score-P tools. The system tree is the host, one location
 * group per MPI rank (one for the program without ranks), and one location
 * per thread of a rank; an enter/leave pair per XU with its type as the
 * region; every event is a metric of its own, sampled at the enter and leave
 * of each XU that has a value for it (accumulated since the start over the
 * XUs that have it, as Score-P records counters), so a profile with missing
 * values keeps every event. Clock in ns from the XU timestamps. Every
 * libotf2 status is checked, and the archive is read back in full before it
 * is renamed into place: a file size limit or a full disk fails the export
 * (exit 2) and leaves nothing. Built only with libotf2. */
#include "export/export_impl.h"
#include "util/internal.h"
#include "x/x.h"

#ifndef PMCF_HAVE_OTF2
static int write_otf2(const pmcf_profile *p, const pmcf_export_opts *o, const char *dir)
{
	(void)p, (void)o, (void)dir;
	return pmcfi_fail(
		PMCF_ENOTSUP,
		"OTF2 export (--format otf2): this pmcfuse was not built with OTF2 (install libotf2-trace-dev"
		" and rebuild; see scripts/install-deps.sh)");
}
#else
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <otf2/otf2.h>

#define ARCHIVE_NAME "traces"

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
	int32_t rank, thread;
	int lane;
	OTF2_EvtWriter *w;
	size_t *stack, depth, cap;
	double *acc; /* per exported event: sum over the XUs left so far */
	uint64_t nevents;
};

struct ox {
	const pmcf_profile *p;
	OTF2_Archive *a;
	size_t nev;      /* every event of the profile, one metric each */
	uint8_t *strict; /* per event: a value at every XU (recorded at every enter/leave) */
	int ranks;       /* the profile has MPI ranks: a location group per rank */
	struct lane *lanes;
	size_t nlanes, lanes_cap;
	char **strs; /* the string definitions written so far, by reference */
	size_t nstrs, strs_cap;
	int err; /* an OTF2 call failed, or out of memory */
};

static const pmcf_profile *sort_p;

/* By rank, thread, then start, then longest first (an enclosing XU before
 * the XUs it encloses), then index. */
static int by_thread_time(const void *a, const void *b)
{
	pmcf_xu x = PMCF_XU_INIT, y = PMCF_XU_INIT;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int32_t ri = pmcf_profile_rank(sort_p, i), rj = pmcf_profile_rank(sort_p, j);
	if (ri != rj)
		return ri < rj ? -1 : 1;
	pmcf_profile_xu_fields_get(sort_p, i, &x);
	pmcf_profile_xu_fields_get(sort_p, j, &y);
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

/* The metric records of lane l at time t, at an enter or leave of XU i:
 * the accumulated value of every event that XU i has a value for, each event
 * its own metric (class k, member k). */
static void metrics(struct ox *o, struct lane *l, uint64_t t, size_t i)
{
	OTF2_Type type = OTF2_TYPE_DOUBLE;
	for (size_t k = 0; k < o->nev && !o->err; k++) {
		if (pmcf_is_missing(pmcf_profile_value(o->p, i, k)))
			continue;
		OTF2_MetricValue v = {.floating_point = l->acc[k]};
		check(o, OTF2_EvtWriter_Metric(l->w, NULL, t, (OTF2_MetricRef)k, 1, &type, &v));
		l->nevents++;
	}
}

static void enter(struct ox *o, struct lane *l, size_t i)
{
	pmcf_xu x = PMCF_XU_INIT;
	pmcf_profile_xu_fields_get(o->p, i, &x);
	metrics(o, l, x.start_ns, i);
	check(o, OTF2_EvtWriter_Enter(l->w, NULL, x.start_ns, x.type));
	l->nevents++;
	if (pmcfi_grow((void **)&l->stack, &l->cap, l->depth + 1, sizeof(*l->stack))) {
		o->err = 2;
		return;
	}
	l->stack[l->depth++] = i;
}

static void leave_top(struct ox *o, struct lane *l)
{
	size_t i = l->stack[--l->depth];
	pmcf_xu x = PMCF_XU_INIT;
	pmcf_profile_xu_fields_get(o->p, i, &x);
	for (size_t k = 0; k < o->nev; k++) {
		double v = pmcf_profile_value(o->p, i, k);
		if (!pmcf_is_missing(v))
			l->acc[k] += v;
	}
	metrics(o, l, x.end_ns, i);
	check(o, OTF2_EvtWriter_Leave(l->w, NULL, x.end_ns, x.type));
	l->nevents++;
}

/* Leaves the XUs of lane l that ended by time t. */
static void leave_until(struct ox *o, struct lane *l, uint64_t t)
{
	while (!o->err && l->depth) {
		pmcf_xu x = PMCF_XU_INIT;
		pmcf_profile_xu_fields_get(o->p, l->stack[l->depth - 1], &x);
		if (x.end_ns > t)
			break;
		leave_top(o, l);
	}
}

static struct lane *new_lane(struct ox *o, int32_t rank, int32_t thread, int lane)
{
	if (pmcfi_grow((void **)&o->lanes, &o->lanes_cap, o->nlanes + 1, sizeof(*o->lanes)))
		return NULL;
	struct lane *l = &o->lanes[o->nlanes];
	memset(l, 0, sizeof(*l));
	l->rank = rank;
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

/* The events of every XU, thread by thread of each rank (xs: XU indexes
 * sorted by by_thread_time). */
static void write_events(struct ox *o, const size_t *xs, size_t n)
{
	size_t first_lane = 0;
	for (size_t k = 0; k < n && !o->err; k++) {
		pmcf_xu x = PMCF_XU_INIT;
		pmcf_profile_xu_fields_get(o->p, xs[k], &x);
		int32_t rank = pmcf_profile_rank(o->p, xs[k]);
		if (k == 0 || o->lanes[first_lane].thread != x.thread || o->lanes[first_lane].rank != rank) {
			for (size_t l = first_lane; l < o->nlanes; l++)
				leave_until(o, &o->lanes[l], UINT64_MAX);
			first_lane = o->nlanes;
			if (!new_lane(o, rank, x.thread, 0)) {
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
			pmcf_xu top = PMCF_XU_INIT;
			pmcf_profile_xu_fields_get(o->p, ln->stack[ln->depth - 1], &top);
			if (top.end_ns >= x.end_ns) {
				enter(o, ln, xs[k]);
				break;
			}
		}
		if (l == o->nlanes && !o->err) {
			struct lane *ln = new_lane(o, rank, x.thread, (int)(l - first_lane));
			if (!ln)
				o->err = 2;
			else
				enter(o, ln, xs[k]);
		}
	}
	for (size_t l = first_lane; l < o->nlanes && !o->err; l++)
		leave_until(o, &o->lanes[l], UINT64_MAX);
}

/* The reference of string s, written as a definition the first time only. */
static uint32_t str_ref(struct ox *o, OTF2_GlobalDefWriter *g, const char *s)
{
	for (size_t k = 0; k < o->nstrs; k++)
		if (strcmp(o->strs[k], s) == 0)
			return (uint32_t)k;
	char *c = strdup(s);
	if (!c || pmcfi_grow((void **)&o->strs, &o->strs_cap, o->nstrs + 1, sizeof(*o->strs))) {
		free(c);
		o->err = 2;
		return 0;
	}
	o->strs[o->nstrs] = c;
	check(o, OTF2_GlobalDefWriter_WriteString(g, (uint32_t)o->nstrs, c));
	return (uint32_t)o->nstrs++;
}

/* Global definitions: clock, strings (each once), regions (one per XU
 * type), the system tree (the host), a location group per rank (or one for
 * the program), the locations, a metric per event. */
static void write_defs(struct ox *o, uint64_t length)
{
	OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(o->a);
	if (!g) {
		check(o, OTF2_ERROR_INVALID);
		return;
	}
#define STR(s) str_ref(o, g, (s))
	check(o,
	      OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, 0, length, OTF2_UNDEFINED_TIMESTAMP));
	uint32_t empty = STR("");
	for (uint32_t t = 0; t < pmcf_profile_ntypes(o->p) && !o->err; t++) {
		pmcf_xu_type ty = PMCF_XU_TYPE_INIT;
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
		if (!file) {
			o->err = 2;
			return;
		}
		uint32_t line = colon ? (uint32_t)strtoul(colon + 1, NULL, 10) : 0;
		uint32_t fs = *file ? STR(file) : empty;
		free(file);
		check(o, OTF2_GlobalDefWriter_WriteRegion(g, t, name, name, kind, (OTF2_RegionRole)role,
							  OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, fs, line,
							  line));
	}
	const char *host = pmcf_profile_meta_get(o->p, PMCF_META_HOST);
	const char *prog = pmcf_profile_meta_get(o->p, PMCF_META_PROGRAM);
	uint32_t machine = STR(host ? host : "host"), node = STR("node");
	check(o,
	      OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, machine, node, OTF2_UNDEFINED_SYSTEM_TREE_NODE));
	/* location groups: the lanes are sorted by rank, so a new rank starts a group */
	uint32_t group = 0;
	for (size_t l = 0; l < o->nlanes && !o->err; l++) {
		if (l > 0 && o->lanes[l].rank == o->lanes[l - 1].rank)
			continue;
		char name[64];
		if (o->ranks)
			snprintf(name, sizeof(name), "MPI rank %d", (int)o->lanes[l].rank);
		check(o, OTF2_GlobalDefWriter_WriteLocationGroup(g, group++,
								 o->ranks ? STR(name)
									  : STR(prog ? prog : "profile"),
								 OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
								 OTF2_UNDEFINED_LOCATION_GROUP));
	}
	group = 0;
	for (size_t l = 0; l < o->nlanes && !o->err; l++) {
		char name[96];
		if (l > 0 && o->lanes[l].rank != o->lanes[l - 1].rank)
			group++;
		if (o->lanes[l].lane)
			snprintf(name, sizeof(name), "thread %d (overlapping XUs %d)",
				 (int)o->lanes[l].thread, o->lanes[l].lane);
		else
			snprintf(name, sizeof(name), "thread %d", (int)o->lanes[l].thread);
		check(o, OTF2_GlobalDefWriter_WriteLocation(g, l, STR(name), OTF2_LOCATION_TYPE_CPU_THREAD,
							    o->lanes[l].nevents, group));
	}
	uint32_t count = STR("#"), ns = STR("ns");
	for (size_t k = 0; k < o->nev && !o->err; k++) {
		const char *n = pmcf_profile_event_name(o->p, k);
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
		/* recorded at every enter and leave only when every XU has a value */
		OTF2_MetricMemberRef m = (OTF2_MetricMemberRef)k;
		check(o, OTF2_GlobalDefWriter_WriteMetricClass(g, (OTF2_MetricRef)k, 1, &m,
							       o->strict[k] ? OTF2_METRIC_SYNCHRONOUS_STRICT
									    : OTF2_METRIC_SYNCHRONOUS,
							       OTF2_RECORDER_KIND_CPU));
	}
#undef STR
}

/* Per event: whether every XU has a value for it. */
static int pick_events(struct ox *o)
{
	const pmcf_profile *p = o->p;
	size_t nx = pmcf_profile_nxus(p);
	o->nev = pmcf_profile_nevents(p);
	o->strict = malloc(o->nev + 1);
	if (!o->strict)
		return -1;
	for (size_t e = 0; e < o->nev; e++) {
		const double *c = pmcf_profile_column_const(p, e);
		size_t i = 0;
		while (i < nx && !pmcf_is_missing(c[i]))
			i++;
		o->strict[e] = i == nx;
	}
	o->ranks = pmcf_profile_has_ranks(p);
	return 0;
}

/* ---- reading the archive back ------------------------------------------------------- */

struct back {
	OTF2_LocationRef *locs;
	uint64_t *events;
	size_t n, cap;
	int nomem;
};

static OTF2_CallbackCode back_location(void *ud, OTF2_LocationRef self, OTF2_StringRef name,
				       OTF2_LocationType type, uint64_t nevents, OTF2_LocationGroupRef group)
{
	(void)name, (void)type, (void)group;
	struct back *b = ud;
	size_t cap = b->cap;
	if (pmcfi_grow((void **)&b->locs, &cap, b->n + 1, sizeof(*b->locs)) ||
	    pmcfi_grow((void **)&b->events, &b->cap, b->n + 1, sizeof(*b->events))) {
		b->nomem = 1;
		return OTF2_CALLBACK_INTERRUPT;
	}
	b->locs[b->n] = self;
	b->events[b->n++] = nevents;
	return OTF2_CALLBACK_SUCCESS;
}

/* Reads the archive in tmp back in full, every definition and every event
 * of every location: 0 when it is whole (as many locations and events as
 * written), else 1 with otf2_msg saying what is wrong. libotf2 can report
 * success although a write of buffered data failed (a file size limit, a
 * full disk); a truncated file does not read back. */
static int read_back(struct ox *o, const char *tmp)
{
	size_t len = strlen(tmp) + sizeof("/" ARCHIVE_NAME ".otf2");
	char *anchor = malloc(len);
	if (!anchor)
		return 2;
	snprintf(anchor, len, "%s/%s.otf2", tmp, ARCHIVE_NAME);
	struct back b = {0};
	int bad = 0;
	uint64_t nread = 0;
	OTF2_Reader *r = OTF2_Reader_Open(anchor);
	free(anchor);
	if (!r)
		bad = 1;
	if (!bad && OTF2_Reader_SetSerialCollectiveCallbacks(r) != OTF2_SUCCESS)
		bad = 1;
	OTF2_GlobalDefReader *gr = bad ? NULL : OTF2_Reader_GetGlobalDefReader(r);
	OTF2_GlobalDefReaderCallbacks *cb = gr ? OTF2_GlobalDefReaderCallbacks_New() : NULL;
	if (!cb)
		bad = 1;
	if (!bad) {
		OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, back_location);
		if (OTF2_Reader_RegisterGlobalDefCallbacks(r, gr, cb, &b) != OTF2_SUCCESS ||
		    OTF2_Reader_ReadAllGlobalDefinitions(r, gr, &nread) != OTF2_SUCCESS || b.nomem)
			bad = 1;
	}
	if (cb)
		OTF2_GlobalDefReaderCallbacks_Delete(cb);
	if (!bad && b.n != o->nlanes) {
		snprintf(otf2_msg, sizeof(otf2_msg), "it reads back with %zu locations, not %zu", b.n,
			 o->nlanes);
		bad = 1;
	}
	for (size_t k = 0; k < b.n && !bad; k++)
		if (OTF2_Reader_SelectLocation(r, b.locs[k]) != OTF2_SUCCESS)
			bad = 1;
	if (!bad && b.n) {
		if (OTF2_Reader_OpenDefFiles(r) != OTF2_SUCCESS ||
		    OTF2_Reader_OpenEvtFiles(r) != OTF2_SUCCESS)
			bad = 1;
		for (size_t k = 0; k < b.n && !bad; k++) {
			OTF2_DefReader *dr = OTF2_Reader_GetDefReader(r, b.locs[k]);
			uint64_t nd = 0;
			if (!dr || OTF2_Reader_ReadAllLocalDefinitions(r, dr, &nd) != OTF2_SUCCESS ||
			    OTF2_Reader_CloseDefReader(r, dr) != OTF2_SUCCESS)
				bad = 1;
		}
		if (!bad && OTF2_Reader_CloseDefFiles(r) != OTF2_SUCCESS)
			bad = 1;
		for (size_t k = 0; k < b.n && !bad; k++) {
			OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(r, b.locs[k]);
			uint64_t ne = 0;
			if (!er || OTF2_Reader_ReadAllLocalEvents(r, er, &ne) != OTF2_SUCCESS)
				bad = 1;
			else if (ne != b.events[k]) {
				snprintf(otf2_msg, sizeof(otf2_msg),
					 "location %zu reads back with %" PRIu64 " events, not %" PRIu64, k,
					 ne, b.events[k]);
				bad = 1;
			}
			if (er && OTF2_Reader_CloseEvtReader(r, er) != OTF2_SUCCESS)
				bad = 1;
		}
		if (!bad && OTF2_Reader_CloseEvtFiles(r) != OTF2_SUCCESS)
			bad = 1;
	}
	if (r && OTF2_Reader_Close(r) != OTF2_SUCCESS)
		bad = 1;
	free(b.locs);
	free(b.events);
	if (b.nomem)
		return 2;
	if (bad) {
		char why[sizeof(otf2_msg)];
		snprintf(why, sizeof(why), "%s", otf2_msg[0] ? otf2_msg : "no detail");
		snprintf(otf2_msg, sizeof(otf2_msg), "a file was left incomplete (reading it back: %.400s)",
			 why);
	}
	return bad;
}

/* fsyncs every file under dir (the archive's files and folders); 0, or
 * -errno of the first failure. */
static int sync_tree(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	DIR *d = fdopendir(fd);
	if (!d) {
		int e = errno;
		close(fd);
		return -e;
	}
	int rc = 0;
	struct dirent *e;
	while (!rc && (e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		size_t len = strlen(dir) + strlen(e->d_name) + 2;
		char *path = malloc(len);
		if (!path) {
			rc = -ENOMEM;
			break;
		}
		snprintf(path, len, "%s/%s", dir, e->d_name);
		struct stat sb;
		if (lstat(path, &sb) != 0)
			rc = -errno;
		else if (S_ISDIR(sb.st_mode))
			rc = sync_tree(path);
		else {
			int f = open(path, O_RDONLY | O_CLOEXEC);
			if (f < 0 || fsync(f) != 0)
				rc = -errno;
			if (f >= 0)
				close(f);
		}
		free(path);
	}
	if (!rc && fsync(dirfd(d)) != 0)
		rc = -errno;
	closedir(d);
	return rc;
}

/* Writes the archive into tmp (an empty folder); returns 0, 1 for an OTF2
 * failure (otf2_msg), 2 when out of memory. */
static int write_archive(struct ox *o, const char *tmp)
{
	size_t nx = pmcf_profile_nxus(o->p);
	size_t *xs = malloc((nx + 1) * sizeof(*xs));
	if (!xs)
		return 2;
	uint64_t length = 0;
	for (size_t i = 0; i < nx; i++) {
		pmcf_xu x = PMCF_XU_INIT;
		pmcf_profile_xu_fields_get(o->p, i, &x);
		xs[i] = i;
		length = x.end_ns > length ? x.end_ns : length;
	}
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
	return o->err ? o->err : read_back(o, tmp);
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

/* Why writing may have failed, when libotf2 does not say: a file size limit
 * (ulimit -f) or a full file system where dir goes; "" otherwise. */
static void limit_hint(const char *dir, char *buf, size_t len)
{
	buf[0] = '\0';
	struct rlimit rl;
	if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
		snprintf(buf, len, " (the file size limit, ulimit -f, is %llu bytes)",
			 (unsigned long long)rl.rlim_cur);
		return;
	}
	char *copy = strdup(dir);
	if (!copy)
		return;
	char *slash = strrchr(copy, '/');
	const char *parent = slash ? (slash == copy ? "/" : (*slash = '\0', copy)) : ".";
	struct statvfs vs;
	if (statvfs(parent, &vs) == 0 && (vs.f_bavail < 16 || vs.f_favail == 0))
		snprintf(buf, len, " (no space left on the file system of '%s')", parent);
	free(copy);
}

/* What a path is, for messages. */
static const char *node_kind(unsigned mode)
{
	switch (mode & S_IFMT) {
	case S_IFCHR: return "a character device";
	case S_IFBLK: return "a block device";
	case S_IFIFO: return "a FIFO (a pipe)";
	case S_IFSOCK: return "a socket";
	default: return "not a file";
	}
}

static int write_otf2(const pmcf_profile *p, const pmcf_export_opts *opts, const char *dir)
{
	(void)opts;
	struct stat sb;
	if (stat(dir, &sb) == 0 && !S_ISDIR(sb.st_mode) && !S_ISREG(sb.st_mode))
		return pmcfi_fail(PMCF_EINVAL,
				  "-o %s: it is %s; an OTF2 archive is a folder of files, which cannot"
				  " be written to a device or a pipe (name a new folder)",
				  dir, node_kind(sb.st_mode));
	if (stat(dir, &sb) == 0 && !empty_folder(dir))
		return pmcfi_fail(PMCF_EINVAL,
				  "-o %s: %s; the OTF2 archive is written into a new folder (remove it or"
				  " name another)",
				  dir,
				  S_ISDIR(sb.st_mode) ? "folder exists and is not empty"
						      : "exists and is not a folder");
	size_t n = strlen(dir);
	char *tmp = malloc(n + 32);
	if (!tmp)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	while (n > 1 && dir[n - 1] == '/')
		n--;
	const char *slash = memrchr(dir, '/', n);
	size_t dl = slash ? (size_t)(slash - dir + 1) : 0;
	snprintf(tmp, n + 32, "%.*s.%.*s.tmp.XXXXXX", (int)dl, dir, (int)(n - dl), dir + dl);
	if (!mkdtemp(tmp)) {
		int e = errno;
		free(tmp);
		return pmcfi_fail(-e, "cannot write '%s': %s", dir, strerror(e));
	}
	struct ox o = {.p = p};
	otf2_msg[0] = '\0';
	OTF2_Error_RegisterCallback(keep_error, NULL);
	int st = pick_events(&o) ? 2 : write_archive(&o, tmp);
	for (size_t l = 0; l < o.nlanes; l++) {
		free(o.lanes[l].stack);
		free(o.lanes[l].acc);
	}
	free(o.lanes);
	free(o.strict);
	for (size_t k = 0; k < o.nstrs; k++)
		free(o.strs[k]);
	free(o.strs);
	int se = st ? 0 : sync_tree(tmp);
	if (se) {
		pmcfi_rm_tree(tmp);
		free(tmp);
		return pmcfi_fail(se, "cannot write '%s': %s", dir, strerror(-se));
	}
	if (!st && rename(tmp, dir) != 0) {
		int e = errno;
		pmcfi_rm_tree(tmp);
		free(tmp);
		return pmcfi_fail(-e, "cannot write '%s': %s", dir, strerror(e));
	}
	if (st)
		pmcfi_rm_tree(tmp);
	free(tmp);
	if (st == 2)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	if (st) {
		char hint[160];
		limit_hint(dir, hint, sizeof(hint));
		return pmcfi_fail(-EIO, "cannot write the OTF2 archive '%s': %s%s", dir, otf2_msg, hint);
	}
	return 0;
}
#endif

const struct pmcfi_exp_format pmcfi_exp_format_otf2 = {
	{sizeof(pmcf_export_info), "otf2",
	 "otf2: an OTF2 trace archive DIR/traces.otf2 for Vampir and the Score-P tools: a\n"
	 "location group per MPI rank, a location per thread, an enter/leave per XU with its\n"
	 "type as the region, every event a metric (accumulated), written at the XUs that\n"
	 "have a value for it.\n",
	 NULL, PMCF_EXPORT_TO_PATH | PMCF_EXPORT_FOLDER},
	NULL,
	write_otf2,
	NULL,
};
