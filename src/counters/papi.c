/* PAPI presets through libpapi: start the library quietly, read its preset
 * table for this CPU (natives, derived type, postfix) and say why a preset
 * cannot be counted here. The encoding of the natives is perf.c's (libpfm4). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <papi.h>
#include "counters/papi.h"
#include "util/abi.h"
#include "util/internal.h"

int pmcfi_papi_name(const char *name) { return strncasecmp(name, "PAPI_", 5) == 0; }

void pmcfi_papi_unavailable(const struct pmcfi_papi_preset *p, char *out, size_t outlen)
{
	snprintf(out, outlen, "PAPI preset '%s' cannot be counted on this machine: %s", p->name,
		 p->why[0] ? p->why : "unknown reason");
}

void pmcfi_papi_free(struct pmcfi_papi *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++) {
		free(t->p[i].name);
		free(t->p[i].description);
		for (unsigned j = 0; j < t->p[i].n; j++)
			free(t->p[i].native[j]);
	}
	free(t->p);
	free(t);
}

/* Makes room for one more preset at t->p[t->n], zeroed (the caller counts it). */
static int push(struct pmcfi_papi *t, size_t *cap)
{
	if (pmcfi_grow((void **)&t->p, cap, t->n + 1, sizeof(*t->p)))
		return pmcfi_fail(PMCF_ENOMEM, "out of memory reading PAPI presets");
	memset(&t->p[t->n], 0, sizeof(t->p[t->n]));
	return 0;
}

/* Fills p->expr from its type and postfix, or p->why when they are not a
 * count pmcfuse can compute; disabled: the perf_event component's reason. */
static void finish(struct pmcfi_papi_preset *p, const char *postfix, const char *disabled, const char *cpu)
{
	if (disabled) {
		snprintf(p->why, sizeof(p->why), "PAPI's perf_event component is disabled (%.400s)",
			 disabled[0] ? disabled : "no reason given");
		return;
	}
	if (p->n == 0) {
		snprintf(p->why, sizeof(p->why), "PAPI maps it to no native event of this CPU (%s)",
			 cpu && cpu[0] ? cpu : "unknown model");
		return;
	}
	if (pmcfi_derive_postfix(p->derived, postfix, p->n, p->expr, sizeof(p->expr)) != 0) {
		snprintf(p->why, sizeof(p->why), "%s", pmcf_errdetail());
		pmcfi_clear_error();
	}
}

/* ---- the test table (PMCF_TEST_PAPI_PRESETS) --------------------------------- */

static int load_file(const char *path, struct pmcfi_papi *t)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return pmcfi_fail(PMCF_ENOTSUP, "cannot read PMCF_TEST_PAPI_PRESETS '%s': %s", path,
				  strerror(errno));
	char line[4096], disabled[1024] = "";
	int is_disabled = 0, err = 0;
	size_t cap = 0;
	t->hz = 1e9;
	while (!err && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		char *field[5] = {0};
		char *save = NULL, *s = line;
		int nf = 0;
		for (char *tok; nf < 5 && (tok = strtok_r(s, "\t", &save)); s = NULL)
			field[nf++] = tok;
		if (nf >= 1 && strcmp(field[0], "disabled") == 0) {
			is_disabled = 1;
			snprintf(disabled, sizeof(disabled), "%s", nf > 1 ? field[1] : "");
			continue;
		}
		if (nf < 4) {
			err = pmcfi_fail(PMCF_ESYNTAX, "%s: a preset line needs 4 or 5 tab-separated fields",
					 path);
			break;
		}
		if ((err = push(t, &cap)) != 0)
			break;
		struct pmcfi_papi_preset *p = &t->p[t->n++];
		p->name = strdup(field[0]);
		p->description = strdup(nf > 4 ? field[4] : "");
		snprintf(p->derived, sizeof(p->derived), "%s", field[1]);
		if (!p->name || !p->description) {
			err = pmcfi_fail(PMCF_ENOMEM, "out of memory reading PAPI presets");
			break;
		}
		if (strcmp(field[3], "-") != 0) {
			char *save2 = NULL, *s2 = field[3];
			for (char *nat; (nat = strtok_r(s2, ",", &save2)); s2 = NULL) {
				if (p->n == PMCFI_DERIVE_MAX) {
					err = pmcfi_fail(PMCF_ESYNTAX, "%s: %s has more than %d natives",
							 path, p->name, PMCFI_DERIVE_MAX);
					break;
				}
				if (!(p->native[p->n++] = strdup(nat))) {
					err = pmcfi_fail(PMCF_ENOMEM, "out of memory reading PAPI presets");
					break;
				}
			}
		}
		finish(p, strcmp(field[2], "-") ? field[2] : "", is_disabled ? disabled : NULL, "test table");
	}
	fclose(f);
	return err;
}

