# Habits from perf and the other verbs: combine takes a campaign folder;
# record takes a program without -- (as run does) and writes pmcfuse.pmcf
# without -o, keeping an existing one as pmcfuse.pmcf.old (perf.data.old).
EX="$(dirname "$PMCFUSE")/examples"
# combine DIR
expect_ok "$PMCFUSE" run --sim cholesky,blocks=6 -e PAPI_TOT_INS,PAPI_L1_DCM,PAPI_BR_MSP,PAPI_L2_TCM --pmcs 2 --keep camp -o run.pmcf
expect_ok "$PMCFUSE" combine -o dir.pmcf camp
expect_ok "$PMCFUSE" combine -o files.pmcf camp/exec-*.pmcf
expect_eq "$("$PMCFUSE" export --format csv run.pmcf)" "$("$PMCFUSE" export --format csv dir.pmcf)" "(combine DIR against run)"
expect_eq "$("$PMCFUSE" export --format csv files.pmcf)" "$("$PMCFUSE" export --format csv dir.pmcf)" "(combine DIR against its files)"
mkdir empty
expect_fail 1 "$PMCFUSE" combine -o x.pmcf empty
expect_match "folder without executions" "$ERR"
[ ! -e x.pmcf ] || fail "x.pmcf written"; ok
# record PROG without --, default output
expect_ok "$PMCFUSE" record -e page-faults "$EX/plain" 2 3
[ -s pmcfuse.pmcf ] || fail "no pmcfuse.pmcf"; ok
expect_eq '["2","3"]' "$("$PMCFUSE" show --json pmcfuse.pmcf | jq -c .meta.args)"
first=$(sha256sum <pmcfuse.pmcf)
# options after the program are the program's
expect_ok "$PMCFUSE" record -e page-faults "$EX/plain" 1 -q
expect_match 'note: the previous pmcfuse.pmcf is now pmcfuse.pmcf.old' "$ERR"
expect_eq "$first" "$(sha256sum <pmcfuse.pmcf.old)"
expect_eq '["1","-q"]' "$("$PMCFUSE" show --json pmcfuse.pmcf | jq -c .meta.args)"
# -o still writes where it says, and leaves pmcfuse.pmcf alone
now=$(sha256sum <pmcfuse.pmcf)
expect_ok "$PMCFUSE" record -e page-faults -o named.pmcf -- "$EX/plain" 1
expect_eq "$now" "$(sha256sum <pmcfuse.pmcf)"
# --sim takes no program
expect_fail 1 "$PMCFUSE" record --sim cholesky -e PAPI_TOT_INS stray
expect_match "unexpected argument 'stray'" "$ERR"
# event listings say constraints in words (--json keeps the JSON)
expect_ok "$PMCFUSE" events --sim cholesky
expect_nomatch '\{"' "$OUT"
expect_match 'PAPI_TOT_INS +sim +yes +instructions completed \(fixed counter 0; native INST_RETIRED:ANY\)' "$OUT"
expect_match 'PAPI_L1_DCM +sim +yes +.*\(counters 0, 1, 2, 3; cost 1; native ' "$OUT"
expect_ok "$PMCFUSE" events --sim cholesky --json
expect_eq true "$(jq '[.[] | select(.name == "PAPI_TOT_INS")][0].constraints.fixed' <<<"$OUT")"
# a shell glob over the campaign folder names its manifest: said so
expect_fail 1 "$PMCFUSE" combine -o glob.pmcf camp/*
expect_match "'camp/campaign.json' is a campaign's manifest, not a profile: give the campaign folder itself" "$ERR"
