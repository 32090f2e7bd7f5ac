#!/usr/bin/env python3
# fuse-task-parallel §5.1 (Fig. 9) in simulation: EPD of multiplexed
# profiles against the number of multiplexed events (2 to 33) for periods
# 4, 1, 0.1 and 0.01 ms, coarse and fine cholesky, the three schedulers
# (kernel, rr, roc) and both estimators. Writes results/epd_sim.csv.
# Scaled down for a 2-core VM: NSETS random sets per size (paper: 30),
# reference with 2 repeats (paper: 3). Usage: epd_sim.py OUTDIR
import os, random, statistics, sys
from common import run, sim_events, pool_map

OUT = sys.argv[1] if len(sys.argv) > 1 else "hem-out"
NSETS = int(os.environ.get("HEM_NSETS", "3"))
SIZES = [2, 4, 8, 16, 24, 33]
PERIODS = [4, 1, 0.1, 0.01]
MODES = ["kernel", "rr", "roc"]
ESTS = ["cumulative", "local"]
WLS = {"coarse": "cholesky,blocks=8,bsize=128", "fine": "cholesky,blocks=16,bsize=64"}

os.makedirs(OUT, exist_ok=True)
events = sim_events()
rng = random.Random(7)
sets = {k: [rng.sample(events, k) for _ in range(NSETS)] for k in SIZES}
for name, spec in WLS.items():
    ref = f"{OUT}/ref-{name}"
    if not os.path.exists(f"{ref}/reference.json"):
        run("reference", "--sim", spec, "-e", "all", "--repeat", 2, "-o", ref)

jobs = [(w, k, i, p, m, e) for w in WLS for k in SIZES for i in range(NSETS) for p in PERIODS
        for m in MODES for e in ESTS]


def one(job):
    w, k, i, p, m, e = job
    f = f"{OUT}/epd-{w}-{k}-{i}-{p}-{m}-{e}.pmcf"
    run("record", "--sim", f"{WLS[w]},seed={100 + i}", "-e", ",".join(sets[k][i]), "--multiplex",
        m, "--period-ms", p, "--estimate", e, "-o", f)
    import json
    d = json.loads(run("epd", "--json", f, f"{OUT}/ref-{w}").stdout)
    os.remove(f)
    return (*job, d["epd"])


res = pool_map(one, jobs)
with open(f"{OUT}/epd_sim.csv", "w") as f:
    f.write("workload,events,set,period_ms,mode,estimate,epd\n")
    for r in res:
        f.write(",".join(map(str, r)) + "\n")
print(f"epd_sim: {len(res)} profiles scored")
