#!/usr/bin/env python3
"""Time tabu steps with their candidates shared by threads (``TabuSearch``'s ``helpers``,
:func:`golf.run.setup.tabu_helpers`): steps a second at each thread count, from the same
state, on the small graphs that a chase polishes at ``g = 1``. Every thread count takes the
same steps (checked: the same current and best graphs at the end); only the time differs.

    python scripts/bench_tabu_threads.py                       # threads 1, 2 and the cores
    python scripts/bench_tabu_threads.py --threads 1,4,8,16 --steps 300

The run goes into the search benchmark's record as its experiment ``tabu_threads``
(``results/search/bench_search.json``, ``experiments``; ``--experiment NAME``: another name),
whose page gives one line on it: ``--shows TEXT`` (or later ``--render --shows TEXT``) says
what it showed.
"""

from __future__ import annotations

import argparse
import os
import time

from benchlib import experiment_args, new_record, render_experiment, save_experiment

# (n, d): pairs of the 2016 table that a chase polishes (n <= POLISH_MAX_N), at g = 1
PAIRS = [(64, 8), (96, 3), (256, 8), (384, 3)]


def time_steps(n: int, d: int, threads: list, steps: int, neighbourhood: int) -> list:
    """Steps a second of one tabu search on a random (n, d, g=1) graph per thread count,
    each from the same state (after 3 warm-up steps that compile), best of 2 runs."""
    import numpy as np

    from golf.engine.annealer import SC
    from golf.engine.tabu import TabuSearch
    from golf.evaluators import make_evaluator
    from golf.starts.random import random_graph

    graph = random_graph(n, d, 1, seed=1)

    def ev():
        return make_evaluator("bitset", n, d, 1, threads=1)

    first = TabuSearch(graph, ev(), steps=0, neighbourhood=neighbourhood, seed=1,
                       near_moves=0.5)
    first.run(3)
    rows, ends = [], []
    for T in threads:
        best = float("inf")
        for _ in range(2):
            t = first.scored_by(ev(), [ev() for _ in range(T - 1)])  # first's state
            t.run(1)  # the threads started
            start = time.perf_counter()
            t.run(steps)
            best = min(best, time.perf_counter() - start)
        ends.append((t.graph.adj.copy(), t.best_adj.copy()))
        rows.append({"n": n, "d": d, "g": 1, "threads": T, "neighbourhood": neighbourhood,
                     "steps": steps, "steps_per_s": steps / best,
                     "best_total": int(t.sc[SC.BEST_TOTAL])})
    same = all(np.array_equal(a[0], ends[0][0]) and np.array_equal(a[1], ends[0][1])
               for a in ends)
    base = rows[0]["steps_per_s"]
    for r in rows:
        r["speedup"] = r["steps_per_s"] / base
        r["same_steps"] = same
    return rows


WHAT = ("one tabu search (bitset, g = 1, random start, near swaps half) from the same state "
        "at each thread count: steps a second over --steps steps, best of 2; every count "
        "takes the same steps (same_steps)")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    cores = len(os.sched_getaffinity(0))
    p.add_argument("--threads", default=",".join(str(t) for t in sorted({1, 2, cores})),
                   help="comma-separated thread counts (default: 1, 2 and the usable cores)")
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--neighbourhood", type=int, default=4096, help="candidates a step")
    p.add_argument("--only", default=None, help="comma-separated pairs, e.g. 64x8,96x3")
    experiment_args(p, "tabu_threads", ("search", "bench_search"))
    args = p.parse_args(argv)
    from bench_search import markdown

    if args.render:
        render_experiment(args.out, args.experiment, args.shows, markdown, "bench_tabu_threads")
        return
    pairs = PAIRS if args.only is None else [tuple(int(x) for x in s.split("x"))
                                             for s in args.only.split(",")]
    threads = [int(x) for x in args.threads.split(",")]
    record = new_record(rows=[], what=WHAT)
    for n, d in pairs:
        for row in time_steps(n, d, threads, args.steps, args.neighbourhood):
            print(row, flush=True)
            record["rows"].append(row)
    save_experiment(args.out, args.experiment, record, markdown, args.shows)


if __name__ == "__main__":
    main()
