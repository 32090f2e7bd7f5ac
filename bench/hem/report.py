#!/usr/bin/env python3
# Turns the HEM study CSVs into docs/results/hem.md (tables) and PNG plots
# (gnuplot): EPD vs number of events per period/scheduler/estimator
# (fuse-task-parallel Fig. 9), overhead vs period (Fig. 10), and the
# rate-of-change MSE improvements (rate-of-change-multiplexing Tables 4-5).
import csv, collections, os, statistics, sys
from common import gnuplot

OUT, DOC = sys.argv[1], sys.argv[2]
SECS = sys.argv[3] if len(sys.argv) > 3 else "?"
os.makedirs(DOC, exist_ok=True)
md = []
P = md.append

# ---- EPD against events
epd = collections.defaultdict(list)
for r in csv.DictReader(open(f"{OUT}/epd_sim.csv")):
    epd[(r["workload"], r["mode"], r["estimate"], r["period_ms"], int(r["events"]))].append(
        float(r["epd"]))
sizes = sorted({k[4] for k in epd})
periods = ["4", "1", "0.1", "0.01"]
nsets = len(next(iter(epd.values())))
for w in ("coarse", "fine"):
    for est in ("cumulative", "local"):
        dat = f"{OUT}/epd-{w}-{est}.dat"
        with open(dat, "w") as f:
            for m in ("kernel", "rr", "roc"):
                for p in periods:
                    f.write(f"# {m} {p}\n")
                    for k in sizes:
                        v = epd[(w, m, est, p, k)]
                        f.write(f"{k} {statistics.median(v)} {min(v)} {max(v)}\n")
                    f.write("\n\n")
        plots = []
        idx = 0
        for m in ("kernel", "rr", "roc"):
            for p in periods:
                dash = {"kernel": 1, "rr": 2, "roc": 3}[m]
                plots.append(f"'{dat}' index {idx} using 1:2 with linespoints dt {dash} "
                             f"lc {periods.index(p) + 1} title '{m} {p} ms'")
                idx += 1
        gnuplot(f"""set terminal png size 900,560
set output '{DOC}/hem-epd-{w}-{est}.png'
set title 'EPD vs multiplexed events, cholesky {w}, {est} estimate (median of {nsets} sets)'
set xlabel 'events multiplexed'; set ylabel 'EPD'; set key outside right; set grid
plot {", ".join(plots)}
""")

P("# Hardware event multiplexing studies\n")
P(f"Produced by `bench/hem/run.sh` in {SECS} s on a 2-core VM (software PMU only; the "
  "simulation uses the bundled xeon32 machine: 4 general + 3 fixed counters). "
  "Scripts: `bench/hem/`. Raw CSVs are written to `$HEM_OUT`.\n")
P("## 1. EPD against the number of multiplexed events (fuse-task-parallel §5.1, Fig. 9), simulation\n")
P(f"cholesky coarse = `blocks=8,bsize=128` (120 tasks), fine = `blocks=16,bsize=64` (816 shorter "
  f"tasks), same matrix. {nsets} random event sets per size (paper: 30), drawn once and reused "
  "for every period, scheduler and estimator; reference with `pmcfuse reference -e all --repeat 2` "
  "(paper: 3); EPD with 10 bins. Cells: median EPD over the sets.\n")
for w in ("coarse", "fine"):
    for est in ("cumulative", "local"):
        P(f"### {w}, {est} estimate\n")
        P(f"![EPD {w} {est}](hem-epd-{w}-{est}.png)\n")
        P("| scheduler | period ms | " + " | ".join(f"{k} ev" for k in sizes) + " |")
        P("|---|---|" + "---|" * len(sizes))
        for m in ("kernel", "rr", "roc"):
            for p in periods:
                P(f"| {m} | {p} | " + " | ".join(
                    f"{statistics.median(epd[(w, m, est, p, k)]):.2f}" for k in sizes) + " |")
        P("")


def mean_over(pred):
    v = [statistics.median(x) for k, x in epd.items() if pred(k)]
    return statistics.mean(v) if v else float("nan")


