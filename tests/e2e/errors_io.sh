# The environment going wrong: programs that do not exist, crash, are killed
# or exit non-zero; output paths that cannot be written; a disk that fills up
# during save. Rows of docs/errors.md, named by their tag.
EX="$(dirname "$PMCFUSE")/examples"
SIM=cholesky,blocks=4
EV=duration,PAPI_L1_DCM
row() { ROW=$1; }
trap 'echo "in row: ${ROW:-?}" >&2' ERR

expect_ok "$PMCFUSE" record -e $EV -o a.pmcf --sim $SIM
expect_ok "$PMCFUSE" record -e duration,PAPI_L2_TCM -o b.pmcf --sim $SIM

# ---- the profiled program --------------------------------------------------
row program-missing
expect_fail 1 "$PMCFUSE" record -e page-faults -o p.pmcf -- ./no/such/program
expect_match "cannot run './no/such/program': No such file or directory" "$ERR"
expect_fail 1 "$PMCFUSE" record -e page-faults -o p.pmcf -- ./a.pmcf
expect_match "cannot run './a.pmcf': Permission denied" "$ERR"
expect_fail 1 "$PMCFUSE" run -e page-faults -o p.pmcf -- /nonexistent/prog
[ ! -e p.pmcf ] || fail "left an output for a program that never ran"

if omp_examples; then # examples/crash is an OpenMP program
	row program-crash
	expect_fail 2 "$PMCFUSE" record -e page-faults -o segv.pmcf -- "$EX/crash" segv 5
	expect_match "was killed by signal 11 \(Segmentation fault\); the profile keeps the 5 XUs recorded and is marked incomplete \(saved to segv.pmcf\)" "$ERR"
	expect_ok "$PMCFUSE" show --json segv.pmcf
	[ "$(jq -r '.. | .complete? // empty' <<<"$OUT" | head -1)" != true ] || fail "crashed run marked complete"

	row program-killed
	expect_fail 2 "$PMCFUSE" record -e page-faults -o kill.pmcf -- "$EX/crash" kill 5
	expect_match "was killed by signal 9 \(Killed\)" "$ERR"
	expect_ok "$PMCFUSE" show kill.pmcf

	row program-exit
	expect_fail 2 "$PMCFUSE" record -e page-faults -o exit.pmcf -- "$EX/crash" exit 5
	expect_match "exited with status 3; the profile keeps the 5 XUs" "$ERR"
	expect_fail 2 "$PMCFUSE" run -e page-faults,major-faults --pmcs 1 -o run.pmcf -- "$EX/crash" segv 5
	expect_match '^pmcfuse: run: execution 0 of 2 failed: .*killed by signal 11' "$ERR"
	[ ! -e run.pmcf ] || fail "run left a fused profile of a failed execution"
	expect_fail 2 "$PMCFUSE" reference -e page-faults,context-switches,minor-faults --pmcs 2 --repeat 2 -o refs -- "$EX/crash" exit 2
	expect_match '^pmcfuse: reference: ' "$ERR"
fi

# ---- output paths that cannot be written -----------------------------------
touch afile
mkdir adir
row output-parent-missing
expect_fail 1 "$PMCFUSE" record -e $EV -o nodir/x.pmcf --sim $SIM
expect_match 'nodir/x.pmcf: cannot create a temporary file in nodir: No such file or directory' "$ERR"
expect_fail 1 "$PMCFUSE" plan -e $EV --sim $SIM -o nodir/p.json
expect_match "cannot write 'nodir/p.json': No such file or directory" "$ERR"
expect_fail 1 "$PMCFUSE" export --format csv -o nodir/x.csv a.pmcf
expect_fail 1 "$PMCFUSE" combine --strategy ctc -o nodir/c.pmcf a.pmcf b.pmcf
expect_fail 1 "$PMCFUSE" report -o nodir/r.html a.pmcf

row output-parent-file
expect_fail 1 "$PMCFUSE" record -e $EV -o afile/x.pmcf --sim $SIM
expect_match 'Not a directory' "$ERR"
expect_fail 1 "$PMCFUSE" export --format json -o afile/x.json a.pmcf
expect_match 'Not a directory' "$ERR"
expect_fail 1 "$PMCFUSE" run -e $EV -o afile/x.pmcf --sim $SIM
expect_fail 1 "$PMCFUSE" reference -e duration,PAPI_L1_DCM,PAPI_L2_TCM --repeat 2 -o afile/refs --sim $SIM
expect_fail 1 "$PMCFUSE" imix synth -o afile

