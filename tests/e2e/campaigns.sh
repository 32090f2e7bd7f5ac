# Signals and campaigns (docs/campaigns.md): SIGINT/SIGTERM/SIGHUP to pmcfuse
# alone or to its process group stop the program, keep what was recorded
# and exit 128+N with one line; SIGKILL leaves no program running and the
# next run removes the record folder; `run` and `reference` keep every
# finished execution in a campaign folder and --resume finishes it with the
# result of an uninterrupted run; outputs are checked before the first
# execution.
set -m # background jobs get their own process group (and SIGINT is not ignored)
mkdir tmp
export TMPDIR=$PWD/tmp
SIM=cholesky,blocks=30
# a workload long enough (seconds) that a signal lands mid-campaign on any machine
RSIM=cholesky,blocks=60

# wait_for PATTERN: until a process whose command line matches runs (5 s)
wait_for() {
	for _ in $(seq 50); do pgrep -f "$1" >/dev/null && return 0; sleep 0.1; done
	fail "'$1' never started"
}
# gone PATTERN: no such process left (2 s for the kernel to deliver)
gone() {
	for _ in $(seq 20); do pgrep -f "$1" >/dev/null || { ok; return 0; }; sleep 0.1; done
	fail "'$1' still runs: $(pgrep -af "$1")"
}
# stop PID SIG [group]: sends SIG to PID (or its process group), waits for it;
# its exit status in $RC, its stderr in $ERR (without the progress lines of
# run and reference, one per finished execution: tests/e2e/output.sh)
PROGRESS='^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8} pmcfuse (run|reference): exec '
stop() {
	# (it may have finished already: then there is nothing to signal)
	if [ "${3:-}" = group ]; then kill -"$2" -- -"$1" 2>/dev/null || true
	else kill -"$2" "$1" 2>/dev/null || true; fi
	RC=0
	wait "$1" || RC=$?
	grep -v -E "$PROGRESS" err.txt >err1.txt || true
	mv err1.txt err.txt
	ERR=$(cat err.txt)
}
# has_manifest DIR PID: until DIR/campaign.json exists (written after
# pmcfuse installs its signal handlers; a signal before that, on a slow
# sanitizer build, killed it with no line) or PID has ended (60 s)
has_manifest() {
	for _ in $(seq 600); do
		[ -e "$1/campaign.json" ] || ! kill -0 "$2" 2>/dev/null && return 0
		sleep 0.1
	done
	fail "$1/campaign.json never appeared"
}
# started_second DIR PATTERN: until DIR's manifest says execution 0 is done
# and the next execution's program (PATTERN) runs (60 s: a fixed sleep was
# not enough on a loaded machine)
started_second() {
	for _ in $(seq 600); do
		[ "$(jq -r '.executions[0].status' "$1/campaign.json" 2>/dev/null)" = ok ] &&
			pgrep -f "$2" >/dev/null && return 0
		sleep 0.1
	done
	fail "the second execution in $1 never started"
}
# the programs' sleeps end in digits of this shell's pid, so that another
# copy of this test on the machine cannot be taken for ours by pgrep
SFX=$(printf '%05d' $(($$ % 100000)))
one_line() { [ "$(wc -l <err.txt)" -eq 1 ] || fail "expected one line on stderr, got: $ERR"; ok; }
complete_of() { "$PMCFUSE" show --json "$1" | jq -r '.meta.complete | if . == true then 1 elif . == false then 0 else . end'; }

# ---- record: the signal goes to the program, the profile is kept ---------
n=0
for how in "TERM alone 143" "INT group 130" "HUP alone 129"; do
	read -r sig to rc <<<"$how"
	n=$((n + 1))
	"$PMCFUSE" record -e page-faults -o "sig$n.pmcf" -- sleep "37.$n$SFX" 2>err.txt &
	pid=$!
	wait_for "^sleep 37.$n$SFX\$"
	stop $pid "$sig" "$to"
	expect_eq "$rc" "$RC" "(record, SIG$sig to $to)"
	one_line
	expect_match "^pmcfuse: record: interrupted by SIG$sig: 'sleep' was stopped, with the processes it started \(its process group\); the profile keeps the [0-9]+ XUs? recorded and is marked incomplete \(saved to sig$n.pmcf\)$" "$ERR"
	expect_eq 0 "$(complete_of "sig$n.pmcf")"
	gone "^sleep 37.$n$SFX\$"
