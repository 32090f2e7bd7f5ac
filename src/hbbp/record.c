/* Recording folders for the instruction mix: perf record with the HBBP
 * events (EBS on INST_RETIRED.PREC_DIST and LBR on taken branches, periods
 * of hbbp Table 4) or EBS alone on cpu-clock, and callgrind for the exact
 * reference. Each folder is written as DIR.tmp.PID and renamed at the end,
 * with imix.json saying how it was made (pmcf_imix_load reads it). */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "counters/arch.h"
#include "hbbp/hbbp_impl.h"
#include "pmcfuse/hbbp.h"
#include "util/abi.h"
#include "util/internal.h"
#include "util/json_bytes.h"
#include "util/tmpdir.h"

extern char **environ;

/* Runs argv (looked up in PATH) with stderr to logpath and waits. */
static int spawn_wait(const char *what, char *const argv[], const char *logpath, int *status)
{
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 2, logpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	pid_t pid;
	int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc == ENOENT)
		return pmcfi_fail(PMCF_ENOTSUP, "%s not found: install %s (scripts/install-deps.sh)", argv[0],
				  what);
	if (rc)
		return pmcfi_fail(-rc, "cannot start %s: %s", argv[0], strerror(rc));
	int st = 0;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return pmcfi_fail(-errno, "waitpid: %s", strerror(errno));
	*status = st;
	return 0;
}

/* Last non-empty line of a log file, for error messages. */
static void last_line(const char *path, char *out, size_t n)
{
	out[0] = 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	char line[512];
	while (fgets(line, sizeof(line), f)) {
		size_t l = strlen(line);
		while (l && (line[l - 1] == '\n' || line[l - 1] == '\r' || line[l - 1] == ' '))
			line[--l] = 0;
		if (l)
			snprintf(out, n, "%s", line);
	}
	fclose(f);
}

/* dir is written as dir.tmp.PID (into tmp) and renamed at the end. */
static int stage_dir(const char *dir, char *tmp, size_t n)
{
	struct stat sb;
	if (stat(dir, &sb) == 0 && (!S_ISDIR(sb.st_mode) || rmdir(dir) != 0))
		return pmcfi_fail(PMCF_ECONFLICT, "%s exists and is not an empty folder", dir);
	snprintf(tmp, n, "%s.tmp.%ld", dir, (long)getpid());
	pmcfi_rm_tree(tmp);
	if (mkdir(tmp, 0755) != 0)
		return pmcfi_fail(-errno, "cannot create %s: %s", tmp, strerror(errno));
	return 0;
}

/* meta as tmp/imix.json, then tmp renamed to dir; tmp removed on failure. */
static int finish_dir(const char *tmp, const char *dir, json_t *meta)
{
	char p[4200];
	snprintf(p, sizeof(p), "%s/imix.json", tmp);
	int err = 0;
	if (!meta || json_dump_file(meta, p, JSON_INDENT(2) | JSON_SORT_KEYS) != 0)
		err = pmcfi_fail(-EIO, "cannot write %s", p);
	else if (rename(tmp, dir) != 0)
		err = pmcfi_fail(-errno, "cannot rename %s to %s: %s", tmp, dir, strerror(errno));
	if (err)
		pmcfi_rm_tree(tmp);
	return err;
}

static json_t *argv_json(int argc, char *const argv[])
{
	json_t *a = json_array();
	for (int i = 0; a && i < argc; i++)
		json_array_append_new(a, pmcfi_json_bytes(argv[i]));
	return a;
}

static int kernel_allowed(void)
{
	if (geteuid() == 0)
		return 1;
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = 2;
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 2;
		fclose(f);
	}
	return v <= 1;
}

/* Intel with a core PMU that perf can drive with LBR. */
static int check_lbr(void)
{
	char vendor[64] = "";
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (f) {
		char line[512];
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "vendor_id : %63s", vendor) == 1)
				break;
		fclose(f);
	}
	if (strcmp(vendor, "GenuineIntel") != 0)
		return pmcfi_fail(
			PMCF_ENOTSUP,
			"HBBP needs Intel LBR with INST_RETIRED.PREC_DIST and "
			"BR_INST_RETIRED.NEAR_TAKEN; this CPU is %s: use ebs_only (cpu-clock sampling; "
			"the command's --ebs-only)",
			vendor[0] ? vendor : "unknown");
	if (access("/sys/bus/event_source/devices/cpu/format/event", R_OK) != 0)
		return pmcfi_fail(PMCF_ENOTSUP,
				  "no core PMU in /sys/bus/event_source/devices/cpu (a VM "
				  "without PMU passthrough?): use ebs_only (cpu-clock sampling; the "
				  "command's --ebs-only)");
	return 0;
}

/* Does this perf take --user-regs with a register list (perf 4.x does not)?
 * `perf record --user-regs=?` lists the registers it knows. */
static int perf_has_user_regs(void)
{
	FILE *p = popen("perf record --user-regs=? 2>&1", "r");
	char line[256];
	int ok = 0;
	while (p && fgets(line, sizeof(line), p))
		ok |= strstr(line, "available registers") && strstr(line, "R15");
	if (p)
		pclose(p);
	return ok;
}

