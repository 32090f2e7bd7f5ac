# What the verbs print: --json is one JSON object on every verb with a
# summary, --quiet prints nothing on success, internals only with -v, the
# seed printed is the user's, show's numbers have units, epd --top sorts,
# progress is one timestamped line per execution in a pipe, and the
# profiled program's output never runs into pmcfuse's lines.
SIM=cholesky,blocks=4
row() { ROW=$1; } # a block that is a row of docs/errors.md
EV=PAPI_TOT_INS,PAPI_L1_DCM,PAPI_L2_TCM,PAPI_BR_MSP
EX="$(dirname "$PMCFUSE")/examples"
# one_json FILE: FILE holds exactly one JSON object (jq; python's json.tool too)
one_json() {
	[ "$(jq -s 'length == 1 and (.[0] | type == "object")' "$1")" = true ] ||
		fail "not one JSON object: $(head -c 300 "$1")"
	if command -v python3 >/dev/null; then
		python3 -m json.tool "$1" >/dev/null || fail "python3 -m json.tool rejects $1"
	fi
	ok
}

# ---- --json: one object on stdout, per verb -----------------------------------
expect_ok "$PMCFUSE" run --json -e "$EV" --pmcs 2 -o fused.pmcf --sim "$SIM"
one_json out.txt
expect_eq 1 "$(jq .seed out.txt)"
expect_eq "$(jq .executions out.txt)" "$(jq '.execution_seeds | length' out.txt)"
expect_eq true "$(jq '.xus > 0 and .events == 5 and (.match.median | type == "number")' out.txt)"
expect_ok "$PMCFUSE" plan --json -e "$EV" --pmcs 2 --sim "$SIM" -o plan.json
one_json out.txt
expect_eq "$(jq .executions plan.json)" "$(jq '.sets | length' out.txt)"
for k in 0 1; do
	expect_ok "$PMCFUSE" record --json --plan plan.json --set $k -o set$k.pmcf
	one_json out.txt
	expect_eq "set$k.pmcf" "$(jq -r .output out.txt)"
