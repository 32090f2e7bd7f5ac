# Executions of a plan store its digest and their set (record --plan --set K,
# run --keep); combine fuses them in set order whatever the argument order,
# and refuses a missing set (unless --partial), a set given twice, the same
# file twice, and sets of different plans.
SIM=cholesky,blocks=8
expect_ok "$PMCFUSE" plan -e all --sim $SIM -o plan.json
n=$(json .executions plan.json)
[ "$n" -ge 3 ] || fail "expected at least 3 sets, got $n"; ok
for k in $(seq 0 $((n - 1))); do
	expect_ok "$PMCFUSE" record --plan plan.json --set "$k" -o "set$k.pmcf"
	expect_ok "$PMCFUSE" show --json "set$k.pmcf"
	expect_eq "$k" "$(jq -r .meta.plan_set <<<"$OUT")"
	expect_eq "$n" "$(jq -r .meta.plan_sets <<<"$OUT")"
	expect_match '^[0-9a-f]{64}$' "$(jq -r .meta.plan_digest <<<"$OUT")"
done
in_order=$(for k in $(seq 0 $((n - 1))); do echo "set$k.pmcf"; done)
reversed=$(tac <<<"$in_order")
# shellcheck disable=SC2086
expect_ok "$PMCFUSE" combine -o fwd.pmcf $in_order
# shellcheck disable=SC2086
expect_ok "$PMCFUSE" combine -o rev.pmcf $reversed
"$PMCFUSE" export --format csv fwd.pmcf >fwd.csv
"$PMCFUSE" export --format csv rev.pmcf >rev.csv
cmp -s fwd.csv rev.csv || fail "the argument order changed the fused profile"; ok
expect_eq "$("$PMCFUSE" truth fwd.pmcf)" "$("$PMCFUSE" truth rev.pmcf)"
# the fused profile says which sets it fuses, and is no set itself (issue 33:
# it showed input 0's plan_set 0)
expect_ok "$PMCFUSE" show --json fwd.pmcf
expect_eq "[$(seq -s, 0 $((n - 1)))]" "$(jq -r .meta.plan_sets_fused <<<"$OUT")"
expect_eq null "$(jq -r .meta.plan_set <<<"$OUT")"
expect_eq "$n" "$(jq -r .meta.plan_sets <<<"$OUT")"
expect_fail 1 "$PMCFUSE" combine -o refused.pmcf fwd.pmcf set1.pmcf
expect_match "fwd.pmcf is a fused profile" "$ERR"

# a missing set; --partial fuses what is there, marked incomplete
last=$((n - 1))
# shellcheck disable=SC2086
expect_fail 1 "$PMCFUSE" combine -o miss.pmcf $(head -n "$last" <<<"$in_order")
expect_match "the plan has $n sets and 1 is missing: set $last \(give every set, or set partial \\(--partial\\)" "$ERR"
[ ! -e miss.pmcf ] || fail "wrote a fused profile with a set missing"; ok
# shellcheck disable=SC2086
expect_ok "$PMCFUSE" combine --partial -o part.pmcf $(head -n "$last" <<<"$in_order")
expect_eq false "$("$PMCFUSE" show --json part.pmcf | jq -r .meta.complete)"
expect_eq "[$(seq -s, 0 $((last - 1)))]" "$("$PMCFUSE" show --json part.pmcf | jq -r .meta.plan_sets_fused)"
# a set twice, the same file twice
cp set0.pmcf copy0.pmcf
# shellcheck disable=SC2086
expect_fail 1 "$PMCFUSE" combine -o dup.pmcf $in_order copy0.pmcf
expect_match 'set0.pmcf and copy0.pmcf are both set 0 of the plan' "$ERR"
# shellcheck disable=SC2086
expect_fail 1 "$PMCFUSE" combine -o dup.pmcf $in_order set1.pmcf
expect_match 'set1.pmcf and set1.pmcf are the same file' "$ERR"
# sets of another plan (another seed), and a profile recorded without a plan
expect_ok "$PMCFUSE" plan -e all --sim $SIM --seed 9 -o plan9.json
expect_ok "$PMCFUSE" record --plan plan9.json --set 1 -o other1.pmcf
expect_fail 1 "$PMCFUSE" combine -o mix.pmcf set0.pmcf other1.pmcf
expect_match 'set0.pmcf and other1.pmcf are not executions of the same plan \(plan digests differ\)' "$ERR"
expect_ok "$PMCFUSE" record -e duration,PAPI_L1_DCM --sim $SIM -o free.pmcf
expect_fail 1 "$PMCFUSE" combine -o mix.pmcf set0.pmcf free.pmcf
expect_match 'not executions of the same plan \(the second was not recorded from a plan\)' "$ERR"

# run --keep: its executions carry the plan too; in any order they fuse as
# the run did
expect_ok "$PMCFUSE" run --sim $SIM --keep execs -o run.pmcf
# shellcheck disable=SC2046
expect_ok "$PMCFUSE" combine -o again.pmcf $(ls execs/exec-*.pmcf | sort -r)
"$PMCFUSE" export --format csv run.pmcf >run.csv
"$PMCFUSE" export --format csv again.pmcf >again.csv
cmp -s run.csv again.csv || fail "combine of the kept executions differs from run's result"; ok
# the campaign folder given to a verb that reads one profile: said what it is
expect_fail 1 "$PMCFUSE" show execs
expect_match "^pmcfuse: show: 'execs' is a campaign folder \\(run --keep\\), not a profile: fuse it \\(pmcfuse combine -o fused.pmcf execs\\)" "$ERR"

# an execution that was stopped (complete 0) is refused, unless --partial,
# which marks the result incomplete
# (a sleep of its own length: another copy of this test may run beside it)
SLEEP="30.$$"
expect_ok "$PMCFUSE" plan -e page-faults,minor-faults --pmcs 1 -o rp.json -- sh -c "test -e stop && sleep $SLEEP; true"
expect_eq 2 "$(json .executions rp.json)"
touch stop
"$PMCFUSE" record --plan rp.json --set 0 -o r0.pmcf 2>/dev/null &
pid=$!
# wait (up to 60 s: a loaded machine starts the program late) for the program
# to be running, so that the stop hits the execution, not record's start-up
started=0
for _ in $(seq 600); do pgrep -f "^sleep $SLEEP\$" >/dev/null && { started=1; break; }; sleep 0.1; done
[ $started = 1 ] || fail "the planned program did not start within 60 s"
kill -TERM $pid
wait $pid || true
rm stop
expect_eq false "$("$PMCFUSE" show --json r0.pmcf | jq -r .meta.complete)"
expect_ok "$PMCFUSE" record --plan rp.json --set 1 -o r1.pmcf
expect_fail 1 "$PMCFUSE" combine -o rfused.pmcf r0.pmcf r1.pmcf
expect_match 'r0.pmcf is incomplete \(its program was stopped or failed: complete 0\); record it again, or set partial \(--partial\)' "$ERR"
[ ! -e rfused.pmcf ] || fail "wrote a fused profile of an incomplete execution"; ok
expect_ok "$PMCFUSE" combine --partial -o rfused.pmcf r0.pmcf r1.pmcf
expect_eq false "$("$PMCFUSE" show --json rfused.pmcf | jq -r .meta.complete)"
