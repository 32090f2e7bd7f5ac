# The adversarial findings of issue 22, kept: each block reproduces one
# finding (a wrong answer given without a word, an environment or limit
# that was mishandled, an unclear message) and checks the fixed behaviour.
# Each block is one row of docs/errors.md (section "Adversarial cases"),
# named by its tag.
EX="$(dirname "$PMCFUSE")/examples"
row() { ROW=$1; }
trap 'echo "in row: ${ROW:-?}" >&2' ERR

# ---- EMD CSV ---------------------------------------------------------------
row csv-long-lines
printf 'weight,x,y\n1,0,0\n2,1,1\n' >a.csv
# a comment longer than any buffer: its tail must not become a data row
{ printf '#'; head -c 70000 /dev/zero | tr '\0' x; printf ',5,5\n1,0,0\n2,1,1\n'; } >long.csv
expect_ok "$PMCFUSE" emd a.csv long.csv
expect_eq 0 "$OUT"
# line numbers stay exact after long lines
{ head -c 9000 /dev/zero | tr '\0' '#'; printf '\n1,0,0\n\n1,0,y\n'; } >lineno.csv
expect_fail 1 "$PMCFUSE" emd a.csv lineno.csv
expect_match "lineno.csv:4: expected 'weight,x,y'" "$ERR"

row csv-first-row
printf '1,2,x\n1,0,0\n' >badfirst.csv # a malformed row, not a header
expect_fail 1 "$PMCFUSE" emd a.csv badfirst.csv
expect_match "badfirst.csv:1: expected 'weight,x,y' with three numbers" "$ERR"
printf '# comment\nw,x,y\n1,0,0\n' >hdr.csv # a header after comments
expect_ok "$PMCFUSE" emd hdr.csv hdr.csv

row csv-not-text
expect_fail 1 timeout 20 "$PMCFUSE" emd /dev/zero a.csv
expect_match "/dev/zero:1: a NUL byte: not a text file" "$ERR"
expect_fail 1 "$PMCFUSE" emd a.csv .
expect_match "emd: \.: is a directory, not a CSV file" "$ERR"

row csv-extreme-numbers
printf '1,0.5,0\n' >one.csv
printf '1e-310,0,0\n1e-310,1,0\n' >subnormal.csv
expect_ok "$PMCFUSE" emd one.csv subnormal.csv
expect_eq 0.5 "$OUT"
printf '1e308,0,0\n1e308,1,0\n' >huge_w.csv # the sum overflows to inf
expect_ok "$PMCFUSE" emd one.csv huge_w.csv
expect_eq 0.5 "$OUT"

# ---- plans and metadata ----------------------------------------------------
row args-not-utf8
# arguments that are not UTF-8 are kept byte for byte in plans and metadata
expect_ok "$PMCFUSE" plan -e page-faults -o argv.json -- /bin/echo a $'\xff' b
expect_eq '["a",{"base64":"/w=="},"b"]' "$(jq -c .source.args argv.json)"
expect_ok "$PMCFUSE" record --plan argv.json --set 0 -o argv.pmcf
expect_eq "a $(printf '\xff') b" "$OUT"
expect_ok "$PMCFUSE" record -e page-faults -o ff.pmcf -- /bin/echo $'\xff'
expect_ok "$PMCFUSE" record -e page-faults -o fe.pmcf -- /bin/echo $'\xfe'
# different arguments are not the same run
expect_fail 1 "$PMCFUSE" combine --strategy ctc -o fefe.pmcf ff.pmcf fe.pmcf
expect_match 'not the same program run \(args .\[\{"base64":"/w=="\}\]. vs' "$ERR"

