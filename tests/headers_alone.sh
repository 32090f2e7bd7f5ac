#!/bin/bash
# Every public header compiles on its own, first thing in a translation unit,
# as C11 and as C++20 (g++), with -Wall -Wextra -Werror, with each of its
# PMCF_X_INIT macros initialising its struct (issue 37: a header
# that leans on another one being included before it fails here). Also:
# module headers include pmcfuse/base.h, never the umbrella pmcfuse/pmcfuse.h,
# and the umbrella includes every header.
# Twice each, so that a missing include guard fails too. One line per
# failing header.
# usage: headers_alone.sh INCLUDE_DIR [CC [CXX]]
#        headers_alone.sh --self-test   (shows the check can fail)
set -u
if [ "${1:-}" = --self-test ]; then
	d=$(mktemp -d) || exit 2
	trap 'rm -rf "$d"' EXIT
	mkdir -p "$d/pmcfuse"
	printf '#ifndef OK_H\n#define OK_H\n#include "pmcfuse/base.h"\nenum { OK_X = PMCF_EINVAL };\n#endif\n' >"$d/pmcfuse/ok.h"
	printf '#ifndef BAD_H\n#define BAD_H\n#include "pmcfuse/base.h"\ntypedef pmcf_plan_opts bad_t;\n#endif\n' >"$d/pmcfuse/bad.h"
	cp "$(dirname "$0")/../include/pmcfuse/base.h" "$d/pmcfuse/"
	printf '#ifndef U_H\n#define U_H\n#include "pmcfuse/base.h"\n#include "pmcfuse/ok.h"\n#include "pmcfuse/bad.h"\n#endif\n' \
		>"$d/pmcfuse/pmcfuse.h"
	out=$("$0" "$d" "${2:-cc}" "${3:-g++}" 2>&1)
	if [ $? -eq 0 ] || ! grep -q 'bad.h' <<<"$out" || grep -q 'ok.h' <<<"$out"; then
		echo "self-test: the check did not fail on exactly the broken header: $out"
		exit 1
	fi
	echo "self-test: a header that does not stand alone fails"
	exit 0
fi
inc=$1
cc=${2:-cc}
cxx=${3:-g++}
command -v "$cxx" >/dev/null || { echo "skipped: no C++ compiler ($cxx)"; exit 77; }
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
fail=0
n=0
for h in "$inc"/pmcfuse/*.h; do
	name=pmcfuse/$(basename "$h")
	n=$((n + 1))
	printf '#include "%s"\n#include "%s"\nint pmcf_headers_alone_probe;\n' "$name" "$name" >"$tmp/t.c"
	# each PMCF_X_INIT macro the header defines initialises its struct
	# (C, and C++20 for the designated initialisers)
	grep -oE '^#define PMCF_[A-Z0-9_]+_INIT( |$)' "$h" | sed 's/^#define //; s/ $//' | sort -u | while read -r m; do
		t=$(tr 'A-Z' 'a-z' <<<"${m%_INIT}")
		printf '%s probe_%s = %s;\n' "$t" "$t" "$m"
	done >>"$tmp/t.c"
	cp "$tmp/t.c" "$tmp/t.cc"
	if ! out=$("$cc" -std=c11 -Wall -Wextra -Werror -pedantic -I"$inc" -c "$tmp/t.c" -o "$tmp/t.o" 2>&1); then
		echo "$name does not compile alone as C: $(head -3 <<<"$out" | tr '\n' ' ')"
		fail=1
	fi
	if ! out=$("$cxx" -std=c++20 -Wall -Wextra -Werror -I"$inc" -c "$tmp/t.cc" -o "$tmp/t.o" 2>&1); then
		echo "$name does not compile alone as C++: $(head -3 <<<"$out" | tr '\n' ' ')"
		fail=1
	fi
	case $name in pmcfuse/pmcfuse.h) ;;
	*) grep -q "#include \"$name\"" "$inc/pmcfuse/pmcfuse.h" ||
		{ echo "the umbrella pmcfuse/pmcfuse.h does not include $name"; fail=1; } ;;
	esac
	case $name in pmcfuse/pmcfuse.h | pmcfuse/base.h) ;;
	*) if grep -q '#include "pmcfuse/pmcfuse.h"' "$h"; then
		echo "$name includes the umbrella pmcfuse/pmcfuse.h (include pmcfuse/base.h and the module headers it needs)"
		fail=1
	fi ;;
	esac
done
[ $fail -eq 0 ] && echo "headers_alone: $n headers compile alone as C and C++"
exit $fail
