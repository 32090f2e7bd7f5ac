# `pmcfuse record --multiplex kernel|rr|roc` on a real OpenMP task program
# (software events, 2 counters) with both estimators, and in simulation:
# profiles carry the mode, period, estimator and coverage; the kernel's
# perf_event_mux_interval_ms is back to its old value afterwards; a value
# never counted is missing (empty CSV field), and record ends with one
# summary line (never-counted events, share missing, short-run warning).
EX="$(dirname "$PMCFUSE")/examples"
omp_examples || exit 0
EVS=page-faults,minor-faults,context-switches,task-clock,cpu-clock
for m in rr roc; do
	for e in cumulative local; do
		expect_ok "$PMCFUSE" record -e $EVS --multiplex $m --pmcs 2 --period-ms 0.5 \
			--estimate $e -o $m-$e.pmcf -- "$EX/cholesky" 10 64
		expect_match "multiplexed \\($m, $e estimate, period 0.5 ms\\)" "$ERR"
		expect_match "[1-9][0-9]* user-space rotations" "$ERR"
		# one summary line, the last one
		expect_eq 1 "$(grep -c 'multiplexed (' err.txt)"
		expect_match "multiplexed \\(" "$(tail -n 1 err.txt)"
		expect_match "[0-9]+ of 1100 values missing \\([0-9.]+%\\)" "$ERR"
		expect_ok "$PMCFUSE" show $m-$e.pmcf
		expect_match "multiplex +$m" "$OUT"
		expect_match "estimate +$e" "$OUT"
		expect_match "coverage" "$OUT"
		expect_ok "$PMCFUSE" export --format csv -o $m-$e.csv $m-$e.pmcf
		expect_eq 221 "$(wc -l <$m-$e.csv)"
	done
done
# local: some values are missing (events that never ran in the XU)
expect_match ',,' "$(cat rr-local.csv)"

MUXF=/sys/bus/event_source/devices/software/perf_event_mux_interval_ms
before=$(cat $MUXF 2>/dev/null)
expect_ok "$PMCFUSE" record -e $EVS --multiplex kernel --period-ms 2 -o k.pmcf -- "$EX/cholesky" 8 64
expect_match "multiplexed \\(kernel" "$ERR"
expect_eq "$before" "$(cat $MUXF 2>/dev/null)" "(perf_event_mux_interval_ms not restored)"
# software events need no counter: 100 % coverage is reported as such (the
# events are read ns apart; each is compared with its own enabled time)
expect_nomatch "not always counted" "$ERR"
expect_match "every XU counted all the time" "$ERR"
expect_match "0 of 600 values missing" "$ERR"
expect_nomatch "warning" "$ERR"

# a period far longer than the run: each thread keeps its first two events;
# the three others never count, and read as missing (empty CSV fields), not 0
for e in cumulative local; do
	expect_ok "$PMCFUSE" record -e $EVS --multiplex rr --pmcs 2 --period-ms 600000 --estimate $e \
		-o long-$e.pmcf -- "$EX/cholesky" 6 64
	line=$(grep 'multiplexed (' err.txt)
	expect_match "3 of 5 events never counted during any XU \\(perf: <not counted>\\): context-switches, task-clock, cpu-clock;" "$line"
	expect_match "warning: the run lasted [0-9.]+ ms, less than one rotation period \\(600000 ms\\)" "$line"
	expect_ok "$PMCFUSE" export --format csv -o long-$e.csv long-$e.pmcf
	# columns: 9 XU fields, duration, then the five events in order
	expect_eq 0 "$(tail -n +2 long-$e.csv | awk -F, '$13 != "" || $14 != "" || $15 != ""' | wc -l)"
	expect_eq 0 "$(tail -n +2 long-$e.csv | awk -F, '$11 == "" || $12 == ""' | wc -l)"
	expect_ok "$PMCFUSE" export --format json long-$e.pmcf
	expect_eq null "$(jq -r '.xus[0].values[3]' <<<"$OUT")"
	expect_ok "$PMCFUSE" show long-$e.pmcf
	expect_match "context-switches +- +- +- +100.00%" "$OUT"
done

# the same flags in simulation
expect_ok "$PMCFUSE" record --sim cholesky,blocks=6 -e all --pmcs 4 --multiplex roc --period-ms 0.1 \
	--estimate local -o sim.pmcf
expect_ok "$PMCFUSE" show sim.pmcf
expect_match "multiplex +roc" "$OUT"
# roc-counts too (the source object once refused it: "unknown multiplexing mode 4")
expect_ok "$PMCFUSE" record --sim cholesky,blocks=6 -e all --pmcs 4 --multiplex roc-counts -o simc.pmcf
expect_ok "$PMCFUSE" show simc.pmcf
expect_match "multiplex +roc-counts" "$OUT"

# the run (1.5 ms with the first value model) is shorter than the period:
# most events never get a counter, and say so (issue 14)
for e in cumulative local; do
	expect_ok "$PMCFUSE" record -e all --multiplex rr --period-ms 4 --estimate $e -o hem-$e.pmcf \
		--sim cholesky,blocks=12,model=v1
	expect_eq 1 "$(wc -l <err.txt)"
	expect_match "^pmcfuse: record: multiplexed \\(rr, $e estimate, period 4 ms\\): 21 of 33 events never counted during any XU \\(perf: <not counted>\\): PAPI_L2_TCM, PAPI_L2_ICM, PAPI_L2_ICH and 18 more; [0-9]+ of 12012 values missing \\([0-9.]+%\\);" "$ERR"
	expect_match "warning: the run lasted 1.56 ms, less than one rotation period \\(4 ms\\)" "$ERR"
	expect_ok "$PMCFUSE" export --format csv -o hem-$e.csv hem-$e.pmcf
	# PAPI_STL_ICY (the last column) never counted: empty in every row
	expect_eq 0 "$(tail -n +2 hem-$e.csv | grep -vc ',$' || true)"
	expect_ok "$PMCFUSE" truth hem-$e.pmcf
	expect_match "values missing \\([0-9.]+%, counted as error 1\\)" "$OUT"
	expect_match "PAPI_STL_ICY +1 +1 +1 +364 +0" "$OUT"
done
# cumulative misses 21 x 364 = 7644 values at least, the summary and show agree
expect_ok "$PMCFUSE" show --json hem-cumulative.pmcf
expect_eq 1 "$(jq -r '.events[] | select(.name == "PAPI_STL_ICY") | .missing' <<<"$OUT")"
expect_eq 0 "$(jq -r '.events[] | select(.name == "PAPI_TOT_INS") | .missing' <<<"$OUT")"
# more than one rotation per period: every event counted, no warning
expect_ok "$PMCFUSE" record -e all --multiplex rr --period-ms 0.05 -o fine.pmcf --sim cholesky,blocks=12
expect_match "each of the 33 events counted during some XU" "$ERR"
expect_nomatch "warning" "$ERR"
# a set that fits is not multiplexed at all
expect_ok "$PMCFUSE" record -e PAPI_TOT_INS,PAPI_L1_DCM --multiplex rr -o fits.pmcf --sim cholesky,blocks=6
expect_match "not needed, the events fit the counters together" "$ERR"

expect_fail 1 "$PMCFUSE" record -e $EVS --multiplex sometimes -o bad.pmcf -- "$EX/cholesky"
