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
* ``bitset_grid``: one cooperative grid per column chunk, the matrices in global memory,
  ``grid.sync()`` between levels. The first levels come straight from the adjacency (walks
  from every source, atomic ORs: the "scatter start"); then level passes, consecutive threads
  on consecutive words of a row (coalesced). Bitmaps of the pieces of rows that changed at
  the last level let sparse levels skip every piece that cannot change and read only the
  neighbours that changed (where the rows come from DRAM); on the late dense levels a piece
  stops reading neighbours once it is full, and the last one also finds the columns that
  were not full before it.

Exact: it returns the same ``[ecc, dist_sum, n_at_ecc, status]`` as the CPU backends, and the
tests compare it with them on many graphs.
"""

from __future__ import annotations

import math
import os

import numpy as np

from golf.errors import GolfError
from golf.evaluators.base import (CHUNK_WORDS, GPU_MAX_LEVELS, OK, Capabilities, Estimate,
                                  Evaluator, expected_diameter, gpu_unavailable)
from golf.kernels.changes import changed_slots
from golf.kernels.merge import merge_many
from golf.options import INF, Spec

__all__ = ["GpuBitsetEvaluator", "cupy_or_error", "select_device"]

# Measured on an H200 (results/gpu/bench_gpu.md): the bit matrix handles ~8.4e11 word x edge
# x level per second on mid-sized graphs ((65536,6,1): 3.6e9 in 4.3 ms) and ~1.2e12 on the
# largest ((1000000,32,1): 2.5e12 in 2.09 s); the lower rate is used. An evaluation costs
# ~0.06-0.12 ms of launches and the result read whatever its size.
GPU_WORD_EDGES_PER_S = 8e11
GPU_FIXED_SECONDS = 1e-4

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

// The (at most 4) slots a swap changed, passed to the first launch of an evaluation as
// arguments (flat index into adj, value): thread t < pc writes slot t before any row is read
// (one launch a step instead of two). adj is therefore not read-only in these kernels.
#define PATCH_ARGS int pc, i64 p0, i64 p1, i64 p2, i64 p3, int v0, int v1, int v2, int v3
#define PATCH_PASS pc, p0, p1, p2, p3, v0, v1, v2, v3
__device__ __forceinline__ void apply_patch(int* adj, int* abase, int* ashift, int m, int g,
                                            int tr, u32 t, PATCH_ARGS) {
    if ((int)t < pc)
        set_slot(adj, abase, ashift, t == 0 ? p0 : t == 1 ? p1 : t == 2 ? p2 : p3,
                 t == 0 ? v0 : t == 1 ? v1 : t == 2 ? v2 : v3, m, g, tr);
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

// patch the base rows: count slots (flat index into adj, value)
extern "C" __global__ void patch_adj(int* adj, int* abase, int* ashift, int m, int g, int tr,
                                     const i64* at, const int* val, int count) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < count) set_slot(adj, abase, ashift, at[t], val[t], m, g, tr);
}

// One block per (graph, chunk): graph = blockIdx.x / nchunk; chunk c covers the source words
// [w0 + c*C, ...) (C = 1 << lgC), i.e. base sources from s0 below send. Matrices in shared memory.
// Every block writes the patch (the same values) and fences before it reads any row.
extern "C" __global__ void bitset_block(int* adj_all, int m, int d, int n, int lgC, int nchunk,
        int w0, int send, int sym, const i64* __restrict__ maxlev_all, i64* __restrict__ res,
        PATCH_ARGS) {
    extern __shared__ u64 smem[];
    __shared__ u64 red[33];
    __shared__ u64 andm[64];
    apply_patch(adj_all, nullptr, nullptr, m, 1, 0, threadIdx.x, PATCH_PASS);
    __threadfence();
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

// P words of a row per thread (P >= 2: P/2 16-byte loads per neighbour row)
template <int P> struct Vec;
template <> struct Vec<1> {
    u64 x;
    __device__ static Vec load(const u64* p) { Vec r; r.x = __ldcg(p); return r; }
    __device__ void store(u64* p) const { *p = x; }
    __device__ void orr(const Vec& o) { x |= o.x; }
    __device__ int popc() const { return __popcll(x); }
    __device__ bool ne(const Vec& o) const { return x != o.x; }
    __device__ bool full() const { return x == ~0ULL; }
    __device__ u64 word(int h) const { return x; }
    __device__ static Vec zero() { Vec r; r.x = 0ULL; return r; }
};
template <int P> struct Vec {  // P = 2, 4, 8: P/2 16-byte loads
    ulonglong2 x[P / 2];
    __device__ static Vec load(const u64* p) {
        Vec r;
#pragma unroll
        for (int h = 0; h < P / 2; h++)
            r.x[h] = __ldcg(reinterpret_cast<const ulonglong2*>(p) + h);
        return r;
    }
    __device__ void store(u64* p) const {
#pragma unroll
        for (int h = 0; h < P / 2; h++) reinterpret_cast<ulonglong2*>(p)[h] = x[h];
    }
    __device__ void orr(const Vec& o) {
#pragma unroll
        for (int h = 0; h < P / 2; h++) { x[h].x |= o.x[h].x; x[h].y |= o.x[h].y; }
    }
    __device__ int popc() const {
        int c = 0;
#pragma unroll
        for (int h = 0; h < P / 2; h++) c += __popcll(x[h].x) + __popcll(x[h].y);
        return c;
    }
    __device__ bool ne(const Vec& o) const {
        bool r = false;
#pragma unroll
        for (int h = 0; h < P / 2; h++) r |= x[h].x != o.x[h].x || x[h].y != o.x[h].y;
        return r;
    }
    __device__ bool full() const {
        u64 a = ~0ULL;
#pragma unroll
        for (int h = 0; h < P / 2; h++) a &= x[h].x & x[h].y;
        return a == ~0ULL;
    }
    __device__ u64 word(int h) const { return h & 1 ? x[h / 2].y : x[h / 2].x; }
    __device__ static Vec zero() {
        Vec r;
#pragma unroll
        for (int h = 0; h < P / 2; h++) { r.x[h].x = 0ULL; r.x[h].y = 0ULL; }
        return r;
    }
};

// Neighbour j of the row a thread works on, as a row index of the matrices (-1: empty slot).
// LAY, the layout of the rows: 0 one row a vertex (g = 1); 1 the same with rotated base rows
// (g > 1): vertex x + off of base row i (v = off + i); 2 group-fastest rows (g >= 32):
// row r = i*g + k holds vertex k*m + i, and a warp takes consecutive k of one base vertex i,
// so its lanes share i's adjacency and read rows i'*g + (k + delta) mod g of a neighbour:
// consecutive addresses (coalesced) instead of 32 scattered rows; abase[i*d+j] = i'*g and
// ashift[i*d+j] = delta come precomputed. (The layout is a template argument: a runtime
// branch on it cost a dense level of (65536,6,1) ~10%, the rotation arithmetic for g = 1 ~5%.)
template <int LAY>
struct Nbrs {
    const int* a; const int* s; u32 k, g, off, n;
    __device__ Nbrs(u32 r, const int* adj, const int* abase, const int* ashift, int m, int d,
                    int nn, int gg) : g((u32)gg), n((u32)nn) {
        if (LAY == 2) {
            u32 i = r / g; k = r - i * g; off = 0;
            a = abase + (i64)i * d; s = ashift + (i64)i * d;
        } else {
            u32 i; base_of(r, (u32)m, LAY, i, off); k = 0;
            a = adj + (i64)i * d; s = a;
        }
    }
    __device__ __forceinline__ int operator()(int j) const {
        int x = a[j];
        if (x < 0) return -1;
        u32 u = (u32)x;
        if (LAY == 2) { u32 kk = k + (u32)s[j]; if (kk >= g) kk -= g; u += kk; }
        if (LAY == 1) { u += off; if (u >= n) u -= n; }
        return (int)u;
    }
};

__device__ __forceinline__ bool bit(const u32* F, u64 q) {
    return (__ldcg(F + (q >> 5)) >> (q & 31u)) & 1u;
}

__device__ __forceinline__ int lg_of(int P) { return P == 8 ? 3 : P == 4 ? 2 : P == 2 ? 1 : 0; }

// One level over all pieces of P words: B = A | OR of the neighbours' A. A thread takes one
// piece of a row: item q = row*L + piece, L = C/P, consecutive threads on consecutive pieces
// (coalesced). Adds the newly reached bits to local.
//
// Sparse levels (DENSE false): F bitmaps over the items mark the pieces that changed at the
// last level (Fprev) and at this one (Fcur; a warp owns one word of it, its 32 items, and
// writes it with one store, so nothing is cleared). A piece whose own bits and whose
// neighbours' pieces did not change at the last level has the same value now as two levels
// ago, already in B: it is skipped (no read, no write); a piece that is read ORs in only the
// neighbours that changed (the others bring no new bit). Invariant: after a level the buffer
// written holds every row's value at that level.
// Dense levels: every piece reads its neighbours, G rows in flight at a time; no bitmaps.
// From level 2 on a row's own piece is not read (own false): in an undirected graph every
// source within L - 1 of v other than v is within L - 2 of the neighbour before v on a
// shortest path, and v itself is within 1 of every neighbour, so the neighbours' pieces
// already hold it (a row without neighbours reads its own piece). Dense levels add the
// popcount of what they write (a count, not an increment). On the late levels (full_first:
// few pairs left, see the caller) the own piece comes first and a piece stops as soon as it
// is full (a full one reads no neighbour at all). Earlier, only where a row has more than 4
// groups of neighbours to skip: with few, the pieces that stop only split their warps (on an
// H200, level 8 of (65536,6,1): 1.00 ms with the stop, 0.79 ms without; (10^6,32,1): 2.21 s
// with it at every level, 2.32 s without). STOP (a template argument: the checks alone cost
// ~5% of a level) is whether a piece may stop: full_first or d > 4 G.
//
// all (sparse levels): write every piece, whatever changed -- the first level after a scatter
// start, whose other buffer holds nothing yet (see scatter_phase). With full_first, the
// pieces not full before the level are ANDed into the block's andb[C] (shared): if the level
// turns out to be the last, the columns not yet full one level before it, without a pass
// of their own.
template <int P, int G, bool DENSE, int LAY, bool STOP>
__device__ __forceinline__ void level_pass(const int* adj, int m, int d, int n, int lgC,
        const u64* A, u64* B, const u32* Fprev, u32* Fcur, int g, const int* abase,
        const int* ashift, u32 warp_base, u32 lane, u32 stride, bool full_first, bool own,
        bool all, u64* andb, u64& local, u64& changed_n) {
    const int lgL = lgC - lg_of(P);
    const u32 L = 1u << lgL, items = (u32)n << lgL;
    for (u32 base = warp_base; base < items; base += stride) {
        u32 q = base + lane;
        bool changed = false;
        if (q < items) {
            u32 v = q >> lgL, piece = q & (L - 1);
            u64 at = ((u64)v << lgC) + piece * P;
            Nbrs<LAY> nb(v, adj, abase, ashift, m, d, n, g);
            Vec<P> a0, acc;
            bool have = DENSE;
            if (DENSE) {  // (a0 and) the first G rows in flight together, then G at a time
                acc = Vec<P>::zero();
                if (own) {  // (near the end, most pieces are full already)
                    a0 = Vec<P>::load(A + at);
                    acc = a0;
                    if (full_first && !a0.full())
#pragma unroll
                        for (int h = 0; h < P; h++)
                            if (~a0.word(h)) atomicAnd(andb + piece * P + h, a0.word(h));
                }
                // G neighbours' pieces; an empty slot (and one past d) reads the row's own
                // piece instead: no branch, and it is in the result anyway
                auto group = [&](int j0, bool tail) {
                    Vec<P> t[G];
#pragma unroll
                    for (int jj = 0; jj < G; jj++) {
                        int u = !tail || j0 + jj < d ? nb(j0 + jj) : -1;
                        t[jj] = Vec<P>::load(A + (u >= 0 ? ((u64)u << lgC) + piece * P : at));
                    }
#pragma unroll
                    for (int jj = 0; jj < G; jj++) acc.orr(t[jj]);
                };
                if (!(STOP && full_first && acc.full())) {
                    int j0 = 0;
                    for (; j0 + G <= d; j0 += G) {
                        group(j0, false);
                        if (STOP && acc.full()) break;
                    }
                    if (j0 < d && !(STOP && acc.full())) group(j0, true);  // (d >= 1 slots)
                }
            } else {  // G bitmap checks, then the loads of the changed rows, in flight
                bool own = all || bit(Fprev, q);
                acc = Vec<P>::zero();
                for (int j0 = 0; j0 < d; j0 += G) {
                    int u[G];
                    bool c[G];
#pragma unroll
                    for (int jj = 0; jj < G; jj++) u[jj] = j0 + jj < d ? nb(j0 + jj) : -1;
#pragma unroll
                    for (int jj = 0; jj < G; jj++)
                        c[jj] = u[jj] >= 0 && bit(Fprev, ((u64)u[jj] << lgL) + piece);
#pragma unroll
                    for (int jj = 0; jj < G; jj++) {
                        if (c[jj]) {
                            acc.orr(Vec<P>::load(A + ((u64)u[jj] << lgC) + piece * P));
                            have = true;
                        }
                    }
                }
                if (have || own) {
                    a0 = Vec<P>::load(A + at);
                    acc.orr(a0);
                    have = true;
                }
            }
            if (have) {
                acc.store(B + at);
                local += DENSE ? acc.popc() : acc.popc() - a0.popc();
                changed = !DENSE && acc.ne(a0);
            }
        }
        if (!DENSE) {
            u32 bal = __ballot_sync(FULL, changed);
            if (lane == 0) Fcur[base >> 5] = bal;
            changed_n += __popc(bal);
        }
    }
}

// Scatter start: levels 1..K straight from the adjacency. The bits of column c (source s0 + c)
// reached at level p are the ends of the walks of length p from that source (backtracking
// walks included, so the union over p' <= p is the ball of radius p). Phase p gives every
// walk of length p - 1 to one thread (or d threads), which follows it and then sets the bit
// of each neighbour of its end with an atomic OR (independent of each other: in flight),
// counting the bits that were new; a grid barrier separates the phases. At the last phase a
// new bit also marks its piece in Fk (the sparse pieces changed at level K). Costs ns * d^p
// atomics, against a dense level's n * C * (d + 2) words: the host picks K where that is
// small, and below the Moore bound (no column can be full by level K, so a connected run
// never ends inside these levels: the end pass, which needs the matrix one level before the
// last, always has it).
__device__ __forceinline__ u32 row_of(u32 v, u32 m, int g, int tr) {
    if (!tr) return v;
    u32 k = v / m;
    return (v - k * m) * (u32)g + k;
}

// and back: the vertex of matrix row r
__device__ __forceinline__ u32 vertex_of(u32 r, u32 m, int g, int tr) {
    if (!tr) return r;
    u32 i = r / (u32)g;
    return (r - i * (u32)g) * m + i;
}

template <int PS>
__device__ u64 scatter_phase(const int* adj, int m, int d, int n, int lgC, int sym, int g,
        int tr, u32 s0, u32 ns, int p, u64* A, u32* Fk, u32 tid, u32 stride) {
    u32 dp = 1;
    for (int q = 1; q < p; q++) dp *= (u32)d;
    // walks of length p - 1 (the host keeps ns * d^K below 2^31); where they are few against
    // the grid's threads, E = d threads share one, a last step each (more atomics in flight)
    const u32 walks = ns * dp, E = (u64)walks * 4 <= stride ? (u32)d : 1u;
    const int lgLs = lgC - lg_of(PS);
    u64 cnt = 0;
    for (u32 t = tid; t < walks * E; t += stride) {
        u32 tw = t / E, j0 = t - tw * E;
        u32 c = tw / dp, w = tw - c * dp, pw = dp, v = s0 + c, i, off;
        bool ok = true;
        for (int q = 1; q < p && ok; q++) {  // most significant digit = first step
            pw /= (u32)d;
            u32 digit = w / pw;
            w -= digit * pw;
            base_of(v, (u32)m, sym, i, off);
            int x = adj[(i64)i * d + digit];
            ok = x >= 0;
            v = (u32)x + off;
            if (v >= (u32)n) v -= (u32)n;
        }
        if (!ok) continue;
        base_of(v, (u32)m, sym, i, off);
        const int* row = adj + (i64)i * d;
        const u64 b = 1ULL << (c & 63u), fpiece = (c >> 6) >> lg_of(PS);
        u64* col = A + (c >> 6);
#pragma unroll 4
        for (int j = (int)j0; j < d; j += (int)E) {
            int x = row[j];
            if (x < 0) continue;
            u32 u = (u32)x + off;
            if (u >= (u32)n) u -= (u32)n;
            u32 r = row_of(u, (u32)m, g, tr);
            if (atomicOr(col + ((u64)r << lgC), b) & b) continue;
            cnt++;
            if (Fk) {
                u64 q = ((u64)r << lgLs) + fpiece;
                atomicOr(Fk + (q >> 5), 1u << (q & 31u));
            }
        }
    }
    return cnt;
}

// A, B: n*C words each; F: two bitmaps over the sparse pieces (PS words); counters[15]:
// per-level sums of reached bits (dense levels: all, sparse ones: the new) [0..2] and of
// changed pieces [3..5] (three of each,
// rotating, so that clearing never races with a level still reading), the new bits of the
// scattered levels [6..13] and the pieces changed at the last of them [14]; andm[C] scratch;
// out[4] the result. Sparse levels take pieces of PS words (fewer items to check), dense ones
// of PD words (more loads in flight, finer early stop); once dense_at pieces change at a
// level, the rest is dense. Buffers written during the kernel are read with __ldcg (L2): L1
// is not coherent across SMs.
template <int PS, int PD, int G>
__device__ void grid_levels(int* adj, int m, int d, int n, int lgC, int s0, int s1, int sym,
        i64 maxlev, u64* A, u64* B, u32* F, u64* counters, u64* andm, i64* out, int g, int tr,
        int* abase, int* ashift, i64 dense_at, int sdepth, double late_frac, PATCH_ARGS) {
    cg::grid_group grid = cg::this_grid();
    const u32 C = 1u << lgC;
    const u32 tid = blockIdx.x * blockDim.x + threadIdx.x;
    const u32 stride = gridDim.x * blockDim.x;
    const u32 lane = threadIdx.x & 31u;
    const u32 warp_base = tid - lane;
    const int lgLs = lgC - lg_of(PS);
    apply_patch(adj, abase, ashift, m, g, tr, tid, PATCH_PASS);  // read after the first sync
    const u32 ns = (u32)(s1 - s0), items = (u32)n << lgLs, nfw = (items + 31u) >> 5;
    const u64 words = (u64)n << lgC;
    const int K = maxlev > 0 && maxlev < sdepth ? (int)maxlev : sdepth;  // scatter levels
    // both buffers hold the start (consecutive threads on consecutive words; after a scatter
    // start only A: its first level writes every piece of B) ...
    for (u64 x = tid; x < words; x += stride) {
        u64 word = init_word(vertex_of((u32)(x >> lgC), (u32)m, g, tr), (u32)x & (C - 1),
                             (u32)s0, ns);
        A[x] = word;
        if (!K) B[x] = word;
    }
    u32* Fk = F + (K & 1) * nfw;  // the bitmap the level after the scatter reads
    if (K && dense_at > 0)
        for (u32 x = tid; x < nfw; x += stride) Fk[x] = 0;
    // ... and level 0 "changed" the sparse pieces holding a source's own bit
    for (u32 base = warp_base; base < items && !K; base += stride) {
        u32 q = base + lane, v = vertex_of(q >> lgLs, (u32)m, g, tr);
        bool src = q < items && v >= (u32)s0 && v < (u32)s1 &&
                   ((v - (u32)s0) >> 6) / PS == (q & ((1u << lgLs) - 1));
        u32 bal = __ballot_sync(FULL, src);
        if (lane == 0) F[base >> 5] = bal;
    }
    if (tid < 15) counters[tid] = 0;
    if (tid < C) andm[tid] = ~0ULL;
    __shared__ u64 blk[2], sums[2];
    if (threadIdx.x == 0) { blk[0] = 0; blk[1] = 0; }
    grid.sync();
    i64 total = ((i64)n << lgC) * 64, reached = ns + (i64)n * ((i64)C * 64 - ns);
    i64 dist = total - reached, level = 0;
    int status = ST_OK;
    bool dense = dense_at <= 0;
    // levels 1..K by scatter (new bits in counters[5 + p]), then the pieces marked changed
    // at level K counted into counters[14] (for the dense/sparse choice of the next level)
    for (int p = 1; p <= K + (dense ? 0 : 1); p++) {
        u64 c = 0;
        if (p <= K)
            c = scatter_phase<PS>(adj, m, d, n, lgC, sym, g, tr, (u32)s0, ns, p, A,
                                  p == K && !dense ? Fk : nullptr, tid, stride);
        else
            for (u32 x = tid; x < nfw; x += stride) c += __popc(__ldcg(Fk + x));
        for (int o = 16; o > 0; o >>= 1) c += __shfl_down_sync(FULL, c, o);
        if (lane == 0 && c) atomicAdd(&blk[0], c);
        __syncthreads();
        if (threadIdx.x == 0) {
            if (blk[0]) atomicAdd(counters + (p <= K ? 5 + p : 14), blk[0]);
            blk[0] = 0;
        }
        grid.sync();
    }
    for (int p = 1; p <= K; p++) {  // the level loop's bookkeeping for them
        level++;
        i64 cnt = reached + (i64)__ldcg(counters + 5 + p);
        if (cnt == reached) { status = ST_DISCONNECTED; break; }
        reached = cnt;
        dist += total - reached;
    }
    if (K && status == ST_OK && !dense) dense = (i64)__ldcg(counters + 14) >= dense_at;
    bool all = K > 0;  // the first level after a scatter writes every piece
    bool fused = false;  // the end pass's AND taken by the last level (dense, full_first)
    __shared__ u64 andb[256];
    for (u32 w = threadIdx.x; w < C; w += blockDim.x) andb[w] = ~0ULL;
    __syncthreads();
    while (status == ST_OK && reached < total) {
        if (maxlev > 0 && level == maxlev) { status = ST_EXCEEDED; break; }
        level++;
        u64 local = 0, changed_n = 0;
        // late: so few pairs left that a piece is often full before the level (its own
        // piece read first then saves the neighbours' reads) -- and likely the last level
        const bool late = dense && (double)(total - reached) <= late_frac * (double)total;
        const u32* Fp = F + ((level - 1) & 1) * nfw;
        u32* Fc = F + (level & 1) * nfw;
        const bool own = late || level == 1;
#define DENSE_PASS(LAY, STOP) level_pass<PD, G, true, LAY, STOP>(adj, m, d, n, lgC, A, B, F, \
        F, g, abase, ashift, warp_base, lane, stride, late, own, all, andb, local, changed_n)
#define SPARSE_PASS(LAY) level_pass<PS, G, false, LAY, false>(adj, m, d, n, lgC, A, B, Fp, Fc, \
        g, abase, ashift, warp_base, lane, stride, false, true, all, nullptr, local, changed_n)
        const int lay = tr ? 2 : sym ? 1 : 0;
        if (dense && (late || d > 4 * G)) {
            if (lay == 0) DENSE_PASS(0, true); else if (lay == 1) DENSE_PASS(1, true);
            else DENSE_PASS(2, true);
        } else if (dense) {
            if (lay == 0) DENSE_PASS(0, false); else if (lay == 1) DENSE_PASS(1, false);
            else DENSE_PASS(2, false);
        } else {
            if (lay == 0) SPARSE_PASS(0); else if (lay == 1) SPARSE_PASS(1); else SPARSE_PASS(2);
        }
#undef DENSE_PASS
#undef SPARSE_PASS
        all = false;
        // per warp, per block in shared memory, one global atomic per block; after the
        // barrier one thread a block reads the sums for all of them
        for (int o = 16; o > 0; o >>= 1) local += __shfl_down_sync(FULL, local, o);
        if (lane == 0 && local) atomicAdd(&blk[0], local);
        if (lane == 0 && changed_n) atomicAdd(&blk[1], changed_n);
        __syncthreads();
        if (threadIdx.x == 0) {
            if (blk[0]) atomicAdd(counters + level % 3, blk[0]);
            if (blk[1]) atomicAdd(counters + 3 + level % 3, blk[1]);
        }
        grid.sync();
        if (threadIdx.x == 0) {
            blk[0] = 0;
            blk[1] = 0;
            sums[0] = __ldcg(counters + level % 3);
            sums[1] = __ldcg(counters + 3 + level % 3);
        }
        __syncthreads();
        i64 cnt = dense ? (i64)sums[0] : reached + (i64)sums[0];
        if (!dense) dense = (i64)sums[1] >= dense_at;
        if (cnt == reached) { status = ST_DISCONNECTED; break; }
        reached = cnt;
        dist += total - reached;
        if (late) {  // the block's AND: to the grid's if this was the last level, else reset
            fused = reached == total;
            for (u32 w = threadIdx.x; w < C; w += blockDim.x) {
                if (fused && ~andb[w]) atomicAnd(andm + w, andb[w]);
                andb[w] = ~0ULL;
            }
            __syncthreads();
        }
        u64* t = A; A = B; B = t;
        // counters of level+2 were last read at level-1 (before this level's sync) and are
        // next added to at level+2 (after the next sync): safe to clear now
        if (tid == 0) { counters[(level + 2) % 3] = 0; counters[3 + (level + 2) % 3] = 0; }
    }
    i64 n_at = 0;
    if (status == ST_OK && level > 0) {   // columns not yet full one level before the last
        u64 acc = ~0ULL;                  // (the stride is a multiple of C: one column a thread)
        for (u64 x = tid; x < words && !fused; x += 4 * (u64)stride) {  // 4 loads in flight
            u64 a[4];
#pragma unroll
            for (int k = 0; k < 4; k++)
                a[k] = x + k * (u64)stride < words ? __ldcg(B + x + k * (u64)stride) : ~0ULL;
            acc &= a[0] & a[1] & a[2] & a[3];
        }
        if (acc != ~0ULL) atomicAnd(andm + (tid & (C - 1)), acc);
        grid.sync();
        if (tid < 32) {  // one warp counts the columns
            for (u32 w = tid; w < C; w += 32) n_at += __popcll(~__ldcg(andm + w));
            for (int o = 16; o > 0; o >>= 1) n_at += __shfl_down_sync(FULL, n_at, o);
        }
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

#define GRID_ARGS int* adj, int m, int d, int n, int lgC, int s0, int s1, int sym, \
    i64 maxlev, u64* A, u64* B, u32* F, u64* counters, u64* andm, i64* out, int g, int tr, \
    int* abase, int* ashift, i64 dense_at, int sdepth, double late_frac, PATCH_ARGS
#define GRID_PASS adj, m, d, n, lgC, s0, s1, sym, maxlev, A, B, F, counters, andm, out, g, tr, \
    abase, ashift, dense_at, sdepth, late_frac, PATCH_PASS
#ifndef GRID_MINB
#define GRID_MINB 1
#endif
#define GRID_KERNEL(PS, PD, G) extern "C" __global__ void __launch_bounds__(256, GRID_MINB) \
    bitset_grid##PS##_##PD##_##G(GRID_ARGS) { grid_levels<PS, PD, G>(GRID_PASS); }
GRID_KERNEL(1, 1, 2)
GRID_KERNEL(1, 1, 4)
GRID_KERNEL(2, 2, 2)
GRID_KERNEL(2, 2, 4)
GRID_KERNEL(4, 2, 2)
GRID_KERNEL(4, 2, 4)
GRID_KERNEL(8, 2, 2)
GRID_KERNEL(8, 2, 4)
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


def _modules(cp, min_blocks=1):
    """(normal module, cooperative module) for the current device. Separate modules: CuPy
    launches every kernel of a cooperative module cooperatively, which caps its grid at the
    resident blocks -- wrong for the one-block-per-graph kernel. ``min_blocks``: resident
    blocks of 256 threads per SM the grid kernels' registers are capped for."""
    key = (cp.cuda.Device().id, int(min_blocks))
    if key not in _MODULES:
        _MODULES[key] = (cp.RawModule(code=_BLOCK_SOURCE, options=("-std=c++17",)),
                         cp.RawModule(code=_GRID_SOURCE,
                                      options=("-std=c++17", f"-DGRID_MINB={int(min_blocks)}"),
                                      enable_cooperative_groups=True))
    return _MODULES[key]


