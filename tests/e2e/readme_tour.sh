# The README's five-minute tour, run as written (so that it stays true):
# every command of its sh block must succeed.
awk '/^## A five-minute tour/ {on = 1} on && /^```sh/ {inblock = 1; next} inblock && /^```/ {exit} inblock {print}' \
	"$SRCDIR/README.md" >tour.sh
[ "$(grep -c '\$P ' tour.sh)" -ge 10 ] || fail "the tour block was not found in README.md"; ok
# the tour runs from the repository root (build/pmcfuse, build/examples/...)
ln -s "$(dirname "$PMCFUSE")" build
sed -i 's|^P=build/pmcfuse$|P=build/pmcfuse; set -e|' tour.sh
EX="$(dirname "$PMCFUSE")/examples"
real=1
if ! omp_examples; then
	# the simulated half of the tour still runs: drop the real program's lines
	real=0
	sed -i '/^\$P run -e page-faults/,/build\/examples/d; /chol\./d' tour.sh
	[ "$(grep -c 'build/examples' tour.sh)" -eq 0 ] || fail "real-program lines left in the tour"; ok
fi
# where tracepoints cannot be counted, the same tour with cpu-clock in their place
tracepoints_usable || sed -i 's/sched:sched_switch/cpu-clock/g' tour.sh
# the plan's sets are recorded as written (every one, then combined)
grep -q '^for k in .*record --plan plan.json --set \$k' tour.sh || fail "the tour records no loop over the plan's sets"; ok
expect_ok bash tour.sh
[ -s fused.pmcf ] && [ -s hem.pmcf ] || fail "the tour did not write its files"; ok
[ "$real" -eq 0 ] || [ -s chol.csv ] || fail "the tour did not write chol.csv"; ok