done
[ -z "$(ls tmp)" ] || fail "record folders left: $(ls tmp)"; ok

# SIGKILL to pmcfuse alone: the program dies with it (PR_SET_PDEATHSIG), and
# the record folder it leaves is removed by the next recording
"$PMCFUSE" record -e page-faults -o killed.pmcf -- sleep "38.1$SFX" 2>err.txt &
pid=$!
wait_for "^sleep 38.1$SFX\$"
stop $pid KILL
expect_eq 137 "$RC"
gone "^sleep 38.1$SFX\$"
[ ! -e killed.pmcf ] || fail "SIGKILL cannot have saved a profile"; ok
ls -d tmp/pmcfuse-rec-$pid-* >/dev/null || fail "expected the killed run's record folder"
mkdir "tmp/pmcfuse-rec-$$-alive0" # a living owner (this shell): kept
expect_ok "$PMCFUSE" record -e page-faults -o after.pmcf -- true
expect_eq "pmcfuse-rec-$$-alive0" "$(ls tmp)"
rmdir "tmp/pmcfuse-rec-$$-alive0"

# ---- outputs checked before the first execution --------------------------
expect_fail 1 "$PMCFUSE" run -e page-faults -o nodir/x.pmcf -- sh -c 'touch ran'
expect_match 'nodir/x.pmcf: cannot create a temporary file in nodir: No such file or directory' "$ERR"
expect_fail 1 "$PMCFUSE" record -e page-faults -o nodir/x.pmcf -- sh -c 'touch ran'
expect_fail 1 "$PMCFUSE" run -e page-faults --keep afile/k -o ok.pmcf -- sh -c 'touch ran'
[ ! -e ran ] || fail "the program ran although the output could not be written"; ok
if [ "$(id -u)" != 0 ]; then # root writes into read-only folders
	mkdir ro && chmod a-w ro
	expect_fail 2 "$PMCFUSE" run -e page-faults -o ro/x.pmcf -- sh -c 'touch ran'
	expect_match 'Permission denied' "$ERR"
	[ ! -e ran ] || fail "the program ran although the output is read-only"; ok
fi

# ---- run: a stopped campaign keeps its executions and resumes -------------
"$PMCFUSE" run -e page-faults,major-faults,minor-faults --pmcs 1 -o r.pmcf \
	-- sleep "3.6$SFX" 2>err.txt &
pid=$!
started_second r.pmcf.executions "^sleep 3.6$SFX\$"
stop $pid TERM
expect_eq 143 "$RC"
one_line
expect_match "^pmcfuse: run: interrupted by SIGTERM: 1 of 3 executions complete \(the stopped one kept, marked incomplete\), kept in r.pmcf.executions; resume with \`pmcfuse run --resume r.pmcf.executions\`$" "$ERR"
gone "^sleep 3.6$SFX\$"
expect_eq ok "$(json '.executions[0].status' r.pmcf.executions/campaign.json)"
expect_eq interrupted "$(json '.executions[1].status' r.pmcf.executions/campaign.json)"
expect_eq missing "$(json '.executions[2].status' r.pmcf.executions/campaign.json)"
expect_eq 0 "$(complete_of r.pmcf.executions/exec-1.pmcf)"
# the folder is refused as a new campaign, and by another plan
expect_fail 1 "$PMCFUSE" run -e page-faults,major-faults,minor-faults --pmcs 1 -o r.pmcf -- sleep "3.6$SFX"
expect_match "already holds a campaign or profiles: resume it \\(resume; \`pmcfuse run --resume r.pmcf.executions\`\\)" "$ERR"
expect_fail 1 "$PMCFUSE" run --resume r.pmcf.executions -e page-faults --pmcs 1 -o r.pmcf -- sleep "3.6$SFX"
expect_match "'r.pmcf.executions' is a campaign of another plan" "$ERR"
expect_fail 1 "$PMCFUSE" reference --resume r.pmcf.executions
expect_match 'is a campaign of `pmcfuse run`, not of reference' "$ERR"
expect_ok "$PMCFUSE" run --resume r.pmcf.executions
expect_match 'resumed r.pmcf.executions: 1 of 3 executions were already done' "$OUT"
[ -f r.pmcf ] && [ ! -e r.pmcf.executions ] || fail "resume did not finish the campaign"; ok
expect_eq 1 "$(complete_of r.pmcf)"

