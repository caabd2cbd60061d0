#!/usr/bin/env python3
"""Quality benchmark: how close ``golf chase`` comes to the Graph Golf 2016 records in a fixed
wall time, with nothing set per pair.

Each pair runs the real ``golf chase N D --minutes M`` (the symmetry form chosen by its
trials, a population of chains: :mod:`golf.run.chase`) in a temporary folder; ``--parallel K``
runs K pairs side by side, dealt round-robin over ``--gpus G`` GPUs (``CUDA_VISIBLE_DEVICES``),
each with its share of the host's cores for Numba's threads (``NUMBA_NUM_THREADS``: the cores
over K), and the page says how many shared the machine. Quality is the **excess ratio**
``(ASPL - L) / (ASPL_best - L)``, with ``L`` the Moore ASPL bound and ``ASPL_best`` the
published best-known value: 1.0 matches the record, below 1.0 beats it. A pair matches the
record when it reaches the best-known diameter and an ASPL within 0.0005 of the printed
(3-decimal) value; a diameter below the best-known beats the record whatever the ASPL (the
problem's order: diameter first).

    python scripts/bench_quality.py --target cpu --only n36d3,n64d8      # 2 cores, in turn
    python scripts/bench_quality.py --target gpu --gpus 2 --parallel 10 --minutes 9

Pairs run in different calls are merged into one record: ``results/quality/quality_<target>
.json`` and ``.md``, and the best graphs go to ``results/quality/<target>/`` gzipped under the
competition's file names. ``--experiment NAME`` puts the runs (e.g. with ``--set``) into the
record's experiment NAME instead of its rows; the page gives one line on each experiment
(``--shows TEXT``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from benchlib import (ROOT, chase_command, describe_machine, experiment_args, experiment_lines,
                      keep_log, load, load_experiment, machine, new_record, plain,
                      render_experiment, repo_env, save, save_experiment, table)

from golf.lower_bounds import moore_bounds
from golf.problems import submission_name

# Graph Golf 2016, published best-known (diameter, ASPL), the 20 pairs of its table
_TABLE = [(36, 3, 4, 3.067), (64, 8, 3, 1.927), (96, 3, 6, 4.272), (256, 8, 4, 2.736),
          (300, 7, 4, 3.012), (384, 3, 9, 6.226), (512, 8, 4, 3.111), (1024, 3, 11, 7.679),
          (1024, 8, 5, 3.505), (1024, 11, 4, 3.059), (1024, 32, 3, 1.998),
          (1560, 40, 3, 2.038), (1800, 7, 5, 4.078), (3250, 57, 3, 2.070),
          (10000, 7, 7, 5.060), (10000, 11, 5, 4.107), (10000, 20, 4, 3.376),
          (100000, 7, 8, 6.392), (100000, 11, 6, 5.147), (100000, 20, 5, 4.133)]
RECORDS = {f"n{n}d{d}": (n, d, k, a) for n, d, k, a in _TABLE}
# what the pairs must reach (issue targets)
TARGETS = {"cpu": "the best-known diameter on the 9 pairs with n <= 1024, excess ratio <= 1.10 "
                  "on at least 7",
           "gpu": "every pair at the best-known diameter or lower; excess ratio <= 1.0 on at "
                  "least 17 of 20, <= 1.10 on all 20"}


def excess(n, d, aspl, best):
    low = float(moore_bounds(n, d).aspl)
    return (aspl - low) / (best - low)


def chase_cmd(name, minutes, ranks, tmp, sets=()):
    n, d = RECORDS[name][:2]
    return chase_command([n, d], minutes, ranks, tmp, sets)


def run_pairs(names, minutes, ranks, tmp, sets, parallel, gpus, cpu_only):
    """``golf chase`` for every pair, ``parallel`` at once (GPUs dealt round-robin); yields
    ``(name, summary, run folder)`` as each ends."""
    queue, running = list(names), []
    while queue or running:
        while queue and len(running) < parallel:
            name = queue.pop(0)
            env = repo_env(NUMBA_NUM_THREADS="1", CUDA_VISIBLE_DEVICES="") if cpu_only else \
                repo_env(NUMBA_NUM_THREADS=str(max(1, (os.cpu_count() or 1) // parallel)))
            if gpus and not cpu_only:
                env["CUDA_VISIBLE_DEVICES"] = str(names.index(name) % gpus)
            log = open(os.path.join(tmp, f"{name}.out"), "w")
            proc = subprocess.Popen(chase_cmd(name, minutes, ranks, tmp, sets), cwd=ROOT,
                                    env=env, stdout=log, stderr=subprocess.STDOUT)
            running.append((name, proc, log))
        for item in list(running):
            name, proc, log = item
            if proc.poll() is None:
                continue
            running.remove(item)
            log.close()
            rd = os.path.join(tmp, name)
            if proc.returncode != 0:
                with open(os.path.join(tmp, f"{name}.out")) as f:
                    print(f"{name}: golf chase failed ({proc.returncode}):\n{f.read()[-3000:]}",
                          flush=True)
                continue
            with open(os.path.join(rd, "summary.json")) as f:
                yield name, json.load(f), rd
        time.sleep(1.0)


def row_of(name, s, rd, target, folder):
    n, d, best_d, best_aspl = RECORDS[name]
    aspl, diam = s["best"]["aspl"], s["best"]["diameter"]
    os.makedirs(folder, exist_ok=True)
    subprocess.run([sys.executable, "-m", "golf", "export", rd, "-o", folder + os.sep, "--gzip"],
                   check=True, capture_output=True, cwd=ROOT, env=repo_env())
    file = os.path.join(folder, submission_name(n, d, diam, s["best"]["total"]) + ".gz")
    c = s["config"]
    auto = s.get("auto_g") or {}
    trials = sum(t.get("seconds", 0) for t in auto.get("trials", []))
    return {"name": name, "n": n, "d": d, "g": c["problem"]["g"],
            "form": (auto.get("form") or {}).get("label", f"g={c['problem']['g']}"),
            "trial_seconds": trials, "trial_share": trials / s["seconds"],
            "budget": auto.get("budget"), "seconds": s["seconds"],
            "evaluations": s["evaluations"], "evaluations_per_s": s["evaluations_per_s"],
            "diameter": diam, "aspl": aspl, "best_known": [best_d, best_aspl],
            "excess_ratio": excess(n, d, aspl, best_aspl),
            "diameter_matched": diam <= best_d,
            "record_matched": diam < best_d or (diam == best_d and aspl <= best_aspl + 0.0005),
            "ranks": (s.get("mpi") or {}).get("ranks", 1), "evaluator": s["evaluator"],
            "search": c["search"], "polish": s.get("polish"), "steps": s["steps"],
            # None where another MPI rank found the best graph (its steps are not in the summary)
            "best_found_at_step": s["best"]["found_at_step"],
            "best_found_at_seconds": s.get("best_found_at_seconds"),
            "method": s["method"], "memetic": s.get("memetic"), "duel": s.get("duel"),
            "file": kept_path(file, target)}


def kept_path(file, target):
    """Where a row's graph file is kept, relative to the repository: where it was written
    when that is inside the repository, else (a folder copied back from another machine)
    ``results/quality/<target>/`` under its name."""
    rel = os.path.relpath(os.path.abspath(file), ROOT)
    if rel.startswith(".."):
        return os.path.join("results", "quality", target, os.path.basename(file))
    return rel


def verdict(rows, target):
    """One line: the targets met, or which miss and by how much."""
    miss, below = [], []
    if target == "cpu":
        rows = [r for r in rows if r["n"] <= 1024]
    for r in rows:
        pair = f"({r['n']}, {r['d']})"
        if not r["diameter_matched"]:
            miss.append(f"{pair} diameter {r['diameter']} > {r['best_known'][0]}")
        elif r["diameter"] < r["best_known"][0]:
            below.append(f"{pair} diameter {r['diameter']} < {r['best_known'][0]}")
    ok = [r for r in rows if r["diameter"] < r["best_known"][0] or (
        r["diameter_matched"] and (r["excess_ratio"] <= 1.0 or r["record_matched"]))]
    near = [r for r in rows if r["diameter"] < r["best_known"][0] or (
        r["diameter_matched"] and r["excess_ratio"] <= 1.10)]
    need = {"gpu": (12, 17), "cpu": (0, 7)}[target]
    if len(ok) < need[0]:
        miss.append(f"{len(ok)} pairs at or below 1.0, {need[0]} needed")
    if len(near) < need[1]:
        miss.append(f"{len(near)} pairs at or below 1.10, {need[1]} needed")
    counts = f" ({len(ok)} at or below 1.0, {len(near)} at or below 1.10 of {len(rows)})"
    by_diameter = (" Below the best-known diameter: " + "; ".join(below) + ".") if below else ""
    return ("Targets met on the pairs measured" + counts + "." if not miss else
            "Targets missed: " + "; ".join(miss) + counts + ".") + by_diameter


def _pair_command(rows) -> str:
    """The benchmark's command line, the pairs of each call shown as PAIRS."""
    import re

    def shape(cmd):  # the call's pairs, its seed and machine-local folders are in the JSON
        cmd = re.sub(r" --set search\.seed=\d+", "", re.sub(r"--only \S+", "--only PAIRS",
                                                             plain(cmd)))
        head, *opts = re.split(r" (?=--)", cmd)  # the options in one order
        return " ".join([head, *sorted(opts, key=lambda o: (not o.startswith("--target "), o))])

    cmds = sorted({shape(r["command"]) for r in rows})
    parallel = sorted({m for c in cmds for m in re.findall(r"--parallel (\d+)", c)}, key=int)
    if len(parallel) > 1:
        cmds = sorted({re.sub(r"--parallel \d+", "--parallel P", c) for c in cmds})
    seeded = any("--set search.seed=" in r["command"] for r in rows)
    return "; ".join(f"`{c}`" for c in cmds) + (
        f" (P = {', '.join(parallel)})" if len(parallel) > 1 else "") + (
        "; some runs with `--set search.seed=S`" if seeded else "")


