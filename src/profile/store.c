/* The profile file: one SQLite database, schema in docs/profile-format.md.
 * XU fields and values are stored as column chunks (BLOBs of CHUNK_XUS
 * little-endian elements), so a million XUs cost a few hundred rows. Saving
 * is atomic (temporary file, fsync, rename, fsync of the directory). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "pmcf_version.h"
#include "profile/profile_impl.h"
#include "util/abi.h"
#include "util/atomic.h"
#include "util/internal.h"

#define APP_ID 0x504D4346u /* 'PMCF' */
#define FORMAT_MAGIC "pmcfuse-profile"
#define CHUNK_XUS 65536
#define MAX_CHUNK_XUS (1u << 24)
#define CANON_NAN 0x7ff8000000000000ull
#define BIG_PAGES_FROM (1 << 20) /* bytes of columns from which pages are 64 KiB */

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define HOST_BE 1
#else
#define HOST_BE 0
#endif

static const char schema_sql[] =
	"CREATE TABLE format(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
	"CREATE TABLE meta(pos INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, value TEXT NOT NULL);"
	"CREATE TABLE xu_type(id INTEGER PRIMARY KEY, kind INTEGER NOT NULL, kind_name TEXT NOT NULL,"
	" name TEXT NOT NULL, location TEXT NOT NULL, callee TEXT NOT NULL DEFAULT '');"
	"CREATE TABLE event(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);"
	"CREATE TABLE xu_chunk(chunk INTEGER PRIMARY KEY, first_xu INTEGER NOT NULL, count INTEGER NOT NULL,"
	" type BLOB NOT NULL, thread BLOB NOT NULL, cpu BLOB NOT NULL, start_ns BLOB NOT NULL,"
	" end_ns BLOB NOT NULL, label BLOB NOT NULL, parent_label BLOB NOT NULL);"
	"CREATE TABLE value_chunk(event INTEGER NOT NULL, chunk INTEGER NOT NULL, data BLOB NOT NULL,"
	" PRIMARY KEY(event, chunk));";
static const char truth_sql[] =
	"CREATE TABLE truth_event(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);"
	"CREATE TABLE truth_chunk(event INTEGER NOT NULL, chunk INTEGER NOT NULL, data BLOB NOT NULL,"
	" PRIMARY KEY(event, chunk));";
static const char coverage_sql[] =
	"CREATE TABLE coverage_chunk(event INTEGER NOT NULL, chunk INTEGER NOT NULL,"
	" enabled_ns BLOB NOT NULL, running_ns BLOB NOT NULL, PRIMARY KEY(event, chunk));";
static const char source_sql[] =
	"CREATE TABLE source(id INTEGER PRIMARY KEY, path TEXT NOT NULL, ident TEXT NOT NULL);";
static const char provenance_sql[] =
	"CREATE TABLE provenance_chunk(event INTEGER NOT NULL, chunk INTEGER NOT NULL,"
	" source BLOB NOT NULL, source_xu BLOB NOT NULL, PRIMARY KEY(event, chunk));";
/* version 2: the label tree, CHUNK_XUS nodes a row (node k of chunk c is
 * c * CHUNK_XUS + k): parent u32 per node (< the node, 0 for node 0),
 * suffix its own text, NUL after each */
static const char label_node_sql[] =
	"CREATE TABLE label_node(chunk INTEGER PRIMARY KEY, first INTEGER NOT NULL, count INTEGER NOT NULL,"
	" parent BLOB NOT NULL, suffix BLOB NOT NULL);";
static const char match_sql[] = "CREATE TABLE match_chunk(chunk INTEGER PRIMARY KEY, data BLOB NOT NULL);";
static const char rank_sql[] = "CREATE TABLE rank_chunk(chunk INTEGER PRIMARY KEY, data BLOB NOT NULL);";
static const char base_sql[] = "CREATE TABLE base_chunk(chunk INTEGER PRIMARY KEY, source BLOB NOT NULL,"
			       " source_xu BLOB NOT NULL, label BLOB NOT NULL);";

/* A table of column chunks: one row per (event, chunk), or per chunk when
 * the layer is per XU (per_event 0). A column of elem 0 holds labels: in
 * memory arena offsets (size_t), in the file NUL-separated strings. */
struct chunk_table {
	const char *name;
	int per_event;
	int ncols;
	const char *col[3];
	size_t elem[3];
	int dbl[3]; /* doubles: NaN written as the canonical quiet NaN */
};

static const struct chunk_table value_tab = {"value_chunk", 1, 1, {"data"}, {8}, {1}};
static const struct chunk_table truth_tab = {"truth_chunk", 1, 1, {"data"}, {8}, {1}};
static const struct chunk_table coverage_tab = {"coverage_chunk", 1,     2, {"enabled_ns", "running_ns"},
						{8, 8},           {0, 0}};
static const struct chunk_table provenance_tab = {"provenance_chunk",      1,      2,
						  {"source", "source_xu"}, {4, 8}, {0, 0}};
static const struct chunk_table match_tab = {"match_chunk", 0, 1, {"data"}, {8}, {1}};
static const struct chunk_table rank_tab = {"rank_chunk", 0, 1, {"data"}, {4}, {0}};
static const struct chunk_table base_tab = {"base_chunk", 0,        3, {"source", "source_xu", "label"},
					    {4, 8, 0},    {0, 0, 0}};

static int fault_step;

void pmcfi_store_inject_fault(int step) { fault_step = step; }

static int fault(int step)
{
	if (fault_step != step)
		return 0;
	fault_step = 0;
	return 1;
}

/* SQLite result code to our error code; sets the detail "PATH: WHAT: why". */
static int db_fail(sqlite3 *db, int rc, const char *path, const char *what)
{
	const char *msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
	int sys = db ? sqlite3_system_errno(db) : 0;
	int err;
	switch (rc & 0xff) {
	case SQLITE_NOMEM: err = PMCF_ENOMEM; break;
	case SQLITE_FULL: err = -ENOSPC; break;
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB: err = PMCF_ECORRUPT; break;
	case SQLITE_IOERR: err = rc == SQLITE_IOERR_SHORT_READ ? PMCF_ECORRUPT : sys > 0 ? -sys : -EIO; break;
	case SQLITE_CANTOPEN: err = sys > 0 ? -sys : -EACCES; break;
	case SQLITE_READONLY:
	case SQLITE_PERM: err = -EACCES; break;
	default: err = PMCF_EDB; break;
	}
	if (err == PMCF_ECORRUPT)
		return pmcfi_fail(err, "%s: damaged profile: %s: %s", path, what, msg);
	return pmcfi_fail(err, "%s: %s: %s", path, what, msg);
}

/* ---- byte order and NaN ----------------------------------------------------- */

static void swap_elems(unsigned char *b, size_t n, size_t elem)
{
	for (size_t i = 0; i < n; i++, b += elem)
		for (size_t j = 0; j < elem / 2; j++) {
			unsigned char t = b[j];
			b[j] = b[elem - 1 - j];
			b[elem - 1 - j] = t;
		}
}

static int has_odd_nan(const double *d, size_t n)
{
	int odd = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t b;
		memcpy(&b, &d[i], 8);
		odd |= (b & ~(1ull << 63)) > 0x7ff0000000000000ull && b != CANON_NAN;
	}
	return odd;
}

static void canon_nan(unsigned char *buf, size_t n)
{
	const uint64_t canon = CANON_NAN;
	for (size_t i = 0; i < n; i++) {
		double v;
		memcpy(&v, buf + 8 * i, 8);
		if (v != v)
			memcpy(buf + 8 * i, &canon, 8);
	}
}

/* The little-endian encoding of n elements at src: src itself when it is
 * already in file form, else a copy in scratch. */
static const void *encode(unsigned char *scratch, const void *src, size_t n, size_t elem, int dbl)
{
	if (!HOST_BE && (!dbl || !has_odd_nan(src, n)))
		return src;
	memcpy(scratch, src, n * elem);
	if (dbl)
		canon_nan(scratch, n);
	if (HOST_BE)
		swap_elems(scratch, n, elem);
	return scratch;
}

static void decode(void *dst, const void *src, size_t n, size_t elem)
{
	memcpy(dst, src, n * elem);
	if (HOST_BE)
		swap_elems(dst, n, elem);
}

