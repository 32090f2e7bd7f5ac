# Shared by the bench/repro scripts: where pmcfuse is, a scratch folder, and
# the output folder docs/results. Sourced, not run.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PMCFUSE=${PMCFUSE:-}
if [ -z "$PMCFUSE" ]; then
	for b in build build-rel build-rep; do
		[ -x "$ROOT/$b/pmcfuse" ] && { PMCFUSE="$ROOT/$b/pmcfuse"; break; }
	done
fi
[ -x "$PMCFUSE" ] || { echo "repro: build pmcfuse first (cmake -S . -B build && cmake --build build) or set PMCFUSE" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "repro: gnuplot is needed (apt-get install gnuplot-nox)" >&2; exit 2; }
command -v jq >/dev/null || { echo "repro: jq is needed" >&2; exit 2; }
WORK=${REPRO_WORK:-${TMPDIR:-/tmp}/pmcfuse-repro}
RESULTS=${REPRO_RESULTS:-$ROOT/docs/results}
mkdir -p "$WORK" "$RESULTS"
pm() { "$PMCFUSE" "$@"; }
log() { printf '[%s] %s\n' "$(date +%T)" "$*" >&2; }
# median, min and max of numbers on stdin: "med min max"
stats3() { sort -g | awk '{v[NR] = $1} END {m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.4g %.4g %.4g\n", m, v[1], v[NR]}'; }
# a workload spec as a short name: loops,schedule=static -> loops-static
name_of() { # loops,schedule=static -> loops-static
	local w=${1%%,*}
	[ "$w" = loops ] && w=loops-$(printf '%s' "$1" | sed 's/.*schedule=\([a-z]*\).*/\1/')
	printf '%s' "$w"
}
