"""The host-switch backend ``bitset``: h-scores of port rows with the weighted bit matrix, in
golf's call shape (registry name ``bitset`` for host-switch problems, class name
``h-bitset``).

The search (:mod:`golf.engine`) scores every move with a compiled kernel of the shape
``kernel(adj, ctrl, out, n, *scratch)`` (:class:`golf.evaluators.base.CompiledEvaluator`).
Here ``adj`` is a host-switch graph's port rows (:mod:`golf.hostswitch.ports`: links, host
ports, free ports), ``n`` the number of switches, and the kernel writes

    out = [h-diameter, 2 * h-total, peripheral hosts, status]

so that :meth:`HostSwitchEvaluator.finish` (weight 1, as for the centre forms of
:mod:`golf.graph`) gives the :class:`golf.evaluators.base.Score` of the hosts: ``n`` the
hosts, ``total`` the sum over the host pairs, ``aspl`` the h-ASPL. The kernel finds each
host's switch from the host ports, then runs the weighted bit matrix of
:mod:`golf.evaluators.h_scoring` (columns: the switches with hosts, weighted by their host
counts). The level cap ``ctrl[0]`` is not used (every evaluation runs to the end; the search
rejects a larger h-diameter all the same). The work units are the 64-bit words of those
columns (as many as the switches can fill), which MPI ranks split (``parallel: {mode:
evaluator}``); the parts combine as every backend's do
(:func:`golf.kernels.merge.merge_parts`), the first unit's carrying the ``2 n (n-1)`` hops to
and from the switches.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from golf.evaluators.base import (CHUNK_WORDS, DISCONNECTED, OK, THREADS, Capabilities,
                                  CompiledEvaluator, cpu_threads)
from golf.evaluators.h_scoring import HostSwitchScores, score_columns, plan_chunks
from golf.hostswitch.ports import HOST_PORT
from golf.kernels.bits import aligned_zeros

__all__ = ["HostSwitchEvaluator", "score"]


# Not cached on disk, nor score_bfs: each calls a parallel (prange) function of
# golf.evaluators.h_scoring, and a cached copy written by a process that had compiled other
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
    status, pairs, top, peripheral = score_columns(adj, host_switch, cw, balance, bufs, scratch, w0,
                                            w1)
    if status != OK:
        out[0], out[1], out[2], out[3] = -1, 0, 0, DISCONNECTED
        return
    out[0] = top + 2 if top >= 0 else -1
    # the 2 hops to and from the switches, once for all parts: in the first unit's
    out[1] = pairs + (2 * hosts * (hosts - 1) if w0 == 0 < w1 else 0)
    out[2] = peripheral
    out[3] = OK


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
