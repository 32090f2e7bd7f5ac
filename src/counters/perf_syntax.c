/* perf's event syntax (tools/perf/util/parse-events.l, pmu.c): aliases,
 * modifiers, raw events and PMU terms encoded through sysfs format files. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <dirent.h>
#include <sys/stat.h>
#include "counters/perf_syntax.h"
#include "util/internal.h"

/* ---- aliases ---------------------------------------------------------------- */

/* perf's second names (`perf list`: "context-switches OR cs"). */
static const struct {
	const char *alias, *name;
} aliases[] = {
	{"cs", "context-switches"},
	{"faults", "page-faults"},
	{"migrations", "cpu-migrations"},
	{"cpu-cycles", "cycles"},
	{"branches", "branch-instructions"},
	{"idle-cycles-frontend", "stalled-cycles-frontend"},
	{"idle-cycles-backend", "stalled-cycles-backend"},
	{"L1-dcache-load", "L1-dcache-loads"},
	{"L1-dcache-store", "L1-dcache-stores"},
};

const char *pmcfi_perf_alias(const char *name)
{
	/* perf's names are case-sensitive: `perf stat -e CS` is a syntax error */
	for (size_t i = 0; i < PMCF_ARRAY_SIZE(aliases); i++)
		if (strcmp(name, aliases[i].alias) == 0)
			return aliases[i].name;
	return NULL;
}

/* perf's spellings of hardware cache events (parse-events.l lc_type and
 * lc_op_result, evsel.c's evsel__hw_cache tables): TYPE[-OP][-RESULT]. */
static const char *const cache_types[][5] = {
	{"L1-dcache", "L1-dcache", "l1-d", "l1d", "L1-data"},
	{"L1-icache", "L1-icache", "l1-i", "l1i", "L1-instruction"},
	{"LLC", "LLC", "L2", NULL, NULL},
	{"dTLB", "dTLB", "d-tlb", "Data-TLB", NULL},
	{"iTLB", "iTLB", "i-tlb", "Instruction-TLB", NULL},
	{"branch", "branch", "bpu", "btb", "bpc"},
	{"node", "node", NULL, NULL, NULL},
};
/* ops 0..2 (load, store, prefetch), results 3..4 (access, miss) */
static const struct {
	const char *name;
	int what;
} cache_words[] = {
	{"speculative-read", 2},
	{"speculative-load", 2},
	{"prefetches", 2},
	{"prefetch", 2},
	{"loads", 0},
	{"load", 0},
	{"read", 0},
	{"stores", 1},
	{"store", 1},
	{"write", 1},
	{"Reference", 3},
	{"refs", 3},
	{"ops", 3},
	{"access", 3},
	{"misses", 4},
	{"miss", 4},
};

const char *pmcfi_perf_cache_alias(const char *name, char *buf, size_t len)
{
	for (size_t t = 0; t < PMCF_ARRAY_SIZE(cache_types); t++)
		for (size_t a = 1; a < 5 && cache_types[t][a]; a++) {
			size_t tl = strlen(cache_types[t][a]);
			if (strncmp(name, cache_types[t][a], tl) != 0 || name[tl] != '-')
				continue;
			int op = -1, res = -1;
			const char *r = name + tl;
			for (int k = 0; k < 2 && *r == '-'; k++) {
				r++;
				size_t w = 0;
				while (w < PMCF_ARRAY_SIZE(cache_words)) {
					size_t wl = strlen(cache_words[w].name);
					if (strncmp(r, cache_words[w].name, wl) == 0 &&
					    (r[wl] == '\0' || r[wl] == '-'))
						break;
					w++;
				}
				if (w == PMCF_ARRAY_SIZE(cache_words))
					break;
				int what = cache_words[w].what;
				if ((what < 3 && op >= 0) || (what >= 3 && res >= 0))
					return NULL; /* two ops or two results: perf refuses */
				if (what < 3)
					op = what;
				else
					res = what;
				r += strlen(cache_words[w].name);
			}
			if (*r || (op < 0 && res < 0))
				continue;
			static const char *const ops[] = {"load", "store", "prefetch"};
			const char *o = ops[op < 0 ? 0 : op];
			if (res == 4)
				snprintf(buf, len, "%s-%s-misses", cache_types[t][0], o);
			else
				snprintf(buf, len, "%s-%s%s", cache_types[t][0], o, op == 2 ? "es" : "s");
			return strcmp(buf, name) == 0 ? NULL : buf;
		}
	return NULL;
}

