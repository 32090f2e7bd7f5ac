# The adversarial findings of issue 34 on outputs, combine inputs, messages
# and perf's syntax, kept: each block reproduces one finding and checks the
# fixed behaviour. Each block is one row of docs/errors.md (section
# "Adversarial cases"), named by its tag. Device nodes and FIFOs are made in
# this test's own folder, never on the machine's /dev.
row() { ROW=$1; }
trap 'echo "in row: ${ROW:-?}" >&2' ERR

# set_all PROFILE EVENT_ID HEX: every value of an event replaced by the
# little-endian double in HEX (16 hex digits)
set_all() {
	local c n
	for c in $(sqlite3 "$1" "SELECT chunk FROM value_chunk WHERE event = $2"); do
		n=$(sqlite3 "$1" "SELECT length(data) / 8 FROM value_chunk WHERE event = $2 AND chunk = $c")
		sqlite3 "$1" "UPDATE value_chunk SET data = X'$(printf "$3%.0s" $(seq "$n"))'
			WHERE event = $2 AND chunk = $c"
	done
}
INF=000000000000F07F NINF=000000000000F0FF NAN=000000000000F87F

# ---- combine inputs ----------------------------------------------------------
expect_ok "$PMCFUSE" run --keep camp -e PAPI_L1_DCM,PAPI_L2_TCM,PAPI_L3_TCM,PAPI_BR_MSP,PAPI_L1_ICM \
	-o fused.pmcf --sim cholesky,blocks=4
[ -f camp/exec-0.pmcf ] && [ -f camp/exec-1.pmcf ] || fail "run --keep kept no executions"
STRATEGIES="ctc lgl bc bc-unlabeled random match bc-label bc-lgl"

row combine-linking-inf
# one execution's linking event (duration, which every input has) ±inf on
# every XU: bc freed twice, bc-unlabeled and bc-label crashed (pair_at read
# past its array). Refused by every strategy, the file and the XU named.
for v in NINF INF; do
	cp camp/exec-1.pmcf inf.pmcf
	set_all inf.pmcf 0 "${!v}"
	for s in $STRATEGIES; do
		expect_fail 1 "$PMCFUSE" combine --strategy $s -o o.pmcf camp/exec-0.pmcf inf.pmcf
		expect_match "^pmcfuse: combine: inf.pmcf: the linking event 'duration' is infinite on ([0-9]+) of its \1 XUs \(XU 0: -?inf\)" "$ERR"
		expect_fail 1 "$PMCFUSE" combine --partial --strategy $s -o o.pmcf camp/exec-0.pmcf inf.pmcf
		[ ! -e o.pmcf ] || fail "$s wrote a fused profile"
	done
done
# missing (NaN) on every XU: every strategy fuses or refuses, never crashes
cp camp/exec-1.pmcf nan.pmcf
set_all nan.pmcf 0 "$NAN"
for s in $STRATEGIES; do
	rc=0
	"$PMCFUSE" combine --strategy $s -o o.pmcf camp/exec-0.pmcf nan.pmcf >/dev/null 2>err.txt || rc=$?
	[ $rc -le 2 ] || fail "combine --strategy $s on missing linking values: exit $rc ($(cat err.txt))"
	ok
done

row combine-fused-input
# a fused profile holds the plan set of its first input: it was taken for
# set 0, and `truth` said 0 error. Refused as an input.
expect_fail 1 "$PMCFUSE" combine -o ff.pmcf fused.pmcf camp/exec-1.pmcf
expect_eq "pmcfuse: combine: fused.pmcf is a fused profile, not an execution: combine fuses recorded executions (give the executions it was fused from; \`pmcfuse show\` lists them as inputs)" "$ERR"
expect_fail 1 "$PMCFUSE" combine --partial -o ff.pmcf camp/exec-0.pmcf fused.pmcf
expect_match "fused.pmcf is a fused profile" "$ERR"
[ ! -e ff.pmcf ] || fail "a fused profile was fused again"

