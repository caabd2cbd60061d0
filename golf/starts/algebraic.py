"""Algebraic start graphs for dense pairs: a construction from the degree-diameter literature
near ``(n, d)``, fitted to it (:mod:`golf.starts.fit`).

For a pair with a large degree the best graphs have almost every pair of vertices at
distance 2, which local moves from a random graph do not reach. The constructions
(:mod:`golf.starts.polarity`), for each prime power ``q``:

* ``ER_q``, the polarity graph: ``q^2 + q + 1`` vertices of degree ``q + 1``, diameter 2;
* ``ER_q-line``: ``ER_q`` less one polar line, its pole joined back: ``q^2`` vertices of degree
  ``q``, diameter 3;
* ``ER_q-klines``: ``ER_q`` less ``k`` polar lines (``2 <= k <= q /`` :data:`LINES_PER`) and their
  poles: about ``q^2 + q + 1 - k (q + 2)`` vertices of degree ``q + 1 - k``. Deleting a line
  takes one neighbour from every other vertex, so this brings a larger plane down to ``d``;
* ``ER_q+t``: ``ER_q`` plus ``t`` vertices, each joined to the ``q + 1`` points of its own
  polar line, the lines sharing the added neighbours out evenly
  (:func:`golf.starts.polarity.line_joined_edges`): ``q^2 + q + 1 + t`` vertices, diameter 2,
  degree about ``q + 1 + t (q + 1) / (q^2 + q + 1)``, for ``q + 2 <= d``. Its free slots
  joined and the odd ends filled by splitting edges where diameter 2 holds
  (:func:`golf.starts.fit.split_within_2`), ``ER_17+35`` is a 24-regular graph of diameter 2
  on 342 vertices: the Moore bound of (342, 24) met;

and, for pairs above the order ``d^2 + 1`` that diameter 2 allows, the incidence graphs of the
planes (:mod:`golf.starts.incidence`), of diameter 3:

* ``Levi_q``: ``2 (q^2 + q + 1)`` vertices of degree ``q + 1``, the Moore bound for diameter 3
  met exactly;
* ``Levi_q-pencil``: less a point and the lines through it, ``2 q^2 + q`` vertices;
* ``Levi_q-antiflag``: less also a line not through that point and its points, ``2 (q^2 - 1)``
  vertices.

:func:`constructions` lists, for each ``q``, ``ER_q`` less the fewest lines that bring its
degree to ``d`` or below, and less one more, and the three incidence forms of degree
``q + 1 <= d`` (and at least ``d - d /`` :data:`LINES_PER`), where the order lies within
:data:`NEAR` of ``n``; and ``ER_q+t`` where ``n = q^2 + q + 1 + t`` and the lines' average
load fits ``d``. :func:`construction_for` takes the ``ER_q+t`` of the largest ``q`` whose
built degrees fit ``d`` (diameter 2 before any search); else a polarity graph where one is
near: the one of the fullest degree (the fitting must join every slot left free
with edges the construction did not choose), then the nearest order (each vertex added or
deleted cuts paths of length 2); and where a polarity graph of order below ``n`` is near, the
fullest of those, nearest below, is fitted beside it and the better fit (seed 0) is taken:
added vertices that share the old free slots and join among themselves cost less than
deleted lines on (1560, 40). The choice takes 5.6 s on (1560, 40) and 47 s on (3250, 57)
(``ER_53`` plus 387 fitted both ways beside ``ER_59-3lines``; 2 cores). Else it takes the
incidence form whose fit (seed 0; the fit keeps diameter 3,
:func:`golf.starts.fit.fit_edges`) scores best (:func:`fitted_score`; the five fits of
(1726, 30) take 6.5 s on 2 cores, the four of (512, 18) 1.2 s; above :data:`FIT_ALL_MAX`
vertices, where the five near (2978, 42) took 5 minutes, the one of the fullest degree, then
the nearest order): no rule of
degree and order picks it. On (512, 18) ``Levi_16-pencil`` (528 vertices, degree 17; 16
deleted) fits to 3 / 2.346517, ``Levi_16-antiflag`` (510; 2 added) to
3 / 2.348719 and ``Levi_17-antiflag`` (576, degree 18; 64 deleted) to 3 / 2.358939; on
(1726, 30) ``Levi_29`` less 16 vertices fits to 3 / 2.461375 (the Moore bound: 2.460870) and
``Levi_29-pencil`` plus 15 to 4 / 2.464410. The polarity graphs, every candidate fitted
(seed 0; 2-core machine, 2026-11-27), (diameter, ASPL) and excess ratio against the 2016
records, the chosen one first:

==========  ===============================================================================
pair        fitted starts
==========  ===============================================================================
(1024, 32)  ``ER_32-line`` 3 / 1.99716 (0.97, below the record 1.998); ``ER_31`` 2.02373
            (1.88), ``ER_31-line`` 2.04115, ``ER_32-2lines`` D=4, ``ER_29`` 2.08194,
            ``ER_37-7lines`` 2.13910
(1560, 40)  ``ER_37`` plus 153, 3 / 2.04420 (1.10); ``ER_41-2lines`` 2.05038 (1.19),
            ``ER_41-3lines`` 2.05043, ``ER_37-line`` 2.07112, ``ER_43-5lines`` 2.09889,
            ``ER_43-4lines`` 2.10120
(3250, 57)  ``ER_59-3lines`` 3 / 2.05385 (0.82, below the record 2.070); ``ER_59-4lines``
            2.05452 (0.82), ``ER_53`` 2.07701 (1.08), ``ER_53-line`` 2.09312,
            ``ER_61-5lines`` 2.09480, ``ER_61-6lines``, ``ER_64-9lines``, ``ER_64-8lines``
(64, 8)     ``ER_8-line`` 3 / 1.95784 (1.57); ``ER_9-2lines`` 2.01141, ``ER_7`` 2.01736
(60, 8)     ``ER_7`` 3 / 1.92034; ``ER_8-line`` 1.95367, ``ER_8-2lines`` 2.02994
==========  ===============================================================================

The start is not symmetric in golf's numbering: it needs ``problem.g: 1``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from golf.errors import GolfError

__all__ = ["NEAR", "LINES_PER", "LEVI_FORMS", "Construction", "constructions", "construction_for",
           "fitted_score", "fitted_edges", "algebraic_graph"]

# a construction is near (n, d) when its order is within this fraction of n, either side
NEAR = 0.15
# ER_q loses at most q / LINES_PER polar lines: more would leave a sparse graph (order far
# above the square of its degree), where the symmetric forms serve better
LINES_PER = 4


# the forms of an incidence graph (Construction.lines for family "Levi")
LEVI_FORMS = ("", "-pencil", "-antiflag")


class Construction(NamedTuple):
    """A construction: of :mod:`golf.starts.polarity` (``family`` "ER"), ``ER_q`` less
    ``lines`` polar lines (``ER_31``, ``ER_32-line``, ``ER_59-3lines``), or ("ER+") plus
    ``lines`` vertices joined to polar lines (``ER_17+35``); of
    :mod:`golf.starts.incidence` ("Levi"), ``Levi_q`` whole, less a pencil or less an antiflag
    (``lines`` 0, 1, 2: ``Levi_29``, ``Levi_29-pencil``, ``Levi_16-antiflag``). Its order (for
    two polar lines or more, where the lines meet in distinct points) and degree."""

    q: int
    lines: int
    order: int
    degree: int
    family: str = "ER"

    @property
    def name(self) -> str:
        if self.family == "Levi":
            return f"Levi_{self.q}{LEVI_FORMS[self.lines]}"
        if self.family == "ER+":
            return f"ER_{self.q}+{self.lines}"
        tail = {0: "", 1: "-line"}.get(self.lines, f"-{self.lines}lines")
        return f"ER_{self.q}{tail}"

    @property
    def label(self) -> str:
        if self.family == "Levi":
            what = ("", "less a pencil, ", "less an antiflag, ")[self.lines]
            return (f"{self.name} (the incidence graph of PG(2, {self.q}), {what}{self.order} "
                    f"vertices, degree {self.degree}, diameter 3)")
        if self.family == "ER+":
            return (f"{self.name} (ER_{self.q} plus {self.lines} vertices, each joined to the "
                    f"points of a polar line, {self.order} vertices, degree about "
                    f"{self.degree}, diameter 2)")
        what = ("", "less a polar line, ", f"less {self.lines} polar lines and their poles, ")
        return (f"{self.name} ({what[min(self.lines, 2)]}{self.order} vertices, degree "
                f"{self.degree}, diameter {(2, 3, 4)[min(self.lines, 2)]})")

    def edges(self, seed: int = 0):
        """The construction's edges (``seed`` draws the poles of two polar lines or more)."""
        from golf.starts import incidence
        from golf.starts.polarity import (line_deleted_edges, line_joined_edges,
                                          lines_deleted_edges, polarity_edges)

        if self.family == "ER+":  # the lines for seed 0 (whose degrees construction_for checked)
            return line_joined_edges(self.q, self.lines, 0)
        if self.family == "Levi":
            return (incidence.levi_edges, incidence.pencil_deleted_edges,
                    incidence.antiflag_deleted_edges)[self.lines](self.q)
        if self.lines == 0:
            return polarity_edges(self.q)
        if self.lines == 1:
            return line_deleted_edges(self.q)
        return lines_deleted_edges(self.q, self.lines, seed)