done
expect_ok "$PMCFUSE" record --json -e "$EV" --multiplex rr -o hem.pmcf --sim "$SIM"
one_json out.txt
expect_eq rr "$(jq -r .multiplex.mode out.txt)"
expect_ok "$PMCFUSE" combine --json --partial -o part.pmcf set0.pmcf
one_json out.txt
expect_eq '1 false' "$(jq -r '"\(.inputs) \(.complete)"' out.txt)"
expect_ok "$PMCFUSE" reference --json -e "$EV" --repeat 2 -o refs --sim "$SIM"
one_json out.txt
expect_eq "$(ls refs/*.pmcf | wc -l)" "$(jq .executions out.txt)"
for cmd in "show fused.pmcf" "epd fused.pmcf refs" "correrr fused.pmcf refs" "truth fused.pmcf" \
	"events --check task-clock,page-faults"; do
	# shellcheck disable=SC2086
	expect_ok "$PMCFUSE" ${cmd%% *} --json ${cmd#* }
	one_json out.txt
done
printf '1,0,0\n1,1,1\n' >a.csv
printf '2,0,1\n' >b.csv
expect_ok "$PMCFUSE" emd --json a.csv b.csv
one_json out.txt

# ---- --quiet (and pmcfuse -q): nothing at all on success ---------------------
quiet() {
	expect_ok "$@"
	[ ! -s out.txt ] && [ ! -s err.txt ] || fail "--quiet printed: $* -- $OUT $ERR"
	ok
}
quiet "$PMCFUSE" run --quiet -e "$EV" --pmcs 2 -o q.pmcf --sim "$SIM"
quiet "$PMCFUSE" -q run -e "$EV" --pmcs 2 -o q2.pmcf --sim "$SIM"
[ -s q.pmcf ] && [ -s q2.pmcf ] || fail "run --quiet wrote no profile"; ok
quiet "$PMCFUSE" plan -q -e "$EV" --pmcs 2 --sim "$SIM" -o planq.json
quiet "$PMCFUSE" record -q -e "$EV" --multiplex rr -o hemq.pmcf --sim "$SIM"
quiet "$PMCFUSE" combine -q --partial -o partq.pmcf set0.pmcf set1.pmcf
quiet "$PMCFUSE" reference -q -e "$EV" --repeat 2 -o refsq --sim "$SIM"
quiet "$PMCFUSE" show -q fused.pmcf
quiet "$PMCFUSE" epd -q fused.pmcf refs
quiet "$PMCFUSE" correrr -q fused.pmcf refs
quiet "$PMCFUSE" truth -q fused.pmcf
quiet "$PMCFUSE" emd -q a.csv b.csv
quiet "$PMCFUSE" events -q --check task-clock
# a program's own output is the program's: only pmcfuse's lines are gone
expect_ok "$PMCFUSE" -q record -e page-faults -o qp.pmcf -- "$EX/plain" 2 3
expect_nomatch 'pmcfuse' "$OUT$ERR"
expect_ok "$PMCFUSE" record -e page-faults -o qp.pmcf -- "$EX/plain" 2 3
expect_match 'pmcfuse: record: 3 XUs of' "$ERR"

# ---- internals behind -v; the seed printed is the one used ---------------------
expect_ok "$PMCFUSE" run -e "$EV" --pmcs 2 -o d.pmcf --sim "$SIM"
expect_nomatch 'grid:|dmax' "$OUT"
expect_match "executions of cholesky,blocks=4,[^ ]*seed=1[,) ]" "$OUT"
expect_ok "$PMCFUSE" run -e "$EV" --pmcs 2 --seed 7 -o d7.pmcf --sim "$SIM"
expect_match "seed=7[,) ]" "$OUT"
expect_ok "$PMCFUSE" -v run -e "$EV" --pmcs 2 -o dv.pmcf --sim "$SIM"
expect_match 'grid: [0-9]+ iterations, largest dmax' "$OUT"
expect_match 'execution seeds \(derived from seed 1\): [0-9]+ [0-9]+' "$OUT"
expect_ok "$PMCFUSE" combine --partial -o one.pmcf set0.pmcf
expect_match '^fused 1 profile with bc' "$OUT"
expect_nomatch 'grid:' "$OUT"
expect_ok "$PMCFUSE" reference -e "$EV" --repeat 2 -o refs2 --sim "$SIM"
expect_nomatch 'lower bound: ' "$OUT"
expect_match 'lower bound [0-9]+' "$OUT"
expect_ok "$PMCFUSE" reference -v -e "$EV" --repeat 2 -o refs3 --sim "$SIM"
expect_match 'lower bound: [0-9]+ per repeat = max of' "$OUT"

# ---- show: numbers with units, exact in --json -----------------------------------
expect_ok "$PMCFUSE" show fused.pmcf
row=$(grep -E '^  duration ' out.txt)
expect_match '^  duration +[0-9.]+ (µs|ms|s) +[0-9.]+ (µs|ms|s) +[0-9.]+ (µs|ms|s) ' "$row"
row=$(grep -E '^  PAPI_TOT_INS ' out.txt)
expect_match '^  PAPI_TOT_INS +[0-9.]+ (k|M|G) ' "$row"
expect_nomatch '[0-9]e[+-][0-9]' "$OUT"
expect_match 'makespan_ns +[0-9]+ \([0-9.]+ (µs|ms|s)\)' "$OUT"
# the units line up: every row of the table has its columns at the same place
expect_eq 1 "$(grep -E '^  (duration|PAPI_)' out.txt | awk '{print index($0, "%")}' | sort -u | wc -l)"
expect_ok "$PMCFUSE" show --json fused.pmcf
min=$(jq '.events[] | select(.name == "duration") | .min' out.txt)
[[ "$min" =~ ^[0-9]+$ ]] && [ "$min" -gt 1000 ] || fail "show --json duration min not exact: $min"; ok
expect_ok "$PMCFUSE" show -v fused.pmcf
expect_match "  duration +$min " "$OUT"

# ---- epd --top: sorted by TMD, highest first; -v all ----------------------------
expect_ok "$PMCFUSE" epd --json fused.pmcf refs
scored=$(jq .pairs_scored out.txt)
top=$(jq -r '[.pairs[].tmd] | sort | reverse | .[0:3] | map(tostring) | join(" ")' out.txt)
expect_ok "$PMCFUSE" epd --top 3 fused.pmcf refs
expect_match "the 3 pairs that raise EPD most \(of $scored" "$OUT"
rows=$(awk '/^EVENT A/ {on = 1; next} on && /^PAPI_/ {print $3}' out.txt)
expect_eq 3 "$(wc -l <<<"$rows")"
sorted=$(sort -g -r <<<"$rows")
expect_eq "$sorted" "$rows" "(epd rows not sorted by TMD)"
# the first is the largest TMD of the JSON
expect_eq "$(printf '%.4g' "${top%% *}")" "$(printf '%.4g' "$(head -1 <<<"$rows")")"
expect_ok "$PMCFUSE" epd fused.pmcf refs
expect_eq $((scored < 10 ? scored : 10)) "$(awk '/^EVENT A/ {on = 1; next} on && /^PAPI_/' out.txt | wc -l)"
expect_ok "$PMCFUSE" epd -v fused.pmcf refs
expect_eq "$scored" "$(awk '/^EVENT A/ {on = 1; next} on && /^PAPI_/' out.txt | wc -l)"

# ---- progress in a pipe: one timestamped line per execution, written at once -----
n=$(jq .executions plan.json)
"$PMCFUSE" run -e "$EV" --pmcs 2 -o p.pmcf --sim "$SIM" 2>&1 >/dev/null | cat >prog.txt
expect_eq "$n" "$(grep -cE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2} pmcfuse run: exec [0-9]+/'"$n"' done in [0-9.]+ (s|min) \(set [0-9]+\)' prog.txt)"
# the last progress line (the fusion may warn after it: fusion.md, "When bc
# disagrees with the labels")
expect_match "exec $n/$n done in [^,]*\(set $((n - 1))\)$" "$(grep ' pmcfuse run: exec ' prog.txt | tail -1)"
expect_nomatch 'remaining' "$(cat prog.txt)"
"$PMCFUSE" reference -e "$EV" --repeat 2 -o refsp --sim "$SIM" 2>&1 >/dev/null | cat >rprog.txt
expect_eq "$(ls refsp/*.pmcf | wc -l)" "$(grep -c ' pmcfuse reference: exec [0-9]*/[0-9]* done in .*(set [0-9]*, repeat [01])' rprog.txt)"
# each line is out before the next execution starts: the second execution of
# the program finds the first line in the log
rm -f marker seen
expect_ok "$PMCFUSE" run -e page-faults,context-switches --pmcs 1 -o flush.pmcf -- \
	sh -c '[ -f marker ] && grep -q "exec 1/2 done" err.txt && : >seen; : >marker'
[ -f seen ] || fail "the first progress line was not in the log when the second execution ran: $ERR"; ok
# on a terminal: one updating line, no estimate before an execution finished
if command -v script >/dev/null; then
	script -qec "$PMCFUSE run -e $EV --pmcs 2 -o tty.pmcf --sim $SIM" /dev/null >tty.txt </dev/null
	expect_match $'\r\033\\[Krun 1/'"$n"$'  elapsed [0-9.]+ s  \\(set 0: PAPI' "$(cat tty.txt)"
	expect_nomatch $'run 1/[0-9]+ [^\r]*left' "$(cat tty.txt)"
	expect_match $'run 2/[0-9]+  elapsed [0-9.]+ s, ~[0-9.]+ s left  \\(set 1: ' "$(cat tty.txt)"
	expect_nomatch 'pmcfuse run: exec' "$(cat tty.txt)"
else
	echo "SKIP (terminal progress): no script(1)"
fi

# ---- the program's output, kept apart ---------------------------------------------
PROG=(sh -c 'printf "prog-out"; printf "prog-err" >&2')
# default: relayed, each unfinished line ended, never joined to a pmcfuse line
"$PMCFUSE" run -e page-faults,context-switches --pmcs 1 -o po.pmcf -- "${PROG[@]}" >mixed.txt 2>&1 ||
	fail "run with program output failed: $(cat mixed.txt)"
# (as an unprivileged user, also the one warning that context-switches reads 0)
grep -v -E '^(prog-outprog-err|pmcfuse: run: kernel\.perf_event_paranoid=[0-9]+: counting in user space only: .*|[0-9]{4}-[0-9-]+T[0-9:]+ pmcfuse run: exec .*|[0-9]+ executions of .*|executions .*|  .*|fused .*|match .*|wrote po.pmcf|[0-9]+ XUs? lacks? .*)$' mixed.txt >bad.txt || true
[ ! -s bad.txt ] || fail "lines that mix the program's output and pmcfuse's: $(cat bad.txt)"; ok
expect_eq 2 "$(grep -c '^prog-outprog-err$' mixed.txt)"
# --json: stdout is the JSON alone; the program's stdout went to stderr
expect_ok "$PMCFUSE" run --json -e page-faults,context-switches --pmcs 1 -o pj.pmcf -- "${PROG[@]}"
one_json out.txt
expect_match 'prog-out' "$ERR"
# --program-output FILE: everything there, a header per execution; nothing of it outside
expect_ok "$PMCFUSE" run --program-output prog.log -e page-faults,context-switches --pmcs 1 -o pf.pmcf -- "${PROG[@]}"
expect_nomatch 'prog-' "$OUT$ERR"
expect_eq 2 "$(grep -c '^==> pmcfuse run: exec [12]/2 (set [01]), [0-9T:-]* <==$' prog.log)"
expect_eq 2 "$(grep -c 'prog-outprog-err' prog.log)"
expect_ok "$PMCFUSE" reference --program-output rprog.log -e page-faults,context-switches --repeat 2 -o rp -- "${PROG[@]}"
expect_nomatch 'prog-' "$OUT$ERR"
expect_eq "$(ls rp/*.pmcf | wc -l)" "$(grep -c '^==> pmcfuse reference: exec' rprog.log)"
# record --program-output FILE: the program's output there, none outside
expect_ok "$PMCFUSE" record --program-output recprog.log -e page-faults -o rpo.pmcf -- "${PROG[@]}"
expect_nomatch 'prog-' "$OUT$ERR"
expect_eq 1 "$(grep -c 'prog-outprog-err' recprog.log)"
row output-options
expect_fail 1 "$PMCFUSE" record --program-output x.log -e "$EV" -o s.pmcf --sim "$SIM"
expect_match 'program-output is for a program' "$ERR"
expect_fail 1 "$PMCFUSE" run --program-output x.log -e "$EV" -o s.pmcf --sim "$SIM"
expect_match 'program-output is for a program' "$ERR"
expect_fail 1 "$PMCFUSE" run --program-output /nonexistent/dir/x.log -e page-faults -o s.pmcf -- true
[ ! -e s.pmcf.executions ] || fail "a campaign folder was left"; ok
expect_match 'program-output /nonexistent/dir/x.log: No such file or directory' "$ERR"
expect_fail 1 "$PMCFUSE" plan --json -e "$EV" --pmcs 2 --sim "$SIM"
expect_match 'give -o plan.json' "$ERR"
expect_fail 1 "$PMCFUSE" epd --top 0 fused.pmcf refs
expect_match "top needs a whole number from 1 to 100000000, not '0'" "$ERR"
