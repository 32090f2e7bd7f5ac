#!/bin/bash
# The pmcfuse command uses only the public library (issue 19): no object of
# the command may leave undefined a symbol that the library defines but does
# not export (pmcfi_*, hbbpi_*, cmbi_*, plani_*, sim_*, report_*, ... : what
# libpmcfuse.so hides), unless an object of the command defines it too (the
# helpers of src/x/, compiled into both). Fails with one line per use.
#
# usage: cli_public_symbols.sh LIBPMCFUSE.so LIBPMCFUSE_INTERNAL.a CLI_OBJECT...
#        cli_public_symbols.sh --self-test     show that the check can fail
set -u

# Uses allowed by name ("file.c symbol" lines; none left: the command links
# only libpmcfuse.so, so a new one fails to link before this test runs). An
# entry that no longer occurs fails, so the list only shrinks.
KNOWN="
"

# check SO ARCHIVE OBJ...: prints the problems, returns 1 when there are any
check() {
	local so=$1 ar=$2 known=$3
	shift 3
	local tmp
	tmp=$(mktemp -d) || return 2
	nm -D --defined-only "$so" | awk 'NF >= 3 {sub(/@.*/, "", $3); print $3}' | sort -u >"$tmp/exported"
	nm -g --defined-only "$ar" 2>/dev/null | awk 'NF == 3 && $2 != "U" {print $3}' | sort -u >"$tmp/defined"
	[ -s "$tmp/exported" ] && [ -s "$tmp/defined" ] || {
		echo "cannot read the symbols of $so or $ar"
		rm -rf "$tmp"
		return 2
	}
	# a symbol that an object of the command defines is the command's own
	# (the helpers of src/x/ compiled into it, curl's curlx model)
	nm -g --defined-only "$@" 2>/dev/null | awk 'NF == 3 {print $3}' | sort -u >"$tmp/own"
	comm -23 "$tmp/defined" "$tmp/exported" | comm -23 - "$tmp/own" >"$tmp/internal"
	# one nm for every object: "path/x.c.o:  U sym" -> "x.c sym"
	nm -u -A "$@" | awk '{f = $1; sub(/:$/, "", f); sub(/.*\//, "", f); sub(/\.o$/, "", f); print f, $NF}' >"$tmp/uses"
	# "file symbol" for every undefined symbol that is internal
	awk 'NR == FNR {i[$1] = 1; next} ($2 in i)' "$tmp/internal" "$tmp/uses" | sort -u >"$tmp/found"
	printf '%s\n' "$known" | awk 'NF == 2' | sort -u >"$tmp/known"
	local bad=0
	while read -r f s; do
		echo "$f uses the internal symbol $s (the command links only the public library)"
		bad=1
	done < <(comm -23 "$tmp/found" "$tmp/known")
	while read -r f s; do
		echo "$f no longer uses $s: remove it from KNOWN in $0"
		bad=1
	done < <(comm -13 "$tmp/found" "$tmp/known")
	rm -rf "$tmp"
	return $bad
}

if [ "${1:-}" = --self-test ]; then
	# a library with an exported and a hidden function, and a command
	# object calling each
	t=$(mktemp -d) || exit 2
	trap 'rm -rf "$t"' EXIT
	cd "$t" || exit 2
	printf '%s\n' '__attribute__((visibility("default"))) int pub(void) { return 1; }' \
		'int hid(void); int hid(void) { return 2; }' >lib.c
	printf '%s\n' 'int pub(void); int a(void); int a(void) { return pub(); }' >a.c
	printf '%s\n' 'int hid(void); int b(void); int b(void) { return hid(); }' >b.c
	printf '%s\n' 'int hid(void); int hid(void) { return 3; }' >own.c
	cc -fPIC -fvisibility=hidden -c lib.c a.c b.c own.c || exit 2
	cc -shared -o lib.so lib.o && ar rc lib.a lib.o || exit 2
	check lib.so lib.a "" a.o >out 2>&1 || { echo "self-test: a public use was refused"; cat out; exit 1; }
	check lib.so lib.a "" a.o b.o >out 2>&1 && { echo "self-test: an internal use was not found"; exit 1; }
	grep -q '^b uses the internal symbol hid' out || { echo "self-test: wrong message"; cat out; exit 1; }
	check lib.so lib.a "b hid" a.o b.o >out 2>&1 || { echo "self-test: a known use was refused"; exit 1; }
	check lib.so lib.a "b hid" a.o >out 2>&1 && { echo "self-test: a stale known entry passed"; exit 1; }
	check lib.so lib.a "" a.o b.o own.o >out 2>&1 || { echo "self-test: a helper compiled into the command was refused"; cat out; exit 1; }
	echo "self-test passed"
	exit 0
fi

[ $# -ge 3 ] || { sed -n '2,9p' "$0"; exit 2; }
so=$1 ar=$2
shift 2
check "$so" "$ar" "$KNOWN" "$@"
