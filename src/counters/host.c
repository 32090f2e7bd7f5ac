/* The machine as a counting platform: CPU, hypervisor, core PMUs and their
 * counters (libpfm4), whether hardware events open at all, privileges,
 * tracefs and rdpmc — the header of `pmcfuse events`. */
#include <errno.h>
#include <limits.h>
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <perfmon/pfmlib.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include "counters/perf.h"
#include "counters/perf_group.h"
#include "counters/tracefs.h"
#include "util/abi.h"
#include "util/internal.h"

#define EVENT_SOURCE "/sys/bus/event_source/devices"

static void read_first_line(const char *path, char *out, size_t len)
{
	out[0] = '\0';
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(out, (int)len, f))
		out[strcspn(out, "\n")] = '\0';
	fclose(f);
}

static void cpu_model(pmcf_host_info *h)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];
	int hv_flag = 0;
	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		if (!h->cpu[0] && (strncmp(line, "model name", 10) == 0 || strncmp(line, "Model", 5) == 0)) {
			char *v = colon + 1;
			while (*v == ' ')
				v++;
			v[strcspn(v, "\n")] = '\0';
			snprintf(h->cpu, sizeof(h->cpu), "%s", v);
		}
		if (strncmp(line, "flags", 5) == 0 && strstr(colon, " hypervisor"))
			hv_flag = 1;
	}
	if (f)
		fclose(f);
	if (!h->cpu[0]) { /* arm64: no model name, the implementer and part numbers */
		char impl[32] = "", part[32] = "";
		f = fopen("/proc/cpuinfo", "r");
		while (f && fgets(line, sizeof(line), f)) {
			char *colon = strchr(line, ':');
			char *dst = strncmp(line, "CPU implementer", 15) == 0 ? impl
				    : strncmp(line, "CPU part", 8) == 0       ? part
									      : NULL;
			if (!colon || !dst || dst[0])
				continue;
			colon++;
			while (*colon == ' ' || *colon == '\t')
				colon++;
			colon[strcspn(colon, "\n")] = '\0';
			snprintf(dst, 32, "%.31s", colon);
		}
		if (f)
			fclose(f);
		if (impl[0])
			snprintf(h->cpu, sizeof(h->cpu), "CPU implementer %s, part %s", impl, part);
	}
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	h->ncpus = n > 0 ? (unsigned)n : 0;
	h->virtual_machine = hv_flag;
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;
	if (__get_cpuid(1, &a, &b, &c, &d))
		h->virtual_machine = !!(c & (1u << 31));
	if (h->virtual_machine) {
		__cpuid(0x40000000, a, b, c, d);
		char v[13];
		memcpy(v, &b, 4);
		memcpy(v + 4, &c, 4);
		memcpy(v + 8, &d, 4);
		v[12] = '\0';
		static const struct {
			const char *sig, *name;
		} known[] = {{"KVMKVMKVM", "KVM"},           {"VMwareVMware", "VMware"},
			     {"Microsoft Hv", "Hyper-V"},    {"XenVMMXenVMM", "Xen"},
			     {"TCGTCGTCGTCG", "QEMU (TCG)"}, {"ACRNACRNACRN", "ACRN"},
			     {" lrpepyh  vr", "Parallels"},  {"VBoxVBoxVBox", "VirtualBox"},
			     {"bhyve bhyve ", "bhyve"}};
		for (size_t i = 0; i < PMCF_ARRAY_SIZE(known); i++)
			if (strncmp(v, known[i].sig, strlen(known[i].sig)) == 0)
				snprintf(h->hypervisor, sizeof(h->hypervisor), "%s", known[i].name);
		if (!h->hypervisor[0]) { /* an unknown vendor: its signature, trimmed */
			size_t k = 0;
			for (size_t i = 0; i < 12 && v[i]; i++)
				if (v[i] > ' ' && v[i] < 127)
					h->hypervisor[k++] = v[i];
			h->hypervisor[k] = '\0';
		}
	}
#endif
	if (h->virtual_machine && !h->hypervisor[0]) {
		char t[32];
		read_first_line("/sys/hypervisor/type", t, sizeof(t));
		snprintf(h->hypervisor, sizeof(h->hypervisor), "%s", t);
	}
}

