# A fused profile names its sources by absolute path (combine resolves the
# names it is given), so they are found from any working directory with the
# output in another folder (SQL ATTACH of source.path; truth of a fused
# profile without its own truth layer reopens them); a folder of profiles
# moved together still works (truth looks beside the fused profile for a
# source that is gone from its path).
expect_ok "$PMCFUSE" plan -e all --strategy bc --sim cholesky,blocks=6 -o plan.json
n=$(jq .executions plan.json)
mkdir -p sets out elsewhere
for k in $(seq 0 $((n - 1))); do
	expect_ok "$PMCFUSE" record --plan plan.json --set "$k" -o "sets/set$k.pmcf"
done
cd sets
expect_ok "$PMCFUSE" combine -o ../out/fused.pmcf set*.pmcf
cd ..
# the truth of the sources, not the fused profile's own copy
sqlite3 out/fused.pmcf 'DELETE FROM truth_chunk; DELETE FROM truth_event;'
expect_ok "$PMCFUSE" export --format json --provenance -o fused.json out/fused.pmcf
real=$(realpath sets)
for k in $(seq 0 $((n - 1))); do
	expect_eq "$real/set$k.pmcf" "$(jq -r ".sources[$k].path" fused.json)" "(source $k stored absolute)"
done
# truth reopens the sources: from the output's folder, from elsewhere;
# SQL attaches them by source.path
cd elsewhere
expect_ok "$PMCFUSE" truth ../out/fused.pmcf
expect_match 'truth of the source XUs' "$OUT"
while IFS='|' read -r id path; do
	expect_eq 56 "$(sqlite3 ../out/fused.pmcf "ATTACH '$path' AS s; SELECT count(*) FROM s.xu_values")" "(source $id)"
done < <(sqlite3 ../out/fused.pmcf 'SELECT id, path FROM source')
cd ../out
expect_ok "$PMCFUSE" truth fused.pmcf
cd ..
# the fused profile and its sources moved together: found beside it
mkdir moved
mv out/fused.pmcf sets/set*.pmcf moved/
expect_ok "$PMCFUSE" truth moved/fused.pmcf
# a source gone altogether: said, with its stored path
rm moved/set0.pmcf
expect_fail 1 "$PMCFUSE" truth moved/fused.pmcf
expect_match "$real/set0.pmcf" "$ERR"