/* ---- writing -------------------------------------------------------------- */

struct wr {
	sqlite3 *db;
	const char *path;       /* the destination, for messages */
	unsigned char *scratch; /* 2 * CHUNK_XUS * 8 bytes */
	char *lab[2];           /* label blobs of one chunk */
	size_t lab_cap[2];
	char *tbuf; /* one label's text (pmcfi_profile_label_text) */
	size_t tcap;
	/* version 2: arena labels of XUs (not nodes) become nodes under the
	 * root after the profile's own, in XU order: their arena offsets */
	size_t *extra;
	size_t nextra, extra_cap;
};

static int w_exec(struct wr *w, const char *sql)
{
	int rc = sqlite3_exec(w->db, sql, NULL, NULL, NULL);
	return rc == SQLITE_OK ? 0 : db_fail(w->db, rc, w->path, "cannot write");
}

static int w_prepare(struct wr *w, const char *sql, sqlite3_stmt **st)
{
	int rc = sqlite3_prepare_v2(w->db, sql, -1, st, NULL);
	return rc == SQLITE_OK ? 0 : db_fail(w->db, rc, w->path, "cannot write");
}

static int w_step(struct wr *w, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : db_fail(w->db, rc, w->path, "cannot write");
}

static int w_text(sqlite3_stmt *st, int i, const char *s)
{
	return sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
}

/* One row of the format table. */
static int write_kv(struct wr *w, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int write_kv(struct wr *w, const char *key, const char *fmt, ...)
{
	char val[128];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	sqlite3_stmt *st;
	int err = w_prepare(w, "INSERT INTO format(key, value) VALUES(?, ?)", &st);
	if (err)
		return err;
	w_text(st, 1, key);
	w_text(st, 2, val);
	err = w_step(w, st);
	sqlite3_finalize(st);
	return err;
}

static int write_names(struct wr *w, const char *table, char *const *names, size_t n)
{
	char sql[96];
	snprintf(sql, sizeof(sql), "INSERT INTO %s(id, name) VALUES(?, ?)", table);
	sqlite3_stmt *st;
	int err = w_prepare(w, sql, &st);
	for (size_t i = 0; !err && i < n; i++) {
		sqlite3_bind_int64(st, 1, (sqlite3_int64)i);
		w_text(st, 2, names[i]);
		err = w_step(w, st);
	}
	sqlite3_finalize(st);
	return err;
}

/* The format version a profile is written in: 2 with a label tree (labels
 * as node ids), else 1, which every earlier reader reads. */
static int version_of(const pmcf_profile *p) { return p->nlab ? 2 : 1; }

static int write_small(struct wr *w, const pmcf_profile *p)
{
	int err = write_kv(w, "magic", "%s", FORMAT_MAGIC);
	if (!err)
		err = write_kv(w, "version", "%d", version_of(p));
	if (!err)
		err = write_kv(w, "xus", "%zu", p->nxu);
	if (!err)
		err = write_kv(w, "chunk_xus", "%d", CHUNK_XUS);
	if (!err)
		err = write_kv(w, "byte_order", "little");
	if (!err)
		err = write_kv(w, "writer", "pmcfuse %s", PMCF_VERSION_STRING);
	if (err)
		return err;

	sqlite3_stmt *st;
	err = w_prepare(w, "INSERT INTO meta(pos, key, value) VALUES(?, ?, ?)", &st);
	for (size_t i = 0; !err && i < p->nmeta; i++) {
		sqlite3_bind_int64(st, 1, (sqlite3_int64)i);
		w_text(st, 2, p->meta_key[i]);
		w_text(st, 3, p->meta_val[i]);
		err = w_step(w, st);
	}
	sqlite3_finalize(st);
	if (err)
		return err;

	err = w_prepare(
		w,
		"INSERT INTO xu_type(id, kind, kind_name, name, location, callee) VALUES(?, ?, ?, ?, ?, ?)",
		&st);
	for (size_t i = 0; !err && i < p->ntypes; i++) {
		sqlite3_bind_int64(st, 1, (sqlite3_int64)i);
		sqlite3_bind_int(st, 2, p->types[i].kind);
		w_text(st, 3, pmcf_xu_kind_name(p->types[i].kind));
		w_text(st, 4, p->types[i].name);
		w_text(st, 5, p->types[i].location);
		w_text(st, 6, p->types[i].callee ? p->types[i].callee : "");
		err = w_step(w, st);
	}
	sqlite3_finalize(st);
	if (err)
		return err;

	err = write_names(w, "event", p->ev_name, p->nev);
	if (!err && p->ntruth)
		err = write_names(w, "truth_event", p->truth_name, p->ntruth);
	if (err || !p->nsrc)
		return err;
	err = w_prepare(w, "INSERT INTO source(id, path, ident) VALUES(?, ?, ?)", &st);
	for (size_t i = 0; !err && i < p->nsrc; i++) {
		sqlite3_bind_int64(st, 1, (sqlite3_int64)i);
		w_text(st, 2, p->src_path[i]);
		w_text(st, 3, p->src_id[i]);
		err = w_step(w, st);
	}
	sqlite3_finalize(st);
	return err;
}

static size_t chunk_len(size_t nxu, size_t chunk, size_t c)
{
	size_t rest = nxu - c * chunk;
	return rest < chunk ? rest : chunk;
}

/* The NUL-separated labels (offsets off[first..first+n)) of one chunk into
 * w->lab[k]; returns the blob size or 0 on allocation failure. */
static size_t label_blob(struct wr *w, int k, const pmcf_profile *p, const size_t *off, size_t first,
			 size_t n)
{
	size_t len = 0;
	for (size_t i = first; i < first + n; i++) {
		const char *s = pmcfi_profile_label_text(p, off[i], &w->tbuf, &w->tcap);
		if (!s)
			return 0;
		size_t l = strlen(s) + 1;
		if (pmcfi_grow((void **)&w->lab[k], &w->lab_cap[k], len + l < 4096 ? 4096 : len + l, 1))
			return 0;
		memcpy(w->lab[k] + len, s, l);
		len += l;
	}
	return len;
}

/* Version 2: the node id of label lab (an arena label becomes an extra
 * node, written after the tree's) at d (u32, little-endian). */
static int put_id(struct wr *w, const pmcf_profile *p, size_t lab, unsigned char *d)
{
	uint32_t id;
	if (lab & PMCFI_LAB_NODE)
		id = (uint32_t)(lab & ~PMCFI_LAB_NODE);
	else if (!lab)
		id = 0;
	else {
		if (p->nlab + w->nextra >= UINT32_MAX)
			return pmcfi_fail(PMCF_EINVAL, "%s: more than 2^32 labels", w->path);
		if (pmcfi_grow((void **)&w->extra, &w->extra_cap, w->nextra + 1, sizeof(size_t)))
			return pmcfi_fail(PMCF_ENOMEM, "%s: out of memory", w->path);
		w->extra[w->nextra] = lab;
		id = (uint32_t)(p->nlab + w->nextra++);
	}
	d[0] = (unsigned char)id;
	d[1] = (unsigned char)(id >> 8);
	d[2] = (unsigned char)(id >> 16);
	d[3] = (unsigned char)(id >> 24);
	return 0;
}

/* Version 2: the node ids of the labels and parent labels of XUs
 * first..first+n into w->lab[0], w->lab[1] (off NULL), or of the labels
 * off[first..first+n) into w->lab[0] (base labels). */
static int id_blob(struct wr *w, const pmcf_profile *p, const size_t *off, size_t first, size_t n)
{
	int nk = off ? 1 : 2, err = 0;
	for (int k = 0; k < nk; k++)
		if (pmcfi_grow((void **)&w->lab[k], &w->lab_cap[k], n * 4 + 4, 1))
			return pmcfi_fail(PMCF_ENOMEM, "%s: out of memory", w->path);
	for (size_t i = first; i < first + n && !err; i++)
		for (int k = 0; k < nk && !err; k++)
			err = put_id(w, p,
				     off ? off[i]
				     : k ? p->parent[i]
					 : p->label[i],
				     (unsigned char *)w->lab[k] + (i - first) * 4);
	return err;
}

/* Version 2: the label tree's nodes, then the extra ones (id_blob). */
static int write_label_nodes(struct wr *w, const pmcf_profile *p)
{
	sqlite3_stmt *st;
	int err =
		w_prepare(w,
			  "INSERT INTO label_node(chunk, first, count, parent, suffix) VALUES(?, ?, ?, ?, ?)",
			  &st);
	size_t total = p->nlab + w->nextra;
	for (size_t c = 0; !err && c * CHUNK_XUS < total; c++) {
		size_t first = c * CHUNK_XUS, n = chunk_len(total, CHUNK_XUS, c), len = 0;
		if (pmcfi_grow((void **)&w->lab[0], &w->lab_cap[0], n * 4 + 4, 1)) {
			err = pmcfi_fail(PMCF_ENOMEM, "%s: out of memory", w->path);
			break;
		}
		for (size_t k = first; !err && k < first + n; k++) {
			uint32_t par = k < p->nlab ? p->lpar[k] : 0;
			const char *s =
				k < p->nlab ? p->lsarena + p->lsuf[k] : p->arena + w->extra[k - p->nlab];
			unsigned char *d = (unsigned char *)w->lab[0] + (k - first) * 4;
			d[0] = (unsigned char)par;
			d[1] = (unsigned char)(par >> 8);
			d[2] = (unsigned char)(par >> 16);
			d[3] = (unsigned char)(par >> 24);
			size_t l = strlen(s) + 1;
			if (pmcfi_grow((void **)&w->lab[1], &w->lab_cap[1], len + l < 4096 ? 4096 : len + l,
				       1))
				err = pmcfi_fail(PMCF_ENOMEM, "%s: out of memory", w->path);
			else {
				memcpy(w->lab[1] + len, s, l);
				len += l;
			}
		}
		if (!err && len > INT_MAX)
			err = pmcfi_fail(PMCF_EINVAL, "%s: label nodes of chunk %zu exceed 2 GiB", w->path,
					 c);
		if (err)
			break;
		sqlite3_bind_int64(st, 1, (sqlite3_int64)c);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)first);
		sqlite3_bind_int64(st, 3, (sqlite3_int64)n);
		sqlite3_bind_blob(st, 4, w->lab[0], (int)(n * 4), SQLITE_STATIC);
		sqlite3_bind_blob(st, 5, w->lab[1], (int)len, SQLITE_STATIC);
		err = w_step(w, st);
	}
	sqlite3_finalize(st);
	return err;
}

