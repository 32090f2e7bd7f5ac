/* plan.json: the versioned, readable form of a plan, written by `plan` and
 * read by `record --plan plan.json --set K` (format in docs/fusion.md). */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "pmcfuse/combine.h"
#include "plan/plan_impl.h"
#include "util/abi.h"
#include "util/atomic.h"
#include "util/internal.h"
#include "util/json_bytes.h"

/* an array of byte strings, each lossless (util/json_bytes.h); NULL when
 * out of memory */
static json_t *strv(char *const *v, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < n; i++)
		if (json_array_append_new(a, pmcfi_json_bytes(v[i]))) {
			json_decref(a);
			return NULL;
		}
	return a;
}

/* --link auto: {"method", "exact", "pilots", "sets": [{"link", "bits",
 * "base_bits"}, ...]} (one entry per set, in plan order) */
static json_t *auto_json(const pmcf_plan *p)
{
	json_t *a = json_object(), *sets = json_array();
	if (!a || !sets) {
		json_decref(a);
		json_decref(sets);
		return NULL;
	}
	json_object_set_new(a, "method", json_string(p->auto_method ? p->auto_method : ""));
	json_object_set_new(a, "exact", json_boolean(p->auto_exact));
	json_object_set_new(a, "pilots", json_integer((json_int_t)p->auto_pilots));
	for (size_t k = 0; k < p->nsets; k++) {
		json_t *s = json_object();
		json_object_set_new(s, "link", strv(p->autos[k].links, p->autos[k].nlinks));
		json_object_set_new(s, "bits", json_real(p->autos[k].bits));
		json_object_set_new(s, "base_bits", json_real(p->autos[k].base_bits));
		json_array_append_new(sets, s);
	}
	json_object_set_new(a, "sets", sets);
	return a;
}

static int read_strv(json_t *a, const char *what, char ***arr, size_t *len);

/* "link_auto" back, checked: one entry per set, links strings, bits numbers */
static int read_auto(pmcf_plan *p, json_t *a)
{
	json_t *sets = json_object_get(a, "sets"), *m = json_object_get(a, "method");
	if (!json_is_object(a) || !json_is_string(m) || !json_is_array(sets) ||
	    json_array_size(sets) != p->nsets)
		return pmcfi_fail(PMCF_ESYNTAX,
				  "plan: \"link_auto\" must be an object with "
				  "\"method\" and one entry of \"sets\" per set (%zu)",
				  p->nsets);
	if (!(p->autos = calloc(p->nsets, sizeof(*p->autos))) ||
	    !(p->auto_method = strdup(json_string_value(m))))
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	p->auto_exact = json_is_true(json_object_get(a, "exact"));
	json_t *np = json_object_get(a, "pilots");
	p->auto_pilots =
		json_is_integer(np) && json_integer_value(np) > 0 ? (size_t)json_integer_value(np) : 0;
	for (size_t k = 0; k < p->nsets; k++) {
		json_t *s = json_array_get(sets, k), *b = json_object_get(s, "bits"),
		       *bb = json_object_get(s, "base_bits");
		if (!json_is_number(b) || !json_is_number(bb))
			return pmcfi_fail(PMCF_ESYNTAX,
					  "plan: \"link_auto.sets\"[%zu] needs "
					  "numbers \"bits\" and \"base_bits\"",
					  k);
		p->autos[k].bits = json_number_value(b);
		p->autos[k].base_bits = json_number_value(bb);
		int err = read_strv(json_object_get(s, "link"), "link_auto.sets[].link", &p->autos[k].links,
				    &p->autos[k].nlinks);
		if (err)
			return err;
	}
	return 0;
}

