# The README's five-minute tour, run as written (so that it stays true):
# every command of its sh block must succeed.
awk '/^## A five-minute tour/ {on = 1} on && /^```sh/ {inblock = 1; next} inblock && /^```/ {exit} inblock {print}' \
	"$SRCDIR/README.md" >tour.sh
[ "$(grep -c '\$P ' tour.sh)" -ge 10 ] || fail "the tour block was not found in README.md"; ok
# the tour runs from the repository root (build/pmcfuse, build/examples/...)
ln -s "$(dirname "$PMCFUSE")" build
sed -i 's|^P=build/pmcfuse$|P=build/pmcfuse; set -e|' tour.sh
EX="$(dirname "$PMCFUSE")/examples"
if [ ! -x "$EX/cholesky" ]; then
	command -v clang-16 >/dev/null && fail "clang-16 is installed but the examples were not built"
	echo "SKIP: OpenMP examples not built"; exit 0
fi
# the tour's set0.pmcf is one of several sets: record them all before combining
sed -i 's|^\$P record --plan plan.json --set 0 -o set0.pmcf.*$|for k in $(seq 0 $(( $(jq ".sets \| length" plan.json) - 1 ))); do $P record --plan plan.json --set $k -o set$k.pmcf; done|' tour.sh
expect_ok bash tour.sh
[ -s fused.pmcf ] && [ -s chol.csv ] && [ -s hem.pmcf ] || fail "the tour did not write its files"; ok