/* ---- modifiers --------------------------------------------------------------- */

#define MOD_LETTERS "ukhGHIpPSDWeb"

int pmcfi_perf_mods_like(const char *s) { return *s && strspn(s, MOD_LETTERS) == strlen(s); }

int pmcfi_perf_mods_parse(const char *s, struct pmcfi_perf_mods *m)
{
	memset(m, 0, sizeof(*m));
	unsigned p = 0;
	for (const char *c = s; *c; c++) {
		/* perf's check_modifier: each letter once, but p (up to ppp) */
		if (*c != 'p' && strchr(MOD_LETTERS, *c) && strchr(c + 1, *c))
			return pmcfi_fail(PMCF_ESYNTAX,
					  "modifier '%c' twice in ':%s' (perf refuses it too: each "
					  "modifier once)",
					  *c, s);
		switch (*c) {
		case 'u': m->user = 1; break;
		case 'k': m->kernel = 1; break;
		case 'h': m->hv = 1; break;
		case 'G': m->guest = 1; break;
		case 'H': m->host = 1; break;
		case 'I': m->idle = 1; break;
		case 'D': m->pinned = 1; break;
		case 'P': m->max_precise = 1; break;
		case 'p':
			if (++p > 3)
				return pmcfi_fail(PMCF_ESYNTAX,
						  "modifier ':%s' asks for a precise level above ppp", s);
			break;
		case 'S':
		case 'W':
		case 'e':
		case 'b':
			return pmcfi_fail(PMCF_ESYNTAX,
					  "modifier '%c' of ':%s' is for sampling or perf's own grouping, "
					  "not counting (pmcfuse takes u, k, h, G, H, I, p, P and D)",
					  *c, s);
		default:
			return pmcfi_fail(PMCF_ESYNTAX,
					  "unknown modifier '%c' in ':%s' (pmcfuse takes u, k, h, G, H, "
					  "I, p, P and D)",
					  *c, s);
		}
	}
	m->precise = p & 3;
	return 0;
}

void pmcfi_perf_mods_apply(const struct pmcfi_perf_mods *m, struct perf_event_attr *a)
{
	if (m->user || m->kernel || m->hv) {
		a->exclude_user = !m->user;
		a->exclude_kernel = !m->kernel;
		a->exclude_hv = !m->hv;
	}
	if (m->guest || m->host) {
		a->exclude_guest = !m->guest;
		a->exclude_host = !m->host;
	}
	if (m->idle)
		a->exclude_idle = 1;
	if (m->pinned)
		a->pinned = 1;
	if (m->precise)
		a->precise_ip = m->precise;
	if (m->max_precise)
		a->precise_ip = 3;
}

/* ---- raw events -------------------------------------------------------------- */

/* Hex digits of any number (leading zeros too) whose value fits 64 bits,
 * as perf reads rNNN. */
static int parse_hex(const char *s, uint64_t *v)
{
	if (!*s)
		return 0;
	uint64_t x = 0;
	for (; *s; s++) {
		if (!isxdigit((unsigned char)*s) || x >> 60)
			return 0;
		x = x << 4 |
		    (uint64_t)(isdigit((unsigned char)*s) ? *s - '0' : tolower((unsigned char)*s) - 'a' + 10);
	}
	*v = x;
	return 1;
}

int pmcfi_perf_raw_parse(const char *name, uint64_t *config)
{
	return name[0] == 'r' && parse_hex(name + 1, config); /* perf: 'R01c2' is no raw event */
}

/* ---- PMU terms ----------------------------------------------------------------- */

int pmcfi_perf_pmu_like(const char *name)
{
	const char *a = strchr(name, '/');
	if (!a || a == name)
		return 0;
	const char *b = strchr(a + 1, '/');
	if (!b || strchr(b + 1, '/'))
		return 0;
	const char *mods = b[1] == ':' ? b + 2 : b + 1;
	return !*mods || pmcfi_perf_mods_like(mods);
}

int pmcfi_perf_pmu_counterless(const char *pmu)
{
	static const char *const names[] = {"software", "tracepoint", "msr", "kprobe", "uprobe"};
	for (size_t i = 0; i < PMCF_ARRAY_SIZE(names); i++)
		if (strcmp(pmu, names[i]) == 0)
			return 1;
	return 0;
}

