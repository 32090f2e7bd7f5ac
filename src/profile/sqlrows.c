/* The SQL layer of a profile file (docs/profile-format.md, "SQL access"): a
 * plain row table xu_row (one row per XU, one REAL column per event) and the
 * views xu_values (wide, one column named as each event) and xu_values_long
 * (xu, event, value), so that the stock sqlite3 command reads values without
 * decoding the chunk BLOBs. With more events than SQLite has columns, the
 * long form only: xu_row holds the XU fields, xu_value one row per XU and
 * event. Written inside pmcf_profile_save's transaction. */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "profile/profile_impl.h"
#include "util/internal.h"

/* SQLite's default SQLITE_MAX_COLUMN (2000), which a reader's sqlite3
 * command may not raise whatever this library was built with, less the XU
 * fields and type_name of xu_values, is PMCF_SQL_MAX_EVENTS (profile.h). */

/* The per-XU columns of xu_row and xu_values, in order. To add one (an MPI
 * rank, ...), add a row here and its value in bind_fixed. */
enum fixed_col {
	F_XU,
	F_TYPE,
	F_LABEL,
	F_PARENT,
	F_THREAD,
	F_CPU,
	F_START,
	F_END,
	F_RANK,
	F_BASE_SRC,
	F_BASE_XU,
	F_BASE_LABEL,
	F_N
};
_Static_assert(F_N + 1 + PMCF_SQL_MAX_EVENTS == 2000, "xu_values: at most 2000 columns");
static const struct {
	const char *name, *decl;
} fixed[F_N] = {
	[F_XU] = {"xu", "INTEGER PRIMARY KEY"},
	[F_TYPE] = {"type", "INTEGER NOT NULL"},
	[F_LABEL] = {"label", "TEXT NOT NULL"},
	[F_PARENT] = {"parent_label", "TEXT NOT NULL"},
	[F_THREAD] = {"thread", "INTEGER NOT NULL"},
	[F_CPU] = {"cpu", "INTEGER NOT NULL"},
	[F_START] = {"start_ns", "INTEGER NOT NULL"},
	[F_END] = {"end_ns", "INTEGER NOT NULL"},
	[F_RANK] = {"rank", "INTEGER NOT NULL"}, /* the MPI rank; 0 in other programs */
	/* a fused profile's base XU (pmcf_profile_base_label_get): source.id, its
	 * XU index and its label there; NULL without the base layer or base */
	[F_BASE_SRC] = {"base_source", "INTEGER"},
	[F_BASE_XU] = {"base_xu", "INTEGER"},
	[F_BASE_LABEL] = {"base_label", "TEXT"},
};

/* A profile with a label tree has its labels as node ids in xu_row (table
 * xu_label, view label_text: docs/profile-format.md, "SQL access"); an
 * arena label of such a profile becomes a node of xu_label after the
 * tree's (extra, counted here). */
struct sqlab {
	sqlite3_stmt *node; /* INSERT INTO xu_label */
	size_t extra;
	int rc;
};

static void bind_node(sqlite3_stmt *st, int k, const pmcf_profile *p, size_t lab, struct sqlab *L)
{
	if (lab & PMCFI_LAB_NODE || !lab) {
		sqlite3_bind_int64(st, k, (sqlite3_int64)(lab & ~PMCFI_LAB_NODE));
		return;
	}
	sqlite3_int64 id = (sqlite3_int64)(p->nlab + L->extra++);
	sqlite3_bind_int64(L->node, 1, id);
	sqlite3_bind_int64(L->node, 2, 0);
	sqlite3_bind_text(L->node, 3, p->arena + lab, -1, SQLITE_STATIC);
	int rc = sqlite3_step(L->node);
	sqlite3_reset(L->node);
	if (rc != SQLITE_DONE && L->rc == SQLITE_OK)
		L->rc = rc;
	sqlite3_bind_int64(st, k, id);
}

static void bind_label(sqlite3_stmt *st, int k, const pmcf_profile *p, size_t lab)
{
	if (!(lab & PMCFI_LAB_NODE)) {
		sqlite3_bind_text(st, k, p->arena + lab, -1, SQLITE_STATIC);
		return;
	}
	char *buf = NULL;
	size_t cap = 0;
	const char *s = pmcfi_profile_label_text(p, lab, &buf, &cap);
	if (s)
		sqlite3_bind_text(st, k, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, k); /* out of memory: the insert fails (NOT NULL) */
	free(buf);
}

/* a label column: a node id of the label tree, or the text of older profiles */
static void bind_label_of(sqlite3_stmt *st, int k, const pmcf_profile *p, size_t id, struct sqlab *L)
{
	if (p->nlab)
		bind_node(st, k, p, id, L);
	else
		bind_label(st, k, p, id);
}

