#!/usr/bin/env bash
# `make demo`: the main job on the bundled example. Until the OpenMP collector
# and the combination land, it records a simulated tiled Cholesky factorisation
# (a task graph with ground truth) and shows what pmcfuse keeps of it.
set -euo pipefail
PMCFUSE=${1:-build/pmcfuse}
OUT=${OUT:-out}
mkdir -p "$OUT"
say() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }

say pmcfuse events --sim cholesky --source sim "| head"
"$PMCFUSE" events --sim cholesky --source sim | head -n 8

say pmcfuse record --sim cholesky,blocks=12,seed=1 -e PAPI_TOT_INS,PAPI_TOT_CYC,PAPI_L1_DCM,PAPI_BR_MSP -o "$OUT/demo.pmcf"
"$PMCFUSE" record --sim cholesky,blocks=12,seed=1 -e PAPI_TOT_INS,PAPI_TOT_CYC,PAPI_L1_DCM,PAPI_BR_MSP \
	-o "$OUT/demo.pmcf"

say pmcfuse show "$OUT/demo.pmcf"
"$PMCFUSE" show "$OUT/demo.pmcf"

say pmcfuse export --format csv --truth -o "$OUT/demo.csv" "$OUT/demo.pmcf"
"$PMCFUSE" export --format csv --truth -o "$OUT/demo.csv" "$OUT/demo.pmcf"
head -n 4 "$OUT/demo.csv" | cut -c1-160

say "pmcfuse record --sim cholesky,blocks=12 -e all -o $OUT/all.pmcf   # 33 events, a few counters"
"$PMCFUSE" record --sim cholesky,blocks=12 -e all -o "$OUT/all.pmcf" || true
printf '\nThe demo wrote %s/demo.pmcf (a SQLite profile) and %s/demo.csv.\n' "$OUT" "$OUT"
