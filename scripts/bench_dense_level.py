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
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

from golf.evaluators.gpu_bitset import _GRID_SOURCE, cupy_or_error  # noqa: E402
from golf.generate import random_graph  # noqa: E402

DRIVER = r"""
template <bool PLAIN>
__device__ void levels(int* adj, u64* A, u64* B, int n, int lgC, int d, int count, u64* cnt) {
    cg::grid_group grid = cg::this_grid();
    const u32 tid = blockIdx.x * blockDim.x + threadIdx.x, stride = gridDim.x * blockDim.x;
    const u32 lane = threadIdx.x & 31u;
    const u32 L = 1u << (lgC - 1), items = (u32)n << (lgC - 1);
    __shared__ u64 blk, andb[256];
    if (threadIdx.x == 0) blk = 0;
    __syncthreads();
    for (int lev = 0; lev < count; lev++) {
        u64 local = 0, changed = 0;
        if (PLAIN) {
            for (u32 q = tid; q < items; q += stride) {
                u32 v = q >> (lgC - 1), piece = q & (L - 1);
                ulonglong2 acc = make_ulonglong2(0, 0);
                for (int j0 = 0; j0 + 1 < d; j0 += 2) {
                    ulonglong2 t[2];
#pragma unroll
                    for (int jj = 0; jj < 2; jj++)
                        t[jj] = __ldcg(reinterpret_cast<const ulonglong2*>(
                            A + ((u64)adj[(u64)v * d + j0 + jj] << lgC)) + piece);
#pragma unroll
                    for (int jj = 0; jj < 2; jj++) { acc.x |= t[jj].x; acc.y |= t[jj].y; }
                }
                reinterpret_cast<ulonglong2*>(B + ((u64)v << lgC))[piece] = acc;
                local += __popcll(acc.x) + __popcll(acc.y);
            }
        } else {
            level_pass<2, 2, true, 0, false>(adj, n, d, n, lgC, A, B, nullptr, nullptr, 1,
                                          nullptr, nullptr, tid - lane, lane, stride, false,
                                          false, false, andb, local, changed);
        }
        for (int o = 16; o > 0; o >>= 1) local += __shfl_down_sync(FULL, local, o);
        if (lane == 0) atomicAdd(&blk, local);
        __syncthreads();
        if (threadIdx.x == 0) { atomicAdd(cnt + lev % 3, blk); blk = 0; }
        grid.sync();
        u64* t = A; A = B; B = t;
    }
}
extern "C" __global__ void __launch_bounds__(256, 4) plain(int* adj, u64* A, u64* B, int n,
        int lgC, int d, int count, u64* cnt) { levels<true>(adj, A, B, n, lgC, d, count, cnt); }
extern "C" __global__ void __launch_bounds__(256, 4) pass(int* adj, u64* A, u64* B, int n,
        int lgC, int d, int count, u64* cnt) { levels<false>(adj, A, B, n, lgC, d, count, cnt); }
"""


def main():
    n, d = int(sys.argv[1]), int(sys.argv[2])
    widths = [int(x) for x in sys.argv[3:]] or [32, 64]
    if d % 2:
        raise SystemExit("d must be even (the plain loop reads neighbours two at a time)")
    cp = cupy_or_error()
    mod = cp.RawModule(code=_GRID_SOURCE + DRIVER, options=("-std=c++17",),
                       enable_cooperative_groups=True)
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
