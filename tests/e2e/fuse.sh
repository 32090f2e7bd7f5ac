# Fusion end to end on the simulator: plan, run with each strategy on
# cholesky with all 33 events, combine of kept executions, refusals.

# plan: a versioned plan.json; BC needs no more executions than LGL
expect_ok "$PMCFUSE" plan -e all --sim cholesky --strategy lgl -o lgl.json
expect_match 'lower bound [0-9]+ executions' "$OUT"
expect_eq pmcfuse-plan "$(json .format lgl.json)"
expect_eq 1 "$(json .version lgl.json)"
expect_eq cholesky "$(json .source.sim lgl.json)"
expect_eq 34 "$(json '.events | length' lgl.json)"
expect_ok "$PMCFUSE" plan -e all --sim cholesky -o bc.json
expect_eq bc "$(json .strategy bc.json)"
nl=$(json .executions lgl.json); nb=$(json .executions bc.json)
[ "$nb" -le "$nl" ] || fail "bc needs $nb executions, lgl $nl"; ok
# every bc set overlaps the union of the sets before it beyond nothing
expect_eq 0 "$(jq '[.sets[1:][] | select(index("duration") == null)] | length' bc.json)"
# the papers' greedy packing is kept for comparison, never better
expect_ok "$PMCFUSE" plan -e all --sim cholesky --strategy lgl --packing greedy -o greedy.json
[ "$(json .executions greedy.json)" -ge "$nl" ] || fail "greedy beat best"; ok
# a budget on a machine: sets fit it
expect_ok "$PMCFUSE" plan -e all --sim cholesky --strategy ctc --pmcs 3 -o two.json
[ "$(json .executions two.json)" -gt "$nl" ] || fail "3 counters should need more sets"; ok
expect_ok "$PMCFUSE" plan -e PAPI_L1_DCM,PAPI_L2_TCM --sim cholesky --link PAPI_L3_TCM
expect_match '"PAPI_L3_TCM"' "$OUT"
expect_fail 1 "$PMCFUSE" plan -e PAPI_L1_DCM --sim cholesky --strategy lgl --link PAPI_L3_TCM
expect_fail 1 "$PMCFUSE" plan -e PAPI_NOPE --sim cholesky
expect_match 'unknown event' "$ERR"
expect_fail 1 "$PMCFUSE" plan -e all --sim cholesky --strategy nope
expect_match 'unknown strategy' "$ERR"

# run with each strategy: every XU has all 33 events (and duration)
for s in ctc lgl bc bc-unlabeled bc-label bc-lgl; do
	expect_ok "$PMCFUSE" run --sim cholesky,blocks=10 --strategy "$s" -o "f-$s.pmcf"
	expect_match "fused [0-9]+ profiles with $s" "$OUT"
	expect_ok "$PMCFUSE" show --json "f-$s.pmcf"
	echo "$OUT" >"show-$s.json"
	expect_eq 34 "$(json '.events | length' "show-$s.json")"
	expect_eq 0 "$(jq '[.events[] | select(.missing != 0)] | length' "show-$s.json")"
	expect_eq fused "$(json .meta.source "show-$s.json")"
	expect_eq "$s" "$(json .meta.strategy "show-$s.json")"
	expect_eq true "$(json .layers.provenance "show-$s.json")"
done

# --keep keeps the executions; combine fuses them again, reproducibly
expect_ok "$PMCFUSE" run --sim cholesky,blocks=8 --seed 5 --strategy bc-unlabeled --keep execs -o a.pmcf
n=$(ls execs/exec-*.pmcf | wc -l)
[ "$n" -ge 2 ] || fail "kept $n executions"; ok
expect_ok "$PMCFUSE" combine --strategy bc-unlabeled --seed 5 -o b.pmcf execs/exec-*.pmcf
expect_match 'match distance' "$OUT"
expect_ok "$PMCFUSE" export --format csv -o a.csv a.pmcf
expect_ok "$PMCFUSE" export --format csv -o b.csv b.pmcf
cmp -s a.csv b.csv || fail "run and combine of the same executions differ"; ok
# the XU types clustered on 1 or 3 threads: the same profile, match distances
# and provenance included
for t in 1 3; do
	expect_ok "$PMCFUSE" combine --strategy bc --threads $t -o t$t.pmcf execs/exec-*.pmcf
	expect_ok "$PMCFUSE" show --json t$t.pmcf
	printf '%s\n' "$OUT" | jq -S 'del(.path, .meta.inputs)' >t$t.json
	expect_ok "$PMCFUSE" export --format json t$t.pmcf
	printf '%s\n' "$OUT" | jq -S 'del(.meta)' >>t$t.json
