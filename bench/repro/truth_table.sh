#!/usr/bin/env bash
# Accuracy against the ground truth (issue 32) on a value model: every
# default-size workload on xeon32 and xeon192, profiles of all 33 events made
# by random pairing (the floor), CTC, LGL, BC and the oracle (pairing by the
# truth: the ceiling), and by multiplexing (kernel, rr, roc at 1 and 4 ms,
# cumulative and local estimates), three seeds each. Per cell the truth's
# headline (mean over events of the per-event mean relative error, missing
# = 1), the median over events of their medians, and the share of missing
# values; median over the seeds. EPD is not here (fig11_12_epd.sh). About
# 2 min on a 2-core VM per model. MODEL=v2 (or v1) for the older models;
# output docs/results/truth-$MODEL.csv.
source "$(dirname "$0")/common.sh"
MODEL=${MODEL:-v3}
SEEDS=${SEEDS:-"1017 2017 3017"}
WORKLOADS=${WORKLOADS:-"cholesky seidel kmeans loops,schedule=static loops,schedule=dynamic"}
out=$RESULTS/truth-$MODEL.csv
tmp=$out.tmp
d=$WORK/truth-$MODEL; rm -rf "$d"; mkdir -p "$d"
echo "machine,workload,method,mean_rel_error,median_rel_error,share_missing" >"$tmp"
for m in xeon32 xeon192; do
	for w in $WORKLOADS; do
		n=$(name_of "$w"); spec=$w,machine=$m,model=$MODEL
		log "truth $MODEL $m $n"
		methods="random ctc lgl bc oracle"
		for mux in kernel rr roc; do for p in 1 4; do for est in cumulative local; do
			methods="$methods $mux-$p-$est"; done; done; done
		for s in $methods; do
			: >"$d/t"
			for seed in $SEEDS; do
				f=$d/$m-$n-$s-$seed.pmcf
				case $s in
				*-*-*) IFS=- read -r mux p est <<<"$s"
					pm record -e all --multiplex "$mux" --period-ms "$p" --estimate "$est" -o "$f" \
						--sim "$spec,seed=$seed" >/dev/null 2>&1 ;;
				*) pm run -e all --strategy "$s" --seed "$seed" -o "$f" --sim "$spec" >/dev/null 2>&1 ;;
				esac
				pm truth --json "$f" | jq -r '"\(.mean_rel_error) \(.median_rel_error) \(.share_missing)"' >>"$d/t"
				rm -f "$f"
			done
			row=$(for c in 1 2 3; do awk -v c=$c '{print $c}' "$d/t" | stats3 | cut -d' ' -f1; done | paste -sd,)
			echo "$m,$n,$s,$row" >>"$tmp"
		done
	done
done
mv "$tmp" "$out"
column -s, -t "$out"
