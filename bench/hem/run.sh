#!/bin/bash
# Runs every HEM study (bench/hem) and writes docs/results/hem.md with its
# plots: ~3 minutes on a 2-core VM. Usage: bench/hem/run.sh [BUILD_DIR]
# (default build-hem); scratch files go to $HEM_OUT (default /tmp/pmcf-hem).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PMCFUSE="$(realpath "${1:-build-hem}")/pmcfuse"
OUT="${HEM_OUT:-/tmp/pmcf-hem}"
mkdir -p "$OUT"
start=$(date +%s)
HEM_NSETS="${HEM_NSETS:-2}" python3 bench/hem/epd_sim.py "$OUT"
HEM_R="${HEM_R:-10}" python3 bench/hem/roc_sim.py "$OUT"
if [ -x "$(dirname "$PMCFUSE")/examples/cholesky" ]; then
	python3 bench/hem/real_study.py "$OUT"
else
	echo "real study skipped: OpenMP examples not built"
fi
python3 bench/hem/report.py "$OUT" docs/results $(( $(date +%s) - start ))