def _either(items, sep) -> str:
    """Distinct ``head SEP tail`` strings in one: the heads joined by "or", then the tail where
    all share it ("H100 (CuPy 14) or H200 (CuPy 14)" reads "H100 or H200 (CuPy 14)")."""
    parts = sorted({tuple(x.split(sep, 1)) for x in items})
    tails = {p[1:] for p in parts}
    if len(tails) != 1 or not parts[0][1:]:
        return " or ".join(sep.join(p) for p in parts)
    return " or ".join(p[0] for p in parts) + sep + parts[0][1]


def _machines(rows) -> str:
    """The machines of the rows in one line: the GPUs, then the hosts they sat in."""
    parts = [r["machine"].split("; host ", 1) for r in rows]
    gpus = [p[0] for p in parts if len(p) == 2]
    host = _either([p[-1] for p in parts], "; ")
    return (_either(gpus, " (") + "; host " if gpus else "") + host


def markdown(record, target):
    """The page: what, command, machine, date, the table, at most five lines of notes (the
    verdict among them). Per-pair details (commands, evaluators, files) stay in the JSON."""
    rows = sorted(record["rows"].values(), key=lambda r: (r["n"], r["d"]))
    dates = sorted({r["date"][:10] for r in rows})
    lines = [f"# golf chase against the Graph Golf 2016 records ({target.upper()})", "",
             f"- what: `golf chase N D`, nothing set per pair; excess ratio (ASPL - L) / "
             f"(ASPL_best - L), L the Moore bound; trials: their share of the run; at once: "
             f"runs on {'a GPU' if target == 'gpu' else 'the machine'}; target: "
             f"{TARGETS[target]}",
             f"- command: {_pair_command(rows)}",
             f"- machine: {_machines(rows)}", f"- date: {', '.join(dates)}", ""]
    cols = ["pair", "form chosen", "D (best-known)", "ASPL (best-known)", "excess ratio",
            "trials", "evaluations/s", "at once"]
    lines += table(cols, [[f"({r['n']}, {r['d']})", r["form"],
                           f"{r['diameter']} ({r['best_known'][0]})",
                           f"{r['aspl']:.6f} ({r['best_known'][1]:.3f})",
                           f"{r['excess_ratio']:.3f}" + (
                               " record (smaller D)" if r["diameter"] < r["best_known"][0]
                               else " record" if r["record_matched"] else ""),
                           f"{r['trial_share']:.3f}", f"{r['evaluations_per_s']:,.0f}",
                           r["at_once"]]
                          for r in rows])
    missing = [k for k in RECORDS if k not in record["rows"]
               and (target == "gpu" or RECORDS[k][0] <= 1024)]
    notes = list(record.get("notes") or [])[:3]
    if missing:
        notes.append(f"Not measured yet: {', '.join(missing)}.")
    notes.append(verdict(rows, target))
    return "\n".join(lines + [""] + [f"- {x}" for x in notes[-5:]]
                     + experiment_lines(record)) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--target", choices=("cpu", "gpu"), default="cpu")
    p.add_argument("--minutes", type=float, default=10.0)
    p.add_argument("--ranks", type=int, default=0, help="golf chase --ranks (0: its default, "
                   "a process a core on the CPU, a GPU on the GPU)")
    p.add_argument("--parallel", type=int, default=1, help="pairs run at once")
    p.add_argument("--gpus", type=int, default=0, help="GPUs to deal the pairs over")
    p.add_argument("--only", default=",".join(RECORDS), help="comma-separated pair names")
    p.add_argument("--out", default=None)
    p.add_argument("--graphs", default=None, help="folder for the best graphs (default: "
                   "results/quality/<target>)")
    p.add_argument("--logs", default=None, help="folder to copy each run's log.txt to")
    p.add_argument("--merge", nargs="*", default=None, help="records (JSON) of pairs measured "
                   "elsewhere to merge into --out; runs nothing")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="a setting for every pair's golf run (repeatable), e.g. "
                   "evaluator.chains=device")
    p.add_argument("--note", action="append", default=None,
                   help="with --merge: a line for the page, e.g. other runs of a pair "
                   "(repeatable; replaces the record's notes)")
    p.add_argument("--at-once", type=int, default=None, help="with --merge: how many pairs "
                   "shared a GPU (CPU: the machine), where the merged rows say otherwise")
    p.add_argument("--render", action="store_true", help="write the page again from the JSON; "
                   "runs nothing (with --experiment and --shows: that line first)")
    experiment_args(p)
    args = p.parse_args(argv)
    out = args.out or os.path.join(ROOT, "results", "quality", f"quality_{args.target}")

    def page(rec):
        return markdown(rec, args.target)

    if args.render and args.experiment:
        render_experiment(out, args.experiment, args.shows, page, "bench_quality")
        return
    if args.experiment:
        record = load_experiment(out, args.experiment) or new_record(rows={})
    else:
        record = load(out) or new_record(rows={})

    def write():
        if args.experiment:
            save_experiment(out, args.experiment, record, page, args.shows)
        else:
            save(out, record, page(record))

    if args.render:
        write()
        return
    if args.merge is not None:  # --merge alone: the notes only
        for path in args.merge:
            other = load(path[:-5] if path.endswith(".json") else path)
            if args.experiment:  # a record that holds the experiment, or the experiment alone
                other = (other.get("experiments") or {}).get(args.experiment, other)
            for row in other["rows"].values():
                if args.at_once is not None:
                    row["at_once"] = args.at_once
            record["rows"].update(other["rows"])
            record.update(date=other["date"], machine=other["machine"])
        if args.note is not None:
            record["notes"] = args.note
        record["command"] = " ".join(["python"] + sys.argv)
        write()
        return
    graphs = args.graphs or os.path.join(ROOT, "results", "quality", args.target)
    mach = machine()
    if args.target == "gpu":
        import cupy as cp

        from benchlib import gpu_machine

        mach = gpu_machine(cp)
    names = args.only.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        for name, s, rd in run_pairs(names, args.minutes, args.ranks, tmp, args.set,
                                     args.parallel, args.gpus, args.target == "cpu"):
            row = row_of(name, s, rd, args.target, graphs)
            keep_log(rd, args.logs, name)  # the trials, the choice, the progress
            fresh = new_record()
            row.update(date=fresh["date"], command=fresh["command"],
                       machine=describe_machine(mach), commit=mach.get("commit"),
                       at_once=min(args.parallel, len(names)) if not args.gpus else
                       -(-min(args.parallel, len(names)) // args.gpus))
            record["rows"][name] = row
            record.update(date=fresh["date"], command=fresh["command"], machine=mach)
            write()
            print(json.dumps({k: row[k] for k in ("name", "form", "diameter", "aspl",
                                                  "excess_ratio", "trial_share")}), flush=True)


if __name__ == "__main__":
    main()
