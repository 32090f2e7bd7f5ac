#!/usr/bin/env python3
# rate-of-change-multiplexing §4 (Tables 4-5) in simulation: the total of
# every event over a whole run under round-robin and under rate-of-change
# (all 34 events multiplexed on xeon32's counters, cumulative estimate,
# period HEM_ROC_PERIOD ms) against non-multiplexed baseline runs (each event
# counted exactly in a set that fits, from `pmcfuse plan`); MSE of each
# scheduler against the baseline mean and the improvement
# (MSE_rr - MSE_roc) / MSE_rr per event and per workload. R runs each
# (paper: 10 runs, 4th lowest); writes OUTDIR/roc_sim.csv.
import os, statistics, sys
from common import run, sim_events, totals, pool_map

OUT = sys.argv[1] if len(sys.argv) > 1 else "hem-out"
R = int(os.environ.get("HEM_R", "5"))
PERIOD = os.environ.get("HEM_ROC_PERIOD", "0.1")
WLS = {"cholesky": "cholesky,blocks=12", "seidel": "seidel,blocks=8", "kmeans": "kmeans,iters=4",
       "loops": "loops,reps=2", "knapsack": "knapsack,items=20"}
os.makedirs(OUT, exist_ok=True)
events = sim_events()
import json

jobs = []
SETS = {}
for w, spec in WLS.items():
    plan = f"{OUT}/plan-{w}.json"
    run("plan", "-e", "all", "--sim", spec, "-o", plan)
    SETS[w] = json.load(open(plan))["sets"]
    nsets = len(SETS[w])
    for r in range(R):
        for k in range(nsets):
            jobs.append((w, "base", r, k))
        for m in ("rr", "roc"):
            jobs.append((w, m, r, 0))


def one(job):
    w, m, r, k = job
    f = f"{OUT}/roc-{w}-{m}-{r}-{k}.pmcf"
    if m == "base":
        run("record", "--sim", f"{WLS[w]},seed={1000 + r}", "-e", ",".join(SETS[w][k]), "-o", f)
    else:
        run("record", "--sim", f"{WLS[w]},seed={r + 1}", "-e", "all", "--multiplex", m,
            "--period-ms", PERIOD, "-o", f)
    rows = run("export", "--format", "csv", "-o", f + ".csv", f)
    import csv
    t = {}
    for row in csv.DictReader(open(f + ".csv")):
        for e in events:
            if row.get(e) not in (None, ""):
                t[e] = t.get(e, 0.0) + float(row[e])
    os.remove(f)
    os.remove(f + ".csv")
    return job, t


res = pool_map(one, jobs)
tot = {}  # (w, m, r) -> {event: total}
for (w, m, r, k), t in res:
    d = tot.setdefault((w, m, r), {})
    for e, v in t.items():
        d.setdefault(e, v)  # baseline sets share the fixed counters: keep the first
with open(f"{OUT}/roc_sim.csv", "w") as f:
    f.write("workload,event,base_mean,mse_rr,mse_roc,improvement_pct\n")
    for w in WLS:
        for e in events:
            base = [tot[(w, "base", r)][e] for r in range(R) if e in tot[(w, "base", r)]]
            if not base:
                continue
            mu = statistics.mean(base)
            mse = {}
            for m in ("rr", "roc"):
                xs = [tot[(w, m, r)].get(e, 0.0) for r in range(R)]
                mse[m] = statistics.mean((x - mu) ** 2 for x in xs)
            imp = 100 * (mse["rr"] - mse["roc"]) / mse["rr"] if mse["rr"] > 0 else 0.0
            f.write(f"{w},{e},{mu:.6g},{mse['rr']:.6g},{mse['roc']:.6g},{imp:.3f}\n")
print(f"roc_sim: {len(res)} runs")
