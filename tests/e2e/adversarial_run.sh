# The adversarial findings of issue 34 about campaigns, record and signals,
# kept: each block reproduces one finding and checks the fixed behaviour.
# Each block is one row of docs/errors.md (section "Adversarial cases"),
# named by its tag.
EX="$(dirname "$PMCFUSE")/examples"
row() { ROW=$1; }
trap 'echo "in row: ${ROW:-?}" >&2' ERR
# wait_for FILE: until FILE exists (a test hook's marker), at most 30 s
wait_for() {
	for _ in $(seq 300); do [ -e "$1" ] && return 0; sleep 0.1; done
	fail "$1 never appeared"
}

# ---- campaigns: one session per folder ---------------------------------------
row campaign-lock
# a campaign that runs a few seconds: two executions of `sleep 2`
"$PMCFUSE" run -e task-clock,page-faults --pmcs 1 --keep L -o l.pmcf -- sleep 3 >l1.out 2>l1.err &
first=$!
wait_for L/campaign.json
# a second run on the same folder, and a resume of it, are refused at once,
# naming the holder
expect_fail 1 "$PMCFUSE" run -e task-clock,page-faults --pmcs 1 --keep L -o l2.pmcf -- sleep 3
expect_match "run: 'L' is in use by another pmcfuse \(pid $first\)" "$ERR"
expect_fail 1 "$PMCFUSE" run --resume L
expect_match "'L' is in use by another pmcfuse \(pid $first\)" "$ERR"
wait "$first" || fail "the first campaign failed: $(cat l1.err)"
[ ! -e l2.pmcf ] || fail "the refused run wrote its output"; ok
expect_eq ok "$(jq -r '[.executions[].status] | unique | join(",")' L/campaign.json)"
# once it is over, the folder can be resumed again (nothing to record)
expect_ok "$PMCFUSE" run --resume L
expect_match 'resumed L: 2 of 2 executions were already done' "$OUT"

row resume-alone-quiet
# `run --resume DIR -q` (or --json, -v) repeats the stored command quietly
expect_ok "$PMCFUSE" run --resume L -q
expect_eq "" "$OUT"
expect_ok "$PMCFUSE" run --resume L --json
expect_eq 2 "$(jq -r .resumed <<<"$OUT")"

row resume-stale-temps
# a SIGKILL during an atomic write leaves .exec-K.pmcf.tmp.XXXXXX: resume removes it
: >L/.exec-1.pmcf.tmp.AbC123
: >L/.campaign.json.tmp.XyZ789
: >L/.notes.tmp.keep12 # not ours: kept
expect_ok "$PMCFUSE" run --resume L -q
[ ! -e L/.exec-1.pmcf.tmp.AbC123 ] && [ ! -e L/.campaign.json.tmp.XyZ789 ] ||
	fail "resume left the temporary files of a killed session: $(ls -A L)"
ok
[ -e L/.notes.tmp.keep12 ] || fail "resume removed a file that is not the campaign's"; ok

row run-disk-full
# a full disk in the middle of a campaign: the manifest is marked failed and
# the line says what is kept and how to resume
if unshare -Urm true 2>/dev/null; then
	mkdir -p small
	cat >full.sh <<'SH'
mount -t tmpfs -o size=400k pmcf-full small || exit 99
"$1" run --sim cholesky,blocks=8 --keep small/F -o small/f.pmcf >full.out 2>full.err
echo "$?" >full.rc
jq -r .state small/F/campaign.json >full.state
ls -A small/F >full.left
umount small
SH
	rc=0
	unshare -Urm bash full.sh "$PMCFUSE" || rc=$?
	if [ "$rc" -eq 99 ]; then
		echo "SKIP (run-disk-full): cannot mount a tmpfs in a user namespace here"
	else
		expect_eq 2 "$(cat full.rc)"
		expect_match 'run: execution [0-9] of 7 could not be saved: .*disk is full \(exec-0.*kept in small/F; resume with `pmcfuse run --resume small/F` once there is room\)' "$(grep -v ' done in ' full.err)"
		expect_eq failed "$(cat full.state)"
	fi
