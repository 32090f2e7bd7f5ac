/* Names of OpenMP XU types from the debug info: the function a task
 * construct calls (from the outlined task's DWARF: its inlined callees and
 * call sites), and the function enclosing a code address (DWARF scopes, else
 * the ELF symbol table). The reader (reader.c) falls back to the source file
 * only when the debug info has no answer. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "collect/typename.h"
#include "util/abi.h"

/* One task construct of a module: its outlined entry's declaration (the
 * pragma's file and line) and the function its block calls. */
struct taskent {
	char *file;
	unsigned line;
	uint64_t lowpc; /* the entry function's address, 0 unknown */
	int single;     /* the block is that one call */
	char callee[128];
};

struct pmcfi_taskents {
	struct taskent *e;
	size_t n, cap;
};

/* Called from task bodies but never what a task "is": the OpenMP runtime,
 * compiler helpers. */
static int is_runtime(const char *s)
{
	return s[0] == '.' || strncmp(s, "__kmp", 5) == 0 || strncmp(s, "omp_", 4) == 0 ||
	       strncmp(s, "__builtin", 9) == 0 || strncmp(s, "llvm.", 5) == 0 ||
	       strncmp(s, "__cxa_", 6) == 0 || strncmp(s, "__assert", 8) == 0;
}

int pmcfi_name_incidental(const char *s)
{
	static const char *const lib[] =
		{"malloc",   "calloc",       "realloc",         "free",    "aligned_alloc", "posix_memalign",
		 "memalign", "valloc",       "alloca",          "memcpy",  "memmove",       "memset",
		 "memcmp",   "strlen",       "strcpy",          "strncpy", "strcmp",        "strncmp",
		 "strdup",   "printf",       "fprintf",         "sprintf", "snprintf",      "puts",
		 "putchar",  "fputs",        "fwrite",          "fread",   "fflush",        "abort",
		 "exit",     "perror",       "_Znwm",           "_Znam",   "_ZdlPv",        "_ZdaPv",
		 "_ZdlPvm",  "operator new", "operator delete", "mmap",    "munmap",        "rand",
		 "srand",    "rand_r"};
	for (size_t i = 0; i < sizeof(lib) / sizeof(lib[0]); i++)
		if (strcmp(s, lib[i]) == 0)
			return 1;
	return 0;
}

static const char *origin_name(Dwarf_Die *die, unsigned attr, Dwarf_Die *origin)
{
	Dwarf_Attribute at;
	if (!dwarf_attr_integrate(die, attr, &at) || !dwarf_formref_die(&at, origin))
		return NULL;
	return dwarf_diename(origin);
}

struct pick {
	char first[128];  /* first program function called */
	char backup[128]; /* first incidental library call */
	int calls;        /* calls seen (program and library), up to 2 */
	/* the inlined callees counted: a call site inside one of them is that
	 * callee's own call (clang puts them in the outer function's scope) */
	Dwarf_Die inl[16];
	int ninl;
};

/* 1 when the call site die is inside an inlined callee counted already. */
static int in_counted(struct pick *p, Dwarf_Die *die)
{
	Dwarf_Attribute at;
	Dwarf_Addr pc;
	if ((!dwarf_attr(die, DW_AT_call_return_pc, &at) && !dwarf_attr(die, DW_AT_low_pc, &at)) ||
	    dwarf_formaddr(&at, &pc) != 0 || pc == 0)
		return 0;
	for (int i = 0; i < p->ninl; i++)
		if (dwarf_haspc(&p->inl[i], pc - 1) > 0)
			return 1;
	return 0;
}

static void consider(struct pick *p, const char *name)
{
	if (!name || !*name || is_runtime(name))
		return;
	p->calls++;
	if (pmcfi_name_incidental(name)) {
		if (!p->backup[0])
			snprintf(p->backup, sizeof(p->backup), "%s", name);
	} else if (!p->first[0])
		snprintf(p->first, sizeof(p->first), "%s", name);
}

