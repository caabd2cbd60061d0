#!/usr/bin/env python3
"""GPU benchmark (run on the GPU machine): gpu-bitset per evaluation, batched throughput,
Seidel APD, and K chains against one chain.

* single evaluation: a swap, then ``evaluate`` (so the time includes finding the changed slots,
  the launches and the read of the result): median over repetitions, against a target time;
* batched: ``evaluate_many`` of K different graphs per launch, graphs per second;
* Seidel APD on Erdos-Renyi graphs of mean degree d (generated on the GPU), the matrix on the
  device: median seconds; n=4096 is checked against gpu-bitset;
* chains: ``golf run`` with gpu-bitset, equal time: 1 chain, K chains scored per launch (the
  moves on the host), K chains on the device (``chains: device``);
* variants (only when asked for): layouts of the cooperative kernel.

    PYTHONPATH=. python3 scripts/bench_gpu.py                   # all parts
    PYTHONPATH=. python3 scripts/bench_gpu.py --parts single    # one part, the others kept

Writes ``<out>.json`` and ``<out>.md`` (default ``results/gpu/bench_gpu``). The JSON holds every
part with its own date, command, commit and machine (the GPU's name, driver, CUDA and CuPy
versions too) and the hand-kept ``notes`` (what bounds the kernel, what was tried and
dropped); the page is the record: each part's date, commit and GPU, and the tables. A run of
some parts replaces those and keeps the others. ``python3 scripts/bench_gpu.py --render``
rewrites the page from the JSON alone.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

import numpy as np
from benchlib import ROOT, gpu_machine, load, new_record, save, table

# (n, d, g): seconds per single evaluation of the best CUDA library on an H200
SINGLE = [((1024, 4, 1), 177e-6), ((4096, 8, 1), 149e-6), ((65536, 6, 1), 10.7e-3),
          ((65536, 6, 1024), 200e-6), ((1000000, 32, 25000), 1.59e-3),
          ((1000000, 32, 1), 5.13)]
BATCHED = [(256, 8, 1), (1024, 8, 8), (4096, 8, 64)]
SEIDEL = [(4096, 2048), (4096, 4096), (8192, 2048), (8192, 4096), (16384, 2048), (16384, 4096)]


def log(*a):
    print(*a, flush=True)


def single(cp, args):
    from golf.evaluators import make_evaluator
    from golf.starts.random import random_graph
    from golf.kernels.rng import rng_seed
    from golf.engine.moves import new_undo, propose_swap

    rows = []
    for (n, d, g), target in SINGLE:
        t = time.perf_counter()
        graph = random_graph(n, d, g, seed=1)
        gen = time.perf_counter() - t
        ev = make_evaluator("gpu-bitset", n, d, g)
        s = ev.evaluate(graph)  # compile, upload
        st, undo = rng_seed(1), new_undo()
        reps = 2 if n * d >= 32_000_000 and g == 1 else 30
        times = []
        for _ in range(reps):
            propose_swap(graph.adj, n, g, st, undo)
            cp.cuda.Device().synchronize()
            t = time.perf_counter()
            ev.evaluate(graph)
            times.append(time.perf_counter() - t)
        med = float(np.median(times))
        row = {"n": n, "d": d, "g": g, "diameter": s.diameter, "median_s": med,
               "min_s": float(min(times)), "target_s": target, "ratio": med / target,
               "describe": ev.describe(), "generate_s": gen}
        rows.append(row)
        log(json.dumps(row))
    return rows


def variants(cp, args):
    """Layouts of the cooperative kernel on the two big g = 1 cases: chunk width, the fraction
    of changed pieces from which a level is run dense, neighbour rows per load group, and the
    resident blocks the registers are capped for. Every variant must give the same score."""
    from golf.evaluators import make_evaluator
    from golf.starts.random import random_graph

    rows = []
    for (n, d, g), reps, grid in (
            ((65536, 6, 1), 5, [dict(chunk_words=cw, dense_frac=df, group=G, min_blocks=mb)
                                for cw in (32, 64) for df in (0, 0.25, 0.5, 0.9)
                                for G in (2, 4) for mb in (1, 2)]),
            ((1000000, 32, 1), 1, [dict(chunk_words=32, dense_frac=0, group=4),
                                   dict(chunk_words=32, dense_frac=0.5, group=4),
                                   dict(chunk_words=32, dense_frac=0.5, group=2),
                                   dict(chunk_words=32, dense_frac=0.5, group=4, min_blocks=2),
                                   dict(chunk_words=16, dense_frac=0.5, group=4),
                                   dict(chunk_words=64, dense_frac=0.5, group=4)])):
        if n > args.variants_max_n:
            continue
        graph = random_graph(n, d, g, seed=1)
        first = None
        for opts in grid:
            ev = make_evaluator("gpu-bitset", n, d, g, **opts)
            s = ev.evaluate(graph)  # compile
            times = []
            for _ in range(reps):
                t = time.perf_counter()
                s = ev.evaluate(graph)
                times.append(time.perf_counter() - t)
            first = first or s
            row = {"n": n, "d": d, "g": g, **opts, "chunk_words": ev.cw,
                   "seconds": float(np.median(times)), "agrees": s == first,
                   "regs": int(ev._k_grid.attributes["num_regs"]),
                   "blocks_per_sm": ev.blocks_per_sm}
            rows.append(row)
            log(json.dumps(row))
    return rows


def batched(cp, args):
    from golf.evaluators import make_evaluator
    from golf.starts.random import random_graph

    rows = []
    for n, d, g in BATCHED:
        graphs = np.stack([random_graph(n, d, g, seed=s).adj for s in range(256)])
        for K in (1, 16, 256):
            ev = make_evaluator("gpu-bitset", n, d, g, batch=K)
            ev.evaluate_many(graphs[:K])
            reps = 20
            t = time.perf_counter()
            for r in range(reps):
                # alternate two sets so that every launch uploads changed graphs
                ev.evaluate_many(graphs[:K] if r % 2 == 0 else graphs[::-1][:K])
            dt = (time.perf_counter() - t) / reps
            row = {"n": n, "d": d, "g": g, "K": K, "seconds_per_launch": dt,
                   "graphs_per_s": K / dt, "describe": ev.describe()}
            rows.append(row)
            log(json.dumps(row))
    return rows


def seidel(cp, args):
    from golf.evaluators.seidel import SeidelEvaluator

    rows = []
    for n, d in SEIDEL:
        rng = cp.random.default_rng(n + d)
        p = d / (n - 1)
        upper = cp.triu(rng.random((n, n), dtype=cp.float32) < p, 1)
        A = (upper | upper.T).astype(cp.int8)
        deg_mean = float(A.sum(axis=1, dtype=cp.int64).mean())
        ev = SeidelEvaluator(n, int(A.sum(axis=1).max()), 1)
        Ap = cp.zeros((ev.np_, ev.np_), dtype=cp.int8)
        Ap[:n, :n] = A
        D = ev.apd(Ap)
        cp.cuda.Device().synchronize()
        times = []
        for _ in range(5):
            t = time.perf_counter()
            D = ev.apd(Ap)
            cp.cuda.Device().synchronize()
            times.append(time.perf_counter() - t)
        rows_ = D[:n, :n].astype(cp.int64)
        row = {"n": n, "d": d, "mean_degree": deg_mean, "diameter": int(rows_.max()),
               "total": int(rows_.sum()) // 2, "levels": ev.last_levels,
               "products": ev.last_products, "median_s": float(np.median(times)),
               "min_s": float(min(times))}
        if n == 4096 and d == 2048:  # cross-check with the GPU bit matrix
            from golf.evaluators import make_evaluator
            from golf.graph import Graph

            e = cp.stack(cp.nonzero(cp.triu(A, 1)), 1).get()
            graph = Graph.from_edges(e, n=n)
            s = make_evaluator("gpu-bitset", n, graph.d, 1).evaluate(graph)
            row["gpu_bitset_agrees"] = (s.diameter, s.total) == (row["diameter"], row["total"])
        rows.append(row)
        log(json.dumps(row))
        del A, Ap, D, rows_, upper
        cp.get_default_memory_pool().free_all_blocks()
    return rows


def chains(args):
    from golf.config import RunConfig, validate
    from golf.run import Search

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for item in args.chain_runs.split(","):
            K, where = item.split("/") if "/" in item else (item, "host")
            K = int(K)
            data = validate({"name": f"k{K}{where}", "problem": {"n": 1024, "d": 8, "g": 8},
                             "search": {"time_limit": args.chain_seconds, "seed": 1,
                                        "batch": K},
                             "evaluator": {"backend": "gpu-bitset", "chains": where},
                             "output": {"dir": tmp, "checkpoint_every": 3600, "plot": False}},
                            lambda k: "bench")
            from pathlib import Path

            run = RunConfig(data["name"], data, Path(tmp) / data["name"], "bench")
            s = Search(run, quiet=True).start(force=True)
            row = {"K": K, "where": where, "evaluations_per_s": s["evaluations_per_s"],
                   "best_diameter": s["best"]["diameter"], "best_aspl": s["best"]["aspl"],
                   "seconds": s["seconds"]}
            rows.append(row)
            log(json.dumps(row))
    return rows


PARTS = ("single", "batched", "seidel", "chains", "variants")
WHAT = {
    "single": ("gpu-bitset, one evaluation after a swap",
               "Time of `evaluate()` right after a random swap (finding the changed slots on "
               "the host, the launches, the read of the result), median of 30 (2 for g = 1 "
               "and n d >= 3.2e7) after one untimed evaluation, default options. Target: the "
               "time of the best CUDA library on an H200; ratio = median / target."),
    "batched": ("Batched evaluation: K graphs per launch (`evaluate_many`)",
                "K different random graphs a launch, two sets alternated so that every launch "
                "uploads changed graphs; mean of 20 launches."),
    "seidel": ("Seidel APD",
               "Erdos-Renyi graphs of mean degree d generated on the device, the matrix on the "
               "device; median (min) of 5 after one untimed run."),
    "chains": ("K chains scored per launch vs one chain, (1024, 8, 8)",
               "`golf run` with gpu-bitset and `search: {batch: K}`, equal wall time; run on "
               "host: one launch a step scores every chain's move; device: `chains: device`, "
               "the chains' steps in the kernel."),
    "variants": ("Layouts of the cooperative kernel",
                 "Median of a few evaluations of one graph per layout; every layout must give "
                 "the same score."),
}


def fmt_s(s: float) -> str:
    if s < 1e-3:
        return f"{s * 1e6:.4g} us"
    if s < 1:
        return f"{s * 1e3:.4g} ms"
    return f"{s:.4g} s"


def nkey(x):
    return f"({x['n']}, {x['d']}, {x['g']})"


def markdown(r):
    """The page from a record: what was measured, the command, each part's date, commit and
    GPU, the tables (commands, machines and notes in full stay in the JSON)."""
    parts = [p for p in PARTS if r.get(p)]
    lines = ["# GPU benchmark (`scripts/bench_gpu.py`)", "",
             "- what: gpu-bitset's time for one evaluation after a swap against the best CUDA "
             "library, its batched throughput, Seidel APD on dense graphs, chains scored per "
             "launch (how each is measured: `WHAT` in the script; notes in the JSON)",
             "- command: `PYTHONPATH=. python3 scripts/bench_gpu.py [--parts P]` on a GPU "
             "machine (the parts not run are kept from the JSON)"]
    groups = []  # parts measured by one run share a line
    for p in parts:
        key = (r[p]["date"], json.dumps(r[p]["machine"], sort_keys=True))
        for g in groups:
            if g[0] == key:
                g[1].append(p)
                break
        else:
            groups.append((key, [p]))
    for (date, _), ps in groups:
        m = r[ps[0]]["machine"]
        lines.append(f"- {', '.join(ps)}: {date[:10]}, commit {m.get('commit', '?')}, "
                     f"{m.get('gpu', '?')}, host {m.get('cores', '?')} cores")
    for p in parts:
        title = WHAT[p][0]
        rows = r[p]["rows"]
        lines += ["", f"## {title}", ""]
        if p == "single":
            lines += table(["(n, d, g)", "D", "median", "min", "target", "ratio", "kernel"],
                           [(nkey(x), x["diameter"], fmt_s(x["median_s"]), fmt_s(x["min_s"]),
                             fmt_s(x["target_s"]), f"{x['ratio']:.3f}",
                             x["describe"].split(": ", 1)[-1]) for x in rows])
            met = [x for x in rows if x["ratio"] < 1]
            twice = [f"{nkey(x)} {x['ratio']:.3f}" for x in rows if x["ratio"] <= 0.5]
            lines += ["", f"Below the target: {len(met)} of {len(rows)}; at least 2x faster "
                      f"(ratio <= 0.5): {', '.join(twice) or 'none'}."]
        elif p == "batched":
            one = {nkey(x): x["graphs_per_s"] for x in rows if x["K"] == 1}
            lines += table(["(n, d, g)", "K", "per launch", "graphs/s", "vs K = 1"],
                           [(nkey(x), x["K"], fmt_s(x["seconds_per_launch"]),
                             f"{x['graphs_per_s']:,.0f}",
                             f"{x['graphs_per_s'] / one[nkey(x)]:.0f}x" if nkey(x) in one
                             else "-") for x in rows])
        elif p == "seidel":
            lines += table(["n", "d", "mean degree", "diameter", "levels", "products", "median",
                            "min"],
                           [(x["n"], x["d"], f"{x['mean_degree']:.0f}", x["diameter"],
                             x["levels"], ", ".join(x["products"]), fmt_s(x["median_s"]),
                             fmt_s(x["min_s"])) for x in rows])
            lines += [f"\nn = {x['n']}, d = {x['d']} checked against gpu-bitset on the same "
                      f"graph: {'equal' if x['gpu_bitset_agrees'] else 'DIFFERENT'} diameter "
                      "and total." for x in rows if "gpu_bitset_agrees" in x]
        elif p == "chains":
            lines += table(["chains", "run on", "evaluations/s", "best D", "best ASPL",
                            "seconds"],
                           [(x["K"], x.get("where", "host"),
                             f"{x['evaluations_per_s']:,.0f}", x["best_diameter"],
                             f"{x['best_aspl']:.6f}", f"{x['seconds']:.1f}") for x in rows])
        else:
            lines += table(["(n, d, g)", "chunk words", "dense from", "group", "min blocks",
                            "registers", "blocks/SM", "seconds", "same score"],
                           [(nkey(x), x["chunk_words"], x.get("dense_frac", "-"),
                             x.get("group", "-"), x.get("min_blocks", 1), x.get("regs", "-"),
                             x.get("blocks_per_sm", "-"), f"{x['seconds']:.4g}",
                             x.get("agrees", "-")) for x in rows])
    return "\n".join(lines) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=os.path.join(ROOT, "results", "gpu", "bench_gpu"))
    p.add_argument("--parts", default="single,batched,seidel,chains")
    p.add_argument("--render", "--page", action="store_true", dest="page",
                   help="only rewrite <out>.md from <out>.json (no GPU needed)")
    p.add_argument("--chain-runs", default="1/host,64/host,64/device,1024/device",
                   help="K/WHERE runs of the chains part: K chains, their steps taken on the "
                   "host (one launch a step scores all) or on the device (gpu-bitset chains)")
    p.add_argument("--chain-seconds", type=float, default=15.0)
    p.add_argument("--variants-max-n", type=int, default=10**7)
    args = p.parse_args(argv)
    rec = load(args.out) or {}
    if args.page:
        save(args.out, rec, markdown(rec))
        return
    import cupy as cp

    mach = gpu_machine(cp)
    parts = args.parts.split(",")
    for part, fn in (("single", lambda: single(cp, args)), ("variants", lambda: variants(cp, args)),
                     ("batched", lambda: batched(cp, args)),
                     ("seidel", lambda: seidel(cp, args)), ("chains", lambda: chains(args))):
        if part in parts:
            run = {**new_record(), "machine": mach}  # dated at the part's start
            rec[part] = {**run, "rows": fn()}
            save(args.out, rec, markdown(rec))  # after each part: a cut-off run keeps the rest


if __name__ == "__main__":
    main()
