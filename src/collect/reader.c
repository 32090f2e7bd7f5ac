/* The collector's reader: record files -> profile. Nodes of the creation
 * tree get labels (fuse-openmp §4.1 for OpenMP constructs, fuse-task-parallel
 * §3.1 for the task API); XUs sum their segments ("the XU is the sum of its
 * parts", fuse-openmp §2); code addresses become module-relative. */
#include <dirent.h>
#include <elf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "collect/reader.h"
#include "collect/rec.h"
#include "collect/typename.h"
#include "counters/derive.h"
#include "pmcfuse/multiplex.h"
#include "profile/bare.h"
#include "util/abi.h"
#include "util/internal.h"

struct node {
	uint32_t pid, kind, flags, thread;
	uint64_t id, parent, addr, a, b, t0, seq;
	uint64_t entry; /* a task's entry routine (absolute), 0 unknown */
	long parent_ix; /* index of the parent node, -1 root, -2 lost */
	long canon;     /* loops: the node standing for this loop instance */
	uint64_t part;  /* rank within the parent (meaning by kind) */
	uint32_t lnode; /* its label: a node of the profile's label tree, 0 not made */
	/* XU sums */
	int nseg, final;
	uint64_t first_t0, last_t1, dur, en, run;
	int32_t seg_thread, cpu;
	double *v;
	double *mx; /* multiplexed: per event running ns, enabled ns, cumulative estimate,
		       segments whose cumulative estimate is defined */
};

struct module_map {
	uint32_t pid;
	uint64_t start, end, base;
	char *path;
};

struct rd {
	struct node *n;
	size_t nn, cap;
	uint32_t root_lnode, lost_lnode; /* labels "0" and "0.?" (make_label) */
	long *hash;                      /* open addressing over (pid, id) */
	size_t hcap;
	size_t nev;
	int mux; /* -1 unknown yet, else the files' mux mode */
	struct module_map *maps;
	size_t nmaps, cap_maps;
	uint32_t *thread_keys; /* (pid, thread) pairs, for numbering */
	size_t nthread_keys, cap_thread_keys;
	int32_t *thread_no; /* per key: its thread number (within its MPI rank) */
	/* MPI ranks: (process key, rank) from the rank-KEY markers, by key */
	uint32_t *pranks;
	size_t npranks, cap_pranks;
	struct dwmod *dwm; /* modules opened for source lookups */
	size_t ndwm, cap_dwm;
	/* events counted as several natives: the columns are dv[0..ndv), the
	 * natives' values of one XU wait in dval/den/drun (see put) */
	const struct pmcfi_derive *dv;
	size_t ndv;
	double *dval;
	uint64_t *den, *drun;
	int dcov;
};

static uint64_t hkey(uint32_t pid, uint64_t id) { return (id * 0x9e3779b97f4a7c15ull) ^ pid; }

static long find(const struct rd *r, uint32_t pid, uint64_t id)
{
	if (!r->hcap)
		return -1;
	for (size_t h = hkey(pid, id) & (r->hcap - 1);; h = (h + 1) & (r->hcap - 1)) {
		long i = r->hash[h];
		if (i < 0)
			return -1;
		if (r->n[i].pid == pid && r->n[i].id == id)
			return i;
	}
}

static int rehash(struct rd *r, size_t cap)
{
	long *h = malloc(cap * sizeof(*h));
	if (!h)
		return PMCF_ENOMEM;
	for (size_t i = 0; i < cap; i++)
		h[i] = -1;
	free(r->hash);
	r->hash = h;
	r->hcap = cap;
	for (size_t i = 0; i < r->nn; i++) {
		size_t k = hkey(r->n[i].pid, r->n[i].id) & (cap - 1);
		while (h[k] >= 0)
			k = (k + 1) & (cap - 1);
		h[k] = (long)i;
	}
	return 0;
}

static long node_get(struct rd *r, uint32_t pid, uint64_t id, int create)
{
	long i = find(r, pid, id);
	if (i >= 0 || !create)
		return i;
	if (pmcfi_grow((void **)&r->n, &r->cap, r->nn + 1, sizeof(*r->n)))
		return PMCF_ENOMEM;
	if ((r->nn + 1) * 2 > r->hcap && rehash(r, r->hcap ? r->hcap * 2 : 2048) != 0)
		return PMCF_ENOMEM;
	struct node *n = &r->n[r->nn];
	memset(n, 0, sizeof(*n));
	n->pid = pid;
	n->id = id;
	n->parent_ix = -2;
	n->canon = -1;
	n->seg_thread = -1;
	n->cpu = -1;
	n->v = calloc(r->nev ? r->nev : 1, sizeof(double));
	if (!n->v)
		return PMCF_ENOMEM;
	size_t k = hkey(pid, id) & (r->hcap - 1);
	while (r->hash[k] >= 0)
		k = (k + 1) & (r->hcap - 1);
	r->hash[k] = (long)r->nn;
	return (long)r->nn++;
}

static int thread_key(struct rd *r, uint32_t pid, uint32_t thread)
{
	for (size_t i = 0; i < r->nthread_keys; i++)
		if (r->thread_keys[2 * i] == pid && r->thread_keys[2 * i + 1] == thread)
			return 0;
	/* (pid, thread) pairs */
	if (pmcfi_grow((void **)&r->thread_keys, &r->cap_thread_keys, r->nthread_keys + 1,
		       2 * sizeof(*r->thread_keys)))
		return PMCF_ENOMEM;
	r->thread_keys[2 * r->nthread_keys] = pid;
	r->thread_keys[2 * r->nthread_keys + 1] = thread;
	r->nthread_keys++;
	return 0;
}

