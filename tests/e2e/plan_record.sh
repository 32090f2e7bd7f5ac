# A plan's executions recorded one by one (as a Slurm job array would) and
# combined give exactly what `run` gives; record --plan refuses bad input.
EV=PAPI_TOT_INS,PAPI_L1_DCM,PAPI_BR_MSP,PAPI_L2_TCM,PAPI_L3_TCM,PAPI_LD_INS
SPEC=cholesky,blocks=5,seed=7
for strategy in lgl bc; do
	expect_ok "$PMCFUSE" plan -e $EV --pmcs 2 --strategy $strategy --sim $SPEC -o plan-$strategy.json
	n=$(jq '.sets | length' plan-$strategy.json)
	[ "$n" -ge 3 ] || fail "expected at least 3 sets, got $n"; ok
	parts=()
	for ((k = 0; k < n; k++)); do
		expect_ok "$PMCFUSE" record --plan plan-$strategy.json --set $k -o part-$strategy-$k.pmcf
		parts+=(part-$strategy-$k.pmcf)
	done
	expect_ok "$PMCFUSE" combine --strategy $strategy -o comb-$strategy.pmcf "${parts[@]}"
	expect_ok "$PMCFUSE" run -e $EV --pmcs 2 --strategy $strategy --sim $SPEC -o run-$strategy.pmcf
	expect_ok "$PMCFUSE" export --format csv -o comb.csv comb-$strategy.pmcf
	expect_ok "$PMCFUSE" export --format csv -o run.csv run-$strategy.pmcf
	cmp -s comb.csv run.csv || fail "$strategy: record --plan + combine differs from run"; ok
done
expect_fail 1 "$PMCFUSE" record --plan plan-lgl.json --set "$n" -o x.pmcf
expect_match "has sets 0 to" "$ERR"
expect_fail 1 "$PMCFUSE" record --plan plan-lgl.json -o x.pmcf
expect_fail 1 "$PMCFUSE" record --plan plan-lgl.json --set 0 -e PAPI_TOT_INS -o x.pmcf
expect_fail 1 "$PMCFUSE" record --plan plan-lgl.json --set 0 --sim seidel -o x.pmcf
expect_match "the plan names its source" "$ERR"
expect_fail 1 "$PMCFUSE" record --plan plan-lgl.json --set 0 --pmcs 3 -o x.pmcf
expect_match "contradicts" "$ERR"
printf '{"format":"pmcfuse-plan","version":99,"sets":[]}' >future.json
expect_fail 1 "$PMCFUSE" record --plan future.json --set 0 -o x.pmcf
[ ! -e x.pmcf ] || fail "a failed record left x.pmcf"; ok

# a program named by a relative path is stored absolute: record --plan runs
# it from another folder (arguments stay as written)
EX="$(dirname "$PMCFUSE")/examples"
mkdir -p progdir elsewhere
cp "$EX/plain" progdir/
(cd progdir && "$PMCFUSE" plan -e page-faults,minor-faults --pmcs 1 -o ../rel-plan.json -- ./plain 2 3 >/dev/null) ||
	fail "plan of ./plain failed"
expect_eq "$PWD/progdir/plain" "$(jq -r '.source.program' rel-plan.json)"
(cd elsewhere && "$PMCFUSE" record -q --plan ../rel-plan.json --set 1 -o rel.pmcf >/dev/null 2>../rel-err.txt) ||
	fail "record --plan from another folder: $(cat rel-err.txt)"
expect_ok "$PMCFUSE" show --json elsewhere/rel.pmcf
expect_eq '["2","3"]' "$(jq -c '.meta.args' out.txt)"

# without -e, plan takes the source's default events, as run does: all of a
# simulated machine, duration and the software events of a program
expect_ok "$PMCFUSE" plan --sim "$SPEC" -o dflt-sim.json
expect_eq "$("$PMCFUSE" events --sim "$SPEC" --json | jq 'length')" "$(jq '.events | length' dflt-sim.json)"
expect_ok "$PMCFUSE" plan --pmcs 2 -o dflt-prog.json -- "$EX/plain" 1 1
expect_eq duration "$(jq -r '.events[0]' dflt-prog.json)"
expect_match 'task-clock' "$(jq -r '.events | join(",")' dflt-prog.json)"
expect_fail 1 "$PMCFUSE" plan -o none.json
expect_match 'missing -e EVENTS \(or a source' "$ERR"
