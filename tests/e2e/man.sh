# Man pages: every verb that `pmcfuse --help` lists has docs/man/pmcfuse-VERB.1,
# the pages render without warnings, and each documents every long option of
# the verb's --help.

mandir="$SRCDIR/docs/man"
expect_ok "$PMCFUSE" --help
verbs=$(printf '%s\n' "$OUT" | awk '/^Verbs:/ {f = 1; next} f && NF == 0 {f = 0} f {print $1}')
[ -n "$verbs" ] || fail "no verbs in pmcfuse --help"; ok
render() { # render PAGE: prints warnings only
	if command -v man >/dev/null 2>&1; then
		LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$1" 2>&1 >/dev/null
	else
		groff -man -Tutf8 -z -ww "$1" 2>&1
	fi
}
command -v man >/dev/null 2>&1 || command -v groff >/dev/null 2>&1 || fail "neither man nor groff"
expect_eq "" "$(render "$mandir/pmcfuse.1")" "(warnings rendering pmcfuse.1)"
for v in $verbs; do
	page="$mandir/pmcfuse-$v.1"
	[ -f "$page" ] || fail "verb '$v' has no man page $page"; ok
	expect_eq "" "$(render "$page")" "(warnings rendering pmcfuse-$v.1)"
	if command -v groff >/dev/null 2>&1; then
		expect_eq "" "$(groff -man -Tutf8 -z -ww "$page" 2>&1)" "(groff warnings in pmcfuse-$v.1)"
	fi
	grep -q "pmcfuse\\\\-$v (1)" "$mandir/pmcfuse.1" || fail "pmcfuse.1 does not list pmcfuse-$v(1)"; ok
	# every long option of the verb's --help appears in its page (as \-\-name)
	"$PMCFUSE" "$v" --help >help.txt
	for opt in $(grep -o -- '--[a-z][a-z-]*' help.txt | sort -u); do
		esc=$(printf '%s' "$opt" | sed 's/-/\\\\-/g')
		grep -q -- "$esc" "$page" || fail "pmcfuse-$v.1 does not document $opt"
	done
	ok
done
# and no page for a verb that does not exist
for page in "$mandir"/pmcfuse-*.1; do
	v=$(basename "$page" .1); v=${v#pmcfuse-}
	printf '%s\n' $verbs | grep -qx "$v" || fail "$page documents '$v', which pmcfuse --help does not list"
	ok
done