static int core_pmu_name(const char *d)
{
	return strcmp(d, "cpu") == 0 || strcmp(d, "cpu_core") == 0 || strncmp(d, "armv8_", 6) == 0 ||
	       strncmp(d, "armv7_", 6) == 0;
}

/* The file of events/ under dir named name in any case: 1, copied to event. */
static int event_file(const char *dir, const char *name, char *event, size_t eventlen)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0;
	while (d && !found && (e = readdir(d)))
		if (strcasecmp(e->d_name, name) == 0 && strlen(e->d_name) < eventlen) {
			char path[1280];
			struct stat sb;
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode)) {
				snprintf(event, eventlen, "%s", e->d_name);
				found = 1;
			}
		}
	if (d)
		closedir(d);
	return found;
}

int pmcfi_perf_sysfs_event_pmu(const char *sysfs, const char *name, char *pmu, size_t pmulen, char *event,
			       size_t eventlen)
{
	static const char *const aux[] = {".scale", ".unit", ".per-pkg", ".snapshot"};
	size_t n = strlen(name);
	if (!n || n > 128 || name[0] == '.' || pmulen == 0)
		return 0;
	for (const char *s = name; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-' && *s != '.')
			return 0;
	for (size_t i = 0; i < PMCF_ARRAY_SIZE(aux); i++) {
		size_t m = strlen(aux[i]);
		if (n > m && strcmp(name + n - m, aux[i]) == 0)
			return 0;
	}
	if (!sysfs)
		sysfs = PMCFI_SYSFS_PMUS;
	struct dirent **ent = NULL;
	int ne = scandir(sysfs, &ent, NULL, alphasort), found = 0;
	for (int pass = 0; pass < 2 && !found; pass++)
		for (int i = 0; i < ne && !found; i++) {
			const char *d = ent[i]->d_name;
			if (d[0] == '.' || core_pmu_name(d) != !pass || strlen(d) >= pmulen)
				continue;
			char dir[1024];
			snprintf(dir, sizeof(dir), "%s/%s/events", sysfs, d);
			if (event_file(dir, name, event, eventlen)) {
				snprintf(pmu, pmulen, "%s", d);
				found = 1;
			}
		}
	for (int i = 0; i < ne; i++)
		free(ent[i]);
	free(ent);
	return found;
}

/* A format: up to 8 bit ranges of config (0), config1 (1) or config2 (2). */
struct format {
	int field;
	unsigned nr;
	unsigned lo[8], hi[8];
};

/* Parses "config1:0-7,21" into *f; 0 or -1. */
static int parse_format(const char *s, struct format *f)
{
	memset(f, 0, sizeof(*f));
	if (strncmp(s, "config", 6) != 0)
		return -1;
	s += 6;
	if (*s >= '1' && *s <= '2')
		f->field = *s++ - '0';
	if (*s++ != ':')
		return -1;
	while (*s && *s != '\n') {
		char *end;
		unsigned long lo = strtoul(s, &end, 10), hi = lo;
		if (end == s)
			return -1;
		s = end;
		if (*s == '-') {
			hi = strtoul(s + 1, &end, 10);
			if (end == s + 1)
				return -1;
			s = end;
		}
		if (lo > hi || hi > 63 || f->nr == 8)
			return -1;
		f->lo[f->nr] = (unsigned)lo;
		f->hi[f->nr++] = (unsigned)hi;
		if (*s == ',')
			s++;
	}
	return f->nr ? 0 : -1;
}

/* Spreads v over f's bit ranges, low bits first (perf's pmu_format_value).
 * 0, or -1 when v does not fit. */
static int put_format(const struct format *f, uint64_t v, struct perf_event_attr *a)
{
	__u64 *dst = f->field == 0 ? &a->config : f->field == 1 ? &a->config1 : &a->config2;
	unsigned used = 0;
	for (unsigned r = 0; r < f->nr; r++) {
		unsigned w = f->hi[r] - f->lo[r] + 1;
		uint64_t mask = w == 64 ? ~0ull : (1ull << w) - 1;
		uint64_t part = used >= 64 ? 0 : (v >> used) & mask;
		*dst = (*dst & ~(mask << f->lo[r])) | part << f->lo[r];
		used += w;
	}
	if (used < 64 && (v >> used) != 0)
		return -1;
	return 0;
}

static int read_small(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return 0;
}

static int parse_value(const char *s, uint64_t *v)
{
	if (!*s)
		return 0;
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 0);
	if (*end || errno || *s == '-')
		return 0;
	*v = x;
	return 1;
}

