#!/usr/bin/env bash
# Runs every reproduction script of bench/repro in order (about 5 minutes on
# a 2-core VM); results go to docs/results/ (CSV and PNG).
set -euo pipefail
dir=$(dirname "$0")
"$dir/fig06_alias.sh"
"$dir/fig11_12_epd.sh"
"$dir/fig13_15_correrr.sh"
