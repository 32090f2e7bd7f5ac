#!/usr/bin/env bash
# fuse-task-parallel Fig. 6/7: two executions count the aliased pair
# PAPI_L1_DCM / PAPI_L2_DCA (one native event) separately, with three
# overlapping events for BC; LGL and BC fuse them; the TMD of the pair
# against 5 reference executions that count both at once says which fusion
# keeps the ideal y = x relation; random pairing within each task type is the
# floor, the oracle (pairing by the truth) the ceiling. Simulated cholesky on xeon32 (paper:
# cholesky_b8, 8080 tasks, real Xeon-32) and, for more variability, xeon192.
source "$(dirname "$0")/common.sh"
BLOCKS=${BLOCKS:-20}            # 1,540 tasks (the paper: 8080; small for speed)
OVERLAP=PAPI_L1_ICM,PAPI_TOT_INS,PAPI_L2_DCR
MODEL=${MODEL:-}                # ",model=v1" with SUFFIX=-v1: the model-v1 measurement
SUFFIX=${SUFFIX:-}
out=$RESULTS/repro-fig06$SUFFIX.csv
echo "machine,strategy,tmd,spread,xus" >"$out"
for m in xeon32 xeon192; do
	d=$WORK/fig06-$m; rm -rf "$d"; mkdir -p "$d"
	spec=cholesky,blocks=$BLOCKS,machine=$m$MODEL
	log "fig06 $m: two executions, 5 references"
	pm record --sim "$spec,seed=101" -e PAPI_L1_DCM,$OVERLAP -o "$d/e1.pmcf" >/dev/null
	pm record --sim "$spec,seed=202" -e PAPI_L2_DCA,$OVERLAP -o "$d/e2.pmcf" >/dev/null
	pm reference -e PAPI_L1_DCM,PAPI_L2_DCA --repeat 5 --seed 11 -o "$d/refs" --sim "$spec" >/dev/null
	for s in lgl bc random oracle; do
		pm combine --strategy "$s" -o "$d/$s.pmcf" "$d/e1.pmcf" "$d/e2.pmcf" >/dev/null
		pm epd --json "$d/$s.pmcf" "$d/refs" >"$d/$s.epd.json"
		t=$(jq -r '.pairs[] | select(.events == ["PAPI_L1_DCM","PAPI_L2_DCA"] or .events == ["PAPI_L2_DCA","PAPI_L1_DCM"]) | "\(.tmd),\(.spread)"' "$d/$s.epd.json")
		echo "$m,$s,$t,$(pm show --json "$d/$s.pmcf" | jq .xus)" >>"$out"
		pm export --format csv "$d/$s.pmcf" | awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) c[$i] = i; next} {print $(c["PAPI_L1_DCM"]), $(c["PAPI_L2_DCA"])}' >"$d/$s.dat"
	done
	pm export --format csv "$(ls "$d"/refs/*.pmcf | head -n1)" | awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) c[$i] = i; next} {print $(c["PAPI_L1_DCM"]), $(c["PAPI_L2_DCA"])}' >"$d/ref.dat"
	tl=$(awk -F, -v m=$m '$1 == m && $2 == "lgl" {printf "%.2f ± %.2f", $3, $4}' "$out")
	tb=$(awk -F, -v m=$m '$1 == m && $2 == "bc" {printf "%.2f ± %.2f", $3, $4}' "$out")
	tr=$(awk -F, -v m=$m '$1 == m && $2 == "random" {printf "%.2f ± %.2f", $3, $4}' "$out")
	r=$(cat "$d"/ref.dat "$d"/lgl.dat "$d"/bc.dat "$d"/random.dat | awk 'NR == 1 {lo = $1; hi = $1} {for (i = 1; i <= 2; i++) {if ($i > 0 && $i < lo) lo = $i; if ($i > hi) hi = $i}} END {printf "%g:%g", lo / 1.2, hi * 1.2}')
	gnuplot <<GP
set terminal pngcairo noenhanced size 1800,480 font 'sans,11'
set output '$RESULTS/repro-fig06$SUFFIX-$m.png'
set multiplot layout 1,4 title 'cholesky blocks=$BLOCKS on $m$MODEL: PAPI_L1_DCM and PAPI_L2_DCA (the same native event) counted in different executions'
set logscale xy; set grid lc rgb '#dddddd'; set xlabel 'PAPI_L1_DCM'; set ylabel 'PAPI_L2_DCA'; unset key
set xrange [$r]; set yrange [$r]
set title '(a) reference: both counted together'
plot '$d/ref.dat' using 1:2 with points pt 7 ps 0.4 lc rgb '#2ca02c', x with lines dt 2 lc rgb '#555555'
set title '(b) LGL (TMD $tl)'
plot '$d/lgl.dat' using 1:2 with points pt 7 ps 0.4 lc rgb '#d62728', x with lines dt 2 lc rgb '#555555'
set title '(c) BC (TMD $tb)'
plot '$d/bc.dat' using 1:2 with points pt 7 ps 0.4 lc rgb '#1f77b4', x with lines dt 2 lc rgb '#555555'
set title '(d) random pairing (TMD $tr)'
plot '$d/random.dat' using 1:2 with points pt 7 ps 0.4 lc rgb '#ff7f0e', x with lines dt 2 lc rgb '#555555'
unset multiplot
GP
done
column -s, -t "$out"
