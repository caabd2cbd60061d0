#!/usr/bin/env python3
"""Host-switch scoring speed: golf against mnakao/ORP's C library, on the same files.

For each host-switch graph (ORP's sample of each Graph Golf 2021 pair, and random graphs of
some featured pairs, written to ORP's format), five scorers give the h-diameter and the
h-total, which must be equal (the script stops with the file and the values if not):

* ORP serial: ``ORP_Set_aspl`` of ORP's ``liborp.a``, through ``scripts/orp_h_time.c``, a
  small driver that reads the file, builds ORP's degree and adjacency arrays, scores once
  untimed and then times call after call;
* ORP threads: the same with ``liborp_threads.a`` (OpenMP) on all cores;
* golf 1 thread and golf on all cores: ``golf.evaluators.h_scoring.h_score(net, threads=...)`` from
  Python, the graph read once;
* golf's kernel: the compiled scorer that ``h_score`` calls, from a compiled loop on one
  thread (what a search pays; in the JSON, and on the page where ORP is faster than
  ``h_score``).

Each scorer is timed in ``--trials`` rounds, one after another within a round, so that their
ratios come from one run; the time is the median of all calls. Each round first waits (up to
``--quiet`` seconds) until other processes leave the CPUs alone, and the record keeps how busy
they kept the CPUs while each file was timed.

``--orp`` builds ORP (its Makefile: gcc -O3 -march=native, serial and OpenMP) and the driver
into ``build/orp/``; ``PATH`` is ORP's source tree, or a git directory of it (a mirror),
whose HEAD is then unpacked there first. Later runs without ``--orp`` reuse that build.

    python scripts/bench_hostswitch_eval.py --orp /path/to/ORP      # build, then measure
    python scripts/bench_hostswitch_eval.py --quick                 # the small files only
    python scripts/bench_hostswitch_eval.py --render                # the page from the JSON

Writes ``<out>.json`` and ``<out>.md`` (default ``results/bench/hostswitch_eval``) with the
machine, the date and the command; the experiments the record holds (``bench_hostswitch_gpu.py``:
the GPU scorer against the CPU kernel) are kept, and the page gives a line on each.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time

import numpy as np
from benchlib import (ROOT, describe_machine, experiment_lines, header, load, new_record,
                      orp_build, render, save, table, unpack_git)

# the 13 pairs (n, r) of the Graph Golf 2021 host-switch category, and ORP's sample of each
FEATURED = [(32, 4), (80, 6), (128, 24), (432, 12), (1281, 21), (3800, 30), (1024, 5),
            (1024, 10), (4608, 36), (8208, 48), (10000, 10), (10000, 100), (65536, 64)]
SAMPLES = {(32, 4): 26, (80, 6): 40, (128, 24): 16, (432, 12): 120, (1281, 21): 139,
           (3800, 30): 300, (1024, 5): 1024, (1024, 10): 400, (4608, 36): 250,
           (8208, 48): 330, (10000, 10): 5000, (10000, 100): 200, (65536, 64): 3000}
# random graphs (n, s, r): featured pairs with their sample's number of switches, and more
RANDOM = [(1024, 400, 10), (10000, 5000, 10), (65536, 3000, 64), (65536, 8192, 64)]
QUICK_HOSTS = 5000  # --quick: files with at most this many hosts
BUILD = os.path.join(ROOT, "build", "orp")
DRIVER = os.path.join(ROOT, "scripts", "orp_h_time.c")


# ------------------------------------------------------------------------------------------
# pure parts
def even_hosts(n: int, s: int) -> np.ndarray:
    """Hosts per switch, ``n`` spread over ``s`` switches as evenly as can be (the first
    ``n % s`` switches one more)."""
    counts = np.full(s, n // s, dtype=np.int64)
    counts[: n % s] += 1
    return counts


def random_wiring(n: int, s: int, r: int, seed: int = 1, tries: int = 100) -> np.ndarray:
    """A random connected host-switch graph as edges with ORP's ids (hosts ``0..n-1``,
    switches ``n..n+s-1``): the hosts spread evenly (:func:`even_hosts`), then the switches'
    free ports paired at random; a pair that would be a self-loop or repeat an edge is left
    out (those ports stay free). A wiring whose switches are not connected is drawn again.

    Raises
    ------
    ValueError
        When a switch would have no port left for another switch, or ``tries`` draws were
        all disconnected.
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    counts = even_hosts(n, s)
    if s > 1 and counts.max() >= r:
        raise ValueError(f"{n} hosts on {s} switches of radix {r}: a switch holds "
                         f"{counts.max()} hosts and has no port left for the others")
    host_edges = np.stack([np.arange(n), n + np.repeat(np.arange(s), counts)], axis=1)
    rng = np.random.default_rng(seed)
    for _ in range(tries):
        stubs = np.repeat(np.arange(s), r - counts)
        rng.shuffle(stubs)
        pairs = stubs[: len(stubs) // 2 * 2].reshape(-1, 2)
        pairs = np.sort(pairs[pairs[:, 0] != pairs[:, 1]], axis=1)
        pairs = np.unique(pairs, axis=0)
        graph = coo_matrix((np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])), shape=(s, s))
        if connected_components(graph, directed=False)[0] == 1:
            return np.concatenate([host_edges, pairs + n]).astype(np.int64)
    raise ValueError(f"no connected random wiring of ({n}, {s}, {r}) in {tries} draws")


