#!/bin/bash
# The public functions follow one vocabulary (docs/abi.md, pmcfuse/base.h):
# objects end with pmcf_X_free (never _close, _destroy, _delete, _release,
# _unref); accessors put get/set after the noun (pmcf_X_NOUN_get,
# pmcf_X_NOUN_set, element i pmcf_X_NOUN_at), never before it as a verb
# (pmcf_X_set_NOUN reads as a setter even when "set" is a noun: issue 37).
# One line per offending name.
# usage: api_names.sh INCLUDE_DIR
#        api_names.sh --self-test   (shows the check can fail)
set -u
check() {
	cat "$@" | tr '\n' ' ' | grep -o 'PMCF_API[^;(]*(' | grep -o 'pmcf_[A-Za-z0-9_]*[[:space:]]*($' | tr -d ' (' |
		sort -u | awk '
		/_(close|destroy|delete|release|unref|dispose)$/ { print $0 ": an object ends with _free"; bad = 1; next }
		/(^pmcf_|_)(get|set)_/ { print $0 ": get/set come after the noun (pmcf_X_NOUN_get, _set)"; bad = 1; next }
		{ n++ }
		END { if (!bad) printf "api_names: %d public functions follow the vocabulary\n", n; exit bad }'
}
if [ "${1:-}" = --self-test ]; then
	d=$(mktemp -d) || exit 2
	trap 'rm -rf "$d"' EXIT
	printf 'PMCF_API void pmcf_a_free(void *a);\nPMCF_API int pmcf_a_seed_set(void *a, int s);\n' >"$d/ok.h"
	printf 'PMCF_API void pmcf_b_close(void *b);\nPMCF_API int pmcf_b_set_events(void *b,\n int k);\nPMCF_API int pmcf_get_x(void);\n' >"$d/bad.h"
	check "$d/ok.h" >/dev/null || { echo "self-test: good names refused"; exit 1; }
	out=$(check "$d/ok.h" "$d/bad.h")
	want="pmcf_b_close: an object ends with _free
pmcf_b_set_events: get/set come after the noun (pmcf_X_NOUN_get, _set)
pmcf_get_x: get/set come after the noun (pmcf_X_NOUN_get, _set)"
	[ "$out" = "$want" ] || { printf 'self-test: got\n%s\nwant\n%s\n' "$out" "$want"; exit 1; }
	echo "self-test passed"
	exit 0
fi
check "$1"/pmcfuse/*.h