def _pow2_floor(x: int) -> int:
    return 1 << (max(1, int(x)).bit_length() - 1)


class GpuBitsetEvaluator(Evaluator):
    """Bit-matrix ADJ-APSP on the GPU.

    Options
    -------
    device : int, optional — the GPU (default: GPU 0, or one per MPI rank on a node)
    chunk_words : int, optional — column chunk (rounded down to a power of two)
    batch : int — graphs per :meth:`evaluate_many` launch that buffers are sized for
    kernel : ``"auto"`` (shared-memory blocks where the matrices fit, else the grid),
        ``"block"`` or ``"grid"`` — to force one (tests, measurements)
    dense_frac : float — the grid kernel stops checking which neighbours changed once this
        fraction of the pieces changed at a level (0: never check; above 1: always check;
        default 0.5, or 0 after a scatter start on matrices that stay in L2)
    group : int — neighbour rows loaded together (2 or 4; default by d)
    piece : int — words of a row one thread of the grid kernel takes on sparse levels
        (1, 2, 4, 8; dense levels take 2; default 8, or 2 where no level is sparse)
    min_blocks : int — resident 256-thread blocks per SM the grid kernel is compiled for
        (caps its registers; 1 = no cap; default 4)
    scatter : int — levels the grid kernel takes straight from the adjacency (walks from each
        source, atomic ORs) before its level passes; capped below the Moore bound
        (default: as many as cost at most ``SCATTER_COST`` of a dense level)
    late : float — the grid kernel's dense levels read a row's own piece first (and stop
        once it is full) when at most this fraction of the pairs is left; else only the
        neighbours' pieces (default ln(d) / 128: where a 128-bit piece is full with
        probability about 1/d, so that the own read saves as many reads as it costs)
    """

    name = "gpu-bitset"
    summary = ("the bit matrix on an NVIDIA GPU (CuPy): shared-memory blocks for small graphs "
               "and batches, a cooperative grid over wide chunks for large ones")
    options = {
        "device": Spec("int?", None, (0, INF), "a GPU index >= 0, or null"),
        "chunk_words": CHUNK_WORDS,
        "kernel": Spec("choice", "auto", ("auto", "block", "grid"), "auto, block or grid"),
        "dense_frac": Spec("float?", None, (0, INF), "a number >= 0, or null"),
        "group": Spec("choice?", None, (2, 4), "2 or 4, or null"),
        "piece": Spec("choice?", None, (1, 2, 4, 8), "1, 2, 4 or 8, or null"),
        "min_blocks": Spec("int?", None, (1, 32), "an integer from 1 to 32, or null"),
        "scatter": Spec("int?", None, (0, INF), "an integer >= 0, or null"),
        "late": Spec("float?", None, (0, 1), "a number from 0 to 1, or null"),
    }
    supports = Capabilities(batched=True, mpi_split=True, gpu=True)
    SMEM_BYTES = 200 * 1024  # of the ~227 KB a Hopper block may use
    DENSE_FRAC = 0.5
    PIECE = 8
    MIN_BLOCKS = 4
    SCATTER_COST = 0.5

    def __init__(self, n, d, g=1, *, device=None, chunk_words=None, batch=1, comm=None,
                 kernel="auto", dense_frac=None, group=None, min_blocks=None, piece=None,
                 scatter=None, late=None):
        super().__init__(n, d, g, comm=comm, batch=batch)
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
        # (65536,6,1) 18.9 ms with 8, 9.3 ms with 32, 8.9 ms with 64 (earlier kernels). Where
        # 32 words keep both matrices in L2 and 64 do not, 32: (65536,6,1) 4.68 vs 4.82 ms.
        if kernel not in ("auto", "block", "grid"):
            raise GolfError(f"gpu-bitset kernel must be auto, block or grid, not {kernel!r}")
        if kernel == "block" and 16 * n > self.SMEM_BYTES:
            raise GolfError(f"n = {n} is too big for the shared-memory kernel")
        if kernel == "block" or (kernel == "auto" and 16 * n <= self.SMEM_BYTES):
            self.mode = "block"
            cw = min(64, _pow2_floor(self.SMEM_BYTES // (16 * n)))
        else:
            self.mode = "grid"
            cw = 64 if 16 * n * 64 <= (512 << 20) else 32
            if 16 * n * 64 > self.l2 >= 16 * n * 32:
                cw = 32
        if chunk_words:  # an explicit width wins (shared memory still caps the block kernel)
            cw = _pow2_floor(int(chunk_words))
            if self.mode == "block":
                cw = min(cw, 64, _pow2_floor(self.SMEM_BYTES // (16 * n)))
            cw = min(cw, 256)
        cw = min(cw, 1 << (words - 1).bit_length())  # no wider than the words (rounded up)
        self.cw = max(1, cw)
        self.nchunks = -(-words // self.cw)
        self.batch = max(1, int(batch))
        normal, coop = _modules(cp, min_blocks or self.MIN_BLOCKS)
        self._k_block = normal.get_function("bitset_block")
        self._k_patch = normal.get_function("patch_adj")
        self.group = int(group) if group else (2 if d <= 8 else 4)
        if self.group not in (2, 4):
            raise GolfError(f"gpu-bitset group must be 2 or 4, not {group}")
        # levels 1..sdepth by scatter; after it, a matrix that stays in L2 is passed densely
        # (checking which pieces changed only pays where the rows come from DRAM), and then
        # the sparse pieces' width only matters for the registers: 2 words (no spills)
        self.sdepth = self._scatter_depth(scatter) if self.mode == "grid" else 0
        self.late = (math.log(max(d, 2)) / 128 if late is None else float(late))
        if not 0 <= self.late <= 1:
            raise GolfError(f"gpu-bitset late must be between 0 and 1, not {late}")
        all_dense = self.sdepth > 0 and 8 * n * self.cw <= self.l2
        self.dense_frac = ((0.0 if all_dense else self.DENSE_FRAC) if dense_frac is None
                           else float(dense_frac))
        default_piece = 2 if self.dense_frac <= 0 else self.PIECE
        self.piece = min(self.cw, int(piece) if piece else default_piece)
        if self.piece not in (1, 2, 4, 8):
            raise GolfError(f"gpu-bitset piece must be 1, 2, 4 or 8 words, not {piece}")
        self._k_grid = coop.get_function(
            f"bitset_grid{self.piece}_{min(2, self.piece)}_{self.group}")
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
            items = n * (self.cw // self.piece)
            self._F = cp.zeros(2 * ((items + 31) // 32), dtype=cp.uint32)
            dense_at = min(items + 1, math.ceil(self.dense_frac * items))
            self._level_args = (np.int64(dense_at), np.int32(self.sdepth), np.float64(self.late))
            self._counters = cp.zeros(15, dtype=cp.uint64)
            self._andm = cp.zeros(self.cw, dtype=cp.uint64)
        self._adj = cp.full((self.batch, self.m, max(d, 1)), -1, dtype=cp.int32)
        if self._tr:
            self._abase = cp.full(self._adj.shape, -1, dtype=cp.int32)
            self._ashift = cp.zeros(self._adj.shape, dtype=cp.int32)
        else:  # unused: one-element stand-ins (the kernels skip them)
            self._abase = self._ashift = cp.zeros(1, dtype=cp.int32)
        self._mirror = np.full((self.batch, self.m, max(d, 1)), -2, dtype=np.int32)
        self._changed = np.zeros(64 * self.batch, dtype=np.int64)  # changed slots found
        self._no_patch = (np.int32(0),) + (np.int64(0),) * 4 + (np.int32(0),) * 4
        self._maxlev = cp.zeros(self.batch, dtype=cp.int64)
        self._res = cp.zeros((self.batch * self.words, 4), dtype=cp.int64)
        self._maxlev_host = np.zeros(self.batch, dtype=np.int64)

    @classmethod
    def unavailable(cls):
        return gpu_unavailable()

    @classmethod
    def estimate(cls, n, d, g, *, threads, ranks):
        D = expected_diameter(n, d)
        if gpu_unavailable() or D > GPU_MAX_LEVELS:
            return None
        work = n * d * D * ((n // g + 63) // 64)
        return Estimate(GPU_FIXED_SECONDS + work / GPU_WORD_EDGES_PER_S / max(1, ranks),
                        f"{work:.3g} word x edge x level products at the rate measured on an "
                        f"H200 (results/gpu/bench_gpu.md)")

    def _scatter_depth(self, want) -> int:
        """Levels of the scatter start. At most the Moore bound allows: with degree <= d a
        ball of radius K holds at most 1 + d (1 + (d-1) + ... + (d-1)^(K-1)) vertices; below
        n, no column is full by level K (the kernel relies on it). ns d^K stays below 2^31.
        By default, the deepest K whose ns d^K atomics cost at most SCATTER_COST of a dense
        level (n C words, d + 2 times), an atomic counted as 4 words where a matrix stays in
        L2 and as 32 where it does not (random read-modify-writes of DRAM sectors). Measured
        on an H200 (results/gpu/bench_gpu.md): (65536,6,1) K = 3 best (2 and 4 slower),
        (10^6,32,1) K = 2 (3: 3.19 s instead of 2.21), (10^6,32,25000) K = 3."""
        d, n = self.d, self.n
        top, ball = 0, 1
        while d >= 2 and top < 8:
            ball += d * (d - 1) ** top
            if ball >= n or self.cw * 64 * d ** (top + 1) >= 1 << 31:
                break
            top += 1
        if want is not None:
            if int(want) < 0:
                raise GolfError(f"gpu-bitset scatter must be >= 0, not {want}")
            return min(int(want), top)
        ns = min(self.cw * 64, self.m)
        unit = 4 if 8 * n * self.cw <= self.l2 else 32
        k = 0
        while k < top and unit * ns * d ** (k + 1) <= self.SCATTER_COST * n * self.cw * (d + 2):
            k += 1
        return k

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
    def _sync_adj(self, adjs) -> tuple:
        """Make the device rows equal ``adjs`` (K, m, d). A swap changes at most 4 slots a
        graph: up to 4 in all are returned as the patch arguments of the next launch (which
        writes them before it reads a row); more are patched by a kernel of their own, and
        many by uploading everything. The host copy of the device rows finds the changes."""
        cp = self.cp
        K = adjs.shape[0]
        dd = self._adj.shape[2]
        if adjs.shape[2] < dd:  # narrower rows (d = 0 graphs): pad with empty slots
            pad = np.full((K, adjs.shape[1], dd), -1, dtype=np.int32)
            pad[:, :, :adjs.shape[2]] = adjs
            adjs = pad
        mirror = self._mirror[:K]
        count = changed_slots(adjs, mirror, self._changed)
        if count == 0:
            return self._no_patch
        if count > len(self._changed):  # many (a new graph): upload all of them
            mirror[...] = adjs
            self._adj[:K] = cp.asarray(adjs)
            if self._tr:
                a = self._adj[:K]
                self._abase[:K] = cp.where(a >= 0, (a % self.m) * self.g, -1)
                self._ashift[:K] = cp.where(a >= 0, a // self.m, 0)
            return self._no_patch
        at = self._changed[:count]
        vals = adjs.reshape(-1)[at]
        mirror.reshape(-1)[at] = vals
        if count <= 4:
            return (np.int32(count), *(np.int64(at[t] if t < count else 0) for t in range(4)),
                    *(np.int32(vals[t] if t < count else 0) for t in range(4)))
        self._k_patch(((count + 255) // 256,), (256,),
                      (self._adj, self._abase, self._ashift, np.int32(self.m),
                       np.int32(self.g), self._tr, cp.asarray(at),
                       cp.asarray(vals.astype(np.int32)), np.int32(count)))
        return self._no_patch

    # -- evaluation -------------------------------------------------------------------------
    def _run(self, K, w0, w1, maxlevs, patch) -> np.ndarray:
        """Launch for K graphs on the device (``patch``: the slots the first launch writes,
        from :meth:`_sync_adj`); returns (K, chunks, 4) on the host."""
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
                           np.int32(send), self._sym, self._maxlev, self._res, *patch),
                          shared_mem=16 * n * cw)
            return self._res[:K * nch].get().reshape(K, nch, 4)
        nch = -(-words // self.cw)
        lg = np.int32(self.cw.bit_length() - 1)
        for k in range(K):
            graph = (self._adj[k], np.int32(m), np.int32(d), np.int32(n), lg)
            rest = (self._sym, np.int64(maxlevs[k]), self._A, self._B, self._F, self._counters,
                    self._andm)
            tail = ((np.int32(self.g), self._tr, self._abase[k], self._ashift[k])
                    if self._tr else (np.int32(self.g), self._tr, self._abase, self._ashift))
            for c in range(nch):
                s0 = (w0 + c * self.cw) * 64
                s1 = min(s0 + self.cw * 64, send)
                self._k_grid((self._grid_blocks,), (self._threads,),
                             (*graph, np.int32(s0), np.int32(s1), *rest,
                              self._res[k * nch + c], *tail, *self._level_args, *patch))
                patch = self._no_patch  # written by the first launch
        return self._res[:K * nch].get().reshape(K, nch, 4)

    @staticmethod
    def _merge(parts: np.ndarray) -> np.ndarray:
        """(K, chunks, 4) -> (K, 4), as :func:`golf.evaluators.base.combine` does."""
        out = np.empty((parts.shape[0], 4), dtype=np.int64)
        merge_many(parts, out)
        return out

    def partial(self, graph, u0, u1, max_level=0):
        if u1 <= u0:
            return np.array([-1, 0, 0, OK], dtype=np.int64)
        patch = self._sync_adj(graph.adj[None])
        return self._merge(self._run(1, u0, u1, [max_level], patch))[0]

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
        patch = self._sync_adj(adjs)
        parts = self._merge(self._run(K, *self.unit_range, levels, patch))
        if self.comm is not None:
            from golf.parallel import allreduce_parts

            parts = np.stack([allreduce_parts(self.comm, p) for p in parts])
        return parts

    def describe(self) -> str:
        w0, w1 = self.unit_range
        how = (f"shared-memory blocks of {self._threads} threads (chunks narrowed to fill "
               f"{self.sms} SMs)" if self.mode == "block" else
               f"cooperative grid of {self._grid_blocks} x {self._threads} threads, "
               + ("dense levels" if self.dense_frac <= 0 else
                  f"changed-piece bitmaps, {self.piece}-word sparse pieces, dense from "
                  f"{self.dense_frac:g}")
               + f", groups of {self.group}"
               + (f", levels 1-{self.sdepth} scattered" if self.sdepth else "")
               + (", group-fastest rows" if self._tr else ""))
        return (f"gpu-bitset on GPU {self.device} ({self.gpu_name}): {w1 - w0} column words in "
                f"{self.nchunks} chunks of {self.cw} words, {how}")