/* The MPI rank of process key pid: -1 when it has none. */
static long rank_of(const struct rd *r, uint32_t pid)
{
	size_t lo = 0, hi = r->npranks;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (r->pranks[2 * mid] == pid)
			return (long)r->pranks[2 * mid + 1];
		if (r->pranks[2 * mid] < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static const struct rd *key_rd;
/* Threads by rank (none first), process, registration order. */
static int cmp_thread_key(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;
	long rx = rank_of(key_rd, x[0]), ry = rank_of(key_rd, y[0]);
	if (rx != ry)
		return rx < ry ? -1 : 1;
	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* Sorts the thread keys and numbers them from 0 within each rank (all of
 * them in one run when no process has a rank). */
static int number_threads(struct rd *r)
{
	key_rd = r;
	if (r->nthread_keys)
		qsort(r->thread_keys, r->nthread_keys, 2 * sizeof(uint32_t), cmp_thread_key);
	r->thread_no = malloc((r->nthread_keys ? r->nthread_keys : 1) * sizeof(*r->thread_no));
	if (!r->thread_no)
		return PMCF_ENOMEM;
	for (size_t i = 0, first = 0; i < r->nthread_keys; i++) {
		if (rank_of(r, r->thread_keys[2 * i]) != rank_of(r, r->thread_keys[2 * first]))
			first = i;
		r->thread_no[i] = (int32_t)(i - first);
	}
	return 0;
}

static int32_t thread_number(const struct rd *r, uint32_t pid, uint32_t thread)
{
	for (size_t i = 0; i < r->nthread_keys; i++)
		if (r->thread_keys[2 * i] == pid && r->thread_keys[2 * i + 1] == thread)
			return r->thread_no[i];
	return -1;
}

/* ---- record files ---------------------------------------------------------- */
static int read_file(struct rd *r, const char *path, struct pmcfi_collect_stats *st)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return pmcfi_fail(-errno, "cannot open %s: %s", path, strerror(errno));
	struct stat sb;
	if (fstat(fd, &sb) != 0 || (size_t)sb.st_size < PMCFI_REC_HEADER_SIZE) {
		close(fd);
		/* a thread killed while creating its file: nothing recorded */
		return 0;
	}
	void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return pmcfi_fail(-errno, "cannot map %s: %s", path, strerror(errno));
	const struct pmcfi_rec_header *h = m;
	int err = 0;
	if (h->magic == 0)
		goto out; /* never initialised */
	if (h->magic != PMCFI_REC_MAGIC || h->version != PMCFI_REC_VERSION ||
	    h->header_size != PMCFI_REC_HEADER_SIZE || h->nev != r->nev ||
	    h->rec_size != pmcfi_rec_size(pmcfi_rec_vals(h->nev, h->mux)) ||
	    (r->mux >= 0 && (uint32_t)r->mux != h->mux)) {
		err = pmcfi_fail(PMCF_ECORRUPT, "%s: not a record file of this collection", path);
		goto out;
	}
	uint64_t count = atomic_load(&((struct pmcfi_rec_header *)m)->count);
	uint64_t fits = ((uint64_t)sb.st_size - PMCFI_REC_HEADER_SIZE) / h->rec_size;
	if (count > fits)
		count = fits;
	st->dropped += atomic_load(&((struct pmcfi_rec_header *)m)->dropped);
	if (h->stop_errno && !st->stop_errno)
		st->stop_errno = (int)h->stop_errno;
	r->mux = (int)h->mux;
	st->rotations += h->rotations;
	if ((err = thread_key(r, h->pid, h->thread)) != 0)
		goto out;
	const unsigned char *base = (const unsigned char *)m + PMCFI_REC_HEADER_SIZE;
	for (uint64_t i = 0; i < count; i++) {
		const struct pmcfi_rec *rec = (const void *)(base + i * h->rec_size);
		if (rec->type == PMCFI_R_NODE) {
			long ix = node_get(r, h->pid, rec->node, 1);
			if (ix < 0) {
				err = (int)ix;
				goto out;
			}
			struct node *n = &r->n[ix];
			n->kind = rec->kind;
			n->flags = rec->flags;
			n->parent = rec->parent;
			n->addr = rec->addr;
			n->entry = rec->kind == PMCF_XU_TASK ? rec->enabled : 0;
			n->a = rec->a;
			n->b = rec->b;
			n->t0 = rec->t0;
			n->seq = rec->t1;
			n->thread = h->thread;
			n->parent_ix = -3; /* known, resolved later */
		} else if (rec->type == PMCFI_R_SEG) {
			long ix = node_get(r, h->pid, rec->node, 1);
			if (ix < 0) {
				err = (int)ix;
				goto out;
			}
			struct node *n = &r->n[ix];
			if (n->nseg == 0 || rec->t0 < n->first_t0) {
				n->first_t0 = rec->t0;
				n->seg_thread = (int32_t)rec->a;
				n->cpu = rec->cpu;
			}
			if (rec->t1 > n->last_t1)
				n->last_t1 = rec->t1;
			n->nseg++;
			n->dur += rec->t1 - rec->t0;
			n->en += rec->enabled;
			n->run += rec->running;
			for (size_t e = 0; e < r->nev; e++)
				n->v[e] += (double)rec->v[e];
			if (h->mux) {
				if (!n->mx && !(n->mx = calloc(4 * r->nev + 1, sizeof(double)))) {
					err = PMCF_ENOMEM;
					goto out;
				}
				size_t ne = r->nev;
				for (size_t e = 0; e < ne; e++) {
					double c;
					memcpy(&c, &rec->v[3 * ne + e], sizeof(c));
					n->mx[e] += (double)rec->v[ne + e];
					n->mx[ne + e] += (double)rec->v[2 * ne + e];
					if (c == c) { /* NaN: not counted yet on that thread */
						n->mx[2 * ne + e] += c;
						n->mx[3 * ne + e] += 1;
					}
				}
			}
			if (rec->flags & PMCFI_F_FINAL)
				n->final = 1;
			if (rec->a != h->thread && (err = thread_key(r, h->pid, (uint32_t)rec->a)) != 0)
				goto out;
		} else {
			err = pmcfi_fail(PMCF_ECORRUPT, "%s: record %" PRIu64 " has type %u", path, i,
					 rec->type);
			goto out;
		}
	}
out:
	munmap(m, (size_t)sb.st_size);
	return err;
}

/* ---- modules ------------------------------------------------------------------- */
static int read_maps(struct rd *r, const char *dir, uint32_t pid)
{
	char path[4096], line[4608];
	snprintf(path, sizeof(path), "%s/maps-%u", dir, pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t first = r->nmaps;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		int pos = 0;
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &s, &e, &off, &pos) != 3 || !pos)
			continue;
		char *p = line + pos;
		p[strcspn(p, "\n")] = '\0';
		if (p[0] != '/')
			continue;
		if (pmcfi_grow((void **)&r->maps, &r->cap_maps, r->nmaps + 1, sizeof(*r->maps))) {
			fclose(f);
			return PMCF_ENOMEM;
		}
		struct module_map *mm = &r->maps[r->nmaps];
		mm->pid = pid;
		mm->start = s;
		mm->end = e;
		mm->base = off == 0 ? s : 0;
		mm->path = strdup(p);
		if (!mm->path) {
			fclose(f);
			return PMCF_ENOMEM;
		}
		r->nmaps++;
	}
	fclose(f);
	/* base of every mapping: the lowest start of its file's mappings */
	for (size_t i = first; i < r->nmaps; i++) {
		uint64_t b = UINT64_MAX;
		for (size_t j = first; j < r->nmaps; j++)
			if (strcmp(r->maps[i].path, r->maps[j].path) == 0 && r->maps[j].start < b)
				b = r->maps[j].start;
		r->maps[i].base = b;
	}
	return 0;
}

