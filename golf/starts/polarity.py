"""Polarity graphs ER_q: diameter 2, degree q + 1, on q^2 + q + 1 vertices.

The Erdős–Rényi graph ``ER_q`` (Brown; Erdős, Rényi and Sós) of a prime power ``q`` has the
points of the projective plane ``PG(2, q)`` as vertices, and joins two distinct points ``u``
and ``v`` when ``u . v = u0 v0 + u1 v1 + u2 v2 = 0`` over the field ``GF(q)``: ``v`` lies on
the polar line of ``u``. Every polar line holds ``q + 1`` points, so every vertex has degree
``q + 1``, except the ``q + 1`` absolute points (``u . u = 0``, which lie on their own polar
line) of degree ``q``; it has ``q (q + 1)^2 / 2`` edges. Two points share exactly one polar
line's worth of common neighbours (the point where their two polar lines meet), so the graph
has no 4-cycle and diameter 2: within about ``sqrt(n)`` of the Moore bound ``d^2 + 1`` on the
order of a graph of degree ``d`` and diameter 2, the largest known graphs of that kind for
most ``d``. For ``q = 31`` it has 993 vertices of degree 32, near the Graph Golf pair
(1024, 32). Less polar lines it serves smaller degrees (:func:`line_deleted_edges`,
:func:`lines_deleted_edges`); plus vertices joined to polar lines, larger orders at diameter 2
(:func:`line_joined_edges`).

Vertices are numbered by the normalised coordinates of their points, first nonzero coordinate
1: ``(1, y, z)`` is vertex ``y*q + z``, ``(0, 1, z)`` is ``q^2 + z`` and ``(0, 0, 1)`` is
``q^2 + q``, with the field's elements numbered as below.

The field ``GF(p^k)``: an element is the polynomial ``c0 + c1 x + ... + c_{k-1} x^{k-1}`` over
``GF(p)``, numbered ``c0 + c1 p + ... + c_{k-1} p^{k-1}``; products are reduced modulo the
first monic irreducible polynomial of degree ``k`` in the order of those numbers, so the
numbering, and the graph, are the same on every machine.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from golf.errors import GolfError

__all__ = ["prime_power", "Field", "incidence", "polarity_graph", "polarity_edges", "line_deleted_edges",
           "lines_deleted_edges", "line_joined_edges"]


def prime_power(q: int) -> tuple[int, int] | None:
    """``(p, k)`` with ``q = p^k`` and ``p`` prime, or None when ``q`` is not a prime power."""
    if q < 2:
        return None
    p = next(f for f in range(2, q + 1) if q % f == 0)  # the smallest factor is prime
    k, r = 0, q
    while r % p == 0:
        r //= p
        k += 1
    return (p, k) if r == 1 else None


def _poly_mod(a: list, f: list, p: int) -> list:
    """``a`` modulo the monic ``f`` over GF(p) (coefficient lists, lowest degree first)."""
    a = list(a)
    k = len(f) - 1
    for i in range(len(a) - 1, k - 1, -1):
        c = a[i] % p
        if c:
            for j in range(k + 1):
                a[i - k + j] = (a[i - k + j] - c * f[j]) % p
    return [c % p for c in a[:k]] + [0] * max(0, k - len(a))


def _irreducible(p: int, k: int) -> list:
    """The first monic irreducible polynomial of degree ``k`` over GF(p), by the number of its
    lower coefficients: no monic factor of degree 1 .. k//2 divides it."""
    def monic(deg, number):
        coef = [(number // p**i) % p for i in range(deg)]
        return coef + [1]

    for number in range(p**k):
        f = monic(k, number)
        if not any(not any(_poly_mod(f, monic(e, m), p)) for e in range(1, k // 2 + 1)
                   for m in range(p**e)):
            return f
    raise AssertionError(f"no irreducible polynomial of degree {k} over GF({p})")


class Field:
    """``GF(q)`` for a prime power ``q``, as addition and multiplication tables over the
    element numbers ``0 .. q-1`` (module docstring); 0 and 1 are the field's 0 and 1."""

    def __init__(self, q: int):
        pk = prime_power(q)
        if pk is None:
            raise GolfError(f"GF(q) needs a prime power q, got {q}")
        self.q, (self.p, self.k) = q, pk
        p, k = pk
        digits = np.array([[(e // p**i) % p for i in range(k)] for e in range(q)], dtype=np.int64)
        weights = p ** np.arange(k, dtype=np.int64)
        self.add = ((digits[:, None, :] + digits[None, :, :]) % p) @ weights
        f = _irreducible(p, k)
        mul = np.zeros((q, q), dtype=np.int64)
        for a in range(q):
            for b in range(a, q):
                prod = [0] * (2 * k - 1)
                for i in range(k):
                    for j in range(k):
                        prod[i + j] += int(digits[a, i] * digits[b, j])
                value = int(np.dot(_poly_mod(prod, f, p), weights))
                mul[a, b] = mul[b, a] = value
        self.mul = mul


def _points(q: int) -> np.ndarray:
    """The ``q^2 + q + 1`` normalised points of PG(2, q), in vertex order (module docstring)."""
    y, z = np.divmod(np.arange(q * q), q)
    pts = [np.stack([np.ones(q * q, dtype=np.int64), y, z], axis=1),
           np.stack([np.zeros(q, dtype=np.int64), np.ones(q, dtype=np.int64),
                     np.arange(q)], axis=1),
           np.array([[0, 0, 1]])]
    return np.concatenate(pts).astype(np.int64)


@lru_cache(maxsize=4)
def incidence(q: int) -> np.ndarray:
    """``inc[u, v]``: ``u . v = 0`` over ``GF(q)`` for the points of PG(2, q) in vertex order,
    so point ``u`` lies on the line of coordinates ``v`` (the polar line of ``v``). Symmetric;
    its diagonal marks the absolute points. ``ER_q`` joins ``u != v`` where it holds;
    :mod:`golf.starts.incidence` joins point ``u`` to line ``v``."""
    field = Field(q)
    pts = _points(q)
    add, mul = field.add, field.mul
    inc = np.zeros((len(pts), len(pts)), dtype=bool)
    for u in range(len(pts)):
        a, b, c = pts[u]
        inc[u] = add[add[mul[a, pts[:, 0]], mul[b, pts[:, 1]]], mul[c, pts[:, 2]]] == 0
    return inc


@lru_cache(maxsize=8)
def polarity_edges(q: int) -> np.ndarray:
    """The edges of ``ER_q`` as an array of shape ``(q (q+1)^2 / 2, 2)``, ``u < v``, in
    row order."""
    return np.argwhere(np.triu(incidence(q), 1)).astype(np.int64)


@lru_cache(maxsize=8)
def line_deleted_edges(q: int) -> np.ndarray:
    """The edges of ``ER_q`` less one polar line, its pole joined back: ``q^2`` vertices of
    degree at most ``q``, diameter 3 (for ``q >= 3``); an array of ``u < v`` pairs.

    Deleting the ``q + 1`` neighbours of a vertex ``x`` (the points of its polar line ``x^⊥``)
    takes exactly one neighbour from every other vertex: the polar line of a point ``p`` meets
    ``x^⊥`` in one point. Only ``x`` is left bare. It is joined back to the ``q`` remaining
    neighbours of a vertex ``y`` whose polar line met ``x^⊥`` in an absolute point ``w``:
    those neighbours are joined to each other in pairs (``z`` to the point where ``z^⊥`` meets
    ``y^⊥``), and an absolute one to none, so dropping the pairs' edges frees one slot on each
    for ``x``. Two vertices lose their one path of length 2 where its middle vertex was deleted
    or a dropped edge, so the graph has diameter 3, with fewer than ``q^3 / 2`` pairs at
    distance 3.

    The choice of ``x``, ``w`` and ``y``: for even ``q`` the ``q + 1`` absolute points lie on one
    line, whose pole (the nucleus) is ``y``: ``x`` is the first vertex that is neither absolute
    nor the nucleus, and ``x`` comes back to the ``q`` absolute points left, which are not
    adjacent to each other. Every vertex has degree ``q``, and ``x`` and the nucleus have the
    same neighbours. Every such ``x`` gives the same (diameter, total) (checked for ``q`` = 4,
    8, 16, 32); for ``q = 32``, 1024 vertices of degree 32, the Graph Golf pair (1024, 32)
    exactly, it has ASPL 1.997157, below the 2016 record 1.998 (joining back the pole of the
    absolute line instead gives 1.999906). For odd ``q``, ``x`` is the first vertex with an
    absolute neighbour (its polar line holds two absolute points), ``w`` its first absolute
    neighbour and ``y`` the first neighbour of ``w`` other than ``x``; ``q - 2`` absolute
    points keep degree ``q - 1``. The other vertices keep their order, numbered
    ``0 .. q^2 - 1``.
    """
    from golf.starts.fit import edge_pairs

    n = q * q + q + 1
    nbrs = _neighbour_sets(q)
    absolute = np.array([len(s) for s in nbrs]) == q
    if q % 2 == 0:
        y = next(v for v in range(n) if absolute[list(nbrs[v])].all() and not absolute[v])
        x = next(v for v in range(n) if not absolute[v] and v != y)
    else:
        x = next(v for v in range(n) if not absolute[v] and absolute[list(nbrs[v])].any())
        w = min(v for v in nbrs[x] if absolute[v])
        y = min(nbrs[w] - {x})
    gone = set(nbrs[x])
    for v in gone:
        for u in nbrs[v]:
            if u not in gone:
                nbrs[u].discard(v)
    for v in gone:
        nbrs[v] = set()
    ring = set(nbrs[y])
    for z in ring:
        nbrs[z] -= ring
    for z in ring:
        nbrs[z].add(x)
        nbrs[x].add(z)
    return edge_pairs(nbrs, gone)


def lines_deleted_edges(q: int, k: int, seed: int = 0) -> np.ndarray:
    """The edges of ``ER_q`` less the polar lines of ``k >= 2`` points and those points: about
    ``q^2 + q + 1 - k (q + 2) + k (k - 1) / 2`` vertices of degree ``q + 1 - k`` (a few one
    less), diameter 4 with a few dozen pairs at distance 4 (``q`` from 7 to 32); an array of
    ``u < v`` pairs.

    Every other vertex loses one neighbour to each deleted line (its polar line meets each one
    once), so ``k`` in all, but for those whose polar line passes through a point where two
    deleted lines meet (about ``k (k - 1) / 2`` lines of ``q + 1`` points): they lose fewer,
    and give up edges to each other (in vertex order, an edge where both ends are still above
    ``q + 1 - k``), then to their fullest neighbours, until none is above. The ``k`` points are
    drawn for ``seed`` among the vertices that are not absolute; the others keep their order.
    ``ER_59`` less 3 lines has about 3361 vertices of degree 57, and fitted to (3250, 57)
    (:func:`golf.starts.fit.fit_edges`, seed 0) it scores ASPL 2.05385 before any search (the
    2016 record: 2.070).
    """
    if k < 2:
        raise GolfError(f"lines_deleted_edges deletes k >= 2 lines, got {k}")
    from golf.starts.fit import edge_pairs

    nbrs = _neighbour_sets(q)
    n, top = len(nbrs), q + 1 - k
    rng = np.random.default_rng(seed)
    plain = np.flatnonzero([len(s) == q + 1 for s in nbrs])
    poles = {int(x) for x in rng.choice(plain, size=k, replace=False)}
    gone = set(poles).union(*(nbrs[x] for x in poles))
    for v in gone:
        for u in nbrs[v]:
            nbrs[u].discard(v)
        nbrs[v] = set()
    for v in range(n):
        for u in sorted(nbrs[v]):
            if len(nbrs[v]) > top and len(nbrs[u]) > top:
                nbrs[v].discard(u)
                nbrs[u].discard(v)
    for v in range(n):
        while len(nbrs[v]) > top:
            u = max(sorted(nbrs[v]), key=lambda t: len(nbrs[t]))
            nbrs[v].discard(u)
            nbrs[u].discard(v)
    return edge_pairs(nbrs, gone)


# the lines line_joined_edges weighs for each added vertex (all of them in a smaller plane)
LINES_DRAWN = 512


@lru_cache(maxsize=8)
def line_joined_edges(q: int, t: int, seed: int = 0) -> np.ndarray:
    """The edges of ``ER_q`` plus ``t`` vertices, each joined to the ``q + 1`` points of its
    own polar line: ``q^2 + q + 1 + t`` vertices, diameter 2; an array of ``u < v`` pairs.

    Every point lies within 2 of an added vertex (its polar line meets the added vertex's
    line, and a point on that line is its neighbour) and two added vertices share the point
    where their lines meet, so the diameter of ``ER_q`` stays 2. A point gains one neighbour
    for each chosen line through it: the lines are taken one by one, each the one whose
    points carry the fewest added neighbours so far (the smallest largest count, then the
    smallest sum; ties drawn for ``seed``), so that the degrees stay near
    ``q + 1 + t (q + 1) / (q^2 + q + 1)``. ``ER_17`` plus 35 for (342, 24): degree at most 21,
    and with its free slots joined (:func:`golf.starts.fit.fit_edges`) every vertex of degree
    24: the Moore bound of diameter 2 met.
    """
    from golf.starts.fit import edge_pairs

    order = q * q + q + 1
    if not 0 <= t <= order:
        raise GolfError(f"ER_{q} has {order} polar lines; cannot join {t} vertices to them")
    inc = incidence(q)
    nbrs = _neighbour_sets(q) + [set() for _ in range(t)]
    load = np.zeros(order, dtype=np.int64)
    free = np.ones(order, dtype=bool)  # poles whose line is not taken yet
    rng = np.random.default_rng(seed)
    for i in range(t):
        poles = np.flatnonzero(free)
        if len(poles) > LINES_DRAWN:  # a large plane: the best of a random draw of lines
            poles = rng.choice(poles, size=LINES_DRAWN, replace=False)
        rows = inc[poles]
        worst = np.where(rows, load[None, :], -1).max(axis=1)
        key = worst * (order * (q + 2)) + rows.astype(np.int64) @ load
        best = poles[key == key.min()]
        pole = int(best[rng.integers(len(best))])
        free[pole] = False
        x = order + i
        for u in np.flatnonzero(inc[pole]).tolist():
            nbrs[u].add(x)
            nbrs[x].add(u)
        load[inc[pole]] += 1
    return edge_pairs(nbrs)


def _neighbour_sets(q: int) -> list:
    """``ER_q``'s neighbours of each vertex, as sets to edit."""
    from golf.starts.fit import neighbour_sets

    return neighbour_sets(polarity_edges(q), q * q + q + 1)


def polarity_graph(q: int, d: int | None = None):
    """``ER_q`` as a :class:`golf.Graph` (``g = 1``; rows ``d`` wide, default ``q + 1``).

    >>> from golf.starts.polarity import polarity_graph
    >>> graph = polarity_graph(7)       # 57 vertices of degree 8 (8 of degree 7)
    >>> import golf
    >>> golf.evaluate(graph).diameter
    2
    """
    from golf.graph import Graph

    if d is not None and d < q + 1:
        raise GolfError(f"ER_{q} has degree {q + 1}; rows of {d} slots cannot hold it")
    return Graph.from_edges(polarity_edges(q), n=q * q + q + 1, d=d or q + 1,
                            source=f"ER_{q}")
