/* plan.json: the versioned, readable form of a plan, written by `plan` and
 * read by `record --plan plan.json --set K` (format in docs/fusion.md). */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "combine/combine_impl.h"
#include "plan/plan_impl.h"
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
	json_object_set_new(o, "seed", json_integer((json_int_t)p->seed));
	json_object_set_new(o, "events", strv(p->events, p->nevents));
	json_object_set_new(o, "link", strv(p->link, p->nlink));
	json_object_set_new(o, "executions", json_integer((json_int_t)p->nsets));
	json_object_set_new(o, "lower_bound", json_integer(p->lower_bound));
	json_object_set_new(o, "optimal", json_boolean(p->optimal));
	for (size_t k = 0; k < p->nsets; k++)
		json_array_append_new(sets, strv(p->sets[k].names, p->sets[k].n));
	json_object_set_new(o, "sets", sets);
	char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (!s)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	size_t n = strlen(s);
	*text = malloc(n + 2);
	if (!*text) {
		free(s);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	}
	memcpy(*text, s, n);
	(*text)[n] = '\n';
	(*text)[n + 1] = '\0';
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
		err = plani_strv_push(arr, len, (const char *const *)&s, 1);
		free(s);
		if (err)
			return err;
	}
	return 0;
}

int pmcf_plan_from_json(const char *text, pmcf_plan **out)
{
	pmcfi_clear_error();
	*out = NULL;
	json_error_t je;
	json_t *o = json_loads(text, 0, &je);
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
	if ((err = plani_new(&p)))
		goto out;
	json_t *src = json_object_get(o, "source"), *sets = json_object_get(o, "sets");
	const char *sim = json_string_value(json_object_get(src, "sim"));
	json_t *progv = json_object_get(src, "program");
	if (sim)
		err = pmcf_plan_set_sim(p, sim);
	else if (progv) {
		char *prog;
		err = pmcfi_json_bytes_get(progv, &prog);
		if (err == PMCF_ESYNTAX)
			err = pmcfi_fail(err, "plan: \"source.program\" must be a string (or {\"base64\": \"...\"})");
		else if (err)
			err = pmcfi_fail(err, "out of memory");
		else
			err = plani_strv_push(&p->argv, &p->argc, (const char *const *)&prog, 1);
		free(prog);
		json_t *args = json_object_get(src, "args");
		if (!err && args)
			err = read_strv(args, "source.args", &p->argv, &p->argc);
	}
	const char *st = json_string_value(json_object_get(o, "strategy"));
	if (!err && st) {
		int s = pmcf_strategy_parse(st);
		if (s < 0)
			err = pmcfi_fail(PMCF_ESYNTAX, "plan: unknown strategy '%s'", st);
		else
			p->strategy = s;
	}
	const char *pk = json_string_value(json_object_get(o, "packing"));
	p->packing = pk && strcmp(pk, "greedy") == 0 ? PMCF_PACK_GREEDY : PMCF_PACK_BEST;
	json_t *v;
	if ((v = json_object_get(o, "pmcs")) && json_is_integer(v) && json_integer_value(v) >= 0)
		p->pmcs = (unsigned)json_integer_value(v);
	if ((v = json_object_get(o, "seed")) && json_is_integer(v))
		p->seed = (uint64_t)json_integer_value(v);
	if ((v = json_object_get(o, "lower_bound")) && json_is_integer(v))
		p->lower_bound = (unsigned)json_integer_value(v);
	p->optimal = json_is_true(json_object_get(o, "optimal"));
	const char *cat = json_string_value(json_object_get(o, "catalog"));
	if (!err && !(p->catalog = strdup(cat ? cat : "")))
		err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
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
		struct plan_set *ns = realloc(p->sets, (p->nsets + 1) * sizeof(*ns));
		if (!ns) {
			err = pmcfi_fail(PMCF_ENOMEM, "out of memory");
			break;
		}
		p->sets = ns;
		ns[p->nsets] = (struct plan_set){NULL, 0};
		p->nsets++;
		char what[32];
		snprintf(what, sizeof(what), "sets[%zu]", k);
		err = read_strv(v, what, &ns[p->nsets - 1].names, &ns[p->nsets - 1].n);
		if (!err && !ns[p->nsets - 1].n)
			err = pmcfi_fail(PMCF_ESYNTAX, "plan: %s is empty", what);
	}
out:
	json_decref(o);
	if (err) {
		pmcf_plan_free(p);
		return err;
	}
	*out = p;
	return 0;
}

int pmcf_plan_load(const char *path, pmcf_plan **out)
{
	pmcfi_clear_error();
	*out = NULL;
	json_error_t je;
	FILE *f = fopen(path, "r");
	if (!f)
		return pmcfi_fail(-errno, "cannot read plan '%s': %s", path, strerror(errno));
	json_t *o = json_loadf(f, 0, &je);
	fclose(f);
	if (!o)
		return pmcfi_fail(PMCF_ESYNTAX, "plan '%s' is not JSON (line %d: %s)", path, je.line,
				  je.text);
	char *s = json_dumps(o, 0);
	json_decref(o);
	if (!s)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	int err = pmcf_plan_from_json(s, out);
	free(s);
	if (err)
		return pmcfi_fail_prefix(err, "%s", path);
	return 0;
}
