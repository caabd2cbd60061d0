// The driver of scripts/bench_dense_level.py: several levels a launch, one grid barrier
// between them, either by the plainest loop (PLAIN) or by gpu-bitset's own dense level pass.
// Compiled after golf/evaluators/cuda/common.cuh and bitset_grid.cu (level_pass, Vec).

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
