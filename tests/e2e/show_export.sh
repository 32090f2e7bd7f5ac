# show and export on a recorded (simulated) profile: the CSV contract of
# DESIGN.md, JSON keys, missing values, atomic output.

expect_ok "$PMCFUSE" record --sim cholesky,blocks=6,seed=2 -e PAPI_TOT_INS,PAPI_L1_DCM -o a.pmcf

# show --json: the keys the issue names, and numbers that agree with the CSV
expect_ok "$PMCFUSE" show --json a.pmcf
printf '%s\n' "$OUT" >show.json
n_tasks=$(( 6 + 6*5 + 6*5*4/6 ))            # potrf + trsm + syrk + gemm for 6 blocks
expect_eq "$n_tasks" "$(json .xus show.json)"
expect_eq true "$(json .complete show.json)"
expect_eq 4 "$(json '.types | length' show.json)"
expect_eq "$n_tasks" "$(json '[.types[].xus] | add' show.json)"
expect_eq "duration,PAPI_TOT_INS,PAPI_L1_DCM" "$(json '[.events[].name] | join(",")' show.json)"
expect_eq 0 "$(json '[.events[].missing] | add' show.json)"
expect_eq sim "$(json .meta.source show.json)"
expect_eq true "$(json '.events[1].min <= .events[1].median and .events[1].median <= .events[1].max' show.json)"
expect_ok "$PMCFUSE" show a.pmcf
expect_match 'PAPI_L1_DCM' "$OUT"
expect_match 'potrf' "$OUT"
# the type table stays aligned with names past 24 characters (issue 33),
# counted in characters (a UTF-8 name), and past the widest column (64)
cp a.pmcf long.pmcf
sqlite3 long.pmcf "UPDATE xu_type SET name = 'sparselu_par_call@sparselu.c:246' WHERE id = 0;
  UPDATE xu_type SET name = 'zerlegung_für_blöcke@lu.c:9' WHERE id = 1;
  UPDATE xu_type SET name = 'a_type_name_longer_than_the_widest_column_of_the_table@long_file_name.c:1' WHERE id = 2" ||
	fail "sqlite3 could not rename the types"
expect_ok "$PMCFUSE" show long.pmcf
cols=$(sed -n '/^types/,/^events/p' <<<"$OUT" | grep ' XUs' | sed 's/ XUs.*//' |
	LC_ALL=C.UTF-8 bash -c 'while IFS= read -r l; do echo "${#l}"; done' | sort -u | wc -l)
expect_eq 1 "$cols" "(type rows whose XU counts end in different columns)"
grep -qx '  a_type_name_longer_than_the_widest_column_of_the_table@long_file_name.c:1' <<<"$OUT" ||
	fail "a name past the widest column is not on a line of its own"
ok
expect_match $'\n  sparselu_par_call@sparselu.c:246 task ' "$OUT"

# export csv: header, one row per XU, numeric columns
expect_ok "$PMCFUSE" export --format csv a.pmcf
printf '%s\n' "$OUT" >a.csv
expect_eq "xu,type,type_name,label,parent_label,thread,cpu,start_ns,end_ns,duration,PAPI_TOT_INS,PAPI_L1_DCM" "$(head -n1 a.csv)"
expect_eq $((n_tasks + 1)) "$(wc -l <a.csv)"
bad=$(awk -F, 'NR > 1 && ($8 > $9 || $10 != $9 - $8 || $11 !~ /^[0-9]+$/) {n++} END {print n+0}' a.csv)
expect_eq 0 "$bad" "(rows with inconsistent times/duration or non-integer counts)"
# the median in show is the median of the CSV column
med=$(tail -n +2 a.csv | cut -d, -f11 | sort -n | awk '{v[NR]=$1} END {if (NR%2) print v[(NR+1)/2]; else printf "%.17g\n", (v[NR/2]+v[NR/2+1])/2}')
expect_eq "$(json '.events[1].median' show.json)" "$med"

# --truth adds truth:<event> columns; -o writes atomically
expect_ok "$PMCFUSE" export --format csv --truth -o t.csv a.pmcf
expect_match ',truth:PAPI_TOT_INS' "$(head -n1 t.csv)"
expect_match ',truth:PAPI_FDV_INS' "$(head -n1 t.csv)"
expect_eq "" "$(ls -A | grep '\.tmp\.' || true)"

# export json
expect_ok "$PMCFUSE" export --format json -o a.json a.pmcf
expect_eq "$n_tasks" "$(json '.xus | length' a.json)"
expect_eq 3 "$(json '.xus[0].values | length' a.json)"
expect_eq "PAPI_L1_DCM" "$(json '.events[2]' a.json)"

# a failed export leaves nothing behind
expect_fail 1 "$PMCFUSE" export --format csv -o no/such/dir/x.csv a.pmcf
expect_match 'cannot write' "$ERR"
expect_fail 1 "$PMCFUSE" export --format csv --truth -o u.csv a.json
[ ! -e u.csv ] || fail "u.csv left behind"; ok

# a fused profile: show summarises the match distances of its XUs
expect_ok "$PMCFUSE" run -e PAPI_TOT_INS,PAPI_L1_DCM,PAPI_BR_MSP,PAPI_L2_TCM,PAPI_L3_TCM,PAPI_LD_INS,PAPI_SR_INS --pmcs 2 --strategy bc --sim cholesky,blocks=6 -o f.pmcf
expect_ok "$PMCFUSE" show --json f.pmcf
printf '%s\n' "$OUT" >f.json
expect_eq "$(json .xus f.json)" "$(json .match.measured f.json)"
expect_eq "$(json .xus f.json)" "$(json '[.match.histogram[].xus] | add' f.json)"
expect_eq true "$(json '.match.min <= .match.median and .match.median <= .match.max' f.json)"
expect_eq true "$(json .layers.provenance f.json)"
expect_ok "$PMCFUSE" show f.pmcf
expect_match 'match +distance over [0-9]+ XUs' "$OUT"
# a plain recording has no match distances
expect_eq null "$(json .match show.json)"

# a multiplexed profile: show says how much of each event was really counted
expect_ok "$PMCFUSE" record -e PAPI_TOT_INS,PAPI_L1_DCM,PAPI_BR_MSP,PAPI_L2_TCM,PAPI_L3_TCM --pmcs 2 --multiplex rr --period-ms 0.05 --estimate local --sim cholesky,blocks=6 -o m.pmcf
expect_ok "$PMCFUSE" show --json m.pmcf
printf '%s\n' "$OUT" >m.json
expect_eq 1 "$(json '.events[1].measured' m.json)"     # PAPI_TOT_INS has a fixed counter
expect_eq true "$(json '[.events[2:][] | .measured > 0 and .measured <= 1 and .time_measured <= 1] | all' m.json)"
expect_eq true "$(json '[.events[2:][] | .time_measured < 1] | any' m.json)"
expect_eq null "$(json '.events[0].measured' m.json)"  # duration needs no counter
expect_eq null "$(json '.events[1].measured' show.json)" # not multiplexed: no coverage
expect_ok "$PMCFUSE" show m.pmcf
expect_match 'XUS MEASURED' "$OUT"