# ---- truth reopens the sources of a fused profile ---------------------------
row truth-source-identity
expect_ok "$PMCFUSE" record -e duration,PAPI_L1_DCM -o c1.pmcf --sim cholesky,blocks=4
expect_ok "$PMCFUSE" record -e duration,PAPI_L2_TCM -o c2.pmcf --sim cholesky,blocks=4
expect_ok "$PMCFUSE" combine --strategy ctc -o cf.pmcf c1.pmcf c2.pmcf
# a fused profile without its own truth (as one fused from sources that lack
# it would be) takes the truth of its sources
sqlite3 cf.pmcf 'DELETE FROM truth_chunk; DELETE FROM truth_event;'
expect_ok "$PMCFUSE" truth cf.pmcf
expect_match 'truth of the source XUs\): mean over events of the mean relative error \(missing = 1\) 0' "$OUT"
expect_match 'over the events. medians: median relative error 0,' "$OUT"
cp c1.pmcf c1.keep
expect_ok "$PMCFUSE" record -e duration,PAPI_L1_DCM -o c1.pmcf --sim seidel,blocks=4
expect_fail 1 "$PMCFUSE" truth cf.pmcf
expect_match "source profile '[^']*/c1\.pmcf' of the fused profile: it is not the execution that was fused \(it is 'seidel," "$ERR"
# the same spec recorded again with other events: only the digest differs
expect_ok "$PMCFUSE" record -e duration,PAPI_L1_DCM,PAPI_L2_TCM -o c1.pmcf --sim cholesky,blocks=4
expect_fail 1 "$PMCFUSE" truth cf.pmcf
expect_match 'content digest [0-9a-f]{32}, the fused profile recorded [0-9a-f]{32}: the file was replaced or changed' "$ERR"
mv c1.keep c1.pmcf
expect_ok "$PMCFUSE" truth cf.pmcf

# ---- references for epd, correrr and report --------------------------------
row refs-mismatch
expect_ok "$PMCFUSE" reference -e PAPI_L1_DCM,PAPI_L2_TCM --repeat 2 -o srefs --sim seidel,blocks=4
expect_ok "$PMCFUSE" run -e PAPI_L1_DCM,PAPI_L2_TCM -o target.pmcf --sim cholesky,blocks=4
expect_fail 1 "$PMCFUSE" epd target.pmcf srefs
expect_match "epd: target.pmcf and srefs/ref-000.pmcf are not the same program run \(program 'cholesky' vs 'seidel'\): references of another run; pass force \(--force\) to compare them anyway" "$ERR"
expect_fail 1 "$PMCFUSE" correrr target.pmcf srefs
expect_fail 1 "$PMCFUSE" report -o r.html target.pmcf srefs
[ ! -e r.html ] || fail "report wrote an output"
expect_ok "$PMCFUSE" epd --force target.pmcf srefs
# identical copies: the calibration between repeats is 0
mkdir dup
cp srefs/ref-000.pmcf dup/a.pmcf
cp srefs/ref-000.pmcf dup/b.pmcf
expect_fail 1 "$PMCFUSE" epd srefs/ref-001.pmcf dup
expect_match 'dup/a.pmcf and dup/b.pmcf are the same execution \(identical copies\)' "$ERR"
expect_ok "$PMCFUSE" epd srefs/ref-001.pmcf srefs

# several targets: each of the first's program run (the references are)
row targets-mismatch
expect_ok "$PMCFUSE" run -e PAPI_L1_DCM,PAPI_L2_TCM -o starget.pmcf --sim seidel,blocks=4
expect_fail 1 "$PMCFUSE" epd srefs/ref-001.pmcf starget.pmcf target.pmcf srefs
expect_match "epd: srefs/ref-001.pmcf and target.pmcf are not the same program run \(program 'seidel' vs 'cholesky'\): targets of another run; use --force" "$ERR"
expect_fail 1 "$PMCFUSE" correrr srefs/ref-001.pmcf starget.pmcf target.pmcf srefs
expect_match "correrr: .*targets of another run" "$ERR"
expect_ok "$PMCFUSE" epd --force --json srefs/ref-001.pmcf starget.pmcf target.pmcf srefs
expect_eq 3 "$(jq length <<<"$OUT")"

# ---- multiplexing ----------------------------------------------------------
row mux-fits
# rr/roc with a set that fits the counters: nothing rotates (a rotation
# only adds estimation error: negative counts), as in the simulator
for m in rr roc; do
	expect_ok "$PMCFUSE" record -e page-faults,task-clock --pmcs 2 --multiplex $m -o fits-$m.pmcf -- /bin/true
	expect_match "multiplexed \($m, .*\): not needed, the events fit the counters together" "$ERR"
	expect_ok "$PMCFUSE" record -e PAPI_L1_DCM,PAPI_L2_TCM --multiplex $m -o sfits-$m.pmcf --sim cholesky,blocks=4
	expect_match "not needed, the events fit the counters together" "$ERR"