static void bind_fixed(sqlite3_stmt *st, int col, const pmcf_profile *p, size_t i, struct sqlab *L)
{
	int k = col + 1;
	switch ((enum fixed_col)col) {
	case F_XU: sqlite3_bind_int64(st, k, (sqlite3_int64)i); break;
	case F_TYPE: sqlite3_bind_int64(st, k, p->xtype[i]); break;
	case F_LABEL: bind_label_of(st, k, p, p->label[i], L); break;
	case F_PARENT: bind_label_of(st, k, p, p->parent[i], L); break;
	case F_THREAD: sqlite3_bind_int(st, k, p->thread[i]); break;
	case F_CPU: sqlite3_bind_int(st, k, p->cpu[i]); break;
	case F_START: sqlite3_bind_int64(st, k, (sqlite3_int64)p->start[i]); break;
	case F_END: sqlite3_bind_int64(st, k, (sqlite3_int64)p->end[i]); break;
	case F_RANK: sqlite3_bind_int(st, k, p->rank ? p->rank[i] : 0); break;
	case F_BASE_SRC:
		if (p->base_src && p->base_src[i] >= 0)
			sqlite3_bind_int(st, k, p->base_src[i]);
		else
			sqlite3_bind_null(st, k);
		break;
	case F_BASE_XU:
		if (p->base_src && p->base_src[i] >= 0)
			sqlite3_bind_int64(st, k, (sqlite3_int64)p->base_xu[i]);
		else
			sqlite3_bind_null(st, k);
		break;
	case F_BASE_LABEL:
		if (p->base_src && p->base_src[i] >= 0)
			bind_label_of(st, k, p, p->base_lab[i], L);
		else
			sqlite3_bind_null(st, k);
		break;
	case F_N: break;
	}
}

/* SQL text is built in a memory stream (open_memstream). */
static void puts_(FILE *q, const char *s) { fputs(s, q); }

/* s as an SQL identifier: "s" with every " doubled. */
static void put_ident(FILE *q, const char *s)
{
	fputc('"', q);
	for (; *s; s++) {
		fputc(*s, q);
		if (*s == '"')
			fputc('"', q);
	}
	fputc('"', q);
}

/* "v<e>": the xu_row column of event e (event names need not be valid or
 * distinct SQL column names; the views give them their names). */
static void put_vcol(FILE *q, const char *prefix, size_t e) { fprintf(q, "%sv%zu", prefix, e); }

/* CREATE TABLE xu_row: the XU fields, and a column per event if values. */
static void row_ddl(FILE *q, const pmcf_profile *p, int values)
{
	puts_(q, "CREATE TABLE xu_row(");
	for (int c = 0; c < F_N; c++) {
		puts_(q, c ? ", " : "");
		puts_(q, fixed[c].name);
		puts_(q, " ");
		puts_(q, p->nlab && (c == F_LABEL || c == F_PARENT) ? "INTEGER NOT NULL"
			 : p->nlab && c == F_BASE_LABEL             ? "INTEGER"
								    : fixed[c].decl);
	}
	for (size_t e = 0; values && e < p->nev; e++)
		put_vcol(q, ", ", e);
	puts_(q, ")");
}

/* The DDL of the long-only layer (more events than columns): the XU fields
 * in xu_row, the values in xu_value, and the view xu_values_long over them
 * (the same columns as the wide layer's). */
static void long_ddl(FILE *q, const pmcf_profile *p)
{
	row_ddl(q, p, 0);
	puts_(q, ";\nCREATE TABLE xu_value(xu INTEGER NOT NULL, event INTEGER NOT NULL, value, "
		 "PRIMARY KEY(xu, event)) WITHOUT ROWID;\n"
		 "CREATE VIEW xu_values_long AS SELECT v.xu AS xu, e.name AS event, v.value AS value "
		 "FROM xu_value v JOIN event e ON e.id = v.event;");
}

