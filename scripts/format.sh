#!/bin/bash
# Formats the C sources of src/ include/ tests/ bench/ with .clang-format.
#   scripts/format.sh            format the files in place
#   scripts/format.sh --check    change nothing: list the files that differ
#                                from their formatted form, exit 1 if any
# CLANG_FORMAT picks the binary (default: clang-format, else clang-format-16
# or clang-format-14). Exit 2 when no clang-format is found (77 with --check,
# and with --check under a clang-format other than 14: the format_check test
# reports a skip with the reason).
set -u
cd "$(dirname "$0")/.." || exit 2
check=0
case "${1:-}" in
--check) check=1 ;;
"") ;;
-h | --help) sed -n '2,7p' "$0"; exit 0 ;;
*) echo "format.sh: unknown argument '$1' (--check or nothing)" >&2; exit 2 ;;
esac
cf=${CLANG_FORMAT:-}
if [ -z "$cf" ]; then
	for c in clang-format clang-format-16 clang-format-14; do
		if command -v "$c" >/dev/null 2>&1; then
			cf=$c
			break
		fi
	done
fi
if [ -z "$cf" ] || ! command -v "$cf" >/dev/null 2>&1; then
	echo "format.sh: clang-format not found (apt-get install clang-format)" >&2
	# --check, as the format_check test: skipped (77), with the reason above
	[ $check = 1 ] && exit 77
	exit 2
fi
# The tree is formatted with Debian 12's clang-format 14; other versions break
# lines differently, so --check with another version is skipped (77) rather
# than failed. CLANG_FORMAT=... picks a binary explicitly (and is trusted).
want=14
ver=$("$cf" --version 2>/dev/null | sed -n 's/.*clang-format version \([0-9]*\).*/\1/p')
if [ $check = 1 ] && [ -z "${CLANG_FORMAT:-}" ] && [ "$ver" != "$want" ]; then
	echo "format.sh: $cf is version ${ver:-unknown}, the tree follows clang-format $want: check skipped" >&2
	exit 77
fi
# the tracked C files, or every C file when this is not a git checkout
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	mapfile -t files < <(git ls-files 'src/*.[ch]' 'include/*.[ch]' 'tests/*.[ch]' 'bench/*.[ch]')
else
	mapfile -t files < <(find src include tests bench -name '*.[ch]' | sort)
fi
[ ${#files[@]} -gt 0 ] || { echo "format.sh: no C files found" >&2; exit 2; }
if [ $check = 0 ]; then
	exec "$cf" -i --style=file "${files[@]}"
fi
# one clang-format for every file: --dry-run says where it would change
out=$("$cf" --style=file --dry-run "${files[@]}" 2>&1)
st=$?
listed=$(printf '%s\n' "$out" | sed -n 's/^\(.*\):[0-9]*:[0-9]*: [a-z]*: code should be clang-formatted.*/\1/p' | sort -u)
if [ $st != 0 ] && [ -z "$listed" ]; then
	printf '%s\n' "$out" | head -5 >&2
	echo "format.sh: $cf failed" >&2
	exit 2
fi
if [ -n "$listed" ]; then
	printf '%s\n' "$listed"
	echo "format.sh: the files above differ from $cf's format (scripts/format.sh formats them)" >&2
	exit 1
fi
exit 0