static void kernel_pmus(pmcf_host_info *h)
{
	DIR *d = opendir(EVENT_SOURCE);
	size_t off = 0;
	h->kernel_pmus[0] = '\0';
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && off < sizeof(h->kernel_pmus))
			off += (size_t)snprintf(h->kernel_pmus + off, sizeof(h->kernel_pmus) - off, "%s%s",
						off ? "," : "", e->d_name);
	closedir(d);
}

static void core_pmus(pmcf_host_info *h)
{
	if (pfm_initialize() != PFM_SUCCESS)
		return;
	for (int p = PFM_PMU_NONE + 1; p < PFM_PMU_MAX && h->npmus < PMCF_ARRAY_SIZE(h->pmus); p++) {
		pfm_pmu_info_t pi;
		memset(&pi, 0, sizeof(pi));
		pi.size = sizeof(pi);
		if (pfm_get_pmu_info((pfm_pmu_t)p, &pi) != PFM_SUCCESS || !pi.is_present ||
		    pi.type != PFM_PMU_TYPE_CORE)
			continue;
		if (strcmp(pi.name, "perf") == 0 || strcmp(pi.name, "perf_raw") == 0)
			continue;
		pmcf_host_pmu *u = &h->pmus[h->npmus++];
		u->size = sizeof(*u);
		snprintf(u->name, sizeof(u->name), "%s", pi.name);
		snprintf(u->desc, sizeof(u->desc), "%s", pi.desc ? pi.desc : "");
		u->general = pi.num_cntrs;
		u->fixed = pi.num_fixed_cntrs;
	}
}

/* ---- privileges (perf.c asks them too) ---------------------------------- */

int pmcfi_perf_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = INT_MIN;
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = INT_MIN;
		fclose(f);
	}
	return v;
}

/* CAP_PERFMON (38) or CAP_SYS_ADMIN (21) in the effective set. */
int pmcfi_perf_capable(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	if (!f)
		return 0;
	char line[256];
	unsigned long long cap = 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &cap) == 1)
			break;
	fclose(f);
	return !!(cap & (1ull << 38 | 1ull << 21));
}

int pmcfi_perf_kernel_allowed(void)
{
	if (pmcfi_perf_capable())
		return 1;
	int p = pmcfi_perf_paranoid();
	return p != INT_MIN && p <= 1;
}

/* Opens a group of n user-mode instructions events (plus one cycles event
 * with cycles): 1 when the kernel takes it. The kernel checks at opening
 * that a group fits the PMU's counters (x86 and arm64 validate_group). */
static int group_opens(int n, int cycles)
{
	int fd[40], ok = 1, m = 0;
	for (int i = 0; i < n + cycles && ok; i++) {
		struct perf_event_attr a;
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_HARDWARE;
		a.config = i < n ? PERF_COUNT_HW_INSTRUCTIONS : PERF_COUNT_HW_CPU_CYCLES;
		/* enabled: the kernel's group check leaves a disabled leader out */
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		fd[m] = pmcfi_perf_event_open(&a, 0, i ? fd[0] : -1);
		if (fd[m] < 0)
			ok = 0;
		else
			m++;
	}
	while (m > 0)
		close(fd[--m]);
	return ok;
}

int pmcfi_host_counters(int *general, int *fixed, char *pmu, size_t pmulen)
{
	static int done, g, f;
	static char name[64];
	if (!done) {
		done = 1;
		/* the kernel's core PMU: cpu (x86), armv8_pmuv3_0 / armv8_pmuv3 (arm64) */
		DIR *d = opendir(EVENT_SOURCE);
		struct dirent *e;
		while (d && (e = readdir(d)))
			if (strcmp(e->d_name, "cpu") == 0 || strcmp(e->d_name, "cpu_core") == 0 ||
			    strncmp(e->d_name, "armv8_", 6) == 0 || strncmp(e->d_name, "armv7_", 6) == 0)
				snprintf(name, sizeof(name), "%.63s", e->d_name);
		if (d)
			closedir(d);
		while (g < 32 && group_opens(g + 1, 0))
			g++;
		if (g > 0)
			f = group_opens(g, 1);
	}
	if (general)
		*general = g;
	if (fixed)
		*fixed = f;
	if (pmu && pmulen)
		snprintf(pmu, pmulen, "%s", name[0] ? name : "cpu");
	return g > 0 ? 0 : -1;
}

