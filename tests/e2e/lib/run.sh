#!/usr/bin/env bash
# Runs one end-to-end script in a fresh scratch folder with the helpers below.
set -euo pipefail
rm -rf "$TESTDIR" && mkdir -p "$TESTDIR" && cd "$TESTDIR"
# shellcheck source=/dev/null
source "$SRCDIR/tests/e2e/lib/assert.sh"
# shellcheck source=/dev/null
source "$1"
echo "ok: $(basename "$1") ($ASSERTIONS assertions)"
