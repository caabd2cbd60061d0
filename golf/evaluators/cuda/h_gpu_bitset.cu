// The weighted bit matrix of a host-switch graph on the GPU (golf/evaluators/h_gpu_bitset.py; the
// method is golf/evaluators/h_scoring.py's): one block a (graph, 64-column word), both bit
// matrices of that word in shared memory.
//
// A graph is the s x r port rows of its switches (golf/hostswitch/ports.py): a link's switch
// id (>= 0), HOST_PORT (-2) for a host, -1 for a free port. The block's columns are switches
// c0 .. c0+63; a column's weight is its switch's host count, a row's likewise. The weighted
// popcount of a row over the block's columns is a sum over the bit planes of the weights:
// sum_c w_c x_c = sum_j 2^j popcount(x & plane_j), plane_j = the columns whose weight has
// bit j, so that no sorting of the columns is needed. Writes res[block] = [h-ecc, pairs,
// peripheral hosts, status] of the block's columns, as h_scoring's by-column parts: pairs =
// sum over levels L of U_L = sum_b h_b (H - R_b(L)) over the rows b with hosts (H: the
// columns' weight, R_b(L): row b's weighted popcount after L levels); a column's
// eccentricity is one more than the last level after which some row with hosts lacks it.

#define H_HOST_PORT (-2)
#define H_OK 0
#define H_DISCONNECTED 1
#define H_PLANES 16

__device__ __forceinline__ unsigned long long h_warp_sum(unsigned long long x) {
    for (int o = 16; o > 0; o >>= 1) x += __shfl_down_sync(0xffffffffu, x, o);
    return x;
}

__device__ __forceinline__ unsigned long long h_warp_and(unsigned long long x) {
    for (int o = 16; o > 0; o >>= 1) x &= __shfl_down_sync(0xffffffffu, x, o);
    return x;
}

// the OR (op 0) or the sum (op 1) of x over the g lanes of each aligned group of a warp
// (g a power of two <= 32); every lane of the warp calls it
__device__ __forceinline__ unsigned long long h_group(unsigned long long x, int g, int op) {
    for (int o = g >> 1; o > 0; o >>= 1) {
        const unsigned long long y = __shfl_xor_sync(0xffffffffu, x, o);
        x = op ? x + y : x | y;
    }
    return x;
}

