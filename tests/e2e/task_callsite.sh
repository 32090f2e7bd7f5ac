# A task's type is its construct (docs/collector.md, "Types"): two task
# constructs in the arms of an if/else are two types at -O0, at -O2 with
# -mllvm -enable-tail-merge=false, and at plain -O2, where clang merges
# their two task-creating calls into one (issue 33: one type without a line
# before): the tool tells them apart by each task's entry routine. A task
# is named after its one call, else after its construct's enclosing
# function and location (never after an allocation it makes first); its
# first call is the type's callee.
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
# plain -O2: clang merges the two calls; still two types, at their pragmas
"$CLANG" -fopenmp -g -O2 -o o2 twotask.c || fail "cannot build twotask.c with -O2"
expect_ok env OMP_NUM_THREADS=2 "$PMCFUSE" record -q -e task-clock -o o2.pmcf -- ./o2
expect_eq "work@twotask.c:11 work@twotask.c:14" "$(types o2.pmcf)" "(-O2, merged task-creating call)"
# the merge did happen here (else this proves nothing): one call of the runtime
calls=$(objdump -d --no-show-raw-insn o2 | grep -c 'call.*<__kmpc_omp_task@plt>' || true)
echo "note: -O2 build has $calls call(s) of __kmpc_omp_task"
expect_eq work "$(sqlite3 o2.pmcf 'SELECT DISTINCT callee FROM xu_type')"

# a block that allocates first, then works: named by its construct
# (enclosing function and pragma), its first call (the allocation helper,
# a program function) is the callee only
cat >alloc.c <<'C'
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) static double *alloc_block(int n) { return calloc((size_t)n, sizeof(double)); }
__attribute__((noinline)) static double fill(double *b, int n) { double s = 0; for (int i = 0; i < n; i++) s += b[i] = i; return s; }
static double r[32];
__attribute__((noinline)) static void factor_blocks(int nb)
{
	for (int k = 0; k < nb; k++) {
		#pragma omp task firstprivate(k) shared(r)
		{
			double *b = alloc_block(1000 + k);
			r[k] = fill(b, 1000 + k);
			free(b);
		}
	}
	#pragma omp taskwait
}
int main(void)
{
	#pragma omp parallel
	#pragma omp single
	factor_blocks(32);
	printf("%g\n", r[31]);
	return 0;
}
C
for v in "a0:-O0" "a2:-O2"; do
	n=${v%%:*}
	# shellcheck disable=SC2086
	"$CLANG" -fopenmp -g ${v#*:} -o "$n" alloc.c || fail "cannot build alloc.c with ${v#*:}"
	expect_ok env OMP_NUM_THREADS=2 "$PMCFUSE" record -q -e task-clock -o "$n.pmcf" -- "./$n"
	expect_eq "factor_blocks@alloc.c:9" "$(types "$n.pmcf")" "(${v#*:})"
	expect_eq alloc_block "$(sqlite3 "$n.pmcf" 'SELECT callee FROM xu_type')" "(${v#*:})"
done
