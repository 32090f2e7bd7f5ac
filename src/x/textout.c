/* Numbers, JSON strings and typed metadata as pmcfuse writes them
 * (x/textout.h): compiled into the library and into the command. Only the
 * public API is used here. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "x/x.h"
#include "x/textout.h"

void PMCFI_TEXTOUT(json_string)(FILE *f, const char *s)
{
	/* jansson's escaping; bytes that are not UTF-8 as {"base64": ...}, the
	 * rule of plans and metadata (util/json_bytes.h) */
	json_t *v = PMCFI_TEXTOUT(jstr)(s);
	if (!v || json_dumpf(v, f, JSON_ENCODE_ANY) != 0)
		fputs("null", f); /* out of memory: still valid JSON */
	json_decref(v);
}

json_t *PMCFI_TEXTOUT(jstr)(const char *s)
{
	s = s ? s : "";
	if (pmcfi_utf8_valid(s))
		return json_string(s);
	size_t n = strlen(s);
	char *enc = malloc(PMCFI_BASE64_LEN(n) + 1);
	if (!enc)
		return NULL;
	pmcfi_base64(s, enc);
	json_t *j = json_pack("{s:s}", "base64", enc);
	free(enc);
	return j;
}

json_t *PMCFI_TEXTOUT(jnum)(double v)
{
	if (pmcf_is_missing(v))
		return json_null();
	if (isinf(v))
		return json_string(v > 0 ? "inf" : "-inf");
	if (v == floor(v) && fabs(v) < 9007199254740992.0) /* 2^53: exact as an integer */
		return json_integer((json_int_t)v);
	return json_real(v);
}

/* A metadata value as JSON of its type (docs/profile-format.md, "JSON
 * output"): "args" and "inputs" the JSON array they hold, "omp_env" the
 * object it holds, "complete" and
 * "multiplexed" booleans, the numeric keys a number when the value is one
 * ("exit_status" may be "signal N"), everything else a string. Seeds stay
 * strings: a 64-bit seed does not survive JSON readers' doubles. */
static json_t *meta_value(const char *k, const char *v)
{
	static const char *const arrays[] = {PMCF_META_ARGS, "inputs", "omp_env"}; /* JSON they hold */
	static const char *const bools[] = {PMCF_META_COMPLETE, "multiplexed"};
	static const char *const numeric[] = {PMCF_META_PMCS,     PMCF_META_PERIOD_MS,  PMCF_META_EXIT_STATUS,
					      PMCF_META_PLAN_SET, PMCF_META_PLAN_SETS,  "threads",
					      "makespan_ns",      PMCF_META_CPU_TIME_NS};
	for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++)
		if (strcmp(k, arrays[i]) == 0) {
			json_t *j = json_loads(v, JSON_REJECT_DUPLICATES, NULL);
			if (i < 2 ? json_is_array(j) : json_is_object(j))
				return j;
			json_decref(j);
		}
	for (size_t i = 0; i < sizeof(bools) / sizeof(bools[0]); i++)
		if (strcmp(k, bools[i]) == 0 && (!strcmp(v, "0") || !strcmp(v, "1")))
			return json_boolean(*v == '1');
	for (size_t i = 0; i < sizeof(numeric) / sizeof(numeric[0]); i++) {
		char *end;
		double d = strcmp(k, numeric[i]) == 0 && *v ? strtod(v, &end) : NAN;
		if (!pmcf_is_missing(d) && !*end && isfinite(d))
			return PMCFI_TEXTOUT(jnum)(d);
	}
	return PMCFI_TEXTOUT(jstr)(v);
}

json_t *PMCFI_TEXTOUT(meta_json)(const pmcf_profile *p)
{
	json_t *m = json_object();
	for (size_t i = 0; m && i < pmcf_profile_meta_count(p); i++) {
		const char *k, *v;
		pmcf_profile_meta_at(p, i, &k, &v);
		/* a key that is not UTF-8 (none the tool writes) keeps its bytes in the value */
		json_t *val = meta_value(k, v);
		if (!val || json_object_set_new(m, pmcfi_utf8_valid(k) ? k : "?", val) != 0) {
			json_decref(m);
			return NULL;
		}
	}
	return m;
}

void PMCFI_TEXTOUT(put_number)(FILE *f, double v)
{
	char buf[40];
	if (v == floor(v) && fabs(v) < 1e15) {
		fprintf(f, "%.0f", v);
		return;
	}
	snprintf(buf, sizeof(buf), "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, sizeof(buf), "%.17g", v);
	fputs(buf, f);
}

void PMCFI_TEXTOUT(json_number)(FILE *f, double v)
{
	if (pmcf_is_missing(v))
		fputs("null", f);
	else if (isinf(v))
		fputs(v > 0 ? "\"inf\"" : "\"-inf\"", f);
	else
		PMCFI_TEXTOUT(put_number)(f, v);
}
