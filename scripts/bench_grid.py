#!/usr/bin/env python3
"""Grid benchmark: what golf reaches on the Graph Golf 2019 grid problems in a fixed time, and
how far that is from the lattice lower bound.

Each problem runs the real ``golf run configs/graphgolf2019_grid.yaml --only NAME`` for
``--seconds`` under ``mpiexec -n RANKS`` (one chain a core, GPUs hidden), in a temporary folder.
The record holds the diameter and ASPL reached, the lattice bounds (``golf bounds --grid``),
the ASPL gap to the bound in percent, evaluations/s, and the best graph, exported gzipped
under the competition's name into ``results/grid/graphs/``.

    python scripts/bench_grid.py --chase 10     # golf chase --grid WxH D R --minutes 10
    python scripts/bench_grid.py                # the config's search, problems with n <= 400, 120 s
    python scripts/bench_grid.py --only w10h10d6r3 --seconds 30
    python scripts/bench_grid.py --parallel 8   # 8 problems at once, 2 cores each (16 cores)
    python scripts/bench_grid.py --chase 8 --gpus 2 --ranks 1 --parallel 8 \
        --out results/grid/chase_gpu           # 8 chases on 2 GPUs, 4 a GPU

With ``--chase MINUTES`` each problem runs ``golf chase --grid WxH D R`` (the symmetry form
chosen by its trials, a population of chains, nothing set per problem) for MINUTES of wall
time on RANKS processes, instead of the config's search. The chases see no GPU unless
``--gpus G`` deals them over G GPUs (``CUDA_VISIBLE_DEVICES``, round-robin); each then
scores on its GPU (the chase's own backend choice).

The page is the chase's: ``results/grid/chase.json`` and ``.md``, its graphs in
``results/grid/graphs/chase/``. Runs of the config's search, and chases that compare a
setting (``--set``), go into that record's experiments: ``--experiment NAME`` (the config's
search by default ``config``, its graphs in ``results/grid/graphs/``; a chase experiment's in
``graphs/NAME/``). The page gives one line on each experiment: ``--shows TEXT`` (or later
``--render --experiment NAME --shows TEXT``) says what it showed.

Targets: a chase reaches or beats the best-known graph on every problem; a run of the config
(for the small problems) reaches the diameter bound on (5x5,4,2), (10x10,6,3) and (10x10,8,4),
and an ASPL within 3% of the bound there.

Each row also compares with the best graph known here for that problem (``BEST_KNOWN``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

from benchlib import (ROOT, chase_command, describe_machine, experiment_args,
                      experiment_lines, export_best, header, keep_log, load, load_experiment,
                      machine, new_record, plain, render, render_experiment, repo_env,
                      run_problem, save, save_experiment, table)

from golf.config import load_config
from golf.lower_bounds import grid_bounds

CONFIG = os.path.join(ROOT, "configs", "graphgolf2019_grid.yaml")
RECORD = os.path.join(ROOT, "results", "grid", "chase")  # the page's record, less .json/.md
TARGETS = ("w5h5d4r2", "w10h10d6r3", "w10h10d8r4")
# The best graphs known here for the 2019 problems, as (diameter, total of the distances over
# all pairs), each rescored with `golf validate` and `golf eval`: the *_best.edges files of the
# public test data of oimohokuhoku/ODP_GridGraph_GA (odpGridGraphs/unitTest/_edgesFile/), and
# for (5x5,4,2) the value that mnakao/ODP lists (samples/graphs/grid/ASPL.txt: 680/300).
BEST_KNOWN = {
    "w5h5d4r2": (4, 680),
    "w5h10d4r2": (7, 3806),
    "w10h10d4r2": (9, 19730),
    "w10h10d6r3": (6, 14370),
    "w10h10d8r4": (5, 12010),
    "w20h20d4r2": (19, 574460),
    "w20h20d6r3": (13, 397502),
    "w20h20d8r4": (10, 314432),
}
BEST_SOURCE = ("oimohokuhoku/ODP_GridGraph_GA odpGridGraphs/unitTest/_edgesFile/*_best.edges "
               "and mnakao/ODP samples/graphs/grid/ASPL.txt, rescored with golf eval")
TARGET_TEXT = ("diameter bound reached and ASPL within 3% of the lattice bound on "
               + ", ".join(TARGETS))
CHASE_TARGET = "the best-known graph reached or beaten on every problem"


def problems(max_n: int) -> list:
    return [r for r in load_config(CONFIG) if r["problem"]["n"] <= max_n]


def reached(name, diameter, total) -> bool:
    """True when a graph of ``diameter`` and ``total`` is at least as good as the best-known
    graph of problem ``name``: a smaller diameter, or the same and a total no larger."""
    known = BEST_KNOWN.get(name)
    return known is not None and (diameter, total) <= known


def row_of(run, s, rd, ranks, folder) -> dict:
    p = run["problem"]
    (w, h), d, r = p["grid"], p["d"], p["r"]
    b = grid_bounds(w, h, d, r)
    best = s["best"]
    gap = 100.0 * (best["aspl"] / float(b.aspl) - 1.0)
    auto = s.get("auto_g") or {}
    trials = sum(t.get("seconds", 0) for t in auto.get("trials", []))
    return {"form": (auto.get("form") or {}).get("label"), "trial_share": trials / s["seconds"],
            "best_known_reached": reached(run.name, best["diameter"], best["total"]),
            "name": run.name, "w": w, "h": h, "d": d, "r": r, "n": w * h,
            "g": s["config"]["problem"]["g"], "seconds": s["seconds"],
            "evaluations": s["evaluations"], "evaluations_per_s": s["evaluations_per_s"],
            "diameter": best["diameter"], "aspl": best["aspl"], "total": best["total"],
            "diameter_bound": b.diameter, "aspl_bound": float(b.aspl),
            "aspl_bound_fraction": str(b.aspl), "aspl_gap_percent": gap,
            "target": run.name in TARGETS,
            "target_met": best["diameter"] == b.diameter and gap <= 3.0,
            "ranks": ranks, "evaluator": s["evaluator"], "search": s["config"]["search"],
            "method": s["method"], "steps": s["steps"],
            "best_found_at_seconds": s.get("best_found_at_seconds"),
            "memetic": s.get("memetic"), "duel": s.get("duel"),
            "file": export_best(rd, folder, s)}


def best_known(name, n):
    """The best-known graph of problem ``name`` (``n`` cells) as a dict of its diameter, total
    and ASPL, or None where none is known here."""
    if name not in BEST_KNOWN:
        return None
    diameter, total = BEST_KNOWN[name]
    return {"diameter": diameter, "total": total, "aspl": total / (n * (n - 1) / 2)}


def known_gap(r, k) -> float:
    """The best-known graph's ASPL gap to the lattice bound of row ``r``, in percent."""
    return 100.0 * (k["aspl"] / r["aspl_bound"] - 1.0)


