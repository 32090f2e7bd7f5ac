#!/usr/bin/env python3
# Per-seed statistics of the CSVs of beyond-bc.sh and link_auto.sh (the
# tables of docs/results/beyond-bc-v3.md and link-auto-v3.md beside the
# scripts' own): medians over seeds with the 10th-90th percentile spread,
# the random floor and the oracle ceiling beside every strategy, the share
# of the random-to-oracle gap each closes, and candidate/bc ratios paired by
# seed. Usage: seed_stats.py beyond-bc CSV | seed_stats.py link-auto CSV.
# The truth column is `truth`'s headline (mean over events of per-event
# mean relative errors, a missing value counting as 1).
import collections, csv, statistics, sys

# fuse-task-parallel §5.2 (Fig. 12): Xeon-192 medians of 3 profiles, BC and LGL EPD
PAPER192 = {"cholesky": (2.15, 3.16), "seidel": (2.82, 4.60), "kmeans": (2.32, 7.96)}


def num(x):
    try:
        v = float(x)
        return v if v == v else None
    except (TypeError, ValueError):
        return None


def pct(v, q):
    v = sorted(v)
    if not v:
        return None
    k = (len(v) - 1) * q
    i = int(k)
    return v[i] if i + 1 >= len(v) else v[i] + (v[i + 1] - v[i]) * (k - i)


def f(x, nd=3):
    return "–" if x is None else f"{x:.{nd}g}"


def spread(v):
    v = [x for x in v if x is not None]
    if not v:
        return "–"
    return f"{f(statistics.median(v))} [{f(pct(v, 0.1))}–{f(pct(v, 0.9))}]"


def load(path, strat_col, seed_col, truth_col, epd_col):
    d = collections.defaultdict(dict)  # (machine, workload) -> {(strategy, seed): (truth, epd)}
    for r in csv.DictReader(open(path)):
        if r[strat_col] == "bc-threads":
            continue
        d[(r["machine"], r["workload"])][(r[strat_col], r[seed_col])] = (num(r.get(truth_col)), num(r.get(epd_col)))
    return d


def cells_in_order(d):
    order = {"xeon32": 0, "xeon192": 1}
    return sorted(d, key=lambda c: (order.get(c[0], 9), c[1]))


