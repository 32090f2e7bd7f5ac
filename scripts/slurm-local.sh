#!/usr/bin/env bash
# scripts/slurm-local.sh start|stop|status [DIR]: a single-node Slurm cluster
# on this machine, to try `pmcfuse run --launcher slurm` without a cluster
# (docs/slurm.md); tests/e2e/slow_slurm.sh uses it too.
#
#   eval "$(scripts/slurm-local.sh start)"   # starts it, prints the exports
#   pmcfuse run --sim cholesky,blocks=10 -o f.pmcf --launcher slurm --wait
#   scripts/slurm-local.sh stop
#
# Needs root (munged, slurmctld and slurmd run as root) and Debian's
# slurm-wlm and munge (scripts/install-deps.sh installs them). Everything
# (configuration, a munge key of its own, state, logs, pid files) lives in
# DIR (default: $PMCF_SLURM_DIR, else ./slurm-local); nothing in /etc is
# touched and the machine's own munge or Slurm, if any, are left alone. The
# daemons listen on 127.0.0.1 on free ports. `start` prints the variables to
# export (SLURM_CONF, PATH with /usr/sbin) on stdout, progress on stderr;
# `status` prints sinfo; `stop` ends the daemons it started (by their pid
# files) and keeps DIR (its log/ says what happened).
set -euo pipefail
cmd=${1:-}
DIR=${2:-${PMCF_SLURM_DIR:-$PWD/slurm-local}}
say() { echo "slurm-local: $*" >&2; }
die() { say "$*"; exit 2; }
export PATH=$PATH:/usr/sbin

# a TCP port nothing listens on
free_port() {
	local p=$((20000 + ($$ * 7 + $1) % 20000))
	while grep -qi ":$(printf %04X $p) 00000000:0000 0A" /proc/net/tcp /proc/net/tcp6 2>/dev/null; do
		p=$((p + 2))
	done
	echo $p
}

stop() {
	local f pid
	[ -d "$DIR" ] || { say "no cluster in $DIR"; return 0; }
	for f in "$DIR"/slurmd.pid "$DIR"/slurmctld.pid "$DIR"/munge/munged.pid; do
		[ -s "$f" ] || continue
		pid=$(cat "$f")
		kill "$pid" 2>/dev/null || true
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$pid" 2>/dev/null || true
		rm -f "$f"
	done
	say "stopped (logs in $DIR/log)"
}

start() {
	[ "$(id -u)" = 0 ] || die "needs root (munged, slurmctld and slurmd run as root)"
	local b
	for b in munged slurmctld slurmd sbatch squeue sinfo; do
		command -v $b >/dev/null 2>&1 ||
			die "$b not installed (Debian: apt-get install slurm-wlm munge; scripts/install-deps.sh installs them)"
	done
	if [ -s "$DIR/slurmctld.pid" ] && kill -0 "$(cat "$DIR/slurmctld.pid")" 2>/dev/null; then
		die "a cluster already runs in $DIR (scripts/slurm-local.sh stop $DIR first)"
	fi
	mkdir -p "$DIR/munge" "$DIR/spool" "$DIR/state" "$DIR/log"
	DIR=$(realpath "$DIR")
	chmod 700 "$DIR/munge"
	# a key of its own, for a munged on a socket of its own
	[ -s "$DIR/munge/munge.key" ] || head -c 1024 /dev/urandom >"$DIR/munge/munge.key"
	chmod 600 "$DIR/munge/munge.key"
	local host cpus
	host=$(hostname -s)
	cpus=$(nproc)
	cat >"$DIR/slurm.conf" <<CONF
ClusterName=pmcflocal
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$(free_port 0)
SlurmdPort=$(free_port 1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$DIR/munge/sock
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
ReturnToService=2
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
PlugStackConfig=$DIR/plugstack.conf
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
	: >"$DIR/plugstack.conf"
	export SLURM_CONF=$DIR/slurm.conf
	# the daemons detach from this shell: their output goes to their logs
	setsid munged -F --force --key-file="$DIR/munge/munge.key" --socket="$DIR/munge/sock" \
		--pid-file="$DIR/munge/munged.pid" --log-file="$DIR/log/munged.log" \
		--seed-file="$DIR/munge/seed" </dev/null >>"$DIR/log/munged.log" 2>&1 &
	echo $! >"$DIR/munge/munged.pid"
	for _ in $(seq 50); do [ -S "$DIR/munge/sock" ] && break; sleep 0.1; done
	[ -S "$DIR/munge/sock" ] || { stop; die "munged did not start: $(tail -n 3 "$DIR/log/munged.log")"; }
	setsid slurmctld -D -i </dev/null >>"$DIR/log/slurmctld.log" 2>&1 &
	echo $! >"$DIR/slurmctld.pid"
	setsid slurmd -D </dev/null >>"$DIR/log/slurmd.log" 2>&1 &
	echo $! >"$DIR/slurmd.pid"
	local state=""
	for _ in $(seq 60); do
		state=$(sinfo -h -o %t 2>/dev/null || true)
		[ "$state" = idle ] && break
		sleep 0.5
	done
	if [ "$state" != idle ]; then
		local f
		for f in "$DIR"/log/*.log; do echo "--- $f" >&2; tail -n 15 "$f" >&2; done
		stop
		die "the node is not idle after 30 s (sinfo: '${state:-no answer}'); the daemons' logs are above"
	fi
	say "a one-node cluster runs in $DIR (partition local, $cpus CPUs); stop it with: $0 stop $DIR"
	printf 'export SLURM_CONF=%q PATH=%q\n' "$DIR/slurm.conf" "$PATH"
}

case "$cmd" in
start) start ;;
stop) stop ;;
status)
	export SLURM_CONF=$DIR/slurm.conf
	sinfo
	;;
*)
	echo "usage: $0 start|stop|status [DIR]   (docs/slurm.md)" >&2
	exit 1
	;;
esac
