/* Names of OpenMP XU types from the debug info (typename.c). */
#ifndef PMCF_COLLECT_TYPENAME_H
#define PMCF_COLLECT_TYPENAME_H
#include <elfutils/libdw.h>
#include <libelf.h>
#include <stddef.h>
#include <stdint.h>

/* The task constructs of one module (clang's ".omp_task_entry." functions,
 * declared at the construct's line) with the function each one's block
 * calls: the first program function among its call sites and inlined
 * callees, walking into the outlined body; a library call such as malloc
 * only when there is nothing else. */
struct pmcfi_taskents;

/* Loads them from dw (NULL gives an empty set). 0, or -1 out of memory. */
int pmcfi_taskents_load(Dwarf *dw, struct pmcfi_taskents **out);
void pmcfi_taskents_free(struct pmcfi_taskents *t);
/* The callee of the construct at file:line (file compared whole or by base
 * name) into out; *shared = 1 when another construct of the module calls a
 * function of the same name; *single = 1 when the block makes that one call
 * and no other. 0, or -1 when the debug info does not say. */
int pmcfi_taskents_callee(const struct pmcfi_taskents *t, const char *file, unsigned line, char *out,
			  size_t len, int *shared, int *single);

/* The construct whose entry function begins at module address addr: its
 * pragma's file and line (owned by t). 0, or -1 when none does. */
int pmcfi_taskents_at(const struct pmcfi_taskents *t, uint64_t addr, const char **file, unsigned *line);

/* The compile unit of dw holding address addr into *cu (by .debug_aranges,
 * else by searching the units: clang emits no aranges). 0, or -1. */
int pmcfi_dwarf_cu_at(Dwarf *dw, Dwarf_Addr addr, Dwarf_Die *cu);

/* 1 for library calls a task block often makes before its real work
 * (allocation, copies, output): a task is named after one of them only when
 * its block calls nothing else. */
int pmcfi_name_incidental(const char *name);

/* The name of the function containing module address addr (DWARF scopes,
 * then the ELF symbol tables) and addr's offset from its entry. 0, or -1
 * when neither knows it. */
int pmcfi_enclosing_function(Dwarf *dw, Elf *elf, uint64_t addr, char *out, size_t len, uint64_t *off);

#endif
