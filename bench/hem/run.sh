#!/bin/bash
# Runs every HEM study (bench/hem) and writes docs/results/hem.md with its
# plots (HEM_MODEL=v3, the default: hem-v3.md; v2: hem.md; v1: hem-v1.md;
# v1 and v3 run the simulated studies only). Usage:
# bench/hem/run.sh [BUILD_DIR] (default build); scratch files go to $HEM_OUT
# (default /tmp/pmcf-hem). Sizes: HEM_NSETS, HEM_SIZES, HEM_PERIODS
# (epd_sim.py), HEM_R, HEM_ROC_PERIODS (roc_sim.py); the defaults take about
# an hour on a loaded 2-core VM, the page's own run says what it used.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PMCFUSE="$(realpath "${1:-build}")/pmcfuse"
export HEM_MODEL="${HEM_MODEL:-v3}" HEM_R="${HEM_R:-5}"
OUT="${HEM_OUT:-/tmp/pmcf-hem}"
mkdir -p "$OUT"
start=$(date +%s)
HEM_NSETS="${HEM_NSETS:-2}" python3 bench/hem/epd_sim.py "$OUT"
python3 bench/hem/roc_sim.py "$OUT"
if [ "$HEM_MODEL" = v2 ] && [ -x "$(dirname "$PMCFUSE")/examples/cholesky" ]; then
	python3 bench/hem/real_study.py "$OUT"
else
	echo "real study skipped: OpenMP examples not built, or not model v2"
fi
python3 bench/hem/report.py "$OUT" docs/results $(( $(date +%s) - start ))