int pmcfi_host_counters_probed(unsigned *general, unsigned *total, char *from, size_t fromlen)
{
	int g, f;
	char pmu[64];
	if (pmcfi_host_counters(&g, &f, pmu, sizeof(pmu)) != 0)
		return -1;
	if (general)
		*general = (unsigned)g;
	if (total)
		*total = (unsigned)(g + f);
	if (from && fromlen)
		snprintf(from, fromlen, "%s's %d general counter%s%s, probed with event groups", pmu, g,
			 g == 1 ? "" : "s", f ? " and a cycle counter" : "");
	return 0;
}

static void hw_probe(pmcf_host_info *h)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	int fd = pmcfi_perf_event_open(&a, 0, -1);
	if (fd >= 0) {
		close(fd);
		h->hw_counting = 1;
		/* no model table in libpfm4 (QEMU's -cpu max, a CPU newer than
		 * it): the kernel's PMU, its counters probed with groups */
		int g, f;
		if (h->npmus == 0 && pmcfi_host_counters(&g, &f, NULL, 0) == 0) {
			pmcf_host_pmu *u = &h->pmus[h->npmus++];
			u->size = sizeof(*u);
			pmcfi_host_counters(NULL, NULL, u->name, sizeof(u->name));
			snprintf(u->desc, sizeof(u->desc), "kernel PMU, counters probed with event groups");
			u->general = g;
			u->fixed = f;
		}
		return;
	}
	int e = errno;
	h->hw_counting = 0;
	if (e == ENOENT || e == EOPNOTSUPP || e == ENODEV)
		snprintf(h->hw_why, sizeof(h->hw_why), "no hardware PMU%s (perf_event_open: %s)",
			 h->virtual_machine ? ": the hypervisor exposes none (no vPMU)" : "", strerror(e));
	else
		snprintf(h->hw_why, sizeof(h->hw_why), "perf_event_open: %s", strerror(e));
}

static void rdpmc_state(pmcf_host_info *h)
{
	char v[16];
	read_first_line(EVENT_SOURCE "/cpu/rdpmc", v, sizeof(v));
	if (!v[0])
		read_first_line(EVENT_SOURCE "/cpu_core/rdpmc", v, sizeof(v));
	if (v[0]) {
		h->rdpmc = v[0] != '0';
		snprintf(h->rdpmc_why, sizeof(h->rdpmc_why), "%s",
			 v[0] == '0'   ? "disabled (" EVENT_SOURCE "/cpu/rdpmc is 0)"
			 : v[0] == '2' ? "allowed for every task (rdpmc = 2)"
				       : "allowed for tasks with counters open (rdpmc = 1)");
		return;
	}
	read_first_line("/proc/sys/kernel/perf_user_access", v, sizeof(v)); /* arm64 */
	if (v[0]) {
		h->rdpmc = v[0] != '0';
		snprintf(h->rdpmc_why, sizeof(h->rdpmc_why), "kernel.perf_user_access is %s", v);
		return;
	}
	h->rdpmc = 0;
	snprintf(h->rdpmc_why, sizeof(h->rdpmc_why), "no hardware PMU, nothing to read");
}

int pmcf_host_describe(pmcf_host_info *h)
{
	pmcfi_clear_error();
	if (!h)
		return pmcfi_fail(PMCF_EINVAL, "pmcf_host_describe: missing argument");
	int rc = pmcfi_check_struct("pmcf_host_info", h, h->size, sizeof(*h), sizeof(*h));
	if (rc)
		return rc;
	memset(h, 0, sizeof(*h));
	h->size = sizeof(*h);
	cpu_model(h);
	kernel_pmus(h);
	core_pmus(h);
	hw_probe(h);
	h->paranoid = pmcfi_perf_paranoid();
	h->kernel_allowed = pmcfi_perf_kernel_allowed();
	h->root = geteuid() == 0;
	pmcfi_tracefs_status(h->tracefs, sizeof(h->tracefs));
	rdpmc_state(h);
	return 0;
}