done

# ---- outputs that are inputs -----------------------------------------------
row output-is-input
expect_ok "$PMCFUSE" record -e duration,PAPI_L1_DCM -o in1.pmcf --sim cholesky,blocks=4
expect_ok "$PMCFUSE" record -e duration,PAPI_L2_TCM -o in2.pmcf --sim cholesky,blocks=4
cp in1.pmcf in1.orig
ln in1.pmcf hardlink.pmcf
for cmd in "combine --strategy ctc -o in1.pmcf in1.pmcf in2.pmcf" \
	"combine --strategy ctc -o ./hardlink.pmcf in2.pmcf in1.pmcf" \
	"export --format csv -o in1.pmcf in1.pmcf" \
	"report -o in1.pmcf in1.pmcf"; do
	expect_fail 1 "$PMCFUSE" $cmd
	expect_match "the output '[^']*' is the input '[^']*in1.pmcf': writing it would destroy the input" "$ERR"
	cmp -s in1.pmcf in1.orig || fail "$cmd changed its input"
done
expect_ok "$PMCFUSE" plan -e PAPI_L1_DCM --sim cholesky,blocks=4 -o p.json
cp p.json p.orig
expect_fail 1 "$PMCFUSE" record --plan p.json --set 0 -o p.json
expect_match "the output 'p.json' is the input 'p.json'" "$ERR"
cmp -s p.json p.orig || fail "record --plan changed its plan"

# ---- outputs over the wrong kind of file ----------------------------------
row output-kind
printf 'int main(void) { return 0; }\n' >victim.c
cp victim.c victim.orig
for cmd in "record -e duration -o victim.c --sim cholesky,blocks=4" \
	"run -e duration,PAPI_L1_DCM -o victim.c --sim cholesky,blocks=4" \
	"combine --strategy ctc -o victim.c in1.pmcf in2.pmcf" \
	"export --format sqlite -o victim.c in2.pmcf"; do
	expect_fail 1 "$PMCFUSE" $cmd
	expect_match "^pmcfuse: [a-z]+: 'victim.c' exists and is not a profile: not replacing it" "$ERR"
	cmp -s victim.c victim.orig || fail "$cmd replaced a file that is not a profile"
done
cp in2.pmcf in2.orig
for cmd in "export --format csv -o in2.pmcf in1.pmcf" "export --format json -o in2.pmcf in1.pmcf" \
	"report -o in2.pmcf in1.pmcf"; do
	expect_fail 1 "$PMCFUSE" $cmd
	expect_match "^pmcfuse: [a-z]+: 'in2.pmcf' is a profile: not replacing it with" "$ERR"
	cmp -s in2.pmcf in2.orig || fail "$cmd replaced a profile"
done
: >empty.pmcf
expect_ok "$PMCFUSE" record -e duration -o empty.pmcf --sim cholesky,blocks=4
expect_ok "$PMCFUSE" record -e duration -o in2.pmcf --sim cholesky,blocks=4

# ---- environment and limits ------------------------------------------------
row stdout-unwritable
if [ -w /dev/full ]; then
	printf '1,0,0\n' >pt.csv
	expect_ok "$PMCFUSE" record -e duration,PAPI_L1_DCM -o out.pmcf --sim cholesky,blocks=4
	for cmd in "emd pt.csv pt.csv" "events" "show out.pmcf" "show --json out.pmcf" \
		"export --format csv out.pmcf" "truth out.pmcf"; do
		rc=0
		"$PMCFUSE" $cmd >/dev/full 2>err.txt || rc=$?
		expect_eq 2 "$rc" "($cmd >/dev/full)"
		expect_eq 1 "$(wc -l <err.txt)" "(one error line: $cmd)"
		expect_match "^pmcfuse: ${cmd%% *}: cannot write to standard output: No space left on device$" "$(cat err.txt)"
	done
else
	echo "SKIP (stdout-unwritable): no writable /dev/full"
fi

