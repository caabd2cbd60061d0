#!/usr/bin/env python3
"""Several GPUs against one: the same pair of ``configs/records2016.yaml`` at equal wall time
under ``mpiexec -n 1`` and ``mpiexec -n R`` (``parallel: {mode: chains}``: each rank its own
population of ``batch`` chains on the GPU of its node-local rank, the ranks sharing the best
graph every ``exchange_every`` steps). Run it on a machine with R GPUs.

    python scripts/bench_multi_gpu.py --only n1024d8 --ranks 1,2 --seconds 240
    python scripts/bench_multi_gpu.py --only n256d8 --set evaluator.chains=device

The runs go into the MPI benchmark's record as its experiment ``multi_gpu``
(``results/bench/mpi.json``, ``experiments``; ``--experiment NAME``: another name): for each
run the ranks, diameter, ASPL, excess ratio against the 2016 record, evaluations/s and the
command; runs of other pairs are kept. The MPI page gives one line on it: the pairs where more
GPUs beat one, or ``--shows TEXT``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile

from bench_quality import RECORDS, excess
from benchlib import (ROOT, describe_machine, experiment_args, load, load_experiment, machine,
                      new_record, render_experiment, run_problem, save_experiment)


WHAT = ("each run: `golf run CONFIG --only NAME --set parallel.mode=chains` under `mpiexec -n "
        "RANKS` (a GPU a rank), equal wall time, one seed (`search.seed`) a run; excess ratio "
        "as in results/quality/")


def shows(record) -> str | None:
    """The experiment's line: for each pair, more GPUs against one (excess ratios)."""
    by_pair: dict = {}
    for r in sorted(record["rows"].values(), key=lambda r: (r["n"], r["ranks"])):
        by_pair.setdefault((r["n"], r["d"]), {})[r["ranks"]] = r
    out = []
    for (n, d), runs in by_pair.items():
        one = runs.get(1)
        for ranks, r in sorted(runs.items()):
            if one is not None and ranks != 1:
                verdict = "beat" if r["aspl"] < one["aspl"] else "did not beat"
                out.append(f"({n}, {d}): {ranks} GPUs {verdict} 1 GPU (excess ratio "
                           f"{r['excess_ratio']:.3f} against {one['excess_ratio']:.3f})")
    return "; ".join(out) + ", one seed a run" if out else None


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--only", default="n1024d8", help="comma-separated pair names")
    p.add_argument("--ranks", default="1,2", help="comma-separated rank counts (GPUs)")
    p.add_argument("--seconds", type=float, default=240.0)
    p.add_argument("--config", default=os.path.join(ROOT, "configs", "records2016.yaml"))
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="a setting for every run (repeatable)")
    p.add_argument("--out", default=os.path.join(ROOT, "results", "bench", "mpi"),
                   help="the record that holds the experiment")
    p.add_argument("--merge", nargs="*", default=[], help="experiments (JSON) of runs made "
                   "elsewhere, or records holding the experiment, to merge into it; runs nothing")
    p.add_argument("--render", action="store_true", help="only write the page again from the "
                   "JSON (with --shows: the experiment's line first)")
    experiment_args(p, "multi_gpu")
    args = p.parse_args(argv)
    from bench_mpi import markdown

    if args.render:
        render_experiment(args.out, args.experiment, args.shows, markdown, "bench_multi_gpu")
        return
    record = load_experiment(args.out, args.experiment) or new_record(rows={}, what=WHAT)

    def save():
        save_experiment(args.out, args.experiment, record, markdown,
                        args.shows or shows(record))

    if args.merge:
        for path in args.merge:
            other = load(path[:-5] if path.endswith(".json") else path)
            other = (other.get("experiments") or {}).get(args.experiment, other)
            record["rows"].update(other["rows"])
            record.update({k: other[k] for k in ("date", "machine", "config") if k in other})
        record["command"] = " ".join(["python"] + sys.argv)
        save()
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
                save()
                print(json.dumps({k: row[k] for k in ("name", "ranks", "diameter", "aspl",
                                                      "excess_ratio")}), flush=True)


if __name__ == "__main__":
    sys.exit(main())