def _construction(q: int, lines: int) -> Construction:
    k = lines
    order = (q * q + q + 1 if k == 0 else q * q if k == 1 else
             q * q + q + 1 - k * (q + 2) + k * (k - 1) // 2)
    return Construction(q, k, order, q + 1 - k)


def _joined(q: int, t: int) -> Construction:
    """``ER_q`` plus ``t`` vertices joined to polar lines; its degree: ``q + 1`` and the
    added neighbours of a point, if the lines share them out evenly."""
    base = q * q + q + 1
    return Construction(q, t, base + t, q + 1 + -(-t * (q + 1) // base), "ER+")


def _levi(q: int, form: int) -> Construction:
    order = (2 * (q * q + q + 1), 2 * q * q + q, 2 * (q * q - 1))[form]
    return Construction(q, form, order, q + 1, "Levi")


def constructions(n: int, d: int) -> list[Construction]:
    """Every construction of degree at most ``d`` whose order lies within :data:`NEAR` of
    ``n``: for each prime power ``q``, ``ER_q`` less the fewest
    lines that bring its degree to ``d`` or below, and less one more; where ``n > d^2 + 1``,
    the three forms of ``Levi_q`` for ``d - d /`` :data:`LINES_PER` ``<= q + 1 <= d`` (``q >=
    3``)."""
    from golf.starts.polarity import prime_power

    out = []
    for q in range(2, d + d // (LINES_PER - 1) + 2):
        if prime_power(q):
            least = max(0, q + 1 - d)
            for k in (least, least + 1):
                c = _construction(q, k)
                if k <= q // LINES_PER and abs(c.order - n) <= NEAR * n:
                    out.append(c)
    for q in range(2, d - 1):  # plus vertices joined to polar lines: diameter 2
        base = q * q + q + 1
        if prime_power(q) and base < n <= base + base * (d - q - 1) // (q + 1):
            out.append(_joined(q, n - base))
    if n > d * d + 1:
        for q in range(max(3, d - d // LINES_PER - 1), d):
            if prime_power(q):
                out += [c for c in (_levi(q, f) for f in range(3)) if abs(c.order - n) <= NEAR * n]
    return out


def construction_for(n: int, d: int) -> Construction | None:
    """The construction the ``algebraic`` start fits to ``(n, d)`` (module docstring), or None
    where none is near."""
    found = constructions(n, d)
    joined = sorted((c for c in found if c.family == "ER+"), key=lambda c: -c.q)
    for c in joined:  # diameter 2 as built: the largest plane whose lines' degrees fit d
        if _joined_fits(c, d):
            return c
    polar = [c for c in found if c.family == "ER"]
    if polar:
        pick = min(polar, key=lambda c: (d - c.degree, abs(n - c.order)))
        below = [c for c in polar if c.order < n]
        if below:  # the fullest one that vertices are added to, against it, fitted
            grow = min(below, key=lambda c: (d - c.degree, n - c.order))
            if grow != pick:
                return min((pick, grow), key=lambda c: fitted_score(c, n, d))
        return pick
    if not found:
        return None
    if n > FIT_ALL_MAX:  # fitting each costs minutes: the fullest degree, the nearest order
        return min(found, key=lambda c: (d - c.degree, abs(n - c.order)))
    return min(found, key=lambda c: fitted_score(c, n, d))


@lru_cache(maxsize=64)
def _joined_fits(c: Construction, d: int) -> bool:
    """Whether ``c`` (``ER_q`` plus vertices joined to polar lines), built with seed 0, keeps
    every degree within ``d`` (the lines' points may not share the added ones out evenly)."""
    import numpy as np

    return int(np.bincount(c.edges(0).ravel()).max()) <= d


@lru_cache(maxsize=64)
def fitted_score(c: Construction, n: int, d: int) -> tuple:
    """``(diameter, total)`` of ``c`` fitted to ``(n, d)`` with seed 0 (bitset backend)."""
    return _fitted(c, n, d, 0)[2]


def fitted_edges(c: Construction, n: int, d: int, seed: int = 0):
    """``c``'s edges fitted to ``(n, d)`` (:func:`golf.starts.fit.fit_edges`; the incidence
    forms keep diameter 3), and the order ``c`` was built with. Where vertices are added, both
    ways of adding them (``fill`` or not) are fitted and the better one (bitset score) kept."""
    return _fitted(c, n, d, seed)[:2]


def _fitted(c: Construction, n: int, d: int, seed: int):
    """:func:`fitted_edges` and the ``(diameter, total)`` of the edges it returns."""
    import golf
    from golf.graph import Graph
    from golf.starts.fit import fit_edges, split_within_2

    built = c.edges(seed)
    order = int(built.max()) + 1
    best = None
    for fill in (False, True) if n > order else (False,):
        edges = fit_edges(built, order, n, d, seed=seed, diameter3=c.family == "Levi",
                          fill=fill)
        if c.family == "ER+":  # the join's odd ends: edges split where diameter 2 holds
            edges = split_within_2(edges, n, d, seed)
        s = golf.evaluate(Graph.from_edges(edges, n=n, d=d), "bitset")
        if best is None or (s.diameter, s.total) < best[2]:
            best = (edges, order, (s.diameter, s.total))
    return best


def algebraic_graph(n: int, d: int, seed: int = 0):
    """The fitted construction for ``(n, d)`` as a :class:`golf.Graph` (``g = 1``, rows ``d``
    wide) and a line for the log that says which construction and how it was fitted; a
    GolfError where no construction is near."""
    from golf.graph import Graph

    c = construction_for(n, d)
    if c is None:
        raise GolfError(f"problem.start: algebraic: no construction lies near (n={n}, d={d}) "
                        f"({NO_CONSTRUCTION})")
    edges, order = fitted_edges(c, n, d, seed)
    how = ("free slots joined, edges split where diameter 2 holds" if c.family == "ER+" else
           f"{n - order} vertices added (free slots, then split edges)" if n > order else
           f"{order - n} vertices deleted" if n < order else
           "as it is")
    return (Graph.from_edges(edges, n=n, d=d, source=f"{c.name} fitted"),
            f"start graph: {c.label} fitted to (n={n}, d={d}), seed {seed}: {how}")


# the largest order whose incidence forms are all fitted to choose one: one fit of 2978
# vertices (the greedy join that keeps diameter 3) took 42 s on 2 cores
FIT_ALL_MAX = 2048

# what the constructions are, for the errors that say none is near
NO_CONSTRUCTION = (f"the polarity graphs ER_q, q a prime power, less up to q/{LINES_PER} polar "
                   f"lines: degree q + 1 - lines <= d, of order within {NEAR:.0%} of n; for "
                   f"n > d^2 + 1 the incidence graphs Levi_q, whole or less a pencil or an "
                   f"antiflag: degree q + 1 <= d, of order within {NEAR:.0%} of n; ER_q plus "
                   f"n - q^2 - q - 1 vertices joined to polar lines: q + 2 <= d and the lines' "
                   f"load within d")