row combine-plan-set
# only plan_set damaged: the file is named once, and the message says what
# is wrong (it said "X and X ... plan digests differ")
cp camp/exec-1.pmcf ps.pmcf
sqlite3 ps.pmcf "UPDATE meta SET value = '7' WHERE key = 'plan_set'"
expect_fail 1 "$PMCFUSE" combine -o o.pmcf camp/exec-0.pmcf ps.pmcf
expect_eq "pmcfuse: combine: ps.pmcf: its plan set is damaged (plan_set '7' of plan_sets '2': a whole number below the plan's sets); record that set again" "$ERR"
expect_fail 1 "$PMCFUSE" combine -o o.pmcf ps.pmcf camp/exec-0.pmcf
expect_match "^pmcfuse: combine: ps.pmcf: its plan set is damaged" "$ERR"
sqlite3 ps.pmcf "UPDATE meta SET value = '1' WHERE key = 'plan_set'; UPDATE meta SET value = '3' WHERE key = 'plan_sets'"
expect_fail 1 "$PMCFUSE" combine -o o.pmcf camp/exec-0.pmcf ps.pmcf
expect_match "not executions of the same plan \(the same plan digest, but 2 vs 3 sets\)" "$ERR"

# ---- outputs that are not regular files -------------------------------------
row output-device
# -o naming a character device (made here: a null device) wrote a file over
# it (as root, -o /dev/null replaced the machine's /dev/null): written in
# place now, the node kept
expect_ok "$PMCFUSE" plan -e PAPI_L1_DCM,PAPI_L2_TCM --sim cholesky,blocks=4 -o plan.json
TEXT_OUTPUTS=("export --format csv camp/exec-0.pmcf" "export --format json camp/exec-0.pmcf"
	"report camp/exec-0.pmcf" "plan -e PAPI_L1_DCM --sim cholesky,blocks=4")
if [ "$(id -u)" = 0 ] && mknod null c 1 3 2>/dev/null; then
	ln -s null null-link
	for cmd in "${TEXT_OUTPUTS[@]}"; do
		for o in null null-link; do
			expect_ok "$PMCFUSE" $cmd -o $o
			expect_eq "character special file 1:3" "$(stat -L -c '%F %t:%T' null)" "($cmd -o $o)"
		done
		[ -L null-link ] || fail "$cmd replaced the symbolic link"
	done
	# a profile is an SQLite database: it cannot go into a device
	for cmd in "record -e duration --sim cholesky,blocks=4" "run -e PAPI_L1_DCM,PAPI_L2_TCM --sim cholesky,blocks=4" \
		"combine camp/exec-0.pmcf camp/exec-1.pmcf" "export --format sqlite camp/exec-0.pmcf"; do
		expect_fail 1 "$PMCFUSE" $cmd -o null
		expect_match "^pmcfuse: [a-z]+: 'null' is a character device: a profile is an SQLite database, which cannot be written into it \(choose a file name\)$" "$ERR"
		expect_eq "character special file 1:3" "$(stat -c '%F %t:%T' null)" "($cmd)"
	done
else
	echo "SKIP (output-device): not root, or mknod is not allowed here: no device node to write to"
fi

row output-fifo
# -o naming a FIFO with a reader: the reader gets the output (it blocked
# forever: a file was renamed over the FIFO), the FIFO stays
mkfifo fifo
for cmd in "${TEXT_OUTPUTS[@]}"; do
	rm -f got
	timeout 20 cat fifo >got &
	reader=$!
	expect_ok timeout 20 "$PMCFUSE" $cmd -o fifo
	wait $reader || fail "$cmd -o fifo: the reader got no end of file"
	[ -p fifo ] || fail "$cmd replaced the FIFO"
	[ -s got ] || fail "$cmd -o fifo: the reader got nothing"
