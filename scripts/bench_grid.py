#!/usr/bin/env python3
"""Grid benchmark: what golf reaches on the Graph Golf 2019 grid problems in a fixed time, and
how far that is from the lattice lower bound.

Each problem runs the real ``golf run configs/graphgolf2019_grid.yaml --only NAME`` for
``--seconds`` under ``mpiexec -n RANKS`` (one chain a core, GPUs hidden), in a temporary folder.
The record holds the diameter and ASPL reached, the lattice bounds (``golf bounds --grid``),
the ASPL gap to the bound in percent, evaluations/s, and the best graph, exported gzipped
under the competition's name into ``results/grid/graphs/``.

    python scripts/bench_grid.py                          # the problems with n <= 400, 120 s
    python scripts/bench_grid.py --only w10h10d6r3 --seconds 30
    python scripts/bench_grid.py --parallel 8   # 8 problems at once, 2 cores each (16 cores)

Targets (for the small problems): the diameter bound reached on (5x5,4,2), (10x10,6,3) and
(10x10,8,4), and an ASPL within 3% of the bound there.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

from benchlib import (ROOT, describe_machine, export_best, header, load, machine, new_record,
                      run_problem, save, table)

from golf.config import load_config
from golf.lower_bounds import grid_bounds

CONFIG = os.path.join(ROOT, "configs", "graphgolf2019_grid.yaml")
TARGETS = ("w5h5d4r2", "w10h10d6r3", "w10h10d8r4")
TARGET_TEXT = ("diameter bound reached and ASPL within 3% of the lattice bound on "
               + ", ".join(TARGETS))


def problems(max_n: int) -> list:
    return [r for r in load_config(CONFIG) if r["problem"]["n"] <= max_n]


def row_of(run, s, rd, ranks, folder) -> dict:
    p = run["problem"]
    (w, h), d, r = p["grid"], p["d"], p["r"]
    b = grid_bounds(w, h, d, r)
    best = s["best"]
    gap = 100.0 * (best["aspl"] / float(b.aspl) - 1.0)
    return {"name": run.name, "w": w, "h": h, "d": d, "r": r, "n": w * h,
            "g": s["config"]["problem"]["g"], "seconds": s["seconds"],
            "evaluations": s["evaluations"], "evaluations_per_s": s["evaluations_per_s"],
            "diameter": best["diameter"], "aspl": best["aspl"], "total": best["total"],
            "diameter_bound": b.diameter, "aspl_bound": float(b.aspl),
            "aspl_bound_fraction": str(b.aspl), "aspl_gap_percent": gap,
            "target": run.name in TARGETS,
            "target_met": best["diameter"] == b.diameter and gap <= 3.0,
            "ranks": ranks, "evaluator": s["evaluator"], "search": s["config"]["search"],
            "file": export_best(rd, folder, s)}


def verdict(rows) -> str:
    miss = [f"{r['name']}: diameter {r['diameter']} (bound {r['diameter_bound']}), ASPL gap "
            f"{r['aspl_gap_percent']:.2f}%" for r in rows if r["target"] and not r["target_met"]]
    done = {r["name"] for r in rows}
    absent = [t for t in TARGETS if t not in done]
    if miss:
        return "Target missed: " + "; ".join(miss) + "."
    return "Target met" + (f" on the problems measured (not measured: {', '.join(absent)})."
                           if absent else ".")


def markdown(record) -> str:
    rows = sorted(record["rows"].values(), key=lambda r: (r["n"], r["d"]))
    lines = header("Grid graphs: Graph Golf 2019 grid problems on the CPU", record,
                   f"target: {TARGET_TEXT}",
                   "gap = ASPL / lattice bound - 1 (the bound of `golf bounds --grid WxH D R`)",
                   "each problem: `golf run configs/graphgolf2019_grid.yaml --only NAME` with "
                   "search.time_limit set by --seconds, under `mpiexec -n RANKS` (one chain a "
                   "core); `at once` problems ran side by side, each on its own RANKS cores")
    cols = ["problem", "g", "seconds", "D (bound)", "ASPL", "ASPL bound", "gap", "evaluations/s",
            "ranks", "at once", "date"]
    lines += table(cols, [[f"({r['w']}x{r['h']}, {r['d']}, {r['r']})", r["g"],
                           f"{r['seconds']:.0f}", f"{r['diameter']} ({r['diameter_bound']})",
                           f"{r['aspl']:.6f}", f"{r['aspl_bound']:.6f}",
                           f"{r['aspl_gap_percent']:.2f}%", f"{r['evaluations_per_s']:,.0f}",
                           r["ranks"], r.get("at_once", 1), r["date"][:10]] for r in rows])
    lines += ["", f"Machine: {describe_machine(record['machine'])}; each row's commit is in the "
                  f"JSON (`commit`).", "", verdict(rows), "", "Best graphs:", ""]
    lines += [f"- {r['name']}: `{r['file']}`" for r in rows]
    return "\n".join(lines) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=120.0)
    p.add_argument("--ranks", type=int, default=2, help="MPI ranks (one a core)")
    p.add_argument("--max-n", type=int, default=400, help="the problems with n <= this")
    p.add_argument("--only", default=None, help="comma-separated problem names")
    p.add_argument("--parallel", type=int, default=1, help="problems run at once (each on its "
                   "own RANKS cores; a machine with PARALLEL * RANKS cores)")
    p.add_argument("--out", default=os.path.join(ROOT, "results", "grid", "bench_grid"))
    p.add_argument("--graphs", default=os.path.join(ROOT, "results", "grid", "graphs"))
    args = p.parse_args(argv)
    runs = problems(args.max_n)
    if args.only:
        wanted = args.only.split(",")
        unknown = set(wanted) - {r.name for r in load_config(CONFIG)}
        if unknown:
            sys.exit(f"bench_grid: no problem named {', '.join(sorted(unknown))}")
        runs = [r for r in load_config(CONFIG) if r.name in wanted]
    record = load(args.out) or new_record(rows={})
    mach = machine()
    busy = min(args.parallel, len(runs)) * args.ranks
    if args.parallel > 1 and busy > (os.cpu_count() or 1):
        sys.exit(f"bench_grid: {busy} ranks at once on {os.cpu_count()} cores")

    def one(run, tmp):
        s, rd = run_problem(CONFIG, run.name, args.seconds, args.ranks, tmp)
        return run, s, rd

    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(args.parallel) as pool:
        jobs = [pool.submit(one, run, os.path.join(tmp, run.name)) for run in runs]
        for job in jobs:
            run, s, rd = job.result()
            row = row_of(run, s, rd, args.ranks, args.graphs)
            fresh = new_record()
            row.update(date=fresh["date"], command=fresh["command"], commit=mach.get("commit"),
                       at_once=min(args.parallel, len(runs)))
            record["rows"][run.name] = row
            record.update(date=fresh["date"], command=fresh["command"], machine=mach)
            save(args.out, record, markdown(record))
            print(json.dumps({k: row[k] for k in ("name", "diameter", "diameter_bound", "aspl",
                                                  "aspl_gap_percent")}), flush=True)


if __name__ == "__main__":
    main()
