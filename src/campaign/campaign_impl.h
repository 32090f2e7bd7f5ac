/* The campaign module's shared state: the folder, its manifest, the lock,
 * and what the launchers need of them. Not exported. */
#ifndef PMCF_CAMPAIGN_IMPL_H
#define PMCF_CAMPAIGN_IMPL_H
#include <jansson.h>
#include "pmcfuse/campaign.h"
#include "pmcfuse/collect.h"

struct pmcf_campaign {
	char *verb, *dir;
	json_t *manifest;
	int task;  /* an array task: records its execution, leaves the state */
	long only; /* its execution */
	int owner; /* the open PMCF_CAMPAIGN_OWNER holding the session's lock, -1: none */
	int resume;
	int runs; /* pmcf_campaign_run calls: a later one goes on as a resume */
	size_t n, nsets;
	unsigned repeat;
	const pmcf_evlist *const *sets;
	pmcf_evlist **own; /* the sets made of a plan */
	char **paths;      /* per execution: DIR/FILE */
	char digest[65];
	int plan_meta, keep_failed, hold;
	pmcf_campaign_callbacks cb;
	pmcf_profile **prof; /* hold: the profiles */
	uint64_t *seeds;     /* recorded in this session */
	pmcf_exit_info ei;   /* the last program's */
	char how[160];
	char *tasks; /* slurm: the array's ranges */
};

/* DIR/NAME, malloc'ed (NULL: no memory). */
char *pmcfi_camp_join(const char *dir, const char *name);
/* "2024-01-01T12:00:00Z" of t. */
void pmcfi_camp_iso_time(long t, char out[32]);
/* Opens c's folder: locked, then created (argv kept in the manifest) or
 * resumed. */
int pmcfi_camp_open_folder(pmcf_campaign *c, int argc, char *const *argv);
/* Creates dir if needed and checks that files can be written in it. */
int pmcfi_camp_check_dir(const char *dir);
/* Changes the manifest under the campaign's lock, over what other processes
 * wrote meanwhile: entry k (k >= 0) updated with entry's members, the
 * top-level key set to value (both stolen), then written. */
int pmcfi_camp_commit(pmcf_campaign *c, long k, json_t *entry, const char *key, json_t *value);
/* Reads the manifest again from the folder (0), e.g. to follow array tasks. */
int pmcfi_camp_reload(pmcf_campaign *c);
/* A top-level string of the manifest (NULL when absent). */
const char *pmcfi_camp_get(const pmcf_campaign *c, const char *key);
/* Gives the folder's lock up before pmcf_campaign_free (the slurm launcher:
 * the jobs it submits take it). */
void pmcfi_camp_release(pmcf_campaign *c);
/* Execution k as the manifest keeps it. */
struct pmcfi_camp_exec {
	size_t set;
	long repeat; /* -1: none */
	int has_seed;
	uint64_t seed;
	const char *status, *exit;
	long started, finished;
};
int pmcfi_camp_update(pmcf_campaign *c, size_t k, const struct pmcfi_camp_exec *e);
/* The launchers' callbacks. */
int pmcfi_camp_slurm_check(const pmcf_launch_opts *o);
int pmcfi_camp_slurm_launch(pmcf_campaign *c, pmcf_source *src, const pmcf_launch_opts *o,
			    pmcf_campaign_result *r);
#endif
