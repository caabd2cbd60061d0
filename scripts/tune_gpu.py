#!/usr/bin/env python3
"""Short runs of a record config over a grid of settings, spread over the GPUs of one machine
(one run a GPU at a time, so that no two runs share a GPU), to choose the settings of
``configs/records2016.yaml``.

    python scripts/tune_gpu.py --only n256d8,n64d8 --seconds 60 \\
        --grid search.batch=128,512 --grid evaluator.chain_threads=32,256 --budget 560

Every pair runs once for each combination of the ``--grid`` values (``KEY=V1,V2,...``, the
product of all of them), with ``--set`` settings common to all. ``--budget`` stops starting runs
that would end after that many seconds (a device call's limit). The runs go into the search
benchmark's record as its experiment ``tune`` (``results/search/bench_search.json``,
``experiments``; ``--experiment NAME``: another name): each run's settings, diameter, ASPL,
excess ratio, evaluations a second in all and a chain; the page gives one line on it
(``--shows TEXT``). A run already in the experiment (same pair, seconds and settings, common
ones included) is not run again, so a grid can be spread over several calls. ``--cpu`` runs on
the CPU instead (one run a worker, ``--workers`` at a time), e.g. to check the script.
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from bench_quality import RECORDS, excess
from benchlib import (ROOT, describe_machine, experiment_args, load_experiment, machine,
                      new_record, render_experiment, run_problem, save_experiment)


def parse_grid(items) -> list[tuple[str, list[str]]]:
    """``["a.b=1,2", "c=x"]`` -> ``[("a.b", ["1", "2"]), ("c", ["x"])]``."""
    out = []
    for item in items:
        key, sep, values = item.partition("=")
        if not sep or not key or not values:
            sys.exit(f"--grid {item!r}: expected KEY=V1,V2,...")
        out.append((key, values.split(",")))
    return out


def combos(grid) -> list[tuple[str, ...]]:
    """Every combination of the grid's values, each as ``KEY=VALUE`` items."""
    keys = [k for k, _ in grid]
    return [tuple(f"{k}={v}" for k, v in zip(keys, vals))
            for vals in itertools.product(*(vs for _, vs in grid))]


def key_of(name: str, seconds: float, settings) -> str:
    return f"{name} {seconds:g}s " + " ".join(settings)


WHAT = ("each run `golf run CONFIG --only NAME --set KEY=VALUE ...` alone on its GPU; excess "
        "ratio as in results/quality/ (1.0 matches the 2016 record); a chain's evaluations/s "
        "= evaluations/s / search.batch; one seed a run: differences within a pair smaller "
        "than the spread between seeds are not a ranking")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--only", default="n256d8", help="comma-separated pair names")
    p.add_argument("--seconds", type=float, default=60.0)
    p.add_argument("--grid", action="append", default=[], metavar="KEY=V1,V2,...",
                   help="a setting and its values to try (repeatable; all combinations run)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="a setting for every run (repeatable)")
    p.add_argument("--config", default=os.path.join(ROOT, "configs", "records2016.yaml"))
    p.add_argument("--budget", type=float, default=None,
                   help="start no run that would end after this many seconds from now")
    p.add_argument("--cpu", action="store_true", help="run on the CPU, no GPU")
    p.add_argument("--workers", type=int, default=None,
                   help="runs at a time (default: the GPUs, or 1 with --cpu)")
    experiment_args(p, "tune", ("search", "bench_search"))
    args = p.parse_args(argv)
    from bench_search import markdown

    if args.render:
        render_experiment(args.out, args.experiment, args.shows, markdown, "tune_gpu")
        return
    t0 = time.monotonic()
    names = args.only.split(",")
    for name in names:
        if name not in RECORDS:
            sys.exit(f"--only: unknown pair {name!r} (known: {', '.join(RECORDS)})")
    mach = machine()
    slots = [None] * (args.workers or 1)
    if not args.cpu:
        import cupy as cp

        from benchlib import gpu_machine

        mach = gpu_machine(cp)
        slots = list(range(cp.cuda.runtime.getDeviceCount()))[:args.workers or None]
    record = load_experiment(args.out, args.experiment) or new_record(rows={}, what=WHAT)
    jobs = [(name, settings) for name in names for settings in combos(parse_grid(args.grid))
            if key_of(name, args.seconds, [*args.set, *settings]) not in record["rows"]]
    print(f"{len(jobs)} runs of {args.seconds:g} s on {len(slots)} "
          f"{'workers' if args.cpu else 'GPUs'}", flush=True)
    free = list(slots)
    lock = threading.Lock()

    def one(job, tmp):
        name, settings = job
        # a run takes its time limit plus ~15 s of start, compile and export
        if args.budget is not None and time.monotonic() - t0 + args.seconds + 15 > args.budget:
            print(f"{name} {' '.join(settings)}: not run (--budget {args.budget:g} s)",
                  flush=True)
            return
        with lock:
            gpu = free.pop()
        try:
            folder = os.path.join(tmp, f"{name}_{abs(hash(settings))}")
            s, _ = run_problem(args.config, name, args.seconds, 1, folder, cpu_only=args.cpu,
                               sets=[*args.set, *settings], gpu=gpu)
        finally:
            with lock:
                free.append(gpu)
        n, d, _, best = RECORDS[name]
        b = s["best"]
        fresh = new_record()
        row = {"name": name, "n": n, "d": d, "seconds": s["seconds"],
               "settings": list(settings), "common": list(args.set),
               "batch": s["config"]["search"]["batch"], "diameter": b["diameter"],
               "aspl": b["aspl"], "excess_ratio": excess(n, d, b["aspl"], best),
               "evaluations_per_s": s["evaluations_per_s"], "evaluator": s["evaluator"],
               "date": fresh["date"], "command": fresh["command"],
               "machine": describe_machine(mach), "commit": mach.get("commit")}
        with lock:
            record["rows"][key_of(name, args.seconds, [*args.set, *settings])] = row
            record.update(date=fresh["date"], command=fresh["command"], machine=mach,
                          config=os.path.relpath(args.config, ROOT))
            save_experiment(args.out, args.experiment, record, markdown, args.shows)
        print(f"{name} {' '.join(settings)}: D {b['diameter']} ASPL {b['aspl']:.6f} "
              f"excess {row['excess_ratio']:.3f}, {s['evaluations_per_s']:,.0f} evaluations/s",
              flush=True)

    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(len(slots)) as pool:
        for f in [pool.submit(one, job, tmp) for job in jobs]:
            f.result()


if __name__ == "__main__":
    sys.exit(main())
