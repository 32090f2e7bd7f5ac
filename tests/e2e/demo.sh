# `make demo`'s script on this build: it must run through and leave the
# profiles it announces.
expect_ok env OUT="$TESTDIR/out" bash "$SRCDIR/scripts/demo.sh" "$PMCFUSE"
[ -s out/sim.pmcf ] && [ -s out/hem.pmcf ] || fail "demo did not write its simulated profiles"; ok
# the multiplexed recording says what it counted; the run (model 2) is long
# enough for 4 ms rotations to reach every event; truth counts missing values
expect_match 'multiplexed \(rr, cumulative estimate, period 4 ms\): each of the 33 events counted during some XU' "$ERR"
expect_match 'values missing \([0-9.]+%, counted as error 1\)' "$OUT"
if [ -x "$(dirname "$PMCFUSE")/examples/cholesky" ]; then
	[ -s out/cholesky.pmcf ] && [ -s out/cholesky.csv ] || fail "demo did not profile the Cholesky example"; ok
	# every task has every event: no empty field in the CSV
	empty=$(awk -F, 'NR > 1 { for (i = 10; i <= NF; i++) if ($i == "") n++ } END { print n + 0 }' out/cholesky.csv)
	expect_eq 0 "$empty"
	expect_match 'fused 3 profiles with bc' "$OUT"
	if command -v gnuplot >/dev/null; then
		grep -q '<svg class="plot"' out/cholesky.html || fail "the demo's report has no plots"; ok
	fi
fi
