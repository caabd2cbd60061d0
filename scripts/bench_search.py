#!/usr/bin/env python3
"""Search benchmark: evaluations/s and the best (diameter, ASPL) after a fixed wall time.

Each case runs the real ``golf run`` path (config, evaluator, compiled loop, checkpoints,
outputs) for ``--seconds`` per seed, quietly, in a temporary folder. The 2016 competition pairs
(``--golf2016``) record when the best-known diameter was first reached.

    python scripts/bench_search.py                  # the four (n, d, g) cases, seeds 0-2, 30 s
    python scripts/bench_search.py --golf2016 --seconds 300 --seeds 0   # the 2016 pairs

Writes ``<out>.json`` and ``<out>.md`` (default ``results/search/bench_search``) with the
machine, the date and the command. The record also holds the experiments on the search's speed
and moves (``experiments``: ``--golf2016``'s runs, ``bench_moves.py``,
``bench_chain_steps.py``, ``bench_device_groups.py``, ``bench_device_centres.py``,
``tune_gpu.py``); the page gives a line on each, and a new run of the cases keeps them.
``--experiment NAME`` puts a run into the experiment NAME instead (``--golf2016``:
``golf2016``), ``--shows TEXT`` says what it showed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile

from benchlib import (ROOT, experiment_args, experiment_lines, header, load, new_record,
                      render, render_experiment, save, save_experiment, table)

from golf.config import RunConfig, validate
from golf.run import Search

# (n, d, g): a tuned C annealer on this machine type, one thread, 30 s
TARGETS = {(256, 8, 1): (87000, 4, 2.7642), (256, 8, 4): (49000, 4, 2.7599),
           (1024, 8, 8): (9000, 5, 3.5347), (4096, 8, 64): (2100, 6, 4.2815)}
GOLF2016 = {(36, 3, 1): 4, (64, 8, 1): 3, (96, 3, 1): 6, (256, 8, 1): 4}


def one_run(n, d, g, seed, seconds, tmp, extra=None):
    data = {"name": f"n{n}d{d}g{g}s{seed}", "problem": {"n": n, "d": d, "g": g},
            "search": {"time_limit": seconds, "seed": seed, **(extra or {})},
            "output": {"dir": tmp, "checkpoint_every": 3600, "plot": False}}
    data = validate(data, lambda k: "bench")
    run = RunConfig(data["name"], data, __import__("pathlib").Path(tmp) / data["name"], "bench")
    return Search(run, quiet=True).start(force=True), run.path


def first_time_at(run_path, diameter):
    import csv

    with open(os.path.join(run_path, "trace.csv")) as f:
        for row in csv.DictReader(f):
            if int(row["best_diameter"]) <= diameter:
                return float(row["seconds"])
    return None


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=30.0)
    p.add_argument("--seeds", default="0,1,2")
    p.add_argument("--golf2016", action="store_true")
    p.add_argument("--out", default=os.path.join(ROOT, "results", "search", "bench_search"))
    p.add_argument("--render", action="store_true", help="rewrite the page from the JSON "
                   "record; runs nothing (with --experiment and --shows: that line first)")
    experiment_args(p)
    args = p.parse_args(argv)
    if args.golf2016 and args.experiment is None:
        args.experiment = "golf2016"
    seeds = [int(s) for s in args.seeds.split(",")]
    cases = GOLF2016 if args.golf2016 else TARGETS
    if args.render:
        if args.experiment:
            render_experiment(args.out, args.experiment, args.shows, markdown, "bench_search")
        else:
            render(args.out, markdown, "bench_search")
        return
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for (n, d, g), target in cases.items():
            for seed in seeds:
                s, path = one_run(n, d, g, seed, args.seconds, tmp)
                row = {"n": n, "d": d, "g": g, "seed": seed, "seconds": s["seconds"],
                       "evaluations_per_s": s["evaluations_per_s"],
                       "diameter": s["best"]["diameter"], "aspl": s["best"]["aspl"],
                       "evaluator": s["evaluator"]}
                if args.golf2016:
                    row["best_known_diameter"] = target
                    row["seconds_to_best_known_diameter"] = first_time_at(path, target)
                rows.append(row)
                print(json.dumps(row), flush=True)
    record = new_record(rows=rows, time_limit=args.seconds)
    if args.experiment:
        save_experiment(args.out, args.experiment, record, markdown, args.shows)
        return
    kept = load(args.out) or {}
    if kept.get("experiments"):  # the runs of other scripts that the page holds
        record["experiments"] = kept["experiments"]
    save(args.out, record, markdown(record))


def markdown(record):
    """The page: the cases of TARGETS, then a line on each experiment of the record."""
    m = record["machine"]
    lines = header("Search benchmark", record,
                   f"machine: {m.get('cpu', '?')}, {m['cores']} cores; commit "
                   f"{m.get('commit', '?')}",
                   f"each run: `golf run` with `time_limit: {record.get('time_limit', 30):g}` s, "
                   "default settings (auto temperatures, auto backend and threads)")
    rows = []
    for (n, d, g), (t_rate, t_d, t_aspl) in TARGETS.items():
        rs = [r for r in record["rows"] if (r["n"], r["d"], r["g"]) == (n, d, g)]
        if not rs:
            continue
        rate = statistics.median(r["evaluations_per_s"] for r in rs)
        aspl = statistics.median(r["aspl"] for r in rs)
        ds = [r["diameter"] for r in rs]
        met = rate >= t_rate and aspl <= t_aspl + 5e-5 and max(ds) <= t_d
        rows.append((f"({n}, {d}, {g})", f"{rate:,.0f}", f"{t_rate:,}", ds,
                     ", ".join("%.4f" % r["aspl"] for r in rs), f"{aspl:.4f}", t_aspl,
                     "yes" if met else "NO"))
    lines += table(["(n, d, g)", "evaluations/s (median)", "target", "best D (seeds)",
                    "ASPL per seed", "median ASPL", "target ASPL", "met"], rows)
    return "\n".join(lines + experiment_lines(record)) + "\n"


if __name__ == "__main__":
    main()
