#!/bin/bash
# Every public struct (typedef struct pmcf_X { ... } pmcf_X; in the public
# headers) follows the ABI rule of pmcfuse/base.h: its first member is
# `size_t size;` and the header gives its initialiser, a PMCF_X_INIT macro
# that sets size to sizeof(pmcf_X) (directly or as PMCF_SIZED_INIT(pmcf_X) / PMCF_SIZED_INIT_WITH) (or, for options whose defaults are not
# zero, a pmcf_X_init function). Lists the structs it checked; one line per
# offending struct (issue 37).
# usage: public_structs.sh INCLUDE_DIR
#        public_structs.sh --self-test   (shows the check can fail)
set -u
check() {
	awk '
	FNR == 1 { file = FILENAME; sub(/.*\//, "", file) }
	{ text[file] = text[file] "\n" $0 }
	/^typedef struct pmcf_[a-z0-9_]+ \{/ {
		name = $3; want_first = 1; files[name] = file; order[++n] = name; next
	}
	want_first && NF > 0 && $0 !~ /^[ \t]*\/[*\/]/ {
		first[order[n]] = $0; want_first = 0
	}
	END {
		bad = 0
		for (i = 1; i <= n; i++) {
			name = order[i]; f = files[name]; macro = toupper(name) "_INIT"
			if (first[name] !~ /^[ \t]*size_t size;/) {
				printf "%s: %s does not start with size_t size; (first member: %s)\n", f, name, first[name]
				bad = 1
			}
			if (text[f] !~ ("#define " macro "[ \t\\\\]") && text[f] !~ ("#define " macro "\n") &&
			    text[f] !~ ("[ *]" name "_init\\(")) {
				printf "%s: %s has no %s macro (nor a %s_init function)\n", f, name, macro, name
				bad = 1
			} else if (text[f] ~ ("#define " macro) && text[f] !~ ("#define " macro "[^\n]*(\\\\\n[^\n]*)*(sizeof|PMCF_SIZED_INIT|PMCF_SIZED_INIT_WITH)\\(" name "[),]")) {
				printf "%s: %s does not set size to sizeof(%s)\n", f, macro, name
				bad = 1
			}
		}
		if (n == 0) { print "no public struct found"; bad = 1 }
		if (!bad) printf "public_structs: %d structs, each with size first and its initialiser\n", n
		exit bad
	}' "$@"
}
if [ "${1:-}" = --self-test ]; then
	d=$(mktemp -d) || exit 2
	trap 'rm -rf "$d"' EXIT
	printf 'typedef struct pmcf_good {\n\tsize_t size; /* x */\n\tint a;\n} pmcf_good;\n#define PMCF_GOOD_INIT \\\n\t{ sizeof(pmcf_good) }\n' >"$d/a.h"
	printf 'typedef struct pmcf_nosize {\n\tint a;\n} pmcf_nosize;\n#define PMCF_NOSIZE_INIT {sizeof(pmcf_nosize)}\n' >"$d/b.h"
	printf 'typedef struct pmcf_noinit {\n\tsize_t size;\n} pmcf_noinit;\n' >"$d/c.h"
	printf 'typedef struct pmcf_wrong {\n\tsize_t size;\n} pmcf_wrong;\n#define PMCF_WRONG_INIT {0}\n' >"$d/e.h"
	printf 'typedef struct pmcf_sz {\n\tsize_t size;\n} pmcf_sz;\n#define PMCF_SZ_INIT PMCF_SIZED_INIT(pmcf_sz)\n' >"$d/g.h"
	printf 'typedef struct pmcf_fn {\n\tsize_t size;\n} pmcf_fn;\nvoid pmcf_fn_init(pmcf_fn *o);\n' >"$d/f.h"
	out=$(check "$d"/*.h)
	want="b.h: pmcf_nosize does not start with size_t size; (first member: 	int a;)
c.h: pmcf_noinit has no PMCF_NOINIT_INIT macro (nor a pmcf_noinit_init function)
e.h: PMCF_WRONG_INIT does not set size to sizeof(pmcf_wrong)"
	[ "$out" = "$want" ] || { printf 'self-test: got\n%s\nwant\n%s\n' "$out" "$want"; exit 1; }
	check "$d/a.h" "$d/f.h" "$d/g.h" >/dev/null || { echo "self-test: a good header failed"; exit 1; }
	echo "self-test passed"
	exit 0
fi
check "$1"/pmcfuse/*.h
