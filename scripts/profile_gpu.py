#!/usr/bin/env python3
"""One gpu-bitset evaluation of a random (n, d, g) graph, for a profiler to watch:

    ncu --clock-control none -k regex:bitset_grid --launch-count 1 \\
        --section SpeedOfLight --section MemoryWorkloadAnalysis \\
        python3 scripts/profile_gpu.py 65536 6 1
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from golf.evaluators import make_evaluator  # noqa: E402
from golf.generate import random_graph  # noqa: E402

n, d, g = (int(x) for x in sys.argv[1:4])
graph = random_graph(n, d, g, seed=1)
ev = make_evaluator("gpu-bitset", n, d, g)
print(ev.describe())
print(ev.evaluate(graph))