/* Module and module-relative offset of code address addr in process pid. */
static const char *module_of(const struct rd *r, uint32_t pid, uint64_t addr, uint64_t *rel)
{
	for (size_t i = 0; i < r->nmaps; i++)
		if (r->maps[i].pid == pid && addr >= r->maps[i].start && addr < r->maps[i].end) {
			*rel = addr - r->maps[i].base;
			return r->maps[i].path;
		}
	*rel = addr;
	return NULL;
}

/* ET_EXEC modules keep absolute addresses for debug info: their load base. */
static uint64_t elf_exec_base(const char *path)
{
	uint64_t base = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	Elf64_Ehdr eh;
	if (read(fd, &eh, sizeof(eh)) == (ssize_t)sizeof(eh) && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
	    eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_type == ET_EXEC) {
		base = UINT64_MAX;
		for (int i = 0; i < eh.e_phnum; i++) {
			Elf64_Phdr ph;
			if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (uint64_t)i * eh.e_phentsize)) !=
			    (ssize_t)sizeof(ph))
				break;
			if (ph.p_type == PT_LOAD && (ph.p_vaddr & ~0xfffull) < base)
				base = ph.p_vaddr & ~0xfffull;
		}
		if (base == UINT64_MAX)
			base = 0;
	}
	close(fd);
	return base;
}

/* ---- source lookup (libdw, in process) --------------------------------------------- */
struct srcloc {
	char file[1024];
	unsigned line;
};

/* A module opened once per read: its DWARF (NULL without debug info) and,
 * for ET_EXEC, its load base. */
struct dwmod {
	char *path;
	int fd;
	Elf *elf;
	Dwarf *dw;
	uint64_t exec_base;
	struct pmcfi_taskents *tasks; /* loaded on first use */
	int tasks_loaded;
};

static struct dwmod *dwmod_get(struct rd *r, const char *path)
{
	for (size_t i = 0; i < r->ndwm; i++)
		if (strcmp(r->dwm[i].path, path) == 0)
			return &r->dwm[i];
	if (pmcfi_grow((void **)&r->dwm, &r->cap_dwm, r->ndwm + 1, sizeof(*r->dwm)))
		return NULL;
	struct dwmod *m = &r->dwm[r->ndwm];
	memset(m, 0, sizeof(*m));
	m->fd = -1;
	if (!(m->path = strdup(path)))
		return NULL;
	r->ndwm++;
	m->exec_base = elf_exec_base(path);
	elf_version(EV_CURRENT);
	if ((m->fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0 &&
	    (m->elf = elf_begin(m->fd, ELF_C_READ_MMAP, NULL)) != NULL)
		m->dw = dwarf_begin_elf(m->elf, DWARF_C_READ, NULL);
	return m;
}

static void dwmod_free(struct rd *r)
{
	for (size_t i = 0; i < r->ndwm; i++) {
		if (r->dwm[i].dw)
			dwarf_end(r->dwm[i].dw);
		if (r->dwm[i].elf)
			elf_end(r->dwm[i].elf);
		if (r->dwm[i].fd >= 0)
			close(r->dwm[i].fd);
		pmcfi_taskents_free(r->dwm[i].tasks);
		free(r->dwm[i].path);
	}
	free(r->dwm);
	r->dwm = NULL;
	r->ndwm = r->cap_dwm = 0;
}

/* File and line of module-relative address rel (the construct's return
 * address: the call is at rel - 1), as addr2line gives them. */
static int lookup_source(struct rd *r, const char *module, uint64_t rel, struct srcloc *loc)
{
	memset(loc, 0, sizeof(*loc));
	struct dwmod *m = dwmod_get(r, module);
	if (!m || !m->dw)
		return -1;
	Dwarf_Addr addr = rel + m->exec_base - 1;
	Dwarf_Die cu;
	if (pmcfi_dwarf_cu_at(m->dw, addr, &cu) != 0)
		return -1;
	Dwarf_Line *l = dwarf_getsrc_die(&cu, addr);
	int ln = 0;
	const char *file = l ? dwarf_linesrc(l, NULL, NULL) : NULL;
	if (!file || dwarf_lineno(l, &ln) != 0 || ln <= 0)
		return -1;
	loc->line = (unsigned)ln;
	snprintf(loc->file, sizeof(loc->file), "%.1023s", file);
	return 0;
}

static int is_keyword(const char *w, size_t n)
{
	static const char *const kw[] = {"if", "for", "while", "switch", "return", "sizeof", "do"};
	for (size_t i = 0; i < PMCF_ARRAY_SIZE(kw); i++)
		if (strlen(kw[i]) == n && strncmp(kw[i], w, n) == 0)
			return 1;
	return 0;
}

/* The first function a task's block calls, from the source lines at and
 * after its pragma: "potrf" for `#pragma omp task …` then `potrf(A, …);`;
 * an allocation or copy (pmcfi_name_incidental) only when nothing else is
 * called. The fallback when the debug info has no call sites (-O0). */
static int task_callee(const struct srcloc *loc, char *out, size_t len, int *single)
{
	int calls = 0;
	FILE *f = fopen(loc->file, "r");
	if (!f)
		return -1;
	char line[1024], backup[200] = "";
	unsigned no = 0;
	/* the block: a statement up to its ';', or braces up to the match */
	int found = -1, in_pragma = 0, depth = 0, braced = 0, done = 0;
	while (!done && fgets(line, sizeof(line), f) && calls < 2) {
		no++;
		if (no < loc->line)
			continue;
		if (no > loc->line + 200)
			break;
		char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		size_t l = strlen(p);
		int cont = l >= 2 && p[l - 2] == '\\';
		if (strncmp(p, "#pragma", 7) == 0 || in_pragma) {
			in_pragma = cont;
			continue;
		}
		for (char *c = p; *c; c++) {
			if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || *c == '_') {
				char *s = c;
				while ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
				       (*c >= '0' && *c <= '9') || *c == '_')
					c++;
				char *q = c;
				while (*q == ' ')
					q++;
				if (*q == '(' && !is_keyword(s, (size_t)(c - s))) {
					char w[200];
					snprintf(w, sizeof(w), "%.*s", (int)(c - s), s);
					calls++;
					if (pmcfi_name_incidental(w)) {
						if (!backup[0])
							snprintf(backup, sizeof(backup), "%s", w);
					} else if (found < 0) {
						snprintf(out, len, "%s", w);
						found = 0;
					}
				}
				c--;
			} else if (*c == '/' && c[1] == '/') {
				break;
			} else if (*c == '{') {
				depth++;
				braced = 1;
			} else if ((*c == '}' && --depth <= 0) || (*c == ';' && !braced && depth == 0)) {
				done = 1;
				break;
			}
		}
	}
	fclose(f);
	*single = calls == 1;
	if (found < 0 && backup[0]) {
		snprintf(out, len, "%s", backup);
		found = 0;
	}
	return found;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