long pmcfi_perf_pmu_type(const char *sysfs, const char *pmu)
{
	char path[1024], buf[64];
	uint64_t type;
	snprintf(path, sizeof(path), "%s/%s/type", sysfs ? sysfs : PMCFI_SYSFS_PMUS, pmu);
	if (read_small(path, buf, sizeof(buf)) != 0 || !parse_value(buf, &type) || type > UINT32_MAX)
		return -1;
	return (long)type;
}

/* The architectural format of Intel and AMD core PMUs (sysfs cpu/format). */
static int builtin_cpu_format(const char *term, struct format *f)
{
#if defined(__x86_64__) || defined(__i386__)
	static const struct {
		const char *term, *fmt;
	} fmts[] = {{"event", "config:0-7"},  {"umask", "config:8-15"}, {"edge", "config:18"},
		    {"pc", "config:19"},      {"any", "config:21"},     {"inv", "config:23"},
		    {"cmask", "config:24-31"}};
	for (size_t i = 0; i < PMCF_ARRAY_SIZE(fmts); i++)
		if (strcmp(term, fmts[i].term) == 0)
			return parse_format(fmts[i].fmt, f);
#else
	(void)term;
	(void)f;
#endif
	return -1;
}

struct pmu_ctx {
	const char *sysfs, *pmu, *event; /* event: the whole name, for messages */
	int builtin;                     /* the architectural cpu format, no sysfs */
};

static int apply_terms(const struct pmu_ctx *x, char *terms, struct perf_event_attr *a, int depth);

/* One term "name[=value]" of x's PMU. */
static int apply_term(const struct pmu_ctx *x, char *term, struct perf_event_attr *a, int depth)
{
	char *eq = strchr(term, '=');
	uint64_t v = 1;
	if (eq) {
		*eq = '\0';
		/* name=TEXT: the name perf prints for the event; pmcfuse keeps
		 * the event under its spelling as written (nothing encoded) */
		if (!strcmp(term, "name") && depth == 0) {
			if (!eq[1])
				return pmcfi_fail(PMCF_ESYNTAX, "'%s': name= needs a name", x->event);
			return 0;
		}
		if (!parse_value(eq + 1, &v))
			return pmcfi_fail(PMCF_ESYNTAX,
					  "'%s': the value of term '%s' must be a number (got '%s')",
					  x->event, term, eq + 1);
	}
	if (!*term)
		return pmcfi_fail(PMCF_ESYNTAX, "'%s': an empty term", x->event);

	if (!strcmp(term, "config") || !strcmp(term, "config1") || !strcmp(term, "config2")) {
		__u64 *dst = term[6] == '\0' ? &a->config : term[6] == '1' ? &a->config1 : &a->config2;
		*dst = v;
		return 0;
	}
	char path[1024], buf[512];
	struct format f;
	if (x->builtin) {
		if (builtin_cpu_format(term, &f) == 0) {
			if (put_format(&f, v, a) != 0)
				return pmcfi_fail(PMCF_ESYNTAX, "'%s': %s=%#" PRIx64 " is too wide", x->event,
						  term, v);
			return 0;
		}
		return pmcfi_fail(PMCF_ESYNTAX,
				  "'%s': unknown term '%s' (this machine exposes no 'cpu' PMU; its "
				  "architectural terms are event, umask, edge, pc, any, inv, cmask, "
				  "config, config1, config2)",
				  x->event, term);
	}
	snprintf(path, sizeof(path), "%s/%s/format/%s", x->sysfs, x->pmu, term);
	if (read_small(path, buf, sizeof(buf)) == 0) {
		if (parse_format(buf, &f) != 0)
			return pmcfi_fail(PMCF_ESYNTAX, "'%s': cannot read the format of term '%s' (%s)",
					  x->event, term, buf);
		if (put_format(&f, v, a) != 0)
			return pmcfi_fail(PMCF_ESYNTAX, "'%s': %s=%#" PRIx64 " is wider than its bits (%s)",
					  x->event, term, v, buf);
		return 0;
	}
	snprintf(path, sizeof(path), "%s/%s/events/%s", x->sysfs, x->pmu, term);
	if (!eq && depth == 0 && read_small(path, buf, sizeof(buf)) == 0) {
		if (strchr(buf, '?'))
			return pmcfi_fail(PMCF_ESYNTAX,
					  "'%s': event '%s' of PMU '%s' needs a value for its terms "
					  "(%s)",
					  x->event, term, x->pmu, buf);
		return apply_terms(x, buf, a, depth + 1);
	}
	/* perf's terms for sampling and recording, not encodings */
	static const char *const sampling[] = {"period",       "freq",       "call-graph",      "stack-size",
					       "max-stack",    "inherit",    "no-inherit",      "overwrite",
					       "no-overwrite", "aux-output", "aux-sample-size", "percore",
					       "branch_type",  "time",       "metric-id"};
	for (size_t i = 0; i < PMCF_ARRAY_SIZE(sampling); i++)
		if (!strcmp(term, sampling[i]))
			return pmcfi_fail(PMCF_ESYNTAX,
					  "'%s': '%s' is one of perf's terms for sampling or recording, "
					  "not an encoding: pmcfuse counts (leave it out; name=… is kept)",
					  x->event, term);
	return pmcfi_fail(PMCF_ESYNTAX,
			  "'%s': PMU '%s' has no term or event '%s' (see %s/%s/format and "
			  "events)",
			  x->event, x->pmu, term, x->sysfs, x->pmu);
}

