#!/bin/bash
# Checks the line budget of the command's files (issue 37: "no CLI file over
# 400 lines", verb files "under ~300 lines"): a file of DIR/verbs/ (a verb,
# or a verb's own VERB_*.c) may have at most VERBLIMIT lines (default 300),
# any other file of DIR (the shared helpers, main.c) at most LIMIT (default
# 400); .c and .h files both. Those in ALLOW may have more, but ALLOW may
# only shrink: it holds "path lines" lines (# comments), the file may have at
# most that many lines. Exits 1, one line per problem, when a file over its
# limit is not listed, a listed file grew past its number, or a listed file is
# gone or within its limit (remove its line: the list shrinks).
# Usage: scripts/cli-lines.sh [-n LIMIT] [-v VERBLIMIT] ALLOW [DIR]
#        (DIR default src/cli, relative to the repository's root)
#        scripts/cli-lines.sh --self-test    shows that the check can fail
set -u
limit=400
vlimit=300
while :; do
	case ${1:-} in
	-n) limit=$2; shift 2 ;;
	-v) vlimit=$2; shift 2 ;;
	*) break ;;
	esac
done
if [ "${1:-}" = --self-test ]; then
	tmp=$(mktemp -d) || exit 2
	trap 'rm -rf "$tmp"' EXIT
	mkdir -p "$tmp/d/verbs"
	seq 5 >"$tmp/d/a.c"
	seq 3 >"$tmp/d/b.c"
	seq 3 >"$tmp/d/verbs/v.c"
	: >"$tmp/allow"
	"$0" -n 4 -v 3 "$tmp/allow" "$tmp/d" >/dev/null && { echo "self-test: a 5-line file passed a limit of 4"; exit 1; }
	echo "$tmp/d/a.c 5" >"$tmp/allow"
	"$0" -n 4 -v 3 "$tmp/allow" "$tmp/d" >/dev/null || { echo "self-test: an allowed file failed"; exit 1; }
	echo "$tmp/d/a.c 4" >"$tmp/allow"
	"$0" -n 4 -v 3 "$tmp/allow" "$tmp/d" >/dev/null && { echo "self-test: an allowed file that grew passed"; exit 1; }
	printf '%s\n' "$tmp/d/a.c 5" "$tmp/d/b.c 9" >"$tmp/allow"
	"$0" -n 4 -v 3 "$tmp/allow" "$tmp/d" >/dev/null && { echo "self-test: a stale allow line passed"; exit 1; }
	echo "$tmp/d/a.c 5" >"$tmp/allow"
	seq 4 >"$tmp/d/verbs/v.h"
	"$0" -n 4 -v 3 "$tmp/allow" "$tmp/d" >/dev/null && { echo "self-test: a 4-line verb header passed a verb limit of 3"; exit 1; }
	rm "$tmp/d/verbs/v.h"
	seq 4 >"$tmp/d/verbs/v.c"
	"$0" -n 4 -v 3 "$tmp/allow" "$tmp/d" >/dev/null && { echo "self-test: a 4-line verb file passed a verb limit of 3"; exit 1; }
	seq 4 >"$tmp/d/b.c"
	seq 3 >"$tmp/d/verbs/v.c"
	"$0" -n 4 -v 3 "$tmp/allow" "$tmp/d" >/dev/null || { echo "self-test: a 4-line helper failed the limit of 4"; exit 1; }
	echo "self-test: the check fails on a long file, a long verb file, a grown one and a stale allow line"
	exit 0
fi
allow=${1:?usage: cli-lines.sh [-n LIMIT] [-v VERBLIMIT] ALLOW [DIR]}
[ -r "$allow" ] || { echo "pmcfuse: cli-lines: cannot read $allow" >&2; exit 2; }
name=$(basename "$allow")
allow=$(cd "$(dirname "$allow")" && pwd)/$name
dir=${2:-src/cli}
case $dir in /*) ;; *) cd "$(dirname "$0")/.." || exit 2 ;; esac
[ -d "$dir/verbs" ] || { echo "pmcfuse: cli-lines: no folder $dir/verbs (the verbs' files)" >&2; exit 2; }
limit_of() { # FILE: its limit
	case $1 in "$dir"/verbs/*) echo "$vlimit" ;; *) echo "$limit" ;; esac
}
bad=0
declare -A max
while read -r path n _; do
	case $path in '' | '#'*) continue ;; esac
	max[$path]=$n
	if [ ! -f "$path" ]; then
		echo "$path is in $name but is gone: remove its line"
		bad=1
	elif [ "$(wc -l <"$path")" -le "$(limit_of "$path")" ]; then
		echo "$path has $(wc -l <"$path") lines, within $(limit_of "$path"): remove its line from $name"
		bad=1
	fi
done <"$allow"
nfiles=0
for f in "$dir"/*.[ch] "$dir"/verbs/*.[ch]; do
	[ -f "$f" ] || continue
	nfiles=$((nfiles + 1))
	n=$(wc -l <"$f")
	lim=$(limit_of "$f")
	[ "$n" -le "$lim" ] && continue
	if [ -z "${max[$f]:-}" ]; then
		echo "$f has $n lines, over $lim: split it by job (or list it in $name)"
		bad=1
	elif [ "$n" -gt "${max[$f]}" ]; then
		echo "$f has $n lines, more than the ${max[$f]} allowed: the list only shrinks"
		bad=1
	fi
done
[ $bad = 0 ] && echo "$nfiles files: none of $dir/verbs over $vlimit lines, none other of $dir over $limit, but those allowed"
exit $bad
