#!/usr/bin/env bash
# Issue 21 on a real program (docs/results/beyond-bc.md, "Label proximity"):
# a deterministic recursive OpenMP-task mergesort (bench/repro/msort.c) on
# software events, duration the only linking event (--pmcs 2: three
# executions). References (`reference --repeat 3`), CAMPAIGNS campaigns
# (default 3), two independent complete runs (record, every event); every
# campaign fused by each of STRATEGIES; per fused profile: EPD against the
# references and the Spearman rank correlation, over fused XUs, of the
# fused task-clock with the task-clock of the XU with the same label in an
# independent run (the fused XU's base label, and its own label: bc's is
# the first common ancestor, often not a task of the run). Floors: EPD of
# an independent complete run, and the correlation of the two independent
# runs. Needs clang-16 (-fopenmp), perf software events, python3.
# N (default 2000000) elements, CUTOFF (default 4096), OMP_NUM_THREADS
# (default 2). Prints a table; profiles in $WORK/msort.
source "$(dirname "$0")/common.sh"
STRATEGIES=${STRATEGIES:-"bc bc-label bc-lgl lgl random"}
CAMPAIGNS=${CAMPAIGNS:-3}
N=${N:-2000000}
CUTOFF=${CUTOFF:-4096}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
E=page-faults,minor-faults,context-switches,task-clock,cpu-clock,sched:sched_switch
d=$WORK/msort
rm -rf "$d"; mkdir -p "$d"
clang-16 -O2 -g -fopenmp "$ROOT/bench/repro/msort.c" -o "$d/msort"
prog=("$d/msort" "$N" "$CUTOFF")
log "msort: references (--repeat 3)"
pm reference -q -e $E --repeat 3 --pmcs 2 -o "$d/refs" -- "${prog[@]}" >/dev/null
for r in 1 2; do
	pm record -q -e $E -o "$d/indep$r.pmcf" -- "${prog[@]}" >/dev/null
	pm export --format csv -o "$d/indep$r.csv" "$d/indep$r.pmcf"
done
rho() { # rho FUSED.csv INDEP.csv LABEL-COLUMN: Spearman of task-clock by label
	python3 - "$@" <<'PY'
import csv, sys
def ranks(x):
    o = sorted(range(len(x)), key=lambda i: x[i]); r = [0.0] * len(x); i = 0
    while i < len(o):
        j = i
        while j + 1 < len(o) and x[o[j + 1]] == x[o[i]]:
            j += 1
        for k in range(i, j + 1):
            r[o[k]] = (i + j) / 2
        i = j + 1
    return r
ev = "task-clock"
ind = {r["label"]: float(r[ev]) for r in csv.DictReader(open(sys.argv[2])) if r[ev] != ""}
a, b = [], []
for r in csv.DictReader(open(sys.argv[1])):
    if r[ev] != "" and r.get(sys.argv[3]) in ind:
        a.append(float(r[ev])); b.append(ind[r[sys.argv[3]]])
ra, rb = ranks(a), ranks(b); n = len(a)
ma, mb = sum(ra) / n, sum(rb) / n
c = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
v = (sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb)) ** 0.5
print("%.3f %d" % (c / v, n))
PY
}
printf '%-10s %-4s %8s %14s %14s\n' strategy camp epd "rho(base) n" "rho(label) n"
printf '%-10s %-4s %8s %14s %14s\n' complete - "$(pm epd --json "$d/indep1.pmcf" "$d/refs" | jq -r '.epd*1000|round/1000')" \
	"$(rho "$d/indep2.csv" "$d/indep1.csv" label)" "-"
for k in $(seq 1 "$CAMPAIGNS"); do
	pm run -q -e $E --pmcs 2 --keep "$d/c$k" -o "$d/run-$k.pmcf" -- "${prog[@]}" >/dev/null
	for s in $STRATEGIES; do
		f=$d/c$k-$s.pmcf
		pm combine -q --strategy "$s" --seed "$k" -o "$f" "$d/c$k"/exec-*.pmcf
		pm export --format csv --provenance -o "${f%.pmcf}.csv" "$f"
		printf '%-10s %-4s %8s %14s %14s\n' "$s" "$k" "$(pm epd --json "$f" "$d/refs" | jq -r '.epd*1000|round/1000')" \
			"$(rho "${f%.pmcf}.csv" "$d/indep1.csv" base_label)" "$(rho "${f%.pmcf}.csv" "$d/indep1.csv" label)"
	done
done
