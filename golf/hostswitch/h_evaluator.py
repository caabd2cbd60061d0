"""The search's evaluator of host-switch graphs: h-scores of port rows, in golf's call shape.

The search (:mod:`golf.engine`) scores every move with a compiled kernel of the shape
``kernel(adj, ctrl, out, n, *scratch)`` (:class:`golf.evaluators.base.CompiledEvaluator`).
Here ``adj`` is a host-switch graph's port rows (:mod:`golf.hostswitch.ports`: links, host
ports, free ports), ``n`` the number of switches, and the kernel writes

    out = [h-diameter, 2 * h-total, peripheral hosts, status]

so that :meth:`HostSwitchEvaluator.finish` (weight 1, as for the centre forms of
:mod:`golf.graph`) gives the :class:`golf.evaluators.base.Score` of the hosts: ``n`` the
hosts, ``total`` the sum over the host pairs, ``aspl`` the h-ASPL. The kernel finds each
host's switch from the host ports, then runs the weighted bit matrix of
:mod:`golf.hostswitch.h_scoring` (columns: the switches with hosts, weighted by their host
counts). The level cap ``ctrl[0]`` is not used (every evaluation runs to the end; the search
rejects a larger h-diameter all the same). The work units are the 64-bit words of those
columns (as many as the switches can fill), which MPI ranks split (``parallel: {mode:
evaluator}``); the parts combine as every backend's do
(:func:`golf.kernels.merge.merge_parts`), the first unit's carrying the ``2 n (n-1)`` hops to
and from the switches.

:class:`HostSwitchBfsEvaluator` (``evaluator: {backend: bfs}``) scores the same way with one
plain BFS a switch with hosts (:func:`score_bfs`), a unit a switch.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from golf.engine.moves import HOST_PORT
from golf.evaluators.base import (CHUNK_WORDS, DISCONNECTED, OK, THREADS, Capabilities,
                                  CompiledEvaluator, Score, cpu_threads)
from golf.hostswitch.h_scoring import _score, plan_chunks, switch_sums
from golf.kernels.bits import aligned_zeros

__all__ = ["BACKENDS", "HostSwitchScores", "HostSwitchEvaluator", "HostSwitchBfsEvaluator",
           "score", "score_bfs", "recheck"]

# the evaluators of a host-switch problem (evaluator.backend, golf eval --backend): auto and
# bitset the weighted bit matrix on the CPU, bfs one BFS a switch, gpu-bitset the bit matrix
# on the GPU (golf.hostswitch.h_gpu)
BACKENDS = ("auto", "bitset", "bfs", "gpu-bitset")


# Not cached on disk, nor score_bfs: each calls a parallel (prange) function of
# golf.hostswitch.h_scoring, and a cached copy written by a process that had compiled other
# callers of it first (the test suite's order: golf eval's h_score, then searches) crashed the
# next process that loaded it (a segmentation fault in the first evaluation of a host-switch
# run). Compiled in each process instead: about 1 s more at the start of a run (a 3-second
# chase of (32, 4) took 5.3 s against 4.3 s from a sound cache, 2 cores).
@njit
def score(adj, ctrl, out, n, hosts, host_switch, cw, balance, bufs, scratch):
    """The h-scores of the port rows ``adj`` (``n`` switches) holding ``hosts`` hosts, into
    ``out`` (module docstring); ``host_switch`` (``hosts`` int32) is scratch."""
    k = 0
    for a in range(adj.shape[0]):
        for j in range(adj.shape[1]):
            if adj[a, j] == HOST_PORT and k < hosts:
                host_switch[k] = a
                k += 1
    w0, w1 = ctrl[1], ctrl[2]
    if hosts == 1:
        if w0 == 0 < w1:
            out[0], out[1], out[2], out[3] = 0, 0, 1, OK
        else:
            out[0], out[1], out[2], out[3] = -1, 0, 0, OK
        return
    status, pairs, top, peripheral = _score(adj, host_switch, cw, balance, bufs, scratch, w0,
                                            w1)
    if status != OK:
        out[0], out[1], out[2], out[3] = -1, 0, 0, DISCONNECTED
        return
    out[0] = top + 2 if top >= 0 else -1
    # the 2 hops to and from the switches, once for all parts: in the first unit's
    out[1] = pairs + (2 * hosts * (hosts - 1) if w0 == 0 < w1 else 0)
    out[2] = peripheral
    out[3] = OK


class HostSwitchScores:
    """What every host-switch evaluator shares: ``n`` is the switches, ``d`` the radix,
    ``hosts`` the hosts; a merged result ``[h-diameter, 2 * h-total, peripheral hosts,
    status]`` finishes into the hosts' :class:`Score`, and the rows have the shape
    ``(switches, radix)``."""

    def finish(self, part) -> Score:
        ecc, dist_sum, n_at, status = part.tolist() if isinstance(part, np.ndarray) else part
        if status != OK:
            return Score(self.hosts, None, None, 0, status)
        return Score(self.hosts, ecc, dist_sum // 2, n_at, OK)

    def check_shape(self, graph) -> None:
        if graph.adj.shape != (self.n, self.d):
            from golf.errors import GolfError

            raise GolfError(f"{self.name}: evaluator built for {self.n} switches of radix "
                            f"{self.d}, got rows of shape {graph.adj.shape}")


class HostSwitchEvaluator(HostSwitchScores, CompiledEvaluator):
    """h-scores of host-switch port rows for the search (module docstring).

    Parameters
    ----------
    hosts, switches, radix : int
        The problem: ``n`` hosts on ``s`` switches of radix ``r``.
    threads : int, default: the usable cores; the most to use (small graphs run on one)
    chunk_words : int, optional — column chunk width in 64-bit words
    """

    name = "h-bitset"
    summary = ("host-switch h-scores: the bit matrix over the switches, columns the switches "
               "with hosts weighted by their host counts (CPU)")
    options = {"threads": THREADS, "chunk_words": CHUNK_WORDS}
    supports = Capabilities(compiled=True, mpi_split=True)
    kernel = staticmethod(score)

    def __init__(self, hosts, switches, radix, *, threads=None, chunk_words=None, batch=1,
                 comm=None):
        super().__init__(switches, radix, 1, batch=batch, comm=comm)
        self.hosts = int(hosts)
        self.weight = 1
        self.units = (switches + 63) // 64
        self._split_units()
        threads = int(threads) if threads is not None else cpu_threads()
        _, cw, workers = plan_chunks(switches, radix, switches, threads, chunk_words)
        self.cw, self.workers, self.balance = cw, workers, chunk_words is None
        per = -(-switches * cw // 512) * 512
        self._bufs = aligned_zeros((workers, 2, per), np.uint64)
        self._scratch = aligned_zeros((workers, 8), np.uint64, align=64)
        self._host_switch = np.zeros(self.hosts, dtype=np.int32)

    def scratch(self):
        return (self.hosts, self._host_switch, self.cw, self.balance, self._bufs,
                self._scratch)

    def scorer(self):
        out, ctrl, kernel, tail = self.out, self.ctrl, self.kernel, self.kernel_args(None)[1:]

        def run(adj, max_level=0):
            ctrl[0] = max_level
            kernel(adj, *tail)
            return self.finish(out)

        return run

    def describe(self) -> str:
        return (f"h-bitset: {self.hosts} hosts on {self.n} switches of radix {self.d}, "
                f"chunks of {self.cw} words, {self.workers} worker(s)")


def recheck(net) -> tuple:
    """``(h-diameter, h-total)`` of a host-switch graph by another method than the search's
    kernel: one plain BFS over the switches from each switch with hosts
    (:func:`golf.hostswitch.h_scoring.switch_sums`); ``(None, None)`` when two hosts cannot
    reach each other."""
    from golf.hostswitch.h_scoring import switch_sums

    n = net.n
    counts = net.host_counts
    sources = np.flatnonzero(counts > 0).astype(np.int64)
    wsum, far, reached = (np.zeros(len(sources), dtype=np.int64) for _ in range(3))
    switch_sums(net.switches.adj, counts, sources, wsum, far, reached)
    if n > 1 and (reached < n).any():
        return None, None
    pairs = int((counts[sources] * wsum).sum())  # ordered switch pairs, weighted
    diameter = 0 if n == 1 else 2 + int(far.max())
    return diameter, n * (n - 1) + pairs // 2


@njit  # not cached: see score
def score_bfs(adj, ctrl, out, n, hosts, counts, sources, wsum, far, reached):
    """The h-scores of the port rows ``adj`` (``n`` switches) by one BFS over the switches
    from each switch with hosts among the units ``[ctrl[1], ctrl[2])`` (a unit a switch;
    :func:`golf.hostswitch.h_scoring.switch_sums`), into ``out`` as :func:`score` writes them:
    the parts of any split combine as every backend's do."""
    u0, u1 = ctrl[1], ctrl[2]
    s = adj.shape[0]
    for a in range(s):
        counts[a] = 0
        for j in range(adj.shape[1]):
            if adj[a, j] == HOST_PORT:
                counts[a] += 1
    first = u0 == 0 < u1
    base = 2 * hosts * (hosts - 1) if first else 0
    if hosts == 1:
        out[0], out[1], out[2], out[3] = (0, 0, 1, OK) if first else (-1, 0, 0, OK)
        return
    k = 0
    for a in range(u0, min(u1, s)):
        if counts[a] > 0:
            sources[k] = a
            k += 1
    if k == 0:
        out[0], out[1], out[2], out[3] = -1, base, 0, OK
        return
    switch_sums(adj, counts, sources[:k], wsum[:k], far[:k], reached[:k])
    pairs = 0
    top = 0
    for t in range(k):
        if reached[t] < hosts:
            out[0], out[1], out[2], out[3] = -1, 0, 0, DISCONNECTED
            return
        pairs += counts[sources[t]] * wsum[t]
        top = max(top, far[t])
    peripheral = 0
    for t in range(k):
        if far[t] == top:
            peripheral += counts[sources[t]]
    out[0] = top + 2
    out[1] = pairs + base
    out[2] = peripheral
    out[3] = OK


