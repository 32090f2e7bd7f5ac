#!/bin/sh
# Lists the C functions longer than a limit (default 150 lines, from the
# line of the name to the closing brace), one "path:function lines" a line,
# longest first. Uses Universal Ctags' end: field.
# Usage: scripts/long-functions.sh [-n LIMIT] [PATH...]   (default: src; paths
# relative to the repository's root, where the script runs)
# With --check ALLOW (a file of "path:function" lines, # comments) it exits 1
# when a function over the limit is not in ALLOW, or when ALLOW names one that
# is no longer over it (the list must only shrink: remove the line). Exit 2
# on a usage error, 77 without Universal Ctags.
set -eu
limit=150
allow=
while [ $# -gt 0 ]; do
	case $1 in
	-n) limit=$2; shift 2 ;;
	--check) allow=$2; shift 2 ;;
	--) shift; break ;;
	-*) echo "pmcfuse: long-functions: unknown option $1" >&2; exit 1 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || set -- src
if [ -n "$allow" ]; then
	[ -r "$allow" ] || { echo "pmcfuse: long-functions: cannot read $allow" >&2; exit 2; }
	allow=$(cd "$(dirname "$allow")" && pwd)/$(basename "$allow")
fi
cd "$(dirname "$0")/.." || exit 2
# without Universal Ctags: exit 77, a skip with its reason (the test)
command -v ctags >/dev/null 2>&1 || { echo "skipped: ctags (universal-ctags) not found"; exit 77; }
ctags --version 2>/dev/null | grep -q Universal || { echo "skipped: needs Universal Ctags (its end: field)"; exit 77; }
list=$(find "$@" -name '*.c' | LC_ALL=C sort |
	xargs ctags --languages=C --kinds-C=f --fields=+ne -o - 2>/dev/null |
	awk -F'\t' -v limit="$limit" '{
		line = ""; end = ""
		for (i = 4; i <= NF; i++) {
			if ($i ~ /^line:/) line = substr($i, 6)
			if ($i ~ /^end:/) end = substr($i, 5)
		}
		if (line != "" && end != "" && end - line + 1 > limit)
			printf "%d %s:%s\n", end - line + 1, $2, $1
	}' | LC_ALL=C sort -k1,1nr -k2 | awk '{ print $2, $1 }')
if [ -z "$allow" ]; then
	[ -z "$list" ] || printf '%s\n' "$list"
	exit 0
fi
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
printf '%s\n' "$list" | awk 'NF { print $1 }' | LC_ALL=C sort >"$tmp/found"
grep -v '^[[:space:]]*#' "$allow" | awk 'NF { print $1 }' | LC_ALL=C sort >"$tmp/allowed"
new=$(LC_ALL=C comm -23 "$tmp/found" "$tmp/allowed")
gone=$(LC_ALL=C comm -13 "$tmp/found" "$tmp/allowed")
rc=0
for f in $new; do
	echo "pmcfuse: long-functions: $f is over $limit lines ($(printf '%s\n' "$list" | awk -v f="$f" '$1 == f { print $2 }')); split it (not in $allow)" >&2
	rc=1
done
for f in $gone; do
	echo "pmcfuse: long-functions: $f is no longer over $limit lines (or gone): remove it from $allow" >&2
	rc=1
done
[ $rc = 0 ] && echo "long-functions: $(grep -c . "$tmp/found" || true) functions over $limit lines, all in $allow"
exit $rc