done
expect_match '^xu,type,' "$(timeout 20 cat fifo & "$PMCFUSE" export --format csv -o fifo camp/exec-0.pmcf; wait)"
for cmd in "record -e duration --sim cholesky,blocks=4" "export --format sqlite camp/exec-0.pmcf"; do
	expect_fail 1 timeout 20 "$PMCFUSE" $cmd -o fifo
	expect_match "'fifo' is a FIFO \(a pipe\): a profile is an SQLite database, which cannot be written into it" "$ERR"
	[ -p fifo ] || fail "$cmd replaced the FIFO"
done
# -o >(cmd): a /dev/fd/N pipe (it failed: no temporary can be made in /dev/fd)
expect_ok "$PMCFUSE" export --format csv -o >(wc -l >lines.txt) camp/exec-0.pmcf
expect_ok "$PMCFUSE" plan -e PAPI_L1_DCM --sim cholesky,blocks=4 -o >(jq -r .format >format.txt)
for _ in $(seq 50); do [ -s lines.txt ] && [ -s format.txt ] && break; sleep 0.1; done
expect_eq "$(($(sqlite3 camp/exec-0.pmcf "SELECT value FROM format WHERE key = 'xus'") + 1))" "$(cat lines.txt)"
expect_eq pmcfuse-plan "$(cat format.txt)"
# /dev/stdout's kind of link (to the descriptor) keeps its link
ln -s /proc/self/fd/1 out-link
expect_ok "$PMCFUSE" export --format csv -o out-link camp/exec-0.pmcf
expect_match '^xu,type,' "$OUT"
[ -L out-link ] || fail "the link to standard output was replaced"
# a profile to standard output's link (as /dev/stdout is; made here, never
# the machine's): refused; it was renamed over the link (as root, a file
# took /dev/stdout's place)
for cmd in "record -e duration --sim cholesky,blocks=4" "combine camp/exec-0.pmcf camp/exec-1.pmcf" \
	"export --format sqlite camp/exec-0.pmcf"; do
	rc=0
	"$PMCFUSE" $cmd -o out-link >prof.out 2>err.txt || rc=$?
	expect_eq 1 "$rc" "($cmd -o out-link: $(cat err.txt))"
	expect_match "'out-link' is a descriptor: a profile is an SQLite database, written to a file, not to standard output or a pipe" "$(cat err.txt)"
	[ -L out-link ] || fail "$cmd replaced the link to standard output"
done
# -o /dev/stdout into a file opened for appending: appended, as the shell
# asked (the file was replaced by the output alone)
echo first >log.txt
"$PMCFUSE" export --format csv -o /dev/stdout camp/exec-0.pmcf >>log.txt
expect_eq first "$(head -n 1 log.txt)"
expect_match '^xu,type,' "$(sed -n 2p log.txt)"
[ -z "$(ls -A | grep '\.tmp\.')" ] || fail "a temporary was left: $(ls -A | grep '\.tmp\.')"

# ---- report ------------------------------------------------------------------
row report-sigpipe
# a reader that is gone before the page is written: report ends by SIGPIPE
# as any writer would, and its temporary folder (gnuplot's files) is gone
mkdir rtmp
env TMPDIR="$PWD/rtmp" "$PMCFUSE" report -o - camp/exec-0.pmcf 2>err.txt | true || :
[ -z "$(ls -A rtmp)" ] || fail "report left its temporary folder: $(ls -A rtmp)"
ok

row report-size-limit
# the reason is said (it was only "cannot write the report")
(
	ulimit -f 8
	expect_fail 2 "$PMCFUSE" report -o big.html camp/exec-0.pmcf
	expect_eq "pmcfuse: report: cannot write the report: File too large" "$ERR"
)
[ ! -e big.html ] || fail "a report was written under the limit"
[ -z "$(ls -A | grep '\.tmp\.')" ] || fail "a temporary was left: $(ls -A | grep '\.tmp\.')"

