/* `pmcfuse combine`'s inputs (combine_inputs.c), for combine.c. */
#ifndef PMCF_CLI_COMBINE_H
#define PMCF_CLI_COMBINE_H
#include <stddef.h>

/* Without -o the previous pmcfuse.pmcf becomes pmcfuse.pmcf.old: refused
 * when that would replace an input. */
int combine_old_not_input(const char *verb, const char *const *in, size_t n);
/* The inputs with every folder replaced by the executions in it: a
 * campaign folder (run --keep, --launcher slurm) or any folder of
 * exec-K.pmcf files gives its exec-*.pmcf (their order does not matter:
 * sets go in plan order). *out is malloc'd, its strings too (free with
 * combine_free_inputs); returns an exit status after one error line. */
int combine_expand_inputs(const char *verb, char **args, size_t n, char ***out, size_t *nout);
void combine_free_inputs(char **v, size_t n);
/* The same file given twice (same device and inode): reported. */
int combine_same_file_twice(const char *verb, char **paths, size_t n);
#endif
