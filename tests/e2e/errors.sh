# Bad input files and absurd options, verb by verb: every case is one line
# "pmcfuse: <verb>: ..." on stderr with exit status 1 (input or usage) or 2
# (environment). Each block is one row of docs/errors.md, named by its tag.
EX="$(dirname "$PMCFUSE")/examples"
SIM=cholesky,blocks=4
EV=duration,PAPI_L1_DCM
row() { ROW=$1; }
trap 'echo "in row: ${ROW:-?}" >&2' ERR

expect_ok "$PMCFUSE" record -e $EV -o a.pmcf --sim $SIM
expect_ok "$PMCFUSE" record -e duration,PAPI_L2_TCM -o b.pmcf --sim $SIM
expect_ok "$PMCFUSE" plan -e PAPI_L1_DCM,PAPI_L2_TCM --sim $SIM -o plan.json

# ---- profiles --------------------------------------------------------------
row profile-empty
: >empty.pmcf
for verb in show truth; do
	expect_fail 1 "$PMCFUSE" $verb empty.pmcf
	expect_match "^pmcfuse: $verb: empty.pmcf: not a pmcfuse profile: empty file" "$ERR"
done
expect_fail 1 "$PMCFUSE" export --format csv empty.pmcf
expect_fail 1 "$PMCFUSE" combine --strategy ctc -o c.pmcf a.pmcf empty.pmcf
expect_match '^pmcfuse: combine: empty.pmcf' "$ERR"
[ ! -e c.pmcf ] || fail "combine left an output"

row profile-truncated
head -c 3000 a.pmcf >trunc.pmcf
expect_fail 1 "$PMCFUSE" show trunc.pmcf
expect_match 'damaged profile: truncated \(3000 bytes of [0-9]+\)' "$ERR"
head -c 40000 a.pmcf >trunc2.pmcf
expect_fail 1 "$PMCFUSE" export --format json trunc2.pmcf
expect_match '^pmcfuse: export: trunc2.pmcf: damaged profile' "$ERR"
expect_fail 1 "$PMCFUSE" epd trunc.pmcf .
expect_match '^pmcfuse: epd: ' "$ERR"

row profile-foreign
printf 'just some text\n' >text.pmcf
expect_fail 1 "$PMCFUSE" show text.pmcf
expect_match 'not a pmcfuse profile: not an SQLite database' "$ERR"
cp "$EX/plain" elf.pmcf
expect_fail 1 "$PMCFUSE" show elf.pmcf
expect_match 'not a pmcfuse profile' "$ERR"
sqlite3 foreign.db 'CREATE TABLE t(a); INSERT INTO t VALUES (1);'
expect_fail 1 "$PMCFUSE" show foreign.db
expect_match 'an SQLite database of another application' "$ERR"
expect_fail 1 "$PMCFUSE" report -o r.html foreign.db
expect_match '^pmcfuse: report: ' "$ERR"

row profile-newer
cp a.pmcf newer.pmcf
sqlite3 newer.pmcf 'PRAGMA user_version=99'
expect_fail 1 "$PMCFUSE" show newer.pmcf
expect_match 'profile format version 99, this pmcfuse reads versions up to [0-9]+ \(upgrade pmcfuse\)' "$ERR"
expect_fail 1 "$PMCFUSE" combine --strategy bc -o c.pmcf a.pmcf newer.pmcf
expect_match 'upgrade pmcfuse' "$ERR"

row profile-missing
expect_fail 1 "$PMCFUSE" show nowhere.pmcf
expect_match '^pmcfuse: show: nowhere.pmcf: no such file' "$ERR"
mkdir adir
expect_fail 1 "$PMCFUSE" show adir
expect_match '^pmcfuse: show: adir' "$ERR"

# ---- plan.json -------------------------------------------------------------
row plan-empty
: >empty.json
expect_fail 1 "$PMCFUSE" record --plan empty.json --set 0 -o x.pmcf
expect_match "^pmcfuse: record: plan 'empty.json' is not JSON" "$ERR"

