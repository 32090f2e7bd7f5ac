#!/bin/bash
# Instruction-mix validation on programs outside tests/ (issue 36): builds
# four small programs written for this check (interpreter, hash table,
# linked lists, tokenizer; gcc and clang, stripped and not) and runs Debian's
# xz, gzip, coreutils sort, sqlite3 and lua5.4 on generated inputs. Each
# program gets one `imix reference` (callgrind) and RUNS `imix record
# --ebs-only` recordings; `score` prints, per program, the average weighted
# error of `imix compare --normalize` for the default method and for
# --method ebs-raw (median and range over the recordings) as a Markdown table.
#
#   bench/imix-validate/run.sh [build|record|score|all]   (default all)
#   env: PMCFUSE (build/pmcfuse), IMIXV_DIR (/tmp/imixv), RUNS (3),
#        ONLY (space-separated program names), EXTRA (more compare options),
#        NATIVE=1: record without --valgrind-hwcaps (glibc then picks other
#        string routines than under callgrind; folders rec_native_*)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
P=${PMCFUSE:-$root/build/pmcfuse}
D=${IMIXV_DIR:-/tmp/imixv}
RUNS=${RUNS:-3}
phase=${1:-all}
mkdir -p "$D/bin" "$D/in" "$D/work"
rec=rec
[ -z "${NATIVE:-}" ] || rec=rec_native

build() {
	for c in gcc clang-16; do
		t=${c%%-*}
		for s in interp hashtab llist tokenize; do
			"$c" -O2 -g -o "$D/bin/$s-$t" "$here/$s.c"
			strip -o "$D/bin/$s-$t-s" "$D/bin/$s-$t"
		done
	done
	# text input: 4 MB of numbered pseudo-words (deterministic)
	if [ ! -s "$D/in/text" ]; then
		awk 'BEGIN { x = 1; for (i = 0; i < 220000; i++) { x = (x * 1103515245 + 12345) % 2147483648;
			printf "%d w%x %s line-%d\n", x % 100003, x % 4099, (x % 3 ? "alpha" : "beta"), i } }' > "$D/in/text"
	fi
	cp "$here/prog.lua" "$here/prog.sql" "$D/in/"
}

# name | command (run inside $D/work)
programs() {
	cat <<LIST
interp-gcc|$D/bin/interp-gcc 6000000
interp-clang-s|$D/bin/interp-clang-s 6000000
hashtab-gcc|$D/bin/hashtab-gcc 300000
hashtab-clang-s|$D/bin/hashtab-clang-s 300000
llist-gcc-s|$D/bin/llist-gcc-s 40000
llist-clang|$D/bin/llist-clang 40000
tokenize-gcc-s|$D/bin/tokenize-gcc-s 20000000
tokenize-clang|$D/bin/tokenize-clang 20000000
xz|/usr/bin/xz -6 -T1 -k -f $D/work/text
gzip|/usr/bin/gzip -6 -k -f $D/work/text
sort|/usr/bin/sort --parallel=1 -S 64M -o $D/work/sorted $D/work/text
sqlite3|/usr/bin/sqlite3 :memory: .read\ $D/in/prog.sql
lua5.4|/usr/bin/lua5.4 $D/in/prog.lua
LIST
}

selected() {
	programs | while IFS='|' read -r name cmd; do
		if [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $name "* ]]; then echo "$name|$cmd"; fi
	done
}

run_cmd() { # out kind name cmd
	local out=$1 kind=$2
	cp "$D/in/text" "$D/work/text"
	eval "set -- $4"
	if [ "$kind" = ref ]; then "$P" imix reference -o "$out" -- "$@" >/dev/null
	elif [ -n "${NATIVE:-}" ]; then nice -n 5 "$P" imix record --ebs-only -o "$out" -- "$@" >/dev/null
	else nice -n 5 "$P" imix record --ebs-only --valgrind-hwcaps -o "$out" -- "$@" >/dev/null; fi
}

record() {
	selected | while IFS='|' read -r name cmd; do
		[ -d "$D/ref_$name" ] || run_cmd "$D/ref_$name" ref "$name" "$cmd"
		for r in $(seq 1 "$RUNS"); do
			[ -d "$D/${rec}_${name}_$r" ] || run_cmd "$D/${rec}_${name}_$r" rec "$name" "$cmd"
		done
		echo "recorded $name" >&2
	done
}

err() { # ref rec [options]: the average weighted error in percent
	local ref=$1 rec=$2
	shift 2
	# shellcheck disable=SC2086
	"$P" imix compare --normalize --json ${EXTRA:-} "$@" "$ref" "$rec" 2>/dev/null |
		jq -r '.avg_weighted_error * 100'
}

stats() { # values... -> "median (min–max)"
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.1f %% (%.1f–%.1f)", m, v[1], v[NR] }'
}

score() {
	echo "| program | default | \`--method ebs-raw\` | default ≤ raw |"
	echo "|---|---|---|---|"
	local meds_d="" meds_r=""
	while IFS='|' read -r name cmd; do
		local d=() r=()
		for i in $(seq 1 "$RUNS"); do
			[ -d "$D/${rec}_${name}_$i" ] || continue
			d+=("$(err "$D/ref_$name" "$D/${rec}_${name}_$i")")
			r+=("$(err "$D/ref_$name" "$D/${rec}_${name}_$i" --method ebs-raw)")
		done
		[ ${#d[@]} -gt 0 ] || continue
		md=$(printf '%s\n' "${d[@]}" | sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
		mr=$(printf '%s\n' "${r[@]}" | sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
		meds_d="$meds_d $md"; meds_r="$meds_r $mr"
		ok=$(awk -v a="$md" -v b="$mr" 'BEGIN { print (a <= b + 0.05) ? "yes" : "**no**" }')
		echo "| $name | $(stats "${d[@]}") | $(stats "${r[@]}") | $ok |"
	done < <(selected)
	# shellcheck disable=SC2086
	echo "| **median / worst of the medians** | $(printf '%s\n' $meds_d | sort -g | awk '{ v[NR] = $1 } END { printf "%.1f %% / %.1f %%", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2, v[NR] }') | $(printf '%s\n' $meds_r | sort -g | awk '{ v[NR] = $1 } END { printf "%.1f %% / %.1f %%", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2, v[NR] }') | |"
}

case $phase in
build) build ;;
record) record ;;
score) score ;;
all) build; record; score ;;
*) echo "usage: $0 [build|record|score|all]" >&2; exit 1 ;;
esac