int pmcf_plan_to_json(const pmcf_plan *p, char **text)
{
	pmcfi_clear_error();
	*text = NULL;
	json_t *o = json_object(), *src = json_object(), *sets = json_array();
	if (!o || !src || !sets) {
		json_decref(o);
		json_decref(src);
		json_decref(sets);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	}
	json_object_set_new(o, "format", json_string(PMCF_PLAN_FORMAT));
	json_object_set_new(o, "version", json_integer(PMCF_PLAN_VERSION));
	if (p->sim) {
		json_object_set_new(src, "sim", json_string(p->sim));
	} else if (p->argc) {
		json_object_set_new(src, "program", pmcfi_json_bytes(p->argv[0]));
		json_object_set_new(src, "args", strv(p->argv + 1, p->argc - 1));
	}
	json_object_set_new(o, "source", src);
	json_object_set_new(o, "strategy", json_string(pmcf_strategy_name(p->strategy)));
	json_object_set_new(o, "packing", json_string(pmcf_packing_name(p->packing)));
	json_object_set_new(o, "pmcs", json_integer(p->pmcs));
	json_object_set_new(o, "catalog", json_string(p->catalog ? p->catalog : ""));
	/* a seed beyond INT64_MAX: a placeholder, its digits put in below */
	int big_seed = p->seed > (uint64_t)INT64_MAX;
	json_object_set_new(o, "seed", json_integer(big_seed ? 0 : (json_int_t)p->seed));
	json_object_set_new(o, "events", strv(p->events, p->nevents));
	json_object_set_new(o, "link", strv(p->link, p->nlink));
	json_object_set_new(o, "executions", json_integer((json_int_t)p->nsets));
	json_object_set_new(o, "lower_bound", json_integer(p->lower_bound));
	json_object_set_new(o, "optimal", json_boolean(p->optimal));
	for (size_t k = 0; k < p->nsets; k++)
		json_array_append_new(sets, strv(p->sets[k].names, p->sets[k].n));
	json_object_set_new(o, "sets", sets);
	if (p->autos)
		json_object_set_new(o, "link_auto", auto_json(p));
	char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (!s)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	/* the top-level key at the start of its line: no string holds a raw newline */
	static const char key[] = "\n  \"seed\": 0,";
	char *at = big_seed ? strstr(s, key) : NULL;
	size_t n = strlen(s), head = at ? (size_t)(at - s) + sizeof(key) - 3 : n;
	char digits[24] = "";
	if (at)
		snprintf(digits, sizeof(digits), "%" PRIu64, p->seed);
	*text = malloc(n + strlen(digits) + 2);
	if (!*text) {
		free(s);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	}
	/* s with the placeholder 0 replaced by the digits, and a final newline */
	sprintf(*text, "%.*s%s%s\n", (int)head, s, digits, at ? at + sizeof(key) - 2 : "");
	free(s);
	return 0;
}

/* names of a JSON array of strings into *arr */
static int read_strv(json_t *a, const char *what, char ***arr, size_t *len)
{
	if (!json_is_array(a))
		return pmcfi_fail(PMCF_ESYNTAX, "plan: \"%s\" must be an array of strings", what);
	size_t i;
	json_t *v;
	json_array_foreach(a, i, v)
	{
		char *s;
		int err = pmcfi_json_bytes_get(v, &s);
		if (err == PMCF_ENOMEM)
			return pmcfi_fail(err, "out of memory");
		if (err)
			return pmcfi_fail(PMCF_ESYNTAX,
					  "plan: \"%s\"[%zu] must be a string (or {\"base64\": \"...\"})",
					  what, i);
		err = pmcfi_plan_strv_push(arr, len, (const char *const *)&s, 1);
		free(s);
		if (err)
			return err;
	}
	return 0;
}

/* Integers beyond int64 (jansson refuses them) as strings marked with BIG,
 * so that a seed up to 2^64-1 reads, and an overflowing field is reported
 * by name: text with every such number token outside strings quoted; NULL
 * when out of memory. */
#define BIG "\x01"
static char *quote_big_ints(const char *text)
{
	size_t n = strlen(text);
	char *o = malloc(2 * n + 1), *q = o;
	if (!o)
		return NULL;
	for (const char *p = text; *p;) {
		if (*p == '"') { /* a string, copied with its escapes */
			*q++ = *p++;
			while (*p && *p != '"') {
				if (*p == '\\' && p[1])
					*q++ = *p++;
				*q++ = *p++;
			}
			if (*p)
				*q++ = *p++;
			continue;
		}
		if (*p != '-' && (*p < '0' || *p > '9')) {
			*q++ = *p++;
			continue;
		}
		const char *d = p + (*p == '-'), *e = d;
		while (*e >= '0' && *e <= '9')
			e++;
		if (e == d) { /* a lone '-': jansson says what is wrong */
			*q++ = *p++;
			continue;
		}
		errno = 0;
		if (*e != '.' && *e != 'e' && *e != 'E') {
			(void)strtoll(p, NULL, 10);
			if (errno == ERANGE) {
				q += sprintf(q, "\"\\u0001%.*s\"", (int)(e - p), p); /* BIG */
				p = e;
				continue;
			}
		}
		memcpy(q, p, (size_t)(e - p));
		q += e - p;
		p = e;
	}
	*q = '\0';
	return o;
}

