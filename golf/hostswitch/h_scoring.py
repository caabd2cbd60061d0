"""Exact h-scores of a host-switch graph on the CPU: h-diameter, h-total, h-ASPL.

Distances between hosts follow from the switch graph alone. Two hosts on one switch are 2
hops apart (host, switch, host); hosts on switches ``a != b`` are ``dist(a, b) + 2`` apart,
where ``dist`` is the hop distance in the switch graph. With ``h_a`` hosts on switch ``a``,
the sum over the ``C(n, 2)`` unordered host pairs is::

    total = 2 * sum_a C(h_a, 2) + sum_{a<b} h_a h_b (dist(a, b) + 2)
          = 2 * C(n, 2) + sum_{a<b} h_a h_b dist(a, b)

since ``sum_a C(h_a, 2) + sum_{a<b} h_a h_b = C(n, 2)``. A BFS from every switch ``a`` that
holds hosts gives ``W_a = sum_b h_b dist(a, b)`` (switches without hosts weigh nothing), and
``sum_{a<b} h_a h_b dist(a, b) = (sum_a h_a W_a) / 2``. The h-ASPL is ``total / C(n, 2)``.

The h-diameter is ``2 +`` the largest ``dist(a, b)`` over switches ``a != b`` that hold hosts
(2 when every host is on one switch, 0 for a single host). A host's eccentricity over the
other hosts is ``2 +`` its switch's largest such distance (0 with a second host on the same
switch); the *peripheral* hosts are those whose eccentricity is the h-diameter. When two
hosts cannot reach each other the graph is disconnected, reported as every golf evaluator
reports it: a :class:`golf.evaluators.base.Score` with status ``DISCONNECTED`` and no
diameter or total. Switches without hosts, connected or not, change nothing but the paths.

Everything is an integer: per-source sums in int64 in the kernel (``W_a < n * s``), the sum
of ``h_a W_a`` in Python integers.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from golf.evaluators.base import DISCONNECTED, OK, Score
from golf.hostswitch.network import HostSwitchGraph

__all__ = ["h_score", "hosts_reached", "switch_sums"]


@njit(cache=True, parallel=True)
def switch_sums(adj, counts, sources, wsum, far, reached):
    """BFS in the switch graph from each switch of ``sources``, weighted by host counts.

    Parameters
    ----------
    adj : int32 ``(s, r)``
        The switch graph's rows (-1: a free slot).
    counts : int64 ``(s,)``
        Hosts on each switch.
    sources : int64 ``(k,)``
        The switches to start from (those with hosts).
    wsum, far, reached : int64 ``(k,)``, written
        For source ``t`` at switch ``a``: ``W_a = sum_b counts[b] * dist(a, b)`` over the
        switches it reaches; the largest ``dist(a, b)`` to a switch ``b != a`` with hosts
        that it reaches (0 if none); and the number of hosts on the switches it reaches,
        its own included.
    """
    s = adj.shape[0]
    for t in prange(sources.shape[0]):
        a = sources[t]
        dist = np.full(s, -1, dtype=np.int64)
        queue = np.empty(s, dtype=np.int64)
        dist[a] = 0
        queue[0] = a
        head, tail = 0, 1
        w, hosts = 0, counts[a]
        top = 0
        while head < tail:
            v = queue[head]
            head += 1
            dv = dist[v] + 1
            for j in range(adj.shape[1]):
                u = adj[v, j]
                if u >= 0 and dist[u] < 0:
                    dist[u] = dv
                    queue[tail] = u
                    tail += 1
                    if counts[u] > 0:
                        w += counts[u] * dv
                        hosts += counts[u]
                        top = dv  # BFS order: the last host switch found is the farthest
        wsum[t] = w
        far[t] = top
        reached[t] = hosts


def h_score(net: HostSwitchGraph, threads: int | None = None) -> Score:
    """The exact h-scores of a host-switch graph (module docstring for the formulas).

    Parameters
    ----------
    net : HostSwitchGraph
    threads : int, optional
        Numba threads for the BFS (default: Numba's setting, all usable cores).

    Returns
    -------
    Score
        ``n`` the hosts, ``diameter`` the h-diameter, ``total`` the sum of distances over
        the unordered host pairs (``aspl = total / C(n, 2)``), ``peripheral`` the hosts
        whose eccentricity is the h-diameter; status ``DISCONNECTED`` (no diameter, no
        total) when some two hosts cannot reach each other.

    Examples
    --------
    >>> from golf.hostswitch import HostSwitchGraph
    >>> net = HostSwitchGraph.from_edges(4, 2, 3, [(0, 4), (1, 4), (2, 5), (3, 5), (4, 5)])
    >>> score = h_score(net)
    >>> score.diameter, score.total, score.aspl
    (3, 16, 2.6666666666666665)
    """
    n = net.n
    counts = net.host_counts
    sources = np.flatnonzero(counts).astype(np.int64)
    k = len(sources)
    wsum, far, reached = (np.zeros(k, dtype=np.int64) for _ in range(3))
    adj = net.switches.adj
    if threads is None:
        switch_sums(adj, counts, sources, wsum, far, reached)
    else:
        import numba

        before = numba.get_num_threads()
        numba.set_num_threads(max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS)))
        try:
            switch_sums(adj, counts, sources, wsum, far, reached)
        finally:
            numba.set_num_threads(before)
    if n == 1:
        return Score(1, 0, 0, 1, OK)
    if (reached != n).any():
        return Score(n, None, None, 0, DISCONNECTED)
    pair_sum = sum(int(h) * int(w) for h, w in zip(counts[sources], wsum))
    total = n * (n - 1) + pair_sum // 2
    top = int(far.max())
    peripheral = int(counts[sources][far == top].sum())
    return Score(n, top + 2, total, peripheral, OK)


def hosts_reached(net: HostSwitchGraph) -> int:
    """How many hosts host 0 reaches, itself included (``net.n``: the hosts are connected);
    one BFS over the switches."""
    counts = net.host_counts
    sources = np.array([net.host_switch[0]], dtype=np.int64)
    wsum, far, reached = (np.zeros(1, dtype=np.int64) for _ in range(3))
    switch_sums(net.switches.adj, counts, sources, wsum, far, reached)
    return int(reached[0])