/* Is prog an executable file, by itself (a path) or on PATH? perf and
 * valgrind say nothing useful for a missing program (perf: "the program
 * exited with status 255"). */
static int find_program(const char *prog)
{
	if (strchr(prog, '/')) {
		if (access(prog, X_OK) == 0)
			return 0;
		return pmcfi_fail(PMCF_EINVAL, "%s: %s", prog,
				  errno == ENOENT ? "no such program" : strerror(errno));
	}
	const char *path = getenv("PATH");
	char buf[4200];
	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		const char *e = strchr(p, ':');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, n ? p : ".", prog) < (int)sizeof(buf) &&
		    access(buf, X_OK) == 0)
			return 0;
		p += n + (e ? 1 : 0);
	}
	return pmcfi_fail(PMCF_EINVAL, "%s: no such program on PATH", prog);
}

/* The program as started, with the message for a failed run. */
static int check_status(int st, const char *log)
{
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	char ll[512];
	last_line(log, ll, sizeof(ll));
	if (WIFEXITED(st) && ll[0] == 0)
		return pmcfi_fail(PMCF_EPROGRAM, "the program exited with status %d", WEXITSTATUS(st));
	return pmcfi_fail(PMCF_ENOTSUP, "perf record failed: %s", ll[0] ? ll : "killed by a signal");
}

int pmcf_imix_record(const char *dir, const pmcf_imix_record_opts *opts, int argc, char *const argv[])
{
	pmcfi_clear_error();
	pmcf_imix_record_opts o = PMCF_IMIX_RECORD_OPTS_INIT;
	int rc = pmcfi_struct_in("pmcf_imix_record_opts", &o, opts, sizeof(o), sizeof(o));
	if (rc)
		return rc;
	if (!dir || argc < 1 || !argv || !argv[0])
		return pmcfi_fail(PMCF_EINVAL, "pmcf_imix_record: no folder or no program");
	if (pmcfi_arch_imix_unsupported())
		return pmcfi_fail(PMCF_ENOTSUP, "%s", pmcfi_arch_imix_unsupported());
	if (o.runtime < PMCF_IMIX_RUNTIME_SECONDS || o.runtime > PMCF_IMIX_RUNTIME_LONG)
		return pmcfi_fail(PMCF_EINVAL, "pmcf_imix_record: unknown run time %d", o.runtime);
	if ((rc = find_program(argv[0])))
		return rc;
	if (!o.ebs_only && (rc = check_lbr()))
		return rc;
	/* Table 4: EBS and LBR periods by expected run time */
	static const unsigned long ebs_by[] = {1000037, 10000019, 100000007},
				   lbr_by[] = {100003, 1000037, 10000019};
	unsigned long ebs_p = ebs_by[o.runtime], lbr_p = lbr_by[o.runtime];
	int kern = !o.user_only && kernel_allowed();
	char tmp[4200], data[4300], log[4300], e1[256], e2[256], cp[32];
	char **pargs = malloc(((size_t)argc + 16) * sizeof(*pargs)); /* perf's words, then argv */
	if (!pargs)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	if ((rc = stage_dir(dir, tmp, sizeof(tmp)))) {
		free(pargs);
		return rc;
	}
	snprintf(data, sizeof(data), "%s/perf.data", tmp);
	snprintf(log, sizeof(log), "%s/perf.log", tmp);
	int k = 0;
	pargs[k++] = "perf";
	pargs[k++] = "record";
	pargs[k++] = "-q";
	pargs[k++] = "-o";
	pargs[k++] = data;
	json_t *events = json_array();
	if (o.ebs_only) {
		snprintf(e1, sizeof(e1), "cpu-clock%s", kern ? "" : ":u");
		snprintf(cp, sizeof(cp), "%lu", o.period ? o.period : 50000ul);
		pargs[k++] = "-e";
		pargs[k++] = e1;
		pargs[k++] = "-c";
		pargs[k++] = cp;
		/* the user registers: loop speeds from induction registers
		 * (report --rate iv); left out where perf cannot record them */
		if (perf_has_user_regs())
			pargs[k++] = "--user-regs=ax,bx,cx,dx,si,di,bp,sp,r8,r9,r10,r11,r12,r13,r14,r15";
		json_array_append_new(events, json_string(e1));
	} else {
		if (o.period)
			ebs_p = o.period, lbr_p = o.period / 10 ? o.period / 10 : 1;
		snprintf(e1, sizeof(e1),
			 "cpu/event=0xc0,umask=0x1,period=%lu,name=inst_retired.prec_dist/%sppp", ebs_p,
			 kern ? "" : "u");
		snprintf(e2, sizeof(e2),
			 "cpu/event=0xc4,umask=0x20,period=%lu,name=br_inst_retired.near_taken/%sp", lbr_p,
			 kern ? "" : "u");
		pargs[k++] = "-e";
		pargs[k++] = e1;
		pargs[k++] = "-e";
		pargs[k++] = e2;
		pargs[k++] = "-j";
		pargs[k++] = kern ? "any,u,k" : "any,u";
		json_array_append_new(events, json_string(e1));
		json_array_append_new(events, json_string(e2));
	}
	pargs[k++] = "--";
	for (int i = 0; i < argc; i++)
		pargs[k++] = argv[i];
	pargs[k] = NULL;
	int st = 0;
	rc = spawn_wait("linux-perf", pargs, log, &st);
	free(pargs);
	if (rc || (rc = check_status(st, log))) {
		json_decref(events);
		pmcfi_rm_tree(tmp);
		return rc;
	}
	json_t *meta = json_pack("{s:s, s:s, s:b, s:o, s:o}", "kind", "record", "mode",
				 o.ebs_only ? "ebs-only" : "hybrid", "kernel", kern, "events", events,
				 "command", argv_json(argc, argv));
	/* what glibc was told (imix record --valgrind-hwcaps sets it): the
	 * string routines it picks depend on the CPU features it may use */
	const char *tun = getenv("GLIBC_TUNABLES");
	if (meta && tun && tun[0])
		json_object_set_new(meta, "glibc_tunables", json_string(tun));
	rc = finish_dir(tmp, dir, meta);
	json_decref(meta);
	return rc;
}