row file-size-limit
# SIGXFSZ not ignored by the caller: pmcfuse itself turns it into EFBIG
expect_ok "$PMCFUSE" record -e duration,PAPI_L1_DCM -o keep.pmcf --sim cholesky,blocks=4
cp keep.pmcf keep.orig
(
	ulimit -f 16
	expect_fail 2 "$PMCFUSE" record -e duration,PAPI_L1_DCM,PAPI_L2_TCM -o keep.pmcf --sim cholesky,blocks=30
	expect_match 'keep.pmcf: cannot write' "$ERR"
)
cmp -s keep.pmcf keep.orig || fail "the previous profile did not survive"
[ -z "$(ls -A . | grep '\.tmp\.')" ] || fail "a temporary file was left behind"

# ---- JSON output and reports -----------------------------------------------
# set_values PROFILE EVENT_ID HEX: the first values of an event replaced by the
# little-endian doubles in HEX (16 hex digits each)
set_values() {
	sqlite3 "$1" "UPDATE value_chunk SET data = CAST(X'$3' || substr(data, length(X'$3') + 1) AS BLOB)
		WHERE event = $2 AND chunk = 0"
}
INF=000000000000F07F NINF=000000000000F0FF MAX=FFFFFFFFFFFFEF7F NMAX=FFFFFFFFFFFFEFFF NAN=000000000000F87F

row json-not-utf8
# names that are not UTF-8 (a type from the debug info, an event) are
# written as {"base64": ...}, as plans and metadata do: always valid UTF-8
expect_ok "$PMCFUSE" record -e duration,PAPI_L1_DCM -o names.pmcf --sim cholesky,blocks=4
sqlite3 names.pmcf "UPDATE xu_type SET name = CAST(X'61FF62' AS TEXT) WHERE id = 0;
	UPDATE event SET name = CAST(X'6576FE' AS TEXT) WHERE id = 1"
for cmd in "show --json names.pmcf" "export --format json names.pmcf" \
	"export --format json --truth names.pmcf"; do
	expect_ok "$PMCFUSE" $cmd
	printf '%s' "$OUT" | iconv -f UTF-8 -t UTF-8 >/dev/null || fail "$cmd: not valid UTF-8"
	printf '%s' "$OUT" >names.json
	expect_eq '{"base64":"Yf9i"}' "$(jq -c '.types[0].name' names.json)" "($cmd)"
done
expect_eq '["duration",{"base64":"ZXb+"}]' "$(jq -c '.events' names.json)"

row json-inf
# infinite values are "inf"/"-inf", missing ones null; numbers near
# DBL_MAX are written exactly
expect_ok "$PMCFUSE" record -e duration,PAPI_L1_DCM -o inf.pmcf --sim cholesky,blocks=4
set_values inf.pmcf 1 "$INF$NINF$MAX$NAN"
expect_ok "$PMCFUSE" export --format json -o inf.json inf.pmcf
expect_eq '[["inf"],["-inf"],[1.7976931348623157e+308],[null]]' \
	"$(jq -c '[.xus[0:4][] | .values[1:2]]' inf.json)"
expect_ok "$PMCFUSE" show --json inf.pmcf
printf '%s' "$OUT" >show.json
expect_eq '"-inf" "inf" 0.05' "$(jq -r '.events[1] | "\(.min|tojson) \(.max|tojson) \(.missing)"' show.json)"

row report-inf
# gnuplot reads no "inf": the finite values are plotted and the caption
# says what was left out; values near DBL_MAX keep their axes finite
expect_ok "$PMCFUSE" record -e duration,PAPI_L1_DCM,PAPI_L2_TCM -o rinf.pmcf --sim cholesky,blocks=4
cp rinf.pmcf rmax.pmcf
set_values rinf.pmcf 1 "$INF$NINF"
expect_ok "$PMCFUSE" report -o rinf.html rinf.pmcf
expect_match 'left out: 2 XUs with an infinite value' "$(cat rinf.html)"
set_values rmax.pmcf 1 "$MAX$NMAX"
set_values rmax.pmcf 2 "$MAX"
expect_ok "$PMCFUSE" report -o rmax.html rmax.pmcf
expect_nomatch 'left out' "$(cat rmax.html)"

