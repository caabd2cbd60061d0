"""Small pure Numba kernels shared across golf (the "core" module of the backends).

Everything here is a function over arrays and integers: no I/O, no errors for users, no Python
objects. Python code around them does the orchestration. All are compiled with ``cache=True`` so
that a second process loads them from disk instead of compiling again.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic, overload

__all__ = ["aligned_zeros", "popcount", "or_row", "rotated", "base_of", "bfs_one",
           "merge_parts", "merge_many", "changed_slots", "format_pairs", "rng_seed", "rng_next",
           "rng_below", "rng_random",
           "OK", "DISCONNECTED", "EXCEEDED"]

# status of a partial result: complete, graph disconnected, diameter above the level cap
OK, DISCONNECTED, EXCEEDED = 0, 1, 2


@intrinsic
def _ctpop(typingctx, x):
    if not isinstance(x, types.Integer):
        return None
    sig = types.int64(types.uint64)

    def codegen(context, builder, signature, args):
        val = context.cast(builder, args[0], signature.args[0], types.uint64)
        return builder.ctpop(val)

    return sig, codegen


def popcount(x):
    """Number of set bits of a uint64, as an int64 (so that sums with int64 stay integers in
    Numba). Compiled, it is LLVM's ``ctpop``: one POPCNT or, in vectorised loops, VPOPCNTQ."""
    return bin(int(x)).count("1")


@overload(popcount, inline="always")
def _popcount_impl(x):
    if isinstance(x, types.Integer):
        return lambda x: _ctpop(x)


_HUGE = 2 << 20


