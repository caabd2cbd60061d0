"""``gpu-bitset``: the bit-matrix ADJ-APSP on an NVIDIA GPU, CuPy RawKernels (core paper
Sec. 5.1, Fig. 14; bulk computation from ``000_...``).

The same level step as ``bitset`` -- ``B[v] = A[v] | OR_{u in N(v)} A[u]`` over 64-bit words of
source columns, ``__popcll`` of the result, reduced per warp and block -- with the whole level
loop on the device and one small read of the result per evaluation. Neighbours of a rotated
vertex come from the base rows on the device; the base rows are uploaded once and then patched
in place with the few slots a swap changes.

Two kernels, chosen by size:

* ``bitset_block``: one thread block per (graph, column chunk), both bit matrices in shared
  memory, ``__syncthreads`` between levels. Used when ``2 n C 8`` bytes fit a block's shared
  memory; a batch of ``K`` graphs is ``K x chunks`` blocks in one launch (``evaluate_many``).
* ``bitset_grid``: one cooperative grid per column chunk, the matrices in global memory sized
  to stay in L2, ``grid.sync()`` between levels. Consecutive threads take consecutive words of
  a row (coalesced). A bitmap of the rows that changed at the last level lets a row skip the
  neighbours that did not (they bring no new bit): the first levels touch few rows.

Exact: it returns the same ``[ecc, dist_sum, n_at_ecc, status]`` as the CPU backends, and the
tests compare it with them on many graphs.
"""

from __future__ import annotations

import os

import numpy as np

from golf.errors import GolfError
from golf.evaluators.base import OK, Evaluator

__all__ = ["GpuBitsetEvaluator", "cupy_or_error", "select_device"]

_COMMON = r"""
typedef unsigned long long u64;
typedef long long i64;
typedef unsigned int u32;
#define ST_OK 0
#define ST_DISCONNECTED 1
#define ST_EXCEEDED 2
#define FULL 0xffffffffu

// word w of row v before the first level: v's own source bit, and the padding columns
// (beyond the ns real sources of the chunk), which count as reached from the start
__device__ __forceinline__ u64 init_word(u32 v, u32 w, u32 s0, u32 ns) {
    u32 lo = w * 64u;
    u64 word;
    if (lo + 64u <= ns) word = 0ULL;
    else if (ns > lo) word = ~0ULL << (ns - lo);
    else word = ~0ULL;
    if (v >= s0 && v - s0 < ns && ((v - s0) >> 6) == w) word |= 1ULL << ((v - s0) & 63u);
    return word;
}

// base row and rotation of vertex v (g > 1: one 32-bit division; g = 1: none)
__device__ __forceinline__ void base_of(u32 v, u32 m, int sym, u32& i, u32& off) {
    if (sym) { u32 k = v / m; off = k * m; i = v - off; } else { i = v; off = 0; }
}
"""