row plan-truncated
head -c 100 plan.json >trunc.json
expect_fail 1 "$PMCFUSE" record --plan trunc.json --set 0 -o x.pmcf
expect_match "plan 'trunc.json' is not JSON \(line [0-9]+" "$ERR"
jq 'del(.sets)' plan.json >nosets.json
expect_fail 1 "$PMCFUSE" record --plan nosets.json --set 0 -o x.pmcf
expect_match '^pmcfuse: record: nosets.json' "$ERR"

row plan-foreign
echo '{"hello": 1}' >foreign.json
expect_fail 1 "$PMCFUSE" record --plan foreign.json --set 0 -o x.pmcf
expect_match 'not a pmcfuse plan' "$ERR"
cp "$EX/plain" elf.json
expect_fail 1 "$PMCFUSE" record --plan elf.json --set 0 -o x.pmcf
expect_match 'is not JSON' "$ERR"

row plan-newer
jq '.version = 7' plan.json >newer.json
expect_fail 1 "$PMCFUSE" record --plan newer.json --set 0 -o x.pmcf
expect_match 'plan version 7 is newer than this pmcfuse reads \([0-9]+\); upgrade pmcfuse' "$ERR"

row plan-set
expect_fail 1 "$PMCFUSE" record --plan plan.json --set 5 -o x.pmcf
expect_match '--set 5: the plan .plan.json. has sets 0 to 0' "$ERR"
expect_fail 1 "$PMCFUSE" record --plan plan.json --set -1 -o x.pmcf
[ ! -e x.pmcf ] || fail "record left an output"

# ---- EMD CSV ---------------------------------------------------------------
printf 'weight,x,y\n1,0,0\n2,1,1\n' >a.csv
row csv-empty
: >empty.csv
expect_fail 1 "$PMCFUSE" emd a.csv empty.csv
expect_match "empty.csv: no 'weight,x,y' rows" "$ERR"

row csv-truncated
printf '1,0,0\n2,1' >trunc.csv
expect_fail 1 "$PMCFUSE" emd a.csv trunc.csv
expect_match "trunc.csv:2: expected 'weight,x,y' with three numbers" "$ERR"

row csv-foreign
head -c 2000 "$EX/plain" >elf.csv
expect_fail 1 "$PMCFUSE" emd elf.csv a.csv
expect_match '^pmcfuse: emd: elf.csv' "$ERR"

row csv-newer
printf '1,0,0,7\n' >wide.csv
expect_fail 1 "$PMCFUSE" emd a.csv wide.csv
expect_match "wide.csv:1: expected 'weight,x,y'" "$ERR"

row csv-values
printf '1,0,0\n-1,2,2\n' >neg.csv
expect_fail 1 "$PMCFUSE" emd a.csv neg.csv
expect_match 'negative weight' "$ERR"
printf '1,nan,0\n' >nan.csv
expect_fail 1 "$PMCFUSE" emd a.csv nan.csv
expect_match 'finite' "$ERR"
printf '0,1,1\n0,2,2\n' >zero.csv
expect_fail 1 "$PMCFUSE" emd a.csv zero.csv
expect_match 'sum to 0' "$ERR"
printf '1,0,0\n1,0,1e200\n' >huge.csv # found by fuzzing: distances overflowed to NaN
expect_fail 1 "$PMCFUSE" emd a.csv huge.csv
expect_match '^pmcfuse: emd: .*coordinate 1e\+200' "$ERR"

# ---- perf.data and callgrind (imix) ----------------------------------------
expect_ok "$PMCFUSE" imix synth --ebs-only -o syn
row perfdata-empty
: >empty.data
expect_fail 1 "$PMCFUSE" imix report empty.data
expect_match 'empty.data: not a perf.data file' "$ERR"

row perfdata-truncated
head -c 100 syn/perf.data >trunc.data
expect_fail 1 "$PMCFUSE" imix report trunc.data
expect_match 'perf.data: truncated header' "$ERR"
size=$(stat -c %s syn/perf.data)
head -c $((size / 2)) syn/perf.data >half.data
expect_fail 1 "$PMCFUSE" imix report half.data
expect_match 'out of bounds' "$ERR"

row perfdata-foreign
cp "$EX/plain" elf.data
expect_fail 1 "$PMCFUSE" imix report elf.data
expect_match 'not a perf.data file \(bad magic\)' "$ERR"

