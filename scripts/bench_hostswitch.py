#!/usr/bin/env python3
"""Host-switch search quality: ``golf chase --host-switch`` against mnakao/ORP's simulated
annealing sample and ORP's sample graphs, on the 13 featured pairs of Graph Golf 2021.

For each pair ``(n, r)`` two searches run side by side, on the same machine at the same time,
each pinned (``sched_setaffinity``, as ``taskset``) to its own ``--cores`` CPUs:

* golf: ``golf chase --host-switch N R --minutes M --ranks K`` (the number of switches chosen
  by its trials; with ``--ranks 1``, the default, one process of ``NUMBA_NUM_THREADS`` = its
  cores);
* ORP: its sample ``sample/sa.c`` (``sa.x``, or ``threads_sa.x`` on OpenMP threads), with
  ORP's own defaults: the number of switches ``ORP_Optimize_switches(n, r)`` (its ``-S``
  left out) and the temperatures of its ``calc_max_temp`` / ``calc_min_temp``. ``sa.x``
  takes a number of steps (``-n``), not a time, so the script first runs it for 10 steps
  (which prints its switches and temperatures), times a step of the serial and the OpenMP
  build on the same cores (runs of 10, 100, ... steps until one takes 0.25 s), and gives
  the faster one as many steps as fit 85% of the rest of the M minutes. A step's time
  changes as the graph improves: while more than 5% of the time is left after a run,
  ``sa.x -f`` anneals again from the best graph so far, its steps sized by the last run's
  step time (at 97% of what is left; a run past its time by 10% of M, 5% after the first,
  is stopped and its graph lost). ORP's whole wall time, these runs included, is M
  minutes. ``--cores`` CPUs each, the pairs dealt over the CPUs (``--parallel`` at once).

Every graph is scored again by ``golf eval --json``: golf's best (against its summary),
ORP's annealed graph (against the values ``sa.x`` prints) and ORP's sample graph of the pair
(``sample/graph/h{n}s{s}r{r}.edges``, against ORP's ``ASPL.txt``). The gap is the h-ASPL less
the lower bound of :func:`golf.hostswitch.host_switch_bounds`. The targets (issue 34, item 5):
golf's (h-diameter, h-ASPL) better than ORP's annealer on every pair, and golf's gap at most
half the gap of ORP's sample graph (at no larger h-diameter).

``--orp PATH`` builds ORP (its Makefiles: the libraries, then ``sa.x`` and ``threads_sa.x``)
into ``build/orp_sa/`` from a source tree or a git directory of it (a mirror, whose HEAD is
unpacked; a tree unpacked elsewhere, e.g. carried to another machine, may name its commit in
a file ``.commit``); later runs without ``--orp`` reuse that build.

    python scripts/bench_hostswitch.py --orp /work/.mirror/mnakao+ORP/repo --minutes 10
    python scripts/bench_hostswitch.py --only h32r4,h1024r10 --cores 1 --minutes 1
    python scripts/bench_hostswitch.py --render

Pairs run in different calls are merged into one record, ``results/hostswitch/
bench_hostswitch.json`` and ``.md``; the graphs go to ``results/hostswitch/graphs/``
(gzipped: golf's under the competition's name, ORP's as ``orp_sa_h{n}s{s}r{r}.edges.gz``).
Runs that compare a setting (``--set``, ``--gpu``, other minutes) go into the record's
experiment NAME with ``--experiment NAME`` (their graphs into ``graphs/NAME/``), and the page
gives one line on each experiment: ``--shows TEXT`` (or later ``--render --experiment NAME
--shows TEXT``) says what it showed.

    python scripts/bench_hostswitch.py --set search.batch=1 --minutes 6 --experiment batch1
"""

from __future__ import annotations

import argparse
import glob
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from fractions import Fraction

from benchlib import (
    ROOT,
    describe_machine,
    experiment_args,
    experiment_lines,
    load,
    load_experiment,
    machine,
    new_record,
    orp_build,
    render_experiment,
    repo_env,
    run_killable,
    save,
    save_experiment,
    table,
    unpack_git,
)

# the 13 featured pairs (n, r) of Graph Golf 2021's host-switch category, and the number of
# switches of ORP's sample graph of each (sample/graph/h{n}s{s}r{r}.edges)
PAIRS = [(32, 4), (80, 6), (128, 24), (432, 12), (1281, 21), (3800, 30), (1024, 5),
         (1024, 10), (4608, 36), (8208, 48), (10000, 10), (10000, 100), (65536, 64)]
SAMPLES = {(32, 4): 26, (80, 6): 40, (128, 24): 16, (432, 12): 120, (1281, 21): 139,
           (3800, 30): 300, (1024, 5): 1024, (1024, 10): 400, (4608, 36): 250,
           (8208, 48): 330, (10000, 10): 5000, (10000, 100): 200, (65536, 64): 3000}
