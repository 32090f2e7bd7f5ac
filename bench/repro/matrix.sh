#!/usr/bin/env bash
# Issue 16's matrix: every default-size workload on the simulated xeon32 and
# xeon192, fused by bc, lgl, ctc and random (the floor a strategy must beat):
# EPD (floored formula, the default) against references with --repeat 3, and
# the truth summary (per event median relative error over the XUs whose value
# came from another execution than the base, missing = 1; median and p90 over
# events). Writes docs/results/matrix.csv and prints the ratios random/BC and
# LGL/BC. About 40 s per workload and machine on a 2-core VM (the references,
# ~200 executions of -e all, take most of it); MACHINES, WORKLOADS,
# STRATEGIES and REPEATS (fused profiles per strategy, seeds 1017, 2017, ...;
# column `seed`) change that: the references (--seed 7) are made once per
# workload and machine and serve every seed. Leaves the profiles in $WORK/mx-*.
source "$(dirname "$0")/common.sh"
REPEATS=${REPEATS:-1}
MACHINES=${MACHINES:-"xeon32 xeon192"}
WORKLOADS=${WORKLOADS:-"cholesky seidel kmeans loops,schedule=static loops,schedule=dynamic knapsack"}
STRATEGIES=${STRATEGIES:-"bc lgl ctc random oracle"}
MODEL=${MODEL:-}                  # e.g. ",model=v1"
out=${MATRIX_CSV:-$RESULTS/matrix.csv}
tmp=$out.tmp
echo "machine,workload,strategy,xus,makespan_s,epd,pairs_excluded,truth_median,truth_p90,truth_missing,seed,truth_mean" >"$tmp"
for m in $MACHINES; do
	for w in $WORKLOADS; do
		n=$(name_of "$w"); d=$WORK/mx-$m-$n; rm -rf "$d"; mkdir -p "$d"
		spec=$w,machine=$m$MODEL
		log "matrix $m $n: references (--repeat 3)"
		pm reference -e all --repeat 3 --seed 7 -o "$d/refs" --sim "$spec" >/dev/null
		ms=$(pm show --json "$d/refs/ref-000.pmcf" | jq -r '.meta.makespan_ns // empty')
		for s in $STRATEGIES; do
			for k in $(seq 1 "$REPEATS"); do
				seed=$((1000 * k + 17))
				pm run -e all --strategy "$s" --seed $seed -o "$d/$s-$k.pmcf" --sim "$spec" >/dev/null 2>&1
				e=$(pm epd --json "$d/$s-$k.pmcf" "$d/refs" | jq -r '"\(.epd),\(.pairs_excluded)"')
				t=$(pm truth --json "$d/$s-$k.pmcf" | jq -r '"\(.median_rel_error),\(.p90_rel_error),\(.share_missing)"')
				tmean=$(pm truth --json "$d/$s-$k.pmcf" | jq -r .mean_rel_error)
				xus=$(pm show --json "$d/$s-$k.pmcf" | jq .xus)
				echo "$m,$n,$s,$xus,$(awk -v n="${ms:-0}" 'BEGIN {printf "%.3f", n / 1e9}'),$e,$t,$seed,$tmean" >>"$tmp"
			done
		done
	done
done
mv "$tmp" "$out"
# ratios per machine and workload: median EPD over the seeds, random/BC and
# LGL/BC per seed (median, min..max) and worst case
"$(dirname "$0")/matrix_ratios.sh" "$out"