# ---- messages ----------------------------------------------------------------
row epd-inf
# infinite reference or target values: EPD's grid became NaN ("EMD: point 1
# of the first set has a coordinate -nan"); said as what it is now
expect_ok "$PMCFUSE" reference -e PAPI_L1_DCM,PAPI_L2_TCM --repeat 2 -o refs --sim cholesky,blocks=4
cp -r refs irefs
n=$(sqlite3 irefs/ref-000.pmcf "SELECT length(data) / 8 FROM value_chunk WHERE event = 1 AND chunk = 0")
sqlite3 irefs/ref-000.pmcf "UPDATE value_chunk SET data = CAST(X'$INF' || substr(data, 9) AS BLOB) WHERE event = 1 AND chunk = 0"
expect_fail 1 "$PMCFUSE" epd camp/exec-0.pmcf irefs
expect_eq "pmcfuse: epd: EPD: reference 1 of 2 has an infinite value of 'PAPI_L1_DCM' (XU 0: inf): EPD bins the values of each event pair, which must be finite (record it again)" "$ERR"
cp refs/ref-001.pmcf itarget.pmcf
set_all itarget.pmcf 2 "$NINF"
expect_fail 1 "$PMCFUSE" epd itarget.pmcf refs
expect_match "EPD: target 1 has an infinite value of 'PAPI_L2_TCM' \(XU 0: -inf\)" "$ERR"
expect_nomatch "nan" "$ERR"

row long-path-8k
# a path over 8 KB: the message was cut before its reason; now formatted
# whole, the path cut in its middle, the reason kept
long=$(printf 'segment-of-a-long-path/%.0s' $(seq 1 400))
for cmd in "show $long/x.pmcf" "export --format csv -o $long/x.csv camp/exec-0.pmcf" \
	"plan -e PAPI_L1_DCM --sim cholesky,blocks=4 -o $long/x.json" \
	"record -e duration --sim cholesky,blocks=4 -o $long/x.pmcf" "epd $long/x.pmcf refs"; do
	expect_fail 1 "$PMCFUSE" $cmd
	expect_match "File name too long$" "$ERR"
	[ "${#ERR}" -lt 2200 ] || fail "$cmd: the line is ${#ERR} bytes"
done

# ---- perf's event syntax -----------------------------------------------------
row perf-syntax-oracle
# pmcfuse accepts what `perf stat -e` accepts and refuses what it refuses
# (refused: "event syntax error"; accepted: counted, <not supported> or not
# permitted). It accepted task-clock:uu and any case, and refused
# sched:sched_wak*:u, {…}:u, task-clock:, name=x and long raw codes.
# Left out on purpose: modifiers for sampling (S W e b), which pmcfuse
# refuses where perf takes them (docs/events.md).
if command -v perf >/dev/null && perf stat -e task-clock true >/dev/null 2>&1; then
	SPELLINGS=('task-clock:uu' 'page-faults:kk' 'TASK-CLOCK' 'Task-Clock' 'CS' 'PAGE-FAULTS' 'R01c2'
		'task-clock:u:k' 'task-clock:' 'cs:u' 'faults' 'page-faults:ukhGHpppPID'
		'software/config=0,name=x/' 'r00000000000000001c2' 'r1234567890abcdef0' 'r1c2:u'
		'{task-clock:u,faults}:u' 'task-clock:pppp'
		'l1d-loads' 'L1-data-read' 'LLC-misses' 'L2-loads' 'LL-loads' 'branches-misses'
		'd-tlb-load-misses' 'bpu-loads' 'l1d-loads:u')
	if tracepoints_usable; then
		SPELLINGS+=('sched:sched_wak*:u' '{sched:sched_wak*}:u' 'sched:sched_wak*:' 'sched:*:u'
			'sched:sched_wak*:uu' 'sched:sched_switch:u')
	else
		echo "SKIP (perf-syntax-oracle, tracepoints): tracefs is not usable here"
	fi
	for e in "${SPELLINGS[@]}"; do
		perf_out=$(perf stat -x, -e "$e" true 2>&1 || true)
		perf_ok=1
		[[ "$perf_out" != *"event syntax error"* ]] || perf_ok=0
		rc=0
		"$PMCFUSE" events --check "$e" --pmcs 64 >out.txt 2>err.txt || rc=$?
		ours=$([ $rc -eq 0 ] || { [ $rc -eq 2 ] && grep -q 'cannot be counted\|not permitted\|perf_event_open' err.txt; } && echo 1 || echo 0)
		expect_eq "$perf_ok" "$ours" "('$e': perf $([ $perf_ok = 1 ] && echo accepts || echo refuses) it; pmcfuse exit $rc: $(cat err.txt))"
	done
