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
# free_port: a TCP port nothing listens on, from a range that depends on $$
free_port() {
	local p=$((20000 + ($$ * 7 + $1) % 20000))
	while grep -qi ":$(printf %04X $p) 00000000:0000 0A" /proc/net/tcp /proc/net/tcp6 2>/dev/null; do
		p=$((p + 2))
	done
	echo $p
}
CL=$PWD/cluster
PIDS=()
stop_cluster() {
	local pid
	for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
	for pid in "${PIDS[@]}"; do
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$pid" 2>/dev/null || true
	done
	PIDS=()
}
log_tail() { for f in "$CL"/log/*.log; do echo "--- $f"; tail -n 15 "$f"; done; }

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
	export PATH=$PATH:/usr/sbin
	mkdir -p "$CL/munge" "$CL/spool" "$CL/state" "$CL/log"
	chmod 700 "$CL/munge"
	# a key of the test's own, for a munged on a socket of its own
	head -c 1024 /dev/urandom >"$CL/munge/munge.key"
	chmod 600 "$CL/munge/munge.key"
	local host cpus
	host=$(hostname -s)
	cpus=$(nproc)
	cat >"$CL/slurm.conf" <<EOF
ClusterName=pmcftest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$(free_port 0)
SlurmdPort=$(free_port 1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$CL/munge/sock
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
ReturnToService=2
StateSaveLocation=$CL/state
SlurmdSpoolDir=$CL/spool
SlurmctldPidFile=$CL/slurmctld.pid
SlurmdPidFile=$CL/slurmd.pid
SlurmctldLogFile=$CL/log/slurmctld.log
SlurmdLogFile=$CL/log/slurmd.log
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
PlugStackConfig=$CL/plugstack.conf
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
	: >"$CL/plugstack.conf"
	export SLURM_CONF=$CL/slurm.conf
	trap stop_cluster EXIT
	munged -F --force --key-file="$CL/munge/munge.key" --socket="$CL/munge/sock" \
		--pid-file="$CL/munge/munged.pid" --log-file="$CL/log/munged.log" \
		--seed-file="$CL/munge/seed" 2>>"$CL/log/munged.log" &
	PIDS+=($!)
	for _ in $(seq 50); do [ -S "$CL/munge/sock" ] && break; sleep 0.1; done
	slurmctld -D -i 2>>"$CL/log/slurmctld.log" &
	PIDS+=($!)
	slurmd -D 2>>"$CL/log/slurmd.log" &
	PIDS+=($!)
	local state=""
	for _ in $(seq 60); do
		state=$(sinfo -h -o %t 2>/dev/null || true)
		[ "$state" = idle ] && break
		sleep 0.5
	done
	if [ "$state" != idle ]; then
		echo "SKIP (real Slurm cluster): the node is not idle after 30 s (sinfo: '${state:-no answer}'); the daemons' logs:"
		log_tail
		stop_cluster
		return 0
	fi
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
	expect_match "slurm: $n of $n executions done, 0 failed, 0 running, 0 pending; finishing job [0-9]+: COMPLETED" "$ERR"
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
		rm broken
		expect_ok "$P" run --resume fcamp --launcher slurm --wait
		expect_match "wrote fl.pmcf" "$OUT"
	fi
	cd ..
	stop_cluster
	trap - EXIT
}
real_cluster
