# Messages about one XU say "1 XU", not "1 XUs": record's summary, show,
# combine's summary and the report, on a program without OMPT (one XU per
# thread: one XU for `true`).
expect_ok "$PMCFUSE" record -e task-clock -o a.pmcf -- true
expect_match 'record: 1 XU of ' "$ERR"
expect_ok "$PMCFUSE" record -e page-faults -o b.pmcf -- true
expect_ok "$PMCFUSE" show a.pmcf
expect_match ' 1 XU($|[^s])' "$OUT"
expect_ok "$PMCFUSE" combine --strategy ctc -o f.pmcf a.pmcf b.pmcf
expect_match 'fused 2 profiles with ctc: 1 XU, 3 events' "$OUT"
expect_ok "$PMCFUSE" show f.pmcf
all=$OUT
expect_ok "$PMCFUSE" report -o f.html f.pmcf
all="$all $(cat f.html) $(cat err.txt)"
# no count of one with a plural noun anywhere
expect_nomatch '(^|[^0-9.])1 XUs' "$all"
expect_nomatch '(^|[^0-9.])1 (events|profiles|executions|threads)([^a-z]|$)' "$all"
# a budget of one counter
expect_ok "$PMCFUSE" plan -e task-clock,page-faults --pmcs 1 -o p.json
expect_match ', 1 counter$' "$(head -n 1 err.txt)$(head -n 1 out.txt)"
expect_nomatch '(^|[^0-9.])1 counters' "$OUT $ERR"