// grid: K graphs x nch words (block b: graph b / nch, word w0 + b % nch); dynamic shared
// memory: 2 s words of 8 bytes and s ints. A group of g lanes reads a switch's r ports
// together (consecutive lanes, consecutive ports: coalesced), g a power of two, at most 32
// (golf/evaluators/h_gpu_bitset.py chooses it); the block's threads a multiple of 32.
extern "C" __global__ void h_bitset(const int* __restrict__ ports, int s, int r, int w0,
                                    int nch, int g, long long* __restrict__ res) {
    extern __shared__ unsigned long long smem[];
    unsigned long long* cur = smem;
    unsigned long long* nxt = smem + s;
    int* h = (int*)(smem + 2 * (size_t)s);
    __shared__ unsigned long long planes[H_PLANES];
    __shared__ unsigned long long hmask, sU, sBits, sAnd, sFull;
    __shared__ int ecc[64];
    const int k = blockIdx.x / nch;
    const int c0 = (w0 + blockIdx.x % nch) * 64;
    const int* rows = ports + (size_t)k * s * r;
    const int tid = threadIdx.x, nt = blockDim.x;
    const int lane = tid & (g - 1), groups = nt / g;
    if (tid < H_PLANES) planes[tid] = 0;
    if (tid < 64) ecc[tid] = 0;
    if (tid == 0) {
        hmask = 0;
        sFull = 0;
        sU = 0;
        sBits = 0;
        sAnd = ~0ull;
    }
    for (int base = 0; base < s; base += groups) {  // host counts, a group a switch
        const int v = base + tid / g;
        unsigned long long c = 0;
        if (v < s)
            for (int j = lane; j < r; j += g) c += rows[(size_t)v * r + j] == H_HOST_PORT;
        c = h_group(c, g, 1);
        if (v < s && lane == 0) {
            h[v] = (int)c;
            cur[v] = (v >= c0 && v < c0 + 64) ? (1ull << (v - c0)) : 0ull;
        }
    }
    __syncthreads();
    if (tid < 64 && c0 + tid < s && h[c0 + tid] > 0) {
        const int w = h[c0 + tid];
        const unsigned long long bit = 1ull << tid;
        atomicOr(&hmask, bit);
        for (int j = 0; j < H_PLANES; ++j)
            if ((w >> j) & 1) atomicOr(&planes[j], bit);
        atomicAdd(&sFull, (unsigned long long)w);
    }
    __syncthreads();
    const unsigned long long hm = hmask;
    const long long full = (long long)sFull;
    int np = 0;
    while (np < H_PLANES && (r >> np) > 0) ++np;  // a weight is at most r
    long long pairs = 0;
    unsigned long long before = 0;
    int level = 0, status = H_OK;
    for (;;) {
        unsigned long long U = 0, bits = 0, andw = ~0ull;
        for (int v = tid; v < s; v += nt) {
            const unsigned long long x = cur[v];
            bits += __popcll(x);
            const int hv = h[v];
            if (hv > 0) {
                long long got = 0;
                for (int j = 0; j < np; ++j) got += (long long)__popcll(x & planes[j]) << j;
                if (got < full) {
                    U += (unsigned long long)hv * (unsigned long long)(full - got);
                    andw &= x;
                }
            }
        }
        U = h_warp_sum(U);
        bits = h_warp_sum(bits);
        andw = h_warp_and(andw);
        if ((tid & 31) == 0) {
            atomicAdd(&sU, U);
            atomicAdd(&sBits, bits);
            atomicAnd(&sAnd, andw);
        }
        __syncthreads();
        U = sU;
        bits = sBits;
        andw = sAnd;
        __syncthreads();
        if (tid == 0) {
            sU = 0;
            sBits = 0;
            sAnd = ~0ull;
        }
        if (U == 0) break;
        if (level > 0 && bits == before) {  // no new bit while two hosts are apart
            status = H_DISCONNECTED;
            break;
        }
        before = bits;
        pairs += (long long)U;
        if (tid < 64 && ((hm & ~andw) >> tid) & 1ull) ecc[tid] = level + 1;
        for (int base = 0; base < s; base += groups) {  // the level, a group a switch
            const int v = base + tid / g;
            unsigned long long acc = 0;
            if (v < s) {
                const int* row = rows + (size_t)v * r;
                for (int j = lane; j < r; j += g) {
                    const int u = row[j];
                    if (u >= 0) acc |= cur[u];
                }
            }
            acc = h_group(acc, g, 0);
            if (v < s && lane == 0) nxt[v] = acc | cur[v];
        }
        __syncthreads();
        unsigned long long* t = cur;
        cur = nxt;
        nxt = t;
        ++level;
    }
    __syncthreads();
    if (tid == 0) {
        long long* out = res + 4 * (size_t)blockIdx.x;
        if (status != H_OK) {
            out[0] = -1; out[1] = 0; out[2] = 0; out[3] = status;
        } else if (hm == 0) {  // no column with hosts: an empty part
            out[0] = -1; out[1] = 0; out[2] = 0; out[3] = H_OK;
        } else {
            int top = 0;
            for (int t = 0; t < 64; ++t)
                if ((hm >> t) & 1ull && ecc[t] > top) top = ecc[t];
            long long at = 0;
            for (int t = 0; t < 64; ++t)
                if ((hm >> t) & 1ull && ecc[t] == top) at += h[c0 + t];
            out[0] = top + 2; out[1] = pairs; out[2] = at; out[3] = H_OK;
        }
    }
}

// the changed slots of the device rows: ports[at[2i]] = at[2i + 1], i < count
extern "C" __global__ void h_patch(int* __restrict__ ports, const long long* __restrict__ at,
                                   int count) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) ports[at[2 * i]] = (int)at[2 * i + 1];
}
