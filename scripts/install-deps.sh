#!/usr/bin/env bash
# Installs the Debian 12 packages pmcfuse needs to build, test and run.
# Idempotent: does nothing when everything is there. Needs root (or sudo) only
# when something is missing.
set -euo pipefail

PACKAGES=(
	build-essential cmake pkg-config   # toolchain (build-essential brings dpkg-dev: dpkg-shlibdeps for make package)
	libsqlite3-dev sqlite3             # profile store (+ CLI for inspecting files)
	libjansson-dev                     # JSON (plans, machine models, catalogues)
	libpfm4-dev                        # event names -> perf attributes
	libpapi-dev                        # PAPI presets (PAPI_TOT_INS, …) -> this CPU's native events
	libcmocka-dev                      # unit tests
	jq                                 # end-to-end tests read JSON output
	python3-jsonschema                 # tests/e2e/json_schema.sh: outputs against docs/schema/*.json
	man-db groff-base                  # tests/e2e/man.sh renders every man page
	linux-perf                         # perf, for comparisons and instruction mixes
	libelf-dev libdw-dev libzydis-dev  # imix: ELF symbols and lines, disassembly; GNU build-ids
	nettle-dev                         # SHA-256 of binaries and campaign digests (instead of our own)
	valgrind                           # imix reference (callgrind)
	lua5.4 xz-utils                    # bench/imix-validate: Debian programs it measures (with gzip, sort, sqlite3)
	clang-format                       # scripts/format.sh, the format_check test (clang-format 14)
	universal-ctags                    # scripts/long-functions.sh, the long_functions test (end: of each function)
	llvm-16                            # llvm-mca-16: imix cost model for timer samples
	clang-16 libomp-16-dev libclang-rt-16-dev # OpenMP examples, the OMPT collector; libFuzzer (make fuzz)
	gnuplot-nox                        # categorize --plot (pngcairo terminal)
	chromium                           # tests/e2e/report.sh renders the HTML report headless
	python3-pot                        # bench_emd: POT ot.emd2 as the side-by-side baseline
	slurm-wlm munge                    # tests/e2e/slow_slurm.sh: a single-node Slurm cluster (run --launcher slurm)
	libotf2-trace-dev otf2-tools       # export --format otf2 (optional at build time); otf2-print in tests
	openmpi-bin libopenmpi-dev         # examples/mpi_tiles, tests/e2e/mpi.sh (MPI + OpenMP programs)
	strace                             # tests/e2e/adversarial_run.sh counts perf_event_open calls (skipped without)
	qemu-system-arm gcc-aarch64-linux-gnu cpio # make pmu-check: the emulated aarch64 machine with a PMU,
	                                   # the cross compiler, its initramfs (scripts/pmu-vm.sh; arm64 packages
	                                   # are downloaded, not installed, into build/pmu/)
)

missing=()
for p in "${PACKAGES[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "pmcfuse: installing missing Debian packages: ${missing[*]}" >&2
if [ "$(id -u)" -eq 0 ]; then
	SUDO=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	SUDO=(sudo)
else
	echo "pmcfuse: these Debian packages are missing: ${missing[*]}" >&2
	echo "pmcfuse: run as root: apt-get install ${missing[*]}   (or run make again as root)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -qq
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
