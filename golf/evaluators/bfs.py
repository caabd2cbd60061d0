"""``bfs``: BFS-APSP in Numba: one top-down BFS per base source (BFS-APSP, Figs. 2-3 of
Nakao, Murai and Sato, "Parallelization of all-pairs shortest path algorithms in unweighted
graphs for the Order/Degree problem", in Japanese, IPSJ, undated copy; see CITATION.cff).

Only the ``m = n/g`` base sources are searched: every vertex ``k*m + i`` has the distance profile
of base vertex ``i``. Each BFS keeps a bitmap of visited vertices and a queue of frontiers, and
computes neighbours of rotated vertices from the base rows on the fly. Threads take sources
(the paper's OpenMP loop); under MPI the ranks split the sources (work units = sources).

Slower than ``bitset`` when the diameter is small (it does one random access per edge and per
source where the bit matrix handles 64 sources per access), but its work does not grow with the
diameter and it splits into ``m`` units instead of ``m/64``: the choice for long, thin graphs and
for scaling out over many ranks.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from golf.evaluators.base import (DISCONNECTED, EXCEEDED, OK, THREADS, CompiledEvaluator,
                                  Estimate, cpu_threads)
from golf.kernels.merge import merge_parts
from golf.kernels.symmetry import (base_of, centre_form, centre_weight, expand_rows, rotated,
                                   twist_rows)

__all__ = ["BfsEvaluator", "bfs_one"]

# nanoseconds per edge and source on one thread: 1.8-4.6 measured on a Zen 4 core (from
# (10^6,32,25000) to (65536,6,64), results/bench/eval_cpu.md), a random access a neighbour
NS_PER_EDGE_SOURCE = 3.0


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
def _sources(adj, n, s0, s1, step, maxlev, visited, queue, out):
    """BFS from sources ``s0, s0+step, ... < s1``; writes ``[ecc, dist_sum, n_at, status]``."""
    ecc = -1
    dist = 0
    n_at = 0
    for s in range(s0, s1, step):
        e, ds, reached = bfs_one(adj, n, s, maxlev, visited, queue)
        if reached < n:
            out[0] = e
            out[1] = 0
            out[2] = 0
            out[3] = EXCEEDED if (maxlev > 0 and e == maxlev) else DISCONNECTED
            return
        dist += ds
        if e > ecc:
            ecc = e
            n_at = 1
        elif e == ecc:
            n_at += 1
    out[0] = ecc
    out[1] = dist
    out[2] = n_at
    out[3] = OK


@njit(parallel=True, cache=True)
def _sources_parallel(adj, s0, s1, maxlev, n, T, visited, queue, res):
    for t in prange(T):
        _sources(adj, n, s0 + t, s1, T, maxlev, visited[t], queue[t], res[t])


@njit(cache=True)
def score(adj, ctrl, out, n, T, visited, queue, res, parts, sym):
    """The BFS kernel: sources ``ctrl[1]:ctrl[2]``, levels capped at ``ctrl[0]`` (0: no cap),
    result ``[ecc, dist_sum, n_at_ecc, status]`` in ``out``; ``T`` threads take every
    ``T``-th source (one thread: no parallel region at all); ``parts`` (2 x 4) is scratch for
    a centre form's two parts. ``sym``: empty arrays for the
    cyclic group, else the BFS reads the group's twisted rows (:func:`twist_rows`), ``b``
    times as many as the base rows, as the rows of a cyclic graph."""
    maxlev, s0, s1 = ctrl[0], ctrl[1], ctrl[2]
    if centre_form(sym):
        # renumbered rows (expand_rows): the base sources 0 .. m-1 weigh g each, the centres
        # m .. m+c-1 one each
        m = adj.shape[0]
        g = centre_weight(sym)
        rows = expand_rows(adj, sym, n, m)
        _range(rows, n, s0, min(s1, m), T, maxlev, visited, queue, res, parts[0])
        parts[0, 1] *= g
        parts[0, 2] *= g
        _range(rows, n, max(s0, m), s1, T, maxlev, visited, queue, res, parts[1])
        merge_parts(parts, out)
        return
    if sym[0].shape[0] > 0:
        adj = twist_rows(adj, sym)
    _range(adj, n, s0, s1, T, maxlev, visited, queue, res, out)


@njit(cache=True)
def _range(adj, n, s0, s1, T, maxlev, visited, queue, res, out):
    """The sources ``[s0, s1)`` on ``T`` threads (an empty range gives ``ecc = -1``)."""
    if s1 <= s0:
        out[0] = -1
        out[1] = 0
        out[2] = 0
        out[3] = OK
        return
    T = min(T, s1 - s0)
    if T == 1:
        _sources(adj, n, s0, s1, 1, maxlev, visited[0], queue[0], out)
        return
    _sources_parallel(adj, s0, s1, maxlev, n, T, visited, queue, res[:T])
    merge_parts(res[:T], out)


class BfsEvaluator(CompiledEvaluator):
    """BFS-APSP on the CPU (Numba).

    Parameters
    ----------
    threads : int, default: the usable cores (``NUMBA_NUM_THREADS``)
    """

    name = "bfs"
    summary = "one top-down BFS per base source, visited bitmap, threads over sources (CPU)"
    options = {"threads": THREADS}
    kernel = staticmethod(score)

    def __init__(self, n, d, g=1, *, threads=None, comm=None, batch=1, symmetry=None,
                 centres=0):
        super().__init__(n, d, g, comm=comm, batch=batch, symmetry=symmetry, centres=centres)
        self._split_units()
        s0, s1 = self.unit_range
        threads = int(threads or cpu_threads())
        self.threads = max(1, min(threads, s1 - s0))
        T = self.threads
        self._visited = np.zeros((T, (n + 63) // 64), dtype=np.uint64)
        self._queue = np.zeros((T, n + 1), dtype=np.int32)
        self._res = np.zeros((T, 4), dtype=np.int64)
        self._parts = np.zeros((2, 4), dtype=np.int64)

    @classmethod
    def estimate(cls, n, d, g, *, threads, ranks):
        per_rank = -(-(n // g) // max(1, ranks))
        seconds = NS_PER_EDGE_SOURCE * 1e-9 * n * d * per_rank / max(1, threads)
        split = f" ({per_rank} per rank)" if ranks > 1 else ""
        return Estimate(seconds, f"{n // g} sources{split}, one pass over the edges each")

    def scratch(self):
        return (self.threads, self._visited, self._queue, self._res, self._parts, self.sym)

    def describe(self) -> str:
        s0, s1 = self.unit_range
        return f"bfs: {s1 - s0} sources over {self.threads} threads"
