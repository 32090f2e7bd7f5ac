#!/usr/bin/env bash
# Issue 21 (a combination that beats BC): every default-size workload on the
# simulated xeon32 and xeon192; per seed one campaign of executions (`run -e
# all --strategy bc --keep`, bc's plan: the linking events in every set), then
# every strategy fuses THE SAME executions (`combine`), so the strategies differ
# only in the pairing. Per fused profile: the truth summary (per event median
# relative error over values from other executions, missing = 1; median and
# p90 over events), EPD and Correlation Error against references (--repeat 3,
# seed 7, shared by every strategy), the executions used, and the combine's
# CPU time (`perf stat -e task-clock`, every thread, median of 3 runs) of
# `combine --threads 1`, and of bc with its default threads.
# Writes docs/results/beyond-bc.csv, beyond-bc.svg (truth) and, with EVAL=all,
# beyond-bc-epd.svg, and the page's tables $WORK/bb-verdict.md (per strategy:
# how many cells pass the issue's bar) and $WORK/bb-table.md (every cell).
# SEEDS (default 5: seeds 1017, 2017, ...), MACHINES, WORKLOADS, STRATEGIES
# (a strategy NAME+iK is `--strategy NAME --impute K`, e.g. bc+i5; NAME+rK
# is `--strategy NAME --impute K --impute-mode rank`, e.g. bc+r9);
# EVAL=truth skips the references, EPD and Correlation Error (one `epd` and
# one `correrr` per cell and seed evaluate every strategy's profile against
# the references, which are loaded and calibrated once).
# Profiles stay in $WORK/bb-*; existing references, campaigns, fused profiles
# and their results ($WORK/bb-*/STRATEGY-K.pmcf.row / .ev) are reused (REUSE=0
# to record and fuse them again). BB_FROM_CSV=FILE only redoes the summary
# and the plot from a CSV of an earlier run. BB_CSV / BB_SVG: other output
# files (default docs/results/beyond-bc.csv / .svg). TIME_SEEDS=N measures the
# combine CPU time (perf, median of 3) on the first N seeds only (default:
# every seed); the later seeds are fused once, with an empty time column.
# The truth columns: truth_median (median over events of per-event medians)
# and truth_mean (`truth`'s headline since issue 32: mean over events of the
# per-event mean, a missing value counting as 1). The table's "truth" is the
# headline. EPD and Correlation Error are computed per cell after its seeds,
# for every profile without them, in batches of 60 (one `epd` and one
# `correrr` call per batch: the references are loaded once per batch).
source "$(dirname "$0")/common.sh"
MODEL=${MODEL:-}                # ",model=v2": the pages measured on model v2
command -v perf >/dev/null || { echo "beyond-bc: perf is needed (the CPU time of combine)" >&2; exit 2; }
SEEDS=${SEEDS:-5}
MACHINES=${MACHINES:-"xeon32 xeon192"}
WORKLOADS=${WORKLOADS:-"cholesky seidel kmeans loops,schedule=static loops,schedule=dynamic knapsack"}
STRATEGIES=${STRATEGIES:-"bc match bc+r5 bc+i9 bc-label bc-lgl lgl random oracle"}
TIME_SEEDS=${TIME_SEEDS:-$SEEDS}
REUSE=${REUSE:-1}
EVAL=${EVAL:-all}
out=${BB_CSV:-$RESULTS/beyond-bc.csv}
svg=${BB_SVG:-$RESULTS/beyond-bc.svg}
tmp=$WORK/beyond-bc.csv.tmp
echo "machine,workload,strategy,seed,executions,xus,truth_median,truth_p90,truth_missing,epd,correrr,combine_s,combine_threads,truth_mean" >"$tmp"
name_of() { # loops,schedule=static -> loops-static
	local w=${1%%,*}
	[ "$w" = loops ] && w=loops-$(printf '%s' "$1" | sed 's/.*schedule=\([a-z]*\).*/\1/')
	printf '%s' "$w"
}
cpu() { # CPU seconds (task-clock of every thread, perf stat) of a command, the
	# median of 3 runs (its output discarded)
	local f r
	f=$(mktemp)
	for r in 1 2 3; do
		perf stat -x, -e task-clock -o "$f" "$@" >/dev/null
		awk -F, '$3 == "task-clock" {printf "%.4f\n", $1 / 1000}' "$f"
	done | sort -g | sed -n 2p
	rm -f "$f"
}
[ -n "${BB_FROM_CSV:-}" ] && MACHINES_RUN= || MACHINES_RUN=$MACHINES
for m in $MACHINES_RUN; do
	for w in $WORKLOADS; do
		n=$(name_of "$w"); d=$WORK/bb-$m-$n; mkdir -p "$d"
		spec=$w,machine=$m$MODEL
		if [ "$EVAL" = all ] && { [ "$REUSE" = 0 ] || [ ! -f "$d/refs.done" ]; }; then
			log "beyond-bc $m $n: references (--repeat 3)"
			rm -rf "$d/refs"
			pm reference -e all --repeat 3 --seed 7 -o "$d/refs" --sim "$spec" >/dev/null
			touch "$d/refs.done"
			rm -f "$d"/*.pmcf.ev # EPD and Correlation Error against the old references
		fi
		todo=() # profiles still without EPD / Correlation Error
		for k in $(seq 1 "$SEEDS"); do
			seed=$((1000 * k + 17)); ex=$d/exec-$k
			if [ "$REUSE" = 0 ] || [ ! -f "$ex.done" ]; then
				log "beyond-bc $m $n: executions, seed $seed"
				rm -rf "$ex"
				pm run -e all --strategy bc --seed $seed --keep "$ex" -o "$d/run-$k.pmcf" --sim "$spec" >/dev/null
				touch "$ex.done"
				rm -f "$d"/*-$k.pmcf.row "$d"/*-$k.pmcf.ev # fused from the old executions
			fi
			for s in $STRATEGIES; do
				f=$d/$s-$k.pmcf
				# a .row of an older script (no truth_mean) is redone
				if [ "$REUSE" = 0 ] || [ ! -f "$f.row" ] || [ "$(awk -F, '{print NF}' "$f.row")" != 6 ]; then
					imp=() # NAME+iK: --impute K; NAME+rK: --impute K --impute-mode rank
					case $s in
					*+i*) imp=(--impute "${s##*+i}") ;;
					*+r*) imp=(--impute "${s##*+r}" --impute-mode rank) ;;
					esac
					if [ "$k" -le "$TIME_SEEDS" ]; then
						t=$(cpu "$PMCFUSE" combine -q --strategy "${s%%+*}" "${imp[@]}" --seed $seed --threads 1 -o "$f" "$ex"/exec-*.pmcf)
						if [ "$s" = bc ]; then # bc with its default threads too
							cpu "$PMCFUSE" combine -q --strategy bc -o "$d/bc-thr.pmcf" "$ex"/exec-*.pmcf >"$d/bc-$k.thr"
						fi
					else # fused once, not timed
						t=
						pm combine -q --strategy "${s%%+*}" "${imp[@]}" --seed $seed --threads 1 -o "$f" "$ex"/exec-*.pmcf
					fi
					tr=$(pm truth --json "$f" | jq -r '"\(.median_rel_error),\(.p90_rel_error),\(.share_missing),\(.mean_rel_error)"')
					xus=$(pm show --json "$f" | jq .xus)
					echo "$xus,$tr,$t" >"$f.row"
					rm -f "$f.ev"
				fi
				[ "$EVAL" = all ] && [ ! -f "$f.ev" ] && todo+=("$f")
			done
		done
		# EPD and Correlation Error of every profile of the cell still without
		# them, 60 profiles per epd / correrr call (references loaded once per call)
		while [ ${#todo[@]} -gt 0 ]; do
			batch=("${todo[@]:0:60}"); todo=("${todo[@]:60}")
			log "beyond-bc $m $n: EPD and Correlation Error of ${#batch[@]} profiles"
			pm epd --json "${batch[@]}" "$d/refs" | jq -r 'if type == "array" then .[].epd else .epd end' >"$d/epd.tmp"
			pm correrr --json "${batch[@]}" "$d/refs" | jq -r 'if type == "array" then .[].correrr else .correrr end' >"$d/ce.tmp"
			i=0
			for f in "${batch[@]}"; do
				i=$((i + 1))
				echo "$(sed -n ${i}p "$d/epd.tmp"),$(sed -n ${i}p "$d/ce.tmp")" >"$f.ev"
			done
		done
		for k in $(seq 1 "$SEEDS"); do
			ex=$d/exec-$k; nexec=$(ls "$ex"/exec-*.pmcf | wc -l)
			[ "$k" -le "$TIME_SEEDS" ] && [ -f "$d/bc-$k.thr" ] && echo "$m,$n,bc-threads,$k,$nexec,,,,,,,$(cat "$d/bc-$k.thr"),default," >>"$tmp"
			for s in $STRATEGIES; do
				f=$d/$s-$k.pmcf
				IFS=, read -r xus tm tp tmiss tmean t <"$f.row"
				ev=,
				[ -f "$f.ev" ] && ev=$(cat "$f.ev")
				echo "$m,$n,$s,$k,$nexec,$xus,$tm,$tp,$tmiss,$ev,$t,1,$tmean" >>"$tmp"
			done
		done
	done
done
[ -n "${BB_FROM_CSV:-}" ] && cp "$BB_FROM_CSV" "$tmp"
mv "$tmp" "$out"
# per machine, workload and strategy: medians over the seeds; ratios to bc
# summary: machine,workload,strategy,seeds,truth,epd,correrr,time_s,executions,truth_median
# (truth: the headline mean, missing = 1, column 14; a CSV without it, of
# an older script, gives the median of medians, column 7; time_s: the median
# over the timed seeds only)
summary=$WORK/bb-summary.txt
awk -F, 'NR > 1 && $3 != "bc-threads" {k = $1 "," $2 "," $3; n[k]++; tm[k, n[k]] = ($14 != "" ? $14 : $7); md[k, n[k]] = $7; ep[k, n[k]] = $10; ce[k, n[k]] = $11; ex[k, n[k]] = $5; keys[k] = 1
		if ($12 != "") ti[k, ++nt[k]] = $12}
	function med(a, k, c,   i, j, v, t) {if (c == 0) return ""; for (i = 1; i <= c; i++) v[i] = a[k, i];
		for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (v[j] + 0 < v[i] + 0) {t = v[i]; v[i] = v[j]; v[j] = t}
		return c % 2 ? v[(c + 1) / 2] : (v[c / 2] + v[c / 2 + 1]) / 2}
	END {for (k in keys) printf "%s,%d,%.6g,%.6g,%.6g,%.4f,%g,%.6g\n", k, n[k], med(tm, k, n[k]), med(ep, k, n[k]), med(ce, k, n[k]), med(ti, k, nt[k] + 0), med(ex, k, n[k]), med(md, k, n[k])}' "$out" |
	sort -t, -k1,1 -k2,2 -k3,3 >"$summary"
printf '%-8s %-15s %-10s %5s %8s %8s %8s %8s %9s %8s\n' machine workload strategy seeds truth epd correrr time_s truth/bc epd/bc
awk -F, '{b[$1 "," $2 "," $3] = $0} END {for (k in b) {split(b[k], a, ","); r = b[a[1] "," a[2] ",bc"]; split(r, z, ",");
	printf "%-8s %-15s %-10s %5d %8.4f %8.4f %8.4f %8.3f %9.3f %8.3f\n", a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], (z[5] > 0 ? a[5] / z[5] : 0), (z[6] > 0 ? a[6] / z[6] : 0)}}' "$summary" | sort -k1,1 -k2,2 -k3,3
# the issue's bar per cell and strategy: truth at least 25 % below bc's, EPD
# no worse, the same executions, at most 2x bc's combine CPU time; the
# markdown table of the page ($WORK/bb-table.md) and the verdict per
# strategy ($WORK/bb-verdict.md)
if [ "$EVAL" = all ]; then
	table=$WORK/bb-table.md verdict=$WORK/bb-verdict.md
	awk -F, -v order="$STRATEGIES" -v machines="$MACHINES" '
	function pct(x, y,   p) {if (!(y > 0)) return "—"; p = sprintf("%+.0f %%", 100 * (x / y - 1)); return p == "-0 %" || p == "+0 %" ? "0 %" : p}
	function fmt(x) {return x < 0.01 ? sprintf("%.3g", x) : x < 1 ? sprintf("%.4f", x) : sprintf("%.3f", x)}
	{k = $1 "," $2; tr[k, $3] = $5; ep[k, $3] = $6; ce[k, $3] = $7; ti[k, $3] = $8; ex[k, $3] = $9; sd[k, $3] = $4; tmed[k, $3] = $10
		if (!(k in seen)) {seen[k] = 1; cells[++nc] = k}}
	END {
		ns = split(order, st, " ")
		nm = split(machines, mm, " "); n2 = 0
		for (i = 1; i <= nm; i++) for (c = 1; c <= nc; c++) {split(cells[c], q, ","); if (q[1] == mm[i]) ord[++n2] = cells[c]}
		print "| machine | workload | strategy | seeds | executions | truth (mean) | vs bc | truth (median) | vs bc | EPD | vs bc | CorrErr | combine CPU s | / bc | bar |"
		print "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
		for (c = 1; c <= n2; c++) {
			k = ord[c]; split(k, q, ",")
			for (j = 1; j <= ns; j++) {
				s = st[j]; if (!((k, s) in tr)) continue
				b = "—"
				if (s != "bc") {
					f = ""
					if (!(tr[k, s] <= 0.75 * tr[k, "bc"])) f = f "truth "
					if (!(ep[k, s] <= ep[k, "bc"])) f = f "EPD "
					if (ex[k, s] != ex[k, "bc"]) f = f "executions "
					if (!(ti[k, s] <= 2 * ti[k, "bc"])) f = f "time "
					sub(/ $/, "", f); gsub(/ /, ", ", f)
					b = f == "" ? "**passes**" : "misses: " f
					np[s] += f == ""; nt[s] += tr[k, s] <= 0.75 * tr[k, "bc"]; ne[s] += ep[k, s] <= ep[k, "bc"]
					nti[s] += ti[k, s] <= 2 * ti[k, "bc"]; ncell[s]++
					r = tr[k, s] / tr[k, "bc"]; e = ep[k, s] / ep[k, "bc"]; t = ti[k, s] / ti[k, "bc"]
					if (!(s in rlo) || r < rlo[s]) rlo[s] = r; if (!(s in rhi) || r > rhi[s]) rhi[s] = r
					if (!(s in elo) || e < elo[s]) elo[s] = e; if (!(s in ehi) || e > ehi[s]) ehi[s] = e
					if (!(s in tlo) || t < tlo[s]) tlo[s] = t; if (!(s in thi) || t > thi[s]) thi[s] = t
					rs[s, ncell[s]] = r
				}
				printf "| %s | %s | %s | %d | %d | %s | %s | %s | %s | %s | %s | %s | %.3f | %s | %s |\n", q[1], q[2], s, sd[k, s], ex[k, s],
					fmt(tr[k, s]), s == "bc" ? "" : pct(tr[k, s], tr[k, "bc"]), fmt(tmed[k, s]), s == "bc" ? "" : pct(tmed[k, s], tmed[k, "bc"]),
					fmt(ep[k, s]), s == "bc" ? "" : pct(ep[k, s], ep[k, "bc"]),
					fmt(ce[k, s]), ti[k, s], s == "bc" ? "" : sprintf("%.2f", ti[k, s] / ti[k, "bc"]), b
			}
		}
		print "| strategy | cells passing | truth ≥ 25 % below bc | EPD ≤ bc | time ≤ 2× bc | truth vs bc (best … median … worst) | EPD vs bc (best … worst) | time / bc |" > "/dev/stderr"
		print "|---|---|---|---|---|---|---|---|" > "/dev/stderr"
		for (j = 1; j <= ns; j++) {
			s = st[j]; if (s == "bc" || !(s in ncell)) continue
			n = ncell[s]; for (i = 1; i <= n; i++) v[i] = rs[s, i]
			for (i = 1; i <= n; i++) for (m = i + 1; m <= n; m++) if (v[m] < v[i]) {x = v[i]; v[i] = v[m]; v[m] = x}
			md = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
			printf "| %s | %d / %d | %d | %d | %d | %+.0f %% … %+.0f %% … %+.0f %% | %+.0f %% … %+.0f %% | %.2f … %.2f |\n", s, np[s], n, nt[s], ne[s], nti[s],
				100 * (rlo[s] - 1), 100 * (md - 1), 100 * (rhi[s] - 1), 100 * (elo[s] - 1), 100 * (ehi[s] - 1), tlo[s], thi[s] > "/dev/stderr"
		}
	}' "$summary" >"$table" 2>"$verdict"
	log "wrote $table and $verdict"
fi
# the plots: median truth error and median EPD per workload and machine, one
# bar per strategy (BB_SVG, and BB_SVG with -epd before .svg)
plot=$WORK/bb-plot.dat
svg_epd=${svg%.svg}-epd.svg
for col in 5 6; do
	[ $col = 6 ] && [ "$EVAL" != all ] && continue
	{
		printf 'cell'; for s in $STRATEGIES; do printf ' %s' "$s"; done; printf '\n'
		for m in $MACHINES; do for w in $WORKLOADS; do n=$(name_of "$w"); printf '%s/%s' "$m" "$n"
			for s in $STRATEGIES; do printf ' %s' "$(awk -F, -v a="$m" -v b="$n" -v c="$s" -v f=$col '$1 == a && $2 == b && $3 == c {print ($f == "" ? "NaN" : $f)}' "$summary")"; done
			printf '\n'; done; done
	} >"$plot"
	if [ $col = 5 ]; then
		o=$svg t="Median truth error (median over $SEEDS seeds), lower is better" y="truth median relative error"
	else
		o=$svg_epd t="EPD (median over $SEEDS seeds), lower is better; 1 = a fresh execution" y="EPD"
	fi
	gnuplot <<EOF
set terminal svg size 1000,440 font "sans,11"
set output "$o"
set title "$t"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key top left
set ylabel "$y"
set xtics rotate by -30
set yrange [0:*]
plot for [i=2:$(( $(echo $STRATEGIES | wc -w) + 1 ))] "$plot" using i:xtic(1) title columnheader(i)
EOF
done
log "wrote $out and the plots ($svg, with EVAL=all also $svg_epd)"
