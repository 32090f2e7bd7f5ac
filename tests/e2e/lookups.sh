# One resolved event list from the command line to the simulator, the
# collector and the planner (issue 19): with PMCF_DEBUG=3 every recording
# (pmcf_source_record) and every plan (pmcf_plan_make_evlist) says how many
# event names this process has looked up so far. Parsing -e looks each name
# up once; after that the count must not move, whatever is planned or
# recorded (run, reference, plan --link auto's pilot, record --plan --set K,
# a real program).
EV=PAPI_TOT_INS,PAPI_L1_DCM,PAPI_L2_TCM,PAPI_BR_MSP,PAPI_L1_ICM
NEV=5
SPEC=cholesky,blocks=4

# the distinct counts of the "looked up" lines of $ERR, one a line
counts() { grep -o '[0-9]* event names looked up' <<<"$ERR" | awk '{print $1}' | sort -u; }
# lines VERB: how many "VERB: ... looked up" lines $ERR has
lines() { grep -c "debug: $1: .* looked up" <<<"$ERR"; }

export PMCF_DEBUG=3

# run: the list planned, then every set recorded
expect_ok "$PMCFUSE" run --sim $SPEC -e $EV --pmcs 2 -q -o run.pmcf
expect_eq 1 "$(lines plan)"
n=$(lines source)
[ "$n" -ge 3 ] || fail "run: expected a recording per set, got $n"; ok
expect_eq $NEV "$(counts)" "(run: names looked up at each step)"

# reference: a pair covering, each set recorded (repeats too)
expect_ok "$PMCFUSE" reference --sim $SPEC -e $EV --pmcs 2 --repeat 2 -q -o refs
[ "$(lines source)" -ge 4 ] || fail "reference: too few recordings: $ERR"; ok
expect_eq $NEV "$(counts)" "(reference)"

# plan --link auto: the pilot's recordings and the plan
expect_ok "$PMCFUSE" plan --sim $SPEC -e $EV --pmcs 2 --link auto -q -o auto.json
expect_eq 1 "$(lines plan)"
[ "$(lines source)" -ge 2 ] || fail "plan --link auto: no pilot recordings: $ERR"; ok
expect_eq $NEV "$(counts)" "(plan --link auto)"

# record --plan --set K: the set's names looked up once, then recorded
expect_ok "$PMCFUSE" plan --sim $SPEC -e $EV --pmcs 2 -q -o plan.json
for k in 0 1; do
	expect_ok "$PMCFUSE" record --plan plan.json --set $k -q -o set-$k.pmcf
	m=$(jq ".sets[$k] | length" plan.json)
	expect_eq 1 "$(lines source)"
	expect_eq "$m" "$(counts)" "(record --plan --set $k: $m names in the set)"
done

# a real program, counted with perf_event (software events)
PEV=task-clock,page-faults,context-switches
if "$PMCFUSE" events --check $PEV >/dev/null 2>&1; then
	expect_ok "$PMCFUSE" run -e $PEV --pmcs 2 -q -o prog.pmcf -- /bin/true
	[ "$(lines source)" -ge 2 ] || fail "run of a program: too few recordings: $ERR"; ok
	expect_eq 3 "$(counts)" "(run of a program)"
else
	echo "SKIP (program case): perf_event cannot count $PEV here"
fi