# the best graph of each pair entered in Graph Golf 2021 (mnakao/ORP_test, commit fbd2c92,
# as of 2021-08-01), scored by golf eval: (h-diameter, h-total, switches, file)
BEST_2021 = {
    (32, 4): (6, 2448, 32, "h32r4k6l493.20210505-sme7v1.edges"),
    (80, 6): (5, 14080, 40, "h80r6k5l445.20210505-wpa40e.edges"),
    (128, 24): (3, 23396, 8, "h128r24k3l287.20210505-u8maj2.edges"),
    (432, 12): (5, 394416, 216, "h432r12k5l423.20210801-xbezl2.edges"),
    (1281, 21): (4, 3260450, 183, "h1281r21k4l397.20210615-qp9o38.edges"),
    (3800, 30): (5, 28895200, 950, "h3800r30k5l400.20210801-kr9fnb.edges"),
    (1024, 5): (9, 3899264, 1024, "h1024r5k9l744.20210704-42mt6p.edges"),
    (1024, 10): (6, 2665728, 1024, "h1024r10k6l508.20210801-glqxne.edges"),
    (4608, 36): (4, 41651712, 288, "h4608r36k4l392.20210615-xn9kso.edges"),
    (8208, 48): (4, 132173424, 342, "h8208r48k4l392.20210615-fvwe04.edges"),
    (10000, 10): (8, 318677500, 5000, "h10000r10k8l637.20210801-n68bi5.edges"),
    (10000, 100): (4, 186990000, 200, "h10000r100k4l374.20210505-xd5uj7.edges"),
    (65536, 64): (5, 9546932224, 4096, "h65536r64k5l444.20210801-xn7vmv.edges"),
}
BUILD = os.path.join(ROOT, "build", "orp_sa")
OUT = os.path.join(ROOT, "results", "hostswitch", "bench_hostswitch")
GRAPHS = os.path.join(ROOT, "results", "hostswitch", "graphs")
FIRST = 0.85  # the share of ORP's remaining seconds its first run's steps are sized to fill
SAFETY = 0.97  # the same for the runs that follow, sized by a whole run's step time
TOP_UP = 0.05  # ORP starts again from its best graph while this share of its time is left
CALIBRATE_SECONDS = 0.25  # a timing run of ORP is long enough from this many seconds


def pair_name(n: int, r: int) -> str:
    """The competition's name of a pair, ``h{n}r{r}`` (golf's run folder)."""
    return f"h{n}r{r}"


# ------------------------------------------------------------------------------------------
# pure parts
_SA_FIELDS = {
    "hosts": (r"^Hosts = (\d+), Switches = (\d+), Radix = (\d+)$", None),
    "seed": (r"^Random seed = (\d+)$", int),
    "ncalcs": (r"^Number of calculations = (\d+)$", int),
    "temperatures": (r"^Max, Min temperature = ([-\d.einf]+), ([-\d.einf]+)$", None),
    "diameter": (r"^Diameter\s+= (\d+)$", int),
    "aspl": (r"^ASPL\s+= ([\d.]+) \((\d+)/(\d+)\)$", None),
    "time": (r"^Time\s+= ([\d.]+) sec\.$", float),
    "verify": (r"^Verify\?\s+= (\w+)$", str),
}


def parse_sa(text: str) -> dict:
    """What ORP's ``sa.x`` prints: ``hosts``, ``switches``, ``radix``, ``seed``, ``ncalcs``,
    ``max_temp``, ``min_temp``, then the best graph's ``diameter``, ``total`` (ORP's ``sum``,
    over unordered host pairs), ``aspl``, ``time`` (seconds of the annealing loop) and
    ``verify`` (``ORP_Verify_edge``: True or False).

    Raises
    ------
    ValueError
        Naming the first line that is missing.
    """
    out = {}
    for key, (pattern, kind) in _SA_FIELDS.items():
        m = re.search(pattern, text, re.MULTILINE)
        if m is None:
            raise ValueError(f"sa.x printed no {key!r} line")
        if key == "hosts":
            out.update(hosts=int(m[1]), switches=int(m[2]), radix=int(m[3]))
        elif key == "temperatures":
            out.update(max_temp=m[1], min_temp=m[2])  # as printed: passed back with -w, -c
        elif key == "aspl":
            out.update(aspl=float(m[1]), total=int(m[2]))
        elif key == "verify":
            out["verify"] = m[1] == "Yes"
        else:
            out[key] = kind(m[1])
    return out


def parse_aspl_txt(text: str) -> dict:
    """ORP's ``sample/graph/ASPL.txt`` (what its ``simple.x`` prints for each sample):
    ``{(n, s, r): (h-diameter, h-total)}``."""
    out = {}
    blocks = re.split(r"^(?=Hosts = )", text, flags=re.MULTILINE)
    for b in blocks:
        head = re.match(r"Hosts = (\d+), Switches (\d+), Radix = (\d+)", b)
        if head is None:
            continue
        d = re.search(r"^Diameter\s+= (\d+)$", b, re.MULTILINE)
        a = re.search(r"^ASPL\s+= [\d.]+ \((\d+)/\d+\)$", b, re.MULTILINE)
        out[tuple(int(x) for x in head.groups())] = (int(d[1]), int(a[1]))
    return out


def steps_for(seconds_left: float, step: float, startup: float,
              safety: float = SAFETY) -> int:
    """How many annealing steps of ``step`` seconds fit ``seconds_left``, less a run's
    ``startup`` seconds, at ``safety`` of it (at least 1)."""
    return max(1, int((seconds_left - startup) * safety / max(step, 1e-9)))


