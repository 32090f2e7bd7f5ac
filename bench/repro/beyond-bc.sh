#!/usr/bin/env bash
# Issue 21 (a combination that beats BC): every default-size workload on the
# simulated xeon32 and xeon192; per seed one campaign of executions (`run -e
# all --strategy bc --keep`, bc's plan: the linking events in every set), then
# every strategy fuses THE SAME executions (`combine`), so the strategies differ
# only in the pairing. Per fused profile: the truth summary (per event median
# relative error over values from other executions, missing = 1; median and
# p90 over events), EPD and Correlation Error against references (--repeat 3,
# seed 7, shared by every strategy), the executions used, and the combine's
# wall time (`combine --threads 1`, and bc with its default threads).
# Writes docs/results/beyond-bc.csv and docs/results/beyond-bc.svg.
# SEEDS (default 5: seeds 1017, 2017, ...), MACHINES, WORKLOADS, STRATEGIES
# (a strategy NAME+iK is `--strategy NAME --impute K`, e.g. bc+i5; NAME+rK
# is `--strategy NAME --impute K --impute-mode rank`, e.g. bc+r9);
# EVAL=truth skips the references, EPD and Correlation Error (the slow part:
# each epd/correrr against ~200 references takes about a minute on the 2-core
# VM; truth and the combines take seconds).
# Profiles stay in $WORK/bb-*; existing references and campaigns are reused
# (REUSE=0 to record them again). BB_FROM_CSV=FILE only redoes the summary
# and the plot from a CSV of an earlier run. BB_CSV / BB_SVG: other output
# files (default docs/results/beyond-bc.csv / .svg).
source "$(dirname "$0")/common.sh"
SEEDS=${SEEDS:-5}
MACHINES=${MACHINES:-"xeon32 xeon192"}
WORKLOADS=${WORKLOADS:-"cholesky seidel kmeans loops,schedule=static loops,schedule=dynamic knapsack"}
STRATEGIES=${STRATEGIES:-"bc lgl random match"}
REUSE=${REUSE:-1}
EVAL=${EVAL:-all}
out=${BB_CSV:-$RESULTS/beyond-bc.csv}
svg=${BB_SVG:-$RESULTS/beyond-bc.svg}
tmp=$WORK/beyond-bc.csv.tmp
echo "machine,workload,strategy,seed,executions,xus,truth_median,truth_p90,truth_missing,epd,correrr,combine_s,combine_threads" >"$tmp"
name_of() { # loops,schedule=static -> loops-static
	local w=${1%%,*}
	[ "$w" = loops ] && w=loops-$(printf '%s' "$1" | sed 's/.*schedule=\([a-z]*\).*/\1/')
	printf '%s' "$w"
}
secs() { # wall seconds of a command (its output discarded)
	local t0 t1
	t0=$(date +%s.%N); "$@" >/dev/null; t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}'
}
[ -n "${BB_FROM_CSV:-}" ] && MACHINES_RUN= || MACHINES_RUN=$MACHINES
for m in $MACHINES_RUN; do
	for w in $WORKLOADS; do
		n=$(name_of "$w"); d=$WORK/bb-$m-$n; mkdir -p "$d"
		spec=$w,machine=$m
		if [ "$EVAL" = all ] && { [ "$REUSE" = 0 ] || [ ! -f "$d/refs.done" ]; }; then
			log "beyond-bc $m $n: references (--repeat 3)"
			rm -rf "$d/refs"
			pm reference -e all --repeat 3 --seed 7 -o "$d/refs" --sim "$spec" >/dev/null
			touch "$d/refs.done"
		fi
		for k in $(seq 1 "$SEEDS"); do
			seed=$((1000 * k + 17)); ex=$d/exec-$k
			if [ "$REUSE" = 0 ] || [ ! -f "$ex.done" ]; then
				log "beyond-bc $m $n: executions, seed $seed"
				rm -rf "$ex"
				pm run -e all --strategy bc --seed $seed --keep "$ex" -o "$d/run-$k.pmcf" --sim "$spec" >/dev/null
				touch "$ex.done"
			fi
			nexec=$(ls "$ex"/exec-*.pmcf | wc -l)
			for s in $STRATEGIES; do
				f=$d/$s-$k.pmcf
				thr=1
				imp=() # NAME+iK: --impute K; NAME+rK: --impute K --impute-mode rank
				case $s in
				*+i*) imp=(--impute "${s##*+i}") ;;
				*+r*) imp=(--impute "${s##*+r}" --impute-mode rank) ;;
				esac
				t=$(secs pm combine -q --strategy "${s%%+*}" "${imp[@]}" --seed $seed --threads 1 -o "$f" "$ex"/exec-*.pmcf)
				if [ "$s" = bc ]; then # bc with its default threads too
					t2=$(secs pm combine -q --strategy bc -o "$f" "$ex"/exec-*.pmcf)
					echo "$m,$n,bc-threads,$k,$nexec,,,,,,,$t2,default" >>"$tmp"
				fi
				tr=$(pm truth --json "$f" | jq -r '"\(.median_rel_error),\(.p90_rel_error),\(.share_missing)"')
				e=; ce=
				if [ "$EVAL" = all ]; then
					e=$(pm epd --json "$f" "$d/refs" | jq -r .epd)
					ce=$(pm correrr --json "$f" "$d/refs" | jq -r .correrr)
				fi
				xus=$(pm show --json "$f" | jq .xus)
				echo "$m,$n,$s,$k,$nexec,$xus,$tr,$e,$ce,$t,$thr" >>"$tmp"
			done
		done
	done
