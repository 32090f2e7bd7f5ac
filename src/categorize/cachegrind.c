/* The cachegrind backend of the counter-inspection toolkit: valgrind's
 * simulated caches and branch predictor as an event source nobody on the
 * team wrote, with the cache geometry fixed so that results reproduce. */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "categorize/categorize_impl.h"
#include "counters/catalog.h"
#include "util/internal.h"
#include "util/tmpdir.h"

extern char **environ;

static const struct {
	const char *name, *description;
} cg_events[] = {
	{"Ir", "instructions executed"},
	{"I1mr", "L1 instruction cache read misses"},
	{"ILmr", "last-level cache instruction read misses"},
	{"Dr", "data reads (memory reads)"},
	{"D1mr", "L1 data cache read misses"},
	{"DLmr", "last-level cache data read misses"},
	{"Dw", "data writes (memory writes)"},
	{"D1mw", "L1 data cache write misses"},
	{"DLmw", "last-level cache data write misses"},
	{"Bc", "conditional branches executed"},
	{"Bcm", "conditional branches mispredicted"},
	{"Bi", "indirect branches executed"},
	{"Bim", "indirect branches mispredicted"},
};

static int cg_check_set(void *impl, const pmcf_catalog *c, const size_t *idx, size_t n, unsigned pmcs,
			char *why, size_t whylen)
{
	(void)impl, (void)c, (void)idx, (void)n, (void)pmcs, (void)why, (void)whylen;
	return 1; /* a simulator counts everything at once */
}

static const struct pmcfi_catalog_ops cg_ops = {.check_set = cg_check_set};

int pmcfi_categorize_cachegrind_catalog(pmcf_catalog **out)
{
	pmcf_catalog *c;
	int err = pmcfi_catalog_new(PMCF_CATEGORIZE_CACHEGRIND, &cg_ops, NULL, &c);
	if (err)
		return err;
	for (size_t i = 0; i < PMCF_ARRAY_SIZE(cg_events); i++) {
		pmcf_event_info e = {.size = sizeof(pmcf_event_info),
				     .name = cg_events[i].name,
				     .source = PMCF_SRC_SIM,
				     .description = cg_events[i].description,
				     .available = 1,
				     .cost = 0};
		if ((err = pmcfi_catalog_add(c, &e))) {
			pmcf_catalog_free(c);
			return err;
		}
	}
	*out = c;
	return 0;
}

void pmcfi_categorize_cachegrind_levels(pmcf_categorize_levels *lv)
{
	memset(lv, 0, sizeof(*lv));
	lv->n = 2;
	lv->bytes[0] = CATEGORIZE_CG_L1;
	lv->bytes[1] = CATEGORIZE_CG_LL;
	snprintf(lv->name[0], sizeof(lv->name[0]), "L1D");
	snprintf(lv->name[1], sizeof(lv->name[1]), "LL");
}

/* Reads the events: and summary: lines of a cachegrind.out file into
 * counts[0..n) for events[0..n). */
static int parse_out(const char *path, const char *const *events, size_t n, double *counts)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return pmcfi_fail(PMCF_EPROGRAM, "cachegrind wrote no output file %s", path);
	char line[4096], names[4096] = "";
	int have_summary = 0;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (strncmp(line, "events:", 7) == 0) {
			snprintf(names, sizeof(names), "%s", line + 7);
		} else if (strncmp(line, "summary:", 8) == 0) {
			have_summary = 1;
			for (size_t e = 0; e < n; e++)
				counts[e] = -1;
			char *sv1, *sv2;
			char *nm = strtok_r(names, " \t", &sv1);
			char *val = strtok_r(line + 8, " \t", &sv2);
			while (nm && val) {
				for (size_t e = 0; e < n; e++)
					if (strcmp(events[e], nm) == 0)
						counts[e] = strtod(val, NULL);
				nm = strtok_r(NULL, " \t", &sv1);
				val = strtok_r(NULL, " \t", &sv2);
			}
		}
	}
	fclose(f);
	if (!have_summary)
		return pmcfi_fail(PMCF_ECORRUPT, "no summary line in cachegrind output %s", path);
	for (size_t e = 0; e < n; e++)
		if (counts[e] < 0)
			return pmcfi_fail(PMCF_EEVENT, "cachegrind did not count %s", events[e]);
	return 0;
}