class HostSwitchBfsEvaluator(HostSwitchEvaluator):
    """h-scores of host-switch port rows by one BFS a switch with hosts (:func:`score_bfs`),
    weighted by host counts: the plain method beside :class:`HostSwitchEvaluator`'s bit
    matrix, for long, thin switch graphs and for splitting over many MPI ranks (a unit a
    switch).

    Parameters
    ----------
    hosts, switches, radix : int
        The problem: ``n`` hosts on ``s`` switches of radix ``r``.
    """

    name = "h-bfs"
    summary = ("host-switch h-scores: one BFS over the switches from each switch with hosts, "
               "weighted by host counts (CPU)")
    options = {"threads": THREADS}
    kernel = staticmethod(score_bfs)

    def __init__(self, hosts, switches, radix, *, threads=None, batch=1, comm=None):
        CompiledEvaluator.__init__(self, switches, radix, 1, batch=batch, comm=comm)
        self.hosts = int(hosts)
        self.weight = 1
        self.units = switches
        self._split_units()
        self._work = (np.zeros(switches, dtype=np.int64), np.zeros(switches, dtype=np.int64),
                      np.zeros(switches, dtype=np.int64), np.zeros(switches, dtype=np.int64),
                      np.zeros(switches, dtype=np.int64))

    def scratch(self):
        return (self.hosts, *self._work)

    def describe(self) -> str:
        u0, u1 = self.unit_range
        return (f"h-bfs: {self.hosts} hosts on {self.n} switches of radix {self.d}, one BFS "
                f"from each switch with hosts among {u1 - u0}")