static int api_type_name(const char *dir, uint32_t pid, uint64_t id, char *out, size_t len)
{
	char path[4096], line[512];
	snprintf(path, sizeof(path), "%s/types-%u", dir, pid);
	FILE *f = fopen(path, "r");
	int found = -1;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *tab = strchr(line, '\t');
		if (!tab || strtoull(line, NULL, 10) != id)
			continue;
		tab[1 + strcspn(tab + 1, "\n")] = '\0';
		snprintf(out, len, "%s", tab + 1);
		found = 0;
		break;
	}
	fclose(f);
	return found;
}

/* The task construct's callee from the module's debug info, or NULL. */
static const char *dwarf_callee(struct rd *r, const char *mod, const struct srcloc *loc, char *out,
				size_t len, int *shared, int *single)
{
	struct dwmod *m = dwmod_get(r, mod);
	if (!m || !m->dw)
		return NULL;
	if (!m->tasks_loaded) {
		m->tasks_loaded = 1;
		if (pmcfi_taskents_load(m->dw, &m->tasks) != 0)
			return NULL;
	}
	return pmcfi_taskents_callee(m->tasks, loc->file, loc->line, out, len, shared, single) == 0 ? out
												    : NULL;
}

/* One XU type as the reader names it (docs/collector.md, "Type names"):
 * a task is named after the function its block calls (debug info first,
 * the source file second), "NAME@file:line" where another construct calls
 * the same function; loops "KIND@file:line"; without a line, the
 * enclosing function; without debug info, module+offset. */
struct tname {
	uint32_t pid, kind;
	uint64_t addr, entry;
	char name[520], location[260], alt[260], callee[200];
	uint32_t id;  /* profile type index, once added */
	size_t first; /* first XU (in output order) of the type */
};

/* The pragma of a task from its entry routine: clang declares the
 * construct's .omp_task_entry. function at the pragma's line. */
static int entry_source(struct rd *r, const struct node *n, struct srcloc *loc)
{
	uint64_t rel;
	const char *mod = n->entry ? module_of(r, n->pid, n->entry, &rel) : NULL;
	struct dwmod *m = mod ? dwmod_get(r, mod) : NULL;
	if (!m || !m->dw)
		return -1;
	if (!m->tasks_loaded) {
		m->tasks_loaded = 1;
		if (pmcfi_taskents_load(m->dw, &m->tasks) != 0)
			return -1;
	}
	const char *file;
	unsigned line;
	if (pmcfi_taskents_at(m->tasks, rel + m->exec_base, &file, &line) != 0)
		return -1;
	memset(loc, 0, sizeof(*loc));
	snprintf(loc->file, sizeof(loc->file), "%.1023s", file);
	loc->line = line;
	return 0;
}

/* The source function a construct is in: the function (or inlined
 * function) holding its creating call; for one met directly in a parallel
 * region (whose body is the compiler's outlined function), that of the
 * construct creating the region, and so on up. */
static int construct_function(struct rd *r, const struct node *n, char *out, size_t len)
{
	for (int up = 0; n && up < 16; up++) {
		uint64_t rel, off;
		const char *mod = n->flags & PMCFI_F_API ? NULL : module_of(r, n->pid, n->addr, &rel);
		struct dwmod *m = mod ? dwmod_get(r, mod) : NULL;
		if (m &&
		    pmcfi_enclosing_function(m->dw, m->elf, rel + m->exec_base - 1, out, len, &off) == 0 &&
		    out[0] != '.')
			return 0;
		n = n->parent_ix >= 0 ? &r->n[n->parent_ix] : NULL;
	}
	return -1;
}

static void name_type(struct rd *r, const char *dir, const struct node *n, struct tname *t)
{
	const char *kind = pmcf_xu_kind_name((int)n->kind);
	t->location[0] = t->alt[0] = t->callee[0] = '\0';
	if (n->kind == PMCF_XU_THREAD) {
		snprintf(t->name, sizeof(t->name), "thread");
		return;
	}
	if (n->flags & PMCFI_F_API) {
		if (api_type_name(dir, n->pid, n->addr, t->name, sizeof(t->name)) != 0)
			snprintf(t->name, sizeof(t->name), "task-type-%" PRIu64, n->addr);
		snprintf(t->alt, sizeof(t->alt), "type-%" PRIu64, n->addr);
		return;
	}
	uint64_t rel;
	const char *mod = module_of(r, n->pid, n->addr, &rel);
	if (!mod) {
		snprintf(t->name, sizeof(t->name), "%s@0x%" PRIx64, kind, n->addr);
		return;
	}
	snprintf(t->alt, sizeof(t->alt), "%.230s+0x%" PRIx64, base_name(mod), rel);
	struct srcloc loc;
	int have = n->kind == PMCF_XU_TASK && entry_source(r, n, &loc) == 0;
	if (have || lookup_source(r, mod, rel, &loc) == 0) {
		snprintf(t->location, sizeof(t->location), "%.240s:%u", base_name(loc.file), loc.line);
		if (n->kind != PMCF_XU_TASK) {
			snprintf(t->name, sizeof(t->name), "%s@%s", kind, t->location);
			return;
		}
		/* a task: named after the function its block calls when the block
		 * is that one call ("callee@file:line" when another construct
		 * calls it too), else after its construct's enclosing function and
		 * location; the callee is kept beside the name either way */
		int shared = 0, single = 0;
		if (!dwarf_callee(r, mod, &loc, t->callee, sizeof(t->callee), &shared, &single) &&
		    task_callee(&loc, t->callee, sizeof(t->callee), &single) != 0)
			t->callee[0] = '\0';
		char fn[300];
		if (t->callee[0] && single && !shared)
			snprintf(t->name, sizeof(t->name), "%s", t->callee);
		else if (t->callee[0] && single)
			snprintf(t->name, sizeof(t->name), "%.199s@%s", t->callee, t->location);
		else if (construct_function(r, n, fn, sizeof(fn)) == 0)
			snprintf(t->name, sizeof(t->name), "%.255s@%s", fn, t->location);
		else
			snprintf(t->name, sizeof(t->name), "%s@%s", kind, t->location);
		return;
	}
	/* no line (line 0, or no line table): the enclosing function */
	struct dwmod *m = dwmod_get(r, mod);
	char fn[300];
	uint64_t off;
	if (m && pmcfi_enclosing_function(m->dw, m->elf, rel + m->exec_base - 1, fn, sizeof(fn), &off) == 0)
		snprintf(t->name, sizeof(t->name), "%s@%.299s+0x%" PRIx64, kind, fn, off + 1);
	else
		snprintf(t->name, sizeof(t->name), "%s@%s", kind, t->alt);
}

static int cmp_tname(const void *x, const void *y)
{
	const struct tname *a = *(struct tname *const *)x, *b = *(struct tname *const *)y;
	int c = strcmp(a->name, b->name);
	if (c)
		return c;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	c = strcmp(a->location, b->location);
	if (c)
		return c;
	c = a->location[0] ? 0 : strcmp(a->alt, b->alt);
	return c ? c : (a->first > b->first) - (a->first < b->first);
}

