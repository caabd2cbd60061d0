#!/usr/bin/env python3
"""One dense level of gpu-bitset's grid kernel on its own, against the plainest loop that does
the same work (GPU only):

    PYTHONPATH=. python3 scripts/bench_dense_level.py 65536 6 [widths...]

Both run in one cooperative grid of 4 blocks of 256 threads an SM, several levels a launch
with a grid barrier between them (the matrices swap roles), on a random d-regular graph and
a random n x C bit matrix: ``plain`` reads the d neighbours' 16-byte pieces of each row piece,
two at a time, ORs them, writes the piece and counts its bits; ``level_pass`` is the kernel's
own dense level (neighbours only: what levels 2 onwards do). The time a level is the
difference of launches with 6 and 1 levels, divided by 5; "TB/s" counts d reads and a write.
The two kernels are in ``scripts/dense_level.cu``, compiled after the grid kernel's sources.
"""

import os
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

from golf.evaluators.cuda import cupy_or_error, load_module  # noqa: E402
from golf.starts.random import random_graph  # noqa: E402


def main():
    n, d = int(sys.argv[1]), int(sys.argv[2])
    widths = [int(x) for x in sys.argv[3:]] or [32, 64]
    if d % 2:
        raise SystemExit("d must be even (the plain loop reads neighbours two at a time)")
    cp = cupy_or_error()
    driver = Path(__file__).resolve().with_name("dense_level.cu")
    mod = load_module(("common.cuh", "bitset_grid.cu", driver), cooperative=True)
    sms = cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]
    rng = np.random.default_rng(1)
    adj = cp.asarray(random_graph(n, d, 1, seed=1).adj.astype(np.int32))
    cnt = cp.zeros(3, dtype=cp.uint64)
    print(f"{cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}: n={n} d={d}, "
          f"grid {4 * sms} x 256")
    for cw in widths:
        A = cp.asarray(rng.integers(0, 2**63, n * cw, dtype=np.int64).view(np.uint64))
        B = cp.empty_like(A)
        for name in ("plain", "pass"):
            k = mod.get_function(name)
            t = {}
            for count in (1, 6):
                args = (adj, A, B, np.int32(n), np.int32(cw.bit_length() - 1), np.int32(d),
                        np.int32(count), cnt)
                for _ in range(3):
                    k((4 * sms,), (256,), args)
                start, stop = cp.cuda.Event(), cp.cuda.Event()
                start.record()
                for _ in range(20):
                    k((4 * sms,), (256,), args)
                stop.record()
                stop.synchronize()
                t[count] = cp.cuda.get_elapsed_time(start, stop) / 20 * 1e-3
            level = (t[6] - t[1]) / 5
            rate = n * cw * 8 * (d + 1) / level / 1e12
            print(f"C={cw:3d} words ({n * cw * 8 / 2**20:5.1f} MB a matrix) "
                  f"{'level_pass' if name == 'pass' else 'plain':10s} {level * 1e6:7.1f} us a "
                  f"level, {rate:5.2f} TB/s", flush=True)


if __name__ == "__main__":
    main()