# normal launches: the shared-memory kernel (one block per graph and chunk), the patches
_BLOCK_SOURCE = _COMMON + r"""
__device__ __forceinline__ u64 block_sum(u64 x, u64* red) {
    for (int o = 16; o > 0; o >>= 1) x += __shfl_down_sync(FULL, x, o);
    int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    __syncthreads();
    if (lane == 0) red[wid] = x;
    __syncthreads();
    if (wid == 0) {
        u64 y = (lane < (int)(blockDim.x >> 5)) ? red[lane] : 0ULL;
        for (int o = 16; o > 0; o >>= 1) y += __shfl_down_sync(FULL, y, o);
        if (lane == 0) red[32] = y;
    }
    __syncthreads();
    return red[32];
}

// one slot of the base rows, and its group-fastest form (a neighbour x = k*m + i' of base
// row i is row i'*g + (k + k_i) mod g of vertex k_i*m + i): abase = i'*g, ashift = k
__device__ __forceinline__ void set_slot(int* adj, int* abase, int* ashift, i64 at, int x,
                                         int m, int g, int tr) {
    adj[at] = x;
    if (tr) {
        abase[at] = x < 0 ? -1 : (x % m) * g;
        ashift[at] = x < 0 ? 0 : x / m;
    }
}

// patch the base rows: count (row, slot, value) triples
extern "C" __global__ void patch_adj(int* adj, int* abase, int* ashift, int d, int m, int g,
                                     int tr, const int* upd, int count) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < count)
        set_slot(adj, abase, ashift, (i64)upd[3 * t] * d + upd[3 * t + 1], upd[3 * t + 2], m, g,
                 tr);
}

extern "C" __global__ void patch_adj4(int* adj, int* abase, int* ashift, int d, int m, int g,
        int tr, int count, int r0, int j0, int v0, int r1, int j1, int v1,
        int r2, int j2, int v2, int r3, int j3, int v3) {
    int t = threadIdx.x;
    if (t >= count) return;
    int r = t == 0 ? r0 : t == 1 ? r1 : t == 2 ? r2 : r3;
    int j = t == 0 ? j0 : t == 1 ? j1 : t == 2 ? j2 : j3;
    int v = t == 0 ? v0 : t == 1 ? v1 : t == 2 ? v2 : v3;
    set_slot(adj, abase, ashift, (i64)r * d + j, v, m, g, tr);
}

// One block per (graph, chunk): graph = blockIdx.x / nchunk; chunk c covers the source words
// [w0 + c*C, ...) (C = 1 << lgC), i.e. base sources from s0 below send. Matrices in shared memory.
extern "C" __global__ void bitset_block(const int* __restrict__ adj_all, int m, int d, int n,
        int lgC, int nchunk, int w0, int send, int sym, const i64* __restrict__ maxlev_all,
        i64* __restrict__ res) {
    extern __shared__ u64 smem[];
    __shared__ u64 red[33];
    __shared__ u64 andm[64];
    const u32 C = 1u << lgC;
    int graph = blockIdx.x / nchunk, chunk = blockIdx.x - graph * nchunk;
    const int* adj = adj_all + (i64)graph * m * d;
    i64 maxlev = maxlev_all[graph];
    u32 s0 = (u32)(w0 + chunk * (int)C) * 64u;
    u32 s1 = min(s0 + C * 64u, (u32)send);
    i64* out = res + (i64)blockIdx.x * 4;
    if (s1 <= s0) {
        if (threadIdx.x == 0) { out[0] = -1; out[1] = 0; out[2] = 0; out[3] = ST_OK; }
        return;
    }
    u32 ns = s1 - s0;
    u64* A = smem;
    u64* B = smem + ((u32)n << lgC);
    u32 items = (u32)n << lgC;
    for (u32 idx = threadIdx.x; idx < items; idx += blockDim.x)
        A[idx] = init_word(idx >> lgC, idx & (C - 1), s0, ns);
    if (threadIdx.x < 64) andm[threadIdx.x] = ~0ULL;
    __syncthreads();
    i64 total = (i64)items * 64, reached = ns + (i64)n * ((i64)C * 64 - ns);
    i64 dist = total - reached, level = 0;
    int status = ST_OK;
    while (reached < total) {
        if (maxlev > 0 && level == maxlev) { status = ST_EXCEEDED; break; }
        level++;
        u64 local = 0;
        for (u32 idx = threadIdx.x; idx < items; idx += blockDim.x) {
            u32 v = idx >> lgC, w = idx & (C - 1), i, off;
            base_of(v, m, sym, i, off);
            const int* row = adj + (i64)i * d;
            u64 acc = A[idx];
            for (int j = 0; j < d; j++) {
                int x = row[j];
                if (x >= 0) {
                    u32 u = (u32)x + off;
                    if (u >= (u32)n) u -= n;
                    acc |= A[(u << lgC) | w];
                }
            }
            B[idx] = acc;
            local += __popcll(acc);
        }
        u64 cnt = block_sum(local, red);
        if ((i64)cnt == reached) { status = ST_DISCONNECTED; break; }
        reached = (i64)cnt;
        dist += total - reached;
        u64* t = A; A = B; B = t;
    }
    i64 n_at = 0;
    if (status == ST_OK) {
        if (level == 0) {
            n_at = ns;
        } else {  // columns not yet full one level before the last (now in B)
            u64 acc = ~0ULL;
            for (u32 idx = threadIdx.x; idx < items; idx += blockDim.x) acc &= B[idx];
            if (acc != ~0ULL) atomicAnd(&andm[threadIdx.x & (C - 1)], acc);
            __syncthreads();
            if (threadIdx.x == 0)
                for (u32 w = 0; w < C; w++) n_at += __popcll(~andm[w]);
        }
    }
    if (threadIdx.x == 0) {
        out[0] = level;
        out[1] = status == ST_OK ? dist : 0;
        out[2] = status == ST_OK ? n_at : 0;
        out[3] = status;
    }
}
"""

