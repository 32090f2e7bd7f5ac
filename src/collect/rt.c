/* The collector's in-process recorder: process setup from the environment,
 * per-thread counter groups and record chunks (MAP_SHARED, made ready a
 * window at a time ahead of the writes),
 * node and segment records, the thread XU fallback, pthread_create
 * interposition so plain programs get one XU per thread, and the user-space
 * multiplexer (a per-thread cpu-time timer whose signal rotates the enabled
 * events under round-robin or rate-of-change, src/multiplex/sched.c). */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "collect/rt.h"
#include "multiplex/sched.h"
#include "pmcfuse/multiplex.h"

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

#define MAX_THREADS 4096

static struct {
	int state; /* 0 not set up, 1 active, -1 inert */
	char dir[3072];
	int nev;
	struct perf_event_attr attrs[PMCFI_PGROUP_MAX];
	char names_buf[4096];
	const char *names[PMCFI_PGROUP_MAX];
	size_t chunk_bytes;
	int mux;           /* enum pmcf_mux_mode */
	unsigned mux_pmcs; /* rr/roc: events enabled at once */
	uint64_t period_ns;
	int sig; /* rr/roc: the rotation signal */
	uint32_t pid;
	_Atomic uint32_t nthreads;
	_Atomic uint32_t ntypes;
	_Atomic uint32_t stop_errno; /* why a thread could not record (first one) */
	struct pmcfi_rt_thread *_Atomic threads[MAX_THREADS];
	pthread_key_t key;
	struct pmcfi_rec_status *status; /* the launcher's loss record (NULL: none) */
} P;

static __thread struct pmcfi_rt_thread *tls_self;
static __thread int tls_failed;
static __thread uint32_t tls_index; /* index + 1 given by the creating thread */

uint64_t rt_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int rt_active(void) { return P.state == 1; }

static void write_file(const char *name, const char *text, int append)
{
	char path[3200];
	snprintf(path, sizeof(path), "%s/%s-%u", P.dir, name, P.pid);
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC), 0644);
	if (fd < 0)
		return;
	size_t n = strlen(text);
	if (write(fd, text, n) != (ssize_t)n) {
		/* nothing more to do: the reader reports the missing marker */
	}
	close(fd);
}

void rt_mark(const char *name, const char *text) { write_file(name, text, 0); }

/* Fatal setup error: one line on stderr, the reason for the launcher. */
static void fatal(const char *fmt, const char *a, const char *b)
{
	char msg[1024];
	snprintf(msg, sizeof(msg), fmt, a, b);
	fprintf(stderr, "pmcfuse: collector: %s\n", msg);
	write_file("error", msg, 0);
}

/* Maps the launcher's loss record (rec.h); without it losses are only
 * printed. Needs one descriptor, for a moment, at the image's start. */
static void map_status(void)
{
	char path[3200];
	snprintf(path, sizeof(path), "%s/%s", P.dir, PMCFI_REC_STATUS);
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return;
	void *m = mmap(NULL, PMCFI_REC_STATUS_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	P.status = m == MAP_FAILED ? NULL : m;
}

/* A thread that cannot record (err: -errno): counted in the loss record,
 * the first one with its reason, so that the launcher marks the profile
 * incomplete even when no file can be opened to say so. */
static void lost(int err, const char *why)
{
	struct pmcfi_rec_status *s = P.status;
	if (!s)
		return;
	atomic_fetch_add(&s->lost, 1);
	uint32_t none = 0;
	if (!atomic_compare_exchange_strong(&s->claimed, &none, 1))
		return;
	atomic_store(&s->err, (uint32_t)-err);
	snprintf(s->why, sizeof(s->why), "%s", why);
	atomic_store_explicit(&s->written, 1, memory_order_release);
}

/* fatal() for a thread that cannot record: also counted as a loss. */
static void fatal_lost(int err, const char *fmt, const char *a, const char *b)
{
	char msg[1024];
	snprintf(msg, sizeof(msg), fmt, a, b);
	fatal("%s%s", msg, "");
	lost(err, msg);
}

void rt_write_maps(void)
{
	char buf[65536], path[3200];
	snprintf(path, sizeof(path), "%s/maps-%u", P.dir, P.pid);
	int in = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return;
	int out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out >= 0) {
		ssize_t n;
		while ((n = read(in, buf, sizeof(buf))) > 0)
			if (write(out, buf, (size_t)n) != n)
				break;
		close(out);
	}
	close(in);
}

static int parse_events(const char *s)
{
	P.nev = 0;
	while (s && *s) {
		if (P.nev == PMCFI_PGROUP_MAX)
			return -1;
		struct perf_event_attr *a = &P.attrs[P.nev];
		unsigned long long type, config, c1, c2, xk;
		int used = 0;
		if (sscanf(s, "%llu:%llx:%llx:%llx:%llu%n", &type, &config, &c1, &c2, &xk, &used) != 5)
			return -1;
		memset(a, 0, sizeof(*a));
		a->size = sizeof(*a);
		a->type = (uint32_t)type;
		a->config = config;
		a->config1 = c1;
		a->config2 = c2;
		a->exclude_kernel = (xk & 1) != 0;
		a->exclude_hv = (xk & 2) != 0;
		a->exclude_user = (xk & 4) != 0;
		a->exclude_guest = (xk & 8) != 0;
		a->exclude_host = (xk & 16) != 0;
		a->exclude_idle = (xk & 32) != 0;
		a->pinned = (xk & 64) != 0;
		a->precise_ip = (xk >> 7) & 3;
		P.nev++;
		s += used;
		if (*s == ',')
			s++;
		else if (*s)
			return -1;
	}
	return 0;
}