/* The value of v as the plan.json text shows it (numbers as written), for
 * messages. */
static const char *shown(const json_t *v, char *buf, size_t n)
{
	const char *s = json_string_value(v);
	if (s && s[0] == BIG[0]) {
		snprintf(buf, n, "%s", s + 1);
		return buf;
	}
	char *d = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
	snprintf(buf, n, "%.60s%s", d ? d : "?", d && strlen(d) > 60 ? "..." : "");
	free(d);
	return buf;
}

/* Field key of o, when present, as a whole number in [min, max] into *out
 * (as --pmcs or --seed would take it); what says the range in a message. */
static int field_uint(const json_t *o, const char *key, uint64_t min, uint64_t max, const char *what,
		      uint64_t *out)
{
	const json_t *v = json_object_get(o, key);
	char buf[80];
	if (!v)
		return 0;
	const char *s = json_string_value(v);
	uint64_t x;
	if (json_is_integer(v)) {
		json_int_t i = json_integer_value(v);
		if (i < 0 || (uint64_t)i < min || (uint64_t)i > max)
			return pmcfi_fail(PMCF_ESYNTAX, "\"%s\": %s is out of range (%s)", key,
					  shown(v, buf, sizeof(buf)), what);
		x = (uint64_t)i;
	} else if (s && s[0] == BIG[0]) {
		errno = 0;
		x = strtoull(s + 1, NULL, 10);
		if (s[1] == '-' || errno == ERANGE || x < min || x > max)
			return pmcfi_fail(PMCF_ESYNTAX, "\"%s\": %s is out of range (%s)", key, s + 1, what);
	} else {
		return pmcfi_fail(PMCF_ESYNTAX, "\"%s\": %s is not a whole number (%s)", key,
				  shown(v, buf, sizeof(buf)), what);
	}
	*out = x;
	return 0;
}

/* Field key of o, when present, as a string into *out (NULL when absent). */
static int field_str(const json_t *o, const char *key, const char **out)
{
	const json_t *v = json_object_get(o, key);
	char buf[80];
	*out = json_string_value(v);
	if (v && (!*out || (*out)[0] == BIG[0]))
		return pmcfi_fail(PMCF_ESYNTAX, "\"%s\": %s is not a string", key,
				  shown(v, buf, sizeof(buf)));
	return 0;
}

/* The source: "sim" (a spec) or "program" with "args", not both. */
static int read_source(pmcf_plan *p, const json_t *src)
{
	if (!src)
		return 0;
	if (!json_is_object(src))
		return pmcfi_fail(PMCF_ESYNTAX, "\"source\" must be an object with \"sim\" or \"program\"");
	const char *sim;
	json_t *progv = json_object_get(src, "program"), *args = json_object_get(src, "args");
	int err = field_str(src, "sim", &sim);
	if (err)
		return pmcfi_fail_prefix(err, "\"source\"");
	if (sim && (progv || args))
		return pmcfi_fail(PMCF_ESYNTAX, "\"source\" names both \"sim\" and \"program\"; a plan "
						"has one source");
	if (args && !progv)
		return pmcfi_fail(PMCF_ESYNTAX, "\"source\" has \"args\" but no \"program\"");
	if (sim)
		return pmcf_plan_sim_set(p, sim);
	if (!progv)
		return 0;
	char *prog;
	err = pmcfi_json_bytes_get(progv, &prog);
	if (err == PMCF_ESYNTAX)
		return pmcfi_fail(err, "\"source.program\" must be a string (or {\"base64\": \"...\"})");
	if (err)
		return pmcfi_fail(err, "out of memory");
	err = pmcfi_plan_strv_push(&p->argv, &p->argc, (const char *const *)&prog, 1);
	free(prog);
	if (!err && args)
		err = read_strv(args, "source.args", &p->argv, &p->argc);
	return err;
}

/* The fields besides the source and the sets, checked as the options they
 * mirror (--strategy, --packing, --pmcs, --seed). */
