#!/usr/bin/env bash
# Issue 21: `plan --link auto` against BC's default linking events (duration
# and the fixed counters) and random pairing, on every default-size workload
# of the simulated xeon32 and xeon192 (the default value model; MODEL=,model=v2
# for the v2 page). Per workload and machine: references (`reference -e all
# --repeat $REF_REPEAT --seed 7`), then per seed (SEEDS) four fused profiles:
# `run --strategy bc --keep` (bc's default links), `combine --strategy oracle`
# of those same executions (pairing by the ground truth: the ceiling),
# `plan --link auto --refs` + `record --plan` + `combine --strategy bc`, and
# `run --strategy random` (the floor). Per profile the truth summary (`truth
# --json`: the headline mean over events of per-event mean relative errors,
# missing = 1, and the median / p90 over events of per-event medians) and EPD
# (floored) against the references; the EPDs of a cell are computed after
# its seeds, 60 profiles per `epd` call (the references loaded once per call).
# The auto plan depends on the references, not on the seed: it is made once
# and its "seed" set per seed. Writes docs/results/link-auto.csv
# (LINK_AUTO_CSV=FILE elsewhere) and prints, per workload and machine, the
# medians over the seeds. MACHINES, WORKLOADS, SEEDS, REF_REPEAT change that.
# Leaves the profiles in $WORK/la-*; a cell's references, plan and per-seed
# profiles and results are reused (REUSE=0 to redo them), so a larger SEEDS
# adds seeds to an earlier run.
source "$(dirname "$0")/common.sh"
MODEL=${MODEL:-}                # ",model=v2": the pages measured on model v2
MACHINES=${MACHINES:-"xeon32 xeon192"}
WORKLOADS=${WORKLOADS:-"cholesky seidel kmeans loops,schedule=static loops,schedule=dynamic knapsack"}
SEEDS=${SEEDS:-"1017 2017 3017"}
REF_REPEAT=${REF_REPEAT:-2}
REUSE=${REUSE:-1}
out=${LINK_AUTO_CSV:-$RESULTS/link-auto.csv}
tmp=$out.tmp
echo "machine,workload,variant,seed,epd,truth_median,truth_p90,truth_missing,executions,truth_mean" >"$tmp"
truth_row() { # profile executions -> PROFILE.row: truth median,p90,missing,executions,mean
	pm truth --json "$1" | jq -r --arg x "$2" '"\(.median_rel_error),\(.p90_rel_error),\(.share_missing),\($x),\(.mean_rel_error)"' >"$1.row"
}
for m in $MACHINES; do
	for w in $WORKLOADS; do
		n=$(name_of "$w"); d=$WORK/la-$m-$n
		spec=$w,machine=$m$MODEL
		if [ "$REUSE" = 0 ] || [ ! -f "$d/refs.done" ] || [ "$(cat "$d/refs.done")" != "$spec $REF_REPEAT" ]; then
			rm -rf "$d"; mkdir -p "$d"
			log "link-auto $m $n: references (--repeat $REF_REPEAT)"
			pm reference -e all --repeat "$REF_REPEAT" --seed 7 -o "$d/refs" --sim "$spec" >/dev/null
			pm plan -e all --strategy bc --link auto --refs "$d/refs" --sim "$spec" -o "$d/auto.json" >"$d/auto.txt"
			echo "$spec $REF_REPEAT" >"$d/refs.done"
		fi
		todo=() # profiles without EPD
		for seed in $SEEDS; do
			if [ ! -f "$d/seed-$seed.done" ]; then
				log "link-auto $m $n: seed $seed"
				rm -rf "$d/exec-$seed"
				pm run -e all --strategy bc --seed "$seed" --keep "$d/exec-$seed" -o "$d/bc-$seed.pmcf" --sim "$spec" >/dev/null 2>&1
				truth_row "$d/bc-$seed.pmcf" "$(ls "$d/exec-$seed"/exec-*.pmcf | wc -l)"
				pm combine -q --strategy oracle -o "$d/oracle-$seed.pmcf" "$d/exec-$seed"/exec-*.pmcf
				truth_row "$d/oracle-$seed.pmcf" "$(ls "$d/exec-$seed"/exec-*.pmcf | wc -l)"
				pm run -e all --strategy random --seed "$seed" -o "$d/random-$seed.pmcf" --sim "$spec" >/dev/null 2>&1
				truth_row "$d/random-$seed.pmcf" 7
				jq --argjson s "$seed" '.seed = $s' "$d/auto.json" >"$d/auto-$seed.json"
				k=$(jq '.sets | length' "$d/auto-$seed.json")
				for i in $(seq 0 $((k - 1))); do
					pm record --plan "$d/auto-$seed.json" --set "$i" -o "$d/auto-$seed-$i.pmcf" >/dev/null
				done
				pm combine --strategy bc -o "$d/auto-$seed.pmcf" $(for i in $(seq 0 $((k - 1))); do echo "$d/auto-$seed-$i.pmcf"; done) >/dev/null
				truth_row "$d/auto-$seed.pmcf" "$k"
				rm -f "$d"/*-"$seed".pmcf.epd
				touch "$d/seed-$seed.done"
			fi
			for v in bc auto random oracle; do
				[ -f "$d/$v-$seed.pmcf.epd" ] || todo+=("$d/$v-$seed.pmcf")
			done
		done
		while [ ${#todo[@]} -gt 0 ]; do # 60 profiles per epd call
			batch=("${todo[@]:0:60}"); todo=("${todo[@]:60}")
			log "link-auto $m $n: EPD of ${#batch[@]} profiles"
			pm epd --json "${batch[@]}" "$d/refs" | jq -r 'if type == "array" then .[].epd else .epd end' >"$d/epd.tmp"
			i=0
			for f in "${batch[@]}"; do
				i=$((i + 1))
				sed -n ${i}p "$d/epd.tmp" >"$f.epd"
			done
		done
		for seed in $SEEDS; do
			for v in bc auto random oracle; do
				f=$d/$v-$seed.pmcf
				IFS=, read -r tm tp tmiss x tmean <"$f.row"
				echo "$m,$n,$v,$seed,$(cat "$f.epd"),$tm,$tp,$tmiss,$x,$tmean" >>"$tmp"
			done
		done
	done
done
mv "$tmp" "$out"
# medians over the seeds: truth mean (headline), median, p90 and EPD per
# variant; auto/bc ratios of the truth mean and EPD
awk -F, 'NR > 1 {k = $1 " " $2 " " $3; tn[k] = tn[k] " " $10; tm[k] = tm[k] " " $6; tp[k] = tp[k] " " $7; ep[k] = ep[k] " " $5; keys[$1 " " $2] = 1; cnt[k]++}
	function med(s,   a, n, i, j, t) {gsub(/ nan/, "", s); n = split(s, a, " "); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) {t = a[i]; a[i] = a[j]; a[j] = t}
	                                     return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2}
	END {printf "%-17s %5s %27s %27s %27s %27s %9s %9s\n", "machine workload", "seeds", "bc mean/med/p90/epd", "auto mean/med/p90/epd", "random mean/med/p90/epd", "oracle mean/med/p90/epd", "auto/bc", "epd a/b";
	     for (k in keys) {printf "%-17s %5d", k, cnt[k " bc"]
	       split("bc auto random oracle", vs, " ")
	       for (i = 1; i <= 4; i++) {v = k " " vs[i]; printf "  %6.4f/%6.4f/%5.3f/%6.3f", med(tn[v]), med(tm[v]), med(tp[v]), med(ep[v])}
	       b = med(tn[k " bc"]); a = med(tn[k " auto"]); eb = med(ep[k " bc"])
	       printf " %9.3f %9.3f\n", b ? a / b : 0, eb ? med(ep[k " auto"]) / eb : 0}}' "$out" | sort
