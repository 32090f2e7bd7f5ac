/* The reference mix: callgrind's per-instruction Ir (--dump-instr=yes) on
 * the static images. Rep-prefixed string instructions count once per
 * execution (callgrind counts every iteration), taken from a neighbour in the
 * same basic block; valgrind's own preload objects are left out. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "hbbp/hbbp_impl.h"
#include "util/abi.h"
#include "util/internal.h"

#define MAX_NAME_ID (1u << 24)

struct names {
	char **v;
	size_t n, cap; /* v[0..n): the name of id i, or NULL */
};

static void names_free(struct names *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i]);
	free(t->v);
}

/* "(id) name", "(id)" or "name"; returns the name (owned by t or by line). */
static const char *compressed(struct names *t, char *s, int *err)
{
	while (*s == ' ')
		s++;
	if (*s != '(')
		return s;
	char *end = NULL;
	unsigned long id = strtoul(s + 1, &end, 10);
	if (!end || *end != ')' || id >= MAX_NAME_ID) {
		*err = 1;
		return NULL;
	}
	char *rest = end + 1;
	while (*rest == ' ')
		rest++;
	if (id >= t->n) {
		if (pmcfi_grow((void **)&t->v, &t->cap, id + 1, sizeof(*t->v))) {
			*err = 2;
			return NULL;
		}
		memset(t->v + t->n, 0, (id + 1 - t->n) * sizeof(*t->v));
		t->n = id + 1;
	}
	if (*rest) {
		free(t->v[id]);
		t->v[id] = strdup(rest);
		if (!t->v[id]) {
			*err = 2;
			return NULL;
		}
	}
	return t->v[id] ? t->v[id] : "";
}

/* One subposition: absolute (0x.. or decimal), +N/-N relative, or '*'. */
static int subpos(char **p, uint64_t last, uint64_t *out)
{
	char *s = *p, *end = NULL;
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '*') {
		*out = last;
		*p = s + 1;
		return 0;
	}
	if (*s == '+' || *s == '-') {
		unsigned long long v = strtoull(s + 1, &end, 0);
		if (end == s + 1)
			return -1;
		*out = *s == '+' ? last + v : last - v;
	} else {
		unsigned long long v = strtoull(s, &end, 0);
		if (end == s)
			return -1;
		*out = v;
	}
	if (*end && *end != ' ' && *end != '\t')
		return -1;
	*p = end;
	return 0;
}

static double ref_choose(void *ctx, const struct pmcfi_hbbp_func *f, size_t b, int *src, double *ebs,
			 double *lbr, int *bias)
{
	(void)ctx;
	const struct pmcfi_hbbp_block *bl = &f->blocks[b];
	*src = PMCF_IMIX_SRC_REF;
	*ebs = *lbr = 0;
	*bias = 0;
	for (uint32_t k = 0; k < bl->n; k++)
		if (!(f->ins[bl->first + k].flags & INS_REP))
			return f->ref[bl->first + k];
	return f->ref[bl->first];
}

/* Rep-prefixed instructions: executions = the count of a neighbour in the
 * same block (previous first), not the iterations callgrind reports. */
static void fix_rep(pmcf_imix *m)
{
	for (size_t ii = 0; ii < m->nimages; ii++)
		for (size_t fi = 0; fi < m->images[ii]->nfuncs; fi++) {
			struct pmcfi_hbbp_func *f = &m->images[ii]->funcs[fi];
			if (f->decoded <= 0)
				continue;
			for (size_t i = 0; i < f->nins; i++) {
				if (!(f->ins[i].flags & INS_REP) || f->ref[i] <= 0)
					continue;
				uint32_t b = f->ins[i].block;
				if (i > 0 && f->ins[i - 1].block == b && !(f->ins[i - 1].flags & INS_REP) &&
				    f->ref[i - 1] > 0)
					f->ref[i] = f->ref[i - 1];
				else if (i + 1 < f->nins && f->ins[i + 1].block == b &&
					 !(f->ins[i + 1].flags & INS_REP) && f->ref[i + 1] > 0)
					f->ref[i] = f->ref[i + 1];
			}
		}
}

