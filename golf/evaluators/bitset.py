"""``bitset``: the bit-matrix ADJ-APSP in Numba, divided into column chunks.

Bit ``(v, s)`` of the matrix says "base source ``s`` reaches vertex ``v`` within ``k`` hops".
Rows are all ``n`` vertices, columns the ``m = n/g`` base sources packed 64 to a uint64 word.
One level is::

    B[v] = A[v] | OR over u in N(v) of A[u]

and the number of bits still zero after level ``k`` is the number of (source, vertex) pairs at
distance ``> k``; summing those counts over the levels gives the total distance, and the level at
which every bit is set is the eccentricity of the chunk's sources (the core paper's Figs. 4, 7).
The level stops when all bits are set (done) or none changed (disconnected).

The columns are cut into chunks of ``chunk_words`` words ("divided ADJ-APSP"), so memory is
``2 * n * chunk_words * 8`` bytes per worker whatever ``m`` is, and a chunk can be sized to stay in
the cache. Two ways to use threads: each worker runs whole chunks (no synchronisation; used when
there are at least as many chunks as threads), or all threads share each level's rows (used
when there are few, wide-row chunks, e.g. ``m <= 64``).

Work units for MPI are the column words: a rank takes a range of words and runs its chunks.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from golf.errors import GolfError
from golf.evaluators.base import DISCONNECTED, EXCEEDED, OK, CompiledEvaluator, cpu_threads
from golf.kernels import merge_parts, popcount, rotated

__all__ = ["BitsetEvaluator", "choose_chunk_words", "l2_cache_bytes"]


# ------------------------------------------------------------------------------------------
# kernels
@njit(cache=True)
def _step(adj, n, A, B, r0, r1, tmp, chg):
    """One level over rows ``[r0, r1)``: ``B[v] = A[v] | OR A[u]``; returns the bits set in
    ``B[r0:r1]`` and ORs the newly set bits into ``chg``."""
    m = adj.shape[0]
    d = adj.shape[1]
    cw = A.shape[1]
    k = r0 // m
    i = r0 - k * m
    off = k * m
    cnt = 0
    if cw == 1:
        c = np.uint64(0)
        for v in range(r0, r1):
            a = A[v, 0]
            acc = a
            for j in range(d):
                x = adj[i, j]
                if x >= 0:
                    acc |= A[rotated(x, off, n), 0]
            B[v, 0] = acc
            cnt += popcount(acc)
            c |= acc ^ a
            i += 1
            if i == m:
                i = 0
                off += m
        chg[0] |= c
        return cnt
    for v in range(r0, r1):
        for w in range(cw):
            tmp[w] = A[v, w]
        for j in range(d):
            x = adj[i, j]
            if x >= 0:
                u = rotated(x, off, n)
                for w in range(cw):
                    tmp[w] |= A[u, w]
        for w in range(cw):
            t = tmp[w]
            B[v, w] = t
            cnt += popcount(t)
            chg[w] |= t ^ A[v, w]
        i += 1
        if i == m:
            i = 0
            off += m
    return cnt


@njit(parallel=True, cache=True)
def _step_rows_parallel(adj, n, A, B, T, tmp, chg, counts):
    """One level with the rows shared by ``T`` threads; per-thread ``tmp``/``chg`` rows."""
    for t in prange(T):
        r0 = n * t // T
        r1 = n * (t + 1) // T
        counts[t] = _step(adj, n, A, B, r0, r1, tmp[t], chg[t])
    return counts.sum()


@njit(cache=True)
def _chunk(adj, n, s0, s1, cw, bufA, bufB, tmp, chg, counts, T, maxlev, out):
    """All levels for the base sources ``[s0, s1)`` (at most ``64*cw`` of them).

    ``bufA``/``bufB`` are flat scratch of at least ``n*cw`` words; ``T > 1`` shares each level's
    rows among ``T`` threads (``tmp``/``chg`` then have ``T`` rows). Writes
    ``[ecc, dist_sum, n_at_ecc, status]`` to ``out``.
    """
    ns = s1 - s0
    if ns <= 0:  # an empty range changes nothing
        out[0] = -1
        out[1] = 0
        out[2] = 0
        out[3] = OK
        return
    A = bufA[: n * cw].reshape(n, cw)
    B = bufB[: n * cw].reshape(n, cw)
    for v in range(n):
        for w in range(cw):
            A[v, w] = 0
    # padding columns (beyond the real sources) count as reached from the start
    for w in range(cw):
        lo = w * 64
        if lo + 64 <= ns:
            continue
        pad = np.uint64(0xFFFFFFFFFFFFFFFF)
        if ns > lo:
            pad = pad << np.uint64(ns - lo)
        for v in range(n):
            A[v, w] = pad
    for s in range(s0, s1):
        c = s - s0
        A[s, c >> 6] |= np.uint64(1) << np.uint64(c & 63)
    total_bits = n * cw * 64
    reached = ns + n * (cw * 64 - ns)
    dist_sum = total_bits - reached
    level = 0
    while reached < total_bits:
        if maxlev > 0 and level == maxlev:
            out[0] = level
            out[1] = 0
            out[2] = 0
            out[3] = EXCEEDED
            return
        level += 1
        for t in range(chg.shape[0]):
            for w in range(cw):
                chg[t, w] = 0
        if T > 1:
            cnt = _step_rows_parallel(adj, n, A, B, T, tmp, chg, counts)
        else:
            cnt = _step(adj, n, A, B, 0, n, tmp[0], chg[0])
        if cnt == reached:
            out[0] = level
            out[1] = 0
            out[2] = 0
            out[3] = DISCONNECTED
            return
        reached = cnt
        dist_sum += total_bits - reached
        A, B = B, A
    n_at = 0
    if level == 0:
        n_at = ns
    else:
        for w in range(cw):
            c = chg[0, w]
            for t in range(1, chg.shape[0]):
                c |= chg[t, w]
            n_at += popcount(c)
    out[0] = level
    out[1] = dist_sum
    out[2] = n_at
    out[3] = OK


@njit(cache=True)
def score_serial(adj, n, w0, w1, cw, bufs, tmp, chg, counts, T, maxlev, res, out):
    """Chunks of the word range ``[w0, w1)`` one after another (``T`` threads per level).
    Stops at the first chunk that is disconnected or exceeds ``maxlev``."""
    m = adj.shape[0]
    nc = 0
    for c0 in range(w0, w1, cw):
        c1 = min(c0 + cw, w1)
        s0 = c0 * 64
        s1 = min(c1 * 64, m)
        _chunk(adj, n, s0, s1, c1 - c0, bufs[0, 0], bufs[0, 1], tmp, chg, counts, T,
               maxlev, res[nc])
        nc += 1
        if res[nc - 1, 3] != OK:
            break
    merge_parts(res[:nc], out)


@njit(parallel=True, cache=True)
def score_chunks_parallel(adj, n, w0, w1, cw, bufs, tmp, chg, counts, T, maxlev, res, out):
    """Chunks of ``[w0, w1)`` spread over ``T`` workers, each with its own buffers."""
    m = adj.shape[0]
    nchunks = (w1 - w0 + cw - 1) // cw
    for t in prange(T):
        for c in range(t, nchunks, T):
            c0 = w0 + c * cw
            c1 = min(c0 + cw, w1)
            s0 = c0 * 64
            s1 = min(c1 * 64, m)
            _chunk(adj, n, s0, s1, c1 - c0, bufs[t, 0], bufs[t, 1], tmp[t:t + 1],
                   chg[t:t + 1], counts[t:t + 1], 1, maxlev, res[c])
    merge_parts(res[:nchunks], out)


# ------------------------------------------------------------------------------------------
# planning
def l2_cache_bytes() -> int:
    """Per-core L2 size from sysfs (1 MiB if it cannot be read)."""
    try:
        with open("/sys/devices/system/cpu/cpu0/cache/index2/size") as f:
            s = f.read().strip().upper()
        mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(s[-1], 1)
        return int(s.rstrip("KMG")) * mult
    except (OSError, ValueError):
        return 1 << 20


def choose_chunk_words(n: int, words: int, workers: int, memory_bytes: int | None = None,
                       cache_bytes: int | None = None) -> int:
    """Chunk width in words: the widest that keeps both matrices of one worker inside its
    share of the cache, but at least 8 words (one 64-byte line per row, for SIMD) and at most
    what the memory budget allows. Never more than ``words``."""
    cache = cache_bytes or l2_cache_bytes()
    cw = max(8, cache // (2 * 8 * n))
    if memory_bytes:
        cw = min(cw, max(1, memory_bytes // (2 * 8 * n * workers)))
    return int(max(1, min(cw, words)))


class BitsetEvaluator(CompiledEvaluator):
    """Bit-matrix ADJ-APSP on the CPU (Numba).

    Options
    -------
    threads : int, default: the usable cores (``NUMBA_NUM_THREADS``)
    chunk_words : int, optional — column chunk width in 64-bit words (overrides the cache rule)
    memory : int, optional — bytes the bit matrices may take in all (default 2 GiB)
    """

    name = "bitset"

    def __init__(self, n, d, g=1, *, threads=None, chunk_words=None, memory=None, comm=None):
        super().__init__(n, d, g, comm=comm)
        self.units = (self.m + 63) // 64
        self._split_units()
        w0, w1 = self.unit_range
        words = max(1, w1 - w0)
        threads = int(threads or cpu_threads())
        memory = int(memory or (2 << 30))
        if chunk_words is not None:
            cw = int(chunk_words)
            if cw < 1:
                raise GolfError(f"chunk_words must be >= 1, got {chunk_words}")
            cw = min(cw, words)
        else:
            cw = choose_chunk_words(n, words, threads, memory)
        nchunks = -(-words // cw)
        # threads: whole chunks per worker when there are enough chunks, else shared rows
        if threads > 1 and nchunks >= threads:
            self.mode, workers, row_threads = "chunks", threads, 1
        elif threads > 1 and n >= 4096:
            self.mode, workers, row_threads = "rows", 1, threads
        else:
            self.mode, workers, row_threads = "serial", 1, 1
        need = 2 * 8 * n * cw * workers
        if need > memory:
            raise GolfError(f"bitset: chunks of {cw} words over n={n} rows need {need >> 20} MiB "
                            f"for {workers} workers, above the memory budget of {memory >> 20} "
                            f"MiB; lower chunk_words or raise memory")
        self.threads, self.cw, self.nchunks = threads, cw, nchunks
        self.workers, self.row_threads = workers, row_threads
        T = max(workers, row_threads)
        self._bufs = np.zeros((workers, 2, n * cw), dtype=np.uint64)
        self._tmp = np.zeros((T, cw), dtype=np.uint64)
        self._chg = np.zeros((T, cw), dtype=np.uint64)
        self._counts = np.zeros(T, dtype=np.int64)
        self._res = np.zeros((nchunks, 4), dtype=np.int64)
        self._out = np.zeros(4, dtype=np.int64)

    def kernel_args(self, adj, max_level=0):
        """Arguments of the compiled kernel (the search calls it directly, without Python)."""
        w0, w1 = self.unit_range
        return (adj, self.n, w0, w1, self.cw, self._bufs, self._tmp, self._chg,
                self._counts, self.row_threads, max_level, self._res, self._out)

    @property
    def kernel(self):
        return score_chunks_parallel if self.mode == "chunks" else score_serial

    def describe(self) -> str:
        w0, w1 = self.unit_range
        return (f"bitset: {w1 - w0} column words in {self.nchunks} chunks of {self.cw} words "
                f"({2 * 8 * self.n * self.cw / 2**20:.1f} MiB per worker), threads={self.threads} "
                f"as {self.mode}")

