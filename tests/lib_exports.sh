#!/bin/bash
# libpmcfuse.so exports only pmcf_* names, each under the version node PMCF_1
# of src/libpmcfuse.map (issue 37), and, given the public headers, exactly the
# functions they declare PMCF_API: no helper (the pmcfi_ helpers of src/x/
# are compiled into the command instead, curl's curlx model) and nothing a
# header forgot. One line per offending symbol.
# usage: lib_exports.sh LIBPMCFUSE.so [INCLUDE_DIR]
set -u
so=$1
inc=${2:-}
bad=$(objdump -T "$so" | awk '$4 != "*UND*" && $2 ~ /g/ && NF >= 7 {
	name = $NF; ver = $(NF-1)
	if (name == "PMCF_1") next
	if (name !~ /^pmcf_/ || ver != "PMCF_1") print ver, name
}')
n=$(objdump -T "$so" | awk '$NF ~ /^pmcf_/ && $(NF-1) == "PMCF_1"' | wc -l)
if [ -n "$bad" ]; then
	echo "$bad" | sed 's/^/exported outside pmcf_*\/PMCF_1: /'
	exit 1
fi
[ "$n" -gt 100 ] || { echo "only $n pmcf_* symbols under PMCF_1 (expected the whole API)"; exit 1; }
if [ -n "$inc" ]; then
	tmp=$(mktemp -d) || exit 2
	trap 'rm -rf "$tmp"' EXIT
	objdump -T "$so" | awk '$4 != "*UND*" && $NF ~ /^pmcf_/ {print $NF}' | sort -u >"$tmp/exported"
	# the name before the first "(" of each PMCF_API declaration (which may
	# span lines; a function returning a function pointer does not occur),
	# and the name of each PMCF_API extern object
	cat "$inc"/pmcfuse/*.h | tr '\n' ' ' >"$tmp/all"
	{
		grep -o 'PMCF_API[^;(]*(' "$tmp/all" | grep -v 'PMCF_API extern' |
			grep -o 'pmcf_[A-Za-z0-9_]*[[:space:]]*($' | tr -d ' ('
		grep -o 'PMCF_API extern[^;]*;' "$tmp/all" | grep -o 'pmcf_[A-Za-z0-9_]*[[:space:]]*[[;]' | tr -d ' [;'
	} | sort -u >"$tmp/declared"
	extra=$(comm -23 "$tmp/exported" "$tmp/declared")
	missing=$(comm -13 "$tmp/exported" "$tmp/declared")
	[ -z "$extra" ] || echo "$extra" | sed 's/^/exported but declared in no public header: /'
	[ -z "$missing" ] || echo "$missing" | sed 's/^/declared PMCF_API but not exported: /'
	[ -z "$extra$missing" ] || exit 1
fi
echo "lib_exports: $n pmcf_* symbols, all under PMCF_1${inc:+, each declared in a public header}"