# ---- reading never changes a profile ---------------------------------------
row profile-wal
# a profile someone switched to WAL mode: read as it is, no -wal or -shm
# file created, nothing modified
expect_ok "$PMCFUSE" record -e duration,PAPI_L1_DCM -o wal.pmcf --sim cholesky,blocks=4
sqlite3 wal.pmcf 'PRAGMA journal_mode=WAL;' >/dev/null
cp wal.pmcf wal.orig
for cmd in "show wal.pmcf" "export --format csv wal.pmcf" "truth wal.pmcf"; do
	expect_ok "$PMCFUSE" $cmd
	[ ! -e wal.pmcf-wal ] && [ ! -e wal.pmcf-shm ] || fail "$cmd created $(ls wal.pmcf-*)"
	cmp -s wal.pmcf wal.orig || fail "$cmd modified the profile"
done
# changes another program left in a -wal file are not read half: refused,
# and the files stay as they were
sqlite3 wal.pmcf "UPDATE meta SET value = 'edited' WHERE key = 'program';" \
	".shell cp wal.pmcf-wal pending-wal" >/dev/null
cp wal.pmcf wal.orig
cp pending-wal wal.pmcf-wal
expect_fail 1 "$PMCFUSE" show wal.pmcf
expect_match "show: wal.pmcf: another program left changes in 'wal.pmcf-wal' that are not in the profile yet" "$ERR"
[ ! -e wal.pmcf-shm ] || fail "show created wal.pmcf-shm"
cmp -s wal.pmcf wal.orig && cmp -s wal.pmcf-wal pending-wal || fail "show modified the profile or its WAL"

# ---- plans -------------------------------------------------------------------
row plan-fields
# plan fields are checked as the options they mirror, named with the file
expect_ok "$PMCFUSE" plan -e PAPI_L1_DCM,PAPI_L2_TCM --sim cholesky,blocks=4 -o pf.json
field() { jq --argjson v "$2" ".$1 = \$v" pf.json >pf-bad.json; }
for bad in 'pmcs 4294967297' 'pmcs 100000' 'pmcs -1' 'pmcs "4"' 'pmcs 1e308' 'seed -1' \
	'seed 18446744073709551616' 'executions 100'; do
	field $bad
	expect_fail 1 "$PMCFUSE" record --plan pf-bad.json --set 0 -o pf.pmcf
	expect_match "^pmcfuse: record: pf-bad.json: \"${bad%% *}\": " "$ERR"
	[ ! -e pf.pmcf ] || fail "a profile was written for $bad"
done
field pmcs 100000
expect_fail 1 "$PMCFUSE" record --plan pf-bad.json --set 0 -o pf.pmcf
expect_match '"pmcs": 100000 is out of range \(1\.\.64' "$ERR"
expect_nomatch '\-\-pmcs' "$ERR"
jq '.source.program = "/bin/true"' pf.json >pf-bad.json
expect_fail 1 "$PMCFUSE" record --plan pf-bad.json --set 0 -o pf.pmcf
expect_match '"source" names both "sim" and "program"' "$ERR"
# a seed valid as --seed is valid in the plan, up to 2^64-1, and kept exactly
expect_ok "$PMCFUSE" plan -e PAPI_L1_DCM --sim cholesky,blocks=4 --seed 18446744073709551615 -o pseed.json
expect_match '"seed": 18446744073709551615,' "$(cat pseed.json)"
expect_ok "$PMCFUSE" record --plan pseed.json --set 0 -o pseed.pmcf
# a folder as plan
expect_fail 1 "$PMCFUSE" record --plan . --set 0 -o pf.pmcf
expect_match "plan '\.' is a folder, not a plan file" "$ERR"

row profile-schema
# a table or column renamed: a damaged profile, said so (it was "cannot
# read: no such column: chunk")
expect_ok "$PMCFUSE" record -e duration,PAPI_L1_DCM -o col.pmcf --sim cholesky,blocks=4
sqlite3 col.pmcf 'ALTER TABLE value_chunk RENAME COLUMN chunk TO chunkx'
expect_fail 1 "$PMCFUSE" show col.pmcf
expect_eq "pmcfuse: show: col.pmcf: damaged profile: no such column: chunk" "$ERR"

