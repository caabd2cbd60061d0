#!/usr/bin/env python3
"""Chunk width sweep of the CPU ``bitset`` backend: seconds per evaluation for each column
chunk width, 1 and 2 threads, rounds interleaved across the widths so that a noisy machine
spreads its noise evenly; median of the rounds. One evaluator alive at a time (keeping one per
width alive skewed the large cases by up to 1.6x). Backs ``choose_chunk_words``.

The run goes into the CPU evaluation record as its experiment ``chunk_sweep``
(``results/bench/eval_cpu.json``, ``experiments``), whose page gives one line on it: ``--shows
TEXT`` (or later ``--render --shows TEXT``) says what it showed.

    python scripts/bench_chunks.py --shows "..."   # into results/bench/eval_cpu.json
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from benchlib import experiment_args, new_record, render_experiment, save_experiment

CASES = [(4096, 8, 1), (10000, 7, 1), (65536, 6, 64), (65536, 6, 1)]


def main(argv=None):
    from golf.evaluators import make_evaluator
    from golf.evaluators.bitset import choose_chunk_words
    from golf.starts.random import random_graph

    from bench_eval import markdown

    p = argparse.ArgumentParser()
    p.add_argument("--widths", default="2,4,8,16,32")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--min-time", type=float, default=1.0, help="seconds per timing")
    experiment_args(p, "chunk_sweep", ("bench", "eval_cpu"))
    args = p.parse_args(argv)
    if args.render:
        render_experiment(args.out, args.experiment, args.shows, markdown, "bench_chunks")
        return
    widths = [int(w) for w in args.widths.split(",")]
    rows = []
    for n, d, g in CASES:
        graph = random_graph(n, d, g, seed=1)
        words = (n // g + 63) // 64
        for threads in (1, 2):
            times = {cw: [] for cw in widths if cw <= words}
            for _ in range(args.rounds):
                for cw in times:
                    ev = make_evaluator("bitset", n, d, g, threads=threads, chunk_words=cw)
                    ev.evaluate(graph)  # warm
                    t, k = time.perf_counter(), 0
                    while k == 0 or time.perf_counter() - t < args.min_time:
                        ev.evaluate(graph)
                        k += 1
                    times[cw].append((time.perf_counter() - t) / k)
                    del ev
            auto = choose_chunk_words(n, words, threads)
            for cw in times:
                row = {"n": n, "d": d, "g": g, "threads": threads, "chunk_words": cw,
                       "median_s": float(np.median(times[cw])), "min_s": float(min(times[cw])),
                       "auto": cw == auto}
                rows.append(row)
                print(json.dumps(row), flush=True)
    exp = new_record(rows=rows, widths=widths,
                     what="seconds per evaluation, median (min) of interleaved rounds; auto: "
                     "the width `choose_chunk_words` picks")
    save_experiment(args.out, args.experiment, exp, markdown, args.shows)


if __name__ == "__main__":
    main()
