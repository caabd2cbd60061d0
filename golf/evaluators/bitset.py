"""``bitset``: the bit-matrix ADJ-APSP in Numba, divided into column chunks.

Bit ``(v, s)`` of the matrix says "base source ``s`` reaches vertex ``v`` within ``k`` hops".
Rows are all ``n`` vertices, columns the ``m = n/g`` base sources packed 64 to a uint64 word.
One level is::

    B[v] = A[v] | OR over u in N(v) of A[u]

and the number of bits still zero after level ``k`` is the number of (source, vertex) pairs at
distance ``> k``; summing those counts over the levels gives the total distance, and the level at
which every bit is set is the eccentricity of the chunk's sources (ADJ-APSP, Figs. 4 and 7 of
Nakao, Murai and Sato, "Parallelization of all-pairs shortest path algorithms in unweighted
graphs for the Order/Degree problem", in Japanese, IPSJ, undated copy; see CITATION.cff).
The level stops when all bits are set (done) or none changed (disconnected).

The columns are cut into chunks of ``chunk_words`` words ("divided ADJ-APSP"), so memory is
``2 * n * chunk_words * 8`` bytes per worker whatever ``m`` is, and a chunk can be sized to stay in
the cache. Two ways to use threads: each worker runs whole chunks (no synchronisation; used when
there are at least as many chunks as threads), or all threads share each level's rows (used
when there are few, wide-row chunks, e.g. ``m <= 64``).

Work units for MPI are the column words: a rank takes a range of words and runs its chunks.
"""

from __future__ import annotations

import os

import numpy as np
from numba import njit, prange

from golf.errors import GolfError
from golf.evaluators.base import (CHUNK_WORDS, DISCONNECTED, EXCEEDED, OK, THREADS,
                                  CompiledEvaluator, Estimate, cpu_threads, expected_diameter)
from golf.kernels.bits import aligned_zeros, or_row, popcount
from golf.kernels.merge import merge_parts
from golf.kernels.symmetry import (base_of, centre_form, centre_weight, expand_rows, rotated,
                                   twist_rows)
from golf.options import INF, Spec

__all__ = ["BitsetEvaluator", "choose_chunk_words", "cache_bytes"]


def ns_per_word(words: int) -> float:
    """Nanoseconds per 64-bit word, edge and level of a bit-matrix level on one Zen 4 core
    (results/bench/eval_cpu.md): 0.15 with rows of 8+ words (full cache lines, AVX-512), ~0.4
    with 2-7 words, ~0.8 with one word ((10^6,32,25000): 123 ms for 5 levels)."""
    return 0.15 if words >= 8 else (0.4 if words >= 2 else 0.8)


# ------------------------------------------------------------------------------------------
# kernels
@njit(cache=True)
def _step(adj, n, A, B, r0, r1, counts):
    """One level over rows ``[r0, r1)``: ``B[v] = A[v] | OR A[u]`` for the neighbours ``u`` of
    ``v``; returns the number of bits set in ``B[r0:r1]``. ``counts`` (8 uint64, on a cache
    line of its own) is scratch."""
    m = adj.shape[0]
    d = adj.shape[1]
    cw = A.shape[1]
    i, off = base_of(r0, m)
    cnt = 0
    if cw == 1:  # one word per row: LLVM vectorises across the neighbours (gathers)
        for v in range(r0, r1):
            acc = A[v, 0]
            for j in range(d):
                x = adj[i, j]
                if x >= 0:
                    acc |= A[rotated(x, off, n), 0]
            B[v, 0] = acc
            cnt += popcount(acc)
            i += 1
            if i == m:
                i = 0
                off += m
        return cnt
    for lane in range(8):
        counts[lane] = 0
    for v in range(r0, r1):
        or_row(A, B, v, adj, i, off, n, counts)
        i += 1
        if i == m:
            i = 0
            off += m
    for lane in range(8):
        cnt += np.int64(counts[lane])
    return cnt


