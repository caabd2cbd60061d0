// gpu-bitset's normal launches: the shared-memory kernel (one block per graph and column
// chunk) and the kernel that patches the base rows. Compiled after common.cuh. A module of
// its own, apart from the cooperative one: CuPy launches every kernel of a cooperative module
// cooperatively, which caps the grid at the resident blocks.

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
            u64 acc = next_word(A, adj + (i64)i * d, d, off, (u32)n, C, v, w);
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

// The twisted rows of a non-cyclic group Z_a :r Z_b, the semidirect product
// (golf.kernels.symmetry.twist_rows): row t*m + i of graph q is base row i moved by the
// element (0, t), (0, t)(x2, t2) = (r^t x2 mod a, t + t2 mod b), pw[t] = r^t mod a; the level
// kernels then read them as the b*m rows of a cyclic graph. One thread a slot of the K graphs'
// b*m*d; the patch (the slots a swap changed in the base rows) is written by threads t < pc
// and read in place of adj where a thread's base slot is one of them (one launch, no race).
extern "C" __global__ void twist_rows(int* adj, int* rows, int K, int m, int d, int a, int b,
                                      const i64* pw, PATCH_ARGS) {
    i64 idx = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    apply_patch(adj, nullptr, nullptr, m, 1, 0, (u32)min(idx, (i64)4), PATCH_PASS);
    i64 per = (i64)b * m * d;
    if (idx >= per * K) return;
    i64 q = idx / per, r = idx - q * per;
    int row = (int)(r / d), j = (int)(r - (i64)row * d);
    int t = row / m, i = row - t * m;
    i64 at = (q * m + i) * d + j;
    int w = at == p0 && pc > 0 ? v0 : at == p1 && pc > 1 ? v1 : at == p2 && pc > 2 ? v2
            : at == p3 && pc > 3 ? v3 : adj[at];
    rows[idx] = w < 0 ? -1 : group_act(w, t, m, a, b, pw);
}