P("### Trends\n")
P("| factor | mean of medians |\n|---|---|")
for w in ("coarse", "fine"):
    P(f"| {w} tasks, all sizes ≥ 8 | {mean_over(lambda k: k[0] == w and k[4] >= 8):.2f} |")
for est in ("cumulative", "local"):
    for p in periods:
        P(f"| {est}, period {p} ms, sizes ≥ 8 | "
          f"{mean_over(lambda k: k[2] == est and k[3] == p and k[4] >= 8):.2f} |")
for m in ("kernel", "rr", "roc"):
    P(f"| scheduler {m}, sizes ≥ 8 | {mean_over(lambda k: k[1] == m and k[4] >= 8):.2f} |")
P("")


# ---- rate-of-change tables
def roc_tables(path, title, label):
    rows = list(csv.DictReader(open(path)))
    byw = collections.defaultdict(list)
    bye = collections.defaultdict(list)
    for r in rows:
        if float(r["mse_rr"]) == 0 and float(r["mse_roc"]) == 0:
            continue  # counted exactly by both (fixed counters, constant events)
        v = float(r["improvement_pct"])
        byw[r["workload"]].append(v)
        bye[r["event"]].append(v)
    P(f"## {title}\n")
    P("Improvement = (MSE_rr − MSE_roc) / MSE_rr × 100 of the run totals against the mean "
      "of the baseline runs (positive: rate-of-change better). Events that both schedulers "
      "count exactly (MSE 0) are left out. The mean of percentages is dominated by a few "
      "events where rate-of-change is far worse (the percentage is unbounded below), so the "
      "median and the share of events improved are given too.\n")
    P(f"Table 4 ({label}): per workload, over events\n")
    P("| workload | mean % | median % | events improved |\n|---|---|---|---|")
    allv = []
    for w, v in byw.items():
        allv += v
        P(f"| {w} | {statistics.mean(v):.1f} | {statistics.median(v):.1f} | "
          f"{sum(x > 0 for x in v)}/{len(v)} |")
    if allv:
        P(f"| **all** | {statistics.mean(allv):.1f} | {statistics.median(allv):.1f} | "
          f"{sum(x > 0 for x in allv)}/{len(allv)} |")
    P(f"\nTable 5 ({label}): per event, over workloads\n")
    P("| event | mean % | median % | workloads improved |\n|---|---|---|---|")
    for e, v in sorted(bye.items()):
        P(f"| {e} | {statistics.mean(v):.1f} | {statistics.median(v):.1f} | "
          f"{sum(x > 0 for x in v)}/{len(v)} |")
    P("")
    # bar chart of per-event medians
    dat = path + ".dat"
    with open(dat, "w") as f:
        for e, v in sorted(bye.items()):
            f.write(f"{e} {statistics.median(v)}\n")
    return dat


d1 = roc_tables(f"{OUT}/roc_sim.csv",
                "2. Rate-of-change against round-robin, simulation (rate-of-change-multiplexing §4)",
                "simulation: 34 events on xeon32, period 0.1 ms, cumulative, 10 runs each")