static int write_xus(struct wr *w, const pmcf_profile *p)
{
	sqlite3_stmt *st;
	int err = w_prepare(w,
			    "INSERT INTO xu_chunk(chunk, first_xu, count, type, thread, cpu, start_ns,"
			    " end_ns, label, parent_label) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			    &st);
	const void *cols[5] = {p->xtype, p->thread, p->cpu, p->start, p->end};
	static const size_t elem[5] = {4, 4, 4, 8, 8};
	for (size_t c = 0; !err && c * CHUNK_XUS < p->nxu; c++) {
		size_t first = c * CHUNK_XUS, n = chunk_len(p->nxu, CHUNK_XUS, c);
		sqlite3_bind_int64(st, 1, (sqlite3_int64)c);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)first);
		sqlite3_bind_int64(st, 3, (sqlite3_int64)n);
		for (int k = 0; k < 5; k++) {
			const unsigned char *src = (const unsigned char *)cols[k] + first * elem[k];
			sqlite3_bind_blob(st, 4 + k, encode(w->scratch, src, n, elem[k], 0),
					  (int)(n * elem[k]), HOST_BE ? SQLITE_TRANSIENT : SQLITE_STATIC);
		}
		if (p->nlab) { /* version 2: node ids */
			err = id_blob(w, p, NULL, first, n);
			if (err)
				break;
			sqlite3_bind_blob(st, 9, w->lab[0], (int)(n * 4), SQLITE_STATIC);
			sqlite3_bind_blob(st, 10, w->lab[1], (int)(n * 4), SQLITE_STATIC);
			err = w_step(w, st);
			continue;
		}
		size_t l0 = label_blob(w, 0, p, p->label, first, n);
		size_t l1 = label_blob(w, 1, p, p->parent, first, n);
		if (!l0 || !l1)
			err = pmcfi_fail(PMCF_ENOMEM, "%s: out of memory", w->path);
		if (!err && (l0 > INT_MAX || l1 > INT_MAX))
			err = pmcfi_fail(PMCF_EINVAL, "%s: labels of XU chunk %zu exceed 2 GiB", w->path, c);
		if (err)
			break;
		sqlite3_bind_blob(st, 9, w->lab[0], (int)l0, SQLITE_STATIC);
		sqlite3_bind_blob(st, 10, w->lab[1], (int)l1, SQLITE_STATIC);
		err = w_step(w, st);
	}
	sqlite3_finalize(st);
	return err;
}

