# PAPI presets of a real program (libpapi's tables, not the simulator's):
# listed by `events --source papi`; on a machine without a PMU every one is
# unavailable with PAPI's reason, and --check, record and plan say so in one
# line; with a preset table of software natives (PMCF_TEST_PAPI_PRESETS),
# derived presets are counted as all their natives and stored combined.

expect_ok "$PMCFUSE" events --source papi --no-probe --json
echo "$OUT" >papi.json
expect_eq 0 "$(jq '[.[] | select(.source != "papi")] | length' papi.json)"
expect_eq 1 "$(jq '[.[] | select(.name == "PAPI_TOT_INS")] | length' papi.json)"
tot_ins=$(jq -r '.[] | select(.name == "PAPI_TOT_INS") | .available' papi.json)
if [ "$tot_ins" = false ]; then
	# no PMU (or PAPI maps nothing here): every listed preset says why
	expect_eq 0 "$(jq '[.[] | select(.available != false or (.constraints.unavailable | length) == 0)] | length' papi.json)"
	expect_ok "$PMCFUSE" events --source papi --no-probe
	expect_match 'PAPI_TOT_INS +papi +no +.*\(not available: ' "$OUT"
	expect_nomatch '"unavailable"' "$OUT" # the text listing says it in words, --json has the JSON
	expect_fail 2 "$PMCFUSE" events --check PAPI_TOT_INS
	expect_match "^pmcfuse: events: PAPI preset 'PAPI_TOT_INS' cannot be counted on this machine: ." "$ERR"
	why=${ERR#*on this machine: }
	expect_eq "$why" "$(jq -r '.[] | select(.name == "PAPI_TOT_INS") | .constraints.unavailable' papi.json)"
	expect_fail 2 "$PMCFUSE" record -e duration,PAPI_TOT_INS -o x.pmcf -- /bin/true
	expect_match "^pmcfuse: record: PAPI preset 'PAPI_TOT_INS' cannot be counted on this machine: " "$ERR"
	[ ! -e x.pmcf ] || fail "a failed record left x.pmcf"
	ok
	expect_fail 2 "$PMCFUSE" plan -e task-clock,PAPI_L1_DCM --pmcs 4 -o p.json
	expect_match "PAPI preset 'PAPI_L1_DCM' cannot be counted" "$ERR"
else
	echo "SKIP: PAPI_TOT_INS is countable here (available: $tot_ins): the no-PMU answers do not apply"
	expect_ok "$PMCFUSE" events --check PAPI_TOT_INS
	expect_match '^fits' "$OUT"
fi
# a misspelt preset is still an unknown event, with suggestions
expect_fail 1 "$PMCFUSE" record -e PAPI_TOT_INZ -o x.pmcf -- /bin/true
expect_match "unknown event 'PAPI_TOT_INZ' \\(did you mean PAPI_TOT_INS" "$ERR"

# Derived presets, with a table of software natives any Linux counts.
printf '%s\t%s\t%s\t%s\t%s\n' \
	PAPI_T_PF NOT_DERIVED - perf::PERF_COUNT_SW_PAGE_FAULTS "page faults" \
	PAPI_T_PF2 DERIVED_ADD - perf::PERF_COUNT_SW_PAGE_FAULTS,perf::PERF_COUNT_SW_PAGE_FAULTS "twice" \
	PAPI_T_ZERO DERIVED_SUB - perf::PERF_COUNT_SW_PAGE_FAULTS,perf::PERF_COUNT_SW_PAGE_FAULTS "zero" \
	PAPI_T_HALF DERIVED_POSTFIX 'N0|N1|+|2|/|' perf::PERF_COUNT_SW_PAGE_FAULTS,perf::PERF_COUNT_SW_PAGE_FAULTS "once" \
	PAPI_T_NONE NOT_DERIVED - - "nothing" >presets.tsv
export PMCF_TEST_PAPI_PRESETS=$PWD/presets.tsv
expect_ok "$PMCFUSE" events --source papi --json
expect_eq 'PAPI_T_PF:1 PAPI_T_PF2:2 PAPI_T_ZERO:2 PAPI_T_HALF:2 PAPI_T_NONE:1' \
	"$(echo "$OUT" | jq -r '[.[] | "\(.name):\(.cost)"] | join(" ")')"
expect_eq 'true true true true false' "$(echo "$OUT" | jq -r '[.[].available] | join(" ")')"
expect_ok "$PMCFUSE" events --check PAPI_T_PF2,PAPI_T_HALF,page-faults
expect_fail 1 "$PMCFUSE" events --check PAPI_T_PF2,PAPI_T_HALF,page-faults --pmcs 4
expect_match 'need 5 counters but the budget is 4' "$ERR"
expect_fail 2 "$PMCFUSE" events --check PAPI_T_NONE
expect_match "PAPI_T_NONE' cannot be counted on this machine: PAPI maps it to no native event" "$ERR"
EX="$(dirname "$PMCFUSE")/examples"
if [ -x "$EX/plain" ]; then
	expect_ok "$PMCFUSE" record -e PAPI_T_PF2,page-faults,PAPI_T_ZERO,PAPI_T_HALF -o d.pmcf -- "$EX/plain" 3 16
	expect_ok "$PMCFUSE" export --format csv -o d.csv d.pmcf
	expect_eq "xu,type,type_name,label,parent_label,thread,cpu,start_ns,end_ns,duration,PAPI_T_PF2,page-faults,PAPI_T_ZERO,PAPI_T_HALF" "$(head -1 d.csv)"
	expect_eq "" "$(tail -n +2 d.csv | awk -F, '$11 != 2 * $12 || $13 != 0 || $14 != $12 || $12 < 1')"
else
	echo "SKIP: examples/plain is not built: no derived recording"
fi
unset PMCF_TEST_PAPI_PRESETS

# verbs that name no preset print nothing about PAPI
expect_ok "$PMCFUSE" events --check task-clock
expect_nomatch 'PAPI|papi' "$ERR"