/* Two types of one name are the same construct (in several processes of
 * the program) when kind and location agree, or, without a location, the
 * module offset. */
static int same_construct(const struct tname *a, const struct tname *b)
{
	return a->kind == b->kind && strcmp(a->location, b->location) == 0 &&
	       (a->location[0] || strcmp(a->alt, b->alt) == 0);
}

/* Makes names unique among different types of one profile: a name shared by
 * types of other kinds or locations gets "@file:line" (or "@module+0x…"
 * where the location is the same or unknown). Types equal in kind, name and
 * location (the same construct in several processes) stay one type. */
static int unique_names(struct tname *t, size_t n)
{
	struct tname **v = malloc((n ? n : 1) * sizeof(*v));
	if (!v)
		return PMCF_ENOMEM;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < n; i++)
			v[i] = &t[i];
		qsort(v, n, sizeof(*v), cmp_tname);
		for (size_t i = 0; i < n;) {
			size_t j = i + 1, distinct = 1;
			for (; j < n && strcmp(v[j]->name, v[i]->name) == 0; j++)
				if (!same_construct(v[j], v[j - 1]))
					distinct++;
			for (size_t k = i; distinct > 1 && k < j; k++) {
				struct tname *e = v[k];
				char old[sizeof(e->name)];
				snprintf(old, sizeof(old), "%s", e->name);
				const char *suffix = pass == 0 && e->location[0] && !strchr(old, '@')
							     ? e->location
							     : e->alt;
				if (*suffix)
					snprintf(e->name, sizeof(e->name), "%.255s@%.259s", old, suffix);
			}
			i = j;
		}
	}
	free(v);
	return 0;
}

/* Type keys (pid, kind, addr) -> index into the tname array. */
struct tkeys {
	long *slot;
	size_t cap;
};

static size_t tkey_hash(uint32_t pid, uint32_t kind, uint64_t addr, uint64_t entry)
{
	return (size_t)(((addr ^ (entry * 0xff51afd7ed558ccdull)) * 0x9e3779b97f4a7c15ull) ^
			((uint64_t)pid << 8) ^ kind);
}

static long tkey_find(const struct tkeys *h, const struct tname *t, const struct node *n, size_t *at)
{
	for (size_t i = tkey_hash(n->pid, n->kind, n->addr, n->entry) & (h->cap - 1);;
	     i = (i + 1) & (h->cap - 1)) {
		long k = h->slot[i];
		if (k < 0 || (t[k].pid == n->pid && t[k].kind == n->kind && t[k].addr == n->addr &&
			      t[k].entry == n->entry)) {
			*at = i;
			return k;
		}
	}
}

/* Names every type of the XUs xs[0..nx) and adds them to p in the order of
 * their first XU; type[k] is XU k's type index. */
static int add_types(struct rd *r, const char *dir, const long *xs, size_t nx, pmcf_profile *p,
		     uint32_t *type)
{
	struct tkeys h = {NULL, 64};
	while (h.cap < 2 * nx)
		h.cap *= 2;
	struct tname *t = NULL;
	size_t nt = 0, cap = 0;
	int err = 0;
	long *of = malloc((nx ? nx : 1) * sizeof(*of));
	if (!of || !(h.slot = malloc(h.cap * sizeof(*h.slot)))) {
		free(of);
		return PMCF_ENOMEM;
	}
	memset(h.slot, 0xff, h.cap * sizeof(*h.slot));
	for (size_t k = 0; k < nx && !err; k++) {
		const struct node *n = &r->n[xs[k]];
		size_t at;
		long e = tkey_find(&h, t, n, &at);
		if (e < 0) {
			if (pmcfi_grow((void **)&t, &cap, nt + 1, sizeof(*t))) {
				err = PMCF_ENOMEM;
				break;
			}
			e = (long)nt++;
			t[e].pid = n->pid;
			t[e].kind = n->kind;
			t[e].addr = n->addr;
			t[e].entry = n->entry;
			t[e].first = k;
			name_type(r, dir, n, &t[e]);
			h.slot[at] = e;
		}
		of[k] = e;
	}
	if (!err)
		err = unique_names(t, nt);
	for (size_t e = 0; e < nt && !err; e++) {
		err = pmcf_profile_type_add(p, (int)t[e].kind, t[e].name, t[e].location, &t[e].id);
		if (!err && t[e].callee[0] && !*pmcf_profile_type_callee(p, t[e].id))
			err = pmcf_profile_type_callee_set(p, t[e].id, t[e].callee);
	}
	for (size_t k = 0; k < nx && !err; k++)
		type[k] = t[of[k]].id;
	free(t);
	free(of);
	free(h.slot);
	return err;
}

/* ---- labels ------------------------------------------------------------------ */
static int is_xu_kind(uint32_t k)
{
	return k == PMCF_XU_TASK || k == PMCF_XU_LOOP_CHUNK || k == PMCF_XU_LOOP_RANGE ||
	       k == PMCF_XU_REGION || k == PMCF_XU_THREAD;
}

/* Sibling classes: children of one parent ranked together. */
enum { CL_OMP = 0, CL_FORCED = 1, CL_API = 2, CL_THREAD = 3, CL_ITER = 4, CL_WS = 5 };

static int sib_class(const struct rd *r, const struct node *n)
{
	if (n->kind == PMCF_XU_THREAD)
		return CL_THREAD;
	if (n->flags & PMCFI_F_API)
		return CL_API;
	if (n->kind == PMCF_XU_LOOP_CHUNK || n->kind == PMCF_XU_LOOP_RANGE)
		return CL_ITER;
	if (n->kind == PMCFI_K_LOOP && n->parent_ix >= 0 && r->n[n->parent_ix].kind == PMCFI_K_PARALLEL)
		return CL_WS;
	if (n->flags & PMCFI_F_FORCED)
		return CL_FORCED;
	return CL_OMP;
}

static const struct rd *sort_rd;

