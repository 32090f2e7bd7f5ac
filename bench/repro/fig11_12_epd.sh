#!/usr/bin/env bash
# fuse-task-parallel Fig. 11-12 and fuse-openmp Fig. 3: EPD of profiles of
# all 33 PAPI events made by CTC, LGL, BC, BC (unlabeled), random pairing (the
# floor every strategy must beat) and by HEM (kernel multiplexing), per
# workload, on the simulated xeon32 and xeon192, with the truth summary of
# each fused profile. The calibration EPD is 1 by definition. Default-size
# workloads on the default value model (v2): about 3.5 min per workload and
# machine at REPEATS=2 on a loaded 2-core VM (epd and correrr against the
# ~200 references take most of it); WORKLOADS,
# REPEATS, REF_REPEATS change that. MODEL=",model=v1" EPD_ARGS="--formula
# paper" SUFFIX=-v1 and the v1 page's small WORKLOADS reproduce the model-v1
# measurement (docs/results/repro-fig11-12.md).
# Leaves the profiles in $WORK/epd-* for fig13_15_correrr.sh.
source "$(dirname "$0")/common.sh"
REPEATS=${REPEATS:-3}          # fused profiles per strategy (paper: 30 on Xeon-32, 3 on Xeon-192)
REF_REPEATS=${REF_REPEATS:-3}  # reference repeats per pair (paper: 5 on Xeon-32, 3 on Xeon-192)
WORKLOADS=${WORKLOADS:-"cholesky seidel kmeans loops,schedule=static loops,schedule=dynamic"}
STRATEGIES=${STRATEGIES:-"ctc lgl bc bc-unlabeled random oracle hem"}
MODEL=${MODEL:-}               # e.g. ",model=v1"
EPD_ARGS=${EPD_ARGS:-}         # e.g. "--formula paper" (the v1 page)
SUFFIX=${SUFFIX:-}             # e.g. "-v1": repro-fig11-12-v1.csv/png
out=$RESULTS/repro-fig11-12$SUFFIX.csv
tmp=$out.tmp
echo "machine,workload,strategy,xus,epd_median,epd_min,epd_max,correrr_median,correrr_min,correrr_max,truth_median,truth_p90,truth_missing,truth_mean" >"$tmp"
name_of() { # cholesky,blocks=14 -> cholesky; loops,schedule=static,... -> loops-static
	local w=${1%%,*}
	[ "$w" = loops ] && w=loops-$(printf '%s' "$1" | sed 's/.*schedule=\([a-z]*\).*/\1/')
	printf '%s' "$w"
}
for m in xeon32 xeon192; do
	period=4; [ $m = xeon32 ] && period=1   # paper: 0.1 ms on Xeon-32 (we take the shortest whole ms), 4 ms on Xeon-192
	for w in $WORKLOADS; do
		n=$(name_of "$w"); d=$WORK/epd-$m-$n; rm -rf "$d"; mkdir -p "$d"
		spec=$w,machine=$m$MODEL
		log "fig11-12 $m $n: references ($REF_REPEATS repeats)"
		pm reference -e all --repeat "$REF_REPEATS" --seed 7 -o "$d/refs" --sim "$spec" >/dev/null
		for s in $STRATEGIES; do
			for k in $(seq 1 "$REPEATS"); do
				seed=$((1000 * k + 17))
				if [ $s = hem ]; then
					pm record -e all --multiplex kernel --period-ms $period -o "$d/$s-$k.pmcf" --sim "$spec,seed=$seed" >/dev/null
				else
					pm run -e all --strategy $s --seed $seed -o "$d/$s-$k.pmcf" --sim "$spec" >/dev/null 2>&1
				fi
				# shellcheck disable=SC2086
				pm epd $EPD_ARGS --json "$d/$s-$k.pmcf" "$d/refs" | jq .epd >>"$d/$s.epd"
				pm correrr --json "$d/$s-$k.pmcf" "$d/refs" | jq .correrr >>"$d/$s.ce"
				t=$(pm truth --json "$d/$s-$k.pmcf" 2>/dev/null | jq -r '"\(.median_rel_error) \(.p90_rel_error) \(.share_missing) \(.mean_rel_error)"') || t="nan nan nan nan"
				echo "$t" >>"$d/$s.truth"
			done
			xus=$(pm show --json "$d/$s-1.pmcf" | jq .xus)
			tm=$(for c in 1 2 3 4; do awk -v c=$c '{print $c}' "$d/$s.truth" | stats3 | cut -d' ' -f1; done | paste -sd,)
			echo "$m,$n,$s,$xus,$(stats3 <"$d/$s.epd" | tr ' ' ,),$(stats3 <"$d/$s.ce" | tr ' ' ,),$tm" >>"$tmp"
		done
	done
	# one grouped bar chart per machine: median EPD, error bars min..max, log scale
	awk -F, -v m=$m 'NR > 1 && $1 == m' "$tmp" >"$WORK/epd-$m.csv"
	gnuplot <<GP
set terminal pngcairo noenhanced size 1100,460 font 'sans,11'
set output '$RESULTS/repro-fig11-12$SUFFIX-$m.png'
set title 'EPD of all 33 events on simulated $m$MODEL (median of $REPEATS profiles, bars min..max; calibration = 1)'
set datafile separator ','
set logscale y; set yrange [0.5:*]; set grid ytics lc rgb '#dddddd'
set style data histograms; set style histogram errorbars gap 2 lw 1; set style fill solid 0.85 noborder
set key top left horizontal; set ylabel 'EPD (log)'
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb '#555555'
files = "ctc lgl bc bc-unlabeled random oracle hem"
cols = "#9467bd #d62728 #1f77b4 #17becf #ff7f0e #2ca02c #7f7f7f"
plot for [i=1:7] '< grep ",'.word(files,i).'," $WORK/epd-$m.csv' using 5:6:7:xtic(2) title word(files,i) lc rgb word(cols,i)
GP
done
mv "$tmp" "$out"
column -s, -t "$out"
