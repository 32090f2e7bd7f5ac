#!/usr/bin/env bash
# Builds the libFuzzer harnesses (fuzz/, clang-16 + ASan + UBSan) and runs
# each for a bounded time on a copy of its seed corpus (fuzz/corpus/<name>/)
# after replaying its regressions (fuzz/regressions/<name>/). Fails on any
# finding: crashes, sanitizer reports, leaks, timeouts and out-of-memory; the
# inputs are kept in $FUZZ_OUT/<name>-crash-* and so on.
#
#   scripts/fuzz.sh [NAME...]        (default: every harness)
#   FUZZ_SECONDS=60  seconds per harness     FUZZ_JOBS=nproc  harnesses at once
#   FUZZ_BUILD=build-fuzz  build folder      FUZZ_OUT=$FUZZ_BUILD/out  findings, logs
#   CC=clang-16      the compiler (any clang with libFuzzer)
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${FUZZ_SECONDS:-60}
JOBS=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}
BUILD=${FUZZ_BUILD:-build-fuzz}
OUT=${FUZZ_OUT:-$BUILD/out}
CC=${CC:-clang-16}
case "$CC" in *clang*) ;; *) CC=clang-16 ;; esac # make may export CC=cc
ALL=(profile plan plan_fields emd_csv perfdata callgrind spec evlist combine)
NAMES=("$@")
[ ${#NAMES[@]} -gt 0 ] || NAMES=("${ALL[@]}")

command -v "$CC" >/dev/null || { echo "fuzz: $CC not found (scripts/install-deps.sh installs clang-16 and libclang-rt-16-dev)" >&2; exit 2; }
CC=$CC cmake -S fuzz -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD" -j"$JOBS" >/dev/null
rm -rf "$OUT" && mkdir -p "$OUT"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export TMPDIR=$(mktemp -d)
trap 'rm -rf "$TMPDIR"' EXIT

fuzz_one() {
	local name=$1 bin=$BUILD/fuzz_$1 log=$OUT/$1.log work=$OUT/$1-corpus
	mkdir -p "$work"
	cp fuzz/corpus/"$name"/* "$work"/ 2>/dev/null || true
	if compgen -G "fuzz/regressions/$name/*" >/dev/null; then
		if ! "$bin" -close_fd_mask=3 -timeout=20 fuzz/regressions/"$name"/* >"$log.regressions" 2>&1; then
			echo "fuzz: $name: a regression input fails again (log: $log.regressions)"
			return 1
		fi
	fi
	local rc=0
	"$bin" -max_total_time="$SECONDS_EACH" -timeout=20 -rss_limit_mb=2048 -max_len=262144 \
		-close_fd_mask=3 -print_final_stats=1 -artifact_prefix="$OUT/$name-" "$work" >"$log" 2>&1 || rc=$?
	local found
	found=$(ls "$OUT/$name"-{crash,leak,timeout,oom,slow-unit}-* 2>/dev/null || true)
	if [ $rc -ne 0 ] || [ -n "$found" ]; then
		echo "fuzz: $name: FOUND a bug (exit $rc): ${found:-see log}"
		grep -E 'ERROR|SUMMARY|runtime error|#[0-9]+ 0x' "$log" | head -30
		echo "fuzz: $name: full log $log"
		return 1
	fi
	echo "fuzz: $name: clean for ${SECONDS_EACH} s ($(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$') runs, corpus $(ls "$work" | wc -l) inputs)"
}

start=$(date +%s)
fail=0
pids=()
for name in "${NAMES[@]}"; do
	[ -x "$BUILD/fuzz_$name" ] || { echo "fuzz: no harness '$name' (harnesses: ${ALL[*]})" >&2; exit 2; }
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || fail=1; done
	fuzz_one "$name" &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || fail=1; done
echo "fuzz: ${#NAMES[@]} harnesses, ${SECONDS_EACH} s each, $(( $(date +%s) - start )) s in all: $([ $fail -eq 0 ] && echo clean || echo FINDINGS)"
exit $fail
