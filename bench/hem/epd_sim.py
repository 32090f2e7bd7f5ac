#!/usr/bin/env python3
# fuse-task-parallel §5.1 (Fig. 9) in simulation: EPD of multiplexed
# profiles against the number of multiplexed events (2 to 33) for periods
# 4, 1, 0.1 and 0.01 ms, coarse and fine cholesky, the three schedulers
# (kernel, rr, roc) and both estimators, and the floors a multiplexer is
# measured against: the same sets fused over several executions with BC and
# with random pairing and the oracle (`pmcfuse run --strategy bc|random|oracle`,
# period "-"; the oracle pairs by the truth: the ceiling of fusion).
# Writes OUTDIR/epd_sim[-v1].csv. Scaled down for a 2-core VM: NSETS random
# sets per size (paper: 30), reference with 2 repeats (paper: 3).
# Usage: epd_sim.py OUTDIR   (env: HEM_NSETS, HEM_MODEL=v2|v1, HEM_SIZES, HEM_PERIODS)
import json, os, random, sys
from common import run, sim_events, pool_map

OUT = sys.argv[1] if len(sys.argv) > 1 else "hem-out"
NSETS = int(os.environ.get("HEM_NSETS", "3"))
MODEL = os.environ.get("HEM_MODEL", "v2")
SUFFIX = "" if MODEL == "v2" else f"-{MODEL}"
SIZES = [int(k) for k in os.environ.get("HEM_SIZES", "2,4,8,16,24,33").split(",")]
PERIODS = os.environ.get("HEM_PERIODS", "4,1,0.1,0.01").split(",")
MODES = ["kernel", "rr", "roc"]
ESTS = ["cumulative", "local"]
FUSED = ["bc", "random", "oracle"]
WLS = {"coarse": f"cholesky,blocks=8,bsize=128,model={MODEL}",
       "fine": f"cholesky,blocks=16,bsize=64,model={MODEL}"}

os.makedirs(OUT, exist_ok=True)
events = sim_events()
rng = random.Random(7)
sets = {k: [rng.sample(events, k) for _ in range(NSETS)] for k in SIZES}
for name, spec in WLS.items():
    ref = f"{OUT}/ref-{name}{SUFFIX}"
    if not os.path.exists(f"{ref}/reference.json"):
        run("reference", "--sim", spec, "-e", "all", "--repeat", 2, "-o", ref)

jobs = [(w, k, i, p, m, e) for w in WLS for k in SIZES for i in range(NSETS) for p in PERIODS
        for m in MODES for e in ESTS]
jobs += [(w, k, i, "-", s, "-") for w in WLS for k in SIZES for i in range(NSETS) for s in FUSED]


def one(job):
    w, k, i, p, m, e = job
    f = f"{OUT}/epd-{w}{SUFFIX}-{k}-{i}-{p}-{m}-{e}.pmcf"
    spec = f"{WLS[w]},seed={100 + i}"
    if p == "-":  # fused over executions: the floor (random) and the method (bc)
        run("run", "-q", "--sim", spec, "-e", ",".join(sets[k][i]), "--strategy", m, "-o", f)
    else:
        run("record", "-q", "--sim", spec, "-e", ",".join(sets[k][i]), "--multiplex", m,
            "--period-ms", p, "--estimate", e, "-o", f)
    d = json.loads(run("epd", "--json", f, f"{OUT}/ref-{w}{SUFFIX}").stdout)
    os.remove(f)
    return (*job, d["epd"])


res = pool_map(one, jobs)
tmp = f"{OUT}/epd_sim{SUFFIX}.csv.tmp"
with open(tmp, "w") as f:
    f.write("workload,events,set,period_ms,mode,estimate,epd\n")
    for r in res:
        f.write(",".join(map(str, r)) + "\n")
os.replace(tmp, f"{OUT}/epd_sim{SUFFIX}.csv")
print(f"epd_sim: {len(res)} profiles scored")
