#!/bin/sh
# The collector's cost counted in instructions (issue 31, stage 4): run in
# the emulated aarch64 guest, where instructions are exact:
#   scripts/pmu-vm.sh run "$PWD" -- sh bench/hw/cost.sh build/pmu/arm64
# For a fib-like task tree and a loop program, with 1, 4 and 6 hardware
# events, read with read(2) (kernel.perf_user_access = 0) and from user
# space (= 1): (instructions of the recorded run - instructions of the bare
# run) / XUs, user + kernel mode, all processes and threads of the program
# (tests/hw/count.c counts them on the cycle counter, which equals
# instructions at -icount shift=0). The tool's fixed cost (loading,
# counters, record files, exit) is spread over the XUs.
B=$(cd "${1:?usage: cost.sh ARM64_BUILD}" && pwd)
P=$B/pmcfuse
C=$B/hw/hw-count
W=/tmp/cost
mkdir -p $W
E1=instructions:u
E4=instructions:u,instructions:k,r08:u,r08:k
E6=$E4,instructions,r08
count() { # prints the instructions of CMD
	"$C" -- "$@" 2>&1 >/dev/null | awk '$1 == "instructions" { print $2 }'
}
# measure EVENTS RDPMC USERONLY PROG ARGS: prints "XUs bare recorded"
measure() {
	evs=$1 rd=$2 uo=$3
	shift 3
	echo "$rd" >/proc/sys/kernel/perf_user_access
	bare=$(HW_COUNT_USER=$uo count "$@")
	rm -f $W/out
	HW_COUNT_USER=$uo "$P" record -e "$evs" -o $W/c.pmcf --program-output $W/out -- "$C" -- "$@" >/dev/null 2>&1
	rec=$(awk '$1 == "instructions" { print $2 }' $W/out)
	xus=$("$P" export --format csv $W/c.pmcf | awk 'NR > 1' | wc -l)
	echo "$xus $bare $rec"
}
# Per XU: all included ((recorded - bare) / XUs of the large run) and
# marginal (the same difference between a small and a large run over the
# difference in XUs: the tool's fixed cost cancels), user + kernel, and the
# marginal in user mode alone.
printf "%-28s %-6s %-8s %7s %11s %11s %8s %8s %8s\n" program events read XUs bare recorded "per XU" marginal "user"
row() { # NAME EVENTS SMALL-ARGS -- LARGE-ARGS (each: PROG ARGS)
	name=$1 ev=$2
	shift 2
	small=""
	while [ "$1" != "--" ]; do small="$small $1"; shift; done
	shift
	large="$*"
	eval evs=\$$ev
	for rd in 0 1; do
		m=$(measure "$evs" $rd 0 $small; measure "$evs" $rd 0 $large; measure "$evs" $rd 1 $small; measure "$evs" $rd 1 $large)
		echo $m | awk -v name="$name" -v ev="${ev#E}" -v rd=$rd '{
			n1 = $1; b1 = $2; r1 = $3; n2 = $4; b2 = $5; r2 = $6
			u1 = $9 - $8; u2 = $12 - $11
			printf "%-28s %-6s %-8s %7d %11d %11d %8.0f %8.0f %8.0f\n", name, ev, rd ? "rdpmc" : "read(2)", n2, b2, r2,
				(r2 - b2) / n2, ((r2 - b2) - (r1 - b1)) / (n2 - n1), (u2 - u1) / ($10 - $7) }'
	done
}
export OMP_WAIT_POLICY=passive KMP_BLOCKTIME=0
for ev in E1 E4 E6; do
	row "fib 19 (cutoff 19)" $ev $B/bench/tasks/fib 16 16 -- $B/bench/tasks/fib 19 19
	OMP_NUM_THREADS=4 row "loops dynamic,64 (4 threads)" $ev $B/examples/loops 65536 2 64 -- $B/examples/loops 65536 8 64
done
echo 0 >/proc/sys/kernel/perf_user_access
