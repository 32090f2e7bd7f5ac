# The collector on real-program patterns (issue 18): the same XU structure at
# any thread count (static loops of a team of one), task-API regions around
# OpenMP tasks (both recorded, nested in the label tree), and XU type names
# that are unique and come from the debug info.
EX="$(dirname "$PMCFUSE")/examples"
omp_examples || exit 0

# `types` prints "NAME COUNT" per XU type of a profile
types() { "$PMCFUSE" export --format csv "$1" | tail -n +2 | cut -d, -f3 | sort | uniq -c | awk '{print $2, $1}'; }

# 1. Static loops at OMP_NUM_THREADS=1: one range per loop instance (libomp
#    sends no dispatch for a team of one), the same types as at 2 threads,
#    and the range labels of thread 0 are those of the 2-thread run.
expect_ok env OMP_NUM_THREADS=1 "$PMCFUSE" record -e page-faults -o one.pmcf -- "$EX/loops" 4096 3 512
expect_ok env OMP_NUM_THREADS=2 "$PMCFUSE" record -e page-faults -o two.pmcf -- "$EX/loops" 4096 3 512
expect_eq "$(types one.pmcf | cut -d' ' -f1)" "$(types two.pmcf | cut -d' ' -f1)" "(types differ between 1 and 2 threads)"
expect_eq "loop-range@loops.c:18 1" "$(types one.pmcf | grep ':18 ')"
expect_eq "loop-range@loops.c:24 3" "$(types one.pmcf | grep ':24 ')"
expect_eq "loop-range@loops.c:24 6" "$(types two.pmcf | grep ':24 ')"
"$PMCFUSE" export --format csv one.pmcf | grep loop-range | cut -d, -f4 | sort >one.lab
"$PMCFUSE" export --format csv two.pmcf | grep loop-range | cut -d, -f4 | sort >two.lab
expect_eq "" "$(comm -23 one.lab two.lab)" "(1-thread range labels not among the 2-thread ones)"
# an orphaned/serialized team: a parallel region of one thread
expect_ok env OMP_NUM_THREADS=2 OMP_MAX_ACTIVE_LEVELS=1 "$PMCFUSE" record -e page-faults -o ser.pmcf -- env OMP_NUM_THREADS=1 "$EX/loops" 4096 1 512
expect_eq "loop-range@loops.c:24 1" "$(types ser.pmcf | grep ':24 ')"

# 1b. Taskloops: libomp gives every taskloop's tasks one address inside
#     __kmpc_taskloop; each taskloop is still a type of its own, named by its
#     line in the program (grainsize 4 over 64: 16 tasks, 17 on one thread,
#     where libomp adds one (the same without this tool); num_tasks(5): 5; a
#     taskloop of 2 tasks in each of 3 tasks: 6), on 1 and 2 threads.
if [ -x "$EX/taskloop" ]; then
	for th in 1 2; do
		expect_ok env OMP_NUM_THREADS=$th "$PMCFUSE" record -e page-faults -o tl$th.pmcf -- "$EX/taskloop" 64
		expect_nomatch '__kmpc' "$(types tl$th.pmcf)"
		got=$(for l in 32 35 21; do types tl$th.pmcf | grep "@taskloop.c:$l " | cut -d' ' -f2; done | xargs)
		expect_match '^1[67] 5 6$' "$got"
	done
else
	echo "skip: taskloop types: examples/taskloop not built (needs clang-16 and libomp-16)"
fi

