#!/usr/bin/env python3
"""Time a step of annealing chains on the GPU (``chains: device``, ``cuda/anneal.cu``): K
chains step together, one block each, and the time of N steps of all of them over N is the
time of one chain's step -- the depth a chain reaches in a given time, which the records need
(a population of chains that each take fewer steps does not make up for it).

Each ``--source`` is an ``anneal.cu`` to time: a file, or ``REV:`` for the file at a git
revision (``9e27a94:``); the default is the working tree's. Every source runs the same chains
(same graphs, seeds, temperatures), so their walks are equal and only the time differs.

    python scripts/bench_chain_steps.py                           # the working tree's kernel
    python scripts/bench_chain_steps.py --source 9e27a94: --source golf/evaluators/cuda/anneal.cu
    python scripts/bench_chain_steps.py --chains 128,16 --speculate 1,8,64   # search.speculate

With ``--speculate`` k > 1 the chains walk other paths than with k = 1 (each setting its own
walk), and a step of them counts as a step: a round of k candidates that ends at an accepted
one is fewer steps than k, so the time of a step falls with the acceptance rate. The rate is
in the JSON (``accepted``), and ``--frac`` sets where in the schedule the steps are timed (the
temperature, hence the rate: a run's later part accepts a few per cent).

The run goes into the search benchmark's record as its experiment ``chain_steps``
(``results/search/bench_search.json``, ``experiments``; ``--experiment NAME``: another name),
whose page gives one line on it: ``--shows TEXT`` (or later ``--render --shows TEXT``) says
what it showed.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import subprocess
import tempfile
import time

from benchlib import ROOT, experiment_args, new_record, render_experiment, save_experiment

ANNEAL = "golf/evaluators/cuda/anneal.cu"
# (n, d, g, threads a block or None for the default): the pairs whose chains fit a block
# at the symmetries the experiment chain_steps was measured at
PROBLEMS = [(64, 8, 4, None), (64, 8, 4, 32), (96, 3, 1, None), (256, 8, 32, None),
            (1024, 8, 128, None)]


def source_file(spec: str, tmp: str) -> pathlib.Path:
    """The file of ``spec``: a path, or ``REV:`` for anneal.cu at git revision REV."""
    if spec.endswith(":"):
        text = subprocess.run(["git", "show", f"{spec}{ANNEAL}"], cwd=ROOT, check=True,
                              capture_output=True, text=True).stdout
        path = pathlib.Path(tmp) / f"anneal_{spec[:-1]}.cu"
        path.write_text(text)
        return path
    return pathlib.Path(spec if os.path.isabs(spec) else os.path.join(ROOT, spec))


def time_steps(n, d, g, threads, K, steps, speculate=1, frac=0.3) -> dict:
    """Microseconds a step of K device chains on a random (n, d, g) graph, best of 3 runs of
    ``steps`` steps (after a warm-up that compiles the kernel)."""
    from golf.engine.annealer import SC
    from golf.evaluators import make_evaluator
    from golf.starts.random import random_graph
    from golf.engine.population import BatchAnnealer

    graph = random_graph(n, d, g, seed=1)
    ev = make_evaluator("gpu-bitset", n, d, g, chains="device", chain_threads=threads)
    b = BatchAnnealer(graph, ev, K, population="none", population_every=10**9,
                      exchange_every=0, steps=0, seed=1, voltage_moves=0.3,
                      speculate=speculate)
    t0, t1, _ = b.auto_temperatures()
    b.set_temperatures(t0, t1)
    b.run(300, time_frac=frac)
    best = float("inf")
    for r in range(3):
        start = time.perf_counter()
        b.run(steps, time_frac=frac + 0.1 * r)
        best = min(best, time.perf_counter() - start)
    return {"n": n, "d": d, "g": g, "threads": ev._chain_threads(), "K": K, "steps": steps,
            "speculate": speculate,
            "us_per_step": 1e6 * best / steps,
            "accepted": float(b.scs[:, SC.ACCEPTED].sum() / b.scs[:, SC.STEP].sum()),
            "best_total": int(b.scs[:, SC.BEST_TOTAL].min())}


WHAT = ("K chains step together (`chains: device`: one block a chain; with speculate k, a "
        "cooperative grid of K k candidate blocks, fewer where they do not all stay "
        "resident); a chain's step = the time of all chains' steps over the steps; best of 3 "
        "runs; at one speculate setting every source walks the same chains (same best "
        "total): only the time differs")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--source", action="append", default=None,
                   help="anneal.cu to time: a path, or REV: for the file at a git revision "
                   "(repeatable; default: the working tree's)")
    p.add_argument("--speculate", default="1",
                   help="comma-separated search.speculate values to time (default 1)")
    p.add_argument("--chains", default="128", help="comma-separated numbers of chains")
    p.add_argument("--steps", type=int, default=4000)
    p.add_argument("--frac", type=float, default=0.3,
                   help="schedule fraction the timed steps start at (then +0.1, +0.2)")
    p.add_argument("--note", action="append", default=[], help="a line kept with the run "
                   "in the JSON (repeatable)")
    experiment_args(p, "chain_steps", ("search", "bench_search"))
    args = p.parse_args(argv)
    from bench_search import markdown

    if args.render:
        render_experiment(args.out, args.experiment, args.shows, markdown, "bench_chain_steps")
        return
    import cupy as cp

    import golf.evaluators.gpu_bitset as gb
    from benchlib import gpu_machine

    record = new_record(rows=[], what=WHAT, notes=args.note)
    record["machine"] = gpu_machine(cp)
    with tempfile.TemporaryDirectory() as tmp:
        for spec in args.source or [ANNEAL]:
            gb.ANNEAL_FILES = ("common.cuh", source_file(spec, tmp))
            for K in (int(x) for x in args.chains.split(",")):
                for k in (int(x) for x in args.speculate.split(",")):
                    for n, d, g, threads in PROBLEMS:
                        row = {"source": spec, "frac": args.frac,
                               **time_steps(n, d, g, threads, K, args.steps, k, args.frac)}
                        print(row, flush=True)
                        record["rows"].append(row)
    save_experiment(args.out, args.experiment, record, markdown, args.shows)


if __name__ == "__main__":
    main()