/* ---- libpapi ------------------------------------------------------------------ */

static pthread_once_t papi_once = PTHREAD_ONCE_INIT;
static int papi_init_rc;

/* PAPI_library_init, with whatever it prints to stderr or stdout (some
 * components do, e.g. "Warning! num_cntrs … is more than num_mpx_cntrs")
 * sent to /dev/null. */
static void papi_start(void)
{
	fflush(stdout);
	fflush(stderr);
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	int save_out = null >= 0 ? dup(STDOUT_FILENO) : -1;
	int save_err = null >= 0 ? dup(STDERR_FILENO) : -1;
	if (save_out >= 0 && save_err >= 0) {
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
	}
	papi_init_rc = PAPI_library_init(PAPI_VER_CURRENT);
	if (papi_init_rc == PAPI_VER_CURRENT)
		PAPI_set_debug(PAPI_QUIET);
	fflush(stdout);
	fflush(stderr);
	if (save_out >= 0 && save_err >= 0) {
		dup2(save_out, STDOUT_FILENO);
		dup2(save_err, STDERR_FILENO);
	}
	if (save_out >= 0)
		close(save_out);
	if (save_err >= 0)
		close(save_err);
	if (null >= 0)
		close(null);
}

static int load_papi(struct pmcfi_papi *t)
{
	pthread_once(&papi_once, papi_start);
	if (papi_init_rc != PAPI_VER_CURRENT)
		return pmcfi_fail(PMCF_ENOTSUP, "libpapi cannot start: %s",
				  papi_init_rc > 0 ? "version mismatch" : PAPI_strerror(papi_init_rc));
	const char *disabled = NULL;
	int ncomp = PAPI_num_components(), found = 0;
	for (int i = 0; i < ncomp; i++) {
		const PAPI_component_info_t *ci = PAPI_get_component_info(i);
		if (ci && strcmp(ci->name, "perf_event") == 0) {
			found = 1;
			if (ci->disabled)
				disabled = ci->disabled_reason;
		}
	}
	if (!found)
		disabled = "libpapi was built without it";
	const PAPI_hw_info_t *hw = PAPI_get_hardware_info();
	const char *cpu = hw ? hw->model_string : "";
	t->hz = hw && hw->cpu_max_mhz > 0 ? hw->cpu_max_mhz * 1e6 : 0;
	size_t cap = 0;
	int code = PAPI_PRESET_MASK, err = 0;
	if (PAPI_enum_event(&code, PAPI_ENUM_FIRST) != PAPI_OK)
		return 0;
	do {
		PAPI_event_info_t info;
		if (PAPI_get_event_info(code, &info) != PAPI_OK || !info.symbol[0])
			continue;
		if ((err = push(t, &cap)) != 0)
			break;
		struct pmcfi_papi_preset *p = &t->p[t->n++];
		p->name = strdup(info.symbol);
		p->description = strdup(info.long_descr[0] ? info.long_descr : info.short_descr);
		if (!p->name || !p->description) {
			err = pmcfi_fail(PMCF_ENOMEM, "out of memory reading PAPI presets");
			break;
		}
		snprintf(p->derived, sizeof(p->derived), "%s", info.derived);
		if (info.count > PMCFI_DERIVE_MAX) {
			snprintf(p->why, sizeof(p->why), "PAPI counts it with %u natives (at most %d)",
				 info.count, PMCFI_DERIVE_MAX);
			continue;
		}
		for (unsigned j = 0; j < info.count && !err; j++) {
			/* a component-qualified name ("perf_event:::X") is libpfm4's X */
			const char *cq = strstr(info.name[j], ":::");
			if (!(p->native[p->n++] = strdup(cq ? cq + 3 : info.name[j])))
				err = pmcfi_fail(PMCF_ENOMEM, "out of memory reading PAPI presets");
		}
		finish(p, info.postfix, disabled, cpu);
	} while (!err && PAPI_enum_event(&code, PAPI_ENUM_ALL) == PAPI_OK);
	return err;
}

int pmcfi_papi_load(struct pmcfi_papi **out)
{
	*out = NULL;
	struct pmcfi_papi *t = calloc(1, sizeof(*t));
	if (!t)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory reading PAPI presets");
	const char *test = getenv("PMCF_TEST_PAPI_PRESETS");
	int err = test && *test ? load_file(test, t) : load_papi(t);
	if (err) {
		pmcfi_papi_free(t);
		return err;
	}
	*out = t;
	return 0;
}