row output-is-directory
expect_fail 1 "$PMCFUSE" record -e $EV -o adir --sim $SIM
expect_match 'adir: .*Is a directory' "$ERR"
expect_fail 1 "$PMCFUSE" combine --strategy ctc -o adir a.pmcf b.pmcf
expect_match 'Is a directory' "$ERR"
expect_fail 1 "$PMCFUSE" plan -e $EV --sim $SIM -o adir
expect_fail 1 "$PMCFUSE" export --format csv -o adir a.pmcf
expect_fail 1 "$PMCFUSE" report -o adir a.pmcf
[ -z "$(ls -A adir)" ] || fail "something was written into adir"
[ -z "$(ls -A . | grep '\.tmp\.')" ] || fail "a temporary file was left behind"

# ---- a disk that fills up during save --------------------------------------
row disk-full
expect_ok "$PMCFUSE" record -e duration,PAPI_L1_DCM,PAPI_L2_TCM -o big.pmcf --sim cholesky,blocks=30
expect_ok "$PMCFUSE" record -e duration,PAPI_L1_DCM,PAPI_L3_TCM -o big2.pmcf --sim cholesky,blocks=30
mkdir full
if mount -t tmpfs -o size=128k pmcf-errors full 2>/dev/null; then
	trap 'umount "$TESTDIR/full" 2>/dev/null || true' EXIT
	expect_ok "$PMCFUSE" record -e $EV -o full/old.pmcf --sim cholesky,blocks=2
	cp full/old.pmcf old.copy
	echo old >full/old.csv
	# each of these outgrows the 128 KiB file system (a small profile with its SQL layer is 64 KiB)
	expect_fail 2 "$PMCFUSE" record -e duration,PAPI_L1_DCM,PAPI_L2_TCM -o full/old.pmcf --sim cholesky,blocks=30
	expect_match '^pmcfuse: record: full/old.pmcf: cannot write: database or disk is full' "$ERR"
	expect_fail 2 "$PMCFUSE" combine --strategy ctc -o full/old.pmcf big.pmcf big2.pmcf
	expect_match '^pmcfuse: combine: .*disk is full' "$ERR"
	expect_fail 2 "$PMCFUSE" run -e duration,PAPI_L1_DCM,PAPI_L2_TCM,PAPI_L3_TCM -o full/old.pmcf --sim cholesky,blocks=30
	expect_fail 2 "$PMCFUSE" export --format csv -o full/old.csv big.pmcf
	expect_match "cannot write 'full/old.csv': No space left on device" "$ERR"
	expect_fail 2 "$PMCFUSE" imix synth -o full/syn
	cmp full/old.pmcf old.copy || fail "the previous profile did not survive"
	expect_eq old "$(cat full/old.csv)"
	expect_ok "$PMCFUSE" show full/old.pmcf
	[ -z "$(ls -A full | grep -v '^old\.')" ] || fail "left behind: $(ls -A full)"
	umount full
else
	# no mount (not root): a file size limit; writes past it fail with EFBIG
	cp a.pmcf old.pmcf
	(
		ulimit -f 16
		trap '' XFSZ
		expect_fail 2 "$PMCFUSE" record -e duration,PAPI_L1_DCM,PAPI_L2_TCM -o old.pmcf --sim cholesky,blocks=30
		expect_fail 2 "$PMCFUSE" export --format csv -o old.csv big.pmcf
	)
	cmp old.pmcf a.pmcf || fail "the previous profile did not survive"
	[ -z "$(ls -A . | grep '\.tmp\.')" ] || fail "a temporary file was left behind"
fi

row file-too-large
# also with a file size limit (SIGXFSZ ignored: write fails with EFBIG)
cp a.pmcf keep.pmcf
(
	ulimit -f 16
	trap '' XFSZ
	expect_fail 2 "$PMCFUSE" record -e duration,PAPI_L1_DCM,PAPI_L2_TCM -o keep.pmcf --sim cholesky,blocks=30
	expect_fail 2 "$PMCFUSE" export --format csv -o keep.csv big.pmcf
)
cmp keep.pmcf a.pmcf || fail "the previous profile did not survive"
[ ! -e keep.csv ] || fail "export left a partial CSV"
[ -z "$(ls -A . | grep '\.tmp\.')" ] || fail "a temporary file was left behind"
