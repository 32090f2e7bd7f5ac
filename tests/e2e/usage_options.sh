# The usage text of record, plan, combine and run names every long option
# their parsers accept (the getopt tables in src/cli/verbs/VERB.c and the
# verb's own VERB_*.c, with the option macros of src/cli/*.h and
# src/cli/verbs/*.h they use), and so does the man page; record's
# synopsis names every --multiplex mode the parser takes.
cli="$SRCDIR/src/cli"
# the options of each macro of the headers: "MACRO name name ..."
macros=$(for h in "$cli"/*.h "$cli"/verbs/*.h; do
	sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$h" | { grep '^#define' || true; } |
		awk '{ n = split($0, a, "\""); s = ""; for (i = 2; i <= n; i += 2) if ($0 ~ "\"" a[i] "\", *[a-z]*_argument") s = s " " a[i]; if (s != "") print $2 s }'
done)
[ -n "$macros" ] || fail "no option macros found in $cli/*.h and $cli/verbs/*.h"; ok
parser_options() { # VERB: the long options of the getopt table(s) of src/cli/verbs/VERB.c and VERB_*.c
	local f
	for f in "$cli/verbs/$1.c" "$cli/verbs/$1"_*.c; do
		[ -f "$f" ] || continue
		grep -o '{"[a-z][a-z0-9-]*", *[a-z]*_argument' "$f" | sed 's/{"\([^"]*\)".*/\1/'
		printf '%s\n' "$macros" | while read -r m names; do
			if grep -q "\b$m\b" "$f"; then printf '%s\n' $names; fi
		done
	done
}
for v in record plan combine run; do
	opts=$(parser_options "$v" | sort -u)
	[ "$(printf '%s\n' "$opts" | wc -l)" -ge 5 ] || fail "$v: too few parser options found: $opts"; ok
	expect_ok "$PMCFUSE" "$v" --help
	help=$OUT
	page="$SRCDIR/docs/man/pmcfuse-$v.1"
	for o in $opts; do
		[ "$o" = help ] && continue
		grep -q -- "--$o\b" <<<"$help" || fail "$v --help does not name --$o, which its parser accepts"
		esc=$(printf '%s' "--$o" | sed 's/-/\\\\-/g')
		grep -q -- "$esc" "$page" || fail "pmcfuse-$v.1 does not name --$o, which the parser accepts"
		ok
	done
done
# record --multiplex: every mode the parser names in its refusal is in the synopsis
expect_fail 1 "$PMCFUSE" record --multiplex nosuch -e task-clock --sim cholesky
modes=$(sed -n 's/.*--multiplex must be \(.*\), not .*/\1/p' <<<"$ERR" | sed 's/,\| or / /g')
[ -n "$modes" ] || fail "no modes in: $ERR"; ok
expect_ok "$PMCFUSE" record --help
syn=$(sed -n '/^usage:/,/^$/p' <<<"$OUT")
msyn=$(sed -n '/^\.SH SYNOPSIS/,/^\.SH DESC/p' "$SRCDIR/docs/man/pmcfuse-record.1" | sed 's/\\-/-/g')
for m in $modes; do
	grep -q -- "--multiplex [a-z|-]*\b$m\b" <<<"$syn" || fail "record's synopsis lacks --multiplex $m: $syn"
	grep -q -- "--multiplex [a-z|-]*\b$m\b" <<<"$msyn" || fail "pmcfuse-record.1's synopsis lacks --multiplex $m"
	ok
done
