# combine without -o writes pmcfuse.pmcf, as record does (the previous one
# kept as pmcfuse.pmcf.old, with a note), so that `show` finds it; inputs
# that the default output would destroy are refused before any work.
expect_ok "$PMCFUSE" record -e PAPI_TOT_INS -o a.pmcf --sim cholesky,blocks=4
expect_ok "$PMCFUSE" record -e PAPI_L1_DCM -o b.pmcf --sim cholesky,blocks=4
expect_ok "$PMCFUSE" combine --strategy ctc a.pmcf b.pmcf
[ -f pmcfuse.pmcf ] || fail "combine without -o wrote no pmcfuse.pmcf"; ok
expect_ok "$PMCFUSE" show --json
expect_eq 3 "$(jq '.events | length' out.txt)" "(events of the fused pmcfuse.pmcf)"
sum1=$(cksum <pmcfuse.pmcf)
expect_ok "$PMCFUSE" combine --strategy lgl a.pmcf b.pmcf
expect_match "note: the previous pmcfuse.pmcf is now pmcfuse.pmcf.old" "$ERR"
expect_eq "$sum1" "$(cksum <pmcfuse.pmcf.old)" "(the previous fused profile kept as .old)"
expect_ok "$PMCFUSE" show --json
expect_eq lgl "$(jq -r .meta.strategy out.txt)" "(show reads the new one)"
# the default output as an input, or pmcfuse.pmcf.old as an input: refused, untouched
sum2=$(cksum <pmcfuse.pmcf)
expect_fail 1 "$PMCFUSE" combine --strategy ctc a.pmcf pmcfuse.pmcf
expect_match "the output 'pmcfuse.pmcf' is the input 'pmcfuse.pmcf'" "$ERR"
expect_fail 1 "$PMCFUSE" combine --strategy ctc a.pmcf pmcfuse.pmcf.old
expect_match "the input 'pmcfuse.pmcf.old' would be replaced: without -o the previous pmcfuse.pmcf is kept as pmcfuse.pmcf.old \(give -o OUT\)" "$ERR"
expect_eq "$sum2" "$(cksum <pmcfuse.pmcf)" "(refusals leave pmcfuse.pmcf untouched)"
expect_eq "$sum1" "$(cksum <pmcfuse.pmcf.old)" "(refusals leave pmcfuse.pmcf.old untouched)"
# -o still writes where it is told, keeping nothing
expect_ok "$PMCFUSE" combine --strategy ctc -o f.pmcf a.pmcf b.pmcf
expect_nomatch "note:" "$ERR"