done
cmp -s t1.json t3.json || fail "bc on 1 and 3 threads differ"; ok
# the simulated runs repeat their labels and bc pairs most XUs across them,
# but a label's values do not follow it from run to run there: no warning
# suggesting lgl (collect_deep.sh has it, on recorded runs)
expect_ok "$PMCFUSE" combine --strategy bc -o bw.pmcf execs/exec-*.pmcf
[ -z "$ERR" ] || fail "bc on simulated runs warned: $ERR"; ok
expect_fail 1 "$PMCFUSE" combine --threads 0 -o t0.pmcf execs/exec-*.pmcf
# --impute-mode rank: the same for any --threads, the mode in the metadata;
# refused without --impute or with an unknown mode
for t in 1 3; do
	expect_ok "$PMCFUSE" combine --impute 5 --impute-mode rank --threads $t -o r$t.pmcf execs/exec-*.pmcf
	expect_ok "$PMCFUSE" export --format json r$t.pmcf
	printf '%s\n' "$OUT" | jq -S 'del(.meta.inputs)' >r$t.json
done
cmp -s r1.json r3.json || fail "--impute-mode rank on 1 and 3 threads differs"; ok
expect_eq rank "$(json .meta.combine_impute_mode r1.json)"
# the summary says how many values were imputed and how many of them changed
expect_ok "$PMCFUSE" combine --impute 5 --impute-mode rank --json -o rj.pmcf execs/exec-*.pmcf
printf '%s\n' "$OUT" >rj.json
[ "$(json .imputed.values rj.json)" -gt 0 ] || fail "no imputed values counted"; ok
[ "$(json .imputed.changed rj.json)" -le "$(json .imputed.values rj.json)" ] || fail "more changed than imputed"; ok
expect_ok "$PMCFUSE" combine --impute 5 -o rm.pmcf execs/exec-*.pmcf
expect_match 'imputed [0-9]+ values from the nearest XUs; [0-9]+ differ from the copies they replace' "$OUT"
expect_fail 1 "$PMCFUSE" combine --impute-mode rank -o r.pmcf execs/exec-*.pmcf
expect_fail 1 "$PMCFUSE" combine --impute 5 --impute-mode mean -o r.pmcf execs/exec-*.pmcf
expect_ok "$PMCFUSE" combine --strategy lgl -o l.pmcf execs/exec-*.pmcf
expect_match 'labels: [0-9]+ matched, 0 missing' "$OUT"

# refusals: different programs (unless --force), missing inputs, real programs
expect_ok "$PMCFUSE" record -e duration,PAPI_L1_DCM --sim cholesky,blocks=6 -o chol.pmcf
expect_ok "$PMCFUSE" record -e duration,PAPI_L2_TCM --sim seidel -o seidel.pmcf
for s in ctc lgl bc; do
	expect_fail 1 "$PMCFUSE" combine --strategy "$s" -o x.pmcf chol.pmcf seidel.pmcf
	expect_match 'not the same program' "$ERR"
	[ ! -e x.pmcf ] || fail "x.pmcf written"; ok
done
expect_ok "$PMCFUSE" combine --strategy ctc --force -o x.pmcf chol.pmcf seidel.pmcf
expect_fail 1 "$PMCFUSE" combine --strategy bc -o x.pmcf
expect_match 'missing input' "$ERR"
expect_fail 1 "$PMCFUSE" combine -o y.pmcf nosuch.pmcf
expect_fail 1 "$PMCFUSE" run -e PAPI_L1_DCX -o y.pmcf -- /bin/true
expect_match 'unknown event' "$ERR"
# no -o: pmcfuse.pmcf, as record; an existing one is kept as pmcfuse.pmcf.old
mkdir -p dflt && (cd dflt && "$PMCFUSE" run --sim cholesky,blocks=4 -e PAPI_TOT_INS >out 2>err) ||
	fail "run without -o: $(cat dflt/err)"
