/* `pmcfuse imix`: instruction mixes from PMU samples (Hybrid Basic Block
 * Profiling, hbbp-instruction-mix): record (perf) and reference (callgrind)
 * folders made by the library (pmcf_imix_record, pmcf_imix_reference), report
 * (pivot tables), compare (§VI errors), train (the block-length rule). */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli/cli.h"
#include "pmcfuse/hbbp.h"
#include "x/x.h"
#include "cli/verbs/imix.h"

static const char verb[] = "imix";

static const char usage[] =
	"usage: pmcfuse imix record [--ebs-only] [--runtime seconds|minutes|long] [--period N]\n"
	"                           [--user-only] [--valgrind-hwcaps] -o DIR -- PROG ARGS\n"
	"       pmcfuse imix reference -o DIR -- PROG ARGS\n"
	"       pmcfuse imix report [--by KEY] [--format text|csv|json|sde] [--top N]\n"
	"                           [--method hbbp|ebs|ebs-raw|lbr] [--cutoff N] [--mcpu CPU]\n"
	"                           [--skid prev|none] [--costing C] [--rate iv|none] [--vmlinux FILE]\n"
	"                           [--arms flow|samples] [--unmeasured samples|model|bound] [-o FILE] DIR\n"
	"       pmcfuse imix compare [--normalize] [--json] [--top N] [--method M] [--cutoff N]\n"
	"                           [--mcpu CPU] [--skid prev|none] [--costing C] [--rate iv|none]\n"
	"                           [--arms flow|samples] [--unmeasured samples|model|bound]\n"
	"                           REFERENCE MEASURED\n"
	"       pmcfuse imix train [--json] REFERENCE MEASURED...\n"
	"       pmcfuse imix synth [--ebs-only|--timer] -o DIR   (test data with a known control flow)\n\n"
	"Instruction mixes from basic-block execution counts (BBEC) of PMU samples.\n"
	"record runs `perf record` with the two LBR-sampling events of HBBP on Intel\n"
	"(INST_RETIRED.PREC_DIST for EBS, BR_INST_RETIRED.NEAR_TAKEN for LBR, periods by\n"
	"expected run time), or cpu-clock with --ebs-only where there is no LBR;\n"
	"--valgrind-hwcaps masks AVX-512 from glibc (GLIBC_TUNABLES) so that it picks the\n"
	"string routines it picks under valgrind, as the reference does.\n"
	"reference runs valgrind's callgrind (--dump-instr=yes) for the exact user-mode mix.\n"
	"report prints the mix as a pivot table; KEY is mnemonic (default), isa, isa-set,\n"
	"category, packing, module, function, block or line, or two joined by a comma\n"
	"(function,mnemonic: the mix of every function, rows FUNCTION|MNEMONIC). --method picks the BBEC:\n"
	"hbbp (LBR for blocks of at most --cutoff instructions, default 18; EBS above),\n"
	"ebs or lbr. Timer samples (cpu-clock, --ebs-only) fall in proportion to time: each\n"
	"block's samples are divided by its cycles per execution from llvm-mca (found on\n"
	"PATH, or $PMCF_LLVM_MCA; --mcpu overrides the CPU of the recording); --method\n"
	"ebs-raw shows the uncorrected estimate, --skid prev charges a sample to the\n"
	"instruction before the sampled one (default none: where it fell), --costing blocks costs every\n"
	"block alone instead of pooling control-equivalent blocks (a loop body) as one region,\n"
	"--costing regions-chase adds a memory latency per pointer-chasing load.\n"
	"--rate iv (default) measures each loop's speed from its induction registers, recorded\n"
	"with the timer samples, instead of modelling it, where the samples carry them\n"
	"(docs/imix.md); --rate none: the cost model alone. With --rate iv, --arms flow\n"
	"(default) holds the two arms of a conditional branch to the branch's count and\n"
	"splits it 1/2 where one arm is too short for any sample to show; --arms samples\n"
	"counts each arm by its own samples. Code with no measured count (no loop speed,\n"
	"trip count or call-site count) is counted at the measured code's instructions per\n"
	"sample (--unmeasured samples, default: the raw estimate there); --unmeasured model:\n"
	"the cost model at the measured code's mean factor (before); --unmeasured bound: the\n"
	"lower of the two.\n"
	"compare gives the per-mnemonic error and the average weighted error, and warns\n"
	"about functions with instructions on one side only (the runs ran different code).\n"
	"--normalize compares shares (implied for EBS on cpu-clock, which has no absolute\n"
	"scale): the measured counts times reference total / measured total; the average\n"
	"error is weighted by the reference count.\n"
	"REFERENCE and MEASURED are record/reference folders, perf.data or callgrind files,\n"
	"or CSV files written by `imix report --format csv` (by mnemonic).\n"
	"train learns the block-length cut-off (a decision stump) from reference data.\n";

