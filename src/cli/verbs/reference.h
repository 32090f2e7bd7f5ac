/* `pmcfuse reference` (cli/reference.c): one session's state, shared with
 * cli/reference_index.c (the folder's index, the campaign's digest and the
 * summary printed). */
#ifndef PMCF_CLI_REFERENCE_H
#define PMCF_CLI_REFERENCE_H
#include <stddef.h>
#include <stdint.h>
#include "cli/campaign.h"
#include "pmcfuse/evaluate.h"
#include "pmcfuse/source.h"

struct refrun {
	/* the command line */
	const char *dir, *events, *sim;
	char **prog;
	int nprog, have_seed;
	unsigned long repeat, pmcs, seed;
	struct campaign_args args;
	/* the campaign */
	struct campaign_session s;
	pmcf_source *src;
	const char *source;
	char *canon;
	pmcf_evlist *list;
	const pmcf_evlist **sets; /* the covering's lists (owned by cv) */
	pmcf_cover *cv;
	size_t nsets, total, reused;
	unsigned char *done; /* per execution: its profile is in dir */
	uint64_t *seeds;
	int launched;
};

int ref_write_index(const struct refrun *r);
int ref_index_saved(void *ctx, size_t k);
size_t ref_count_done(const struct refrun *r);
int ref_digest(const struct refrun *r, char hex[65]);
void ref_print_summary(const struct refrun *r);
#endif