row perfdata-version
{ printf 'PERFFILE'; tail -c +9 syn/perf.data; } >v1.data
expect_fail 1 "$PMCFUSE" imix report v1.data
expect_match 'version 1 files are not supported' "$ERR"
# a perf_event_attr larger than any this reader knows (attr_size at offset 16)
{ head -c 16 syn/perf.data; printf '\x00\x40\x00\x00\x00\x00\x00\x00'; tail -c +25 syn/perf.data; } >bigattr.data
expect_fail 1 "$PMCFUSE" imix report bigattr.data
expect_match 'bad attribute size' "$ERR"

row callgrind-bad
printf 'events: Ir\n0x10 5\n' >noinstr.out
expect_fail 1 "$PMCFUSE" imix report noinstr.out
expect_match "no 'positions: instr'" "$ERR"
printf 'positions: instr\nevents: Ir\nob=(99999999) x\n' >badname.out
expect_fail 1 "$PMCFUSE" imix report badname.out
expect_match 'badname.out:3: bad name' "$ERR"
printf 'positions: instr\nevents: Ir\nfn=(1) f\n0xzz 5\n' >badpos.out
expect_fail 1 "$PMCFUSE" imix report badpos.out
expect_match 'badpos.out:4: bad position' "$ERR"

row imix-reference-empty
# callgrind does not follow exec: a wrapper script that execs the program
# (as pyenv's shims do) leaves callgrind.out empty; no folder is left
if command -v valgrind >/dev/null; then
	printf '#!/bin/sh\nexec /bin/true\n' >wrap.sh
	chmod +x wrap.sh
	expect_fail 1 "$PMCFUSE" imix reference -o wref -- ./wrap.sh
	expect_match '^pmcfuse: imix: callgrind wrote an empty profile: the program replaced itself with exec' "$ERR"
	[ ! -e wref ] || fail "imix reference left wref"
	[ -z "$(ls -A | grep '^wref\.tmp\.')" ] || fail "imix reference left a temporary"
	expect_fail 1 "$PMCFUSE" imix reference -o wref -- /bin/sh -c 'exit 3'
	expect_match 'the program failed under valgrind \(status 3\)' "$ERR"
	[ ! -e wref ] || fail "imix reference left wref"
else
	echo "SKIP (imix reference): no valgrind"
fi

# ---- events and workloads --------------------------------------------------
row event-unknown
expect_fail 1 "$PMCFUSE" record -e PAPI_NOPE -o x.pmcf --sim $SIM
expect_match "unknown event 'PAPI_NOPE'" "$ERR"
expect_fail 1 "$PMCFUSE" record -e page-fault -o x.pmcf -- "$EX/plain" 2 2
expect_match "unknown event 'page-fault' \(did you mean page-faults\?\)" "$ERR"
expect_fail 1 "$PMCFUSE" plan -e PAPI_L1_DCM,bogus --sim $SIM
expect_fail 1 "$PMCFUSE" events --check @nosuchfile.txt
expect_fail 1 "$PMCFUSE" record -e , -o x.pmcf --sim $SIM
[ ! -e x.pmcf ] || fail "record left an output"
# -e twice: refused, not the last list silently kept (perf would join them)
for verb in record run plan reference; do
	expect_fail 1 "$PMCFUSE" $verb -e PAPI_L1_DCM -e PAPI_L2_TCM -o x.pmcf --sim $SIM
	expect_match "^pmcfuse: $verb: -e given twice \('PAPI_L1_DCM', then 'PAPI_L2_TCM'\): give one list" "$ERR"
done
[ ! -e x.pmcf ] || fail "a refused -e twice left an output"

row event-conflict
expect_fail 1 "$PMCFUSE" record -e all -o x.pmcf --sim $SIM
expect_match 'cannot be counted together' "$ERR"

row workload-unknown
expect_fail 1 "$PMCFUSE" record -e $EV -o x.pmcf --sim nosuch
expect_match "unknown workload 'nosuch' \(workloads: " "$ERR"
expect_fail 1 "$PMCFUSE" record -e $EV -o x.pmcf --sim cholesky,bogus=3
expect_match "unknown key 'bogus' for workload cholesky" "$ERR"
expect_fail 1 "$PMCFUSE" record -e $EV -o x.pmcf --sim cholesky,machine=nosuch
expect_fail 1 "$PMCFUSE" run -e $EV -o x.pmcf --sim ',,,'
expect_fail 1 "$PMCFUSE" events --sim nosuch

