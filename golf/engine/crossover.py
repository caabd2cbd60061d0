"""Crossover of two graphs of one symmetry form, the recombination of a memetic search.

A graph of a form (cyclic ``g`` or a group of order ``g``, :mod:`golf.graph`) is a set of
**edge orbits**. In the base rows an orbit holds one or two slots: the edge ``i -- w`` with
``w = h*m + j`` has its other end in row ``j``, the vertex ``h^-1 i`` (:func:`orbits`); a half
orbit (``h`` an involution joining ``i`` to ``h i``) holds one slot.

:func:`crossover` keeps structure: the child takes every orbit of parent ``a`` that touches a
**ball** of base vertices (:func:`ball`: the base vertices within a few hops of a root in the
quotient graph, where the rows of ``a`` meet), then the orbits of parent ``b`` that still fit
(a free slot in each row they use, no repeated neighbour), in a random order, then **repairs**
the degrees: random orbits between rows with free slots, as a random start lays them
(:func:`repair`). The child is a graph of the same form with degree at most ``d``; it may be
disconnected (its score says so). The same generator state gives the same child.

On a grid problem (``reach``: :meth:`golf.grid.Grid.reach`, every edge at most ``limit``
long in Manhattan distance) the kept part is a **block** of the lattice (:func:`block`): the
base vertices of the cells in a square around a random cell, so that the child takes ``a``'s
orbits there and at the square's rotations (an orbit's edges are rotations of one another);
the repair draws each new orbit among the cells within reach of a free port, so that the
child keeps the limit.

Forms with centre vertices are not handled (a GolfError says so).
"""

from __future__ import annotations

import functools

import numpy as np

from golf.errors import GolfError
from golf.graph import Graph

__all__ = ["orbits", "ball", "block", "crossover", "repair"]

# random orbits drawn per free slot before the repair gives up on a graph
REPAIR_TRIES = 64


def _partner(graph: Graph, i: int, w: int) -> tuple[int, int]:
    """The other slot ``(row, value)`` of the orbit of slot ``(i, w)``."""
    j, back = graph.reverse_slots(i, w)
    return int(j), int(back)


def orbits(graph: Graph) -> list[tuple]:
    """The edge orbits of ``graph`` as sorted tuples of base slots ``(row, value)``, each
    orbit once, in row order."""
    _no_centres(graph)
    m, d = graph.adj.shape
    i = np.repeat(np.arange(m, dtype=np.int64), d)
    w = graph.adj.ravel().astype(np.int64)
    i, w = i[w >= 0], w[w >= 0]
    i2, w2 = graph.reverse_slots(i, w)  # every slot's partner at once
    seen: set = set()
    out = []
    for slot, other in zip(zip(i.tolist(), w.tolist()), zip(i2.tolist(), w2.tolist())):
        if slot in seen:
            continue
        seen.update((slot, other))
        out.append(tuple(sorted({slot, other})))
    return out


def ball(graph: Graph, root: int, size: int) -> set:
    """At least ``size`` base vertices (all ``m`` at most) nearest ``root`` in the quotient
    graph of ``graph`` (base vertex ``i`` next to ``w mod m`` for each neighbour ``w``), a
    whole last level included."""
    m = graph.m
    size = max(1, min(int(size), m))
    seen, level = {int(root) % m}, [int(root) % m]
    while len(seen) < size and level:
        nxt = []
        for i in level:
            for w in graph.adj[i].tolist():
                j = w % m if w >= 0 else -1
                if j >= 0 and j not in seen:
                    seen.add(j)
                    nxt.append(j)
        level = nxt
    return seen


def _cells(reach) -> tuple[int, int, int, np.ndarray, np.ndarray]:
    """``(limit, w, h, cell of each vertex, vertex of each cell)`` of a grid's ``reach``."""
    limit, w, h = (int(x) for x in reach[:3])
    n = (len(reach) - 3 - w * h) // 2
    return limit, w, h, reach[3:3 + 2 * n].reshape(n, 2), reach[3 + 2 * n:].reshape(h, w)


def block(graph: Graph, reach, root: int, size: int) -> set:
    """At least ``size`` base vertices (all ``m`` at most) of the cells in the smallest square
    around the cell of vertex ``root`` whose cells' base vertices are that many."""
    _, w, h, cell, vertex = _cells(reach)
    m = graph.m
    size = max(1, min(int(size), m))
    x, y = (int(c) for c in cell[int(root) % len(cell)])
    for radius in range(max(w, h) + 1):
        square = vertex[max(0, y - radius):y + radius + 1, max(0, x - radius):x + radius + 1]
        keep = {int(v) % m for v in square.ravel() if v >= 0}
        if len(keep) >= size:
            return keep
    return set(range(m))


