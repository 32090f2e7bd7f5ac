# Assertion helpers for the end-to-end scripts (sourced by run.sh).
ASSERTIONS=0
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { ASSERTIONS=$((ASSERTIONS + 1)); }
# expect_ok CMD...: the command succeeds; its stdout is in $OUT, stderr in $ERR.
expect_ok() {
	local rc=0
	"$@" >out.txt 2>err.txt || rc=$?
	OUT=$(cat out.txt); ERR=$(cat err.txt)
	[ "$rc" -eq 0 ] || fail "expected success (got $rc): $* -- stderr: $ERR"
	ok
}
# expect_fail RC CMD...: the command exits with RC and prints exactly one
# line "pmcfuse: <verb>: ..." on stderr.
expect_fail() {
	local want=$1 rc=0; shift
	"$@" >out.txt 2>err.txt || rc=$?
	OUT=$(cat out.txt); ERR=$(cat err.txt)
	[ "$rc" -eq "$want" ] || fail "expected exit $want, got $rc: $* -- stderr: $ERR"
	[ "$(wc -l <err.txt)" -eq 1 ] || fail "expected one error line, got: $ERR"
	[[ "$ERR" == pmcfuse:* ]] || fail "error line does not start with 'pmcfuse:': $ERR"
	ok
}
# expect_match REGEX TEXT
expect_match() { [[ "$2" =~ $1 ]] || fail "expected /$1/ in: ${2:0:2000}"; ok; }
expect_nomatch() { [[ ! "$2" =~ $1 ]] || fail "did not expect /$1/ in: ${2:0:2000}"; ok; }
expect_eq() { [ "$1" == "$2" ] || fail "expected '$1', got '$2' ${3:-}"; ok; }
# json EXPR FILE: evaluates a jq expression
json() { jq -r "$1" "$2"; }
# omp_examples: 0 when the OpenMP examples are built; else prints why they
# are not (and fails when the build was configured to have them).
omp_examples() {
	[ -x "$(dirname "$PMCFUSE")/examples/cholesky" ] && return 0
	[ "${PMCF_HAVE_OMP:-OFF}" = ON ] && fail "the build has OpenMP but the examples were not built"
	echo "SKIP (OpenMP cases): examples not built (no clang-16/libomp, or -DPMCF_OPENMP=OFF)"
	return 1
}
# tracepoints_usable: 0 when pmcfuse can count tracepoints here (tracefs
# mounted or mountable, readable, kernel events allowed); else prints why.
tracepoints_usable() {
	local why
	why=$("$PMCFUSE" events --check sched:sched_switch 2>&1 >/dev/null) && return 0
	echo "SKIP (tracepoint cases): ${why#pmcfuse: events: }"
	return 1
}