# a simulated campaign stopped at several points (to pmcfuse, to the group)
# and resumed gives the uninterrupted result
expect_ok "$PMCFUSE" run --sim $RSIM --keep whole -o whole.pmcf
"$PMCFUSE" export --format csv whole.pmcf >whole.csv
nsets=$(ls whole/exec-*.pmcf | wc -l)
expect_eq "$nsets" "$(json '[.executions[] | select(.status == "ok")] | length' whole/campaign.json)"
expect_eq complete "$(json .state whole/campaign.json)"
stopped=0
for at in 0.2 0.8; do
	to=alone; [ "$at" = 0.8 ] && to=group
	"$PMCFUSE" run --sim $RSIM --keep "c$at" -o "c$at.pmcf" 2>err.txt >/dev/null &
	pid=$!
	has_manifest "c$at" $pid # pmcfuse catches signals from there on
	sleep "$at"
	stop $pid INT $to
	if [ "$RC" = 130 ]; then
		stopped=$((stopped + 1))
		one_line
		expect_match "^pmcfuse: run: interrupted by SIGINT: [0-9]+ of $nsets executions complete, kept in c$at; resume with" "$ERR"
		[ ! -e "c$at.pmcf" ] || fail "an interrupted run wrote its output"
		expect_ok "$PMCFUSE" run --resume "c$at"
	else
		expect_eq 0 "$RC" "(the run neither finished nor stopped at $at s: $ERR)"
	fi
	"$PMCFUSE" export --format csv "c$at.pmcf" >"c$at.csv"
	cmp -s whole.csv "c$at.csv" || fail "resumed at $at s: differs from the uninterrupted run"
	ok
	expect_eq complete "$(json .state "c$at/campaign.json")"
done
[ "$stopped" -gt 0 ] || fail "no run was stopped mid-campaign (all finished first)"; ok
# resuming a program's campaign in another OpenMP environment is refused
# before anything is recorded (combine would refuse the mix at the end and
# leave the campaign stuck); the right environment then finishes it
expect_ok env OMP_NUM_THREADS=2 "$PMCFUSE" run -e page-faults,minor-faults --pmcs 1 --keep envc \
	-o envc.pmcf -- "$(dirname "$PMCFUSE")/examples/plain" 1 1
rm envc/exec-1.pmcf
expect_fail 1 env OMP_NUM_THREADS=1 "$PMCFUSE" run --resume envc
expect_match 'ran with the OpenMP environment \{"OMP_NUM_THREADS":"2"\}, this one is \{"OMP_NUM_THREADS":"1"\}' "$ERR"
[ ! -e envc/exec-1.pmcf ] || fail "a resume in another environment recorded an execution"; ok
expect_ok env OMP_NUM_THREADS=2 "$PMCFUSE" run --resume envc
[ -f envc/exec-1.pmcf ] || fail "the resume in the right environment did not finish"; ok

# a campaign copied elsewhere resumes there (its stored --keep names the
# original): the missing execution is recorded into the copy only
mkdir -p moved
cp -r whole moved/copy
rm moved/copy/exec-1.pmcf
expect_ok "$PMCFUSE" run --resume moved/copy
[ -f moved/copy/exec-1.pmcf ] || fail "the copy's missing execution was not recorded into it"; ok
"$PMCFUSE" export --format csv whole.pmcf >moved.csv
cmp -s whole.csv moved.csv || fail "the copied campaign resumed to another result"; ok
# --keep into a folder that holds profiles: refused, nothing changed
expect_fail 1 "$PMCFUSE" run --sim $RSIM --keep whole -o again.pmcf
expect_match "'whole' already holds a campaign or profiles" "$ERR"

