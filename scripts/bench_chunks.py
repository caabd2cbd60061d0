#!/usr/bin/env python3
"""Chunk width sweep of the CPU ``bitset`` backend: seconds per evaluation for each column
chunk width, 1 and 2 threads, rounds interleaved across the widths so that a noisy machine
spreads its noise evenly; median of the rounds. One evaluator alive at a time (keeping one per
width alive skewed the large cases by up to 1.6x). Backs ``choose_chunk_words``.

    python scripts/bench_chunks.py            # writes results/bench/chunk_sweep.{json,md}
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np
from benchlib import ROOT, header, new_record, save, table

CASES = [(4096, 8, 1), (10000, 7, 1), (65536, 6, 64), (65536, 6, 1)]


def main(argv=None):
    from golf.evaluators import make_evaluator
    from golf.evaluators.bitset import choose_chunk_words
    from golf.starts.random import random_graph

    p = argparse.ArgumentParser()
    p.add_argument("--widths", default="2,4,8,16,32")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--min-time", type=float, default=1.0, help="seconds per timing")
    p.add_argument("--out", default=os.path.join(ROOT, "results", "bench", "chunk_sweep"))
    args = p.parse_args(argv)
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
    rec = new_record(rows=rows)
    save(args.out, rec, markdown(rec, widths))


def markdown(rec, widths) -> str:
    lines = header("CPU bit-matrix chunk width sweep", rec,
                   f"machine: {json.dumps(rec['machine'])}",
                   "seconds per evaluation, median (min) of interleaved rounds; * = the width "
                   "`choose_chunk_words` picks")
    rows = []
    for n, d, g in CASES:
        for threads in (1, 2):
            cells = []
            for w in widths:
                r = [x for x in rec["rows"] if (x["n"], x["d"], x["g"], x["threads"],
                                                x["chunk_words"]) == (n, d, g, threads, w)]
                cells.append("-" if not r else f"{r[0]['median_s'] * 1e3:.3g} ms "
                             f"({r[0]['min_s'] * 1e3:.3g}){' *' if r[0]['auto'] else ''}")
            rows.append((f"({n}, {d}, {g})", threads, *cells))
    return "\n".join(lines + table(["(n, d, g)", "threads", *(f"{w} words" for w in widths)],
                                   rows)) + "\n"


if __name__ == "__main__":
    main()
