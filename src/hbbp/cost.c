/* Cycles per execution of basic blocks from LLVM's static cost model
 * (llvm-mca), for the time-to-count correction of timer-sampled EBS
 * (docs/imix.md): finding llvm-mca, naming the recording CPU as LLVM does,
 * and one llvm-mca run over every block as its own code region. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <Zydis/Zydis.h>
#include "hbbp/hbbp_impl.h"
#include "util/abi.h"
#include "util/internal.h"
#include "util/tmpdir.h"

extern char **environ;

#define MCA_ITERATIONS "200"
#define MAX_RETRIES 4

/* ---- finding llvm-mca ------------------------------------------------------ */

static int executable(const char *p)
{
	struct stat sb;
	return stat(p, &sb) == 0 && S_ISREG(sb.st_mode) && access(p, X_OK) == 0;
}

/* The newest llvm-mca-NN on PATH, else llvm-mca. */
static int find_on_path(char *out, size_t n)
{
	const char *path = getenv("PATH");
	if (!path || !*path)
		return -1;
	for (int v = 30; v >= 0; v--) {
		char name[32];
		if (v >= 10)
			snprintf(name, sizeof(name), "llvm-mca-%d", v);
		else if (v == 0)
			snprintf(name, sizeof(name), "llvm-mca");
		else
			continue;
		for (const char *d = path; *d;) {
			size_t l = strcspn(d, ":");
			if (l && (size_t)snprintf(out, n, "%.*s/%s", (int)l, d, name) < n && executable(out))
				return 0;
			d += l + (d[l] == ':');
		}
	}
	return -1;
}

/* ---- running a tool -------------------------------------------------------- */

/* Runs argv with stdin from in (or /dev/null) and stdout+stderr to out;
 * returns the exit status, or a negative error. */
static int run_tool(char *const argv[], const char *in, const char *out)
{
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, in ? in : "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	pid_t pid;
	int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc)
		return -rc;
	int st = 0;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *b = malloc(cap);
	for (size_t r; b && (r = fread(b + n, 1, cap - n - 1, f)) > 0;) {
		n += r;
		if (cap - n < 2 && pmcfi_grow((void **)&b, &cap, n + 2, 1)) {
			free(b);
			b = NULL;
		}
	}
	fclose(f);
	if (b)
		b[n] = 0;
	return b;
}

/* llvm-mca's input and output, in a temporary folder of their own. */
struct scratch {
	char *dir, in[4200], out[4200];
};

static int scratch_open(struct scratch *s)
{
	int rc = pmcfi_tmpdir_new(NULL, "pmcf-mca-", &s->dir);
	if (rc)
		return rc;
	snprintf(s->in, sizeof(s->in), "%s/blocks.s", s->dir);
	snprintf(s->out, sizeof(s->out), "%s/mca.out", s->dir);
	return 0;
}

static void scratch_close(struct scratch *s)
{
	pmcfi_rm_tree(s->dir);
	free(s->dir);
}

/* ---- the CPU as LLVM names it ---------------------------------------------- */

/* LLVM processor names by x86 vendor, family and model (llvm/lib/TargetParser
 * Host.cpp), newest first within a line: when the installed llvm-mca does not
 * know a name, the next older one of the same line is used. */
struct cpu_row {
	const char *vendor;
	unsigned family, model_lo, model_hi;
	const char *names; /* space-separated fallback chain */
};