/* A call from a known object into a PLT stub: callgrind (with --skip-plt=no)
 * puts the stub's own instructions in an object "???" at run-time addresses,
 * which match nothing here; the call site (a direct call, e8 rel32, at a
 * link-time address) names the stub, whose first block (to its jump) runs
 * once per call. */
static void add_plt_call(struct pmcfi_hbbp_image *im, uint64_t site, double calls)
{
	struct pmcfi_hbbp_func *f = pmcfi_hbbp_image_func(im, site);
	long i = f ? pmcfi_hbbp_func_ins(f, site) : -1;
	if (i < 0 || f->ins[i].addr != site || f->ins[i].len != 5 || f->bytes[site - f->start] != 0xe8)
		return;
	int32_t rel;
	memcpy(&rel, f->bytes + (site - f->start) + 1, 4);
	uint64_t t = site + 5 + (uint64_t)(int64_t)rel;
	struct pmcfi_hbbp_func *g = pmcfi_hbbp_image_func(im, t);
	long k = g ? pmcfi_hbbp_func_ins(g, t) : -1;
	if (k < 0 || g->ins[k].addr != t)
		return;
	for (size_t j = (size_t)k; j < g->nins; j++) {
		g->ref[j] += calls;
		if (g->ins[j].flags & INS_CF)
			break;
	}
}

/* The state of one callgrind file's parse. */
struct cg_parse {
	const char *path;
	unsigned long lineno;
	pmcf_imix *m;
	struct names obs, other, fns;
	int cfn_plt, plt_call; /* the last cfn= is a PLT entry; the call below is one */
	double ncalls;
	int instr_pos, npos, ir_col, seen_header, skip_next;
	uint64_t last[8];
	struct pmcfi_hbbp_image *im;
	int skip_obj;
	uint64_t unmatched;
};

/* A line of the format's own (positions:, events:, ob=, calls=, fn=, other
 * name=): read into c; *done says it was one. */
static int spec_line(struct cg_parse *c, char *line, int *done)
{
	int err = 0;
	*done = 1;
	if (!strncmp(line, "positions:", 10)) {
		c->npos = 0;
		c->instr_pos = -1;
		for (char *tok = strtok(line + 10, " \t"); tok; tok = strtok(NULL, " \t")) {
			if (!strcmp(tok, "instr"))
				c->instr_pos = c->npos;
			if (c->npos < 8)
				c->npos++;
		}
		return 0;
	}
	if (!strncmp(line, "events:", 7)) {
		int k = 0;
		c->ir_col = -1;
		for (char *tok = strtok(line + 7, " \t"); tok; tok = strtok(NULL, " \t"), k++)
			if (!strcmp(tok, "Ir"))
				c->ir_col = k;
		c->seen_header = 1;
		return 0;
	}
	if (!strncmp(line, "ob=", 3) || !strncmp(line, "cob=", 4)) {
		const char *nm = compressed(&c->obs, line + (line[0] == 'c' ? 4 : 3), &err);
		if (err)
			return err == 2 ? pmcfi_fail(PMCF_ENOMEM, "out of memory")
					: pmcfi_fail(PMCF_ESYNTAX, "%s:%lu: bad name", c->path, c->lineno);
		if (line[0] == 'o') {
			c->skip_obj = !nm[0] || nm[0] != '/' || strstr(nm, "/valgrind/") != NULL;
			c->im = c->skip_obj ? NULL : pmcfi_hbbp_mix_image(c->m, nm);
		}
		return 0;
	}
	if (!strncmp(line, "calls=", 6)) {
		c->skip_next = 1;
		c->ncalls = strtod(line + 6, NULL);
		c->plt_call = c->cfn_plt;
		return 0;
	}
	if (!strncmp(line, "cfn=", 4) || !strncmp(line, "fn=", 3)) {
		const char *nm = compressed(&c->fns, line + (line[0] == 'c' ? 4 : 3), &err);
		if (line[0] == 'c')
			c->cfn_plt = nm && strstr(nm, "[PLT]") != NULL;
		return err == 2 ? pmcfi_fail(PMCF_ENOMEM, "out of memory") : 0;
	}
	if (strchr(line, '=')) {
		char *eq = strchr(line, '=');
		if (eq[1] == '(' && (line[0] == 'f' || line[0] == 'c'))
			compressed(&c->other, eq + 1, &err);
		return err == 2 ? pmcfi_fail(PMCF_ENOMEM, "out of memory") : 0;
	}
	*done = 0;
	return 0;
}