static int read_fields(pmcf_plan *p, const json_t *o)
{
	const char *st = NULL, *pk = NULL, *cat = NULL;
	uint64_t pmcs = 0, seed = p->seed, lb = 0;
	int err = field_str(o, "strategy", &st);
	if (!err && st) {
		int s = pmcf_strategy_parse(st);
		if (s < 0)
			err = pmcfi_fail(PMCF_ESYNTAX, "\"strategy\": unknown strategy '%s'", st);
		else
			p->strategy = s;
	}
	if (!err)
		err = field_str(o, "packing", &pk);
	if (!err && pk && strcmp(pk, "best") && strcmp(pk, "greedy"))
		err = pmcfi_fail(PMCF_ESYNTAX, "\"packing\": unknown packing '%s' (best or greedy)", pk);
	p->packing = pk && strcmp(pk, "greedy") == 0 ? PMCF_PACK_GREEDY : PMCF_PACK_BEST;
	if (!err) /* the range: pmcfi_plan_fields_check, planning's check too */
		err = field_uint(o, "pmcs", 0, UINT64_MAX, PMCFI_PLAN_PMCS_RANGE, &pmcs);
	if (!err)
		err = pmcfi_plan_fields_check(0, p->strategy, p->packing, pmcs);
	if (!err)
		err = field_uint(o, "seed", 0, UINT64_MAX, "0..18446744073709551615", &seed);
	if (!err)
		err = field_uint(o, "lower_bound", 0, UINT32_MAX, "0..4294967295", &lb);
	json_t *opt = json_object_get(o, "optimal");
	if (!err && opt && !json_is_boolean(opt))
		err = pmcfi_fail(PMCF_ESYNTAX, "\"optimal\" must be true or false");
	if (!err)
		err = field_str(o, "catalog", &cat);
	if (err)
		return err;
	p->pmcs = (unsigned)pmcs;
	p->seed = seed;
	p->lower_bound = (unsigned)lb;
	p->optimal = json_is_true(opt);
	if (!(p->catalog = strdup(cat ? cat : "")))
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	return 0;
}

/* After the sets: "executions" (when present) is their number, and the
 * lower bound is no more than it. */
static int check_counts(const pmcf_plan *p, const json_t *o)
{
	uint64_t ex = p->nsets;
	char range[48];
	snprintf(range, sizeof(range), "the plan has %zu sets", p->nsets);
	int err = field_uint(o, "executions", 0, UINT64_MAX, range, &ex);
	if (!err && ex != p->nsets)
		err = pmcfi_fail(PMCF_ESYNTAX, "\"executions\": %" PRIu64 ", but the plan has %zu sets", ex,
				 p->nsets);
	if (!err && p->lower_bound > p->nsets)
		err = pmcfi_fail(PMCF_ESYNTAX,
				 "\"lower_bound\": %u is more than the %zu executions of the plan",
				 p->lower_bound, p->nsets);
	return err;
}

/* The plan in text; path (NULL: none) names the file in messages. */
static int from_text(const char *text, const char *path, pmcf_plan **out)
{
	json_error_t je;
	char *quoted = quote_big_ints(text);
	if (!quoted)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	json_t *o = json_loads(quoted, 0, &je);
	free(quoted);
	if (!o && path)
		return pmcfi_fail(PMCF_ESYNTAX, "plan '%s' is not JSON (line %d: %s)", path, je.line,
				  je.text);
	if (!o)
		return pmcfi_fail(PMCF_ESYNTAX, "plan: not JSON (line %d: %s)", je.line, je.text);
	pmcf_plan *p = NULL;
	int err = 0;
	const char *fmt = json_string_value(json_object_get(o, "format"));
	json_t *ver = json_object_get(o, "version");
	if (!json_is_object(o) || !fmt || strcmp(fmt, PMCF_PLAN_FORMAT) != 0) {
		err = pmcfi_fail(PMCF_ENOTOURS, "not a pmcfuse plan (no \"format\": \"%s\")",
				 PMCF_PLAN_FORMAT);
		goto out;
	}
	if (!json_is_integer(ver) || json_integer_value(ver) < 1) {
		err = pmcfi_fail(PMCF_ESYNTAX, "plan: \"version\" must be a positive integer");
		goto out;
	}
	if (json_integer_value(ver) > PMCF_PLAN_VERSION) {
		err = pmcfi_fail(PMCF_EVERSION,
				 "plan version %lld is newer than this pmcfuse reads (%d); upgrade "
				 "pmcfuse",
				 (long long)json_integer_value(ver), PMCF_PLAN_VERSION);
		goto out;
	}
	if ((err = pmcfi_plan_new(&p)))
		goto out;
	json_t *sets = json_object_get(o, "sets"), *v;
	err = read_source(p, json_object_get(o, "source"));
	if (!err)
		err = read_fields(p, o);
	if (!err && (v = json_object_get(o, "events")))
		err = read_strv(v, "events", &p->events, &p->nevents);
	if (!err && (v = json_object_get(o, "link")))
		err = read_strv(v, "link", &p->link, &p->nlink);
	if (!err && (!json_is_array(sets) || !json_array_size(sets)))
		err = pmcfi_fail(PMCF_ESYNTAX, "plan: \"sets\" must be a non-empty array of event lists");
	size_t k;
	json_array_foreach(sets, k, v)
	{
		if (err)
			break;
		if (pmcfi_grow((void **)&p->sets, &p->capsets, p->nsets + 1, sizeof(*p->sets))) {
			err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
			break;
		}
		struct pmcfi_plan_set *ns = p->sets;
		ns[p->nsets] = (struct pmcfi_plan_set){NULL, 0, NULL, NULL};
		p->nsets++;
		char what[32];
		snprintf(what, sizeof(what), "sets[%zu]", k);
		err = read_strv(v, what, &ns[p->nsets - 1].names, &ns[p->nsets - 1].n);
		if (!err && !ns[p->nsets - 1].n)
			err = pmcfi_fail(PMCF_ESYNTAX, "plan: %s is empty", what);
	}
	if (!err)
		err = check_counts(p, o);
	if (!err && (v = json_object_get(o, "link_auto")))
		err = read_auto(p, v);
out:
	json_decref(o);
	if (err) {
		pmcf_plan_free(p);
		return err;
	}
	*out = p;
	return 0;
}

