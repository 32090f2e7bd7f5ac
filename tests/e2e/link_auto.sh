# plan --link auto (docs/fusion.md): linking events and set order chosen by
# information, from a simulated pilot or from references; record --plan and
# combine follow the plan; run --link auto; the usage errors of docs/errors.md
# (row link-auto-usage).
SIM=cholesky,blocks=6,machine=xeon32
row() { ROW=$1; }
trap 'echo "in row: ${ROW:-?}" >&2' ERR

# a pilot (no --refs, simulated source), then the plan's sets in order
expect_ok "$PMCFUSE" plan -e all --link auto --sim $SIM -o plan.json
expect_match 'pilot of [0-9]+ simulated executions' "$ERR"
expect_match 'sets ordered and linked by branch and bound \(proven best\), mutual information from [0-9]+ profiles' "$OUT"
expect_match 'bits about its new events' "$OUT"
n=$(json '.sets | length' plan.json)
expect_eq "$n" "$(json '.link_auto.sets | length' plan.json)"
expect_eq "branch and bound" "$(json .link_auto.method plan.json)"
# every linking event a set adds is in that set and in an earlier one
for k in $(seq 1 $((n - 1))); do
	for e in $(json ".link_auto.sets[$k].link[]" plan.json); do
		expect_eq true "$(jq --arg e "$e" --argjson k "$k" '(.sets[$k] | index($e) != null) and ([.sets[0:$k][][]] | index($e) != null)' plan.json)"
	done
done
files=()
for k in $(seq 0 $((n - 1))); do
	expect_ok "$PMCFUSE" record --plan plan.json --set "$k" -o "e$k.pmcf"
	files+=("e$k.pmcf")
done
expect_ok "$PMCFUSE" combine --strategy bc -o fused.pmcf "${files[@]}"
expect_ok "$PMCFUSE" truth --json fused.pmcf
expect_eq 0 "$(echo "$OUT" | jq .share_missing)"

# from references; --json has the choice
expect_ok "$PMCFUSE" reference -e all --repeat 2 -o refs --sim $SIM -q
expect_ok "$PMCFUSE" plan -e all --link auto --refs refs --sim $SIM -o p2.json --json
expect_eq "$(json '.executions' p2.json)" "$(echo "$OUT" | jq '.link_auto.sets | length')"
expect_match '"exact": true' "$OUT"
# the default is unchanged: no link_auto
expect_ok "$PMCFUSE" plan -e all --sim $SIM -o p3.json
expect_eq null "$(json '.link_auto' p3.json)"
expect_eq "$(json '.sets | length' p3.json)" "$(json '.sets | length' p2.json)"

# run --link auto: a pilot, then the same executions as the plan's
expect_ok "$PMCFUSE" run -e all --link auto --sim $SIM -o run.pmcf
expect_match 'pilot of [0-9]+ simulated executions' "$ERR"

row link-auto-usage
expect_fail 1 "$PMCFUSE" plan -e task-clock --link auto -o x.json -- /bin/true
expect_match '^pmcfuse: plan: --link auto needs reference profiles for a program' "$ERR"
expect_fail 1 "$PMCFUSE" plan -e all --refs refs --sim $SIM -o x.json
expect_match '^pmcfuse: plan: --refs is for --link auto' "$ERR"
expect_fail 1 "$PMCFUSE" plan -e all --link auto --from refs --sim $SIM -o x.json
expect_match 'not both' "$ERR"
mkdir empty
expect_fail 1 "$PMCFUSE" plan -e all --link auto --refs empty --sim $SIM -o x.json
expect_match "^pmcfuse: plan: no profile in 'empty'" "$ERR"
[ ! -e x.json ] || fail "a failed plan left x.json"
