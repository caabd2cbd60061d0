#!/usr/bin/env python3
"""Move benchmark: how the kinds of move change a good graph.

From each pair's best GPU graph (``results/quality/gpu/``, read at the pair's symmetry ``g``),
``--samples`` random moves of each kind are applied, scored exactly (the ``bitset`` backend)
and undone: the uniform symmetric swap (:func:`golf.engine.moves.propose_swap`) and the near swap
(:func:`golf.engine.moves.propose_near`). A good graph is where a run spends its end; there the
share of moves that do not go uphill (same or smaller diameter, total not larger) and the
size of the uphill steps decide how often the cold chain moves at all.

    python scripts/bench_moves.py --shows "..."    # four pairs, 5000 moves of each kind

The run goes into the search benchmark's record as its experiment ``moves``
(``results/search/bench_search.json``, ``experiments``), whose page gives one line on it:
``--shows TEXT`` (or later ``--render --shows TEXT``) says what it showed.
"""

from __future__ import annotations

import argparse
import glob
import os
import statistics

from benchlib import ROOT, experiment_args, new_record, render_experiment, save_experiment

from golf.evaluators import make_evaluator
from golf.graph import Graph
from golf.io import read_edges
from golf.kernels.rng import rng_seed
from golf.engine.moves import new_undo, propose_near, propose_swap, undo_swap

PAIRS = [(64, 8, 4), (96, 3, 1), (256, 8, 32), (1024, 8, 128)]
KINDS = {"uniform swap": lambda adj, n, g, st, undo: propose_swap(adj, n, g, st, undo),
         "near swap": lambda adj, n, g, st, undo: propose_near(adj, n, st, undo)}


def sample(graph, ev, kind, count, seed):
    """``count`` moves of ``kind`` from ``graph`` (each undone): the share that is not uphill
    and the median total increase of the uphill ones at equal diameter."""
    base = ev.evaluate(graph)
    st, undo = rng_seed(seed), new_undo()
    flat = up_d = 0
    ups = []
    for _ in range(count):
        if not KINDS[kind](graph.adj, graph.n, graph.g, st, undo):
            continue
        s = ev.evaluate(graph)
        undo_swap(graph.adj, undo)
        if s.diameter is None or s.diameter > base.diameter:
            up_d += 1
        elif s.diameter < base.diameter or s.total <= base.total:
            flat += 1
        else:
            ups.append(s.total - base.total)
    return {"moves": count, "not_uphill": flat / count, "diameter_up": up_d / count,
            "median_uphill_total": statistics.median(ups) if ups else None}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--samples", type=int, default=5000)
    p.add_argument("--seed", type=int, default=1)
    experiment_args(p, "moves", ("search", "bench_search"))
    args = p.parse_args(argv)
    from bench_search import markdown

    if args.render:
        render_experiment(args.out, args.experiment, args.shows, markdown, "bench_moves")
        return
    record = new_record(rows=[], samples=args.samples,
                        what=f"each kind: {args.samples} moves from the pair's best GPU graph "
                        "(results/quality/gpu/), each scored exactly and undone; not uphill: "
                        "same or smaller diameter and total not larger; uphill total: the "
                        "total's increase (unordered pairs) of the uphill moves at equal "
                        "diameter")
    for n, d, g in PAIRS:
        path = glob.glob(os.path.join(ROOT, "results", "quality", "gpu",
                                      f"n{n}d{d}k*.edges.gz"))[0]
        graph = Graph.from_edges(read_edges(path).edges, n=n, g=g, d=d)
        ev = make_evaluator("bitset", n, d, g, threads=1)
        for kind in KINDS:
            row = {"pair": [n, d, g], "graph": os.path.relpath(path, ROOT), "kind": kind,
                   **sample(graph, ev, kind, args.samples, args.seed)}
            record["rows"].append(row)
            print(row, flush=True)
    save_experiment(args.out, args.experiment, record, markdown, args.shows)


if __name__ == "__main__":
    main()
