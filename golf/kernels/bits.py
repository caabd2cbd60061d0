"""Bit kernels: popcount and the vectorised row OR of the bit-matrix level, and page-aligned
arrays for the bit matrices.

``popcount`` and ``or_row`` are written as Numba intrinsics that emit LLVM IR directly (LLVM's
``ctpop`` and vectors of 64-bit words), so that a row of 8 words is one AVX-512 register, not a
loop the compiler may or may not vectorise.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, overload

__all__ = ["aligned_zeros", "popcount", "or_row"]


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
