// gpu-bitset's cooperative kernel: one grid per column chunk of one graph, both bit matrices
// in global memory, grid.sync() between levels. Compiled after common.cuh, in a module of its
// own (CuPy launches every kernel of a cooperative module cooperatively).

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
// is full (a full one reads no neighbour at all). On the levels before those, only where a row
// has more than 4 groups of neighbours to skip: with few, the pieces that stop only split
// their warps (on an H200, level 8 of (65536,6,1): 1.00 ms with the stop, 0.79 ms without;
// (10^6,32,1): 2.21 s with it at every level, 2.32 s without). STOP (a template argument:
// the checks alone cost ~5% of a level) is whether a piece may stop: full_first or d > 4 G.
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
// changed pieces [3..5] (three of each, rotating, so that clearing never races with a level
// still reading), the new bits of the scattered levels [6..13] and the pieces changed at the
// last of them [14]; andm[C] scratch; out[4] the result. Sparse levels take pieces of PS
// words (fewer items to check), dense ones of PD words (more loads in flight, finer early
// stop); once dense_at pieces change at a level, the rest is dense. Buffers written during
// the kernel are read with __ldcg (L2): L1 is not coherent across SMs.
#define GRID_ARGS int* adj, int m, int d, int n, int lgC, int s0, int s1, int sym, \
    i64 maxlev, u64* A, u64* B, u32* F, u64* counters, u64* andm, i64* out, int g, int tr, \
    int* abase, int* ashift, i64 dense_at, int sdepth, double late_frac, PATCH_ARGS
// Before level 1: both buffers hold the start (consecutive threads on consecutive words;
// after a scatter start only A: its first level writes every piece of B), level 0 "changed"
// the sparse pieces holding a source's own bit (or, before a scatter, Fk is cleared for the
// scatter to mark), and the counters and the column AND are reset.
template <int PS>
__device__ __forceinline__ void grid_start(int m, int n, int lgC, int s0, int s1, int g, int tr,
        int K, i64 dense_at, u64* A, u64* B, u32* F, u32* Fk, u64* counters, u64* andm,
        u32 tid, u32 stride, u32 lane, u32 warp_base) {
    const u32 C = 1u << lgC, ns = (u32)(s1 - s0);
    const int lgLs = lgC - lg_of(PS);
    const u32 items = (u32)n << lgLs, nfw = (items + 31u) >> 5;
    const u64 words = (u64)n << lgC;
    for (u64 x = tid; x < words; x += stride) {
        u64 word = init_word(vertex_of((u32)(x >> lgC), (u32)m, g, tr), (u32)x & (C - 1),
                             (u32)s0, ns);
        A[x] = word;
        if (!K) B[x] = word;
    }
    if (K && dense_at > 0)
        for (u32 x = tid; x < nfw; x += stride) Fk[x] = 0;
    for (u32 base = warp_base; base < items && !K; base += stride) {
        u32 q = base + lane, v = vertex_of(q >> lgLs, (u32)m, g, tr);
        bool src = q < items && v >= (u32)s0 && v < (u32)s1 &&
                   ((v - (u32)s0) >> 6) / PS == (q & ((1u << lgLs) - 1));
        u32 bal = __ballot_sync(FULL, src);
        if (lane == 0) F[base >> 5] = bal;
    }
    if (tid < 15) counters[tid] = 0;
    if (tid < C) andm[tid] = ~0ULL;
}

// One level pass, the variant chosen at run time from compile-time ones: dense (pieces of PD
// words, all rows) or sparse (pieces of PS words, only the pieces that can change), the row
// layout, and whether a dense piece may stop once full (late levels, or d > 4 G).
template <int PS, int PD, int G>
__device__ __forceinline__ void run_level(bool dense, bool late, bool own, bool all, int lay,
        const int* adj, int m, int d, int n, int lgC, const u64* A, u64* B, u32* F,
        const u32* Fp, u32* Fc, int g, const int* abase, const int* ashift, u32 warp_base,
        u32 lane, u32 stride, u64* andb, u64& local, u64& changed_n) {
#define DENSE_PASS(LAY, STOP) level_pass<PD, G, true, LAY, STOP>(adj, m, d, n, lgC, A, B, F, \
        F, g, abase, ashift, warp_base, lane, stride, late, own, all, andb, local, changed_n)