# 2. Task-API regions around a parallel region with tasks: every phase and
#    every task is an XU, tasks are labelled under their phase, and a phase
#    excludes the time of the tasks that ran on its thread.
if [ -x "$EX/regions" ]; then
	expect_ok env OMP_NUM_THREADS=2 "$PMCFUSE" record -e page-faults -o rg.pmcf -- "$EX/regions" 3 6 8
	expect_eq "phase 3" "$(types rg.pmcf | grep '^phase ')"
	expect_eq 18 "$("$PMCFUSE" export --format csv rg.pmcf | tail -n +2 | grep -vc ',phase,')"
	"$PMCFUSE" export --format csv rg.pmcf | tail -n +2 >rg.csv
	for ph in $(grep ',phase,' rg.csv | cut -d, -f4); do
		expect_eq 6 "$(cut -d, -f4 rg.csv | grep -c "^$ph\.")" "(tasks of phase $ph not labelled under it)"
	done
	# a phase's duration is at most its span, and the tasks on its thread are excluded
	awk -F, '$3=="phase" && $10 > $9 - $8 {bad=1} END {exit bad}' rg.csv || fail "a phase lasts longer than its span"; ok
	expect_ok env OMP_NUM_THREADS=1 "$PMCFUSE" record -e page-faults -o rg1.pmcf -- "$EX/regions" 3 6 8
	expect_eq "$(grep ',phase,' rg.csv | cut -d, -f4)" "$("$PMCFUSE" export --format csv rg1.pmcf | grep ',phase,' | cut -d, -f4)" "(region labels depend on the thread count)"
	expect_eq "$(types rg.pmcf)" "$(types rg1.pmcf)" "(XU types or counts depend on the thread count)"
	# phase time excludes the tasks that ran on its thread: at one thread all do
	awk -F, '$3=="phase" {p+=$10; s+=$9-$8} END {exit !(p < s)}' <("$PMCFUSE" export --format csv rg1.pmcf | tail -n +2) || fail "the phases include their tasks' time"; ok
else
	echo "SKIP (task-API regions with OpenMP): examples/regions is not built in sanitizer builds"
fi

# 3/4. Type names: two constructs whose block is one call of solve() get
#      distinct names with their lines; the blocks that allocate, call and
#      free are named by their construct (enclosing function solve, pragma
#      line: issue 33, not after their first call), their first program
#      call (solve, leaf; not malloc) being the type's callee; the names
#      come from the debug info, so they hold with the source file removed;
#      without debug info, the enclosing function.
names() { "$PMCFUSE" export --format csv "$1" | tail -n +2 | cut -d, -f3 | sort -u | tr '\n' ' '; }
want="solve@samecall.c:27 solve@samecall.c:29 solve@samecall.c:32 solve@samecall.c:42 "
expect_ok env OMP_NUM_THREADS=2 "$PMCFUSE" record -e page-faults -o sc.pmcf -- "$EX/samecall" 4
expect_eq "$want" "$(names sc.pmcf)"
expect_eq "solve solve solve leaf" "$(sqlite3 sc.pmcf 'SELECT callee FROM xu_type ORDER BY location' | tr '\n' ' ' | sed 's/ $//')"
expect_ok "$PMCFUSE" show sc.pmcf
expect_eq 4 "$(grep -c ' task  ' <<<"$OUT")" "(show lists the types)"
CLANG=$(command -v clang-16 || true)
if [ -z "$CLANG" ]; then
	echo "SKIP (names without the source): clang-16 not installed"
else
	mkdir -p moved && cp "$SRCDIR/examples/samecall.c" moved/
	(cd moved && "$CLANG" -fopenmp -g -O2 -o sc2 samecall.c && "$CLANG" -fopenmp -g -O0 -o sc0 samecall.c &&
		"$CLANG" -fopenmp -O2 -o scn samecall.c) || fail "cannot build samecall.c"
	# -O0 has no call sites in its debug info: the source is read (a block,
	# not 4 lines: the call after the allocation is found)
	expect_ok env OMP_NUM_THREADS=2 "$PMCFUSE" record -e page-faults -o o0.pmcf -- moved/sc0 4
	expect_eq "$want" "$(names o0.pmcf)"
	rm moved/samecall.c
	expect_ok env OMP_NUM_THREADS=2 "$PMCFUSE" record -e page-faults -o nosrc.pmcf -- moved/sc2 4
	expect_eq "$want" "$(names nosrc.pmcf)" "(names need the source file)"
	expect_ok env OMP_NUM_THREADS=2 "$PMCFUSE" record -e page-faults -o nodbg.pmcf -- moved/scn 4
	expect_eq 4 "$(names nodbg.pmcf | wc -w)" "(types merged without debug info)"
	expect_match '^(task@solve\+0x[0-9a-f]+ ){4}$' "$(names nodbg.pmcf)"
fi