else
	echo "SKIP (run-disk-full): unshare -Urm (user namespaces) is not permitted here"
fi

# ---- signals during the steps that run no program ----------------------------
# (SIGTERM and SIGHUP: a background job of a script ignores SIGINT, and
# pmcfuse stays deaf to an ignored signal)
# signal_at STEP SIG CMD...: runs CMD with the test hook holding STEP
# (PMCF_TEST_PAUSE=STEP:FILE, 5 s once FILE is made), sends SIG once it is
# there; $RC its exit status, sig.out and sig.err its output
signal_at() {
	local step=$1 sig=$2 pid
	shift 2
	rm -f "held.$step"
	PMCF_TEST_PAUSE="$step:held.$step" "$@" >sig.out 2>sig.err &
	pid=$!
	wait_for "held.$step"
	kill "-$sig" "$pid"
	RC=0
	wait "$pid" || RC=$?
}

row signal-during-fusion
signal_at fuse TERM "$PMCFUSE" run --sim cholesky,blocks=6 --keep FU -o fu.pmcf
expect_eq 143 "$RC"
expect_eq "pmcfuse: run: interrupted by SIGTERM: fusing was stopped; the 7 executions are kept in FU: resume with \`pmcfuse run --resume FU\` to fuse them" "$(grep -v ' done in ' sig.err)"
[ ! -e fu.pmcf ] || fail "the output was written after the signal"; ok
expect_ok "$PMCFUSE" run --resume FU
expect_match 'resumed FU: 7 of 7 executions were already done' "$OUT"
[ -s fu.pmcf ] || fail "resume did not fuse"; ok

if omp_examples; then
	row signal-while-reading-records
	# the reading of the records, once the program has ended
	signal_at read TERM "$PMCFUSE" record -e page-faults -o rd.pmcf -- "$EX/cholesky" 4 32
	expect_eq 143 "$RC"
	expect_match "^pmcfuse: record: interrupted by SIGTERM: '.*cholesky' had ended; its records were not read: nothing saved \(record it again\)$" "$(cat sig.err)"
	[ ! -e rd.pmcf ] || fail "a profile was written after the signal"; ok
	# the same in a campaign: the executions done are kept, resume named
	signal_at read HUP "$PMCFUSE" run -e page-faults,task-clock --pmcs 1 --keep RD -o rdf.pmcf \
		-- "$EX/cholesky" 4 32
	expect_eq 129 "$RC"
	expect_eq "pmcfuse: run: interrupted by SIGHUP: the program of execution 0 had ended; its records were not read; the executions done before are kept in RD: resume with \`pmcfuse run --resume RD\`" "$(grep -v ' done in ' sig.err)"
	expect_ok "$PMCFUSE" run --resume RD -q
	[ -s rdf.pmcf ] || fail "resume did not finish the campaign"; ok
fi

# ---- record out of file descriptors -------------------------------------------
if omp_examples && command -v prlimit >/dev/null; then
	row record-fd-limit
	# each thread of the program opens its counters and a record file: with too
	# few descriptors the threads that cannot record are a loss, never a
	# complete profile with fewer XUs
	export OMP_NUM_THREADS=2
	emfile=0
	for n in 5 6 7 8 64; do
		rc=0
		prlimit --nofile=$n:$n "$PMCFUSE" record -e page-faults,task-clock -o fd$n.pmcf \
			-- "$EX/cholesky" 8 64 >fd.out 2>fd.err || rc=$?
		last=$(tail -n 1 fd.err)
		if [ "$rc" -eq 0 ]; then
			expect_match "record: 120 XUs of .*cholesky" "$last"
			continue
		fi
		emfile=$((emfile + 1))
		expect_eq 2 "$rc"
		expect_match '^pmcfuse: record: .*[Tt]oo many open files' "$last"
		expect_nomatch 'no space left' "$(cat fd.err)"
		if [ -e fd$n.pmcf ]; then
			expect_match "the collector lost [0-9]+ threads? of the program: .*EMFILE.* marked incomplete \(saved to fd$n.pmcf\)" "$last"
			expect_ok "$PMCFUSE" show --json fd$n.pmcf
			expect_match '"complete": *false' "$OUT"
		fi
	done
	[ "$emfile" -ge 2 ] || fail "no descriptor limit made record fail ($emfile)"; ok
	unset OMP_NUM_THREADS
