#!/usr/bin/env python3
"""Seconds per evaluation of the CPU backends, with 1 and 2 threads.

For each (n, d, g) a random symmetric graph (seed 1) is scored by every backend; all must agree
on (diameter, total) before anything is timed. Three timings per backend:

* ``loop``: the compiled kernel called from a compiled loop, what the search pays per step
  (the bare kernel);
* ``evaluate``: ``Evaluator.evaluate(graph)`` from Python, an evaluator built once;
* ``golf.evaluate``: ``golf.evaluate(graph, backend, threads=...)``, the one-line API (it
  keeps the evaluator between calls). Its target is 1.5 x the bare kernel + 1 us.

Each timing is the median (and min) of ``--trials`` trials of at least ``--min-time /
--trials`` seconds each; the three are timed in turn within every trial, so that their ratios
come from one run. BFS cases that would take longer than ``--bfs-cap`` seconds are timed on a subset of the
sources and scaled up (BFS cost is the same for every source); the record says so.

Writes ``<out>.json`` and ``<out>.md`` (default ``results/bench/eval_cpu``) with the machine,
the date and the command; the experiments the record holds (``bench_chunks.py``,
``bench_group.py``) are kept, and the page gives a line on each. ``--render`` rewrites the page
from the JSON.

    python scripts/bench_eval.py                    # all cases, bitset and bfs, 1 and 2 threads
    python scripts/bench_eval.py --quick            # small cases only
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from benchlib import ROOT, experiment_lines, header, load, new_record, render, save, table
from numba import njit

import golf
from golf.evaluators import make_evaluator
from golf.starts.random import random_graph

# (n, d, g) and the target seconds per evaluation: a tuned C library on this machine, <= 2 threads
CASES = [
    ((50, 4, 1), 2.1e-6), ((256, 8, 1), 12.5e-6), ((1024, 4, 1), 92e-6),
    ((4096, 8, 1), 1.6e-3), ((10000, 7, 1), 12.9e-3), ((65536, 6, 1), 2.2),
    ((65536, 6, 64), 12.7e-3), ((65536, 6, 1024), 5.0e-3), ((1000000, 32, 25000), 0.28),
]


@njit
def _repeat(kernel, args, reps):
    for _ in range(reps):
        kernel(*args)


def _calls(fn, args, kwargs, reps):
    """``fn(*args, **kwargs)`` ``reps`` times from Python, each result dropped (as a caller
    that uses a score and moves on; a list of millions of results would time the allocator
    and the garbage collector instead)."""
    for _ in range(reps):
        fn(*args, **kwargs)


def time_blocks(fns, min_time: float, trials: int) -> list[tuple[float, float]]:
    """Median and min seconds per call of each ``fn(reps)`` over ``trials`` rounds; a round
    times every fn once, one after another, so that the machine's drifts (a shared vCPU,
    clocks) fall on all of them alike and their ratios are measured in one run."""
    reps = []
    for fn in fns:
        fn(1)
        t = time.perf_counter()
        fn(1)
        once = max(time.perf_counter() - t, 1e-7)
        reps.append(max(1, int(min_time / trials / once)))
    per = [[] for _ in fns]
    for _ in range(trials):
        for fn, r, out in zip(fns, reps, per):
            t = time.perf_counter()
            fn(r)
            out.append((time.perf_counter() - t) / r)
    return [(float(np.median(p)), float(min(p))) for p in per]


def bench_case(n, d, g, target, backends, threads_list, args) -> list[dict]:
    graph = random_graph(n, d, g, seed=1)
    rows = []
    want = None
    for backend in backends:
        for threads in threads_list:
            ev = make_evaluator(backend, n, d, g, threads=threads)
            scale, note = 1.0, ""
            if backend == "bfs":
                # estimate the full time from one source; cap long ones by timing fewer sources
                ev.partial(graph, 0, 1)  # compile / load first
                t = time.perf_counter()
                ev.partial(graph, 0, 1)
                est = (time.perf_counter() - t) * ev.m / threads
                if est > args.bfs_cap:
                    k = max(threads, int(ev.m * args.bfs_cap / est))
                    ev.unit_range = (0, k)
                    ev.ctrl[1:] = (0, k)
                    scale, note = ev.m / k, f"timed {k} of {ev.m} sources, scaled"
            if not note:
                s = ev.evaluate(graph)
                got = (s.diameter, s.total)
                if want is None:
                    want = got
                elif got != want:
                    raise SystemExit(f"MISMATCH on {(n, d, g)}: {backend} gave {got}, "
                                     f"expected {want}")
            kargs = ev.kernel_args(graph.adj)
            fns = [lambda r: _repeat(ev.kernel, kargs, r)]
            if not note:  # the Python calls, where they score the whole graph
                fns += [lambda r: _calls(ev.evaluate, (graph,), {}, r),
                        lambda r: _calls(golf.evaluate, (graph, backend), {"threads": threads},
                                         r)]
            timed = time_blocks(fns, args.min_time, args.trials)
            med, mn = timed[0]
            api_med = timed[1][0] if not note else None
            top_med = timed[2][0] if not note else None
            row = {"n": n, "d": d, "g": g, "diameter": want[0] if want else None,
                   "backend": backend, "threads": threads, "describe": ev.describe(),
                   "loop_median_s": med * scale, "loop_min_s": mn * scale,
                   "api_median_s": api_med, "golf_evaluate_median_s": top_med,
                   "golf_evaluate_target_s": 1.5 * med * scale + 1e-6, "target_s": target,
                   "ratio_to_target": med * scale / target, "note": note}
            rows.append(row)
            print(f"({n},{d},{g}) {backend:6s} threads={threads}: median "
                  f"{fmt(med * scale)} (min {fmt(mn * scale)}) target {fmt(target)} "
                  f"ratio {med * scale / target:.2f} {note}", flush=True)
    return rows


def fmt(s: float | None) -> str:
    if s is None:
        return "-"
    if s < 1e-3:
        return f"{s * 1e6:.1f} us"
    if s < 1:
        return f"{s * 1e3:.2f} ms"
    return f"{s:.3f} s"


def markdown(record: dict) -> str:
    """The page: the table, then a line on each experiment of the record (the chunk width
    sweep of ``bench_chunks.py``, the group cost of ``bench_group.py``)."""
    m = record["machine"]

    def api(r):
        t = r.get("golf_evaluate_median_s")
        return "-" if t is None else f"{fmt(t)} ({t / r['golf_evaluate_target_s']:.2f})"

    rows = [(f"({r['n']}, {r['d']}, {r['g']})", r["diameter"], r["backend"], r["threads"],
             fmt(r["loop_median_s"]), api(r), fmt(r["target_s"]),
             f"{r['ratio_to_target']:.2f}" + (f" ({r['note']})" if r["note"] else ""))
            for r in record["results"]]
    lines = header(
        "CPU evaluation benchmark", record,
        f"machine: {m.get('cpu', '?')}, {m['cores']} cores; Python {m['python']}, Numba "
        f"{m['numba']}, NumPy {m['numpy']}; commit {m.get('commit', '?')}",
        "per evaluation: median of the trials, the compiled kernel from a compiled loop (what "
        "the search pays); golf.evaluate: the API (over its target, 1.5 x the kernel + 1 us); "
        "ratio: the kernel over a tuned C library's time here (min times, `evaluate()` from "
        "Python and caches: in the JSON)")
    lines += table(["(n, d, g)", "D", "backend", "threads", "per evaluation", "golf.evaluate",
                    "target", "ratio"], rows)
    return "\n".join(lines + experiment_lines(record)) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--backends", default="bitset,bfs")
    p.add_argument("--threads", default="1,2")
    p.add_argument("--cases", help="semicolon-separated n,d,g (default: CASES)")
    p.add_argument("--quick", action="store_true", help="only n <= 4096")
    p.add_argument("--min-time", type=float, default=2.0, help="seconds per timing")
    p.add_argument("--trials", type=int, default=5)
    p.add_argument("--bfs-cap", type=float, default=20.0,
                   help="seconds above which bfs is timed on a subset of sources")
    p.add_argument("--out", default=os.path.join(ROOT, "results", "bench", "eval_cpu"))
    p.add_argument("--render", "--page", action="store_true", dest="render",
                   help="only rewrite <out>.md from <out>.json")
    args = p.parse_args(argv)
    if args.render:
        render(args.out, markdown, "bench_eval")
        return
    cases = CASES
    if args.cases:
        wanted = [tuple(int(x) for x in c.split(",")) for c in args.cases.split(";")]
        targets = dict(CASES)
        cases = [(c, targets.get(c, float("nan"))) for c in wanted]
    if args.quick:
        cases = [c for c in cases if c[0][0] <= 4096]
    backends = args.backends.split(",")
    threads = [int(t) for t in args.threads.split(",")]
    results = []
    for (n, d, g), target in cases:
        results += bench_case(n, d, g, target, backends, threads, args)
    record = new_record(results=results)
    kept = load(args.out) or {}
    if kept.get("experiments"):  # the runs of other scripts that the page holds
        record["experiments"] = kept["experiments"]
    save(args.out, record, markdown(record))


if __name__ == "__main__":
    main()
