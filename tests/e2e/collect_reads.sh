# Counter reads per XU (issue 17): the end of one XU and the start of the
# next on a thread share one group read, task suspend/resume reads once, and
# every software event (task-clock and cpu-clock included) sits in one group,
# so a recording makes at most 2 read(2) calls per XU whatever the number of
# software events. The reads are counted by a preload library
# (tests/readcount.c) on the program's perf_event descriptors.
EX="$(dirname "$PMCFUSE")/examples"
LIB="$(dirname "$PMCFUSE")/tests/libpmcf-readcount.so"
[ -f "$LIB" ] || fail "missing $LIB (built with the tests)"

# reads_per_xu NAME EVENTS PROGRAM ARGS...: records, prints reads/XU
reads_per_xu() {
	local name=$1 events=$2; shift 2
	rm -f "$name.reads"
	expect_ok env LD_PRELOAD="$LIB" PMCF_READCOUNT_OUT="$PWD/$name.reads" \
		"$PMCFUSE" record -e "$events" -o "$name.pmcf" -- "$@"
	expect_ok "$PMCFUSE" export --format csv -o "$name.csv" "$name.pmcf"
	local xus reads
	xus=$(($(wc -l <"$name.csv") - 1))
	reads=$(awk '$1 == "reads" { s += $2 } END { print s + 0 }' "$name.reads")
	[ "$xus" -gt 0 ] || fail "$name: no XUs recorded"
	[ "$reads" -gt 0 ] || fail "$name: no counter reads counted (is $LIB preloaded?)"
	awk -v r="$reads" -v x="$xus" 'BEGIN { printf "%.3f\n", r / x }'
}

# At most 2 reads per XU: a task's start shares its read with the end of
# the segment before it (its parent suspended in taskwait), its end with the
# start of the next (the parent resuming). Allowed beyond: one read per
# thread (its thread XU's end) and one per record chunk a thread fills
# (thousands of records each; the new chunk's page faults fall in no XU):
# 0.5 % here.
check() {
	local name=$1 per
	per=$(reads_per_xu "$@")
	echo "$name: $per reads per XU"
	awk -v p="$per" 'BEGIN { exit !(p <= 2.01) }' || fail "$name: $per reads per XU (> 2)"
	ok
}

SW4=page-faults,context-switches,cpu-migrations,minor-faults
SW6=$SW4,task-clock,cpu-clock

# The task API (no OpenMP): tasks on worker threads that sit idle between
# them, and splits that pause while their leaves run elsewhere, so few
# boundaries are shared (about 2.6 reads per XU, thread XUs included); the
# clocks must still cost no extra read.
r4=$(reads_per_xu taskapi4 "$SW4" "$EX/taskapi")
r6=$(reads_per_xu taskapi6 "$SW6" "$EX/taskapi")
echo "taskapi: $r4 reads per XU with 4 software events, $r6 with 6 (clocks included)"
expect_eq "$r4" "$r6" "(reads per XU with the clocks added)"

omp_examples || exit 0
# tasks with taskwait (suspend/resume), on one thread and on two
OMP_NUM_THREADS=1 check knapsack4 "$SW4" "$EX/knapsack" 16 10
OMP_NUM_THREADS=1 check knapsack6 "$SW6" "$EX/knapsack" 16 10
OMP_NUM_THREADS=2 check knapsack6t2 "$SW6" "$EX/knapsack" 16 10
# the same tasks untied (issue 33): libomp reports an untied task's start,
# a switch back to its parent and one back to the task at each task
# scheduling point (it queues itself again), and its completion; only the
# start and the completion are boundaries, so untied costs what tied does:
# 2 reads per XU (4 before the collector held the segment over the switch
# back, 3 if it read there), on one thread and on two
OMP_NUM_THREADS=1 check knapsack_untied4 "$SW4" "$EX/knapsack_untied" 16 10
OMP_NUM_THREADS=2 check knapsack_untied6t2 "$SW6" "$EX/knapsack_untied" 16 10
# tied and untied builds of one program: the same reads per XU, within the
# per-thread reads (a thread XU and record chunks: at most 4 here)
t1=$(OMP_NUM_THREADS=2 reads_per_xu tied "$SW4" "$EX/knapsack" 16 10)
u1=$(OMP_NUM_THREADS=2 reads_per_xu untied "$SW4" "$EX/knapsack_untied" 16 10)
echo "knapsack, 2 threads: tied $t1, untied $u1 reads per XU"
awk -v t="$t1" -v u="$u1" 'BEGIN { exit !(u - t < 0.0025) }' || fail "untied $u1 reads per XU, tied $t1"
ok
# dynamic loop chunks back to back, and Cholesky's task graph
check loops6 "$SW6" "$EX/loops" 65536 4
check cholesky6 "$SW6" "$EX/cholesky" 12 16
