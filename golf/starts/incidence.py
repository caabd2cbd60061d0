"""Incidence graphs of projective planes (Levi graphs): diameter 3, degree q + 1, on
2 (q^2 + q + 1) vertices, and the same less a pencil or an antiflag.

The Levi graph ``Levi_q`` of ``PG(2, q)`` (``q`` a prime power) has the ``q^2 + q + 1`` points
and the ``q^2 + q + 1`` lines of the plane as vertices, and joins a point to each line through
it: a point ``p`` lies on the line ``l`` when ``p . l = 0`` over ``GF(q)`` (the same
coordinates and field as :mod:`golf.starts.polarity`). Every point lies on ``q + 1`` lines and
every line holds ``q + 1`` points, so the graph is ``(q + 1)``-regular. Two points share exactly
one line and two lines exactly one point, so two vertices of one side are at distance 2, and a
point off a line is at distance 3 from it (through each of its lines, which meets that line).
It is bipartite with girth 6, and its distance counts from every vertex are ``q + 1`` at 1,
``q (q + 1)`` at 2 and ``q^2`` at 3: the Moore bound of ``(n, q + 1)`` for diameter 3, met
exactly. It serves pairs ``(n, d)`` with ``n`` near ``2 d^2``, above the order ``d^2 + 1`` that
diameter 2 allows: (1726, 30) of Graph Golf 2019 lies 16 vertices below ``Levi_29``, and
(512, 18) of 2021 16 below ``Levi_16`` less a pencil (:mod:`golf.starts.algebraic` says which
form it takes and why).

Deleting vertices from ``Levi_q`` takes two points apart when their one common line goes
(distance 4), so the two smaller forms delete whole pencils and join the points that lost a
line to each other:

* ``Levi_q`` **less a pencil** (:func:`pencil_deleted_edges`): a point ``p0`` and the ``q + 1``
  lines through it go. Every other point loses exactly one line (the one through ``p0``); the
  lines keep all their points. The points fall into ``q + 1`` groups of ``q`` (the deleted line
  each lay on), and a matching joins each point to a point of another group: two points of one
  group, which lost their common line, are then at distance 3 (``u``, the line through ``u``
  and ``v``'s partner, the partner, ``v``). ``2 q^2 + q`` vertices, degree ``q + 1``,
  diameter 3.
* ``Levi_q`` **less an antiflag** (:func:`antiflag_deleted_edges`): also a line ``l0`` not
  through ``p0`` and its ``q + 1`` points; the lines fall into groups by the point of ``l0``
  they lost and are matched across groups the same way. ``2 (q^2 - 1)`` vertices, degree
  ``q + 1`` (for even ``q`` one point and one line stay at ``q``: an odd count has no perfect
  matching), diameter 3.

The matching is the fixed one that pairs the ``i``-th vertex with the ``(i + h)``-th in group
order (``h`` half the count), which never pairs two of one group (a group is smaller than
``h``). Vertices are numbered point ``i`` as ``2 i`` and line ``i`` as ``2 i + 1`` (``i`` the
number of their coordinates in :mod:`golf.starts.polarity`), so that deleting the last ids
(:func:`golf.starts.fit.fit_edges`) takes points and lines alike; the smaller forms keep that
order over the vertices left. The graphs are the same on every machine.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from golf.starts.polarity import incidence

__all__ = ["levi_edges", "pencil_deleted_edges", "antiflag_deleted_edges"]


@lru_cache(maxsize=4)
def levi_edges(q: int) -> np.ndarray:
    """The edges of ``Levi_q`` (module docstring): ``(q^2 + q + 1)(q + 1)`` pairs ``u < v``,
    point ``i`` numbered ``2 i``, line ``i`` numbered ``2 i + 1``."""
    p, l = np.nonzero(incidence(q))
    return np.sort(np.stack([2 * p, 2 * l + 1], axis=1), axis=1)


def _less(q: int, antiflag: bool) -> np.ndarray:
    """``Levi_q`` less the pencil of the point ``(0, 0, 1)``, and with ``antiflag`` the first
    line not through it with its points; each side that lost a vertex matched across groups."""
    from golf.starts.fit import edge_pairs, neighbour_sets

    inc = incidence(q)
    size = len(inc)
    nbrs = neighbour_sets(levi_edges(q), 2 * size)
    p0 = size - 1
    pencil = np.flatnonzero(inc[p0])
    gone = {2 * p0} | {2 * int(l) + 1 for l in pencil}
    # a point's group: the deleted line through it
    groups = {"points": {2 * p: int(np.flatnonzero(inc[p, pencil])[0])
                         for p in range(size) if p != p0}}
    if antiflag:
        l0 = int(np.flatnonzero(~inc[p0])[0])
        on = np.flatnonzero(inc[:, l0])
        gone |= {2 * l0 + 1} | {2 * int(p) for p in on}
        groups["points"] = {v: k for v, k in groups["points"].items() if v not in gone}
        # a line's group: its deleted point on l0
        groups["lines"] = {2 * l + 1: int(np.flatnonzero(inc[on, l])[0])
                           for l in range(size) if 2 * l + 1 not in gone}
    for v in gone:
        for u in nbrs[v]:
            nbrs[u].discard(v)
        nbrs[v] = set()
    for group in groups.values():
        order = sorted(group, key=lambda v: (group[v], v))
        half = len(order) // 2
        for a, b in zip(order[:half], order[half:2 * half]):
            nbrs[a].add(b)
            nbrs[b].add(a)
    return edge_pairs(nbrs, gone)


@lru_cache(maxsize=4)
def pencil_deleted_edges(q: int) -> np.ndarray:
    """The edges of ``Levi_q`` less a pencil (module docstring): ``2 q^2 + q`` vertices of
    degree ``q + 1``, diameter 3; pairs ``u < v``."""
    return _less(q, antiflag=False)


@lru_cache(maxsize=4)
def antiflag_deleted_edges(q: int) -> np.ndarray:
    """The edges of ``Levi_q`` less an antiflag (module docstring): ``2 (q^2 - 1)`` vertices of
    degree ``q + 1`` (for even ``q`` two of degree ``q``), diameter 3; pairs ``u < v``."""
    return _less(q, antiflag=True)
