#!/usr/bin/env bash
# LGL against BC on xeon192 at the default size and at the papers' input
# size (fuse-task-parallel §5.2: cholesky_b7 is a 2^13 x 2^13 matrix in
# 2^7 x 2^7 blocks, i.e. blocks=64,bsize=128, 49,440 tasks; the default is
# blocks=24,bsize=64): does a task footprint beyond the L2 let v3's
# schedule-dependent placement separate LGL from BC? Per spec and seed one
# campaign (`run -e all --strategy bc --keep`), fused by bc, lgl, random and
# the oracle (`combine`), the truth headline (mean, missing = 1) of each,
# and, with REF_REPEAT > 0, EPD against `reference -e all --repeat
# REF_REPEAT --seed 7` (one `epd` call per spec). No parameter of the model
# is changed: only the workload's size keys. Writes LGL_SIZE_CSV (default
# docs/results/lgl-size-v3.csv): spec (its commas as ;),seed,strategy,
# truth_mean,truth_median,epd.
# SPECS (space-separated --sim specs), SEEDS, REF_REPEAT (default 2; 0 = no EPD).
source "$(dirname "$0")/common.sh"
SPECS=${SPECS:-"cholesky,machine=xeon192 cholesky,blocks=64,bsize=128,machine=xeon192"}
SEEDS=${SEEDS:-"1017 2017 3017"}
REF_REPEAT=${REF_REPEAT:-2}
out=${LGL_SIZE_CSV:-$RESULTS/lgl-size-v3.csv}
tmp=$out.tmp
echo "spec,seed,strategy,truth_mean,truth_median,epd" >"$tmp"
for spec in $SPECS; do
	d=$WORK/ls-$(printf '%s' "$spec" | tr ',=' '_-'); rm -rf "$d"; mkdir -p "$d"
	todo=()
	for seed in $SEEDS; do
		log "lgl-size $spec: seed $seed"
		pm run -e all --strategy bc --seed "$seed" --keep "$d/ex-$seed" -o "$d/run-$seed.pmcf" --sim "$spec" >/dev/null 2>&1
		for s in bc lgl random oracle; do
			f=$d/$s-$seed.pmcf
			pm combine -q --strategy $s --seed "$seed" -o "$f" "$d/ex-$seed"/exec-*.pmcf
			pm truth --json "$f" | jq -r '"\(.mean_rel_error),\(.median_rel_error)"' >"$f.row"
			todo+=("$f")
		done
		rm -rf "$d/ex-$seed"
	done
	if [ "$REF_REPEAT" -gt 0 ]; then
		log "lgl-size $spec: references (--repeat $REF_REPEAT) and EPD of ${#todo[@]} profiles"
		pm reference -e all --repeat "$REF_REPEAT" --seed 7 -o "$d/refs" --sim "$spec" -q
		pm epd --json "${todo[@]}" "$d/refs" | jq -r 'if type == "array" then .[].epd else .epd end' >"$d/epd.txt"
		rm -rf "$d/refs"
	else
		for f in "${todo[@]}"; do echo nan; done >"$d/epd.txt"
	fi
	i=0
	for f in "${todo[@]}"; do
		i=$((i + 1)); b=${f##*/}; b=${b%.pmcf}
		echo "${spec//,/;},${b##*-},${b%-*},$(cat "$f.row"),$(sed -n ${i}p "$d/epd.txt")" >>"$tmp"
	done
done
mv "$tmp" "$out"
# per spec: medians over the seeds, and LGL/BC, random/BC, oracle/BC
awk -F, 'NR > 1 {tm[$1, $3] = tm[$1, $3] " " $4; ep[$1, $3] = ep[$1, $3] " " $6; specs[$1] = 1}
	function med(x,   v, c, i, j, t) {c = split(x, v, " "); for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (v[j] + 0 < v[i] + 0) {t = v[i]; v[i] = v[j]; v[j] = t}
		return c % 2 ? v[(c + 1) / 2] : (v[c / 2] + v[c / 2 + 1]) / 2}
	END {for (sp in specs) {printf "%s\n  truth mean: bc %.4f lgl %.4f random %.4f oracle %.4f  LGL/BC %.2f\n", sp,
		med(tm[sp, "bc"]), med(tm[sp, "lgl"]), med(tm[sp, "random"]), med(tm[sp, "oracle"]), med(tm[sp, "lgl"]) / med(tm[sp, "bc"])
		if (ep[sp, "bc"] !~ /nan/) printf "  EPD: bc %.3f lgl %.3f random %.3f oracle %.3f  LGL/BC %.2f random/BC %.2f\n",
		med(ep[sp, "bc"]), med(ep[sp, "lgl"]), med(ep[sp, "random"]), med(ep[sp, "oracle"]), med(ep[sp, "lgl"]) / med(ep[sp, "bc"]), med(ep[sp, "random"]) / med(ep[sp, "bc"])}}' "$out"