def beyond(path):
    d = load(path, "strategy", "seed", "truth_mean", "epd")
    strategies = []
    for c in d:
        for s, _ in d[c]:
            if s not in strategies:
                strategies.append(s)
    cands = [s for s in strategies if s not in ("bc", "random", "oracle")]
    print("## Floor, BC, ceiling per cell (truth headline; median over seeds [10th–90th percentile])\n")
    print("| machine | workload | seeds | random (floor) | bc | oracle (ceiling) | gap closed by bc | best candidate: gap closed | EPD random / bc / lgl / oracle | LGL/BC EPD (paper) | random/BC EPD |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for c in cells_in_order(d):
        seeds = sorted({k for s, k in d[c] if s == "bc"}, key=int)
        col = lambda s, i: [d[c].get((s, k), (None, None))[i] for k in seeds]
        med = lambda s, i: statistics.median([x for x in col(s, i) if x is not None]) if any(x is not None for x in col(s, i)) else None
        r, b, o = med("random", 0), med("bc", 0), med("oracle", 0)
        gap = (r - b) / (r - o) if None not in (r, b, o) and r > o else None
        best = None
        for s in cands:
            m = med(s, 0)
            if m is not None and (best is None or m < best[1]):
                best = (s, m)
        bg = f"{best[0]} {100 * (r - best[1]) / (r - o):.0f} %" if best and gap is not None else "–"
        e = [med(s, 1) for s in ("random", "bc", "lgl", "oracle")]
        lb = e[2] / e[1] if e[1] and e[2] else None
        rb = e[0] / e[1] if e[1] and e[0] else None
        paper = PAPER192.get(c[1]) if c[0] == "xeon192" else None
        ps = f" ({paper[1] / paper[0]:.2f})" if paper else ""
        print(f"| {c[0]} | {c[1]} | {len(seeds)} | {spread(col('random', 0))} | {spread(col('bc', 0))} | {spread(col('oracle', 0))} | "
              f"{'–' if gap is None else f'{100 * gap:.0f} %'} | {bg} | {' / '.join(f(x) for x in e)} | {f(lb)}{ps} | {f(rb)} |")
    print("\n## Candidates against bc, paired by seed (truth headline)\n")
    print("| machine | workload | " + " | ".join(cands) + " |")
    print("|---|---|" + "---|" * len(cands))
    for c in cells_in_order(d):
        seeds = sorted({k for s, k in d[c] if s == "bc"}, key=int)
        cells = []
        for s in cands:
            rat, ep = [], 0
            for k in seeds:
                t, e = d[c].get((s, k), (None, None))
                tb, eb = d[c].get(("bc", k), (None, None))
                if t is not None and tb:
                    rat.append(t / tb)
                if e is not None and eb is not None and e <= eb:
                    ep += 1
            if not rat:
                cells.append("–")
                continue
            win = sum(x <= 0.75 for x in rat)
            cells.append(f"{100 * (statistics.median(rat) - 1):+.0f} % [{100 * (pct(rat, 0.1) - 1):+.0f}…{100 * (pct(rat, 0.9) - 1):+.0f}], "
                         f"≤ −25 %: {win}/{len(rat)}, EPD ≤ bc: {ep}/{len(rat)}")
        print(f"| {c[0]} | {c[1]} | " + " | ".join(cells) + " |")


def link_auto(path):
    d = load(path, "variant", "seed", "truth_mean", "epd")
    dm = load(path, "variant", "seed", "truth_median", "truth_p90")  # the v2 page's summary
    print("| machine | workload | seeds | truth: random (floor) | bc | auto | oracle (ceiling) | auto/bc paired [10th–90th] | seeds auto ≤ 0.75 × bc | EPD: random / bc / auto / oracle | auto/bc EPD paired | v2's summary: auto/bc median of medians / p90 |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for c in cells_in_order(d):
        seeds = sorted({k for v, k in d[c] if v == "bc"}, key=int)
        col = lambda v, i: [d[c].get((v, k), (None, None))[i] for k in seeds]
        rat = [a / b for a, b in zip(col("auto", 0), col("bc", 0)) if a is not None and b]
        erat = [a / b for a, b in zip(col("auto", 1), col("bc", 1)) if a is not None and b]
        em = lambda v: f(statistics.median([x for x in col(v, 1) if x is not None])) if any(x is not None for x in col(v, 1)) else "–"
        print(f"| {c[0]} | {c[1]} | {len(seeds)} | {spread(col('random', 0))} | {spread(col('bc', 0))} | {spread(col('auto', 0))} | "
              f"{spread(col('oracle', 0))} | {f(statistics.median(rat))} [{f(pct(rat, 0.1))}–{f(pct(rat, 0.9))}] | "
              f"{sum(x <= 0.75 for x in rat)}/{len(rat)} | {em('random')} / {em('bc')} / {em('auto')} / {em('oracle')} | "
              f"{f(statistics.median(erat)) if erat else '–'} | {f(mr(dm[c], seeds, 0))} / {f(mr(dm[c], seeds, 1))} |")


def mr(cell, seeds, i):
    """Median over seeds of auto/bc paired, of field i of the cell's rows."""
    v = [cell[("auto", k)][i] / cell[("bc", k)][i] for k in seeds
         if ("auto", k) in cell and ("bc", k) in cell and cell[("auto", k)][i] is not None and cell[("bc", k)][i]]
    return statistics.median(v) if v else None


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("beyond-bc", "link-auto"):
        sys.exit("usage: seed_stats.py beyond-bc|link-auto CSV")
    (beyond if sys.argv[1] == "beyond-bc" else link_auto)(sys.argv[2])