else
	echo "SKIP (perf-syntax-oracle): perf is not installed or cannot count task-clock here"
fi

row perf-glob-uncountable
# a glob's matches that cannot be counted here are left out (ftrace:*
# was refused whole for ftrace:function; * for cycles without a PMU)
if tracepoints_usable; then
	rc=0
	"$PMCFUSE" events --check 'ftrace:*' --pmcs 64 >out.txt 2>err.txt || rc=$?
	[ $rc -eq 0 ] || expect_match "^pmcfuse: events: 'ftrace:\*': none of the [0-9]+ events it matches can be counted here" "$(cat err.txt)"
	expect_nomatch "^pmcfuse: events: 'ftrace:[a-z_]+' cannot be counted" "$(cat err.txt)"
else
	echo "SKIP (perf-glob-uncountable, ftrace:*): tracefs is not usable here"
fi
rc=0
"$PMCFUSE" events --check '*' --pmcs 64 >out.txt 2>err.txt || rc=$?
expect_nomatch "'cycles' cannot be counted" "$(cat err.txt)"
[ $rc -ne 0 ] || expect_match "^fits: [0-9]+ events" "$(cat out.txt)"
expect_ok "$PMCFUSE" plan -e '*-faults:u' --pmcs 8 -o faults.json
expect_eq '["duration","page-faults:u","minor-faults:u","major-faults:u","alignment-faults:u","emulation-faults:u"]' "$(jq -c '.sets[0]' faults.json)"

row slurm-task-states
# --wait when array tasks were cancelled or timed out: each named with what
# happened and its own log (it said "N array tasks failed (logs: …/9_K.out)")
FAKE=$PWD/fake
mkdir -p "$FAKE/bin"
cat >"$FAKE/bin/sbatch" <<EOS
#!/bin/sh
n=\$((\$(cat "$FAKE/ids" 2>/dev/null || echo 0) + 1))
echo \$n >"$FAKE/ids"
echo "\$n;cluster"
EOS
printf '#!/bin/sh\nprintf "1_0 COMPLETED\\n1_1 CANCELLED\\n1_2 TIMEOUT\\n2 PENDING\\n"\n' >"$FAKE/bin/squeue"
printf '#!/bin/sh\nexit 0\n' >"$FAKE/bin/scancel"
chmod +x "$FAKE/bin/sbatch" "$FAKE/bin/squeue" "$FAKE/bin/scancel"
rc=0
env PATH="$FAKE/bin:$PATH" timeout 60 "$PMCFUSE" run --sim cholesky,blocks=4 -e PAPI_L1_DCM,PAPI_L2_TCM,PAPI_L3_TCM,PAPI_BR_MSP,PAPI_L1_ICM \
	--keep scamp -o s.pmcf --launcher slurm --wait >out.txt 2>err.txt || rc=$?
expect_eq 2 "$rc" "(run --wait: $(cat err.txt))"
expect_match "^pmcfuse: run: 2 array tasks of job 1 did not complete: 1_1 was cancelled \($PWD/scamp/slurm/1_1.out\), 1_2 ran out of time \($PWD/scamp/slurm/1_2.out\); submit what is missing again with \`pmcfuse run --resume $PWD/scamp --launcher slurm\`$" "$(tail -n 1 err.txt)"
