#!/usr/bin/env bash
# Ratios of issue 16's matrix (docs/results/matrix.csv, or the CSV given):
# per machine and workload, the median EPD of each strategy over its seeds,
# and random/BC and LGL/BC as median and min..max of the per-seed ratios
# (seed k of the strategy against seed k of BC), plus the worst case over
# all seed combinations (min of the strategy / max of BC). With one seed per
# strategy the three are equal. Called by matrix.sh.
set -euo pipefail
csv=${1:-$(cd "$(dirname "$0")/../.." && pwd)/docs/results/matrix.csv}
[ -f "$csv" ] || { echo "matrix_ratios: no $csv (run bench/repro/matrix.sh)" >&2; exit 2; }
printf "%-8s %-15s %6s %8s %8s %8s %8s  %-29s %-29s\n" machine workload seeds bc lgl random ctc "random/bc med (min-max) worst" "lgl/bc med (min-max) worst"
awk -F, '
NR == 1 {for (i = 1; i <= NF; i++) c[$i] = i; if (!("seed" in c)) c["seed"] = 0; next}
{k = $1 "," $2; s = $3; sd = c["seed"] ? $(c["seed"]) : 1; keys[k] = 1; strat[s] = 1
 e[k, s, sd] = $(c["epd"]); n[k, s]++; v[k, s, n[k, s]] = $(c["epd"]); seeds[k, sd] = 1}
function med(a, m,   i, j, t, x) { # median of x[1..m] (copied from a)
	for (i = 1; i <= m; i++) x[i] = a[i]
	for (i = 2; i <= m; i++) for (j = i; j > 1 && x[j - 1] > x[j]; j--) {t = x[j]; x[j] = x[j - 1]; x[j - 1] = t}
	return m % 2 ? x[(m + 1) / 2] : (x[m / 2] + x[m / 2 + 1]) / 2 }
function epdmed(k, s,   i, a) { for (i = 1; i <= n[k, s]; i++) a[i] = v[k, s, i]; return n[k, s] ? med(a, n[k, s]) : 0 }
function ratio(k, s,   kk, sd, a, m, lo, hi, r, mn, mx, i) { # "med (lo-hi) worst" of strategy s over bc
	m = 0; lo = 1e99; hi = -1e99
	for (kk in seeds) {split(kk, p, SUBSEP); if (p[1] != k) continue; sd = p[2]
		if (!((k, s, sd) in e) || !((k, "bc", sd) in e) || e[k, "bc", sd] == 0) continue
		r = e[k, s, sd] / e[k, "bc", sd]; a[++m] = r; if (r < lo) lo = r; if (r > hi) hi = r}
	if (!m) return "-"
	mn = 1e99; mx = -1e99
	for (i = 1; i <= n[k, s]; i++) if (v[k, s, i] < mn) mn = v[k, s, i]
	for (i = 1; i <= n[k, "bc"]; i++) if (v[k, "bc", i] > mx) mx = v[k, "bc", i]
	return sprintf("%.2f (%.2f-%.2f) %.2f", med(a, m), lo, hi, mn / mx) }
END {for (k in keys) {split(k, a, ",")
		printf "%-8s %-15s %6d %8.3f %8.3f %8.3f %8.3f  %-29s %-29s\n", a[1], a[2], n[k, "bc"], epdmed(k, "bc"), epdmed(k, "lgl"), epdmed(k, "random"), epdmed(k, "ctc"), ratio(k, "random"), ratio(k, "lgl")}}' "$csv" | sort -k1,1r -k2,2
