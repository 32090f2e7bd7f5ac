# The slurm launcher on a real single-node Slurm cluster that this script
# starts (as root, with Debian's slurm-wlm and munge; configuration, keys,
# state and logs in its folder) and stops on exit: a simulated campaign, a
# reference and a real-program campaign through `--launcher slurm --wait`
# give what the local launcher gives; a failed array task is reported and
# re-submitted with --resume. tests/e2e/launcher.sh covers the launcher with
# stand-ins for sbatch and squeue.
SIM=cholesky,blocks=10
RSIM=cholesky,blocks=6
REV=duration,PAPI_L1_DCM,PAPI_L2_TCM,PAPI_TOT_INS,PAPI_BR_MSP,PAPI_L3_TCM
P=$PMCFUSE
EXAMPLES=$(dirname "$PMCFUSE")/examples

# ---- a real single-node Slurm cluster ---------------------------------------
# scripts/slurm-local.sh (docs/slurm.md) starts it in ./cluster and stops it
CL=$PWD/cluster
SL="$SRCDIR/scripts/slurm-local.sh"
stop_cluster() { "$SL" stop "$CL" 2>/dev/null || true; }

real_cluster() {
	if [ "$(id -u)" != 0 ]; then
		echo "SKIP (real Slurm cluster): not root (the test starts munged, slurmctld and slurmd)"
		return 0
	fi
	local b
	for b in munged slurmctld slurmd sbatch squeue sinfo; do
		if ! command -v $b >/dev/null 2>&1 && [ ! -x /usr/sbin/$b ]; then
			echo "SKIP (real Slurm cluster): $b not installed (Debian: apt-get install slurm-wlm munge; scripts/install-deps.sh installs them)"
			return 0
		fi
	done
	trap stop_cluster EXIT
	local exports
	if ! exports=$("$SL" start "$CL" 2>start.err); then
		echo "SKIP (real Slurm cluster): scripts/slurm-local.sh start failed:"
		cat start.err
		return 0
	fi
	eval "$exports"
	[ -n "${SLURM_CONF:-}" ] || fail "slurm-local.sh start printed no SLURM_CONF: $exports"; ok
	# a simulated campaign: the fused profile is the local one
	mkdir real
	cd real
	expect_ok "$P" run --sim $SIM -o local.pmcf
	"$P" export --format csv local.pmcf >local.csv
	expect_ok "$P" reference -e $REV --repeat 2 -o lrefs --sim $RSIM
	for f in lrefs/ref-*.pmcf; do "$P" export --format csv "$f"; done >lrefs.csv
	expect_ok "$P" run --sim $SIM --keep scamp -o s.pmcf --launcher slurm --wait
	n=$(json '.executions | length' scamp/campaign.json)
	expect_match "submitted array job [0-9]+: $n of $n executions" "$OUT"
	expect_match "wrote s.pmcf" "$OUT"
	expect_match "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8} pmcfuse: run: slurm: $n of $n executions done, 0 failed, 0 running, 0 pending; finishing job [0-9]+: COMPLETED" "$ERR"
	# success: the scripts and logs are gone, the kept executions stay
	[ ! -e scamp/slurm ] || fail "scamp/slurm left after success: $(ls scamp/slurm)"; ok
	[ -f scamp/campaign.json ] || fail "the kept campaign lost its manifest"; ok
	"$P" export --format csv s.pmcf >s.csv
	[ "$(sha256sum <s.csv)" = "$(sha256sum <local.csv)" ] || fail "the fused profile through Slurm differs from the local one"
	ok
	# a reference through Slurm: the local references
	expect_ok "$P" reference -e $REV --repeat 2 -o srefs --sim $RSIM --launcher slurm --wait
	expect_eq true "$(json .complete srefs/reference.json)"
	for f in srefs/ref-*.pmcf; do "$P" export --format csv "$f"; done >srefs.csv
	cmp -s srefs.csv lrefs.csv || fail "the references through Slurm differ from the local ones"; ok
	# a real program, named relative to this folder: the same XUs and labels
	# as the local launcher (counts of a real program vary from run to run)
	if [ -x "$EXAMPLES/plain" ]; then
		cp "$EXAMPLES/plain" .
		local ev=page-faults,minor-faults,task-clock
		expect_ok "$P" run -e $ev --pmcs 1 --keep pcamp -o p.pmcf --launcher slurm --wait -- ./plain 3 8
		expect_match "wrote p.pmcf" "$OUT"
		expect_ok "$P" run -e $ev --pmcs 1 --keep plocalc -o plocal.pmcf -- ./plain 3 8
		# each execution: the same XUs (types, labels, threads; in any order)
		local f
		for f in plocalc/exec-*.pmcf; do
			"$P" export --format csv "$f" | cut -d, -f3-6 | sort >plocal.csv
			"$P" export --format csv "pcamp/${f#plocalc/}" | cut -d, -f3-6 | sort >p.csv
			cmp -s p.csv plocal.csv || fail "the real program's XUs through Slurm differ from the local ones ($f): $(diff p.csv plocal.csv | head -5)"
			ok
		done
		# the fused profiles: the same events and number of XUs
		expect_eq "$("$P" export --format csv plocal.pmcf | head -n 1)" "$("$P" export --format csv p.pmcf | head -n 1)"
		expect_eq "$("$P" export --format csv plocal.pmcf | wc -l)" "$("$P" export --format csv p.pmcf | wc -l)"
		expect_eq "$(json '.executions | length' pcamp/campaign.json)" "$(json '[.executions[] | select(.status == "ok")] | length' pcamp/campaign.json)"
	else
		echo "SKIP (real program through Slurm): examples/plain is not built"
	fi
	# sbatch refusing the job: its answer, exit 2
	expect_fail 2 "$P" run --sim $SIM --keep bad -o bad.pmcf --launcher slurm --slurm-args=--partition=none
	expect_match "sbatch failed \(exit 1\): sbatch: error: .*(invalid partition|none)" "$ERR"
	# a failing array task: reported, and re-submitted once fixed
	cat >flaky <<'EOF'
#!/bin/sh
test -e broken && exit 3
exec ./plain 2 4
EOF
	chmod +x flaky
	if [ -x plain ]; then
		touch broken
		local rc=0
		"$P" run -e page-faults --keep fcamp -o fl.pmcf --launcher slurm --wait -- ./flaky >out.txt 2>err.txt || rc=$?
		expect_eq 2 "$rc" "(a failed array task: $(cat err.txt))"
		# the task named with its log while squeue lists it; after that, from the manifest
		expect_match "array task.* of job [0-9]+ (failed \(logs: $PWD/fcamp/slurm/[0-9]+_K.out\)|did not complete: [0-9]+_[0-9]+ failed \($PWD/fcamp/slurm/[0-9]+_[0-9]+.out\)); submit what is missing again with \`pmcfuse run --resume $PWD/fcamp --launcher slurm\`" "$(tail -n 1 err.txt)"
		ls fcamp/slurm/*.out >/dev/null 2>&1 || fail "the failed campaign's logs are gone"; ok
		rm broken
		expect_ok "$P" run --resume fcamp --launcher slurm --wait
		expect_match "wrote fl.pmcf" "$OUT"
	fi
	# without --keep the campaign folder goes too
	expect_ok "$P" run --sim $SIM -o nokeep.pmcf --launcher slurm --wait
	[ ! -e nokeep.pmcf.executions ] || fail "nokeep.pmcf.executions left: $(ls -R nokeep.pmcf.executions | head)"; ok
	cd ..
	stop_cluster
	trap - EXIT
}
real_cluster