fi

# ---- programs that exec() or start processes of their own ---------------------
if omp_examples; then
	row exec-cuts-xus
	# an image that exec()s another OpenMP program from inside a task: the
	# tasks not finished by then are lost, and the profile says so
	rc=0
	"$PMCFUSE" record -e page-faults -o cut.pmcf -- "$EX/reexec" 20 1 "$EX/cholesky" 4 32 \
		>cut.out 2>cut.err || rc=$?
	expect_eq 2 "$rc"
	expect_match "record: [0-9]+ XUs? of '.*reexec' had not finished when their process image ended \(an exec\(\) or exit\(\) while they ran or waited\): they are lost; the profile keeps the [0-9]+ XUs? recorded and is marked incomplete \(saved to cut.pmcf\)" "$(cat cut.err)"
	expect_ok "$PMCFUSE" show --json cut.pmcf
	expect_match '"complete": *false' "$OUT"
	# the second program's XUs are kept (cholesky 4: 20 tasks)
	expect_ok "$PMCFUSE" export --format csv -o cut.csv cut.pmcf
	[ "$(grep -c -E ',(potrf|trsm|syrk|gemm),' cut.csv)" -eq 20 ] || fail "the exec()ed program's XUs: $(cut -d, -f3 cut.csv | sort | uniq -c)"
	ok
fi

row wrapper-process-group
# the program runs in a process group of its own: stopping record (SIGTERM,
# or SIGKILL) stops what a wrapper started too
tag=$RANDOM$RANDOM
"$PMCFUSE" record -e page-faults -o wrap.pmcf -- sh -c "sleep 41.$tag; true" >wrap.out 2>wrap.err </dev/null &
pid=$!
for _ in $(seq 100); do pgrep -f "^sleep 41.$tag" >/dev/null && break; sleep 0.1; done
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
expect_eq 143 "$rc"
expect_match "record: interrupted by SIGTERM: 'sh' was stopped, with the processes it started \(its process group\)" "$(cat wrap.err)"
sleep 0.3
left=$(pgrep -f "^sleep 41.$tag" || true)
[ -z "$left" ] || { kill $left; fail "the wrapper's child survived SIGTERM of record"; }
ok
"$PMCFUSE" record -e page-faults -o wrap.pmcf -- sh -c "sleep 42.$tag; true" >wrap.out 2>wrap.err </dev/null &
pid=$!
for _ in $(seq 100); do pgrep -f "^sleep 42.$tag" >/dev/null && break; sleep 0.1; done
kill -KILL "$pid"
wait "$pid" || true
for _ in $(seq 50); do pgrep -f "^sleep 42.$tag" >/dev/null || break; sleep 0.1; done
left=$(pgrep -f "^sleep 42.$tag" || true)
[ -z "$left" ] || { kill $left; fail "the wrapper's child survived SIGKILL of record"; }
ok

# ---- checking every event -----------------------------------------------------
row check-all-tracepoints
# each tracepoint opened and closed costs an RCU grace period (~40 ms: 2300
# of them took 93-119 s); ordinary tracepoints are now asked once for all.
# Counted in perf_event_open calls, not in time.
if ! command -v strace >/dev/null; then
	echo "SKIP (check-all-tracepoints): strace is not installed"
elif tracepoints_usable; then
	rc=0
	strace -f -qq -e trace=perf_event_open -o opens.txt "$PMCFUSE" events --check all \
		>chk.out 2>chk.err || rc=$?
	nev=$(grep -oE '[0-9]+ events \([0-9]+ counted\)' chk.err | grep -oE '^[0-9]+' || true)
	[ -n "$nev" ] || fail "events --check all: no event count in: $(cat chk.err)"
	nopen=$(grep -c perf_event_open opens.txt || true)
	[ "$nopen" -lt $((nev / 2)) ] || fail "events --check all opened $nopen events for $nev"
	ok
fi
