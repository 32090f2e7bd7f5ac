#!/usr/bin/env bash
# fuse-task-parallel Fig. 15's point, searched for: an event pair whose LGL
# distribution is far from the references (pair TMD well above BC's) while
# its pair Correlation Error (|Spearman of the profile - median Spearman of
# the references|) is below BC's -- the metrics' blind spot. Over every
# scored event pair of the Fig. 11-12 profiles (LGL and BC, the same seed k
# for both) of every workload and machine. Reuses the profiles and references
# that fig11_12_epd.sh (or matrix.sh: the same commands and seeds) left in
# $PROFILES-<machine>-<workload>/ (default $WORK/epd; $WORK/mx for matrix.sh's).
# Writes docs/results/repro-fig15-search.csv (one row per pair and seed) and
# prints the counts and the candidates, clearest first; fig13_15_correrr.sh
# draws the first one (FIG15_PAIR to choose another). Per profile one `epd
# --json` and one `correrr --json` against the ~200 references (~10-20 s each
# on the 2-core VM), cached in $PROFILES-*/S-k.pairs.
source "$(dirname "$0")/common.sh"
PROFILES=${PROFILES:-$WORK/epd}
MACHINES=${MACHINES:-"xeon32 xeon192"}
WORKLOADS=${WORKLOADS:-"cholesky seidel kmeans"}
KS=${KS:-"1 2 3"}              # seeds k (profiles S-k.pmcf) to search where present
TMD_RATIO=${TMD_RATIO:-1.5}    # "far": TMD(LGL) >= 1.5 x TMD(BC) ...
TMD_GAP=${TMD_GAP:-1}          # ... and by more than both spreads (± of the TMD) times this
CE_RATIO=${CE_RATIO:-2}        # "lower": CE(BC) >= 2 x CE(LGL) ...
CE_MIN=${CE_MIN:-0.01}         # ... and CE(BC) - CE(LGL) >= 0.01
out=${SEARCH_CSV:-$RESULTS/repro-fig15-search.csv}
tmp=$out.tmp
# "A B tmd spread target reference" per scored pair of one profile
pairs_of() { # profile refs
	local e c
	e=$(mktemp) c=$(mktemp)
	# shellcheck disable=SC2086
	pm epd ${EPD_ARGS:-} --json "$1" "$2" | jq -r '.pairs[] | "\(.events[0]) \(.events[1]) \(.tmd) \(.spread)"' | sort >"$e"
	pm correrr --json "$1" "$2" | jq -r '.pairs[] | "\(.events[0]) \(.events[1]) \(.target) \(.reference)"' | sort >"$c"
	join <(awk '{print $1 "," $2, $3, $4}' "$e") <(awk '{print $1 "," $2, $3, $4}' "$c") | tr ',' ' '
	rm -f "$e" "$c"
}
echo "machine,workload,k,event_a,event_b,tmd_lgl,spread_lgl,tmd_bc,spread_bc,spearman_lgl,spearman_bc,spearman_ref,ce_lgl,ce_bc,blind_spot" >"$tmp"
for m in $MACHINES; do
	for w in $WORKLOADS; do
		d=$PROFILES-$m-$w
		[ -d "$d/refs" ] || { echo "fig15_search: no profiles in $d (run fig11_12_epd.sh or set PROFILES)" >&2; exit 2; }
		for k in $KS; do
			[ -f "$d/lgl-$k.pmcf" ] && [ -f "$d/bc-$k.pmcf" ] || continue
			for s in lgl bc; do
				[ -s "$d/$s-$k.pairs" ] || { log "fig15 search $m $w $s-$k"; pairs_of "$d/$s-$k.pmcf" "$d/refs" >"$d/$s-$k.pairs.tmp"; mv "$d/$s-$k.pairs.tmp" "$d/$s-$k.pairs"; }
			done
			join <(awk '{print $1 "," $2, $3, $4, $5, $6}' "$d/lgl-$k.pairs") <(awk '{print $1 "," $2, $3, $4, $5, $6}' "$d/bc-$k.pairs") |
				awk -v m=$m -v w=$w -v k=$k -v tr="$TMD_RATIO" -v tg="$TMD_GAP" -v cr="$CE_RATIO" -v cm="$CE_MIN" '
				function abs(x) { return x < 0 ? -x : x }
				{ split($1, ev, ","); tl = $2; sl = $3; rl = $4; ref = $5; tb = $6; sb = $7; rb = $8
				  cl = abs(rl - ref); cb = abs(rb - ref)
				  blind = (tl >= tr * tb && tl - tb > tg * (sl + sb) && cb >= cr * cl && cb - cl >= cm) ? 1 : 0
				  printf "%s,%s,%s,%s,%s,%.4g,%.4g,%.4g,%.4g,%.4g,%.4g,%.4g,%.4g,%.4g,%d\n", m, w, k, ev[1], ev[2], tl, sl, tb, sb, rl, rb, ref, cl, cb, blind }' >>"$tmp"
		done
	done
done
mv "$tmp" "$out"
# counts per machine and workload, then the candidates: a pair counts once per
# (machine, workload); clearest = found in most seeds, then largest
# min(TMD ratio, CE ratio) over those seeds
awk -F, 'NR > 1 {n[$1 " " $2]++; b[$1 " " $2] += $15} END {for (k in n) printf "%-8s %-9s %5d pair-seeds searched, %3d blind spots\n", substr(k, 1, index(k, " ") - 1), substr(k, index(k, " ") + 1), n[k], b[k]}' "$out" | sort
# candidates, clearest first: per machine, workload and pair, the seeds where
# the blind spot holds, then the score min(TMD(LGL)/TMD(BC), CE(BC)/CE(LGL))
# in its worst seed (> 1: LGL's TMD higher and its CE lower in every seed).
# With no blind spot the first lines are the closest pairs.
echo "candidates (machine workload A B: seeds where the blind spot holds / seeds searched, worst-seed TMD(LGL)/TMD(BC), worst-seed CE(BC)/CE(LGL), score):"
awk -F, 'NR > 1 {k = $1 " " $2 " " $4 " " $5; n[k]++; h[k] += $15; t = $8 > 0 ? $6 / $8 : 1e9; c = $13 > 0 ? $14 / $13 : 1e9
	if (!(k in mt) || t < mt[k]) mt[k] = t; if (!(k in mc) || c < mc[k]) mc[k] = c}
	END {for (k in n) {sc = mt[k] < mc[k] ? mt[k] : mc[k]; printf "%d %.6g %s %d/%d %.3g %.3g %.3g\n", h[k], sc, k, h[k], n[k], mt[k], mc[k], sc}}' "$out" |
	sort -k1,1nr -k2,2gr | cut -d" " -f3- | awk -v top="${TOP:-15}" "NR <= top"