# cooperative launches: one grid per chunk of one graph, matrices in global memory
_GRID_SOURCE = _COMMON + r"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// P words of a row per thread (P = 2: one 16-byte load per neighbour row)
template <int P> struct Vec;
template <> struct Vec<1> {
    u64 x;
    __device__ static Vec load(const u64* p) { Vec r; r.x = __ldcg(p); return r; }
    __device__ void store(u64* p) const { *p = x; }
    __device__ void orr(const Vec& o) { x |= o.x; }
    __device__ int popc() const { return __popcll(x); }
    __device__ bool ne(const Vec& o) const { return x != o.x; }
};
template <> struct Vec<2> {
    ulonglong2 x;
    __device__ static Vec load(const u64* p) {
        Vec r; r.x = __ldcg(reinterpret_cast<const ulonglong2*>(p)); return r;
    }
    __device__ void store(u64* p) const { *reinterpret_cast<ulonglong2*>(p) = x; }
    __device__ void orr(const Vec& o) { x.x |= o.x.x; x.y |= o.x.y; }
    __device__ int popc() const { return __popcll(x.x) + __popcll(x.y); }
    __device__ bool ne(const Vec& o) const { return x.x != o.x.x || x.y != o.x.y; }
};

// A, B: n*C words each; F: three bitmaps of n bits (rows changed at levels L-1, L, and one
// being cleared); counters[6]: per-level popcounts [0..2] and changed rows [3..5] (three of
// each, rotating, so that clearing never races with a level still reading); andm[C] scratch;
// out[4] the result. A thread takes P consecutive words of a row: L = C/P threads a row.
// Buffers written during the kernel are read with __ldcg (L2): L1 is not coherent across SMs.
// While few rows changed, a row reads only the neighbours that did (the others bring no new
// bit); once a quarter of the rows change, every neighbour is read without the check.
// With tr (g >= 32), rows are stored group-fastest: row r = i*g + k holds vertex k*m + i, and a
// warp takes consecutive k of one base vertex i: its lanes share i's adjacency and read the
// rows i'*g + (k + delta) mod g of a neighbour, consecutive addresses (coalesced) instead of
// 32 scattered rows. abase[i*d+j] = i'*g and ashift[i*d+j] = delta come precomputed.
template <int P>
__device__ void grid_levels(const int* __restrict__ adj, int m, int d, int n, int lgC, int s0,
        int s1, int sym, i64 maxlev, u64* A, u64* B, u32* F, u64* counters, u64* andm,
        i64* out, int g, int tr, const int* __restrict__ abase,
        const int* __restrict__ ashift) {
    cg::grid_group grid = cg::this_grid();
    const u32 C = 1u << lgC, L = C / P;
    const int lgL = lgC - (P == 2 ? 1 : 0);
    const u32 tid = blockIdx.x * blockDim.x + threadIdx.x;
    const u32 stride = gridDim.x * blockDim.x;
    const u32 lane = threadIdx.x & 31u;
    const u32 ns = (u32)(s1 - s0), items = (u32)n << lgL, nfw = ((u32)n + 31u) >> 5;
    for (u32 q = tid; q < items; q += stride) {
        u32 r = q >> lgL, w = (q & (L - 1)) * P, v = r;
        if (tr) { u32 i = r / (u32)g; v = (r - i * (u32)g) * (u32)m + i; }
        for (int p = 0; p < P; p++) A[((u64)r << lgC) + w + p] = init_word(v, w + p, (u32)s0, ns);
    }
    for (u32 f = tid; f < nfw; f += stride) {  // level 0: the source rows "changed"
        u32 bits = 0;
        for (u32 b = 0; b < 32; b++) {
            u32 r = f * 32 + b, v = r;
            if (tr) { u32 i = r / (u32)g; v = (r - i * (u32)g) * (u32)m + i; }
            if (r < (u32)n && v >= (u32)s0 && v < (u32)s1) bits |= 1u << b;
        }
        F[f] = bits;
        F[nfw + f] = 0;
        F[2 * nfw + f] = 0;
    }
    if (tid < 6) counters[tid] = 0;
    if (tid < C) andm[tid] = ~0ULL;
    grid.sync();
    i64 total = ((i64)n << lgC) * 64, reached = ns + (i64)n * ((i64)C * 64 - ns);
    i64 dist = total - reached, level = 0;
    int status = ST_OK;
    bool dense = 4u * ns >= (u32)n;
    const u32 warp_base = tid - lane;
    while (reached < total) {
        if (maxlev > 0 && level == maxlev) { status = ST_EXCEEDED; break; }
        level++;
        const u32* Fprev = F + ((level - 1) % 3) * nfw;
        u32* Fcur = F + (level % 3) * nfw;
        u32* Fclear = F + ((level + 1) % 3) * nfw;  // rows of level-2, last read at level-1
        for (u32 f = tid; f < nfw; f += stride) Fclear[f] = 0;
        u64 local = 0, changed_rows = 0;
        for (u32 base = warp_base; base < items; base += stride) {
            u32 q = base + lane;
            bool changed = false;
            if (q < items) {
                u32 v = q >> lgL, w = (q & (L - 1)) * P;
                u64 at = ((u64)v << lgC) + w;
                Vec<P> a0 = Vec<P>::load(A + at), acc = a0;
                if (tr) {  // v is the row i*g + k
                    u32 i = v / (u32)g, k = v - i * (u32)g;
                    const int* rb = abase + (i64)i * d;
                    const int* rs = ashift + (i64)i * d;
#pragma unroll 4
                    for (int j = 0; j < d; j++) {
                        int b = rb[j];
                        if (b >= 0) {
                            u32 kk = k + (u32)rs[j];
                            if (kk >= (u32)g) kk -= g;
                            u32 u = (u32)b + kk;
                            if (dense || ((__ldcg(Fprev + (u >> 5)) >> (u & 31u)) & 1u))
                                acc.orr(Vec<P>::load(A + ((u64)u << lgC) + w));
                        }
                    }
                } else {
                    u32 i, off;
                    base_of(v, m, sym, i, off);
                    const int* row = adj + (i64)i * d;
#pragma unroll 4
                    for (int j = 0; j < d; j++) {
                        int x = row[j];
                        if (x >= 0) {
                            u32 u = (u32)x + off;
                            if (u >= (u32)n) u -= n;
                            if (dense || ((__ldcg(Fprev + (u >> 5)) >> (u & 31u)) & 1u))
                                acc.orr(Vec<P>::load(A + ((u64)u << lgC) + w));
                        }
                    }
                }
                acc.store(B + at);
                local += acc.popc();
                changed = acc.ne(a0);
            }
            // mark the changed rows, one store or atomic per warp (L is a power of two)
            u32 bal = __ballot_sync(FULL, changed);
            if (lane == 0 && bal) {
                u32 v0 = base >> lgL;
                u32 rows;
                if (L == 1) {
                    rows = bal;
                    Fcur[v0 >> 5] = rows;  // the warp owns this whole word
                } else if (L < 32) {
                    rows = 0;
                    u32 grp = (1u << L) - 1u;
                    for (u32 r = 0; r < 32 / L; r++)
                        if ((bal >> (r * L)) & grp) rows |= 1u << r;
                    atomicOr(Fcur + (v0 >> 5), rows << (v0 & 31u));
                } else {  // the warp holds 32 pieces of one row
                    atomicOr(Fcur + (v0 >> 5), 1u << (v0 & 31u));
                    rows = (base & (L - 1)) == 0 ? 1u : 0u;  // counted by its first warp
                }
                changed_rows += __popc(rows);
            }
        }
        for (int o = 16; o > 0; o >>= 1) local += __shfl_down_sync(FULL, local, o);
        if (lane == 0 && local) atomicAdd(counters + level % 3, local);
        if (lane == 0 && changed_rows) atomicAdd(counters + 3 + level % 3, changed_rows);
        grid.sync();
        i64 cnt = (i64)__ldcg(counters + level % 3);
        if (!dense) dense = 4ull * __ldcg(counters + 3 + level % 3) >= (u64)n;
        if (cnt == reached) { status = ST_DISCONNECTED; break; }
        reached = cnt;
        dist += total - reached;
        u64* t = A; A = B; B = t;
        // counters of level+2 were last read at level-1 (before this level's sync) and are
        // next added to at level+2 (after the next sync): safe to clear now
        if (tid == 0) { counters[(level + 2) % 3] = 0; counters[3 + (level + 2) % 3] = 0; }
    }
    i64 n_at = 0;
    if (status == ST_OK && level > 0) {   // columns not yet full one level before the last
        u32 wbase = (tid & (L - 1)) * P;
        u64 acc[P];
        for (int p = 0; p < P; p++) acc[p] = ~0ULL;
        for (u32 q = tid; q < items; q += stride) {
            u64 at = ((u64)(q >> lgL) << lgC) + wbase;
            for (int p = 0; p < P; p++) acc[p] &= __ldcg(B + at + p);
        }
        for (int p = 0; p < P; p++)
            if (acc[p] != ~0ULL) atomicAnd(andm + wbase + p, acc[p]);
        grid.sync();
        if (tid == 0) for (u32 w = 0; w < C; w++) n_at += __popcll(~__ldcg(andm + w));
    } else if (status == ST_OK) {
        n_at = ns;
    }
    if (tid == 0) {
        out[0] = level;
        out[1] = status == ST_OK ? dist : 0;
        out[2] = status == ST_OK ? n_at : 0;
        out[3] = status;
    }
}

