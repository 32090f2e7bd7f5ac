# Accuracy metrics end to end: emd on CSV point sets (golden values, bad
# rows), reference executions with a pair covering, EPD of a fresh
# execution near 1, fused (BC) far below HEM with a 4 ms period (the
# ordering of fuse-task-parallel Fig. 11), correrr and truth agreeing.

# ---- emd --------------------------------------------------------------------
printf 'weight,x,y\n1,0,0\n1,2,0\n' >a.csv
printf '2,1,0\n' >b.csv
expect_ok "$PMCFUSE" emd a.csv b.csv
expect_eq 1 "$OUT"
expect_ok "$PMCFUSE" emd --json a.csv a.csv
expect_eq 0 "$(jq -r .emd <<<"$OUT")"
printf '# three points\n0.5,0,0\n0.25,3,4\n\n0.25,0,0\n' >c.csv
printf '1,0,0\n' >d.csv
expect_ok "$PMCFUSE" emd --json c.csv d.csv
expect_eq 1.25 "$(jq -r .emd <<<"$OUT")"
printf '1,0,0\n-1,1,1\n' >neg.csv
expect_fail 1 "$PMCFUSE" emd a.csv neg.csv
expect_match 'neg.csv:2: negative weight' "$ERR"
printf '1,0,0\n1,x,1\n' >bad.csv
expect_fail 1 "$PMCFUSE" emd bad.csv a.csv
expect_match 'bad.csv:2:' "$ERR"
printf '1,nan,0\n' >nan.csv
expect_fail 1 "$PMCFUSE" emd nan.csv a.csv
expect_fail 1 "$PMCFUSE" emd a.csv missing.csv
expect_fail 1 "$PMCFUSE" emd a.csv
expect_fail 1 "$PMCFUSE" emd --bogus a.csv b.csv