static const struct cpu_row cpu_rows[] = {
	{"AuthenticAMD", 0x1a, 0x00, 0xff, "znver5 znver4 znver3 znver2 znver1"},
	{"AuthenticAMD", 0x19, 0x10, 0x1f, "znver4 znver3 znver2 znver1"},
	{"AuthenticAMD", 0x19, 0x60, 0x7f, "znver4 znver3 znver2 znver1"},
	{"AuthenticAMD", 0x19, 0xa0, 0xaf, "znver4 znver3 znver2 znver1"},
	{"AuthenticAMD", 0x19, 0x00, 0xff, "znver3 znver2 znver1"},
	{"AuthenticAMD", 0x17, 0x30, 0xff, "znver2 znver1"},
	{"AuthenticAMD", 0x17, 0x00, 0x2f, "znver1"},
	{"AuthenticAMD", 0x16, 0x00, 0xff, "btver2"},
	{"AuthenticAMD", 0x15, 0x60, 0x7f, "bdver4 bdver3 bdver2 bdver1"},
	{"AuthenticAMD", 0x15, 0x30, 0x3f, "bdver3 bdver2 bdver1"},
	{"AuthenticAMD", 0x15, 0x10, 0x1f, "bdver2 bdver1"},
	{"AuthenticAMD", 0x15, 0x00, 0x0f, "bdver1"},
	{"GenuineIntel", 6, 0xad, 0xae, "graniterapids sapphirerapids icelake-server skylake-avx512 skylake"},
	{"GenuineIntel", 6, 0x8f, 0x8f, "sapphirerapids icelake-server skylake-avx512 skylake"},
	{"GenuineIntel", 6, 0xcf, 0xcf, "emeraldrapids sapphirerapids icelake-server skylake-avx512 skylake"},
	{"GenuineIntel", 6, 0x97, 0x97, "alderlake skylake"},
	{"GenuineIntel", 6, 0x9a, 0x9a, "alderlake skylake"},
	{"GenuineIntel", 6, 0xb7, 0xb7, "raptorlake alderlake skylake"},
	{"GenuineIntel", 6, 0xba, 0xba, "raptorlake alderlake skylake"},
	{"GenuineIntel", 6, 0xbf, 0xbf, "raptorlake alderlake skylake"},
	{"GenuineIntel", 6, 0xaa, 0xac, "meteorlake alderlake skylake"},
	{"GenuineIntel", 6, 0x8c, 0x8d, "tigerlake icelake-client skylake"},
	{"GenuineIntel", 6, 0xa7, 0xa7, "rocketlake icelake-client skylake"},
	{"GenuineIntel", 6, 0x6a, 0x6a, "icelake-server skylake-avx512 skylake"},
	{"GenuineIntel", 6, 0x6c, 0x6c, "icelake-server skylake-avx512 skylake"},
	{"GenuineIntel", 6, 0x7d, 0x7e, "icelake-client skylake"},
	{"GenuineIntel", 6, 0x55, 0x55, "skylake-avx512 skylake"},
	{"GenuineIntel", 6, 0x4e, 0x4e, "skylake"},
	{"GenuineIntel", 6, 0x5e, 0x5e, "skylake"},
	{"GenuineIntel", 6, 0x8e, 0x8e, "skylake"},
	{"GenuineIntel", 6, 0x9e, 0x9e, "skylake"},
	{"GenuineIntel", 6, 0xa5, 0xa6, "skylake"},
	{"GenuineIntel", 6, 0x3d, 0x3d, "broadwell haswell"},
	{"GenuineIntel", 6, 0x47, 0x47, "broadwell haswell"},
	{"GenuineIntel", 6, 0x4f, 0x4f, "broadwell haswell"},
	{"GenuineIntel", 6, 0x56, 0x56, "broadwell haswell"},
	{"GenuineIntel", 6, 0x3c, 0x3c, "haswell"},
	{"GenuineIntel", 6, 0x3f, 0x3f, "haswell"},
	{"GenuineIntel", 6, 0x45, 0x46, "haswell"},
	{"GenuineIntel", 6, 0x3a, 0x3a, "ivybridge sandybridge"},
	{"GenuineIntel", 6, 0x3e, 0x3e, "ivybridge sandybridge"},
	{"GenuineIntel", 6, 0x2a, 0x2a, "sandybridge"},
	{"GenuineIntel", 6, 0x2d, 0x2d, "sandybridge"},
	{"GenuineIntel", 6, 0x5c, 0x5c, "goldmont"},
	{"GenuineIntel", 6, 0x5f, 0x5f, "goldmont"},
	{"GenuineIntel", 6, 0x7a, 0x7a, "goldmont-plus goldmont"},
	{"GenuineIntel", 6, 0x86, 0x86, "tremont goldmont-plus goldmont"},
	{"GenuineIntel", 6, 0x96, 0x96, "tremont goldmont-plus goldmont"},
	{"GenuineIntel", 6, 0x9c, 0x9c, "tremont goldmont-plus goldmont"},
};