def timing(seconds: list) -> dict:
    """Median and min of per-call seconds, and the number of calls."""
    return {"median": float(statistics.median(seconds)), "min": float(min(seconds)),
            "calls": len(seconds)}


def check_agree(name: str, values: dict) -> tuple[int, int]:
    """The ``(h-diameter, h-total)`` that every scorer of ``values`` (scorer -> pair) gave.

    Raises
    ------
    SystemExit
        Naming the file and every scorer's values, when they differ.
    """
    distinct = {tuple(v) for v in values.values()}
    if len(distinct) != 1:
        got = ", ".join(f"{k}: {tuple(v)}" for k, v in values.items())
        raise SystemExit(f"bench_hostswitch_eval: the scorers disagree on {name}: {got}")
    return distinct.pop()


def fmt_seconds(t: float) -> str:
    """``t`` seconds with a unit: us, ms or s, 3 significant digits."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if t >= scale or unit == "us":
            return f"{t / scale:.3g} {unit}"
    return f"{t:.3g} s"  # pragma: no cover


def markdown(record: dict) -> str:
    """The results page: one row a file; times are medians; ratios are ORP over golf (above
    1: golf faster), serial against serial and threads against threads."""
    m = record["machine"]
    T = record["threads"]
    orp = record["orp"]
    lines = header("Host-switch scoring: golf against ORP's C library", record,
                   f"machine: {describe_machine(m)}; commit {m.get('commit', '?')}",
                   f"ORP {orp.get('commit', '?')[:10]} built with {orp['cc']} "
                   f"`{orp['cflags']}`; `ORP_Set_aspl` ({orp['algorithm']}), serial and "
                   f"OpenMP on {T} threads, timed in C")
    rows = []
    for r in record["rows"]:
        t = r["seconds"]
        rows.append((r["file"], f"{r['n']}, {r['s']}, {r['r']}", r["diameter"],
                     f"{r['aspl']:.6f}", fmt_seconds(t["orp_serial"]["median"]),
                     fmt_seconds(t["orp_threads"]["median"]),
                     fmt_seconds(t["golf_1"]["median"]), fmt_seconds(t["golf_all"]["median"]),
                     f"{r['speedup_serial']:.1f}", f"{r['speedup_threads']:.1f}"))
    lines += table(["file", "n, s, r", "h-diam", "h-ASPL", "ORP serial",
                    f"ORP {T} threads", "golf 1 thread", f"golf {T} threads",
                    "ORP/golf serial", f"ORP/golf {T} threads"], rows)
    busy = max(r["others_cpu_share"] for r in record["rows"])
    lines += ["", (f"- all five scorers (with golf's kernel below) gave the same h-diameter and "
                   f"h-total on every file; times: median per call over {record['trials']} "
                   f"interleaved rounds"),
              ("- golf: `h_score(net, threads=...)` from Python (host counts, column sort, "
               "bit-matrix levels); ORP: `ORP_Set_aspl` alone, its degrees and adjacency "
               "built once beforehand"),
              (f"- random: seed {record['seed']}, hosts spread evenly, free ports paired at "
               f"random; other processes used up to {busy:.0%} of the CPUs while a file "
               f"was timed (per file in the JSON)")]
    slower = [r for r in record["rows"] if r["speedup_serial"] < 1 and "golf_kernel" in
              r["seconds"]]
    if slower:
        each = ", ".join(f"{fmt_seconds(r['seconds']['golf_kernel']['median'])} on {r['file']}"
                         for r in slower)
        lines.append(f"- where ORP serial beats `h_score`, golf's kernel alone (from a compiled "
                     f"loop, one thread) takes {each}")
    return "\n".join(lines + experiment_lines(record)) + "\n"


def summarise(name: str, info: dict, values: dict, times: dict, busy: float) -> dict:
    """One row of the record from a file's sizes, the scorers' values and per-call times."""
    diameter, total = check_agree(name, values)
    n = info["n"]
    seconds = {k: timing(v) for k, v in times.items()}
    return {**info, "file": name, "diameter": diameter, "total": total,
            "aspl": total / (n * (n - 1) // 2), "seconds": seconds,
            "speedup_serial": seconds["orp_serial"]["median"] / seconds["golf_1"]["median"],
            "speedup_threads": seconds["orp_threads"]["median"]
            / seconds["golf_all"]["median"],
            "others_cpu_share": busy}


# ------------------------------------------------------------------------------------------
# ORP: build and run
def build_orp(path: str) -> dict:
    """Build ORP's two libraries from ``path`` (a source tree, or a git directory whose HEAD
    is unpacked into ``build/orp/src``) and the driver against each; returns and saves the
    build's description (``build/orp/orp.json``)."""
    os.makedirs(BUILD, exist_ok=True)
    src = os.path.join(BUILD, "src")
    shutil.rmtree(src, ignore_errors=True)
    commit = unpack_git(path, src)
    if commit is None:
        src = os.path.abspath(path)
        got = subprocess.run(["git", "-C", src, "rev-parse", "HEAD"], capture_output=True,
                             text=True)
        commit = got.stdout.strip() if got.returncode == 0 else None
    if not os.path.isfile(os.path.join(src, "include", "orp.h")):
        raise SystemExit(f"bench_hostswitch_eval: {path} is not ORP's source (no include/orp.h)")
    made = subprocess.run(["make", "-C", src, "all"], check=True, capture_output=True,
                          text=True).stdout
    cflags = next((ln.split(" -o ")[0].split(None, 1)[1] for ln in made.splitlines()
                   if ln.startswith("gcc") and "-fopenmp" not in ln), "-O3 -march=native "
                  "-std=gnu99 -Wno-unknown-pragmas")
    for kind, lib, omp in (("serial", "liborp.a", []), ("threads", "liborp_threads.a",
                                                        ["-fopenmp"])):
        subprocess.run(["gcc", "-O3", "-march=native", "-std=gnu99", *omp, "-I",
                        os.path.join(src, "include"), DRIVER, os.path.join(src, lib), "-lm",
                        "-o", os.path.join(BUILD, f"orp_h_time_{kind}")], check=True)
    cc = subprocess.run(["gcc", "--version"], capture_output=True,
                        text=True).stdout.splitlines()[0]
    info = {"src": src, "commit": commit, "cc": cc, "cflags": cflags,
            "algorithm": ("ORP_ASPL=" + os.environ["ORP_ASPL"]) if os.environ.get("ORP_ASPL")
            else "its default choice: the bit matrix above 6 switches"}
    with open(os.path.join(BUILD, "orp.json"), "w") as f:
        json.dump(info, f, indent=1)
    return info


