# The slurm launcher (docs/slurm.md) with stand-ins for sbatch and squeue
# (any environment; tests/e2e/slow_slurm.sh runs a real cluster): options;
# the job array over the executions not done, its scripts, array tasks that
# run at the same time and from another folder updating one manifest, the
# finishing job, re-submission of what is missing; --resume from another
# folder; reference's executions over an array.
SIM=cholesky,blocks=10
P=$PMCFUSE
EXAMPLES=$(dirname "$PMCFUSE")/examples
T=$PWD

# ---- options ---------------------------------------------------------------
expect_fail 1 "$P" run --wait --sim $SIM -o x.pmcf
expect_match 'run: --wait is for --launcher slurm' "$ERR"
expect_fail 1 "$P" reference -e all --slurm-args=--time=5 -o xr --sim $SIM
expect_match 'reference: --slurm-args is for --launcher slurm' "$ERR"
expect_fail 1 "$P" run --launcher lsf --sim $SIM -o x.pmcf
expect_match '\-\-launcher lsf: use local or slurm' "$ERR"
expect_fail 1 "$P" run --only 2 --sim $SIM -o x.pmcf
expect_match '\-\-only K records one execution of a campaign: it needs --resume DIR' "$ERR"
mkdir nobin
expect_fail 2 env PATH="$PWD/nobin" "$P" run --launcher slurm --sim $SIM -o x.pmcf
expect_match 'sbatch not found in PATH' "$ERR"
[ ! -e x.pmcf.executions ] || fail "a campaign folder was made although nothing can be submitted"; ok

# ---- stand-ins: sbatch logs its arguments and answers the next job id;
# squeue lists job 1 as running while the file active exists
FAKE=$PWD/fake
mkdir -p "$FAKE/bin"
cat >"$FAKE/bin/sbatch" <<EOF
#!/bin/sh
n=\$((\$(cat "$FAKE/ids" 2>/dev/null || echo 0) + 1))
echo \$n >"$FAKE/ids"
echo "\$*" >>"$FAKE/sbatch.log"
echo "\$n;cluster"
EOF
cat >"$FAKE/bin/squeue" <<EOF
#!/bin/sh
[ -e "$FAKE/active" ] && echo "1_3 RUNNING"
exit 0
EOF
chmod +x "$FAKE/bin/sbatch" "$FAKE/bin/squeue"
fake() { PATH="$FAKE/bin:$PATH" "$@"; }

expect_ok fake "$P" run --sim $SIM --keep camp -o f.pmcf --launcher slurm --slurm-args "--partition=debug --time='1:00:00'"
n=$(json '.executions | length' camp/campaign.json)
[ "$n" -ge 3 ] || fail "expected at least 3 executions, got $n"; ok
D=$PWD/camp
expect_match "submitted array job 1: $n of $n executions \(tasks 0-$((n - 1))\), logs $D/slurm/1_K.out" "$OUT"
expect_match "submitted finishing job 2, after every task of 1: \`pmcfuse run --resume $D\`" "$OUT"
expect_match "if tasks fail: \`pmcfuse run --resume $D --launcher slurm\` submits what is missing again" "$OUT"
expect_eq "--parsable --array=0-$((n - 1)) --job-name=pmcfuse-run --output=$D/slurm/%A_%a.out --partition=debug --time=1:00:00 $D/slurm/exec.sbatch" "$(sed -n 1p "$FAKE/sbatch.log")"
expect_eq "--parsable --job-name=pmcfuse-run-finish --output=$D/slurm/finish-%j.out --dependency=afterok:1 --kill-on-invalid-dep=yes --partition=debug --time=1:00:00 $D/slurm/finish.sbatch" "$(sed -n 2p "$FAKE/sbatch.log")"
# the campaign does not remember how it was launched; it knows its jobs
expect_eq '["--sim","cholesky,blocks=10","--keep","camp","-o","f.pmcf"]' "$(jq -c .command camp/campaign.json)"
expect_eq 1,2 "$(json .slurm_jobs camp/campaign.json)"
[ ! -e f.pmcf ] && [ -z "$(ls camp/*.pmcf 2>/dev/null)" ] || fail "submitting ran executions here"; ok

# the array tasks, all at once, from another folder (a compute node's)
mkdir elsewhere
pids=()
for k in $(seq 0 $((n - 1))); do
	(cd elsewhere && SLURM_ARRAY_TASK_ID=$k sh "$D/slurm/exec.sbatch" >"task$k.out" 2>&1) &
	pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid" || fail "an array task failed: $(cat elsewhere/task*.out)"; done