/* Depth-first through the DIEs under die, in order: inlined subroutines and
 * call sites name callees; an artificial outlined function (".omp_outlined.",
 * called or inlined) is walked into. */
static void walk(Dwarf_Die *die, struct pick *p, int depth)
{
	Dwarf_Die child;
	if (depth > 6 || p->calls > 1 || dwarf_child(die, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		Dwarf_Die origin;
		const char *name = NULL;
		if (tag == DW_TAG_inlined_subroutine) {
			name = origin_name(&child, DW_AT_abstract_origin, &origin);
			if (name && name[0] == '.')
				walk(&child, p, depth + 1);
			else {
				consider(p, name);
				if (p->ninl < (int)(sizeof(p->inl) / sizeof(p->inl[0])))
					p->inl[p->ninl++] = child;
			}
		} else if ((tag == DW_TAG_call_site || tag == DW_TAG_GNU_call_site) &&
			   !in_counted(p, &child)) {
			name = origin_name(&child, DW_AT_call_origin, &origin);
			if (!name)
				name = origin_name(&child, DW_AT_abstract_origin, &origin);
			if (name && name[0] == '.')
				walk(&origin, p, depth + 1);
			else
				consider(p, name);
		} else if (tag == DW_TAG_lexical_block) {
			walk(&child, p, depth + 1);
		}
		if (p->calls > 1)
			return;
	} while (dwarf_siblingof(&child, &child) == 0);
}

static int add(struct pmcfi_taskents *t, const char *file, unsigned line, uint64_t lowpc, const char *callee,
	       int single)
{
	if (pmcfi_grow((void **)&t->e, &t->cap, t->n + 1, sizeof(*t->e)))
		return -1;
	struct taskent *e = &t->e[t->n];
	if (!(e->file = strdup(file)))
		return -1;
	e->line = line;
	e->lowpc = lowpc;
	e->single = single;
	snprintf(e->callee, sizeof(e->callee), "%s", callee);
	t->n++;
	return 0;
}

int pmcfi_taskents_load(Dwarf *dw, struct pmcfi_taskents **out)
{
	struct pmcfi_taskents *t = calloc(1, sizeof(*t));
	*out = NULL;
	if (!t)
		return -1;
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dw && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, die;
		if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_child(&cu, &die) == 0) {
			do {
				if (dwarf_tag(&die) != DW_TAG_subprogram)
					continue;
				Dwarf_Attribute at;
				const char *nm = dwarf_formstring(dwarf_attr(&die, DW_AT_linkage_name, &at));
				if (!nm)
					nm = dwarf_diename(&die);
				int line = 0;
				if (!nm || strncmp(nm, ".omp_task_entry.", 16) != 0 ||
				    dwarf_decl_line(&die, &line) != 0 || line <= 0)
					continue;
				/* elfutils 0.188 answers NULL for DWARF 5's file 0, the
				 * CU's primary file */
				const char *file = dwarf_decl_file(&die);
				if (!file)
					file = dwarf_diename(&cu);
				if (!file)
					continue;
				/* a relative name is relative to the unit's directory (the
				 * source fallback opens it) */
				char full[1024];
				const char *dir = dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &at));
				if (file[0] != '/' && dir && *dir) {
					snprintf(full, sizeof(full), "%s/%s", dir, file);
					file = full;
				}
				struct pick p = {.calls = 0};
				walk(&die, &p, 0);
				const char *callee = p.first[0] ? p.first : p.backup;
				Dwarf_Addr lo = 0;
				if (dwarf_lowpc(&die, &lo) != 0)
					lo = 0;
				if (add(t, file, (unsigned)line, lo, callee, p.calls == 1) != 0) {
					pmcfi_taskents_free(t);
					return -1;
				}
			} while (dwarf_siblingof(&die, &die) == 0);
		}
		off = next;
	}
	*out = t;
	return 0;
}

