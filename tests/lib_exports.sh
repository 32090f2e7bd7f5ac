#!/bin/bash
# libpmcfuse.so exports only pmcf_* names, each under the version node PMCF_0
# of src/libpmcfuse.map (issue 37). One line per offending symbol.
# usage: lib_exports.sh LIBPMCFUSE.so
set -u
so=$1
bad=$(objdump -T "$so" | awk '$4 != "*UND*" && $2 ~ /g/ && NF >= 7 {
	name = $NF; ver = $(NF-1)
	if (name == "PMCF_0") next
	if (name !~ /^pmcf_/ || ver != "PMCF_0") print ver, name
}')
n=$(objdump -T "$so" | awk '$NF ~ /^pmcf_/ && $(NF-1) == "PMCF_0"' | wc -l)
if [ -n "$bad" ]; then
	echo "$bad" | sed 's/^/exported outside pmcf_*\/PMCF_0: /'
	exit 1
fi
[ "$n" -gt 100 ] || { echo "only $n pmcf_* symbols under PMCF_0 (expected the whole API)"; exit 1; }
echo "lib_exports: $n pmcf_* symbols, all under PMCF_0"
