#!/bin/bash
# Every global name the library's objects define has the pmcf prefix
# (pmcf_* public, pmcfi_MODULE_* internal: issue 37), so that a program
# linking the static archive meets no name of ours outside that prefix.
#   scripts/archive-prefixes.sh OBJ...         check these objects
#   scripts/archive-prefixes.sh --self-test CC shows the check can fail
set -u
if [ "${1:-}" = --self-test ]; then
	d=$(mktemp -d) || exit 2
	trap 'rm -rf "$d"' EXIT
	printf 'int pmcfi_x_ok(void) { return 1; }\nint report_bad(void) { return 2; }\n' >"$d/a.c"
	"$2" -c -o "$d/a.o" "$d/a.c" || exit 2
	if out=$(bash "$0" "$d/a.o"); then
		echo "self-test: an object defining report_bad passed: $out"
		exit 1
	fi
	echo "self-test: an object defining report_bad is refused"
	exit 0
fi
[ $# -gt 0 ] || { echo "usage: $0 OBJ... | --self-test CC" >&2; exit 2; }
nm_out=$(nm -g --defined-only "$@") || { echo "nm failed" >&2; exit 2; }
# names in __ are the compiler's (a sanitizer's __odr_asan.NAME beside NAME)
bad=$(printf '%s\n' "$nm_out" | awk 'NF == 3 && $3 !~ /^pmcf/ && $3 !~ /^__/ { print $3 }' | sort -u)
if [ -n "$bad" ]; then
	echo "global names without the pmcf prefix (internal ones are pmcfi_MODULE_*):" $bad
	exit 1
fi
echo "every global name of $# objects has the pmcf prefix"