/* The column list "a, b, c" of a chunk table. */
static void col_list(const struct chunk_table *t, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = '\0';
	for (int k = 0; k < t->ncols; k++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", k ? ", " : "", t->col[k]);
}

/* Writes the chunks of nev events; src[k][e] is column k of event e. */
static int write_chunks(struct wr *w, const pmcf_profile *p, const struct chunk_table *t, size_t nev,
			void *const *src[3])
{
	char sql[200], cols[80];
	size_t nxu = p->nxu;
	col_list(t, cols, sizeof(cols));
	int base = t->per_event ? 3 : 2;
	snprintf(sql, sizeof(sql), "INSERT INTO %s(%s%s) VALUES(%.*s)", t->name,
		 t->per_event ? "event, chunk, " : "chunk, ", cols, 3 * (base - 1 + t->ncols) - 2,
		 "?, ?, ?, ?, ?");
	sqlite3_stmt *st;
	int err = w_prepare(w, sql, &st);
	for (size_t e = 0; !err && e < nev; e++)
		for (size_t c = 0; !err && c * CHUNK_XUS < nxu; c++) {
			size_t n = chunk_len(nxu, CHUNK_XUS, c);
			if (t->per_event) {
				sqlite3_bind_int64(st, 1, (sqlite3_int64)e);
				sqlite3_bind_int64(st, 2, (sqlite3_int64)c);
			} else {
				sqlite3_bind_int64(st, 1, (sqlite3_int64)c);
			}
			for (int k = 0; !err && k < t->ncols; k++) {
				if (!t->elem[k] && p->nlab) { /* version 2: node ids */
					err = id_blob(w, p, src[k][e], c * CHUNK_XUS, n);
					if (!err)
						sqlite3_bind_blob(st, base + k, w->lab[0], (int)(n * 4),
								  SQLITE_STATIC);
					continue;
				}
				if (!t->elem[k]) {
					size_t l = label_blob(w, 0, p, src[k][e], c * CHUNK_XUS, n);
					if (!l || l > INT_MAX)
						err = pmcfi_fail(l ? PMCF_EINVAL : PMCF_ENOMEM,
								 "%s: labels of chunk %zu: %s", w->path, c,
								 l ? "over 2 GiB" : "out of memory");
					else
						sqlite3_bind_blob(st, base + k, w->lab[0], (int)l,
								  SQLITE_STATIC);
					continue;
				}
				const unsigned char *col = src[k][e];
				const void *b =
					encode(w->scratch + (size_t)k * CHUNK_XUS * 8,
					       col + c * CHUNK_XUS * t->elem[k], n, t->elem[k], t->dbl[k]);
				sqlite3_bind_blob(st, base + k, b, (int)(n * t->elem[k]), SQLITE_STATIC);
			}
			if (!err)
				err = w_step(w, st);
		}
	sqlite3_finalize(st);
	return err;
}

static int write_db(const pmcf_profile *p, const char *tmp, const char *path, int sql_always)
{
	struct wr w = {.path = path};
	int err = 0;
	w.scratch = malloc(2 * (size_t)CHUNK_XUS * 8);
	if (!w.scratch)
		return pmcfi_fail(PMCF_ENOMEM, "%s: out of memory", path);
	int rc = sqlite3_open_v2(tmp, &w.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		err = db_fail(w.db, rc, path, "cannot write temporary file");
		goto out;
	}
	/* big pages keep a 512 KiB chunk in a few overflow pages; small
	 * profiles stay small with the default 4 KiB */
	double bytes = (double)p->nxu * (double)(p->nev + p->ntruth + 2) * 8;
	char prag[256];
	snprintf(prag, sizeof(prag),
		 "PRAGMA page_size=%d; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
		 "PRAGMA locking_mode=EXCLUSIVE; BEGIN;"
		 "PRAGMA application_id=%d; PRAGMA user_version=%d;",
		 bytes >= BIG_PAGES_FROM ? 65536 : 4096, (int)APP_ID, version_of(p));
	err = w_exec(&w, prag);
	if (!err)
		err = w_exec(&w, schema_sql);
	if (!err && p->nlab)
		err = w_exec(&w, label_node_sql);
	if (!err && p->ntruth)
		err = w_exec(&w, truth_sql);
	if (!err && p->has_cov)
		err = w_exec(&w, coverage_sql);
	if (!err && p->nsrc)
		err = w_exec(&w, source_sql);
	if (!err && p->has_prov)
		err = w_exec(&w, provenance_sql);
	if (!err && p->match)
		err = w_exec(&w, match_sql);
	if (!err && p->base_src)
		err = w_exec(&w, base_sql);
	if (!err && p->rank)
		err = w_exec(&w, rank_sql);
	if (!err)
		err = write_small(&w, p);
	if (!err)
		err = write_xus(&w, p);
	/* version 2: base labels as node ids, before the nodes (their arena
	 * labels become extra nodes) */
	void *bs = p->base_src, *bx = p->base_xu, *bl = p->base_lab;
	if (!err && p->base_src && p->nlab)
		err = write_chunks(&w, p, &base_tab, 1, (void *const *[3]){&bs, &bx, &bl});
	if (!err && p->nlab)
		err = write_label_nodes(&w, p);
	if (!err)
		err = write_chunks(&w, p, &value_tab, p->nev, (void *const *[3]){(void *const *)p->val});
	if (!err && fault(2))
		err = pmcfi_fail(-EIO, "%s: injected fault while writing", path);
	if (!err && p->ntruth)
		err = write_chunks(&w, p, &truth_tab, p->ntruth, (void *const *[3]){(void *const *)p->truth});
	if (!err && p->has_cov)
		err = write_chunks(&w, p, &coverage_tab, p->nev,
				   (void *const *[3]){(void *const *)p->cov_enabled,
						      (void *const *)p->cov_running});
	if (!err && p->has_prov)
		err = write_chunks(&w, p, &provenance_tab, p->nev,
				   (void *const *[3]){(void *const *)p->prov_src, (void *const *)p->prov_xu});
	if (!err && p->match) {
		void *m = p->match;
		err = write_chunks(&w, p, &match_tab, 1, (void *const *[3]){&m});
	}
	if (!err && p->base_src && !p->nlab)
		err = write_chunks(&w, p, &base_tab, 1, (void *const *[3]){&bs, &bx, &bl});
	if (!err && p->rank) {
		void *rk = p->rank;
		err = write_chunks(&w, p, &rank_tab, 1, (void *const *[3]){&rk});
	}
	if (!err && (rc = pmcfi_sql_layer_write(w.db, p, sql_always)) != SQLITE_OK)
		err = db_fail(w.db, rc, path, "cannot write the SQL layer");
	if (!err)
		err = w_exec(&w, "COMMIT");
out:
	if (w.db) {
		rc = sqlite3_close(w.db);
		if (!err && rc != SQLITE_OK)
			err = db_fail(NULL, rc, path, "cannot close temporary file");
	}
	free(w.scratch);
	free(w.lab[0]);
	free(w.lab[1]);
	free(w.tbuf);
	free(w.extra);
	return err;
}

/* Mode of a new profile: that of the file it replaces, else 0666 & ~umask
 * (read from /proc, as umask(2) cannot be read without changing it). */
static int save(const pmcf_profile *p, const char *path, int sql_always)
{
	pmcfi_clear_error();
	if (!p || !path || !*path)
		return pmcfi_fail(PMCF_EINVAL, "pmcf_profile_save: no profile or path");
	const char *slash = strrchr(path, '/');
	if (!*(slash ? slash + 1 : path))
		return pmcfi_fail(PMCF_EINVAL, "%s: not a file name", path);
	/* a descriptor's link, a device, a FIFO or a socket is never renamed
	 * over (util/atomic.h: that would put a file where /dev/stdout or
	 * /dev/null was), and a database cannot be written into one */
	int why = pmcfi_atomic_refusal(path);
	if (why == PMCFI_ATOMIC_LINK)
		return pmcfi_fail(PMCF_EINVAL,
				  "%s: a descriptor's link: a profile is an SQLite database, written to a "
				  "file, not to a descriptor (choose a file name)",
				  path);
	if (why == PMCFI_ATOMIC_SPECIAL)
		return pmcfi_fail(PMCF_EINVAL,
				  "%s: not a regular file (a device, FIFO or socket): a profile is an SQLite "
				  "database, which cannot be written into it (choose a file name)",
				  path);
	char *dir, *tmp;
	int err = pmcfi_atomic_temp(path, &dir, &tmp);
	if (err)
		return pmcfi_fail(err, "%s: out of memory", path);

	int made = 0;
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		err = pmcfi_fail(-errno, "%s: cannot create a temporary file in %s: %s", path, dir,
				 strerror(errno));
		goto out;
	}
	made = 1;
	if (fchmod(fd, pmcfi_atomic_mode(path)) < 0) {
		err = pmcfi_fail(-errno, "%s: cannot set the mode of %s: %s", path, tmp, strerror(errno));
		goto out;
	}
	if (fault(1)) {
		err = pmcfi_fail(-EIO, "%s: injected fault after creating %s", path, tmp);
		goto out;
	}
	err = write_db(p, tmp, path, sql_always);
	if (err)
		goto out;
	if (fsync(fd) < 0) {
		err = pmcfi_fail(-errno, "%s: cannot sync %s: %s", path, tmp, strerror(errno));
		goto out;
	}
	if (fault(3)) {
		err = pmcfi_fail(-EIO, "%s: injected fault before the rename", path);
		goto out;
	}
	if (rename(tmp, path) < 0) {
		err = pmcfi_fail(-errno, "%s: cannot replace it with %s: %s", path, tmp, strerror(errno));
		goto out;
	}
	made = 0;
	err = pmcfi_atomic_sync_dir(dir);
	if (err)
		err = pmcfi_fail(err, "%s: written, but syncing its directory %s failed: %s", path, dir,
				 strerror(-err));
out:
	if (fd >= 0)
		close(fd);
	if (made)
		unlink(tmp);
	free(dir);
	free(tmp);
	return err;
}

int pmcf_profile_save(const pmcf_profile *p, const char *path) { return save(p, path, 0); }

int pmcf_profile_save_sql(const pmcf_profile *p, const char *path) { return save(p, path, 1); }

/* ---- reading -------------------------------------------------------------- */

struct rd {
	sqlite3 *db;
	const char *path;
	pmcf_profile *p;
	size_t nxu, chunk, nchunks;
	int ver; /* the file's format version (user_version) */
};

static int corrupt(const struct rd *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int corrupt(const struct rd *r, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return pmcfi_fail(PMCF_ECORRUPT, "%s: damaged profile: %s", r->path, msg);
}

static int r_prepare(struct rd *r, const char *sql, sqlite3_stmt **st)
{
	int rc = sqlite3_prepare_v2(r->db, sql, -1, st, NULL);
	if (rc == SQLITE_ERROR) /* a table or column missing or changed: not a profile's schema */
		return corrupt(r, "%s", sqlite3_errmsg(r->db));
	return rc == SQLITE_OK ? 0 : db_fail(r->db, rc, r->path, "cannot read");
}

/* Steps to the next row: 1 when there is one, 0 when done or on error
 * (then *err is set). */
static int r_row(struct rd *r, sqlite3_stmt *st, int *err)
{
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_ERROR)
		*err = corrupt(r, "%s", sqlite3_errmsg(r->db));
	else if (rc != SQLITE_DONE)
		*err = db_fail(r->db, rc, r->path, "cannot read");
	return 0;
}

