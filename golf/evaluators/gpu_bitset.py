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

_SOURCE = r"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
typedef unsigned long long u64;
typedef long long i64;
#define ST_OK 0
#define ST_DISCONNECTED 1
#define ST_EXCEEDED 2
#define FULL 0xffffffffu

// word w of row v before the first level: v's own source bit, and the padding columns
// (beyond the ns real sources of the chunk), which count as reached from the start
__device__ __forceinline__ u64 init_word(i64 v, int w, i64 s0, i64 ns) {
    i64 lo = (i64)w * 64;
    u64 word;
    if (lo + 64 <= ns) word = 0ULL;
    else if (ns > lo) word = ~0ULL << (ns - lo);
    else word = ~0ULL;
    i64 c = v - s0;
    if (c >= 0 && c < ns && (c >> 6) == w) word |= 1ULL << (c & 63);
    return word;
}

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

// patch the base rows: count (row, slot, value) triples
extern "C" __global__ void patch_adj(int* adj, int d, const int* upd, int count) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < count) adj[(i64)upd[3 * t] * d + upd[3 * t + 1]] = upd[3 * t + 2];
}

extern "C" __global__ void patch_adj4(int* adj, int d, int count,
        int r0, int j0, int v0, int r1, int j1, int v1,
        int r2, int j2, int v2, int r3, int j3, int v3) {
    int t = threadIdx.x;
    if (t >= count) return;
    int r = t == 0 ? r0 : t == 1 ? r1 : t == 2 ? r2 : r3;
    int j = t == 0 ? j0 : t == 1 ? j1 : t == 2 ? j2 : j3;
    int v = t == 0 ? v0 : t == 1 ? v1 : t == 2 ? v2 : v3;
    adj[(i64)r * d + j] = v;
}