void pmcfi_taskents_free(struct pmcfi_taskents *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		free(t->e[i].file);
	free(t->e);
	free(t);
}

static const char *base(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

static int same_file(const char *a, const char *b)
{
	return strcmp(a, b) == 0 || strcmp(base(a), base(b)) == 0;
}

int pmcfi_taskents_callee(const struct pmcfi_taskents *t, const char *file, unsigned line, char *out,
			  size_t len, int *shared, int *single)
{
	*shared = *single = 0;
	const struct taskent *hit = NULL;
	for (size_t i = 0; t && i < t->n && !hit; i++)
		if (t->e[i].line == line && same_file(t->e[i].file, file))
			hit = &t->e[i];
	if (!hit || !hit->callee[0])
		return -1;
	for (size_t i = 0; i < t->n; i++)
		if (&t->e[i] != hit && strcmp(t->e[i].callee, hit->callee) == 0 &&
		    (t->e[i].line != hit->line || !same_file(t->e[i].file, hit->file)))
			*shared = 1;
	snprintf(out, len, "%s", hit->callee);
	*single = hit->single;
	return 0;
}

int pmcfi_taskents_at(const struct pmcfi_taskents *t, uint64_t addr, const char **file, unsigned *line)
{
	for (size_t i = 0; t && addr && i < t->n; i++)
		if (t->e[i].lowpc == addr) {
			*file = t->e[i].file;
			*line = t->e[i].line;
			return 0;
		}
	return -1;
}

/* The innermost subprogram (or the function inlined there) at addr, from the
 * CU's scopes. */
static int dwarf_function(Dwarf_Die *cu, Dwarf_Addr addr, char *out, size_t len, uint64_t *off)
{
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes(cu, addr, &scopes);
	int found = -1;
	for (int i = 0; i < n && found < 0; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
			continue;
		Dwarf_Die origin;
		const char *nm = dwarf_diename(&scopes[i]);
		if (!nm)
			nm = origin_name(&scopes[i], DW_AT_abstract_origin, &origin);
		Dwarf_Addr lo;
		if (nm && nm[0] != '.') {
			snprintf(out, len, "%s", nm);
			*off = dwarf_entrypc(&scopes[i], &lo) == 0 && lo <= addr ? addr - lo : 0;
			found = 0;
		}
	}
	free(scopes);
	return found;
}

/* The FUNC symbol of the ELF symbol tables that contains addr. */
static int elf_function(Elf *elf, uint64_t addr, char *out, size_t len, uint64_t *off)
{
	Elf_Scn *scn = NULL;
	int found = -1;
	while (elf && found < 0 && (scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		size_t n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; data && i < n; i++) {
			GElf_Sym s;
			if (!gelf_getsym(data, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
			    s.st_shndx == SHN_UNDEF || addr < s.st_value || addr >= s.st_value + s.st_size)
				continue;
			const char *nm = elf_strptr(elf, sh.sh_link, s.st_name);
			if (nm && *nm) {
				snprintf(out, len, "%s", nm);
				*off = addr - s.st_value;
				found = 0;
				break;
			}
		}
	}
	return found;
}

int pmcfi_dwarf_cu_at(Dwarf *dw, Dwarf_Addr addr, Dwarf_Die *cu)
{
	if (!dw)
		return -1;
	if (dwarf_addrdie(dw, addr, cu))
		return 0;
	/* no .debug_aranges (clang's default): look through the CUs */
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dw, off + hsize, cu) && dwarf_haspc(cu, addr) > 0)
			return 0;
		off = next;
	}
	return -1;
}

int pmcfi_enclosing_function(Dwarf *dw, Elf *elf, uint64_t addr, char *out, size_t len, uint64_t *off)
{
	Dwarf_Die cu;
	*off = 0;
	if (pmcfi_dwarf_cu_at(dw, addr, &cu) == 0 && dwarf_function(&cu, addr, out, len, off) == 0)
		return 0;
	return elf_function(elf, addr, out, len, off);
}