#define GRID_ARGS const int* __restrict__ adj, int m, int d, int n, int lgC, int s0, int s1, \
    int sym, i64 maxlev, u64* A, u64* B, u32* F, u64* counters, u64* andm, i64* out, int g, \
    int tr, const int* __restrict__ abase, const int* __restrict__ ashift
#define GRID_PASS adj, m, d, n, lgC, s0, s1, sym, maxlev, A, B, F, counters, andm, out, g, tr, \
    abase, ashift
extern "C" __global__ void bitset_grid1(GRID_ARGS) { grid_levels<1>(GRID_PASS); }
extern "C" __global__ void bitset_grid2(GRID_ARGS) { grid_levels<2>(GRID_PASS); }
"""


def cupy_or_error():
    """Import CuPy and check that a GPU is there; a clear GolfError otherwise."""
    try:
        import cupy as cp
    except ImportError:
        raise GolfError("the GPU backends need CuPy and an NVIDIA GPU: pip install "
                        "'golf[gpu]' (a CuPy build matching your CUDA)") from None
    try:
        if cp.cuda.runtime.getDeviceCount() < 1:
            raise GolfError("CuPy found no NVIDIA GPU")
    except cp.cuda.runtime.CUDARuntimeError as exc:
        raise GolfError(f"CuPy cannot use a GPU here: {exc}") from None
    return cp


def select_device(cp, device=None, comm=None) -> int:
    """The GPU to use: ``device`` if given; under MPI, one per rank on a node (the node-local
    rank modulo the GPUs there); else GPU 0. Makes it current and returns its index."""
    count = cp.cuda.runtime.getDeviceCount()
    if device is None:
        local = None
        for var in ("OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID",
                    "MV2_COMM_WORLD_LOCAL_RANK", "PMI_LOCAL_RANK"):
            if os.environ.get(var, "").isdigit():
                local = int(os.environ[var])
                break
        if local is None and comm is not None:
            local = comm.rank
        device = (local or 0) % count
    if not 0 <= int(device) < count:
        raise GolfError(f"GPU {device} does not exist ({count} found)")
    cp.cuda.Device(int(device)).use()
    return int(device)


_MODULES: dict = {}


def _modules(cp):
    """(normal module, cooperative module) for the current device. Separate modules: CuPy
    launches every kernel of a cooperative module cooperatively, which caps its grid at the
    resident blocks -- wrong for the one-block-per-graph kernel."""
    dev = cp.cuda.Device().id
    if dev not in _MODULES:
        _MODULES[dev] = (cp.RawModule(code=_BLOCK_SOURCE, options=("-std=c++17",)),
                         cp.RawModule(code=_GRID_SOURCE, options=("-std=c++17",),
                                      enable_cooperative_groups=True))
    return _MODULES[dev]


def _pow2_floor(x: int) -> int:
    return 1 << (max(1, int(x)).bit_length() - 1)


class GpuBitsetEvaluator(Evaluator):
    """Bit-matrix ADJ-APSP on the GPU.

    Options
    -------
    device : int, optional — the GPU (default: GPU 0, or one per MPI rank on a node)
    chunk_words : int, optional — column chunk (rounded down to a power of two)
    batch : int — graphs per :meth:`evaluate_many` launch that buffers are sized for
    """

    name = "gpu-bitset"
    SMEM_BYTES = 200 * 1024  # of the ~227 KB a Hopper block may use

    def __init__(self, n, d, g=1, *, device=None, chunk_words=None, batch=1, comm=None,
                 threads=None):
        super().__init__(n, d, g, comm=comm)
        cp = self.cp = cupy_or_error()
        self.device = select_device(cp, device, comm)
        self.units = (self.m + 63) // 64
        self._split_units()
        w0, w1 = self.unit_range
        words = max(1, w1 - w0)
        props = cp.cuda.runtime.getDeviceProperties(self.device)
        self.sms = int(props["multiProcessorCount"])
        self.l2 = int(props.get("l2CacheSize", 50 << 20))
        self.gpu_name = props["name"].decode() if isinstance(props["name"], bytes) else str(
            props["name"])
        self.words = words
        # shared-memory blocks while 2 matrices of one word per row fit; else a cooperative
        # grid over wide chunks. Measured on an H200 (results/gpu/bench_gpu.md): wide rows win
        # although they leave the L2, because a chunk's launch, level barriers and adjacency
        # reads are paid once for more sources and every 16-byte load is used in full:
        # (1000000,32,1) 16.2 s with 2-word chunks, 8.1 s with 4, 5.3 s with 16, 5.0 s with 32;
        # (65536,6,1) 18.9 ms with 8, 9.3 ms with 32, 8.9 ms with 64.
        if 16 * n <= self.SMEM_BYTES:
            self.mode = "block"
            cw = min(64, _pow2_floor(self.SMEM_BYTES // (16 * n)))
        else:
            self.mode = "grid"
            cw = 64 if 16 * n * 64 <= (512 << 20) else 32
        if chunk_words:  # an explicit width wins (shared memory still caps the block kernel)
            cw = _pow2_floor(int(chunk_words))
            if self.mode == "block":
                cw = min(cw, 64, _pow2_floor(self.SMEM_BYTES // (16 * n)))
            cw = min(cw, 256)
        cw = min(cw, 1 << (words - 1).bit_length())  # no wider than the words (rounded up)
        self.cw = max(1, cw)
        self.nchunks = -(-words // self.cw)
        self.batch = max(1, int(batch))
        normal, coop = _modules(cp)
        self._k_block = normal.get_function("bitset_block")
        self._k_patch = normal.get_function("patch_adj")
        self._k_patch4 = normal.get_function("patch_adj4")
        self._k_grid = coop.get_function("bitset_grid2" if self.cw >= 2 else "bitset_grid1")
        self._sym = np.int32(1 if g > 1 else 0)
        # group-fastest rows for the grid kernel when a warp can take 32 groups of one vertex
        self._tr = np.int32(1 if self.mode == "grid" and g >= 32 else 0)
        if self.mode == "block":
            self._k_block.max_dynamic_shared_size_bytes = 16 * n * self.cw
            self._threads = 1024 if n >= 1024 else max(32, (n + 31) // 32 * 32)
        else:
            self._threads = 256
            self._grid_blocks = self._cooperative_blocks()
            per = n * self.cw
            self._A = cp.zeros(per, dtype=cp.uint64)
            self._B = cp.zeros(per, dtype=cp.uint64)
            self._F = cp.zeros(3 * ((n + 31) // 32), dtype=cp.uint32)
            self._counters = cp.zeros(6, dtype=cp.uint64)
            self._andm = cp.zeros(self.cw, dtype=cp.uint64)
        self._adj = cp.full((self.batch, self.m, max(d, 1)), -1, dtype=cp.int32)
        if self._tr:
            self._abase = cp.full(self._adj.shape, -1, dtype=cp.int32)
            self._ashift = cp.zeros(self._adj.shape, dtype=cp.int32)
        else:  # unused: one-element stand-ins (the kernels skip them)
            self._abase = self._ashift = cp.zeros(1, dtype=cp.int32)
        self._mirror = np.full((self.batch, self.m, max(d, 1)), -2, dtype=np.int32)
        self._maxlev = cp.zeros(self.batch, dtype=cp.int64)
        self._res = cp.zeros((self.batch * self.words, 4), dtype=cp.int64)
        self._maxlev_host = np.zeros(self.batch, dtype=np.int64)

    def _cooperative_blocks(self) -> int:
        """Blocks of the cooperative grid: as many as stay resident, from the kernel's register
        count (at most 2048 threads and 64K registers per SM), for latency hiding."""
        try:
            regs = int(self._k_grid.attributes["num_regs"])
        except Exception:  # older CuPy: a safe guess for this kernel
            regs = 64
        per_sm = min(2048 // self._threads, 65536 // max(1, regs * self._threads))
        self.blocks_per_sm = max(1, per_sm)
        return int(self.sms * self.blocks_per_sm)

    # -- the graph on the device ------------------------------------------------------------
    def _sync_adj(self, adjs) -> None:
        """Make the device rows equal ``adjs`` (K, m, d): patch the changed slots (a swap
        changes at most 4 per graph, passed to a tiny kernel as arguments) or upload
        everything when many changed."""
        cp = self.cp
        K = adjs.shape[0]
        dd = self._adj.shape[2]
        if adjs.shape[2] < dd:  # narrower rows (d = 0 graphs): pad with empty slots
            pad = np.full((K, adjs.shape[1], dd), -1, dtype=np.int32)
            pad[:, :, :adjs.shape[2]] = adjs
            adjs = pad
        mirror = self._mirror[:K]
        diff = np.flatnonzero(adjs != mirror)
        if len(diff) == 0:
            return
        patch_args = (self._adj, self._abase, self._ashift, np.int32(dd), np.int32(self.m),
                      np.int32(self.g), self._tr)
        if len(diff) > 64 * K:
            self._adj[:K] = cp.asarray(adjs)
            if self._tr:
                a = self._adj[:K]
                self._abase[:K] = cp.where(a >= 0, (a % self.m) * self.g, -1)
                self._ashift[:K] = cp.where(a >= 0, a // self.m, 0)
        else:
            k, rest = np.divmod(diff, self.m * dd)
            rows = k * self.m + rest // dd
            slots = rest % dd
            vals = adjs.reshape(-1)[diff]
            if len(diff) <= 4:
                args = list(patch_args) + [np.int32(len(diff))]
                for t in range(4):
                    if t < len(diff):
                        args += [np.int32(rows[t]), np.int32(slots[t]), np.int32(vals[t])]
                    else:
                        args += [np.int32(0), np.int32(0), np.int32(0)]
                self._k_patch4((1,), (32,), tuple(args))
            else:
                upd = cp.asarray(np.stack([rows, slots, vals], 1).astype(np.int32).ravel())
                count = len(diff)
                self._k_patch(((count + 255) // 256,), (256,),
                              (*patch_args, upd, np.int32(count)))
        mirror[...] = adjs

    # -- evaluation -------------------------------------------------------------------------
    def _run(self, K, w0, w1, maxlevs) -> np.ndarray:
        """Launch for K graphs already on the device; returns (K, chunks, 4) on the host."""
        cp = self.cp
        n, m = self.n, self.m
        d = self._adj.shape[2]
        send = min(w1 * 64, m)
        words = w1 - w0
        if self._maxlev_host[:K].tolist() != list(maxlevs):
            self._maxlev_host[:K] = maxlevs
            self._maxlev[:K] = cp.asarray(self._maxlev_host[:K])
        if self.mode == "block":
            # narrower chunks when there are few graphs, so that the blocks fill the GPU
            cw = min(self.cw, max(1, _pow2_floor(max(1, words * K // self.sms))))
            nch = -(-words // cw)
            self._k_block((K * nch,), (self._threads,),
                          (self._adj, np.int32(m), np.int32(d), np.int32(n),
                           np.int32(cw.bit_length() - 1), np.int32(nch), np.int32(w0),
                           np.int32(send), self._sym, self._maxlev, self._res),
                          shared_mem=16 * n * cw)
            return self._res[:K * nch].get().reshape(K, nch, 4)
        nch = -(-words // self.cw)
        lg = np.int32(self.cw.bit_length() - 1)
        for k in range(K):
            for c in range(nch):
                s0 = (w0 + c * self.cw) * 64
                s1 = min(s0 + self.cw * 64, send)
                tr = (self._abase[k], self._ashift[k]) if self._tr else (self._abase,
                                                                          self._ashift)
                self._k_grid((self._grid_blocks,), (self._threads,),
                             (self._adj[k], np.int32(m), np.int32(d), np.int32(n), lg,
                              np.int32(s0), np.int32(s1), self._sym, np.int64(maxlevs[k]),
                              self._A, self._B, self._F, self._counters, self._andm,
                              self._res[k * nch + c], np.int32(self.g), self._tr, *tr))
        return self._res[:K * nch].get().reshape(K, nch, 4)

    @staticmethod
    def _merge(parts: np.ndarray) -> np.ndarray:
        """(K, chunks, 4) -> (K, 4), as :func:`golf.evaluators.base.combine` does."""
        ecc = parts[:, :, 0].max(axis=1)
        status = parts[:, :, 3].max(axis=1)
        dist = parts[:, :, 1].sum(axis=1)
        n_at = np.where(parts[:, :, 0] == ecc[:, None], parts[:, :, 2], 0).sum(axis=1)
        out = np.stack([ecc, dist, n_at, status], axis=1)
        out[status != OK, 1:3] = 0
        return out

    def partial(self, graph, u0, u1, max_level=0):
        if u1 <= u0:
            return np.array([-1, 0, 0, OK], dtype=np.int64)
        self._sync_adj(graph.adj[None])
        return self._merge(self._run(1, u0, u1, [max_level]))[0]

    def evaluate_many(self, adjs, max_levels=None) -> np.ndarray:
        """Score K graphs of this shape in one launch: ``adjs`` (K, m, d) base rows; returns
        (K, 4) rows ``[ecc, dist_sum, n_at_ecc, status]`` over all work units (combine with
        :meth:`finish` for scores). ``K`` may not exceed ``batch``."""
        adjs = np.ascontiguousarray(adjs, dtype=np.int32)
        if adjs.ndim != 3 or adjs.shape[1] != self.m:
            raise GolfError(f"evaluate_many needs (K, {self.m}, d) base rows, got {adjs.shape}")
        K = adjs.shape[0]
        if K > self.batch:
            raise GolfError(f"{K} graphs for a batch of {self.batch}; build the evaluator "
                            f"with batch={K}")
        levels = [0] * K if max_levels is None else [int(x) for x in max_levels]
        self._sync_adj(adjs)
        parts = self._merge(self._run(K, *self.unit_range, levels))
        if self.comm is not None:
            from golf.parallel import allreduce_parts

            parts = np.stack([allreduce_parts(self.comm, p) for p in parts])
        return parts

    def describe(self) -> str:
        w0, w1 = self.unit_range
        how = (f"shared-memory blocks of {self._threads} threads (chunks narrowed to fill "
               f"{self.sms} SMs)" if self.mode == "block" else
               f"cooperative grid of {self._grid_blocks} x {self._threads} threads, changed-row "
               f"bitmap" + (", group-fastest rows" if self._tr else ""))
        return (f"gpu-bitset on GPU {self.device} ({self.gpu_name}): {w1 - w0} column words in "
                f"{self.nchunks} chunks of {self.cw} words, {how}")
