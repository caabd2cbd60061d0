#!/usr/bin/env python3
"""One gpu-bitset evaluation of a random (n, d, g) graph, for a profiler to watch, or the time
of each BFS level (``--levels``: evaluations stopped after 1, 2, ... levels; the difference of
consecutive ones is what a level costs, summed over the column chunks):

    ncu --clock-control none -k regex:bitset_grid --launch-count 1 \\
        --section SpeedOfLight --section MemoryWorkloadAnalysis \\
        python3 scripts/profile_gpu.py 65536 6 1
    python3 scripts/profile_gpu.py 65536 6 1 --levels dense_frac=0 chunk_words=64
    python3 scripts/profile_gpu.py 4096 8 1 --host    # where one evaluation's time goes
    ncu ... --launch-skip 1 python3 scripts/profile_gpu.py 65536 6 1 --max-level 1

Options after the sizes are gpu-bitset options (``key=value``).
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from golf.evaluators import make_evaluator  # noqa: E402
from golf.starts.random import random_graph  # noqa: E402

n, d, g = (int(x) for x in sys.argv[1:4])
rest = sys.argv[4:]
levels = "--levels" in rest
host = "--host" in rest
max_level = int(rest[rest.index("--max-level") + 1]) if "--max-level" in rest else 0
opts = {}
for kv in (x for x in rest if "=" in x):
    k, v = kv.split("=", 1)
    for kind in (int, float, str):
        try:
            opts[k] = kind(v)
            break
        except ValueError:
            pass
graph = random_graph(n, d, g, seed=1)
ev = make_evaluator("gpu-bitset", n, d, g, **opts)
print(ev.describe())
score = ev.evaluate(graph)
print(score)
if max_level and not host:  # the profiler's launch: stopped after max_level levels
    print(ev.evaluate(graph, max_level=max_level))
if levels:
    import cupy as cp

    reps = 3 if n * d < 10_000_000 else 1
    prev = 0.0
    for k in range(1, score.diameter + 1):
        times = []
        for _ in range(reps):
            cp.cuda.Device().synchronize()
            t = time.perf_counter()
            ev.evaluate(graph, max_level=k if k < score.diameter else 0)
            times.append(time.perf_counter() - t)
        t = min(times)
        print(f"levels 1..{k}: {t * 1e3:9.3f} ms   level {k}: {(t - prev) * 1e3:9.3f} ms",
              flush=True)
        prev = t
if host:  # one evaluation after a swap, part by part (median, microseconds)
    import cupy as cp
    import numpy as np

    from golf.kernels.rng import rng_seed
    from golf.engine.moves import new_undo, propose_swap

    st, undo = rng_seed(3), new_undo()
    names = ("find changes", "launch+read", "merge", "finish", "all", "device (events)")
    t = {k: [] for k in names}
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    for _ in range(200 if n * d < 10_000_000 else 3):
        propose_swap(graph.adj, n, g, st, undo)
        cp.cuda.Device().synchronize()
        t0 = time.perf_counter()
        patch = ev._sync_adj(graph.adj[None])
        t1 = time.perf_counter()
        start.record()
        w0, w1 = ev.unit_range
        parts_dev = ev._run(1, w0, w1, [max_level], patch)
        t3 = time.perf_counter()
        stop.record()
        merged = ev._merge(parts_dev)[0]
        t4 = time.perf_counter()
        ev.finish(merged)
        t5 = time.perf_counter()
        stop.synchronize()
        t["find changes"].append(t1 - t0)
        t["launch+read"].append(t3 - t1)
        t["merge"].append(t4 - t3)
        t["finish"].append(t5 - t4)
        t["device (events)"].append(cp.cuda.get_elapsed_time(start, stop) / 1e3)
        propose_swap(graph.adj, n, g, st, undo)
        cp.cuda.Device().synchronize()
        t6 = time.perf_counter()
        ev.evaluate(graph, max_level=max_level)
        t["all"].append(time.perf_counter() - t6)
    for k in names:
        if t[k]:
            print(f"{k:>16}: {np.median(t[k]) * 1e6:9.1f} us")