[ -f dflt/pmcfuse.pmcf ] && [ ! -e dflt/pmcfuse.pmcf.executions ] || fail "run without -o: no pmcfuse.pmcf"
expect_match 'wrote pmcfuse.pmcf' "$(cat dflt/out)"
(cd dflt && "$PMCFUSE" run --sim cholesky,blocks=4,seed=2 -e PAPI_TOT_INS >out 2>err) || fail "second run: $(cat dflt/err)"
[ -f dflt/pmcfuse.pmcf.old ] || fail "the previous pmcfuse.pmcf was not kept as .old"; ok
expect_match 'previous pmcfuse.pmcf is now pmcfuse.pmcf.old' "$(cat dflt/err)"
for verb in plan combine run; do
	expect_ok "$PMCFUSE" "$verb" --help
	expect_match "usage: pmcfuse $verb" "$OUT"
done

# run -- PROG on the bundled OpenMP examples (built with clang-16)
EX="$(dirname "$PMCFUSE")/examples"
omp_examples || exit 0
expect_ok "$PMCFUSE" run --help
expect_match 'software events' "$OUT"
TP=sched:sched_switch
tracepoints_usable || TP=cpu-clock # the same shape without a tracepoint
SW=page-faults,minor-faults,context-switches,cpu-migrations,task-clock,$TP
for s in lgl bc; do
	# 6 events, 2 counters: 3 executions (duration links the bc sets for free)
	expect_ok "$PMCFUSE" run -e "$SW" --pmcs 2 --strategy "$s" --keep "pk-$s" -o "p-$s.pmcf" \
		-- "$EX/cholesky" 5 32
	expect_match "3 executions of [^ ]*cholesky" "$OUT"
	expect_match 'executions agree: 35 XUs each' "$OUT"
	expect_match "fused 3 profiles with $s: 35 XUs, 7 events" "$OUT"
	expect_eq 3 "$(ls "pk-$s"/exec-*.pmcf | wc -l)"
	expect_ok "$PMCFUSE" export --format csv -o "p-$s.csv" "p-$s.pmcf"
	expect_eq "duration,$SW" "$(head -1 "p-$s.csv" | cut -d, -f10-)"
	expect_eq 36 "$(wc -l <"p-$s.csv")"
	# every XU has every event: no empty field among the event columns
	expect_eq 0 "$(awk -F, 'NR > 1 { for (i = 10; i <= NF; i++) if ($i == "") e++ } END { print e + 0 }' "p-$s.csv")"
done
# default events of a real program: duration and the software events
expect_ok "$PMCFUSE" run -o pd.pmcf -- "$EX/cholesky" 3 32
expect_ok "$PMCFUSE" export --format csv -o pd.csv pd.pmcf
expect_match 'task-clock' "$(head -1 pd.csv)"
# a failing execution: stop, keep what was recorded, one line naming it
expect_fail 2 "$PMCFUSE" run -e page-faults,major-faults --pmcs 1 --keep pf -o pf.pmcf \
	-- "$EX/crash" segv 10
expect_match 'execution 0 of 2 failed: .*signal 11' "$ERR"
expect_eq 1 "$(printf '%s\n' "$ERR" | wc -l)"
[ -f pf/exec-0.pmcf ] || fail "the failed execution's profile was not kept"; ok
[ ! -e pf.pmcf ] || fail "pf.pmcf written"; ok
expect_ok "$PMCFUSE" show --json pf/exec-0.pmcf
expect_eq false "$(jq -r .meta.complete <<<"$OUT")"
expect_fail 1 "$PMCFUSE" run -e page-faults -o pn.pmcf -- /nonexistent/prog
expect_match 'execution 0 of 1 failed' "$ERR"