done
[ -n "${BB_FROM_CSV:-}" ] && cp "$BB_FROM_CSV" "$tmp"
mv "$tmp" "$out"
# per machine, workload and strategy: medians over the seeds; ratios to bc
summary=$WORK/bb-summary.txt
awk -F, 'NR > 1 && $3 != "bc-threads" {k = $1 "," $2 "," $3; n[k]++; tm[k, n[k]] = $7; ep[k, n[k]] = $10; ce[k, n[k]] = $11; ti[k, n[k]] = $12; keys[k] = 1}
	function med(a, k, c,   i, j, v, t) {for (i = 1; i <= c; i++) v[i] = a[k, i];
		for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (v[j] < v[i]) {t = v[i]; v[i] = v[j]; v[j] = t}
		return c % 2 ? v[(c + 1) / 2] : (v[c / 2] + v[c / 2 + 1]) / 2}
	END {for (k in keys) printf "%s,%d,%.4f,%.4f,%.4f,%.4f\n", k, n[k], med(tm, k, n[k]), med(ep, k, n[k]), med(ce, k, n[k]), med(ti, k, n[k])}' "$out" |
	sort -t, -k1,1 -k2,2 -k3,3 >"$summary"
printf '%-8s %-15s %-10s %5s %8s %8s %8s %8s %9s %8s\n' machine workload strategy seeds truth epd correrr time_s truth/bc epd/bc
awk -F, '{b[$1 "," $2 "," $3] = $0} END {for (k in b) {split(b[k], a, ","); r = b[a[1] "," a[2] ",bc"]; split(r, z, ",");
	printf "%-8s %-15s %-10s %5d %8.4f %8.4f %8.4f %8.3f %9.3f %8.3f\n", a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], (z[5] > 0 ? a[5] / z[5] : 0), (z[6] > 0 ? a[6] / z[6] : 0)}}' "$summary" | sort -k1,1 -k2,2 -k3,3
# the plot: median truth error per workload and machine, one bar per strategy
plot=$WORK/bb-plot.dat
{
	printf 'cell'; for s in $STRATEGIES; do printf ' %s' "$s"; done; printf '\n'
	for m in $MACHINES; do for w in $WORKLOADS; do n=$(name_of "$w"); printf '%s/%s' "$m" "$n"
		for s in $STRATEGIES; do printf ' %s' "$(awk -F, -v a="$m" -v b="$n" -v c="$s" '$1 == a && $2 == b && $3 == c {print $5}' "$summary")"; done
		printf '\n'; done; done
} >"$plot"
gnuplot <<EOF
set terminal svg size 900,420 font "sans,11"
set output "$svg"
set title "Median truth error (median over $SEEDS seeds), lower is better"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key top left
set ylabel "truth median relative error"
set xtics rotate by -30
set yrange [0:*]
plot for [i=2:$(( $(echo $STRATEGIES | wc -w) + 1 ))] "$plot" using i:xtic(1) title columnheader(i)
EOF
log "wrote $out and $svg"
