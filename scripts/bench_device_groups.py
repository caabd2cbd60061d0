#!/usr/bin/env python3
"""Annealing chains under a metacyclic group on the GPU (``chains: device``, ``cuda/anneal.cu``)
against the same chains on the host (``chains: host``: one launch a step scores every chain's
move, the moves and decisions on the host), at equal wall time.

For each pair, one random graph symmetric under its group (``m = 2`` base vertices, groups
that golf chase has found for these pairs, results/quality/) starts a population of K
tempering chains with the same seeds, temperatures and moves (voltage and near moves as golf
chase sets them) twice, the chains on the device and on the host. After a warm-up (kernel compiles, not timed) each takes the same
number of seconds, in calls of the population's steps whose schedule fraction is the time
spent; the record gives the evaluations (scored moves, all chains) a second, a chain's steps
and their time, the acceptance rate and the best graph each reached.

    PYTHONPATH=. python3 scripts/bench_device_groups.py               # on a GPU, ~3 minutes
    PYTHONPATH=. python3 scripts/bench_device_groups.py --dry         # CPU check of the paths

``--dry`` runs the host chains on the CPU bitset backend for a few seconds, 8 chains, and no
device chains (they need a GPU), into a record in a temporary folder unless ``--out`` is given.
The run goes into the search benchmark's record as its experiment ``device_groups``
(``results/search/bench_search.json``, ``experiments``), whose page gives one line on it: the
device chains' evaluations a second over the host chains', or ``--shows TEXT``.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

from benchlib import ROOT, experiment_args, new_record, render_experiment, save_experiment

# (n, d, a, r): the pair, its group Z_a ⋊_r Z_(g/a) with g = n/2 (groups golf chase has chosen for these pairs: results/quality/)
PAIRS = [(256, 8, 16, 3), (1024, 8, 32, 3)]
# the search settings of golf chase (golf.run.chase)
SEARCH = dict(voltage_moves=0.3, near_moves=0.5)
POPULATION = dict(population="tempering", population_every=500, ladder=4.0)
T0, T1 = 10.0, 0.2
WARMUP_STEPS = 50
CALL_SECONDS = 0.5  # about this long a call of the population's steps


def population(n, d, a, r, K, backend, chains):
    """K tempering chains over the pair's group on a random graph of it, their evaluator
    ``backend`` (with ``chains`` for gpu-bitset), warmed up: every kernel compiled."""
    from golf.evaluators import make_evaluator
    from golf.starts.random import random_group_graph
    from golf.group import Group
    from golf.engine.population import BatchAnnealer

    grp = Group(a, n // 2 // a, r)
    graph = random_group_graph(n, d, grp, seed=1)
    opts = {"chains": chains} if backend == "gpu-bitset" else {"threads": 1}
    ev = make_evaluator(backend, n, d, grp.g, batch=K, symmetry=grp, **opts)
    ann = BatchAnnealer(graph, ev, K, exchange_every=0, steps=0, seed=1, **POPULATION,
                        **SEARCH)
    if ann.on_device != (chains == "device"):
        raise SystemExit(f"{ev.describe()}: the chains are not where the benchmark wants "
                         f"them ({chains})")
    ann.set_temperatures(T0, T1)
    ann.run(WARMUP_STEPS, time_frac=0.0)
    return ann


def timed_run(ann, seconds) -> dict:
    """Run ``ann`` for ``seconds``: calls of its steps, each about CALL_SECONDS long, the
    schedule at the fraction of the time spent. Returns the evaluations a second, a chain's
    steps and microseconds a step, the acceptance rate, and the best graph's score."""
    from golf.engine.annealer import SC

    scs = ann.scs
    evals0, steps0, acc0 = (int(scs[:, c].sum()) for c in (SC.EVALS, SC.STEP, SC.ACCEPTED))
    chunk, start = 10, time.perf_counter()
    while (spent := time.perf_counter() - start) < seconds:
        t = time.perf_counter()
        ann.run(chunk, time_frac=spent / seconds)
        took = max(time.perf_counter() - t, 1e-6)
        left = seconds - (time.perf_counter() - start)
        # the next call about CALL_SECONDS long, at most 4 times this one, within the time left
        chunk = max(1, min(4 * chunk, int(chunk * min(CALL_SECONDS, max(left, 0.0)) / took)))
    wall = time.perf_counter() - start
    K = scs.shape[0]
    evals = int(scs[:, SC.EVALS].sum()) - evals0
    steps = (int(scs[:, SC.STEP].sum()) - steps0) / K
    best = ann.sc
    n = ann.graph.n
    return {"seconds": wall, "evaluations": evals, "evaluations_per_s": evals / wall,
            "steps_per_chain": steps, "us_per_chain_step": 1e6 * wall / max(steps, 1),
            "accepted": (int(scs[:, SC.ACCEPTED].sum()) - acc0) / max(evals, 1),
            "best_diameter": int(best[SC.BEST_D]), "best_total": int(best[SC.BEST_TOTAL]),
            "best_aspl": int(best[SC.BEST_TOTAL]) / (n * (n - 1) / 2)}