# ---- absurd options --------------------------------------------------------
row opt-pmcs
for v in 0 -2 65 huge; do
	expect_fail 1 "$PMCFUSE" plan -e page-faults --pmcs $v
	expect_match "--pmcs needs a whole number from 1 to 64, not '$v'" "$ERR"
done
expect_fail 1 "$PMCFUSE" record -e page-faults --pmcs 0 -o x.pmcf -- "$EX/plain" 2 2

row opt-size
expect_fail 1 "$PMCFUSE" record -e $EV -o x.pmcf --sim cholesky,blocks=-3
expect_match "blocks='-3' must be an integer in \[1, [0-9]+\]" "$ERR"
expect_fail 1 "$PMCFUSE" record -e $EV -o x.pmcf --sim cholesky,blocks=0
expect_fail 1 "$PMCFUSE" record -e $EV -o x.pmcf --sim cholesky,blocks=99999999999999999999
expect_fail 1 "$PMCFUSE" record -e $EV -o x.pmcf --sim cholesky,bsize=-1
expect_fail 1 "$PMCFUSE" imix report --top -5 syn
expect_fail 1 "$PMCFUSE" combine --strategy bc --seed -1 -o x.pmcf a.pmcf b.pmcf

row opt-bins
expect_fail 1 "$PMCFUSE" epd --bins 999999999999 a.pmcf .
expect_match '--bins needs a whole number from 1 to [0-9]+' "$ERR"
expect_fail 1 "$PMCFUSE" epd --bins 0 a.pmcf .
expect_fail 1 "$PMCFUSE" epd --bins -5 a.pmcf .

row opt-repeat
for v in 0 -1 1 99999999999; do
	expect_fail 1 "$PMCFUSE" reference -e duration,PAPI_L1_DCM,PAPI_L2_TCM --repeat $v -o r --sim $SIM
	expect_match "--repeat needs a whole number from 2 to [0-9]+, not '$v'" "$ERR"
done
[ ! -e r ] || fail "reference left an output folder"

row opt-period
for v in -1 0 nan inf 1e300 5ms; do
	expect_fail 1 "$PMCFUSE" record -e $EV --multiplex rr --period-ms $v -o x.pmcf --sim $SIM
	expect_match "--period-ms needs a number of ms" "$ERR"
done

row opt-unknown
expect_fail 1 "$PMCFUSE" combine --strategy nope -o x.pmcf a.pmcf b.pmcf
expect_fail 1 "$PMCFUSE" record -e $EV --multiplex sometimes -o x.pmcf --sim $SIM
expect_fail 1 "$PMCFUSE" export --format xml a.pmcf
expect_fail 1 "$PMCFUSE" show --bogus a.pmcf
expect_match '^pmcfuse: show: unknown option' "$ERR"
expect_fail 1 "$PMCFUSE" record -e $EV -o x.pmcf
expect_fail 1 "$PMCFUSE" record -e $EV -o x.pmcf --sim $SIM -- "$EX/plain"
[ ! -e x.pmcf ] || fail "record left an output"

# ---- profiles of different programs ----------------------------------------
row combine-different
expect_ok "$PMCFUSE" record -e duration,PAPI_L2_TCM -o seidel.pmcf --sim seidel
for s in ctc lgl bc; do
	expect_fail 1 "$PMCFUSE" combine --strategy $s -o c.pmcf a.pmcf seidel.pmcf
	expect_match "a.pmcf and seidel.pmcf are not the same program run \(program 'cholesky' vs 'seidel'\)" "$ERR"
