#!/bin/bash
# Checks that no file of the command (src/cli/*.c) is over a line limit
# (default 400: issue 37, "no CLI file over 400 lines"), but those in ALLOW,
# which may only shrink. ALLOW holds "path lines" lines (# comments): the file
# may have at most that many lines. Exits 1, one line per problem, when a file
# over the limit is not listed, a listed file grew past its number, or a
# listed file is gone or within the limit (remove its line: the list shrinks).
# Usage: scripts/cli-lines.sh [-n LIMIT] ALLOW [DIR]   (DIR default src/cli,
#        relative to the repository's root)
#        scripts/cli-lines.sh --self-test    shows that the check can fail
set -u
limit=400
[ "${1:-}" = -n ] && { limit=$2; shift 2; }
if [ "${1:-}" = --self-test ]; then
	tmp=$(mktemp -d) || exit 2
	trap 'rm -rf "$tmp"' EXIT
	mkdir "$tmp/d"
	seq 5 >"$tmp/d/a.c"
	seq 3 >"$tmp/d/b.c"
	: >"$tmp/allow"
	"$0" -n 4 "$tmp/allow" "$tmp/d" >/dev/null && { echo "self-test: a 5-line file passed a limit of 4"; exit 1; }
	echo "$tmp/d/a.c 5" >"$tmp/allow"
	"$0" -n 4 "$tmp/allow" "$tmp/d" >/dev/null || { echo "self-test: an allowed file failed"; exit 1; }
	echo "$tmp/d/a.c 4" >"$tmp/allow"
	"$0" -n 4 "$tmp/allow" "$tmp/d" >/dev/null && { echo "self-test: an allowed file that grew passed"; exit 1; }
	printf '%s\n' "$tmp/d/a.c 5" "$tmp/d/b.c 9" >"$tmp/allow"
	"$0" -n 4 "$tmp/allow" "$tmp/d" >/dev/null && { echo "self-test: a stale allow line passed"; exit 1; }
	echo "self-test: the check fails on a long file, a grown one and a stale allow line"
	exit 0
fi
allow=${1:?usage: cli-lines.sh [-n LIMIT] ALLOW [DIR]}
[ -r "$allow" ] || { echo "pmcfuse: cli-lines: cannot read $allow" >&2; exit 2; }
name=$(basename "$allow")
allow=$(cd "$(dirname "$allow")" && pwd)/$name
dir=${2:-src/cli}
case $dir in /*) ;; *) cd "$(dirname "$0")/.." || exit 2 ;; esac
bad=0
declare -A max
while read -r path n _; do
	case $path in '' | '#'*) continue ;; esac
	max[$path]=$n
	if [ ! -f "$path" ]; then
		echo "$path is in $name but is gone: remove its line"
		bad=1
	elif [ "$(wc -l <"$path")" -le "$limit" ]; then
		echo "$path has $(wc -l <"$path") lines, within $limit: remove its line from $name"
		bad=1
	fi
done <"$allow"
for f in "$dir"/*.c; do
	n=$(wc -l <"$f")
	[ "$n" -le "$limit" ] && continue
	if [ -z "${max[$f]:-}" ]; then
		echo "$f has $n lines, over $limit: split it by job (or list it in $name)"
		bad=1
	elif [ "$n" -gt "${max[$f]}" ]; then
		echo "$f has $n lines, more than the ${max[$f]} allowed: the list only shrinks"
		bad=1
	fi
done
[ $bad = 0 ] && echo "no file of $dir over $limit lines but those allowed"
exit $bad