def known_text(r) -> str:
    k = best_known(r["name"], r["n"])
    return "-" if k is None else f"{k['diameter']}, {k['aspl']:.6f} ({known_gap(r, k):.2f}%)"


def versus(r) -> str:
    """The row's ASPL against the best-known graph's, in percent ('-' where none is known)."""
    k = best_known(r["name"], r["n"])
    if k is None:
        return "-"
    if r["diameter"] != k["diameter"]:
        return f"D {r['diameter']} vs {k['diameter']}"
    return f"{100.0 * (r['aspl'] / k['aspl'] - 1.0):+.2f}%"


def verdict(rows, chase=0) -> str:
    """The chase target (the best-known graphs reached) with ``chase``, else TARGET_TEXT's."""
    if chase:
        reached = [r["name"] for r in rows if r.get("best_known_reached")]
        short = [f"{r['name']} {versus(r)}" for r in rows if not r.get("best_known_reached")]
        text = f"Best-known graph reached or beaten on {len(reached)} of {len(rows)}"
        return text + (f"; short: {', '.join(short)}." if short else ".")
    miss = [f"{r['name']}: diameter {r['diameter']} (bound {r['diameter_bound']}), ASPL gap "
            f"{r['aspl_gap_percent']:.2f}%" for r in rows if r["target"] and not r["target_met"]]
    done = {r["name"] for r in rows}
    absent = [t for t in TARGETS if t not in done]
    if miss:
        known = [f"{r['name']}'s best-known graph is itself {known_gap(r, k):.2f}% above the "
                 f"bound" for r in rows if r["target"] and not r["target_met"]
                 for k in [best_known(r["name"], r["n"])] if k is not None]
        return ("Target missed: " + "; ".join(miss) + "."
                + (" For comparison, " + "; ".join(known) + "." if known else ""))
    return "Target met" + (f" on the problems measured (not measured: {', '.join(absent)})."
                           if absent else ".")


def runs_of(rows) -> list[str]:
    """Where the rows come from more than one call: a line a call (its commit, its command
    without the folders it wrote to, its rows), else nothing."""
    calls: dict = {}
    for r in rows:
        cpu = (r.get("machine") or {}).get("cpu")
        calls.setdefault((r.get("commit"), plain(r.get("command") or ""), cpu),
                         []).append(r["name"])
    if len(calls) < 2:
        return []
    return ["", "Rows by call:"] + [f"- commit {commit}, `{cmd}`{f' on {cpu}' if cpu else ''}: "
                                    f"{', '.join(names)}"
                                    for (commit, cmd, cpu), names in calls.items()]