static uint32_t be32(const unsigned char *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* Identifies the file from its 100-byte SQLite header before SQLite sees
 * it: not SQLite, not ours, newer version, or shorter than it says; *wal is
 * set when the file is in WAL mode (read/write versions 2). */
static int check_header(const char *path, int *wal)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK); /* a FIFO must not block */
	if (fd < 0) {
		int e = errno;
		if (e == ENOENT)
			return pmcfi_fail(-e, "%s: no such file", path);
		return pmcfi_fail(-e, "%s: cannot open: %s", path, strerror(e));
	}
	struct stat sb;
	unsigned char h[100];
	ssize_t n = -1;
	int e = 0;
	if (fstat(fd, &sb) < 0)
		e = errno;
	else if (S_ISDIR(sb.st_mode))
		e = EISDIR;
	else if (!S_ISREG(sb.st_mode)) {
		close(fd);
		return pmcfi_fail(PMCF_ENOTOURS, "%s: not a pmcfuse profile: not a regular file", path);
	} else if ((n = pread(fd, h, sizeof(h), 0)) < 0)
		e = errno;
	close(fd);
	if (n < 0)
		return pmcfi_fail(-e, "%s: cannot read: %s", path, strerror(e));
	if (n == 0)
		return pmcfi_fail(PMCF_ENOTOURS, "%s: not a pmcfuse profile: empty file", path);
	if (n < 16 || memcmp(h, "SQLite format 3", 16) != 0)
		return pmcfi_fail(PMCF_ENOTOURS, "%s: not a pmcfuse profile: not an SQLite database", path);
	if (n < (ssize_t)sizeof(h))
		return pmcfi_fail(PMCF_ECORRUPT, "%s: damaged profile: truncated to %zd bytes", path, n);
	uint32_t app = be32(h + 68), ver = be32(h + 60);
	if (app != APP_ID)
		return pmcfi_fail(PMCF_ENOTOURS,
				  "%s: not a pmcfuse profile: an SQLite database of another application "
				  "(application_id 0x%08" PRIx32 ")",
				  path, app);
	if (ver > PMCF_FORMAT_VERSION)
		return pmcfi_fail(PMCF_EVERSION,
				  "%s: profile format version %" PRIu32
				  ", this pmcfuse reads versions up to %d (upgrade pmcfuse)",
				  path, ver, PMCF_FORMAT_VERSION);
	if (ver == 0)
		return pmcfi_fail(PMCF_ECORRUPT, "%s: damaged profile: format version 0", path);
	*wal = h[18] == 2 || h[19] == 2;
	uint64_t psize = (uint32_t)h[16] << 8 | h[17];
	if (psize == 1)
		psize = 65536;
	uint64_t pages = be32(h + 28);
	/* the page count is valid when the change counter matches "version valid for" */
	if (be32(h + 24) == be32(h + 92) && pages * psize > (uint64_t)sb.st_size)
		return pmcfi_fail(PMCF_ECORRUPT, "%s: damaged profile: truncated (%lld bytes of %" PRIu64 ")",
				  path, (long long)sb.st_size, pages * psize);
	return 0;
}

static int parse_size(const char *s, size_t *out)
{
	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v > SIZE_MAX)
		return -1;
	*out = (size_t)v;
	return 0;
}

enum {
	T_FORMAT = 1 << 0,
	T_META = 1 << 1,
	T_XU_TYPE = 1 << 2,
	T_EVENT = 1 << 3,
	T_XU_CHUNK = 1 << 4,
	T_VALUE = 1 << 5,
	T_TRUTH_EVENT = 1 << 6,
	T_TRUTH = 1 << 7,
	T_COVERAGE = 1 << 8,
	T_SOURCE = 1 << 9,
	T_PROVENANCE = 1 << 10,
	T_MATCH = 1 << 11,
	T_BASE = 1 << 12,
	T_RANK = 1 << 13,
};
static const char *const table_names[] = {
	"format",           "meta",        "xu_type",     "event",          "xu_chunk",
	"value_chunk",      "truth_event", "truth_chunk", "coverage_chunk", "source",
	"provenance_chunk", "match_chunk", "base_chunk",  "rank_chunk",
};
#define T_REQUIRED (T_FORMAT | T_META | T_XU_TYPE | T_EVENT | T_XU_CHUNK | T_VALUE)

static int read_tables(struct rd *r, unsigned *have)
{
	sqlite3_stmt *st;
	int err = r_prepare(r, "SELECT name FROM sqlite_master WHERE type = 'table'", &st);
	*have = 0;
	while (!err && r_row(r, st, &err)) {
		const char *n = (const char *)sqlite3_column_text(st, 0);
		for (size_t i = 0; n && i < PMCF_ARRAY_SIZE(table_names); i++)
			if (strcmp(n, table_names[i]) == 0)
				*have |= 1u << i;
	}
	sqlite3_finalize(st);
	if (err)
		return err;
	for (size_t i = 0; i < PMCF_ARRAY_SIZE(table_names); i++)
		if ((T_REQUIRED & (1u << i)) && !(*have & (1u << i)))
			return corrupt(r, "missing table '%s'", table_names[i]);
	if (!(*have & T_TRUTH_EVENT) != !(*have & T_TRUTH))
		return corrupt(r, "truth_event and truth_chunk must exist together");
	return 0;
}

static int read_format(struct rd *r)
{
	sqlite3_stmt *st;
	int err = r_prepare(r, "PRAGMA user_version", &st);
	if (!err && r_row(r, st, &err))
		r->ver = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (!err)
		err = r_prepare(r, "SELECT key, value FROM format", &st);
	else
		return err;
	int seen = 0;
	while (!err && r_row(r, st, &err)) {
		const char *k = (const char *)sqlite3_column_text(st, 0);
		const char *v = (const char *)sqlite3_column_text(st, 1);
		size_t num;
		if (!k || !v)
			continue;
		if (strcmp(k, "magic") == 0) {
			if (strcmp(v, FORMAT_MAGIC) != 0)
				err = corrupt(r, "format magic '%s'", v);
			seen |= 1;
		} else if (strcmp(k, "version") == 0) {
			if (parse_size(v, &num) || num != (size_t)r->ver)
				err = corrupt(r, "format version '%s' does not match user_version %d", v,
					      r->ver);
			seen |= 2;
		} else if (strcmp(k, "xus") == 0) {
			if (parse_size(v, &r->nxu))
				err = corrupt(r, "bad XU count '%s'", v);
			seen |= 4;
		} else if (strcmp(k, "chunk_xus") == 0) {
			if (parse_size(v, &r->chunk) || r->chunk == 0 || r->chunk > MAX_CHUNK_XUS)
				err = corrupt(r, "bad chunk size '%s'", v);
			seen |= 8;
		} else if (strcmp(k, "byte_order") == 0) {
			if (strcmp(v, "little") != 0)
				err = corrupt(r, "byte order '%s'", v);
		}
	}
	sqlite3_finalize(st);
	if (!err && seen != 15)
		err = corrupt(r, "format table lacks magic, version, xus or chunk_xus");
	if (!err)
		r->nchunks = r->nxu / r->chunk + (r->nxu % r->chunk != 0);
	return err;
}

/* Column i of a row as non-NULL text, or NULL. */
static const char *col_text(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NULL : (const char *)sqlite3_column_text(st, i);
}

/* Reads "SELECT id, <cols> FROM t ORDER BY id" rows whose ids must be
 * 0, 1, 2, ...; add() stores one row. */
/* 1 when table has the column (profiles before issue 33 have no
 * xu_type.callee). */
static int has_column(struct rd *r, const char *table, const char *column)
{
	char sql[160];
	snprintf(sql, sizeof(sql), "SELECT %s FROM %s LIMIT 0", column, table);
	sqlite3_stmt *st = NULL;
	int ok = sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) == SQLITE_OK;
	sqlite3_finalize(st);
	return ok;
}

static int read_list(struct rd *r, const char *sql, const char *what,
		     int (*add)(struct rd *r, sqlite3_stmt *st, size_t id))
{
	sqlite3_stmt *st;
	int err = r_prepare(r, sql, &st);
	size_t want = 0;
	while (!err && r_row(r, st, &err)) {
		sqlite3_int64 id = sqlite3_column_int64(st, 0);
		if (id < 0 || (uint64_t)id != want) {
			err = corrupt(r, "%s ids are not 0, 1, 2, ... (found %lld at position %zu)", what,
				      (long long)id, want);
			break;
		}
		err = add(r, st, want);
		want++;
	}
	sqlite3_finalize(st);
	return err;
}

/* A failure of the in-memory model while loading: allocation failures stay
 * PMCF_ENOMEM, anything else means the file holds what a profile cannot. */
