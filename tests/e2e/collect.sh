# `pmcfuse record -- PROG` on the real examples: Listing 1.1 gives 16 XUs
# with labels stable across runs, a crashing program keeps its recorded XUs
# (profile written, exit non-zero), a plain program gives one XU per thread.
EX="$(dirname "$PMCFUSE")/examples"
omp_examples || exit 0

expect_ok "$PMCFUSE" record -e page-faults,context-switches -o l1.pmcf -- "$EX/listing11"
expect_ok "$PMCFUSE" record -e page-faults,context-switches -o l2.pmcf -- "$EX/listing11"
expect_ok "$PMCFUSE" export --format csv -o l1.csv l1.pmcf
expect_ok "$PMCFUSE" export --format csv -o l2.csv l2.pmcf
expect_eq 17 "$(wc -l <l1.csv)"
expect_eq "$(cut -d, -f4 l1.csv | sort)" "$(cut -d, -f4 l2.csv | sort)" "(labels differ between runs)"
expect_eq 16 "$(cut -d, -f4 l1.csv | tail -n +2 | sort -u | wc -l)"

expect_fail 2 "$PMCFUSE" record -e page-faults -o crash.pmcf -- "$EX/crash" segv 10
expect_match 'signal 11' "$ERR"
expect_match 'incomplete' "$ERR"
[ -f crash.pmcf ] || fail "no profile kept after the crash"
expect_ok "$PMCFUSE" export --format csv -o crash.csv crash.pmcf
expect_eq 11 "$(wc -l <crash.csv)"

# The run's CPU time (wait4's rusage, what perf stat -e task-clock counts)
# beside the XUs' task-clock: `loops` runs serial code between its loops, so
# the XUs hold less than the run; the sum is that of the exported values
expect_ok "$PMCFUSE" record -e task-clock -o loops.pmcf -- "$EX/loops"
expect_ok "$PMCFUSE" show --json loops.pmcf
run=$(jq -r '.meta.cpu_time_ns' <<<"$OUT")
expect_eq "$run" "$(jq -r .cpu_time.run <<<"$OUT")"
expect_eq task-clock "$(jq -r .cpu_time.event <<<"$OUT")"
in_xus=$(jq -r .cpu_time.in_xus <<<"$OUT")
expect_ok "$PMCFUSE" export --format csv -o loops.csv loops.pmcf
awk -F, -v s="$in_xus" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "task-clock") c = i }
	NR > 1 { t += $c } END { exit !(c && t > 0 && (t - s) ^ 2 < 1) }' loops.csv ||
	fail "cpu_time.in_xus $in_xus is not the sum of the XUs' task-clock"
awk -v a="$in_xus" -v r="$run" 'BEGIN { exit !(a > 0 && a < r) }' || fail "in XUs $in_xus, run $run"
ok
expect_ok "$PMCFUSE" show loops.pmcf
expect_match "cpu time  task-clock in XUs: .* of .*, the CPU time of the run under the collector \([0-9.]+ %\); the rest ran outside every XU" "$OUT"
expect_ok "$PMCFUSE" report -o loops.html loops.pmcf
expect_match '<th>CPU time in XUs</th><td>task-clock: .* of .*\([0-9.]+ %\)' "$(cat loops.html)"
# no task-clock or cpu-clock: no such line (the CPU time is in the metadata)
expect_ok "$PMCFUSE" record -e page-faults -o pf.pmcf -- "$EX/loops"
expect_ok "$PMCFUSE" show --json pf.pmcf
expect_eq false "$(jq 'has("cpu_time")' <<<"$OUT")"
expect_match '^[0-9]+$' "$(jq -r .meta.cpu_time_ns <<<"$OUT")"

expect_ok "$PMCFUSE" record -e page-faults -o plain.pmcf -- "$EX/plain" 3 4
expect_match 'one XU per thread' "$ERR"
expect_ok "$PMCFUSE" export --format csv -o plain.csv plain.pmcf
expect_eq 5 "$(wc -l <plain.csv)"

# Tasks created inside `single`: the labels do not depend on which thread won
# the single region (our improvement on fuse-openmp §4.1); PMCFUSE_LABELS=paper
# keeps the paper's TID rank, which does.
expect_ok "$PMCFUSE" record -e page-faults -o s0.pmcf -- "$EX/single" 0
expect_ok "$PMCFUSE" record -e page-faults -o s1.pmcf -- "$EX/single" 40
expect_ok "$PMCFUSE" export --format csv -o s0.csv s0.pmcf
expect_ok "$PMCFUSE" export --format csv -o s1.csv s1.pmcf
expect_eq "$(cut -d, -f4 s0.csv | sort)" "$(cut -d, -f4 s1.csv | sort)" "(labels depend on the single's winner)"
expect_eq 9 "$(wc -l <s0.csv)"
expect_ok env PMCFUSE_LABELS=paper "$PMCFUSE" record -e page-faults -o p1.pmcf -- "$EX/single" 40
if grep -q 'executed by thread 1' out.txt; then
	expect_ok "$PMCFUSE" export --format csv -o p1.csv p1.pmcf
	[ "$(cut -d, -f4 s0.csv | sort)" != "$(cut -d, -f4 p1.csv | sort)" ] || fail "paper labels ignore the TID"; ok
fi
