/* Appending XUs whose values the caller writes afterwards, once each: the
 * combination builds a fused profile of many events this way instead of
 * writing a missing value and -1 provenance into every column first. */
#ifndef PMCF_PROFILE_BARE_H
#define PMCF_PROFILE_BARE_H
#include <stddef.h>
#include <stdint.h>
#include "pmcfuse/profile.h"

/* - pmcfi_profile_xu_add_bare appends an XU as pmcf_profile_xu_add does
 *   but leaves its event values unwritten (the caller writes every event
 *   column of it, and its provenance when enabled, before anything reads
 *   them); PMCF_EINVAL on a profile with coverage, truth, match, rank or
 *   base layers (their defaults are not written either);
 * - pmcfi_profile_provenance_enable_bare enables provenance without
 *   writing -1 into it (the caller writes source and XU of every value);
 * - pmcfi_profile_provenance_columns: the provenance arrays of event ev
 *   (enabled, ev < nevents): source and source XU per XU. */
int pmcfi_profile_xu_add_bare(pmcf_profile *p, const pmcf_xu *xu, size_t *index);
int pmcfi_profile_provenance_enable_bare(pmcf_profile *p);
void pmcfi_profile_provenance_columns(pmcf_profile *p, size_t ev, int32_t **src, int64_t **xu);

/* Label tree (issue 33). A node under parent (0: the root, "") whose own
 * components are the len bytes of suffix (no NUL; may hold dots): its
 * label is suffix, or the parent's label, ".", suffix. 0 or PMCF_ENOMEM /
 * PMCF_EINVAL (parent not a node, more than 2^32 - 1 nodes). */
int pmcfi_profile_label_node(pmcf_profile *p, uint32_t parent, const char *suffix, size_t len, uint32_t *id);
/* pmcf_profile_xu_add with labels given as nodes (xu->label and
 * xu->parent_label are ignored). */
int pmcfi_profile_xu_add_nodes(pmcf_profile *p, const pmcf_xu *xu, uint32_t label, uint32_t parent,
			       size_t *index);

/* The label tree for readers that work on node ids (combine): its nodes
 * (0: no tree), node k's parent and own text (k < nodes), and XU i's label
 * (parent 0) or parent label (1) as a node: 0 for "", UINT32_MAX for a
 * label held as text. */
size_t pmcfi_profile_label_nodes(const pmcf_profile *p);
uint32_t pmcfi_profile_label_node_parent(const pmcf_profile *p, uint32_t k);
const char *pmcfi_profile_label_node_suffix(const pmcf_profile *p, uint32_t k);
uint32_t pmcfi_profile_xu_label_node(const pmcf_profile *p, size_t i, int parent);
/* Gives XU i the label and parent label nodes label and parent (0: ""). */
int pmcfi_profile_xu_set_label_nodes(pmcf_profile *p, size_t i, uint32_t label, uint32_t parent);
/* pmcf_profile_base_label_set with the label as a node. */
int pmcfi_profile_base_label_set_node(pmcf_profile *p, size_t i, int32_t source, int64_t source_xu,
				      uint32_t node);

#endif