# ---- limits of a profile ----------------------------------------------------
row profile-limits
# more events than a profile may hold: refused before they are read
expect_ok "$PMCFUSE" record -e duration,PAPI_L1_DCM -o lim.pmcf --sim cholesky,blocks=8
cp lim.pmcf many.pmcf
sqlite3 many.pmcf "WITH RECURSIVE n(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM n WHERE i < 70000)
	INSERT INTO event(id, name) SELECT i, 'ev' || i FROM n"
expect_fail 1 "$PMCFUSE" show many.pmcf
expect_eq 'pmcfuse: show: many.pmcf: 70001 events, more than a profile may hold (65536; docs/profile-format.md, "Limits")' "$ERR"
# events whose values the file cannot hold: damaged, said before the values
# are allocated
cp lim.pmcf short.pmcf
sqlite3 short.pmcf "WITH RECURSIVE n(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM n WHERE i < 5000)
	INSERT INTO event(id, name) SELECT i, 'ev' || i FROM n"
expect_fail 1 "$PMCFUSE" show short.pmcf
expect_match '^pmcfuse: show: short.pmcf: damaged profile: [0-9]+ XUs with 5001 events and [0-9]+ truth events take at least [0-9]+ bytes, the file has [0-9]+$' "$ERR"
cp lim.pmcf types.pmcf
sqlite3 types.pmcf "UPDATE format SET value = '4294967297' WHERE key = 'xus'"
expect_fail 1 "$PMCFUSE" show types.pmcf
expect_match 'types.pmcf: 4294967297 XUs, more than a profile may hold \(4294967296' "$ERR"

# ---- the command line ---------------------------------------------------------
row options-anywhere
# verbs that take no program read options after their files (getopt's
# permutation); `--` still ends the options
expect_ok "$PMCFUSE" record -e duration,PAPI_L2_TCM -o lim2.pmcf --sim cholesky,blocks=8
expect_ok "$PMCFUSE" show lim.pmcf --json
expect_eq lim.pmcf "$(printf '%s' "$OUT" | jq -r .path)"
expect_ok "$PMCFUSE" combine lim.pmcf lim2.pmcf --strategy ctc -o anywhere.pmcf
expect_ok "$PMCFUSE" export lim.pmcf --format csv -o anywhere.csv
expect_ok "$PMCFUSE" truth lim.pmcf --json
expect_ok "$PMCFUSE" events --json --source pseudo
cp lim.pmcf ./--json
expect_ok "$PMCFUSE" show -- --json
expect_match '^profile +--json' "$OUT"
expect_ok "$PMCFUSE" truth -- --json
printf '1,0,0\n' >./-p.csv
expect_ok "$PMCFUSE" emd --json -- -p.csv -p.csv
expect_eq '{"emd": 0}' "$OUT"
expect_fail 1 "$PMCFUSE" show lim.pmcf --bogus
expect_match "unknown option '--bogus'" "$ERR"
# verbs that run a program: after `--`, its options stay its own
expect_ok "$PMCFUSE" record -e page-faults -o prog.pmcf -- /bin/echo -e -o x
expect_eq '-o x' "$OUT"