static int add_fail(struct rd *r, int err, const char *what)
{
	if (err == PMCF_ENOMEM)
		return pmcfi_fail_prefix(err, "%s", r->path);
	return corrupt(r, "%s: %s", what, pmcf_errdetail());
}

static int add_meta(struct rd *r, sqlite3_stmt *st, size_t id)
{
	(void)id;
	const char *k = col_text(st, 1), *v = col_text(st, 2);
	if (!k || !v)
		return corrupt(r, "NULL metadata key or value");
	if (pmcf_profile_meta_get(r->p, k))
		return corrupt(r, "metadata key '%s' appears twice", k);
	int err = pmcf_profile_meta_set(r->p, k, v);
	return err ? add_fail(r, err, "metadata") : 0;
}

static int add_type(struct rd *r, sqlite3_stmt *st, size_t id)
{
	const char *n = col_text(st, 2), *l = col_text(st, 3);
	uint32_t got;
	if (!n || !l)
		return corrupt(r, "NULL XU type name or location");
	int err = pmcf_profile_type_add(r->p, sqlite3_column_int(st, 1), n, l, &got);
	if (err)
		return add_fail(r, err, "XU type");
	if (got != id)
		return corrupt(r, "XU type %zu duplicates type %u", id, got);
	const char *c = sqlite3_column_count(st) > 4 ? col_text(st, 4) : NULL;
	if (c && *c && (err = pmcf_profile_type_callee_set(r->p, got, c)))
		return add_fail(r, err, "XU type");
	return 0;
}

static int add_event(struct rd *r, sqlite3_stmt *st, size_t id)
{
	(void)id;
	int err = pmcf_profile_event_add(r->p, col_text(st, 1), NULL);
	return err ? add_fail(r, err, "event") : 0;
}

static int add_truth(struct rd *r, sqlite3_stmt *st, size_t id)
{
	(void)id;
	int err = pmcf_profile_truth_event_add(r->p, col_text(st, 1), NULL);
	return err ? add_fail(r, err, "truth event") : 0;
}

static int add_source(struct rd *r, sqlite3_stmt *st, size_t id)
{
	(void)id;
	const char *path = col_text(st, 1), *ident = col_text(st, 2);
	if (!path || !ident)
		return corrupt(r, "NULL source path or ident");
	int err = pmcf_profile_source_add(r->p, path, ident, NULL);
	return err ? add_fail(r, err, "source") : 0;
}

/* The blob in column i, which must hold exactly n elements of elem bytes. */
static const void *blob_of(sqlite3_stmt *st, int i, size_t n, size_t elem)
{
	if (sqlite3_column_type(st, i) != SQLITE_BLOB)
		return NULL;
	const void *b = sqlite3_column_blob(st, i);
	if ((size_t)sqlite3_column_bytes(st, i) != n * elem)
		return NULL;
	return b;
}

/* Version 2: the label node ids of one chunk (u32 each, < the nodes). */
static int take_ids(struct rd *r, sqlite3_stmt *st, int i, size_t *off, size_t first, size_t n, size_t c)
{
	const unsigned char *b = blob_of(st, i, n, 4);
	if (!b)
		return corrupt(r, "label ids of XU chunk %zu have the wrong size", c);
	size_t nlab = r->p->nlab ? r->p->nlab : 1;
	for (size_t k = 0; k < n; k++) {
		uint32_t id = (uint32_t)b[4 * k] | (uint32_t)b[4 * k + 1] << 8 |
			      (uint32_t)b[4 * k + 2] << 16 | (uint32_t)b[4 * k + 3] << 24;
		if (id >= nlab)
			return corrupt(r, "XU %zu has label node %" PRIu32 ", but there are %zu", first + k,
				       id, nlab);
		off[first + k] = id ? PMCFI_LAB_NODE | id : 0;
	}
	return 0;
}

/* Version 2: the label tree (table label_node), before the XUs. */
static int read_label_nodes(struct rd *r)
{
	sqlite3_stmt *st;
	int err = r_prepare(r, "SELECT chunk, first, count, parent, suffix FROM label_node ORDER BY chunk",
			    &st);
	size_t next = 0;
	while (!err && r_row(r, st, &err)) {
		sqlite3_int64 c = sqlite3_column_int64(st, 0), first = sqlite3_column_int64(st, 1),
			      n = sqlite3_column_int64(st, 2);
		if (first != (sqlite3_int64)next || c < 0 || (size_t)c * CHUNK_XUS != next || n <= 0 ||
		    n > CHUNK_XUS) {
			err = corrupt(r, "label_node chunk %lld: unexpected first node or count",
				      (long long)c);
			break;
		}
		const unsigned char *par = blob_of(st, 3, (size_t)n, 4);
		const char *s = (const char *)sqlite3_column_blob(st, 4);
		size_t len = (size_t)sqlite3_column_bytes(st, 4);
		if (!par || sqlite3_column_type(st, 4) != SQLITE_BLOB) {
			err = corrupt(r, "label_node chunk %lld: blobs of the wrong size", (long long)c);
			break;
		}
		const char *end = s + len;
		for (sqlite3_int64 k = 0; !err && k < n; k++, next++) {
			const char *z = s < end ? memchr(s, '\0', (size_t)(end - s)) : NULL;
			uint32_t pk = (uint32_t)par[4 * k] | (uint32_t)par[4 * k + 1] << 8 |
				      (uint32_t)par[4 * k + 2] << 16 | (uint32_t)par[4 * k + 3] << 24;
			uint32_t id;
			if (!z)
				err = corrupt(r, "label_node chunk %lld has fewer texts than nodes",
					      (long long)c);
			else if (next == 0 && (pk != 0 || z != s))
				err = corrupt(r, "label node 0 is not the empty label");
			else if (next > 0 && pk >= next)
				err = corrupt(r, "label node %zu under node %" PRIu32 ", not an earlier one",
					      next, pk);
			else if (next > 0 &&
				 (err = pmcfi_profile_label_node(r->p, pk, s, (size_t)(z - s), &id)) != 0)
				err = pmcfi_fail_prefix(err, "%s", r->path);
			else if (next == 0 && (err = pmcfi_profile_label_node(r->p, 0, "", 0, &id)) == 0)
				r->p->nlab = 1; /* node 0 made, the one just added undone */
			s = z ? z + 1 : end;
		}
		if (!err && s != end)
			err = corrupt(r, "label_node chunk %lld has more texts than nodes", (long long)c);
	}
	sqlite3_finalize(st);
	if (!err && !next)
		err = corrupt(r, "no label nodes in a version 2 profile");
	return err;
}

/* Copies a label blob of one chunk into the arena and sets the n offsets. */
static int take_labels(struct rd *r, sqlite3_stmt *st, int i, size_t *off, size_t first, size_t n, size_t c)
{
	pmcf_profile *p = r->p;
	const char *b = sqlite3_column_blob(st, i);
	size_t len = (size_t)sqlite3_column_bytes(st, i);
	if (sqlite3_column_type(st, i) != SQLITE_BLOB || len > p->arena_cap - p->arena_len)
		return corrupt(r, "label blob of XU chunk %zu has the wrong size", c);
	char *s = p->arena + p->arena_len, *end = s + len;
	memcpy(s, b, len);
	for (size_t k = first; k < first + n; k++) {
		char *z = memchr(s, '\0', (size_t)(end - s));
		if (!z)
			return corrupt(r, "XU chunk %zu has fewer labels than XUs", c);
		off[k] = (size_t)(s - p->arena);
		s = z + 1;
	}
	if (s != end)
		return corrupt(r, "XU chunk %zu has more labels than XUs", c);
	p->arena_len += len;
	return 0;
}