def aligned_zeros(shape, dtype, align: int = 4096) -> np.ndarray:
    """Zeroed array whose data starts on an ``align``-byte boundary (NumPy only promises 16),
    so that 64-byte rows of a bit matrix never straddle two cache lines. Arrays of 2 MiB or
    more are mapped 2 MiB-aligned and marked for transparent huge pages where the OS offers
    them: the bit matrices are read at random rows, and 4 KiB pages would miss the TLB."""
    dtype = np.dtype(dtype)
    size = max(1, int(np.prod(shape)) * dtype.itemsize)
    if size >= _HUGE:
        import mmap

        # private: a shared anonymous mapping is shmem, which transparent huge pages skip
        buf = mmap.mmap(-1, size + _HUGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        if hasattr(mmap, "MADV_HUGEPAGE"):
            try:
                buf.madvise(mmap.MADV_HUGEPAGE)
            except OSError:  # pragma: no cover - kernel without THP
                pass
        raw = np.frombuffer(buf, dtype=np.uint8)
    else:
        raw = np.zeros(size + align, dtype=np.uint8)
    start = (-raw.ctypes.data) % max(align, _HUGE if size >= _HUGE else align)
    n_items = int(np.prod(shape))
    return raw[start:start + n_items * dtype.itemsize].view(dtype).reshape(shape)


_I64 = ir.IntType(64)


def _emit_or_block(builder, width, A, row_a, row_b, w, adj_row, d, off, n, v, cw, counts,
                   rotate):
    """IR for one block of ``width`` words at column ``w`` of row ``v``:
    ``acc = A[v, w:w+width] | OR_j A[u_j, w:w+width]`` with ``u_j = (adj_row[j] + off) mod n``
    (``u_j = adj_row[j]`` when not ``rotate``; an empty slot, -1, ORs row ``v`` itself:
    harmless, and no branch); ``B[v, w:...] = acc``; ``counts[0:width] += popcount(acc)`` lane
    by lane (summed later)."""
    vty = ir.VectorType(_I64, width) if width > 1 else _I64
    pty = vty.as_pointer()

    def load(base, off_):
        return builder.load(builder.bitcast(builder.gep(base, [off_]), pty), align=8)

    def store(val, base, off_):
        builder.store(val, builder.bitcast(builder.gep(base, [off_]), pty), align=8)

    acc = cgutils.alloca_once_value(builder, load(row_a, w))
    with cgutils.for_range(builder, d) as loop:
        x = builder.sext(builder.load(builder.gep(adj_row, [loop.index])), _I64)
        u = x
        if rotate:
            u = builder.add(x, off)
            u = builder.select(builder.icmp_signed(">=", u, n), builder.sub(u, n), u)
        u = builder.select(builder.icmp_signed("<", x, ir.Constant(_I64, 0)), v, u)
        val = load(A, builder.add(builder.mul(u, cw), w))
        builder.store(builder.or_(builder.load(acc), val), acc)
    res = builder.load(acc)
    store(res, row_b, w)
    if width > 1:
        ctpop = cgutils.get_or_insert_function(builder.module, ir.FunctionType(vty, [vty]),
                                               f"llvm.ctpop.v{width}i64")
        pc = builder.call(ctpop, [res])
    else:
        pc = builder.ctpop(res)
    zero = ir.Constant(_I64, 0)
    store(builder.add(load(counts, zero), pc), counts, zero)


def _or_row_codegen(rotate):
    def codegen(context, builder, signature, args):
        arr = [context.make_array(t)(context, builder, a) if isinstance(t, types.Array)
               else context.cast(builder, a, t, types.int64)
               for t, a in zip(signature.args, args)]
        a, b, v, adj, i, off, n, cnt = arr
        cw = builder.extract_value(a.shape, 1)
        d = builder.extract_value(adj.shape, 1)
        rowoff = builder.mul(v, cw)
        row_a, row_b = builder.gep(a.data, [rowoff]), builder.gep(b.data, [rowoff])
        adj_row = builder.gep(adj.data, [builder.mul(i, d)])
        w = cgutils.alloca_once_value(builder, ir.Constant(_I64, 0))
        # blocks of 8 words (one AVX-512 register), then at most one block of 4, 2 and 1
        for width in (8, 4, 2, 1):
            cond = builder.append_basic_block(f"w{width}.cond")
            body = builder.append_basic_block(f"w{width}.body")
            done = builder.append_basic_block(f"w{width}.done")
            builder.branch(cond)
            builder.position_at_end(cond)
            wv = builder.load(w)
            fits = builder.icmp_signed("<=", builder.add(wv, ir.Constant(_I64, width)), cw)
            builder.cbranch(fits, body, done)
            builder.position_at_end(body)
            _emit_or_block(builder, width, a.data, row_a, row_b, wv, adj_row, d, off, n, v,
                           cw, cnt.data, rotate)
            builder.store(builder.add(wv, ir.Constant(_I64, width)), w)
            builder.branch(cond if width == 8 else done)
            builder.position_at_end(done)
        return context.get_dummy_value()

    return codegen


@intrinsic
def _or_row(typingctx, A, B, v, adj, i, off, n, counts):
    return types.none(A, B, v, adj, i, off, n, counts), _or_row_codegen(True)


@intrinsic
def _or_row_plain(typingctx, A, B, v, adj, i, off, n, counts):
    return types.none(A, B, v, adj, i, off, n, counts), _or_row_codegen(False)


def or_row(A, B, v, adj, i, off, n, counts):
    """One row of a bit-matrix level for a g-symmetric graph:
    ``B[v] = A[v] | OR A[u]`` over the neighbours ``u = (adj[i, j] + off) mod n`` of vertex
    ``v = off + i`` (empty slots, -1, are skipped), adding the popcounts of ``B[v]`` lane by
    lane into ``counts`` (8 uint64; the level's count is their sum).

    Compiled, the row is handled in blocks of 8, 4, 2 and 1 words as LLVM vectors that stay in
    registers while the neighbour rows are ORed in: one VPORQ per 8 words and neighbour and one
    VPOPCNTQ per block on AVX-512. ``A``/``B`` are C-contiguous uint64 2D arrays of the same
    shape, ``adj`` the int32 base rows.
    """
    acc = A[v].copy()
    for x in adj[i]:
        if x >= 0:
            acc |= A[(x + off) % n]
    B[v] = acc
    for w, x in enumerate(acc):
        counts[w % 8] += np.uint64(popcount(x))


@overload(or_row, inline="always")
def _or_row_impl(A, B, v, adj, i, off, n, counts):
    def impl(A, B, v, adj, i, off, n, counts):
        if adj.shape[0] == n:  # g = 1: neighbours are the ids themselves, no rotation
            _or_row_plain(A, B, v, adj, i, off, n, counts)
        else:
            _or_row(A, B, v, adj, i, off, n, counts)

    return impl


@njit(cache=True, inline="always")
def rotated(w, off, n):
    """Neighbour id ``(w + off) mod n`` for ``0 <= w, off < n`` without a division."""
    u = w + off
    if u >= n:
        u -= n
    return u


@njit(cache=True, inline="always")
def base_of(v, m):
    """Base row ``i`` and rotation ``off`` of vertex ``v = off + i`` (``off`` a multiple of m)."""
    k = v // m
    return v - k * m, k * m


@njit(cache=True)
def bfs_one(adj, n, src, maxlev, visited, queue):
    """Top-down BFS from ``src`` over the g-symmetric graph with base rows ``adj``.

    ``visited`` is a uint64 bitmap of at least ``ceil(n/64)`` words and ``queue`` an int32
    array of at least ``n`` entries; both are scratch space (overwritten).

    Returns ``(ecc, dist_sum, reached)``: the eccentricity of ``src`` (the last level that
    found a vertex), the sum of the distances to the vertices reached, and how many vertices
    were reached (``n`` when the graph is connected). With ``maxlev > 0`` the search stops
    after that many levels: ``reached < n`` then also means "eccentricity above maxlev".
    """
    m = adj.shape[0]
    d = adj.shape[1]
    nw = (n + 63) >> 6
    for w in range(nw):
        visited[w] = 0
    visited[src >> 6] |= np.uint64(1) << np.uint64(src & 63)
    queue[0] = src
    head = 0
    tail = 1
    level = 0
    dist_sum = 0
    while head < tail:
        if maxlev > 0 and level == maxlev:
            break
        level += 1
        end = tail
        for q in range(head, end):
            i, off = base_of(queue[q], m)
            for j in range(d):
                w = adj[i, j]
                if w < 0:
                    continue
                u = rotated(w, off, n)
                word = u >> 6
                bit = np.uint64(1) << np.uint64(u & 63)
                if visited[word] & bit == 0:
                    visited[word] |= bit
                    queue[tail] = u
                    tail += 1
        head = end
        dist_sum += (tail - end) * level
        if tail == end:  # the last level found nothing
            level -= 1
            break
    return level, dist_sum, tail


@njit(cache=True)
def merge_parts(res, out):
    """Fold partial results (rows ``[ecc, dist_sum, n_at_ecc, status]``, from chunks, threads
    or ranks) into ``out``. A row with ``ecc = -1`` (an empty range) changes nothing."""
    ecc = -1
    status = OK
    dist = 0
    for c in range(res.shape[0]):
        if res[c, 3] > status:
            status = res[c, 3]
        if res[c, 0] > ecc:
            ecc = res[c, 0]
        dist += res[c, 1]
    n_at = 0
    for c in range(res.shape[0]):
        if res[c, 0] == ecc:
            n_at += res[c, 2]
    out[0] = ecc
    out[1] = dist if status == OK else 0
    out[2] = n_at if status == OK else 0
    out[3] = status


@njit(cache=True)
def merge_many(res, out):
    """:func:`merge_parts` for K graphs at once: ``res`` (K, parts, 4) into ``out`` (K, 4)."""
    for k in range(res.shape[0]):
        merge_parts(res[k], out[k])


_SLOT_BLOCK = 4096


@njit(cache=True, inline="always")
def _differs(a, b, k):
    aa = a[k * _SLOT_BLOCK:(k + 1) * _SLOT_BLOCK]
    bb = b[k * _SLOT_BLOCK:(k + 1) * _SLOT_BLOCK]
    x = aa[0] ^ bb[0]
    for i in range(aa.size):  # no branch, indices from 0: the compiler vectorises this loop
        x |= aa[i] ^ bb[i]
    return x != 0


@njit(cache=True)
def _gather_changed(a, b, dirty, out):
    count = 0
    for k in range(dirty.size):
        if dirty[k]:
            for i in range(k * _SLOT_BLOCK, min(a.size, (k + 1) * _SLOT_BLOCK)):
                if a[i] != b[i]:
                    if count < out.size:
                        out[count] = i
                    count += 1
    return count


@njit(cache=True)
def _changed_serial(a, b, out):
    dirty = np.zeros((a.size + _SLOT_BLOCK - 1) // _SLOT_BLOCK, dtype=np.uint8)
    for k in range(dirty.size):
        dirty[k] = _differs(a, b, k)
    return _gather_changed(a, b, dirty, out)


@njit(cache=True, parallel=True)
def _changed_parallel(a, b, out):
    dirty = np.zeros((a.size + _SLOT_BLOCK - 1) // _SLOT_BLOCK, dtype=np.uint8)
    for k in prange(dirty.size):
        dirty[k] = _differs(a, b, k)
    return _gather_changed(a, b, dirty, out)


def changed_slots(new, old, out) -> int:
    """Flat indices where the arrays ``new`` and ``old`` (same shape, C order) differ, in
    increasing order, into ``out`` (as many as fit); returns how many differ. Big arrays are
    scanned by all threads (the GPU backends keep a host copy of the rows on the device and
    look for a swap's few changed slots in it every step)."""
    a, b = new.reshape(-1), old.reshape(-1)
    if a.size >= 1 << 20:
        return int(_changed_parallel(a, b, out))
    return int(_changed_serial(a, b, out))


@njit(cache=True)
def format_pairs(e):
    """ASCII bytes of ``"u v\\n"`` lines for the rows of an (E, 2) int64 array."""
    # at most 20 digits + separator per number
    out = np.empty(e.shape[0] * 42, dtype=np.uint8)
    tmp = np.empty(20, dtype=np.uint8)
    pos = 0
    for r in range(e.shape[0]):
        for c in range(2):
            x = e[r, c]
            if x < 0:
                out[pos] = 45  # '-'
                pos += 1
                x = -x
            k = 0
            while True:
                tmp[k] = 48 + x % 10
                k += 1
                x //= 10
                if x == 0:
                    break
            for t in range(k - 1, -1, -1):
                out[pos] = tmp[t]
                pos += 1
            out[pos] = 32 if c == 0 else 10
            pos += 1
    return out[:pos]


# ------------------------------------------------------------------------------------------
# xoshiro256** (Blackman & Vigna): a small, fast generator whose whole state is four uint64 in
# an array, so a run can save it in a checkpoint and resume bit-for-bit.
@njit(cache=True, inline="always")
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@njit(cache=True)
def rng_seed(seed):
    """A fresh xoshiro256** state (uint64[4]) from an integer seed, via splitmix64."""
    s = np.empty(4, dtype=np.uint64)
    z = np.uint64(seed & 0x7FFFFFFFFFFFFFFF) ^ np.uint64(0x5DEECE66D)
    for i in range(4):
        z += np.uint64(0x9E3779B97F4A7C15)
        x = z
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        s[i] = x ^ (x >> np.uint64(31))
    return s


@njit(cache=True)
def rng_next(s):
    """Next 64 random bits; advances the state ``s`` in place."""
    result = _rotl(s[1] * np.uint64(5), 7) * np.uint64(9)
    t = s[1] << np.uint64(17)
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = _rotl(s[3], 45)
    return result


@njit(cache=True)
def rng_random(s):
    """Uniform float in [0, 1) with 53 random bits."""
    return np.float64(rng_next(s) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def rng_below(s, k):
    """Uniform integer in [0, k) for 1 <= k < 2**53."""
    return np.int64(rng_random(s) * k)
