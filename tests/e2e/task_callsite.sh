# A task's type is its task-creating call site (docs/collector.md, "Types"):
# two task constructs in the arms of an if/else are two types at -O0, and
# at -O2 with -mllvm -enable-tail-merge=false, the remedy the docs give for
# clang merging the two calls into one (then one type, without a line).
CLANG=$(command -v clang-16 || true)
if [ -z "$CLANG" ] || ! omp_examples; then
	echo "SKIP: needs clang-16 and libomp (the OpenMP examples)"
	exit 0
fi
cat >twotask.c <<'C'
#include <stdio.h>
static double work(int n) { double s = 0; for (int i = 0; i < n; i++) s += i * 0.5; return s; }
int main(int argc, char **argv)
{
	double r[64] = {0};
	(void)argv;
	#pragma omp parallel
	#pragma omp single
	for (int i = 0; i < 64; i++) {
		if (i % 2 == argc % 2) {
			#pragma omp task firstprivate(i) shared(r)
			r[i] = work(1000 * i);
		} else {
			#pragma omp task firstprivate(i) shared(r)
			r[i] = work(2000 * i);
		}
	}
	double s = 0;
	for (int i = 0; i < 64; i++) s += r[i];
	printf("%g\n", s);
	return 0;
}
C
types() { # the type names of profile $1, sorted, one line
	"$PMCFUSE" show --json "$1" | jq -r '[.types[].name] | sort | join(" ")'
}
for v in "o0:-O0" "o2nt:-O2 -mllvm -enable-tail-merge=false"; do
	n=${v%%:*}
	# shellcheck disable=SC2086
	"$CLANG" -fopenmp -g ${v#*:} -o "$n" twotask.c || fail "cannot build twotask.c with ${v#*:}"
	expect_ok env OMP_NUM_THREADS=2 "$PMCFUSE" record -q -e task-clock -o "$n.pmcf" -- "./$n"
	expect_eq "work@twotask.c:11 work@twotask.c:14" "$(types "$n.pmcf")" "(${v#*:})"
done
# plain -O2: what the docs describe (one type) where this clang merges them
"$CLANG" -fopenmp -g -O2 -o o2 twotask.c || fail "cannot build twotask.c with -O2"
expect_ok env OMP_NUM_THREADS=2 "$PMCFUSE" record -q -e task-clock -o o2.pmcf -- ./o2
t=$(types o2.pmcf)
[ "$t" = "work@twotask.c:11 work@twotask.c:14" ] || [[ "$t" =~ ^task@ ]] || fail "-O2: unexpected types '$t'"
ok
echo "note: -O2 without the flag gives: $t"