P("![roc sim](hem-roc-sim.png)\n")
gnuplot(f"""set terminal png size 1000,500
set output '{DOC}/hem-roc-sim.png'
set title 'Simulation: MSE improvement of rate-of-change over round-robin (median over workloads)'
set style fill solid; set boxwidth 0.7; set xtics rotate by -60 font ',8'; set grid y
set ylabel '%'; set yrange [-100:100]
plot '{d1}' using 0:2:xtic(1) with boxes notitle
""")
if os.path.exists(f"{OUT}/roc_real.csv"):
    d2 = roc_tables(f"{OUT}/roc_real.csv",
                    "3. Rate-of-change against round-robin, real software events on this VM",
                    "real: cholesky 16 64, knapsack 22 10, loops 65536 3 1024; 6 software "
                    "events on --pmcs 2, period 0.5 ms, cumulative; 3 runs each, single-event "
                    "baselines 3 runs each")
    P("![roc real](hem-roc-real.png)\n")
    gnuplot(f"""set terminal png size 800,450
set output '{DOC}/hem-roc-real.png'
set title 'Real software events: MSE improvement of roc over rr (median over workloads)'
set style fill solid; set boxwidth 0.7; set grid y; set ylabel '%'
plot '{d2}' using 0:2:xtic(1) with boxes notitle
""")
    rows = list(csv.DictReader(open(f"{OUT}/overhead_real.csv")))
    P("## 4. Run-time overhead against the period (fuse-task-parallel Fig. 10), real\n")
    P("`cholesky 20 64`, 6 software events, median of 3 wall times of `pmcfuse record` relative "
      "to the same recording without multiplexing (noise of ±25 % at long periods on this VM).\n")
    P("| scheduler | period ms | median s | relative |\n|---|---|---|---|")
    for r in rows:
        P(f"| {r['mode']} | {r['period_ms']} | {r['median_s']} | {r['relative']} |")
    P("\n![overhead](hem-overhead.png)\n")
    with open(f"{OUT}/overhead.dat", "w") as f:
        for m in ("rr", "roc"):
            for r in rows:
                if r["mode"] == m:
                    f.write(f"{r['period_ms']} {r['relative']}\n")
            f.write("\n\n")
    gnuplot(f"""set terminal png size 700,450
set output '{DOC}/hem-overhead.png'
set title 'User-space multiplexing: run time relative to no multiplexing'
set logscale xy; set xlabel 'period (ms)'; set ylabel 'relative run time'; set grid
plot '{OUT}/overhead.dat' index 0 using 1:2 with linespoints title 'rr', \\
     '' index 1 using 1:2 with linespoints title 'roc'
""")
P('''## 5. Reading the results against the papers

- **EPD grows with the number of multiplexed events** (every table above: sets of 2 and 4
  fit the counters and score the reference's own spread, ~1; from 8 events on EPD climbs),
  as in fuse-task-parallel Fig. 9.
- **Finer tasks are worse**: fine cholesky has about twice the EPD of coarse at the same
  sizes (trend table), as cholesky_b7 vs cholesky_b8 in the paper.
- **Shorter periods help the local estimator** monotonically (4 → 0.01 ms roughly halves
  then quarters EPD), the paper's finding. The cumulative estimator (what PAPI_read users
  get) does not improve monotonically: its per-XU value is the difference of two
  extrapolated totals, whose jumps at each rotation (a new running/enabled ratio applied to
  the whole history) are larger than a short XU's count, and more frequent rotations add
  more of them; it even yields negative values. This is why the local estimator exists.
- **Schedulers**: the kernel's rotation (stops at the first group that does not fit)
  wastes counters and has the highest EPD; rr and roc fill every counter and are close
  to each other in EPD.
- **Rate-of-change vs round-robin on totals**: with real software events, roc improves the
  MSE of the run totals on most cholesky events (5/6) and overall median +28 %, the paper's
  direction (its Table 4 is positive for every benchmark), with only 3 runs each, so noisy
  (context-switches and page-faults lose). In simulation roc does *not* beat rr on most
  events (median 0 %, about a quarter improved, large losses on branch events of kmeans):
  the simulated rates are piecewise constant within XUs, so the triangles measure phase
  switches of the high-count events; the paper's cost (eq. 5) is in count units and not
  normalised, so high-count events (instructions, loads, branches) hold the counters and
  low-count events only get the starvation guard's share, which makes their totals worse
  than round-robin's even share. The paper's Table 5 shows the same kind of losers
  (branch-misses −10 %, iL1-misses −9 %); we report the median besides the mean because
  the percentage is unbounded below.
- **Overhead** rises steeply below 0.1 ms (Fig. 10's shape): each rotation costs 2 + 2n
  system calls in the signal handler, ~10 µs on this VM; at 0.01 ms the program makes no
  progress, so the collector refuses periods below 0.02 ms. Timings at 1-4 ms are within
  this VM's noise.
''')
open(f"{DOC}/hem.md", "w").write("\n".join(md) + "\n")
print(f"wrote {DOC}/hem.md")