def measure(args) -> list[dict]:
    """The rows: each pair with its chains on the device and on the host (dry: the host on
    the CPU only)."""
    runs = [("bitset", "host")] if args.dry else [("gpu-bitset", "device"),
                                                  ("gpu-bitset", "host")]
    rows = []
    for n, d, a, r in PAIRS:
        for backend, chains in runs:
            ann = population(n, d, a, r, args.chains, backend, chains)
            grp = ann.evaluator.symmetry
            row = {"n": n, "d": d, "g": grp.g, "m": n // grp.g, "group": grp.label,
                   "chains": chains, "K": args.chains, "backend": backend,
                   "evaluator": ann.evaluator.describe(), **timed_run(ann, args.seconds)}
            print(row, flush=True)
            rows.append(row)
    return rows


def device_speedups(rows):
    """``(speedup, notes)``: ``speedup(row)``, the device chains' evaluations/s over the host
    chains' of the same pair (None for a host row or a pair without one), and the note that
    lists them."""
    host = {(r["n"], r["d"]): r for r in rows if r["chains"] == "host"}

    def speedup(r):
        base = host.get((r["n"], r["d"]))
        return (r["evaluations_per_s"] / base["evaluations_per_s"] if base and r is not base
                else None)

    ratios = [f"{speedup(r):.1f}x on ({r['n']}, {r['d']})" for r in rows if speedup(r)]
    notes = ([f"device chains: {' and '.join(ratios)} the host chains' evaluations a second"]
             if ratios else [])
    return speedup, notes


WHAT = ("K tempering chains a run (golf chase's settings: `settings`), one random graph of the "
        "group a pair, seed 1; after a warm-up that compiles the kernels, each run takes "
        "`seconds`, the schedule following the time; device: `chains: device` "
        "(`cuda/anneal.cu`, one block a chain, many steps a launch); host: `chains: host` (one "
        "launch a step scores every chain's move, the moves and decisions on the host); "
        "evaluations: moves scored, all chains; a chain's step: the run's time over the steps "
        "each chain took; best: the population's best graph at the end")


def device_args(argv, doc: str, name: str, seconds: float, dry_seconds: float):
    """The command line of a device-chains benchmark (this one, bench_device_centres): the
    parsed arguments (``seconds`` and ``chains`` filled in), the record that holds the run
    (``results/search/bench_search``; with ``--dry`` one in a temporary folder), and a new
    record of the settings, or None with ``--render`` (the page is then written again)."""
    p = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=None,
                   help=f"timed seconds a run (default {seconds:g}; --dry: {dry_seconds:g})")
    p.add_argument("--chains", type=int, default=None,
                   help="chains a population (default 256; --dry: 8)")
    p.add_argument("--dry", action="store_true",
                   help="host chains on the CPU only, short: a check of the code paths")
    p.add_argument("--note", action="append", default=None,
                   help="a line kept with the run in the JSON (repeatable)")
    p.add_argument("--out", default=None,
                   help="the record that holds the experiment (default "
                   "results/search/bench_search; --dry: a new one in a temporary folder)")
    p.add_argument("--render", "--page", action="store_true", dest="render",
                   help="only write the page again from the JSON (with --shows: the "
                   "experiment's line first)")
    experiment_args(p, name)
    args = p.parse_args(argv)
    args.seconds = args.seconds or (dry_seconds if args.dry else seconds)
    args.chains = args.chains or (8 if args.dry else 256)
    out = args.out or (os.path.join(tempfile.mkdtemp(), "dry") if args.dry else
                       os.path.join(ROOT, "results", "search", "bench_search"))
    if args.render:
        return args, out, None
    record = new_record(seconds=args.seconds, rows=[], notes=args.note or [],
                        settings={**POPULATION, **SEARCH, "t0": T0, "t1": T1,
                                  "warm-up steps": WARMUP_STEPS})
    return args, out, record


def run_device_bench(argv, doc: str, name: str, seconds: float, dry_seconds: float, measure,
                     what: str, extra=None) -> None:
    """A device-chains benchmark end to end (this one, bench_device_centres): the command line
    (:func:`device_args`), with ``--render`` only the page again; else the machine (the GPU's,
    and ``extra()``'s fields; the CPU's with ``--dry``), ``measure(args)``'s rows and the
    experiment (``what`` says how it was measured), its line on the page the device chains'
    speed-ups (:func:`device_speedups`) unless ``--shows`` says another."""
    from bench_search import markdown

    args, out, record = device_args(argv, doc, name, seconds, dry_seconds)
    if record is None:
        render_experiment(out, args.experiment, args.shows, markdown, name)
        return
    if args.dry:
        from benchlib import machine

        record["machine"] = machine()
    else:
        import cupy as cp

        from benchlib import gpu_machine

        record["machine"] = gpu_machine(cp)
        record.update(extra() if extra is not None else {})
    record["rows"] = measure(args)
    record["what"] = what
    _, notes = device_speedups(record["rows"])
    save_experiment(out, args.experiment, record, markdown,
                    args.shows or (notes[0] if notes else None))


def main(argv=None):
    run_device_bench(argv, __doc__, "device_groups", 25.0, 3.0, measure, WHAT)


if __name__ == "__main__":
    main()