static int apply_terms(const struct pmu_ctx *x, char *terms, struct perf_event_attr *a, int depth)
{
	char *save = NULL;
	for (char *t = strtok_r(terms, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		while (isspace((unsigned char)*t))
			t++;
		char *end = t + strlen(t);
		while (end > t && isspace((unsigned char)end[-1]))
			*--end = '\0';
		int err = apply_term(x, t, a, depth);
		if (err)
			return err;
	}
	return 0;
}

int pmcfi_perf_pmu_encode(const char *sysfs, const char *name, struct perf_event_attr *attr,
			  struct pmcfi_perf_mods *mods, char *pmu, size_t pmulen)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	memset(mods, 0, sizeof(*mods));
	if (!sysfs)
		sysfs = PMCFI_SYSFS_PMUS;
	if (!pmcfi_perf_pmu_like(name))
		return pmcfi_fail(PMCF_ESYNTAX, "'%s' is not a PMU event (pmu/terms/)", name);
	const char *a = strchr(name, '/'), *b = strchr(a + 1, '/');
	size_t plen = (size_t)(a - name);
	if (plen >= pmulen || plen >= 64)
		return pmcfi_fail(PMCF_ESYNTAX, "'%s': the PMU name is too long", name);
	memcpy(pmu, name, plen);
	pmu[plen] = '\0';
	if (strchr(pmu, '.') || strchr(pmu, ' '))
		return pmcfi_fail(PMCF_ESYNTAX, "'%s': '%s' is no PMU name", name, pmu);
	const char *ms = b[1] == ':' ? b + 2 : b + 1;
	int err = *ms ? pmcfi_perf_mods_parse(ms, mods) : 0;
	if (err)
		return err;
	size_t tlen = (size_t)(b - a - 1);
	char *terms = malloc(tlen + 1);
	if (!terms)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	memcpy(terms, a + 1, tlen);
	terms[tlen] = '\0';

	struct pmu_ctx x = {sysfs, pmu, name, 0};
	long type = pmcfi_perf_pmu_type(sysfs, pmu);
	if (type >= 0) {
		attr->type = (uint32_t)type;
	} else if (strcmp(pmu, "cpu") == 0 && builtin_cpu_format("event", &(struct format){0}) == 0) {
		attr->type = PERF_TYPE_RAW; /* planned here, refused when opened */
		x.builtin = 1;
	} else {
		free(terms);
		return pmcfi_fail(PMCF_ENOENT,
				  "'%s': this machine has no PMU '%s' (the PMUs are the folders of %s)", name,
				  pmu, sysfs);
	}
	if (!tlen)
		err = pmcfi_fail(PMCF_ESYNTAX, "'%s': no terms between the slashes", name);
	else
		err = apply_terms(&x, terms, attr, 0);
	free(terms);
	return err;
}