done
# forced, a strategy that pairs nothing (lgl: no label in common) writes nothing
expect_fail 1 "$PMCFUSE" combine --force --strategy lgl -o c.pmcf a.pmcf seidel.pmcf
expect_match "lgl pairs no XU of a.pmcf with one of seidel.pmcf \(no label in common\): the fused profile would have no XU" "$ERR"
[ ! -e c.pmcf ] || fail "combine left an empty profile"
# another OpenMP environment (team size, schedule) is another run
OMP_NUM_THREADS=2 expect_ok "$PMCFUSE" record -q -e task-clock -o omp2.pmcf -- "$EX/plain" 2 3
OMP_NUM_THREADS=3 OMP_SCHEDULE=dynamic expect_ok "$PMCFUSE" record -q -e page-faults -o omp3.pmcf -- "$EX/plain" 2 3
expect_fail 1 "$PMCFUSE" combine -o c.pmcf omp2.pmcf omp3.pmcf
expect_match "omp2.pmcf and omp3.pmcf are not the same program run \(omp_env '\{\"OMP_NUM_THREADS\":\"2\"\}' vs '\{\"OMP_NUM_THREADS\":\"3\",\"OMP_SCHEDULE\":\"dynamic\"\}': the OMP_\* variables change the team and the schedule\); set force \(--force\) to fuse them anyway" "$ERR"
[ ! -e c.pmcf ] || fail "combine left an output"
expect_ok "$PMCFUSE" combine --force -o c.pmcf omp2.pmcf omp3.pmcf
expect_ok "$PMCFUSE" show --json c.pmcf
expect_eq '[{"OMP_NUM_THREADS":"2"},{"OMP_NUM_THREADS":"3","OMP_SCHEDULE":"dynamic"}]' \
	"$(jq -r '.meta.omp_env_inputs' out.txt | jq -c .)"
expect_eq null "$(jq -r '.meta.args_inputs' out.txt)" "(same arguments: no args_inputs)"
rm -f c.pmcf
expect_ok "$PMCFUSE" record -e duration,PAPI_L2_TCM -o big.pmcf --sim cholesky,blocks=5
expect_fail 1 "$PMCFUSE" combine --strategy ctc -o c.pmcf a.pmcf big.pmcf
[ ! -e c.pmcf ] || fail "combine left an output"
expect_fail 1 "$PMCFUSE" truth "$(pwd)/a.pmcf" extra
# a fused profile of a real program has no ground truth: said so, not
# "source profile 'execution 0' ...: no such file"
expect_ok "$PMCFUSE" run -e page-faults,minor-faults --pmcs 1 -o realfused.pmcf -- "$EX/plain" 1 1
expect_fail 1 "$PMCFUSE" truth realfused.pmcf
expect_match 'the profile has no ground truth \(only simulated sources have one\)' "$ERR"

# ---- tracefs missing: the environment's doing, exit 2 ----------------------
row tracefs-missing
PMCF_TRACEFS=$PWD/no-tracefs expect_fail 2 "$PMCFUSE" events --check task-clock,sched:sched_switch
expect_match "tracepoint 'sched:sched_switch' needs tracefs, but PMCF_TRACEFS=.*no-tracefs holds no readable events/ folder" "$ERR"
PMCF_TRACEFS=$PWD/no-tracefs expect_fail 2 "$PMCFUSE" record -e sched:sched_switch -o tp.pmcf -- "$EX/plain" 2 3
[ ! -e tp.pmcf ] || fail "record left an output"
# not mounted and not mountable (no CAP_SYS_ADMIN): a mount namespace without
# tracefs, as user nobody; where it cannot be arranged, the override above
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null && unshare -m true 2>/dev/null &&
	setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$PMCFUSE"; then
	chmod 777 .
	rc=0
	unshare -m --propagation private bash -c '
		for m in $(awk "\$3 == \"tracefs\" || \$3 == \"debugfs\" { print \$2 }" /proc/self/mounts | sort -r); do
			umount -l "$m"
		done
		exec setpriv --reuid=65534 --regid=65534 --clear-groups "$1" events --check sched:sched_switch' \
		_ "$PMCFUSE" >out.txt 2>err.txt || rc=$?
	expect_eq 2 "$rc" "(events --check with tracefs unmounted: $(cat err.txt))"
	expect_match "needs tracefs, which is not mounted, and mounting it failed \(Operation not permitted\)" "$(cat err.txt)"
else
	echo "SKIP (tracefs unmounted as nobody): needs root, setpriv and unshare -m"
fi