static int cmp_sib(const void *x, const void *y)
{
	const struct node *a = &sort_rd->n[*(const long *)x], *b = &sort_rd->n[*(const long *)y];
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->parent_ix != b->parent_ix)
		return a->parent_ix < b->parent_ix ? -1 : 1;
	int ca = sib_class(sort_rd, a), cb = sib_class(sort_rd, b);
	if (ca != cb)
		return ca < cb ? -1 : 1;
	if (ca == CL_FORCED && a->a != b->a)
		return a->a < b->a ? -1 : 1;
	if (a->t0 != b->t0)
		return a->t0 < b->t0 ? -1 : 1;
	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int cmp_loop(const void *x, const void *y)
{
	const struct node *a = &sort_rd->n[*(const long *)x], *b = &sort_rd->n[*(const long *)y];
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->parent != b->parent)
		return a->parent < b->parent ? -1 : 1;
	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static int assign_ranks(struct rd *r)
{
	long *ix = malloc((r->nn ? r->nn : 1) * sizeof(*ix));
	if (!ix)
		return PMCF_ENOMEM;
	size_t m = 0;
	for (size_t i = 0; i < r->nn; i++)
		if (r->n[i].canon == (long)i && r->n[i].parent_ix != -2)
			ix[m++] = (long)i;
	sort_rd = r;
	qsort(ix, m, sizeof(*ix), cmp_sib);
	for (size_t i = 0; i < m;) {
		struct node *first = &r->n[ix[i]];
		int cl = sib_class(r, first);
		size_t j = i;
		uint64_t k = 0;
		while (j < m && r->n[ix[j]].pid == first->pid && r->n[ix[j]].parent_ix == first->parent_ix &&
		       sib_class(r, &r->n[ix[j]]) == cl) {
			struct node *n = &r->n[ix[j]];
			if (cl == CL_FORCED && j > i && r->n[ix[j - 1]].a != n->a)
				k = 0;
			switch (cl) {
			case CL_OMP:
				n->part = k + 1; /* ranks start at 1 (§4.1) */
				break;
			case CL_FORCED: /* TID + prev_calls * workers (§4.1) */
				n->part = n->a + k * (n->b ? n->b : 1);
				break;
			case CL_API: /* creation rank from 0 (fuse-task-parallel §3.1) */ n->part = k; break;
			case CL_THREAD: n->part = n->a; break;
			case CL_ITER:
				n->part = n->a; /* start iteration */
				break;
			case CL_WS:
				n->part = n->a; /* worksharing rank within the parallel region */
				break;
			}
			k++;
			j++;
		}
		i = j;
	}
	free(ix);
	return 0;
}

/* The label of node i as a node of p's label tree (issue 33: a label is
 * its parent's node and its own components, so labels take O(1) per node
 * whatever the depth): "0" for the root, "0.?" under a lost parent, then
 * the parts of fuse-openmp §4.1 / fuse-task-parallel §3.1 per level. */
static uint32_t root_lnode(struct rd *r, pmcf_profile *p, int lost)
{
	uint32_t *at = lost ? &r->lost_lnode : &r->root_lnode;
	if (!*at && pmcfi_profile_label_node(p, 0, lost ? "0.?" : "0", lost ? 3 : 1, at) != 0)
		return 0;
	return *at;
}

static uint32_t make_label(struct rd *r, pmcf_profile *p, long i, int depth)
{
	struct node *n = &r->n[i];
	if (n->lnode)
		return n->lnode;
	if (n->canon >= 0 && n->canon != i)
		return make_label(r, p, n->canon, depth);
	uint32_t pl;
	if (n->parent_ix >= 0 && depth < 10000)
		pl = make_label(r, p, n->parent_ix, depth + 1);
	else
		pl = root_lnode(r, p, n->parent_ix < -1);
	if (!pl)
		return 0;
	char part[96];
	uint64_t rel = 0;
	int cl = sib_class(r, n);
	if (cl == CL_ITER || cl == CL_API || cl == CL_THREAD) {
		snprintf(part, sizeof(part), "%" PRIu64, n->part);
	} else {
		module_of(r, n->pid, n->addr, &rel);
		if (cl == CL_FORCED)
			snprintf(part, sizeof(part), "0.%" PRIu64 ".%" PRIu64, n->part, rel);
		else
			snprintf(part, sizeof(part), "%" PRIu64 ".%" PRIu64, n->part, rel);
	}
	if (pmcfi_profile_label_node(p, pl, part, strlen(part), &n->lnode) != 0)
		return 0;
	return n->lnode;
}

/* ---- the profile ------------------------------------------------------------- */
static const struct rd *xu_rd;
static int cmp_xu(const void *x, const void *y)
{
	const struct node *a = &xu_rd->n[*(const long *)x], *b = &xu_rd->n[*(const long *)y];
	long ra = rank_of(xu_rd, a->pid), rb = rank_of(xu_rd, b->pid);
	if (ra != rb)
		return ra < rb ? -1 : 1;
	if (a->first_t0 != b->first_t0)
		return a->first_t0 < b->first_t0 ? -1 : 1;
	return (a->lnode > b->lnode) - (a->lnode < b->lnode); /* creation order, stable */
}

static int marker(const char *dir, const char *name, uint32_t pid, char *out, size_t len)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s-%u", dir, name, pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	if (out && len) {
		size_t n = fread(out, 1, len - 1, f);
		out[n] = '\0';
		out[strcspn(out, "\n")] = '\0';
	}
	fclose(f);
	return 1;
}

/* A process's rank-KEY marker (its MPI rank, rt.c): a number, else damage. */
static int add_rank(struct rd *r, const char *dir, uint32_t pid)
{
	char text[32], *end;
	marker(dir, "rank", pid, text, sizeof(text));
	errno = 0;
	long v = strtol(text, &end, 10);
	if (errno || end == text || *end || v < 0 || v > INT32_MAX)
		return pmcfi_fail(PMCF_ECORRUPT, "%s/rank-%u: not a rank: '%s'", dir, pid, text);
	/* (pid, rank) pairs */
	if (pmcfi_grow((void **)&r->pranks, &r->cap_pranks, r->npranks + 1, 2 * sizeof(*r->pranks)))
		return PMCF_ENOMEM;
	uint32_t *k = r->pranks;
	k[2 * r->npranks] = pid;
	k[2 * r->npranks + 1] = (uint32_t)v;
	r->npranks++;
	return 0;
}