static void split_names(const char *s)
{
	snprintf(P.names_buf, sizeof(P.names_buf), "%s", s ? s : "");
	char *p = P.names_buf;
	for (int i = 0; i < P.nev; i++) {
		P.names[i] = p && *p ? p : NULL;
		if (p && (p = strchr(p, '\n')) != NULL)
			*p++ = '\0';
	}
}

/* The process key (rec.h): the first generation of this pid whose
 * proc-KEY file this image creates; the bare pid when none can be made. */
static uint32_t claim_key(void)
{
	uint32_t pid = (uint32_t)getpid();
	char path[3200];
	for (uint32_t gen = 0; gen <= PMCFI_REC_MAX_GEN; gen++) {
		uint32_t key = pid + (gen << PMCFI_REC_GEN_SHIFT);
		snprintf(path, sizeof(path), "%s/proc-%u", P.dir, key);
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd >= 0) {
			close(fd);
			return key;
		}
		if (errno != EEXIST)
			break;
	}
	return pid;
}

/* MPI launchers and their daemons (Open MPI's mpirun/mpiexec = orterun,
 * orted, PRRTE's prterun/prted; MPICH's hydra) run no rank: they inherit
 * the preload but record nothing (their threads would be junk XUs). */
static int is_mpi_launcher(void)
{
	static const char *const names[] = {"orterun", "orted", "mpirun",        "mpiexec",        "prterun",
					    "prted",   "prte",  "mpiexec.hydra", "hydra_pmi_proxy"};
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return 0;
	exe[n] = '\0';
	const char *base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(base, names[i]) == 0)
			return 1;
	return 0;
}

/* This process's MPI rank from its launcher's environment, first found of
 * OMPI_COMM_WORLD_RANK (Open MPI), PMIX_RANK (PMIx: Open MPI 5, Slurm),
 * PMI_RANK (MPICH/hydra, Intel MPI), SLURM_PROCID (srun); -1 when none
 * holds a rank (not an MPI rank). */
static long mpi_rank(void)
{
	static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"};
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i]);
		char *end;
		if (!v || !*v)
			continue;
		errno = 0;
		long r = strtol(v, &end, 10);
		if (!errno && !*end && r >= 0 && r <= INT32_MAX)
			return r;
	}
	return -1;
}

/* The rank marker rank-KEY of this process image (the reader's XU ranks). */
static void mark_rank(void)
{
	long r = mpi_rank();
	if (r >= 0) {
		char buf[32];
		snprintf(buf, sizeof(buf), "%ld\n", r);
		rt_mark("rank", buf);
	}
}

static void thread_exit(void *arg) { rt_thread_fini(arg); }

static void after_fork_child(void)
{
	/* The child must not write into the parent's files. */
	tls_self = NULL;
	tls_index = 0;
	P.pid = claim_key();
	atomic_store(&P.nthreads, 0);
	atomic_store(&P.stop_errno, 0);
	for (int i = 0; i < MAX_THREADS; i++)
		atomic_store(&P.threads[i], NULL);
	mark_rank();
	rt_write_maps();
}

/* ---- user-space multiplexing -----------------------------------------------
 * Rotation runs in the handler of a per-thread CLOCK_MONOTONIC timer
 * (SIGEV_THREAD_ID), like the kernel's per-cpu hrtimer. A timer on the
 * thread's cpu time would follow the task more closely but fires only at
 * scheduler ticks (4 ms at HZ=250), too coarse for sub-ms periods; rotating
 * only at XU boundaries would never rotate inside a long XU. The handler reads the counters, reports the enabled
 * events' scaled counts to the scheduler and enables/disables with ioctl:
 * system calls and arithmetic only, no allocation, no lock. When it lands
 * while the thread is itself reading its counters (XU begin/end), it only
 * marks the rotation pending, and the thread rotates when done. */
struct fit {
	unsigned pmcs, used;
};

static void fit_reset(void *c) { ((struct fit *)c)->used = 0; }

static int fit_try(void *c, size_t u)
{
	struct fit *f = c;
	(void)u;
	if (f->used >= f->pmcs)
		return 0;
	f->used++;
	return 1;
}

static const struct pmcfi_mux_ops fit_ops = {fit_reset, fit_try};