# ---- reference: the same, and usable when interrupted ----------------------
REV=duration,PAPI_L1_DCM,PAPI_L2_TCM,PAPI_TOT_INS,PAPI_BR_MSP,PAPI_L3_TCM
expect_ok "$PMCFUSE" reference -e $REV --repeat 3 -o rwhole --sim $RSIM
expect_eq true "$(json .complete rwhole/reference.json)"
total=$(json .executions rwhole/reference.json)
for f in rwhole/ref-*.pmcf; do "$PMCFUSE" export --format csv "$f"; done >rwhole.csv
# fused and reference executions are independent: no seed in common
"$PMCFUSE" run --sim $RSIM --keep seeds -o seeds.pmcf >/dev/null
common=$(comm -12 <(jq -r '.executions[].seed' seeds/campaign.json | sort) \
	<(jq -r '.profiles[].seed | tostring' rwhole/reference.json | sort) | wc -l)
expect_eq 0 "$common" "(seeds shared by run and reference)"
stopped=0
for at in 0.3 0.8; do
	"$PMCFUSE" reference -e $REV --repeat 3 -o "r$at" --sim $RSIM 2>err.txt >/dev/null &
	pid=$!
	has_manifest "r$at" $pid
	sleep "$at"
	stop $pid TERM
	if [ "$RC" = 143 ] && [ "$(json .complete "r$at/reference.json")" = true ]; then
		# the signal came after the last execution: nothing was lost
		expect_match "interrupted by SIGTERM: $total of $total reference executions complete" "$ERR"
	elif [ "$RC" = 143 ]; then
		stopped=$((stopped + 1))
		one_line
		expect_match "^pmcfuse: reference: interrupted by SIGTERM: [0-9]+ of $total reference executions complete, kept in r$at \(usable by epd and correrr\); resume with \`pmcfuse reference --resume r$at\`$" "$ERR"
		expect_eq false "$(json .complete "r$at/reference.json")"
		expect_eq "$(ls "r$at"/ref-*.pmcf 2>/dev/null | wc -l)" "$(json '.profiles | length' "r$at/reference.json")"
		expect_ok "$PMCFUSE" reference --resume "r$at"
	else
		expect_eq 0 "$RC" "(reference neither finished nor stopped at $at s: $ERR)"
	fi
	expect_eq true "$(json .complete "r$at/reference.json")"
	for f in "r$at"/ref-*.pmcf; do "$PMCFUSE" export --format csv "$f"; done >"r$at.csv"
	cmp -s rwhole.csv "r$at.csv" || fail "reference resumed at $at s differs from the uninterrupted one"
	ok
done
[ "$stopped" -gt 0 ] || fail "no reference was stopped mid-campaign"; ok
expect_fail 1 "$PMCFUSE" reference -e $REV --repeat 3 -o rwhole --sim $SIM
expect_match "'rwhole' already holds a campaign or profiles: resume it \\(resume; \`pmcfuse reference --resume rwhole\`\\)" "$ERR"
expect_fail 1 "$PMCFUSE" reference --resume rwhole -e $REV --repeat 2 --sim $SIM
expect_match "'rwhole' is a campaign of another plan" "$ERR"
# a reference folder renamed resumes under its new name
cp -r rwhole rmoved
rm rmoved/ref-000.pmcf
expect_ok "$PMCFUSE" reference --resume rmoved
expect_eq true "$(json .complete rmoved/reference.json)"
[ -f rmoved/ref-000.pmcf ] || fail "the renamed reference folder was not completed in place"; ok

# a real program: the stopped execution is not kept as a reference
"$PMCFUSE" reference -e page-faults,context-switches,minor-faults --pmcs 2 --repeat 2 -o rp \
	-- sleep "2.4$SFX" 2>err.txt &
pid=$!
started_second rp "^sleep 2.4$SFX\$"
stop $pid TERM
expect_eq 143 "$RC"
one_line
expect_match 'interrupted by SIGTERM: 1 of [0-9]+ reference executions complete' "$ERR"
gone "^sleep 2.4$SFX\$"
expect_eq 1 "$(ls rp/ref-*.pmcf | wc -l)"
expect_eq ok "$(json '.executions[0].status' rp/campaign.json)"
expect_match '^(interrupted|missing)$' "$(json '.executions[1].status' rp/campaign.json)"
expect_ok "$PMCFUSE" reference --resume rp
expect_eq true "$(json .complete rp/reference.json)"
expect_eq "$(json .executions rp/reference.json)" "$(ls rp/ref-*.pmcf | wc -l)"
