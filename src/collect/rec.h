/* The per-thread record files the collector writes (MAP_SHARED, so a killed
 * or crashed program keeps what it recorded) and the reader turns into a
 * profile. One file per thread and chunk: a header, then fixed-size records. */
#ifndef PMCF_COLLECT_REC_H
#define PMCF_COLLECT_REC_H
#include <stdatomic.h>
#include <stdint.h>

#define PMCFI_REC_MAGIC 0x3143455246434d50ull /* "PMCFREC1" */
#define PMCFI_REC_VERSION 1u
#define PMCFI_REC_HEADER_SIZE 128u

/* Environment between the launcher and the tool. */
#define PMCFI_ENV_DIR "PMCF_COLLECT_DIR"        /* record folder (tool inert without it) */
#define PMCFI_ENV_EVENTS "PMCF_COLLECT_EVENTS"  /* type:config:config1:config2:xk,... */
#define PMCFI_ENV_NAMES "PMCF_COLLECT_NAMES"    /* event names, comma-separated (messages) */
#define PMCFI_ENV_CHUNK "PMCF_COLLECT_CHUNK_KB" /* record chunk size per thread */
#define PMCFI_ENV_MUX "PMCF_COLLECT_MUX"        /* MODE:PMCS:PERIOD_NS (MODE: enum pmcf_mux_mode) */

/* Values per event in a segment record: 1, or PMCFI_MUX_VALS when the
 * header's mux is set: raw count, running ns, enabled ns (deltas), then the
 * difference of the scaled cumulative counts (a double's bits; NaN when the
 * event had not yet run on the thread at the segment end). */
#define PMCFI_MUX_VALS 4u

/* The process key that names a process image's files (rec-KEY-…, maps-KEY,
 * …) and fills the header's pid: pid + generation << 22 (pid_max is at most
 * 2^22). A process that exec()s keeps its pid; the new image's tool claims
 * the next free generation (an O_EXCL file proc-KEY), so the records of
 * every image survive, and a recycled pid gets a generation of its own. */
#define PMCFI_REC_GEN_SHIFT 22
#define PMCFI_REC_MAX_GEN 1023u

struct pmcfi_rec_header {
	uint64_t magic;
	uint32_t version, header_size;
	uint32_t pid, thread; /* thread: registration order in the process */
	uint32_t chunk, nev;  /* chunk: 0, 1, … when a thread fills one */
	uint32_t rec_size, os_tid;
	uint64_t capacity;      /* records that fit */
	_Atomic uint64_t count; /* records committed (release store after each) */
	_Atomic uint64_t dropped;
	uint32_t mux, rotations; /* mux: enum pmcf_mux_mode of the collection (0: none);
				    rotations: user-space rotations (as of the last write) */
	uint32_t stop_errno;     /* why this thread, or one of its process, stopped
				    recording: ENOSPC when no record space could be
				    reserved (a full TMPDIR), 0 while all goes well */
	uint32_t reserved;
	uint8_t pad[PMCFI_REC_HEADER_SIZE - 80];
};
_Static_assert(sizeof(struct pmcfi_rec_header) == PMCFI_REC_HEADER_SIZE, "header size");

/* Record types */
enum {
	PMCFI_R_NODE = 1, /* a node of the creation tree: XU or construct instance */
	PMCFI_R_SEG = 2   /* one executed segment of an XU with counter deltas */
};

/* Node kinds: XU kinds of profile.h (task, loop-chunk, loop-range, region,
 * thread) and constructs that are not XUs. */
enum {
	PMCFI_K_PARALLEL = 16, /* a parallel region instance */
	PMCFI_K_LOOP = 17      /* a worksharing loop instance (one record per thread) */
};

/* Node flags */
#define PMCFI_F_FORCED 1u /* created directly in a parallel region: a=TID, b=team size */
#define PMCFI_F_API 2u    /* task API node: addr is the API type id */
#define PMCFI_F_STATIC 4u /* loop: static schedule */
/* Segment flags */
#define PMCFI_F_FINAL 8u /* this segment completes the XU */

/* The root of every creation tree (the initial task / main flow). */
#define PMCFI_ROOT 0ull

struct pmcfi_rec {
	uint32_t type, kind;
	uint64_t node;   /* unique in the process: (thread+1) << 40 | sequence */
	uint64_t parent; /* R_NODE: creating node (PMCFI_ROOT, or a construct/XU) */
	uint64_t addr;   /* R_NODE: absolute code address of the construct, or API type */
	uint64_t a, b;   /* R_NODE: loop: a=worksharing rank; chunk: a=first iteration,
			    b=iterations; forced: a=TID, b=team size */
	uint64_t t0, t1; /* R_NODE: t0 creation time, t1 per-thread sequence;
			    R_SEG: CLOCK_MONOTONIC ns at begin and end */
	int32_t cpu;
	uint32_t flags;
	uint64_t enabled, running; /* R_SEG: group time deltas (multiplexed: the longest
				      enabled, less the largest gap of any event);
				      R_NODE of a task: enabled = its entry routine's
				      absolute address (0 unknown), running 0 */
	uint64_t v[];              /* R_SEG: nev counter deltas */
};

/* The loss record "status" in the record folder, one page that the
 * launcher creates and every process image of the program maps at its start
 * (MAP_SHARED: no descriptor is needed once mapped, so a program out of
 * descriptors can still say so). A thread that cannot record (its counters
 * or its record file cannot be opened, a record file cannot grow) counts
 * itself in lost; the first one also leaves its errno and its reason. */
#define PMCFI_REC_STATUS "status"
#define PMCFI_REC_STATUS_MAGIC 0x3154535446434d50ull /* "PMCFSTT1" */
#define PMCFI_REC_STATUS_SIZE 4096u
struct pmcfi_rec_status {
	uint64_t magic;
	_Atomic uint32_t lost;    /* threads that recorded nothing or not all */
	_Atomic uint32_t err;     /* the first one's errno (0: none known) */
	_Atomic uint32_t claimed; /* the first one writes why[] ... */
	_Atomic uint32_t written; /* ... and then sets this */
	char why[PMCFI_REC_STATUS_SIZE - 24];
};
_Static_assert(sizeof(struct pmcfi_rec_status) == PMCFI_REC_STATUS_SIZE, "status size");

static inline uint32_t pmcfi_rec_vals(uint32_t nev, uint32_t mux) { return mux ? nev * PMCFI_MUX_VALS : nev; }

static inline uint32_t pmcfi_rec_size(uint32_t nev)
{
	return (uint32_t)(sizeof(struct pmcfi_rec) + nev * sizeof(uint64_t));
}
#endif
