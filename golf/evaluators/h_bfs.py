"""The host-switch backend ``bfs``: h-scores of port rows by one plain BFS over the switches
from each switch with hosts, weighted by host counts (registry name ``bfs`` for host-switch
problems, class name ``h-bfs``): the plain method beside the bit matrix of
:mod:`golf.evaluators.h_bitset`, for long, thin switch graphs and for splitting over many MPI
ranks (a unit a switch). Its kernel has the call shape and the output of
:func:`golf.evaluators.h_bitset.score`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from golf.evaluators.base import DISCONNECTED, OK, THREADS, CompiledEvaluator
from golf.evaluators.h_bitset import HostSwitchEvaluator
from golf.evaluators.h_scoring import switch_sums
from golf.hostswitch.ports import HOST_PORT

__all__ = ["HostSwitchBfsEvaluator", "score_bfs"]


@njit  # not cached: see golf.evaluators.h_bitset.score
def score_bfs(adj, ctrl, out, n, hosts, counts, sources, wsum, far, reached):
    """The h-scores of the port rows ``adj`` (``n`` switches) by one BFS over the switches
    from each switch with hosts among the units ``[ctrl[1], ctrl[2])`` (a unit a switch;
    :func:`golf.evaluators.h_scoring.switch_sums`), into ``out`` as
    :func:`golf.evaluators.h_bitset.score` writes them:
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
