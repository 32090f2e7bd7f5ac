# Shared helpers of the HEM studies (bench/hem): run pmcfuse, read a
# profile's CSV, a 2-worker pool, gnuplot. Kept small on purpose.
import csv, io, json, os, subprocess, sys, tempfile
from concurrent.futures import ThreadPoolExecutor

PMCFUSE = os.environ.get("PMCFUSE", "build/pmcfuse")
JOBS = int(os.environ.get("HEM_JOBS", "2"))


def run(*args, check=True):
    r = subprocess.run([PMCFUSE, *map(str, args)], capture_output=True, text=True)
    if check and r.returncode != 0:
        sys.exit(f"pmcfuse {' '.join(map(str, args))}: {r.stderr.strip()}")
    return r


def sim_events(workload="cholesky"):
    out = run("events", "--sim", workload).stdout.splitlines()[1:]
    return [l.split()[0] for l in out if len(l.split()) > 2 and l.split()[1] == "sim"]


def export_rows(profile):
    """The profile's XUs as dicts (values as floats, '' -> None)."""
    with tempfile.NamedTemporaryFile(suffix=".csv") as f:
        run("export", "--format", "csv", "-o", f.name, profile)
        rows = list(csv.DictReader(open(f.name)))
    return rows


def totals(profile, events):
    rows = export_rows(profile)
    t = {}
    for e in events:
        vals = [float(r[e]) for r in rows if r.get(e) not in (None, "")]
        t[e] = sum(vals)
    return t


def pool_map(fn, items):
    with ThreadPoolExecutor(JOBS) as ex:
        return list(ex.map(fn, items))


def gnuplot(script):
    subprocess.run(["gnuplot"], input=script, text=True, check=True)
