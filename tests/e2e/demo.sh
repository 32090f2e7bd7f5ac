# `make demo`'s script on this build: it must run through and leave the
# profiles it announces.
expect_ok env OUT="$TESTDIR/out" bash "$SRCDIR/scripts/demo.sh" "$PMCFUSE"
[ -s out/sim.pmcf ] && [ -s out/hem.pmcf ] || fail "demo did not write its simulated profiles"; ok
# the multiplexed recording says what it never counted, and truth how much is missing
expect_match 'multiplexed \(rr, cumulative estimate, period 4 ms\): 21 of 33 events never counted during any XU' "$ERR"
expect_match 'warning: the run lasted [0-9.]+ ms, less than one rotation period \(4 ms\)' "$ERR"
expect_match '[1-9][0-9.]*% of values missing \(left out of the error quantiles\)' "$OUT"
if [ -x "$(dirname "$PMCFUSE")/examples/cholesky" ]; then
	[ -s out/cholesky.pmcf ] && [ -s out/cholesky.csv ] || fail "demo did not profile the Cholesky example"; ok
	# every task has every event: no empty field in the CSV
	empty=$(awk -F, 'NR > 1 { for (i = 10; i <= NF; i++) if ($i == "") n++ } END { print n + 0 }' out/cholesky.csv)
	expect_eq 0 "$empty"
	expect_match 'fused 3 profiles with bc' "$OUT"
	if command -v gnuplot >/dev/null; then
		grep -q '<img' out/cholesky.html || fail "the demo's report has no plots"; ok
	fi
fi
