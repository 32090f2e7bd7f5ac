#!/usr/bin/env python3
# Side-by-side baseline for bench_emd: reads the histogram pairs bench_emd
# wrote (lines "n", then n rows "w x y", for a then b, pair after pair) and
# times POT's ot.emd2 on each with a precomputed Euclidean cost matrix, in a
# tight loop (what a user calls; the fastest of the calls, timed one by one, as
# bench_emd times pmcfuse), and also POT's C++ solver directly
# (ot.lp.emd_c, the same network simplex without emd2's argument checks and
# backend dispatch) to show how much of emd2's time is per-call overhead.
# Prints one JSON object: {"pot": version, "us_per_emd": [...],
# "us_per_emd_c": [...], "values": [...]}.
import json
import sys
import time

try:
    import numpy as np
    import ot
except ImportError as e:  # the bench reports our numbers only
    print(json.dumps({"error": "cannot import POT: %s" % e}))
    sys.exit(0)


def read_pairs(path):
    with open(path) as f:
        tok = f.read().split()
    pos, pairs = 0, []
    while pos < len(tok):
        sides = []
        for _ in range(2):
            n = int(tok[pos]); pos += 1
            a = np.array(tok[pos:pos + 3 * n], dtype=float).reshape(n, 3); pos += 3 * n
            sides.append(a)
        pairs.append(sides)
    return pairs


BATCH = 1  # calls timed together (1: the fastest single call); keep equal to bench_emd.c's


def fastest(call, reps):
    """Mean time of one call in microseconds: reps calls in batches of BATCH,
    the fastest batch (as bench_emd times pmcfuse)."""
    best, done = float("inf"), 0
    while done < reps:
        nr = min(BATCH, reps - done)
        t = time.perf_counter()
        for _ in range(nr):
            call()
        best = min(best, (time.perf_counter() - t) / nr * 1e6)
        done += nr
    return best


def main():
    path, reps = sys.argv[1], int(sys.argv[2])
    from ot.lp import emd_c
    out_us, out_c, out_val = [], [], []
    for a, b in read_pairs(path):
        wa, wb = a[:, 0] / a[:, 0].sum(), b[:, 0] / b[:, 0].sum()
        M = np.ascontiguousarray(ot.dist(a[:, 1:], b[:, 1:], metric="euclidean"))
        val = ot.emd2(wa, wb, M)
        out_us.append(fastest(lambda: ot.emd2(wa, wb, M), reps))
        out_c.append(fastest(lambda: emd_c(wa, wb, M, 100000, 1), reps))
        out_val.append(float(val))
    print(json.dumps({"pot": ot.__version__, "us_per_emd": out_us, "us_per_emd_c": out_c,
                      "values": out_val}))


main()
