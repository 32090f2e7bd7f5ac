# Records that must not be lost (issue 22): a program that exec()s keeps the
# XUs of every image (each image gets a generation of its own in the record
# folder instead of reopening rec-PID-0-0), and a full TMPDIR stops the
# recording cleanly (record space is reserved with posix_fallocate before it
# is mapped) with "no space left in TMPDIR", not a SIGBUS blamed on the
# program.
EX="$(dirname "$PMCFUSE")/examples"
omp_examples || exit 0

# 20 tasks per image, 3 images (the program execs itself twice)
expect_ok "$PMCFUSE" record -e page-faults,task-clock -o exec.pmcf -- "$EX/reexec" 20 3
expect_match '60 XUs' "$ERR"
expect_ok "$PMCFUSE" export --format csv -o exec.csv exec.pmcf
expect_eq 61 "$(wc -l <exec.csv)"
expect_ok "$PMCFUSE" show --json exec.pmcf
expect_match '"complete": *true' "$OUT"

# A small tmpfs as TMPDIR, in a user and mount namespace (no root needed).
# Events limited to user space: in the namespace, perf_event_paranoid applies.
if ! unshare -Urm true 2>/dev/null; then
	echo "SKIP (full TMPDIR cases): unshare -Urm (user namespaces) is not permitted here"
	exit 0
fi
mkdir -p small
cat >nospace.sh <<'SH'
set -u
mount -t tmpfs -o size=1m pmcf-nospace small || exit 99
# knapsack on one thread: ~17000 records, more than 1 MiB
TMPDIR=$PWD/small OMP_NUM_THREADS=1 "$1" record -e page-faults:u,context-switches:u \
	-o full.pmcf -- "$2/knapsack" 20 12 >full.out 2>full.err
echo "$?" >full.rc
ls -A small >full.left
umount small
mount -t tmpfs -o size=256k pmcf-nospace small || exit 99
TMPDIR=$PWD/small "$1" record -e page-faults:u -o tiny.pmcf -- "$2/knapsack" 20 12 \
	>tiny.out 2>tiny.err
echo "$?" >tiny.rc
umount small
SH
rc=0
unshare -Urm bash nospace.sh "$PMCFUSE" "$EX" || rc=$?
if [ "$rc" -eq 99 ]; then
	echo "SKIP (full TMPDIR cases): cannot mount a tmpfs in a user namespace here"
	exit 0
fi
# filled during the run: exit 2, one line naming the cause, what was recorded kept
expect_eq 2 "$(cat full.rc)"
expect_eq 1 "$(wc -l <full.err)"
expect_match 'no space left in TMPDIR \(.*small: No space left on device\)' "$(cat full.err)"
expect_match 'marked incomplete \(saved to full.pmcf\)' "$(cat full.err)"
expect_nomatch 'signal|Bus error' "$(cat full.err)"
expect_eq "" "$(cat full.left)" "(record folder left in TMPDIR)"
expect_ok "$PMCFUSE" export --format csv -o full.csv full.pmcf
[ "$(wc -l <full.csv)" -gt 1000 ] || fail "the XUs recorded before the disk filled are lost"; ok
# too little room from the start: refused before the program runs
expect_eq 2 "$(cat tiny.rc)"
expect_match 'no space left in TMPDIR \(.*small: 256 KiB free; recording needs at least 512 KiB\)' "$(cat tiny.err)"
expect_eq "" "$(cat tiny.out)" "(the program ran)"
[ ! -e tiny.pmcf ] || fail "a profile was written though nothing ran"; ok
