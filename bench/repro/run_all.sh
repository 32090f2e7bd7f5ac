#!/usr/bin/env bash
# Runs every reproduction script of bench/repro in order (about 50 minutes
# on a loaded 2-core VM with fig11_12_epd.sh's defaults, five workloads and
# REPEATS=3; the pages used three workloads and REPEATS=2, 21 min:
# docs/results/README.md); results go to docs/results/ (CSV and PNG).
set -euo pipefail
dir=$(dirname "$0")
"$dir/fig06_alias.sh"
"$dir/fig11_12_epd.sh"
"$dir/fig13_15_correrr.sh"