/* A callgrind run that exited 0 wrote a usable profile: its header has
 * 'events:' and 'positions:' lines. Callgrind does not follow exec
 * (--trace-children=no), so a program that replaces itself with another,
 * as a wrapper script does (pyenv's shims), leaves callgrind.out empty. */
static int check_callgrind_out(const char *cg)
{
	FILE *f = fopen(cg, "re");
	if (!f)
		return pmcfi_fail(PMCF_EPROGRAM, "callgrind wrote no profile (%s): %s", cg, strerror(errno));
	char line[512];
	int events = 0, positions = 0, any = 0;
	for (int n = 0; n < 64 && fgets(line, sizeof(line), f) && !(events && positions); n++) {
		any = 1;
		events |= !strncmp(line, "events:", 7);
		positions |= !strncmp(line, "positions:", 10);
	}
	fclose(f);
	if (!any)
		return pmcfi_fail(PMCF_EPROGRAM,
				  "callgrind wrote an empty profile: the program replaced itself "
				  "with exec (a wrapper script such as a pyenv shim?), which "
				  "callgrind does not follow; give the executable itself");
	if (!events || !positions)
		return pmcfi_fail(PMCF_EPROGRAM,
				  "callgrind wrote no usable profile (no 'events:' and 'positions:' "
				  "header)");
	return 0;
}

int pmcf_imix_reference(const char *dir, int argc, char *const argv[])
{
	pmcfi_clear_error();
	if (!dir || argc < 1 || !argv || !argv[0])
		return pmcfi_fail(PMCF_EINVAL, "pmcf_imix_reference: no folder or no program");
	if (pmcfi_arch_imix_unsupported())
		return pmcfi_fail(PMCF_ENOTSUP, "%s", pmcfi_arch_imix_unsupported());
	int rc0 = find_program(argv[0]);
	if (rc0)
		return rc0;
	char tmp[4200], cg[4300], cgarg[4400], log[4300];
	char **vargs = malloc(((size_t)argc + 8) * sizeof(*vargs)); /* valgrind's words, then argv */
	if (!vargs)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	int rc = stage_dir(dir, tmp, sizeof(tmp));
	if (rc) {
		free(vargs);
		return rc;
	}
	snprintf(cg, sizeof(cg), "%s/callgrind.out", tmp);
	snprintf(cgarg, sizeof(cgarg), "--callgrind-out-file=%s", cg);
	snprintf(log, sizeof(log), "%s/valgrind.log", tmp);
	int k = 0;
	vargs[k++] = "valgrind";
	vargs[k++] = "--tool=callgrind";
	vargs[k++] = "--dump-instr=yes";
	/* callgrind's default --skip-plt=yes charges a PLT stub to its call
	 * site, so the stub's JMP is counted as a second CALL (and the stub's
	 * instructions not at all); the timer samples do see the stubs */
	vargs[k++] = "--skip-plt=no";
	vargs[k++] = "-q";
	vargs[k++] = cgarg;
	for (int i = 0; i < argc; i++)
		vargs[k++] = argv[i];
	vargs[k] = NULL;
	int st = 0;
	rc = spawn_wait("valgrind", vargs, log, &st);
	free(vargs);
	if (rc) {
		pmcfi_rm_tree(tmp);
		return rc;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		char ll[512];
		last_line(log, ll, sizeof(ll));
		pmcfi_rm_tree(tmp);
		return pmcfi_fail(PMCF_EPROGRAM, "the program failed under valgrind (status %d)%s%s",
				  WIFEXITED(st) ? WEXITSTATUS(st) : -1, ll[0] ? ": " : "", ll);
	}
	if ((rc = check_callgrind_out(cg))) {
		pmcfi_rm_tree(tmp);
		return rc;
	}
	json_t *meta = json_pack("{s:s, s:s, s:o}", "kind", "reference", "tool", PMCFI_REFERENCE_TOOL,
				 "command", argv_json(argc, argv));
	rc = finish_dir(tmp, dir, meta);
	json_decref(meta);
	return rc;
}