static int imix_record(int argc, char **argv)
{
	static const struct option lo[] = {{"ebs-only", no_argument, NULL, 'E'},
					   {"runtime", required_argument, NULL, 'R'},
					   {"period", required_argument, NULL, 'p'},
					   {"user-only", no_argument, NULL, 'u'},
					   {"valgrind-hwcaps", no_argument, NULL, 'V'},
					   {"output", required_argument, NULL, 'o'},
					   {NULL, 0, NULL, 0}};
	static const struct cli_keyword runtimes[] = {{"seconds", 0}, {"minutes", 1}, {"long", 2}};
	int k, st;
	int vg_hwcaps = 0;
	const char *out = NULL;
	pmcf_imix_record_opts o = PMCF_IMIX_RECORD_OPTS_INIT;
	int opt;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+o:", lo, NULL)) != -1) {
		switch (opt) {
		case 'E': o.ebs_only = 1; break;
		case 'u': o.user_only = 1; break;
		case 'V': vg_hwcaps = 1; break;
		case 'o':
			if (cli_out_arg(verb, optarg, "a folder"))
				return CLI_EUSAGE;
			out = optarg;
			break;
		case 'p':
			if (cli_parse_uint(verb, "--period", optarg, 1, 1ul << 40, &o.period))
				return CLI_EUSAGE;
			break;
		case 'R':
			if ((st = cli_keyword(verb, "--runtime", optarg, runtimes, 3, &k)))
				return st;
			o.runtime = k;
			break;
		default: return cli_imix_bad_option("record", argv);
		}
	}
	if (!out)
		return cli_usage_error(verb, "record: -o DIR is required");
	if (optind >= argc)
		return cli_usage_error(verb, "record: no program given (-- PROG ARGS)");
	if (vg_hwcaps) {
		/* valgrind emulates no AVX-512: without it glibc picks the
		 * string routines it picks under callgrind (imix reference), so
		 * that both run the same code (docs/imix.md) */
		static const char mask[] =
			"glibc.cpu.hwcaps=-AVX512F,-AVX512VL,-AVX512BW,-AVX512DQ,-AVX512CD";
		const char *old_t = getenv("GLIBC_TUNABLES");
		char t[2048];
		if (snprintf(t, sizeof(t), "%s%s%s", old_t && old_t[0] ? old_t : "",
			     old_t && old_t[0] ? ":" : "", mask) >= (int)sizeof(t))
			return cli_usage_error(verb, "record: GLIBC_TUNABLES is too long to add to");
		setenv("GLIBC_TUNABLES", t, 1);
	}
	int err = pmcf_imix_record(out, &o, argc - optind, argv + optind);
	return err ? cli_lib_error(verb, err, out) : CLI_OK;
}

