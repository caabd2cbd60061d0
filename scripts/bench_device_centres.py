#!/usr/bin/env python3
"""Annealing chains of centre-vertex forms (:mod:`golf.graph`: ``n = g*m + c``) on the GPU
(``chains: device``, ``cuda/anneal.cu``) against the same chains on the host (``chains:
host``: one launch a step scores every chain's move, the rows renumbered on the host), at equal
wall time.

For each prime order, the form golf chase's portfolio tries for it
(:func:`golf.problems.order_degree.centre_forms`): one random graph of that form starts a population
of K tempering chains with the same seeds, temperatures and moves (golf chase's voltage and
near moves) twice, the chains on the device and on the host, each timed as
``scripts/bench_device_groups.py`` times them (:func:`bench_device_groups.timed_run`).
``PLACED`` forms are not timed: the record says where gpu-bitset puts their chains and why.

    PYTHONPATH=. python3 scripts/bench_device_centres.py               # on a GPU, ~1 minute
    PYTHONPATH=. python3 scripts/bench_device_centres.py --dry         # CPU check of the paths

``--dry`` runs the host chains on the CPU bitset backend for a few seconds, 8 chains, into a
record in a temporary folder unless ``--out`` is given. The run goes into the search
benchmark's record as its experiment ``device_centres`` (``results/search/bench_search.json``,
``experiments``), whose page gives one line on it: the device chains' evaluations a second
over the host chains', or ``--shows TEXT``.
"""

from __future__ import annotations

from bench_device_groups import (POPULATION, SEARCH, T0, T1, WARMUP_STEPS, run_device_bench,
                                 timed_run)

# (n, d, g, centres): prime orders and the centre form the portfolio tries for each, timed;
# and one whose matrices (5.3 MB) are far beyond a block's shared memory, placed only
FORMS = [(1009, 7, 7, 1), (1801, 7, 6, 1)]
PLACED = [(10007, 10, 5, 2)]


def population(n, d, g, c, K, backend, chains):
    """K tempering chains on a random graph of the form, their evaluator ``backend`` (with
    ``chains`` for gpu-bitset), warmed up: every kernel compiled."""
    from golf.engine.population import BatchAnnealer
    from golf.evaluators import make_evaluator
    from golf.starts.random import random_group_graph

    graph = random_group_graph(n, d, None, seed=1, centres=c, g=g)
    opts = {"chains": chains} if backend == "gpu-bitset" else {"threads": 1}
    ev = make_evaluator(backend, n, d, g, batch=K, centres=c, **opts)
    ann = BatchAnnealer(graph, ev, K, exchange_every=0, steps=0, seed=1, **POPULATION,
                        **SEARCH)
    ann.set_temperatures(T0, T1)
    ann.run(WARMUP_STEPS, time_frac=0.0)
    return ann


def placed() -> list[dict]:
    """Where gpu-bitset's ``chains: auto`` puts the chains of each form, and why."""
    from golf.evaluators import make_evaluator

    out = []
    for n, d, g, c in FORMS + PLACED:
        ev = make_evaluator("gpu-bitset", n, d, g, centres=c)
        out.append({"n": n, "d": d, "g": g, "centres": c, "chains": ev.chains,
                    "why": ev.chains_reason})
    return out


def measure(args) -> list[dict]:
    """The rows: each form of FORMS with its chains on the device and on the host (dry: the
    host on the CPU only)."""
    runs = [("bitset", "host")] if args.dry else [("gpu-bitset", "device"),
                                                  ("gpu-bitset", "host")]
    rows = []
    for n, d, g, c in FORMS:
        for backend, chains in runs:
            ann = population(n, d, g, c, args.chains, backend, chains)
            if ann.on_device != (chains == "device"):
                raise SystemExit(f"{ann.evaluator.describe()}: the chains are not where the "
                                 f"benchmark wants them ({chains})")
            row = {"n": n, "d": d, "g": g, "m": (n - c) // g, "centres": c, "chains": chains,
                   "K": args.chains, "backend": backend, **timed_run(ann, args.seconds)}
            print(row, flush=True)
            rows.append(row)
    return rows


WHAT = ("K tempering chains a run, golf chase's settings (as `bench_device_groups.py`), one "
        "random graph of the form a prime order, seed 1; `seconds` a run after a warm-up; "
        "device: `chains: device` (`cuda/anneal.cu`); host: `chains: host` (one launch a step "
        "scores every chain's move); evaluations: moves scored, all chains; placed: where "
        "`chains: auto` puts the chains of each form, and why")


def main(argv=None):
    run_device_bench(argv, __doc__, "device_centres", 10.0, 2.0, measure, WHAT,
                     extra=lambda: {"placed": placed()})


if __name__ == "__main__":
    main()
