#!/usr/bin/env bash
# Issue 21: `plan --link auto` against BC's default linking events (duration
# and the fixed counters) and random pairing, on every default-size workload
# of the simulated xeon32 and xeon192 (model v2). Per workload and machine:
# references (`reference -e all --repeat $REF_REPEAT --seed 7`), then per seed
# (SEEDS) three fused profiles of the same executions' seeds: `run --strategy
# bc`, `plan --link auto --refs` + `record --plan` + `combine --strategy bc`,
# and `run --strategy random`; EPD (floored) against the references and the
# truth summary (per event median relative error, missing = 1; median and
# p90 over events; random's EPD for the first seed only, as the floor). The
# auto plan depends on the references, not on the seed: it is made once and
# its "seed" set per seed. About 2 min per workload and machine on the loaded
# 2-core VM (EPD against the references takes most of it). Writes docs/results/link-auto.csv and prints, per
# workload and machine, the medians over the seeds. MACHINES, WORKLOADS,
# SEEDS, REF_REPEAT change that. Leaves the profiles in $WORK/la-*.
source "$(dirname "$0")/common.sh"
MODEL=${MODEL:-}                # ",model=v2": the pages measured on model v2
MACHINES=${MACHINES:-"xeon32 xeon192"}
WORKLOADS=${WORKLOADS:-"cholesky seidel kmeans loops,schedule=static loops,schedule=dynamic knapsack"}
SEEDS=${SEEDS:-"1017 2017 3017"}
REF_REPEAT=${REF_REPEAT:-2}
out=${LINK_AUTO_CSV:-$RESULTS/link-auto.csv}
tmp=$out.tmp
echo "machine,workload,variant,seed,epd,truth_median,truth_p90,truth_missing,executions" >"$tmp"
row() { # machine workload variant seed profile refs executions [noepd]
	local e=nan t
	[ -z "${8:-}" ] && e=$(pm epd --json "$5" "$6" | jq -r .epd)
	t=$(pm truth --json "$5" | jq -r '"\(.median_rel_error),\(.p90_rel_error),\(.share_missing)"')
	echo "$1,$2,$3,$4,$e,$t,$7" >>"$tmp"
}
for m in $MACHINES; do
	for w in $WORKLOADS; do
		n=$(name_of "$w"); d=$WORK/la-$m-$n; rm -rf "$d"; mkdir -p "$d"
		spec=$w,machine=$m$MODEL
		log "link-auto $m $n: references (--repeat $REF_REPEAT)"
		pm reference -e all --repeat "$REF_REPEAT" --seed 7 -o "$d/refs" --sim "$spec" >/dev/null
		pm plan -e all --strategy bc --link auto --refs "$d/refs" --sim "$spec" -o "$d/auto.json" >"$d/auto.txt"
		first=1
		for seed in $SEEDS; do
			for s in bc random; do
				pm run -e all --strategy $s --seed "$seed" -o "$d/$s-$seed.pmcf" --sim "$spec" >/dev/null 2>&1
				noepd=; [ $s = random ] && [ -z "$first" ] && noepd=1
				row "$m" "$n" "$s" "$seed" "$d/$s-$seed.pmcf" "$d/refs" 7 $noepd
			done
			first=
			jq --argjson s "$seed" '.seed = $s' "$d/auto.json" >"$d/auto-$seed.json"
			k=$(jq '.sets | length' "$d/auto-$seed.json")
			for i in $(seq 0 $((k - 1))); do
				pm record --plan "$d/auto-$seed.json" --set "$i" -o "$d/auto-$seed-$i.pmcf" >/dev/null
			done
			pm combine --strategy bc -o "$d/auto-$seed.pmcf" $(for i in $(seq 0 $((k - 1))); do echo "$d/auto-$seed-$i.pmcf"; done) >/dev/null
			row "$m" "$n" auto "$seed" "$d/auto-$seed.pmcf" "$d/refs" "$k"
		done
	done
done
mv "$tmp" "$out"
# medians over the seeds: truth median, p90 and EPD per variant; auto/bc ratios
awk -F, 'NR > 1 {k = $1 " " $2 " " $3; tm[k] = tm[k] " " $6; tp[k] = tp[k] " " $7; ep[k] = ep[k] " " $5; keys[$1 " " $2] = 1}
	function med(s,   a, n, i, j, t) {gsub(/ nan/, "", s); n = split(s, a, " "); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) {t = a[i]; a[i] = a[j]; a[j] = t}
	                                     return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2}
	END {printf "%-8s %-15s %21s %21s %21s %9s %9s\n", "machine", "workload", "bc med/p90/epd", "auto med/p90/epd", "random med/p90/epd", "auto/bc", "epd a/b";
	     for (k in keys) {b = med(tm[k " bc"]); a = med(tm[k " auto"]);
	       printf "%-17s %6.4f/%5.3f/%5.3f  %6.4f/%5.3f/%5.3f  %6.4f/%5.3f/%5.3f %9.3f %9.3f\n", k,
	         b, med(tp[k " bc"]), med(ep[k " bc"]), a, med(tp[k " auto"]), med(ep[k " auto"]),
	         med(tm[k " random"]), med(tp[k " random"]), med(ep[k " random"]), b ? a / b : 0, med(ep[k " bc"]) ? med(ep[k " auto"]) / med(ep[k " bc"]) : 0}}' "$out" | sort