static void mux_rotate(struct pmcfi_rt_thread *t)
{
	struct pmcfi_pgroup_sample s;
	t->busy = 1;
	atomic_signal_fence(memory_order_seq_cst);
	if (t->group.n > 0 && pmcfi_pgroup_read(&t->group, &s) == 0) {
		uint64_t now = s.en[0]; /* the thread's task-clock */
		for (int u = 0; u < t->group.n; u++)
			if (t->group.on[u])
				pmcfi_mux_observe(t->mux, (size_t)u, now, pmcfi_pgroup_scaled(&s, u));
		struct fit f = {P.mux_pmcs, 0};
		pmcfi_mux_rotate(t->mux, now, &fit_ops, &f, t->mux_on);
		pmcfi_pgroup_set(&t->group, t->mux_on);
		t->rotations++;
	}
	atomic_signal_fence(memory_order_seq_cst);
	t->busy = 0;
}

static void on_tick(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	int e = errno;
	struct pmcfi_rt_thread *t = si && si->si_code == SI_TIMER ? si->si_value.sival_ptr : NULL;
	if (t && t->mux && !atomic_load_explicit(&t->dead, memory_order_relaxed)) {
		if (t->busy)
			t->pending = 1;
		else
			mux_rotate(t);
	}
	errno = e;
}

static int install_tick(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_tick;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	P.sig = SIGRTMIN + 5;
	return sigaction(P.sig, &sa, NULL);
}

/* Around the hot path's counter reads. */
static inline void guard_enter(struct pmcfi_rt_thread *t)
{
	t->busy = 1;
	atomic_signal_fence(memory_order_seq_cst);
}

static inline void guard_leave(struct pmcfi_rt_thread *t)
{
	atomic_signal_fence(memory_order_seq_cst);
	t->busy = 0;
	atomic_signal_fence(memory_order_seq_cst);
	if (t->pending && t->mux) {
		t->pending = 0;
		mux_rotate(t);
	}
}

/* The scheduler, the first assignment and the timer of a new thread. */
static int mux_thread_start(struct pmcfi_rt_thread *t)
{
	int policy = pmcfi_mux_policy(P.mux);
	t->mux = pmcfi_mux_new(policy, (size_t)P.nev);
	if (!t->mux)
		return -ENOMEM;
	mux_rotate(t);
	struct sigevent sev;
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = P.sig;
	sev.sigev_value.sival_ptr = t;
	sev.sigev_notify_thread_id = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_MONOTONIC, &sev, &t->timer) != 0)
		return -errno;
	t->has_timer = 1;
	struct itimerspec its;
	its.it_interval.tv_sec = (time_t)(P.period_ns / 1000000000ull);
	its.it_interval.tv_nsec = (long)(P.period_ns % 1000000000ull);
	its.it_value = its.it_interval;
	if (timer_settime(t->timer, 0, &its, NULL) != 0)
		return -errno;
	return 0;
}

/* Stops the thread's rotation timer and frees its scheduler. Called on the
 * thread itself once t->dead is set, so its signal handler (which checks
 * dead first) no longer touches the scheduler. */
static void mux_thread_stop(struct pmcfi_rt_thread *t)
{
	if (t->has_timer) {
		timer_delete(t->timer);
		t->has_timer = 0;
	}
	struct pmcfi_mux *m = t->mux;
	t->mux = NULL; /* before the free: the handler checks it */
	atomic_signal_fence(memory_order_seq_cst);
	pmcfi_mux_free(m);
}

int rt_process_init(void)
{
	if (P.state)
		return P.state == 1 ? 0 : -1;
	const char *dir = getenv(PMCFI_ENV_DIR);
	if (!dir || !*dir) {
		P.state = -1;
		return -1;
	}
	if (is_mpi_launcher()) {
		P.state = -1;
		return -1;
	}
	snprintf(P.dir, sizeof(P.dir), "%s", dir);
	map_status();
	P.pid = claim_key(); /* after an exec(), the next generation of the pid */
	if (parse_events(getenv(PMCFI_ENV_EVENTS)) != 0) {
		P.state = -1;
		fatal("bad %s value '%s'", PMCFI_ENV_EVENTS,
		      getenv(PMCFI_ENV_EVENTS) ? getenv(PMCFI_ENV_EVENTS) : "");
		return -1;
	}
	split_names(getenv(PMCFI_ENV_NAMES));
	const char *mx = getenv(PMCFI_ENV_MUX);
	if (mx && *mx) {
		int mode = 0;
		unsigned pmcs = 0;
		unsigned long long per = 0;
		if (sscanf(mx, "%d:%u:%llu", &mode, &pmcs, &per) != 3 || mode < PMCF_MUX_NONE ||
		    mode > PMCF_MUX_ROC_COUNTS || (mode >= PMCF_MUX_RR && (!pmcs || !per))) {
			P.state = -1;
			fatal("bad %s value '%s'", PMCFI_ENV_MUX, mx);
			return -1;
		}
		P.mux = mode;
		P.mux_pmcs = pmcs;
		P.period_ns = per;
		if (mode >= PMCF_MUX_RR && install_tick() != 0) {
			P.state = -1;
			fatal("%s%s", "cannot install the multiplexing signal handler", "");
			return -1;
		}
	}
	const char *ck = getenv(PMCFI_ENV_CHUNK);
	P.chunk_bytes = (ck ? (size_t)strtoul(ck, NULL, 10) : 8192) * 1024;
	if (P.chunk_bytes < 65536)
		P.chunk_bytes = 65536;
	if (pthread_key_create(&P.key, thread_exit) != 0) {
		P.state = -1;
		fatal("%s%s", "cannot create a thread key", "");
		return -1;
	}
	pthread_atfork(NULL, NULL, after_fork_child);
	P.state = 1;
	mark_rank();
	rt_write_maps();
	return 0;
}