// One block per (graph, chunk): graph = blockIdx.x / nchunk. Both matrices in shared memory.
// Chunk c covers words [w0 + c*C, ...) of the sources, i.e. base sources s0.. s1 (< send).
extern "C" __global__ void bitset_block(const int* __restrict__ adj_all, int m, int d, i64 n,
        int C, int nchunk, i64 w0, i64 send, const i64* __restrict__ maxlev_all,
        i64* __restrict__ res) {
    extern __shared__ u64 smem[];
    __shared__ u64 red[33];
    __shared__ u64 andm[64];
    int graph = blockIdx.x / nchunk, chunk = blockIdx.x - graph * nchunk;
    const int* adj = adj_all + (i64)graph * m * d;
    i64 maxlev = maxlev_all[graph];
    i64 s0 = (w0 + (i64)chunk * C) * 64;
    i64 s1 = min(s0 + (i64)C * 64, send);
    i64 ns = s1 - s0;
    i64* out = res + (i64)blockIdx.x * 4;
    if (ns <= 0) {
        if (threadIdx.x == 0) { out[0] = -1; out[1] = 0; out[2] = 0; out[3] = ST_OK; }
        return;
    }
    u64* A = smem;
    u64* B = smem + n * C;
    i64 items = n * C;
    for (i64 idx = threadIdx.x; idx < items; idx += blockDim.x) {
        i64 v = idx / C;
        A[idx] = init_word(v, (int)(idx - v * C), s0, ns);
    }
    if (threadIdx.x < 64) andm[threadIdx.x] = ~0ULL;
    __syncthreads();
    i64 total = items * 64, reached = ns + n * ((i64)C * 64 - ns);
    i64 dist = total - reached, level = 0;
    int status = ST_OK;
    while (reached < total) {
        if (maxlev > 0 && level == maxlev) { status = ST_EXCEEDED; break; }
        level++;
        u64 local = 0;
        for (i64 idx = threadIdx.x; idx < items; idx += blockDim.x) {
            i64 v = idx / C, w = idx - v * C;
            i64 k = v / m, i = v - k * m, off = k * m;
            const int* row = adj + i * d;
            u64 acc = A[idx];
            for (int j = 0; j < d; j++) {
                int x = row[j];
                if (x >= 0) {
                    i64 u = x + off;
                    if (u >= n) u -= n;
                    acc |= A[u * C + w];
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
            for (i64 idx = threadIdx.x; idx < items; idx += blockDim.x) acc &= B[idx];
            if (acc != ~0ULL) atomicAnd(&andm[threadIdx.x % C], acc);
            __syncthreads();
            if (threadIdx.x == 0)
                for (int w = 0; w < C; w++) n_at += __popcll(~andm[w]);
        }
    }
    if (threadIdx.x == 0) {
        out[0] = level;
        out[1] = status == ST_OK ? dist : 0;
        out[2] = status == ST_OK ? n_at : 0;
        out[3] = status;
    }
}

// One chunk of one graph on a cooperative grid; A, B in global memory (n*C words each),
// F three bitmaps of n bits (rows changed at levels L-1, L, and one being cleared),
// counters[3] per-level popcounts, andm[C] scratch, out[4] the result.
// Buffers written during the kernel are read with __ldcg (L2): L1 is not coherent across SMs.
extern "C" __global__ void bitset_grid(const int* __restrict__ adj, int m, int d, i64 n, int C,
        i64 s0, i64 s1, i64 maxlev, u64* A, u64* B, unsigned* F, u64* counters, u64* andm,
        i64* out) {
    cg::grid_group grid = cg::this_grid();
    const i64 tid = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    const i64 stride = (i64)gridDim.x * blockDim.x;
    const int lane = threadIdx.x & 31;
    const i64 ns = s1 - s0, items = n * C, nfw = (n + 31) >> 5;
    for (i64 idx = tid; idx < items; idx += stride) {
        i64 v = idx / C;
        A[idx] = init_word(v, (int)(idx - v * C), s0, ns);
    }
    for (i64 f = tid; f < nfw; f += stride) {  // level 0: the source rows "changed"
        unsigned bits = 0;
        for (int b = 0; b < 32; b++) {
            i64 v = f * 32 + b;
            if (v >= s0 && v < s1) bits |= 1u << b;
        }
        F[f] = bits;
        F[nfw + f] = 0;
        F[2 * nfw + f] = 0;
    }
    if (tid < 3) counters[tid] = 0;
    if (tid < C) andm[tid] = ~0ULL;
    grid.sync();
    i64 total = items * 64, reached = ns + n * ((i64)C * 64 - ns);
    i64 dist = total - reached, level = 0;
    int status = ST_OK;
    const i64 warp_base = tid - lane;
    while (reached < total) {
        if (maxlev > 0 && level == maxlev) { status = ST_EXCEEDED; break; }
        level++;
        const unsigned* Fprev = F + ((level - 1) % 3) * nfw;
        unsigned* Fcur = F + (level % 3) * nfw;
        unsigned* Fclear = F + ((level + 1) % 3) * nfw;   // rows of level-2, read at level-1
        for (i64 f = tid; f < nfw; f += stride) Fclear[f] = 0;
        u64 local = 0;
        for (i64 base = warp_base; base < items; base += stride) {
            i64 idx = base + lane;
            bool valid = idx < items;
            bool changed = false;
            i64 v = 0;
            if (valid) {
                v = idx / C;
                i64 w = idx - v * C;
                i64 k = v / m, i = v - k * m, off = k * m;
                const int* row = adj + i * d;
                u64 a0 = __ldcg(A + idx), acc = a0;
                for (int j = 0; j < d; j++) {
                    int x = row[j];
                    if (x >= 0) {
                        i64 u = x + off;
                        if (u >= n) u -= n;
                        if ((__ldcg(Fprev + (u >> 5)) >> (u & 31)) & 1u)
                            acc |= __ldcg(A + u * C + w);
                    }
                }
                B[idx] = acc;
                local += __popcll(acc);
                changed = acc != a0;
            }
            // mark the changed rows, one store or atomic per warp (C is a power of two)
            unsigned bal = __ballot_sync(FULL, changed);
            if (lane == 0 && bal) {
                i64 v0 = base / C;
                if (C == 1) {
                    Fcur[v0 >> 5] = bal;  // the warp owns this whole word
                } else if (C < 32) {
                    unsigned rows = 0, grp = (1u << C) - 1u;
                    for (int r = 0; r < 32 / C; r++)
                        if ((bal >> (r * C)) & grp) rows |= 1u << r;
                    atomicOr(Fcur + (v0 >> 5), rows << (v0 & 31));
                } else {
                    atomicOr(Fcur + (v0 >> 5), 1u << (v0 & 31));
                }
            }
        }
        for (int o = 16; o > 0; o >>= 1) local += __shfl_down_sync(FULL, local, o);
        if (lane == 0 && local) atomicAdd(counters + level % 3, local);
        grid.sync();
        i64 cnt = (i64)__ldcg(counters + level % 3);
        if (cnt == reached) { status = ST_DISCONNECTED; break; }
        reached = cnt;
        dist += total - reached;
        u64* t = A; A = B; B = t;
        // counters[(level+2)%3] was last read at level-1 (before this level's sync) and is
        // next added to at level+2 (after the next sync): safe to clear now
        if (tid == 0) counters[(level + 2) % 3] = 0;
    }
    i64 n_at = 0;
    if (status == ST_OK && level > 0) {   // columns not yet full one level before the last
        u64 acc = ~0ULL;
        for (i64 idx = tid; idx < items; idx += stride) acc &= __ldcg(B + idx);
        if (acc != ~0ULL) atomicAnd(andm + (tid % C), acc);
        grid.sync();
        if (tid == 0) for (int w = 0; w < C; w++) n_at += __popcll(~__ldcg(andm + w));
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


def _module(cp):
    dev = cp.cuda.Device().id
    if dev not in _MODULES:
        _MODULES[dev] = cp.RawModule(code=_SOURCE, options=("-std=c++17",),
                                     enable_cooperative_groups=True)
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
        # shared-memory blocks while 2 matrices of one word per row fit; else a cooperative grid
        if 16 * n <= self.SMEM_BYTES:
            self.mode = "block"
            cw = min(64, _pow2_floor(self.SMEM_BYTES // (16 * n)))
        else:
            self.mode = "grid"
            cw = min(256, _pow2_floor(max(1, self.l2 // 2 // (16 * n))))
        if chunk_words:
            cw = min(cw, _pow2_floor(int(chunk_words)))
        cw = min(cw, 1 << (words - 1).bit_length())  # no wider than the words (rounded up)
        self.cw = max(1, cw)
        self.nchunks = -(-words // self.cw)
        self.batch = max(1, int(batch))
        mod = _module(cp)
        self._k_block = mod.get_function("bitset_block")
        self._k_grid = mod.get_function("bitset_grid")
        self._k_patch = mod.get_function("patch_adj")
        self._k_patch4 = mod.get_function("patch_adj4")
        if self.mode == "block":
            smem = 16 * n * self.cw
            self._k_block.max_dynamic_shared_size_bytes = smem
            self._smem = smem
            self._threads = 1024 if n * self.cw >= 1024 else max(32, (n * self.cw + 31) // 32 * 32)
        else:
            self._threads = 256
            self._grid_blocks = self._cooperative_blocks()
            per = n * self.cw
            self._A = cp.zeros(per, dtype=cp.uint64)
            self._B = cp.zeros(per, dtype=cp.uint64)
            self._F = cp.zeros(3 * ((n + 31) // 32), dtype=cp.uint32)
            self._counters = cp.zeros(3, dtype=cp.uint64)
            self._andm = cp.zeros(self.cw, dtype=cp.uint64)
        self._adj = cp.full((self.batch, self.m, max(d, 1)), -1, dtype=cp.int32)
        self._mirror = np.full((self.batch, self.m, max(d, 1)), -2, dtype=np.int32)
        self._maxlev = cp.zeros(self.batch, dtype=cp.int64)
        self._res = cp.zeros((self.batch * self.nchunks, 4), dtype=cp.int64)
        self._maxlev_host = np.zeros(self.batch, dtype=np.int64)

    def _cooperative_blocks(self) -> int:
        """Blocks of the cooperative grid: as many as stay resident (at most 4 per SM)."""
        cp = self.cp
        try:
            per_sm = cp.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(
                self._k_grid.kernel.ptr, self._threads, 0)
        except Exception:  # older CuPy: a safe guess for this small kernel
            per_sm = 2
        return int(self.sms * max(1, min(4, per_sm)))

    # -- the graph on the device ------------------------------------------------------------
    def _sync_adj(self, adjs) -> None:
        """Make the device rows equal ``adjs`` (K, m, d): patch the changed slots (a swap
        changes at most 4 per graph) or upload everything when many changed."""
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
        if len(diff) > 64 * K:
            self._adj[:K] = cp.asarray(adjs)
        else:
            k, rest = np.divmod(diff, self.m * dd)
            rows = k * self.m + rest // dd
            slots = rest % dd
            vals = adjs.reshape(-1)[diff]
            if len(diff) <= 4:
                args = [self._adj, np.int32(dd), np.int32(len(diff))]
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
                              (self._adj, np.int32(dd), upd, np.int32(count)))
        mirror[...] = adjs

    # -- evaluation -------------------------------------------------------------------------
    def _run(self, K, w0, w1, maxlevs) -> np.ndarray:
        """Launch for K graphs already on the device; returns (K, nchunks, 4) on the host."""
        cp = self.cp
        n, m = self.n, self.m
        d = self._adj.shape[2]
        send = min(w1 * 64, m)
        nch = -(-(w1 - w0) // self.cw)
        if self._maxlev_host[:K].tolist() != list(maxlevs):
            self._maxlev_host[:K] = maxlevs
            self._maxlev[:K] = cp.asarray(self._maxlev_host[:K])
        if self.mode == "block":
            self._k_block((K * nch,), (self._threads,),
                          (self._adj, np.int32(m), np.int32(d), np.int64(n), np.int32(self.cw),
                           np.int32(nch), np.int64(w0), np.int64(send), self._maxlev,
                           self._res), shared_mem=self._smem)
            return self._res[:K * nch].get().reshape(K, nch, 4)
        for k in range(K):
            for c in range(nch):
                s0 = (w0 + c * self.cw) * 64
                s1 = min(s0 + self.cw * 64, send)
                self._k_grid((self._grid_blocks,), (self._threads,),
                             (self._adj[k], np.int32(m), np.int32(d), np.int64(n),
                              np.int32(self.cw), np.int64(s0), np.int64(s1),
                              np.int64(maxlevs[k]), self._A, self._B, self._F,
                              self._counters, self._andm, self._res[k * nch + c]))
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
        how = (f"shared-memory blocks, {self._threads} threads" if self.mode == "block" else
               f"cooperative grid of {self._grid_blocks} x {self._threads} threads, changed-row "
               f"bitmap")
        return (f"gpu-bitset on GPU {self.device} ({self.gpu_name}): {w1 - w0} column words in "
                f"{self.nchunks} chunks of {self.cw} words, {how}")