/* "AuthenticAMD,26,2,1" (perf's CPUID feature); else this host's /proc/cpuinfo. */
static int parse_cpuid(const char *cpuid, char *vendor, size_t vn, unsigned *fam, unsigned *model)
{
	if (cpuid && *cpuid) {
		const char *c = strchr(cpuid, ',');
		if (!c || (size_t)(c - cpuid) >= vn)
			return -1;
		memcpy(vendor, cpuid, (size_t)(c - cpuid));
		vendor[c - cpuid] = 0;
		return sscanf(c + 1, "%u,%u", fam, model) == 2 ? 0 : -1;
	}
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return -1;
	char line[512];
	int got = 0;
	vendor[0] = 0;
	while (got != 7 && fgets(line, sizeof(line), f)) {
		char v[64];
		if (!(got & 1) && sscanf(line, "vendor_id : %63s", v) == 1)
			snprintf(vendor, vn, "%s", v), got |= 1;
		else if (!(got & 2) && sscanf(line, "cpu family : %u", fam) == 1)
			got |= 2;
		else if (!(got & 4) && sscanf(line, "model : %u", model) == 1)
			got |= 4;
	}
	fclose(f);
	return got == 7 ? 0 : -1;
}

/* Whether the help listing of llvm-mca -mcpu=help names cpu. */
static int knows_cpu(const char *help, const char *cpu)
{
	size_t l = strlen(cpu);
	for (const char *p = help; (p = strstr(p, cpu)); p += l)
		if ((p == help || isspace((unsigned char)p[-1])) && (isspace((unsigned char)p[l]) || !p[l]))
			return 1;
	return 0;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

int pmcfi_hbbp_cost_model_find(const char *mca, const char *mcpu, const char *cpuid,
			       struct pmcfi_hbbp_cost_model *cm)
{
	memset(cm, 0, sizeof(*cm));
	const char *env = getenv("PMCF_LLVM_MCA");
	if (!mca && env && *env)
		mca = env;
	if (mca) {
		if (strlen(mca) >= sizeof(cm->mca)) {
			snprintf(cm->note, sizeof(cm->note),
				 "the llvm-mca path is %zu bytes long, more than %zu", strlen(mca),
				 sizeof(cm->mca) - 1);
			return 0;
		}
		if (!executable(mca)) {
			snprintf(cm->note, sizeof(cm->note), "llvm-mca '%s' is not an executable file", mca);
			return 0;
		}
		snprintf(cm->mca, sizeof(cm->mca), "%s", mca);
	} else if (find_on_path(cm->mca, sizeof(cm->mca)) != 0) {
		snprintf(cm->note, sizeof(cm->note),
			 "no llvm-mca on PATH (Debian: apt-get install "
			 "llvm-16, see scripts/install-deps.sh)");
		cm->mca[0] = 0;
		return 0;
	}
	char vendor[64] = "";
	unsigned fam = 0, model = 0;
	int have_cpu = parse_cpuid(cpuid, vendor, sizeof(vendor), &fam, &model) == 0;
	snprintf(cm->cpu, sizeof(cm->cpu), have_cpu ? "%s family 0x%x model 0x%x" : "an unknown CPU", vendor,
		 fam, model);
	if (mcpu) {
		snprintf(cm->mcpu, sizeof(cm->mcpu), "%s", mcpu);
		cm->ok = 1;
		return 0;
	}
	struct scratch s;
	int rc = scratch_open(&s);
	if (rc)
		return rc;
	char *argv[] = {cm->mca, "-mtriple=x86_64-unknown-linux-gnu", "-mcpu=help", NULL};
	int st = run_tool(argv, NULL, s.out);
	char *help = st >= 0 ? slurp(s.out) : NULL;
	scratch_close(&s);
	if (st < 0 || !help) {
		free(help);
		snprintf(cm->note, sizeof(cm->note), "cannot run %s: %s", cm->mca,
			 st < 0 ? strerror(-st) : "no output");
		return 0;
	}
	const struct cpu_row *row = NULL;
	for (size_t i = 0; have_cpu && !row && i < PMCF_ARRAY_SIZE(cpu_rows); i++)
		if (!strcmp(cpu_rows[i].vendor, vendor) && cpu_rows[i].family == fam &&
		    model >= cpu_rows[i].model_lo && model <= cpu_rows[i].model_hi)
			row = &cpu_rows[i];
	if (!row) {
		free(help);
		snprintf(cm->note, sizeof(cm->note),
			 "%s has no LLVM cost model known to pmcfuse "
			 "(give one: mcpu; the command's --mcpu)",
			 cm->cpu);
		return 0;
	}
	char first[32] = "";
	for (const char *p = row->names; *p;) {
		size_t l = strcspn(p, " ");
		char name[32];
		snprintf(name, sizeof(name), "%.*s", (int)l, p);
		if (!first[0])
			snprintf(first, sizeof(first), "%s", name);
		if (knows_cpu(help, name)) {
			snprintf(cm->mcpu, sizeof(cm->mcpu), "%s", name);
			break;
		}
		p += l + (p[l] == ' ');
	}
	free(help);
	if (!cm->mcpu[0]) {
		snprintf(cm->note, sizeof(cm->note),
			 "%s (%s) is not known to %s, nor an older model of "
			 "its line",
			 cm->cpu, first, base_name(cm->mca));
		return 0;
	}
	if (strcmp(first, cm->mcpu))
		snprintf(cm->cpu_note, sizeof(cm->cpu_note), "%s, unknown to this llvm-mca", first);
	cm->ok = 1;
	return 0;
}

int pmcfi_hbbp_cost_model_describe(const struct pmcfi_hbbp_cost_model *cm, char *out, size_t n)
{
	int l;
	if (!cm->ok)
		l = snprintf(out, n, "%s", cm->note);
	else if (cm->cpu_note[0])
		l = snprintf(out, n, "%s -mcpu=%s (this CPU is %s)", base_name(cm->mca), cm->mcpu,
			     cm->cpu_note);
	else
		l = snprintf(out, n, "%s -mcpu=%s", base_name(cm->mca), cm->mcpu);
	if (l < 0 || (size_t)l >= n)
		return pmcfi_fail(PMCF_EINVAL,
				  "imix: the cost model's description (%d bytes) does not fit %zu", l, n - 1);
	return 0;
}

/* ---- one llvm-mca run over every block -------------------------------------- */

/* Appends the Intel-syntax text of a block, one instruction a line;
 * dropped[k] lines (assembler errors of a previous try) are left out. */
static int write_block(FILE *f, const ZydisDecoder *dec, const ZydisFormatter *fmt,
		       const pmcf_imix_code_block *b, unsigned label, unsigned *line,
		       const unsigned char *drop, size_t ndrop)
{
	size_t off = 0;
	while (off < b->nbytes) {
		ZydisDecodedInstruction d;
		ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
		if (ZYAN_FAILED(ZydisDecoderDecodeFull(dec, b->bytes + off, b->nbytes - off, &d, ops)))
			return -1;
		char text[256];
		if (d.mnemonic == ZYDIS_MNEMONIC_NOP) {
			snprintf(text, sizeof(text), "nop"); /* LLVM takes no operands of long NOPs */
		} else if ((d.attributes & ZYDIS_ATTRIB_IS_RELATIVE) &&
			   d.meta.branch_type != ZYDIS_BRANCH_TYPE_NONE) {
			/* LLVM's Intel parser takes no absolute branch targets: branch
			 * to the block's own start (exact for the loop llvm-mca runs) */
			snprintf(text, sizeof(text), "%s .Lb%u", ZydisMnemonicGetString(d.mnemonic), label);
		} else if (ZYAN_FAILED(ZydisFormatterFormatInstruction(fmt, &d, ops, d.operand_count_visible,
								       text, sizeof(text), b->start + off,
								       NULL))) {
			return -1;
		}
		off += d.length;
		++*line;
		if (*line < ndrop && drop[*line])
			fprintf(f, "# dropped: %s\n", text);
		else
			fprintf(f, "%s\n", text);
	}
	return 0;
}

/* Marks the input lines that llvm-mca reports errors at ("FILE:LINE:COL:
 * error:"); returns how many new ones. */
static size_t mark_errors(const char *out, const char *in, unsigned char *drop, size_t ndrop)
{
	size_t l = strlen(in), marked = 0;
	for (const char *p = out; (p = strstr(p, in)); p += l) {
		char *end;
		if (p[l] != ':')
			continue;
		unsigned long ln = strtoul(p + l + 1, &end, 10);
		if (*end == ':')
			strtoul(end + 1, &end, 10);
		if (!strncmp(end, ": error", 7) && ln < ndrop && !drop[ln]) {
			drop[ln] = 1;
			marked++;
		}
	}
	return marked;
}

/* "[N] Code Region - bK" ... "Iterations: I" ... "Total Cycles: C". */
static void parse_regions(const char *out, double *cycles, size_t n)
{
	for (const char *p = out; (p = strstr(p, "Code Region - b"));) {
		p += strlen("Code Region - b");
		char *end;
		unsigned long k = strtoul(p, &end, 10);
		const char *it = strstr(end, "Iterations:"), *tc = strstr(end, "Total Cycles:");
		const char *next = strstr(end, "Code Region - b");
		if (!it || !tc || (next && tc > next) || k >= n)
			continue;
		double iters = strtod(it + strlen("Iterations:"), NULL);
		double c = strtod(tc + strlen("Total Cycles:"), NULL);
		if (iters > 0 && c > 0)
			cycles[k] = c / iters;
		pmcfi_log(PMCF_LOG_DEBUG, "imix: cost of block %lu: %.3f cycles", k, cycles[k]);
	}
}

int pmcfi_hbbp_cost_blocks(const struct pmcfi_hbbp_cost_model *cm, const pmcf_imix_code_block *blocks,
			   size_t n, double *cycles)
{
	for (size_t i = 0; i < n; i++)
		cycles[i] = 0;
	if (!n)
		return 0;
	ZydisDecoder dec;
	ZydisFormatter fmt;
	if (ZYAN_FAILED(ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)) ||
	    ZYAN_FAILED(ZydisFormatterInit(&fmt, ZYDIS_FORMATTER_STYLE_INTEL)) ||
	    ZYAN_FAILED(ZydisFormatterSetProperty(&fmt, ZYDIS_FORMATTER_PROP_FORCE_SIZE, ZYAN_TRUE)))
		return pmcfi_fail(PMCF_ENOTSUP, "Zydis init failed");
	size_t lines = 2;
	for (size_t i = 0; i < n; i++)
		lines += blocks[i].len + 3;
	unsigned char *drop = calloc(lines + 1, 1);
	if (!drop)
		return pmcfi_fail(PMCF_ENOMEM, "out of memory");
	struct scratch s;
	int rc = scratch_open(&s);
	if (rc) {
		free(drop);
		return rc;
	}
	char mcpu[96];
	snprintf(mcpu, sizeof(mcpu), "-mcpu=%s", cm->mcpu);
	char *argv[] = {(char *)cm->mca,
			"-mtriple=x86_64-unknown-linux-gnu",
			mcpu,
			"-iterations=" MCA_ITERATIONS,
			"-resource-pressure=0",
			"-instruction-info=0",
			s.in,
			NULL};
	char *out = NULL;
	for (int attempt = 0; !rc && attempt <= MAX_RETRIES; attempt++) {
		FILE *f = fopen(s.in, "w");
		if (!f) {
			rc = pmcfi_fail(-errno, "cannot write %s: %s", s.in, strerror(errno));
			break;
		}
		unsigned line = 1;
		fprintf(f, ".intel_syntax noprefix\n");
		for (size_t i = 0; i < n; i++) {
			fprintf(f, "# LLVM-MCA-BEGIN b%zu\n.Lb%zu:\n", i, i);
			line += 2;
			if (write_block(f, &dec, &fmt, &blocks[i], (unsigned)i, &line, drop, lines) != 0)
				fprintf(f, "# undecodable\n");
			fprintf(f, "# LLVM-MCA-END\n");
			line++;
		}
		if (fclose(f) != 0) {
			rc = pmcfi_fail(-EIO, "cannot write %s", s.in);
			break;
		}
		int st = run_tool(argv, NULL, s.out);
		free(out);
		out = slurp(s.out);
		if (st < 0) {
			rc = pmcfi_fail(st, "cannot run %.160s: %s", cm->mca, strerror(-st));
		} else if (!out) {
			rc = pmcfi_fail(PMCF_ENOMEM, "out of memory");
		} else if (st == 0) {
			parse_regions(out, cycles, n);
			break;
		} else if (!mark_errors(out, s.in, drop, lines)) {
			/* an error without a line: say it, leave every block without a cost */
			char *nl = strchr(out, '\n');
			if (nl)
				*nl = 0;
			pmcfi_log(PMCF_LOG_WARN, "imix: %s failed: %s", cm->mca, out);
			break;
		}
	}
	free(out);
	free(drop);
	if (!getenv("PMCF_KEEP_MCA_INPUT"))
		scratch_close(&s);
	return rc;
}