def cpu_slots(cpus, siblings: dict, per_side: int, count: int) -> list:
    """``count`` pairs of CPU sets ``(golf's, ORP's)`` of ``per_side`` CPUs each, from
    ``cpus`` ordered so that the hardware threads of one core (``siblings``: CPU -> the
    sorted tuple of its core's CPUs) are next to each other: a set takes a whole core where it
    can, so that no two searches share one.

    Raises
    ------
    ValueError
        When there are too few CPUs.
    """
    order = sorted(cpus, key=lambda c: (siblings.get(c, (c,))[0], c))
    need = 2 * per_side * count
    if need > len(order):
        raise ValueError(f"{count} pairs of {per_side} + {per_side} CPUs need {need} CPUs, "
                         f"{len(order)} usable")
    sets = [order[i:i + per_side] for i in range(0, need, per_side)]
    return [(sets[2 * i], sets[2 * i + 1]) for i in range(count)]


def gap(aspl: float, bound: Fraction) -> float:
    """The h-ASPL's gap to its lower bound."""
    return aspl - float(bound)


def better(a: dict, b: dict) -> bool:
    """``a`` strictly better than ``b`` in the problem's order: h-diameter, then h-total."""
    return (a["diameter"], a["total"]) < (b["diameter"], b["total"])


def judge(row: dict) -> dict:
    """The row's two targets: ``beats_orp_sa`` (None when either search has no graph) and
    ``half_gap`` (golf's gap at most half the sample's, at no larger h-diameter; None
    without a sample), and ``gap_ratio``."""
    g, sa, sample = row.get("golf"), row.get("orp_sa"), row.get("orp_sample")
    out = {"beats_orp_sa": None, "half_gap": None, "gap_ratio": None}
    if g and sa and g.get("diameter") is not None and sa.get("diameter") is not None:
        out["beats_orp_sa"] = better(g, sa)
    if g and sample and g.get("diameter") is not None:
        out["gap_ratio"] = g["gap"] / sample["gap"] if sample["gap"] > 0 else None
        out["half_gap"] = (g["diameter"] <= sample["diameter"]
                           and g["gap"] <= 0.5 * sample["gap"])
    return out


def against_2021(row: dict) -> str | None:
    """golf's graph against the 2021 best of its pair: ``better``, ``equal`` or ``behind``
    (h-diameter, then h-total; None without a graph)."""
    g = row.get("golf")
    if not g or g.get("diameter") is None:
        return None
    best = BEST_2021[(row["n"], row["r"])][:2]
    mine = (g["diameter"], g["total"])
    return "better" if mine < best else ("equal" if mine == best else "behind")


def verdict_2021(rows: list) -> str:
    """How many pairs are at least as good as the 2021 best, and how many better."""
    marks = [against_2021(r) for r in rows]
    got = [m for m in marks if m is not None]
    return (f"Against the best graphs of Graph Golf 2021: at least as good on "
            f"{sum(m != 'behind' for m in got)} of {len(got)}, better on "
            f"{sum(m == 'better' for m in got)}.")


def verdict(rows: list) -> str:
    """One line per target: met on every pair measured, or where it missed."""
    def pairs(rs):
        return ", ".join(f"({r['n']}, {r['r']})" for r in rs)

    both = [r for r in rows if r["judge"]["beats_orp_sa"] is not None]
    lost = [r for r in both if not r["judge"]["beats_orp_sa"]]
    sampled = [r for r in rows if r["judge"]["half_gap"] is not None]
    far = [r for r in sampled if not r["judge"]["half_gap"]]
    one = (f"better than ORP's annealer on all {len(both)} pairs" if not lost else
           f"better than ORP's annealer on {len(both) - len(lost)} of {len(both)}, not on "
           f"{pairs(lost)}")
    ratios = [r["judge"]["gap_ratio"] for r in far if r["judge"]["gap_ratio"] is not None]
    two = (f"gap at most half the sample's on all {len(sampled)} pairs" if not far else
           f"gap at most half the sample's on {len(sampled) - len(far)} of {len(sampled)}, "
           f"not on {pairs(far)}" + (f" (ratios {min(ratios):.2f}-{max(ratios):.2f})"
                                     if ratios else ""))
    met = not lost and not far and both and sampled
    return ("Targets met: " if met else "Targets missed: ") + one + "; " + two + "."


def _cell(part: dict | None, switches: bool = True) -> str:
    if not part or part.get("diameter") is None:
        return "-"
    s = f" ({part['switches']})" if switches else ""
    return f"{part['diameter']} / {part['aspl']:.6f}{s}"