@njit(parallel=True, cache=True)
def _step_rows_parallel(adj, n, A, B, counts, per_thread):
    """One level with the rows shared by ``len(per_thread)`` threads."""
    T = per_thread.shape[0]
    for t in prange(T):
        per_thread[t] = _step(adj, n, A, B, n * t // T, n * (t + 1) // T, counts[t])
    return per_thread.sum()


@njit(cache=True)
def _push(adj, n, A, B, front, nf, touched, tlist, chg):
    """One sparse level: only the rows that changed at the previous level (``front[:nf]``) can
    bring new bits, so push them to their neighbours, ``B[u] |= A[v]``. On entry ``A == B``;
    on exit ``A == B`` hold the new level, ``front`` the rows that changed and ``chg`` the
    columns that did. Returns ``(new nf, bits gained)``."""
    m = adj.shape[0]
    d = adj.shape[1]
    cw = A.shape[1]
    nt = 0
    for q in range(nf):
        v = front[q]
        i, off = base_of(v, m)
        for j in range(d):
            x = adj[i, j]
            if x < 0:
                continue
            u = rotated(x, off, n)
            for w in range(cw):
                B[u, w] |= A[v, w]
            if touched[u] == 0:
                touched[u] = 1
                tlist[nt] = u
                nt += 1
    for w in range(cw):
        chg[w] = 0
    nf = 0
    gained = 0
    for q in range(nt):
        u = tlist[q]
        touched[u] = 0
        changed = False
        for w in range(cw):
            new = B[u, w] ^ A[u, w]
            if new != 0:
                changed = True
                gained += popcount(new)
                chg[w] |= new
                A[u, w] = B[u, w]
        if changed:
            front[nf] = u
            nf += 1
    return nf, gained


@njit(cache=True)
def _not_full_columns(M, n):
    """Number of columns of ``M`` (n rows) with at least one zero bit."""
    total = 0
    for w in range(M.shape[1]):
        acc = np.uint64(0xFFFFFFFFFFFFFFFF)
        for v in range(n):
            acc &= M[v, w]
        total += popcount(~acc)
    return total


@njit(cache=True, inline="always")
def _worker(sparse, t):
    """Worker ``t``'s rows of the push-level scratch."""
    return sparse[0][t], sparse[1][t], sparse[2][t], sparse[3][t]


# below this many row-words x degree per level, one thread is faster than two
SMALL_WORK = 1 << 14

# sharing each level's rows between threads pays only for big levels: measured in a tight
# loop, (1000000,32,25000) 84 ms on two threads vs 124 ms on one, but (65536,6,1024) 5.6 ms vs
# 4.2 ms and (4096,8,64) 0.24 ms vs 0.17 ms (a synchronisation per level)
ROWS_WORK = 1 << 22

# a sparse (push) level costs about this many dense row updates per frontier row and edge
PUSH_COST = 4


@njit(cache=True)
def _level_zero(A, s0, s1, front):
    """The matrix before the first level for the sources ``[s0, s1)``: each source's own bit,
    and the padding columns beyond the real sources set (they count as reached from the
    start); ``front`` gets the rows that changed (the sources)."""
    n, cw = A.shape
    ns = s1 - s0
    for v in range(n):
        for w in range(cw):
            A[v, w] = 0
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
        front[c] = s


@njit(cache=True)
def _chunk(adj, n, s0, s1, cw, bufA, bufB, counts, per_thread, sparse, maxlev, out):
    """All levels for the base sources ``[s0, s1)`` (at most ``64*cw`` of them).

    ``bufA``/``bufB`` are flat scratch of at least ``n*cw`` words; ``sparse`` is the tuple of
    scratch ``(front, tlist, touched, chg)`` for the push levels. The first levels push the
    changed rows to their neighbours while they are few (``PUSH_COST * changed < n``), then
    every level ORs all rows (with ``len(per_thread) > 1``, shared among that many threads).
    Writes ``[ecc, dist_sum, n_at_ecc, status]`` to ``out``.
    """
    ns = s1 - s0
    if ns <= 0:  # an empty range changes nothing
        out[0] = -1
        out[1] = 0
        out[2] = 0
        out[3] = OK
        return
    front, tlist, touched, chg = sparse
    A = bufA[: n * cw].reshape(n, cw)
    B = bufB[: n * cw].reshape(n, cw)
    _level_zero(A, s0, s1, front)
    nf = ns
    push = PUSH_COST * nf < n
    if push:
        B[:, :] = A
    total_bits = n * cw * 64
    reached = ns + n * (cw * 64 - ns)
    dist_sum = total_bits - reached
    level = 0
    T = per_thread.shape[0]
    while reached < total_bits:
        if maxlev > 0 and level == maxlev:
            out[0] = level
            out[1] = 0
            out[2] = 0
            out[3] = EXCEEDED
            return
        level += 1
        push = push and PUSH_COST * nf < n
        if push:
            nf, gained = _push(adj, n, A, B, front, nf, touched, tlist, chg)
            cnt = reached + gained
        elif T > 1:
            cnt = _step_rows_parallel(adj, n, A, B, counts, per_thread)
            A, B = B, A
        else:
            cnt = _step(adj, n, A, B, 0, n, counts[0])
            A, B = B, A
        if cnt == reached:
            out[0] = level
            out[1] = 0
            out[2] = 0
            out[3] = DISCONNECTED
            return
        reached = cnt
        dist_sum += total_bits - reached
    # sources with eccentricity == level: the columns that changed at the last level; after a
    # dense level they are the columns not yet full in the previous matrix, which is B now
    n_at = 0
    if level == 0:
        n_at = ns
    elif push:
        for w in range(cw):
            n_at += popcount(chg[w])
    else:
        n_at = _not_full_columns(B, n)
    out[0] = level
    out[1] = dist_sum
    out[2] = n_at
    out[3] = OK


@njit(cache=True)
def _chunks_in_order(adj, m, w0, w1, maxlev, n, cw, bufA, bufB, counts, per_thread, sparse,
                     res):
    """The chunks of ``[w0, w1)`` one after another on this thread (with
    ``len(per_thread) > 1``, each level's rows shared among that many threads) for the ``m``
    base sources; stops at the first chunk that is disconnected or exceeds the cap. Returns
    the number of chunks run."""
    nc = 0
    for c0 in range(w0, w1, cw):
        c1 = min(c0 + cw, w1)
        _chunk(adj, n, c0 * 64, min(c1 * 64, m), c1 - c0, bufA, bufB, counts, per_thread,
               sparse, maxlev, res[nc])
        nc += 1
        if res[nc - 1, 3] != OK:
            break
    return nc


@njit(parallel=True, cache=True)
def _chunks_parallel(adj, m, w0, w1, maxlev, n, cw, bufs, counts, per_thread, sparse, res):
    """``W = bufs.shape[0]`` threads, each a contiguous run of chunks with its own buffers
    (no synchronisation until the end). Returns the number of result rows."""
    W = bufs.shape[0]
    nchunks = (w1 - w0 + cw - 1) // cw
    for t in prange(W):
        c_lo = nchunks * t // W
        c_hi = nchunks * (t + 1) // W
        a = w0 + c_lo * cw
        b = min(w0 + c_hi * cw, w1)
        k = _chunks_in_order(adj, m, a, b, maxlev, n, cw, bufs[t, 0], bufs[t, 1],
                             counts[t:t + 1], per_thread[:1], _worker(sparse, t),
                             res[c_lo:c_hi])
        for r in range(c_lo + k, c_hi):  # chunks skipped after a failure change nothing
            res[r, 0] = -1
            res[r, 1] = 0
            res[r, 2] = 0
            res[r, 3] = OK
    return nchunks


@njit(cache=True)
def score(adj, ctrl, out, n, cw, bufs, counts, per_thread, sparse, res, sym):
    """The bit-matrix kernel: column words ``ctrl[1]:ctrl[2]``, levels capped at ``ctrl[0]``
    (0: no cap), result ``[ecc, dist_sum, n_at_ecc, status]`` in ``out``.

    With one buffer pair (``bufs.shape[0] == 1``) the chunks run in order on this thread
    (each level's rows shared by ``len(per_thread)`` threads when that is above 1); with
    ``W`` pairs, ``W`` threads take whole chunks. The parallel region is entered only then:
    a small graph pays nothing for it. ``sym``: empty arrays for the cyclic group,
    else the levels read the group's twisted rows (:func:`twist_rows`) as the rows of a
    cyclic graph; the sources stay the ``m`` base vertices."""
    maxlev, w0, w1 = ctrl[0], ctrl[1], ctrl[2]
    m = adj.shape[0]
    if centre_form(sym):
        _score_centres(expand_rows(adj, sym, n, m), m, centre_weight(sym), ctrl, out, n, cw,
                       bufs, counts, per_thread, sparse, res)
        return
    if sym[0].shape[0] > 0:
        adj = twist_rows(adj, sym)
    if bufs.shape[0] == 1:
        nc = _chunks_in_order(adj, m, w0, w1, maxlev, n, cw, bufs[0, 0], bufs[0, 1], counts,
                              per_thread, _worker(sparse, 0), res)
    else:
        nc = _chunks_parallel(adj, m, w0, w1, maxlev, n, cw, bufs, counts, per_thread, sparse,
                              res)
    merge_parts(res[:nc], out)


@njit(cache=True)
def _score_centres(rows, m, g, ctrl, out, n, cw, bufs, counts, per_thread, sparse, res):
    """:func:`score` for a graph with centres, on its renumbered rows (:func:`expand_rows`:
    sources ``0 .. m+c-1``). Units ``0 .. ceil(m/64)-1`` are the base sources' column words,
    each source weighing ``g``; the unit after them holds the ``c <= 64`` centres, weighing one
    each."""
    maxlev, w0, w1 = ctrl[0], ctrl[1], ctrl[2]
    wb = (m + 63) // 64
    b1 = min(w1, wb)
    nc = 0
    if w0 < b1:
        if bufs.shape[0] == 1:
            nc = _chunks_in_order(rows, m, w0, b1, maxlev, n, cw, bufs[0, 0], bufs[0, 1],
                                  counts, per_thread, _worker(sparse, 0), res)
        else:
            nc = _chunks_parallel(rows, m, w0, b1, maxlev, n, cw, bufs, counts, per_thread,
                                  sparse, res)
        for r in range(nc):
            res[r, 1] *= g
            res[r, 2] *= g
    if w0 <= wb < w1:
        _chunk(rows, n, m, m + n - g * m, 1, bufs[0, 0], bufs[0, 1], counts[:1],
               per_thread[:1], _worker(sparse, 0), maxlev, res[nc])
        nc += 1
    merge_parts(res[:nc], out)


# ------------------------------------------------------------------------------------------
# planning
def cache_bytes(level: int = 3) -> int:
    """Size of the CPU cache of the given level from sysfs (32 MiB for L3, 1 MiB for L2 when
    it cannot be read)."""
    default = {2: 1 << 20, 3: 32 << 20}[level]
    try:
        base = "/sys/devices/system/cpu/cpu0/cache"
        for entry in sorted(os.listdir(base)):
            with open(f"{base}/{entry}/level") as f:
                if int(f.read()) != level:
                    continue
            with open(f"{base}/{entry}/size") as f:
                text = f.read().strip().upper()
            mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1], 1)
            return int(text.rstrip("KMG")) * mult
    except (OSError, ValueError):
        pass
    return default