/* The last line of a log file, for error messages. */
static void log_tail(const char *path, char *buf, size_t len)
{
	buf[0] = 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	char line[512];
	while (fgets(line, sizeof(line), f))
		if (line[0] != '\n')
			snprintf(buf, len, "%s", line);
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
}

static int spawn_one(const char *dir, size_t i, const struct pmcfi_categorize_run *run, pid_t *pid)
{
	char outarg[600], logp[600];
	snprintf(outarg, sizeof(outarg), "--cachegrind-out-file=%s/cg.%zu", dir, i);
	snprintf(logp, sizeof(logp), "%s/log.%zu", dir, i);
	char d1[64], ll[64], i1[64];
	snprintf(d1, sizeof(d1), "--D1=%u,8,64", CATEGORIZE_CG_L1);
	snprintf(i1, sizeof(i1), "--I1=%u,8,64", CATEGORIZE_CG_L1);
	snprintf(ll, sizeof(ll), "--LL=%u,16,64", CATEGORIZE_CG_LL);
	char *argv[CATEGORIZE_MAX_ARGS + 12];
	size_t a = 0;
	argv[a++] = "valgrind";
	argv[a++] = "--tool=cachegrind";
	argv[a++] = "--branch-sim=yes";
	argv[a++] = "--cache-sim=yes";
	argv[a++] = i1;
	argv[a++] = d1;
	argv[a++] = ll;
	argv[a++] = outarg;
	for (size_t k = 0; run->argv[k]; k++)
		argv[a++] = run->argv[k];
	argv[a] = NULL;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, logp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	int rc = posix_spawnp(pid, "valgrind", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc == ENOENT)
		return pmcfi_fail(PMCF_ENOTSUP, "valgrind not found: install valgrind for the "
						"cachegrind backend");
	if (rc)
		return pmcfi_fail(-rc, "cannot start valgrind: %s", strerror(rc));
	return 0;
}

int pmcfi_categorize_cachegrind_measure(const pmcf_categorize_options *o,
					const struct pmcfi_categorize_run *runs, size_t nruns,
					const char *const *events, size_t n, double *counts)
{
	char *dir;
	int rc = pmcfi_tmpdir_new(NULL, "pmcfuse-categorize-", &dir);
	if (rc)
		return rc;
	unsigned jobs = o->jobs ? o->jobs : 1;
	pid_t *pids = calloc(nruns ? nruns : 1, sizeof(*pids));
	if (!pids) {
		pmcfi_rm_tree(dir);
		free(dir);
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	}
	/* Up to jobs runs at once, waited for in order (only our own children:
	 * the library must not reap the caller's). */
	int err = 0;
	size_t next = 0;
	for (size_t i = 0; i < nruns; i++) {
		while (!err && next < nruns && next < i + jobs) {
			if ((err = spawn_one(dir, next, &runs[next], &pids[next])))
				break;
			next++;
		}
		if (i >= next)
			break;
		int st;
		while (waitpid(pids[i], &st, 0) < 0) {
			if (errno != EINTR) {
				st = -1;
				break;
			}
		}
		if (err)
			continue;
		char path[600];
		if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			char tail[512];
			snprintf(path, sizeof(path), "%s/log.%zu", dir, i);
			log_tail(path, tail, sizeof(tail));
			err = pmcfi_fail(PMCF_EPROGRAM, "cachegrind run of kernel '%s %s' failed%s%s",
					 runs[i].argv[1] ? runs[i].argv[1] : "",
					 runs[i].argv[1] && runs[i].argv[2] ? runs[i].argv[2] : "",
					 tail[0] ? ": " : "", tail);
			continue;
		}
		snprintf(path, sizeof(path), "%s/cg.%zu", dir, i);
		err = parse_out(path, events, n, counts + i * n);
	}
	free(pids);
	pmcfi_rm_tree(dir);
	free(dir);
	return err;
}