ok
expect_eq "execution 3 of $n: $D/exec-3.pmcf" "$(cat elsewhere/task3.out)"
# every task's execution is in the manifest: none lost another's update
expect_eq "$n" "$(json '[.executions[] | select(.status == "ok")] | length' camp/campaign.json)"
expect_eq running "$(json .state camp/campaign.json)"
[ ! -e f.pmcf ] || fail "an array task fused"; ok
# a task again: its execution is done, nothing recorded
expect_ok env SLURM_ARRAY_TASK_ID=1 sh "$D/slurm/exec.sbatch"
expect_eq "execution 1 of $n: $D/exec-1.pmcf (already done)" "$OUT"
# the finishing job (from elsewhere too): fuses into f.pmcf, beside the command's folder
(cd elsewhere && sh "$D/slurm/finish.sbatch" >finish.out 2>&1) || fail "finishing failed: $(cat elsewhere/finish.out)"
expect_match "resumed $D: $n of $n executions were already done" "$(cat elsewhere/finish.out)"
expect_eq complete "$(json .state camp/campaign.json)"
expect_ok "$P" run --sim $SIM -o local.pmcf
"$P" export --format csv local.pmcf >local.csv
"$P" export --format csv f.pmcf >slurm.csv
cmp -s local.csv slurm.csv || fail "the slurm launcher's fused profile differs from the local one"; ok

# a real program named relative to the campaign's folder, its tasks run
# from another: they run it where the campaign was made
printf '#!/bin/sh\necho ran >>"$1"\n' >prog.sh
chmod +x prog.sh
expect_ok fake "$P" run -e page-faults,minor-faults --pmcs 1 --keep pcamp -o p.pmcf --launcher slurm -- ./prog.sh ran.txt
pn=$(json '.executions | length' pcamp/campaign.json)
for k in $(seq 0 $((pn - 1))); do
	(cd elsewhere && SLURM_ARRAY_TASK_ID=$k sh "$T/pcamp/slurm/exec.sbatch" >"ptask$k.out" 2>&1) ||
		fail "array task $k of a real program failed: $(cat elsewhere/ptask$k.out)"
done
ok
expect_eq "$pn" "$(wc -l <ran.txt)"
(cd elsewhere && sh "$T/pcamp/slurm/finish.sbatch" >pfinish.out 2>&1) || fail "finishing failed: $(cat elsewhere/pfinish.out)"
[ -e p.pmcf ] || fail "the finishing job did not write p.pmcf beside the command's folder"; ok

# re-submission: only what is missing; refused while the jobs run
rm -f "$FAKE/sbatch.log"
expect_ok fake "$P" run --sim $SIM --keep part -o part.pmcf --launcher slurm
for k in 0 1 3; do (cd elsewhere && SLURM_ARRAY_TASK_ID=$k sh "$T/part/slurm/exec.sbatch" >/dev/null); done
touch "$FAKE/active"
expect_fail 1 fake "$P" run --resume part --launcher slurm
expect_match "jobs 5,6 of the campaign $PWD/part are still queued or running: wait for them \(squeue -j 5,6\) or cancel them \(scancel 5,6\) first" "$ERR"
rm "$FAKE/active"
expect_ok fake "$P" run --resume part --launcher slurm --slurm-args=--qos=low
want=2
[ "$n" = 5 ] && want=2,4
[ "$n" -gt 5 ] && want="2,4-$((n - 1))"
expect_match "submitted array job 7: $((n - 3)) of $n executions \(tasks $want\)" "$OUT"
expect_match "^--parsable --array=$want --job-name=pmcfuse-run .* --qos=low $PWD/part/slurm/exec.sbatch$" "$(sed -n 3p "$FAKE/sbatch.log")"
# and without slurm: --resume from another folder finishes it here
(cd elsewhere && "$P" run --resume ../part >resume.out 2>&1) || fail "resume from another folder: $(cat elsewhere/resume.out)"
"$P" export --format csv part.pmcf >part.csv
cmp -s local.csv part.csv || fail "the resumed campaign differs from the local run"; ok

# reference: its executions split over the array too
RSIM=cholesky,blocks=6
REV=duration,PAPI_L1_DCM,PAPI_L2_TCM,PAPI_TOT_INS,PAPI_BR_MSP,PAPI_L3_TCM
expect_ok fake "$P" reference -e $REV --repeat 2 -o refs --sim $RSIM --launcher slurm
rn=$(json '.executions | length' refs/campaign.json)
expect_match "submitted array job [0-9]+: $rn of $rn executions \(tasks 0-$((rn - 1))\)" "$OUT"
expect_eq 0 "$(json '.profiles | length' refs/reference.json)"
for k in $(seq 0 $((rn - 1))); do (SLURM_ARRAY_TASK_ID=$k sh refs/slurm/exec.sbatch >/dev/null) & done
wait
expect_ok sh refs/slurm/finish.sbatch
expect_eq true "$(json .complete refs/reference.json)"
expect_ok "$P" reference -e $REV --repeat 2 -o lrefs --sim $RSIM
for f in refs/ref-*.pmcf; do "$P" export --format csv "$f"; done >refs.csv
for f in lrefs/ref-*.pmcf; do "$P" export --format csv "$f"; done >lrefs.csv
cmp -s refs.csv lrefs.csv || fail "the references through the launcher differ from the local ones"; ok


# --resume alone when the folder the campaign was started in is gone
mkdir gone
(cd gone && fake "$P" run --sim $SIM --keep ../gonecamp -o g.pmcf --launcher slurm >/dev/null)
rmdir gone
expect_fail 1 "$P" run --resume gonecamp
expect_match "the campaign gonecamp was started in $T/gone, which is gone \(No such file or directory\): give the whole command again after --resume gonecamp" "$ERR"