def markdown(record: dict) -> str:
    """The page: what, command, machine, date, one row a pair, at most five lines of notes
    (the verdict among them); per-pair details stay in the JSON."""
    rows = [record["rows"][pair_name(n, r)] for n, r in PAIRS
            if pair_name(n, r) in record["rows"]]
    machines = sorted({r["machine"] for r in rows})
    dates = sorted({r["date"][:10] for r in rows})
    commands = sorted({r["command"] for r in rows})
    minutes = sorted({r["minutes"] for r in rows})
    cores = sorted({r["cores"] for r in rows})
    lines = ["# Host-switch search: golf, the 2021 best, ORP's annealer and sample graphs", "",
             f"- what: each featured pair of 2021, `golf chase --host-switch` and ORP's `sa.x` "
             f"side by side, {'/'.join(f'{m:g}' for m in minutes)} minutes on "
             f"{'/'.join(map(str, cores))} CPU{'s' if max(cores) > 1 else ''} each, beside "
             f"the best graph entered in 2021 (mnakao/ORP_test); cells: h-diameter / h-ASPL "
             f"(switches); bound: the larger of the Order/Radix and pair-count bounds; targets: "
             f"golf better than ORP SA, its gap to the Order/Radix bound at most half the "
             f"sample's",
             f"- command: {'; '.join(f'`{c}`' for c in commands)}",
             f"- machine: {'; '.join(machines)}", f"- date: {', '.join(dates)}", ""]
    from golf.hostswitch.radix_bounds import pair_count_bound

    cols = ["(n, r)", "bound", "2021 best", "golf", "vs 2021", "ORP SA", "ORP sample"]
    body = []
    for r in rows:
        b = r["bound"]
        count = float(pair_count_bound(r["n"], r["r"])[1])
        d21, t21, s21, _ = BEST_2021[(r["n"], r["r"])]
        best = {"diameter": d21, "aspl": t21 / (r["n"] * (r["n"] - 1) / 2), "switches": s21}
        body.append([f"({r['n']}, {r['r']})", f"{b['diameter']} / {max(b['aspl'], count):.6f}",
                     _cell(best), _cell(r.get("golf")), against_2021(r) or "-",
                     _cell(r.get("orp_sa")), _cell(r.get("orp_sample"), False)])
    lines += table(cols, body)
    notes = list(record.get("notes") or [])[:3]
    # a record may be of some pairs only (its "pairs", e.g. those that a GPU scores)
    meant = record.get("pairs") or [pair_name(n, r) for n, r in PAIRS]
    missing = [name for name in meant if name not in record["rows"]]
    if missing:
        notes.append(f"Not measured yet: {', '.join(missing)}.")
    notes.append(verdict(rows))
    notes.append(verdict_2021(rows))
    return "\n".join(lines + [""] + [f"- {x}" for x in notes[-5:]]
                     + experiment_lines(record)) + "\n"


def default_notes(rows: list) -> list:
    """The page's first notes, from the rows: how the searches ran, and the checks."""
    sa = [r["orp_sa"] for r in rows if r.get("orp_sa")]
    threads = sum(1 for s in sa if s["variant"] == "threads")
    used = [s["wall_seconds"] / (60 * r["minutes"]) for r, s in
            ((r, r["orp_sa"]) for r in rows if r.get("orp_sa"))]
    at_once = sorted({r["at_once"] for r in rows})
    out = [f"Each pair: golf chase --ranks {rows[0]['golf_ranks']} and ORP's sa.x on their "
           f"own CPUs, {'/'.join(map(str, at_once))} pairs at once; ORP with its defaults "
           f"(ORP_Optimize_switches, calc_max_temp), steps sized by its step time ("
           + (f"{min(used):.0%}-{max(used):.0%}" if used else "-")
           + f" of the time used), its OpenMP build on {threads} of {len(sa)} pairs where "
           f"faster."]
    on_gpu = [f"({r['n']}, {r['r']})" for r in rows
              if (r.get("golf") or {}).get("backend") == "h-gpu-bitset"]
    if on_gpu:
        out[0] += f" golf scored on the GPU (h-gpu-bitset) on {', '.join(on_gpu)}."
    bad = [f"{r['name']} {k}" for r in rows for k in ("golf", "orp_sa", "orp_sample")
           if r.get(k) and not r[k].get("agrees", False)]
    loops = sum(s.get("self_loops", 0) for s in sa)
    out.append("Every graph re-scored by `golf eval`: " + (
        "golf's summaries, sa.x's output and ORP's ASPL.txt all agree"
        if not bad else "DISAGREE on " + ", ".join(bad))
               + (f" (ORP's files: {loops} self-loops of its random start, left out)"
                  if loops else "") + ".")
    return out


# ------------------------------------------------------------------------------------------
# ORP: build and run
def build_orp(path: str) -> dict:
    """Build ORP's libraries and its ``sa.x`` and ``threads_sa.x`` in ``build/orp_sa/src``
    from ``path`` (a source tree, or a git directory whose HEAD is unpacked); returns and
    saves the build's description (``build/orp_sa/orp.json``)."""
    src = os.path.join(BUILD, "src")
    shutil.rmtree(src, ignore_errors=True)
    os.makedirs(BUILD, exist_ok=True)
    commit = unpack_git(path, src)
    if commit is None:
        shutil.copytree(path, src, ignore=shutil.ignore_patterns("*.o", "*.a", "*.x"))
        commit = None
        if os.path.isfile(os.path.join(path, ".commit")):  # an unpacked tree's commit
            with open(os.path.join(path, ".commit")) as f:
                commit = f.read().strip()
        elif os.path.isdir(os.path.join(path, ".git")):
            commit = subprocess.run(["git", "-C", path, "rev-parse", "HEAD"], check=False,
                                    capture_output=True, text=True).stdout.strip() or None
    if not os.path.isfile(os.path.join(src, "sample", "sa.c")):
        raise SystemExit(f"bench_hostswitch: {path} is not ORP's source (no sample/sa.c)")
    lib = subprocess.run(["make", "-C", src, "all"], check=True, capture_output=True,
                         text=True).stdout
    sample = subprocess.run(["make", "-C", os.path.join(src, "sample"), "sa.x",
                             "threads_sa.x"], check=True, capture_output=True,
                            text=True).stdout
    cc = subprocess.run(["gcc", "--version"], capture_output=True,
                        text=True).stdout.splitlines()[0]
    flags = [ln for ln in (lib + sample).splitlines() if ln.startswith("gcc")]
    info = {"src": src, "commit": commit, "cc": cc,
            "library_cflags": next((f.split(" -o ")[0] for f in flags if "-march" in f), None),
            "sample_cflags": next((f.split(" -o ")[0] for f in flags if " sa.c " in f), None)}
    with open(os.path.join(BUILD, "orp.json"), "w") as f:
        json.dump(info, f, indent=1)
    return info