/* The DDL of the layer: the table and both views. */
static void layer_ddl(FILE *q, const pmcf_profile *p)
{
	row_ddl(q, p, 1);
	puts_(q, ";\nCREATE VIEW xu_values AS SELECT ");
	for (int c = 0; c < F_N; c++) {
		puts_(q, c ? ", " : "");
		if (p->nlab && (c == F_LABEL || c == F_PARENT || c == F_BASE_LABEL)) {
			/* the node's text: its ancestors' own components, root
			 * first (base_label: NULL stays NULL) */
			int base = c == F_BASE_LABEL;
			fprintf(q,
				"%s%s%scoalesce((WITH RECURSIVE up(id, suffix, d) AS (SELECT parent, suffix, 0 FROM "
				"xu_label"
				" WHERE id = r.%s UNION ALL SELECT n.parent, n.suffix, up.d + 1 FROM xu_label n"
				" JOIN up ON n.id = up.id WHERE up.id != 0) SELECT group_concat(suffix, '.') FROM"
				" (SELECT suffix FROM up ORDER BY d DESC)), '')%s AS %s",
				base ? "CASE WHEN r." : "", base ? fixed[c].name : "",
				base ? " IS NULL THEN NULL ELSE " : "", fixed[c].name, base ? " END" : "",
				fixed[c].name);
		} else {
			puts_(q, "r.");
			puts_(q, fixed[c].name);
		}
		if (c == F_TYPE)
			puts_(q, ", t.name AS type_name");
	}
	for (size_t e = 0; e < p->nev; e++) {
		put_vcol(q, ", r.", e);
		puts_(q, " AS ");
		put_ident(q, p->ev_name[e]);
	}
	puts_(q, " FROM xu_row r JOIN xu_type t ON t.id = r.type;\n"
		 "CREATE VIEW xu_values_long AS SELECT r.xu AS xu, e.name AS event, ");
	if (!p->nev)
		puts_(q, "NULL");
	else
		puts_(q, "CASE e.id");
	for (size_t e = 0; e < p->nev; e++)
		fprintf(q, " WHEN %zu THEN r.v%zu", e, e);
	puts_(q, p->nev ? " END AS value" : " AS value");
	puts_(q, " FROM xu_row r CROSS JOIN event e;");
}

/* The text that build writes for p, or NULL when out of memory. */
static char *sql_text(void (*build)(FILE *q, const pmcf_profile *p), const pmcf_profile *p)
{
	char *s = NULL;
	size_t n;
	FILE *q = open_memstream(&s, &n);
	if (!q)
		return NULL;
	build(q, p);
	int bad = ferror(q);
	if (fclose(q) != 0 || bad) {
		free(s);
		return NULL;
	}
	return s;
}

/* INSERT INTO xu_row with n parameters. */
static void insert_cols(FILE *q, size_t n)
{
	puts_(q, "INSERT INTO xu_row VALUES(?");
	for (size_t c = 1; c < n; c++)
		puts_(q, ", ?");
	puts_(q, ")");
}

static void insert_sql(FILE *q, const pmcf_profile *p) { insert_cols(q, F_N + p->nev); }

static void insert_fixed_sql(FILE *q, const pmcf_profile *p)
{
	(void)p;
	insert_cols(q, F_N);
}

/* Binds value v as parameter k: NULL when missing, whole numbers below 2^63
 * as integers (counts print as counts), others as REAL. */
static void bind_value(sqlite3_stmt *st, int k, double v)
{
	if (pmcf_is_missing(v))
		sqlite3_bind_null(st, k);
	else if (fabs(v) < 0x1p63 && v == (double)(sqlite3_int64)v)
		sqlite3_bind_int64(st, k, (sqlite3_int64)v);
	else
		sqlite3_bind_double(st, k, v);
}