row output-name
# -o "" is refused where the option is read, before any work, by every verb
# (VERB|REST: -o '' goes between them, before a `--`)
for cmd in "record|-e duration --sim cholesky,blocks=4" "run|-e PAPI_L1_DCM --sim cholesky,blocks=4" \
	"combine|--strategy ctc lim.pmcf lim2.pmcf" "plan|-e PAPI_L1_DCM --sim cholesky,blocks=4" \
	"export|--format csv lim.pmcf" "report|lim.pmcf" "categorize|--backend cachegrind" \
	"reference|-e PAPI_L1_DCM,PAPI_L2_TCM --sim cholesky,blocks=4" \
	"imix record|--ebs-only -- /bin/true" "imix reference|-- /bin/true" "imix synth|" \
	"imix report|syn"; do
	expect_fail 1 "$PMCFUSE" ${cmd%|*} -o '' ${cmd#*|}
	expect_match "-o needs a name, not an empty string" "$ERR"
done
[ -z "$(ls -A | grep '^\.tmp\.')" ] || fail "a temporary was left: $(ls -A | grep '^\.tmp\.')"
# -o -: standard output for text (plans, CSV, JSON, HTML); refused for
# profiles and folders, which are no text (./- names a file "-")
expect_ok "$PMCFUSE" plan -e PAPI_L1_DCM --sim cholesky,blocks=4 -o -
expect_eq pmcfuse-plan "$(printf '%s' "$OUT" | jq -r .format)"
expect_ok "$PMCFUSE" export --format csv -o - lim.pmcf
expect_match '^xu,type,' "$OUT"
for cmd in "record -e duration --sim cholesky,blocks=4" "run -e PAPI_L1_DCM --sim cholesky,blocks=4" \
	"combine --strategy ctc lim.pmcf lim2.pmcf"; do
	expect_fail 1 "$PMCFUSE" $cmd -o -
	expect_match "-o -: a profile cannot be written to standard output" "$ERR"
done
for cmd in "reference -e PAPI_L1_DCM,PAPI_L2_TCM --sim cholesky,blocks=4" "imix synth"; do
	expect_fail 1 "$PMCFUSE" $cmd -o -
	expect_match "-o -: a folder cannot be written to standard output" "$ERR"
done
[ ! -e ./- ] || fail "a file named '-' was written"
expect_ok "$PMCFUSE" record -e duration --sim cholesky,blocks=4 -o ./-
[ -s ./- ] || fail "-o ./- wrote no file '-'"

row dir-as-file
expect_fail 1 "$PMCFUSE" events --check @.
expect_eq "pmcfuse: events: event file '.' is a directory, not a list of events" "$ERR"
expect_fail 1 "$PMCFUSE" record -e @. -o d.pmcf --sim cholesky,blocks=4
expect_match "event file '.' is a directory" "$ERR"

row long-path
# a message with a path of 3 KB keeps its reason: the path is cut in its middle
long=$(printf 'segment-of-a-long-path/%.0s' $(seq 1 130))
expect_fail 1 "$PMCFUSE" show "$long/x.pmcf"
expect_match '^pmcfuse: show: segment-of-a-long-path/.*\.\.\..*/x\.pmcf: no such file$' "$ERR"
[ "${#ERR}" -lt 1100 ] || fail "the line is ${#ERR} bytes"
expect_fail 1 "$PMCFUSE" export --format csv -o "$long/x.csv" lim.pmcf
expect_match "x\.csv': No such file or directory$" "$ERR"

row tmpdir-missing
expect_fail 1 env TMPDIR="$PWD/no-such-tmp" "$PMCFUSE" record -e page-faults -o t.pmcf -- /bin/true
expect_match "cannot create a record folder in TMPDIR '.*/no-such-tmp': No such file or directory" "$ERR"

row no-pmu
# a hardware event without a PMU is the environment: exit 2 (docs/errors.md)
# (perf stat exits 0 also for "<not supported>": a count is a number)
if perf stat -x, -e cycles true 2>&1 >/dev/null | grep -q '^[0-9]'; then
	echo "SKIP (no-pmu): this machine counts cycles"
elif [ -e /sys/bus/event_source/devices/cpu ] || [ -e /sys/bus/event_source/devices/cpu_core ]; then
	echo "SKIP (no-pmu): a core PMU is there (perf is missing or denied)"
else
	expect_fail 2 "$PMCFUSE" record -e cycles -o cyc.pmcf -- /bin/true
	expect_match "'cycles' cannot be counted on this machine: this machine exposes no hardware PMU" "$ERR"
	[ ! -e cyc.pmcf ] || fail "a profile was written"
fi

row imix-json-inf
# imix writes JSON by the rule of cli_json_number: "inf" kept, never a lost member
expect_ok "$PMCFUSE" imix synth -o syn
printf 'key,count,share\nADD,1e308,0.5\nDEC,1e308,0.5\n' >infmix.csv
expect_ok "$PMCFUSE" imix compare --json syn/ref infmix.csv
printf '%s' "$OUT" >infmix.json
expect_eq '"inf" null' "$(jq -c '.measured_total, .extra' infmix.json | tr '\n' ' ' | sed 's/ $//')"
