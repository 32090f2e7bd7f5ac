#!/usr/bin/env python3
# rate-of-change-multiplexing §4 (Tables 4-5) in simulation: the total of
# every event over a whole run under round-robin and under each
# rate-of-change cost (`roc`: the triangle in samples, `roc-counts`: in raw
# counts), all 34 events multiplexed on xeon32's counters, cumulative
# estimate, at each period of HEM_ROC_PERIODS ms, against non-multiplexed
# baseline runs (each event counted exactly in a set that fits, from
# `pmcfuse plan`, other seeds). Per event: the MSE of each scheduler against
# the baseline mean, the floor (the baseline runs' own variance: exact
# counting) and how many events never got a counter in any multiplexed run.
# R runs each (paper: 10). Writes OUTDIR/roc_sim[-v1].csv.
# Usage: roc_sim.py OUTDIR   (env: HEM_R, HEM_MODEL=v2|v1, HEM_ROC_PERIODS,
# HEM_ROC_MODES, HEM_ROC_WLS=name,... to pick workloads)
import csv, json, os, statistics, sys
from common import run, sim_events, pool_map

OUT = sys.argv[1] if len(sys.argv) > 1 else "hem-out"
R = int(os.environ.get("HEM_R", "3"))
MODEL = os.environ.get("HEM_MODEL", "v2")
PERIODS = os.environ.get("HEM_ROC_PERIODS", "4,1").split(",")
MODES = ["rr"] + os.environ.get("HEM_ROC_MODES", "roc,roc-counts").split(",")
ALL_WLS = {"cholesky": "cholesky,blocks=12", "seidel": "seidel,blocks=8",
           "kmeans": "kmeans,iters=4", "loops": "loops,reps=2", "knapsack": "knapsack,items=20"}
WLS = {w: f"{ALL_WLS[w]},model={MODEL}"
       for w in os.environ.get("HEM_ROC_WLS", ",".join(ALL_WLS)).split(",")}
SUFFIX = "" if MODEL == "v2" else f"-{MODEL}"
os.makedirs(OUT, exist_ok=True)
events = sim_events()

jobs, SETS = [], {}
for w, spec in WLS.items():
    plan = f"{OUT}/plan-{w}{SUFFIX}.json"
    run("plan", "-e", "all", "--sim", spec, "-o", plan)
    SETS[w] = json.load(open(plan))["sets"]
    for r in range(R):
        jobs += [(w, "base", "0", r, k) for k in range(len(SETS[w]))]
        jobs += [(w, m, p, r, 0) for m in MODES for p in PERIODS]


def one(job):
    w, m, p, r, k = job
    f = f"{OUT}/roc-{w}{SUFFIX}-{m}-{p}-{r}-{k}.pmcf"
    if m == "base":
        run("record", "-q", "--sim", f"{WLS[w]},seed={1000 + r}", "-e", ",".join(SETS[w][k]),
            "-o", f)
        never = 0
    else:
        s = json.loads(run("record", "--json", "--sim", f"{WLS[w]},seed={r + 1}", "-e", "all",
                           "--multiplex", m, "--period-ms", p, "-o", f).stdout)
        never = s["multiplex"]["never_counted"]
    run("export", "--format", "csv", "-o", f + ".csv", f)
    t = {}
    for row in csv.DictReader(open(f + ".csv")):
        for e in events:
            if row.get(e) not in (None, ""):
                t[e] = t.get(e, 0.0) + float(row[e])
    os.remove(f)
    os.remove(f + ".csv")
    return job, t, never


res = pool_map(one, jobs)
tot, never = {}, {}  # (w, m, p, r) -> {event: total}; (w, m, p) -> max never counted
for (w, m, p, r, k), t, nv in res:
    d = tot.setdefault((w, m, p, r), {})
    for e, v in t.items():
        d.setdefault(e, v)  # baseline sets share the fixed counters: keep the first
    never[(w, m, p)] = max(never.get((w, m, p), 0), nv)
tmp = f"{OUT}/roc_sim{SUFFIX}.csv.tmp"
with open(tmp, "w") as f:
    f.write("model,workload,period_ms,mode,event,base_mean,mse_floor,mse_rr,mse,"
            "improvement_pct,never_counted\n")
    for w in WLS:
        for p in PERIODS:
            for e in events:
                base = [tot[(w, "base", "0", r)][e] for r in range(R)
                        if e in tot[(w, "base", "0", r)]]
                if not base:
                    continue
                mu = statistics.mean(base)
                floor = statistics.mean((x - mu) ** 2 for x in base)
                mse = {}
                for m in MODES:
                    # an event with no value at all (never counted) is missing: error = mu
                    xs = [tot[(w, m, p, r)].get(e, 0.0) for r in range(R)]
                    mse[m] = statistics.mean((x - mu) ** 2 for x in xs)
                for m in MODES[1:]:
                    imp = 100 * (mse["rr"] - mse[m]) / mse["rr"] if mse["rr"] > 0 else 0.0
                    f.write(f"{MODEL},{w},{p},{m},{e},{mu:.6g},{floor:.6g},{mse['rr']:.6g},"
                            f"{mse[m]:.6g},{imp:.3f},{never[(w, m, p)]}\n")
                f.write(f"{MODEL},{w},{p},rr,{e},{mu:.6g},{floor:.6g},{mse['rr']:.6g},"
                        f"{mse['rr']:.6g},0.000,{never[(w, 'rr', p)]}\n")
os.replace(tmp, f"{OUT}/roc_sim{SUFFIX}.csv")
print(f"roc_sim: {len(res)} runs, model {MODEL}")