/* Chunks start small and double up to P.chunk_bytes: pre-faulting 8 MiB
 * (MAP_POPULATE) costs each thread about 3 ms at its start, most of it for
 * records a short thread never writes. Growing happens between a segment's
 * end and the next begin, so no XU counts it. */
#define FIRST_CHUNK_BYTES (256u * 1024u)

#ifdef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE_ MADV_POPULATE_WRITE
#else
#define MADV_POPULATE_WRITE_ 23 /* <linux/mman.h>, glibc < 2.35 */
#endif

static size_t chunk_bytes(uint32_t chunk)
{
	size_t b = FIRST_CHUNK_BYTES;
	for (uint32_t i = 0; i < chunk && b < P.chunk_bytes; i++)
		b *= 2;
	return b < P.chunk_bytes ? b : P.chunk_bytes;
}

/* Record space is made ready (allocated and mapped writable) a window at a
 * time, just ahead of the writes, instead of the whole chunk at once: each
 * 4 KiB page made ready costs about 6,500 kernel instructions on Linux 6.1
 * (allocation, zeroing, mapping, and unmapping at exit; bench/RESULTS.md,
 * issue 31), and a chunk is often far from full when the thread ends (the
 * last one of a doubling series up to half empty). */
#define WINDOW_BYTES (256u * 1024u)

/* Makes bytes [from, to) of mapping m ready: MADV_POPULATE_WRITE (Linux
 * 5.14+) allocates and maps every page writable in one pass, or fails (a
 * page that cannot be allocated: EFAULT, the SIGBUS a store would get, is a
 * full file system) instead of leaving a store to die of SIGBUS later.
 * MAP_POPULATE is not used: it maps a shared file's pages read-only where
 * the file system tracks dirty pages (ext4, xfs: a /tmp on disk), so each
 * page would be faulted twice. -EINVAL: the kernel has no
 * MADV_POPULATE_WRITE. */
static int populate(unsigned char *m, size_t from, size_t to)
{
	if (madvise(m + from, to - from, MADV_POPULATE_WRITE_) == 0)
		return 0;
	return errno == EFAULT ? -ENOSPC : -errno;
}

static void chunk_path(char *path, size_t size, const struct pmcfi_rt_thread *t, uint32_t chunk)
{
	snprintf(path, size, "%s/rec-%u-%u-%u", P.dir, P.pid, t->index, chunk);
}

/* Reserves bytes [from, to) of record file fd (-1: none at hand, then the
 * file is opened by its path) and makes them ready in mapping m. The
 * blocks are reserved first (posix_fallocate: a sparse file on a full file
 * system maps fine, and a store then dies of SIGBUS; on a tmpfs it is also
 * about 15 % cheaper per page than allocating in populate's faults: 5,500
 * against 6,300 kernel instructions, bench/RESULTS.md). */
static int reserve(const struct pmcfi_rt_thread *t, uint32_t chunk, int fd, unsigned char *m, size_t from,
		   size_t to)
{
	int own = -1;
	if (fd < 0) {
		char path[3200];
		chunk_path(path, sizeof(path), t, chunk);
		fd = own = open(path, O_RDWR | O_CLOEXEC);
	}
	/* without a descriptor (a program out of them), populate alone: it
	 * fails with EFAULT, not SIGBUS, where a page cannot be allocated */
	int e = fd >= 0 ? posix_fallocate(fd, (off_t)from, (off_t)(to - from)) : 0;
	if (own >= 0)
		close(own);
	return e ? -e : populate(m, from, to);
}

