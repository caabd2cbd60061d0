#!/usr/bin/env python3
"""One gpu-bitset evaluation of a random (n, d, g) graph, for a profiler to watch, or the time
of each BFS level (``--levels``: evaluations stopped after 1, 2, ... levels; the difference of
consecutive ones is what a level costs, summed over the column chunks):

    ncu --clock-control none -k regex:bitset_grid --launch-count 1 \\
        --section SpeedOfLight --section MemoryWorkloadAnalysis \\
        python3 scripts/profile_gpu.py 65536 6 1
    python3 scripts/profile_gpu.py 65536 6 1 --levels dense_frac=0 chunk_words=64
    ncu ... --launch-skip 1 python3 scripts/profile_gpu.py 65536 6 1 --max-level 1

Options after the sizes are gpu-bitset options (``key=value``).
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from golf.evaluators import make_evaluator  # noqa: E402
from golf.generate import random_graph  # noqa: E402

n, d, g = (int(x) for x in sys.argv[1:4])
rest = sys.argv[4:]
levels = "--levels" in rest
max_level = int(rest[rest.index("--max-level") + 1]) if "--max-level" in rest else 0
opts = {}
for kv in (x for x in rest if "=" in x):
    k, v = kv.split("=", 1)
    opts[k] = float(v) if "." in v else int(v)
graph = random_graph(n, d, g, seed=1)
ev = make_evaluator("gpu-bitset", n, d, g, **opts)
print(ev.describe())
score = ev.evaluate(graph)
print(score)
if max_level:  # the profiler's launch: stopped after max_level levels
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