def _pin(cpus):
    return lambda: os.sched_setaffinity(0, cpus)


def run_sa(src: str, variant: str, args: list, cpus: list, timeout: float | None = None):
    """One run of ORP's ``sa.x`` (``variant`` serial) or ``threads_sa.x`` (OpenMP on the
    ``cpus``): ``(parsed output, wall seconds, stdout)``."""
    exe = os.path.join(src, "sample", "sa.x" if variant == "serial" else "threads_sa.x")
    env = dict(os.environ, OMP_NUM_THREADS=str(len(cpus) if variant == "threads" else 1))
    t = time.monotonic()
    got = subprocess.run([exe, *map(str, args)], capture_output=True, text=True, env=env,
                         preexec_fn=_pin(cpus), timeout=timeout, check=True)
    return parse_sa(got.stdout), time.monotonic() - t, got.stdout


def orp_anneal(src: str, n: int, r: int, seconds: float, cpus: list, seed: int,
               out_path: str) -> dict:
    """ORP's annealer on ``(n, r)`` for ``seconds`` of wall time in all (module docstring);
    writes its best graph to ``out_path``."""
    start = time.monotonic()
    deadline = start + seconds
    base = ["-H", n, "-R", r, "-s", seed]
    first, wall, _ = run_sa(src, "serial", base + ["-n", 10], cpus)
    temps = ["-w", first["max_temp"], "-c", first["min_temp"]]
    if float(first["max_temp"]) <= 0 or float(first["min_temp"]) <= 0:
        temps = []  # sa.x refuses them: let it find its own again
    timing = {}
    for variant in ("serial", "threads") if len(cpus) > 1 else ("serial",):
        k = 10
        while True:
            got, w, _ = run_sa(src, variant, base + temps + ["-n", k], cpus)
            if got["time"] >= CALIBRATE_SECONDS or k >= 10 ** 7:
                break
            k *= 10
        timing[variant] = {"steps": k, "seconds": got["time"], "step": got["time"] / k,
                           "startup": max(0.0, w - got["time"])}
    variant = min(timing, key=lambda v: timing[v]["step"])
    step, startup = timing[variant]["step"], timing[variant]["startup"]
    runs, best, args, text = [], None, base, ""
    while True:
        left = deadline - time.monotonic()
        if runs and left < TOP_UP * seconds:
            break
        ncalcs = steps_for(left, step, startup, FIRST if not runs else SAFETY)
        part = f"{out_path}.{len(runs)}"
        try:
            got, wall, text = run_sa(src, variant, args + temps + ["-n", ncalcs, "-o", part],
                                     cpus, timeout=left + (0.1 if not runs else 0.05) * seconds)
        except subprocess.TimeoutExpired:
            if not runs:
                raise
            runs.append({"ncalcs": ncalcs, "killed": "past its time; its graph is lost"})
            break
        runs.append({"ncalcs": ncalcs, "time": got["time"], "wall": round(wall, 2),
                     "diameter": got["diameter"], "total": got["total"]})
        if best is None or (got["diameter"], got["total"]) <= (best["diameter"],
                                                                best["total"]):
            best = got
            shutil.copyfile(part, out_path)
        # the next run starts from the best graph (sa.x -f), at the step time measured
        step = max(got["time"], 1e-9) / ncalcs
        startup = max(0.0, wall - got["time"])
        args = ["-f", out_path, "-s", seed + len(runs)]
    return {**best, "ncalcs": sum(x["ncalcs"] for x in runs if "killed" not in x), "runs": runs,
            "variant": variant, "threads": len(cpus) if variant == "threads" else 1,
            "timing": timing, "temperatures": temps[1::2] or None,
            "wall_seconds": round(time.monotonic() - start, 2), "budget_seconds": seconds,
            "tail": text.splitlines()[-12:]}


# ------------------------------------------------------------------------------------------
# golf
def golf_eval(path: str, cpus: list) -> dict:
    """``golf eval PATH --json`` (pinned to ``cpus``), with the number of self-loops left out
    first (``golf eval`` refuses a self-loop; ORP's random start leaves some, which change no
    distance)."""
    loops = 0
    with (gzip.open if path.endswith(".gz") else open)(path, "rt") as f:
        lines = f.read().splitlines()
    kept = [lines[0]]
    for ln in lines[1:]:
        a = ln.split()
        if len(a) == 2 and a[0] == a[1]:
            loops += 1
        else:
            kept.append(ln)
    with tempfile.TemporaryDirectory() as tmp:
        target = path
        if loops:
            target = os.path.join(tmp, "noloops.edges")
            with open(target, "w") as f:
                f.write("\n".join(kept) + "\n")
        got = subprocess.run([sys.executable, "-m", "golf", "eval", target, "--json"],
                             capture_output=True, text=True, cwd=ROOT, preexec_fn=_pin(cpus),
                             env=repo_env(NUMBA_NUM_THREADS=str(len(cpus)),
                                          CUDA_VISIBLE_DEVICES=""))
    if got.returncode != 0:
        return {"error": got.stderr.strip()[-500:], "self_loops": loops}
    out = json.loads(got.stdout)
    return {"diameter": out["diameter"], "total": out["total"], "aspl": out["aspl"],
            "switches": out["switches"], "self_loops": loops}


