# One list per extension point (issue 37 item 4): the names the library's
# tables hold (strategies, export formats, simulated workloads), as the
# command prints them from those tables, are the names the man pages and
# docs list, in the same order where a page lists them all. A strategy,
# format or workload added to a table without its documentation fails here.

man_text() { sed 's/\\-/-/g' "$1"; } # the page's source with \- as -
# the paragraph of option OPT in PAGE (from ".B \-\-OPT" to the next option)
man_option() { man_text "$1" | awk -v o=".B --$2" 'index($0, o) == 1 && !d {f = 1; d = 1; next} f && /^\.B --/ {f = 0} f'; }

# ---- strategies: the rows of `combine --help`'s table -------------------
expect_ok "$PMCFUSE" combine --help
strategies=$(printf '%s\n' "$OUT" | awk '/^  --seed/ {f = 0} /^  --strategy S/ {f = 1} f' |
	sed -nE 's/^(  --strategy S   | {17})([a-z][a-z-]*) .*/\2/p')
[ "$(printf '%s\n' "$strategies" | wc -l)" -ge 9 ] || fail "too few strategies in combine --help: $strategies"; ok
# the error text lists the same names
expect_fail 1 "$PMCFUSE" combine --strategy no-such -o x.pmcf y.pmcf
expect_match "unknown strategy 'no-such' \\($(printf '%s\n' "$strategies" | paste -sd, | sed 's/,/, /g')\\)" "$ERR"
# combine.1 has a .TP row per strategy, in table order
page=$SRCDIR/docs/man/pmcfuse-combine.1
rows=$(man_option "$page" strategy | awk '/^\.RE/ {e = 1} !e && /^\.TP/ {getline; print}')
expect_eq "$strategies" "$rows" "(pmcfuse-combine.1's strategies against the table)"
# run.1 and plan.1 list every name in their --strategy paragraph
for v in run plan; do
	text=$(man_option "$SRCDIR/docs/man/pmcfuse-$v.1" strategy)
	for s in $strategies; do
		[[ "$text" =~ (^|[ ,])$s[,\ \)] ]] || fail "pmcfuse-$v.1 --strategy does not name '$s'"
	done
	ok
done

# ---- export formats: `export --help`'s --format line ----------------------
expect_ok "$PMCFUSE" export --help
formats=$(printf '%s\n' "$OUT" | sed -nE 's/^  --format F +(.*) \(required\)$/\1/p' | sed 's/ or /, /; s/, /\n/g')
[ "$(printf '%s\n' "$formats" | wc -l)" -ge 4 ] || fail "too few formats in export --help: $formats"; ok
listed=$(man_option "$SRCDIR/docs/man/pmcfuse-export.1" format | sed -n 1p | sed 's/ (required)//; s/ or /, /; s/, /\n/g')
expect_eq "$formats" "$listed" "(pmcfuse-export.1's --format list against the table)"
for f in $formats; do
	# each format has its paragraph in --help and a SYNOPSIS line in the page
	expect_match "--format [a-z|]*$f" "$(man_text "$SRCDIR/docs/man/pmcfuse-export.1" | sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p')"
	grep -q "^$f: \|^${f^^}: " <<<"$OUT" || fail "export --help has no paragraph for $f"; ok
done
expect_fail 1 "$PMCFUSE" export --format no-such x.pmcf
expect_match "unknown format 'no-such' \\($(printf '%s\n' "$formats" | paste -sd, | sed 's/,/, /g; s/, \([a-z0-9]*\)$/ or \1/')\\)" "$ERR"

# ---- simulated workloads: the list an unknown workload is answered with ----
expect_fail 1 "$PMCFUSE" record -e duration -o x.pmcf --sim no-such
workloads=$(printf '%s\n' "$ERR" | sed -nE 's/.*unknown workload .no-such. \(workloads: (.*)\)$/\1/p' | sed 's/, /\n/g')
[ "$(printf '%s\n' "$workloads" | wc -l)" -ge 5 ] || fail "too few workloads in: $ERR"; ok
# docs/simulation.md's table of workloads has a row per workload, in table order
rows=$(awk '/^\| workload \| keys/ {f = 1; next} f && !/^\|/ {f = 0} f' "$SRCDIR/docs/simulation.md" |
	sed -nE 's/^\| `([a-z0-9_-]+)` \|.*/\1/p')
expect_eq "$workloads" "$rows" "(docs/simulation.md's workloads against the table)"

# ---- JSON schemas: the strategy enum every --json summary is checked against
schema=$(jq -r '.. | objects | select(has("strategy")) | .strategy | objects | select(has("enum")) | .enum[]' \
	"$SRCDIR/docs/schema/common.schema.json")
expect_eq "$strategies" "$schema" "(docs/schema/common.schema.json's strategy enum against the table)"