# ---- reference: a pair covering ---------------------------------------------
SIM=cholesky,blocks=8,model=v1 # the first value model: a run shorter than 4 ms
EV=PAPI_TOT_INS,PAPI_TOT_CYC,PAPI_L1_DCM,PAPI_L2_DCR,PAPI_BR_INS,PAPI_BR_MSP,PAPI_LD_INS,PAPI_SR_INS,PAPI_L3_TCM
expect_ok "$PMCFUSE" reference -v -e "$EV" --repeat 3 --seed 5 -o refs --sim "$SIM" # -v: the derivation of the bound
expect_match 'reference executions .* lower bound' "$OUT"
n=$(ls refs/*.pmcf | wc -l)
expect_eq "$n" "$(json .executions refs/reference.json)"
# every pair of the 9 events is covered by at least 3 files
expect_eq 0 "$(jq '[.profiles[].pairs[] | sort | join("|")] | group_by(.) | map(select(length < 3)) | length' refs/reference.json)"
expect_eq 36 "$(jq '[.profiles[].pairs[] | sort | join("|")] | unique | length' refs/reference.json)"
[ "$n" -lt 108 ] || fail "no packing: $n executions for 36 pairs x 3"
# the bound is explained and never above what was found
expect_match 'lower bound: [0-9]+ per repeat = max of \(a\) pairs' "$OUT"
[ "$(json .lower_bound refs/reference.json)" -le "$n" ] || fail "bound above the executions"
[ "$(json .lower_bound refs/reference.json)" -eq "$(( $(json .lower_bound_per_repeat refs/reference.json) * 3 ))" ] || fail "bound per repeat"
ok
expect_fail 1 "$PMCFUSE" reference -e "$EV" -o refs --sim "$SIM"
expect_match 'already holds a campaign or profiles: resume it \(resume; `pmcfuse' "$ERR"
expect_fail 1 "$PMCFUSE" reference -e "$EV" -o r2
expect_fail 1 "$PMCFUSE" reference -e PAPI_TOT_INZ -o r2 --sim "$SIM"
expect_match 'did you mean' "$ERR"
expect_fail 1 "$PMCFUSE" reference -e "$EV" --repeat 1 -o r2 --sim "$SIM"

# ---- epd: a fresh execution, a fused profile, HEM ----------------------------
set0=$(jq -r '.profiles[0].events | join(",")' refs/reference.json)
expect_ok "$PMCFUSE" record -e "$set0" -o fresh.pmcf --sim "$SIM,seed=999"
expect_ok "$PMCFUSE" epd --json fresh.pmcf refs
printf '%s\n' "$OUT" >fresh.json
fresh=$(json .epd fresh.json)
awk -v e="$fresh" 'BEGIN { exit !(e > 0.4 && e < 2.5) }' || fail "fresh execution: EPD $fresh not near 1"
ok
expect_eq true "$(json '.pairs | all(has("events") and has("tmd") and has("calibration") and has("left_out"))' fresh.json)"

expect_ok "$PMCFUSE" run -e "$EV" --seed 3 -o fused.pmcf --sim "$SIM"
expect_ok "$PMCFUSE" record -e "$EV" --multiplex kernel --period-ms 4 -o hem.pmcf --sim "$SIM,seed=77"
expect_ok "$PMCFUSE" epd --json fused.pmcf refs
fused=$(jq -r .epd <<<"$OUT")
expect_eq 36 "$(jq -r '(.pairs | length) + (.excluded | length)' <<<"$OUT")"
expect_ok "$PMCFUSE" epd --json hem.pmcf refs
hem=$(jq -r .epd <<<"$OUT")
awk -v f="$fused" -v h="$hem" 'BEGIN { exit !(h > 4 * f) }' || fail "HEM EPD $hem not far above fused $fused"
ok
# per type, a seeded sample with an interval, bins
expect_ok "$PMCFUSE" epd --per-type fused.pmcf refs
expect_match '^EPD .* per XU type' "$OUT"
expect_ok "$PMCFUSE" epd --json --pairs 10 --seed 4 hem.pmcf refs
expect_eq 10 "$(jq -r '(.pairs | length) + (.excluded | length)' <<<"$OUT")"
s1=$(jq -c '[.epd, .ci95]' <<<"$OUT")
expect_ok "$PMCFUSE" epd --json --pairs 10 --seed 4 hem.pmcf refs
expect_eq "$s1" "$(jq -c '[.epd, .ci95]' <<<"$OUT")"
# more pairs asked than there are: one note says how many were scored, how
# many dropped and why (the 36 pairs of 9 events, no spread in the references)
expect_ok "$PMCFUSE" epd --json --pairs 100 hem.pmcf refs
expect_eq 36 "$(jq -r .pairs_evaluated <<<"$OUT")"
ns=$(jq -r .pairs_scored <<<"$OUT")
nx=$(jq -r .pairs_excluded <<<"$OUT")
expect_eq 36 $((ns + nx))
expect_ok "$PMCFUSE" epd --pairs 100 hem.pmcf refs
expect_match "(^|"$'\n'")note: $ns of the 100 pairs asked were scored, $((100 - ns)) dropped: 64 beyond the 36 pairs of the target.s events; $nx without spread in the references" "$OUT"
expect_match "every pair monitored by two references \(36, fewer than the 100 asked" "$OUT"
expect_nomatch "sample of 100 pairs" "$OUT"
# as many as asked scored: no note
expect_ok "$PMCFUSE" epd --json --pairs 2 --seed 3 fused.pmcf refs
expect_eq 2 "$(jq -r .pairs_scored <<<"$OUT")"
expect_ok "$PMCFUSE" epd --pairs 2 --seed 3 fused.pmcf refs
expect_nomatch "note:" "$OUT"
expect_ok "$PMCFUSE" epd --bins 5 fused.pmcf refs
# the paper's formula stays selectable; the default leaves out and lists
# the pairs on which the references show no spread
expect_ok "$PMCFUSE" epd --json --formula paper fused.pmcf refs
expect_eq paper "$(jq -r .formula <<<"$OUT")"
expect_eq 0 "$(jq -r .pairs_excluded <<<"$OUT")"
expect_ok "$PMCFUSE" epd --json fused.pmcf refs
expect_eq floored "$(jq -r .formula <<<"$OUT")"
expect_eq "$(jq -r '.excluded | length' <<<"$OUT")" "$(jq -r .pairs_excluded <<<"$OUT")"
expect_eq true "$(jq '[.pairs[] | .tmd >= .floor] | all' <<<"$OUT")"
expect_fail 1 "$PMCFUSE" epd --formula bogus fused.pmcf refs
expect_match 'floored or paper' "$ERR"
expect_fail 1 "$PMCFUSE" epd --bins 0 fused.pmcf refs
expect_fail 1 "$PMCFUSE" epd fused.pmcf nowhere
expect_fail 1 "$PMCFUSE" epd fused.pmcf
mkdir empty
expect_fail 1 "$PMCFUSE" epd fused.pmcf empty
expect_match 'no reference profiles' "$ERR"

# ---- correrr ------------------------------------------------------------------
expect_ok "$PMCFUSE" correrr --json fused.pmcf refs
cf=$(jq -r .correrr <<<"$OUT")
expect_eq 36 "$(jq -r '.pairs | length' <<<"$OUT")"
expect_ok "$PMCFUSE" correrr --json hem.pmcf refs
ch=$(jq -r .correrr <<<"$OUT")
awk -v f="$cf" -v h="$ch" 'BEGIN { exit !(f >= 0 && h <= 2 && h > f) }' || fail "correrr fused $cf, HEM $ch"
ok
# several targets against the same references: one list, each object its
# target's, the values those of one target at a time (to the last digit)
expect_ok "$PMCFUSE" epd --json fused.pmcf hem.pmcf fresh.pmcf refs
expect_eq '["fused.pmcf","hem.pmcf","fresh.pmcf"]' "$(jq -c '[.[].target]' <<<"$OUT")"
expect_eq "$fused $hem $fresh" "$(jq -r '[.[].epd] | map(tostring) | join(" ")' <<<"$OUT")"
expect_eq "$(jq -c 'del(.target)' fresh.json)" "$(jq -c '.[2] | del(.target)' <<<"$OUT")"
expect_ok "$PMCFUSE" correrr --json fused.pmcf hem.pmcf refs
expect_eq "$cf $ch" "$(jq -r '[.[].correrr] | map(tostring) | join(" ")' <<<"$OUT")"
expect_ok "$PMCFUSE" epd fused.pmcf hem.pmcf refs
expect_match '^fused.pmcf:' "$OUT"
expect_match 'hem.pmcf:' "$OUT"
expect_ok "$PMCFUSE" correrr fused.pmcf hem.pmcf refs
expect_match 'hem.pmcf:' "$OUT"
# a target of another program run than the first is refused, as references are
expect_ok "$PMCFUSE" record -e "$set0" -o other.pmcf --sim kmeans,model=v1
expect_fail 1 "$PMCFUSE" epd fused.pmcf other.pmcf refs
expect_match 'targets of another run; use --force' "$ERR"
expect_fail 1 "$PMCFUSE" correrr fused.pmcf other.pmcf refs
expect_match 'targets of another run' "$ERR"
ok

# ---- truth ----------------------------------------------------------------------
expect_ok "$PMCFUSE" truth --json fused.pmcf
printf '%s\n' "$OUT" >tf.json
expect_eq true "$(json 'has("median_rel_error") and has("p90_rel_error") and has("share_missing") and (.events | length > 0) and (.pooled | has("median_rel_error"))' tf.json)"
# the events of the base execution are copies (exact): left out, counted
[ "$(json .from_base tf.json)" -gt 0 ] || fail "truth: no value counted as copied from the base"; ok
expect_eq true "$(json '[.events[] | select(.values == 0 and .missing == 0) | .median_rel_error == null] | all' tf.json)"
expect_ok "$PMCFUSE" truth --json hem.pmcf
printf '%s\n' "$OUT" >th.json
# the 4 ms kernel rotation outlasts the run: the events left without a
# counter are missing, and a missing value counts as error 1, so HEM cannot
# win by leaving values out: its events without a counter have median 1
# (here 3 of 9), which the 90th percentile over the events shows
th=$(json .share_missing th.json)
expect_eq 0 "$(json .share_missing tf.json)"
awk -v h="$th" 'BEGIN { exit !(h > 0.2) }' || fail "truth: HEM misses only $th of its values"
[ "$(json .missing th.json)" -gt 0 ] || fail "truth: HEM missing count"
expect_eq 1 "$(json .p90_rel_error th.json)"
awk -v h="$(json .p90_rel_error th.json)" -v f="$(json .p90_rel_error tf.json)" \
	'BEGIN { exit !(h > f) }' || fail "truth: HEM not worse than the fused profile"
ok
expect_ok "$PMCFUSE" truth hem.pmcf
expect_match "values missing \([0-9.]+%, counted as error 1\)" "$OUT"
expect_ok "$PMCFUSE" truth --pooled hem.pmcf
expect_match '[0-9.]+% of values missing \(left out of the error quantiles\)' "$OUT"
expect_ok "$PMCFUSE" truth fresh.pmcf
expect_match 'median relative error 0,' "$OUT"
expect_fail 1 "$PMCFUSE" truth nothere.pmcf
expect_fail 1 "$PMCFUSE" truth --bogus fused.pmcf
