#!/usr/bin/env python3
"""Several GPUs against one: the same pair of ``configs/records2016.yaml`` at equal wall time
under ``mpiexec -n 1`` and ``mpiexec -n R`` (``parallel: {mode: chains}``: each rank its own
population of ``batch`` chains on the GPU of its node-local rank, the ranks sharing the best
graph every ``exchange_every`` steps). Run it on a machine with R GPUs.

    python scripts/bench_multi_gpu.py --only n1024d8 --ranks 1,2 --seconds 240
    python scripts/bench_multi_gpu.py --only n256d8 --set evaluator.chains=device

Writes ``<out>.json`` and ``<out>.md`` (default ``results/gpu/multi_gpu``): for each run the
ranks, diameter, ASPL, excess ratio against the 2016 record, evaluations/s and the command;
runs of other pairs are kept.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile

from bench_quality import RECORDS, excess
from benchlib import (ROOT, describe_machine, header, load, machine, new_record, run_problem,
                      save, table)


def markdown(record) -> str:
    rows = sorted(record["rows"].values(), key=lambda r: (r["n"], r["ranks"]))
    lines = header("Several GPUs against one (Graph Golf 2016 pairs)", record,
                   f"each run: `golf run {record.get('config', 'CONFIG')} --only NAME --set "
                   "parallel.mode=chains` under `mpiexec -n RANKS` (a GPU a rank), equal wall "
                   "time; excess ratio as in results/quality/")
    lines += table(["pair", "ranks (GPUs)", "seconds", "D", "ASPL", "excess ratio",
                    "evaluations/s", "date", "machine"],
                   [(f"({r['n']}, {r['d']})", r["ranks"], f"{r['seconds']:.0f}", r["diameter"],
                     f"{r['aspl']:.6f}", f"{r['excess_ratio']:.3f}",
                     f"{r['evaluations_per_s']:,.0f}", r["date"][:10], r["machine"])
                    for r in rows])
    lines += ["", "Single seed (`search.seed`) per run; a run's result varies with its seed.", ""]
    by_pair = {}
    for r in rows:
        by_pair.setdefault(r["name"], {})[r["ranks"]] = r
    for name, runs in by_pair.items():
        one = runs.get(1)
        for ranks, r in sorted(runs.items()):
            if one is None or ranks == 1:
                continue
            verdict = "beat" if r["aspl"] < one["aspl"] else "did not beat"
            lines.append(f"- ({r['n']}, {r['d']}): {ranks} GPUs {verdict} 1 GPU "
                         f"(excess ratio {r['excess_ratio']:.3f} vs {one['excess_ratio']:.3f}).")
    lines += ["", "Each run's command and evaluator are in the JSON (`command`, `evaluator`)."]
    return "\n".join(lines) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--only", default="n1024d8", help="comma-separated pair names")
    p.add_argument("--ranks", default="1,2", help="comma-separated rank counts (GPUs)")
    p.add_argument("--seconds", type=float, default=240.0)
    p.add_argument("--config", default=os.path.join(ROOT, "configs", "records2016.yaml"))
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="a setting for every run (repeatable)")
    p.add_argument("--out", default=os.path.join(ROOT, "results", "gpu", "multi_gpu"))
    p.add_argument("--merge", nargs="*", default=[], help="records (JSON) of runs made "
                   "elsewhere to merge into --out; runs nothing")
    p.add_argument("--render", action="store_true", help="rewrite the page from the JSON "
                   "record; runs nothing")
    args = p.parse_args(argv)
    record = load(args.out) or new_record(rows={})
    if args.render:
        save(args.out, record, markdown(record))
        return
    if args.merge:
        for path in args.merge:
            other = load(path[:-5] if path.endswith(".json") else path)
            record["rows"].update(other["rows"])
            record.update({k: other[k] for k in ("date", "machine", "config") if k in other})
        record["command"] = " ".join(["python"] + sys.argv)
        save(args.out, record, markdown(record))
        return
    mach = machine()
    try:
        import cupy as cp

        from benchlib import gpu_machine

        mach = gpu_machine(cp)
    except ImportError:
        pass
    sets = ["parallel.mode=chains", *args.set]
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.only.split(","):
            n, d, _, best = RECORDS[name]
            for ranks in (int(x) for x in args.ranks.split(",")):
                folder = os.path.join(tmp, f"{name}_{ranks}")
                s, _ = run_problem(args.config, name, args.seconds, ranks, folder,
                                   cpu_only=False, sets=sets)
                b = s["best"]
                fresh = new_record()
                row = {"name": name, "n": n, "d": d, "ranks": ranks, "seconds": s["seconds"],
                       "diameter": b["diameter"], "aspl": b["aspl"],
                       "excess_ratio": excess(n, d, b["aspl"], best),
                       "evaluations_per_s": s["evaluations_per_s"],
                       "evaluator": s["evaluator"], "search": s["config"]["search"],
                       "date": fresh["date"], "command": fresh["command"],
                       "machine": describe_machine(mach), "commit": mach.get("commit")}
                record["rows"][f"{name}/{ranks}"] = row
                record.update(date=fresh["date"], command=fresh["command"], machine=mach,
                              config=os.path.relpath(args.config, ROOT))
                save(args.out, record, markdown(record))
                print(json.dumps({k: row[k] for k in ("name", "ranks", "diameter", "aspl",
                                                      "excess_ratio")}), flush=True)


if __name__ == "__main__":
    sys.exit(main())
