// What the gpu-bitset kernels (bitset_block.cu, bitset_grid.cu) share. Not #included: the
// loader (golf.evaluators.cuda.load_module) puts this text before theirs, so that CuPy's
// on-disk cache, keyed on the source string, sees a change here too.

typedef unsigned long long u64;
typedef long long i64;
typedef unsigned int u32;
#define ST_OK 0
#define ST_DISCONNECTED 1
#define ST_EXCEEDED 2
#define FULL 0xffffffffu

// word w of row v before the first level: v's own source bit, and the padding columns
// (beyond the ns real sources of the chunk), which count as reached from the start
__host__ __device__ __forceinline__ u64 init_word(u32 v, u32 w, u32 s0, u32 ns) {
    u32 lo = w * 64u;
    u64 word;
    if (lo + 64u <= ns) word = 0ULL;
    else if (ns > lo) word = ~0ULL << (ns - lo);
    else word = ~0ULL;
    if (v >= s0 && v - s0 < ns && ((v - s0) >> 6) == w) word |= 1ULL << ((v - s0) & 63u);
    return word;
}

// word w of row v at the next level: its word in A OR its neighbours' (the base row `row`, d
// slots with -1 for none, rotated by off); a matrix holds row u's C words from u * C
__host__ __device__ __forceinline__ u64 next_word(const u64* A, const int* row, int d, u32 off,
                                                  u32 n, u32 C, u32 v, u32 w) {
    u64 acc = A[v * C + w];
    for (int j = 0; j < d; j++) {
        int x = row[j];
        if (x >= 0) {
            u32 u = (u32)x + off;
            if (u >= n) u -= n;
            acc |= A[u * C + w];
        }
    }
    return acc;
}

// The product k h of two elements of the metacyclic group Z_a :r Z_b (golf.group; an element
// x b + t is the pair (x, t), and (x1, t1)(x2, t2) = (x1 + r^t1 x2 mod a, t1 + t2 mod b));
// pw[t] = r^t mod a (golf.kernels.symmetry.group_mul)
__host__ __device__ __forceinline__ int group_mul(int k, int h, int a, int b, const i64* pw) {
    int x1 = k / b, t1 = k - x1 * b, x2 = h / b, t = t1 + h - x2 * b;
    if (t >= b) t -= b;
    return (int)((x1 + pw[t1] * x2) % a) * b + t;
}

// vertex w = h m + i moved by the element k: (k h) m + i
__host__ __device__ __forceinline__ int group_act(int w, int k, int m, int a, int b,
                                                  const i64* pw) {
    int h = w / m;
    return group_mul(k, h, a, b, pw) * m + w - h * m;
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
