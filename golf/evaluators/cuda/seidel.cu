// seidel's element-wise steps between the cuBLAS products.

// B = (A or Z > 0) off the diagonal and inside n; flags[0] |= an edge was added,
// flags[1] |= B is not complete. One row per blockIdx.y.
extern "C" __global__ void square_step(const signed char* A, const int* Z, signed char* B,
                                       int n, int N, int* flags) {
    int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
    long long idx = (long long)i * N + j;
    int added = 0, missing = 0;
    if (j < N) {
        signed char b = 0;
        if (i < n && j < n && i != j) {
            signed char a = A[idx];
            b = (a != 0 || Z[idx] > 0) ? 1 : 0;
            added = b && !a;
            missing = !b;
        }
        B[idx] = b;
    }
    added = __syncthreads_or(added);
    missing = __syncthreads_or(missing);
    if (threadIdx.x == 0) {
        if (added) atomicOr(flags, 1);
        if (missing) atomicOr(flags + 1, 1);
    }
}

// the parity rule, in place: D = 2T - [X < T deg(j)] off the diagonal (0 elsewhere)
extern "C" __global__ void parity_step(int* T, const int* Xi, const float* Xf, int use_float,
                                       const int* deg, int n, int N) {
    int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
    if (j >= N) return;
    long long idx = (long long)i * N + j;
    int out = 0;
    if (i < n && j < n && i != j) {
        long long t = T[idx];
        long long x = use_float ? (long long)Xf[idx] : (long long)Xi[idx];
        out = (int)(2 * t - (x < t * deg[j] ? 1 : 0));
    }
    T[idx] = out;
}