static int read_xus(struct rd *r)
{
	pmcf_profile *p = r->p;
	sqlite3_stmt *st;
	int err = r_prepare(r,
			    "SELECT count(*), ifnull(sum(count), 0),"
			    " ifnull(sum(length(label)), 0) + ifnull(sum(length(parent_label)), 0)"
			    " FROM xu_chunk",
			    &st);
	if (!err && !r_row(r, st, &err) && !err)
		err = corrupt(r, "no XU chunk summary");
	if (err) {
		sqlite3_finalize(st);
		return err;
	}
	sqlite3_int64 rows = sqlite3_column_int64(st, 0), total = sqlite3_column_int64(st, 1);
	sqlite3_int64 bytes = sqlite3_column_int64(st, 2);
	sqlite3_finalize(st);
	if (rows < 0 || (uint64_t)rows != r->nchunks || total < 0 || (uint64_t)total != r->nxu || bytes < 0)
		return corrupt(r, "%zu XU%s in %zu chunks expected, the XU table has %lld in %lld", r->nxu,
			       r->nxu == 1 ? "" : "s", r->nchunks, (long long)total, (long long)rows);
	if (r->ver >= 2) /* labels are node ids */
		bytes = 0;
	err = pmcfi_profile_alloc_xus(p, r->nxu, (size_t)bytes);
	if (err)
		return pmcfi_fail_prefix(err, "%s", r->path);

	unsigned char *seen = calloc(r->nchunks + 1, 1);
	if (!seen)
		return pmcfi_fail(PMCF_ENOMEM, "%s: out of memory", r->path);
	err = r_prepare(r,
			"SELECT chunk, first_xu, count, type, thread, cpu, start_ns, end_ns, label,"
			" parent_label FROM xu_chunk",
			&st);
	void *cols[5] = {p->xtype, p->thread, p->cpu, p->start, p->end};
	static const size_t elem[5] = {4, 4, 4, 8, 8};
	while (!err && r_row(r, st, &err)) {
		sqlite3_int64 c = sqlite3_column_int64(st, 0);
		if (c < 0 || (uint64_t)c >= r->nchunks || seen[c]) {
			err = corrupt(r, "unexpected or repeated XU chunk %lld", (long long)c);
			break;
		}
		seen[c] = 1;
		size_t first = (size_t)c * r->chunk, n = chunk_len(r->nxu, r->chunk, (size_t)c);
		if (sqlite3_column_int64(st, 1) != (sqlite3_int64)first ||
		    sqlite3_column_int64(st, 2) != (sqlite3_int64)n) {
			err = corrupt(r, "XU chunk %lld: wrong first XU or count", (long long)c);
			break;
		}
		for (int k = 0; !err && k < 5; k++) {
			const void *b = blob_of(st, 3 + k, n, elem[k]);
			if (!b)
				err = corrupt(r, "XU chunk %lld: blob '%s' does not hold %zu elements",
					      (long long)c, sqlite3_column_name(st, 3 + k), n);
			else
				decode((unsigned char *)cols[k] + first * elem[k], b, n, elem[k]);
		}
		if (!err && r->ver >= 2) {
			err = take_ids(r, st, 8, p->label, first, n, (size_t)c);
			if (!err)
				err = take_ids(r, st, 9, p->parent, first, n, (size_t)c);
		} else {
			if (!err)
				err = take_labels(r, st, 8, p->label, first, n, (size_t)c);
			if (!err)
				err = take_labels(r, st, 9, p->parent, first, n, (size_t)c);
		}
		for (size_t i = first; !err && i < first + n; i++) {
			if (p->xtype[i] >= p->ntypes)
				err = corrupt(r, "XU %zu has type %" PRIu32 ", but there are %zu types", i,
					      p->xtype[i], p->ntypes);
			else if (p->end[i] < p->start[i])
				err = corrupt(r, "XU %zu ends before it starts", i);
		}
	}
	sqlite3_finalize(st);
	free(seen);
	return err;
}

/* Reads a chunk table into dst[k][e] (column k of event e) and checks that
 * every (event, chunk) is there exactly once with the right sizes. */
static int read_chunks(struct rd *r, const struct chunk_table *t, size_t nev, void **dst[3],
		       int (*check)(struct rd *r, size_t e, size_t first, size_t n))
{
	char sql[200], cols[80];
	col_list(t, cols, sizeof(cols));
	snprintf(sql, sizeof(sql), "SELECT %s, chunk, %s FROM %s", t->per_event ? "event" : "0", cols,
		 t->name);
	size_t total = nev * r->nchunks, got = 0;
	unsigned char *seen = calloc(total + 1, 1);
	if (!seen)
		return pmcfi_fail(PMCF_ENOMEM, "%s: out of memory", r->path);
	sqlite3_stmt *st;
	int err = r_prepare(r, sql, &st);
	while (!err && r_row(r, st, &err)) {
		sqlite3_int64 e = sqlite3_column_int64(st, 0), c = sqlite3_column_int64(st, 1);
		if (e < 0 || (uint64_t)e >= nev || c < 0 || (uint64_t)c >= r->nchunks ||
		    seen[(size_t)e * r->nchunks + (size_t)c]) {
			err = corrupt(r, "%s: unexpected or repeated chunk (event %lld, chunk %lld)", t->name,
				      (long long)e, (long long)c);
			break;
		}
		seen[(size_t)e * r->nchunks + (size_t)c] = 1;
		got++;
		size_t first = (size_t)c * r->chunk, n = chunk_len(r->nxu, r->chunk, (size_t)c);
		for (int k = 0; !err && k < t->ncols; k++) {
			if (!t->elem[k]) { /* labels: node ids in version 2 */
				err = r->ver >= 2 ? take_ids(r, st, 2 + k, dst[k][e], first, n, (size_t)c)
						  : take_labels(r, st, 2 + k, dst[k][e], first, n, (size_t)c);
				continue;
			}
			const void *b = blob_of(st, 2 + k, n, t->elem[k]);
			if (!b)
				err = corrupt(r, "%s: %s of event %lld, chunk %lld does not hold %zu values",
					      t->name, t->col[k], (long long)e, (long long)c, n);
			else
				decode((unsigned char *)dst[k][e] + first * t->elem[k], b, n, t->elem[k]);
		}
		if (!err && check)
			err = check(r, (size_t)e, first, n);
	}
	sqlite3_finalize(st);
	if (!err && got != total) {
		size_t i = 0;
		while (seen[i])
			i++;
		err = corrupt(r, "%s: chunk %zu of event %zu is missing", t->name, i % r->nchunks,
			      i / r->nchunks);
	}
	free(seen);
	return err;
}

static int check_provenance(struct rd *r, size_t e, size_t first, size_t n)
{
	const pmcf_profile *p = r->p;
	for (size_t i = first; i < first + n; i++) {
		int32_t s = p->prov_src[e][i];
		if (s < -1 || (s >= 0 && (size_t)s >= p->nsrc))
			return corrupt(r, "XU %zu, event %zu names source profile %d of %zu", i, e, (int)s,
				       p->nsrc);
		if (p->prov_xu[e][i] < -1)
			return corrupt(r, "XU %zu, event %zu has source XU %lld", i, e,
				       (long long)p->prov_xu[e][i]);
	}
	return 0;
}

/* A base source must be a listed source, its XU -1 exactly when it is -1. */
static int check_base(struct rd *r, size_t e, size_t first, size_t n)
{
	(void)e;
	const pmcf_profile *p = r->p;
	for (size_t i = first; i < first + n; i++) {
		int32_t s = p->base_src[i];
		if (s < -1 || (s >= 0 && (size_t)s >= p->nsrc))
			return corrupt(r, "XU %zu has base source %d of %zu", i, (int)s, p->nsrc);
		if (p->base_xu[i] < -1 || (s < 0) != (p->base_xu[i] < 0))
			return corrupt(r, "XU %zu has base source %d and source XU %lld", i, (int)s,
				       (long long)p->base_xu[i]);
	}
	return 0;
}

/* A rank is not negative. */
static int check_rank(struct rd *r, size_t e, size_t first, size_t n)
{
	(void)e;
	for (size_t i = first; i < first + n; i++)
		if (r->p->rank[i] < 0)
			return corrupt(r, "XU %zu has rank %d", i, (int)r->p->rank[i]);
	return 0;
}

/* The base layer: room in the arena for its labels, then the chunks. */
static int read_base(struct rd *r)
{
	pmcf_profile *p = r->p;
	sqlite3_stmt *st;
	int err = r_prepare(r, "SELECT ifnull(sum(length(label)), 0) FROM base_chunk", &st);
	sqlite3_int64 bytes = 0;
	if (!err && r_row(r, st, &err))
		bytes = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (!err && bytes < 0)
		err = corrupt(r, "base_chunk: negative label size");
	if (!err && (err = pmcfi_profile_base_enable(p, (size_t)bytes)))
		err = pmcfi_fail_prefix(err, "%s", r->path);
	void *bs = p->base_src, *bx = p->base_xu, *bl = p->base_lab;
	if (!err)
		err = read_chunks(r, &base_tab, 1, (void **[3]){&bs, &bx, &bl}, check_base);
	return err;
}

