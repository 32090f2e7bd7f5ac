# The whole pipeline through the public library (examples/pipeline.c: source
# -> plan -> campaign -> combine -> export -> references -> EPD, truth) gives
# what the command gives for the same job: the same fused profile (its CSV
# byte for byte), the same EPD against references seeded as `reference`
# seeds them (pmcf_sim_role_seed), the same truth error (issue 37: a library
# user can run a campaign).
PIPE=$(dirname "$PMCFUSE")/examples/pipeline
[ -x "$PIPE" ] || fail "examples/pipeline was not built"
SPEC=cholesky,blocks=8
expect_ok "$PIPE" lib all 4 --sim $SPEC
lib_epd=$(sed -n 's/^EPD \([0-9.]*\) over.*/\1/p' <<<"$OUT")
lib_med=$(sed -n 's/^truth: median relative error \([0-9.]*\),.*/\1/p' <<<"$OUT")
[ -n "$lib_epd" ] && [ -n "$lib_med" ] || fail "no EPD or truth line in: $OUT"
ok
for f in plan.json fused.pmcf fused.csv refs/reference.json; do
	[ -s "lib/$f" ] || fail "pipeline wrote no lib/$f"
	ok
done
expect_ok "$PMCFUSE" run -e all --pmcs 4 --sim $SPEC -o cli.pmcf -q
expect_ok "$PMCFUSE" export --format csv -o cli.csv cli.pmcf
expect_ok cmp cli.csv lib/fused.csv
expect_ok "$PMCFUSE" reference -e all --pmcs 4 --repeat 3 -o refs --sim $SPEC -q
expect_ok "$PMCFUSE" epd --json cli.pmcf refs
expect_eq "$(printf '%.3f' "$lib_epd")" "$(printf '%.3f' "$(jq -r .epd <<<"$OUT")")" "(EPD: library, command)"
expect_ok "$PMCFUSE" truth cli.pmcf
cli_med=$(sed -n 's/.*median relative error \([0-9.e-]*\),.*/\1/p' <<<"$OUT" | head -1)
expect_eq "$(printf '%.4f' "$lib_med")" "$(printf '%.4f' "$cli_med")" "(truth median: library, command)"
# the reference executions are the command's (same seeds, same index but
# the source's spelling), and the command reads the library's folder
expect_eq "$(jq -Sc 'del(.source)' refs/reference.json)" "$(jq -Sc 'del(.source)' lib/refs/reference.json)" \
	"(reference index)"
expect_ok "$PMCFUSE" epd --json lib/fused.pmcf lib/refs
expect_eq "$(printf '%.3f' "$lib_epd")" "$(printf '%.3f' "$(jq -r .epd <<<"$OUT")")" "(EPD of the library's files)"
# bad input: one line naming the step, exit 1
rc=0
"$PIPE" bad PAPI_TOT_INZ 4 --sim $SPEC >out.txt 2>err.txt || rc=$?
expect_eq 1 "$rc" "(exit status on an unknown event)"
expect_match '^pipeline: events: .*unknown event' "$(cat err.txt)"
