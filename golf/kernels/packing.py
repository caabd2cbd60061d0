"""The leaf-hub design of a hub spread (:mod:`golf.hostswitch.hubs`): leaves joined to hubs,
two leaves on a common hub two hops apart. :func:`pack` anneals the membership so that as many
pairs of leaves as it can share a hub: a move trades two memberships (leaf ``a`` leaves hub
``j`` for hub ``k``, leaf ``b`` leaves ``k`` for ``j``), which keeps every leaf's number of
hubs and every hub's number of leaves.

State, all int32 and changed in place:

``members``  ``(B, C)``: the leaves of each hub, -1 for a free place
``hubs_of``  ``(P, p)``: the hubs of each leaf, -1 for a free place
``common``   ``(P, P)``: how many hubs two leaves share (symmetric, 0 on the diagonal)
"""

from __future__ import annotations

import numpy as np
from numba import njit

from golf.kernels.rng import rng_below, rng_random

__all__ = ["common_counts", "covered", "pack"]


@njit(cache=True)
def common_counts(members, leaves):
    """The ``(P, P)`` counts of hubs two leaves share."""
    common = np.zeros((leaves, leaves), dtype=np.int32)
    for j in range(members.shape[0]):
        for s in range(members.shape[1]):
            x = members[j, s]
            if x < 0:
                continue
            for t in range(members.shape[1]):
                y = members[j, t]
                if y >= 0 and y != x:
                    common[x, y] += 1
    return common


@njit(cache=True)
def covered(common):
    """Pairs of leaves that share at least one hub."""
    c = 0
    for a in range(common.shape[0]):
        for b in range(a + 1, common.shape[0]):
            if common[a, b] > 0:
                c += 1
    return c


@njit(cache=True)
def _rows_covered(common, a, b):
    """Pairs with ``a`` or ``b`` in them that share a hub (the pair ``a, b`` once)."""
    c = 0
    for x in range(common.shape[0]):
        if x != a and common[a, x] > 0:
            c += 1
        if x != a and x != b and common[b, x] > 0:
            c += 1
    return c


@njit(cache=True)
def _swap_member(members, common, j, leaving, joining):
    """Leaf ``leaving`` leaves hub ``j`` and leaf ``joining`` takes its place."""
    for t in range(members.shape[1]):
        x = members[j, t]
        if x >= 0 and x != leaving:
            common[leaving, x] -= 1
            common[x, leaving] -= 1
            common[joining, x] += 1
            common[x, joining] += 1
    for t in range(members.shape[1]):
        if members[j, t] == leaving:
            members[j, t] = joining
            break


@njit(cache=True)
def _trade(members, common, a, b, j, k):
    """Leaf ``a`` from hub ``j`` to hub ``k``, leaf ``b`` from ``k`` to ``j``."""
    _swap_member(members, common, j, a, b)
    _swap_member(members, common, k, b, a)


@njit(cache=True)
def _holds(hubs_of, a, j):
    for t in range(hubs_of.shape[1]):
        if hubs_of[a, t] == j:
            return True
    return False


@njit(cache=True)
def pack(members, hubs_of, common, steps, t0, t1, st):
    """``steps`` proposed trades at a temperature falling geometrically from ``t0`` to
    ``t1`` (a trade that covers ``delta`` more pairs is taken when ``delta >= 0``, else with
    probability ``exp(delta / t)``); ends on the best state seen. Returns the pairs
    covered. ``st``: an xoshiro state (:mod:`golf.kernels.rng`), advanced."""
    leaves, width = hubs_of.shape
    cov = covered(common)
    best = cov
    best_members = members.copy()
    best_hubs = hubs_of.copy()
    for step in range(steps):
        a = rng_below(st, leaves)
        b = rng_below(st, leaves)
        ia = rng_below(st, width)
        ib = rng_below(st, width)
        j = hubs_of[a, ia]
        k = hubs_of[b, ib]
        if a == b or j < 0 or k < 0 or j == k or _holds(hubs_of, a, k) or _holds(
                hubs_of, b, j):
            continue
        t = t0 * (t1 / t0) ** (step / steps)
        before = _rows_covered(common, a, b)
        _trade(members, common, a, b, j, k)
        delta = _rows_covered(common, a, b) - before
        if delta >= 0 or rng_random(st) < np.exp(delta / t):
            hubs_of[a, ia] = k
            hubs_of[b, ib] = j
            cov += delta
            if cov > best:
                best = cov
                best_members[:] = members
                best_hubs[:] = hubs_of
        else:
            _trade(members, common, a, b, k, j)
    members[:] = best_members
    hubs_of[:] = best_hubs
    common[:] = common_counts(members, leaves)
    return best