class _Rows:
    """The child's rows as sets of neighbours, with the capacity ``d``."""

    def __init__(self, m: int, d: int):
        self.sets = [set() for _ in range(m)]
        self.d = d

    def fits(self, orbit) -> bool:
        need: dict = {}
        for r, v in orbit:
            if v in self.sets[r]:
                return False
            need[r] = need.get(r, 0) + 1
        return all(len(self.sets[r]) + k <= self.d for r, k in need.items())

    def put(self, orbit) -> None:
        for r, v in orbit:
            self.sets[r].add(v)

    def graph(self, like: Graph) -> Graph:
        adj = np.full((like.m, like.d), -1, dtype=np.int32)
        for r, vals in enumerate(self.sets):
            adj[r, :len(vals)] = sorted(vals)
        return like.with_rows(adj)


def crossover(a: Graph, b: Graph, keep: set, rng: np.random.Generator, reach=None) -> Graph:
    """The child of ``a`` and ``b`` (one form): the orbits of ``a`` that touch the base
    vertices ``keep``, the orbits of ``b`` that fit (in an order drawn from ``rng``), then
    :func:`repair` (within a grid's ``reach``; module docstring)."""
    if a.form != b.form or a.d != b.d:
        raise GolfError(f"crossover: parents of different forms ({a!r}, {b!r})")
    _no_centres(a)
    rows = _Rows(a.m, a.d)
    for orbit in orbits(a):
        if any(r in keep for r, _ in orbit):
            rows.put(orbit)
    others = orbits(b)
    for k in rng.permutation(len(others)).tolist():
        if rows.fits(others[k]):
            rows.put(others[k])
    repair(rows, a, rng, reach)
    return rows.graph(a)


def repair(rows: _Rows, like: Graph, rng: np.random.Generator, reach=None) -> None:
    """Fill free slots of ``rows`` with random orbits of the form of ``like``: a row with a
    free slot, another (or the same, with two free, or one where the element is an
    involution) and a random group element -- on a grid (``reach``), a vertex of a cell within
    reach of the row's cell whose row has a free slot -- until :data:`REPAIR_TRIES` draws a
    row with free slots in a row place nothing."""
    m, g = like.m, like.g
    within = (_reach_lists(np.asarray(reach, dtype=np.int64).tobytes(), m)
              if reach is not None else None)
    open_ = [r for r in range(m) if len(rows.sets[r]) < rows.d]
    free = set(open_)
    fails = 0
    while open_ and fails < REPAIR_TRIES * len(open_):
        x = open_[int(rng.integers(len(open_)))]
        if within is None:
            y = open_[int(rng.integers(len(open_)))]
            v = int(like.moved(y, int(rng.integers(g))))
        else:
            near = [v for v in within[x] if v % m in free]
            if not near:
                fails += 1
                continue
            v = near[int(rng.integers(len(near)))]
        orbit = tuple(sorted({(x, v), _partner(like, x, v)}))
        if x == v or not rows.fits(orbit):  # a self-loop, a repeat or no room
            fails += 1
            continue
        rows.put(orbit)
        fails = 0
        still = [r for r in open_ if len(rows.sets[r]) < rows.d]
        if len(still) < len(open_):  # a row filled
            open_, free = still, set(still)


@functools.lru_cache(maxsize=8)
def _reach_lists(reach: bytes, m: int) -> tuple:
    """For each base vertex ``x`` (of ``m``), the vertices of the cells within reach of its
    cell, row by row of the lattice, ``x`` itself left out; ``reach`` the bytes of a grid's
    int64 reach array (:meth:`golf.grid.Grid.reach`), so that each grid's lists are built
    once."""
    limit, w, h, cell, vertex = _cells(np.frombuffer(reach, dtype=np.int64))
    lists = []
    for x in range(m):
        cx, cy = (int(c) for c in cell[x])
        out = []
        for y in range(max(0, cy - limit), min(h, cy + limit + 1)):
            span = limit - abs(y - cy)
            out += [int(v) for v in vertex[y, max(0, cx - span):min(w, cx + span + 1)].tolist()
                    if v >= 0 and v != x]
        lists.append(tuple(out))
    return tuple(lists)


def _no_centres(graph: Graph) -> None:
    if graph.centres:
        raise GolfError(f"crossover: forms with centre vertices are not handled ({graph!r})")
