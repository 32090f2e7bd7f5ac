# `pmcfuse categorize --backend cachegrind` end to end: the micro-benchmarks
# under valgrind's simulated caches and branch predictor put Bc in CR, Bcm in
# M, D1mr in L1D-miss, DLmr in LL-miss and Ir in no category; plus the errors.
# Slow (about a minute on 2 cores): valgrind runs ~60 kernel processes.

command -v valgrind >/dev/null || { echo "skip: valgrind missing"; exit 0; }

expect_ok "$PMCFUSE" categorize --backend cachegrind -o cg.csv
[ -s cg.csv ] || fail "no cg.csv"
ok
head -1 cg.csv | grep -q '^event,category,confidence,' || fail "bad header: $(head -1 cg.csv)"
ok
expect_match 'slope_a,slope_b,slope_c,slope_d,slope_e,slope_f,slope_g' "$(head -1 cg.csv)"
cat_of() { awk -F, -v e="$1" '$1==e {print $2}' cg.csv; }
expect_eq CR "$(cat_of Bc)" "(Bc)"
expect_eq M "$(cat_of Bcm)" "(Bcm)"
expect_eq L1D-miss "$(cat_of D1mr)" "(D1mr)"
expect_eq LL-miss "$(cat_of DLmr)" "(DLmr)"
expect_eq none "$(cat_of Ir)" "(Ir)"
expect_eq none "$(awk -F, '$1=="Ir" {print $4}' cg.csv)" "(Ir branch category)"
# every cachegrind event has a row
expect_eq 13 "$(tail -n +2 cg.csv | wc -l | tr -d ' ')"

# JSON by extension, a chosen event list, branch sweep only
expect_ok "$PMCFUSE" categorize --backend cachegrind -e Bc,Bcm,Ir --no-cache --points 3 -o cg.json
expect_eq CR "$(json '.events[] | select(.event=="Bc") | .category' cg.json)"
expect_eq M "$(json '.events[] | select(.event=="Bcm") | .category' cg.json)"
expect_eq none "$(json '.events[] | select(.event=="Ir") | .branch.category' cg.json)"
expect_eq 7 "$(json '.events[0].branch.kernels | length' cg.json)"
expect_eq 3 "$(json '.iterations | length' cg.json)"

# errors: one line, the right status, nothing left at the output path
expect_fail 1 "$PMCFUSE" categorize --backend cachegrind -e Bcc -o bad.csv
expect_match 'Bc' "$ERR"
[ ! -e bad.csv ] || fail "bad.csv left behind"
ok
expect_fail 1 "$PMCFUSE" categorize --backend oprofile -o bad.csv
expect_fail 1 "$PMCFUSE" categorize --backend cachegrind
expect_fail 1 "$PMCFUSE" categorize --backend cachegrind --unit 12 -o bad.csv
expect_fail 2 env PMCF_CATEGORIZE_KERNELS=/nonexistent "$PMCFUSE" categorize --backend cachegrind -o bad.csv
expect_match 'pmcfuse-categorize-kernels|PMCF_CATEGORIZE_KERNELS' "$ERR"
if perf stat -e instructions true 2>&1 | grep -q 'not supported' || ! command -v perf >/dev/null; then
	expect_fail 2 "$PMCFUSE" categorize -o bad.csv
	expect_match "no hardware PMU: use PMCF_CATEGORIZE_CACHEGRIND \\(the command's --backend cachegrind\\)" "$ERR"
fi
expect_ok "$PMCFUSE" categorize --help
expect_match 'cachegrind' "$OUT"

# plots, when gnuplot is there
if command -v gnuplot >/dev/null; then
	expect_ok "$PMCFUSE" categorize --backend cachegrind -e Bc,D1mr --points 2 --max-bytes 65536 --plot plots -o small.csv
	[ -s plots/branch.png ] && [ -s plots/cache.png ] && [ -s plots/plots.gp ] || fail "plots missing"
	ok
fi