/* Steps st once and resets it; SQLITE_OK when the row went in. */
static int step_row(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* A profile with a label tree: the table xu_label (one row per node but
 * node 0: its parent and its own components) and the view label_text (each
 * node's label, built by a recursive query: labels cost O(1) per XU in the
 * file, the text is made when a query reads it); *ins inserts more nodes. */
static int label_rows(sqlite3 *db, const pmcf_profile *p, sqlite3_stmt **ins)
{
	int rc = sqlite3_exec(
		db,
		"CREATE TABLE xu_label(id INTEGER PRIMARY KEY, parent INTEGER NOT NULL, suffix TEXT NOT NULL);",
		NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db, "INSERT INTO xu_label VALUES(?, ?, ?)", -1, ins, NULL);
	for (size_t k = 1; rc == SQLITE_OK && k < p->nlab; k++) {
		sqlite3_bind_int64(*ins, 1, (sqlite3_int64)k);
		sqlite3_bind_int64(*ins, 2, p->lpar[k]);
		sqlite3_bind_text(*ins, 3, p->lsarena + p->lsuf[k], -1, SQLITE_STATIC);
		rc = step_row(*ins);
	}
	return rc;
}

/* The rows of xu_row: the XU fields, and the values unless long (then
 * one row per XU and event in xu_value). */
static int insert_rows(sqlite3 *db, const pmcf_profile *p, int long_only)
{
	char *sql = sql_text(long_only ? insert_fixed_sql : insert_sql, p);
	if (!sql)
		return SQLITE_NOMEM;
	sqlite3_stmt *st, *sv = NULL;
	struct sqlab L = {NULL, 0, SQLITE_OK};
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	free(sql);
	if (rc == SQLITE_OK && long_only)
		rc = sqlite3_prepare_v2(db, "INSERT INTO xu_value VALUES(?, ?, ?)", -1, &sv, NULL);
	if (rc == SQLITE_OK && p->nlab)
		rc = label_rows(db, p, &L.node);
	for (size_t i = 0; rc == SQLITE_OK && i < p->nxu; i++) {
		for (int c = 0; c < F_N; c++)
			bind_fixed(st, c, p, i, &L);
		if (L.rc != SQLITE_OK) {
			rc = L.rc;
			break;
		}
		if (!long_only)
			for (size_t e = 0; e < p->nev; e++)
				bind_value(st, F_N + 1 + (int)e, p->val[e][i]);
		rc = step_row(st);
		for (size_t e = 0; long_only && rc == SQLITE_OK && e < p->nev; e++) {
			sqlite3_bind_int64(sv, 1, (sqlite3_int64)i);
			sqlite3_bind_int64(sv, 2, (sqlite3_int64)e);
			bind_value(sv, 3, p->val[e][i]);
			rc = step_row(sv);
		}
	}
	sqlite3_finalize(L.node);
	sqlite3_finalize(sv);
	sqlite3_finalize(st);
	return rc;
}

/* The format row sql_layer: why the file has no SQL layer, or only its long form. */
static int format_note(sqlite3 *db, const char *fmt, size_t n, size_t limit)
{
	char why[256], sql[320];
	snprintf(why, sizeof(why), fmt, n, limit);
	snprintf(sql, sizeof(sql), "INSERT INTO format(key, value) VALUES('sql_layer', '%s')", why);
	return sqlite3_exec(db, sql, NULL, NULL, NULL);
}

/* A fused profile's provenance (the per-value layer), one row per XU and
 * event: table xu_prov and the view xu_provenance, which names the event
 * and the source's path. */
static int provenance_rows(sqlite3 *db, const pmcf_profile *p)
{
	int rc = sqlite3_exec(
		db,
		"CREATE TABLE xu_prov(xu INTEGER NOT NULL, event INTEGER NOT NULL, source INTEGER, "
		"source_xu INTEGER, PRIMARY KEY(xu, event)) WITHOUT ROWID;\n"
		"CREATE VIEW xu_provenance AS SELECT v.xu AS xu, e.name AS event, v.source AS source, "
		"s.path AS source_path, v.source_xu AS source_xu FROM xu_prov v "
		"JOIN event e ON e.id = v.event LEFT JOIN source s ON s.id = v.source;",
		NULL, NULL, NULL);
	sqlite3_stmt *st = NULL;
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db, "INSERT INTO xu_prov VALUES(?, ?, ?, ?)", -1, &st, NULL);
	for (size_t i = 0; rc == SQLITE_OK && i < p->nxu; i++)
		for (size_t e = 0; rc == SQLITE_OK && e < p->nev; e++) {
			int32_t src = p->prov_src[e][i];
			sqlite3_bind_int64(st, 1, (sqlite3_int64)i);
			sqlite3_bind_int64(st, 2, (sqlite3_int64)e);
			if (src >= 0)
				sqlite3_bind_int(st, 3, src);
			else
				sqlite3_bind_null(st, 3);
			if (p->prov_xu[e][i] >= 0)
				sqlite3_bind_int64(st, 4, (sqlite3_int64)p->prov_xu[e][i]);
			else
				sqlite3_bind_null(st, 4);
			rc = step_row(st);
		}
	sqlite3_finalize(st);
	return rc;
}

int pmcfi_sql_layer_write(struct sqlite3 *db, const pmcf_profile *p, int always)
{
	if (!always && (double)p->nxu * (double)p->nev > PMCFI_SQL_AUTO_VALUES)
		return format_note(db,
				   "none: %zu values, more than %zu; the sqlite export (pmcf_export_path; "
				   "pmcfuse export --format sqlite) writes a copy with it",
				   p->nxu * p->nev, PMCFI_SQL_AUTO_VALUES);
	int long_only = p->nev > PMCF_SQL_MAX_EVENTS;
	int rc = SQLITE_OK;
	if (long_only)
		rc = format_note(db,
				 "long: %zu events, more than the %zu columns of SQLite: xu_values_long only,"
				 " no xu_values",
				 p->nev, PMCF_SQL_MAX_EVENTS);
	char *ddl = rc == SQLITE_OK ? sql_text(long_only ? long_ddl : layer_ddl, p) : NULL;
	if (rc == SQLITE_OK && !ddl)
		return SQLITE_NOMEM;
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, ddl, NULL, NULL, NULL);
	free(ddl);
	if (rc == SQLITE_OK)
		rc = insert_rows(db, p, long_only);
	if (rc == SQLITE_OK && p->has_prov)
		rc = provenance_rows(db, p);
	return rc;
}