static int cmp_prank(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static void rd_free(struct rd *r)
{
	for (size_t i = 0; i < r->nn; i++) {
		free(r->n[i].v);
		free(r->n[i].mx);
	}
	for (size_t i = 0; i < r->nmaps; i++)
		free(r->maps[i].path);
	free(r->n);
	free(r->hash);
	free(r->maps);
	free(r->thread_keys);
	free(r->thread_no);
	free(r->pranks);
	free(r->dval);
	free(r->den);
	free(r->drun);
	dwmod_free(r);
}

/* Native e's value of XU i: column e + 1, or, when the events are derived,
 * kept for flush_derived. cov: set the coverage (enabled, running ns) too. */
static void put(struct rd *r, pmcf_profile *p, size_t i, size_t e, double v, int cov, uint64_t en,
		uint64_t run)
{
	if (!r->dv) {
		pmcf_profile_value_set(p, i, e + 1, v);
		if (cov)
			pmcf_profile_coverage_set(p, i, e + 1, en, run);
		return;
	}
	r->dval[e] = v;
	r->den[e] = en;
	r->drun[e] = run;
	r->dcov = cov;
}

/* The event columns of XU i from its natives' values (counters/derive.h: a
 * PAPI preset's sum, difference or postfix); a derived value's coverage is
 * that of its least covered native. */
static void flush_derived(struct rd *r, pmcf_profile *p, size_t i)
{
	for (size_t o = 0; o < r->ndv; o++) {
		const struct pmcfi_derive *d = &r->dv[o];
		pmcf_profile_value_set(p, i, o + 1, pmcfi_derive_value(d, r->dval));
		if (!r->dcov)
			continue;
		size_t worst = d->first;
		for (size_t j = d->first + 1; j < d->first + d->n; j++)
			if ((double)r->drun[j] * (double)r->den[worst] <
			    (double)r->drun[worst] * (double)r->den[j])
				worst = j;
		pmcf_profile_coverage_set(p, i, o + 1, r->den[worst], r->drun[worst]);
	}
}

/* Per process: with OpenMP or task-API XUs its threads are not XUs; an
 * MPI program's processes without a rank (launchers, helpers) have none. */
static void exclude_threads(struct rd *r, const char *dir, struct pmcfi_collect_stats *st,
			    const uint32_t *pids, size_t npids)
{
	/* per process: does it have OpenMP or task-API XUs? then threads are not XUs;
 * an MPI program's processes without a rank (launchers, helpers) are none */
	for (size_t i = 0; i < npids; i++) {
		if (r->npranks && rank_of(r, pids[i]) < 0) {
			for (size_t j = 0; j < r->nn; j++)
				if (r->n[j].pid == pids[i])
					r->n[j].parent_ix = -2, r->n[j].kind = 0;
			continue;
		}
		int omp = marker(dir, "ompt", pids[i], NULL, 0), api = 0, other = 0;
		if (omp) {
			st->ompt = 1;
			marker(dir, "ompt-callbacks", pids[i], st->ompt_missing, sizeof(st->ompt_missing));
			if (strcmp(st->ompt_missing, "all") == 0)
				st->ompt_missing[0] = '\0';
		}
		for (size_t j = 0; j < r->nn; j++)
			if (r->n[j].pid == pids[i] && r->n[j].kind != PMCF_XU_THREAD &&
			    r->n[j].parent_ix != -2) {
				other = 1;
				if (r->n[j].flags & PMCFI_F_API)
					api = 1;
			}
		if (api)
			st->api = 1;
		if (api || other)
			for (size_t j = 0; j < r->nn; j++)
				if (r->n[j].pid == pids[i] && r->n[j].kind == PMCF_XU_THREAD)
					r->n[j].parent_ix = -2, r->n[j].kind = 0;
	}
}

/* Parents, and one loop instance per (process, parent, worksharing rank,
 * address): every thread of the team recorded it. */
static int link_parents(struct rd *r)
{
	for (size_t i = 0; i < r->nn; i++) {
		struct node *n = &r->n[i];
		n->canon = (long)i;
		if (n->parent_ix == -2)
			continue;
		if (n->parent == PMCFI_ROOT)
			n->parent_ix = -1;
		else {
			long pi = find(r, n->pid, n->parent);
			n->parent_ix = pi >= 0 && r->n[pi].parent_ix != -2 ? pi : -4;
		}
	}
	/* one loop instance per (process, parent, worksharing rank, address):
	 * every thread of the team recorded it */
	long *loops = malloc((r->nn ? r->nn : 1) * sizeof(*loops));
	if (!loops)
		return PMCF_ENOMEM;
	size_t nl = 0;
	for (size_t i = 0; i < r->nn; i++)
		if (r->n[i].kind == PMCFI_K_LOOP && r->n[i].parent_ix != -2)
			loops[nl++] = (long)i;
	sort_rd = r;
	qsort(loops, nl, sizeof(*loops), cmp_loop);
	for (size_t i = 1; i < nl; i++) {
		struct node *n = &r->n[loops[i]], *o = &r->n[loops[i - 1]];
		if (cmp_loop(&loops[i], &loops[i - 1]) == 0) {
			long c = o->canon;
			n->canon = c;
			if (n->t0 < r->n[c].t0)
				r->n[c].t0 = n->t0;
		}
	}
	free(loops);
	for (size_t i = 0; i < r->nn; i++) {
		struct node *n = &r->n[i];
		if (n->parent_ix >= 0)
			n->parent_ix = r->n[n->parent_ix].canon;
	}
	return 0;
}

/* An XU of the profile from node n: type, thread, times, values (with the
 * multiplexing estimators), rank and derived events. */
static int add_xu(struct rd *r, pmcf_profile *p, struct node *n, uint32_t type, uint64_t t0, int ranked,
		  int cover, int estimate, struct pmcfi_collect_stats *st)
{
	int err;
	pmcf_xu xu = PMCF_XU_INIT;
	xu.type = type;
	xu.thread = thread_number(r, n->pid, (uint32_t)n->seg_thread);
	xu.cpu = n->cpu;
	xu.start_ns = n->first_t0 - t0;
	xu.end_ns = n->last_t1 - t0;
	uint32_t par = n->parent_ix >= 0    ? r->n[n->parent_ix].lnode
		       : n->parent_ix == -1 ? root_lnode(r, p, 0)
					    : 0;
	size_t i;
	if ((err = pmcfi_profile_xu_add_nodes(p, &xu, n->lnode, par, &i)) != 0 ||
	    (ranked && (err = pmcf_profile_rank_set(p, i, (int32_t)rank_of(r, n->pid))) != 0))
		return err;
	pmcf_profile_value_set(p, i, 0, (double)n->dur);
	for (size_t e = 0; e < r->nev; e++) {
		if (n->mx) {
			/* multiplexing estimators (fuse-task-parallel §5.1) */
			size_t ne = r->nev;
			double run = n->mx[e], en = n->mx[ne + e], v;
			/* missing, as perf's <not counted>: local, the event
			 * never ran during the XU; cumulative, it had not yet
			 * run on the thread at the end of any of its segments */
			if (estimate == PMCF_EST_LOCAL)
				v = run > 0 ? n->v[e] * en / run : PMCF_MISSING;
			else
				v = n->mx[3 * ne + e] > 0 ? n->mx[2 * ne + e] : PMCF_MISSING;
			if (v != v)
				st->missing++;
			else if (v < 0)
				st->negative++;
			put(r, p, i, e, v, 1, (uint64_t)en, (uint64_t)run);
			continue;
		}
		put(r, p, i, e, n->v[e], cover, n->en, n->run);
	}
	if (r->dv)
		flush_derived(r, p, i);
	return 0;
}

static int build(struct rd *r, const char *dir, const char *const *names, uint64_t t0, int estimate,
		 pmcf_profile *p, struct pmcfi_collect_stats *st, uint32_t *pids, size_t npids)
{
	int err;
	exclude_threads(r, dir, st, pids, npids);
	if ((err = link_parents(r)) != 0)
		return err;
	if ((err = assign_ranks(r)) != 0)
		return err;
	/* XUs */
	long *xs = malloc((r->nn ? r->nn : 1) * sizeof(*xs));
	if (!xs)
		return PMCF_ENOMEM;
	size_t nx = 0;
	uint64_t tmin = UINT64_MAX;
	for (size_t i = 0; i < r->nn; i++) {
		struct node *n = &r->n[i];
		if (!is_xu_kind(n->kind) || n->parent_ix == -2)
			continue;
		if (!n->final || !n->nseg) {
			if (n->nseg || n->kind != PMCF_XU_THREAD)
				st->incomplete++;
			continue;
		}
		if (!make_label(r, p, (long)i, 0)) {
			free(xs);
			return PMCF_ENOMEM;
		}
		if (n->first_t0 < tmin)
			tmin = n->first_t0;
		xs[nx++] = (long)i;
	}
	if (!t0 || t0 > tmin)
		t0 = tmin == UINT64_MAX ? 0 : tmin;
	xu_rd = r;
	qsort(xs, nx, sizeof(*xs), cmp_xu);
	size_t ev;
	if ((err = pmcf_profile_event_add(p, "duration", &ev)) != 0)
		goto out;
	for (size_t e = 0; e < (r->dv ? r->ndv : r->nev); e++)
		if ((err = pmcf_profile_event_add(p, r->dv ? r->dv[e].name : names[e], &ev)) != 0)
			goto out;
	/* the rank layer when the XUs come from more than one rank: a program
	 * that is not MPI but runs in a Slurm job (SLURM_PROCID=0) or one rank
	 * alone gives the profile it gives anywhere else */
	int ranked = 0;
	for (size_t i = 1; i < r->npranks && !ranked; i++)
		ranked = r->pranks[2 * i + 1] != r->pranks[1];
	if ((err = pmcf_profile_reserve(p, nx)) != 0 || (ranked && (err = pmcf_profile_ranks_enable(p)) != 0))
		goto out;
	uint32_t *type = malloc((nx ? nx : 1) * sizeof(*type));
	if (!type) {
		err = PMCF_ENOMEM;
		goto out;
	}
	int fallback = 1;
	for (size_t k = 0; k < nx; k++) {
		struct node *n = &r->n[xs[k]];
		/* multiplexed: each event against its own enabled time (the
		 * events are read one after the other, so times of different
		 * events differ by the ns between the reads) */
		int partial = !n->mx && n->run < n->en;
		for (size_t e = 0; n->mx && e < r->nev; e++)
			if (n->mx[e] < n->mx[r->nev + e])
				partial = 1;
		if (partial)
			st->multiplexed++;
		if (n->kind != PMCF_XU_THREAD)
			fallback = 0;
	}
	st->mux = r->mux > 0 ? r->mux : 0;
	int cover = st->multiplexed || st->mux;
	if (cover && (err = pmcf_profile_coverage_enable(p)) != 0)
		goto out_cache;
	if ((err = add_types(r, dir, xs, nx, p, type)) != 0)
		goto out_cache;
	for (size_t k = 0; k < nx; k++)
		if ((err = add_xu(r, p, &r->n[xs[k]], type[k], t0, ranked, cover, estimate, st)) != 0)
			goto out_cache;
	st->xus = nx;
	st->fallback = nx > 0 && fallback;
out_cache:
	free(type);
out:
	free(xs);
	return err;
}

int pmcfi_collect_read(const char *dir, const char *const *names, size_t nev, uint64_t t0, pmcf_profile *p,
		       struct pmcfi_collect_stats *st)
{
	return pmcfi_collect_read_est(dir, names, nev, t0, PMCF_EST_CUMULATIVE, p, st);
}

int pmcfi_collect_read_est(const char *dir, const char *const *names, size_t nev, uint64_t t0, int estimate,
			   pmcf_profile *p, struct pmcfi_collect_stats *st)
{
	return pmcfi_collect_read_derived(dir, names, nev, NULL, 0, t0, estimate, p, st);
}

int pmcfi_collect_read_derived(const char *dir, const char *const *names, size_t nev,
			       const struct pmcfi_derive *dv, size_t ndv, uint64_t t0, int estimate,
			       pmcf_profile *p, struct pmcfi_collect_stats *st)
{
	struct rd r;
	memset(&r, 0, sizeof(r));
	memset(st, 0, sizeof(*st));
	r.nev = nev;
	r.mux = -1;
	if (dv) {
		for (size_t o = 0; o < ndv; o++)
			if (dv[o].n < 1 || dv[o].first + dv[o].n > nev)
				return pmcfi_fail(PMCF_EINVAL,
						  "event '%s' names natives beyond the %zu counted",
						  dv[o].name, nev);
		r.dv = dv;
		r.ndv = ndv;
		r.dval = calloc(nev ? nev : 1, sizeof(*r.dval));
		r.den = calloc(nev ? nev : 1, sizeof(*r.den));
		r.drun = calloc(nev ? nev : 1, sizeof(*r.drun));
		if (!r.dval || !r.den || !r.drun) {
			rd_free(&r);
			return PMCF_ENOMEM;
		}
	}
	DIR *d = opendir(dir);
	if (!d) {
		int e = errno;
		rd_free(&r);
		return pmcfi_fail(-e, "cannot read the record folder %s: %s", dir, strerror(e));
	}
	uint32_t *pids = NULL;
	size_t npids = 0, cap_pids = 0;
	int err = 0;
	struct dirent *de;
	char path[4096];
	while ((de = readdir(d)) != NULL) {
		unsigned pid, th, ch;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (sscanf(de->d_name, "rec-%u-%u-%u", &pid, &th, &ch) == 3) {
			if ((err = read_file(&r, path, st)) != 0)
				break;
		} else if (sscanf(de->d_name, "maps-%u", &pid) == 1) {
			if (pmcfi_grow((void **)&pids, &cap_pids, npids + 1, sizeof(*pids))) {
				err = PMCF_ENOMEM;
				break;
			}
			pids[npids++] = pid;
			if ((err = read_maps(&r, dir, pid)) != 0)
				break;
		} else if (sscanf(de->d_name, "rank-%u", &pid) == 1) {
			if ((err = add_rank(&r, dir, pid)) != 0)
				break;
		} else if (sscanf(de->d_name, "error-%u", &pid) == 1 && !st->tool_error[0]) {
			marker(dir, "error", pid, st->tool_error, sizeof(st->tool_error));
		}
	}
	closedir(d);
	if (!err && r.npranks)
		qsort(r.pranks, r.npranks, 2 * sizeof(uint32_t), cmp_prank);
	if (!err)
		err = number_threads(&r);
	if (!err) {
		st->threads = r.nthread_keys;
		st->ranks = r.npranks;
		err = build(&r, dir, names, t0, estimate, p, st, pids, npids);
	}
	free(pids);
	rd_free(&r);
	return err;
}