/* Rows of a table (a B-tree count: nothing is read into memory). */
static int count_rows(struct rd *r, const char *table, size_t *n)
{
	char sql[64];
	sqlite3_stmt *st;
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s", table);
	int err = r_prepare(r, sql, &st);
	*n = 0;
	if (!err && r_row(r, st, &err))
		*n = (size_t)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return err;
}

static int too_large(const struct rd *r, size_t n, const char *what, unsigned long long max)
{
	return pmcfi_fail(PMCF_EINVAL,
			  "%s: %zu %s, more than a profile may hold (%llu; docs/profile-format.md, "
			  "\"Limits\")",
			  r->path, n, what, max);
}

/* The limits, checked before anything is allocated: the counts of events,
 * truth events and types, the XUs the format table declares, and the bytes
 * their fields and values take, which the file must hold (every value is
 * stored: a chunk per event). */
static int check_limits(struct rd *r, unsigned have)
{
	size_t ne = 0, ntr = 0, nt = 0;
	int err = count_rows(r, "event", &ne);
	if (!err && (have & T_TRUTH_EVENT))
		err = count_rows(r, "truth_event", &ntr);
	if (!err)
		err = count_rows(r, "xu_type", &nt);
	if (err)
		return err;
	if (ne > PMCF_PROFILE_MAX_EVENTS)
		return too_large(r, ne, "events", PMCF_PROFILE_MAX_EVENTS);
	if (ntr > PMCF_PROFILE_MAX_EVENTS)
		return too_large(r, ntr, "truth events", PMCF_PROFILE_MAX_EVENTS);
	if (nt > PMCF_PROFILE_MAX_TYPES)
		return too_large(r, nt, "XU types", PMCF_PROFILE_MAX_TYPES);
	if (r->nxu > PMCF_PROFILE_MAX_XUS)
		return too_large(r, r->nxu, "XUs", PMCF_PROFILE_MAX_XUS);
	/* 28 bytes of fields per XU (type, thread, cpu, start, end), 8 per value */
	uint64_t need = (uint64_t)r->nxu * (28 + 8 * (uint64_t)(ne + ntr));
	struct stat sb;
	if (stat(r->path, &sb) == 0 && need > (uint64_t)sb.st_size)
		return corrupt(r,
			       "%zu XU%s with %zu events and %zu truth events take at least %" PRIu64
			       " bytes, the file has %lld",
			       r->nxu, r->nxu == 1 ? "" : "s", ne, ntr, need, (long long)sb.st_size);
	return 0;
}

static int read_db(struct rd *r)
{
	pmcf_profile *p = r->p;
	unsigned have;
	sqlite3_stmt *st;
	int err = r_prepare(r, "PRAGMA application_id", &st);
	if (!err && r_row(r, st, &err) && (uint32_t)sqlite3_column_int64(st, 0) != APP_ID)
		err = pmcfi_fail(PMCF_ENOTOURS, "%s: not a pmcfuse profile", r->path);
	sqlite3_finalize(st);
	if (!err)
		err = read_tables(r, &have);
	if (!err)
		err = read_format(r);
	if (!err)
		err = check_limits(r, have);
	if (!err)
		err = read_list(r, "SELECT pos, key, value FROM meta ORDER BY pos", "metadata", add_meta);
	if (!err)
		err = read_list(r,
				has_column(r, "xu_type", "callee")
					? "SELECT id, kind, name, location, callee FROM xu_type ORDER BY id"
					: "SELECT id, kind, name, location FROM xu_type ORDER BY id",
				"XU type", add_type);
	if (!err)
		err = read_list(r, "SELECT id, name FROM event ORDER BY id", "event", add_event);
	if (!err && (have & T_TRUTH_EVENT))
		err = read_list(r, "SELECT id, name FROM truth_event ORDER BY id", "truth event", add_truth);
	if (!err && (have & T_SOURCE))
		err = read_list(r, "SELECT id, path, ident FROM source ORDER BY id", "source", add_source);
	if (!err && r->ver >= 2)
		err = read_label_nodes(r);
	if (!err)
		err = read_xus(r);
	if (!err)
		err = read_chunks(r, &value_tab, p->nev, (void **[3]){(void **)p->val}, NULL);
	if (!err && (have & T_TRUTH))
		err = read_chunks(r, &truth_tab, p->ntruth, (void **[3]){(void **)p->truth}, NULL);
	if (!err && (have & T_COVERAGE)) {
		err = pmcf_profile_coverage_enable(p);
		if (!err)
			err = read_chunks(r, &coverage_tab, p->nev,
					  (void **[3]){(void **)p->cov_enabled, (void **)p->cov_running},
					  NULL);
	}
	if (!err && (have & T_PROVENANCE)) {
		err = pmcf_profile_provenance_enable(p);
		if (!err)
			err = read_chunks(r, &provenance_tab, p->nev,
					  (void **[3]){(void **)p->prov_src, (void **)p->prov_xu},
					  check_provenance);
	}
	if (!err && (have & T_MATCH)) {
		err = pmcfi_profile_match_enable(p);
		void *m = p->match;
		if (!err)
			err = read_chunks(r, &match_tab, 1, (void **[3]){&m}, NULL);
	}
	if (!err && (have & T_BASE))
		err = read_base(r);
	if (!err && (have & T_RANK)) {
		err = pmcf_profile_ranks_enable(p);
		void *rk = p->rank;
		if (!err)
			err = read_chunks(r, &rank_tab, 1, (void **[3]){&rk}, check_rank);
	}
	return err;
}

/* Changes another program left beside the file (a WAL, or a hot rollback
 * journal) are not in the file itself: the immutable reader below would not
 * see them, and reading them would create or change files. Refused. */
static int check_pending(const char *path, int wal)
{
	char side[PATH_MAX];
	struct stat sb;
	int n = snprintf(side, sizeof(side), "%s%s", path, wal ? "-wal" : "-journal");
	if (n < 0 || (size_t)n >= sizeof(side) || stat(side, &sb) != 0 || sb.st_size == 0)
		return 0;
	return pmcfi_fail(-EBUSY,
			  "%s: another program left changes in '%s' that are not in the profile yet "
			  "(it is still writing, or stopped before it finished); pmcfuse reads profiles "
			  "without changing them: let it finish, or open and close the file with sqlite3",
			  path, side);
}

/* "file:PATH?immutable=1" with PATH percent-encoded: SQLite then reads the
 * file as it is, takes no lock and creates no -wal, -shm or -journal file,
 * whatever the journal mode of the file. NULL when out of memory. */
static char *immutable_uri(const char *path)
{
	size_t n = strlen(path);
	char *u = malloc(3 * n + 32), *q = u;
	if (!u)
		return NULL;
	q += sprintf(q, "file:%s", path[0] == '/' ? "//" : "");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("/-._~", *p))
			*q++ = (char)*p;
		else
			q += sprintf(q, "%%%02X", *p);
	}
	strcpy(q, "?immutable=1");
	return u;
}

int pmcf_profile_open(const char *path, pmcf_profile **out)
{
	pmcfi_clear_error();
	if (!path || !out)
		return pmcfi_fail(PMCF_EINVAL, "pmcf_profile_open: no path or output");
	*out = NULL;
	int wal = 0;
	int err = check_header(path, &wal);
	if (!err)
		err = check_pending(path, wal);
	if (err)
		return err;
	struct rd r = {.path = path};
	char *uri = immutable_uri(path);
	err = uri ? pmcf_profile_new(&r.p) : PMCF_ENOMEM;
	if (err) {
		free(uri);
		return pmcfi_fail_prefix(err, "%s", path);
	}
	int rc = sqlite3_open_v2(uri, &r.db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI,
				 NULL);
	free(uri);
	if (rc != SQLITE_OK)
		err = db_fail(r.db, rc, path, "cannot open");
	else
		err = read_db(&r);
	sqlite3_close(r.db);
	if (err) {
		pmcf_profile_free(r.p);
		return err;
	}
	*out = r.p;
	return 0;
}
