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
