#!/usr/bin/env bash
# fuse-task-parallel Fig. 13-15: Correlation Error of the profiles of
# fig11_12_epd.sh against EPD (run that first; its CSV and profiles are
# reused), and Fig. 15: one pair, PAPI_L1_DCM against PAPI_SR_INS on cholesky
# (xeon192), for LGL, BC and a reference execution, with the pair's TMD and
# its Correlation Error (|Spearman difference| to the references' median).
source "$(dirname "$0")/common.sh"
SUFFIX=${SUFFIX:-}             # "-v1": after fig11_12_epd.sh ran with SUFFIX=-v1 MODEL=",model=v1"
csv=$RESULTS/repro-fig11-12$SUFFIX.csv
[ -f "$csv" ] && [ -d "$WORK/epd-xeon192-cholesky" ] || "$(dirname "$0")/fig11_12_epd.sh" >/dev/null
# Fig. 13-14: CE against EPD, one point per machine, workload and strategy
for m in xeon32 xeon192; do
	awk -F, -v m=$m 'NR > 1 && $1 == m {print $3, $5, $8, $2}' "$csv" >"$WORK/ce-$m.dat"
done
gnuplot <<GP
set terminal pngcairo noenhanced size 1100,460 font 'sans,11'
set output '$RESULTS/repro-fig13-14$SUFFIX.png'
set multiplot layout 1,2 title 'Correlation Error against EPD (median over the profiles of each strategy and workload)'
set logscale x; set grid lc rgb '#dddddd'; set xlabel 'EPD (log)'; set ylabel 'Correlation Error'; set key bottom right
do for [m in "xeon32 xeon192"] {
  set title m
  plot for [s in "ctc lgl bc bc-unlabeled random hem"] '$WORK/ce-'.m.'.dat' using (strcol(1) eq s ? \$2 : NaN):3 with points pt 7 ps 1.2 title s
}
unset multiplot
GP
# Fig. 15: one pair in detail
d=$WORK/epd-xeon192-cholesky
A=PAPI_L1_DCM B=PAPI_SR_INS
out=$RESULTS/repro-fig15$SUFFIX.csv
echo "profile,tmd,spread,spearman,spearman_ref,pair_correrr" >"$out"
for s in lgl bc; do
	# shellcheck disable=SC2086
	t=$(pm epd ${EPD_ARGS:-} --json "$d/$s-1.pmcf" "$d/refs" | jq -r --arg a $A --arg b $B '.pairs[] | select(.events == [$a,$b] or .events == [$b,$a]) | "\(.tmd),\(.spread)"')
	c=$(pm correrr --json "$d/$s-1.pmcf" "$d/refs" | jq -r --arg a $A --arg b $B '.pairs[] | select(.events == [$a,$b] or .events == [$b,$a]) | "\(.target),\(.reference),\((.target - .reference) | fabs)"')
	echo "$s,$t,$c" >>"$out"
	pm export --format csv "$d/$s-1.pmcf" | awk -F, -v a=$A -v b=$B 'NR == 1 {for (i = 1; i <= NF; i++) c[$i] = i; next} {print $(c[a]), $(c[b])}' >"$WORK/f15-$s.dat"
done
ref=$(grep -l . "$d"/refs/*.pmcf | while read -r f; do pm show --json "$f" | jq -e --arg a $A --arg b $B '[.events[].name] | index($a) and index($b)' >/dev/null && { echo "$f"; break; }; done)
pm export --format csv "$ref" | awk -F, -v a=$A -v b=$B 'NR == 1 {for (i = 1; i <= NF; i++) c[$i] = i; next} {print $(c[a]), $(c[b])}' >"$WORK/f15-ref.dat"
tl=$(awk -F, '$1 == "lgl" {printf "TMD %.2f, CE %.3f", $2, $6}' "$out")
tb=$(awk -F, '$1 == "bc" {printf "TMD %.2f, CE %.3f", $2, $6}' "$out")
gnuplot <<GP
set terminal pngcairo noenhanced size 1500,480 font 'sans,11'
set output '$RESULTS/repro-fig15$SUFFIX.png'
set multiplot layout 1,3 title 'cholesky on xeon192: PAPI_L1_DCM against PAPI_SR_INS'
set logscale xy; set grid lc rgb '#dddddd'; set xlabel '$A'; set ylabel '$B'; unset key
set title '(a) LGL ($tl)'
plot '$WORK/f15-lgl.dat' with points pt 7 ps 0.5 lc rgb '#d62728'
set title '(b) BC ($tb)'
plot '$WORK/f15-bc.dat' with points pt 7 ps 0.5 lc rgb '#1f77b4'
set title '(c) reference $(basename "$ref")'
plot '$WORK/f15-ref.dat' with points pt 7 ps 0.5 lc rgb '#2ca02c'
unset multiplot
GP
column -s, -t "$out"
