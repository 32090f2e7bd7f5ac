#!/usr/bin/env python3
# The HEM studies with real software events on this machine (no hardware
# PMU on the VM): (1) rate-of-change-multiplexing §4: totals per event over
# a run under rr and roc (6 events on 2 counters) against single-event
# baseline runs, MSE improvement per event and per workload; (2) the
# run-time overhead of user-space rotation against the period (the shape of
# fuse-task-parallel Fig. 10), relative to the same program recorded without
# multiplexing. Writes OUTDIR/roc_real.csv and OUTDIR/overhead_real.csv.
import csv, os, statistics, sys, time
from common import run

OUT = sys.argv[1] if len(sys.argv) > 1 else "hem-out"
R = int(os.environ.get("HEM_REAL_R", "3"))
EX = os.environ.get("HEM_EXAMPLES", os.path.join(os.path.dirname(os.environ.get(
    "PMCFUSE", "build-hem/pmcfuse")), "examples"))
EVENTS = ["page-faults", "minor-faults", "context-switches", "cpu-migrations", "task-clock",
          "cpu-clock"]
WLS = {"cholesky": ["cholesky", "16", "64"], "knapsack": ["knapsack", "22", "10"],
       "loops": ["loops", "65536", "3", "1024"]}
os.makedirs(OUT, exist_ok=True)


def record(prog, events, extra, f):
    t = time.monotonic()
    run("record", "-e", ",".join(events), *extra, "-o", f, "--", os.path.join(EX, prog[0]),
        *prog[1:])
    dt = time.monotonic() - t
    run("export", "--format", "csv", "-o", f + ".csv", f)
    tot = {}
    for row in csv.DictReader(open(f + ".csv")):
        for e in events:
            if row.get(e) not in (None, ""):
                tot[e] = tot.get(e, 0.0) + float(row[e])
    os.remove(f)
    os.remove(f + ".csv")
    return tot, dt


rows = []
for w, prog in WLS.items():
    base = {e: [record(prog, [e], [], f"{OUT}/b.pmcf")[0].get(e, 0.0) for _ in range(R)]
            for e in EVENTS}
    mux = {m: [record(prog, EVENTS, ["--multiplex", m, "--pmcs", "2", "--period-ms", "0.5"],
                      f"{OUT}/m.pmcf")[0] for _ in range(R)] for m in ("rr", "roc")}
    for e in EVENTS:
        mu = statistics.mean(base[e])
        mse = {m: statistics.mean((t.get(e, 0.0) - mu) ** 2 for t in mux[m]) for m in mux}
        imp = 100 * (mse["rr"] - mse["roc"]) / mse["rr"] if mse["rr"] > 0 else 0.0
        rows.append((w, e, mu, mse["rr"], mse["roc"], imp))
with open(f"{OUT}/roc_real.csv", "w") as f:
    f.write("workload,event,base_mean,mse_rr,mse_roc,improvement_pct\n")
    for r in rows:
        f.write("%s,%s,%.6g,%.6g,%.6g,%.3f\n" % r)

# overhead against the period: cholesky 20 64, 6 events on 2 counters (the
# collector refuses periods below 0.02 ms: at 0.01 ms rotation outruns the program)
prog = ["cholesky", "20", "64"]
ref = statistics.median(record(prog, EVENTS, [], f"{OUT}/o.pmcf")[1] for _ in range(R))
with open(f"{OUT}/overhead_real.csv", "w") as f:
    f.write("mode,period_ms,median_s,relative\n")
    f.write(f"none,0,{ref:.4f},1.0\n")
    for m in ("rr", "roc"):
        for p in ("4", "1", "0.1", "0.05", "0.02"):
            t = statistics.median(record(prog, EVENTS, ["--multiplex", m, "--pmcs", "2",
                                                        "--period-ms", p],
                                         f"{OUT}/o.pmcf")[1] for _ in range(R))
            f.write(f"{m},{p},{t:.4f},{t / ref:.3f}\n")
print("real_study: done")
