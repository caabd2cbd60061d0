#!/usr/bin/env python3
"""Host-switch scoring on the GPU: ``golf.evaluators.h_gpu_bitset`` against golf's CPU bit matrix, on
ORP's sample graphs of the 13 featured pairs of Graph Golf 2021 and on random graphs, in one
run on one machine.

Every file is scored by both, and the h-diameter, h-total and peripheral hosts must agree
(the script stops with the file and the values if not). Times, medians per graph:

* CPU kernel: golf's compiled scorer on one thread, called from a compiled loop (what a CPU
  search pays a step; ``bench_hostswitch_eval.time_kernel``);
* GPU, one graph: ``evaluate`` of the search's port rows after a random move (host move or
  swap, undone after the call), so each call patches the few slots a step changes, as a
  single chain's step does;
* GPU, a batch of K graphs: ``evaluate_many`` of K graphs, each changed by its own move, in
  one launch, per graph (what a population of K chains pays a step, per chain).

    python scripts/bench_hostswitch_gpu.py --src build/orp_src --shows "..."
    python scripts/bench_hostswitch_gpu.py --experiment gpu_h200 --src build/orp_src

``--src`` is ORP's source tree (its ``sample/graph`` files). The run goes into the host-switch
scoring record as its experiment ``gpu`` (``--experiment NAME``: another name, e.g. one a
GPU kind) of ``results/bench/hostswitch_eval.json``, whose page gives one line on it:
``--shows TEXT`` (or later ``--render --experiment NAME --shows TEXT``) says what it showed.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

import numpy as np
from bench_hostswitch_eval import cases, fmt_seconds, time_kernel
from benchlib import (experiment_args, gpu_machine, new_record, render_experiment,
                      save_experiment)

BATCHES = (16, 128)


def _moves(graphs, rngs, undo_of):
    """One random move (host move or swap) on each graph; their undo records."""
    from golf.engine.moves import propose_move

    for k, g in enumerate(graphs):
        propose_move(g.adj, g.n, 1, rngs[k], undo_of[k], 0, None, 300, None, 300)


def _undo(graphs, undo_of):
    from golf.engine.moves import undo_swap

    for k in reversed(range(len(graphs))):
        undo_swap(graphs[k].adj, undo_of[k])


def time_gpu(graph, K: int, seconds: float) -> list:
    """Per-graph seconds of the GPU scorer on ``K`` copies of ``graph`` (K = 1: ``evaluate``
    of one graph), each changed by a fresh move before every call, for about ``seconds``."""
    from golf.engine.moves import new_undo
    from golf.evaluators.h_gpu_bitset import HostSwitchGpuEvaluator
    from golf.kernels.rng import rng_seed

    ev = HostSwitchGpuEvaluator(graph.hosts, graph.n, graph.d, batch=K)
    graphs = [graph.copy() for _ in range(K)]
    rngs = [rng_seed(1000 + k) for k in range(K)]
    undo_of = [new_undo() for _ in range(K)]
    adjs = np.stack([g.adj for g in graphs])
    out = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end or len(out) < 3:
        _moves(graphs, rngs, undo_of)
        for k, g in enumerate(graphs):
            adjs[k] = g.adj
        t = time.perf_counter()
        if K == 1:
            ev.evaluate(graphs[0])
        else:
            ev.evaluate_many(adjs)
        out.append((time.perf_counter() - t) / K)
        _undo(graphs, undo_of)
    return out


def bench_file(name: str, path: str, seconds: float) -> dict:
    from golf.hostswitch import read_host_switch
    from golf.evaluators.h_bitset import HostSwitchEvaluator
    from golf.evaluators.h_gpu_bitset import HostSwitchGpuEvaluator
    from golf.hostswitch.ports import PortGraph, to_ports

    net = read_host_switch(path, duplicates=[])
    graph = PortGraph(net.n, to_ports(net))
    cpu = HostSwitchEvaluator(net.n, net.s, net.r, threads=1).evaluate(graph)
    gpu = HostSwitchGpuEvaluator(net.n, net.s, net.r).evaluate(graph)
    if gpu != cpu:
        raise SystemExit(f"bench_hostswitch_gpu: the scorers disagree on {name}: CPU {cpu}, "
                         f"GPU {gpu}")
    kernel, _ = time_kernel(net, seconds)
    times = {"cpu_kernel": kernel, "gpu_1": time_gpu(graph, 1, seconds)}
    for K in BATCHES:
        times[f"gpu_{K}"] = time_gpu(graph, K, seconds)
    med = {k: float(statistics.median(v)) for k, v in times.items()}
    return {"file": name, "n": net.n, "s": net.s, "r": net.r, "diameter": cpu.diameter,
            "total": cpu.total, "aspl": cpu.aspl, "seconds": med,
            "calls": {k: len(v) for k, v in times.items()}}


WHAT = ("per graph, the median time of golf's CPU kernel (one thread, from a compiled loop) "
        "and of the GPU scorer (golf.evaluators.h_gpu_bitset) on one graph and on batches of K graphs "
        "in one launch, each graph changed by a random move before every call; both gave the "
        "same h-diameter, h-total and peripheral hosts on every file")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--src", default="build/orp_src", help="ORP's source tree (sample graphs)")
    p.add_argument("--seconds", type=float, default=1.0, help="seconds per scorer and file")
    p.add_argument("--quick", action="store_true", help="only files of at most 5000 hosts")
    experiment_args(p, "gpu", ("bench", "hostswitch_eval"))
    args = p.parse_args(argv)
    from bench_hostswitch_eval import markdown

    if args.render:
        render_experiment(args.out, args.experiment, args.shows, markdown,
                          "bench_hostswitch_gpu")
        return
    from golf.evaluators.cuda import cupy_or_error

    cp = cupy_or_error()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, path in cases(args.src, args.quick, 1, tmp):
            row = bench_file(name, path, args.seconds)
            rows.append(row)
            t = row["seconds"]
            print(f"{name}: D={row['diameter']} total={row['total']}  CPU "
                  f"{fmt_seconds(t['cpu_kernel'])}  GPU "
                  + "  ".join(f"{k} {fmt_seconds(v)}" for k, v in t.items()
                              if k.startswith("gpu")), flush=True)
    exp = new_record(rows=rows, seconds=args.seconds, batches=list(BATCHES), what=WHAT)
    exp["machine"] = gpu_machine(cp)
    save_experiment(args.out, args.experiment, exp, markdown, args.shows)


if __name__ == "__main__":
    main()
