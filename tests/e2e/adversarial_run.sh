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
"$PMCFUSE" run -e task-clock,page-faults --pmcs 1 --keep L -o l.pmcf -- sleep 2 >l1.out 2>l1.err &
first=$!
wait_for L/campaign.json
# a second run on the same folder, and a resume of it, are refused at once,
# naming the holder
expect_fail 1 "$PMCFUSE" run -e task-clock,page-faults --pmcs 1 --keep L -o l2.pmcf -- sleep 2
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