def choose_chunk_words(n: int, words: int, workers: int, memory_bytes: int | None = None,
                       l3_bytes: int | None = None) -> int:
    """Chunk width in 64-bit words.

    Measured on AMD Zen 4 (results/bench/eval_cpu.md, experiment chunk_sweep;
    scripts/bench_chunks.py): 16 words per row (two AVX-512 loads per neighbour) is the sweet
    spot while every worker's two
    matrices together stay within half the L3 cache; past that, 8 words (one 64-byte line per
    row); and where 8 words still overflow half the L3 but 4 words fit, 4 words win despite
    the per-row overhead (two workers on n = 65536: 11.7 ms with 4 words, 14.3 ms with 8 for
    (65536, 6, 64)). Otherwise fewer than 8 words costs 1.5-2x per word (half-used cache
    lines). The width is capped so that each worker gets a chunk, and by the memory budget."""
    l3 = l3_bytes or cache_bytes(3)

    def size(cw):  # bytes of all workers' two matrices
        return 2 * 8 * n * cw * workers

    cw = 16
    while cw > 8 and size(cw) >= l3 // 2:
        cw //= 2
    if cw == 8 and size(8) >= l3 // 2 and size(4) < l3 // 2:
        cw = 4
    if workers > 1 and words >= workers:
        cw = min(cw, -(-words // workers))
    if memory_bytes:
        cw = min(cw, max(1, memory_bytes // (2 * 8 * n * workers)))
    return int(max(1, min(cw, words)))


class BitsetEvaluator(CompiledEvaluator):
    """Bit-matrix ADJ-APSP on the CPU (Numba).

    Parameters
    ----------
    threads : int, default: the usable cores (``NUMBA_NUM_THREADS``); the most to use
        (small problems run on one)
    chunk_words : int, optional — column chunk width in 64-bit words (overrides the cache rule)
    memory : int, optional — bytes the bit matrices may take in all (default 2 GiB)
    thread_mode : 'serial', 'chunks' (whole chunks per thread) or 'rows' (each level's rows
        shared); default: chosen from the measurements noted at ``ROWS_WORK``
    """

    name = "bitset"
    summary = ("bit-matrix ADJ-APSP: bit (v, s) = source s reaches v within k hops; a level is "
               "an OR over neighbours plus a popcount; columns in cache-sized chunks (CPU)")
    options = {
        "threads": THREADS,
        "chunk_words": CHUNK_WORDS,
        "memory": Spec("int?", None, (1, INF), "bytes > 0, or null (2 GiB)"),
        "thread_mode": Spec("choice?", None, ("serial", "chunks", "rows"),
                            "serial, chunks, rows, or null (chosen by size)"),
    }
    kernel = staticmethod(score)

    def __init__(self, n, d, g=1, *, threads=None, chunk_words=None, memory=None,
                 thread_mode=None, comm=None, batch=1, symmetry=None, centres=0):
        super().__init__(n, d, g, comm=comm, batch=batch, symmetry=symmetry, centres=centres)
        # the base sources' column words, and one unit for the centres (at most 64 of them)
        if self.centres > 64:
            raise GolfError(f"bitset: at most 64 centres, got {self.centres}")
        self.units = (self.m + 63) // 64 + (1 if self.centres else 0)
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
        # threads: whole chunks per worker when there are enough chunks, else shared rows;
        # none for small work, where starting threads costs more than it saves (measured:
        # (256,8,1) 12.1 us on one thread, 13.5 us on two)
        if n * words * max(d, 1) < SMALL_WORK:
            threads = 1
            cw = min(words, chunk_words or words)
            nchunks = -(-words // cw)
        if thread_mode is None:
            if threads > 1 and nchunks >= threads:
                thread_mode = "chunks"
            elif threads > 1 and n * max(d, 1) * words >= ROWS_WORK:
                thread_mode = "rows"
            else:
                thread_mode = "serial"
        if thread_mode not in ("serial", "chunks", "rows"):
            raise GolfError(f"thread_mode must be serial, chunks or rows, got {thread_mode!r}")
        self.mode = thread_mode
        workers = threads if thread_mode == "chunks" else 1
        row_threads = threads if thread_mode == "rows" else 1
        need = 2 * 8 * n * cw * workers
        if need > memory:
            raise GolfError(f"bitset: chunks of {cw} words over n={n} rows need {need >> 20} MiB "
                            f"for {workers} workers, above the memory budget of {memory >> 20} "
                            f"MiB; lower chunk_words or raise memory")
        self.threads, self.cw, self.nchunks = threads, cw, nchunks
        self.workers, self.row_threads = workers, row_threads
        T = max(workers, row_threads)
        # one page-aligned buffer per matrix, each padded to whole pages
        per = -(-n * cw // 512) * 512
        self._bufs = aligned_zeros((workers, 2, per), np.uint64)
        # per-thread scratch written in the hot loop: a 64-byte line each (no false sharing)
        self._counts = aligned_zeros((T, 8), np.uint64, align=64)
        self._per_thread = np.zeros(row_threads, dtype=np.int64)
        # push-level scratch per worker: frontier, touched list and flags, changed columns
        self._sparse = (np.zeros((workers, n), dtype=np.int32),
                        np.zeros((workers, n), dtype=np.int32),
                        np.zeros((workers, n), dtype=np.uint8),
                        aligned_zeros((workers, max(cw, 8)), np.uint64, align=64))
        self._res = np.zeros((nchunks + 1, 4), dtype=np.int64)

    @classmethod
    def estimate(cls, n, d, g, *, threads, ranks):
        words = (n // g + 63) // 64
        per_rank = -(-words // max(1, ranks))
        D = expected_diameter(n, d)
        seconds = ns_per_word(per_rank) * 1e-9 * n * d * D * per_rank / max(1, threads)
        return Estimate(seconds, f"{n // g} base sources in {words} 64-bit words"
                        + (f" ({per_rank} per rank)" if ranks > 1 else "")
                        + f", ~{D} levels; one pass over a neighbour row serves 64 sources")

    def scratch(self):
        return (self.cw, self._bufs, self._counts, self._per_thread, self._sparse, self._res,
                self.sym)

    def describe(self) -> str:
        w0, w1 = self.unit_range
        return (f"bitset: {w1 - w0} column words in {self.nchunks} chunks of {self.cw} words "
                f"({2 * 8 * self.n * self.cw / 2**20:.1f} MiB per worker), threads={self.threads} "
                f"as {self.mode}")