/* Larger than any plan: refused while it is read. */
#define PLAN_MAX_BYTES (16u << 20)

int pmcf_plan_from_json(const char *text, pmcf_plan **out)
{
	pmcfi_clear_error();
	*out = NULL;
	return from_text(text, NULL, out);
}

/* The whole of f into *text (NUL-terminated; free it): 0, PMCF_ESYNTAX past
 * PLAN_MAX_BYTES or with a NUL byte, -errno, or PMCF_ENOMEM. */
static int read_text(FILE *f, const char *path, char **text)
{
	size_t cap = 0, n = 0;
	char *t = NULL;
	*text = NULL;
	for (;;) {
		if (n + 1 >= cap && pmcfi_grow((void **)&t, &cap, cap ? cap + 1 : 65536, 1)) {
			free(t);
			return pmcfi_fail(PMCF_ENOMEM, "out of memory");
		}
		size_t got = fread(t + n, 1, cap - 1 - n, f);
		n += got;
		if (ferror(f)) {
			free(t);
			return pmcfi_fail(-EIO, "cannot read plan '%s': %s", path, strerror(errno));
		}
		if (n > PLAN_MAX_BYTES) {
			free(t);
			return pmcfi_fail(PMCF_ESYNTAX, "plan '%s' is larger than %u MiB: not a plan", path,
					  PLAN_MAX_BYTES >> 20);
		}
		if (got == 0 || feof(f))
			break;
	}
	t[n] = '\0';
	if (memchr(t, '\0', n)) {
		free(t);
		return pmcfi_fail(PMCF_ESYNTAX, "plan '%s' is not JSON (a NUL byte)", path);
	}
	*text = t;
	return 0;
}

int pmcf_plan_load(const char *path, pmcf_plan **out)
{
	pmcfi_clear_error();
	*out = NULL;
	FILE *f = fopen(path, "r");
	if (!f)
		return pmcfi_fail(-errno, "cannot read plan '%s': %s", path, strerror(errno));
	struct stat sb;
	char *text = NULL;
	int err = 0;
	if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode))
		err = pmcfi_fail(-EISDIR, "plan '%s' is a folder, not a plan file", path);
	else
		err = read_text(f, path, &text);
	fclose(f);
	if (err)
		return err;
	err = from_text(text, path, out);
	free(text);
	/* the messages about fields name the file */
	if (err && strncmp(pmcf_errdetail(), "plan '", 6) != 0)
		return pmcfi_fail_prefix(err, "%s", path);
	return err;
}

static int put_plan(FILE *f, void *text) { return fputs(text, f) == EOF ? -EIO : 0; }

int pmcf_plan_save(const pmcf_plan *p, const char *path)
{
	pmcfi_clear_error();
	if (!p || !path)
		return pmcfi_fail(PMCF_EINVAL, "pmcf_plan_save: no plan or path");
	char *text = NULL;
	int err = pmcf_plan_to_json(p, &text);
	if (!err)
		err = pmcfi_atomic_write(path, 0, put_plan, text);
	free(text);
	return err;
}