def chase_cmd(n: int, r: int, minutes: float, ranks: int, tmp: str, seed: int,
              sets=()) -> list:
    """The command line of ``golf chase --host-switch N R`` (``sets``: its ``--set``
    overrides)."""
    cmd = [sys.executable, "-m", "golf", "chase", "--host-switch", str(n), str(r),
           "--minutes", str(minutes), "--out", tmp, "--ranks", str(ranks), "--seed", str(seed)]
    for kv in sets:
        cmd += ["--set", kv]
    return cmd


def golf_chase(n: int, r: int, minutes: float, cpus: list, ranks: int, tmp: str, seed: int,
               quiet: bool = True, sets=(), gpu: bool = False, device: str | None = None):
    """``golf chase --host-switch N R`` pinned to ``cpus``: ``(summary, submission file,
    wall seconds)``. The GPUs are hidden from it unless ``gpu``; ``device`` (a GPU's index)
    shows it that one only."""
    cmd = chase_cmd(n, r, minutes, ranks, tmp, seed, sets)
    if quiet:
        cmd.append("--quiet")
    env = repo_env(NUMBA_NUM_THREADS=str(len(cpus) if ranks == 1 else 1))
    if not gpu:
        env["CUDA_VISIBLE_DEVICES"] = ""
    elif device is not None:
        env["CUDA_VISIBLE_DEVICES"] = device
    t = time.monotonic()
    with open(os.path.join(tmp, f"golf_{pair_name(n, r)}.log"), "w") as log:
        code = run_killable(cmd, timeout=66 * minutes + 120, cwd=ROOT, env=env, stdout=log,
                            stderr=subprocess.STDOUT, preexec_fn=_pin(cpus))
    wall = time.monotonic() - t
    rd = os.path.join(tmp, pair_name(n, r))
    if code != 0:
        with open(os.path.join(tmp, f"golf_{pair_name(n, r)}.log")) as f:
            raise RuntimeError(f"golf chase {n} {r} failed ({code}): {f.read()[-2000:]}")
    with open(os.path.join(rd, "summary.json")) as f:
        summary = json.load(f)
    files = sorted(glob.glob(os.path.join(rd, f"{pair_name(n, r)}k*l*.edges")))
    return summary, files[-1], wall