def method_text(row) -> str:
    """The search a row's run made: ``sa`` or ``memetic``, with ``(duel)`` where a duel of
    ``search.method: auto`` chose it."""
    duel = (row.get("duel") or {}).get("seconds_each")
    return (row.get("method") or "sa") + (" (duel)" if duel else "")


def _number(x) -> str:
    return "" if x is None else f"{x:,.0f}"


def machines(record, rows) -> str:
    """The machines of the rows (each row's own where it has one, else the record's)."""
    seen = [describe_machine(r.get("machine") or record["machine"]) for r in rows]
    return "; ".join(dict.fromkeys(seen))


def markdown(record) -> str:
    rows = sorted(record["rows"].values(), key=lambda r: (r["n"], r["d"]))
    chase = record.get("chase", 0)
    where = "a GPU" if any(r.get("gpus") for r in rows) else "the CPU"
    lines = header(f"Grid graphs: Graph Golf 2019 grid problems on {where}",
                   dict(record, command=plain(record["command"])),
                   f"target: {CHASE_TARGET if chase else TARGET_TEXT}",
                   "gap = ASPL / lattice bound - 1 (the bound of `golf bounds --grid WxH D R`)",
                   f"best-known: D, ASPL (gap) of the best graph known here ({BEST_SOURCE}); "
                   "vs best-known = ASPL / best-known ASPL - 1",
                   *([f"each problem: `golf chase --grid WxH D R --minutes {chase:g} --ranks "
                      "RANKS` (the form chosen by its trials, nothing set per problem); "
                      "`seconds` is the run's wall time, `best at` when it found its best "
                      "graph; generations, children/s: a memetic run's"] if chase else
                     ["each problem: `golf run configs/graphgolf2019_grid.yaml --only NAME` "
                      "with search.time_limit set by --seconds, under `mpiexec -n RANKS` (one "
                      "chain a core)"]),
                   "`at once` problems ran side by side, each on its own RANKS cores"
                   + (", that many a GPU" if where == "a GPU" else ""))
    cols = ["problem", "g", "method", "seconds", "best at", "D (bound)", "ASPL", "gap",
            "best-known", "vs best-known", "evaluations/s", "generations", "children/s",
            "ranks", "at once", "date"]
    lines += table(cols, [[f"({r['w']}x{r['h']}, {r['d']}, {r['r']})", r["g"], method_text(r),
                           f"{r['seconds']:.0f}", _number(r.get("best_found_at_seconds")),
                           f"{r['diameter']} ({r['diameter_bound']})",
                           f"{r['aspl']:.6f}", f"{r['aspl_gap_percent']:.2f}%", known_text(r),
                           versus(r), f"{r['evaluations_per_s']:,.0f}",
                           _number((r.get("memetic") or {}).get("generations")),
                           _number((r.get("memetic") or {}).get("children_per_s")),
                           r["ranks"], r.get("at_once", 1), r["date"][:10]] for r in rows])
    kept = [r for r in rows if r.get("file")] or [{"file": "-/-"}]
    lost = [r["name"] for r in rows if not r.get("file")]
    lines += ["", f"Machine: {machines(record, rows)}; each row's commit and machine are in "
                  f"the JSON (`commit`, `machine`).", *runs_of(rows), "", verdict(rows, chase), "",
              f"Each row's best graph is in `{os.path.dirname(kept[0]['file'])}/` (its file: "
              "`file` in the JSON)" + (f"; not kept: {', '.join(lost)}" if lost else "") + "."]
    if record.get("notes"):
        lines += ["", *(f"- {note}" for note in record["notes"])]
    return "\n".join(lines + experiment_lines(record)) + "\n"


