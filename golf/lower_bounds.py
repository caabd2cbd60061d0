"""Moore lower bounds on the diameter and the ASPL of a graph with ``n`` vertices and degree
``<= d``.

Grow a tree from one vertex: level 1 holds at most ``d`` vertices, level ``j`` at most
``d (d-1)^(j-1)``. The diameter is at least the first level at which the tree can hold all ``n``
vertices; the ASPL is at least the mean depth when the other ``n - 1`` vertices fill the levels
greedily, shallowest first. Both are exact (integers and a :class:`fractions.Fraction`).

:func:`grid_bounds` is the lattice bound of the grid category: the same tree, also capped by
the number of lattice cells that ``k`` edges of length ``<= r`` can reach.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from golf.errors import GolfError

__all__ = ["Bounds", "GridBounds", "moore_bounds", "grid_bounds", "pair_total"]


def pair_total(aspl, n: int) -> int | None:
    """The bound on the sum over the ``n(n-1)/2`` unordered pairs that an ASPL bound ``aspl``
    (a Fraction, or None) gives: ``aspl * n(n-1)/2`` rounded up (totals are integers)."""
    if aspl is None:
        return None
    t = aspl * n * (n - 1) / 2
    return -(-t.numerator // t.denominator)


@dataclass(frozen=True)
class Bounds:
    """Moore bounds for ``(n, d)``.

    Attributes
    ----------
    diameter : int or None
        None when no connected graph exists (``d = 0 < n - 1`` or ``d = 1 < n - 1``).
    aspl : Fraction or None
    total : int or None
        The matching lower bound on the sum over unordered pairs (``aspl * n(n-1)/2``,
        rounded up).
    """

    n: int
    d: int
    diameter: int | None
    aspl: Fraction | None

    @property
    def total(self) -> int | None:
        return pair_total(self.aspl, self.n)

    def as_dict(self) -> dict:
        return {
            "n": self.n,
            "d": self.d,
            "diameter_bound": self.diameter,
            "aspl_bound": float(self.aspl) if self.aspl is not None else None,
            "aspl_bound_fraction": str(self.aspl) if self.aspl is not None else None,
        }


def moore_bounds(n: int, d: int) -> Bounds:
    """Moore bounds on diameter and ASPL for order ``n`` and degree ``d``.

    Raises GolfError for ``n < 1`` or ``d < 0``. For ``n = 1`` both bounds are 0.
    """
    n, d = int(n), int(d)
    if n < 1:
        raise GolfError(f"n must be >= 1, got {n}")
    if d < 0:
        raise GolfError(f"d must be >= 0, got {d}")
    if n == 1:
        return Bounds(n, d, 0, Fraction(0))
    if d == 0 or (d == 1 and n > 2):
        return Bounds(n, d, None, None)
    remaining = n - 1
    level, width, depth_sum = 0, d, 0
    while remaining > 0:
        level += 1
        take = min(width, remaining)
        depth_sum += take * level
        remaining -= take
        width *= d - 1
        if width == 0:  # d == 1: only n == 2 reaches here, and it is done
            break
    return Bounds(n, d, level, Fraction(depth_sum, n - 1))


@dataclass(frozen=True)
class GridBounds(Bounds):
    """Lattice bounds for the grid problem ``(w, h, d, r)``, ``n = w*h``: the fields of
    :class:`Bounds` plus the lattice size ``w x h`` and the edge length limit ``r``."""

    w: int = 1
    h: int = 1
    r: int = 1

    def as_dict(self) -> dict:
        return {"w": self.w, "h": self.h, "r": self.r, **super().as_dict()}


def _grid_shells(w, h, d, r):
    """Per source cell ``s = y*w + x``: the bound on its sum of distances, sum over ``k >= 0``
    of ``n - N_k(s)``, and the first ``k`` with ``N_k(s) = n`` (compiled by Numba on first use).

    ``N_k(s) = min(C(s, k*r), M_k)``: ``C(s, R)`` counts the cells within Manhattan distance
    ``R`` of ``s`` (``s`` included), row by row; ``M_k`` is the Moore count, capped at ``n``.
    Needs ``d >= 2``, or ``d = 1`` with ``n = 2``, or the loop would not end.
    """
    n = w * h
    sums = np.zeros(n, dtype=np.int64)
    levels = np.zeros(n, dtype=np.int64)
    for s in range(n):
        x = s % w
        y = s // w
        far = max(x, w - 1 - x) + max(y, h - 1 - y)  # the farthest cell from s
        k = 0
        moore = 1
        width = d
        total = 0
        while True:
            reach = k * r
            if reach >= far:
                cells = n
            else:
                cells = 0
                for yy in range(max(0, y - reach), min(h - 1, y + reach) + 1):
                    rest = reach - abs(yy - y)
                    cells += min(w - 1, x + rest) - max(0, x - rest) + 1
            count = min(cells, moore)
            if count >= n:
                break
            total += n - count
            k += 1
            moore = min(moore + width, n)
            width = min(width * (d - 1), n)
        sums[s] = total
        levels[s] = k
    return sums, levels


_grid_shells_jit = None


def _compiled_grid_shells():
    # Numba is imported on first use only, so that `golf bounds N D` stays quick
    global _grid_shells_jit
    if _grid_shells_jit is None:
        from numba import njit

        _grid_shells_jit = njit(cache=True)(_grid_shells)
    return _grid_shells_jit


def grid_bounds(w: int, h: int, d: int, r: int) -> GridBounds:
    """Lower bounds on diameter and ASPL of the grid problem ``(w, h, d, r)``.

    The ``n = w*h`` vertices are the cells of a ``w x h`` lattice, an edge joins two cells at
    Manhattan distance ``<= r`` and every degree is ``<= d``. From a source cell ``s``, the
    vertices within ``k`` hops are bounded twice: by the Moore count ``M_k = 1 + d + d(d-1) +
    ... + d(d-1)^(k-1)`` (the tree of :func:`moore_bounds`), and by the number ``C(s, k*r)``
    of cells, ``s`` included, within Manhattan distance ``k*r`` of ``s``, since each hop
    moves at most ``r``. So at most ``N_k(s) = min(C(s, k*r), M_k)`` vertices are within
    ``k`` hops, and at least ``n - N_k(s)`` lie farther than ``k``: the distances from ``s``
    add up to at least the sum over ``k >= 0`` of ``n - N_k(s)``. Half the sum over all
    sources bounds the total over unordered pairs; divided by ``n(n-1)/2`` it bounds the
    ASPL. The diameter is at least the largest, over the sources, of the first ``k`` with
    ``N_k(s) = n``. Cells near a corner see fewer cells, so the bound is above the Moore bound
    of ``(n, d)`` whenever ``r`` is short; for ``r >= w + h - 2`` the two are equal.

    Parameters
    ----------
    w, h : int
        The lattice size, each >= 1.
    d : int
        The degree, >= 0.
    r : int
        The edge length limit (Manhattan distance), >= 1.

    Returns
    -------
    GridBounds
        ``diameter`` (int) and ``aspl`` (exact :class:`fractions.Fraction`); both 0 for a
        single cell, both None when no connected graph exists (``d = 0`` with ``n > 1``,
        ``d = 1`` with ``n > 2``).

    Raises
    ------
    GolfError
        If ``w``, ``h`` or ``r`` is below 1, or ``d`` below 0.

    Examples
    --------
    >>> b = grid_bounds(4, 4, 3, 2)
    >>> b.diameter, b.aspl, b.total
    (3, Fraction(11, 5), 264)
    """
    w, h, d, r = int(w), int(h), int(d), int(r)
    if w < 1 or h < 1:
        raise GolfError(f"the lattice size must be at least 1x1, got {w}x{h}")
    if r < 1:
        raise GolfError(f"the edge length limit r must be >= 1, got {r}")
    if d < 0:
        raise GolfError(f"d must be >= 0, got {d}")
    n = w * h
    if n == 1:
        return GridBounds(n, d, 0, Fraction(0), w, h, r)
    if d == 0 or (d == 1 and n > 2):
        return GridBounds(n, d, None, None, w, h, r)
    sums, levels = _compiled_grid_shells()(w, h, d, r)
    return GridBounds(n, d, int(levels.max()), Fraction(int(sums.sum()), n * (n - 1)),
                      w, h, r)