static int map_chunk(struct pmcfi_rt_thread *t)
{
	char path[3200];
	size_t bytes = chunk_bytes(t->chunk);
	uint32_t rs = pmcfi_rec_size(pmcfi_rec_vals((uint32_t)P.nev, P.mux ? 1u : 0u));
	chunk_path(path, sizeof(path), t, t->chunk);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	/* The file gets its size sparse; its first window is made ready now,
	 * the rest as the records reach it (grow). */
	int e = ftruncate(fd, (off_t)bytes) != 0 ? errno : 0;
	void *m = e ? MAP_FAILED : mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (!e && m == MAP_FAILED)
		e = errno;
	size_t ready = bytes < WINDOW_BYTES ? bytes : WINDOW_BYTES;
	int err = e ? -e : reserve(t, t->chunk, fd, m, 0, ready);
	if (err == -EINVAL) {
		/* no MADV_POPULATE_WRITE (Linux < 5.14): the whole chunk,
		 * reserved, then one store per page (the file is new: its bytes
		 * are zero) */
		ready = bytes;
		err = -posix_fallocate(fd, 0, (off_t)bytes);
		long pg = sysconf(_SC_PAGESIZE);
		for (size_t off = 0; !err && off < bytes; off += (size_t)(pg > 0 ? pg : 4096))
			((volatile unsigned char *)m)[off] = 0;
	}
	close(fd);
	if (err) {
		if (m != MAP_FAILED)
			munmap(m, bytes);
		unlink(path);
		return err;
	}
	struct pmcfi_rec_header *h = m;
	h->version = PMCFI_REC_VERSION;
	h->header_size = PMCFI_REC_HEADER_SIZE;
	h->pid = P.pid;
	h->thread = t->index;
	h->chunk = t->chunk;
	h->nev = (uint32_t)P.nev;
	h->mux = (uint32_t)P.mux;
	h->rec_size = rs;
	h->os_tid = (uint32_t)syscall(SYS_gettid);
	h->capacity = (bytes - PMCFI_REC_HEADER_SIZE) / rs;
	atomic_store_explicit(&h->count, 0, memory_order_relaxed);
	atomic_store_explicit(&h->dropped, 0, memory_order_relaxed);
	h->stop_errno = atomic_load_explicit(&P.stop_errno, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	h->magic = PMCFI_REC_MAGIC;
	t->hdr = h;
	t->map_bytes = bytes;
	t->recs = (unsigned char *)m + PMCFI_REC_HEADER_SIZE;
	t->prefetched = t->recs;
	t->ready = ready;
	t->ready_recs = (ready - PMCFI_REC_HEADER_SIZE) / rs;
	return 0;
}

/* Marks the thread stopped: the chunk cannot take more records (err:
 * -errno), which are dropped (counted); the headers say why. */
static void stop(struct pmcfi_rt_thread *t, int err)
{
	uint32_t none = 0;
	atomic_compare_exchange_strong(&P.stop_errno, &none, (uint32_t)-err);
	if (!t->hdr->stop_errno)
		t->hdr->stop_errno = (uint32_t)-err;
	t->stopped = 1;
}

/* Makes the next window of the chunk ready; -1 when it cannot (stopped). */
static int grow(struct pmcfi_rt_thread *t)
{
	if (t->stopped)
		return -1;
	size_t to = t->ready + WINDOW_BYTES < t->map_bytes ? t->ready + WINDOW_BYTES : t->map_bytes;
	int err = reserve(t, t->chunk, -1, (unsigned char *)t->hdr, t->ready, to);
	if (err) {
		stop(t, err);
		return -1;
	}
	t->ready = to;
	t->ready_recs = (to - PMCFI_REC_HEADER_SIZE) / t->hdr->rec_size;
	return 0;
}

static int next_chunk(struct pmcfi_rt_thread *t);

/* Room for more records: the chunk's next window, else the next chunk. */
static int more_room(struct pmcfi_rt_thread *t) { return t->ready < t->map_bytes ? grow(t) : next_chunk(t); }

/* Continues in the next chunk; -1 (the current one stays) when it cannot. */
static int next_chunk(struct pmcfi_rt_thread *t)
{
	struct pmcfi_rec_header *old = t->hdr;
	size_t old_bytes = t->map_bytes;
	if (t->stopped)
		return -1; /* no space: no retry at every boundary */
	t->chunk++;
	int err = map_chunk(t);
	if (err != 0) {
		/* the thread goes on in its full chunk, dropping what does not
		 * fit (counted); the header says why */
		t->hdr = old;
		t->map_bytes = old_bytes;
		t->chunk--;
		stop(t, err);
		return -1;
	}
	munmap(old, old_bytes);
	return 0;
}

/* Records kept free for the node records of one segment: a ready window
 * nearly full is grown (a chunk nearly full left) at a segment's end, so
 * that making space ready falls between XUs, not inside one. */
#define SPARE_RECORDS 64u

/* The next free record slot, or NULL (then the record is dropped). */
static struct pmcfi_rec *slot(struct pmcfi_rt_thread *t)
{
	uint64_t n = atomic_load_explicit(&t->hdr->count, memory_order_relaxed);
	if (n >= t->ready_recs) {
		if (more_room(t) != 0) {
			atomic_fetch_add_explicit(&t->hdr->dropped, 1, memory_order_relaxed);
			return NULL;
		}
		n = atomic_load_explicit(&t->hdr->count, memory_order_relaxed);
	}
	return (struct pmcfi_rec *)(t->recs + n * t->hdr->rec_size);
}

/* Record bytes kept prefetched beyond the next free slot (about the
 * records of one XU: its node and two segments). The chunk was populated
 * long before (map_chunk), so its lines have left the cache: without this,
 * the stores of write_seg and rt_node wait for memory, and perf record put
 * them at over half of the tool's own time. The lines are fetched while
 * the program runs its XU, between two boundaries. */
#define PREFETCH_AHEAD 512u
#define CACHE_LINE 64u

static void commit(struct pmcfi_rt_thread *t)
{
	uint64_t n = atomic_load_explicit(&t->hdr->count, memory_order_relaxed) + 1;
	atomic_store_explicit(&t->hdr->count, n, memory_order_release);
	unsigned char *end = t->recs + n * t->hdr->rec_size + PREFETCH_AHEAD,
		      *lim = (unsigned char *)t->hdr + t->ready;
	if (end > lim)
		end = lim;
	for (; t->prefetched < end; t->prefetched += CACHE_LINE)
		__builtin_prefetch(t->prefetched, 1, 3);
}

uint64_t rt_node(struct pmcfi_rt_thread *t, uint32_t kind, uint64_t parent, uint64_t addr, uint64_t a,
		 uint64_t b, uint32_t flags)
{
	return rt_node_entry(t, kind, parent, addr, a, b, flags, 0);
}

uint64_t rt_node_entry(struct pmcfi_rt_thread *t, uint32_t kind, uint64_t parent, uint64_t addr, uint64_t a,
		       uint64_t b, uint32_t flags, uint64_t entry)
{
	uint64_t id = ((uint64_t)(t->index + 1) << 40) | ++t->seq;
	struct pmcfi_rec *r = slot(t);
	if (!r)
		return id;
	r->type = PMCFI_R_NODE;
	r->kind = kind;
	r->node = id;
	r->parent = parent;
	r->addr = addr;
	r->a = a;
	r->b = b;
	r->t0 = rt_now();
	r->t1 = t->seq;
	r->cpu = -1;
	r->flags = flags;
	r->enabled = entry;
	r->running = 0;
	commit(t);
	return id;
}

static void write_seg(struct pmcfi_rt_thread *t, uint64_t node, uint32_t thread, uint64_t t0, int32_t cpu,
		      const struct pmcfi_pgroup_sample *s0, const struct pmcfi_pgroup_sample *s1, uint64_t t1,
		      int final)
{
	struct pmcfi_rec *r = slot(t);
	if (!r)
		return;
	r->type = PMCFI_R_SEG;
	r->kind = 0;
	r->node = node;
	r->parent = 0;
	r->addr = 0;
	r->a = thread;
	r->b = 0;
	r->t0 = t0;
	r->t1 = t1;
	r->cpu = cpu;
	r->flags = final ? PMCFI_F_FINAL : 0;
	r->enabled = s1->enabled - s0->enabled;
	r->running = s1->running - s0->running;
	if (P.mux) {
		/* Each event's enabled and running ns come from one read, but the
		 * events are read one after the other: compare each event with its
		 * own times only. The segment's times: the longest enabled, less
		 * the largest gap of any event. */
		int n = P.nev;
		uint64_t en = 0, gap = 0;
		for (int i = 0; i < n; i++) {
			uint64_t dv = s1->v[i] - s0->v[i], drun = s1->run[i] - s0->run[i],
				 den = s1->en[i] - s0->en[i];
			r->v[i] = dv;
			r->v[n + i] = drun;
			r->v[2 * n + i] = den;
			/* the scaled count is undefined (NaN: the reader's missing)
			 * until the event has counted on this thread */
			double c = s1->run[i] ? pmcfi_pgroup_scaled(s1, i) - pmcfi_pgroup_scaled(s0, i)
					      : (double)NAN;
			memcpy(&r->v[3 * n + i], &c, sizeof(c));
			if (den > en)
				en = den;
			if (den > drun && den - drun > gap)
				gap = den - drun;
		}
		r->enabled = en;
		r->running = en > gap ? en - gap : 0;
		t->hdr->rotations = t->rotations;
	} else
		for (int i = 0; i < P.nev; i++)
			r->v[i] = s1->v[i] - s0->v[i];
	commit(t);
}

/* XU boundaries. The end of one segment and the start of the next on the
 * same thread share one counter reading and one timestamp: the samples are
 * double-buffered (t->samp[t->cur] holds the open segment's start), so the
 * reading that ends a segment becomes the next one's start by flipping cur.
 * One exception keeps record-file growth out of every XU: when the chunk
 * had to roll over after the write, the next segment starts with a fresh
 * reading (once per chunk). */
void rt_seg_switch(struct pmcfi_rt_thread *t, uint64_t prev, int final, uint64_t next)
{
	uint64_t open = t->open_node;
	/* the open segment ends when it is prev's, when another begins, or
	 * when it was held (rt_seg_maybe) and this boundary is not its resume */
	uint64_t held = t->held;
	int close = open && (open == prev || next || held);
	t->held = 0;
	if (!close && !next)
		return;
	guard_enter(t);
	int fresh = 1;
	uint64_t now = 0;
	if (close) {
		struct pmcfi_pgroup_sample *s0 = &t->samp[t->cur], *s1 = &t->samp[t->cur ^ 1];
		pmcfi_pgroup_read(&t->group, s1);
		now = rt_now();
		write_seg(t, open, t->index, t->t0, t->cpu, s0, s1, now, final && open == prev);
		/* a held untied task whose continuation another thread took: prev,
		 * which it had given way to, ran on here and now ends without a
		 * segment open (its counts since the hold went to the held one);
		 * an empty final segment still marks it done */
		if (held && final && prev && open != prev)
			write_seg(t, prev, t->index, now, t->cpu, s1, s1, now, 1);
		t->open_node = 0;
		t->cur ^= 1;
		fresh = 0;
		if (atomic_load_explicit(&t->hdr->count, memory_order_relaxed) + SPARE_RECORDS >=
		    t->ready_recs) {
			more_room(t); /* on failure slot() retries when the room is full */
			fresh = 1;
		}
	}
	if (next) {
		t->before = prev;
		t->open_node = next;
		t->cpu = sched_getcpu();
		if (fresh) {
			t->t0 = rt_now();
			pmcfi_pgroup_read(&t->group, &t->samp[t->cur]);
		} else
			t->t0 = now;
	}
	guard_leave(t);
}

int rt_seg_maybe(struct pmcfi_rt_thread *t, uint64_t prev, uint64_t next)
{
	uint64_t open = t->open_node;
	if (!open)
		return 0;
	if (t->held) {
		if (next != t->held)
			return 0;
		t->held = 0; /* the held XU resumes: its segment goes on */
		return 1;
	}
	if (open != prev)
		return 0;
	if (next == prev)
		return 1; /* a switch of a task to itself */
	if (next && next != t->before)
		return 0;
	t->held = prev;
	return 1;
}

void rt_seg_begin(struct pmcfi_rt_thread *t, uint64_t node) { rt_seg_switch(t, 0, 0, node); }

void rt_seg_end(struct pmcfi_rt_thread *t, uint64_t node, int final)
{
	if (node)
		rt_seg_switch(t, node, final, 0);
}

struct pmcfi_rt_thread *rt_self(void)
{
	struct pmcfi_rt_thread *t = tls_self;
	if (t)
		return t;
	if (tls_failed || rt_process_init() != 0)
		return NULL;
	/* indices in creation order (given by pthread_create), so that thread
	 * labels repeat across runs */
	uint32_t idx = tls_index ? tls_index - 1 : atomic_fetch_add(&P.nthreads, 1);
	if (idx >= MAX_THREADS) {
		tls_failed = 1;
		lost(-EMLINK, "more threads than the collector records (4096)");
		return NULL;
	}
	t = mmap(NULL, sizeof(*t), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t == MAP_FAILED) {
		tls_failed = 1;
		lost(-errno, "cannot allocate a thread's state");
		return NULL;
	}
	t->index = idx;
	int err = !P.mux ? pmcfi_pgroup_open(&t->group, P.attrs, P.names, P.nev, 0)
			 : pmcfi_pgroup_open_mux(&t->group, P.attrs, P.names, P.nev,
						 P.mux == PMCF_MUX_KERNEL ? PMCFI_PGROUP_MUX_KERNEL
									  : PMCFI_PGROUP_MUX_USER);
	if (err) {
		tls_failed = 1;
		char e[32];
		snprintf(e, sizeof(e), "%d", err);
		fatal_lost(err, "cannot open the counters of a thread (error %s): %s", e, pmcf_errdetail());
		munmap(t, sizeof(*t));
		return NULL;
	}
	if ((err = map_chunk(t)) != 0) {
		tls_failed = 1;
		uint32_t none = 0; /* written into the headers of the threads that record */
		atomic_compare_exchange_strong(&P.stop_errno, &none, (uint32_t)-err);
		fatal_lost(err, "cannot create a record file in %s: %s", P.dir, strerror(-err));
		pmcfi_pgroup_close(&t->group);
		munmap(t, sizeof(*t));
		return NULL;
	}
	if (P.mux >= PMCF_MUX_RR && (err = mux_thread_start(t)) != 0) {
		tls_failed = 1;
		fatal_lost(err, "cannot start the multiplexing timer of a thread: %s%s", strerror(-err), "");
		mux_thread_stop(t);
		pmcfi_pgroup_close(&t->group);
		munmap(t->hdr, t->map_bytes);
		munmap(t, sizeof(*t));
		return NULL;
	}
	tls_self = t;
	pthread_setspecific(P.key, t);
	t->thread_node = rt_node(t, PMCF_XU_THREAD, PMCFI_ROOT, 0, idx, 0, 0);
	t->thread_cpu = sched_getcpu();
	t->thread_t0 = rt_now();
	/* thread_start stays zero: the group counts from its opening, just
	 * above (no read) */
	/* published once its thread XU is set up: process_fini reads it from
	 * another thread (the release store orders the fields above) */
	atomic_store(&P.threads[idx], t);
	return t;
}

/* Writes thread t's thread XU into the file of writer w. */
static void end_thread_xu(struct pmcfi_rt_thread *w, struct pmcfi_rt_thread *t)
{
	struct pmcfi_pgroup_sample s;
	int err;
	guard_enter(w);
	if (w != t && t->group.rdpmc) {
		/* rdpmc reads the calling cpu's counters: another thread's only
		 * through read(2) (rdpmc groups never change after opening) */
		struct pmcfi_pgroup g = t->group;
		g.rdpmc = 0;
		err = pmcfi_pgroup_read(&g, &s);
	} else
		err = pmcfi_pgroup_read(&t->group, &s);
	guard_leave(w);
	if (err != 0)
		return;
	write_seg(w, t->thread_node, t->index, t->thread_t0, t->thread_cpu, &t->thread_start, &s, rt_now(),
		  1);
}

void rt_thread_fini(struct pmcfi_rt_thread *t)
{
	if (!t || tls_self != t)
		return;
	if (atomic_exchange(&t->dead, 1)) {
		/* the exiting thread ended this thread's XU (process_fini) */
		mux_thread_stop(t);
		return;
	}
	if (t->open_node)
		rt_seg_end(t, t->open_node, 0);
	end_thread_xu(t, t);
	mux_thread_stop(t);
	atomic_store(&P.threads[t->index], NULL);
}

/* Process exit: the threads still running get their thread XU written by
 * the exiting thread (their counters are readable from any thread). */
__attribute__((destructor)) static void process_fini(void)
{
	struct pmcfi_rt_thread *self = tls_self;
	if (!rt_active() || !self)
		return;
	uint32_t n = atomic_load(&P.nthreads);
	for (uint32_t i = 0; i < n && i < MAX_THREADS; i++) {
		struct pmcfi_rt_thread *t = atomic_load(&P.threads[i]);
		if (t && t != self && !atomic_exchange(&t->dead, 1))
			end_thread_xu(self, t);
	}
	uint32_t stop = atomic_load(&P.stop_errno);
	if (stop && self->hdr && !self->hdr->stop_errno)
		self->hdr->stop_errno = stop; /* a thread that could not start */
	rt_thread_fini(self);
	rt_write_maps();
}

__attribute__((constructor)) static void process_start(void)
{
	if (rt_process_init() == 0)
		rt_self();
}

/* ---- pthread_create: every thread registers at its start ---------------- */
struct tramp {
	void *(*fn)(void *);
	void *arg;
	uint32_t index;
};

static void *trampoline(void *p)
{
	struct tramp tr = *(struct tramp *)p;
	free(p);
	tls_index = tr.index + 1;
	rt_self();
	return tr.fn(tr.arg);
}

typedef int (*pthread_create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

__attribute__((visibility("default"))) int pthread_create(pthread_t *th, const pthread_attr_t *attr,
							  void *(*fn)(void *), void *arg)
{
	static pthread_create_fn real;
	if (!real) {
		void *f = dlsym(RTLD_NEXT, "pthread_create");
		memcpy(&real, &f, sizeof(real));
		if (!real)
			return EAGAIN;
	}
	if (!rt_active())
		return real(th, attr, fn, arg);
	struct tramp *tr = malloc(sizeof(*tr));
	if (!tr)
		return real(th, attr, fn, arg);
	tr->fn = fn;
	tr->arg = arg;
	tr->index = atomic_fetch_add(&P.nthreads, 1);
	int r = real(th, attr, trampoline, tr);
	if (r)
		free(tr);
	return r;
}

/* ---- task API ------------------------------------------------------------- */
static int api_type(const char *name, uint32_t *id)
{
	if (!rt_active())
		return PMCF_ENOTSUP;
	uint32_t n = atomic_fetch_add(&P.ntypes, 1) + 1;
	char clean[400], line[512];
	snprintf(clean, sizeof(clean), "%s", name ? name : "");
	for (char *c = clean; *c; c++)
		if (*c == '\n' || *c == '\t' || *c == '\r')
			*c = ' ';
	snprintf(line, sizeof(line), "%u\t%s\n", n, clean);
	write_file("types", line, 1);
	*id = n;
	return 0;
}

static uint64_t api_create(uint64_t parent, uint32_t type)
{
	struct pmcfi_rt_thread *t = rt_self();
	if (!t)
		return 0;
	return rt_node(t, PMCF_XU_TASK, parent, type, 0, 0, PMCFI_F_API);
}

static void api_begin(uint64_t task)
{
	struct pmcfi_rt_thread *t = rt_self();
	if (!t || !task || t->napi == RT_MAX_NEST)
		return;
	t->api_resume[t->napi] = t->open_node;
	t->api_level[t->napi] = rt_omp_depth(t);
	t->api_stack[t->napi++] = task;
	rt_seg_begin(t, task); /* pauses the outer task or OpenMP XU, if any */
}

static void api_leave(uint64_t task, int final)
{
	struct pmcfi_rt_thread *t = rt_self();
	if (!t || !task)
		return;
	uint64_t next = 0;
	if (t->napi > 0 && t->api_stack[t->napi - 1] == task) {
		/* an OpenMP XU inside it is open (ending a task inside an XU it
		 * encloses): close that one first, its segment continues later */
		if (t->open_node != task)
			rt_seg_begin(t, task);
		/* what was open when it began (an outer task or an OpenMP XU),
		 * else the enclosing API task */
		next = t->api_resume[--t->napi];
		if (!next && t->napi > 0)
			next = t->api_stack[t->napi - 1];
	}
	rt_seg_switch(t, task, final, next); /* what resumes: one reading */
}

static void api_pause(uint64_t task) { api_leave(task, 0); }
static void api_end(uint64_t task) { api_leave(task, 1); }

static uint64_t api_current(void)
{
	struct pmcfi_rt_thread *t = rt_self();
	return t && t->napi ? t->api_stack[t->napi - 1] : PMCFI_ROOT;
}

__attribute__((visibility("default")))
const struct pmcfi_task_rt pmcfi_task_rt_v1 = {1,         api_type, api_create, api_begin,
					       api_pause, api_end,  api_current};