/* A cost line: its positions (relative to the last ones) and its Ir cost,
 * added to the instruction's reference count (a call's inclusive cost is
 * left out, save a PLT entry's calls). */
static int cost_line(struct cg_parse *c, char *line)
{
	if (!c->seen_header || c->instr_pos < 0)
		return pmcfi_fail(PMCF_ESYNTAX,
				  "%s: not a callgrind output written with "
				  "--dump-instr=yes (no 'positions: instr')",
				  c->path);
	char *p = line;
	uint64_t pos[8];
	for (int k = 0; k < c->npos; k++)
		if (subpos(&p, c->last[k], &pos[k]) != 0)
			return pmcfi_fail(PMCF_ESYNTAX, "%s:%lu: bad position", c->path, c->lineno);
	memcpy(c->last, pos, sizeof(pos));
	double ir = 0;
	for (int k = 0; k <= c->ir_col; k++) {
		char *end = NULL;
		unsigned long long v = strtoull(p, &end, 10);
		if (end == p) {
			while (*p == ' ' || *p == '\t')
				p++;
			if (*p)
				return pmcfi_fail(PMCF_ESYNTAX, "%s:%lu: bad cost", c->path, c->lineno);
			v = 0; /* trailing zero costs may be left out */
			end = p;
		}
		p = end;
		if (k == c->ir_col)
			ir = (double)v;
	}
	uint64_t at = pos[c->instr_pos];
	if (c->skip_next) {
		c->skip_next = 0; /* inclusive cost of a call */
		if (c->plt_call && !c->skip_obj && c->im && c->ncalls > 0)
			add_plt_call(c->im, at, c->ncalls);
		c->plt_call = 0;
		return 0;
	}
	if (c->skip_obj || !c->im || ir <= 0)
		return 0;
	struct pmcfi_hbbp_func *f = pmcfi_hbbp_image_func(c->im, at);
	long i = f ? pmcfi_hbbp_func_ins(f, at) : -1;
	if (i < 0 || f->ins[i].addr != at) {
		c->unmatched++;
		return 0;
	}
	f->ref[i] += ir;
	return 0;
}

int pmcf_imix_from_callgrind(const char *path, const pmcf_imix_opts *opts, pmcf_imix **out)
{
	pmcfi_clear_error();
	*out = NULL;
	pmcf_imix_opts o = {0};
	int rc = pmcfi_struct_in("pmcf_imix_opts", &o, opts, offsetof(pmcf_imix_opts, llvm_mca), sizeof(o));
	if (rc)
		return rc;
	FILE *fp = fopen(path, "re");
	if (!fp)
		return pmcfi_fail(-errno, "cannot open %s: %s", path, strerror(errno));
	struct cg_parse c = {.path = path, .instr_pos = -1, .ir_col = -1};
	rc = pmcfi_hbbp_mix_new(&o, &c.m);
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	while (!rc && (len = getline(&line, &cap, fp)) >= 0) {
		c.lineno++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		if (!len || line[0] == '#')
			continue;
		int done = 0;
		rc = spec_line(&c, line, &done);
		if (rc || done)
			continue;
		char c0 = line[0];
		if (!(c0 == '+' || c0 == '-' || c0 == '*' || (c0 >= '0' && c0 <= '9')))
			continue; /* header lines: version:, cmd:, summary:, totals:, ... */
		rc = cost_line(&c, line);
	}
	free(line);
	fclose(fp);
	names_free(&c.obs);
	names_free(&c.other);
	names_free(&c.fns);
	pmcf_imix *m = c.m;
	if (!rc && !c.seen_header)
		rc = pmcfi_fail(PMCF_ESYNTAX, "%s: not a callgrind output (no 'events:' line)", path);
	if (!rc) {
		if (c.unmatched)
			pmcfi_log(PMCF_LOG_WARN, "imix: %llu callgrind cost lines matched no instruction",
				  (unsigned long long)c.unmatched);
		fix_rep(m);
		rc = pmcfi_hbbp_mix_emit(m, ref_choose, NULL, 1);
	}
	if (rc) {
		pmcf_imix_free(m);
		return rc;
	}
	*out = m;
	return 0;
}
