# `pmcfuse record --multiplex kernel|rr|roc` on a real OpenMP task program
# (software events, 2 counters) with both estimators, and in simulation:
# profiles carry the mode, period, estimator and coverage; the kernel's
# perf_event_mux_interval_ms is back to its old value afterwards.
EX="$(dirname "$PMCFUSE")/examples"
omp_examples || exit 0
EVS=page-faults,minor-faults,context-switches,task-clock,cpu-clock
for m in rr roc; do
	for e in cumulative local; do
		expect_ok "$PMCFUSE" record -e $EVS --multiplex $m --pmcs 2 --period-ms 0.5 \
			--estimate $e -o $m-$e.pmcf -- "$EX/cholesky" 10 64
		expect_match "multiplexed \\($m, $e estimate\\)" "$ERR"
		expect_match "[1-9][0-9]* user-space rotations" "$ERR"
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

# the same flags in simulation
expect_ok "$PMCFUSE" record --sim cholesky,blocks=6 -e all --pmcs 4 --multiplex roc --period-ms 0.1 \
	--estimate local -o sim.pmcf
expect_ok "$PMCFUSE" show sim.pmcf
expect_match "multiplex +roc" "$OUT"

expect_fail 1 "$PMCFUSE" record -e $EVS --multiplex sometimes -o bad.pmcf -- "$EX/cholesky"
