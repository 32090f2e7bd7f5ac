#!/bin/sh
# Where the kernel instructions of a recorded run come from (issue 31,
# bench/RESULTS.md): run in the emulated aarch64 guest,
#   scripts/pmu-vm.sh run "$PWD" -- sh bench/hw/kernel.sh build/pmu/arm64 [MODE]
# fib N with cutoff N, bare and recorded with user-readable events
# (perf_user_access = 1; E1 = instructions:u, E2 = + r08:u, E4 = + the
# kernel-mode ones). MODE:
#   rows    (default) per XU between fib 16 and fib 19, 1, 2 and 4 events:
#           instructions (all modes, and user mode alone from a second run),
#           page faults, context switches, cpu migrations (hw-count
#           HW_COUNT_SW=1); "both": E1 and E2 counted on the cycle counter
#           and on the instructions event
#   split   all, user and kernel mode counted at once in one run (hw-count
#           HW_COUNT_SPLIT=1), bare, E1, E2, fib 16 and 19
#   pages   the kernel's instructions per 4 KiB page of record space on the
#           guest's tmpfs, the ways it can be made ready (hw-pages)
#   sample  kernel-mode sampling by symbol (hw-ksample; unreliable under
#           QEMU: most samples land in user mode)
#   long    a few long XUs (fib 24 and 27, cutoff 1): kernel instructions
#           against the run's length
#   trace   the kernel functions fib 16 recorded calls (function tracer,
#           pid-filtered; PMCF_KCOST_TRACE_EVENTS: E1, E2 or E4, default E4)
B=$(cd "${1:?usage: kernel.sh ARM64_BUILD [rows|both|split|pages|sample|long|trace]}" && pwd)
MODE=${2:-rows}
P=$B/pmcfuse
C=$B/hw/hw-count
F=$B/bench/tasks/fib
W=/tmp/kcost
mkdir -p $W
export OMP_WAIT_POLICY=passive KMP_BLOCKTIME=0
echo 1 >/proc/sys/kernel/perf_user_access
# run EVENTS USERONLY N: "instructions page-faults context-switches cpu-migrations XUs"
run() {
	rm -f $W/out
	if [ "$1" = bare ]; then
		HW_COUNT_SW=1 HW_COUNT_USER=$2 "$C" -- "$F" $3 $3 >/dev/null 2>$W/out
		x=0
	else
		HW_COUNT_SW=1 HW_COUNT_USER=$2 "$P" record -e "$1" -o $W/c.pmcf --program-output $W/out -- \
			"$C" -- "$F" $3 $3 >/dev/null 2>&1
		x=$("$P" export --format csv $W/c.pmcf | awk 'NR > 1' | wc -l)
	fi
	awk -v x=$x '{ v[$1] = $2 } END { print v["instructions"], v["page-faults"], v["context-switches"], v["cpu-migrations"], x }' $W/out
}
run_args() { # EVENTS USERONLY N CUTOFF
	rm -f $W/out
	if [ "$1" = bare ]; then
		HW_COUNT_SW=1 HW_COUNT_USER=$2 "$C" -- "$F" $3 $4 >/dev/null 2>$W/out
	else
		HW_COUNT_SW=1 HW_COUNT_USER=$2 "$P" record -e "$1" -o $W/c.pmcf --program-output $W/out -- \
			"$C" -- "$F" $3 $4 >/dev/null 2>&1
	fi
	awk '{ v[$1] = $2 } END { print v["instructions"], v["page-faults"], v["context-switches"], v["cpu-migrations"] }' $W/out
}
row() { # NAME EVENTS
	name=$1 ev=$2
	a=$(run bare 0 16) b=$(run bare 0 19) au=$(run bare 1 16) bu=$(run bare 1 19)
	c=$(run "$ev" 0 16) d=$(run "$ev" 0 19) cu=$(run "$ev" 1 16) du=$(run "$ev" 1 19)
	echo $a $b $au $bu $c $d $cu $du | awk -v name="$name" '{
		# per XU between fib 16 and 19: (recorded - bare) differences
		n = $30 - $25
		i = (($26 - $6) - ($21 - $1)) / n
		u = (($36 - $16) - ($31 - $11)) / n
		pf = (($27 - $7) - ($22 - $2)) / n
		cs = (($28 - $8) - ($23 - $3)) / n
		mg = (($29 - $9) - ($24 - $4)) / n
		printf "%-44s %9.0f %9.0f %9.0f %8.3f %8.3f %8.3f\n", name, i, i - u, u, pf, cs, mg }'
}
E1=instructions:u
E2=instructions:u,r08:u
E4=instructions:u,instructions:k,r08:u,r08:k
case $MODE in
pages)
	# the kernel's cost per 4 KiB page of record space on the guest's tmpfs
	# (TMPDIR), unmapping at exit included: 4 and 8 MiB, per page between them
	mkdir -p "${TMPDIR:-/tmp}"
	for mode in none fallocate window fwindow; do
		k4=$(HW_COUNT_SPLIT=1 "$C" -- "$B/hw/hw-pages" $mode 4 "${TMPDIR:-/tmp}" 2>&1 | awk '$1 == "kernel-instructions" { print $2 }')
		rm -f "${TMPDIR:-/tmp}/hw-pages"
		k8=$(HW_COUNT_SPLIT=1 "$C" -- "$B/hw/hw-pages" $mode 8 "${TMPDIR:-/tmp}" 2>&1 | awk '$1 == "kernel-instructions" { print $2 }')
		rm -f "${TMPDIR:-/tmp}/hw-pages"
		echo "$mode $k4 $k8" | awk '{ printf "%-10s kernel: 4 MiB %d, 8 MiB %d, per page %.0f\n", $1, $2, $3, ($3 - $2) / 1024 }'
	done
	;;
