#!/usr/bin/env bash
# `make demo`: the main job on the bundled example. Profiles the OpenMP tiled
# Cholesky factorisation (examples/cholesky.c) with six software events and
# tracepoints under a budget of two counters, fusing the executions into one
# profile; then does the same on the simulated Xeon with all 33 PAPI events,
# where the ground truth says how close the fused profile is.
set -euo pipefail
PMCFUSE=${1:-build/pmcfuse}
EX=$(dirname "$PMCFUSE")/examples
OUT=${OUT:-out}
mkdir -p "$OUT"
say() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }
EVENTS=page-faults,minor-faults,context-switches,cpu-migrations,task-clock,sched:sched_switch
# Tracepoints need tracefs and kernel-event permission (root mounts tracefs
# when needed); where they cannot be counted, cpu-clock takes the place.
if ! why=$("$PMCFUSE" events --check sched:sched_switch 2>&1 >/dev/null); then
	echo "note: ${why#pmcfuse: events: }" >&2
	echo "note: the demo counts cpu-clock in place of the tracepoint sched:sched_switch." >&2
	EVENTS=${EVENTS/sched:sched_switch/cpu-clock}
fi

if [ -x "$EX/cholesky" ]; then
	say pmcfuse run -e $EVENTS --pmcs 2 --strategy bc -o "$OUT/cholesky.pmcf" -- "$EX/cholesky" 8 64
	"$PMCFUSE" run -e $EVENTS --pmcs 2 --strategy bc --keep "$OUT/cholesky-runs" \
		-o "$OUT/cholesky.pmcf" -- "$EX/cholesky" 8 64
	say pmcfuse show "$OUT/cholesky.pmcf"
	"$PMCFUSE" show "$OUT/cholesky.pmcf"
	"$PMCFUSE" export --format csv -o "$OUT/cholesky.csv" "$OUT/cholesky.pmcf"
	echo "(one row per task instance, every event: $OUT/cholesky.csv)"
	if command -v gnuplot >/dev/null; then
		say pmcfuse report -o "$OUT/cholesky.html" "$OUT/cholesky.pmcf"
		"$PMCFUSE" report -o "$OUT/cholesky.html" "$OUT/cholesky.pmcf"
		echo "(open $OUT/cholesky.html in a browser: tables and plots per task type)"
	fi
else
	echo "The OpenMP examples were not built (clang-16 and libomp-16-dev missing): skipping the real program." >&2
fi

say pmcfuse run -e all --strategy bc -o "$OUT/sim.pmcf" --sim cholesky,blocks=12
"$PMCFUSE" run -e all --strategy bc -o "$OUT/sim.pmcf" --sim cholesky,blocks=12
say pmcfuse truth "$OUT/sim.pmcf"
"$PMCFUSE" truth "$OUT/sim.pmcf" | head -n 12
say pmcfuse record -e all --multiplex rr --period-ms 4 -o "$OUT/hem.pmcf" --sim cholesky,blocks=12
"$PMCFUSE" record -e all --multiplex rr --period-ms 4 -o "$OUT/hem.pmcf" --sim cholesky,blocks=12
say pmcfuse truth "$OUT/hem.pmcf" "   # multiplexing, for comparison: exact while an event keeps a counter, off when it shares one, missing when it never gets one"
"$PMCFUSE" truth "$OUT/hem.pmcf" | head -n 16
printf '\nProfiles are SQLite files in %s/ (pmcfuse show, export, report).\n' "$OUT"
