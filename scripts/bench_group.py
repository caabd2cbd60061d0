#!/usr/bin/env python3
"""Evaluation cost under a metacyclic symmetry group against the cyclic group of the same order.

For each shape, a random graph symmetric under ``Z_a ⋊_r Z_b`` and a random cyclic one of the
same ``(n, d, g)`` (so the same ``m = n/g`` base sources) are scored many times by the CPU
backends on one thread. The group's kernels first write the ``b*m`` twisted rows
(``golf.kernels.symmetry.twist_rows``) and then read them as a cyclic graph's rows; the record
holds both times per evaluation, their ratio, the twisting alone, and each graph's diameter
(a level more costs a level more).

    python scripts/bench_group.py --shows "..."   # the four group shapes of the record configs

The run goes into the CPU evaluation record as its experiment ``group``
(``results/bench/eval_cpu.json``, ``experiments``), whose page gives one line on it: ``--shows
TEXT`` (or later ``--render --shows TEXT``) says what it showed.
"""

from __future__ import annotations

import argparse
import time

from benchlib import experiment_args, new_record, render_experiment, save_experiment

from golf.evaluators import make_evaluator
from golf.starts.random import random_graph, random_group_graph
from golf.group import Group
from golf.kernels.symmetry import group_scratch, twist_rows

# (n, d, a, b, r): the groups of configs/records2016_*.yaml
SHAPES = [(256, 8, 16, 8, 3), (1024, 8, 32, 16, 3), (1800, 7, 75, 12, 7),
          (10000, 7, 125, 40, 57)]


def per_call(fn, seconds):
    """Microseconds a call of ``fn``, over about ``seconds`` (after one warm-up call)."""
    fn()
    reps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        fn()
        reps += 1
    return (time.perf_counter() - t0) / reps * 1e6


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=1.0, help="timing per measurement")
    experiment_args(p, "group", ("bench", "eval_cpu"))
    args = p.parse_args(argv)
    from bench_eval import markdown

    if args.render:
        render_experiment(args.out, args.experiment, args.shows, markdown, "bench_group")
        return
    rows = []
    for n, d, a, b, r in SHAPES:
        grp, g = Group(a, b, r), a * b
        cyc, lift = random_graph(n, d, g, seed=1), random_group_graph(n, d, grp, seed=1)
        sym = group_scratch(grp, n, n // g, d)
        twist = per_call(lambda: twist_rows(lift.adj, sym), args.seconds)
        for backend in ("bitset", "bfs"):
            ev_c = make_evaluator(backend, n, d, g, threads=1)
            ev_g = make_evaluator(backend, n, d, g, threads=1, symmetry=grp)
            tc = per_call(lambda: ev_c.evaluate(cyc), args.seconds)
            tg = per_call(lambda: ev_g.evaluate(lift), args.seconds)
            row = {"n": n, "d": d, "g": g, "group": grp.label, "backend": backend,
                   "cyclic_us": round(tc, 2), "group_us": round(tg, 2),
                   "ratio": round(tg / tc, 3), "twist_us": round(twist, 2),
                   "diameters": [ev_c.evaluate(cyc).diameter, ev_g.evaluate(lift).diameter]}
            print(row, flush=True)
            rows.append(row)
    exp = new_record(rows=rows, what="one thread; a random graph of each symmetry (seed 1); "
                     "microseconds per `evaluate` call from Python, cyclic and group; "
                     "twist_us: `twist_rows` alone; diameters: (cyclic, group)")
    save_experiment(args.out, args.experiment, exp, markdown, args.shows)


if __name__ == "__main__":
    main()