split)
	# all modes (cycle counter), user and kernel mode (two general
	# counters), counted at once in the same run
	for ev in bare E1 E2; do
		eval evs=\${$ev:-$ev}
		for n in 16 19; do
			rm -f $W/out
			if [ $ev = bare ]; then
				HW_COUNT_SPLIT=1 "$C" -- "$F" $n $n >/dev/null 2>$W/out
			else
				HW_COUNT_SPLIT=1 "$P" record -e "$evs" -o $W/s.pmcf --program-output $W/out -- "$C" -- "$F" $n $n >/dev/null 2>&1
			fi
			awk -v ev=$ev -v n=$n '{ v[$1] = $2 } END { printf "%-5s fib %d: all %d user %d kernel %d all-user-kernel %d\n", ev, n,
				v["instructions"], v["user-instructions"], v["kernel-instructions"],
				v["instructions"] - v["user-instructions"] - v["kernel-instructions"] }' $W/out
		done
	done
	;;
sample)
	# kernel-mode instructions sampled, by kernel symbol
	for ev in bare E1 E2; do
		eval ev=\${$ev:-$ev}
		echo "fib 19 19 recorded with $ev: kernel-mode instructions by symbol (hw-ksample):"
		rm -f $W/out
		if [ "$ev" = bare ]; then
			"$B/hw/hw-ksample" -p 997 -- "$F" 19 19 >/dev/null 2>$W/out
		else
			"$P" record -e "$ev" -o $W/s.pmcf --program-output $W/out -- "$B/hw/hw-ksample" -p 997 -- "$F" 19 19 >/dev/null 2>&1
		fi
		head -${PMCF_KCOST_TOP:-40} $W/out
	done
	;;
long)
	# few XUs, long ones: kernel instructions against the run's length
	for ev in bare $E1 $E2; do
		for n in 24 27; do
			a=$(run_args "$ev" 0 $n 1) b=$(run_args "$ev" 1 $n 1)
			echo "$ev fib $n 1: all $a | user $b" | awk '{ print $0, "kernel", $6 - $12 }'
		done
	done
	;;
both)
	printf "%-44s %9s %9s %9s %8s %8s %8s\n" events "instr/XU" "kern/XU" "user/XU" "pf/XU" "cs/XU" "mig/XU"
	for hc in 0 1; do
		export HW_COUNT_INSTRUCTIONS=$hc
		echo "counted with $([ $hc = 1 ] && echo 'the instructions event' || echo 'the cycle counter'):"
		row "1 event" $E1
		row "2 events" $E2
	done
	unset HW_COUNT_INSTRUCTIONS
	;;
rows)
	printf "%-44s %9s %9s %9s %8s %8s %8s\n" events "instr/XU" "kern/XU" "user/XU" "pf/XU" "cs/XU" "mig/XU"
	row "1 event" $E1
	row "2 events" $E2
	row "4 events" $E4
	;;
trace)
	T=/sys/kernel/tracing
	mount -t tracefs nodev $T 2>/dev/null
	echo 0 >$T/tracing_on
	echo 65536 >$T/buffer_size_kb
	echo function >$T/current_tracer
	echo 1 >$T/options/function-fork
	for ev in ${PMCF_KCOST_TRACE_EVENTS:-E4}; do
		eval ev=\${$ev:-$ev}
		echo >$T/trace
		# the program alone: its shell sets the filter to itself, then execs it
		"$P" record -e $ev -o $W/t.pmcf -- sh -c "echo \$\$ >$T/set_ftrace_pid; echo 1 >$T/tracing_on; exec $F 16 16" >/dev/null 2>&1
		echo 0 >$T/tracing_on
		echo "kernel functions called by fib 16 recorded with $ev (function tracer, calls):"
		grep -v '^#' $T/trace | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^<-/) { f[$(i - 1)]++; break } }
			END { for (k in f) print f[k], k }' | sort -rn | head -${PMCF_KCOST_TOP:-60}
		echo "lost events: $(grep -c LOST $T/trace)"
	done
	echo nop >$T/current_tracer
	echo >$T/set_ftrace_pid
	;;
*)
	echo "pmcfuse: kernel.sh: unknown mode '$MODE'" >&2
	exit 1
	;;
esac
echo 0 >/proc/sys/kernel/perf_user_access