def default_paths(chase: float, experiment: str | None = None) -> tuple[str, str | None, str]:
    """The record (less .json/.md), the experiment and the graphs' folder of a run: the
    chase's page (its graphs in ``graphs/chase``); the config's search by default into the
    experiment ``config`` (its graphs in ``graphs/``); an experiment's chase into
    ``graphs/EXPERIMENT``. So no run overwrites another's graphs."""
    graphs = os.path.join(os.path.dirname(RECORD), "graphs")
    if not chase:
        experiment = experiment or "config"
    if not (experiment == "config" and not chase):
        graphs = os.path.join(graphs, experiment or "chase")
    return RECORD, experiment, graphs


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=120.0)
    p.add_argument("--chase", type=float, default=0.0, metavar="MINUTES",
                   help="run golf chase --grid for MINUTES instead of the config's search")
    p.add_argument("--ranks", type=int, default=2, help="MPI ranks (one a core)")
    p.add_argument("--max-n", type=int, default=400, help="the problems with n <= this")
    p.add_argument("--only", default=None, help="comma-separated problem names")
    p.add_argument("--parallel", type=int, default=1, help="problems run at once (each on its "
                   "own RANKS cores; a machine with PARALLEL * RANKS cores)")
    p.add_argument("--out", default=None, help="the record's path less .json/.md (default "
                   "results/grid/chase)")
    p.add_argument("--graphs", default=None, help="where the best graphs go (default "
                   "results/grid/graphs/chase, the config's search results/grid/graphs, an "
                   "experiment's chase results/grid/graphs/NAME)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="sets",
                   help="with --chase: a setting for every problem's chase (repeatable), e.g. "
                   "search.polish=0.5")
    p.add_argument("--gpus", type=int, default=0, help="with --chase: GPUs to deal the "
                   "problems over (0: the chases see none)")
    p.add_argument("--logs", help="folder to copy each run's log.txt to")
    p.add_argument("--render", action="store_true", help="rewrite the markdown from the JSON "
                   "record; runs nothing")
    p.add_argument("--note", action="append", default=None, help="with --render: a line for "
                   "the page, e.g. other runs of a problem (repeatable; replaces the record's "
                   "notes)")
    experiment_args(p)
    args = p.parse_args(argv)
    if args.render:
        if args.experiment:
            render_experiment(args.out or RECORD, args.experiment, args.shows, markdown,
                              "bench_grid")
        else:
            render(args.out or RECORD, markdown, "bench_grid", args.note)
        return
    if args.gpus and not args.chase:
        sys.exit("bench_grid: --gpus needs --chase")
    out, args.experiment, graphs = default_paths(args.chase, args.experiment)
    args.out, args.graphs = args.out or out, args.graphs or graphs
    runs = problems(args.max_n)
    if args.only:
        wanted = args.only.split(",")
        unknown = set(wanted) - {r.name for r in load_config(CONFIG)}
        if unknown:
            sys.exit(f"bench_grid: no problem named {', '.join(sorted(unknown))}")
        runs = [r for r in load_config(CONFIG) if r.name in wanted]
    if args.experiment:
        record = load_experiment(args.out, args.experiment) or new_record(rows={})
    else:
        record = load(args.out) or new_record(rows={})
    if record.get("chase", 0) != args.chase:  # one table, one way of running
        record = new_record(rows={}, chase=args.chase,
                            **({} if args.experiment else
                               {"experiments": record.get("experiments") or {}}))

    def write():
        if args.experiment:
            save_experiment(args.out, args.experiment, record, markdown, args.shows)
        else:
            save(args.out, record, markdown(record))

    mach = machine()
    if args.gpus:
        import cupy as cp

        from benchlib import gpu_machine

        mach = gpu_machine(cp)
    busy = min(args.parallel, len(runs)) * args.ranks
    if args.parallel > 1 and busy > (os.cpu_count() or 1):
        sys.exit(f"bench_grid: {busy} ranks at once on {os.cpu_count()} cores")

    def one(run, tmp):
        if args.chase:
            p = run["problem"]
            (w, h), d, r = p["grid"], p["d"], p["r"]
            cmd = chase_command(["--grid", f"{w}x{h}", d, r], args.chase, args.ranks, tmp,
                                args.sets)
            slot = [r.name for r in runs].index(run.name)
            gpu = str(slot % args.gpus) if args.gpus else ""
            threads = max(1, (os.cpu_count() or 1) // min(args.parallel, len(runs))
                          // args.ranks) if args.gpus else 1
            subprocess.run(cmd, check=True, cwd=ROOT,
                           env=repo_env(NUMBA_NUM_THREADS=str(threads),
                                        CUDA_VISIBLE_DEVICES=gpu))
            rd = os.path.join(tmp, run.name)
            with open(os.path.join(rd, "summary.json")) as f:
                return run, json.load(f), rd
        s, rd = run_problem(CONFIG, run.name, args.seconds, args.ranks, tmp)
        return run, s, rd

    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(args.parallel) as pool:
        jobs = [pool.submit(one, run, os.path.join(tmp, run.name)) for run in runs]
        for job in jobs:
            run, s, rd = job.result()
            keep_log(rd, args.logs, run.name)
            row = row_of(run, s, rd, args.ranks, args.graphs)
            fresh = new_record()
            at_once = min(args.parallel, len(runs))
            row.update(date=fresh["date"], command=fresh["command"], commit=mach.get("commit"),
                       machine=mach, gpus=args.gpus,
                       at_once=-(-at_once // args.gpus) if args.gpus else at_once)
            record["rows"][run.name] = row
            record.update(date=fresh["date"], command=fresh["command"], machine=mach)
            write()
            print(json.dumps({k: row[k] for k in ("name", "diameter", "diameter_bound", "aspl",
                                                  "aspl_gap_percent")}), flush=True)


if __name__ == "__main__":
    main()