#define SPARSE_PASS(LAY) level_pass<PS, G, false, LAY, false>(adj, m, d, n, lgC, A, B, Fp, Fc, \
        g, abase, ashift, warp_base, lane, stride, false, true, all, nullptr, local, changed_n)
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
}

// The sources whose eccentricity is the last level: the columns not yet full one level
// before it (in B), ANDed over the rows by every thread (the stride is a multiple of C: one
// column a thread; 4 loads in flight) into andm, unless the last level took the AND itself
// (fused); one warp then counts them (the result is valid in thread 0).
__device__ __forceinline__ i64 end_columns(cg::grid_group& grid, const u64* B, u64* andm,
        u64 words, u32 C, u32 tid, u32 stride, bool fused) {
    u64 acc = ~0ULL;
    for (u64 x = tid; x < words && !fused; x += 4 * (u64)stride) {
        u64 a[4];
#pragma unroll
        for (int k = 0; k < 4; k++)
            a[k] = x + k * (u64)stride < words ? __ldcg(B + x + k * (u64)stride) : ~0ULL;
        acc &= a[0] & a[1] & a[2] & a[3];
    }
    if (acc != ~0ULL) atomicAnd(andm + (tid & (C - 1)), acc);
    grid.sync();
    i64 n_at = 0;
    if (tid < 32) {
        for (u32 w = tid; w < C; w += 32) n_at += __popcll(~__ldcg(andm + w));
        for (int o = 16; o > 0; o >>= 1) n_at += __shfl_down_sync(FULL, n_at, o);
    }
    return n_at;
}

// The level loop of one chunk (the kernel's body): start, scatter levels, level passes until
// every bit is set (or none changed, or the cap), end pass. The loop's state (level, reached
// pairs, distance sum, dense or sparse, the rotating counters) lives in registers across the
// grid barriers, which is why the loop stays in one function; its passes are the helpers above.
template <int PS, int PD, int G>
__device__ void grid_levels(GRID_ARGS) {
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
    u32* Fk = F + (K & 1) * nfw;  // the bitmap the level after the scatter reads
    grid_start<PS>(m, n, lgC, s0, s1, g, tr, K, dense_at, A, B, F, Fk, counters, andm, tid,
                   stride, lane, warp_base);
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
        run_level<PS, PD, G>(dense, late, own, all, tr ? 2 : sym ? 1 : 0, adj, m, d, n, lgC, A,
                             B, F, Fp, Fc, g, abase, ashift, warp_base, lane, stride, andb, local,
                             changed_n);
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
    if (status == ST_OK && level > 0)
        n_at = end_columns(grid, B, andm, words, C, tid, stride, fused);
    else if (status == ST_OK)
        n_at = ns;
    if (tid == 0) {
        out[0] = level;
        out[1] = status == ST_OK ? dist : 0;
        out[2] = status == ST_OK ? n_at : 0;
        out[3] = status;
    }
}

#define GRID_PASS adj, m, d, n, lgC, s0, s1, sym, maxlev, A, B, F, counters, andm, out, g, tr, \
    abase, ashift, dense_at, sdepth, late_frac, PATCH_PASS
// GRID_MINB: resident 256-thread blocks per SM the registers are capped for (the host passes
// -DGRID_MINB=...). The host instantiates bitset_grid<PS, min(2, PS), G> for PS = 1, 2, 4, 8
// and G = 2, 4 through CuPy's name_expressions and fetches the one it chose by that name.
#ifndef GRID_MINB
#define GRID_MINB 1
#endif
template <int PS, int PD, int G>
__global__ void __launch_bounds__(256, GRID_MINB) bitset_grid(GRID_ARGS) {
    grid_levels<PS, PD, G>(GRID_PASS);
}