static int imix_reference(int argc, char **argv)
{
	static const struct option lo[] = {{"output", required_argument, NULL, 'o'}, {NULL, 0, NULL, 0}};
	const char *out = NULL;
	int opt;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+o:", lo, NULL)) != -1) {
		if (opt == 'o' && cli_out_arg(verb, optarg, "a folder"))
			return CLI_EUSAGE;
		else if (opt == 'o')
			out = optarg;
		else
			return cli_imix_bad_option("reference", argv);
	}
	if (!out)
		return cli_usage_error(verb, "reference: -o DIR is required");
	if (optind >= argc)
		return cli_usage_error(verb, "reference: no program given (-- PROG ARGS)");
	int err = pmcf_imix_reference(out, argc - optind, argv + optind);
	return err ? cli_lib_error(verb, err, out) : CLI_OK;
}

static int imix_synth(int argc, char **argv)
{
	static const struct option lo[] = {{"ebs-only", no_argument, NULL, 'E'},
					   {"timer", no_argument, NULL, 'T'},
					   {"output", required_argument, NULL, 'o'},
					   {NULL, 0, NULL, 0}};
	const char *out = NULL;
	int ebs_only = 0, timer = 0, opt;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:", lo, NULL)) != -1) {
		if (opt == 'E')
			ebs_only = 1;
		else if (opt == 'T')
			timer = ebs_only = 1;
		else if (opt == 'o' && cli_out_arg(verb, optarg, "a folder"))
			return CLI_EUSAGE;
		else if (opt == 'o')
			out = optarg;
		else
			return cli_imix_bad_option("synth", argv);
	}
	if (!out || optind != argc)
		return cli_usage_error(verb, "synth: expected -o DIR");
	/* the ELF path inside perf.data must be the final one: write in place */
	struct stat sb;
	if (stat(out, &sb) == 0 && (!S_ISDIR(sb.st_mode) || rmdir(out) != 0))
		return cli_error(verb, CLI_EUSAGE, "%s exists and is not an empty folder", out);
	if (mkdir(out, 0755) != 0)
		return cli_error(verb, CLI_EENV, "cannot create %s: %s", out, strerror(errno));
	pmcf_imix_synth_opts so = PMCF_IMIX_SYNTH_OPTS_INIT;
	so.ebs_only = ebs_only;
	so.timer = timer;
	pmcf_imix_synth_block blk[8] = {PMCF_IMIX_SYNTH_BLOCK_INIT};
	size_t nblk = 0;
	char abs[4096];
	if (!realpath(out, abs)) {
		pmcfi_rm_tree(out);
		return cli_error(verb, CLI_EENV, "%s: %s", out, strerror(errno));
	}
	int rc = pmcf_imix_synth_write(abs, &so, blk, 8, &nblk);
	if (rc) {
		pmcfi_rm_tree(out);
		return cli_lib_error(verb, rc, "synth");
	}
	for (size_t i = 0; i < nblk && i < 8; i++)
		printf("block 0x%llx len %u count %.0f\n", (unsigned long long)blk[i].start, blk[i].len,
		       blk[i].count);
	return CLI_OK;
}

int cmd_imix(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		if (argc < 2)
			return cli_usage_error(verb, "expected record, reference, report, compare or train");
		fputs(usage, stdout);
		return CLI_OK;
	}
	const char *sub = argv[1];
	opterr = 0; /* the subverbs say what getopt did not take, in one line */
	if (cli_wants_help(argc - 1, argv + 1, usage))
		return CLI_OK;
	/* listed: named in the unknown-sub-command error (synth is for tests) */
	static const struct {
		const char *name;
		int (*run)(int argc, char **argv);
		int listed;
	} subs[] = {{"record", imix_record, 1},     {"reference", imix_reference, 1},
		    {"report", cli_imix_report, 1}, {"compare", cli_imix_compare, 1},
		    {"train", cli_imix_train, 1},   {"synth", imix_synth, 0}};
	char names[128];
	size_t o = 0;
	names[0] = '\0';
	for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
		if (!strcmp(sub, subs[i].name))
			return subs[i].run(argc - 1, argv + 1);
		if (subs[i].listed && o < sizeof(names))
			o += (size_t)snprintf(names + o, sizeof(names) - o, "%s%s", o ? ", " : "",
					      subs[i].name);
	}
	return cli_usage_error(verb, "unknown sub-command '%s' (%s)", sub, names);
}
