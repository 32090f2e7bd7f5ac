#!/usr/bin/env bash
# fuse-task-parallel Fig. 13-15: Correlation Error of the profiles of
# fig11_12_epd.sh against EPD (run that first; its CSV and profiles are
# reused), and Fig. 15: one pair in detail for LGL, BC and a reference
# execution, with the pair's TMD and its Correlation Error (|Spearman
# difference| to the references' median). The pair is fig15_search.sh's first
# candidate: the clearest blind spot (LGL's TMD far above BC's, LGL's
# Correlation Error below BC's) or, with none, the closest pair; or
# FIG15_PAIR="machine workload EVENT_A EVENT_B".
# PROFILES: where the profiles are ($WORK/epd, fig11_12_epd.sh's; $WORK/mx
# for matrix.sh's, the same commands and seeds).
source "$(dirname "$0")/common.sh"
SUFFIX=${SUFFIX:-}             # "-v1": after fig11_12_epd.sh ran with SUFFIX=-v1 MODEL=",model=v1"
PROFILES=${PROFILES:-$WORK/epd}
csv=$RESULTS/repro-fig11-12$SUFFIX.csv
[ -f "$csv" ] && [ -d "$PROFILES-xeon192-cholesky" ] || { PROFILES=$WORK/epd; "$(dirname "$0")/fig11_12_epd.sh" >/dev/null; }
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
if [ -z "${FIG15_PAIR:-}" ]; then
	# the clearest blind spot, or with none the closest pair
	FIG15_PAIR=$(PROFILES=$PROFILES TOP=1 SEARCH_CSV=$RESULTS/repro-fig15-search$SUFFIX.csv "$(dirname "$0")/fig15_search.sh" | tail -n 1 | awk 'NF == 8 && $5 ~ /\// {print $1, $2, $3, $4}')
	[ -n "$FIG15_PAIR" ] || { echo "fig13_15: fig15_search.sh found no pair" >&2; exit 2; }
fi
read -r M W A B <<<"$FIG15_PAIR"
d=$PROFILES-$M-$W
out=$RESULTS/repro-fig15$SUFFIX.csv
echo "machine,workload,event_a,event_b,profile,tmd,spread,spearman,spearman_ref,pair_correrr" >"$out"
for s in lgl bc; do
	if [ -s "$d/$s-1.pairs" ]; then   # fig15_search.sh's cache: "A B tmd spread spearman spearman_ref"
		read -r t c < <(awk -v a=$A -v b=$B '($1 == a && $2 == b) || ($1 == b && $2 == a) {d = $5 - $6; printf "%s,%s %s,%s,%.17g\n", $3, $4, $5, $6, d < 0 ? -d : d}' "$d/$s-1.pairs")
	else
		# shellcheck disable=SC2086
		t=$(pm epd ${EPD_ARGS:-} --json "$d/$s-1.pmcf" "$d/refs" | jq -r --arg a $A --arg b $B '.pairs[] | select(.events == [$a,$b] or .events == [$b,$a]) | "\(.tmd),\(.spread)"')
		c=$(pm correrr --json "$d/$s-1.pmcf" "$d/refs" | jq -r --arg a $A --arg b $B '.pairs[] | select(.events == [$a,$b] or .events == [$b,$a]) | "\(.target),\(.reference),\((.target - .reference) | fabs)"')
	fi
	[ -n "$t" ] && [ -n "$c" ] || { echo "fig13_15: pair $A $B not scored in $d/$s-1" >&2; exit 2; }
	echo "$M,$W,$A,$B,$s,$t,$c" >>"$out"
	pm export --format csv "$d/$s-1.pmcf" | awk -F, -v a=$A -v b=$B 'NR == 1 {for (i = 1; i <= NF; i++) c[$i] = i; next} {print $(c[a]), $(c[b])}' >"$WORK/f15-$s.dat"
done
ref=$(grep -l . "$d"/refs/*.pmcf | while read -r f; do pm show --json "$f" | jq -e --arg a $A --arg b $B '[.events[].name] | index($a) and index($b)' >/dev/null && { echo "$f"; break; }; done)
pm export --format csv "$ref" | awk -F, -v a=$A -v b=$B 'NR == 1 {for (i = 1; i <= NF; i++) c[$i] = i; next} {print $(c[a]), $(c[b])}' >"$WORK/f15-ref.dat"
tl=$(awk -F, '$5 == "lgl" {printf "TMD %.2f, CE %.3f", $6, $10}' "$out")
tb=$(awk -F, '$5 == "bc" {printf "TMD %.2f, CE %.3f", $6, $10}' "$out")
gnuplot <<GP
set terminal pngcairo noenhanced size 1500,480 font 'sans,11'
set output '$RESULTS/repro-fig15$SUFFIX.png'
set multiplot layout 1,3 title '$W on $M: $A against $B'
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