def _spread_trials(work: str, n: int, r: int) -> dict | None:
    """The chase's trials of spreads (its run folder's spreads.json): each trial's label and
    h-scores, the winner and its longer chase's h-scores."""
    path = os.path.join(work, pair_name(n, r), "spreads.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        rec = json.load(f)
    return {"trials": [(t["label"], t["h"]) for t in rec["trials"]], "winner": rec["winner"],
            "main": (rec.get("main") or {}).get("h"), "seconds": rec.get("seconds")}


def _store(path: str, folder: str, name: str) -> str:
    os.makedirs(folder, exist_ok=True)
    target = os.path.join(folder, name + ".gz")
    with open(path, "rb") as f, gzip.open(target, "wb") as g:
        shutil.copyfileobj(f, g)
    return os.path.relpath(target, ROOT)


def bench_pair(n: int, r: int, minutes: float, golf_cpus: list, orp_cpus: list, orp: dict,
               ranks: int, seed: int, graphs: str, tmp: str, sets=(),
               gpu: bool = False, device: str | None = None) -> dict:
    """Both searches on one pair at once, then every graph re-scored (module docstring)."""
    from golf.hostswitch import host_switch_bounds

    bound = host_switch_bounds(n, r)
    name = pair_name(n, r)
    work = os.path.join(tmp, name)
    os.makedirs(work)
    box = {}

    def golf_side():
        try:
            box["golf"] = golf_chase(n, r, minutes, golf_cpus, ranks, work, seed, sets=sets,
                                     gpu=gpu, device=device)
        except Exception as e:  # noqa: BLE001 - recorded in the row
            box["golf_error"] = str(e)[-2000:]

    th = threading.Thread(target=golf_side)
    th.start()
    sa_file = os.path.join(work, "orp_sa.edges")
    if orp is None:
        sa = {"error": "not run (--no-orp)"}
    else:
        try:
            sa = orp_anneal(orp["src"], n, r, 60.0 * minutes, orp_cpus, seed, sa_file)
        except Exception as e:  # noqa: BLE001 - recorded in the row
            sa = {"error": str(e)[-2000:]}
    th.join()
    row = {"name": name, "n": n, "r": r, "minutes": minutes,
           "cores": len(golf_cpus), "golf_cpus": golf_cpus, "orp_cpus": orp_cpus,
           "golf_ranks": ranks, "seed": seed, "gpu": device if gpu else None,
           "bound": {"diameter": bound.diameter, "aspl": float(bound.aspl),
                     "aspl_fraction": str(bound.aspl)}}
    if "golf" in box:
        summary, sub, wall = box["golf"]
        best = summary["best"]
        got = golf_eval(sub, golf_cpus)
        row["golf"] = {"switches": summary["problem"]["switches"],
                       "diameter": best["diameter"], "total": best["total"],
                       "aspl": best["aspl"], "gap": gap(best["aspl"], bound.aspl),
                       "wall_seconds": round(wall, 2), "seconds": summary["seconds"],
                       "evaluations": summary["evaluations"],
                       "evaluations_per_s": summary["evaluations_per_s"],
                       "backend": summary.get("backend"),
                       "switch_trials": [(t["switches"], t["best"]) for t in
                                         (summary.get("auto_g") or {}).get("trials", [])],
                       "spread_trials": _spread_trials(work, n, r),
                       "eval": got, "agrees": (got.get("diameter"), got.get("total"))
                       == (best["diameter"], best["total"]),
                       "file": _store(sub, graphs, os.path.basename(sub))}
    else:
        row["golf_error"] = box.get("golf_error")
    if "error" not in sa:
        got = golf_eval(sa_file, golf_cpus)
        row["orp_sa"] = {**{k: v for k, v in sa.items() if k not in ("hosts", "radix")},
                         "gap": gap(sa["aspl"], bound.aspl), "eval": got,
                         "self_loops": got.get("self_loops", 0),
                         "agrees": (got.get("diameter"), got.get("total"))
                         == (sa["diameter"], sa["total"]),
                         "file": _store(sa_file, graphs,
                                        f"orp_sa_h{n}s{sa['switches']}r{r}.edges")}
    else:
        row["orp_sa_error"] = sa["error"]
    s = SAMPLES.get((n, r))
    if s is not None and orp is not None:
        path = os.path.join(orp["src"], "sample", "graph", f"h{n}s{s}r{r}.edges")
        with open(os.path.join(orp["src"], "sample", "graph", "ASPL.txt")) as f:
            own = parse_aspl_txt(f.read()).get((n, s, r))
        got = golf_eval(path, golf_cpus)
        if "error" in got:
            row["orp_sample"] = {"switches": s, "diameter": None, "eval": got, "agrees": False}
        else:
            row["orp_sample"] = {"file": f"sample/graph/h{n}s{s}r{r}.edges", "switches": s,
                                 "diameter": got["diameter"], "total": got["total"],
                                 "aspl": got["aspl"], "gap": gap(got["aspl"], bound.aspl),
                                 "orp_values": own,
                                 "agrees": own == (got["diameter"], got["total"])}
    row["judge"] = judge(row)
    return row


def usable_cpus() -> tuple[list, dict]:
    """The CPUs this process may use, and each one's core siblings (from sysfs; none where
    it cannot be read)."""
    cpus = sorted(os.sched_getaffinity(0))
    sib = {}
    for c in cpus:
        try:
            with open(f"/sys/devices/system/cpu/cpu{c}/topology/thread_siblings_list") as f:
                text = f.read().strip()
        except OSError:
            continue
        ids = []
        for part in text.split(","):
            a, _, b = part.partition("-")
            ids += range(int(a), int(b or a) + 1)
        sib[c] = tuple(sorted(ids))
    return cpus, sib


def warm(tmp: str, cpus: list) -> float:
    """A short ``golf chase`` so that Numba's cache holds the compiled search before the
    timed runs start; returns its seconds (its output is printed if it fails)."""
    t = time.monotonic()
    got = subprocess.run([sys.executable, "-m", "golf", "chase", "--host-switch", "32", "4",
                          "--minutes", "0.05", "--out", os.path.join(tmp, "warm"), "--ranks",
                          "1", "--quiet"], cwd=ROOT, check=False, capture_output=True,
                         text=True, preexec_fn=_pin(cpus),
                         env=repo_env(CUDA_VISIBLE_DEVICES="",
                                      NUMBA_NUM_THREADS=str(len(cpus))))
    if got.returncode != 0:
        print(f"warm-up chase failed ({got.returncode}):\n{(got.stdout + got.stderr)[-3000:]}",
              flush=True)
    return time.monotonic() - t


def graph_folder(experiment: str | None) -> str:
    """Where a run's graphs go: ``results/hostswitch/graphs`` for the record's own rows, else
    the experiment's folder under it (so that an experiment never overwrites the page's
    graphs)."""
    return os.path.join(GRAPHS, experiment) if experiment else GRAPHS


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--orp", metavar="PATH", help="build ORP from this source tree or git "
                   "directory first (else reuse build/orp_sa)")
    p.add_argument("--minutes", type=float, default=10.0, help="wall time of each search")
    p.add_argument("--cores", type=int, default=2, help="CPUs of each search (golf's and "
                   "ORP's each)")
    p.add_argument("--parallel", type=int, default=0, help="pairs at once (0: as many as "
                   "the CPUs hold)")
    p.add_argument("--ranks", type=int, default=1, help="golf chase --ranks")
    p.add_argument("--no-orp", action="store_true", help="golf alone (no ORP annealer or "
                   "sample graph), --cores CPUs a pair")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--gpu", action="store_true", help="let golf see the GPUs (its chase "
                   "then scores on one where golf.evaluators.decide says so); "
                   "without it they are hidden")
    p.add_argument("--gpus", default=None, metavar="LIST", help="with --gpu: the GPUs "
                   "(comma-separated indices) dealt to the pairs at once, one each in turn "
                   "(default: every pair sees every GPU)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="a golf chase --set override (repeatable; the command line records "
                   "it)")
    p.add_argument("--only", default=",".join(pair_name(n, r) for n, r in PAIRS),
                   help="comma-separated pair names, e.g. h32r4,h1024r10")
    p.add_argument("--out", default=OUT, help="the record (without .json / .md)")
    p.add_argument("--graphs", default=None, help="folder for the graphs (default: "
                   "results/hostswitch/graphs, with --experiment NAME its folder NAME)")
    p.add_argument("--no-warm", action="store_true", help="skip the short chase that fills "
                   "Numba's cache first")
    p.add_argument("--merge", nargs="*", default=[], help="records (JSON) of pairs measured "
                   "elsewhere to merge into --out; runs nothing")
    p.add_argument("--note", action="append", default=None, help="a line for the page's "
                   "notes (repeatable; replaces the record's first notes)")
    p.add_argument("--render", action="store_true", help="write the page again from the "
                   "JSON; runs nothing (with --experiment and --shows: that line first)")
    experiment_args(p)
    args = p.parse_args(argv)
    if args.graphs is None:
        args.graphs = graph_folder(args.experiment)
    gpus = args.gpus.split(",") if args.gpus else None
    if gpus and not args.gpu:
        sys.exit("bench_hostswitch: --gpus deals GPUs to the pairs; it needs --gpu")
    if args.experiment:
        record = load_experiment(args.out, args.experiment) or new_record(rows={})
    else:
        record = load(args.out) or new_record(rows={})

    def write():
        if args.experiment:
            save_experiment(args.out, args.experiment, record, markdown, args.shows)
        else:
            save(args.out, record, markdown(record))

    if args.render and args.experiment and not args.merge and args.note is None:
        render_experiment(args.out, args.experiment, args.shows, markdown, "bench_hostswitch")
        return
    if args.render or args.merge:
        for path in args.merge:
            other = load(path.removesuffix(".json"))
            if args.experiment:  # a record that holds the experiment, or the experiment alone
                other = (other.get("experiments") or {}).get(args.experiment, other)
            if not record["rows"]:  # a new record: the other's date, command, machine, notes
                record.update({k: v for k, v in other.items() if k != "experiments"})
            record["rows"].update(other["rows"])
        if args.note is not None:
            record["notes"] = args.note
        write()
        return
    orp = None if args.no_orp else orp_build(args.orp, BUILD, build_orp, "bench_hostswitch")
    by_name = {pair_name(n, r): (n, r) for n, r in PAIRS}
    names = args.only.split(",")
    unknown = [x for x in names if x not in by_name]
    if unknown:
        sys.exit(f"bench_hostswitch: unknown pairs {unknown}; known: {', '.join(by_name)}")
    cpus, sib = usable_cpus()
    sides = 1 if orp is None else 2
    fit = len(cpus) // (sides * args.cores)
    at_once = min(len(names), args.parallel or fit)
    try:
        if orp is None:  # golf alone: --cores CPUs a pair
            if at_once * args.cores > len(cpus) or at_once < 1:
                raise ValueError(f"{len(cpus)} CPUs do not hold {max(at_once, 1)} pairs of "
                                 f"{args.cores}")
            slots = [(cpus[i * args.cores:(i + 1) * args.cores], []) for i in range(at_once)]
        else:
            slots = cpu_slots(cpus, sib, args.cores, at_once)
    except ValueError as e:
        sys.exit(f"bench_hostswitch: {e} (--cores, --parallel)")
    mach = machine()
    mach["siblings"] = sorted({v for v in sib.values()})[:4]
    fresh = new_record()
    lock = threading.Lock()
    with tempfile.TemporaryDirectory() as tmp:
        if not args.no_warm:
            print(f"warm-up chase: {warm(tmp, slots[0][0]):.1f} s", flush=True)
        queue = list(names)
        free = list(range(at_once))

        def worker(name, slot):
            n, r = by_name[name]
            golf_cpus, orp_cpus = slots[slot]
            try:
                row = bench_pair(n, r, args.minutes, golf_cpus, orp_cpus, orp, args.ranks,
                                 args.seed, args.graphs, tmp, sets=args.set, gpu=args.gpu,
                                 device=gpus[slot % len(gpus)] if gpus else None)
            except Exception as e:  # noqa: BLE001 - one pair's failure is reported
                print(f"{name}: failed: {e}", flush=True)
                row = None
            with lock:
                if row is not None:
                    row.update(date=fresh["date"], command=fresh["command"],
                               machine=describe_machine(mach), commit=mach.get("commit"),
                               at_once=at_once, orp_commit=(orp or {}).get("commit"))
                    record["rows"][name] = row
                    record.update(date=fresh["date"], command=fresh["command"], machine=mach,
                                  orp={k: v for k, v in (orp or {}).items() if k != "src"})
                    record["notes"] = default_notes(list(record["rows"].values()))
                    write()
                    g, sa = row.get("golf") or {}, row.get("orp_sa") or {}
                    print(f"{name}: golf {g.get('diameter')} / {g.get('aspl')} "
                          f"({g.get('switches')})  ORP SA {sa.get('diameter')} / "
                          f"{sa.get('aspl')} ({sa.get('switches')}, {sa.get('variant')}, "
                          f"{sa.get('ncalcs')} steps)  {row['judge']}", flush=True)
                free.append(slot)

        threads = []
        while queue or any(t.is_alive() for t in threads):
            with lock:
                while queue and free:
                    t = threading.Thread(target=worker, args=(queue.pop(0), free.pop(0)))
                    t.start()
                    threads.append(t)
            time.sleep(0.5)


if __name__ == "__main__":
    main()