def run_orp(kind: str, path: str, seconds: float, threads: int) -> dict:
    """The driver's output for one file: sizes, values and per-call seconds."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    out = subprocess.run([os.path.join(BUILD, f"orp_h_time_{kind}"), path, str(seconds),
                          "100000"], check=True, capture_output=True, text=True, env=env)
    return json.loads(out.stdout)


# ------------------------------------------------------------------------------------------
# measuring
def cpu_busy() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine so far, from /proc/stat."""
    with open("/proc/stat") as f:
        fields = [float(x) for x in f.readline().split()[1:]]
    tick = os.sysconf("SC_CLK_TCK")
    idle = fields[3] + fields[4]
    return (sum(fields) - idle) / tick, sum(fields) / tick


def own_cpu() -> float:
    """CPU seconds used by this process and its finished children."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def time_golf(net, threads: int, seconds: float) -> list:
    """Per-call seconds of ``h_score(net, threads=threads)`` for about ``seconds``."""
    from golf.evaluators.h_scoring import h_score

    out = []
    end = time.perf_counter() + seconds
    while True:
        t = time.perf_counter()
        h_score(net, threads=threads)
        now = time.perf_counter()
        out.append(now - t)
        if now >= end:
            return out


def wait_quiet(limit: float, share: float = 0.1, window: float = 0.5) -> float:
    """Wait until the other processes use less than ``share`` of the CPUs over ``window``
    seconds, or ``limit`` seconds have passed; returns the seconds waited."""
    start = time.perf_counter()
    while time.perf_counter() - start < limit:
        b0, o0 = cpu_busy(), own_cpu()
        time.sleep(window)
        b1, o1 = cpu_busy(), own_cpu()
        if (b1[0] - b0[0]) - (o1 - o0) < share * (b1[1] - b0[1]):
            break
    return time.perf_counter() - start


_LOOP = None


def time_kernel(net, seconds: float) -> tuple[list, tuple]:
    """Per-call seconds of golf's compiled scorer (``h_scoring.score_columns``, one thread) called
    from a compiled loop, in blocks of calls for about ``seconds``; and its
    ``(h-diameter, h-total)``."""
    global _LOOP
    from golf.evaluators import h_scoring

    if _LOOP is None:
        from numba import njit

        kernel = h_scoring.score_columns

        @njit
        def loop(reps, adj, host_switch, cw, bufs, scratch):
            out = kernel(adj, host_switch, cw, True, bufs, scratch, 0, -1)
            for _ in range(reps - 1):
                out = kernel(adj, host_switch, cw, True, bufs, scratch, 0, -1)
            return out

        _LOOP = loop
    _, cw, _ = h_scoring.plan_chunks(net.s, net.r, net.s, 1)
    bufs, scratch = h_scoring.buffers(1, -(-net.s * cw // 512) * 512)
    args = (net.switches.adj, net.host_switch, cw, bufs, scratch)
    t = time.perf_counter()
    status, pairs, top, _ = _LOOP(1, *args)
    reps = max(1, int(0.05 / max(time.perf_counter() - t, 1e-7)))
    out = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end or not out:
        t = time.perf_counter()
        _LOOP(reps, *args)
        out.append((time.perf_counter() - t) / reps)
    from golf.evaluators.base import OK

    n = net.n
    value = (int(top) + 2, n * (n - 1) + int(pairs) // 2) if status == OK else (None, None)
    return out, value


def bench_file(name: str, path: str, trials: int, seconds: float, threads: int,
               quiet: float) -> dict:
    """Values and times of the four scorers on one file (see the module docstring); each
    round waits up to ``quiet`` seconds for the other processes to leave the CPUs."""
    from golf.evaluators.h_scoring import h_score
    from golf.hostswitch import read_host_switch

    net = read_host_switch(path, duplicates=[])
    values, times = {}, {k: [] for k in ("orp_serial", "orp_threads", "golf_1", "golf_all",
                                         "golf_kernel")}
    for k, th in (("golf_1", 1), ("golf_all", threads)):
        score = h_score(net, threads=th)
        values[k] = (score.diameter, score.total)
    per = seconds / trials
    others = total = waited = 0.0
    for _ in range(trials):
        waited += wait_quiet(quiet)
        b0, o0 = cpu_busy(), own_cpu()
        for kind in ("serial", "threads"):
            got = run_orp(kind, path, per, threads if kind == "threads" else 1)
            values[f"orp_{kind}"] = (got["diameter"], got["total"])
            times[f"orp_{kind}"] += got["seconds"]
        times["golf_1"] += time_golf(net, 1, per)
        times["golf_all"] += time_golf(net, threads, per)
        got, values["golf_kernel"] = time_kernel(net, per)
        times["golf_kernel"] += got
        b1, o1 = cpu_busy(), own_cpu()
        others += max(0.0, (b1[0] - b0[0]) - (o1 - o0))
        total += b1[1] - b0[1]
    info = {"n": net.n, "s": net.s, "r": net.r}
    row = summarise(name, info, values, times, round(others / max(total, 1e-9), 3))
    row["quiet_wait_seconds"] = round(waited, 1)
    return row


def cases(src: str, quick: bool, seed: int, tmp: str) -> list[tuple[str, str]]:
    """``(name, path)`` of every file: ORP's samples, then the random graphs written to
    ``tmp``."""
    from golf.hostswitch import HostSwitchGraph, write_host_switch

    out = []
    for n, r in FEATURED:
        name = f"h{n}s{SAMPLES[n, r]}r{r}.edges"
        path = os.path.join(src, "sample", "graph", name)
        if not os.path.isfile(path):
            raise SystemExit(f"bench_hostswitch_eval: ORP's sample {path} is missing")
        if not quick or n <= QUICK_HOSTS:
            out.append((name, path))
    for n, s, r in RANDOM:
        if quick and n > QUICK_HOSTS:
            continue
        name = f"random h{n}s{s}r{r}"
        path = os.path.join(tmp, f"random_h{n}s{s}r{r}.edges")
        write_host_switch(path, HostSwitchGraph.from_edges(n, s, r, random_wiring(n, s, r,
                                                                                   seed)))
        out.append((name, path))
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--orp", metavar="PATH", help="build ORP from this source tree or git "
                   "directory first (else reuse build/orp)")
    p.add_argument("--quick", action="store_true", help=f"only files of at most "
                   f"{QUICK_HOSTS} hosts")
    p.add_argument("--trials", type=int, default=5, help="interleaved rounds per file")
    p.add_argument("--seconds", type=float, default=2.0,
                   help="seconds per scorer and file, over all rounds")
    p.add_argument("--threads", type=int, default=None, help="threads of the threaded "
                   "scorers (default: the usable cores)")
    p.add_argument("--seed", type=int, default=1, help="seed of the random graphs")
    p.add_argument("--quiet", type=float, default=60.0, help="seconds each round may wait "
                   "for other processes to leave the CPUs (0: none)")
    p.add_argument("--out", default=os.path.join(ROOT, "results", "bench", "hostswitch_eval"))
    p.add_argument("--render", action="store_true", help="rewrite the page from the JSON "
                   "record; runs nothing")
    args = p.parse_args(argv)
    if args.render:
        render(args.out, markdown, "bench_hostswitch_eval")
        return
    orp = orp_build(args.orp, BUILD, build_orp, "bench_hostswitch_eval")
    threads = args.threads or len(os.sched_getaffinity(0))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, path in cases(orp["src"], args.quick, args.seed, tmp):
            row = bench_file(name, path, args.trials, args.seconds, threads, args.quiet)
            rows.append(row)
            t = row["seconds"]
            print(f"{name}: D={row['diameter']} total={row['total']}  ORP "
                  f"{fmt_seconds(t['orp_serial']['median'])} / "
                  f"{fmt_seconds(t['orp_threads']['median'])}  golf "
                  f"{fmt_seconds(t['golf_1']['median'])} / "
                  f"{fmt_seconds(t['golf_all']['median'])}  (others "
                  f"{row['others_cpu_share']:.0%})", flush=True)
    record = new_record(rows=rows, threads=threads, trials=args.trials, seconds=args.seconds,
                        seed=args.seed, quiet=args.quiet,
                        orp={k: v for k, v in orp.items() if k != "src"})
    kept = load(args.out) or {}
    if kept.get("experiments"):  # the runs of other scripts that the page holds
        record["experiments"] = kept["experiments"]
    save(args.out, record, markdown(record))


if __name__ == "__main__":
    main()
